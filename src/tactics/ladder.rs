//! Ladder reader: a port of KataGo's `Board::searchIsLadderCaptured` and
//! `Board::searchIsLadderCapturedAttackerFirst2Libs` (`cpp/game/board.cpp`), with the
//! same conventions, move order and limits, so that its answers are KataGo's.
//!
//! # Conventions (KataGo's)
//!
//! * **Query.** [`is_ladder_captured`]`(board, p, defender_first)`: can the owner of the
//!   chain at `p` (the *defender*) be captured by a sequence of ataris? With
//!   `defender_first` the chain must have exactly 1 liberty and its owner moves first;
//!   otherwise it must have at most 2 and the other colour (the *attacker*) moves first.
//!   Any other liberty count, an empty point or a point off the board answers `false`.
//!   The board stores no side to move: the search alternates from the colour implied.
//! * **Defender node.** ≥ 2 liberties: escaped. A simple-ko point left by the attacker's
//!   last move: escaped (ladders that depend on a ko count as not captured; the defender
//!   is assumed to win every ko). Moves: first the liberties of adjacent attacker chains
//!   in atari (counter-captures, walking the defender chain from `p`), then its own
//!   liberty. Before trying them: if a fast lower bound on the liberties after extending
//!   (KataGo `getBoundNumLibertiesAfterPlay`) is ≥ 3, escaped; if extending is the only
//!   move and the upper bound is ≤ 1, captured.
//! * **Attacker node.** ≤ 1 liberty: captured; ≥ 3: failed. Moves: the two liberties.
//!   *Double-ko death*: if both liberties have no empty neighbour, both would be ko
//!   captures for the attacker, connecting at either gives the defender ≤ 2 liberties
//!   and no attacker chain next to the defender is in atari, captured. *Forced
//!   liberty*: if the two liberties are not adjacent, a liberty with ≥ 3 empty
//!   neighbours is the one the attacker must fill (if both have ≥ 3, failed).
//!   *Order*: by `2 × empty neighbours + Σ (2 × libs − 3)` over the defender chains with
//!   ≥ 2 liberties next to the point, higher first, ties in liberty-discovery order.
//! * **Legality.** Illegal moves (occupied, suicide of any size, the simple-ko ban) are
//!   skipped as failures of that move. At the root of a `defender_first` search the
//!   board's ko ban is ignored ("assume all kos work for the defender").
//! * **Limits.** After 25,000 played nodes ([`LADDER_NODE_BUDGET`]) the search gives up
//!   and answers `false` (not captured), as KataGo does, even for ladders that work
//!   ("Failing polynomial ladder due to max node budget"); [`LadderSearch::gave_up`]
//!   says so (KataGo's board is then left without its simple-ko point). A line deeper than
//!   `cols × rows × 3/2` plies counts as captured.
//! * **Breakers** need nothing special: a breaker shows up as a defender extension that
//!   reaches ≥ 3 liberties, or as a counter-capture.
//! * [`working_moves_2libs`]: for a chain with exactly 2 liberties, each liberty at which
//!   the attacker's atari is legal and after which a `defender_first` search answers
//!   captured. Empty when the chain is not laddered (KataGo returns `false`).
//!
//! # Implementation
//!
//! An iterative depth-first search with KataGo's explicit stack of move lists; instead
//! of KataGo's undo it keeps one board copy per ply in a buffer reused between calls
//! (a 150-move ladder holds ~300 copies of ~4.6 KiB on the heap; nothing grows on the
//! thread stack). Liberties are discovered in KataGo's order (walking the chain's
//! circular list from the queried stone, neighbours up, left, right, down), and the
//! engine keeps its chain lists in KataGo's order, so node counts match KataGo's up to
//! one difference: KataGo's undo may rebuild a chain list in another order, ours is
//! restored exactly. The 11 KataGo test boards, including the two node-budget ones,
//! come out identical (see the tests).
//!
//! [`LadderSearch`] owns every buffer: after the first few calls it allocates nothing.
//! The free functions make a fresh one per call.

use crate::coord::{Move, Point};
use crate::engine::{Board, Color, Illegal, Rules};

use super::{cell, is_adjacent, nb, WALL};

