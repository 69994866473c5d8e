/*!
Pipeline configuration: one TOML file per pipeline in `pipelines/`, overridden by
command-line flags. Unknown keys are rejected with the key, the file and the line.

```toml
[pipeline]
name = "default"
out = "out/default"
threads = 0            # 0 = all cores
seed = 20261130
require_licence = false
memory_mb = "auto"     # or a number of MiB

[[sources]]
name = "kombilo"
path = "data/kombilo"
origin = "PyPI kombilo==0.8.4, kombilo/tests/sgfs/"
licence = "MIT"

[filter]
min_moves = 20
```
*/

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::dedup::DedupMode;
use crate::engine::SuperkoMode;
use crate::input::Limits;
use crate::scoring::ScoreCheck;
use crate::sgf::{Rank, ResultKind};

/// The whole pipeline file.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Run-wide settings.
    pub pipeline: PipelineSection,
    /// Declared input sources, each with origin and licence.
    pub sources: Vec<Source>,
    /// Which games the filter stage keeps.
    pub filter: FilterConfig,
    /// Input size limits.
    pub limits: Limits,
    /// Split stage settings (replay, samples, shards).
    pub split: SplitConfig,
    /// Export settings (`[export.vlm]`: the VLM prompt templates).
    pub export: ExportConfig,
    /// `[label]`: `kibo label` (KataGo's reading of the drawn positions).
    pub label: LabelConfig,
}

/// `[label]`: settings of `kibo label` (docs/labels.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LabelConfig {
    /// Rows a committed chunk (a rerun after a crash starts again at the first chunk not
    /// written).
    pub chunk_rows: usize,
    /// `[label.katago]`: the engine, as `[filter.katago]` (visits default 1).
    pub katago: KatagoConfig,
}

impl Default for LabelConfig {
    fn default() -> Self {
        LabelConfig { chunk_rows: 2048, katago: KatagoConfig::default() }
    }
}

/// `filter.drop_score_disagreements`: the score verdicts whose games the filter rejects.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DropVerdicts(pub Vec<ScoreCheck>);

/// What `filter.drop_score_disagreements` accepts.
const DROP_ALLOWED: &str = "true, false, or a list of \"winner_differs\", \"margin_differs\", \"undecided\"";

impl DropVerdicts {
    /// Does the filter reject a game with verdict `c`?
    pub fn drops(&self, c: ScoreCheck) -> bool {
        self.0.contains(&c)
    }
}

impl Serialize for DropVerdicts {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|c| c.as_str()))
    }
}

impl<'de> Deserialize<'de> for DropVerdicts {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<DropVerdicts, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Form {
            Flag(bool),
            List(Vec<String>),
        }
        let bad = || serde::de::Error::custom(format!("filter.drop_score_disagreements must be {DROP_ALLOWED}"));
        let mut v = match Form::deserialize(d).map_err(|_| bad())? {
            Form::Flag(true) => vec![ScoreCheck::WinnerDiffers],
            Form::Flag(false) => Vec::new(),
            Form::List(names) => names
                .iter()
                .map(|n| ScoreCheck::from_name(n).filter(|c| *c != ScoreCheck::Agrees).ok_or_else(bad))
                .collect::<Result<Vec<_>, _>>()?,
        };
        v.sort();
        v.dedup();
        Ok(DropVerdicts(v))
    }
}

/// `[export]`: settings of `kibo export`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ExportConfig {
    /// `[export.vlm]`: the prompt templates of `kibo export vlm`.
    pub vlm: VlmTemplates,
}

/// The licence recorded (manifest, card) for a source that declares none.
pub const UNKNOWN_LICENCE: &str = "unknown";

/// `pipeline.memory_mb`: a number of MiB, or `"auto"` (the default), a share of the
/// machine's memory (docs/performance.md, "Memory"; [`auto_memory`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MemoryMb {
    /// [`AUTO_MEMORY_RULE`] of the memory this process may use.
    #[default]
    Auto,
    /// This many MiB (at least 1).
    Mib(usize),
}

/// What `pipeline.memory_mb` accepts (every message about a bad value names it).
const MEMORY_MB_ALLOWED: &str = "a number of MiB (at least 1) or \"auto\"";

impl MemoryMb {
    fn of_mib(n: u64) -> Result<MemoryMb, String> {
        match usize::try_from(n) {
            Ok(n) if (1..=usize::MAX >> 20).contains(&n) => Ok(MemoryMb::Mib(n)),
            _ => Err(MemoryMb::refused(&n)),
        }
    }

    /// The message for a value outside the domain.
    fn refused(value: &dyn std::fmt::Display) -> String {
        format!("pipeline.memory_mb must be {MEMORY_MB_ALLOWED}, not {value}")
    }
}

