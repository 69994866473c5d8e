/*!
The split stage: replay every game of the `games` table with full rules checking
and write one sample per move into `samples/` shards.

It runs as named passes ([`passes`]), each a function with typed input and output:
duplicate games → position keys → dedup → writing kept rows. Games are read in table
order, replayed in parallel in chunks, and merged back in order, so shards are
byte-identical whatever the thread count. [`replay`] turns one game into samples;
[`policy`] holds the sampling options and the split assignment as pure functions.

A game with an illegal move goes to `rejects` (stage `split`) with the reason and move
number. The stage writes only its own rejects partition (`rejects/part-split-*`); the
filter stage's rows are left as they are.
*/

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use crate::config::Config;
use crate::dedup::{DedupIndex, DedupMode};
use crate::samples::samples_schema;
use crate::storage::{ShardInfo, TableOptions, TableWriter};
use crate::tables::{rejects_batch, rejects_schema};

pub mod passes;
pub mod policy;
pub mod replay;

pub use policy::{assign_split, spread};
pub use replay::{game_samples, GameSamples};

/// The split stage's report (`report.json` → `"split"`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct SplitReport {
    /// Games read from the games table.
    pub games_in: u64,
    /// Games replayed to the end.
    pub games_replayed: u64,
    /// Games rejected during replay.
    pub games_rejected: u64,
    /// Rejects by reason.
    pub rejected_by_reason: BTreeMap<String, u64>,
    /// Moves of replayed games.
    pub moves: u64,
    /// Samples produced by replay and the sampling options, before dedup.
    pub samples_before_dedup: u64,
    /// Samples written (after dedup).
    pub samples: u64,
    /// Games dropped because an identical game came earlier.
    pub duplicate_games: u64,
    /// Every replayed move (before sampling and dedup) counted per tag, plus `is_tactical`.
    pub tag_counts: BTreeMap<String, u64>,
    /// Dedup index figures (null when dedup is off).
    pub dedup: Option<crate::dedup::DedupStats>,
    /// Moves not written, by sampling option.
    pub dropped: BTreeMap<String, u64>,
    /// Replayed games with moves by the same colour twice in a row.
    pub games_with_consecutive_moves: u64,
    /// Samples per split.
    pub samples_by_split: BTreeMap<String, u64>,
    /// Sample shards.
    pub shards: Vec<ShardInfo>,
    /// Shards of the split stage's rejects partition.
    pub reject_shards: Vec<ShardInfo>,
    /// Where every move went: the sample count explained.
    pub accounting: SampleAccounting,
    /// The memory budget, what spilled, and the process's peak memory.
    pub memory: MemoryReport,
}

/// The sample count explained, checked from independently kept counters:
/// `moves − dropped = samples_before_dedup` (the sampling options),
/// `samples_before_dedup − merged_by_dedup = samples` (dedup: what its index observed
/// and kept must be those two numbers), and the samples per split and the shard rows
/// both add up to `samples`.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct SampleAccounting {
    /// Moves of the games replayed to the end.
    pub moves: u64,
    /// Moves not written because of a sampling option (sum of `dropped`).
    pub dropped: u64,
    /// Samples before dedup.
    pub samples_before_dedup: u64,
    /// Samples merged into an earlier identical position.
    pub merged_by_dedup: u64,
    /// Samples written.
    pub samples: u64,
    /// Every identity above holds.
    pub balanced: bool,
    /// The same as one line for people.
    pub line: String,
}

impl SampleAccounting {
    /// Computes the accounting of a finished report.
    pub fn of(r: &SplitReport) -> SampleAccounting {
        let dropped: u64 = r.dropped.values().sum();
        let merged = r.samples_before_dedup.saturating_sub(r.samples);
        let dedup_ok = match &r.dedup {
            Some(d) => d.observations == r.samples_before_dedup && d.unique_positions == r.samples,
            None => merged == 0,
        };
        let by_split: u64 = r.samples_by_split.values().sum();
        let shard_rows: u64 = r.shards.iter().map(|s| s.rows).sum();
        let balanced = r.moves == dropped + r.samples_before_dedup
            && r.samples_before_dedup >= r.samples
            && dedup_ok
            && by_split == r.samples
            && shard_rows == r.samples;
        let line = format!(
            "{} moves − {} dropped by sampling options = {} samples; − {} merged by dedup = {} written ({})",
            r.moves,
            dropped,
            r.samples_before_dedup,
            merged,
            r.samples,
            if balanced { "balanced" } else { "NOT BALANCED" }
        );
        SampleAccounting {
            moves: r.moves,
            dropped,
            samples_before_dedup: r.samples_before_dedup,
            merged_by_dedup: merged,
            samples: r.samples,
            balanced,
            line,
        }
    }
}