/// Played nodes after which a search gives up and answers "not captured" (KataGo
/// `MAX_LADDER_SEARCH_NODE_BUDGET`).
pub const LADDER_NODE_BUDGET: usize = 25_000;

/// Cell value of an empty point.
const EMPTY: u8 = 0;

/// Whether the chain at `chain_point` is ladder-captured (KataGo
/// `searchIsLadderCaptured`; see the module docs). Allocates its buffers; use a
/// [`LadderSearch`] to run many searches.
pub fn is_ladder_captured(board: &Board, chain_point: Point, defender_first: bool) -> bool {
    LadderSearch::new().is_captured(board, chain_point, defender_first)
}

/// The attacker's working ladder moves against the 2-liberty chain at `chain_point`
/// (KataGo `searchIsLadderCapturedAttackerFirst2Libs`), in liberty-discovery order;
/// empty when the chain does not have exactly 2 liberties or is not laddered.
pub fn working_moves_2libs(board: &Board, chain_point: Point) -> Vec<Point> {
    let mut out = Vec::new();
    LadderSearch::new().working_moves_2libs(board, chain_point, &mut out);
    out
}

/// A reusable ladder reader: the buffers of the search live here, so repeated searches
/// do not allocate. Not shared between threads; make one per worker.
#[derive(Clone, Debug, Default)]
pub struct LadderSearch {
    work: Work,
    /// The position after the attacker's first move (attacker-first searches).
    first: Option<Board>,
    /// Played nodes of the last call (both searches of an attacker-first call).
    nodes: usize,
}

/// The buffers of one search.
#[derive(Clone, Debug, Default)]
struct Work {
    /// `boards[i]` is the position at depth `i + 1` (depth 0 is the caller's board).
    boards: Vec<Board>,
    /// Move lists of all levels, concatenated (KataGo `buf`).
    buf: Vec<Point>,
    /// Per level: start of its move list in `buf`, its length, the move being tried
    /// (`-1`: not generated yet).
    starts: Vec<usize>,
    lens: Vec<usize>,
    cur: Vec<isize>,
    /// Chain walks.
    stones: Vec<Point>,
    stones2: Vec<Point>,
    /// Representatives of the attacker chains already looked at for counter-captures.
    seen: Vec<Point>,
    /// Played nodes of the current search.
    nodes: usize,
    /// Whether the current search ran out of its node budget.
    gave_up: bool,
}

impl LadderSearch {
    /// A reader with empty buffers.
    pub fn new() -> LadderSearch {
        LadderSearch::default()
    }

    /// [`is_ladder_captured`], reusing this reader's buffers.
    pub fn is_captured(&mut self, board: &Board, chain_point: Point, defender_first: bool) -> bool {
        let r = self.work.search(board, chain_point, defender_first);
        self.nodes = self.work.nodes;
        r
    }

    /// [`working_moves_2libs`] into `out` (cleared first), reusing this reader's buffers.
    /// Returns whether any move works.
    pub fn working_moves_2libs(&mut self, board: &Board, chain_point: Point, out: &mut Vec<Point>) -> bool {
        out.clear();
        self.nodes = 0;
        if !board.is_on_board(chain_point) || board.chain_liberties(chain_point) != 2 {
            return false;
        }
        let Some(pla) = board.color_at(chain_point) else { return false };
        let opp = pla.opponent();
        let w = &mut self.work;
        find_liberties(board, chain_point, &mut w.buf, 0, 0);
        let moves = [w.buf[0], w.buf[1]];
        let mut works = [false; 2];
        for (i, &m) in moves.iter().enumerate() {
            // Suicide is never relevant for ladders: no multi-stone suicide.
            if board.is_legal(opp, Move::Play(m), &Rules::default()).is_ok() {
                let first = self.first.get_or_insert_with(Board::new);
                first.clone_from(board);
                first.play_unchecked(opp, Move::Play(m));
                works[i] = self.work.search(first, chain_point, true);
                self.nodes += self.work.nodes;
            }
        }
        for (i, &m) in moves.iter().enumerate() {
            if works[i] {
                out.push(m);
            }
        }
        !out.is_empty()
    }