impl std::str::FromStr for MemoryMb {
    type Err = String;
    /// `"auto"` or a number of MiB (the command line's `--memory-mb`).
    fn from_str(s: &str) -> Result<MemoryMb, String> {
        if s == "auto" {
            return Ok(MemoryMb::Auto);
        }
        let n = s.parse::<u64>().map_err(|_| MemoryMb::refused(&format!("{s:?}")))?;
        MemoryMb::of_mib(n)
    }
}

impl std::fmt::Display for MemoryMb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MemoryMb::Auto => f.write_str("auto"),
            MemoryMb::Mib(n) => write!(f, "{n}"),
        }
    }
}

impl Serialize for MemoryMb {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            MemoryMb::Auto => s.serialize_str("auto"),
            MemoryMb::Mib(n) => s.serialize_u64(*n as u64),
        }
    }
}

impl<'de> Deserialize<'de> for MemoryMb {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<MemoryMb, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = MemoryMb;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "pipeline.memory_mb: {MEMORY_MB_ALLOWED}")
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<MemoryMb, E> {
                MemoryMb::of_mib(n).map_err(E::custom)
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<MemoryMb, E> {
                let n = u64::try_from(n).map_err(|_| E::custom(MemoryMb::refused(&n)))?;
                MemoryMb::of_mib(n).map_err(E::custom)
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<MemoryMb, E> {
                s.parse().map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// `[pipeline]`
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PipelineSection {
    /// Name recorded in the manifest.
    pub name: String,
    /// Output folder.
    pub out: Option<PathBuf>,
    /// Worker threads; 0 = all cores.
    pub threads: usize,
    /// Seed for every random choice (splits, verification samples).
    pub seed: u64,
    /// Refuse to run on sources without a declared licence.
    pub require_licence: bool,
    /// Verification samples drawn by `kibo sample` (default 20).
    pub verify_samples: usize,
    /// The memory budget of every stage, in MiB, or `"auto"` (the default: a quarter of
    /// the machine's memory or of the cgroup limit, at least 256 MiB; docs/performance.md,
    /// "Memory"): everything that grows with the corpus (the dedup index and its kept
    /// rows, the duplicate-game index) is counted against it and spills to disk past its
    /// share.
    pub memory_mb: MemoryMb,
    /// Where spill files go (default: the output folder); removed on success and on
    /// every error.
    pub tmp_dir: Option<PathBuf>,
}

impl Default for PipelineSection {
    fn default() -> Self {
        PipelineSection {
            name: "unnamed".into(),
            out: None,
            threads: 0,
            seed: 20261130,
            require_licence: false,
            verify_samples: 20,
            memory_mb: MemoryMb::Auto,
            tmp_dir: None,
        }
    }
}

/// `[[sources]]`: one input with its provenance.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// Short name used in reports.
    pub name: String,
    /// File or folder; relative paths are relative to the current directory.
    pub path: PathBuf,
    /// Where the data came from.
    #[serde(default)]
    pub origin: Option<String>,
    /// Licence (SPDX id or text); `None` = undeclared.
    #[serde(default)]
    pub licence: Option<String>,
}

impl Source {
    /// The licence declared, trimmed; `None` when absent or blank.
    pub fn declared_licence(&self) -> Option<&str> {
        self.licence.as_deref().map(str::trim).filter(|l| !l.is_empty())
    }

    /// The licence the manifest and the card record: the declared one, else
    /// [`UNKNOWN_LICENCE`].
    pub fn recorded_licence(&self) -> &str {
        self.declared_licence().unwrap_or(UNKNOWN_LICENCE)
    }
}

/// `[filter]`: which readable 19×19 games are kept.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FilterConfig {
    /// Games with fewer moves (passes included) are `too_short`; 0 moves is always `no_moves`.
    pub min_moves: u32,
    /// Games with more moves are `too_long`.
    pub max_moves: u32,
    /// Keep handicap games (HA ≥ 2 or black setup stones before the first move).
    pub allow_handicap: bool,
    /// Largest handicap kept.
    pub max_handicap: u32,
    /// Lowest rank kept for both players (e.g. "1d", "5k"); unset = no bound.
    pub min_rank: Option<Rank>,
    /// Highest rank kept for both players; unset = no bound.
    pub max_rank: Option<Rank>,
    /// With a rank bound set, keep games whose ranks are missing or unreadable.
    pub allow_unknown_rank: bool,
    /// Result kinds kept ("score", "resign", "time", "forfeit", "draw", "void", "unknown"); empty = all.
    pub result_kinds: Vec<ResultKind>,
    /// Earliest date kept ("YYYY", "YYYY-MM" or "YYYY-MM-DD"), compared with the game's DT.
    pub date_from: Option<String>,
    /// Latest date kept.
    pub date_to: Option<String>,
    /// With a date bound set, keep games without a readable date.
    pub allow_unknown_date: bool,
    /// Keep games with setup stones after the first move (otherwise `setup_after_root`).
    pub allow_setup_after_root: bool,
    /// Reject games whose count gives one of these verdicts (`score_winner_differs`,
    /// `score_margin_differs`, `score_undecided`): a list of `winner_differs`,
    /// `margin_differs`, `undecided`; `true` is `["winner_differs"]`, `false` (the
    /// default) none. See docs/scoring.md, "Verdicts".
    pub drop_score_disagreements: DropVerdicts,
    /// Komi used when counting, instead of the record's `KM` (default: the record's, else
    /// 6.5 in even games and 0.5 in handicap games).
    pub komi: Option<f32>,
    /// How games that ended by counting are counted: "full" (Benson, the rules, the
    /// playouts and the markup), "rules" (no playouts), "katago" (full, then KataGo's
    /// ownership as the evidence for the games left `undecided` or `winner_differs`) or
    /// "off" (not counted).
    pub score_check: ScoreCheckMode,
    /// `[filter.katago]`: the engine of `score_check = "katago"`.
    pub katago: KatagoConfig,
}

/// `[filter.katago]`: how to run KataGo's analysis engine for `score_check = "katago"`
/// (docs/scoring.md, "KataGo as the judge"). The paths default to what `make katago`
/// builds and fetches under `$KATAGO_HOME` (default `~/.cache/kibo-katago`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct KatagoConfig {
    /// The `katago` binary (any backend: Eigen, CUDA, OpenCL).
    pub binary: Option<PathBuf>,
    /// The network (`.bin.gz`).
    pub model: Option<PathBuf>,
    /// The analysis config.
    pub config: Option<PathBuf>,
    /// Visits per query (two queries a game: each side to move). Default 1: the net's
    /// own ownership of the final position; more visits search, and a search from a
    /// finished position finds more chains whose fate turns on who moves
    /// (docs/results/scoring.md, "KataGo as the judge: figures on the dev corpus": 178 of 180 dev verdicts equal at 1 and 8 visits, the two
    /// others `undecided` at 8, for 7.4 times the cost).
    pub visits: u32,
    /// Positions analysed at once (`numAnalysisThreads`); unset: the config's.
    pub threads: Option<u32>,
    /// Search threads per position (`numSearchThreads`); unset: the config's.
    pub search_threads: Option<u32>,
    /// Seconds to wait for any one answer before the engine counts as hung.
    pub timeout_s: u64,
    /// `[filter.katago]` only: visits of the second reading given to the games the
    /// one-visit reading leaves `winner_differs` or within a point of the other winner
    /// (docs/scoring.md, "KataGo as the judge"); unset: [`RECHECK_VISITS`]; 0: none.
    pub recheck_visits: Option<u32>,
}

