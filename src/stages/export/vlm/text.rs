//! The words of a VLM row: the tasks, their prompt templates and placeholders, and the
//! answers (docs/vlm.md, "Tasks and templates"). Every point is written through
//! [`crate::coord`] (GTP `Q16` or SGF `pd`); nothing here converts letters itself.

use crate::coord::{Move, Point, N, NN};
use crate::engine::Board;

/// What a row asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Task {
    /// The move played next (the default).
    NextMove,
    /// The board as 19 text rows.
    Transcribe,
    /// A question answered from kibo's tags and the board: which chains are in atari,
    /// does the move capture, is it a ladder chase.
    Tactics,
    /// Who is ahead, and by how much: KataGo's score lead (`kibo label`), to the half
    /// point (`B+3.5`, `W+0.5`, `even`).
    Judge,
}

impl Task {
    /// Every task, in the order `--mix` lists them.
    pub const ALL: [Task; 4] = [Task::NextMove, Task::Transcribe, Task::Tactics, Task::Judge];

    /// The task's name (`next-move`, `transcribe`, `tactics`).
    pub fn name(self) -> &'static str {
        match self {
            Task::NextMove => "next-move",
            Task::Transcribe => "transcribe",
            Task::Tactics => "tactics",
            Task::Judge => "judge",
        }
    }
}

impl std::str::FromStr for Task {
    type Err = String;
    fn from_str(s: &str) -> Result<Task, String> {
        Task::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| format!("{s:?}: expected one of next-move, transcribe, tactics, judge"))
    }
}

/// How points are written in prompts and answers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Notation {
    /// GTP: `Q16`, columns A–T without I, row 1 at the bottom (the default).
    #[default]
    Gtp,
    /// SGF letters: `pd`, column then row, `a` at the left and at the top.
    Sgf,
}

impl std::str::FromStr for Notation {
    type Err = String;
    fn from_str(s: &str) -> Result<Notation, String> {
        match s {
            "gtp" => Ok(Notation::Gtp),
            "sgf" => Ok(Notation::Sgf),
            _ => Err(format!("{s:?}: expected gtp or sgf")),
        }
    }
}

impl Notation {
    /// `m` written in this notation; a pass is `pass` in both.
    pub fn write(self, m: Move) -> String {
        match (self, m) {
            (_, Move::Pass) => "pass".to_string(),
            (Notation::Gtp, Move::Play(p)) => p.to_gtp(),
            (Notation::Sgf, Move::Play(p)) => p.to_sgf(),
        }
    }

    /// Reads an answer written by [`Notation::write`] back (the tests' inverse).
    pub fn read(self, text: &str) -> Option<Move> {
        if text == "pass" {
            return Some(Move::Pass);
        }
        match self {
            Notation::Gtp => crate::coord::gtp_move(text).filter(|m| *m != Move::Pass),
            Notation::Sgf if text.len() == 2 => crate::coord::sgf_move(text).ok(),
            Notation::Sgf => None,
        }
    }
}

pub use crate::config::{VlmTemplates as Templates, COORDS_GTP, COORDS_SGF};

/// The tactics question a row asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Question {
    /// Which chains are in atari.
    Atari,
    /// Does the move capture.
    Capture,
    /// Is the move a ladder chase.
    Ladder,
}

/// What a row's words are made from, after the row's symmetry.
#[derive(Clone, Debug)]
pub struct Facts<'a> {
    /// The board as pictured.
    pub board: &'a [u8; NN],
    /// 1 black, 2 white.
    pub to_play: u8,
    /// The move played, as pictured.
    pub mv: Move,
    /// 1-based.
    pub move_number: u16,
    /// The moves before it, most recent first, as pictured (at most `--last-moves`).
    pub last_moves: &'a [Move],
    /// The move's tactical tags.
    pub tags: &'a [String],
    /// KataGo's score lead for Black (`kibo label`), when the row has a label.
    pub score_lead_black: Option<f32>,
    /// The move before, as pictured (`None` before the first move).
    pub last_move: Option<Move>,
    /// The point the side to move may not take (a ko), as pictured.
    pub ko_point: Option<Point>,
    /// Whether prompts show the board as text (`--board text|both`): `{board}` is
    /// [`text_board`], and a template without it gets it ([`with_board`]).
    pub text_board: bool,
}

