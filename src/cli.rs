/*!
Command line: clap arguments → resolved settings → stage runs.

Exit codes (DESIGN.md): 0 all read; 1 finished, but some inputs could not be read
(each reported in `rejects` as `unreadable_file`); 2 usage or setup error, nothing written.
*/

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{Args, Parser, Subcommand};

use crate::config::{Config, MemoryMb, ScoreCheckMode, Source, UNKNOWN_LICENCE};

/// kibo: Go game archives → clean, deduplicated Parquet training samples.
#[derive(Parser, Debug)]
#[command(name = "kibo", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Read archives into the games and rejects tables.
    Filter(RunArgs),
    /// Replay the games table into per-move samples (Parquet shards).
    Split(OutArgs),
    /// filter, then split.
    Run(RunArgs),
    /// Draw random samples from the shards and write the eye-check export to DIR/verify/.
    Sample(SampleArgs),
    /// Print the tactical tags of every move of one game.
    Tags(TagsArgs),
    /// Count one game: dead stones and territory marked, the count, the recorded result.
    Score(ScoreArgs),
    /// Summary tables of the games, rejects and samples (Polars); also DIR/stats/*.csv and stats.json.
    Stats(OutArgs),
    /// Write the games of one record file (SGF, Tygem .gib, WBaduk .ngf, IGS .ugf/.ugi) as clean SGF.
    Convert(ConvertArgs),
    /// One step of the map/reduce form, run by the Spark job (docs/distributed.md).
    #[command(subcommand)]
    Part(PartCmd),
    /// Training data for other tools' trainers, from the sample shards (train and val).
    #[command(subcommand)]
    Export(ExportCmd),
    /// KataGo's reading of drawn positions (the rows `kibo export vlm` draws with the same
    /// seed, limit and tags) as the table DIR/labels/ (docs/labels.md).
    Label(LabelArgs),
    /// Score a model's answers to an evaluation set (`kibo export vlm --split test`):
    /// every rate with its 95% interval, the coordinate errors named (docs/eval.md).
    Eval {
        /// The evaluation set (DEST of `kibo export vlm --split test`).
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
    },
}

/// The seeded row draw (`stages::draw`) that `kibo export vlm` and `kibo label` share.
#[derive(Args, Debug)]
struct DrawArgs {
    /// Rows to draw, a seeded draw spread over games, move numbers and splits (0: every
    /// row of the splits) [default: 100000; `kibo export vlm --split test`: 10000].
    /// `kibo label` with the same limit, seed and tags draws the rows `kibo export vlm` draws.
    #[arg(long)]
    limit: Option<u64>,
    /// Seed of the draw (and of the VLM rows' tasks and symmetries; default: pipeline.seed).
    #[arg(long)]
    seed: Option<u64>,
    /// Keep only positions whose move has this tactical tag (repeatable: any of them).
    #[arg(long = "tag")]
    tags: Vec<String>,
}

#[derive(Args, Debug)]
struct LabelArgs {
    #[command(flatten)]
    common: OutArgs,
    #[command(flatten)]
    draw: DrawArgs,
    /// The splits to draw from, comma-separated (default train,val: the rows a VLM export
    /// holds; add test for an evaluation set).
    #[arg(long, value_delimiter = ',', default_value = "train,val")]
    splits: Vec<String>,
    /// Also write KataGo's raw policy (362 values a row).
    #[arg(long)]
    policy: bool,
    /// Also write KataGo's ownership (361 values a row, Black's view, ×100 as i8).
    #[arg(long)]
    ownership: bool,
    #[command(flatten)]
    katago: KatagoJudgeArgs,
}

/// The formats of `kibo export` (`stages::export`).
#[derive(Subcommand, Debug)]
enum ExportCmd {
    /// Leela Zero v1 training chunks (gzipped text, 19 lines per position) in DIR/train/
    /// and DIR/val/, each chunk with a .rows.tsv naming its records' games and moves.
    Leela(LeelaArgs),
    /// KataGo training npz files (katago-v7 inputs and targets) in the layout of
    /// `train.py -datadir DIR` (docs/planes.md).
    Katago(KatagoArgs),
    /// A vision-language training set: board pictures made for a model, prompts and
    /// answers, as Parquet shards (datasets, LLaMA-Factory, ms-swift, TRL) or the Qwen-VL
    /// recipe's JSONL and PNGs (docs/vlm.md).
    Vlm(VlmArgs),
}

/// What every export takes: the output folder to read (with the pipeline, threads,
/// memory budget and quiet flag of every command) and the folder to write.
#[derive(Args, Debug)]
struct ExportArgs {
    #[command(flatten)]
    common: OutArgs,
    /// Folder to write.
    #[arg(long)]
    to: PathBuf,
}

#[derive(Args, Debug)]
struct LeelaArgs {
    #[command(flatten)]
    export: ExportArgs,
    /// Policy target: dist (the corpus's moves from the position) or played (the move alone).
    #[arg(long, default_value = "dist")]
    policy: crate::stages::export::Policy,
    /// Positions per chunk file.
    #[arg(long, default_value_t = 4096)]
    chunk_positions: usize,
}