/// The default `filter.katago.recheck_visits`.
pub const RECHECK_VISITS: u32 = 8;

impl Default for KatagoConfig {
    fn default() -> Self {
        KatagoConfig {
            binary: None,
            model: None,
            config: None,
            visits: 1,
            threads: None,
            search_threads: None,
            timeout_s: 300,
            recheck_visits: None,
        }
    }
}

impl KatagoConfig {
    /// Where `make katago` puts KataGo, its net and its analysis config.
    pub fn home() -> PathBuf {
        std::env::var_os("KATAGO_HOME").map(PathBuf::from).unwrap_or_else(|| {
            std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default().join(".cache/kibo-katago")
        })
    }

    /// The engine's settings for the judge (`filter.katago`), the unset paths filled in
    /// from [`KatagoConfig::home`].
    pub fn settings(&self) -> crate::analysis::KatagoSettings {
        self.settings_in("filter.katago")
    }

    /// The engine's settings, as the pipeline file's table `section` gives them.
    pub fn settings_in(&self, section: &'static str) -> crate::analysis::KatagoSettings {
        let home = KatagoConfig::home();
        let or = |p: &Option<PathBuf>, default: &str| p.clone().unwrap_or_else(|| home.join(default));
        crate::analysis::KatagoSettings {
            binary: or(&self.binary, "katago-6a1fc5d/cpp/katago"),
            model: or(&self.model, "katrain/katrain/models/b10c384h6nbttflrs.bin.gz"),
            config: or(&self.config, "katrain/katrain/KataGo/analysis_config.cfg"),
            visits: self.visits,
            threads: self.threads,
            search_threads: self.search_threads,
            recheck_visits: self.recheck_visits.unwrap_or(RECHECK_VISITS),
            timeout: std::time::Duration::from_secs(self.timeout_s.max(1)),
            section,
        }
    }
}

/// `filter.score_check` (docs/scoring.md, "Modes").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScoreCheckMode {
    /// Benson, the conservative rules, the random playouts and the markup.
    #[default]
    Full,
    /// Benson, the conservative rules and the markup; no playouts.
    Rules,
    /// Full, then KataGo's ownership maps as the evidence for life and death in the
    /// games the full count leaves `undecided` or calls `winner_differs` (kibo counts).
    Katago,
    /// No count: the score columns stay empty.
    Off,
}

