//! The coordinate errors of a wrong next-move or transcription answer, named
//! (docs/eval.md, "Errors"): the truth under one of the seven other board symmetries
//! ([`crate::coord::symmetry`]), the columns after H shifted by one (the missing I), the
//! whole answer one line off, the colours swapped, or none of these.

use crate::coord::{symmetry, symmetry_index, Move, N, NN};

/// A class of wrong answer; the report's `errors` keys ([`ErrorClass::name`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorClass {
    RowFlip,
    ColFlip,
    Transpose,
    #[serde(rename = "rotate_180")]
    Rotate180,
    RotateCw,
    RotateCcw,
    AntiTranspose,
    IShift,
    Offset,
    ColourSwap,
    Other,
}

/// The symmetries in the order they are tried (the first that matches names the error)
/// with their classes: `coord::symmetry`'s bit 0 flips rows, bit 1 columns, bit 2 transposes.
pub const SYMMETRIES: [(u8, ErrorClass); 7] = [
    (1, ErrorClass::RowFlip),
    (2, ErrorClass::ColFlip),
    (4, ErrorClass::Transpose),
    (3, ErrorClass::Rotate180),
    (5, ErrorClass::RotateCw),
    (6, ErrorClass::RotateCcw),
    (7, ErrorClass::AntiTranspose),
];

impl ErrorClass {
    /// Every class, in the report's order.
    pub const ALL: [ErrorClass; 11] = [
        ErrorClass::RowFlip,
        ErrorClass::ColFlip,
        ErrorClass::Transpose,
        ErrorClass::Rotate180,
        ErrorClass::RotateCw,
        ErrorClass::RotateCcw,
        ErrorClass::AntiTranspose,
        ErrorClass::IShift,
        ErrorClass::Offset,
        ErrorClass::ColourSwap,
        ErrorClass::Other,
    ];

    /// The report's key.
    pub fn name(self) -> &'static str {
        match self {
            ErrorClass::RowFlip => "row_flip",
            ErrorClass::ColFlip => "col_flip",
            ErrorClass::Transpose => "transpose",
            ErrorClass::Rotate180 => "rotate_180",
            ErrorClass::RotateCw => "rotate_cw",
            ErrorClass::RotateCcw => "rotate_ccw",
            ErrorClass::AntiTranspose => "anti_transpose",
            ErrorClass::IShift => "i_shift",
            ErrorClass::Offset => "offset",
            ErrorClass::ColourSwap => "colour_swap",
            ErrorClass::Other => "other",
        }
    }
}

/// The first column after H (J, index 8).
const J: u8 = 8;

/// The class of a wrong move `ans` (≠ `truth`), both in the picture's frame.
pub fn classify_move(truth: Move, ans: Move) -> ErrorClass {
    let (Move::Play(t), Move::Play(a)) = (truth, ans) else { return ErrorClass::Other };
    if let Some((_, c)) = SYMMETRIES.iter().find(|(s, _)| symmetry(t, *s) == a) {
        return *c;
    }
    let (dr, dc) = (a.row as i32 - t.row as i32, a.col as i32 - t.col as i32);
    if dr == 0 && dc.abs() == 1 && t.col >= J && a.col >= J {
        return ErrorClass::IShift;
    }
    if (dr.abs() == 1 && dc == 0) || (dr == 0 && dc.abs() == 1) {
        return ErrorClass::Offset;
    }
    ErrorClass::Other
}

/// The class of a wrong board `ans` (≠ `truth`), both row-major from the top-left.
pub fn classify_board(truth: &[u8; NN], ans: &[u8; NN]) -> ErrorClass {
    for (s, c) in SYMMETRIES {
        if (0..NN as u16).all(|i| ans[symmetry_index(i, s) as usize] == truth[i as usize]) {
            return c;
        }
    }
    let swap = |v: u8| match v {
        1 => 2,
        2 => 1,
        v => v,
    };
    if (0..NN).all(|i| ans[i] == swap(truth[i])) {
        return ErrorClass::ColourSwap;
    }
    if i_shifted(truth, ans) {
        return ErrorClass::IShift;
    }
    if [(1, 0), (-1, 0), (0, 1), (0, -1)].into_iter().any(|(dr, dc)| shifted(truth, ans, dr, dc)) {
        return ErrorClass::Offset;
    }
    ErrorClass::Other
}