    /// [`LadderSearch::is_captured`] with another stack size than KataGo's (the depth
    /// at which a line counts as captured).
    #[cfg(test)]
    pub(crate) fn is_captured_with_stack(
        &mut self,
        board: &Board,
        p: Point,
        defender_first: bool,
        stack: usize,
    ) -> bool {
        let r = self.work.search_with_stack(board, p, defender_first, Some(stack));
        self.nodes = self.work.nodes;
        r
    }

    /// Played nodes of the last call (for tests and measurements).
    pub fn last_nodes(&self) -> usize {
        self.nodes
    }

    /// Whether the last [`LadderSearch::is_captured`] ran out of its node budget (and so
    /// answered "not captured"). KataGo's search then unwinds its moves without restoring
    /// the simple-ko point it cleared at its root: `iterLadders`' shared board copy loses
    /// the ko ban for the chains after it (`V7Encoder` follows that).
    pub fn gave_up(&self) -> bool {
        self.work.gave_up
    }
}

impl Work {
    /// KataGo `searchIsLadderCaptured(loc, defenderFirst)` on `root` (not modified).
    fn search(&mut self, root: &Board, loc: Point, defender_first: bool) -> bool {
        self.search_with_stack(root, loc, defender_first, None)
    }

    /// [`Work::search`] with KataGo's stack size (`cols × rows × 3/2 + 1`), or the given
    /// one (tests of the depth limit).
    fn search_with_stack(&mut self, root: &Board, loc: Point, defender_first: bool, stack: Option<usize>) -> bool {
        self.nodes = 0;
        self.gave_up = false;
        if !root.is_on_board(loc) {
            return false;
        }
        let Some(pla) = root.color_at(loc) else { return false };
        let libs = root.chain_liberties(loc);
        if libs > 2 || (defender_first && libs > 1) {
            return false;
        }
        let opp = pla.opponent();
        let (cols, rows) = root.size();
        // A bit bigger than the board, as KataGo: recaptures can make a line longer.
        let stack_size = stack.unwrap_or(cols * rows * 3 / 2 + 1).max(1);
        let Work { boards, buf, starts, lens, cur, stones, stones2, seen, nodes, gave_up } = self;
        if starts.len() < stack_size {
            starts.resize(stack_size, 0);
            lens.resize(stack_size, 0);
            cur.resize(stack_size, -1);
        }
        let rules = Rules::default();

        let mut idx: isize = 0;
        cur[0] = -1;
        starts[0] = 0;
        lens[0] = 0;
        let mut ret = false;
        loop {
            // Returned from the root: that is the answer.
            if idx < 0 {
                return ret;
            }
            let d = idx as usize;
            // Too deep: count this line as captured.
            if d + 1 >= stack_size {
                ret = true;
                idx -= 1;
                continue;
            }
            // Out of budget: assume the ladder does not work.
            if *nodes >= LADDER_NODE_BUDGET {
                *gave_up = true;
                return false;
            }
            let is_def = d.is_multiple_of(2) == defender_first;
            let board: &Board = if d == 0 { root } else { &boards[d - 1] };

            if cur[d] == -1 {
                // Just entered this level: base cases, then generate the moves.
                let start = starts[d];
                let entered = match settled_on_entry(board, loc, is_def, d == 0 && defender_first) {
                    Some(r) => Err(r),
                    None if is_def => defender_moves(board, loc, pla, buf, start, seen),
                    None => attacker_moves(board, loc, pla, opp, buf, start, stones, stones2),
                };
                match entered {
                    Ok(len) => {
                        lens[d] = len;
                        cur[d] = 0;
                    }
                    Err(r) => {
                        ret = r;
                        idx -= 1;
                        continue;
                    }
                }
            } else {
                // Back from a deeper level, or from an illegal move at this one. (Nothing
                // to undo: the child position lives in its own copy.)
                if is_def != ret {
                    // The defender found an escape, or the attacker a capture.
                    idx -= 1;
                    continue;
                }
                cur[d] += 1;
            }

            if cur[d] as usize >= lens[d] {
                // No move left: captured for the defender, failed for the attacker.
                ret = is_def;
                idx -= 1;
                continue;
            }
            let mv = buf[starts[d] + cur[d] as usize];
            let p = if is_def { pla } else { opp };
            if !is_legal_in_ladder(board, p, mv, &rules, d == 0 && defender_first) {
                // A failed move; try the next one at this level.
                ret = is_def;
                continue;
            }
            play_child(boards, root, d, p, mv);
            *nodes += 1;
            idx += 1;
            cur[d + 1] = -1;
            starts[d + 1] = starts[d] + lens[d];
            lens[d + 1] = 0;
        }
    }
}

