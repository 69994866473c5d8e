//! `kibo sample`: random samples (or VLM rows) drawn for the eye check, in DIR/verify/.

use std::path::PathBuf;

use clap::Args;

use super::args::{OutArgs, Split};
use super::exit::Exit;
use super::resolve::resolve;
use crate::error::setup;

#[derive(Args, Debug)]
pub(super) struct SampleArgs {
    #[command(flatten)]
    common: OutArgs,
    /// Number of samples (default: pipeline.verify_samples, 20).
    #[arg(long)]
    n: Option<usize>,
    /// Seed of the draw (default: pipeline.seed).
    #[arg(long)]
    seed: Option<u64>,
    /// Only samples of this split.
    #[arg(long)]
    split: Option<Split>,
    /// Only moves with this tactical tag (e.g. ladder_capture).
    #[arg(long)]
    tag: Option<String>,
    /// Lowest rank of the side to move (e.g. 1d, 5k).
    #[arg(long)]
    min_rank: Option<crate::sgf::Rank>,
    /// Highest rank of the side to move.
    #[arg(long)]
    max_rank: Option<crate::sgf::Rank>,
    /// Instead of the samples: rows of the VLM set in this folder (`kibo export vlm
    /// --to DEST`), exactly as the model sees them, in DIR/verify/vlm/.
    #[arg(long, value_name = "DEST")]
    vlm: Option<PathBuf>,
}

/// `kibo sample`: needs the samples table (or, with `--vlm`, an exported VLM set).
pub(super) fn exec(a: SampleArgs) -> anyhow::Result<i32> {
    let r = resolve(&a.common, &[], None)?;
    if let Some(dest) = &a.vlm {
        if a.split.is_some() || a.tag.is_some() || a.min_rank.is_some() || a.max_rank.is_some() {
            return setup("--vlm draws from the exported rows: --split, --tag and the ranks do not apply");
        }
        let n = a.n.unwrap_or(r.cfg.pipeline.verify_samples);
        let seed = a.seed.unwrap_or(r.cfg.pipeline.seed);
        let k = crate::stages::sample::run_vlm(&r.out, dest, n, seed)?;
        eprintln!("sample: {k} rows of {} written to {}", dest.display(), r.out.join("verify/vlm").display());
        return Ok(Exit::Ok as i32);
    }
    if !r.out.join("samples").is_dir() {
        return setup(format!("{} has no samples table: run `kibo split` (or `kibo run`) first", r.out.display()));
    }
    let opt = crate::stages::sample::SampleOptions {
        n: a.n.unwrap_or(r.cfg.pipeline.verify_samples),
        seed: a.seed.unwrap_or(r.cfg.pipeline.seed),
        split: a.split.map(|s| s.as_str().to_string()),
        tag: a.tag.clone(),
        min_rank: a.min_rank.as_ref().map(|r| r.numeric),
        max_rank: a.max_rank.as_ref().map(|r| r.numeric),
    };
    let n = crate::stages::sample::run(&r.out, &opt)?;
    eprintln!("sample: {n} samples written to {}", r.out.join("verify").display());
    if n < opt.n {
        eprintln!("sample: only {n} rows matched the filters (asked for {})", opt.n);
    }
    Ok(Exit::Ok as i32)
}