impl Default for FilterConfig {
    fn default() -> Self {
        FilterConfig {
            min_moves: 1,
            max_moves: 1500,
            allow_handicap: true,
            max_handicap: 9,
            min_rank: None,
            max_rank: None,
            allow_unknown_rank: true,
            result_kinds: Vec::new(),
            date_from: None,
            date_to: None,
            allow_unknown_date: true,
            allow_setup_after_root: false,
            drop_score_disagreements: DropVerdicts::default(),
            komi: None,
            score_check: ScoreCheckMode::Full,
            katago: KatagoConfig::default(),
        }
    }
}

/// `[split]`: replay and samples.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SplitConfig {
    /// "off", "positional" or "situational".
    pub superko: SuperkoMode,
    /// Multi-stone suicide is legal (New Zealand, Tromp-Taylor rules).
    pub allow_multi_stone_suicide: bool,
    /// Keep games where one colour moves twice in a row.
    pub allow_consecutive_moves: bool,
    /// Drop samples whose answer is a pass.
    pub drop_passes: bool,
    /// Only the winner's moves (games without a winner give no samples).
    pub winner_only: bool,
    /// At most this many samples per game, spread evenly; 0 = all.
    pub max_samples_per_game: u32,
    /// Rows per Parquet row group.
    pub row_group_rows: usize,
    /// Rows per shard file.
    pub shard_rows: usize,
    /// zstd level for shards.
    pub zstd_level: i32,
    /// Fractions of games for train / val / test (by game_id hash).
    pub split_ratios: [f64; 3],
    /// Position dedup: "exact" (board, side to move, ko point), "symmetry" (the same
    /// over the 8 board symmetries) or "off".
    pub dedup: DedupMode,
    /// Deprecated alias: memory for the dedup index, in MiB, instead of its share of
    /// `pipeline.memory_mb`.
    pub dedup_memory_mb: Option<usize>,
    /// Compute the tactical tags of every move (docs/tags.md).
    pub tags: bool,
    /// Keep only tactical moves.
    pub tactical_only: bool,
    /// With `max_samples_per_game`, take half of each game's quota from tactical moves.
    pub tactical_bias: bool,
    /// Add influence areas per sample (docs/scoring.md): `influence_areas` and the two
    /// area sizes. Off by default (a few microseconds per sample).
    pub influence: bool,
    /// Influence above this (in (0, 1)) makes a point part of an area.
    pub influence_threshold: f32,
}

impl Default for SplitConfig {
    fn default() -> Self {
        SplitConfig {
            superko: SuperkoMode::Off,
            allow_multi_stone_suicide: false,
            allow_consecutive_moves: true,
            drop_passes: false,
            winner_only: false,
            max_samples_per_game: 0,
            row_group_rows: 65536,
            shard_rows: 1 << 20,
            zstd_level: 3,
            split_ratios: [0.9, 0.05, 0.05],
            dedup: DedupMode::Exact,
            dedup_memory_mb: None,
            tags: true,
            tactical_only: false,
            tactical_bias: false,
            influence: false,
            influence_threshold: 0.5,
        }
    }
}

/// A configuration error, with a message that names the file, key and line.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read pipeline file {path}: {source}")]
    Read {
        /// File.
        path: PathBuf,
        /// OS error.
        source: std::io::Error,
    },
    /// TOML syntax or an unknown / mistyped key.
    #[error("{path}:{line}: {message}")]
    Parse {
        /// File.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What toml said (names the key).
        message: String,
    },
    /// A value is out of its domain.
    #[error("{path}: {message}")]
    Invalid {
        /// File (or "command line").
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// How a stage divides `pipeline.memory_mb` (docs/performance.md, "Memory").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MemoryBudget {
    /// `pipeline.memory_mb` as set: a number of MiB or "auto".
    pub memory_mb: MemoryMb,
    /// With "auto": what it was derived from (null for a number).
    pub auto: Option<AutoMemory>,
    /// The whole budget, bytes.
    pub total: usize,
    /// The position dedup index (observations and kept rows), bytes.
    pub dedup_index: usize,
    /// The duplicate-game index (16-byte id and row per game), bytes.
    pub duplicate_games: usize,
    /// The filter's index of the one-line dumps (id → players, result, date), bytes.
    pub dump_index: usize,
}

/// How `memory_mb = "auto"` is derived (report.json → `split.memory.budget.auto.rule`).
pub const AUTO_MEMORY_RULE: &str = "1/4 of min(MemTotal, cgroup memory limit), at least 256 MiB";
/// The least budget `"auto"` gives: about the split stage's fixed working set.
pub const AUTO_MEMORY_FLOOR: usize = 256 << 20;
/// `"auto"` where neither the machine's memory nor a limit can be read (not Linux).
pub const AUTO_MEMORY_FALLBACK: usize = 1024 << 20;

