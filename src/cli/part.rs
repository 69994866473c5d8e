//! `kibo part <step>`: one step of the map/reduce form (`stages::part`), run by the Spark
//! job (docs/distributed.md); each step reads and writes the work folder.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};

use super::args::RunArgs;
use super::exit::Exit;
use super::label::LabelArgs;
use super::resolve::{check_inputs, pool, resolve_run, Resolved};
use crate::error::setup;
use crate::progress::Progress;
use crate::stages::part as p;

/// The steps of `kibo part` (`stages::part`): the Spark job runs them; each reads and
/// writes the work folder.
#[derive(Subcommand, Debug)]
pub(super) enum PartCmd {
    /// Split the inputs into parts of about equal bytes: WORK/plan.json (also printed).
    Plan(PartArgs),
    /// The filter stage on one part's inputs: WORK/part-K/.
    Filter(PartArgs),
    /// Pass 2 (position keys) on one part, without the duplicate games in --dups.
    Keys(PartArgs),
    /// Pass 4 (samples) on one part, keeping the rows in --kept.
    Write(PartArgs),
    /// Assemble the output folder from the parts (tables, report, manifest, card).
    Finish(PartArgs),
    /// `kibo label`'s chunks K, K + PARTS, … into OUT/.tmp-label-chunks/ (a later
    /// `kibo label` with the same flags installs them all).
    Label(PartLabelArgs),
}

#[derive(Args, Debug)]
pub(super) struct PartLabelArgs {
    #[command(flatten)]
    pub(super) label: LabelArgs,
    /// This part (0-based).
    #[arg(long)]
    part: usize,
    /// How many parts.
    #[arg(long)]
    parts: usize,
}

#[derive(Args, Debug)]
pub(super) struct PartArgs {
    #[command(flatten)]
    run: RunArgs,
    /// Work folder shared by the steps (on a cluster: a shared filesystem).
    #[arg(long)]
    work: PathBuf,
    /// Number of parts (plan).
    #[arg(long, default_value_t = 1)]
    parts: usize,
    /// The part (filter, keys, write).
    #[arg(long, default_value_t = 0)]
    part: u32,
    /// This part's duplicate games: Parquet file or folder of (row, first).
    #[arg(long)]
    dups: Option<PathBuf>,
    /// This part's kept rows: Parquet file or folder of (srow, key, count, dist_moves, dist_counts).
    #[arg(long)]
    kept: Option<PathBuf>,
    /// The Spark job's figures (JSON file) for report.json (finish).
    #[arg(long)]
    spark: Option<PathBuf>,
}

/// What every step but `label` starts from: the settings, the part's folder, a silent
/// progress counter and the worker threads.
struct Step {
    a: PartArgs,
    r: Resolved,
    dir: PathBuf,
    progress: Progress,
    pool: rayon::ThreadPool,
}

impl Step {
    /// The settings of step `name` resolved (a setup error names the flag or file).
    fn open(name: &str, a: PartArgs) -> anyhow::Result<Step> {
        let r = resolve_run(&a.run)?;
        let dir = p::part_dir(&a.work, a.part);
        let progress = Progress::new(name, "games", None, true);
        let pool = pool(r.cfg.pipeline.threads)?;
        Ok(Step { a, r, dir, progress, pool })
    }

    /// WORK/plan.json, written by `kibo part plan`.
    fn load_plan(&self) -> anyhow::Result<p::Plan> {
        let f = self.a.work.join("plan.json");
        let bytes = match std::fs::read(&f) {
            Ok(b) => b,
            Err(e) => return setup(format!("{}: {e} (run `kibo part plan` first)", f.display())),
        };
        serde_json::from_slice(&bytes).with_context(|| format!("reading {}", f.display()))
    }

    /// `--dups`, or a path that does not exist (no duplicate games).
    fn dups(&self) -> PathBuf {
        self.a.dups.clone().unwrap_or_else(none)
    }
}

/// The path that stands for "no file" (`--dups`, `--kept` left out).
fn none() -> PathBuf {
    PathBuf::from("/nonexistent/kibo-none")
}

/// `kibo part`: each step's handler.
pub(super) fn exec(c: PartCmd) -> anyhow::Result<i32> {
    match c {
        PartCmd::Plan(a) => plan(Step::open("plan", a)?),
        PartCmd::Filter(a) => filter(Step::open("filter", a)?),
        PartCmd::Keys(a) => keys(Step::open("keys", a)?),
        PartCmd::Write(a) => write(Step::open("write", a)?),
        PartCmd::Finish(a) => finish(Step::open("finish", a)?),
        PartCmd::Label(a) => super::label::exec_part(a.label, Some((a.part, a.parts))),
    }
}

/// `kibo part plan`: WORK/plan.json, also printed.
fn plan(s: Step) -> anyhow::Result<i32> {
    check_inputs(&s.r, &s.a.work)?;
    let plan = p::plan(&s.r.cfg, s.a.parts);
    let text = serde_json::to_string_pretty(&plan)? + "\n";
    crate::storage::write_atomic(&s.a.work, "plan.json", text.as_bytes())?;
    print!("{text}");
    Ok(Exit::Ok as i32)
}

/// `kibo part filter`: the filter stage on the part's inputs; 1 when some could not be read.
fn filter(s: Step) -> anyhow::Result<i32> {
    let plan = s.load_plan()?;
    let Some(range) = plan.parts.get(s.a.part as usize) else {
        return setup(format!("part {} is not in the plan ({} parts)", s.a.part, plan.parts.len()));
    };
    let rep = s.pool.install(|| p::filter_part(&s.r.cfg, s.r.pipeline_file.as_deref(), range, &s.dir, &s.progress))?;
    if rep.had_unreadable() {
        return Ok(Exit::SomeUnreadable as i32);
    }
    Ok(Exit::Ok as i32)
}

/// `kibo part keys`: pass 2 on the part.
fn keys(s: Step) -> anyhow::Result<i32> {
    let dups = s.dups();
    s.pool.install(|| p::keys_part(&s.r.cfg, s.a.part, &s.dir, &dups, &s.progress))?;
    Ok(Exit::Ok as i32)
}

/// `kibo part write`: pass 4 on the part.
fn write(s: Step) -> anyhow::Result<i32> {
    let (dups, kept) = (s.dups(), s.a.kept.clone().unwrap_or_else(none));
    s.pool.install(|| p::write_part(&s.r.cfg, &s.dir, &dups, &kept, &s.progress))?;
    Ok(Exit::Ok as i32)
}

/// `kibo part finish`: the output folder assembled from the parts.
fn finish(s: Step) -> anyhow::Result<i32> {
    let spark: serde_json::Value = match &s.a.spark {
        Some(f) => serde_json::from_slice(&std::fs::read(f).with_context(|| format!("reading {}", f.display()))?)
            .with_context(|| format!("reading {}", f.display()))?,
        None => serde_json::Value::Null,
    };
    let t0 = std::time::Instant::now();
    let report = p::finish(&s.r.cfg, s.r.pipeline_file.as_deref(), &s.a.work, &s.r.out, &s.load_plan()?, &spark)?;
    super::split::print_split(&report, t0);
    if !report.accounting.balanced {
        anyhow::bail!("part finish: the sample counts do not add up (report.json split.accounting)");
    }
    Ok(Exit::Ok as i32)
}
