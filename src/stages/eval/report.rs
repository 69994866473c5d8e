//! The report of `kibo eval` as types (docs/eval.md, "The report"): built by
//! [`super::score`], written once to `--report`, and read by [`super::summary`] and the
//! HTML page ([`super::html`]) through these fields alone. [`Report::to_json`] writes
//! the object's keys in alphabetical order at every level, as every `kibo-eval-v1`
//! report has had them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::errors::ErrorClass;
use super::predictions::Shape;
use super::stats::Rate;
use crate::stages::export::vlm::{Notation, Question};

/// The report's `format`.
pub const FORMAT: &str = "kibo-eval-v1";

/// The whole report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// [`FORMAT`].
    pub format: String,
    /// The set scored (its folder).
    pub set: String,
    /// The predictions file.
    pub predictions: String,
    pub shape: Shape,
    pub notation: Notation,
    /// The set's rows.
    pub rows: u64,
    /// Rows with an answer.
    pub answered: u64,
    /// Rows without one.
    pub unanswered: u64,
    /// The first 20 unanswered rows' ids.
    pub unanswered_ids: Vec<String>,
    /// Whether `OUT/labels` had KataGo's reading of some row.
    pub labels: bool,
    #[serde(rename = "next-move")]
    pub next_move: NextMoveReport,
    pub transcribe: TranscribeReport,
    pub tactics: TacticsReport,
    /// Present when the set has judge rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeReport>,
}

impl Report {
    /// The report as written to `--report`: pretty JSON, keys sorted, a final newline.
    pub fn to_json(&self) -> anyhow::Result<String> {
        // Through `Value`, whose maps are sorted: the key order of every earlier report.
        Ok(serde_json::to_string_pretty(&serde_json::to_value(self)?)? + "\n")
    }
}

/// The count of each class of wrong answer (every class present).
pub type Errors = BTreeMap<ErrorClass, u64>;

/// The top-1 and legal rates of a slice of the next-move rows.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SliceReport {
    pub n: u64,
    pub top1: Rate,
    pub legal: Rate,
}

/// The mean score loss of the answers in KataGo's list.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScoreLoss {
    pub n: u64,
    pub mean: Option<f64>,
}

/// The `next-move` task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NextMoveReport {
    pub n: u64,
    pub answered: Rate,
    pub parsed: Rate,
    pub legal: Rate,
    pub top1: Rate,
    /// Rows with KataGo's reading.
    pub labelled: u64,
    pub engine_top1: Rate,
    pub engine_top5: Rate,
    pub in_engine_list: Rate,
    pub score_loss: ScoreLoss,
    pub errors: Errors,
    /// Per move-number band ([`super::score::MOVE_BANDS`]).
    pub by_move_number: BTreeMap<String, SliceReport>,
    /// Per rank band of the side to move ([`super::score::RANK_BANDS`], `unknown`).
    pub by_rank: BTreeMap<String, SliceReport>,
    /// Per tactical tag of the move played (`none`: no tag).
    pub by_tag: BTreeMap<String, SliceReport>,
}

/// Precision, recall and F1 of one colour's points.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ColourReport {
    pub precision: Rate,
    pub recall: Rate,
    pub f1: Option<f64>,
}

/// The `transcribe` task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TranscribeReport {
    pub n: u64,
    pub answered: Rate,
    pub parsed: Rate,
    pub exact: Rate,
    pub point_accuracy: Rate,
    pub black: ColourReport,
    pub white: ColourReport,
    pub errors: Errors,
}

/// The rates every tactics question has (and the task as a whole).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct AskedReport {
    pub n: u64,
    pub answered: Rate,
    pub parsed: Rate,
    pub accuracy: Rate,
}

/// The atari question: its `exact` is its accuracy (the chains in atari exactly).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct AtariReport {
    #[serde(flatten)]
    pub asked: AskedReport,
    pub exact: Rate,
}

/// A yes/no question, with the precision and recall of `yes`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct YesNoReport {
    #[serde(flatten)]
    pub asked: AskedReport,
    pub precision: Rate,
    pub recall: Rate,
}

/// One value per tactics question, found by an exhaustive match on [`Question`] (never
/// by the enum's order).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ByQuestion<A, Y> {
    pub atari: A,
    pub capture: Y,
    pub ladder: Y,
}

impl<T> ByQuestion<T, T> {
    /// The value of question `q`.
    pub fn get_mut(&mut self, q: Question) -> &mut T {
        match q {
            Question::Atari => &mut self.atari,
            Question::Capture => &mut self.capture,
            Question::Ladder => &mut self.ladder,
        }
    }
}

/// The `tactics` task: its rates over all its rows, and per question.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TacticsReport {
    #[serde(flatten)]
    pub all: AskedReport,
    pub by_question: ByQuestion<AtariReport, YesNoReport>,
}

/// The `judge` task.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct JudgeReport {
    pub n: u64,
    pub parsed: Rate,
    pub winner: Rate,
    pub exact: Rate,
    /// Points, over the parsed answers.
    pub mean_abs_error: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_question_is_filed_under_its_own_name() {
        for q in [Question::Atari, Question::Capture, Question::Ladder] {
            let mut by = ByQuestion::<u8, u8>::default();
            *by.get_mut(q) = 1;
            let v = serde_json::to_value(by).unwrap();
            let name = serde_json::to_value(q).unwrap();
            assert_eq!(v[name.as_str().unwrap()], 1, "{q:?} filed under {v}");
            assert_eq!(v.as_object().unwrap().values().filter(|x| **x == 1).count(), 1);
        }
    }

    #[test]
    fn the_shape_names_are_the_reports() {
        for s in [Shape::Ids, Shape::LlamaFactory, Shape::Swift] {
            assert_eq!(serde_json::to_value(s).unwrap(), s.name());
        }
    }
}