/// The answer of a node decided before any move is generated (liberty counts, the
/// defender's ko escape), or `None` when its moves must be tried.
#[inline]
fn settled_on_entry(board: &Board, loc: Point, is_def: bool, ko_ban_ignored: bool) -> Option<bool> {
    let libs = board.chain_liberties(loc);
    if !is_def && libs <= 1 {
        Some(true)
    } else if (!is_def && libs >= 3) || (is_def && libs >= 2) {
        Some(false)
    } else if is_def && !ko_ban_ignored && board.ko_point().is_some() {
        // Ko-dependent ladders count as not captured (the root's ko ban is
        // cleared for a defender-first search).
        Some(false)
    } else {
        None
    }
}

/// A defender node's moves into `buf[start..]`: counter-captures, then the liberty.
/// `Ok(len)`, or `Err(answer)` when the bounds on extending settle the node.
#[inline]
fn defender_moves(
    board: &Board,
    loc: Point,
    pla: Color,
    buf: &mut Vec<Point>,
    start: usize,
    seen: &mut Vec<Point>,
) -> Result<usize, bool> {
    let mut len = find_captures(board, loc, buf, start, start, seen);
    len += find_liberties(board, loc, buf, start, start + len);
    if len == 0 {
        // No liberty at all (a dead setup chain): nothing to play.
        return Err(true);
    }
    // The list is never empty; its last move is the lone liberty (or, when
    // that liberty is also a capture, the last capture).
    let (lower, upper) = bound_libs_after_play(board, buf[start + len - 1], pla);
    if lower >= 3 {
        return Err(false);
    }
    if len == 1 && upper <= 1 {
        return Err(true);
    }
    Ok(len)
}

/// An attacker node's moves into `buf[start..]`: the two liberties, cut to the forced
/// one and ordered best first. `Ok(len)`, or `Err(answer)` on double-ko death or when
/// both liberties are open.
#[inline]
#[allow(clippy::too_many_arguments)]
fn attacker_moves(
    board: &Board,
    loc: Point,
    pla: Color,
    opp: Color,
    buf: &mut Vec<Point>,
    start: usize,
    stones: &mut Vec<Point>,
    stones2: &mut Vec<Point>,
) -> Result<usize, bool> {
    let mut len = find_liberties(board, loc, buf, start, start);
    debug_assert_eq!(len, 2);
    let (m0, m1) = (buf[start], buf[start + 1]);
    let mut libs0 = immediate_libs(board, m0);
    let mut libs1 = immediate_libs(board, m1);
    // Double-ko death: assume the attacker wins.
    if libs0 == 0
        && libs1 == 0
        && would_be_ko_capture(board, m0, opp)
        && would_be_ko_capture(board, m1, opp)
        && num_libs_after_play(board, m0, pla, 3, stones2) <= 2
        && num_libs_after_play(board, m1, pla, 3, stones2) <= 2
        && !has_liberty_gaining_captures(board, loc, stones)
    {
        return Err(true);
    }
    // Liberties not adjacent: a liberty with 3+ empty neighbours is where
    // the defender would extend, so the attacker must take it.
    if !is_adjacent(m0, m1) {
        if libs0 >= 3 && libs1 >= 3 {
            return Err(false);
        } else if libs0 >= 3 {
            len = 1;
        } else if libs1 >= 3 {
            buf[start] = m1;
            len = 1;
        }
    }
    if len > 1 {
        libs0 = libs0 * 2 + connection_libs_x2(board, m0, pla);
        libs1 = libs1 * 2 + connection_libs_x2(board, m1, pla);
        if libs1 > libs0 {
            buf.swap(start, start + 1);
        }
    }
    Ok(len)
}

/// Whether `p` may play `mv` in the search: the board's legality, except that the ko
/// ban is waived when `ko_ban_ignored` (the root of a defender-first search).
#[inline]
fn is_legal_in_ladder(board: &Board, p: Color, mv: Point, rules: &Rules, ko_ban_ignored: bool) -> bool {
    match board.is_legal(p, Move::Play(mv), rules) {
        Ok(()) => true,
        Err(Illegal::Ko) => ko_ban_ignored,
        Err(_) => false,
    }
}