/// A score lead for Black as the judge task's answer: rounded to the half point, `B+3.5`
/// or `W+0.5` (a whole number without `.0`: `B+3`), `even` when it rounds to 0. The lead
/// is a number ([`words`] refuses a row without one).
pub fn lead_answer(lead_black: f32) -> String {
    let half = (lead_black * 2.0).round() / 2.0;
    if half == 0.0 {
        return "even".to_string();
    }
    let side = if half > 0.0 { "B" } else { "W" };
    format!("{side}+{}", half.abs())
}

fn side_word(c: u8) -> &'static str {
    if c == 2 {
        "White"
    } else {
        "Black"
    }
}

/// Fills `template`'s placeholders.
pub fn fill(template: &str, f: &Facts<'_>, notation: Notation) -> String {
    let coords = match notation {
        Notation::Gtp => COORDS_GTP,
        Notation::Sgf => COORDS_SGF,
    };
    let last = if f.last_moves.is_empty() {
        String::new()
    } else {
        // The most recent move was the opponent's; colours alternate backwards.
        let words: Vec<String> = f
            .last_moves
            .iter()
            .enumerate()
            .map(|(k, m)| {
                let c = if k % 2 == 0 { 3 - f.to_play } else { f.to_play };
                format!("{} {}", if c == 2 { "W" } else { "B" }, notation.write(*m))
            })
            .rev()
            .collect();
        format!(" The last moves were {}.", words.join(", "))
    };
    let board = if f.text_board && template.contains("{board}") { text_board(f, notation) } else { String::new() };
    template
        .replace("{board}", &board)
        .replace("{coords}", coords)
        .replace("{side}", side_word(f.to_play))
        .replace("{opponent}", side_word(3 - f.to_play))
        .replace("{move_number}", &f.move_number.to_string())
        .replace("{last_moves}", &last)
        .replace("{move}", &notation.write(f.mv))
}

/// The board as text: the column letters, then rows 19 to 1, each its number (two
/// characters, right-aligned), a space and 19 of `X` black, `O` white, `.` empty.
pub fn transcription(board: &[u8; NN]) -> String {
    grid(board, "")
}

/// The transcription's grid with `sep` between two points (and between two letters):
/// `""` is [`transcription`], `" "` the text board's ([`text_board`]).
pub fn grid(board: &[u8; NN], sep: &str) -> String {
    let mut out = String::with_capacity((3 + N * (1 + sep.len())) * (N + 1));
    out.push_str("   ");
    for (k, &c) in crate::coord::GTP_COLUMNS.iter().enumerate() {
        if k > 0 {
            out.push_str(sep);
        }
        out.push(c as char);
    }
    for row in 0..N {
        out.push('\n');
        out.push_str(&format!("{:>2} ", N - row));
        for (k, &c) in board[row * N..(row + 1) * N].iter().enumerate() {
            if k > 0 {
                out.push_str(sep);
            }
            out.push(match c {
                1 => 'X',
                2 => 'O',
                _ => '.',
            });
        }
    }
    out
}

/// The `{board}` text (docs/vlm.md, "Text boards"): the transcription's grid with a space
/// between points (20 lines), then one line: the legend, the last move and the ko point
/// in words (`X is Black, O is White, . is empty. The last move was White Q16. Black may
/// not take the ko at D4.`), every point in the row's notation.
pub fn text_board(f: &Facts<'_>, notation: Notation) -> String {
    let mut out = grid(f.board, " ");
    out.push_str("\nX is Black, O is White, . is empty.");
    let (side, opponent) = (side_word(f.to_play), side_word(3 - f.to_play));
    match f.last_move {
        None => out.push_str(" No move has been played yet."),
        Some(Move::Pass) => out.push_str(&format!(" The last move was a pass by {opponent}.")),
        Some(m) => out.push_str(&format!(" The last move was {opponent} {}.", notation.write(m))),
    }
    if let Some(p) = f.ko_point {
        out.push_str(&format!(" {side} may not take the ko at {}.", notation.write(Move::Play(p))));
    }
    out
}

