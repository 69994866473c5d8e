//! Dead stones and seki decided from evidence ([`judge`]): Benson's pass-alive analysis,
//! the conservative rules, random playouts ([`super::playout`]) and, when the record has
//! it, the players' `TB`/`TW` markup. Territory is then found on the board with the dead
//! stones removed ([`super::benson::assemble`]): an empty area is a colour's only when
//! that colour's living stones alone close it, and dame and seki points are nobody's.
//! Whatever the evidence cannot settle stays [`Owner::Undecided`], with its reason.
//!
//! Nothing here looks at the recorded result.

use crate::coord::{Point, NN};
use crate::engine::{Board, Color, BLACK, EMPTY, WHITE};

use super::benson::{assemble, conservative_status, Chains, Pos, Seki};
use super::playout::{PlayoutOwnership, Playouts, PLAYOUTS};
use super::{Ownership, Score, ScoreCheck};

/// A chain the conservative rules leave open is dead when the opponent owns its points
/// in at least this share of the playouts, alive when its own colour does (measured
/// against GNU Go's final status on the KGS 2001 games: docs/results/scoring.md, "Thresholds").
pub const SETTLED_SHARE: f32 = 0.75;

/// The conservative rules' verdict on a chain stands unless the playouts say the
/// opposite in at least this share of them.
pub const CONTRADICT_SHARE: f32 = 0.9;

/// Playouts run before the evidence is first weighed, and between two weighings: the
/// playouts stop after a round that leaves every chain clear ([`settled_early`]), and
/// after [`PLAYOUTS`] in any case.
pub const PLAYOUT_ROUND: u32 = 8;

/// Playouts of the first look at a position whose every chain Benson or the rules
/// decided ([`first_look_confirms`]: with 4, at most one playout of the four may go the
/// other way, where a contradiction needs 90% of them); when it does not confirm them,
/// the playouts go on in rounds of [`PLAYOUT_ROUND`] as for any position.
pub const FIRST_LOOK: u32 = 4;

/// The most a chain decided by the rules may go the other way in the first look for
/// the playouts to stop there.
pub const FIRST_LOOK_SHARE: f32 = 0.25;

/// The share of playouts a chain left open by the rules must keep, all its own or all
/// the opponent's, for the playouts to stop before [`PLAYOUTS`].
pub const CLEAR_SHARE: f32 = 0.97;

/// How many standard errors (of a share of [`SETTLED_SHARE`] after the playouts so far)
/// a chain the rules leave open must keep between its shares and that threshold for the
/// playouts to stop before [`PLAYOUTS`] (docs/results/scoring.md, "Third round").
pub const APART_SE: f32 = 0.75;

/// [`APART_SE`] after the first round alone (fewer than 16 playouts): a share of 8
/// playouts is too coarse to stop on at 0.75 standard errors
/// (docs/results/scoring.md, "Fourth round").
pub const FIRST_ROUND_APART_SE: f32 = 2.0;

/// How many standard errors (of a share of [`CONTRADICT_SHARE`]) the share against the
/// rules' verdict on a chain must keep from that threshold for the playouts to stop.
pub const CONTRADICT_APART_SE: f32 = 2.0;

/// The environment variable that salts the playouts' random streams: a measuring knob,
/// never a setting. The verdicts of one stream are one draw of the playouts' noise;
/// `checks/score_figures.py --salts N` runs the filter under N salts to weigh a change
/// by its mean over streams rather than by one stream (docs/results/scoring.md, "Fourth round").
/// Unset (the default) or `0`: the streams the games table has always had.
pub const PLAYOUT_SALT_VAR: &str = "KIBO_PLAYOUT_SALT";

/// The salt of [`PLAYOUT_SALT_VAR`] (read once), mixed into every position's seed; `0`
/// when unset or not a number.
fn playout_salt() -> u64 {
    static SALT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *SALT.get_or_init(|| {
        let salt: u64 = std::env::var(PLAYOUT_SALT_VAR).ok().and_then(|v| v.trim().parse().ok()).unwrap_or(0);
        salt.wrapping_mul(0x9e37_79b9_7f4a_7c15)
    })
}

