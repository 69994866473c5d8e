//! Ownership estimated by fast random playouts from a final position: evidence for
//! which groups are dead (docs/scoring.md, "Evidence").
//!
//! A playout plays uniformly random legal moves for both colours in turn, starting
//! with `first`, with two exceptions that keep it meaningful: a player never fills a
//! single-point eye of its own (every on-board neighbour its stone) and never plays a
//! self-atari that makes a chain of two stones or more (a single stone may still be
//! thrown in: nakade and throw-ins stay possible, but a seki's shared liberties are
//! never filled, so seki groups survive as two living groups). Captures are allowed.
//! A player with no such move passes; the playout stops after two passes in a row or
//! at [`MAX_MOVES`]. Then every point is owned by the colour of its stone, or, if empty,
//! by the colour of all its neighbours (nobody's if they differ).
//!
//! The random numbers are `splitmix64` streams seeded by the caller (the position's
//! hash in [`super::judge`]), so the same position always gives the same estimate. Each
//! playout has a stream of its own, drawn from its series' seed and its index in the
//! series: how many numbers one playout draws never changes what another plays.

use crate::coord::{Point, NN};
use crate::engine::zobrist::splitmix64;
use crate::engine::{Board, Color, Loc};

/// Playouts per position at most ([`super::judge`] stops sooner once every chain is
/// clear; docs/results/scoring.md, "Fourth round": 64 decided no better than 32).
pub const PLAYOUTS: u32 = 32;
/// Moves per playout at most (both colours together).
pub const MAX_MOVES: u32 = 600;

/// Moves a playout must go without a new position, after a position has come back,
/// before it ends early in a cycle ([`Cycles`]): more than the longest such gap measured
/// on the dev corpus in all but one playout in a hundred (docs/results/scoring.md, "Sixth round").
pub const CYCLE_WINDOW: u32 = 64;

/// In how many playouts each point ended Black's and White's.
#[derive(Clone, Debug)]
pub struct PlayoutOwnership {
    /// Playouts run.
    pub playouts: u32,
    /// Per point ([`Point::index`]): playouts in which it ended Black's.
    pub black: [u16; NN],
    /// Per point: playouts in which it ended White's.
    pub white: [u16; NN],
}

impl PlayoutOwnership {
    /// The share of playouts in which `i` ended as `color`'s, in `[0, 1]`.
    pub fn share(&self, i: usize, color: Color) -> f32 {
        let n = match color {
            Color::Black => self.black[i],
            Color::White => self.white[i],
        };
        n as f32 / self.playouts.max(1) as f32
    }
}

/// Runs `playouts` random playouts from `board` (see the module docs), `first` to move,
/// with the random stream seeded by `seed`. Never panics; on a board where no move can
/// be played every playout ends at once.
pub fn playout_ownership(board: &Board, first: Color, playouts: u32, seed: u64) -> PlayoutOwnership {
    let mut p = Playouts::new(board, &[(first, seed)]);
    p.run(playouts);
    p.own
}

/// Playouts from one position in several seeded series (each its first colour and its
/// own random stream), run in turn one playout of each series at a time, so that a
/// caller may stop after any round and the counts after `n` rounds of every series are
/// exactly those of `n` playouts of each series run alone ([`playout_ownership`]).
pub struct Playouts<'a> {
    board: &'a Board,
    /// Per series: its first colour and its seed.
    series: Vec<(Color, u64)>,
    /// The counts so far.
    pub own: PlayoutOwnership,
    captured: [Loc; NN],
    /// Black's and White's candidate moves.
    cands: [Candidates; 2],
    /// Their lists on `board`, where every playout starts (made by the first).
    start: Option<Box<[Candidates; 2]>>,
    /// Per location ([`Loc::index`]): a point no playout draws ([`Playouts::freeze`]).
    frozen: [bool; 512],
    /// Per colour and location: the playout ([`PlayoutOwnership::playouts`] + 1) in which
    /// the point was set aside as closed to that colour ([`Board::is_closed_to`]).
    closed: [[u32; 512]; 2],
    /// Under [`Playouts::run_checked`]: the points found set aside, summed over the moves.
    seen_closed: usize,
    /// The positions after captures, for [`CYCLE_WINDOW`].
    cycles: Box<Cycles>,
    /// [`CYCLE_WINDOW`], or `u32::MAX` to run every cycle to [`MAX_MOVES`] (for the tests).
    pub(crate) window: u32,
    /// Moves played, summed over the playouts (passes included).
    pub moves: u64,
}

