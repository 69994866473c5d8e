/*!
The one place where coordinates change form.

Inside kibo a point is `(row, col)`, both `0..19`, counted from the **top-left**
corner (row 0 is the top edge, col 0 the left edge), exactly like SGF letters.
Its single index is `row * 19 + col` (`0..361`); a pass is [`PASS`] (`361`).

Two outside forms are converted here and nowhere else:

* **SGF** letters: column letter first, then row letter, `a` = 0 from the top-left
  (`"pd"` = row 3, col 15). `""` is a pass, and so is `"tt"` on boards up to 19×19.
* **GTP** text: a column letter `A`–`T` **without `I`**, then the row number counted
  from the **bottom** (`1` = bottom edge, `19` = top edge): `"pd"` = `Q16`.
*/

/// Board size. kibo keeps 19×19 games only.
pub const N: usize = 19;
/// Number of points on the board.
pub const NN: usize = N * N;
/// Single index used for a pass.
pub const PASS: u16 = NN as u16;

/// GTP column letters, `I` skipped.
pub const GTP_COLUMNS: &[u8; 19] = b"ABCDEFGHJKLMNOPQRST";

/// A point on the board, from the top-left.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point {
    /// 0 = top edge.
    pub row: u8,
    /// 0 = left edge.
    pub col: u8,
}

impl Point {
    /// A point from row and column; `None` when off a 19×19 board.
    pub fn new(row: usize, col: usize) -> Option<Point> {
        (row < N && col < N).then_some(Point { row: row as u8, col: col as u8 })
    }
    /// Single index `row * 19 + col`.
    pub fn index(self) -> u16 {
        self.row as u16 * N as u16 + self.col as u16
    }
    /// Point from a single index `0..361`.
    pub fn from_index(i: u16) -> Option<Point> {
        ((i as usize) < NN).then_some(Point { row: (i as usize / N) as u8, col: (i as usize % N) as u8 })
    }
    /// SGF letters, e.g. `"pd"`.
    pub fn to_sgf(self) -> String {
        let mut s = String::with_capacity(2);
        s.push((b'a' + self.col) as char);
        s.push((b'a' + self.row) as char);
        s
    }
    /// GTP text, e.g. `"Q16"`.
    pub fn to_gtp(self) -> String {
        self.to_gtp_on(N)
    }
    /// GTP text on a board of `rows` rows (GTP counts rows from the bottom edge), e.g.
    /// `"C7"` for the point at row 2, column 2 of a 9×9 board.
    pub fn to_gtp_on(self, rows: usize) -> String {
        format!("{}{}", GTP_COLUMNS[self.col as usize] as char, rows.saturating_sub(self.row as usize))
    }
}

/// A move as kibo stores it: a point or a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// Stone placed at the point.
    Play(Point),
    /// Pass.
    Pass,
}

impl Move {
    /// Single index; a pass is [`PASS`].
    pub fn index(self) -> u16 {
        match self {
            Move::Play(p) => p.index(),
            Move::Pass => PASS,
        }
    }
    /// From a single index; [`PASS`] is a pass.
    pub fn from_index(i: u16) -> Option<Move> {
        if i == PASS {
            Some(Move::Pass)
        } else {
            Point::from_index(i).map(Move::Play)
        }
    }
    /// SGF letters; a pass is `""`.
    pub fn to_sgf(self) -> String {
        match self {
            Move::Play(p) => p.to_sgf(),
            Move::Pass => String::new(),
        }
    }
    /// GTP text; a pass is `"pass"`.
    pub fn to_gtp(self) -> String {
        match self {
            Move::Play(p) => p.to_gtp(),
            Move::Pass => "pass".to_string(),
        }
    }
}

/// SGF and GTP text of every move index (`0..=PASS`), built once from
/// [`Move::to_sgf`] and [`Move::to_gtp`], for writers that need them per sample.
pub fn move_texts() -> &'static [(String, String)] {
    static T: std::sync::OnceLock<Vec<(String, String)>> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        (0..=PASS)
            .map(|i| Move::from_index(i).expect("invariant: index in range"))
            .map(|m| (m.to_sgf(), m.to_gtp()))
            .collect()
    })
}

/// Leela Zero's vertex number of kibo index `i`: `y * 19 + x` with `x` the column and
/// `y = 0` the **bottom** row (A1 = 0, SGF `aa` = 342), as `SGFTree::string_to_vertex`
/// and its training chunks number points; a pass stays [`PASS`]. It flips rows, so it is
/// its own inverse.
pub fn leela_index(i: u16) -> u16 {
    match Point::from_index(i) {
        Some(p) => (N - 1 - p.row as usize) as u16 * N as u16 + p.col as u16,
        None => i,
    }
}

