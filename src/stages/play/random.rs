//! `random`: a uniformly random legal move that does not fill the player's own one-point
//! eye (positional superko respected), else a pass; seeded by the game's seed, so a game
//! is the same whenever it is played.

use std::time::Instant;

use super::player::{Answer, Player, Reply, Seen};
use crate::coord::{Move, Point, NN};
use crate::engine::zobrist::splitmix64;
use crate::engine::Rules;

/// The random player.
pub struct RandomPlayer {
    state: u64,
    seeded: bool,
}

impl RandomPlayer {
    /// A player whose stream starts from the first game it is shown.
    pub fn new() -> RandomPlayer {
        RandomPlayer { state: 0, seeded: false }
    }
}

impl Default for RandomPlayer {
    fn default() -> Self {
        RandomPlayer::new()
    }
}

/// The moves `random` chooses among for `seen.to_move`: legal (positional superko over
/// [`Seen::history`] included) and not into an own one-point eye.
pub fn candidates(seen: &Seen<'_>) -> Vec<Point> {
    let c = seen.to_move;
    let rules = Rules::default();
    (0..NN as u16)
        .filter_map(Point::from_index)
        .filter(|&p| {
            let at = seen.board.loc(p);
            seen.board.is_legal(c, Move::Play(p), &rules).is_ok()
                && !at.is_some_and(|l| seen.board.is_eye_at(c, l))
                && !seen.history.would_repeat(seen.board, c, Move::Play(p))
        })
        .collect()
}

impl Player for RandomPlayer {
    fn genmove(&mut self, seen: &Seen<'_>) -> anyhow::Result<Answer> {
        let started = Instant::now();
        if !self.seeded {
            (self.state, _) = splitmix64(seen.seed ^ u64::from(seen.to_move.as_u8()));
            self.seeded = true;
        }
        let moves = candidates(seen);
        let mv = if moves.is_empty() {
            Move::Pass
        } else {
            let r;
            (self.state, r) = splitmix64(self.state);
            Move::Play(moves[(r % moves.len() as u64) as usize])
        };
        Ok(Answer { raw: mv.to_gtp(), reply: Some(Reply::Move(mv)), seconds: started.elapsed().as_secs_f64() })
    }
}