/// A user template as filled when prompts show the text board: as it is when it has
/// `{board}` (or the board is not shown); else with `{board}` on its own lines right after
/// its first `{coords}` (one space after `{coords}` dropped), or, without `{coords}`, at the
/// start followed by a line break.
pub fn with_board(template: &str, text_board: bool) -> std::borrow::Cow<'_, str> {
    if !text_board || template.contains("{board}") {
        return std::borrow::Cow::Borrowed(template);
    }
    std::borrow::Cow::Owned(match template.find("{coords}") {
        Some(i) => {
            let rest = &template[i + "{coords}".len()..];
            format!("{}{{coords}}\n{{board}}\n{}", &template[..i], rest.strip_prefix(' ').unwrap_or(rest))
        }
        None => format!("{{board}}\n{template}"),
    })
}

/// The chains in atari: `B D5 D4; W Q3` (black chains first, then white; each chain's
/// points and the chains in reading order, from the top-left), or `none`.
pub fn atari_answer(board: &[u8; NN], notation: Notation) -> String {
    let Ok(b) = Board::from_cells(board) else { return "none".to_string() };
    let mut seen = [false; NN];
    let mut chains: Vec<(u8, Vec<Point>)> = Vec::new();
    let mut stones = Vec::new();
    for i in 0..NN {
        let Some(p) = Point::from_index(i as u16) else { continue };
        if seen[i] || !matches!(board[i], 1 | 2) {
            continue;
        }
        stones.clear();
        b.chain_stones(p, &mut stones);
        for s in &stones {
            seen[s.index() as usize] = true;
        }
        if b.chain_liberties(p) == 1 {
            let mut pts = stones.clone();
            pts.sort_by_key(|q| q.index());
            chains.push((board[i], pts));
        }
    }
    if chains.is_empty() {
        return "none".to_string();
    }
    chains.sort_by_key(|(c, pts)| (*c, pts[0].index()));
    let words: Vec<String> = chains
        .iter()
        .map(|(c, pts)| {
            let names: Vec<String> = pts.iter().map(|p| notation.write(Move::Play(*p))).collect();
            format!("{} {}", if *c == 1 { "B" } else { "W" }, names.join(" "))
        })
        .collect();
    words.join("; ")
}

