//! `katago-v7`: KataGo's input features, version 7 (22 spatial + 19 global), as the C++
//! `NNInputs::fillRowV7` (`cpp/neuralnet/nninputs.cpp`) defines them for a 19×19 board.
//! Channel by channel in `docs/planes.md`; the rules mapping is [`KataRules::from_ru`].
//!
//! [`V7Encoder::encode`] fills one row from a [`V7Position`]: the board before the move
//! (with its simple-ko state), the boards one and two moves before, the recent moves and
//! the rules. It follows the C++ where KataGo's Python `features.py` differs
//! (docs/planes.md, "features.py and the C++"): the white handicap bonus in the komi
//! (Chinese N, AGA N − 1), the komi clip ±(area + 20), the ladder boards of channels
//! 15/16 taken only as far as the alternating history reaches, and the history hidden
//! (with global 14 = 0) on the row right after one pass under area rules that allow a
//! friendly pass (Chinese, AGA, New Zealand), and the superko bans of channel 6 under
//! positional and situational ko (AGA, New Zealand, Tromp-Taylor), against the boards up
//! to 8 moves back ([`superko`]). Not modelled: the encore (territory rules stay in phase
//! 0, as in features.py).

mod area;
mod superko;

use crate::coord::{Move, Point, NN};
use crate::engine::{Board, Color};
use crate::tactics::LadderSearch;

pub use area::Area;
pub use superko::Earlier;

/// Spatial channels.
pub const SPATIAL: usize = 22;
/// Global channels.
pub const GLOBAL: usize = 19;
/// KataGo's komi clip radius beyond the board area (`KOMI_CLIP_RADIUS` in nninputs.h).
const KOMI_CLIP: f32 = 20.0;

/// KataGo's ko rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KoRule {
    /// Only the immediate recapture is banned.
    Simple,
    /// Positional superko.
    Positional,
    /// Situational superko.
    Situational,
}

/// KataGo's tax rule (what a group pays for its eyes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tax {
    /// No tax.
    None,
    /// Seki eyes count for nobody.
    Seki,
    /// Every group pays two points.
    All,
}

/// Extra komi white receives in a handicap game of N stones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandicapBonus {
    /// None.
    Zero,
    /// N points.
    N,
    /// N − 1 points.
    NMinusOne,
}

/// One of KataGo's named rule sets (`cpp/game/rules.cpp`, `parseRulesHelper`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KataRules {
    /// KataGo's name: `japanese`, `korean`, `chinese`, `aga`, `new-zealand`, `tromp-taylor`.
    pub name: &'static str,
    pub ko: KoRule,
    /// Territory scoring (else area).
    pub territory: bool,
    pub tax: Tax,
    /// Multi-stone suicide legal.
    pub suicide: bool,
    pub handicap_bonus: HandicapBonus,
    /// A pass that would end the game is "friendly" (area rules that allow it): the row
    /// after one pass hides its history.
    pub friendly_pass_ok: bool,
    /// The rule set's default komi.
    pub default_komi: f32,
}

impl KataRules {
    pub const JAPANESE: KataRules = KataRules {
        name: "japanese",
        ko: KoRule::Simple,
        territory: true,
        tax: Tax::Seki,
        suicide: false,
        handicap_bonus: HandicapBonus::Zero,
        friendly_pass_ok: false,
        default_komi: 6.5,
    };
    pub const KOREAN: KataRules = KataRules { name: "korean", ..KataRules::JAPANESE };
    pub const CHINESE: KataRules = KataRules {
        name: "chinese",
        ko: KoRule::Simple,
        territory: false,
        tax: Tax::None,
        suicide: false,
        handicap_bonus: HandicapBonus::N,
        friendly_pass_ok: true,
        default_komi: 7.5,
    };
    pub const AGA: KataRules = KataRules {
        name: "aga",
        ko: KoRule::Situational,
        handicap_bonus: HandicapBonus::NMinusOne,
        ..KataRules::CHINESE
    };
    pub const NEW_ZEALAND: KataRules = KataRules {
        name: "new-zealand",
        ko: KoRule::Situational,
        suicide: true,
        handicap_bonus: HandicapBonus::Zero,
        default_komi: 7.0,
        ..KataRules::CHINESE
    };
    pub const TROMP_TAYLOR: KataRules = KataRules {
        name: "tromp-taylor",
        ko: KoRule::Positional,
        suicide: true,
        handicap_bonus: HandicapBonus::Zero,
        friendly_pass_ok: false,
        ..KataRules::CHINESE
    };

