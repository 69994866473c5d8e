//! `kibo eval`: a model's answers to an evaluation set scored (docs/eval.md).

use std::path::PathBuf;

use clap::Args;

use super::exit::Exit;
use crate::error::SetupError;

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
    let r = eval::run(&opt).map_err(|e| match e.downcast::<eval::Refused>() {
        Ok(r) => SetupError(r.0).into(),
        Err(e) => e,
    })?;
    println!("{}", eval::summary(&r));
    Ok(Exit::Ok as i32)
}
