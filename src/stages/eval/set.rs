//! An evaluation set read back (docs/eval.md, "The set"): `DEST/vlm.json` (written by
//! `kibo export vlm --split test`), the rows of either layout in their order, each joined
//! to its sample in the output folder the set was drawn from (the pictured board, the
//! move, the ko point, the ranks) and, when `OUT/labels` exists, to KataGo's reading.
//! Everything is turned into the picture's frame ([`crate::coord::symmetry_index`]).
//! Nothing missing becomes a default: an unknown `layout` or `answer` in `vlm.json`, a
//! row with a missing or unreadable field, a tactics row without its question, a truth
//! that does not parse ([`AnswerKey`]) are refused (exit 2), naming the file and the row.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use arrow_array::types::{Int16Type, UInt16Type, UInt8Type};
use arrow_array::Array;

use super::parse::{parse_atari, parse_lead, parse_yes_no};
use crate::coord::{symmetry_index, Move, Point, NN};
use crate::error::SetupError;
use crate::stages::export::vlm::{AnswerFrom, BoardMode, Layout, Notation, Question, Task, VlmOptions};
use crate::tables::Cols;

/// What `vlm.json` says of the set.
#[derive(Clone, Debug)]
pub struct SetInfo {
    pub dest: PathBuf,
    pub layout: Layout,
    pub notation: Notation,
    pub split: String,
    /// The output folder the rows were drawn from.
    pub out: PathBuf,
}

impl SetInfo {
    /// The file (Qwen) or folder (Parquet) of the set's rows.
    pub fn rows_path(&self) -> PathBuf {
        match self.layout {
            Layout::Parquet => self.dest.join(&self.split),
            Layout::Qwen => self.dest.join(format!("{}.jsonl", self.split)),
        }
    }
}

/// One row of the set, as exported.
#[derive(Clone, Debug)]
pub struct Row {
    pub id: String,
    pub task: Task,
    pub question: Option<Question>,
    /// The true answer, as written.
    pub answer: String,
    pub symmetry: u8,
    pub game_id: String,
    pub move_number: u16,
    pub tags: Vec<String>,
}

/// What a row asks, with the truth its own answer holds (the tactics and judge tasks);
/// the next-move and transcription truth is the sample's ([`Truth`]).
#[derive(Clone, Debug, PartialEq)]
pub enum AnswerKey {
    NextMove,
    Transcribe,
    Tactics(Tactic),
    /// Black's score lead, in points.
    Judge(f32),
}

/// A tactics question with its true answer.
#[derive(Clone, Debug, PartialEq)]
pub enum Tactic {
    /// The chains in atari, as [`parse_atari`] reads them.
    Atari(Vec<(u8, Vec<Point>)>),
    /// Does the move capture.
    Capture(bool),
    /// Is the move a ladder chase.
    Ladder(bool),
}

impl Tactic {
    /// The question asked.
    pub fn question(&self) -> Question {
        match self {
            Tactic::Atari(_) => Question::Atari,
            Tactic::Capture(_) => Question::Capture,
            Tactic::Ladder(_) => Question::Ladder,
        }
    }
}

impl AnswerKey {
    /// `row`'s answer read as the truth of what it asks; the error says what is missing
    /// or unreadable (a tactics row without a question, an answer that does not parse).
    pub fn of(row: &Row, notation: Notation) -> Result<AnswerKey, String> {
        let a = row.answer.as_str();
        let bad = |what: &str| format!("the {} answer {a:?} is not {what}", row.task.name());
        let yes_no = || parse_yes_no(a).ok_or_else(|| bad("yes or no"));
        Ok(match (row.task, row.question) {
            (Task::NextMove, _) => AnswerKey::NextMove,
            (Task::Transcribe, _) => AnswerKey::Transcribe,
            (Task::Tactics, None) => return Err("a tactics row without a question".to_string()),
            (Task::Tactics, Some(Question::Atari)) => AnswerKey::Tactics(Tactic::Atari(
                parse_atari(a, notation).ok_or_else(|| bad("`none` or chains in atari (`B D5 D4; W Q3`)"))?,
            )),
            (Task::Tactics, Some(Question::Capture)) => AnswerKey::Tactics(Tactic::Capture(yes_no()?)),
            (Task::Tactics, Some(Question::Ladder)) => AnswerKey::Tactics(Tactic::Ladder(yes_no()?)),
            (Task::Judge, _) => {
                AnswerKey::Judge(parse_lead(a).ok_or_else(|| bad("a score lead (`B+3.5`, `W+2`, `even`)"))?)
            }
        })
    }
}

