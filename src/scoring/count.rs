//! Ownership from the record's markup, the count itself, komi, and the comparison
//! with the recorded result.
//!
//! * [`ownership_from_markup`]: `TB`/`TW` territory markup (as KGS writes it at the
//!   end of a scored game) → [`Ownership`].
//! * [`count()`]: territory counting (Korean, Japanese) or area counting (Chinese).
//! * [`default_komi`]: 6.5 in even games, 0.5 with a handicap (the Korean values).
//! * [`check_result`]: the count against the recorded winner and margin.

use crate::coord::{Point, NN};
use crate::engine::{Board, Color, BLACK, EMPTY, WHITE};

use super::benson::{assemble, detect_seki, Chains, Pos, Seki};
use super::{Owner, Ownership, RuleSet, Score, ScoreCheck};

/// Margins (counted and recorded) that differ by at most this much agree: the usual
/// disagreements between counting conventions are one point (a ko or dame filled or
/// not, a seki eye counted or not, the ±1 parity between area and territory counts).
pub const MARGIN_TOLERANCE: f32 = 1.0;

/// How far one [`Owner::Undecided`] point can move the margin: under territory rules a
/// stone that turns out dead is a point of territory plus a prisoner.
const SWING_PER_UNDECIDED: f32 = 2.0;

/// Komi when the record gives none: 6.5 in an even game (`handicap` 0 or 1), 0.5 in a
/// handicap game (`handicap` ≥ 2). These are the Korean (and Japanese) values; for
/// Chinese area counting 7.5 is usual in even games (RULES §4), so pass the record's
/// `KM` whenever it has one.
pub fn default_komi(handicap: u32) -> f32 {
    if handicap >= 2 {
        0.5
    } else {
        6.5
    }
}

/// Ownership from a record's territory markup: every point listed in `tb` is Black's,
/// every point in `tw` White's, and a stone of the other colour on a listed point is
/// dead (a stone of the listed colour stays alive). Stones on unlisted points live;
/// unlisted empty points are [`Owner::Neutral`] (dame, or seki eyes, which KGS does not
/// mark). A point listed in both is [`Owner::Undecided`]; points off the board and
/// repeats are ignored.
///
/// Seki is recognised on the position with the dead stones removed (same shapes as
/// [`super::ownership_conservative`]) and listed in [`Ownership::seki`], but only on
/// points the markup leaves unlisted: the markup always wins.
pub fn ownership_from_markup(board: &Board, tb: &[Point], tw: &[Point]) -> Ownership {
    let pos = Pos::new(board);
    let ch = Chains::new(&pos);
    let mut listed = [0u8; NN];
    for (list, bit) in [(tb, BLACK), (tw, WHITE)] {
        for p in list {
            let i = p.index() as usize;
            if i < NN && pos.on[i] {
                listed[i] |= bit;
            }
        }
    }
    // A chain is dead as soon as one of its stones is listed for the opponent (KGS
    // marks whole chains); for the points themselves the markup is taken literally.
    let mut dead_stone = [false; NN];
    let mut dead_chain = vec![false; ch.len()];
    for (i, &l) in listed.iter().enumerate() {
        let c = pos.cells[i];
        if c != EMPTY && l == 3 - c {
            dead_stone[i] = true;
            if let Some(k) = ch.of(i) {
                dead_chain[k] = true;
            }
        }
    }
    let live: Vec<bool> = dead_chain.iter().map(|d| !d).collect();
    let seki = detect_seki(&pos, &ch, &live, &live, &dead_chain);

    let mut own = Ownership::undecided();
    for (i, &l) in listed.iter().enumerate() {
        own.point[i] = if !pos.on[i] {
            Owner::Neutral
        } else {
            match l {
                BLACK => Owner::Black,
                WHITE => Owner::White,
                3 => Owner::Undecided,
                _ if seki.point[i] => Owner::Neutral,
                _ => match pos.cells[i] {
                    BLACK => Owner::Black,
                    WHITE => Owner::White,
                    _ => Owner::Neutral,
                },
            }
        };
    }
    for i in 0..NN {
        if let Some(p) = Point::from_index(i as u16) {
            if dead_stone[i] {
                own.dead.push(p);
            }
            if pos.on[i] && seki.point[i] && listed[i] == 0 {
                own.seki.push(p);
            }
        }
    }
    own
}

