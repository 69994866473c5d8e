//! Per-move tactical tags (`RULES-AND-SGF.md` §3; definitions and diagrams in
//! `docs/tags.md`).
//!
//! Every tag of a move `m` by player P is computed from the position before the move
//! (S), the position after it with captures made (S′), and, for `snapback` only, the
//! previous move of the game. [`Tagger`] carries that one move of context, so it must
//! be fed **every** move of a game in order (passes included); it checks that the
//! position it is given follows the previous move (by hash) and otherwise forgets the
//! context, so skipping moves can only lose a `snapback` tag, never invent one.
//!
//! Cost: no allocation once warm; the neighbour scan and, in [`Tagger::tag`], one
//! board copy (for S′) per move ([`Tagger::before_move`] / [`Tagger::after_move`] let a
//! caller that plays the move itself skip it); the ladder reader runs only when the move takes a 2-liberty opponent chain to
//! 1 liberty (one defender-first search per such chain) or turns an own 1-liberty chain
//! into a 2-liberty one (one attacker-first search).

use crate::coord::{Move, Point, N};
use crate::engine::{Board, Color, Illegal, Rules};

use super::ladder::LadderSearch;
use super::{is_simple_eye, nb};

/// Tag names in bit order: `TAG_NAMES[i]` is the name of bit `1 << i` of [`Tags::mask`].
pub const TAG_NAMES: [&str; 14] = [
    "capture",
    "atari",
    "double_atari",
    "atari_save",
    "atari_save_by_capture",
    "self_atari",
    "ko_capture",
    "snapback",
    "ladder_capture",
    "ladder_escape",
    "broken_ladder_chase",
    "tigers_mouth_entry",
    "own_eye_fill",
    "pass",
];

/// The tags of one move: a bit mask (bit `i` is [`TAG_NAMES`]`[i]`) and two sizes.
/// `Default` is "no tag".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Tags {
    /// One bit per tag, see the associated constants and [`TAG_NAMES`].
    pub mask: u32,
    /// Opponent stones captured by the move (`0` without [`Tags::CAPTURE`]).
    pub capture_size: u16,
    /// Stones of the mover's chain at `m` left with one liberty (`0` without
    /// [`Tags::SELF_ATARI`]).
    pub self_atari_size: u16,
}

impl Tags {
    /// Captures at least one opponent chain.
    pub const CAPTURE: u32 = 1 << 0;
    /// Takes an opponent chain from ≥ 2 liberties to exactly 1.
    pub const ATARI: u32 = 1 << 1;
    /// Does that to at least two distinct opponent chains.
    pub const DOUBLE_ATARI: u32 = 1 << 2;
    /// An own chain in atari before the move has ≥ 2 liberties after it.
    pub const ATARI_SAVE: u32 = 1 << 3;
    /// Modifier of [`Tags::ATARI_SAVE`]: a saved chain touched a captured stone (the save
    /// is by capture; without this bit it is by extension / connection).
    pub const ATARI_SAVE_BY_CAPTURE: u32 = 1 << 4;
    /// The mover's chain at `m` has exactly one liberty after the move (captures made).
    pub const SELF_ATARI: u32 = 1 << 5;
    /// Captures exactly one stone and leaves a simple-ko point.
    pub const KO_CAPTURE: u32 = 1 << 6;
    /// Executed snapback: recaptures ≥ 2 stones including the stone that captured on the
    /// previous move, by playing on a point that capture emptied.
    pub const SNAPBACK: u32 = 1 << 7;
    /// The move is a working ladder move (KataGo) against an opponent 2-liberty chain.
    pub const LADDER_CAPTURE: u32 = 1 << 8;
    /// Saves an own chain from atari so that it is not ladder-captured after the move.
    pub const LADDER_ESCAPE: u32 = 1 << 9;
    /// Ataris an opponent 2-liberty chain in a ladder shape, but the ladder fails.
    pub const BROKEN_LADDER_CHASE: u32 = 1 << 10;
    /// Self-atari of a lone stone into the opponent's tiger's mouth (no capture).
    pub const TIGERS_MOUTH_ENTRY: u32 = 1 << 11;
    /// Fills the mover's own simple eye (KataGo `isSimpleEye`).
    pub const OWN_EYE_FILL: u32 = 1 << 12;
    /// The move is a pass.
    pub const PASS: u32 = 1 << 13;

    /// Every defined bit.
    pub const ALL: u32 = (1 << TAG_NAMES.len()) - 1;
    /// The bits that make a move tactical: all but [`Tags::PASS`] and
    /// [`Tags::OWN_EYE_FILL`] ([`Tags::ATARI_SAVE_BY_CAPTURE`] never comes without
    /// [`Tags::ATARI_SAVE`]).
    pub const TACTICAL: u32 = Tags::ALL & !(Tags::PASS | Tags::OWN_EYE_FILL);

