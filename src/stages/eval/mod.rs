/*!
`kibo eval --set DEST --predictions FILE [--report OUT.json] [--html OUT.html]`: a
model's answers to an evaluation set (`kibo export vlm --split test`) scored per task,
every rate with its 95% Wilson interval, the coordinate errors named (docs/eval.md).

* [`set`]: the set's rows and their truth (the output folder's samples, `OUT/labels`);
* [`predictions`]: the answers, in three file shapes;
* [`parse`]: answers read as models write them;
* [`score`]: the tallies per task and the report's objects;
* [`errors`]: the classes of wrong answers;
* [`stats`]: rates and intervals;
* [`refused`]: the usage and setup errors (exit 2);
* [`html`]: the page with its plots and wrong answers drawn.
*/

pub mod errors;
pub mod html;
pub mod parse;
pub mod predictions;
pub mod refused;
pub mod score;
pub mod set;
pub mod stats;

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

pub use refused::Refused;

/// What `kibo eval` is asked.
#[derive(Clone, Debug)]
pub struct EvalOptions {
    pub set: PathBuf,
    pub predictions: PathBuf,
    pub report: Option<PathBuf>,
    pub html: Option<PathBuf>,
}

/// Scores the predictions; returns the report (also written where asked).
pub fn run(opt: &EvalOptions) -> anyhow::Result<Value> {
    let (info, rows) = set::load(&opt.set)?;
    let set_rows: Vec<set::Row> = rows.iter().map(|r| r.row.clone()).collect();
    let p = predictions::read(&opt.predictions, &set_rows)?;
    let (mut report, wrong) = score::score(&rows, &p.answers, info.notation);
    let answered = p.answers.iter().filter(|a| a.is_some()).count();
    let unanswered: Vec<&str> =
        rows.iter().zip(&p.answers).filter(|(_, a)| a.is_none()).map(|(r, _)| r.row.id.as_str()).take(20).collect();
    report["format"] = json!("kibo-eval-v1");
    report["set"] = json!(opt.set.to_string_lossy());
    report["predictions"] = json!(opt.predictions.to_string_lossy());
    report["shape"] = json!(p.shape);
    report["notation"] = json!(info.notation);
    report["rows"] = json!(rows.len());
    report["answered"] = json!(answered);
    report["unanswered"] = json!(rows.len() - answered);
    report["unanswered_ids"] = json!(unanswered);
    report["labels"] = json!(rows.iter().any(|r| r.engine.is_some()));
    if let Some(path) = &opt.report {
        write(path, serde_json::to_string_pretty(&report)? + "\n")?;
    }
    if let Some(path) = &opt.html {
        write(path, html::page(&report, &rows, &wrong))?;
    }
    Ok(report)
}

fn write(path: &Path, text: String) -> anyhow::Result<()> {
    use anyhow::Context;
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    }
    use std::io::Write;
    Ok(crate::storage::write_file_atomic(path, |f| f.write_all(text.as_bytes()))?)
}

/// The report's headline figures, one line a task (printed by `kibo eval`).
pub fn summary(r: &Value) -> String {
    let pct = |v: &Value| match v["rate"].as_f64() {
        Some(x) => format!(
            "{:.1}% [{:.1}, {:.1}]",
            100.0 * x,
            100.0 * v["low"].as_f64().unwrap_or(0.0),
            100.0 * v["high"].as_f64().unwrap_or(0.0)
        ),
        None => "-".to_string(),
    };
    let nm = &r["next-move"];
    let tr = &r["transcribe"];
    let ta = &r["tactics"];
    let mut s = format!(
        "eval: {} rows, {} answered\nnext-move  n {}: parsed {}, legal {}, top1 {}",
        r["rows"],
        r["answered"],
        nm["n"],
        pct(&nm["parsed"]),
        pct(&nm["legal"]),
        pct(&nm["top1"])
    );
    if nm["labelled"].as_u64().unwrap_or(0) > 0 {
        s += &format!(", engine_top1 {}, engine_top5 {}", pct(&nm["engine_top1"]), pct(&nm["engine_top5"]));
    }
    s += &format!(
        "\ntranscribe n {}: parsed {}, exact {}, point_accuracy {}\ntactics    n {}: parsed {}, accuracy {}",
        tr["n"],
        pct(&tr["parsed"]),
        pct(&tr["exact"]),
        pct(&tr["point_accuracy"]),
        ta["n"],
        pct(&ta["parsed"]),
        pct(&ta["accuracy"])
    );
    s
}