    /// The rule set of a game's `RU` (case-insensitive substrings): `japan` Japanese,
    /// `korea` Korean, `chin` or `cn` Chinese, `aga`, `bga` or `french` AGA,
    /// `new zealand`, `new-zealand` or `nz` New Zealand, `tromp` or `tt` Tromp-Taylor.
    /// A missing `RU`, and any other text, means Japanese.
    pub fn from_ru(ru: Option<&str>) -> KataRules {
        let r = ru.unwrap_or("").trim().to_ascii_lowercase();
        let has = |k: &[&str]| k.iter().any(|k| r.contains(k));
        if has(&["japan"]) {
            KataRules::JAPANESE
        } else if has(&["korea"]) {
            KataRules::KOREAN
        } else if has(&["chin"]) || r == "cn" {
            KataRules::CHINESE
        } else if has(&["aga", "bga", "french"]) {
            KataRules::AGA
        } else if has(&["new zealand", "new-zealand", "newzealand"]) || r == "nz" {
            KataRules::NEW_ZEALAND
        } else if has(&["tromp"]) || r == "tt" {
            KataRules::TROMP_TAYLOR
        } else {
            KataRules::JAPANESE
        }
    }

    /// White's handicap bonus for `stones` handicap stones (KataGo
    /// `computeWhiteHandicapBonus`; `stones` from [`handicap_stones`]).
    pub fn white_bonus(&self, stones: u32) -> f32 {
        match self.handicap_bonus {
            HandicapBonus::Zero => 0.0,
            HandicapBonus::N => stones as f32,
            HandicapBonus::NMinusOne => stones.saturating_sub(1) as f32,
        }
    }
}

/// KataGo's handicap stone count (`computeNumHandicapStones` with
/// `assumeMultipleStartingBlackMovesAreHandicap`): 0 when the start position has a white
/// stone; else its black stones plus the leading black non-pass moves among the moves
/// played so far (`leading_black`), and 0 when that is at most 1.
pub fn handicap_stones(setup_black: u32, setup_white: u32, leading_black: u32) -> u32 {
    if setup_white != 0 {
        return 0;
    }
    let n = setup_black + leading_black;
    if n <= 1 {
        0
    } else {
        n
    }
}

/// Everything a `katago-v7` row is computed from.
#[derive(Clone, Copy, Debug)]
pub struct V7Position<'a> {
    /// The position the move is played in.
    pub board: &'a Board,
    /// Its simple-ko point (channel 6): [`Board::ko_point`] when the board came from a
    /// replay.
    pub ko: Option<Point>,
    /// The boards one and two moves before (`None` before the game's start).
    pub prev: [Option<&'a Board>; 2],
    /// The boards up to 8 moves before, with their sides to move: the superko bans of
    /// channel 6 (read under positional and situational ko only).
    pub earlier: Earlier<'a>,
    /// The side to move.
    pub to_play: Color,
    /// The moves before this one, most recent first (at least 5 when there are).
    pub recent: &'a [(Color, Move)],
    pub rules: &'a KataRules,
    /// The game's komi.
    pub komi: f32,
    /// Stones placed so far by black and by white: setup stones plus non-pass moves
    /// (territory-rules komi chilling).
    pub placed: [u32; 2],
    /// [`handicap_stones`] at this row.
    pub handicap: u32,
}

/// One encoded row: spatial channels as 0/1 bytes, channel-major (`[c * 361 + p]`), and
/// the globals.
#[derive(Clone, Debug)]
pub struct V7Row {
    pub spatial: Vec<u8>,
    pub global: [f32; GLOBAL],
}