/// What `memory_mb = "auto"` resolved to, and from what.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct AutoMemory {
    /// [`AUTO_MEMORY_RULE`].
    pub rule: &'static str,
    /// `MemTotal` of `/proc/meminfo`, bytes (null: unreadable).
    pub ram_bytes: Option<u64>,
    /// The lowest cgroup memory limit found, bytes (null: none set).
    pub cgroup_limit_bytes: Option<u64>,
    /// The budget, bytes.
    pub budget: usize,
}

/// `"auto"` from the texts of `/proc/meminfo` and of the cgroup limit files found
/// (v2 `memory.max`, v1 `memory.limit_in_bytes`): a quarter of the smaller of `MemTotal`
/// and the lowest limit, rounded down to whole MiB, at least [`AUTO_MEMORY_FLOOR`];
/// [`AUTO_MEMORY_FALLBACK`] when neither is known. `max`, and values of an exbibyte or
/// more (v1's "unlimited" is about 2^63), are no limit.
pub fn auto_memory(meminfo: &str, cgroup_limits: &[&str]) -> AutoMemory {
    let ram_bytes = meminfo.lines().find_map(|l| {
        let kb = l.strip_prefix("MemTotal:")?.trim().strip_suffix("kB")?.trim().parse::<u64>().ok()?;
        Some(kb.saturating_mul(1024)).filter(|&b| b > 0)
    });
    let cgroup_limit_bytes =
        cgroup_limits.iter().filter_map(|t| t.trim().parse::<u64>().ok()).filter(|&b| b > 0 && b < 1 << 60).min();
    let budget = match ram_bytes.into_iter().chain(cgroup_limit_bytes).min() {
        Some(base) => usize::try_from(((base / 4) >> 20) << 20).unwrap_or(usize::MAX).max(AUTO_MEMORY_FLOOR),
        None => AUTO_MEMORY_FALLBACK,
    };
    AutoMemory { rule: AUTO_MEMORY_RULE, ram_bytes, cgroup_limit_bytes, budget }
}

/// [`auto_memory`] of this machine (read once per process): `/proc/meminfo`, and the
/// cgroup v2 `memory.max` of this process's cgroup and of the root of the cgroup
/// filesystem, and the cgroup v1 `memory.limit_in_bytes`, those that exist.
pub fn machine_auto_memory() -> AutoMemory {
    static AUTO: std::sync::OnceLock<AutoMemory> = std::sync::OnceLock::new();
    *AUTO.get_or_init(|| {
        let read = |p: &str| std::fs::read_to_string(p).ok();
        let own_v2 = read("/proc/self/cgroup").and_then(|t| {
            t.lines().find_map(|l| l.strip_prefix("0::").map(|p| format!("/sys/fs/cgroup{}/memory.max", p.trim_end())))
        });
        let limits: Vec<String> = [own_v2.as_deref(), Some("/sys/fs/cgroup/memory.max")]
            .into_iter()
            .flatten()
            .chain(["/sys/fs/cgroup/memory/memory.limit_in_bytes"])
            .filter_map(read)
            .collect();
        let limits: Vec<&str> = limits.iter().map(String::as_str).collect();
        auto_memory(&read("/proc/meminfo").unwrap_or_default(), &limits)
    })
}

impl MemoryBudget {
    /// The setting, with what `"auto"` resolved to: `512`, `auto: 1/4 of RAM (23.5 GiB)`.
    pub fn describe(&self) -> String {
        let Some(a) = self.auto else { return self.memory_mb.to_string() };
        let Some(base) = a.ram_bytes.into_iter().chain(a.cgroup_limit_bytes).min() else {
            return format!("auto: {} MiB, the machine's memory is unknown", a.budget >> 20);
        };
        let of = if a.cgroup_limit_bytes == Some(base) { "the cgroup limit" } else { "RAM" };
        let quarter = format!("1/4 of {of} ({:.1} GiB)", gib(base));
        if (base / 4) < AUTO_MEMORY_FLOOR as u64 {
            format!("auto: the {} MiB floor, above {quarter}", AUTO_MEMORY_FLOOR >> 20)
        } else {
            format!("auto: {quarter}")
        }
    }
}

fn gib(bytes: u64) -> f64 {
    bytes as f64 / (1u64 << 30) as f64
}