/// A row's position, in the picture's frame.
#[derive(Clone, Debug)]
pub struct Truth {
    pub board: [u8; NN],
    /// 1 black, 2 white.
    pub to_play: u8,
    pub mv: Move,
    /// The point the side to move may not retake.
    pub ko: Option<Point>,
    /// The side to move's numeric rank (kyu k → 1−k, dan d → d, pro p → 9+p).
    pub rank: Option<i16>,
}

/// KataGo's moves for a row, its order, in the picture's frame, each with Black's score
/// lead after it (none at one visit).
#[derive(Clone, Debug, Default)]
pub struct Engine {
    pub top: Vec<(Move, Option<f32>)>,
}

/// A row with its truth and, when labelled, the engine's reading.
#[derive(Clone, Debug)]
pub struct EvalRow {
    pub row: Row,
    pub key: AnswerKey,
    pub truth: Truth,
    pub engine: Option<Engine>,
}

fn refused(msg: String) -> anyhow::Error {
    SetupError(msg).into()
}

/// `DEST/vlm.json` read as JSON (`what` names the set in the error: "evaluation set").
fn vlm_json(dest: &Path, what: &str) -> anyhow::Result<(PathBuf, serde_json::Value)> {
    let path = dest.join("vlm.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| refused(format!("no {what} at {}: {} ({e})", dest.display(), path.display())))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| refused(format!("{}: not JSON ({e})", path.display())))?;
    Ok((path, v))
}

/// Reads `DEST/vlm.json`: an unknown or missing `layout` or `answer` (notation) is refused.
pub fn info(dest: &Path) -> anyhow::Result<SetInfo> {
    let (path, v) = vlm_json(dest, "evaluation set")?;
    let (Some(split), Some(out)) = (v["split"].as_str(), v["out"].as_str()) else {
        return Err(refused(format!(
            "{} is a training set, not an evaluation set: export one with `kibo export vlm --split test`",
            dest.display()
        )));
    };
    let option = |key: &str| {
        v[key].as_str().ok_or_else(|| refused(format!("{}: no {key:?} (a string): not a kibo VLM set", path.display())))
    };
    let layout = option("layout")?.parse().map_err(|e| refused(format!("{}: layout {e}", path.display())))?;
    let notation = option("answer")?.parse().map_err(|e| refused(format!("{}: answer {e}", path.display())))?;
    Ok(SetInfo { dest: dest.to_path_buf(), layout, notation, split: split.to_string(), out: PathBuf::from(out) })
}

/// The options a VLM set (training or evaluation) was exported with, from its
/// `vlm.json`: layout, cell size, notation, answer source, mix, symmetries, prompt
/// history, markers, `<image>` tag, templates, seed, limit and tags; the rest (the
/// folder, rows a file, memory) are [`VlmOptions::default`]'s. A missing key or a value
/// of the wrong type is refused, naming the file and the key, never defaulted. The values
/// are as recorded (the mix in [`Task::ALL`]'s order: `vlm.json` does not keep `--mix`'s):
/// a caller checks what it uses ([`VlmOptions::check`]).
pub fn vlm_options(dest: &Path) -> anyhow::Result<VlmOptions> {
    let (path, v) = vlm_json(dest, "VLM set")?;
    let bad = |key: &str, what: &str| refused(format!("{}: no {key:?} ({what}): not a kibo VLM set", path.display()));
    let text = |key: &str| v[key].as_str().ok_or_else(|| bad(key, "a string"));
    let number = |key: &str| v[key].as_u64().ok_or_else(|| bad(key, "a whole number"));
    let flag = |key: &str| v[key].as_bool().ok_or_else(|| bad(key, "true or false"));
    let parsed = |key: &str, e: String| refused(format!("{}: {key} {e}", path.display()));
    let mix = v["mix"].as_object().ok_or_else(|| bad("mix", "task shares"))?;
    let mix = mix
        .iter()
        .map(|(t, w)| Ok((t.parse().map_err(|e| parsed("mix", e))?, w.as_f64().ok_or_else(|| bad("mix", "numbers"))?)))
        .collect::<anyhow::Result<Vec<(Task, f64)>>>()?;
    let mut mix = mix;
    mix.sort_by_key(|(t, _)| Task::ALL.iter().position(|a| a == t));
    let tags = v["tags"].as_array().and_then(|a| a.iter().map(|t| t.as_str().map(str::to_string)).collect());
    let templates = serde_json::from_value(v["templates"].clone())
        .map_err(|e| refused(format!("{}: templates: {e}", path.display())))?;
    let small = |key: &str| number(key).and_then(|n| u32::try_from(n).map_err(|_| bad(key, "a small number")));
    Ok(VlmOptions {
        to: dest.to_path_buf(),
        layout: text("layout")?.parse().map_err(|e| parsed("layout", e))?,
        limit: number("limit")?,
        seed: number("seed")?,
        tags: tags.ok_or_else(|| bad("tags", "a list of strings"))?,
        test: v["split"].as_str() == Some("test"),
        cell_px: small("cell_px")?,
        // Written only for text boards (`--board text|both`): absent, the set is pictures.
        board: match v.get("board") {
            None => BoardMode::Picture,
            Some(b) => b.as_str().ok_or_else(|| bad("board", "a string"))?.parse().map_err(|e| parsed("board", e))?,
        },
        notation: text("answer")?.parse().map_err(|e| parsed("answer", e))?,
        answer_from: match text("answer_from")? {
            "human" => AnswerFrom::Human,
            "engine" => AnswerFrom::Engine,
            other => return Err(parsed("answer_from", format!("{other:?}: expected human or engine"))),
        },
        mix,
        symmetries: u8::try_from(small("symmetries")?).map_err(|_| bad("symmetries", "1 or 8"))?,
        last_moves: small("last_moves")? as usize,
        last_move_marker: flag("last_move_marker")?,
        ko_marker: flag("ko_marker")?,
        image_tag: flag("image_tag")?,
        templates,
        ..VlmOptions::default()
    })
}

/// A row's fields as read, checked by [`Fields::row`].
struct Fields<'a> {
    id: &'a str,
    task: &'a str,
    question: Option<&'a str>,
    answer: &'a str,
    symmetry: u64,
    game_id: &'a str,
    move_number: u64,
    tags: Vec<String>,
}