    /// Whether every bit of `bits` is set.
    #[inline]
    pub fn has(&self, bits: u32) -> bool {
        self.mask & bits == bits
    }

    /// Whether any [`Tags::TACTICAL`] bit is set.
    #[inline]
    pub fn is_tactical(&self) -> bool {
        self.mask & Tags::TACTICAL != 0
    }

    /// Whether the atari save was made by capturing (see [`Tags::ATARI_SAVE_BY_CAPTURE`]).
    #[inline]
    pub fn atari_save_by_capture(&self) -> bool {
        self.has(Tags::ATARI_SAVE | Tags::ATARI_SAVE_BY_CAPTURE)
    }

    /// Names of the set bits, in bit order.
    pub fn names(&self) -> Vec<&'static str> {
        TAG_NAMES.iter().enumerate().filter(|(i, _)| self.mask & (1 << i) != 0).map(|(_, n)| *n).collect()
    }
}

/// What the tagger remembers of the previous move (for `snapback`).
#[derive(Clone, Copy, Debug, Default)]
struct Prev {
    /// Colour of the previous move, `None` when there is no usable previous move (start,
    /// pass, illegal move, or a position that does not follow it).
    color: Option<Color>,
    /// Where it was played.
    point: Option<Point>,
    /// Points its captures emptied, as bits `row * 19 + col`.
    vacated: [u64; 6],
    /// Whether it captured anything.
    captured: bool,
    /// [`Board::hash`] of the position after it.
    hash_after: u64,
}

/// Tags the moves of one game, in order. Reusable: [`Tagger::reset`] (or a position that
/// does not follow the last move) starts a new game. One per worker thread.
#[derive(Clone, Debug, Default)]
pub struct Tagger {
    /// S′ for [`Tagger::tag`].
    after: Board,
    scratch: Scratch,
    prev: Prev,
}

/// The buffers of one tagging.
#[derive(Clone, Debug, Default)]
struct Scratch {
    ladder: LadderSearch,
    /// The defender's extension, for `broken_ladder_chase`.
    probe: Board,
    stones: Vec<Point>,
    /// Own chains in atari before the move that the move may save: `(stone, touches a
    /// captured stone)`.
    saves: Vec<(Point, bool)>,
    /// Chains in S′ already checked for `ladder_escape`.
    checked: Vec<Point>,
    moves: Vec<Point>,
}

/// Appends `q` to `set[..*n]` unless a stone of the same chain (in `b`) is there.
#[inline]
fn push_chain(b: &Board, set: &mut [Point; 4], n: &mut usize, q: Point) {
    if !set[..*n].iter().any(|&h| b.same_chain(h, q)) {
        set[*n & 3] = q;
        *n += 1;
    }
}

impl Tagger {
    /// A tagger with no previous move.
    pub fn new() -> Tagger {
        Tagger::default()
    }

    /// Forgets the previous move (call at the start of each game; optional, see the
    /// module docs).
    pub fn reset(&mut self) {
        self.prev = Prev::default();
    }

    /// Tags `m` played by `color` on `before` (S), and remembers it as the previous move.
    /// Plays the move on an internal copy to get S′. A pass is tagged [`Tags::PASS`]. A
    /// move [`Board::is_legal`] refuses even with multi-stone suicide allowed (occupied,
    /// simple-ko violation, single-stone suicide, off the board) gets no tag. A legal
    /// multi-stone suicide (New Zealand / Tromp-Taylor) is tagged from the position it
    /// leaves: its chain is gone, so it is never `self_atari`.
    pub fn tag(&mut self, before: &Board, color: Color, m: Move) -> Tags {
        let p = match m {
            Move::Pass => {
                self.prev = Prev::default();
                return Tags { mask: Tags::PASS, ..Tags::default() };
            }
            Move::Play(p) => p,
        };
        let nz = Rules { multi_stone_suicide: true };
        if before.is_legal(color, m, &nz).is_err() {
            self.prev = Prev::default();
            return Tags::default();
        }
        let pre = pre(&mut self.scratch, &self.prev, before, color, p);
        self.after.clone_from(before);
        self.after.play_unchecked(color, m);
        post(&mut self.scratch, &mut self.prev, &pre, &self.after)
    }

    /// [`Tagger::tag`] for a caller that already has both positions: `after` must be
    /// `before` with `m` played by `color` (captures made). Saves the board copy.
    pub fn tag_played(&mut self, before: &Board, after: &Board, color: Color, m: Move) -> Tags {
        let pending = self.before_move(before, color, m);
        self.after_move(pending, after)
    }