/// The position counted as it stands: every stone alive, nothing dead, no seki; an
/// empty area belongs to the colour that alone borders it, else to nobody. The
/// reference count of a game stopped before its end (`kibo match --max-moves` without
/// KataGo: "territory and captures, dead stones not judged", docs/match.md).
pub fn ownership_as_it_stands(board: &Board) -> Ownership {
    let pos = Pos::new(board);
    let ch = Chains::new(&pos);
    let nch = ch.len();
    assemble(&pos, &ch, &vec![false; nch], &vec![true; nch], &Seki { chain: vec![false; nch], point: [false; NN] })
}

/// Counts a final position.
///
/// `own` says who owns each point and which stones are dead (a stone is dead iff it is
/// in `own.dead`); `prisoners_black` / `prisoners_white` are the stones captured **by**
/// Black / White during the game ([`Board::prisoners`]); `komi` goes to White;
/// `handicap` is the number of handicap stones (`HA`).
///
/// * **Territory** ([`RuleSet::Korean`], [`RuleSet::Japanese`]): a player's score is
///   the points they own that are empty or hold a dead opponent stone, plus their
///   prisoners, plus the dead opponent stones. Living stones, dame and seki points
///   (stones, eyes, shared liberties) count for nobody. No handicap bonus.
/// * **Area** ([`RuleSet::Chinese`]): a player's score is their living stones (in seki
///   too) plus the points they own that are empty or hold a dead opponent stone, plus
///   the eyes of their groups in seki (an empty seki point whose neighbours are all
///   their stones). Shared liberties and dame count for nobody (no ½–½ split of dame,
///   which RULES §4 leaves unverified). Prisoners are ignored. White gets `handicap`
///   points more when `handicap` ≥ 2 (Chinese and KGS practice, RULES §2.1/§4).
///
/// [`Owner::Undecided`] points count for nobody and are counted in
/// [`Score::undecided_points`]. Points off a smaller board are ignored. With the same
/// ownership, no undecided point and no seki, area − territory margins differ by exactly
/// `n_B − n_W` (stones placed, handicap stones included) plus the handicap bonus (RULES
/// §4 consistency check).
///
/// [`Board::prisoners`]: crate::engine::Board::prisoners
pub fn count(
    board: &Board,
    own: &Ownership,
    rules: RuleSet,
    komi: f32,
    prisoners_black: u32,
    prisoners_white: u32,
    handicap: u32,
) -> Score {
    let pos = Pos::new(board);
    let count_own = |o: &Ownership| count_on(board, &pos, o, rules, komi, [prisoners_black, prisoners_white], handicap);
    let mut score = count_own(own);
    if score.undecided_points > 0 {
        score.swing = swing(&pos, own, &score, count_own);
    }
    score
}

/// [`count()`] on `pos` (the cells of `board`), with the symmetric swing of
/// [`Score::from_parts`].
fn count_on(
    board: &Board,
    pos: &Pos,
    own: &Ownership,
    rules: RuleSet,
    komi: f32,
    prisoners: [u32; 2],
    handicap: u32,
) -> Score {
    let mut dead = [false; NN];
    for p in &own.dead {
        let i = p.index() as usize;
        if i < NN && pos.on[i] && pos.cells[i] != EMPTY {
            dead[i] = true;
        }
    }
    let mut seki = [false; NN];
    for p in &own.seki {
        let i = p.index() as usize;
        if i < NN {
            seki[i] = true;
        }
    }
    let mut terr = [0u32; 2];
    let mut stones = [0u32; 2];
    let mut undecided = 0u32;
    let mut dead_stones = [0u32; 2];
    let fill = if rules.is_area() { [false; NN] } else { must_fill(board, pos, own, &dead, &seki) };
    for i in 0..NN {
        if !pos.on[i] {
            continue;
        }
        let cell = pos.cells[i];
        if dead[i] {
            dead_stones[cell as usize - 1] += 1;
        }
        let owner = own.point[i];
        if owner == Owner::Undecided {
            undecided += 1;
            continue;
        }
        // A point that would be empty once the dead stones are removed.
        let open = cell == EMPTY || dead[i];
        if open {
            match owner {
                // A point its owner must fill is no territory (territory rules).
                Owner::Black | Owner::White if fill[i] => {}
                Owner::Black => terr[0] += 1,
                Owner::White => terr[1] += 1,
                _ => {
                    // Seki eye: counts for its owner under area rules only.
                    if rules.is_area() && seki[i] && cell == EMPTY {
                        match seki_eye_colour(pos, i) {
                            Some(BLACK) => terr[0] += 1,
                            Some(WHITE) => terr[1] += 1,
                            _ => {}
                        }
                    }
                }
            }
        } else {
            // A living stone owned by its colour, or a stone in seki.
            let counts = match owner {
                Owner::Black => cell == BLACK,
                Owner::White => cell == WHITE,
                Owner::Neutral => seki[i],
                Owner::Undecided => false,
            };
            if counts {
                stones[cell as usize - 1] += 1;
            }
        }
    }
    Score::from_parts(rules, komi, handicap, terr, prisoners, dead_stones, stones, undecided)
}

