//! Superko: the set of positions seen so far in a game.
//!
//! [`super::Board`] enforces simple ko only. A [`SuperkoHistory`] remembers a key for
//! every position of the game, starting with the initial one (record it with
//! [`SuperkoHistory::push`], or build with [`SuperkoHistory::with_start`]), and says
//! whether a move would recreate one (KataGo `BoardHistory`, RULES-AND-SGF.md §2.1):
//!
//! * [`SuperkoMode::Positional`]: key = [`Board::hash`] (stones only);
//! * [`SuperkoMode::Situational`]: key = `hash ^ side_key(side to move)`;
//! * [`SuperkoMode::Off`]: nothing is recorded and nothing repeats.
//!
//! A pass is never banned by superko (as in KataGo), though the position after it is
//! recorded. Keys are 64-bit zobrist hashes, so a false "repeat" is possible in
//! principle with probability about `positions² / 2⁶⁵` per game (negligible).

use std::collections::HashSet;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};

use crate::coord::Move;

use super::board::{Board, Color, Illegal, PlayInfo, Rules};
use super::zobrist::side_key;

/// Which positions count as repeats.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SuperkoMode {
    /// No superko (simple ko only, as Japanese/Korean/Chinese rules).
    #[default]
    Off,
    /// Positional superko: the same stones may not recur (Chinese-KGS/OGS, Tromp-Taylor).
    Positional,
    /// Situational superko: the same stones with the same side to move may not recur
    /// (AGA, New Zealand).
    Situational,
}

impl SuperkoMode {
    /// Stable name: `"off"`, `"positional"`, `"situational"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            SuperkoMode::Off => "off",
            SuperkoMode::Positional => "positional",
            SuperkoMode::Situational => "situational",
        }
    }
}

/// A move refused by [`SuperkoHistory::play`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Violation {
    /// Refused by the board (occupied, suicide, simple ko, off board).
    Illegal(Illegal),
    /// Legal on the board, but it would recreate an earlier position.
    Superko,
}

impl Violation {
    /// Stable `snake_case` reason: [`Illegal::as_str`], or `"superko_violation"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Violation::Illegal(i) => i.as_str(),
            Violation::Superko => "superko_violation",
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::error::Error for Violation {}

impl From<Illegal> for Violation {
    fn from(i: Illegal) -> Violation {
        Violation::Illegal(i)
    }
}

/// Hasher for keys that are already uniformly random (zobrist hashes): passes them
/// through.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

/// Keys of every position seen in one game (see the module docs).
#[derive(Clone, Debug)]
pub struct SuperkoHistory {
    mode: SuperkoMode,
    seen: HashSet<u64, BuildHasherDefault<KeyHasher>>,
}

impl SuperkoHistory {
    /// An empty history. The starting position should count as seen: [`push`] it before
    /// the first move, or use [`SuperkoHistory::with_start`].
    ///
    /// [`push`]: SuperkoHistory::push
    pub fn new(mode: SuperkoMode) -> SuperkoHistory {
        SuperkoHistory { mode, seen: HashSet::default() }
    }

    /// A history whose first seen position is `board` with `to_move` to play.
    pub fn with_start(mode: SuperkoMode, board: &Board, to_move: Color) -> SuperkoHistory {
        let mut h = SuperkoHistory::new(mode);
        h.push(board, to_move);
        h
    }

    /// The mode this history was made with.
    pub fn mode(&self) -> SuperkoMode {
        self.mode
    }

    /// Number of distinct positions recorded (always `0` when the mode is `Off`).
    pub fn len(&self) -> usize {
        self.seen.len()
    }

    /// Whether nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }

    /// Forgets everything, then records `board` with `to_move` to play as the start.
    pub fn reset(&mut self, board: &Board, to_move: Color) {
        self.seen.clear();
        self.push(board, to_move);
    }

    /// The key this history uses for stones hash `stones_hash` with `to_move` to play.
    pub fn key(&self, stones_hash: u64, to_move: Color) -> u64 {
        match self.mode {
            SuperkoMode::Situational => stones_hash ^ side_key(to_move),
            SuperkoMode::Positional | SuperkoMode::Off => stones_hash,
        }
    }

    /// Whether `board` with `to_move` to play has been recorded.
    pub fn contains(&self, board: &Board, to_move: Color) -> bool {
        self.mode != SuperkoMode::Off && self.seen.contains(&self.key(board.hash(), to_move))
    }

    /// Records `board` with `to_move` to play (call after every move). Returns `true`
    /// when the position is new and `false` when it had been recorded before (a repeat),
    /// like `HashSet::insert`. Records nothing and returns `true` when the mode is `Off`.
    pub fn push(&mut self, board: &Board, to_move: Color) -> bool {
        if self.mode == SuperkoMode::Off {
            return true;
        }
        self.seen.insert(self.key(board.hash(), to_move))
    }

    /// Whether `c` playing `m` on `board` would recreate a recorded position, with
    /// `c.opponent()` to move afterwards. Computed from [`Board::hash_after`] without
    /// playing; assumes the move is otherwise legal. A pass never repeats.
    pub fn would_repeat(&self, board: &Board, c: Color, m: Move) -> bool {
        if self.mode == SuperkoMode::Off || m == Move::Pass {
            return false;
        }
        self.seen.contains(&self.key(board.hash_after(c, m), c.opponent()))
    }

    /// Checks `m` on the board and against superko, then plays it and records the new
    /// position with `c.opponent()` to move. On `Err` neither the board nor the history
    /// changes.
    pub fn play(&mut self, board: &mut Board, c: Color, m: Move, rules: &Rules) -> Result<PlayInfo, Violation> {
        board.is_legal(c, m, rules)?;
        if self.would_repeat(board, c, m) {
            return Err(Violation::Superko);
        }
        let info = board.play_unchecked(c, m);
        self.push(board, c.opponent());
        Ok(info)
    }
}
