//! Answers read as users' models write them (docs/eval.md, "Parsing"): case, spaces, a
//! trailing full stop, quotes or backticks around the answer, `pass`; SGF letters when
//! the set was exported with them. Points convert through [`crate::coord`] alone.

use crate::coord::{gtp_move, sgf_move, Move, Point, N, NN};
use crate::stages::export::vlm::Notation;

/// The answer without surrounding spaces, quotes, backticks and trailing full stops.
pub fn clean(s: &str) -> &str {
    let mut t = s.trim();
    loop {
        let u = t.trim_matches(|c: char| c == '"' || c == '\'' || c == '`').trim_end_matches('.').trim();
        if u == t {
            return t;
        }
        t = u;
    }
}

/// One point or a pass: GTP (`Q16`, `q 16`), or SGF letters (`pd`) in an SGF set.
pub fn parse_move(s: &str, notation: Notation) -> Option<Move> {
    let t: String = clean(s).chars().filter(|c| !c.is_whitespace()).collect();
    if t.eq_ignore_ascii_case("pass") {
        return Some(Move::Pass);
    }
    if let Some(m) = gtp_move(&t) {
        return Some(m);
    }
    match notation {
        Notation::Sgf if t.len() == 2 => sgf_move(&t.to_ascii_lowercase()).ok(),
        _ => None,
    }
}

/// `resign` (any case, with [`clean`]'s quotes and full stops): a player giving up the
/// game (`kibo match`); `kibo eval`'s tasks have no such answer.
pub fn is_resign(s: &str) -> bool {
    clean(s).eq_ignore_ascii_case("resign")
}

/// A transcription: 19 lines of 19 points (`X`/`x` black, `O`/`o` white, `.` empty),
/// each with or without its row number on either side and spaces between points; the
/// column letters' line and empty lines are skipped. Rows from 19 at the top.
pub fn parse_board(s: &str) -> Option<[u8; NN]> {
    let mut board = [0u8; NN];
    let mut row = 0;
    // Not `clean`: a row may end in `.` (empty points); a fenced block's ``` lines are skipped.
    for line in s.trim().lines().filter(|l| !l.trim_start().starts_with("```")) {
        let cells: Vec<char> =
            line.trim().trim_matches(|c: char| c.is_ascii_digit()).chars().filter(|c| !c.is_whitespace()).collect();
        let header = row == 0 && cells.iter().any(|c| c.is_ascii_alphabetic() && !"XOxo".contains(*c));
        if cells.is_empty() || header {
            continue;
        }
        if cells.len() != N || row == N {
            return None;
        }
        for (col, c) in cells.iter().enumerate() {
            board[row * N + col] = match c {
                'X' | 'x' => 1,
                'O' | 'o' => 2,
                '.' => 0,
                _ => return None,
            };
        }
        row += 1;
    }
    (row == N).then_some(board)
}

/// `yes` or `no`.
pub fn parse_yes_no(s: &str) -> Option<bool> {
    match clean(s).to_ascii_lowercase().as_str() {
        "yes" => Some(true),
        "no" => Some(false),
        _ => None,
    }
}

/// The chains in atari: `none`, or `B D5 D4; W Q3` (a colour `B`/`W`/`black`/`white`,
/// then the chain's points), as a sorted list of (colour, sorted points); the order of
/// chains and of points does not matter.
pub fn parse_atari(s: &str, notation: Notation) -> Option<Vec<(u8, Vec<Point>)>> {
    let t = clean(s);
    if t.eq_ignore_ascii_case("none") {
        return Some(Vec::new());
    }
    let mut chains = Vec::new();
    for part in t.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let mut words = part.split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty());
        let colour = match words.next()?.to_ascii_lowercase().as_str() {
            "b" | "black" => 1,
            "w" | "white" => 2,
            _ => return None,
        };
        let mut pts = Vec::new();
        for w in words {
            match parse_move(w, notation)? {
                Move::Play(p) => pts.push(p),
                Move::Pass => return None,
            }
        }
        if pts.is_empty() {
            return None;
        }
        pts.sort_by_key(|p| p.index());
        pts.dedup();
        chains.push((colour, pts));
    }
    chains.sort();
    chains.dedup();
    Some(chains)
}