/// Puts the position after `p` plays `mv` at depth `d` into `boards[d]`: a copy of the
/// parent (`root` at depth 0, else `boards[d - 1]`), reusing the slot when it exists.
#[inline]
fn play_child(boards: &mut Vec<Board>, root: &Board, d: usize, p: Color, mv: Point) {
    if boards.len() <= d {
        let child = if d == 0 { root.clone() } else { boards[d - 1].clone() };
        boards.push(child);
    } else if d == 0 {
        boards[0].clone_from(root);
    } else {
        let (lo, hi) = boards.split_at_mut(d);
        hi[0].clone_from(&lo[d - 1]);
    }
    boards[d].play_unchecked(p, Move::Play(mv));
}

/// Writes `q` at `buf[i]`, growing `buf` as needed.
#[inline]
fn put(buf: &mut Vec<Point>, i: usize, q: Point) {
    if i < buf.len() {
        buf[i] = q;
    } else {
        buf.resize(i + 1, q);
    }
}

/// KataGo `findLiberties`: appends the liberties of the chain at `loc` to `buf` from
/// `buf_idx`, skipping any already in `buf[buf_start..]`; returns how many were added.
/// The chain is walked from `loc` itself, as KataGo walks `next_in_chain`.
fn find_liberties(b: &Board, loc: Point, buf: &mut Vec<Point>, buf_start: usize, buf_idx: usize) -> usize {
    let mut found = 0;
    b.walk_chain_neighbours(loc, |q, c| {
        if c == EMPTY && !buf[buf_start..buf_idx + found].contains(&q) {
            put(buf, buf_idx + found, q);
            found += 1;
        }
        true
    });
    found
}

/// [`find_liberties`] of a chain known to have one liberty: the walk stops at it.
fn find_last_liberty(b: &Board, loc: Point, buf: &mut Vec<Point>, buf_start: usize, buf_idx: usize) -> usize {
    let mut found = 0;
    b.walk_chain_neighbours(loc, |q, c| {
        if c != EMPTY {
            return true;
        }
        if !buf[buf_start..buf_idx].contains(&q) {
            put(buf, buf_idx, q);
            found = 1;
        }
        false
    });
    found
}

/// KataGo `findLibertyGainingCaptures`: appends the last liberty of every opposing
/// chain in atari next to the chain at `loc` (walked from `loc`); returns how many.
fn find_captures(
    b: &Board,
    loc: Point,
    buf: &mut Vec<Point>,
    buf_start: usize,
    buf_idx: usize,
    seen: &mut Vec<Point>,
) -> usize {
    let opp = 3 - b.get(loc);
    seen.clear();
    let mut found = 0;
    b.walk_chain_neighbours(loc, |q, c| {
        if c == opp && b.chain_liberties(q) == 1 && !seen.iter().any(|&h| b.same_chain(h, q)) {
            found += find_last_liberty(b, q, buf, buf_start, buf_idx + found);
            seen.push(q);
        }
        true
    });
    found
}

/// KataGo `hasLibertyGainingCaptures`: is an opposing chain next to the chain at `loc`
/// in atari?
fn has_liberty_gaining_captures(b: &Board, loc: Point, stones: &mut Vec<Point>) -> bool {
    let opp = 3 - b.get(loc);
    b.chain_stones(loc, stones);
    stones.iter().any(|&s| (0..4).any(|d| nb(b, s, d).is_some_and(|q| b.get(q) == opp && b.chain_liberties(q) == 1)))
}

/// KataGo `getNumImmediateLiberties`: empty orthogonal neighbours.
#[inline]
fn immediate_libs(b: &Board, p: Point) -> i32 {
    (0..4).filter(|&d| nb(b, p, d).is_some_and(|q| b.get(q) == EMPTY)).count() as i32
}

