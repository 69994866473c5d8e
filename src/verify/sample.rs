//! [`VerifySample`], the data every form of the export shows, and the forms that are
//! plain text: the mini SGF and the per-sample JSON.

use crate::coord::{Move, Point, N, NN};
use std::fmt::Write as _;

/// One sample of the verification export, as the `sample` stage hands it over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifySample {
    /// 1..=n, position in the export; names the files (`sample-01.*`).
    pub id: usize,
    /// The board before the move, row-major from the top-left, 0 empty 1 black 2 white.
    pub board: [u8; 361],
    /// Side to move: 1 black, 2 white (anything else is shown as black).
    pub to_play: u8,
    /// The move played (the answer).
    pub mv: Move,
    /// The move before it, if any.
    pub prev_move: Option<Move>,
    /// The point the side to move may not retake (simple ko), if any.
    pub ko_point: Option<Point>,
    /// File or `archive!member` the game came from.
    pub source: String,
    /// Index of the game inside its source (multi-game files).
    pub game_index: u32,
    /// 1-based number of the move played.
    pub move_number: u32,
    pub game_id: String,
    pub black: Option<String>,
    pub white: Option<String>,
    pub black_rank: Option<String>,
    pub white_rank: Option<String>,
    /// Tactical tags of the move played (may be empty).
    pub tags: Vec<String>,
    pub split: String,
}

// ---------------------------------------------------------------------------
// Shared wording, so that picture, text, SGF comment and page say the same thing.

/// `1` black, `2` white; anything else is treated as black.
pub(crate) fn is_white(color: u8) -> bool {
    color == 2
}

pub(crate) fn color_word(color: u8) -> &'static str {
    if is_white(color) {
        "White"
    } else {
        "Black"
    }
}

/// SGF property letter of a colour: `B` or `W`.
pub(crate) fn color_letter(color: u8) -> &'static str {
    if is_white(color) {
        "W"
    } else {
        "B"
    }
}

pub(crate) fn opponent(color: u8) -> u8 {
    if is_white(color) {
        1
    } else {
        2
    }
}

/// Stone at a point of the sample's board (0 when the point is off the array).
pub(crate) fn stone_at(s: &VerifySample, p: Point) -> u8 {
    s.board.get(p.index() as usize).copied().unwrap_or(0)
}

/// Colour of the previous move: the stone on its point, else the opponent of the side to move.
pub(crate) fn prev_color(s: &VerifySample) -> u8 {
    match s.prev_move {
        Some(Move::Play(p)) if matches!(stone_at(s, p), 1 | 2) => stone_at(s, p),
        _ => opponent(s.to_play),
    }
}

/// `Q16 (SGF B[pd])` or `pass (SGF B[])`.
pub(crate) fn move_text(color: u8, mv: Move) -> String {
    format!("{} (SGF {}[{}])", mv.to_gtp(), color_letter(color), mv.to_sgf())
}

/// `Black to play`.
pub(crate) fn side_line(s: &VerifySample) -> String {
    format!("{} to play", color_word(s.to_play))
}

/// `answer: Q16 (SGF B[pd])`.
pub(crate) fn answer_line(s: &VerifySample) -> String {
    format!("answer: {}", move_text(s.to_play, s.mv))
}

/// `previous: White R4 (SGF W[qp])`, `previous: White pass (SGF W[])` or `previous: none`.
pub(crate) fn previous_line(s: &VerifySample) -> String {
    match s.prev_move {
        Some(m) => format!("previous: {} {}", color_word(prev_color(s)), move_text(prev_color(s), m)),
        None => "previous: none".to_string(),
    }
}

/// `ko: S2 (SGF sq)` or `ko: none`.
pub(crate) fn ko_line(s: &VerifySample) -> String {
    match s.ko_point {
        Some(p) => format!("ko: {} (SGF {})", p.to_gtp(), p.to_sgf()),
        None => "ko: none".to_string(),
    }
}

/// `source: games.zip!a/b.sgf, game 3, move 57`.
pub(crate) fn source_line(s: &VerifySample) -> String {
    format!("source: {}, game {}, move {}", s.source, s.game_index, s.move_number)
}

