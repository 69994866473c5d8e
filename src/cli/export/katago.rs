//! `kibo export katago`: KataGo's training npz files (docs/planes.md).

use clap::{Args, ValueEnum};

use crate::cli::args::ExportArgs;

use crate::cli::exit::Exit;
use crate::cli::resolve::{pool, resolve_with};
use crate::error::setup;

#[derive(Args, Debug)]
pub(in crate::cli) struct KatagoArgs {
    /// The output folder of `kibo run` (games and samples tables), the data folder to
    /// write (DIR/train, DIR/val, DIR/train.json); the memory budget defaults to 1024 MiB.
    #[command(flatten)]
    export: ExportArgs,
    /// Policy target: `dist` (the corpus's moves from the position, the default),
    /// `played` (the move played) or `engine` (KataGo's raw policy from `kibo label
    /// --policy`; only the labelled rows are written).
    #[arg(long, value_enum, default_value = "dist")]
    policy: Policy,
    /// Shuffle seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Also write metadataInputNC (ranks, date, source).
    #[arg(long)]
    metadata: bool,
    /// Rows per npz file.
    #[arg(long, default_value_t = 25_000)]
    rows_per_file: usize,
}

/// The policy target of `--policy` (the options' `played_policy` and `engine_policy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Policy {
    Dist,
    Played,
    Engine,
}

/// `kibo export katago`: needs the games and samples tables, and with `--policy engine`
/// the labels table.
pub(super) fn exec(a: KatagoArgs) -> anyhow::Result<i32> {
    let r = resolve_with(&a.export.common, &["games", "samples"])?;
    if a.policy == Policy::Engine && !r.out.join("labels").is_dir() {
        return setup(format!(
            "--policy engine needs KataGo's labels: {} has no labels table (run `kibo label --policy` first)",
            r.out.display()
        ));
    }
    let memory_mb = match a.export.common.memory_mb {
        Some(_) => (r.cfg.memory().total >> 20) as u64,
        None => 1024,
    };
    let opt = crate::stages::export::katago::KatagoOptions {
        to: a.export.to.clone(),
        played_policy: a.policy == Policy::Played,
        engine_policy: a.policy == Policy::Engine,
        seed: a.seed,
        metadata: a.metadata,
        rows_per_file: a.rows_per_file,
        memory_mb,
    };
    let t0 = std::time::Instant::now();
    let rep = pool(r.cfg.pipeline.threads)?.install(|| crate::stages::export::katago::run(&r.out, &opt))?;
    eprintln!(
        "export katago: {} train rows in {} files, {} val rows in {} files, {} counted games, {:.1} s",
        rep.rows[0],
        rep.files[0],
        rep.rows[1],
        rep.files[1],
        rep.counted_games,
        t0.elapsed().as_secs_f64()
    );
    Ok(Exit::Ok as i32)
}