/// KataGo `getBoundNumLibertiesAfterPlay`: fast `(lower, upper)` bounds on the liberties
/// of a `pla` stone played at `p` (neighbours counted per direction, as KataGo does).
fn bound_libs_after_play(b: &Board, p: Point, pla: Color) -> (i32, i32) {
    let (pla, opp) = (pla.as_u8(), pla.opponent().as_u8());
    let mut immediate = 0;
    let mut caps = 0;
    let mut libs_from_caps = 0;
    let mut conn = 0;
    let mut max_conn = 0;
    for d in 0..4 {
        let q = nb(b, p, d);
        let c = cell(b, q);
        if c == EMPTY {
            immediate += 1;
        } else if c == opp {
            let q = q.unwrap_or(p);
            if b.chain_liberties(q) == 1 {
                caps += 1;
                libs_from_caps += b.chain_size(q) as i32;
            }
        } else if c == pla {
            let l = b.chain_liberties(q.unwrap_or(p)) as i32 - 1;
            conn += l;
            max_conn = max_conn.max(l);
        }
    }
    (caps + max_conn.max(immediate), immediate + libs_from_caps + conn)
}

/// KataGo `getNumLibertiesAfterPlay(loc, pla, max)`: the exact liberties of a `pla`
/// stone played at `p` (captures included), or `max` if at least `max` (`max <= 8`).
fn num_libs_after_play(b: &Board, p: Point, pla: Color, max: usize, stones: &mut Vec<Point>) -> usize {
    let (pla, opp) = (pla.as_u8(), pla.opponent().as_u8());
    let max = max.min(8);
    let mut libs = [p; 8];
    let mut n = 0;
    let mut captured = [p; 4];
    let mut ncap = 0;
    for d in 0..4 {
        let Some(q) = nb(b, p, d) else { continue };
        let c = b.get(q);
        if c == EMPTY || (c == opp && b.chain_liberties(q) == 1) {
            libs[n] = q;
            n += 1;
            if n >= max {
                return max;
            }
            if c == opp && !captured[..ncap].iter().any(|&h| b.same_chain(h, q)) {
                captured[ncap] = q;
                ncap += 1;
            }
        }
    }
    let would_be_empty = |r: Point| {
        let c = b.get(r);
        c == EMPTY || (c == opp && captured[..ncap].iter().any(|&h| b.same_chain(h, r)))
    };
    let mut connecting = [p; 4];
    let mut nconn = 0;
    for d in 0..4 {
        let Some(q) = nb(b, p, d) else { continue };
        if b.get(q) != pla || connecting[..nconn].iter().any(|&h| b.same_chain(h, q)) {
            continue;
        }
        connecting[nconn] = q;
        nconn += 1;
        b.chain_stones(q, stones);
        for &s in stones.iter() {
            for k in 0..4 {
                let Some(r) = nb(b, s, k) else { continue };
                if r != p && would_be_empty(r) && !libs[..n].contains(&r) {
                    libs[n] = r;
                    n += 1;
                    if n >= max {
                        return max;
                    }
                }
            }
        }
    }
    n
}

/// KataGo `wouldBeKoCapture(loc, pla)`: `p` is empty, every neighbour is a wall or an
/// opponent stone, and exactly one neighbour is an opponent chain in atari, of one stone.
fn would_be_ko_capture(b: &Board, p: Point, pla: Color) -> bool {
    if b.get(p) != EMPTY {
        return false;
    }
    let opp = pla.opponent().as_u8();
    let mut capturable = None;
    for d in 0..4 {
        let q = nb(b, p, d);
        let c = cell(b, q);
        if c != WALL && c != opp {
            return false;
        }
        if let Some(q) = q {
            if c == opp && b.chain_liberties(q) == 1 {
                if capturable.is_some() {
                    return false;
                }
                capturable = Some(q);
            }
        }
    }
    capturable.is_some_and(|q| b.chain_size(q) == 1)
}

/// KataGo `countHeuristicConnectionLibertiesX2`: Σ (2 × libs − 3) over the `pla`
/// neighbours (per direction) whose chain has more than one liberty.
fn connection_libs_x2(b: &Board, p: Point, pla: Color) -> i32 {
    let mut x2 = 0;
    for d in 0..4 {
        if let Some(q) = nb(b, p, d) {
            if b.get(q) == pla.as_u8() {
                let l = b.chain_liberties(q) as i32;
                if l > 1 {
                    x2 += l * 2 - 3;
                }
            }
        }
    }
    x2
}