impl Default for V7Row {
    fn default() -> V7Row {
        V7Row { spatial: vec![0; SPATIAL * NN], global: [0.0; GLOBAL] }
    }
}

impl V7Row {
    #[inline]
    fn set(&mut self, ch: usize, p: usize) {
        self.spatial[ch * NN + p] = 1;
    }
    /// Whether spatial channel `ch` is set at point `p`.
    #[inline]
    pub fn get(&self, ch: usize, p: usize) -> bool {
        self.spatial[ch * NN + p] != 0
    }
}

/// The encoder: owns the ladder and area buffers, so encoding allocates nothing after
/// the first rows. One per thread.
#[derive(Clone, Debug, Default)]
pub struct V7Encoder {
    ladder: LadderSearch,
    area: Option<Box<Area>>,
    memo: Vec<LadderMemo>,
    solved: Vec<bool>,
    stones: Vec<Point>,
    working: Vec<Point>,
    cells: Vec<u8>,
    superko: Option<Box<superko::Scratch>>,
}

impl V7Encoder {
    pub fn new() -> V7Encoder {
        V7Encoder::default()
    }

    /// Fills `row` (cleared first) for `pos`.
    pub fn encode(&mut self, pos: &V7Position, row: &mut V7Row) {
        row.spatial.fill(0);
        row.global = [0.0; GLOBAL];
        let board = pos.board;
        let pla = pos.to_play;
        let opp = pla.opponent();
        self.stones_and_liberties(board, pla, row);
        if let Some(k) = pos.ko {
            row.set(6, k.index() as usize);
        }
        if pos.rules.ko != KoRule::Simple {
            let now: &[u8; NN] = self.cells[..].try_into().expect("NN cells");
            let q = superko::Query {
                board,
                now,
                pla,
                ko: pos.ko,
                positional: pos.rules.ko == KoRule::Positional,
                suicide: pos.rules.suicide,
                earlier: pos.earlier,
            };
            superko::bans(&q, self.superko.get_or_insert_with(Default::default), |p| row.set(6, p));
        }
        let included = history(pos, row);
        self.ladders(board, pla, row, 14, true);
        let prev1 = if included >= 1 { pos.prev[0].unwrap_or(board) } else { board };
        let prev2 = if included >= 2 { pos.prev[1].unwrap_or(prev1) } else { prev1 };
        self.ladders(prev1, pla, row, 15, false);
        self.ladders(prev2, pla, row, 16, false);
        if !pos.rules.territory && pos.rules.tax == Tax::None {
            let mut area = [0u8; NN];
            self.area.get_or_insert_with(Default::default).calculate(board, pos.rules.suicide, &mut area);
            for (p, &a) in area.iter().enumerate() {
                if a == pla as u8 {
                    row.set(18, p);
                } else if a == opp as u8 {
                    row.set(19, p);
                }
            }
        }
        globals(pos, row);
    }

    fn stones_and_liberties(&mut self, board: &Board, pla: Color, row: &mut V7Row) {
        self.cells.resize(NN, 0);
        let cells: &mut [u8; NN] = (&mut self.cells[..]).try_into().expect("NN cells");
        board.cells(cells);
        let mut libs = [0u8; NN];
        board.liberties_by_point(&mut libs);
        let (cols, rows) = board.size();
        for r in 0..rows {
            for p in r * 19..r * 19 + cols {
                row.set(0, p);
                let c = cells[p];
                if c == 0 {
                    continue;
                }
                row.set(if c == pla as u8 { 1 } else { 2 }, p);
                if (1..=3).contains(&libs[p]) {
                    row.set(2 + libs[p] as usize, p);
                }
            }
        }
    }