/// Empty areas of at most this many points next to a seki group are its eyes (larger
/// ones mean it is no seki after all).
const SEKI_EYE_MAX: u32 = 6;

/// The status of a chain after weighing the evidence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChainStatus {
    /// Alive: its points are its colour's, and it closes territory.
    Alive,
    /// Dead: removed, counted as a prisoner, its points the opponent's.
    Dead,
    /// Alive in seki: its stones, eyes and shared liberties are nobody's.
    Seki,
    /// Not settled: its points and the areas it touches are undecided.
    Unsettled,
}

/// The verdict on one chain, with the evidence behind it.
#[derive(Clone, Debug, PartialEq)]
pub struct ChainVerdict {
    /// One of its stones (the first in row-major order).
    pub at: Point,
    /// Its colour.
    pub color: Color,
    /// Its size.
    pub stones: u32,
    /// What the evidence decided.
    pub status: ChainStatus,
    /// The share of playouts in which its points stayed its colour's (`0` for a chain
    /// dead in the opponent's pass-alive area, which the playouts leave alone).
    pub own_share: f32,
    /// The evidence that settled it, or why nothing did ([`Evidence`]).
    pub why: Evidence,
    /// Proven: by Benson, by the markup, by KataGo's two maps, or by the conservative
    /// rules when the playouts would not settle it the other way (their share against
    /// it below [`SETTLED_SHARE`]): [`Evidence::proven`]. A verdict of the playouts
    /// alone, a seki and an unsettled chain are not proven. A flip of the winner stands
    /// only on proven chains ([`super::flip_doubt`]).
    pub proven: bool,
}

/// The evidence behind a [`ChainVerdict`]: what settled the chain, or why nothing did.
/// Its text ([`Evidence::as_str`], also its `Display`) is what `score_reason`, `kibo
/// score` and its `--json` (`why`) print.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Evidence {
    /// `"benson"`: Benson's pass-alive analysis, a proof (alive, or dead inside the
    /// opponent's pass-alive area; also a seki that Benson's areas enclose).
    Benson,
    /// `"analysis"`: the conservative rules, the playouts not strongly against them.
    Analysis,
    /// `"playouts"`: the playouts alone.
    Playouts,
    /// `"markup"`: the record's `TB`/`TW` markup settled a chain the evidence left open.
    Markup,
    /// `"seki"`: a seki of the rules that the playouts keep.
    Seki,
    /// `"playouts split"` (unsettled): the playouts settle it neither way.
    PlayoutsSplit,
    /// `"playouts contradict the analysis"` (unsettled).
    PlayoutsContradict,
    /// `"markup contradicts the evidence"` (unsettled).
    MarkupContradicts,
    /// `"open ko"` (unsettled): a ko the playouts do not settle.
    OpenKo,
    /// `"left open by the rules"` (unsettled): judged without playouts.
    LeftOpen,
    /// `"katago"`: both of KataGo's ownership maps ([`super::judge_by_ownership`]).
    Katago,
    /// `"katago: seki"`: the maps disagree or sit near zero, next to small areas only.
    KatagoSeki,
    /// `"katago: split"` (unsettled): the maps disagree next to a large area.
    KatagoSplit,
}

impl Evidence {
    /// Every kind of evidence, in declaration order.
    pub const ALL: [Evidence; 13] = [
        Evidence::Benson,
        Evidence::Analysis,
        Evidence::Playouts,
        Evidence::Markup,
        Evidence::Seki,
        Evidence::PlayoutsSplit,
        Evidence::PlayoutsContradict,
        Evidence::MarkupContradicts,
        Evidence::OpenKo,
        Evidence::LeftOpen,
        Evidence::Katago,
        Evidence::KatagoSeki,
        Evidence::KatagoSplit,
    ];