/// How far the undecided points of `own` can move the count `score` (`[down, up]`, see
/// [`Score::swing`]): the count with every unsettled chain (a stone neither dead nor in
/// seki whose point is [`Owner::Undecided`]) of White dead and of Black alive is Black's
/// best, the reverse White's best; only the undecided points change (they take the
/// owners of [`assemble`] on the board with those chains settled), and a point that stays
/// undecided even then (empty, or a dead stone's) moves the count by 1. Neither way goes
/// beyond what the undecided points can do one by one: 1 an empty point or a dead
/// stone's, 1 a stone under area rules, and under territory rules 2 towards the
/// opponent (none towards its colour) a stone of an unsettled chain. Seki is not among
/// the outcomes (as in [`super::judge()`]'s count).
fn swing(pos: &Pos, own: &Ownership, score: &Score, recount: impl Fn(&Ownership) -> Score) -> [f32; 2] {
    let ch = Chains::new(pos);
    let nch = ch.len();
    let mut dead_point = [false; NN];
    let mut seki = Seki { chain: vec![false; nch], point: [false; NN] };
    for (list, flags) in [(&own.dead, &mut dead_point), (&own.seki, &mut seki.point)] {
        for i in list.iter().map(|p| p.index() as usize).filter(|&i| i < NN) {
            flags[i] = true;
        }
    }
    let (mut dead, mut alive, mut open) = (vec![false; nch], vec![false; nch], vec![false; nch]);
    for c in 0..nch {
        let i = ch.points(c)[0] as usize;
        if ch.points(c).iter().any(|&p| dead_point[p as usize]) {
            dead[c] = true;
        } else if seki.point[i] {
            (seki.chain[c], alive[c]) = (true, true);
        } else if own.point[i] == Owner::Undecided {
            open[c] = true;
        } else {
            alive[c] = true;
        }
    }
    // Each undecided point alone: an empty point (or a dead stone's) is at most a point
    // of either side's; a stone of an unsettled chain under territory rules counts
    // nothing alive and two points for the opponent dead, under area rules one point for
    // whoever owns it.
    let mut cap = [0f32; 2];
    for i in (0..NN).filter(|&i| pos.on[i] && own.point[i] == Owner::Undecided) {
        cap = match ch.of(i).filter(|&c| open[c]).map(|c| ch.color[c]) {
            Some(BLACK) if !score.rules.is_area() => [cap[0] + SWING_PER_UNDECIDED, cap[1]],
            Some(WHITE) if !score.rules.is_area() => [cap[0], cap[1] + SWING_PER_UNDECIDED],
            _ => [cap[0] + 1.0, cap[1] + 1.0],
        };
    }
    let m = score.margin;
    let (mut low, mut high) = (m, m);
    for best in [BLACK, WHITE] {
        let lives = |c: usize| alive[c] || (open[c] && ch.color[c] == best);
        let dies: Vec<bool> = (0..nch).map(|c| dead[c] || (open[c] && ch.color[c] != best)).collect();
        let lives: Vec<bool> = (0..nch).map(lives).collect();
        let settled = assemble(pos, &ch, &dies, &lives, &seki);
        let mut o = own.clone();
        for (i, p) in o.point.iter_mut().enumerate() {
            if *p == Owner::Undecided {
                *p = settled.point[i];
            }
        }
        for c in (0..nch).filter(|&c| open[c] && ch.color[c] != best) {
            o.dead.extend(ch.points(c).iter().filter_map(|&p| Point::from_index(p)));
        }
        // What stays undecided is empty or a dead stone's point: a point either way.
        let s = recount(&o);
        let left = s.undecided_points as f32;
        (low, high) = (low.min(s.margin - left), high.max(s.margin + left));
    }
    [(m - low).min(cap[0]), (high - m).min(cap[1])]
}

