//! Scoring per task (docs/eval.md, "The report"): every rate over the task's rows (an
//! unanswered or unparsed row counts as wrong), with its Wilson interval.

use std::collections::BTreeMap;

use super::errors::{classify_board, classify_move, ErrorClass};
use super::parse::{parse_atari, parse_board, parse_lead, parse_move, parse_yes_no};
use super::report::{
    AskedReport, AtariReport, ByQuestion, ColourReport, Errors, JudgeReport, NextMoveReport, ScoreLoss, SliceReport,
    TacticsReport, TranscribeReport, YesNoReport,
};
use super::set::{AnswerKey, EvalRow, Tactic, Truth};
use super::stats::{Rate, Tally};
use crate::coord::{Move, NN};
use crate::engine::{Board, Color, Rules};
use crate::stages::export::vlm::Notation;

/// Is `m` legal for the side to move on the pictured board (empty, not suicide, not the
/// ko retake)? Every suicide is illegal (KataGo's rulesets refuse single-stone suicide;
/// the games are Japanese- and Chinese-rules games).
pub fn legal(t: &Truth, m: Move) -> bool {
    let Ok(mut b) = Board::from_cells(&t.board) else { return false };
    // `to_play` is 1 or 2: the set's reader refuses any other value (`set::Sample::truth`).
    let Some(c) = Color::from_u8(t.to_play) else { return false };
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

fn slices(m: &BTreeMap<String, Slice>) -> BTreeMap<String, SliceReport> {
    m.iter()
        .map(|(k, s)| (k.clone(), SliceReport { n: s.top1.n, top1: s.top1.rate(), legal: s.legal.rate() }))
        .collect()
}

/// Every class, with its count (0 for the classes not seen).
fn errors(e: &BTreeMap<ErrorClass, u64>) -> Errors {
    ErrorClass::ALL.iter().map(|c| (*c, e.get(c).copied().unwrap_or(0))).collect()
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
    errors: BTreeMap<ErrorClass, u64>,
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
            *self.errors.entry(class).or_default() += 1;
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

    fn report(&self) -> NextMoveReport {
        NextMoveReport {
            n: self.answered.n,
            answered: self.answered.rate(),
            parsed: self.parsed.rate(),
            legal: self.legal.rate(),
            top1: self.top1.rate(),
            labelled: self.engine_top1.n,
            engine_top1: self.engine_top1.rate(),
            engine_top5: self.engine_top5.rate(),
            in_engine_list: self.in_engine_list.rate(),
            score_loss: ScoreLoss {
                n: self.loss_n,
                mean: (self.loss_n > 0).then(|| self.loss_sum / self.loss_n as f64),
            },
            errors: errors(&self.errors),
            by_move_number: slices(&self.by_move),
            by_rank: slices(&self.by_rank),
            by_tag: slices(&self.by_tag),
        }
    }
}

/// True positives, false positives and false negatives (of a colour's points, of `yes`).
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    tp: u64,
    fp: u64,
    fn_: u64,
}

impl Counts {
    /// Counts one call: `said` against `truth`.
    fn add(&mut self, said: bool, truth: bool) {
        match (said, truth) {
            (true, true) => self.tp += 1,
            (true, false) => self.fp += 1,
            (false, true) => self.fn_ += 1,
            _ => {}
        }
    }

    fn precision(self) -> Rate {
        Rate::of(self.tp, self.tp + self.fp)
    }

    fn recall(self) -> Rate {
        Rate::of(self.tp, self.tp + self.fn_)
    }