impl Config {
    /// The memory budget and its shares: half of it for the dedup index (or
    /// `split.dedup_memory_mb` when set), an eighth for the duplicate-game index (split), an eighth for
    /// the dump index (filter: the two never run at once); the rest
    /// is the working set that does not grow with the corpus (chunks of games being
    /// replayed, Parquet row groups being written).
    pub fn memory(&self) -> MemoryBudget {
        let (auto, total) = match self.pipeline.memory_mb {
            MemoryMb::Auto => {
                let a = machine_auto_memory();
                (Some(a), a.budget)
            }
            MemoryMb::Mib(m) => (None, m << 20),
        };
        let dedup_index = self.split.dedup_memory_mb.map_or(total / 2, |m| m << 20);
        MemoryBudget {
            memory_mb: self.pipeline.memory_mb,
            auto,
            total,
            dedup_index,
            duplicate_games: total / 8,
            dump_index: total / 8,
        }
    }

    /// The input limits of a walk writing to `out`: the pipeline's, with the dump index's
    /// share of the memory budget (docs/performance.md, "Memory") and its spill folder.
    pub fn walk_limits(&self, out: &Path) -> Limits {
        Limits {
            dump_index_bytes: self.memory().dump_index as u64,
            dump_spill_dir: Some(self.spill_root(out)),
            ..self.limits.clone()
        }
    }

    /// Where spill files go: `pipeline.tmp_dir`, else `out`.
    pub fn spill_root(&self, out: &Path) -> PathBuf {
        self.pipeline.tmp_dir.clone().unwrap_or_else(|| out.to_path_buf())
    }