    /// KataGo `iterLadders`: every stone of a chain with 1 liberty that is
    /// ladder-captured with the defender first, or with 2 liberties that the attacker can
    /// ladder, goes into channel `ch`; with `working`, the attacker's working moves
    /// against the opponent's 2-liberty chains go into channel 17. The answers of a board
    /// are remembered ([`LadderMemo`]): a game's rows, encoded in order, meet each board
    /// three times (now, one and two moves back).
    fn ladders(&mut self, board: &Board, pla: Color, row: &mut V7Row, ch: usize, working: bool) {
        let key = LadderKey::of(board);
        let i = match self.memo.iter().position(|m| m.key == key) {
            Some(i) => i,
            None => {
                let mut m = if self.memo.len() >= MEMO_BOARDS { self.memo.pop() } else { None }.unwrap_or_default();
                m.key = key;
                self.solve(board, &mut m);
                self.memo.insert(0, m);
                0
            }
        };
        let m = &self.memo[i];
        m.laddered.for_each(|p| row.set(ch, p));
        if working {
            m.working[pla.opponent() as usize - 1].for_each(|p| row.set(17, p));
        }
    }

    /// Fills `m`'s answers for `board`: the laddered stones, and the working moves
    /// against the 2-liberty chains of each colour.
    fn solve(&mut self, board: &Board, m: &mut LadderMemo) {
        m.laddered = Bits::default();
        m.working = [Bits::default(); 2];
        self.solved.clear();
        self.solved.resize(NN, false);
        let mut libs = [0u8; NN];
        board.liberties_by_point(&mut libs);
        // KataGo's `iterLadders` runs these searches, in this order (row-major from the
        // top), on one shared copy of the board. Each search restores the copy but for one
        // thing: a defender-first search that runs out of its node budget unwinds its moves
        // without restoring the simple-ko point it cleared at its root, so from then on the
        // attacker's first move of a 2-liberty search may retake that ko (docs/planes.md,
        // "The ladder channels and KataGo's shared copy"). `koless`: the board so left.
        let mut koless: Option<Board> = None;
        for (p, &l) in libs.iter().enumerate() {
            // Chains with 3 or more liberties are never laddered; their stones cost one
            // lookup each.
            if self.solved[p] || !(1..=2).contains(&l) {
                continue;
            }
            let pt = Point::from_index(p as u16).expect("a point");
            let color = if m.key.cells[p] == 1 { Color::Black } else { Color::White };
            let laddered = if l == 1 {
                let r = self.ladder.is_captured(board, pt, true);
                if self.ladder.gave_up() && koless.is_none() && board.ko_point().is_some() {
                    let mut b = board.clone();
                    b.clear_ko();
                    koless = Some(b);
                }
                r
            } else {
                self.ladder.working_moves_2libs(koless.as_ref().unwrap_or(board), pt, &mut self.working)
            };
            board.chain_stones(pt, &mut self.stones);
            for s in &self.stones {
                let i = s.index() as usize;
                self.solved[i] = true;
                if laddered {
                    m.laddered.set(i);
                }
            }
            if laddered && l == 2 {
                for w in &self.working {
                    m.working[color as usize - 1].set(w.index() as usize);
                }
            }
        }
    }
}

/// Boards whose ladder answers an encoder remembers.
const MEMO_BOARDS: usize = 4;

/// What a board's ladder answers depend on: its stones, its size and its simple-ko ban.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct LadderKey {
    cells: [u8; NN],
    size: (usize, usize),
    ko: Option<(Point, Option<Color>)>,
}

impl Default for LadderKey {
    fn default() -> LadderKey {
        LadderKey { cells: [u8::MAX; NN], size: (0, 0), ko: None }
    }
}

impl LadderKey {
    fn of(board: &Board) -> LadderKey {
        let mut cells = [0u8; NN];
        board.cells(&mut cells);
        LadderKey { cells, size: board.size(), ko: board.ko_point().map(|k| (k, board.ko_color())) }
    }
}

/// One bit per point.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Bits([u64; NN.div_ceil(64)]);

impl Bits {
    #[inline]
    fn set(&mut self, p: usize) {
        self.0[p / 64] |= 1 << (p % 64);
    }
    /// Calls `f` on every set point, in increasing order.
    #[inline]
    fn for_each(&self, mut f: impl FnMut(usize)) {
        for (w, &word) in self.0.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                f(w * 64 + bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
        }
    }
}

