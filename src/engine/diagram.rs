//! ASCII diagrams ⇄ [`Board`], for golden tests and debugging.
//!
//! A diagram is 19 lines of 19 cells, row 0 (the top edge) first: `.` empty,
//! `X` black, `O` white. Spaces and tabs inside a line are ignored, and so are blank
//! lines, so a diagram can be written indented in a raw string, with or without a
//! space between cells. [`Board::to_diagram`] writes 19 lines of 19 characters, each
//! ending in `\n`, no spaces.

use std::fmt;

use crate::coord::N;

use super::board::{Board, BLACK, EMPTY, WHITE};

/// Why a diagram could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DiagramError {
    /// The diagram has this many non-blank lines instead of 19.
    Rows(usize),
    /// Line `row` (0-based among non-blank lines) has this many cells instead of 19.
    Width {
        /// 0-based row.
        row: usize,
        /// Cells found.
        width: usize,
    },
    /// A character other than `.`, `X`, `O` (or blank) at `row`, `col`.
    Char {
        /// 0-based row.
        row: usize,
        /// 0-based cell within the row.
        col: usize,
        /// The character.
        ch: char,
    },
}

impl fmt::Display for DiagramError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            DiagramError::Rows(n) => write!(f, "diagram has {n} rows, expected 19"),
            DiagramError::Width { row, width } => {
                write!(f, "diagram row {row} has {width} cells, expected 19")
            }
            DiagramError::Char { row, col, ch } => {
                write!(f, "diagram row {row} cell {col}: unexpected {ch:?}")
            }
        }
    }
}

impl std::error::Error for DiagramError {}

impl Board {
    /// Reads a diagram (see the module docs) as a setup position: no captures are made,
    /// no ko, no prisoners. Chains without liberties are kept as drawn (see
    /// [`Board::has_dead_chains`]).
    pub fn from_diagram(text: &str) -> Result<Board, DiagramError> {
        let rows: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        if rows.len() != N {
            return Err(DiagramError::Rows(rows.len()));
        }
        let mut cells = [EMPTY; N * N];
        for (row, line) in rows.iter().enumerate() {
            let mut col = 0;
            for ch in line.chars().filter(|ch| *ch != ' ' && *ch != '\t' && *ch != '\r') {
                let v = match ch {
                    '.' => EMPTY,
                    'X' => BLACK,
                    'O' => WHITE,
                    _ => return Err(DiagramError::Char { row, col, ch }),
                };
                if col < N {
                    cells[row * N + col] = v;
                }
                col += 1;
            }
            if col != N {
                return Err(DiagramError::Width { row, width: col });
            }
        }
        // Cannot fail: every value is 0, 1 or 2.
        Ok(Board::from_cells(&cells).unwrap_or_default())
    }

    /// Writes the stones as a diagram: 19 lines of 19 characters (`.`, `X`, `O`), top
    /// row first, each line ending in `\n`.
    pub fn to_diagram(&self) -> String {
        let mut cells = [0u8; N * N];
        self.cells(&mut cells);
        let mut s = String::with_capacity(N * (N + 1));
        for row in cells.chunks(N) {
            for &v in row {
                s.push(match v {
                    BLACK => 'X',
                    WHITE => 'O',
                    _ => '.',
                });
            }
            s.push('\n');
        }
        s
    }
}
