//! What a player of `kibo match` is: something asked for a move in a position, which
//! answers with text and, where it can be read, a move. The game loop
//! ([`super::game`]) checks every answer against kibo's rules; a player never decides
//! what is legal.
//!
//! A player's `Err` is a fault (an endpoint that timed out after its retries, an engine
//! that died twice): the game ends as `error`, neither won nor lost.

use crate::color::Color;
use crate::coord::{Move, Point};
use crate::engine::{Board, SuperkoHistory};
use crate::scoring::RuleSet;

/// A game as a player is shown it before each move.
pub struct Seen<'a> {
    /// The position now.
    pub board: &'a Board,
    /// Who is to move.
    pub to_move: Color,
    /// Every move from the start, the opening's included, in order.
    pub moves: &'a [(Color, Move)],
    /// The stones set before the first move (handicap, `AB`).
    pub setup: &'a [(Color, Point)],
    /// The positions so far, for positional superko (the match's ko rule).
    pub history: &'a SuperkoHistory,
    /// Komi given to White.
    pub komi: f32,
    /// The counting rules.
    pub rules: RuleSet,
    /// The game's number in the match's schedule (0-based).
    pub game: u64,
    /// The game's seed (from `--seed` and the game's number: [`super::schedule`]).
    pub seed: u64,
    /// 0 when first asked for this move; 1, 2, … when asked again after invalid answers.
    pub attempt: u32,
}

/// What a player chose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply {
    /// A move (a pass included).
    Move(Move),
    /// The player resigns.
    Resign,
}

/// A player's answer to one request.
#[derive(Clone, Debug)]
pub struct Answer {
    /// What the player said, as it said it (the GTP response, the model's message).
    pub raw: String,
    /// What was read from it; `None` where nothing could be read (an invalid answer of
    /// kind `unreadable`).
    pub reply: Option<Reply>,
    /// Wall seconds the player took to answer (the request's latency for an endpoint).
    pub seconds: f64,
}

/// One side of a game. A player is made for one game and dropped after it
/// ([`Player::finish`]); an engine process may outlive it (restarts are the player's own).
pub trait Player: Send {
    /// Asks for `seen.to_move`'s move.
    fn genmove(&mut self, seen: &Seen<'_>) -> anyhow::Result<Answer>;

    /// The last answer was refused (illegal or unreadable) and will be asked again, or
    /// replaced by a pass: an engine that played it on its own board takes it back.
    fn refused(&mut self) -> anyhow::Result<()> {
        Ok(())
    }

    /// The opponent's move `mv` of colour `c`, played on the board (an engine keeping its
    /// own board plays it there). The moves of the game so far also come with every
    /// [`Seen`], so a player may ignore this.
    fn played(&mut self, c: Color, mv: Move) -> anyhow::Result<()> {
        let _ = (c, mv);
        Ok(())
    }

    /// The game is over (its result is known): an engine may be told, a log flushed.
    fn finish(&mut self) {}
}