/// A board's ladder answers: the laddered stones (channels 14-16) and, per colour, the
/// attacker's working moves against that colour's laddered 2-liberty chains (channel 17
/// takes the opponent's).
#[derive(Clone, Debug, Default)]
struct LadderMemo {
    key: LadderKey,
    laddered: Bits,
    working: [Bits; 2],
}

/// Channels 9-13 and globals 0-4: the alternating chain of the last five moves (1 ago
/// by the opponent, 2 ago by the side to move, …), stopped at the first colour mismatch;
/// hidden on the row right after one pass under friendly-pass rules. Returns how many
/// turns were included.
fn history(pos: &V7Position, row: &mut V7Row) -> usize {
    if hide_history(pos) {
        return 0;
    }
    let pla = pos.to_play;
    let mut included = 0;
    for (i, &(c, m)) in pos.recent.iter().take(5).enumerate() {
        let expect = if i % 2 == 0 { pla.opponent() } else { pla };
        if c != expect {
            break;
        }
        included = i + 1;
        match m {
            Move::Play(p) => row.set(9 + i, p.index() as usize),
            Move::Pass => row.global[i] = 1.0,
        }
    }
    included
}

/// KataGo's `passWouldEndGame && shouldSuppressEndGameFromFriendlyPass`: area rules with
/// `friendlyPassOk`, and the last move was a pass that was not itself preceded by a pass.
fn hide_history(pos: &V7Position) -> bool {
    pos.rules.friendly_pass_ok
        && !pos.rules.territory
        && pos.recent.first().is_some_and(|m| m.1 == Move::Pass)
        && pos.recent.get(1).is_none_or(|m| m.1 != Move::Pass)
}

/// The side to move's komi (KataGo `currentSelfKomi`): komi plus the handicap bonus,
/// plus the territory-rules chill (one point per black stone placed, minus one per
/// white), negated for black, clipped to ±(area + 20).
pub fn self_komi(pos: &V7Position) -> f32 {
    let mut white = pos.komi + pos.rules.white_bonus(pos.handicap);
    if pos.rules.territory {
        white += pos.placed[0] as f32 - pos.placed[1] as f32;
    }
    let s = if pos.to_play == Color::White { white } else { -white };
    let (cols, rows) = pos.board.size();
    let lim = (cols * rows) as f32 + KOMI_CLIP;
    s.clamp(-lim, lim)
}

fn globals(pos: &V7Position, row: &mut V7Row) {
    let r = pos.rules;
    let komi = self_komi(pos);
    row.global[5] = komi / 20.0;
    match r.ko {
        KoRule::Simple => {}
        KoRule::Positional => (row.global[6], row.global[7]) = (1.0, 0.5),
        KoRule::Situational => (row.global[6], row.global[7]) = (1.0, -0.5),
    }
    if r.suicide {
        row.global[8] = 1.0;
    }
    if r.territory {
        row.global[9] = 1.0;
    }
    match r.tax {
        Tax::None => {}
        Tax::Seki => row.global[10] = 1.0,
        Tax::All => (row.global[10], row.global[11]) = (1.0, 1.0),
    }
    // passWouldEndPhase: the last move was a pass (one more makes two in a row); 0 when
    // the history is hidden.
    let last_pass = pos.recent.first().is_some_and(|m| m.1 == Move::Pass);
    if last_pass && !hide_history(pos) {
        row.global[14] = 1.0;
    }
    if !r.territory {
        row.global[18] = komi_wave(komi, pos.board.size());
    }
}