    /// Its stable text, e.g. `"playouts split"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Evidence::Benson => "benson",
            Evidence::Analysis => "analysis",
            Evidence::Playouts => "playouts",
            Evidence::Markup => "markup",
            Evidence::Seki => "seki",
            Evidence::PlayoutsSplit => "playouts split",
            Evidence::PlayoutsContradict => "playouts contradict the analysis",
            Evidence::MarkupContradicts => "markup contradicts the evidence",
            Evidence::OpenKo => "open ko",
            Evidence::LeftOpen => "left open by the rules",
            Evidence::Katago => "katago",
            Evidence::KatagoSeki => "katago: seki",
            Evidence::KatagoSplit => "katago: split",
        }
    }

    /// Whether this evidence proves a verdict by itself, whatever else says: Benson, the
    /// markup, KataGo's two maps.
    pub const fn is_proof(self) -> bool {
        matches!(self, Evidence::Benson | Evidence::Markup | Evidence::Katago)
    }

    /// Whether a verdict settled by this evidence is proven ([`ChainVerdict::proven`]),
    /// with `against` the share of playouts that settle the chain the other way: a proof
    /// ([`Evidence::is_proof`]) always; the conservative rules when `against` is below
    /// [`SETTLED_SHARE`]; anything else (the playouts alone, a seki, unsettled) never.
    pub fn proven(self, against: f32) -> bool {
        self.is_proof() || (self == Evidence::Analysis && against < SETTLED_SHARE)
    }
}

impl std::fmt::Display for Evidence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// A chain the evidence could not settle (its [`ChainVerdict::status`] is
/// [`ChainStatus::Unsettled`]).
pub type Unsettled = ChainVerdict;

/// The result of [`judge`]: the ownership that [`super::count()`] reads, and what is left
/// unsettled.
#[derive(Clone, Debug)]
pub struct Judgement {
    /// Owners, dead stones, seki points.
    pub own: Ownership,
    /// Every chain, in row-major order of its first stone.
    pub chains: Vec<ChainVerdict>,
    /// Playouts run.
    pub playouts: u32,
}

impl ChainVerdict {
    /// Its colour and first stone, e.g. `"black Q14"`.
    pub fn name(&self) -> String {
        format!("{} {}", self.color.name(), self.at.to_gtp())
    }
    /// Its size in words, e.g. `"6 stones"`, `"1 stone"`.
    pub fn size(&self) -> String {
        format!("{} stone{}", self.stones, if self.stones == 1 { "" } else { "s" })
    }
}

impl ChainStatus {
    /// Stable lower-case name: `"alive"`, `"dead"`, `"seki"`, `"unsettled"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ChainStatus::Alive => "alive",
            ChainStatus::Dead => "dead",
            ChainStatus::Seki => "seki",
            ChainStatus::Unsettled => "unsettled",
        }
    }
}

impl Judgement {
    /// The chains left unsettled, in the order of [`Judgement::chains`].
    pub fn unsettled(&self) -> Vec<&Unsettled> {
        self.chains.iter().filter(|c| c.status == ChainStatus::Unsettled).collect()
    }

    /// A one-line summary of the unsettled chains (at most three named), e.g.
    /// `"2 unsettled groups: black Q16 (5 stones, playouts split 40%), …"`; `None` if none.
    pub fn unsettled_summary(&self) -> Option<String> {
        let unsettled = self.unsettled();
        if unsettled.is_empty() {
            return None;
        }
        let n = unsettled.len();
        let named: Vec<String> = unsettled
            .iter()
            .take(3)
            .map(|u| format!("{} ({}, {} {:.0}%)", u.name(), u.size(), u.why, 100.0 * u.own_share))
            .collect();
        let more = if n > 3 { ", …" } else { "" };
        Some(format!("{n} unsettled group{}: {}{more}", if n == 1 { "" } else { "s" }, named.join(", ")))
    }
}

/// Decides the dead stones and seki of a final position from evidence (module docs and
/// docs/scoring.md, "Evidence"). `markup`: the record's `TB`/`TW` lists, if it has any;
/// `to_move`: the colour to play (the playouts start with it for half their number and
/// with the other colour for the rest). The playouts are seeded by the position's hash,
/// so the same position always gives the same judgement. Never panics.
pub fn judge(board: &Board, markup: Option<(&[Point], &[Point])>, to_move: Color) -> Judgement {
    judge_with(board, markup, to_move, true)
}

