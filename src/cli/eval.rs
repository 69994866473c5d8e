//! `kibo eval`: a model's answers to an evaluation set scored (docs/eval.md).

use std::path::PathBuf;

use clap::Args;

use super::exit::Exit;

#[derive(Args, Debug)]
pub(super) struct EvalArgs {
    /// The evaluation set (DEST of `kibo export vlm --splits test`).
    #[arg(long)]
    set: PathBuf,
    /// The answers: JSONL of {"id", "answer"}, LLaMA-Factory's generated_predictions.jsonl
    /// or ms-swift's inference result.
    #[arg(long)]
    predictions: PathBuf,
    /// Write the JSON report here.
    #[arg(long)]
    report: Option<PathBuf>,
    /// Write the HTML report here.
    #[arg(long)]
    html: Option<PathBuf>,
}

/// `kibo eval`: the set and the predictions checked (exit 2) before anything is written.
pub(super) fn exec(a: EvalArgs) -> anyhow::Result<i32> {
    use crate::stages::eval;
    let opt = eval::EvalOptions { set: a.set, predictions: a.predictions, report: a.report, html: a.html };
    // A set or predictions file that cannot be scored is a SetupError (exit 2).
    let r = eval::run(&opt)?;
    println!("{}", eval::summary(&r));
    Ok(Exit::Ok as i32)
}
