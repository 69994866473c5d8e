//! The board as text, with the same labels as the picture.
//!
//! ```text
//!    A B C D E F G H J K L M N O P Q R S T
//! 19 X X . . . . . . . . . . . . . . . . . 19
//! 18(O). . . . . . . . . . . . . . . . . . 18
//! 17 . . X + . . . . . + . . . . . + . . . 17
//! 16 . . . + . . . . . + . . . . . * . . . 16
//! ...
//!  1 . . . . . . . . . . . . . . . . . . .  1
//!    A B C D E F G H J K L M N O P Q R S T
//! Black (X) to play; answer: Q16 (SGF B[pd]); previous: White A18 (SGF W[ar]); ko: none
//! source: games/a.sgf, game 0, move 57
//! ```
//!
//! * Columns `A`–`T` without `I`, from [`crate::coord::Point::to_gtp`]; rows `19` (top) to
//!   ` 1` (bottom), right-aligned in two characters on both sides.
//! * Cells: `X` black, `O` white, `.` empty, `+` empty star point, `*` the move played
//!   (the answer; always shown here), `#` the ko point.
//! * The previous move is bracketed, `(O)`: the brackets take the place of the spaces
//!   around the cell, so every column keeps its place.
//! * A board value other than 0, 1, 2 is shown as `?`.
//! * Footer: the column letters again, then one line with the side to move, the answer
//!   (GTP and SGF), the previous move and the ko point, then one line with the source.
//!
//! Every line ends with `\n`; no line has trailing spaces.

use super::sample::*;
use crate::coord::{Move, Point, N};
use std::fmt::Write as _;

fn column_header() -> String {
    let mut line = String::from("  ");
    for col in 0..N {
        let gtp = Point::new(0, col).expect("on board").to_gtp();
        line.push(' ');
        line.push_str(&gtp[..1]);
    }
    line
}

/// Row number of a board row as the labels show it (`19` for the top row), taken from
/// the GTP name of the row's first point.
pub(crate) fn row_label(row: usize) -> String {
    Point::new(row, 0).expect("on board").to_gtp()[1..].to_string()
}

/// Column letter of a board column (`A`–`T`, no `I`).
pub(crate) fn col_label(col: usize) -> String {
    Point::new(0, col).expect("on board").to_gtp()[..1].to_string()
}

/// The board as text; see the module documentation for the exact format.
pub fn text_diagram(s: &VerifySample) -> String {
    let answer = match s.mv {
        Move::Play(p) => Some(p),
        Move::Pass => None,
    };
    let prev = match s.prev_move {
        Some(Move::Play(p)) => Some(p),
        _ => None,
    };
    let mut out = String::new();
    let header = column_header();
    out.push_str(&header);
    out.push('\n');
    for row in 0..N {
        let label = row_label(row);
        let _ = write!(out, "{label:>2}");
        // 20 separators around 19 cells: sep[c] stands before column c, sep[19] after the last.
        let mut seps = [' '; N + 1];
        if let Some(p) = prev {
            if p.row as usize == row {
                seps[p.col as usize] = '(';
                seps[p.col as usize + 1] = ')';
            }
        }
        for (col, &sep) in seps[..N].iter().enumerate() {
            let p = Point::new(row, col).expect("on board");
            let cell = if answer == Some(p) {
                '*'
            } else {
                match s.board[p.index() as usize] {
                    1 => 'X',
                    2 => 'O',
                    0 if s.ko_point == Some(p) => '#',
                    0 if is_star_point(p) => '+',
                    0 => '.',
                    _ => '?',
                }
            };
            out.push(sep);
            out.push(cell);
        }
        out.push(seps[N]);
        let _ = writeln!(out, "{label:>2}");
    }
    out.push_str(&header);
    out.push('\n');
    let _ = writeln!(
        out,
        "{} ({}) to play; {}; {}; {}",
        color_word(s.to_play),
        if is_white(s.to_play) { 'O' } else { 'X' },
        answer_line(s),
        previous_line(s),
        ko_line(s)
    );
    let _ = writeln!(out, "{}", source_line(s));
    out
}