/// [`judge`], with the playouts (`playouts = true`, the default: [`judge`]) or without
/// them (Benson, the conservative rules and the markup only: chains they leave open stay
/// unsettled, and a seki found by the rules is not checked by playouts).
pub fn judge_with(board: &Board, markup: Option<(&[Point], &[Point])>, to_move: Color, playouts: bool) -> Judgement {
    let pos = Pos::new(board);
    let ch = Chains::new(&pos);
    let nch = ch.len();
    let st = conservative_status(&pos, &ch);
    let ko = open_ko_chains(board, &pos, &ch);
    let po = if playouts {
        run_playouts(board, to_move, &ch, &st, &ko)
    } else {
        PlayoutOwnership { playouts: 0, black: [0; NN], white: [0; NN] }
    };
    let markup_dead = markup.map(|(tb, tw)| markup_dead_chains(&pos, &ch, tb, tw));

    let mut status = vec![ChainStatus::Unsettled; nch];
    let mut why = vec![Evidence::PlayoutsSplit; nch];
    let mut share = vec![0f32; nch];
    let mut opp_share = vec![0f32; nch];
    let t = SETTLED_SHARE;
    for c in 0..nch {
        let (own, opp) = match (playouts, st.benson_dead[c]) {
            // The playouts leave the pass-alive areas alone ([`Playouts::freeze`]): a
            // chain dead inside one keeps its stones there, as Benson's proof says it
            // is the opponent's.
            (true, true) => (0.0, 1.0),
            _ => chain_shares(&ch, &po, c),
        };
        (share[c], opp_share[c]) = (own, opp);
        let verdict = |t: f32| {
            if own >= t {
                Some(ChainStatus::Alive)
            } else if opp >= t {
                Some(ChainStatus::Dead)
            } else {
                None
            }
        };
        // Without playouts every share is 0: no playout verdict, no contradiction.
        let (playout, strong) = (verdict(t), verdict(CONTRADICT_SHARE));
        let analysis = if st.forced[c] {
            Some(ChainStatus::Alive)
        } else if st.dead[c] {
            Some(ChainStatus::Dead)
        } else if st.seki.chain[c] {
            Some(ChainStatus::Seki)
        } else if st.alive[c] {
            Some(ChainStatus::Alive)
        } else {
            None
        };
        (status[c], why[c]) = match (analysis, playout) {
            // Benson's verdicts are proofs.
            _ if st.forced[c] => (ChainStatus::Alive, Evidence::Benson),
            _ if st.benson_dead[c] => (ChainStatus::Dead, Evidence::Benson),
            // A seki must survive the playouts (checked below, after the ko): one they
            // kill is dead, however clearly they kill it.
            (Some(ChainStatus::Seki), _) => (ChainStatus::Seki, Evidence::Seki),
            (Some(a), _) if strong.is_some_and(|p| p != a) => (ChainStatus::Unsettled, Evidence::PlayoutsContradict),
            (Some(a), _) => (a, Evidence::Analysis),
            (None, Some(p)) => (p, Evidence::Playouts),
            (None, None) if !playouts => (ChainStatus::Unsettled, Evidence::LeftOpen),
            (None, None) => (ChainStatus::Unsettled, Evidence::PlayoutsSplit),
        };
        if let Some(md) = &markup_dead {
            let marked = if md[c] { ChainStatus::Dead } else { ChainStatus::Alive };
            (status[c], why[c]) = match status[c] {
                ChainStatus::Unsettled => (marked, Evidence::Markup),
                ChainStatus::Seki if !md[c] => (ChainStatus::Seki, why[c]),
                s if s == marked => (s, why[c]),
                _ => (ChainStatus::Unsettled, Evidence::MarkupContradicts),
            };
        }
    }
    for &c in &ko {
        // The playouts fight the ko out: where they settle the chain (at `t`, as for any
        // open chain) their verdict stands, unless it is a proof's or the markup says
        // otherwise; elsewhere the ko leaves it open (a lone ko stone found dead stays
        // dead).
        if st.forced[c] || st.benson_dead[c] {
            continue;
        }
        let fought = if share[c] >= t {
            Some(ChainStatus::Alive)
        } else if opp_share[c] >= t {
            Some(ChainStatus::Dead)
        } else {
            None
        };
        let marked = markup_dead.as_ref().map(|md| if md[c] { ChainStatus::Dead } else { ChainStatus::Alive });
        (status[c], why[c]) = match (fought, marked) {
            (Some(f), Some(m)) if f != m => (ChainStatus::Unsettled, Evidence::MarkupContradicts),
            (Some(f), _) => (f, Evidence::Playouts),
            (None, _) if status[c] == ChainStatus::Dead && ch.points(c).len() == 1 => (status[c], why[c]),
            (None, _) => (ChainStatus::Unsettled, Evidence::OpenKo),
        };
    }
    // A seki keeps both sides' stones on the board in the playouts (they never fill a
    // shared liberty): a chain called seki that the playouts do not keep is no seki
    // (without playouts, the rules' seki stands).
    for c in (0..nch).filter(|_| playouts) {
        if status[c] == ChainStatus::Seki && share[c] < t {
            (status[c], why[c]) = if opp_share[c] >= t {
                (ChainStatus::Dead, Evidence::Playouts)
            } else {
                (ChainStatus::Unsettled, Evidence::PlayoutsSplit)
            };
        }
    }
    let seki = find_seki(&pos, &ch, &mut status);
    let dead: Vec<bool> = status.iter().map(|s| *s == ChainStatus::Dead).collect();
    let alive: Vec<bool> = status.iter().map(|s| matches!(s, ChainStatus::Alive | ChainStatus::Seki)).collect();
    let own = assemble(&pos, &ch, &dead, &alive, &seki);
    let mut chains = Vec::with_capacity(nch);
    for c in 0..nch {
        let pts = ch.points(c);
        let Some(at) = Point::from_index(pts[0]) else { continue };
        let color = if ch.color[c] == BLACK { Color::Black } else { Color::White };
        let w = match status[c] {
            ChainStatus::Unsettled if pts.len() == 1 && is_ko_stone(board, at) => Evidence::OpenKo,
            ChainStatus::Seki if why[c] != Evidence::Benson => Evidence::Seki,
            ChainStatus::Alive if why[c] == Evidence::Seki => Evidence::Analysis,
            _ => why[c],
        };
        let proven = is_proven(w, status[c], share[c], opp_share[c]);
        chains.push(ChainVerdict {
            at,
            color,
            stones: pts.len() as u32,
            status: status[c],
            own_share: share[c],
            why: w,
            proven,
        });
    }
    Judgement { own, chains, playouts: po.playouts }
}