#[derive(Args, Debug)]
struct KatagoArgs {
    /// The output folder of `kibo run` (games and samples tables), the data folder to
    /// write (DIR/train, DIR/val, DIR/train.json); the memory budget defaults to 1024 MiB.
    #[command(flatten)]
    export: ExportArgs,
    /// Policy target: `dist` (the corpus's moves from the position, the default),
    /// `played` (the move played) or `engine` (KataGo's raw policy from `kibo label
    /// --policy`; only the labelled rows are written).
    #[arg(long, default_value = "dist", value_parser = ["dist", "played", "engine"])]
    policy: String,
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

#[derive(Args, Debug)]
struct VlmArgs {
    #[command(flatten)]
    export: ExportArgs,
    /// parquet (shards with PNG bytes and a dataset card) or qwen (the Qwen-VL recipe's
    /// JSONL with PNG files).
    #[arg(long, default_value = "parquet")]
    layout: crate::stages::export::vlm::Layout,
    #[command(flatten)]
    draw: DrawArgs,
    /// Pixels between two grid lines: 32 (672 px pictures, Qwen3-VL's 32-px tokens) or
    /// 28 (588 px, Qwen2/2.5-VL); any even number from 26 to 64.
    #[arg(long, default_value_t = 32)]
    cell_px: u32,
    /// The next-move answer: human (the move played, the default) or engine (KataGo's
    /// move from `kibo label`; the move played stays in `human_move`). `gtp` and `sgf`
    /// are kept as the human answer in that notation (as --notation).
    #[arg(long, default_value = "human", value_parser = ["human", "engine", "gtp", "sgf"])]
    answer: String,
    /// Answers and prompts in gtp (Q16) or sgf (pd) notation.
    #[arg(long)]
    notation: Option<crate::stages::export::vlm::Notation>,
    /// Tasks and their shares, e.g. next-move=0.8,transcribe=0.1,tactics=0.1,judge=0.1
    /// [default: next-move=1; next-move=0.2,transcribe=0.2,tactics=0.6 with --split test].
    #[arg(long)]
    mix: Option<String>,
    /// 1 (the position as played) or 8 (one of the eight board symmetries a row, applied
    /// to the picture, the marks and the answer together).
    #[arg(long, default_value_t = 1)]
    symmetries: u8,
    /// Earlier moves the prompt lists (`{last_moves}`, at most 8).
    #[arg(long, default_value_t = 0)]
    last_moves: usize,
    /// No ring on the previous move's stone.
    #[arg(long)]
    no_last_move_marker: bool,
    /// No square on the ko point.
    #[arg(long)]
    no_ko_marker: bool,
    /// Leave `<image>` out of `messages` (TRL puts the image before the first user turn).
    #[arg(long)]
    no_image_tag: bool,
    /// A system turn before each user turn (overrides `export.vlm.system`).
    #[arg(long)]
    system: Option<String>,
    /// Rows per Parquet file.
    #[arg(long, default_value_t = 10_000)]
    rows_per_file: usize,
    /// train,val (the training set) or test (an evaluation set for `kibo eval`; its
    /// default draw: --limit 10000 and --mix next-move=0.2,transcribe=0.2,tactics=0.6).
    #[arg(long, default_value = "train,val")]
    split: String,
}

/// The steps of `kibo part` (`stages::part`): the Spark job runs them; each reads and
/// writes the work folder.
#[derive(Subcommand, Debug)]
enum PartCmd {
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
struct PartLabelArgs {
    #[command(flatten)]
    label: LabelArgs,
    /// This part (0-based).
    #[arg(long)]
    part: usize,
    /// How many parts.
    #[arg(long)]
    parts: usize,
}

#[derive(Args, Debug)]
struct PartArgs {
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

#[derive(Args, Debug)]
struct ConvertArgs {
    /// The record file, or a folder: every record file under it (.sgf .gib .ngf .ugf .ugi).
    file: PathBuf,
    /// Output format (only `sgf`).
    #[arg(long, default_value = "sgf")]
    to: String,
    /// Folder for the written files (default: stdout).
    #[arg(long)]
    out: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct TagsArgs {
    /// SGF file.
    file: PathBuf,
    /// Game index in the file (0-based).
    #[arg(long, default_value_t = 0)]
    game: usize,
}

#[derive(Args, Debug)]
struct ScoreArgs {
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
    score_check: Option<ScoreCheckMode>,
    #[command(flatten)]
    katago: KatagoJudgeArgs,
}

#[derive(Args, Debug)]
struct SampleArgs {
    #[command(flatten)]
    common: OutArgs,
    /// Number of samples (default: pipeline.verify_samples, 20).
    #[arg(long)]
    n: Option<usize>,
    /// Seed of the draw (default: pipeline.seed).
    #[arg(long)]
    seed: Option<u64>,
    /// Only samples of this split (train, val, test).
    #[arg(long)]
    split: Option<String>,
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

#[derive(Args, Debug)]
struct OutArgs {
    /// Output folder (overrides the pipeline's `out`).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Pipeline TOML file.
    #[arg(long)]
    pipeline: Option<PathBuf>,
    /// Worker threads (0 = all cores; overrides the pipeline).
    #[arg(long)]
    threads: Option<usize>,
    /// Memory budget: MiB, or "auto" (a quarter of the machine's memory or cgroup limit,
    /// at least 256 MiB); overrides `pipeline.memory_mb` (default "auto").
    #[arg(long)]
    memory_mb: Option<MemoryMb>,
    /// Folder for spill files (overrides `pipeline.tmp_dir`; default: the output folder).
    #[arg(long)]
    tmp_dir: Option<PathBuf>,
    /// No progress display.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Args, Debug)]
struct RunArgs {
    /// Input file or folder (repeatable); replaces the pipeline's sources.
    #[arg(long)]
    input: Vec<PathBuf>,
    /// Licence of the --input sources (SPDX id, e.g. CC-BY-4.0), recorded in the manifest
    /// and the dataset card; without it they are recorded as "unknown".
    #[arg(long, value_name = "SPDX")]
    licence: Option<String>,
    /// How games that ended by counting are counted: full (with playouts), rules (no
    /// playouts), katago (full, then KataGo's ownership for the games left undecided or
    /// winner_differs), off; overrides `filter.score_check` (default full).
    #[arg(long, value_enum)]
    score_check: Option<ScoreCheckMode>,
    #[command(flatten)]
    katago: KatagoJudgeArgs,
    #[command(flatten)]
    common: OutArgs,
}

/// `[filter.katago]` (`--score-check katago`) or `[label.katago]` (`kibo label`) as flags.
#[derive(Args, Debug, Default)]
struct KatagoJudgeArgs {
    /// The KataGo binary (overrides `[filter.katago]` / `[label.katago]` binary; default:
    /// `make katago`'s).
    #[arg(long, value_name = "PATH")]
    katago_binary: Option<PathBuf>,
    /// The KataGo network (overrides the table's `model`).
    #[arg(long, value_name = "PATH")]
    katago_model: Option<PathBuf>,
    /// KataGo's analysis config (overrides the table's `config`).
    #[arg(long, value_name = "PATH")]
    katago_config: Option<PathBuf>,
    /// Visits per query (overrides the table's `visits`, default 1).
    #[arg(long, value_name = "N")]
    katago_visits: Option<u32>,
    /// Positions KataGo analyses at once (overrides the table's `threads`).
    #[arg(long, value_name = "N")]
    katago_threads: Option<u32>,
    /// Search threads per position (overrides the table's `search_threads`; `kibo label`
    /// uses one past one visit).
    #[arg(long, value_name = "N")]
    katago_search_threads: Option<u32>,
    /// Visits of the judge's second reading of its flips (overrides
    /// `[filter.katago] recheck_visits`, default 8; 0: none).
    #[arg(long, value_name = "N")]
    katago_recheck_visits: Option<u32>,
}

impl KatagoJudgeArgs {
    /// Applies the flags to a `[*.katago]` table.
    fn apply_to(&self, k: &mut crate::config::KatagoConfig) {
        for (flag, slot) in [
            (&self.katago_binary, &mut k.binary),
            (&self.katago_model, &mut k.model),
            (&self.katago_config, &mut k.config),
        ] {
            if flag.is_some() {
                slot.clone_from(flag);
            }
        }
        k.visits = self.katago_visits.unwrap_or(k.visits);
        k.threads = self.katago_threads.or(k.threads);
        k.search_threads = self.katago_search_threads.or(k.search_threads);
        k.recheck_visits = self.katago_recheck_visits.or(k.recheck_visits);
    }

