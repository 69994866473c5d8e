//! Tactical tags for the move of every sample, and the ladder reader behind two of them.
//!
//! Uses nothing from the crate but [`crate::coord`] and [`crate::engine`] (plain `std`).
//!
//! * [`ladder`]: a port of KataGo's ladder search (`Board::searchIsLadderCaptured`,
//!   `searchIsLadderCapturedAttackerFirst2Libs`): [`is_ladder_captured`],
//!   [`working_moves_2libs`], and [`LadderSearch`], the allocation-free form that keeps
//!   its buffers between calls.
//! * [`tags`]: [`Tagger`], fed every move of a game in order, returns a [`Tags`] value
//!   per move (a `u32` bit mask, see [`TAG_NAMES`], plus capture and self-atari sizes).
//!
//! The exact definitions, bit numbers and before/after diagrams are in `docs/tags.md`;
//! the Go conventions they follow are `RULES-AND-SGF.md` §3.
//!
//! Geometry: a [`Point`] is `(row, col)` from the top-left. The helpers below read the
//! board through its public API only and treat every point outside
//! [`Board::size`] as a wall (KataGo `C_WALL`), so the same code runs on the 19×19
//! board and on the smaller [`Board::new_sized`] boards of the ladder test suites.
//! Neighbour order is KataGo's `adj_offsets`: up, left, right, down, then the
//! diagonals up-left, up-right, down-left, down-right.
//!
//! ```
//! use kibo::coord::{Move, Point};
//! use kibo::engine::{Board, Color};
//! use kibo::tactics::{Tagger, Tags};
//!
//! let mut tagger = Tagger::new();
//! let board = Board::new();
//! let tags = tagger.tag(&board, Color::Black, Move::Play(Point::new(3, 15).unwrap()));
//! assert_eq!(tags.mask, 0);
//! assert!(!tags.is_tactical());
//! let pass = tagger.tag(&board, Color::White, Move::Pass);
//! assert!(pass.has(Tags::PASS));
//! ```

pub mod ladder;
pub mod tags;

#[cfg(test)]
mod tests;

pub use ladder::{is_ladder_captured, working_moves_2libs, LadderSearch, LADDER_NODE_BUDGET};
pub use tags::{PendingTags, Tagger, Tags, TAG_NAMES};

use crate::coord::Point;
use crate::engine::{Board, Color};

/// Cell value of a point off the board (KataGo `C_WALL`); [`Board::get`] never returns it.
pub(crate) const WALL: u8 = 3;

/// Row and column offsets of the 8 neighbours, KataGo `adj_offsets` order: up, left,
/// right, down, up-left, up-right, down-left, down-right.
const OFFSETS: [(i8, i8); 8] = [(-1, 0), (0, -1), (0, 1), (1, 0), (-1, -1), (-1, 1), (1, -1), (1, 1)];

/// Neighbour `d` (`0..4` orthogonal, `4..8` diagonal, see [`OFFSETS`]) of `p`, or `None`
/// when it lies off the board (a wall).
#[inline(always)]
pub(crate) fn nb(b: &Board, p: Point, d: usize) -> Option<Point> {
    let (dr, dc) = OFFSETS[d & 7];
    let row = p.row.wrapping_add(dr as u8);
    let col = p.col.wrapping_add(dc as u8);
    let q = Point { row, col };
    // Off the top or left edge wraps to 255, past every board size.
    b.is_on_board(q).then_some(q)
}

/// Cell value of an optional point: [`WALL`] for `None`.
#[inline(always)]
pub(crate) fn cell(b: &Board, q: Option<Point>) -> u8 {
    match q {
        Some(q) => b.get(q),
        None => WALL,
    }
}

/// Whether `a` and `b` are orthogonal neighbours.
#[inline(always)]
pub(crate) fn is_adjacent(a: Point, b: Point) -> bool {
    a.row.abs_diff(b.row) as u16 + a.col.abs_diff(b.col) as u16 == 1
}

/// KataGo `Board::isSimpleEye(loc, pla)`: `p` is empty, every orthogonal neighbour is a
/// stone of `pla` or a wall, and the opponent holds fewer than 2 diagonal
/// points (fewer than 1 when `p` touches a wall). Off-board diagonals count for nobody.
pub fn is_simple_eye(b: &Board, p: Point, pla: Color) -> bool {
    let pla = pla.as_u8();
    if !b.is_on_board(p) || b.get(p) != 0 {
        return false;
    }
    let mut against_wall = false;
    for d in 0..4 {
        match nb(b, p, d) {
            None => against_wall = true,
            Some(q) => {
                if b.get(q) != pla {
                    return false;
                }
            }
        }
    }
    let opp = 3 - pla;
    let mut opp_corners = 0;
    for d in 4..8 {
        if cell(b, nb(b, p, d)) == opp {
            opp_corners += 1;
        }
    }
    !(opp_corners >= 2 || (against_wall && opp_corners >= 1))
}