/// Applies board symmetry `s` (0..8) to a point, KataGo's convention
/// (`SymmetryHelpers::getSymLoc`): bit 0 flips rows (y), bit 1 flips columns (x),
/// bit 2 transposes; flips are applied first. `s = 0` is the identity.
pub fn symmetry(p: Point, s: u8) -> Point {
    let n = (N - 1) as u8;
    let x = if s & 2 != 0 { n - p.col } else { p.col };
    let y = if s & 1 != 0 { n - p.row } else { p.row };
    if s & 4 != 0 {
        Point { row: x, col: y }
    } else {
        Point { row: y, col: x }
    }
}

/// The symmetry that undoes `s`: every one is its own inverse except 5 ↔ 6.
pub fn symmetry_inverse(s: u8) -> u8 {
    match s {
        5 => 6,
        6 => 5,
        other => other,
    }
}

/// Applies symmetry `s` to a move index (a pass stays a pass).
pub fn symmetry_index(i: u16, s: u8) -> u16 {
    match Point::from_index(i) {
        Some(p) => symmetry(p, s).index(),
        None => i,
    }
}

/// Why an SGF point could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoordError {
    /// Not two letters.
    Malformed,
    /// Letters outside the board of the given size.
    OutOfRange,
}

fn sgf_letter(c: u8) -> Option<usize> {
    match c {
        b'a'..=b'z' => Some((c - b'a') as usize),
        b'A'..=b'Z' => Some((c - b'A') as usize + 26),
        _ => None,
    }
}

/// Reads an SGF point value for a board of `size`×`size` **as a point** (setup
/// stones, markup): two letters, never a pass. Surrounding whitespace is ignored.
pub fn sgf_point(value: &str, size: usize) -> Result<(usize, usize), CoordError> {
    let b = value.trim().as_bytes();
    if b.len() != 2 {
        return Err(CoordError::Malformed);
    }
    let (col, row) = match (sgf_letter(b[0]), sgf_letter(b[1])) {
        (Some(c), Some(r)) => (c, r),
        _ => return Err(CoordError::Malformed),
    };
    if col >= size || row >= size {
        return Err(CoordError::OutOfRange);
    }
    Ok((row, col))
}

/// Reads an SGF move value (`B[..]`/`W[..]`) on a 19×19 board: `""` and `"tt"` are passes,
/// anything else must be a point on the board.
pub fn sgf_move(value: &str) -> Result<Move, CoordError> {
    sgf_move_sized(value, N)
}

/// Reads an SGF move value on a `size`×`size` board. `"tt"` is a pass only when
/// `size <= 19` (FF[3] compatibility, as sgfmill and KataGo do).
pub fn sgf_move_sized(value: &str, size: usize) -> Result<Move, CoordError> {
    let v = value.trim();
    if v.is_empty() || (v == "tt" && size <= 19) {
        return Ok(Move::Pass);
    }
    let (row, col) = sgf_point(v, size)?;
    Point::new(row, col).map(Move::Play).ok_or(CoordError::OutOfRange)
}