    /// Reads a pipeline file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read { path: path.into(), source })?;
        Self::parse(&text, path)
    }

    /// Parses pipeline TOML; `path` is used in messages only.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let cfg: Config = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1).unwrap_or(0);
            let message = e.message().trim().to_string();
            ConfigError::Parse { path: path.into(), line, message }
        })?;
        cfg.validate(path)?;
        Ok(cfg)
    }

    /// Checks values that types alone cannot.
    pub fn validate(&self, path: &Path) -> Result<(), ConfigError> {
        let bad = |message: String| Err(ConfigError::Invalid { path: path.into(), message });
        for (key, v) in [("filter.date_from", &self.filter.date_from), ("filter.date_to", &self.filter.date_to)] {
            if let Some(d) = v {
                let ok = d.len() >= 4 && d.split('-').all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
                if !ok {
                    return bad(format!("{key}: expected YYYY, YYYY-MM or YYYY-MM-DD, not {d:?}"));
                }
            }
        }
        if (self.split.tactical_only || self.split.tactical_bias) && !self.split.tags {
            return bad("split.tactical_only and split.tactical_bias need split.tags = true".into());
        }
        let r = self.split.split_ratios;
        if r.iter().any(|x| !(0.0..=1.0).contains(x)) || (r.iter().sum::<f64>() - 1.0).abs() > 1e-6 {
            return bad(format!("split.split_ratios must be three fractions summing to 1, not {r:?}"));
        }
        if self.split.row_group_rows == 0 || self.split.shard_rows == 0 {
            return bad("split.row_group_rows and split.shard_rows must be positive".into());
        }
        if !(1..=22).contains(&self.split.zstd_level) {
            return bad(format!("split.zstd_level must be 1..=22, not {}", self.split.zstd_level));
        }
        self.export.vlm.check().or_else(bad)?;
        let mut names = std::collections::HashSet::new();
        for s in &self.sources {
            if !names.insert(&s.name) {
                return bad(format!("two sources are named {:?}", s.name));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_key_names_key_file_and_line() {
        let text = "[pipeline]\nname = \"x\"\n\n[filter]\nmin_moves = 3\nmin_movez = 4\n";
        let err = Config::parse(text, Path::new("p.toml")).unwrap_err().to_string();
        assert!(err.starts_with("p.toml:6:"), "{err}");
        assert!(err.contains("min_movez"), "{err}");
    }

    #[test]
    fn defaults_and_values() {
        let c = Config::parse("[split]\nsuperko = \"positional\"\n", Path::new("p")).unwrap();
        assert_eq!(c.split.superko, SuperkoMode::Positional);
        assert_eq!(c.filter.min_moves, 1);
        // A bad value names the file, the line and the allowed values.
        let e = Config::parse("[pipeline]\nseed = 1\n[split]\nsuperko = \"psk\"\n", Path::new("p"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("p:4:"), "{e}");
        assert!(e.contains("psk") && e.contains("positional") && e.contains("situational"), "{e}");
        let e = Config::parse("[split]\ndedup = \"fuzzy\"\n", Path::new("p")).unwrap_err().to_string();
        assert!(e.starts_with("p:2:") && e.contains("symmetry"), "{e}");
        let e = Config::parse("[filter]\nresult_kinds = [\"score\", \"resigned\"]\n", Path::new("p"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("p:2:") && e.contains("resigned") && e.contains("forfeit"), "{e}");
        let e = Config::parse("\n[filter]\nmin_rank = \"great\"\n", Path::new("p")).unwrap_err().to_string();
        assert!(e.starts_with("p:3:") && e.contains("great") && e.contains("5k"), "{e}");
        let c = Config::parse("[filter]\nmin_rank = \"2d\"\nresult_kinds = [\"resign\"]\n", Path::new("p")).unwrap();
        assert_eq!(c.filter.min_rank.map(|r| r.numeric), Some(2));
        assert_eq!(c.filter.result_kinds, vec![ResultKind::Resign]);
    }

    const MEMINFO: &str = "MemTotal:       24683584 kB\nMemFree:         1000000 kB\nMemAvailable:   20000000 kB\n";

    #[test]
    fn auto_memory_is_a_quarter_of_ram_or_of_the_cgroup_limit() {
        // No limit files, or limits that mean none: a quarter of MemTotal, whole MiB.
        for limits in [&[][..], &["max\n"], &["9223372036854771712\n"], &["max\n", "9223372036854771712"]] {
            let a = auto_memory(MEMINFO, limits);
            assert_eq!(a.ram_bytes, Some(24683584 * 1024));
            assert_eq!(a.cgroup_limit_bytes, None, "{limits:?}");
            assert_eq!(a.budget, 6026 << 20, "{limits:?}");
        }
        // A cgroup limit below the RAM is what the quarter is of; the lowest one counts.
        let a = auto_memory(MEMINFO, &["8589934592\n", "max", "4294967296"]);
        assert_eq!((a.cgroup_limit_bytes, a.budget), (Some(4 << 30), 1 << 30));
        // A limit above the RAM changes nothing.
        assert_eq!(auto_memory(MEMINFO, &["107374182400"]).budget, 6026 << 20);
        // The floor.
        assert_eq!(auto_memory("MemTotal: 524288 kB\n", &[]).budget, AUTO_MEMORY_FLOOR);
        assert_eq!(auto_memory(MEMINFO, &["536870912"]).budget, AUTO_MEMORY_FLOOR);
        // Nothing readable: the fallback; only a limit: a quarter of it.
        assert_eq!(auto_memory("", &["garbage", ""]).budget, AUTO_MEMORY_FALLBACK);
        assert_eq!(auto_memory("MemFree: 12 kB\n", &[]).ram_bytes, None);
        assert_eq!(auto_memory("", &["17179869184"]).budget, 4 << 30);
    }

    #[test]
    fn memory_mb_is_auto_by_default_a_number_or_auto() {
        let c = Config::parse("", Path::new("p")).unwrap();
        assert_eq!(c.pipeline.memory_mb, MemoryMb::Auto);
        let m = c.memory();
        let auto = m.auto.expect("auto is described");
        assert_eq!(m.total, auto.budget);
        assert!(m.total >= AUTO_MEMORY_FLOOR && m.total.is_multiple_of(1 << 20));
        assert_eq!((m.dedup_index, m.duplicate_games), (m.total / 2, m.total / 8));
        assert!(m.describe().starts_with("auto: "), "{}", m.describe());
        let c = Config::parse("[pipeline]\nmemory_mb = \"auto\"\n", Path::new("p")).unwrap();
        assert_eq!(c.pipeline.memory_mb, MemoryMb::Auto);
        let c = Config::parse("[pipeline]\nmemory_mb = 512\n[split]\ndedup_memory_mb = 8\n", Path::new("p")).unwrap();
        let m = c.memory();
        assert_eq!((m.memory_mb, m.auto, m.total, m.dedup_index), (MemoryMb::Mib(512), None, 512 << 20, 8 << 20));
        assert_eq!(m.describe(), "512");
        // The manifest records the setting, not what it resolved to.
        assert_eq!(serde_json::to_value(&c.pipeline).unwrap()["memory_mb"], 512);
        assert_eq!(serde_json::to_value(PipelineSection::default()).unwrap()["memory_mb"], "auto");
        // The command line's form.
        assert_eq!("auto".parse::<MemoryMb>(), Ok(MemoryMb::Auto));
        assert_eq!("64".parse::<MemoryMb>(), Ok(MemoryMb::Mib(64)));
        for bad in ["0", "-3", "lots", "1.5", ""] {
            let e = bad.parse::<MemoryMb>().unwrap_err();
            assert!(e.contains("\"auto\"") && e.contains("number of MiB"), "{bad}: {e}");
        }
    }

    #[test]
    fn a_bad_memory_mb_is_located_and_names_the_allowed_values() {
        for (value, shown) in [("\"lots\"", "lots"), ("0", "0"), ("-1", "-1"), ("1.5", "1.5"), ("\"Auto\"", "Auto")] {
            let text = format!("[pipeline]\nname = \"x\"\nmemory_mb = {value}\n");
            let e = Config::parse(&text, Path::new("p.toml")).unwrap_err().to_string();
            assert!(e.starts_with("p.toml:3:"), "{value}: {e}");
            assert!(e.contains("memory_mb") && e.contains("\"auto\"") && e.contains("number of MiB"), "{value}: {e}");
            assert!(e.contains(shown), "{value}: {e}");
        }
    }

    #[test]
    fn describe_says_what_auto_came_from() {
        let budget = |a: AutoMemory| MemoryBudget { auto: Some(a), total: a.budget, ..Default::default() };
        assert_eq!(budget(auto_memory(MEMINFO, &[])).describe(), "auto: 1/4 of RAM (23.5 GiB)");
        assert_eq!(budget(auto_memory(MEMINFO, &["4294967296"])).describe(), "auto: 1/4 of the cgroup limit (4.0 GiB)");
        assert_eq!(
            budget(auto_memory("MemTotal: 524288 kB\n", &[])).describe(),
            "auto: the 256 MiB floor, above 1/4 of RAM (0.5 GiB)"
        );
        assert_eq!(budget(auto_memory("", &[])).describe(), "auto: 1024 MiB, the machine's memory is unknown");
    }
}

/// The prompt templates (`[export.vlm]` in the pipeline file). Placeholders, each
/// replaced where it appears: `{coords}` (the coordinate convention, [`COORDS_GTP`] or
/// [`COORDS_SGF`]), `{side}` (`Black`/`White`, the side to move), `{opponent}`,
/// `{move_number}` (1-based number of the move to play), `{last_moves}` (" The last moves
/// were W Q4, B D16." for `--last-moves K`, else empty) and, in the tactics templates,
/// `{move}` (the move played, in the answer's notation). Used by `kibo export vlm`
/// (docs/vlm.md, "Tasks and templates").
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VlmTemplates {
    /// A system turn before the user's; empty: none.
    pub system: String,
    /// `next-move`.
    pub next_move: String,
    /// `transcribe`.
    pub transcribe: String,
    /// `tactics`: which chains are in atari.
    pub atari: String,
    /// `tactics`: does the move capture.
    pub capture: String,
    /// `tactics`: is the move a ladder chase.
    pub ladder: String,
    /// `judge`: who is ahead, and by how much (needs `kibo label`).
    pub judge: String,
}

/// `{coords}` with GTP answers.
pub const COORDS_GTP: &str = "A 19x19 Go board. Columns are labelled A to T from left to right, \
skipping I; rows are numbered 1 to 19 from bottom to top.";
/// `{coords}` with SGF answers.
pub const COORDS_SGF: &str = "A 19x19 Go board. A point is written as two SGF letters, column then \
row, each a to s: columns from left to right, rows from top to bottom (aa is the top-left corner, \
the board's A19).";

impl Default for VlmTemplates {
    fn default() -> VlmTemplates {
        VlmTemplates {
            system: String::new(),
            next_move: "{coords} {side} to play.{last_moves} What is the next move? Answer with one point, or pass."
                .to_string(),
            transcribe: "{coords} Transcribe the board: first the column letters, then one line per row from \
19 at the top to 1 at the bottom, each the row number and 19 characters: X black, O white, . empty."
                .to_string(),
            atari: "{coords} {side} to play. Which chains are in atari (one liberty)? List each chain's stones, \
black chains first, as B or W and its points, chains separated by semicolons; or answer none."
                .to_string(),
            capture: "{coords} {side} plays {move}. Does this move capture stones? Answer yes or no.".to_string(),
            ladder: "{coords} {side} plays {move}. Is this move a working ladder chase, one that captures \
the chased chain however it runs? Answer yes or no."
                .to_string(),
            judge: "{coords} {side} to play. Who is ahead, and by how much? Answer like B+3.5 or W+0.5, or even."
                .to_string(),
        }
    }
}

/// The placeholders a template may hold.
pub const PLACEHOLDERS: [&str; 7] =
    ["{coords}", "{side}", "{opponent}", "{move_number}", "{last_moves}", "{move}", "{board}"];

impl VlmTemplates {
    /// Refuses a template with a `{…}` that is not a placeholder (named, with its key).
    pub fn check(&self) -> Result<(), String> {
        let all = [
            ("system", &self.system),
            ("next_move", &self.next_move),
            ("transcribe", &self.transcribe),
            ("atari", &self.atari),
            ("capture", &self.capture),
            ("ladder", &self.ladder),
            ("judge", &self.judge),
        ];
        for (key, t) in all {
            let mut rest = t.as_str();
            while let Some(i) = rest.find('{') {
                let end = rest[i..].find('}').map(|j| i + j + 1).unwrap_or(rest.len());
                let word = &rest[i..end];
                if !PLACEHOLDERS.contains(&word) {
                    return Err(format!(
                        "export.vlm.{key}: unknown placeholder {word:?} (allowed: {})",
                        PLACEHOLDERS.join(" ")
                    ));
                }
                rest = &rest[end..];
            }
        }
        Ok(())
    }
}