/// [`ChainVerdict::proven`] of a chain settled as `status` by `why`, with its playout
/// shares: the rules' verdict is proven unless the playouts would settle the chain the
/// other way (below the contradiction that unsettles it).
fn is_proven(why: Evidence, status: ChainStatus, own_share: f32, opp_share: f32) -> bool {
    let against = match status {
        ChainStatus::Alive => opp_share,
        ChainStatus::Dead => own_share,
        _ => 1.0,
    };
    why.proven(against)
}

/// The playouts of [`judge`], seeded by the position's hash (salted by
/// [`PLAYOUT_SALT_VAR`]), away from the pass-alive areas: a first look where the rules
/// decided every chain, then rounds until every chain is clear or [`PLAYOUTS`] ran.
fn run_playouts(
    board: &Board,
    to_move: Color,
    ch: &Chains,
    st: &super::benson::Status,
    ko: &[usize],
) -> PlayoutOwnership {
    let h = board.hash() ^ playout_salt();
    let seeds = [(to_move, h), (to_move.opponent(), h.rotate_left(17))];
    let mut runner = Playouts::new(board, &seeds);
    runner.freeze(&st.pass_alive);
    let first_look = rules_decided_every_chain(ch, st, ko);
    if first_look {
        runner.run(FIRST_LOOK);
        if first_look_confirms(ch, st, &runner.own) {
            return runner.own;
        }
    }
    while runner.own.playouts < PLAYOUTS {
        // Rounds end at multiples of PLAYOUT_ROUND, a first look's included.
        let round_end = (runner.own.playouts / PLAYOUT_ROUND + 1) * PLAYOUT_ROUND;
        runner.run(round_end.min(PLAYOUTS) - runner.own.playouts);
        if settled_early(ch, st, ko, &runner.own) {
            break;
        }
    }
    runner.own
}