/// Territory rules: the empty points of a player's territory that the player must
/// fill before the game ends (*teire*): a liberty of one of its living chains that has
/// exactly two, the other a dame point where the opponent may play (not a self-atari)
/// and the player may not (a self-atari), so that the opponent's move there puts the
/// chain in atari and the player connects inside its territory. Under area rules
/// filling one's own territory costs nothing (docs/scoring.md, "Points that must be
/// filled").
fn must_fill(board: &Board, pos: &Pos, own: &Ownership, dead: &[bool; NN], seki: &[bool; NN]) -> [bool; NN] {
    let mut fill = [false; NN];
    let mut libs = Vec::new();
    for (t, filled) in fill.iter_mut().enumerate() {
        let owner = match own.point[t] {
            Owner::Black => BLACK,
            Owner::White => WHITE,
            _ => continue,
        };
        if !pos.on[t] || pos.cells[t] != EMPTY {
            continue;
        }
        for q in pos.adj(t) {
            if pos.cells[q] != owner || dead[q] {
                continue;
            }
            let Some(at) = Point::from_index(q as u16) else { continue };
            board.chain_liberty_points(at, &mut libs);
            let [a, b] = libs[..] else { continue };
            let d = if a.index() as usize == t { b } else { a };
            let di = d.index() as usize;
            if di >= NN || own.point[di] != Owner::Neutral || seki[di] {
                continue;
            }
            let (pla, opp) = if owner == BLACK { (Color::Black, Color::White) } else { (Color::White, Color::Black) };
            if board.move_shape(pla, d).1 <= 1 && board.move_shape(opp, d).1 >= 2 {
                *filled = true;
                break;
            }
        }
    }
    fill
}

/// A margin (Black's points minus White's) as a record writes the result: `B+3.5`,
/// `W+4.5`, `0` (a draw).
pub fn result_text(margin: f32) -> String {
    if margin > 0.0 {
        format!("B+{margin:.1}")
    } else if margin < 0.0 {
        format!("W+{:.1}", -margin)
    } else {
        "0".to_string()
    }
}

impl Score {
    /// The count's result as a record writes it: `B+3.5`, `W+4.5`, or `0` for a draw.
    pub fn result_text(&self) -> String {
        result_text(self.margin)
    }

    /// The same count with the undecided points' swing at its widest, 2 a point both ways
    /// (as [`Score::from_parts`] gives it), whatever [`count()`] found they could do.
    #[cfg(test)]
    pub(crate) fn with_full_swing(&self) -> Score {
        Score { swing: [SWING_PER_UNDECIDED * self.undecided_points as f32; 2], ..*self }
    }

    /// The score of these parts (see [`count()`] for what each counts): territory rules
    /// `black = territory + prisoners + dead white stones`, area rules `black = stones +
    /// territory`; White adds `komi` (when finite) and, under area rules with
    /// `handicap` ≥ 2, one point per handicap stone.
    #[allow(clippy::too_many_arguments)]
    pub fn from_parts(
        rules: RuleSet,
        komi: f32,
        handicap: u32,
        territory: [u32; 2],
        prisoners: [u32; 2],
        dead: [u32; 2],
        stones: [u32; 2],
        undecided_points: u32,
    ) -> Score {
        let komi = if komi.is_finite() { komi } else { 0.0 };
        let bonus = if rules.is_area() && handicap >= 2 { handicap as f32 } else { 0.0 };
        let slack = SWING_PER_UNDECIDED * undecided_points as f32;
        let (b, w) = if rules.is_area() {
            ((stones[0] + territory[0]) as f32, (stones[1] + territory[1]) as f32 + bonus + komi)
        } else {
            ((territory[0] + prisoners[0] + dead[1]) as f32, (territory[1] + prisoners[1] + dead[0]) as f32 + komi)
        };
        Score {
            rules,
            komi,
            bonus,
            territory,
            prisoners,
            dead,
            stones,
            black: b,
            white: w,
            margin: b - w,
            undecided_points,
            swing: [slack; 2],
        }
    }
}