    /// First half of [`Tagger::tag_played`] for a caller that plays the move on its only
    /// board: call with S before playing, then [`Tagger::after_move`] with S′. No board
    /// copy at all.
    pub fn before_move(&mut self, before: &Board, color: Color, m: Move) -> PendingTags {
        PendingTags(match m {
            Move::Pass => {
                self.prev = Prev::default();
                Pending::Known(Tags { mask: Tags::PASS, ..Tags::default() })
            }
            Move::Play(p) if before.is_on_board(p) && before.get(p) == 0 => {
                Pending::Needs(pre(&mut self.scratch, &self.prev, before, color, p))
            }
            Move::Play(_) => {
                self.prev = Prev::default();
                Pending::Known(Tags::default())
            }
        })
    }

    /// Second half: the tags of the move [`Tagger::before_move`] saw, given S′ = `after`
    /// (that move played, captures made).
    pub fn after_move(&mut self, pending: PendingTags, after: &Board) -> Tags {
        match pending.0 {
            Pending::Known(t) => t,
            Pending::Needs(pre) => post(&mut self.scratch, &mut self.prev, &pre, after),
        }
    }
}

/// What [`pre`] learns from S for [`post`].
#[derive(Clone, Copy, Debug)]
struct Pre {
    p: Point,
    color: Color,
    /// Tags known from S alone (own-eye fill, capture, snapback).
    mask: u32,
    n_own: usize,
    n_caps: usize,
    capture_size: u32,
    /// Opponent chains next to `p` that the move does not capture (candidates for atari).
    cand: [Point; 4],
    n_cand: usize,
    /// Points the captures empty, as bits `row * 19 + col`.
    vacated: [u64; 6],
}

/// The tags of a move not yet played, or already known.
#[derive(Clone, Copy, Debug)]
pub struct PendingTags(Pending);

#[derive(Clone, Copy, Debug)]
enum Pending {
    Known(Tags),
    Needs(Pre),
}

/// The part of the tags that S = `before` decides (reads `prev` for `snapback`; the
/// saved chains go to `s.saves`).
fn pre(s: &mut Scratch, prev: &Prev, before: &Board, color: Color, p: Point) -> Pre {
    let pc = color.as_u8();
    let oc = color.opponent().as_u8();
    let mut mask = 0u32;

    // Distinct chains next to m in S, own and opponent.
    let mut own = [p; 4];
    let mut n_own = 0;
    let mut opp = [p; 4];
    let mut n_opp = 0;
    for d in 0..4 {
        if let Some(q) = nb(before, p, d) {
            let c = before.get(q);
            if c == pc {
                push_chain(before, &mut own, &mut n_own, q);
            } else if c == oc {
                push_chain(before, &mut opp, &mut n_opp, q);
            }
        }
    }

    if is_simple_eye(before, p, color) {
        mask |= Tags::OWN_EYE_FILL;
    }

    // capture: opponent chains whose last liberty is m; the others may be put in atari.
    let mut caps = [p; 4];
    let mut n_caps = 0;
    let mut capture_size = 0u32;
    let mut cand = [p; 4];
    let mut n_cand = 0;
    for &o in &opp[..n_opp] {
        if before.chain_liberties(o) == 1 {
            caps[n_caps] = o;
            n_caps += 1;
            capture_size += before.chain_size(o);
        } else {
            cand[n_cand] = o;
            n_cand += 1;
        }
    }
    if n_caps > 0 {
        mask |= Tags::CAPTURE;
    }

    // The stones the captures empty: snapback now, and the context for the next move.
    let mut vacated = [0u64; 6];
    for &c in &caps[..n_caps] {
        before.chain_stones(c, &mut s.stones);
        for &q in &s.stones {
            let i = q.row as usize * N + q.col as usize;
            vacated[i / 64] |= 1 << (i % 64);
        }
    }
    if capture_size >= 2 && prev.color == Some(color.opponent()) && prev.captured && prev.hash_after == before.hash() {
        let i = p.row as usize * N + p.col as usize;
        let on_vacated = prev.vacated[i / 64] & (1 << (i % 64)) != 0;
        let took_it = |c: Point| prev.point.is_some_and(|q| before.same_chain(c, q));
        if on_vacated && caps[..n_caps].iter().any(|&c| took_it(c)) {
            mask |= Tags::SNAPBACK;
        }
    }

    // atari_save / ladder_escape: own chains in atari in S next to m, or next to a
    // captured stone.
    s.saves.clear();
    for &g in &own[..n_own] {
        if before.chain_liberties(g) == 1 {
            s.saves.push((g, false));
        }
    }
    if n_caps > 0 {
        for &c in &caps[..n_caps] {
            before.chain_stones(c, &mut s.stones);
            for &st in &s.stones {
                for d in 0..4 {
                    let Some(q) = nb(before, st, d) else { continue };
                    if before.get(q) != pc || before.chain_liberties(q) != 1 {
                        continue;
                    }
                    match s.saves.iter_mut().find(|(h, _)| before.same_chain(*h, q)) {
                        Some(e) => e.1 = true,
                        None => s.saves.push((q, true)),
                    }
                }
            }
        }
    }
    Pre { p, color, mask, n_own, n_caps, capture_size, cand, n_cand, vacated }
}

