//! One played game as the match keeps it: `DIR/records/NNNNN.json` (what the report is
//! made from; written last, it commits the game) and `DIR/games/NNNNN.sgf` (the game for
//! any SGF reader, `kibo run` included: players, komi, rules, the count as `RE`, each
//! invalid answer as a comment on the move it preceded).

use std::fmt::Write;

use serde::{Deserialize, Serialize};

use crate::color::Color;
use crate::coord::{Move, Point};
use crate::formats::escape_text as esc;

/// Why an answer was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InvalidKind {
    /// Nothing could be read as a move.
    Unreadable,
    /// The point holds a stone.
    Occupied,
    /// The move would leave its own chain without liberties.
    Suicide,
    /// It retakes a simple ko at once.
    Ko,
    /// It repeats an earlier position (positional superko).
    Superko,
    /// Off the board.
    OffBoard,
}

impl InvalidKind {
    /// Every kind, in the report's order.
    pub const ALL: [InvalidKind; 6] = [
        InvalidKind::Unreadable,
        InvalidKind::Occupied,
        InvalidKind::Suicide,
        InvalidKind::Ko,
        InvalidKind::Superko,
        InvalidKind::OffBoard,
    ];

    /// The report's key.
    pub fn name(self) -> &'static str {
        match self {
            InvalidKind::Unreadable => "unreadable",
            InvalidKind::Occupied => "occupied",
            InvalidKind::Suicide => "suicide",
            InvalidKind::Ko => "ko",
            InvalidKind::Superko => "superko",
            InvalidKind::OffBoard => "off_board",
        }
    }
}

/// One refused answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Invalid {
    /// The move it was meant to be (1 = the game's first move).
    pub move_number: u32,
    /// Who answered: `B` or `W`.
    pub color: String,
    /// 0 for the first request of that move, then 1, 2, ….
    pub attempt: u32,
    /// The answer as given.
    pub raw: String,
    pub kind: InvalidKind,
    /// The move read from it (GTP), where one was.
    pub answer: Option<String>,
    /// `kibo eval`'s error class of the answer against the move the player gave when
    /// asked again (its intended move), where that later answer was legal.
    pub class: Option<String>,
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum End {
    /// Two passes in a row: counted by kibo's judge.
    TwoPasses,
    /// Stopped at `--max-moves` (or the safety cap): counted as it stands.
    MaxMoves,
    /// A player resigned.
    Resign,
    /// KataGo's winrate for one side stayed under `--resign-below` for `--resign-moves`
    /// moves: that side lost, as by resignation (`RE` `B+R` / `W+R`).
    Adjudicated,
    /// A player's invalid answers lost it (`--on-invalid lose`).
    Invalid,
    /// A player failed (an endpoint, an engine): neither won nor lost.
    Error,
}

impl End {
    /// The report's key.
    pub fn name(self) -> &'static str {
        match self {
            End::TwoPasses => "two_passes",
            End::MaxMoves => "max_moves",
            End::Resign => "resign",
            End::Adjudicated => "adjudicated",
            End::Invalid => "invalid",
            End::Error => "error",
        }
    }
}

/// Who counted a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CountedBy {
    /// kibo's judge (Benson, the conservative rules, playouts), as `kibo run` counts.
    Kibo,
    /// KataGo's ownership as evidence, kibo counting (the `katago` score check's judge).
    Katago,
    /// The position as it stands: territory and captures, no dead stones (the MariaGO
    /// notes' count).
    Reference,
}

impl CountedBy {
    /// The report's key: `kibo`, `katago`, `reference`.
    pub fn name(self) -> &'static str {
        match self {
            CountedBy::Kibo => "kibo",
            CountedBy::Katago => "katago",
            CountedBy::Reference => "reference",
        }
    }
}

/// A game's count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Count {
    pub by: CountedBy,
    /// `chinese`, `japanese` or `korean`.
    pub rules: String,
    pub komi: f32,
    /// Black's and White's points.
    pub black: f32,
    pub white: f32,
    /// `black − white`.
    pub margin: f32,
    /// Points no one was given: they count for nobody.
    pub undecided_points: u32,
    /// Whether the undecided points could change the winner.
    pub winner_open: bool,
}

