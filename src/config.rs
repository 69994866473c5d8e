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
}

/// Default of `pipeline.memory_mb` (docs/performance.md, "Memory", says why).
pub const DEFAULT_MEMORY_MB: usize = 1024;

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
    /// The memory budget of every stage, in MiB (docs/performance.md, "Memory"):
    /// everything that grows with the corpus (the dedup index and its kept rows, the
    /// duplicate-game index) is counted against it and spills to disk past its share.
    pub memory_mb: usize,
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
            memory_mb: DEFAULT_MEMORY_MB,
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
    /// Reject games whose counted final position disagrees with the recorded result
    /// (`score_disagrees`); see docs/scoring.md.
    pub drop_score_disagreements: bool,
    /// Komi used when counting, instead of the record's `KM` (default: the record's, else
    /// 6.5 in even games and 0.5 in handicap games).
    pub komi: Option<f32>,
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
            drop_score_disagreements: false,
            komi: None,
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
    /// The whole budget, bytes.
    pub total: usize,
    /// The position dedup index (observations and kept rows), bytes.
    pub dedup_index: usize,
    /// The duplicate-game index (16-byte id and row per game), bytes.
    pub duplicate_games: usize,
}

impl Config {
    /// The memory budget and its shares: half of it for the dedup index (or
    /// `split.dedup_memory_mb` when set), an eighth for the duplicate-game index; the rest
    /// is the working set that does not grow with the corpus (chunks of games being
    /// replayed, Parquet row groups being written).
    pub fn memory(&self) -> MemoryBudget {
        let total = self.pipeline.memory_mb << 20;
        let dedup_index = self.split.dedup_memory_mb.map_or(total / 2, |m| m << 20);
        MemoryBudget { total, dedup_index, duplicate_games: total / 8 }
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
        if self.pipeline.memory_mb == 0 {
            return bad("pipeline.memory_mb must be at least 1".into());
        }
        if self.split.row_group_rows == 0 || self.split.shard_rows == 0 {
            return bad("split.row_group_rows and split.shard_rows must be positive".into());
        }
        if !(1..=22).contains(&self.split.zstd_level) {
            return bad(format!("split.zstd_level must be 1..=22, not {}", self.split.zstd_level));
        }
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
}
