//! Channel 6's superko bans under positional and situational ko (KataGo's
//! `BoardHistory::superKoBanned`, marked by `fillRowV7` beside the simple-ko point).
//!
//! The C++ (`BoardHistory::makeBoardMoveAssumeLegal`) bans, for the next player, every
//! empty point that is neither the simple-ko point nor an illegal suicide and whose play
//! gives a position already in `koHashHistory`: the start position and the position
//! after every move so far, the current one included, each keyed by its stones
//! (positional) or by its stones and side to move (situational). Passes clear nothing
//! under these rules.
//!
//! kibo compares with the boards it has, [`Earlier`]: a samples row carries the 8 most
//! recent moves, so the boards up to 8 moves back. A repetition of an older position is
//! not seen (the one difference from the C++). The current board needs no comparison:
//! a play that is not a suicide adds a stone there, a multi-stone suicide removes one,
//! and a single-stone suicide (the play that would leave the board as it is) is illegal
//! under every rule set.
//!
//! A board `h` is repeated by the play of `pla` at `p` exactly when `h` differs from the
//! board now by the new stone at `p` and the opponent stones it captures, or (suicide
//! legal) by the own stones it removes. One pass over the cells says which of the two
//! shapes `h` has and names the candidate points; each candidate is then played on a
//! copy of the board and the result compared with `h`, so a ban is exact.

use crate::coord::{Move, Point, NN};
use crate::engine::{Board, Color, Rules};

/// The boards before the one a row is encoded from, most recent first: `boards[k]` the
/// cells `k + 1` moves before, `to_play[k]` the side to move on it (the colour of the
/// move made from it). Only superko rules read them.
#[derive(Clone, Copy, Debug, Default)]
pub struct Earlier<'a> {
    pub boards: &'a [[u8; NN]],
    pub to_play: &'a [Color],
}

/// The copy of the board candidates are played on, and its cells after the play.
#[derive(Clone, Debug)]
pub(super) struct Scratch {
    board: Board,
    cells: [u8; NN],
}

impl Default for Scratch {
    fn default() -> Scratch {
        Scratch { board: Board::new(), cells: [0; NN] }
    }
}

/// How an earlier board differs from the board now, for the side to move `pla`.
enum Shape {
    /// Exactly one point that is empty now holds `pla`'s stone there (the play); every
    /// other difference is an opponent stone now on a point empty there (a capture).
    Play(usize),
    /// Every difference is a stone of `pla` now on a point empty there (a suicide).
    Suicide,
    /// Anything else: no play by `pla` gives it.
    No,
}

fn shape(now: &[u8; NN], h: &[u8; NN], pla: u8) -> Shape {
    let opp = 3 - pla;
    let (mut played, mut plays, mut gone, mut captured) = (0, 0, 0, 0);
    for (q, (&c, &e)) in now.iter().zip(h.iter()).enumerate() {
        if c == e {
            continue;
        }
        if c == 0 && e == pla {
            played = q;
            plays += 1;
        } else if e == 0 && c == pla {
            gone += 1;
        } else if e == 0 && c == opp {
            captured += 1;
        } else {
            return Shape::No;
        }
    }
    match (plays, gone, captured) {
        (1, 0, _) => Shape::Play(played),
        (0, g, 0) if g > 0 => Shape::Suicide,
        _ => Shape::No,
    }
}

/// One position's superko question (the encoder fills it from its `V7Position`).
pub(super) struct Query<'a> {
    pub board: &'a Board,
    /// `board`'s cells.
    pub now: &'a [u8; NN],
    /// The side to move.
    pub pla: Color,
    /// The simple-ko point (channel 6 holds it already: left out).
    pub ko: Option<Point>,
    /// Positional superko; else situational.
    pub positional: bool,
    /// Multi-stone suicide legal.
    pub suicide: bool,
    pub earlier: Earlier<'a>,
}

/// Calls `ban(p)` for every point `q.pla` may not play on `q.board` because the play
/// would repeat one of `q.earlier`'s boards (positional: any; situational: one whose
/// side to move is `q.pla`'s opponent). A point may be reported twice.
pub(super) fn bans(q: &Query, scratch: &mut Scratch, mut ban: impl FnMut(usize)) {
    let (board, now, pla, ko, earlier, suicide) = (q.board, q.now, q.pla, q.ko, q.earlier, q.suicide);
    let (cols, rows) = board.size();
    let rules = Rules { multi_stone_suicide: suicide };
    let mut repeats = |p: usize, h: &[u8; NN]| {
        if now[p] != 0 || ko.is_some_and(|k| k.index() as usize == p) {
            return false;
        }
        let Some(pt) = Point::from_index(p as u16) else { return false };
        scratch.board.clone_from(board);
        if scratch.board.play(pla, Move::Play(pt), &rules).is_err() {
            return false;
        }
        scratch.board.cells(&mut scratch.cells);
        scratch.cells == *h
    };
    for (k, h) in earlier.boards.iter().enumerate() {
        let to_play = earlier.to_play.get(k).copied();
        if !q.positional && to_play != Some(pla.opponent()) {
            continue;
        }
        match shape(now, h, pla as u8) {
            Shape::Play(p) if repeats(p, h) => ban(p),
            Shape::Suicide if suicide => {
                // The play is on an empty point next to the stones it removes.
                for q in (0..NN).filter(|&q| now[q] != h[q]) {
                    let (r, c) = (q / 19, q % 19);
                    let next = [
                        (r > 0).then(|| q - 19),
                        (r + 1 < rows).then_some(q + 19),
                        (c > 0).then(|| q - 1),
                        (c + 1 < cols).then_some(q + 1),
                    ];
                    for p in next.into_iter().flatten() {
                        if h[p] == 0 && repeats(p, h) {
                            ban(p);
                        }
                    }
                }
            }
            _ => {}
        }
    }
}
