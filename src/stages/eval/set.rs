//! An evaluation set read back (docs/eval.md, "The set"): `DEST/vlm.json` (written by
//! `kibo export vlm --split test`), the rows of either layout in their order, each joined
//! to its sample in the output folder the set was drawn from (the pictured board, the
//! move, the ko point, the ranks) and, when `OUT/labels` exists, to KataGo's reading.
//! Everything is turned into the picture's frame ([`crate::coord::symmetry_index`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use arrow_array::types::{Int16Type, UInt16Type, UInt8Type};
use arrow_array::Array;

use super::refused::Refused;
use crate::coord::{symmetry_index, Move, Point, NN};
use crate::stages::export::vlm::{Layout, Notation, Question, Task};
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
    pub truth: Truth,
    pub engine: Option<Engine>,
}

fn refused(msg: String) -> anyhow::Error {
    Refused(msg).into()
}

/// Reads `DEST/vlm.json`.
pub fn info(dest: &Path) -> anyhow::Result<SetInfo> {
    let path = dest.join("vlm.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| refused(format!("no evaluation set at {}: {} ({e})", dest.display(), path.display())))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| refused(format!("{}: not JSON ({e})", path.display())))?;
    let (Some(split), Some(out)) = (v["split"].as_str(), v["out"].as_str()) else {
        return Err(refused(format!(
            "{} is a training set, not an evaluation set: export one with `kibo export vlm --split test`",
            dest.display()
        )));
    };
    let layout = if v["layout"] == "qwen" { Layout::Qwen } else { Layout::Parquet };
    let notation = if v["answer"] == "sgf" { Notation::Sgf } else { Notation::Gtp };
    Ok(SetInfo { dest: dest.to_path_buf(), layout, notation, split: split.to_string(), out: PathBuf::from(out) })
}

fn question_of(s: Option<&str>) -> Option<Question> {
    match s? {
        "atari" => Some(Question::Atari),
        "capture" => Some(Question::Capture),
        "ladder" => Some(Question::Ladder),
        _ => None,
    }
}

fn task_of(s: &str, id: &str) -> anyhow::Result<Task> {
    s.parse().map_err(|e| refused(format!("row {id}: task {e}")))
}

/// The set's rows in their order.
pub fn rows(info: &SetInfo) -> anyhow::Result<Vec<Row>> {
    match info.layout {
        Layout::Parquet => parquet_rows(&info.dest.join(&info.split)),
        Layout::Qwen => qwen_rows(&info.dest.join(format!("{}.jsonl", info.split))),
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
        for i in 0..b.num_rows() {
            let o = tl.value_offsets();
            v.push(Row {
                id: id.value(i).to_string(),
                task: task_of(task.value(i), id.value(i))?,
                question: question_of((!q.is_null(i)).then(|| q.value(i))),
                answer: ans.value(i).to_string(),
                symmetry: sym.value(i),
                game_id: gid.value(i).to_string(),
                move_number: mn.value(i),
                tags: (o[i] as usize..o[i + 1] as usize).map(|j| tn.value(j).to_string()).collect(),
            });
        }
        Ok(())
    })
    .with_context(|| format!("reading the set's rows in {}", dir.display()))?;
    Ok(v)
}

fn qwen_rows(path: &Path) -> anyhow::Result<Vec<Row>> {
    let text = std::fs::read_to_string(path).map_err(|e| refused(format!("{}: {e}", path.display())))?;
    let mut v = Vec::new();
    for (k, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let j: serde_json::Value =
            serde_json::from_str(line).with_context(|| format!("{} line {}", path.display(), k + 1))?;
        let s = |key: &str| j[key].as_str().unwrap_or_default().to_string();
        let id = s("id");
        let answer = j["conversations"]
            .as_array()
            .and_then(|c| c.iter().rev().find(|t| t["from"] == "gpt"))
            .and_then(|t| t["value"].as_str())
            .unwrap_or_default()
            .to_string();
        v.push(Row {
            task: task_of(&s("task"), &id)?,
            question: question_of(j["question"].as_str()),
            answer,
            symmetry: j["symmetry"].as_u64().unwrap_or(0) as u8,
            game_id: s("game_id"),
            move_number: j["move_number"].as_u64().unwrap_or(0) as u16,
            tags: j["tags"]
                .as_array()
                .map(|a| a.iter().filter_map(|t| t.as_str().map(str::to_string)).collect())
                .unwrap_or_default(),
            id,
        });
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
    let out = rows
        .into_iter()
        .zip(truths)
        .zip(engines)
        .map(|((row, truth), engine)| EvalRow { row, truth: truth.expect("invariant: checked"), engine })
        .collect();
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
            let s = rows[k].symmetry;
            let mut pictured = [0u8; NN];
            for (j, &v) in board.value(i).iter().enumerate().take(NN) {
                pictured[symmetry_index(j as u16, s) as usize] = v;
            }
            let ranks = if to_play.value(i) == 2 { wr } else { br };
            truths[k] = Some(Truth {
                board: pictured,
                to_play: to_play.value(i),
                mv: Move::from_index(symmetry_index(mv.value(i), s)).unwrap_or(Move::Pass),
                ko: (!ko.is_null(i)).then(|| Point::from_index(symmetry_index(ko.value(i), s))).flatten(),
                rank: (!ranks.is_null(i)).then(|| ranks.value(i)),
            });
        }
        Ok(())
    })
}

/// KataGo's reading of each row from `OUT/labels` (none when the folder is missing).
fn read_labels(out: &Path, rows: &[Row], at: &HashMap<(String, u16), usize>) -> anyhow::Result<Vec<Option<Engine>>> {
    let mut v: Vec<Option<Engine>> = vec![None; rows.len()];
    let dir = out.join("labels");
    if !dir.is_dir() {
        return Ok(v);
    }
    crate::storage::read_parquet_columns(&dir, false, None, |b| {
        for l in crate::stages::label::table::rows_of(&b)? {
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
