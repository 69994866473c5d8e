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
//! The random numbers are a `splitmix64` stream seeded by the caller (the position's
//! hash in [`super::judge`]), so the same position always gives the same estimate.

use crate::coord::NN;
use crate::engine::zobrist::splitmix64;
use crate::engine::{Board, Color, Loc, LocBits};

/// Playouts per position.
pub const PLAYOUTS: u32 = 64;
/// Moves per playout at most (both colours together).
pub const MAX_MOVES: u32 = 600;

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
    /// Per series: its first colour and the state of its random stream.
    series: Vec<(Color, u64)>,
    /// The counts so far.
    pub own: PlayoutOwnership,
    empties: [Loc; NN],
    captured: [Loc; NN],
}

impl<'a> Playouts<'a> {
    /// No playout run yet; `series`: (first colour, seed) of each series.
    pub fn new(board: &'a Board, series: &[(Color, u64)]) -> Playouts<'a> {
        Playouts {
            board,
            series: series.iter().map(|&(c, seed)| (c, seed ^ 0x005e_ed0f_6b69_626f)).collect(),
            own: PlayoutOwnership { playouts: 0, black: [0; NN], white: [0; NN] },
            empties: [Loc::default(); NN],
            captured: [Loc::default(); NN],
        }
    }

    /// Runs `n` more playouts, one series after the other in turn.
    pub fn run(&mut self, n: u32) {
        for _ in 0..n {
            let k = self.own.playouts as usize % self.series.len().max(1);
            let Some(&(first, state)) = self.series.get(k) else { return };
            self.series[k].1 = self.one(first, state);
            self.own.playouts += 1;
        }
    }

    /// One playout with `first` to move from the random state `state`; the new state.
    ///
    /// The empty points are kept as board locations ([`Loc`]) in a fixed array: in
    /// row-major order after the start and after every capture, reordered by the search
    /// in between (a point found unplayable is swapped behind the ones still to try).
    /// A set of them ([`LocBits`]) follows every move, so that the row-major list is
    /// rebuilt after a capture from the set (O(empty points)) rather than the board.
    fn one(&mut self, first: Color, mut state: u64) -> u64 {
        let (empties, captured) = (&mut self.empties, &mut self.captured);
        let mut b = self.board.clone();
        b.clear_ko();
        let mut len = b.empty_locs(empties);
        let mut set = LocBits::of(&empties[..len]);
        let (mut color, mut passes, mut moves) = (first, 0, 0);
        let mut last: Option<Loc> = None;
        while passes < 2 && moves < MAX_MOVES {
            let reply = last.and_then(|l| b.playout_reply(color, l));
            let mut found = reply.and_then(|p| Some((empties[..len].iter().position(|&e| e == p)?, p)));
            if reply.is_none() {
                let mut k = len;
                while k > 0 {
                    let r;
                    (state, r) = splitmix64(state);
                    let j = (r % k as u64) as usize;
                    if b.is_playout_move_at(color, empties[j]) {
                        found = Some((j, empties[j]));
                        break;
                    }
                    empties.swap(j, k - 1);
                    k -= 1;
                }
            }
            last = None;
            if let Some((j, p)) = found {
                let taken = b.captured_by(color, p, captured, 0);
                b.play_at(color, p);
                set.remove(p);
                if taken > 0 {
                    for &q in &captured[..taken] {
                        set.insert(q);
                    }
                    len = set.write(empties);
                } else {
                    len -= 1;
                    empties[j] = empties[len];
                }
                last = Some(p);
            }
            passes = if last.is_some() { 0 } else { passes + 1 };
            color = color.opponent();
            moves += 1;
        }
        tally(&b, &mut self.own);
        state
    }
}

/// Adds the owners of the end position of one playout to `own`.
fn tally(b: &Board, own: &mut PlayoutOwnership) {
    let mut cells = [0u8; NN];
    b.cells(&mut cells);
    let (cols, rows) = b.size();
    let on = |r: usize, c: usize| r < rows && c < cols;
    for i in 0..NN {
        let (r, c) = (i / 19, i % 19);
        if !on(r, c) {
            continue;
        }
        let v = match cells[i] {
            0 => {
                let mut mask = 0u8;
                if r > 0 {
                    mask |= cells[i - 19];
                }
                if c > 0 {
                    mask |= cells[i - 1];
                }
                if on(r, c + 1) {
                    mask |= cells[i + 1];
                }
                if on(r + 1, c) {
                    mask |= cells[i + 19];
                }
                mask
            }
            v => v,
        };
        match v {
            1 => own.black[i] += 1,
            2 => own.white[i] += 1,
            _ => {}
        }
    }
}