/// The rest of the tags, from S′ = `after` (the move played, captures made); updates
/// `prev` to this move.
fn post(s: &mut Scratch, prev: &mut Prev, pre: &Pre, after: &Board) -> Tags {
    let Pre { p, color, mut mask, n_own, n_caps, capture_size, .. } = *pre;

    // atari: opponent chains taken from 2 liberties to 1 (one stone takes one liberty).
    let mut ataried = [p; 4];
    let mut n_ataried = 0;
    for &o in &pre.cand[..pre.n_cand] {
        if after.chain_liberties(o) == 1 {
            ataried[n_ataried] = o;
            n_ataried += 1;
        }
    }
    if n_ataried > 0 {
        mask |= Tags::ATARI;
    }
    if n_ataried > 1 {
        mask |= Tags::DOUBLE_ATARI;
    }

    // self_atari (after captures), ko_capture, tigers_mouth_entry.
    let my_libs = after.chain_liberties(p);
    let my_size = after.chain_size(p);
    let mut self_atari_size = 0;
    if my_libs == 1 {
        mask |= Tags::SELF_ATARI;
        self_atari_size = my_size;
        if capture_size == 1 && my_size == 1 {
            mask |= Tags::KO_CAPTURE;
        }
        if n_caps == 0 && n_own == 0 {
            mask |= Tags::TIGERS_MOUTH_ENTRY;
        }
    }

    s.checked.clear();
    for i in 0..s.saves.len() {
        let (g, by_capture) = s.saves[i];
        let libs = after.chain_liberties(g);
        if libs < 2 {
            continue;
        }
        mask |= Tags::ATARI_SAVE;
        if by_capture {
            mask |= Tags::ATARI_SAVE_BY_CAPTURE;
        }
        if mask & Tags::LADDER_ESCAPE != 0 || s.checked.iter().any(|&h| after.same_chain(h, g)) {
            continue;
        }
        s.checked.push(g);
        if libs >= 3 || !s.ladder.working_moves_2libs(after, g, &mut s.moves) {
            mask |= Tags::LADDER_ESCAPE;
        }
    }

    // ladder_capture / broken_ladder_chase on each chain put in atari.
    for &o in &ataried[..n_ataried] {
        if s.ladder.is_captured(after, o, true) {
            mask |= Tags::LADDER_CAPTURE;
        } else if ladder_shape(s, after, o) {
            mask |= Tags::BROKEN_LADDER_CHASE;
        }
    }

    *prev = Prev {
        color: Some(color),
        point: Some(p),
        vacated: pre.vacated,
        captured: n_caps > 0,
        hash_after: after.hash(),
    };
    Tags {
        mask,
        capture_size: capture_size.min(u16::MAX as u32) as u16,
        self_atari_size: self_atari_size.min(u16::MAX as u32) as u16,
    }
}

/// Whether the chain at `o` (one liberty, in `after`) would be chased on: its owner
/// extending at the last liberty (legal, the ko ban ignored as in the ladder search)
/// ends with exactly 2 liberties, so the attacker can atari again.
fn ladder_shape(s: &mut Scratch, after: &Board, o: Point) -> bool {
    let Some(oc) = after.color_at(o) else { return false };
    after.chain_stones(o, &mut s.stones);
    let mut lib = None;
    'find: for &st in &s.stones {
        for d in 0..4 {
            if let Some(q) = nb(after, st, d) {
                if after.get(q) == 0 {
                    lib = Some(q);
                    break 'find;
                }
            }
        }
    }
    let Some(l) = lib else { return false };
    match after.is_legal(oc, Move::Play(l), &Rules::default()) {
        Ok(()) | Err(Illegal::Ko) => {}
        Err(_) => return false,
    }
    s.probe.clone_from(after);
    s.probe.play_unchecked(oc, Move::Play(l));
    s.probe.chain_liberties(l) == 2
}
