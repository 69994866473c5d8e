//! `kibo score FILE`: the count of one game, as the filter counts it.

use std::path::PathBuf;

use clap::Args;

use super::args::{KatagoJudgeArgs, ScoreCheck};
use super::exit::Exit;
use crate::error::SetupError;

#[derive(Args, Debug)]
pub(super) struct ScoreArgs {
    /// SGF file.
    file: PathBuf,
    /// Game index in the file (0-based).
    #[arg(long, default_value_t = 0)]
    game: usize,
    /// Also draw the marked position as PNG.
    #[arg(long)]
    png: Option<PathBuf>,
    /// Also draw the marked position as SVG.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// Print the report as one JSON object (count, marked position, every chain with
    /// its status and evidence).
    #[arg(long)]
    json: bool,
    /// How to count: full (default), rules, katago (KataGo's ownership as the evidence
    /// when kibo's judge leaves the game undecided or counts another winner), off.
    #[arg(long, value_enum)]
    score_check: Option<ScoreCheck>,
    #[command(flatten)]
    katago: KatagoJudgeArgs,
}

/// `kibo score`: an unreadable file or game is a setup error (exit 2); a judgement that
/// does not match its board is a bug in kibo (exit 3).
pub(super) fn exec(a: ScoreArgs) -> anyhow::Result<i32> {
    let pictures = crate::stages::score::Pictures { png: a.png.as_deref(), svg: a.svg.as_deref(), json: a.json };
    let mut cfg = crate::config::FilterConfig::default();
    a.katago.apply(a.score_check, &mut cfg)?;
    let text = crate::stages::score::score_report(&a.file, a.game, pictures, &cfg).map_err(|e| {
        if e.chain().any(|c| c.is::<crate::scoring::JudgementMismatch>()) {
            e
        } else {
            SetupError(format!("{e:#}")).into()
        }
    })?;
    print!("{text}");
    Ok(Exit::Ok as i32)
}
