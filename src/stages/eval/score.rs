//! Scoring per task (docs/eval.md, "The report"): every rate over the task's rows (an
//! unanswered or unparsed row counts as wrong), with its Wilson interval.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::errors::{classify_board, classify_move, ErrorClass};
use super::parse::{parse_atari, parse_board, parse_lead, parse_move, parse_yes_no};
use super::set::{EvalRow, Truth};
use super::stats::{Rate, Tally};
use crate::coord::{Move, NN};
use crate::engine::{Board, Color, Rules};
use crate::stages::export::vlm::{Notation, Question, Task};

/// Is `m` legal for the side to move on the pictured board (empty, not suicide, not the
/// ko retake)? Every suicide is illegal (KataGo's rulesets refuse single-stone suicide;
/// the games are Japanese- and Chinese-rules games).
pub fn legal(t: &Truth, m: Move) -> bool {
    let Ok(mut b) = Board::from_cells(&t.board) else { return false };
    let c = Color::from_u8(t.to_play).unwrap_or(Color::Black);
    b.set_ko(t.ko.map(|p| (p, c)));
    b.is_legal(c, m, &Rules { multi_stone_suicide: false }).is_ok()
}

/// A wrong answer to draw on its board in the HTML report.
#[derive(Clone, Debug)]
pub struct Wrong {
    /// The row's index in the set.
    pub row: usize,
    pub answer: String,
    pub mv: Option<Move>,
    pub board: Option<[u8; NN]>,
    pub class: ErrorClass,
}

/// The move-number bands of the breakdown.
pub const MOVE_BANDS: [(&str, u16, u16); 5] =
    [("1-50", 1, 50), ("51-100", 51, 100), ("101-150", 101, 150), ("151-200", 151, 200), ("201+", 201, u16::MAX)];

/// The rank bands (numeric ranks: kyu k → 1−k, dan d → d, pro p → 9+p).
pub const RANK_BANDS: [(&str, i16, i16); 6] = [
    ("11k and below", i16::MIN, -10),
    ("10k-1k", -9, 0),
    ("1d-3d", 1, 3),
    ("4d-6d", 4, 6),
    ("7d-9d", 7, 9),
    ("pro", 10, i16::MAX),
];

