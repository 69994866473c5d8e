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

use crate::coord::{Move, Point, NN};
use crate::engine::zobrist::splitmix64;
use crate::engine::{Board, Color, Rules};

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
    empties: Vec<Point>,
    libs: Vec<Point>,
}

impl<'a> Playouts<'a> {
    /// No playout run yet; `series`: (first colour, seed) of each series.
    pub fn new(board: &'a Board, series: &[(Color, u64)]) -> Playouts<'a> {
        Playouts {
            board,
            series: series.iter().map(|&(c, seed)| (c, seed ^ 0x005e_ed0f_6b69_626f)).collect(),
            own: PlayoutOwnership { playouts: 0, black: [0; NN], white: [0; NN] },
            empties: Vec::with_capacity(NN),
            libs: Vec::with_capacity(8),
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
    fn one(&mut self, first: Color, mut state: u64) -> u64 {
        let (empties, libs) = (&mut self.empties, &mut self.libs);
        let mut b = self.board.clone();
        b.clear_ko();
        refill(&b, empties);
        let (mut color, mut passes, mut moves) = (first, 0, 0);
        let mut last: Option<Point> = None;
        while passes < 2 && moves < MAX_MOVES {
            let mut k = empties.len();
            let mut played = false;
            if let Some(p) = last.and_then(|l| atari_reply(&b, color, l, libs)) {
                let info = b.play_unchecked(color, Move::Play(p));
                if info.captured > 0 || info.suicided > 0 {
                    refill(&b, empties);
                } else if let Some(j) = empties.iter().position(|&e| e == p) {
                    empties.swap_remove(j);
                }
                last = Some(p);
                passes = 0;
                color = color.opponent();
                moves += 1;
                continue;
            }
            last = None;
            while k > 0 {
                let r;
                (state, r) = splitmix64(state);
                let j = (r % k as u64) as usize;
                let p = empties[j];
                if acceptable(&b, color, p) {
                    let info = b.play_unchecked(color, Move::Play(p));
                    if info.captured > 0 || info.suicided > 0 {
                        refill(&b, empties);
                    } else {
                        empties.swap_remove(j);
                    }
                    played = true;
                    last = Some(p);
                    break;
                }
                empties.swap(j, k - 1);
                k -= 1;
            }
            passes = if played { 0 } else { passes + 1 };
            color = color.opponent();
            moves += 1;
        }
        tally(&b, &mut self.own);
        state
    }
}

/// A move the playout policy may play: legal, not filling an own single-point eye, not
/// a self-atari of two stones or more.
#[inline]
fn acceptable(b: &Board, c: Color, p: Point) -> bool {
    b.is_playout_move(c, p)
}

/// The tactical reply to the opponent's move at `last`, if there is one: capture a
/// chain next to it (or the stone itself) that is in atari, else save an own chain
/// next to it that it put in atari by extending, when that gives two liberties.
fn atari_reply(b: &Board, c: Color, last: Point, libs: &mut Vec<Point>) -> Option<Point> {
    let mut around = [last; 5];
    let mut n = 1;
    for (dr, dc) in [(-1i32, 0i32), (1, 0), (0, -1), (0, 1)] {
        let (r, col) = (last.row as i32 + dr, last.col as i32 + dc);
        if r >= 0 && col >= 0 {
            if let Some(q) = Point::new(r as usize, col as usize).filter(|q| b.is_on_board(*q)) {
                around[n] = q;
                n += 1;
            }
        }
    }
    let mut save = None;
    for &q in &around[..n] {
        let Some(qc) = b.color_at(q) else { continue };
        if b.chain_liberties(q) != 1 {
            continue;
        }
        b.chain_liberty_points(q, libs);
        let Some(&l) = libs.first() else { continue };
        if qc != c {
            if acceptable(b, c, l) {
                return Some(l);
            }
        } else if save.is_none() {
            let (eye, lib, _) = b.move_shape(c, l);
            if !eye && lib >= 2 && b.is_legal(c, Move::Play(l), &Rules::default()).is_ok() {
                save = Some(l);
            }
        }
    }
    save
}

/// The empty points of `b`, in index order.
fn refill(b: &Board, out: &mut Vec<Point>) {
    b.empty_points(out);
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
