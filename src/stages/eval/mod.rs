/*!
`kibo eval --set DEST --predictions FILE [--report OUT.json] [--html OUT.html]`: a
model's answers to an evaluation set (`kibo export vlm --split test`) scored per task,
every rate with its 95% Wilson interval, the coordinate errors named (docs/eval.md).

* [`set`]: the set's rows and their truth (the output folder's samples, `OUT/labels`);
* [`predictions`]: the answers, in three file shapes;
* [`parse`]: answers read as models write them;
* [`score`]: the tallies per task;
* [`report`]: the report as types, written once and read by the summary and the page;
* [`errors`]: the classes of wrong answers;
* [`stats`]: rates and intervals;
* [`html`]: the page with its plots and wrong answers drawn.

A usage, setup or input problem (a missing set, a row or truth that cannot be read, a
predictions file that is not this set's or is empty) is a [`crate::error::SetupError`]
(exit 2), found before anything is written.
*/

pub mod errors;
pub mod html;
pub mod parse;
pub mod predictions;
pub mod report;
pub mod score;
pub mod set;
pub mod stats;

use std::path::{Path, PathBuf};

pub use report::Report;

use crate::stages::export::vlm::Notation;

/// What `kibo eval` is asked.
#[derive(Clone, Debug)]
pub struct EvalOptions {
    pub set: PathBuf,
    pub predictions: PathBuf,
    pub report: Option<PathBuf>,
    pub html: Option<PathBuf>,
}

/// Scores the predictions; returns the report (also written where asked).
pub fn run(opt: &EvalOptions) -> anyhow::Result<Report> {
    let (info, rows) = set::load(&opt.set)?;
    let set_rows: Vec<set::Row> = rows.iter().map(|r| r.row.clone()).collect();
    let p = predictions::read(&opt.predictions, &set_rows)?;
    let (report, wrong) = report_of(opt, info.notation, &rows, &p);
    if let Some(path) = &opt.report {
        write(path, report.to_json()?)?;
    }
    if let Some(path) = &opt.html {
        write(path, html::page(&report, &rows, &wrong))?;
    }
    Ok(report)
}

/// The report of `p`'s answers to `rows`, and the wrong answers to draw.
fn report_of(
    opt: &EvalOptions,
    notation: Notation,
    rows: &[set::EvalRow],
    p: &predictions::Predictions,
) -> (Report, Vec<score::Wrong>) {
    let (tasks, wrong) = score::score(rows, &p.answers, notation);
    let (next_move, transcribe, tactics, judge) = tasks.reports();
    let answered = p.answers.iter().filter(|a| a.is_some()).count() as u64;
    let unanswered_ids =
        rows.iter().zip(&p.answers).filter(|(_, a)| a.is_none()).map(|(r, _)| r.row.id.clone()).take(20).collect();
    let report = Report {
        format: report::FORMAT.to_string(),
        set: opt.set.to_string_lossy().into_owned(),
        predictions: opt.predictions.to_string_lossy().into_owned(),
        shape: p.shape,
        notation,
        rows: rows.len() as u64,
        answered,
        unanswered: rows.len() as u64 - answered,
        unanswered_ids,
        labels: rows.iter().any(|r| r.engine.is_some()),
        next_move,
        transcribe,
        tactics,
        judge,
    };
    (report, wrong)
}

fn write(path: &Path, text: String) -> anyhow::Result<()> {
    use anyhow::Context;
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    }
    use std::io::Write;
    Ok(crate::storage::write_file_atomic(path, |f| f.write_all(text.as_bytes()))?)
}

/// A rate for the summary: `62.5% [40.9, 79.8]`, `-` when its `n` is 0.
fn pct(r: &stats::Rate) -> String {
    match r.percent() {
        Some((x, low, high)) => format!("{x:.1}% [{low:.1}, {high:.1}]"),
        None => "-".to_string(),
    }
}