/// Whether Benson or the conservative rules decided every chain (none left open, none
/// seki, none at stake in an open ko): then the playouts can only contradict them, which
/// needs [`CONTRADICT_SHARE`], and a [`FIRST_LOOK`] usually shows that they will not.
fn rules_decided_every_chain(ch: &Chains, st: &super::benson::Status, ko: &[usize]) -> bool {
    (0..ch.len()).all(|c| {
        st.forced[c] || st.benson_dead[c] || (!ko.contains(&c) && !st.seki.chain[c] && (st.alive[c] || st.dead[c]))
    })
}

/// After the [`FIRST_LOOK`] on a position whose every chain the rules decided: whether
/// no chain goes the other way in more than [`FIRST_LOOK_SHARE`] of the playouts, so
/// that the playouts stop there (a contradiction needs [`CONTRADICT_SHARE`]).
fn first_look_confirms(ch: &Chains, st: &super::benson::Status, po: &PlayoutOwnership) -> bool {
    (0..ch.len()).all(|c| {
        if st.forced[c] || st.benson_dead[c] {
            return true;
        }
        let (own, opp) = chain_shares(ch, po, c);
        if st.dead[c] {
            own <= FIRST_LOOK_SHARE
        } else {
            opp <= FIRST_LOOK_SHARE
        }
    })
}

/// Whether the playouts so far leave every chain clear, so that more of them would
/// rarely change a verdict: a proof's chain always; a chain the rules decided (not seki)
/// when the share of playouts going the other way is at most half, at least
/// [`CLEAR_SHARE`], or [`CONTRADICT_APART_SE`] standard errors from [`CONTRADICT_SHARE`]
/// (`2·√(0.9·0.1/n)` after `n` playouts: 0.15 after 16); any other chain (left open,
/// seki, at stake in an open ko) when at least [`CLEAR_SHARE`] of its points' playouts
/// agree, all its own or all the opponent's, or when its own and its opponent's shares
/// both lie at least [`APART_SE`] standard errors of a share of [`SETTLED_SHARE`] from
/// that threshold (`0.75·√(t(1−t)/n)`: 0.081 after 16, 0.066 after 24; after the first
/// round of 8, [`FIRST_ROUND_APART_SE`]: 0.31), for a seki only when neither reaches it.
/// The margins were measured, not derived: docs/results/scoring.md, "Third round" and "Fourth
/// round".
fn settled_early(ch: &Chains, st: &super::benson::Status, ko: &[usize], po: &PlayoutOwnership) -> bool {
    (0..ch.len()).all(|c| {
        if st.forced[c] || st.benson_dead[c] {
            return true;
        }
        let (own, opp) = chain_shares(ch, po, c);
        let decided = !ko.contains(&c) && !st.seki.chain[c];
        let se = |t: f32| (t * (1.0 - t) / po.playouts.max(1) as f32).sqrt();
        // The share against the rules' verdict: far below a contradiction, or one already
        // beyond doubt.
        let against_clear = |x: f32| {
            x <= 0.5 || x >= CLEAR_SHARE || (x - CONTRADICT_SHARE).abs() >= CONTRADICT_APART_SE * se(CONTRADICT_SHARE)
        };
        if decided && st.alive[c] && !st.dead[c] {
            against_clear(opp)
        } else if decided && st.dead[c] {
            against_clear(own)
        } else {
            // Far enough from the threshold both ways that more playouts would rarely
            // cross it.
            let t = SETTLED_SHARE;
            let far = if po.playouts < 2 * PLAYOUT_ROUND { FIRST_ROUND_APART_SE } else { APART_SE } * se(t);
            let apart = (own - t).abs() >= far && (opp - t).abs() >= far;
            own >= CLEAR_SHARE || opp >= CLEAR_SHARE || (apart && (!st.seki.chain[c] || own.max(opp) < t))
        }
    })
}