impl SplitReport {
    /// Bytes on disk per sample over all shards.
    pub fn bytes_per_sample(&self) -> f64 {
        let b: u64 = self.shards.iter().map(|s| s.bytes).sum();
        if self.samples == 0 {
            0.0
        } else {
            b as f64 / self.samples as f64
        }
    }
}

pub use crate::samples::samples_table_options;

/// Runs the split stage on `out`'s games table.
pub fn run(cfg: &Config, out: &Path, quiet: bool) -> anyhow::Result<SplitReport> {
    crate::storage::clean_stale(out)?;
    let sc = &cfg.split;
    let seed = cfg.pipeline.seed;
    let memory = cfg.memory();
    let spill_root = cfg.spill_root(out);
    let dup_dir = spill_root.join(".tmp-duplicate-games");
    let dups = passes::duplicate_games(out, memory.duplicate_games, &dup_dir);
    let _ = std::fs::remove_dir_all(&dup_dir);
    let dups = dups?;
    let passes_over = if sc.dedup == DedupMode::Off { 1 } else { 2 };
    let games = dups.games - dups.skip.len() as u64;
    let progress = crate::progress::Progress::new("split", "games", Some(games * passes_over), quiet);
    let spill_dir = spill_root.join(".tmp-dedup");
    let result = (|| {
        let (mut tally, mut cursor, stats) = if sc.dedup == DedupMode::Off {
            (passes::Tally::default(), None, None)
        } else {
            let mut index = DedupIndex::new(memory.dedup_index, &spill_dir);
            let tally = passes::position_keys(out, &dups, sc, seed, &mut |o| index.push(o), &progress)?;
            let (cursor, stats) = passes::dedup(index)?;
            (tally, Some(cursor), Some(stats))
        };
        let mut writer = TableWriter::new(out, "samples", samples_schema(), samples_table_options(sc))?;
        let count_here = if cursor.is_none() { Some(&mut tally) } else { None };
        let written = passes::write_samples(out, &dups, sc, seed, cursor.as_mut(), count_here, &mut writer, &progress)?;
        drop(cursor);
        let shards = writer.finish()?;
        anyhow::Ok((tally, stats, written, shards))
    })();
    let _ = std::fs::remove_dir_all(&spill_dir);
    let (tally, stats, written, shards) = result?;
    progress.finish();
    let mut rejects = dups.rejects;
    rejects.extend(tally.rejects);
    let mut rw = TableWriter::partition(out, "rejects", "split", rejects_schema(), reject_table_options(sc))?;
    if !rejects.is_empty() {
        rw.write(&rejects_batch(&rejects))?;
    }
    let mut report = SplitReport {
        games_in: tally.games_in + dups.skip.len() as u64,
        games_replayed: tally.games_replayed,
        games_rejected: rejects.len() as u64,
        moves: tally.moves,
        samples_before_dedup: tally.samples_before_dedup,
        samples: written.samples,
        duplicate_games: dups.skip.len() as u64,
        tag_counts: written.tag_counts,
        dedup: stats,
        dropped: tally.dropped,
        games_with_consecutive_moves: tally.games_with_consecutive_moves,
        samples_by_split: written.samples_by_split,
        shards,
        reject_shards: rw.finish()?,
        ..Default::default()
    };
    for r in &rejects {
        *report.rejected_by_reason.entry(r.reason.as_str().to_string()).or_default() += 1;
    }
    report.memory = MemoryReport {
        budget: memory,
        spilled_bytes: dups.stats.spill_bytes + report.dedup.as_ref().map_or(0, |d| d.spill_bytes),
        duplicate_game_index: dups.stats,
    };
    report.accounting = SampleAccounting::of(&report);
    Ok(report)
}

/// Memory and spill figures of a split run (`report.json` → `split.memory`; the
/// process's peak memory varies from run to run, so it is printed, not recorded).
#[derive(Clone, Debug, Default, Serialize)]
pub struct MemoryReport {
    /// The budget (`pipeline.memory_mb`) and its shares, bytes.
    pub budget: crate::config::MemoryBudget,
    /// Bytes written to spill files (both indexes), all removed since.
    pub spilled_bytes: u64,
    /// The duplicate-game index's figures.
    pub duplicate_game_index: crate::dedup::DedupStats,
}

/// The process's peak resident set size, from `/proc/self/status` (Linux); 0 elsewhere.
pub fn peak_rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// How the rejects table is written (both stages).
pub fn reject_table_options(sc: &crate::config::SplitConfig) -> TableOptions {
    TableOptions { row_group_rows: 16384, shard_rows: 250_000, zstd_level: sc.zstd_level, ..Default::default() }
}