/// The report's headline figures, one line a task (printed by `kibo eval`).
pub fn summary(r: &Report) -> String {
    let (nm, tr, ta) = (&r.next_move, &r.transcribe, &r.tactics);
    let mut s = format!(
        "eval: {} rows, {} answered\nnext-move  n {}: parsed {}, legal {}, top1 {}",
        r.rows,
        r.answered,
        nm.n,
        pct(&nm.parsed),
        pct(&nm.legal),
        pct(&nm.top1)
    );
    if nm.labelled > 0 {
        s += &format!(", engine_top1 {}, engine_top5 {}", pct(&nm.engine_top1), pct(&nm.engine_top5));
    }
    s += &format!(
        "\ntranscribe n {}: parsed {}, exact {}, point_accuracy {}\ntactics    n {}: parsed {}, accuracy {}",
        tr.n,
        pct(&tr.parsed),
        pct(&tr.exact),
        pct(&tr.point_accuracy),
        ta.all.n,
        pct(&ta.all.parsed),
        pct(&ta.all.accuracy)
    );
    if let Some(j) = &r.judge {
        let mae = j.mean_abs_error.map(|e| format!("{e:.2}")).unwrap_or_else(|| "-".to_string());
        s += &format!(
            "\njudge      n {}: parsed {}, winner {}, exact {}, mean_abs_error {mae}",
            j.n,
            pct(&j.parsed),
            pct(&j.winner),
            pct(&j.exact)
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::set::{AnswerKey, EvalRow, Row, Tactic, Truth};
    use super::*;
    use crate::coord::{gtp_move, NN};
    use crate::stages::export::vlm::Task;

    fn row(id: &str, task: Task, key: AnswerKey) -> EvalRow {
        let mv = gtp_move("Q16").unwrap();
        EvalRow {
            row: Row {
                id: id.to_string(),
                task,
                question: None,
                answer: String::new(),
                symmetry: 0,
                game_id: "g".to_string(),
                move_number: 10,
                tags: Vec::new(),
            },
            key,
            truth: Truth { board: [0; NN], to_play: 1, mv, ko: None, rank: None },
            engine: None,
        }
    }

    fn report(answers: &[Option<&str>], rows: &[EvalRow]) -> (Report, Vec<score::Wrong>) {
        let opt = EvalOptions { set: "SET".into(), predictions: "P.jsonl".into(), report: None, html: None };
        let p = predictions::Predictions {
            answers: answers.iter().map(|a| a.map(str::to_string)).collect(),
            shape: predictions::Shape::Ids,
        };
        report_of(&opt, Notation::Gtp, rows, &p)
    }

    #[test]
    fn the_report_is_written_once_and_read_back_typed_every_task_shown() {
        let rows = vec![
            row("g-1", Task::NextMove, AnswerKey::NextMove),
            row("g-2", Task::Tactics, AnswerKey::Tactics(Tactic::Ladder(true))),
            row("g-3", Task::Judge, AnswerKey::Judge(-2.5)),
            row("g-4", Task::Judge, AnswerKey::Judge(3.0)),
        ];
        let (r, wrong) = report(&[Some("Q4"), Some("yes"), Some("W+2.5"), None], &rows);
        assert_eq!(wrong.len(), 1);
        let text = r.to_json().unwrap();
        // Read back through the type, every key is kept (compared as parsed: serde_json's
        // float parsing may be one ulp off a float it wrote, the same for both).
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let back: Report = serde_json::from_str(&text).unwrap();
        assert_eq!(serde_json::to_value(&back).unwrap(), v, "read back as written");
        assert_eq!((back.rows, back.next_move.top1, back.judge.map(|j| j.n)), (4, r.next_move.top1, Some(2)));
        assert_eq!(v["next-move"]["errors"]["row_flip"], 1);
        assert_eq!(v["tactics"]["by_question"]["ladder"]["precision"]["count"], 1);
        assert_eq!(v["judge"]["exact"]["count"], 1);
        assert_eq!(v["unanswered_ids"], serde_json::json!(["g-4"]));
        let j = r.judge.expect("judge rows: a judge report");
        assert_eq!((j.n, j.parsed.count, j.winner.count, j.mean_abs_error), (2, 1, 1, Some(0.0)));
        let s = summary(&r);
        assert!(s.ends_with("\njudge      n 2: parsed 50.0% [9.5, 90.5], winner 50.0% [9.5, 90.5], exact 50.0% [9.5, 90.5], mean_abs_error 0.00"), "{s}");
        let page = html::page(&r, &rows, &wrong);
        assert!(page.contains("<h2 id=\"judge\">judge (n 2)</h2>"), "{page}");
        assert!(page.contains("<tr><td>winner</td><td>50.0% <small>[9.5, 90.5] · 1/2</small></td></tr>"), "{page}");
        // Without judge rows the report has no `judge` object, and neither has the page.
        let (r, wrong) = report(&[Some("Q16")], &rows[..1]);
        assert!(r.judge.is_none() && !r.to_json().unwrap().contains("judge"));
        assert!(!summary(&r).contains("judge") && !html::page(&r, &rows[..1], &wrong).contains("judge"));
    }
}