/// One game, as `DIR/records/NNNNN.json` holds it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecordOut {
    /// Its number in the schedule.
    pub game: u64,
    /// The pair's index (the order `--player` gives the pairs in).
    pub pair: usize,
    pub black: String,
    pub white: String,
    pub seed: u64,
    /// The opening's source (`game_id@move`), `None` from the empty board.
    pub opening: Option<String>,
    pub end: End,
    /// `B`, `W`, or `None` (a draw, or an error).
    pub winner: Option<String>,
    /// The result as `RE` writes it (`B+3.5`, `W+R`, `B+F`, `0`, `Void` for an error).
    pub result: String,
    pub count: Option<Count>,
    /// Moves played (the opening's included).
    pub moves: u32,
    pub invalid: Vec<Invalid>,
    /// What failed, for an `error` game.
    pub error: Option<String>,
    /// Seconds each colour's player spent answering, and its requests (`[black, white]`).
    pub seconds: [f64; 2],
    pub requests: [u32; 2],
}

/// What the SGF needs beyond the record: the setup and the moves.
pub struct SgfGame<'a> {
    pub record: &'a GameRecordOut,
    pub setup: &'a [(Color, Point)],
    pub moves: &'a [(Color, Move)],
    pub komi: f32,
    pub handicap: u32,
    /// `RU` as written.
    pub rules: &'a str,
}

/// The game as SGF (FF[4], UTF-8): the root with players, komi, rules, result and the
/// match's game number, one node per move, the invalid answers of a move as a comment on
/// its node (each: colour, attempt, kind, class, the raw answer).
pub fn sgf(g: &SgfGame<'_>) -> String {
    let r = g.record;
    let mut o = String::from("(;GM[1]FF[4]CA[UTF-8]SZ[19]AP[kibo match]");
    let _ = write!(o, "KM[{}]RU[{}]", g.komi, esc(g.rules));
    if g.handicap > 0 {
        let _ = write!(o, "HA[{}]", g.handicap);
    }
    let _ = write!(o, "PB[{}]PW[{}]RE[{}]GN[game {}]", esc(&r.black), esc(&r.white), esc(&r.result), r.game);
    let mut root_comment = format!("kibo match game {}, seed {}, end {}", r.game, r.seed, r.end.name());
    if let Some(op) = &r.opening {
        let _ = write!(root_comment, ", opening {op}");
    }
    if let Some(c) = &r.count {
        let _ = write!(
            root_comment,
            "; counted by {} under {} rules: B {} W {}, {} undecided points",
            c.by.name(),
            c.rules,
            c.black,
            c.white,
            c.undecided_points
        );
    }
    if let Some(e) = &r.error {
        let _ = write!(root_comment, "; error: {e}");
    }
    for (c, pts) in [(Color::Black, "AB"), (Color::White, "AW")] {
        let mine: Vec<&Point> = g.setup.iter().filter(|s| s.0 == c).map(|s| &s.1).collect();
        if !mine.is_empty() {
            o.push_str(pts);
            for p in mine {
                let _ = write!(o, "[{}]", p.to_sgf());
            }
        }
    }
    let _ = write!(o, "C[{}]", esc(&root_comment));
    for (i, (c, m)) in g.moves.iter().enumerate() {
        let n = i as u32 + 1;
        let _ = write!(o, "\n;{}[{}]", c.as_str(), m.to_sgf());
        let notes: Vec<String> = r.invalid.iter().filter(|v| v.move_number == n).map(invalid_note).collect();
        if !notes.is_empty() {
            let _ = write!(o, "C[{}]", esc(&notes.join("\n")));
        }
    }
    // Invalid answers after the last move (a game lost by them).
    let after: Vec<String> =
        r.invalid.iter().filter(|v| v.move_number as usize > g.moves.len()).map(invalid_note).collect();
    if !after.is_empty() {
        let _ = write!(o, "\n;C[{}]", esc(&after.join("\n")));
    }
    o.push_str(")\n");
    o
}

fn invalid_note(v: &Invalid) -> String {
    let class = v.class.as_deref().map(|c| format!(", {c}")).unwrap_or_default();
    format!("invalid answer of {} (attempt {}): {}{class}: {:?}", v.color, v.attempt + 1, v.kind.name(), v.raw)
}