impl Fields<'_> {
    /// The row: a known task and question (or none), a symmetry 0 to 7, a move number from 1.
    fn row(self) -> Result<Row, String> {
        let question = match self.question {
            None => None,
            Some("atari") => Some(Question::Atari),
            Some("capture") => Some(Question::Capture),
            Some("ladder") => Some(Question::Ladder),
            Some(other) => return Err(format!("question {other:?}: expected atari, capture or ladder")),
        };
        let symmetry = u8::try_from(self.symmetry)
            .ok()
            .filter(|s| *s < 8)
            .ok_or_else(|| format!("symmetry {}: expected 0 to 7", self.symmetry))?;
        let move_number = u16::try_from(self.move_number)
            .ok()
            .filter(|m| *m >= 1)
            .ok_or_else(|| format!("move_number {}: expected 1 to {}", self.move_number, u16::MAX))?;
        Ok(Row {
            id: self.id.to_string(),
            task: self.task.parse().map_err(|e| format!("task {e}"))?,
            question,
            answer: self.answer.to_string(),
            symmetry,
            game_id: self.game_id.to_string(),
            move_number,
            tags: self.tags,
        })
    }
}

/// The set's rows in their order; a row with a missing or unreadable field is refused,
/// naming the file and the row.
pub fn rows(info: &SetInfo) -> anyhow::Result<Vec<Row>> {
    match info.layout {
        Layout::Parquet => parquet_rows(&info.rows_path()),
        Layout::Qwen => qwen_rows(&info.rows_path()),
    }
}