/// The prompt and answer of one row. The judge task of a row whose label has no score
/// lead (KataGo gave none: the labels' `status` names it) is a
/// [`crate::error::SetupError`], never an answer made up.
pub fn words(
    task: Task,
    question: Question,
    f: &Facts<'_>,
    t: &Templates,
    notation: Notation,
) -> anyhow::Result<(String, String, Option<Question>)> {
    let has = |tag: &str| f.tags.iter().any(|x| x == tag);
    let yes_no = |b: bool| if b { "yes" } else { "no" }.to_string();
    let user = |tpl: &str| fill(&with_board(tpl, f.text_board), f, notation);
    Ok(match task {
        Task::NextMove => (user(&t.next_move), notation.write(f.mv), None),
        Task::Transcribe => (user(&t.transcribe), transcription(f.board), None),
        Task::Judge => {
            match f.score_lead_black.filter(|l| l.is_finite()) {
                Some(lead) => (user(&t.judge), lead_answer(lead), None),
                None => return crate::error::setup(
                    "the judge task needs KataGo's score lead, and this row's label has none (its status is not ok)",
                ),
            }
        }
        Task::Tactics => {
            // A pass neither captures nor chases: its row asks about atari.
            let q = if f.mv == Move::Pass { Question::Atari } else { question };
            let (tpl, answer) = match q {
                Question::Atari => (&t.atari, atari_answer(f.board, notation)),
                Question::Capture => (&t.capture, yes_no(has("capture"))),
                Question::Ladder => (&t.ladder, yes_no(has("ladder_capture"))),
            };
            (user(tpl), answer, Some(q))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(gtp: &str) -> Point {
        match crate::coord::gtp_move(gtp) {
            Some(Move::Play(p)) => p,
            _ => panic!("{gtp}"),
        }
    }

    #[test]
    fn notation_round_trips_every_move() {
        for i in 0..=crate::coord::PASS {
            let m = Move::from_index(i).unwrap();
            for n in [Notation::Gtp, Notation::Sgf] {
                assert_eq!(n.read(&n.write(m)), Some(m), "{n:?} {m:?}");
            }
        }
        assert_eq!(Notation::Gtp.write(Move::Play(pt("Q16"))), "Q16");
        assert_eq!(Notation::Sgf.write(Move::Play(pt("Q16"))), "pd");
        assert_eq!(Notation::Sgf.write(Move::Play(pt("A19"))), "aa");
        assert_eq!(Notation::Gtp.read("I5"), None, "GTP has no I");
    }

    #[test]
    fn the_judge_answer_rounds_the_lead_to_the_half_point() {
        assert_eq!(lead_answer(3.4), "B+3.5");
        assert_eq!(lead_answer(3.1), "B+3");
        assert_eq!(lead_answer(-0.6), "W+0.5");
        assert_eq!(lead_answer(0.2), "even");
        assert_eq!(lead_answer(-12.76), "W+13");
    }

    #[test]
    fn transcription_has_19_at_the_top_and_a_at_the_left() {
        let mut b = [0u8; NN];
        b[pt("A19").index() as usize] = 1;
        b[pt("T1").index() as usize] = 2;
        b[pt("Q16").index() as usize] = 1;
        let t = transcription(&b);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 20);
        assert_eq!(lines[0], "   ABCDEFGHJKLMNOPQRST");
        assert_eq!(lines[1], "19 X..................");
        assert_eq!(lines[4], "16 ...............X...", "Q is the 16th column");
        assert_eq!(lines[19], " 1 ..................O");
    }

    #[test]
    fn the_text_board_is_the_transcription_spaced_with_the_last_move_and_ko_in_words() {
        let mut b = [0u8; NN];
        b[pt("A19").index() as usize] = 1;
        b[pt("T1").index() as usize] = 2;
        b[pt("Q16").index() as usize] = 2;
        let f = Facts {
            board: &b,
            to_play: 1,
            mv: Move::Pass,
            move_number: 12,
            last_moves: &[],
            tags: &[],
            score_lead_black: None,
            last_move: Some(Move::Play(pt("Q16"))),
            ko_point: Some(pt("D4")),
            text_board: true,
        };
        let t = text_board(&f, Notation::Gtp);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 21);
        assert_eq!(lines[0], "   A B C D E F G H J K L M N O P Q R S T");
        assert_eq!(lines[1], "19 X . . . . . . . . . . . . . . . . . .");
        assert_eq!(lines[4], "16 . . . . . . . . . . . . . . . O . . .", "Q is the 16th column");
        assert_eq!(lines[19], " 1 . . . . . . . . . . . . . . . . . . O");
        // Without the spaces, the grid is the transcribe task's answer.
        let unspaced: Vec<String> =
            lines[..20].iter().map(|l| format!("{}{}", &l[..3], l[3..].replace(' ', ""))).collect();
        assert_eq!(unspaced.join("\n"), transcription(&b));
        assert_eq!(
            lines[20],
            "X is Black, O is White, . is empty. The last move was White Q16. Black may not take the ko at D4."
        );
        let sgf = text_board(&Facts { to_play: 2, last_move: Some(Move::Pass), ..f.clone() }, Notation::Sgf);
        assert!(sgf.ends_with("The last move was a pass by Black. White may not take the ko at dp."), "{sgf}");
        let first = text_board(&Facts { last_move: None, ko_point: None, ..f.clone() }, Notation::Gtp);
        assert!(first.ends_with(". is empty. No move has been played yet."), "{first}");
    }

    #[test]
    fn the_text_board_goes_where_board_is_else_after_coords_else_first() {
        assert_eq!(with_board("{coords} {side} to play.", true), "{coords}\n{board}\n{side} to play.");
        assert_eq!(with_board("Hi {coords}.", true), "Hi {coords}\n{board}\n.");
        assert_eq!(with_board("{side} to play.", true), "{board}\n{side} to play.");
        assert_eq!(with_board("{side}: {board}", true), "{side}: {board}");
        assert_eq!(with_board("{coords} {side} to play.", false), "{coords} {side} to play.");
        let b = [0u8; NN];
        let f = Facts {
            board: &b,
            to_play: 2,
            mv: Move::Play(pt("C3")),
            move_number: 2,
            last_moves: &[],
            tags: &[],
            score_lead_black: None,
            last_move: Some(Move::Play(pt("R4"))),
            ko_point: None,
            text_board: true,
        };
        let t = Templates::default();
        let (prompt, answer, _) = words(Task::NextMove, Question::Atari, &f, &t, Notation::Gtp).unwrap();
        assert_eq!(answer, "C3");
        let want = format!(
            "{COORDS_GTP}\n{}\nWhite to play. What is the next move? Answer with one point, or pass.",
            text_board(&f, Notation::Gtp)
        );
        assert_eq!(prompt, want);
        assert!(prompt.contains("The last move was Black R4."));
        // Without the text board, {board} is empty and nothing is added.
        let pic = Facts { text_board: false, ..f.clone() };
        assert_eq!(fill("[{board}]", &pic, Notation::Gtp), "[]");
        let (prompt, _, _) = words(Task::NextMove, Question::Atari, &pic, &t, Notation::Gtp).unwrap();
        assert_eq!(prompt, fill(&t.next_move, &pic, Notation::Gtp));
        assert!(!prompt.contains('\n'));
    }

    #[test]
    fn atari_lists_chains_with_one_liberty() {
        let mut b = [0u8; NN];
        // A white stone at A1 with black at A2: one liberty (B1); black A2 has two.
        b[pt("A1").index() as usize] = 2;
        b[pt("A2").index() as usize] = 1;
        assert_eq!(atari_answer(&b, Notation::Gtp), "W A1");
        // A black pair D5 D4 surrounded but for D3.
        for g in ["C5", "C4", "E5", "E4", "D6"] {
            b[pt(g).index() as usize] = 2;
        }
        b[pt("D5").index() as usize] = 1;
        b[pt("D4").index() as usize] = 1;
        assert_eq!(atari_answer(&b, Notation::Gtp), "B D5 D4; W A1");
        assert_eq!(atari_answer(&[0; NN], Notation::Gtp), "none");
    }

    #[test]
    fn templates_refuse_unknown_placeholders_and_fill_known_ones() {
        let mut t = Templates::default();
        t.check().unwrap();
        t.next_move = "{side} {colour}".into();
        assert!(t.check().unwrap_err().contains("{colour}"));
        let board = [0u8; NN];
        let last = [Move::Play(pt("Q4")), Move::Play(pt("D16"))];
        let f = Facts {
            board: &board,
            to_play: 1,
            mv: Move::Play(pt("Q16")),
            move_number: 3,
            last_moves: &last,
            tags: &[],
            score_lead_black: None,
            last_move: None,
            ko_point: None,
            text_board: false,
        };
        let s = fill("{side}/{opponent}/{move_number}/{move}.{last_moves}", &f, Notation::Gtp);
        assert_eq!(s, "Black/White/3/Q16. The last moves were B D16, W Q4.");
    }

    #[test]
    fn the_judge_task_of_a_row_without_a_score_lead_is_an_error_not_even() {
        let t = Templates::default();
        let board = [0u8; NN];
        let f = Facts {
            board: &board,
            to_play: 1,
            mv: Move::Pass,
            move_number: 3,
            last_moves: &[],
            tags: &[],
            score_lead_black: Some(-0.6),
            last_move: None,
            ko_point: None,
            text_board: false,
        };
        let (_, answer, _) = words(Task::Judge, Question::Atari, &f, &t, Notation::Gtp).unwrap();
        assert_eq!(answer, "W+0.5");
        for lead in [None, Some(f32::NAN)] {
            let e =
                words(Task::Judge, Question::Atari, &Facts { score_lead_black: lead, ..f.clone() }, &t, Notation::Gtp)
                    .unwrap_err();
            assert!(crate::error::is_setup(&e), "{e:#}");
        }
        // The other tasks do not need it.
        let none = Facts { score_lead_black: None, ..f.clone() };
        assert_eq!(words(Task::NextMove, Question::Atari, &none, &t, Notation::Gtp).unwrap().1, "pass");
    }
}