/// Mean share of playouts in which the points of chain `c` ended its colour's, and the
/// opponent's.
fn chain_shares(ch: &Chains, po: &PlayoutOwnership, c: usize) -> (f32, f32) {
    let col = if ch.color[c] == BLACK { Color::Black } else { Color::White };
    let pts = ch.points(c);
    let (mut own, mut opp) = (0f32, 0f32);
    for &p in pts {
        own += po.share(p as usize, col);
        opp += po.share(p as usize, col.opponent());
    }
    let n = pts.len().max(1) as f32;
    (own / n, opp / n)
}

/// Chains that the markup says are dead: a stone of the chain on a point listed for
/// the other colour.
fn markup_dead_chains(pos: &Pos, ch: &Chains, tb: &[Point], tw: &[Point]) -> Vec<bool> {
    let mut dead = vec![false; ch.len()];
    for (list, listed) in [(tb, BLACK), (tw, WHITE)] {
        for p in list {
            let i = p.index() as usize;
            if i < NN && pos.on[i] && pos.cells[i] == 3 - listed {
                if let Some(c) = ch.of(i) {
                    dead[c] = true;
                }
            }
        }
    }
    dead
}

/// The chains at stake in a ko left open at the end: for every single stone in atari
/// whose capture would be a ko capture (the capturing stone alone, in atari, taking one
/// stone), that stone and every chain of either colour next to the two points of the
/// ko with at most two liberties.
fn open_ko_chains(board: &Board, pos: &Pos, ch: &Chains) -> Vec<usize> {
    let mut out = Vec::new();
    let mut libs = Vec::new();
    for i in (0..NN).filter(|&i| pos.on[i] && pos.cells[i] != EMPTY) {
        let Some(at) = Point::from_index(i as u16) else { continue };
        if board.chain_size(at) != 1 || !is_ko_stone(board, at) {
            continue;
        }
        board.chain_liberty_points(at, &mut libs);
        let k = libs[0].index() as usize;
        for q in [i, k].into_iter().flat_map(|x| pos.adj(x).chain(std::iter::once(x))) {
            let Some(c) = ch.of(q) else { continue };
            let Some(qp) = Point::from_index(q as u16) else { continue };
            if (q == i || board.chain_liberties(qp) <= 2) && !out.contains(&c) {
                out.push(c);
            }
        }
    }
    out
}

/// A single stone in atari that the opponent may capture at once, and that could be
/// retaken: a ko left open.
fn is_ko_stone(board: &Board, at: Point) -> bool {
    let mut libs = Vec::new();
    board.chain_liberty_points(at, &mut libs);
    let Some(color) = board.color_at(at) else { return false };
    libs.len() == 1 && {
        let (_, l, s) = board.move_shape(color.opponent(), libs[0]);
        l == 1 && s == 1
    }
}