fn band_of<T: PartialOrd + Copy>(bands: &[(&'static str, T, T)], v: T) -> &'static str {
    bands.iter().find(|(_, lo, hi)| *lo <= v && v <= *hi).map(|b| b.0).unwrap_or("unknown")
}

/// top-1 and legal rates of a slice of the next-move rows.
#[derive(Clone, Copy, Debug, Default)]
struct Slice {
    top1: Tally,
    legal: Tally,
}

fn slices_json(m: &BTreeMap<String, Slice>, order: &[&str]) -> Value {
    let mut keys: Vec<&String> = m.keys().collect();
    keys.sort_by_key(|k| order.iter().position(|o| o == k).unwrap_or(order.len()));
    let mut out = serde_json::Map::new();
    for k in keys {
        let s = m[k];
        out.insert(k.clone(), json!({"n": s.top1.n, "top1": s.top1.rate(), "legal": s.legal.rate()}));
    }
    Value::Object(out)
}

fn errors_json(e: &BTreeMap<&'static str, u64>) -> Value {
    let mut out = serde_json::Map::new();
    for c in ErrorClass::ALL {
        out.insert(c.name().to_string(), json!(e.get(c.name()).copied().unwrap_or(0)));
    }
    Value::Object(out)
}

/// The next-move task's tallies.
#[derive(Default)]
struct NextMove {
    answered: Tally,
    parsed: Tally,
    legal: Tally,
    top1: Tally,
    engine_top1: Tally,
    engine_top5: Tally,
    in_engine_list: Tally,
    loss_sum: f64,
    loss_n: u64,
    errors: BTreeMap<&'static str, u64>,
    by_move: BTreeMap<String, Slice>,
    by_rank: BTreeMap<String, Slice>,
    by_tag: BTreeMap<String, Slice>,
}

impl NextMove {
    fn add(&mut self, k: usize, r: &EvalRow, answer: Option<&str>, n: Notation, wrong: &mut Vec<Wrong>) {
        let m = answer.and_then(|a| parse_move(a, n));
        let (legal, top1) = (m.is_some_and(|m| legal(&r.truth, m)), m == Some(r.truth.mv));
        self.answered.add(answer.is_some());
        self.parsed.add(m.is_some());
        self.legal.add(legal);
        self.top1.add(top1);
        if let (Some(m), false) = (m, top1) {
            let class = classify_move(r.truth.mv, m);
            *self.errors.entry(class.name()).or_default() += 1;
            wrong.push(Wrong {
                row: k,
                answer: answer.unwrap_or_default().to_string(),
                mv: Some(m),
                board: None,
                class,
            });
        }
        if let Some(e) = &r.engine {
            self.engine_top1.add(m.is_some() && e.top.first().map(|t| t.0) == m);
            self.engine_top5.add(m.is_some() && e.top.iter().take(5).any(|t| Some(t.0) == m));
            let hit = e.top.iter().find(|t| Some(t.0) == m);
            self.in_engine_list.add(hit.is_some());
            let sign = if r.truth.to_play == 2 { -1.0 } else { 1.0 };
            let best = e.top.iter().filter_map(|t| t.1).map(|l| sign * l as f64).fold(f64::NEG_INFINITY, f64::max);
            if let Some(lead) = hit.and_then(|t| t.1) {
                self.loss_sum += best - sign * lead as f64;
                self.loss_n += 1;
            }
        }
        let put = |map: &mut BTreeMap<String, Slice>, key: &str| {
            let s = map.entry(key.to_string()).or_default();
            s.top1.add(top1);
            s.legal.add(legal);
        };
        put(&mut self.by_move, band_of(&MOVE_BANDS, r.row.move_number));
        put(&mut self.by_rank, r.truth.rank.map(|v| band_of(&RANK_BANDS, v)).unwrap_or("unknown"));
        if r.row.tags.is_empty() {
            put(&mut self.by_tag, "none");
        }
        for t in &r.row.tags {
            put(&mut self.by_tag, t);
        }
    }

    fn json(&self) -> Value {
        let moves: Vec<&str> = MOVE_BANDS.iter().map(|b| b.0).collect();
        let ranks: Vec<&str> = RANK_BANDS.iter().map(|b| b.0).collect();
        json!({
            "n": self.answered.n,
            "answered": self.answered.rate(),
            "parsed": self.parsed.rate(),
            "legal": self.legal.rate(),
            "top1": self.top1.rate(),
            "labelled": self.engine_top1.n,
            "engine_top1": self.engine_top1.rate(),
            "engine_top5": self.engine_top5.rate(),
            "in_engine_list": self.in_engine_list.rate(),
            "score_loss": {"n": self.loss_n, "mean": (self.loss_n > 0).then(|| self.loss_sum / self.loss_n as f64)},
            "errors": errors_json(&self.errors),
            "by_move_number": slices_json(&self.by_move, &moves),
            "by_rank": slices_json(&self.by_rank, &ranks),
            "by_tag": slices_json(&self.by_tag, &["none"]),
        })
    }
}

/// Per-colour true positives, false positives and false negatives.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    tp: u64,
    fp: u64,
    fn_: u64,
}

impl Counts {
    fn json(self) -> Value {
        let p = Rate::of(self.tp, self.tp + self.fp);
        let r = Rate::of(self.tp, self.tp + self.fn_);
        let f1 = (2 * self.tp + self.fp + self.fn_ > 0)
            .then(|| 2.0 * self.tp as f64 / (2 * self.tp + self.fp + self.fn_) as f64);
        json!({"precision": p, "recall": r, "f1": f1})
    }
}

/// The transcription task's tallies.
#[derive(Default)]
struct Transcribe {
    answered: Tally,
    parsed: Tally,
    exact: Tally,
    points: Tally,
    colour: [Counts; 2],
    errors: BTreeMap<&'static str, u64>,
}

impl Transcribe {
    fn add(&mut self, k: usize, r: &EvalRow, answer: Option<&str>, wrong: &mut Vec<Wrong>) {
        let b = answer.and_then(parse_board);
        let t = &r.truth.board;
        self.answered.add(answer.is_some());
        self.parsed.add(b.is_some());
        self.exact.add(b.as_ref() == Some(t));
        let empty = [0u8; NN];
        let a = b.as_ref().unwrap_or(&empty);
        for i in 0..NN {
            self.points.add(b.is_some() && a[i] == t[i]);
            for (c, counts) in self.colour.iter_mut().enumerate() {
                let v = c as u8 + 1;
                match (b.is_some() && a[i] == v, t[i] == v) {
                    (true, true) => counts.tp += 1,
                    (true, false) => counts.fp += 1,
                    (false, true) => counts.fn_ += 1,
                    _ => {}
                }
            }
        }
        if let Some(b) = b.filter(|b| b != t) {
            let class = classify_board(t, &b);
            *self.errors.entry(class.name()).or_default() += 1;
            wrong.push(Wrong {
                row: k,
                answer: answer.unwrap_or_default().to_string(),
                mv: None,
                board: Some(b),
                class,
            });
        }
    }

    fn json(&self) -> Value {
        json!({
            "n": self.answered.n,
            "answered": self.answered.rate(),
            "parsed": self.parsed.rate(),
            "exact": self.exact.rate(),
            "point_accuracy": self.points.rate(),
            "black": self.colour[0].json(),
            "white": self.colour[1].json(),
            "errors": errors_json(&self.errors),
        })
    }
}

/// One tactics question's tallies.
#[derive(Clone, Copy, Default)]
struct Asked {
    answered: Tally,
    parsed: Tally,
    right: Tally,
    yes: Counts,
}

/// The tactics task's tallies.
#[derive(Default)]
struct Tactics {
    all: Asked,
    by: [Asked; 3],
}

impl Tactics {
    fn add(&mut self, r: &EvalRow, answer: Option<&str>, n: Notation) {
        let q = r.row.question.unwrap_or(Question::Atari);
        let (parsed, right, said_yes, truth_yes) = match q {
            Question::Atari => {
                let a = answer.and_then(|a| parse_atari(a, n));
                let right = a.is_some() && a == parse_atari(&r.row.answer, n);
                (a.is_some(), right, false, false)
            }
            Question::Capture | Question::Ladder => {
                let a = answer.and_then(parse_yes_no);
                (a.is_some(), a == parse_yes_no(&r.row.answer), a == Some(true), r.row.answer == "yes")
            }
        };
        for s in [&mut self.all, &mut self.by[q as usize]] {
            s.answered.add(answer.is_some());
            s.parsed.add(parsed);
            s.right.add(right);
            match (said_yes, truth_yes) {
                (true, true) => s.yes.tp += 1,
                (true, false) => s.yes.fp += 1,
                (false, true) => s.yes.fn_ += 1,
                _ => {}
            }
        }
    }

    fn json(&self) -> Value {
        let one = |a: &Asked, yes_no: bool| {
            let mut v = json!({"n": a.answered.n, "answered": a.answered.rate(), "parsed": a.parsed.rate(),
                               "accuracy": a.right.rate()});
            if yes_no {
                v["precision"] = json!(Rate::of(a.yes.tp, a.yes.tp + a.yes.fp));
                v["recall"] = json!(Rate::of(a.yes.tp, a.yes.tp + a.yes.fn_));
            } else {
                v["exact"] = json!(a.right.rate());
            }
            v
        };
        let mut v = one(&self.all, false);
        v.as_object_mut().expect("invariant: an object").remove("exact");
        v["by_question"] = json!({
            "atari": one(&self.by[0], false),
            "capture": one(&self.by[1], true),
            "ladder": one(&self.by[2], true),
        });
        v
    }
}

/// The judge task (`kibo label`'s score lead, to the half point): parsed, the leader
/// named right (or `even` both), the exact half point, and the mean absolute error.
#[derive(Default)]
struct Judge {
    parsed: Tally,
    winner: Tally,
    exact: Tally,
    abs_error: f64,
}

impl Judge {
    fn add(&mut self, r: &EvalRow, a: Option<&str>) {
        let truth = parse_lead(&r.row.answer).unwrap_or(0.0);
        let got = a.and_then(parse_lead);
        self.parsed.add(got.is_some());
        let got_side = got.map(|g| g.partial_cmp(&0.0));
        self.winner.add(got_side == Some(truth.partial_cmp(&0.0)));
        self.exact.add(got == Some(truth));
        if let Some(g) = got {
            self.abs_error += f64::from((g - truth).abs());
        }
    }

    fn json(&self) -> Value {
        json!({
            "n": self.parsed.n,
            "parsed": self.parsed.rate(),
            "winner": self.winner.rate(),
            "exact": self.exact.rate(),
            "mean_abs_error": (self.parsed.count > 0).then(|| self.abs_error / self.parsed.count as f64),
        })
    }
}

/// Scores `answers` (one per row, in the set's order): the report's task objects and the
/// wrong next-move and transcription answers.
pub fn score(rows: &[EvalRow], answers: &[Option<String>], notation: Notation) -> (Value, Vec<Wrong>) {
    let (mut nm, mut tr, mut ta) = (NextMove::default(), Transcribe::default(), Tactics::default());
    let mut judge = Judge::default();
    let mut wrong = Vec::new();
    for (k, (r, a)) in rows.iter().zip(answers).enumerate() {
        let a = a.as_deref();
        match r.row.task {
            Task::NextMove => nm.add(k, r, a, notation, &mut wrong),
            Task::Transcribe => tr.add(k, r, a, &mut wrong),
            Task::Tactics => ta.add(r, a, notation),
            Task::Judge => judge.add(r, a),
        }
    }
    let mut report = json!({"next-move": nm.json(), "transcribe": tr.json(), "tactics": ta.json()});
    if judge.parsed.n > 0 {
        report["judge"] = judge.json();
    }
    (report, wrong)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coord::Point;

    /// K (row 5, col 5) is empty; the white stone W at (5, 6) has K as its only liberty;
    /// black stones all around.
    fn ko_truth(to_play: u8, ko: Option<Point>) -> Truth {
        let mut board = [0u8; NN];
        for (r, c) in [(4, 5), (6, 5), (5, 4), (4, 6), (6, 6), (5, 7)] {
            board[r * 19 + c] = 1;
        }
        board[5 * 19 + 6] = 2;
        Truth { board, to_play, mv: Move::Pass, ko, rank: None }
    }

    fn at(r: usize, c: usize) -> Move {
        Move::Play(Point::new(r, c).unwrap())
    }

    #[test]
    fn legality_on_the_pictured_board() {
        let k = Point::new(5, 5).unwrap();
        // Black takes the white stone at K: legal, unless K is the ko point Black may not retake.
        assert!(legal(&ko_truth(1, None), at(5, 5)));
        assert!(!legal(&ko_truth(1, Some(k)), at(5, 5)), "the ko retake");
        assert!(legal(&ko_truth(1, Some(k)), at(0, 0)), "elsewhere while a ko is open");
        // White at K fills its own last liberty and captures nothing: suicide.
        assert!(!legal(&ko_truth(2, None), at(5, 5)), "suicide");
        // A single-stone suicide in the corner: black at A1 (row 18, col 0) between white A2 and B1.
        let mut t = ko_truth(1, None);
        t.board[17 * 19] = 2;
        t.board[18 * 19 + 1] = 2;
        assert!(!legal(&t, at(18, 0)), "single-stone suicide");
        assert!(legal(&t, at(18, 2)));
        // Occupied points, either colour.
        assert!(!legal(&t, at(4, 5)) && !legal(&t, at(5, 6)), "occupied");
        assert!(legal(&t, Move::Pass));
    }
}
