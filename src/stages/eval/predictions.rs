//! A model's answers read back, in one of three shapes (docs/eval.md, "Predictions"):
//!
//! * `{"id": ..., "answer": ...}` a line (any order);
//! * LLaMA-Factory's `generated_predictions.jsonl`: `prompt`, `predict`, `label`, one a
//!   row in the set's order (its `label` must be the set's answer);
//! * ms-swift's inference result: the row's own fields (its `id`) and `response`; without
//!   ids, one a row in the set's order (its `labels` must be the set's answer).
//!
//! A file without a line (empty, or blank lines only) is refused: it is not a model's answers.

use std::collections::HashMap;
use std::path::Path;

use super::set::Row;
use crate::error::SetupError;

/// Which shape the file has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Shape {
    Ids,
    LlamaFactory,
    Swift,
}

impl Shape {
    /// The report's name of the shape (its `shape`).
    pub fn name(self) -> &'static str {
        match self {
            Shape::Ids => "ids",
            Shape::LlamaFactory => "llama-factory",
            Shape::Swift => "swift",
        }
    }
}

/// The answers, one per set row (`None`: unanswered), and the file's shape.
pub struct Predictions {
    pub answers: Vec<Option<String>>,
    pub shape: Shape,
}

fn text_of(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Null => None,
        other => Some(other.to_string()),
    }
}

/// Reads `path` against the set's `rows`.
pub fn read(path: &Path, rows: &[Row]) -> anyhow::Result<Predictions> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| SetupError(format!("cannot read the predictions {}: {e}", path.display())))?;
    let mut lines = Vec::new();
    for (k, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line)
            .map_err(|e| SetupError(format!("{} line {}: not a JSON object ({e})", path.display(), k + 1)))?;
        if !v.is_object() {
            return Err(SetupError(format!("{} line {}: not a JSON object", path.display(), k + 1)).into());
        }
        lines.push(v);
    }
    let shape_of = |v: &serde_json::Value| {
        if v.get("response").is_some() {
            Shape::Swift
        } else if v.get("predict").is_some() {
            Shape::LlamaFactory
        } else {
            Shape::Ids
        }
    };
    let Some(shape) = lines.first().map(shape_of) else {
        return Err(SetupError(format!(
            "{}: no predictions (the file is empty): an empty file is not a model's answers",
            path.display()
        ))
        .into());
    };
    if let Some(k) = lines.iter().position(|v| shape_of(v) != shape) {
        return Err(SetupError(format!(
            "{}: line {} is not in the shape of the first ({shape:?}): one file, one shape",
            path.display(),
            k + 1
        ))
        .into());
    }
    let answers = match shape {
        Shape::LlamaFactory => by_order(path, &lines, rows, "predict", "label")?,
        Shape::Ids => by_id(path, &lines, rows, "answer")?,
        Shape::Swift if lines.iter().all(|v| id_of(v).is_none()) => by_order(path, &lines, rows, "response", "labels")?,
        Shape::Swift => by_id(path, &lines, rows, "response")?,
    };
    Ok(Predictions { answers, shape })
}

/// Lines in the set's order (LLaMA-Factory's; ms-swift's without ids): as many as the set
/// has rows, each `label` (when present) the row's answer, the answer under `key`.
fn by_order(
    path: &Path,
    lines: &[serde_json::Value],
    rows: &[Row],
    key: &str,
    label: &str,
) -> anyhow::Result<Vec<Option<String>>> {
    if lines.len() != rows.len() {
        return Err(SetupError(format!(
            "{} has {} predictions in the set's order, the set {} rows: the file is not this set's",
            path.display(),
            lines.len(),
            rows.len()
        ))
        .into());
    }
    let wrong: Vec<usize> = (0..rows.len())
        .filter(|&k| lines[k][label].as_str().is_some_and(|l| l.trim() != rows[k].answer.trim()))
        .collect();
    if let Some(&first) = wrong.first() {
        return Err(SetupError(format!(
            "{}: {} of {} labels differ from the set's answers (first at line {}: {:?}, the set's {:?}): the file is \
             not this set's, or not in its order",
            path.display(),
            wrong.len(),
            rows.len(),
            first + 1,
            lines[first][label].as_str().unwrap_or_default(),
            rows[first].answer
        ))
        .into());
    }
    Ok(lines.iter().map(|v| text_of(&v[key])).collect())
}

/// The id of a line: `id`, else `<game_id>-<move_number>` (a row of an older export).
fn id_of(v: &serde_json::Value) -> Option<String> {
    if let Some(id) = v.get("id").and_then(text_of) {
        return Some(id);
    }
    let (g, m) = (v.get("game_id")?.as_str()?, v.get("move_number")?.as_u64()?);
    Some(crate::stages::draw::row_id(g, m as u16))
}

/// Lines with ids: each a known id, once.
fn by_id(path: &Path, lines: &[serde_json::Value], rows: &[Row], key: &str) -> anyhow::Result<Vec<Option<String>>> {
    let index: HashMap<&str, usize> = rows.iter().enumerate().map(|(k, r)| (r.id.as_str(), k)).collect();
    let mut answers: Vec<Option<String>> = vec![None; rows.len()];
    let mut seen = vec![false; rows.len()];
    let (mut dups, mut unknown, mut no_id) = (0usize, Vec::new(), 0usize);
    for v in lines {
        let Some(id) = id_of(v) else {
            no_id += 1;
            continue;
        };
        match index.get(id.as_str()) {
            None => unknown.push(id),
            Some(&k) if seen[k] => dups += 1,
            Some(&k) => {
                seen[k] = true;
                answers[k] = v.get(key).and_then(text_of);
            }
        }
    }
    if dups + unknown.len() + no_id > 0 {
        let mut parts = Vec::new();
        if dups > 0 {
            parts.push(format!("{dups} duplicate ids"));
        }
        if !unknown.is_empty() {
            parts.push(format!("{} unknown ids (first {:?})", unknown.len(), unknown[0]));
        }
        if no_id > 0 {
            parts.push(format!("{no_id} lines without an id"));
        }
        return Err(SetupError(format!(
            "{}: {} of {} lines; the set has {} rows: the file is not this set's",
            path.display(),
            parts.join(", "),
            lines.len(),
            rows.len()
        ))
        .into());
    }
    Ok(answers)
}