    /// Applies the flags and `--score-check` to `cfg`; with `katago`, checks that the
    /// binary, model and config exist (a setup error, before anything is written).
    fn apply(&self, score_check: Option<ScoreCheckMode>, cfg: &mut crate::config::FilterConfig) -> anyhow::Result<()> {
        if let Some(m) = score_check {
            cfg.score_check = m;
        }
        self.apply_to(&mut cfg.katago);
        if cfg.score_check == ScoreCheckMode::Katago {
            cfg.katago.settings().check().map_err(|e| SetupError(format!("{e:#}")))?;
        }
        Ok(())
    }
}

/// Settings after merging the pipeline file and flags.
pub struct Resolved {
    /// Merged config.
    pub cfg: Config,
    /// Output folder.
    pub out: PathBuf,
    /// Pipeline file used, if any.
    pub pipeline_file: Option<PathBuf>,
    /// Progress off.
    pub quiet: bool,
    /// The sources are the `--input` paths (not the pipeline file's `[[sources]]`).
    pub from_inputs: bool,
}

/// The exit codes (README "Command line"; scripts depend on them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum Exit {
    /// Every input read, every stage finished.
    Ok = 0,
    /// Finished, but some inputs could not be read (each a `rejects` row, `unreadable_file`).
    SomeUnreadable = 1,
    /// Usage or setup error, found before anything was written.
    Setup = 2,
    /// A stage failed while running (a full disk, a damaged table): the error names the
    /// file; that stage's outputs were not replaced and no temporaries are left.
    Failed = 3,
}

impl Exit {
    /// The code of an error: [`Exit::Setup`] for a [`SetupError`], else [`Exit::Failed`].
    pub fn of_error(e: &anyhow::Error) -> Exit {
        if crate::error::is_setup(e) {
            Exit::Setup
        } else {
            Exit::Failed
        }
    }
}

use crate::error::setup;
pub use crate::error::SetupError;

/// Merges the pipeline file (or the defaults) with the flags; `inputs` (with their
/// `licence`) replace the file's sources when not empty.
fn resolve(args: &OutArgs, inputs: &[PathBuf], licence: Option<&str>) -> anyhow::Result<Resolved> {
    let mut cfg = match &args.pipeline {
        Some(p) => Config::load(p).map_err(|e| SetupError(e.to_string()))?,
        None => Config::default(),
    };
    if let Some(t) = args.threads {
        cfg.pipeline.threads = t;
    }
    if let Some(m) = args.memory_mb {
        cfg.pipeline.memory_mb = m;
    }
    if let Some(d) = &args.tmp_dir {
        cfg.pipeline.tmp_dir = Some(d.clone());
    }
    let origin = args.pipeline.clone().unwrap_or_else(|| PathBuf::from("command line"));
    cfg.validate(&origin).map_err(|e| SetupError(e.to_string()))?;
    if let Some(l) = licence {
        if inputs.is_empty() {
            return setup("--licence applies to the --input sources; a pipeline file's [[sources]] declare their own");
        }
        if l.trim().is_empty() {
            return setup("--licence is empty: give an SPDX id (e.g. --licence CC-BY-4.0)");
        }
    }
    let from_inputs = !inputs.is_empty();
    if from_inputs {
        let n = inputs.len();
        cfg.sources = inputs
            .iter()
            .enumerate()
            .map(|(i, p)| Source {
                name: if n == 1 { "input".to_string() } else { format!("input{}", i + 1) },
                path: p.clone(),
                origin: Some("command line".into()),
                licence: licence.map(|l| l.trim().to_string()),
            })
            .collect();
    }
    let out = match args.out.clone().or_else(|| cfg.pipeline.out.clone()) {
        Some(o) => o,
        None => return setup("no output folder: pass --out DIR or set pipeline.out"),
    };
    Ok(Resolved { cfg, out, pipeline_file: args.pipeline.clone(), quiet: args.quiet, from_inputs })
}

/// Checks that every source exists and, for a pipeline file's sources under
/// `pipeline.require_licence`, declares a licence; then prepares the folder `dir` that
/// the command writes, and warns (one line) about the sources recorded with an unknown
/// licence.
fn check_inputs(r: &Resolved, dir: &Path) -> anyhow::Result<()> {
    if r.cfg.sources.is_empty() {
        return setup("no inputs: pass --input PATH or list [[sources]] in the pipeline");
    }
    let mut unlicensed = Vec::new();
    for s in &r.cfg.sources {
        if let Err(e) = std::fs::metadata(&s.path) {
            return setup(format!("input {}: {e}", s.path.display()));
        }
        if s.declared_licence().is_none() {
            if r.cfg.pipeline.require_licence && !r.from_inputs {
                return setup(format!(
                    "source {:?} ({}) declares no licence and pipeline.require_licence is set",
                    s.name,
                    s.path.display()
                ));
            }
            unlicensed.push(format!("{:?} ({})", s.name, s.path.display()));
        }
    }
    prepare_out(dir)?;
    if !unlicensed.is_empty() {
        let how = if r.from_inputs {
            "pass --licence SPDX (e.g. --licence CC-BY-4.0), or list the source with its licence under [[sources]] in a pipeline file"
        } else {
            "add licence = \"SPDX\" to the [[sources]] entry in the pipeline file"
        };
        let (noun, verb) = if unlicensed.len() == 1 { ("source", "declares") } else { ("sources", "declare") };
        eprintln!(
            "kibo: warning: {noun} {} {verb} no licence: recorded as {UNKNOWN_LICENCE:?} in manifest.json and the \
             dataset card; to declare one, {how}",
            unlicensed.join(", ")
        );
    }
    Ok(())
}

fn prepare_out(out: &Path) -> anyhow::Result<()> {
    if let Err(e) = std::fs::create_dir_all(out) {
        return setup(format!("output folder {}: {e}", out.display()));
    }
    let probe = out.join(".tmp-write-probe");
    if let Err(e) = std::fs::write(&probe, b"") {
        return setup(format!("output folder {} is not writable: {e}", out.display()));
    }
    let _ = std::fs::remove_file(probe);
    Ok(())
}

fn pool(threads: usize) -> anyhow::Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new().num_threads(threads).stack_size(8 << 20).build().context("starting worker threads")
}

/// `kibo convert`: 0 every game written, 1 some games (or files of a folder) could not be
/// read (named on stderr), 2 a usage error or no game at all.
fn convert(a: &ConvertArgs) -> anyhow::Result<i32> {
    if a.to != "sgf" {
        return setup(format!("--to must be sgf, not {:?}", a.to));
    }
    if !a.file.exists() {
        return setup(format!("{}: no such file or folder", a.file.display()));
    }
    let results = if a.file.is_dir() {
        crate::stages::convert::convert_folder(&a.file, a.out.as_deref()).map_err(|e| SetupError(format!("{e:#}")))?
    } else {
        vec![(a.file.clone(), crate::stages::convert::convert(&a.file, a.out.as_deref()))]
    };
    if results.is_empty() {
        return setup(format!("{}: no record files (.sgf .gib .ngf .ugf .ugi) in this folder", a.file.display()));
    }
    let (mut games, mut failed) = (0usize, false);
    for (file, done) in &results {
        let done = match done {
            Ok(d) => d,
            Err(e) => {
                eprintln!("convert: {e:#}");
                failed = true;
                continue;
            }
        };
        for (i, e) in &done.failed {
            eprintln!("convert: {} game {i}: {e}", file.display());
            failed = true;
        }
        if done.written.is_empty() && done.text.is_empty() {
            eprintln!("convert: {}: no game could be read", file.display());
            failed = true;
        }
        games += done.games;
        print!("{}", done.text);
        for p in &done.written {
            eprintln!("convert: wrote {}", p.display());
        }
    }
    if games == 0 {
        return setup(format!("{}: no game could be read", a.file.display()));
    }
    Ok(if failed { Exit::SomeUnreadable } else { Exit::Ok } as i32)
}

/// The output folder of an export, checked to hold `tables`, with its settings.
fn export_source(a: &ExportArgs, tables: &[&str]) -> anyhow::Result<Resolved> {
    let r = resolve(&a.common, &[], None)?;
    let missing: Vec<&str> = tables.iter().copied().filter(|t| !r.out.join(t).is_dir()).collect();
    if !missing.is_empty() {
        return setup(format!("{} has no {} table: run `kibo run` first", r.out.display(), missing.join(" or ")));
    }
    Ok(r)
}

/// `kibo export`: the leela chunks, the katago npz files or the VLM set from a `kibo run` folder.
fn export(c: ExportCmd) -> anyhow::Result<i32> {
    match c {
        ExportCmd::Leela(a) => {
            let r = export_source(&a.export, &["samples"])?;
            let opt =
                crate::stages::export::leela::LeelaOptions { policy: a.policy, chunk_positions: a.chunk_positions };
            for (split, n) in crate::stages::export::leela::run(&r.out, &a.export.to, &opt)? {
                eprintln!(
                    "export leela: {split}: {} positions in {} chunks ({} without a winner left out)",
                    n.positions, n.chunks, n.no_winner
                );
            }
            Ok(Exit::Ok as i32)
        }
        ExportCmd::Katago(a) => {
            let r = export_source(&a.export, &["games", "samples"])?;
            if a.policy == "engine" && !r.out.join("labels").is_dir() {
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
                played_policy: a.policy == "played",
                engine_policy: a.policy == "engine",
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
        ExportCmd::Vlm(a) => export_vlm(a),
    }
}

/// `kibo label`: the engine checked before anything is written.
fn label(a: LabelArgs) -> anyhow::Result<i32> {
    label_part(a, None)
}

/// `kibo label`, or with `part` one part of it (`kibo part label`).
fn label_part(a: LabelArgs, part: Option<(usize, usize)>) -> anyhow::Result<i32> {
    use crate::stages::label;
    let mut r = resolve(&a.common, &[], None)?;
    let missing: Vec<&str> = ["games", "samples"].into_iter().filter(|t| !r.out.join(t).is_dir()).collect();
    if !missing.is_empty() {
        return setup(format!("{} has no {} table: run `kibo run` first", r.out.display(), missing.join(" or ")));
    }
    a.katago.apply_to(&mut r.cfg.label.katago);
    if r.cfg.label.katago.recheck_visits.is_some() {
        return setup("label.katago.recheck_visits: a setting of [filter.katago] only (the judge's second reading)");
    }
    let settings = r.cfg.label.katago.settings_in("label.katago");
    let engines = r
        .cfg
        .label
        .katago
        .threads
        .map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()), |t| t.max(1) as usize);
    settings.check().map_err(|e| SetupError(format!("{e:#}")))?;
    label::split_names(&a.splits).map_err(|e| SetupError(format!("{e:#}")))?;
    let opt = label::LabelOptions {
        splits: a.splits.clone(),
        limit: a.draw.limit.unwrap_or(100_000),
        seed: a.draw.seed.unwrap_or(r.cfg.pipeline.seed),
        tags: a.draw.tags.clone(),
        policy: a.policy,
        ownership: a.ownership,
        katago: settings,
        engines,
        chunk_rows: r.cfg.label.chunk_rows.max(1),
        quiet: r.quiet,
        part,
    };
    if let Some((p, n)) = part {
        if n == 0 || p >= n {
            return setup(format!("--part {p} --parts {n}: the part must be below the number of parts"));
        }
    }
    let t0 = std::time::Instant::now();
    let rep = label::run(&r.out, &opt)?;
    if let Some((p, n)) = part {
        eprintln!(
            "part label {p}/{n}: {} positions read by KataGo, {} reused, {:.1} s",
            rep.read,
            rep.reused,
            t0.elapsed().as_secs_f64()
        );
        return Ok(Exit::Ok as i32);
    }
    let secs = t0.elapsed().as_secs_f64();
    eprintln!(
        "label: {} positions of {} candidates ({} reused, {} read by {} KataGo engine(s) at {} visits in {} queries, \
         {} as their stones alone), {:.2} positions/s read, {} files in {}, {:.1} s",
        rep.rows,
        rep.candidates,
        rep.reused,
        rep.read,
        opt.engines,
        opt.katago.visits,
        rep.queries,
        rep.sent_board,
        if rep.engine_seconds > 0.0 { rep.read as f64 / rep.engine_seconds } else { 0.0 },
        rep.chunks,
        r.out.join("labels").display(),
        secs
    );
    Ok(Exit::Ok as i32)
}

/// `kibo eval`: the set and the predictions checked (exit 2) before anything is written.
fn eval(set: PathBuf, predictions: PathBuf, report: Option<PathBuf>, html: Option<PathBuf>) -> anyhow::Result<i32> {
    use crate::stages::eval;
    let opt = eval::EvalOptions { set, predictions, report, html };
    let r = eval::run(&opt).map_err(|e| match e.downcast::<eval::Refused>() {
        Ok(r) => SetupError(r.0).into(),
        Err(e) => e,
    })?;
    println!("{}", eval::summary(&r));
    Ok(Exit::Ok as i32)
}

/// `kibo export vlm`: options checked before anything is written.
fn export_vlm(a: VlmArgs) -> anyhow::Result<i32> {
    use crate::stages::export::vlm;
    let r = export_source(&a.export, &["samples"])?;
    let mut templates = r.cfg.export.vlm.clone();
    if let Some(s) = &a.system {
        templates.system = s.clone();
    }
    let test = match a.split.as_str() {
        "train,val" => false,
        "test" => true,
        other => return setup(format!("--split {other:?}: expected train,val or test")),
    };
    // The evaluation set's documented default draw (docs/eval.md).
    let limit = a.draw.limit.unwrap_or(if test { 10_000 } else { 100_000 });
    let mix = a.mix.as_deref().unwrap_or(if test { "next-move=0.2,transcribe=0.2,tactics=0.6" } else { "next-move=1" });
    let opt = vlm::VlmOptions {
        to: a.export.to.clone(),
        layout: a.layout,
        limit,
        seed: a.draw.seed.unwrap_or(r.cfg.pipeline.seed),
        tags: a.draw.tags.clone(),
        test,
        cell_px: a.cell_px,
        notation: match (a.answer.as_str(), a.notation) {
            ("gtp" | "sgf", Some(n)) if n != a.answer.parse().map_err(SetupError)? => {
                return setup(format!("--answer {} and --notation disagree", a.answer));
            }
            ("gtp" | "sgf", _) => a.answer.parse().map_err(SetupError)?,
            (_, n) => n.unwrap_or_default(),
        },
        answer_from: if a.answer == "engine" { vlm::AnswerFrom::Engine } else { vlm::AnswerFrom::Human },
        mix: vlm::parse_mix(mix).map_err(SetupError)?,
        symmetries: a.symmetries,
        last_moves: a.last_moves,
        last_move_marker: !a.no_last_move_marker,
        ko_marker: !a.no_ko_marker,
        image_tag: !a.no_image_tag,
        templates,
        rows_per_file: a.rows_per_file,
        memory_mb: (r.cfg.memory().total >> 20) as u64,
        quiet: r.quiet,
    };
    opt.check().map_err(SetupError)?;
    if opt.needs_labels() && !r.out.join("labels").is_dir() {
        return setup(format!(
            "--answer engine and the judge task need KataGo's labels: {} has no labels table (run `kibo label --out {}` \
             with the same --limit, --seed and --tag)",
            r.out.display(),
            r.out.display()
        ));
    }
    let t0 = std::time::Instant::now();
    let rep = pool(r.cfg.pipeline.threads)?.install(|| vlm::run(&r.out, &opt))?;
    let rows = rep.rows[0] + rep.rows[1];
    let tasks: Vec<String> = vlm::Task::ALL
        .iter()
        .zip(rep.tasks)
        .filter(|(_, n)| *n > 0)
        .map(|(t, n)| format!("{} {n}", t.name()))
        .collect();
    eprintln!(
        "export vlm: {} rows ({}) of {} candidates, {}x{} px pictures of {:.1} KB on average, {} files in {}, {:.1} s",
        if test { format!("{} test", rep.rows[0]) } else { format!("{} train and {} val", rep.rows[0], rep.rows[1]) },
        tasks.join(", "),
        rep.candidates,
        rep.picture_px,
        rep.picture_px,
        if rows == 0 { 0.0 } else { rep.picture_bytes as f64 / rows as f64 / 1000.0 },
        rep.files,
        opt.to.display(),
        t0.elapsed().as_secs_f64()
    );
    Ok(Exit::Ok as i32)
}

/// Parses `std::env::args` and runs; returns the exit code.
pub fn main_with_args() -> i32 {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("kibo: error: {e:#}");
            Exit::of_error(&e) as i32
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<i32> {
    match cli.cmd {
        Cmd::Filter(a) => {
            let mut r = resolve(&a.common, &a.input, a.licence.as_deref())?;
            a.katago.apply(a.score_check, &mut r.cfg.filter)?;
            check_inputs(&r, &r.out)?;
            let code = pool(r.cfg.pipeline.threads)?.install(|| do_filter(&r))?;
            Ok(code)
        }
        Cmd::Label(a) => label(a),
        Cmd::Eval { set, predictions, report, html } => eval(set, predictions, report, html),
        Cmd::Split(a) => {
            let r = resolve(&a, &[], None)?;
            if !r.out.join("games").is_dir() {
                return setup(format!("{} has no games table: run `kibo filter` first", r.out.display()));
            }
            prepare_out(&r.out)?;
            pool(r.cfg.pipeline.threads)?.install(|| do_split(&r))?;
            Ok(Exit::Ok as i32)
        }
        Cmd::Stats(a) => {
            let r = resolve(&a, &[], None)?;
            if !r.out.join("games").is_dir() {
                return setup(format!("{} has no games table: run `kibo run` first", r.out.display()));
            }
            stats(&r.out)
        }
        Cmd::Tags(a) => {
            let text =
                crate::stages::inspect::tags_report(&a.file, a.game).map_err(|e| SetupError(format!("{e:#}")))?;
            use std::io::Write;
            let mut stdout = std::io::stdout().lock();
            if let Err(e) = stdout.write_all(text.as_bytes()) {
                if e.kind() != std::io::ErrorKind::BrokenPipe {
                    return Err(e.into());
                }
            }
            Ok(Exit::Ok as i32)
        }
        Cmd::Convert(a) => convert(&a),
        Cmd::Score(a) => {
            let pictures =
                crate::stages::score::Pictures { png: a.png.as_deref(), svg: a.svg.as_deref(), json: a.json };
            let mut cfg = crate::config::FilterConfig::default();
            a.katago.apply(a.score_check, &mut cfg)?;
            let text = crate::stages::score::score_report(&a.file, a.game, pictures, &cfg)
                .map_err(|e| SetupError(format!("{e:#}")))?;
            print!("{text}");
            Ok(Exit::Ok as i32)
        }
        Cmd::Sample(a) => {
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
                return setup(format!(
                    "{} has no samples table: run `kibo split` (or `kibo run`) first",
                    r.out.display()
                ));
            }
            if let Some(s) = &a.split {
                if !["train", "val", "test"].contains(&s.as_str()) {
                    return setup(format!("--split must be train, val or test, not {s:?}"));
                }
            }
            let opt = crate::stages::sample::SampleOptions {
                n: a.n.unwrap_or(r.cfg.pipeline.verify_samples),
                seed: a.seed.unwrap_or(r.cfg.pipeline.seed),
                split: a.split.clone(),
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
        Cmd::Part(c) => part(c),
        Cmd::Export(c) => export(c),
        Cmd::Run(a) => {
            let mut r = resolve(&a.common, &a.input, a.licence.as_deref())?;
            a.katago.apply(a.score_check, &mut r.cfg.filter)?;
            check_inputs(&r, &r.out)?;
            let p = pool(r.cfg.pipeline.threads)?;
            let code = p.install(|| do_filter(&r))?;
            p.install(|| do_split(&r))?;
            Ok(code)
        }
    }
}

fn do_filter(r: &Resolved) -> anyhow::Result<i32> {
    let t0 = std::time::Instant::now();
    let progress = crate::progress::Progress::new("filter", "games", None, r.quiet);
    let report = crate::stages::filter::run(&r.cfg, &r.cfg.sources, &r.out, &progress)?;
    progress.finish();
    crate::stages::report::write_filter(&r.out, &r.cfg, r.pipeline_file.as_deref(), &report)?;
    let secs = t0.elapsed().as_secs_f64();
    let t = &report.total;
    eprintln!(
        "filter: {} games found, {} kept, {} rejected ({} files, {:.1} MB, {} non-SGF skipped) in {:.2}s: {:.0} games/s, {:.1} MB/s",
        t.games_found,
        t.games_kept,
        t.games_rejected,
        t.files_read,
        t.bytes_read as f64 / 1e6,
        t.skipped_non_sgf,
        secs,
        t.games_found as f64 / secs,
        t.bytes_read as f64 / 1e6 / secs
    );
    if !t.rejected_by_reason.is_empty() {
        let parts: Vec<String> = t.rejected_by_reason.iter().map(|(k, v)| format!("{k} {v}")).collect();
        eprintln!("filter: rejected by reason: {}", parts.join(", "));
    }
    if let Some(k) = &report.katago {
        let moved: Vec<String> = t.katago_verdicts.iter().map(|(k, v)| format!("{k} {v}")).collect();
        eprintln!(
            "filter: KataGo ({} visits) read {} games, {} of them again at {} visits, in {:.1}s ({:.2}s a game, its start \
             included): {}",
            k.visits,
            k.games,
            k.rechecked,
            k.recheck_visits,
            k.seconds,
            k.seconds / k.games.max(1) as f64,
            if moved.is_empty() { "none".to_string() } else { moved.join(", ") }
        );
    }
    if report.had_unreadable() {
        eprintln!(
            "filter: {} input(s) could not be read; see rejects (reason unreadable_file)",
            t.rejected_by_reason.get("unreadable_file").copied().unwrap_or(0)
        );
        return Ok(Exit::SomeUnreadable as i32);
    }
    Ok(Exit::Ok as i32)
}

#[cfg(feature = "query")]
fn stats(out: &Path) -> anyhow::Result<i32> {
    let s = crate::stats::compute(out)?;
    s.write(out)?;
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = s.print(&mut stdout) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            return Err(e.into());
        }
    }
    eprintln!("stats: tables written to {}", out.join("stats").display());
    Ok(Exit::Ok as i32)
}

#[cfg(not(feature = "query"))]
fn stats(_out: &Path) -> anyhow::Result<i32> {
    setup("this kibo was built without the `query` feature (Polars); run `make stats`, which builds it")
}

fn do_split(r: &Resolved) -> anyhow::Result<()> {
    let t0 = std::time::Instant::now();
    let report = crate::stages::split::run(&r.cfg, &r.out, r.quiet)?;
    crate::stages::report::write_split(&r.out, &r.cfg, &report)?;
    crate::stages::card::write(&r.out)?;
    print_split(&report, t0);
    if !report.accounting.balanced {
        anyhow::bail!("split: the sample counts do not add up (report.json split.accounting); this is a bug in kibo");
    }
    Ok(())
}

/// `kibo part …`: one step of the map/reduce form.
fn part(c: PartCmd) -> anyhow::Result<i32> {
    use crate::stages::part as p;
    let (step, a) = match c {
        PartCmd::Plan(a) => ("plan", a),
        PartCmd::Filter(a) => ("filter", a),
        PartCmd::Keys(a) => ("keys", a),
        PartCmd::Write(a) => ("write", a),
        PartCmd::Finish(a) => ("finish", a),
        PartCmd::Label(a) => return label_part(a.label, Some((a.part, a.parts))),
    };
    let mut r = resolve(&a.run.common, &a.run.input, a.run.licence.as_deref())?;
    a.run.katago.apply(a.run.score_check, &mut r.cfg.filter)?;
    let none = PathBuf::from("/nonexistent/kibo-none");
    let dir = p::part_dir(&a.work, a.part);
    let load_plan = || -> anyhow::Result<p::Plan> {
        let f = a.work.join("plan.json");
        let bytes = match std::fs::read(&f) {
            Ok(b) => b,
            Err(e) => return setup(format!("{}: {e} (run `kibo part plan` first)", f.display())),
        };
        serde_json::from_slice(&bytes).with_context(|| format!("reading {}", f.display()))
    };
    let progress = crate::progress::Progress::new(step, "games", None, true);
    let pool = pool(r.cfg.pipeline.threads)?;
    match step {
        "plan" => {
            check_inputs(&r, &a.work)?;
            let plan = p::plan(&r.cfg, a.parts);
            let text = serde_json::to_string_pretty(&plan)? + "\n";
            crate::storage::write_atomic(&a.work, "plan.json", text.as_bytes())?;
            print!("{text}");
        }
        "filter" => {
            let plan = load_plan()?;
            let Some(range) = plan.parts.get(a.part as usize) else {
                return setup(format!("part {} is not in the plan ({} parts)", a.part, plan.parts.len()));
            };
            let rep = pool.install(|| p::filter_part(&r.cfg, r.pipeline_file.as_deref(), range, &dir, &progress))?;
            if rep.had_unreadable() {
                return Ok(Exit::SomeUnreadable as i32);
            }
        }
        "keys" => {
            pool.install(|| p::keys_part(&r.cfg, a.part, &dir, a.dups.as_ref().unwrap_or(&none), &progress))?;
        }
        "write" => {
            let (dups, kept) = (a.dups.as_ref().unwrap_or(&none), a.kept.as_ref().unwrap_or(&none));
            pool.install(|| p::write_part(&r.cfg, &dir, dups, kept, &progress))?;
        }
        _ => {
            let spark: serde_json::Value = match &a.spark {
                Some(f) => {
                    serde_json::from_slice(&std::fs::read(f).with_context(|| format!("reading {}", f.display()))?)
                        .with_context(|| format!("reading {}", f.display()))?
                }
                None => serde_json::Value::Null,
            };
            let t0 = std::time::Instant::now();
            let report = p::finish(&r.cfg, r.pipeline_file.as_deref(), &a.work, &r.out, &load_plan()?, &spark)?;
            print_split(&report, t0);
            if !report.accounting.balanced {
                anyhow::bail!("part finish: the sample counts do not add up (report.json split.accounting)");
            }
        }
    }
    Ok(Exit::Ok as i32)
}

fn print_split(report: &crate::stages::split::SplitReport, t0: std::time::Instant) {
    let secs = t0.elapsed().as_secs_f64();
    eprintln!(
        "split: {} games replayed, {} rejected, {} samples in {} shard(s), {:.2} bytes/sample, in {:.2}s: {:.0} samples/s",
        report.games_replayed,
        report.games_rejected,
        report.samples,
        report.shards.len(),
        report.bytes_per_sample(),
        secs,
        report.samples as f64 / secs
    );
    eprintln!("split: accounting: {}", report.accounting.line);
    let m = &report.memory;
    eprintln!(
        "split: memory: peak {:.0} MiB, budget {} MiB (pipeline.memory_mb = {}); {:.1} MB spilled",
        crate::stages::split::peak_rss_bytes() as f64 / (1 << 20) as f64,
        m.budget.total >> 20,
        m.budget.describe(),
        m.spilled_bytes as f64 / 1e6
    );
}