fn parquet_rows(dir: &Path) -> anyhow::Result<Vec<Row>> {
    if !dir.is_dir() {
        return Err(refused(format!("{} is missing: the set has no rows", dir.display())));
    }
    let cols = ["id", "task", "question", "answer", "symmetry", "game_id", "move_number", "tags"];
    let mut v = Vec::new();
    crate::storage::read_parquet_columns(dir, false, Some(&cols), |b| {
        let c = Cols::new(&b, "vlm");
        let (id, task, q, ans) = (c.str("id")?, c.str("task")?, c.str("question")?, c.str("answer")?);
        let (sym, gid, mn) =
            (c.prim::<UInt8Type>("symmetry")?, c.str("game_id")?, c.prim::<UInt16Type>("move_number")?);
        let (tl, tn) = c.str_list("tags")?;
        let required: [(&str, &dyn Array); 7] = [
            ("id", id),
            ("task", task),
            ("answer", ans),
            ("symmetry", sym),
            ("game_id", gid),
            ("move_number", mn),
            ("tags", tl),
        ];
        for i in 0..b.num_rows() {
            let at = || format!("{}, row {} (id {:?})", dir.display(), v.len() + 1, id.value(i));
            if let Some((name, _)) = required.iter().find(|(_, a)| a.is_null(i)) {
                return Err(refused(format!("{}: no {name}", at())));
            }
            let o = tl.value_offsets();
            let fields = Fields {
                id: id.value(i),
                task: task.value(i),
                question: (!q.is_null(i)).then(|| q.value(i)),
                answer: ans.value(i),
                symmetry: u64::from(sym.value(i)),
                game_id: gid.value(i),
                move_number: u64::from(mn.value(i)),
                tags: (o[i] as usize..o[i + 1] as usize).map(|j| tn.value(j).to_string()).collect(),
            };
            v.push(fields.row().map_err(|e| refused(format!("{}: {e}", at())))?);
        }
        Ok(())
    })
    .with_context(|| format!("reading the set's rows in {}", dir.display()))?;
    Ok(v)
}

/// One line of a Qwen set: every field present and of its type (the answer: the last
/// `gpt` turn's value).
fn qwen_fields(j: &serde_json::Value) -> Result<Fields<'_>, String> {
    let text = |key: &str| j[key].as_str().ok_or_else(|| format!("no {key} (a string)"));
    let number = |key: &str| j[key].as_u64().ok_or_else(|| format!("no {key} (a number)"));
    let answer = j["conversations"]
        .as_array()
        .and_then(|c| c.iter().rev().find(|t| t["from"] == "gpt"))
        .and_then(|t| t["value"].as_str())
        .ok_or("no answer (a `gpt` turn in conversations)")?;
    let question = match &j["question"] {
        serde_json::Value::Null => None,
        q => Some(q.as_str().ok_or("question: not a string")?),
    };
    let tags = j["tags"]
        .as_array()
        .and_then(|a| a.iter().map(|t| t.as_str().map(str::to_string)).collect::<Option<Vec<_>>>())
        .ok_or("no tags (a list of strings)")?;
    Ok(Fields {
        id: text("id")?,
        task: text("task")?,
        question,
        answer,
        symmetry: number("symmetry")?,
        game_id: text("game_id")?,
        move_number: number("move_number")?,
        tags,
    })
}

fn qwen_rows(path: &Path) -> anyhow::Result<Vec<Row>> {
    let text = std::fs::read_to_string(path).map_err(|e| refused(format!("{}: {e}", path.display())))?;
    let mut v = Vec::new();
    for (k, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let at = || format!("{} line {}", path.display(), k + 1);
        let j: serde_json::Value =
            serde_json::from_str(line).map_err(|e| refused(format!("{}: not JSON ({e})", at())))?;
        v.push(qwen_fields(&j).and_then(Fields::row).map_err(|e| refused(format!("{}: {e}", at())))?);
    }
    Ok(v)
}

/// The rows joined to their samples (and labels), in the set's order.
pub fn load(dest: &Path) -> anyhow::Result<(SetInfo, Vec<EvalRow>)> {
    let info = info(dest)?;
    let rows = rows(&info)?;
    let mut at: HashMap<(String, u16), usize> = HashMap::with_capacity(rows.len());
    for (k, r) in rows.iter().enumerate() {
        at.insert((r.game_id.clone(), r.move_number), k);
    }
    let mut truths: Vec<Option<Truth>> = vec![None; rows.len()];
    let shards = crate::features::sample_shards(&info.out, Some(&info.split))
        .map_err(|e| refused(format!("the set's output folder {}: {e:#}", info.out.display())))?;
    for shard in shards {
        read_truths(&shard, &rows, &at, &mut truths)?;
    }
    let missing = truths.iter().filter(|t| t.is_none()).count();
    if missing > 0 {
        return Err(refused(format!(
            "{missing} of the set's {} rows are not in {}'s {} samples: the set was drawn from another output folder",
            rows.len(),
            info.out.display(),
            info.split
        )));
    }
    let engines = read_labels(&info.out, &rows, &at)?;
    let mut out = Vec::with_capacity(rows.len());
    for (k, ((row, truth), engine)) in rows.into_iter().zip(truths).zip(engines).enumerate() {
        let key = AnswerKey::of(&row, info.notation)
            .map_err(|e| refused(format!("{}, row {} (id {:?}): {e}", info.rows_path().display(), k + 1, row.id)))?;
        let truth = truth.context("invariant: every row's truth was found")?;
        out.push(EvalRow { row, key, truth, engine });
    }
    Ok((info, out))
}