impl<'a> Playouts<'a> {
    /// No playout run yet; `series`: (first colour, seed) of each series.
    pub fn new(board: &'a Board, series: &[(Color, u64)]) -> Playouts<'a> {
        Playouts {
            board,
            series: series.iter().map(|&(c, seed)| (c, seed ^ 0x005e_ed0f_6b69_626f)).collect(),
            own: PlayoutOwnership { playouts: 0, black: [0; NN], white: [0; NN] },
            captured: [Loc::default(); NN],
            cands: [Candidates::new(), Candidates::new()],
            start: None,
            frozen: [false; 512],
            closed: [[0; 512]; 2],
            seen_closed: 0,
            cycles: Box::new(Cycles::new()),
            window: CYCLE_WINDOW,
            moves: 0,
        }
    }

    /// Leaves the points of `area` (per point, [`Point::index`]) out of every playout's
    /// draws: the pass-alive areas, where no move changes any chain's fate (a pass-alive
    /// chain cannot be captured, and the regions it encloses touch no other chain), so
    /// that the playouts spend their moves where the open chains are. A tactical reply
    /// may still play there; a point of the area freed by a capture stays out.
    pub fn freeze(&mut self, area: &[bool]) {
        for (i, _) in area.iter().enumerate().filter(|(_, &f)| f) {
            if let Some(l) = Point::from_index(i as u16).and_then(|p| self.board.loc(p)) {
                self.frozen[l.index()] = true;
            }
        }
        self.start = None;
    }

    /// Runs `n` more playouts, one series after the other in turn.
    pub fn run(&mut self, n: u32) {
        self.run_with::<false>(n)
    }

    /// [`Playouts::run`], checking after every move that each colour's candidates are
    /// exactly the empty points that are not its eyes nor set aside as closed to it, and
    /// that every point set aside is closed (for the tests). Returns the points found
    /// set aside, summed over the moves.
    #[cfg(test)]
    pub(crate) fn run_checked(&mut self, n: u32) -> usize {
        self.run_with::<true>(n);
        self.seen_closed
    }

    fn run_with<const CHECK: bool>(&mut self, n: u32) {
        for _ in 0..n {
            let n = self.series.len().max(1);
            let (k, round) = (self.own.playouts as usize % n, (self.own.playouts as usize / n) as u64);
            let Some(&(first, seed)) = self.series.get(k) else { return };
            let (_, state) = splitmix64(seed ^ (round + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
            self.one::<CHECK>(first, state);
            self.own.playouts += 1;
        }
    }

    /// One playout with `first` to move, its random stream started at `state`.
    ///
    /// Each colour draws from its own list of candidates ([`Candidates`]): the empty
    /// points that are not its single-point eyes, which are most of the points a late
    /// playout would otherwise draw and reject. A candidate found unplayable is swapped
    /// behind the ones still to try, so the move is uniform over the playable points;
    /// one closed to the mover (the opponent's eye, no chain around it in atari:
    /// [`Board::is_closed_to`]) leaves its list until a capture frees a neighbour or a
    /// move puts a chain around it in atari, the only ways it can open again.
    ///
    /// A playout caught in a cycle (a triple ko, or the moves of several kos going round)
    /// would run to [`MAX_MOVES`]. Every position after a capture is remembered ([`Cycles`]);
    /// once one comes back and [`CYCLE_WINDOW`] moves have passed without a new one, the
    /// playout ends at the first move whose distance to [`MAX_MOVES`] is a multiple of the
    /// cycle's length, the last return's: where a cycle repeats move for move, the very
    /// position move 600 would reach. A new position after that lifts the early end.
    fn one<const CHECK: bool>(&mut self, first: Color, mut state: u64) {
        let epoch = self.own.playouts + 1;
        let closed = &mut self.closed;
        let captured = &mut self.captured;
        let mut b = self.board.clone();
        b.clear_ko();
        let (board, frozen) = (self.board, &self.frozen);
        let start = self.start.get_or_insert_with(|| {
            let mut empties = [Loc::default(); NN];
            let len = board.empty_locs(&mut empties);
            Box::new([Color::Black, Color::White].map(|c| {
                Candidates::of(empties[..len].iter().copied().filter(|&l| !frozen[l.index()] && !board.is_eye_at(c, l)))
            }))
        });
        let cands = &mut self.cands;
        cands.clone_from(start);
        let (mut color, mut passes, mut moves) = (first, 0, 0);
        // The move the playout ends at, and the last move that made a new position.
        let (mut end, mut last_new) = (MAX_MOVES, 0);
        // The chains in atari at and next to the last move (none after a pass).
        let mut ataris = [(Color::Black, Loc::default()); 5];
        let mut n_ataris = 0;
        while passes < 2 && moves < end {
            let mut found = b.playout_reply_among(color, &ataris[..n_ataris]);
            if found.is_none() {
                let list = &mut cands[color as usize - 1];
                let mut k = list.len;
                while k > 0 {
                    let r;
                    (state, r) = splitmix64(state);
                    let j = (r % k as u64) as usize;
                    let at = list.locs[j];
                    if b.is_playout_move_at(color, at) {
                        found = Some(at);
                        break;
                    }
                    list.swap(j, k - 1);
                    k -= 1;
                    if b.is_closed_to(color, at) {
                        // At `k`, among the points already tried: removing it moves
                        // another tried point there.
                        list.remove(at);
                        closed[color as usize - 1][at.index()] = epoch;
                    }
                }
            }
            n_ataris = 0;
            if let Some(p) = found {
                let taken = b.captured_by(color, p, captured, 0);
                b.play_at(color, p);
                let [black, white] = &mut *cands;
                let (mine, theirs) = match color {
                    Color::Black => (black, white),
                    Color::White => (white, black),
                };
                mine.remove(p);
                theirs.remove(p);
                closed[0][p.index()] = 0;
                closed[1][p.index()] = 0;
                // A neighbour that was empty next to an empty `p` was nobody's eye; it
                // may be the mover's now.
                for q in b.empty_neighbours(p).into_iter().flatten() {
                    if b.is_eye_at(color, q) {
                        mine.remove(q);
                    }
                }
                // A captured stone had no empty neighbour: its point is the mover's eye
                // or nobody's, and never the opponent's.
                for &q in captured[..taken].iter().filter(|q| !self.frozen[q.index()]) {
                    theirs.insert(q);
                    if !b.is_eye_at(color, q) {
                        mine.insert(q);
                    }
                }
                // Points closed to a colour open again: next to a freed point, or at the
                // last liberty of a chain this move left in atari.
                let mut reopen = |c: Color, l: Loc| {
                    let set_aside = &mut closed[c as usize - 1][l.index()];
                    if *set_aside == epoch {
                        *set_aside = 0;
                        if !b.is_eye_at(c, l) {
                            cands[c as usize - 1].insert(l);
                        }
                    }
                };
                for &q in &captured[..taken] {
                    for e in Board::neighbour_locs(q) {
                        reopen(Color::Black, e);
                        reopen(Color::White, e);
                    }
                }
                n_ataris = b.ataris_at(p, &mut ataris);
                for &(by, l) in &ataris[..n_ataris] {
                    reopen(by, l);
                }
                if taken > 0 {
                    // The position after this move: the stones, the move (which fixes the
                    // ko and the replies) and the colour to move next.
                    let key = b.hash() ^ (p.index() as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ color as u64;
                    let now = moves + 1;
                    match self.cycles.visit(key, now, epoch) {
                        None => (end, last_new) = (MAX_MOVES, now),
                        Some(period) if end == MAX_MOVES && now - last_new >= self.window => {
                            end = now + (MAX_MOVES - now) % period;
                        }
                        Some(_) => {}
                    }
                }
            }
            if CHECK {
                self.seen_closed += check_candidates(&b, cands, &self.frozen, closed, epoch);
            }
            passes = if found.is_some() { 0 } else { passes + 1 };
            color = color.opponent();
            moves += 1;
        }
        self.moves += u64::from(moves);
        tally(&b, &mut self.own);
    }
}

/// The positions a playout has seen after its captures, by key (an open-addressed table
/// of [`Cycles::SLOTS`] entries, each stamped with its playout so that none is ever
/// cleared): a cycle must capture, so a position that comes back is seen here.
struct Cycles {
    key: [u64; Cycles::SLOTS],
    /// The move after which the position was last seen.
    at: [u32; Cycles::SLOTS],
    /// The playout that wrote the entry ([`PlayoutOwnership::playouts`] + 1).
    epoch: [u32; Cycles::SLOTS],
}

impl Cycles {
    /// More than the captures of one playout ([`MAX_MOVES`]), so a free slot is always left.
    const SLOTS: usize = 1024;

    fn new() -> Cycles {
        Cycles { key: [0; Cycles::SLOTS], at: [0; Cycles::SLOTS], epoch: [0; Cycles::SLOTS] }
    }

    /// Records the position `key` seen after move `now` of playout `epoch`: `None` if it
    /// is new, else the moves since it was last seen.
    #[inline]
    fn visit(&mut self, key: u64, now: u32, epoch: u32) -> Option<u32> {
        let mut i = (key as usize ^ (key >> 32) as usize) & (Cycles::SLOTS - 1);
        while self.epoch[i] == epoch {
            if self.key[i] == key {
                let period = now - self.at[i];
                self.at[i] = now;
                return Some(period);
            }
            i = (i + 1) & (Cycles::SLOTS - 1);
        }
        (self.key[i], self.at[i], self.epoch[i]) = (key, now, epoch);
        None
    }
}

// Every capture of a playout finds a free slot.
const _: () = assert!((MAX_MOVES as usize) < Cycles::SLOTS);

/// One colour's candidate moves in a playout: a list to draw from by index, with each
/// member's place in it, so that members are inserted, removed and swapped in O(1).
#[derive(Clone)]
struct Candidates {
    /// The members, in `locs[..len]`.
    locs: [Loc; NN],
    len: usize,
    /// Per location ([`Loc::index`]): its place in `locs`, or `ABSENT`.
    at: [u16; 512],
}

const ABSENT: u16 = u16::MAX;

impl Candidates {
    fn new() -> Candidates {
        Candidates { locs: [Loc::default(); NN], len: 0, at: [ABSENT; 512] }
    }

    /// The list of `locs`, in that order.
    fn of(locs: impl Iterator<Item = Loc>) -> Candidates {
        let mut list = Candidates::new();
        for l in locs {
            list.insert(l);
        }
        list
    }

    #[inline]
    fn insert(&mut self, l: Loc) {
        if self.at[l.index()] == ABSENT && self.len < NN {
            self.at[l.index()] = self.len as u16;
            self.locs[self.len] = l;
            self.len += 1;
        }
    }

    #[inline]
    fn remove(&mut self, l: Loc) {
        let i = self.at[l.index()];
        if i != ABSENT {
            self.len -= 1;
            self.swap(i as usize, self.len);
            self.at[l.index()] = ABSENT;
        }
    }

    #[inline]
    fn swap(&mut self, i: usize, j: usize) {
        let (a, b) = (self.locs[i], self.locs[j]);
        self.locs[i] = b;
        self.locs[j] = a;
        self.at[a.index()] = j as u16;
        self.at[b.index()] = i as u16;
    }
}

/// Panics unless `cands` are Black's and White's candidates on `b` (every empty point
/// not `frozen`, not the colour's eye and not set aside as `closed` to it in playout
/// `epoch`, once, with its place recorded), and every point set aside is closed.
/// Returns how many are set aside.
fn check_candidates(
    b: &Board,
    cands: &[Candidates; 2],
    frozen: &[bool; 512],
    closed: &[[u32; 512]; 2],
    epoch: u32,
) -> usize {
    let mut set_aside = 0;
    let mut empties = [Loc::default(); NN];
    let n = b.empty_locs(&mut empties);
    for (c, list) in [Color::Black, Color::White].into_iter().zip(cands) {
        let mut want: Vec<usize> = empties[..n]
            .iter()
            .filter(|&&l| !frozen[l.index()] && !b.is_eye_at(c, l) && closed[c as usize - 1][l.index()] != epoch)
            .map(|l| l.index())
            .collect();
        for l in empties[..n].iter().filter(|l| closed[c as usize - 1][l.index()] == epoch) {
            assert!(b.is_closed_to(c, *l), "{c:?}: {} set aside but open", l.index());
            set_aside += 1;
        }
        let mut have: Vec<usize> = list.locs[..list.len].iter().map(|l| l.index()).collect();
        for (i, &l) in have.iter().enumerate() {
            assert_eq!(list.at[l] as usize, i, "{c:?}: the place of {l}");
        }
        assert_eq!(list.at.iter().filter(|&&i| i != ABSENT).count(), list.len, "{c:?}: stale places");
        want.sort_unstable();
        have.sort_unstable();
        assert_eq!(have, want, "{c:?}'s candidates");
    }
    set_aside
}

/// Adds the owners of the end position of one playout to `own` ([`Board::area_owners`]:
/// a point is Black's or White's when its stone is, or when it is empty and every stone
/// next to it is that colour's).
fn tally(b: &Board, own: &mut PlayoutOwnership) {
    let mut owners = [0u8; NN];
    b.area_owners(&mut owners);
    for (i, &v) in owners.iter().enumerate() {
        own.black[i] += (v == 1) as u16;
        own.white[i] += (v == 2) as u16;
    }
}