/// A judge answer (`B+3.5`, `w+2`, `even`, `jigo`, `B+0`) as Black's lead in points.
pub fn parse_lead(s: &str) -> Option<f32> {
    let t: String = clean(s).chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
    if t == "even" || t == "jigo" || t == "0" {
        return Some(0.0);
    }
    let (side, pts) = t.split_once('+')?;
    let v: f32 = pts.parse().ok().filter(|v: &f32| v.is_finite() && *v >= 0.0)?;
    match side {
        "b" | "black" => Some(v),
        "w" | "white" => Some(-v),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judge_answers_read_as_blacks_lead() {
        assert_eq!(parse_lead("B+3.5"), Some(3.5));
        assert_eq!(parse_lead(" w+12. "), Some(-12.0));
        assert_eq!(parse_lead("even"), Some(0.0));
        assert_eq!(parse_lead("Black+0.5"), Some(0.5));
        assert_eq!(parse_lead("B3.5"), None);
        assert_eq!(parse_lead("X+1"), None);
        assert_eq!(parse_lead("B+-1"), None);
    }
    use crate::stages::export::vlm::text::{atari_answer, transcription};

    #[test]
    fn moves_read_as_models_write_them() {
        let q16 = gtp_move("Q16");
        for s in ["Q16", "q16", " Q16.", "Q 16", "`Q16`", "\"q16\"", "Q16.\n"] {
            assert_eq!(parse_move(s, Notation::Gtp), q16, "{s:?}");
        }
        assert_eq!(parse_move("Pass.", Notation::Gtp), Some(Move::Pass));
        assert!(is_resign(" Resign.") && is_resign("`resign`") && !is_resign("I resign") && !is_resign("pass"));
        assert_eq!(parse_move("pd", Notation::Gtp), None, "SGF letters only in an SGF set");
        assert_eq!(parse_move("pd", Notation::Sgf), q16);
        assert_eq!(parse_move("PD", Notation::Sgf), q16);
        assert_eq!(parse_move("Q16", Notation::Sgf), q16);
        for s in ["I5", "Q20", "the move is Q16", "", "Q16 R4"] {
            assert_eq!(parse_move(s, Notation::Gtp), None, "{s:?}");
        }
    }

    #[test]
    fn boards_read_back_with_or_without_labels() {
        let mut b = [0u8; NN];
        b[3 * N + 15] = 1;
        b[18 * N] = 2;
        let t = transcription(&b);
        assert_eq!(parse_board(&t), Some(b));
        let bare: Vec<&str> = t.lines().skip(1).map(|l| &l[3..]).collect();
        assert_eq!(parse_board(&bare.join("\n")), Some(b));
        assert_eq!(parse_board(&t.to_lowercase()[..].replace("abcdefghjklmnopqrst", "")), Some(b));
        let short: Vec<&str> = t.lines().take(19).collect();
        assert_eq!(parse_board(&short.join("\n")), None);
        assert_eq!(parse_board("garbage"), None);
    }

    #[test]
    fn atari_chains_compare_as_sets() {
        let mut b = [0u8; NN];
        for (g, c) in
            [("A1", 2), ("A2", 1), ("C5", 2), ("C4", 2), ("E5", 2), ("E4", 2), ("D6", 2), ("D5", 1), ("D4", 1)]
        {
            let Some(Move::Play(p)) = gtp_move(g) else { unreachable!() };
            b[p.index() as usize] = c;
        }
        let truth = parse_atari(&atari_answer(&b, Notation::Gtp), Notation::Gtp).unwrap();
        assert_eq!(truth.len(), 2);
        assert_eq!(parse_atari("w a1; b d4, d5.", Notation::Gtp), Some(truth.clone()));
        assert_eq!(parse_atari(&atari_answer(&b, Notation::Sgf), Notation::Sgf), Some(truth));
        assert_eq!(parse_atari("None.", Notation::Gtp), Some(vec![]));
        assert_eq!(parse_atari("maybe", Notation::Gtp), None);
        assert_eq!(parse_yes_no(" Yes."), Some(true));
        assert_eq!(parse_yes_no("no"), Some(false));
        assert_eq!(parse_yes_no("nope"), None);
    }
}