fn read_truths(
    shard: &Path,
    rows: &[Row],
    at: &HashMap<(String, u16), usize>,
    truths: &mut [Option<Truth>],
) -> anyhow::Result<()> {
    let cols = ["board", "to_play", "ko_point", "move", "move_number", "game_id", "black_rank_num", "white_rank_num"];
    crate::storage::read_parquet_columns(shard, true, Some(&cols), |b| {
        let c = Cols::new(&b, "samples");
        let (board, to_play, ko) =
            (c.binary("board")?, c.prim::<UInt8Type>("to_play")?, c.prim::<UInt16Type>("ko_point")?);
        let (mv, mn, gid) = (c.prim::<UInt16Type>("move")?, c.prim::<UInt16Type>("move_number")?, c.str("game_id")?);
        let (br, wr) = (c.prim::<Int16Type>("black_rank_num")?, c.prim::<Int16Type>("white_rank_num")?);
        for i in 0..b.num_rows() {
            let Some(&k) = at.get(&(gid.value(i).to_string(), mn.value(i))) else { continue };
            let ranks = if to_play.value(i) == 2 { wr } else { br };
            let sample = Sample {
                board: board.value(i),
                to_play: to_play.value(i),
                mv: mv.value(i),
                ko: (!ko.is_null(i)).then(|| ko.value(i)),
                rank: (!ranks.is_null(i)).then(|| ranks.value(i)),
            };
            let truth = sample.truth(rows[k].symmetry).with_context(|| {
                format!("{}: game {} move {} (a damaged samples table)", shard.display(), gid.value(i), mn.value(i))
            })?;
            truths[k] = Some(truth);
        }
        Ok(())
    })
}

/// A samples row's values the truth is made from, as stored.
struct Sample<'a> {
    board: &'a [u8],
    to_play: u8,
    mv: u16,
    ko: Option<u16>,
    rank: Option<i16>,
}

impl Sample<'_> {
    /// The truth in the picture's frame (symmetry `s`); a value the samples table cannot
    /// hold (a board of another size, a cell or side to move that is not 0/1/2, a move that
    /// is neither a point nor a pass, a ko off the board) is an error, never a pass or Black.
    fn truth(&self, s: u8) -> anyhow::Result<Truth> {
        anyhow::ensure!(self.board.len() == NN, "a board of {} cells, not {NN}", self.board.len());
        anyhow::ensure!(matches!(self.to_play, 1 | 2), "to_play {} is neither 1 (Black) nor 2 (White)", self.to_play);
        let mut pictured = [0u8; NN];
        for (j, &v) in self.board.iter().enumerate() {
            anyhow::ensure!(v <= 2, "board cell {j} is {v}, not 0, 1 or 2");
            pictured[symmetry_index(j as u16, s) as usize] = v;
        }
        let mv = Move::from_index(symmetry_index(self.mv, s))
            .with_context(|| format!("move {} is neither a point (0-360) nor a pass (361)", self.mv))?;
        let ko = match self.ko {
            None => None,
            Some(k) => Some(
                Point::from_index(symmetry_index(k, s)).with_context(|| format!("ko_point {k} is off the board"))?,
            ),
        };
        Ok(Truth { board: pictured, to_play: self.to_play, mv, ko, rank: self.rank })
    }
}