/// Seki among the living chains: an empty point next to living chains of both colours
/// where a stone of either colour would be a self-atari of two stones or more (on the
/// board with the dead stones removed) is a shared liberty of a seki; the living
/// chains next to it are in seki, and so are the empty areas around them (their eyes
/// and shared liberties) unless one is bigger than [`SEKI_EYE_MAX`]. Also keeps the
/// seki that the conservative analysis found (chains marked [`ChainStatus::Seki`]).
fn find_seki(pos: &Pos, ch: &Chains, status: &mut [ChainStatus]) -> Seki {
    let nch = ch.len();
    let mut cells = pos.cells;
    for (i, cell) in cells.iter_mut().enumerate() {
        if ch.of(i).is_some_and(|c| status[c] == ChainStatus::Dead) {
            *cell = EMPTY;
        }
    }
    let living: Vec<bool> = status.iter().map(|s| matches!(s, ChainStatus::Alive | ChainStatus::Seki)).collect();
    // The position without its dead chains, built when first needed (most positions
    // have no point between living chains of both colours and no seki).
    let board = std::cell::OnceCell::new();
    let board = || board.get_or_init(|| Board::from_cells(&cells).ok()).as_ref();
    for i in (0..NN).filter(|&i| pos.on[i] && cells[i] == EMPTY) {
        let mut around = 0u8;
        for q in pos.adj(i) {
            if ch.of(q).is_some_and(|c| cells[q] != EMPTY && living[c]) {
                around |= cells[q];
            }
        }
        let Some(p) = Point::from_index(i as u16) else { continue };
        if around != BLACK | WHITE {
            continue;
        }
        let Some(b) = board() else { break };
        let self_atari = |c: Color| {
            let (_, libs, stones) = b.move_shape(c, p);
            libs <= 1 && stones >= 2
        };
        if self_atari(Color::Black) && self_atari(Color::White) {
            for q in pos.adj(i) {
                if let Some(c) = ch.of(q).filter(|&c| cells[q] != EMPTY && status[c] == ChainStatus::Alive) {
                    status[c] = ChainStatus::Seki;
                }
            }
        }
    }
    // A seki needs both colours: a chain called seki with no seki chain of the other
    // colour next to one of its liberties (its partner found dead) is simply alive.
    if let Some(b) = status.contains(&ChainStatus::Seki).then(board).flatten() {
        let mut libs = Vec::new();
        loop {
            let mut changed = false;
            let seki_chains: Vec<usize> = (0..nch).filter(|&c| status[c] == ChainStatus::Seki).collect();
            for c in seki_chains {
                let Some(at) = Point::from_index(ch.points(c)[0]) else { continue };
                b.chain_liberty_points(at, &mut libs);
                let partner = libs.iter().any(|l| {
                    pos.adj(l.index() as usize).any(|q| {
                        cells[q] != EMPTY
                            && cells[q] != ch.color[c]
                            && ch.of(q).is_some_and(|d| status[d] == ChainStatus::Seki)
                    })
                });
                if !partner {
                    status[c] = ChainStatus::Alive;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }
    // The points of each seki: its stones and every empty area next to them.
    let mut seki = Seki { chain: vec![false; nch], point: [false; NN] };
    #[allow(clippy::needless_range_loop)] // `status[c]` is written in the loop.
    for c in 0..nch {
        if status[c] != ChainStatus::Seki {
            continue;
        }
        let areas: Vec<usize> = ch.links(c).iter().map(|l| l.to as usize).filter(|&b| b >= nch).collect();
        if areas.iter().any(|&b| ch.size(b) > SEKI_EYE_MAX) {
            status[c] = ChainStatus::Alive;
            continue;
        }
        seki.chain[c] = true;
        for &s in ch.points(c) {
            seki.point[s as usize] = true;
        }
        for b in areas {
            for &p in ch.points(b) {
                seki.point[p as usize] = true;
            }
        }
    }
    // An area of a seki that touches a chain not in seki: that chain touches the seki;
    // if it is alive it borders nobody's point, which is fine; areas are whole.
    seki
}

/// Why a check came out [`ScoreCheck::Undecided`] (`None` for the other two): the
/// record names no winner, or the undecided points (with the unsettled groups behind
/// them, [`Judgement::unsettled_summary`]) could change the winner or explain the
/// difference with the recorded margin.
pub fn undecided_reason(score: &Score, j: &Judgement, check: ScoreCheck, winner_black: Option<bool>) -> Option<String> {
    if check != ScoreCheck::Undecided {
        return None;
    }
    if winner_black.is_none() {
        return Some("the record names no winner".into());
    }
    if !score.margin.is_finite() {
        return Some("the count is not a number".into());
    }
    let u = score.undecided_points;
    let swing = format!(
        "{u} undecided point{} could move the count {} by up to {}",
        if u == 1 { "" } else { "s" },
        score.result_text(),
        2 * u
    );
    Some(match j.unsettled_summary() {
        Some(s) => format!("{s}; {swing}"),
        None => swing,
    })
}