/// The colour of every stone around the empty point `i`, if they are all one colour.
fn seki_eye_colour(pos: &Pos, i: usize) -> Option<u8> {
    let mut mask = 0u8;
    for q in pos.adj(i) {
        mask |= pos.cells[q];
    }
    (mask == BLACK || mask == WHITE).then_some(mask)
}

/// Compares a count with the recorded result.
///
/// `winner_black`: `Some(true)` for `B+…`, `Some(false)` for `W+…`, `None` when the
/// record names no winner (draw, void, unknown). `recorded_margin`: the margin written in
/// the result (`RE[W+3.5]` → `3.5`; the sign is ignored), `None` when it gives none.
///
/// The verdict of [`check_within`] with every undecided point moving the margin by up to
/// 2 (a stone that is dead after all is a point of territory plus a prisoner), except
/// that an `Undecided` there is [`ScoreCheck::Agrees`] when it is with [`Score::swing`]
/// (the unsettled chains settled each way, see [`count()`]): the narrower bound may
/// confirm a record, never contradict it.
pub fn check_result(score: &Score, winner_black: Option<bool>, recorded_margin: Option<f32>) -> ScoreCheck {
    let wide = [SWING_PER_UNDECIDED * score.undecided_points as f32; 2];
    match check_within(score, wide, winner_black, recorded_margin) {
        ScoreCheck::Undecided
            if check_within(score, score.swing, winner_black, recorded_margin) == ScoreCheck::Agrees =>
        {
            ScoreCheck::Agrees
        }
        verdict => verdict,
    }
}

/// The count `score` against the record when the true margin lies in `[m − down, m + up]`
/// (`m` = [`Score::margin`], `u` = [`Score::undecided_points`], `swing = [down, up]`):
/// * no recorded winner → [`ScoreCheck::Undecided`];
/// * that interval contains 0 (the undecided points could flip the winner; with `u = 0`,
///   a count of exactly 0) → [`ScoreCheck::Undecided`] if `u > 0`, else
///   [`ScoreCheck::WinnerDiffers`] (a counted draw against a recorded win);
/// * the count's winner differs from the recorded one → [`ScoreCheck::WinnerDiffers`];
/// * no recorded margin → [`ScoreCheck::Agrees`];
/// * `| |m| − recorded |` ≤ [`MARGIN_TOLERANCE`] (1 point) → [`ScoreCheck::Agrees`];
/// * otherwise, if the recorded margin lies in that interval (± [`MARGIN_TOLERANCE`]) →
///   [`ScoreCheck::Undecided`], else [`ScoreCheck::MarginDiffers`] (the same winner,
///   margins more than a point apart).
///
/// A non-finite margin in either argument gives [`ScoreCheck::Undecided`].
fn check_within(
    score: &Score,
    swing: [f32; 2],
    winner_black: Option<bool>,
    recorded_margin: Option<f32>,
) -> ScoreCheck {
    let Some(black_won) = winner_black else {
        return ScoreCheck::Undecided;
    };
    let m = score.margin;
    if !m.is_finite() {
        return ScoreCheck::Undecided;
    }
    let [down, up] = swing.map(|s| if s.is_finite() { s.max(0.0) } else { f32::INFINITY });
    if m - down <= 0.0 && m + up >= 0.0 {
        return if score.undecided_points > 0 { ScoreCheck::Undecided } else { ScoreCheck::WinnerDiffers };
    }
    if (m > 0.0) != black_won {
        return ScoreCheck::WinnerDiffers;
    }
    let Some(rec) = recorded_margin else {
        return ScoreCheck::Agrees;
    };
    if !rec.is_finite() {
        return ScoreCheck::Undecided;
    }
    let diff = (m.abs() - rec.abs()).abs();
    // The winner's margin the undecided points allow: from `|m| − less` to `|m| + more`.
    let (less, more) = if m > 0.0 { (down, up) } else { (up, down) };
    let explained = rec.abs() >= m.abs() - less - MARGIN_TOLERANCE && rec.abs() <= m.abs() + more + MARGIN_TOLERANCE;
    if diff <= MARGIN_TOLERANCE {
        ScoreCheck::Agrees
    } else if explained {
        ScoreCheck::Undecided
    } else {
        ScoreCheck::MarginDiffers
    }
}
