//! The Go rules engine: a fast 19×19 board in the KataGo model. Plain `std`; it uses
//! nothing else from the crate except [`crate::coord`].
//!
//! * [`board`]: [`Board`] with incremental chains and exact liberty counts, captures,
//!   suicide, simple ko, prisoners and a zobrist hash of the stones;
//!   [`Board::play`] checks legality (occupied, suicide, simple ko) and returns an
//!   [`Illegal`] reason on refusal, [`Board::play_unchecked`] trusts its caller;
//!   [`Board::set_stone`] / [`Board::from_cells`] build setup positions.
//! * [`zobrist`]: fixed-seed keys generated at compile time.
//! * [`history`]: positional and situational superko ([`SuperkoHistory`]).
//! * [`diagram`]: ASCII diagrams ⇄ boards ([`Board::from_diagram`], [`Board::to_diagram`]).
//!
//! The board does not enforce turn order; callers pass the colour of every move. The
//! simple-ko ban binds only the opponent of the player who made the ko capture.
//! Tests live in `engine/tests.rs` (golden diagrams, random games against a
//! flood-fill reference) and beside the zobrist keys.
//!
//! ```
//! use kibo::coord::{Move, Point};
//! use kibo::engine::{Board, Color, Rules};
//!
//! let mut b = Board::new();
//! let rules = Rules::default();
//! let info = b.play(Color::Black, Move::Play(Point::new(3, 15).unwrap()), &rules).unwrap();
//! assert_eq!(info.captured, 0);
//! assert_eq!(b.stone_count(Color::Black), 1);
//! ```

pub mod board;
pub mod diagram;
pub mod history;
pub mod zobrist;

#[cfg(test)]
mod tests;

pub use board::{Board, Color, Illegal, Loc, PlayInfo, Rules, SetupError, BLACK, EMPTY, WHITE};
pub use diagram::DiagramError;
pub use history::{SuperkoHistory, SuperkoMode, Violation};