/// KataGo's reading of each row from `OUT/labels` (none when the folder is missing).
fn read_labels(out: &Path, rows: &[Row], at: &HashMap<(String, u16), usize>) -> anyhow::Result<Vec<Option<Engine>>> {
    let mut v: Vec<Option<Engine>> = vec![None; rows.len()];
    let dir = out.join("labels");
    if !dir.is_dir() {
        return Ok(v);
    }
    crate::stages::label::table::read(&dir, None, |b| {
        for l in b.labels()? {
            let Some(&k) = at.get(&(l.game_id.clone(), l.move_number)) else { continue };
            let s = rows[k].symmetry;
            v[k] = Some(Engine {
                top: l
                    .top
                    .iter()
                    .map(|t| {
                        (Move::from_index(symmetry_index(t.mv.index(), s)).unwrap_or(Move::Pass), t.score_lead_black)
                    })
                    .collect(),
            });
        }
        Ok(())
    })
    .with_context(|| format!("reading the labels in {}", dir.display()))?;
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_damaged_samples_value_is_an_error_never_a_pass_or_black() {
        let board = [0u8; NN];
        let ok = Sample { board: &board, to_play: 2, mv: 361, ko: Some(60), rank: None };
        let t = ok.truth(0).unwrap();
        assert_eq!((t.to_play, t.mv, t.ko), (2, Move::Pass, Point::from_index(60)));
        let err = |s: Sample| format!("{:#}", s.truth(3).unwrap_err());
        assert!(err(Sample { mv: 362, ..ok }).contains("move 362 is neither"));
        assert!(err(Sample { to_play: 0, ..ok }).contains("to_play 0"));
        assert!(err(Sample { ko: Some(361), ..ok }).contains("ko_point 361"));
        assert!(err(Sample { board: &board[..360], ..ok }).contains("360 cells"));
        let mut bad = board;
        bad[7] = 3;
        assert!(err(Sample { board: &bad, ..ok }).contains("cell 7 is 3"));
    }

    fn row(task: Task, question: Option<Question>, answer: &str) -> Row {
        Row {
            id: "g-1".to_string(),
            task,
            question,
            answer: answer.to_string(),
            symmetry: 0,
            game_id: "g".to_string(),
            move_number: 1,
            tags: Vec::new(),
        }
    }

    #[test]
    fn a_truth_that_does_not_parse_is_an_error_not_a_wrong_answer() {
        let key = |task, q, a: &str| AnswerKey::of(&row(task, q, a), Notation::Gtp);
        assert_eq!(key(Task::Judge, None, "W+2.5"), Ok(AnswerKey::Judge(-2.5)));
        assert_eq!(key(Task::Judge, None, "even"), Ok(AnswerKey::Judge(0.0)));
        assert!(key(Task::Judge, None, "B+lots").unwrap_err().contains("\"B+lots\" is not a score lead"));
        assert!(key(Task::Judge, None, "").is_err(), "a missing lead is not `even`");
        assert_eq!(key(Task::Tactics, Some(Question::Capture), "yes"), Ok(AnswerKey::Tactics(Tactic::Capture(true))));
        assert_eq!(key(Task::Tactics, Some(Question::Ladder), "no"), Ok(AnswerKey::Tactics(Tactic::Ladder(false))));
        assert!(key(Task::Tactics, Some(Question::Ladder), "maybe").unwrap_err().contains("yes or no"));
        assert_eq!(key(Task::Tactics, Some(Question::Atari), "none"), Ok(AnswerKey::Tactics(Tactic::Atari(vec![]))));
        assert!(key(Task::Tactics, Some(Question::Atari), "B Z9").is_err());
        assert_eq!(key(Task::Tactics, None, "none").unwrap_err(), "a tactics row without a question");
        assert_eq!(key(Task::NextMove, None, "Q16"), Ok(AnswerKey::NextMove));
        for (t, q) in [(Question::Atari, "none"), (Question::Capture, "yes"), (Question::Ladder, "no")] {
            let Ok(AnswerKey::Tactics(k)) = key(Task::Tactics, Some(t), q) else { panic!("{t:?}") };
            assert_eq!(k.question(), t);
        }
    }

    #[test]
    fn a_missing_or_out_of_range_field_is_an_error_not_a_zero() {
        let fields = |question, symmetry, move_number| Fields {
            id: "g-3",
            task: "tactics",
            question,
            answer: "yes",
            symmetry,
            game_id: "g",
            move_number,
            tags: Vec::new(),
        };
        let r = fields(Some("ladder"), 7, 3).row().unwrap();
        assert_eq!((r.question, r.symmetry, r.move_number), (Some(Question::Ladder), 7, 3));
        assert!(fields(Some("seki"), 0, 3).row().unwrap_err().contains("question \"seki\""));
        assert!(fields(None, 8, 3).row().unwrap_err().contains("symmetry 8"));
        assert!(fields(None, 256, 3).row().unwrap_err().contains("symmetry 256"), "not wrapped to 0");
        assert!(fields(None, 0, 0).row().unwrap_err().contains("move_number 0"));
        assert!(fields(None, 0, 65_537).row().unwrap_err().contains("move_number 65537"), "not wrapped to 1");
        let j = serde_json::json!({"id": "g-3", "task": "next-move", "game_id": "g", "move_number": 3, "tags": [],
                                   "conversations": [{"from": "human", "value": "?"}, {"from": "gpt", "value": "Q16"}]});
        assert_eq!(qwen_fields(&j).err(), Some("no symmetry (a number)".to_string()));
        let mut k = j.clone();
        k["symmetry"] = 2.into();
        assert_eq!(qwen_fields(&k).and_then(Fields::row).map(|r| r.symmetry), Ok(2));
        k["conversations"] = serde_json::json!([]);
        assert!(qwen_fields(&k).err().unwrap().starts_with("no answer"));
    }

    #[test]
    fn a_sets_options_read_back_and_a_missing_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut v = serde_json::json!({
            "format": "kibo-vlm-v1", "layout": "qwen", "cell_px": 28, "answer": "sgf", "answer_from": "engine",
            "limit": 500, "seed": 9, "tags": ["atari"], "mix": {"next-move": 0.5, "judge": 0.5}, "symmetries": 8,
            "last_moves": 3, "last_move_marker": false, "ko_marker": true, "image_tag": false,
            "templates": {"system": "S {side}"},
        });
        let write = |v: &serde_json::Value| {
            std::fs::write(dir.path().join("vlm.json"), v.to_string()).unwrap();
            vlm_options(dir.path())
        };
        let o = write(&v).unwrap();
        assert_eq!(
            (o.layout, o.cell_px, o.notation, o.answer_from),
            (Layout::Qwen, 28, Notation::Sgf, AnswerFrom::Engine)
        );
        assert_eq!(
            (o.limit, o.seed, o.tags.clone(), o.symmetries, o.last_moves),
            (500, 9, vec!["atari".to_string()], 8, 3)
        );
        assert_eq!(o.mix, vec![(Task::NextMove, 0.5), (Task::Judge, 0.5)]);
        assert_eq!((o.last_move_marker, o.ko_marker, o.image_tag, o.test), (false, true, false, false));
        assert_eq!(o.templates.system, "S {side}");
        assert_eq!(o.templates.next_move, crate::stages::export::vlm::Templates::default().next_move);
        for key in ["cell_px", "ko_marker", "answer", "mix"] {
            let mut w = v.clone();
            w.as_object_mut().unwrap().remove(key);
            let e = write(&w).unwrap_err();
            assert!(crate::error::is_setup(&e) && e.to_string().contains(&format!("no \"{key}\"")), "{e}");
        }
        // `board`: absent (a picture set), or the text mode; another value is refused.
        assert_eq!(o.board, BoardMode::Picture);
        v["board"] = "text".into();
        assert_eq!(write(&v).unwrap().board, BoardMode::Text);
        v["board"] = "pictures".into();
        let e = write(&v).unwrap_err();
        assert!(crate::error::is_setup(&e) && e.to_string().contains("board \"pictures\""), "{e}");
        v["board"] = "both".into();
        v["templates"]["nextmove"] = "x".into();
        assert!(write(&v).unwrap_err().to_string().contains("templates"), "an unknown template key is refused");
    }

    #[test]
    fn an_unknown_layout_or_notation_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let write = |layout: &str, answer: &str| {
            let v = serde_json::json!({"split": "test", "out": "OUT", "layout": layout, "answer": answer});
            std::fs::write(dir.path().join("vlm.json"), v.to_string()).unwrap();
            info(dir.path())
        };
        let i = write("qwen", "sgf").unwrap();
        assert_eq!((i.layout, i.notation), (Layout::Qwen, Notation::Sgf));
        for (layout, answer, word) in [("qwen2", "gtp", "layout \"qwen2\""), ("parquet", "SGF", "answer \"SGF\"")] {
            let e = write(layout, answer).unwrap_err();
            assert!(crate::error::is_setup(&e) && e.to_string().contains(word), "{e}");
        }
    }
}