/// Global 18: the komi-parity triangle wave.
fn komi_wave(komi: f32, (cols, rows): (usize, usize)) -> f32 {
    let even = cols % 2 == 0 || rows % 2 == 0;
    let floor = if even { (komi / 2.0).floor() * 2.0 } else { ((komi - 1.0) / 2.0).floor() * 2.0 + 1.0 };
    let delta = (komi - floor).clamp(0.0, 2.0);
    if delta < 0.5 {
        delta
    } else if delta < 1.5 {
        1.0 - delta
    } else {
        delta - 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(sgf: &str) -> Point {
        let b = sgf.as_bytes();
        Point::new((b[1] - b'a') as usize, (b[0] - b'a') as usize).unwrap()
    }

    #[test]
    fn rules_of_ru() {
        for (ru, name) in [
            (None, "japanese"),
            (Some("Japanese"), "japanese"),
            (Some("Korean"), "korean"),
            (Some("Chinese"), "chinese"),
            (Some("Old Chinese"), "chinese"),
            (Some("AGA"), "aga"),
            (Some("NZ"), "new-zealand"),
            (Some("New Zealand"), "new-zealand"),
            (Some("Tromp-Taylor"), "tromp-taylor"),
            (Some("whatever"), "japanese"),
        ] {
            assert_eq!(KataRules::from_ru(ru).name, name, "{ru:?}");
        }
    }

    #[test]
    fn handicap_count_and_bonus() {
        assert_eq!(handicap_stones(0, 0, 1), 0);
        assert_eq!(handicap_stones(1, 0, 0), 0);
        assert_eq!(handicap_stones(2, 0, 0), 2);
        assert_eq!(handicap_stones(2, 1, 0), 0);
        assert_eq!(handicap_stones(0, 0, 3), 3);
        assert_eq!(KataRules::CHINESE.white_bonus(3), 3.0);
        assert_eq!(KataRules::AGA.white_bonus(3), 2.0);
        assert_eq!(KataRules::JAPANESE.white_bonus(3), 0.0);
    }

    #[test]
    fn komi_wave_examples() {
        assert_eq!(komi_wave(7.5, (19, 19)), 0.5);
        assert_eq!(komi_wave(-7.5, (19, 19)), -0.5);
        assert_eq!(komi_wave(7.0, (19, 19)), 0.0);
        assert_eq!(komi_wave(6.5, (19, 19)), -0.5);
    }

    /// After B at pd (Chinese, komi 7.5), White to move: an asymmetric position in every
    /// channel the opening sets.
    #[test]
    fn opening_row() {
        let mut b = Board::new();
        let before = b.clone();
        b.play(Color::Black, Move::Play(pt("pd")), &Default::default()).unwrap();
        let recent = [(Color::Black, Move::Play(pt("pd")))];
        let pos = V7Position {
            board: &b,
            ko: None,
            prev: [Some(&before), None],
            earlier: Earlier::default(),
            to_play: Color::White,
            recent: &recent,
            rules: &KataRules::CHINESE,
            komi: 7.5,
            placed: [1, 0],
            handicap: 0,
        };
        let mut row = V7Row::default();
        V7Encoder::new().encode(&pos, &mut row);
        let p = pt("pd").index() as usize;
        assert_eq!(p, 3 * 19 + 15);
        let set_in = |row: &V7Row, ch: usize| (0..NN).filter(|&q| row.get(ch, q)).collect::<Vec<_>>();
        let set = |ch: usize| set_in(&row, ch);
        assert_eq!(set(0).len(), NN);
        assert_eq!(set(1), Vec::<usize>::new());
        assert_eq!(set(2), vec![p]);
        assert_eq!(set(9), vec![p]);
        assert_eq!(set(18), Vec::<usize>::new());
        // Area rules: every stone, and the whole empty board bordered by black only.
        assert_eq!(set(19).len(), NN);
        assert_eq!(row.global[5], 7.5 / 20.0);
        assert_eq!(row.global[18], 0.5);
        // Territory rules: chilled komi (one black stone placed) and no area planes.
        let jp = V7Position { rules: &KataRules::JAPANESE, komi: 6.5, ..pos };
        V7Encoder::new().encode(&jp, &mut row);
        assert_eq!(row.global[5], 7.5 / 20.0);
        assert_eq!(row.global[9], 1.0);
        assert!(set_in(&row, 19).is_empty() && set_in(&row, 18).is_empty());
        // Chinese handicap bonus: 2 stones give White 2 more.
        let ha = V7Position { handicap: 2, ..pos };
        V7Encoder::new().encode(&ha, &mut row);
        assert_eq!(row.global[5], 9.5 / 20.0);
    }
}