/// Escapes text for XML and HTML (content and attribute values). `://` is also broken up
/// (`:&#47;/`, which reads the same) so that the export never holds a link-like reference,
/// whatever a source path contains.
pub(crate) fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out.replace("://", ":&#47;/")
}

/// Base name of a sample's files: `sample-01`.
pub(crate) fn file_stem(s: &VerifySample) -> String {
    format!("sample-{:02}", s.id)
}

// ---------------------------------------------------------------------------
// Mini SGF

pub(super) fn sgf_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == ']' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A small SGF that opens in any viewer: the board before the move as setup stones
/// (`AB`/`AW`, row-major order), `PL` for the side to move, players and ranks when known,
/// a comment naming the source, then one node with the move played (`B[]`/`W[]` for a pass)
/// and its move number (`MN`).
///
/// `(;GM[1]FF[4]CA[UTF-8]SZ[19]PB[..]PW[..]PL[B]AB[aa][ba]AW[ab]C[src, game 0, move 57];B[pd]MN[57])`
///
/// The ko point cannot be written as setup; it is named in the comment instead.
pub fn mini_sgf(s: &VerifySample) -> String {
    let mut out = String::from("(;GM[1]FF[4]CA[UTF-8]SZ[19]");
    for (prop, value) in [("PB", &s.black), ("PW", &s.white), ("BR", &s.black_rank), ("WR", &s.white_rank)] {
        if let Some(v) = value {
            let _ = write!(out, "{prop}[{}]", sgf_escape(v));
        }
    }
    let _ = write!(out, "PL[{}]", color_letter(s.to_play));
    for (prop, color) in [("AB", 1u8), ("AW", 2u8)] {
        let points: Vec<Point> =
            (0..NN as u16).filter(|&i| s.board[i as usize] == color).filter_map(Point::from_index).collect();
        if !points.is_empty() {
            out.push_str(prop);
            for p in points {
                let _ = write!(out, "[{}]", p.to_sgf());
            }
        }
    }
    let mut comment = format!("{}, game {}, move {}", s.source, s.game_index, s.move_number);
    if let Some(k) = s.ko_point {
        let _ = write!(comment, "; ko point {}", k.to_gtp());
    }
    let _ = write!(out, "C[{}]", sgf_escape(&comment));
    let _ = writeln!(out, ";{}[{}]MN[{}])", color_letter(s.to_play), s.mv.to_sgf(), s.move_number);
    out
}

// ---------------------------------------------------------------------------
// Per-sample JSON and the export folder

pub(super) fn move_json(mv: Option<Move>) -> serde_json::Value {
    match mv {
        Some(m) => serde_json::json!({ "gtp": m.to_gtp(), "sgf": m.to_sgf(), "index": m.index() }),
        None => serde_json::Value::Null,
    }
}

/// The `.json` written beside each picture: where to find the original, and the answer
/// in SGF and GTP form.
pub(crate) fn sample_json(s: &VerifySample) -> serde_json::Value {
    let stem = file_stem(s);
    serde_json::json!({
        "id": s.id,
        "source": s.source,
        "game_index": s.game_index,
        "move_number": s.move_number,
        "game_id": s.game_id,
        "black": s.black,
        "white": s.white,
        "black_rank": s.black_rank,
        "white_rank": s.white_rank,
        "to_play": color_letter(s.to_play),
        "answer_gtp": s.mv.to_gtp(),
        "answer_sgf": s.mv.to_sgf(),
        "answer_sgf_property": format!("{}[{}]", color_letter(s.to_play), s.mv.to_sgf()),
        "answer_index": s.mv.index(),
        "prev_move": move_json(s.prev_move),
        "ko_point": move_json(s.ko_point.map(Move::Play)),
        "tags": s.tags,
        "split": s.split,
        "files": {
            "png": format!("{stem}.png"),
            "svg": format!("{stem}.svg"),
            "txt": format!("{stem}.txt"),
            "sgf": format!("{stem}.sgf"),
        },
    })
}

/// Star points (hoshi) of a 19×19 board: rows and columns 3, 9, 15 from the top-left.
pub(crate) fn is_star_point(p: Point) -> bool {
    const STAR: [u8; 3] = [3, 9, 15];
    const { assert!(N == 19) };
    STAR.contains(&p.row) && STAR.contains(&p.col)
}
