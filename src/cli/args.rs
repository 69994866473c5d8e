//! The argument groups several commands share (flattened into their args): the output
//! folder and its settings, an export's folder to write, the inputs of
//! `filter`/`run`/`part`, the KataGo flags and the seeded row draw; and the split names, a
//! closed choice.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::config::{MemoryMb, ScoreCheckMode};
use crate::error::SetupError;

/// The output folder and the settings of every command that reads or writes one.
#[derive(Args, Debug)]
pub(super) struct OutArgs {
    /// Output folder (overrides the pipeline's `out`).
    #[arg(long)]
    pub(super) out: Option<PathBuf>,
    /// Pipeline TOML file.
    #[arg(long)]
    pub(super) pipeline: Option<PathBuf>,
    /// Worker threads (0 = all cores; overrides the pipeline).
    #[arg(long)]
    pub(super) threads: Option<usize>,
    /// Memory budget: MiB, or "auto" (a quarter of the machine's memory or cgroup limit,
    /// at least 256 MiB); overrides `pipeline.memory_mb` (default "auto").
    #[arg(long)]
    pub(super) memory_mb: Option<MemoryMb>,
    /// Folder for spill files (overrides `pipeline.tmp_dir`; default: the output folder).
    #[arg(long)]
    pub(super) tmp_dir: Option<PathBuf>,
    /// No progress display.
    #[arg(long, short)]
    pub(super) quiet: bool,
}

/// What every export takes: the output folder to read (with the pipeline, threads,
/// memory budget and quiet flag of every command) and the folder to write.
#[derive(Args, Debug)]
pub(super) struct ExportArgs {
    #[command(flatten)]
    pub(super) common: OutArgs,
    /// Folder to write.
    #[arg(long)]
    pub(super) to: PathBuf,
}

/// The inputs and the count settings of `kibo filter`, `kibo run` and `kibo part`.
#[derive(Args, Debug)]
pub(super) struct RunArgs {
    /// Input file or folder (repeatable); replaces the pipeline's sources.
    #[arg(long)]
    pub(super) input: Vec<PathBuf>,
    /// Licence of the --input sources (SPDX id, e.g. CC-BY-4.0), recorded in the manifest
    /// and the dataset card; without it they are recorded as "unknown".
    #[arg(long, value_name = "SPDX")]
    pub(super) licence: Option<String>,
    /// How games that ended by counting are counted: full (with playouts), rules (no
    /// playouts), katago (full, then KataGo's ownership for the games left undecided or
    /// winner_differs), off; overrides `filter.score_check` (default full).
    #[arg(long, value_enum)]
    pub(super) score_check: Option<ScoreCheck>,
    #[command(flatten)]
    pub(super) katago: KatagoJudgeArgs,
    #[command(flatten)]
    pub(super) common: OutArgs,
}

/// `[filter.katago]` (`--score-check katago`) or `[label.katago]` (`kibo label`) as flags.
#[derive(Args, Debug, Default)]
pub(super) struct KatagoJudgeArgs {
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
    pub(super) fn apply_to(&self, k: &mut crate::config::KatagoConfig) {
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
    pub(super) fn apply(
        &self,
        score_check: Option<ScoreCheck>,
        cfg: &mut crate::config::FilterConfig,
    ) -> anyhow::Result<()> {
        if let Some(m) = score_check {
            cfg.score_check = m.into();
        }
        self.apply_to(&mut cfg.katago);
        if cfg.score_check == ScoreCheckMode::Katago {
            cfg.katago.settings().check().map_err(|e| SetupError(format!("{e:#}")))?;
        }
        Ok(())
    }
}

/// `--score-check`: the command line's spelling of `config::ScoreCheckMode` (clap stays
/// in `cli`; the pipeline file's `filter.score_check` takes the same words).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum ScoreCheck {
    /// Benson, the conservative rules, the random playouts and the markup.
    Full,
    /// Benson, the conservative rules and the markup; no playouts.
    Rules,
    /// Full, then KataGo's ownership maps as the evidence for life and death in the
    /// games the full count leaves `undecided` or calls `winner_differs` (kibo counts).
    Katago,
    /// No count: the score columns stay empty.
    Off,
}

impl From<ScoreCheck> for ScoreCheckMode {
    fn from(m: ScoreCheck) -> Self {
        match m {
            ScoreCheck::Full => ScoreCheckMode::Full,
            ScoreCheck::Rules => ScoreCheckMode::Rules,
            ScoreCheck::Katago => ScoreCheckMode::Katago,
            ScoreCheck::Off => ScoreCheckMode::Off,
        }
    }
}

/// The seeded row draw (`stages::draw`) that `kibo export vlm` and `kibo label` share.
#[derive(Args, Debug)]
pub(super) struct DrawArgs {
    /// Rows to draw, a seeded draw spread over games, move numbers and splits (0: every
    /// row of the splits) [default: 100000; `kibo export vlm --splits test`: 10000].
    /// `kibo label` with the same limit, seed and tags draws the rows `kibo export vlm` draws.
    #[arg(long)]
    pub(super) limit: Option<u64>,
    /// Seed of the draw (and of the VLM rows' tasks and symmetries; default: pipeline.seed).
    #[arg(long)]
    pub(super) seed: Option<u64>,
    /// Keep only positions whose move has this tactical tag (repeatable: any of them).
    #[arg(long = "tag")]
    pub(super) tags: Vec<String>,
    /// The splits to draw from, comma-separated (--split is the same flag): train,val (the
    /// rows of a training set) or, for `kibo export vlm`, test alone (an evaluation set for
    /// `kibo eval`, whose default draw is --limit 10000 and --mix
    /// next-move=0.2,transcribe=0.2,tactics=0.6); `kibo label` takes any of them (add test
    /// to label an evaluation set's rows).
    #[arg(long, visible_alias = "split", value_delimiter = ',', default_value = "train,val")]
    pub(super) splits: Vec<Split>,
}

/// A split of the samples table (its `split` column).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
pub(super) enum Split {
    Train,
    Val,
    Test,
}

impl Split {
    /// The name, as the samples table's `split` column writes it.
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Split::Train => "train",
            Split::Val => "val",
            Split::Test => "test",
        }
    }
}

/// `--board`: `stages::export::vlm::BoardMode` (`kibo export vlm`, and `kibo match`'s `openai:` players).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Board {
    Picture,
    Text,
    Both,
}

impl From<Board> for crate::stages::export::vlm::BoardMode {
    fn from(b: Board) -> crate::stages::export::vlm::BoardMode {
        match b {
            Board::Picture => crate::stages::export::vlm::BoardMode::Picture,
            Board::Text => crate::stages::export::vlm::BoardMode::Text,
            Board::Both => crate::stages::export::vlm::BoardMode::Both,
        }
    }
}