/// Reads GTP text (`"Q16"`, `"pass"`, case-insensitive) on a 19×19 board.
pub fn gtp_move(text: &str) -> Option<Move> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("pass") {
        return Some(Move::Pass);
    }
    let mut chars = t.chars();
    let c = chars.next()?.to_ascii_uppercase();
    let col = GTP_COLUMNS.iter().position(|&g| g as char == c)?;
    let num: usize = chars.as_str().parse().ok()?;
    if !(1..=N).contains(&num) {
        return None;
    }
    Point::new(N - num, col).map(Move::Play)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leela_numbers_from_a1() {
        let at = |sgf: &str| leela_index(sgf_move(sgf).unwrap().index());
        // A1 (SGF "as") is 0, T1 ("ss") 18, A19 ("aa") 342, T19 ("sa") 360.
        assert_eq!((at("as"), at("ss"), at("aa"), at("sa"), at("")), (0, 18, 342, 360, PASS));
        assert!((0..=PASS).all(|i| leela_index(leela_index(i)) == i));
    }

    #[test]
    fn sgf_and_gtp_pinned() {
        // (sgf, row, col, gtp)
        let table = [
            ("aa", 0, 0, "A19"),
            ("sa", 0, 18, "T19"),
            ("as", 18, 0, "A1"),
            ("ss", 18, 18, "T1"),
            ("pd", 3, 15, "Q16"),
            ("dp", 15, 3, "D4"),
            ("dd", 3, 3, "D16"),
            ("jj", 9, 9, "K10"),
            ("hi", 8, 7, "H11"),
            ("ij", 9, 8, "J10"),
            ("ja", 0, 9, "K19"),
            ("cj", 9, 2, "C10"),
            ("ck", 10, 2, "C9"),
        ];
        for (sgf, row, col, gtp) in table {
            let m = sgf_move(sgf).unwrap();
            let p = Point::new(row, col).unwrap();
            assert_eq!(m, Move::Play(p), "{sgf}");
            assert_eq!(p.to_sgf(), sgf);
            assert_eq!(p.to_gtp(), gtp, "{sgf}");
            assert_eq!(gtp_move(gtp), Some(Move::Play(p)), "{gtp}");
            assert_eq!(Move::from_index(p.index()), Some(Move::Play(p)));
        }
    }

    #[test]
    fn gtp_text_reads_back_to_every_move() {
        for i in 0..=PASS {
            let m = Move::from_index(i).unwrap();
            assert_eq!(gtp_move(&m.to_gtp()), Some(m));
            assert_eq!(gtp_move(&m.to_gtp().to_lowercase()), Some(m));
        }
        assert_eq!(gtp_move("Q16"), Some(Move::Play(Point { row: 3, col: 15 })));
        assert_eq!(gtp_move("J1"), Some(Move::Play(Point { row: 18, col: 8 })));
        for bad in ["I5", "A0", "A20", "Q", "Q16x", "", "16", "Z3"] {
            assert_eq!(gtp_move(bad), None, "{bad}");
        }
    }

    #[test]
    fn gtp_on_a_smaller_board_counts_rows_from_its_own_bottom_edge() {
        // 9×9: the top-left point is A9, the bottom-right J1 (no I), the 3-3 point C7.
        let at = |r, c| Point::new(r, c).unwrap().to_gtp_on(9);
        assert_eq!(at(0, 0), "A9");
        assert_eq!(at(8, 8), "J1");
        assert_eq!(at(2, 2), "C7");
        assert_eq!(Point::new(2, 2).unwrap().to_gtp_on(19), "C17");
        assert_eq!(Point::new(12, 12).unwrap().to_gtp_on(13), "N1");
    }

    #[test]
    fn symmetries_are_a_group() {
        let p = Point { row: 2, col: 15 }; // Q17
        let images: std::collections::HashSet<Point> = (0..8).map(|s| symmetry(p, s)).collect();
        assert_eq!(images.len(), 8);
        assert_eq!(symmetry(p, 1), Point { row: 16, col: 15 }, "flip rows");
        assert_eq!(symmetry(p, 2), Point { row: 2, col: 3 }, "flip columns");
        assert_eq!(symmetry(p, 4), Point { row: 15, col: 2 }, "transpose");
        for s in 0..8 {
            for i in 0..NN as u16 {
                let q = Point::from_index(i).unwrap();
                assert_eq!(symmetry(symmetry(q, s), symmetry_inverse(s)), q, "s={s}");
            }
        }
        assert_eq!(symmetry_index(PASS, 5), PASS);
    }

    #[test]
    fn passes_and_bad_points() {
        assert_eq!(sgf_move(""), Ok(Move::Pass));
        assert_eq!(sgf_move("tt"), Ok(Move::Pass));
        // On a 21x21 board `tt` is a real point, which a 19x19 Point cannot hold.
        assert_eq!(sgf_move_sized("tt", 21), Err(CoordError::OutOfRange));
        assert_eq!(sgf_move("zz"), Err(CoordError::OutOfRange));
        assert_eq!(sgf_move("ta"), Err(CoordError::OutOfRange));
        assert_eq!(sgf_move("a"), Err(CoordError::Malformed));
        assert_eq!(sgf_move("R16"), Err(CoordError::Malformed));
        assert_eq!(sgf_move("90"), Err(CoordError::Malformed));
        assert_eq!(gtp_move("I5"), None);
        assert_eq!(gtp_move("A20"), None);
        assert_eq!(gtp_move("A0"), None);
        assert_eq!(gtp_move("PASS"), Some(Move::Pass));
        assert_eq!(Move::Pass.index(), PASS);
        assert_eq!(Move::Pass.to_gtp(), "pass");
    }
}