    fn report(self) -> ColourReport {
        let f1 = (2 * self.tp + self.fp + self.fn_ > 0)
            .then(|| 2.0 * self.tp as f64 / (2 * self.tp + self.fp + self.fn_) as f64);
        ColourReport { precision: self.precision(), recall: self.recall(), f1 }
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
    errors: BTreeMap<ErrorClass, u64>,
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
                counts.add(b.is_some() && a[i] == v, t[i] == v);
            }
        }
        if let Some(b) = b.filter(|b| b != t) {
            let class = classify_board(t, &b);
            *self.errors.entry(class).or_default() += 1;
            wrong.push(Wrong {
                row: k,
                answer: answer.unwrap_or_default().to_string(),
                mv: None,
                board: Some(b),
                class,
            });
        }
    }

    fn report(&self) -> TranscribeReport {
        TranscribeReport {
            n: self.answered.n,
            answered: self.answered.rate(),
            parsed: self.parsed.rate(),
            exact: self.exact.rate(),
            point_accuracy: self.points.rate(),
            black: self.colour[0].report(),
            white: self.colour[1].report(),
            errors: errors(&self.errors),
        }
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

impl Asked {
    fn report(&self) -> AskedReport {
        AskedReport {
            n: self.answered.n,
            answered: self.answered.rate(),
            parsed: self.parsed.rate(),
            accuracy: self.right.rate(),
        }
    }
}

/// The tactics task's tallies.
#[derive(Default)]
struct Tactics {
    all: Asked,
    by: ByQuestion<Asked, Asked>,
}

impl Tactics {
    /// A row asking `key`'s question.
    fn add(&mut self, key: &Tactic, answer: Option<&str>, n: Notation) {
        let (parsed, right, said_yes, truth_yes) = match key {
            Tactic::Atari(truth) => {
                let a = answer.and_then(|a| parse_atari(a, n));
                (a.is_some(), a.as_ref() == Some(truth), false, false)
            }
            Tactic::Capture(truth) | Tactic::Ladder(truth) => {
                let a = answer.and_then(parse_yes_no);
                (a.is_some(), a == Some(*truth), a == Some(true), *truth)
            }
        };
        for s in [&mut self.all, self.by.get_mut(key.question())] {
            s.answered.add(answer.is_some());
            s.parsed.add(parsed);
            s.right.add(right);
            s.yes.add(said_yes, truth_yes);
        }
    }

    fn report(&self) -> TacticsReport {
        let yes_no =
            |a: &Asked| YesNoReport { asked: a.report(), precision: a.yes.precision(), recall: a.yes.recall() };
        let atari = &self.by.atari;
        TacticsReport {
            all: self.all.report(),
            by_question: ByQuestion {
                atari: AtariReport { asked: atari.report(), exact: atari.right.rate() },
                capture: yes_no(&self.by.capture),
                ladder: yes_no(&self.by.ladder),
            },
        }
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
    /// A row whose true lead for Black is `truth`.
    fn add(&mut self, truth: f32, a: Option<&str>) {
        let got = a.and_then(parse_lead);
        self.parsed.add(got.is_some());
        let got_side = got.map(|g| g.partial_cmp(&0.0));
        self.winner.add(got_side == Some(truth.partial_cmp(&0.0)));
        self.exact.add(got == Some(truth));
        if let Some(g) = got {
            self.abs_error += f64::from((g - truth).abs());
        }
    }

    fn report(&self) -> JudgeReport {
        JudgeReport {
            n: self.parsed.n,
            parsed: self.parsed.rate(),
            winner: self.winner.rate(),
            exact: self.exact.rate(),
            mean_abs_error: (self.parsed.count > 0).then(|| self.abs_error / self.parsed.count as f64),
        }
    }
}

/// The tallies of every task.
#[derive(Default)]
pub struct Tasks {
    next_move: NextMove,
    transcribe: Transcribe,
    tactics: Tactics,
    judge: Judge,
}

impl Tasks {
    /// The next-move, transcription and tactics reports, and the judge's when the set has
    /// judge rows.
    pub fn reports(&self) -> (NextMoveReport, TranscribeReport, TacticsReport, Option<JudgeReport>) {
        let judge = (self.judge.parsed.n > 0).then(|| self.judge.report());
        (self.next_move.report(), self.transcribe.report(), self.tactics.report(), judge)
    }
}

/// Scores `answers` (one per row, in the set's order): the tallies of every task and the
/// wrong next-move and transcription answers.
pub fn score(rows: &[EvalRow], answers: &[Option<String>], notation: Notation) -> (Tasks, Vec<Wrong>) {
    let mut t = Tasks::default();
    let mut wrong = Vec::new();
    for (k, (r, a)) in rows.iter().zip(answers).enumerate() {
        let a = a.as_deref();
        match &r.key {
            AnswerKey::NextMove => t.next_move.add(k, r, a, notation, &mut wrong),
            AnswerKey::Transcribe => t.transcribe.add(k, r, a, &mut wrong),
            AnswerKey::Tactics(key) => t.tactics.add(key, a, notation),
            AnswerKey::Judge(truth) => t.judge.add(*truth, a),
        }
    }
    (t, wrong)
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