/// Columns A–H as in the truth, the columns from J on shifted one to the right or to the
/// left (the one column shifted in is not compared).
fn i_shifted(truth: &[u8; NN], ans: &[u8; NN]) -> bool {
    let at = |b: &[u8; NN], r: usize, c: usize| b[r * N + c];
    let left_ok = (0..N).all(|r| (0..J as usize).all(|c| at(ans, r, c) == at(truth, r, c)));
    let right = (0..N).all(|r| (J as usize + 1..N).all(|c| at(ans, r, c) == at(truth, r, c - 1)));
    let left = (0..N).all(|r| (J as usize..N - 1).all(|c| at(ans, r, c) == at(truth, r, c + 1)));
    left_ok && (right || left)
}

/// `ans` is `truth` moved by `(dr, dc)` (the line shifted in is not compared).
fn shifted(truth: &[u8; NN], ans: &[u8; NN], dr: i32, dc: i32) -> bool {
    (0..N as i32).all(|r| {
        (0..N as i32).all(|c| {
            let (sr, sc) = (r - dr, c - dc);
            !(0..N as i32).contains(&sr)
                || !(0..N as i32).contains(&sc)
                || ans[(r * N as i32 + c) as usize] == truth[(sr * N as i32 + sc) as usize]
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coord::{gtp_move, Point};

    fn mv(s: &str) -> Move {
        gtp_move(s).unwrap()
    }

    #[test]
    fn the_report_keys_are_the_names() {
        for c in ErrorClass::ALL {
            assert_eq!(serde_json::to_value(c).unwrap(), c.name(), "{c:?}");
            assert_eq!(serde_json::from_value::<ErrorClass>(c.name().into()).unwrap(), c);
        }
    }

    #[test]
    fn moves_are_named_by_their_transform() {
        assert_eq!(classify_move(mv("Q16"), mv("Q4")), ErrorClass::RowFlip);
        assert_eq!(classify_move(mv("Q16"), mv("D16")), ErrorClass::ColFlip);
        // Q16 (row 3, col 15) transposed and turned half a turn are both D4: the first named wins.
        assert_eq!(classify_move(mv("Q16"), mv("D4")), ErrorClass::Transpose);
        assert_eq!(classify_move(mv("Q17"), mv("D3")), ErrorClass::Rotate180);
        // Q17 is row 2, col 15: transposed row 15, col 2 = C4.
        assert_eq!(classify_move(mv("Q17"), mv("C4")), ErrorClass::Transpose);
        assert_eq!(classify_move(mv("K10"), mv("L10")), ErrorClass::IShift);
        assert_eq!(classify_move(mv("J10"), mv("H10")), ErrorClass::Offset, "H is before the missing I");
        assert_eq!(classify_move(mv("C10"), mv("C11")), ErrorClass::Offset);
        assert_eq!(classify_move(mv("C10"), mv("F12")), ErrorClass::Other);
        assert_eq!(classify_move(mv("C10"), Move::Pass), ErrorClass::Other);
    }

    #[test]
    fn boards_are_named_by_their_transform() {
        let mut t = [0u8; NN];
        for (g, c) in [("Q16", 1), ("D4", 2), ("C3", 1), ("R10", 2)] {
            let Move::Play(p) = mv(g) else { unreachable!() };
            t[p.index() as usize] = c;
        }
        let apply = |s: u8| {
            let mut b = [0u8; NN];
            for i in 0..NN as u16 {
                b[symmetry_index(i, s) as usize] = t[i as usize];
            }
            b
        };
        for (s, c) in SYMMETRIES {
            assert_eq!(classify_board(&t, &apply(s)), c, "{s}");
        }
        let swapped: Vec<u8> = t.iter().map(|&v| if v == 0 { 0 } else { 3 - v }).collect();
        assert_eq!(classify_board(&t, swapped.as_slice().try_into().unwrap()), ErrorClass::ColourSwap);
        let mut ishift = [0u8; NN];
        let mut down = [0u8; NN];
        for i in 0..NN {
            let p = Point::from_index(i as u16).unwrap();
            let (r, c) = (p.row as usize, p.col as usize);
            ishift[i] = if c > J as usize {
                t[r * N + c - 1]
            } else if c == J as usize {
                0
            } else {
                t[i]
            };
            down[i] = if r > 0 { t[(r - 1) * N + c] } else { 0 };
        }
        assert_eq!(classify_board(&t, &ishift), ErrorClass::IShift);
        assert_eq!(classify_board(&t, &down), ErrorClass::Offset);
        let mut other = t;
        other[0] = 1;
        assert_eq!(classify_board(&t, &other), ErrorClass::Other);
    }
}
