/*!
The pipeline in map/reduce form, one part of the corpus at a time: what the Spark job
(`dist/spark/kibo_spark.py`, docs/distributed.md) runs in its tasks. Spark does the two
corpus-wide steps, both shuffles by key (duplicate games by game id, position dedup by
position key); everything else runs here, in one `kibo part …` process per part, with
the same code as `kibo run`.

A part is a contiguous range of the walk's entries ([`crate::input::walk_part`]), so
the canonical order of one process — games-table order, then move — is `(part, row)`
here, computable anywhere: `row` numbers a part's games (or samples) in its own table
order. The steps and what each leaves in the work folder `W`:

1. [`plan`] (driver): the entries of the walk with their sizes → parts of about equal
   bytes (`W/plan.json`).
2. [`filter_part`] (map, per part): the filter stage on the part's entries → an
   ordinary output folder `W/part-K/` (games, filter rejects, report) and the table
   `W/part-K/game_ids/` of `(part, row, game_id, location)`.
3. Spark: the first copy of each game id in `(part, row)` order; each later copy is a
   row of `W/dups/part=K/` `(row, first)`.
4. [`keys_part`] (map, dedup on): pass 2 on the part's games minus its duplicates →
   `W/part-K/keys/` of `(key, part, srow, mv)` (the [`crate::dedup::Obs`] of one
   process, `srow` the part's sample row), the split rejects, `split-keys.json`.
5. Spark: per key, the first `(part, srow)`, the count and the move distribution (in
   the dedup frame) → `W/kept/part=K/` `(srow, key, count, dist_moves, dist_counts)`.
6. [`write_part`] (map): pass 4 with a cursor over those kept rows →
   `W/part-K/samples/`, `split-write.json`.
7. [`finish`] (driver): the parts' shards moved into the output folder's tables, the
   reports merged into `report.json` and `manifest.json` exactly as one process writes
   them (plus a `spark` section), and the dataset card.

Each step's outputs replace its earlier ones whole, so a task retried by Spark, or a
step rerun after a failure, gives the same files.
*/

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use arrow_array::types::Int64Type;
use arrow_array::{ArrayRef, BinaryArray, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field};
use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::dedup::{DedupMode, DedupStats, KeptCursor, Obs};
use crate::progress::Progress;
use crate::samples::samples_schema;
use crate::stages::filter::FilterReport;
use crate::stages::split::passes::{self, Tally, Written};
use crate::stages::split::{reject_table_options, samples_table_options, MemoryReport, SampleAccounting, SplitReport};
use crate::storage::{read_parquet, schema, write_atomic, TableOptions, TableWriter};
use crate::tables::{rejects_batch, rejects_schema, Cols};

/// The parts of a corpus: contiguous ranges of the walk's entries.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Plan {
    /// Entries of the walk (files and unreadable entries).
    pub entries: u64,
    /// Their bytes on disk.
    pub bytes: u64,
    /// The parts, in walk order.
    pub parts: Vec<PartRange>,
}

/// One part: entries `first..end` of the walk.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct PartRange {
    /// Part number (0-based), its place in the canonical order.
    pub part: u32,
    /// First entry.
    pub first: u64,
    /// One past the last entry.
    pub end: u64,
    /// Bytes on disk of its entries.
    pub bytes: u64,
}

/// Splits the walk of the configured sources into at most `parts` parts of about equal
/// bytes (a part may be one large archive; parts are never empty unless the corpus is).
pub fn plan(cfg: &Config, parts: usize) -> Plan {
    let inputs: Vec<PathBuf> = cfg.sources.iter().map(|s| s.path.clone()).collect();
    plan_sizes(&crate::input::list_entries(&inputs), parts)
}

/// [`plan`] over given entry sizes.
pub fn plan_sizes(sizes: &[u64], parts: usize) -> Plan {
    let total: u64 = sizes.iter().sum();
    let n = parts.clamp(1, sizes.len().max(1)) as u64;
    let mut plan = Plan { entries: sizes.len() as u64, bytes: total, parts: Vec::new() };
    let (mut first, mut acc, mut bytes) = (0u64, 0u64, 0u64);
    for (i, &b) in sizes.iter().enumerate() {
        acc += b;
        bytes += b;
        let k = plan.parts.len() as u64;
        let left = sizes.len() as u64 - i as u64 - 1;
        // Close the part once it reaches its share of the bytes, keeping one entry for
        // each part still to come.
        if k + 1 < n && (acc * n >= (k + 1) * total.max(1) || left == n - k - 1) && left >= n - k - 1 {
            plan.parts.push(PartRange { part: k as u32, first, end: i as u64 + 1, bytes });
            first = i as u64 + 1;
            bytes = 0;
        }
    }
    let k = plan.parts.len() as u32;
    plan.parts.push(PartRange { part: k, first, end: sizes.len() as u64, bytes });
    plan
}

/// The folder of part `part` in work folder `work`.
pub fn part_dir(work: &Path, part: u32) -> PathBuf {
    work.join(format!("part-{part:05}"))
}

fn save_json<T: Serialize>(dir: &Path, name: &str, v: &T) -> anyhow::Result<()> {
    let mut text = serde_json::to_string_pretty(v)?;
    text.push('\n');
    Ok(write_atomic(dir, name, text.as_bytes())?)
}

fn load_json<T: for<'de> Deserialize<'de>>(dir: &Path, name: &str) -> anyhow::Result<T> {
    let p = dir.join(name);
    let bytes = std::fs::read(&p).with_context(|| format!("reading {}", p.display()))?;
    serde_json::from_slice(&bytes).with_context(|| format!("reading {}", p.display()))
}

fn side_options() -> TableOptions {
    TableOptions { row_group_rows: 65536, shard_rows: 4 << 20, ..Default::default() }
}

/// Step 2: the filter stage on `range`'s entries into `dir`, then the part's game ids.
/// Returns the filter's report (also saved as `dir/filter-report.json`).
pub fn filter_part(
    cfg: &Config,
    pipeline_file: Option<&Path>,
    range: &PartRange,
    dir: &Path,
    progress: &Progress,
) -> anyhow::Result<FilterReport> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let report = crate::stages::filter::run_part(cfg, &cfg.sources, dir, Some(range.first..range.end), progress)?;
    crate::stages::report::write_filter(dir, cfg, pipeline_file, &report)?;
    let ids = schema(vec![
        Field::new("part", DataType::Int32, false),
        Field::new("row", DataType::Int64, false),
        Field::new("game_id", DataType::Binary, false),
        Field::new("location", DataType::Utf8, false),
    ]);
    let mut w = TableWriter::new(dir, "game_ids", ids.clone(), side_options())?;
    passes::for_each_chunk(dir, |chunk, first| {
        let n = chunk.len();
        let cols: Vec<ArrayRef> = vec![
            Arc::new(Int32Array::from(vec![range.part as i32; n])),
            Arc::new(Int64Array::from_iter_values((first..first + n as u64).map(|r| r as i64))),
            Arc::new(BinaryArray::from_iter_values(chunk.iter().map(|g| g.game_id.0))),
            Arc::new(StringArray::from_iter_values(chunk.iter().map(|g| g.location()))),
        ];
        Ok(w.write(&RecordBatch::try_new(ids.clone(), cols)?)?)
    })?;
    w.finish()?;
    save_json(dir, "filter-report.json", &report)?;
    Ok(report)
}

/// The duplicates of part `dir` named by Spark in `dups` (a Parquet file or folder of
/// `(row, first)`; missing = none).
fn read_duplicates(dir: &Path, dups: &Path) -> anyhow::Result<passes::Duplicates> {
    let mut copies: HashMap<u64, String> = HashMap::new();
    read_parquet(dups, false, |b| {
        let c = Cols::new(&b, "dups");
        let (rows, first) = (c.prim::<Int64Type>("row")?, c.str("first")?);
        for i in 0..b.num_rows() {
            copies.insert(rows.value(i) as u64, first.value(i).to_string());
        }
        Ok(())
    })?;
    passes::duplicates_from(dir, &copies)
}

/// Writes the part's split rejects (its duplicate games, then the games its replay refused).
fn write_split_rejects(cfg: &Config, dir: &Path, dups: passes::Duplicates, tally: &mut Tally) -> anyhow::Result<()> {
    let mut rejects = dups.rejects;
    rejects.append(&mut tally.rejects);
    let mut reasons: BTreeMap<String, u64> = BTreeMap::new();
    for r in &rejects {
        *reasons.entry(r.reason.as_str().to_string()).or_default() += 1;
    }
    save_json(dir, "split-rejects.json", &reasons)?;
    let mut rw = TableWriter::partition(dir, "rejects", "split", rejects_schema(), reject_table_options(&cfg.split))?;
    if !rejects.is_empty() {
        rw.write(&rejects_batch(&rejects))?;
    }
    rw.finish()?;
    Ok(())
}

/// Step 4 (dedup on): pass 2 on part `part` (folder `dir`) without the duplicates named
/// in `dups` → `dir/keys/`, the split rejects, `dir/split-keys.json` (the [`Tally`]).
pub fn keys_part(cfg: &Config, part: u32, dir: &Path, dups: &Path, progress: &Progress) -> anyhow::Result<Tally> {
    let d = read_duplicates(dir, dups)?;
    let keys = schema(vec![
        Field::new("key", DataType::Binary, false),
        Field::new("part", DataType::Int32, false),
        Field::new("srow", DataType::Int64, false),
        Field::new("mv", DataType::Int32, false),
    ]);
    let mut w = TableWriter::new(dir, "keys", keys.clone(), side_options())?;
    let mut buf: Vec<Obs> = Vec::new();
    let flush = |buf: &mut Vec<Obs>, w: &mut TableWriter| -> anyhow::Result<()> {
        let cols: Vec<ArrayRef> = vec![
            Arc::new(BinaryArray::from_iter_values(buf.iter().map(|o| o.key))),
            Arc::new(Int32Array::from(vec![part as i32; buf.len()])),
            Arc::new(Int64Array::from_iter_values(buf.iter().map(|o| o.row as i64))),
            Arc::new(Int32Array::from_iter_values(buf.iter().map(|o| o.mv as i32))),
        ];
        w.write(&RecordBatch::try_new(keys.clone(), cols)?)?;
        buf.clear();
        Ok(())
    };
    let mut failed: Option<anyhow::Error> = None;
    let mut sink = |o: Obs| -> std::io::Result<()> {
        buf.push(o);
        if buf.len() >= 1 << 16 {
            if let Err(e) = flush(&mut buf, &mut w) {
                failed = Some(e);
                return Err(std::io::Error::other("writing the keys table"));
            }
        }
        Ok(())
    };
    let r = passes::position_keys(dir, &d, &cfg.split, cfg.pipeline.seed, &mut sink, progress);
    if let Some(e) = failed {
        return Err(e);
    }
    let mut tally = r?;
    if !buf.is_empty() {
        flush(&mut buf, &mut w)?;
    }
    w.finish()?;
    write_split_rejects(cfg, dir, d, &mut tally)?;
    save_json(dir, "split-keys.json", &tally)?;
    Ok(tally)
}

/// The kept rows of one part computed by Spark (`kept`: Parquet of `(srow, key, count,
/// dist_moves, dist_counts)`).
fn read_kept(kept: &Path) -> anyhow::Result<KeptCursor> {
    let mut rows = Vec::new();
    read_parquet(kept, false, |b| {
        let c = Cols::new(&b, "kept");
        let (srow, key, count) = (c.prim::<Int64Type>("srow")?, c.binary("key")?, c.prim::<Int64Type>("count")?);
        let (moves, counts) = (c.list("dist_moves")?, c.list("dist_counts")?);
        for i in 0..b.num_rows() {
            let k: [u8; 16] = key.value(i).try_into().context("kept: a key is not 16 bytes")?;
            let m = moves.value(i);
            let n = counts.value(i);
            let m = m.as_any().downcast_ref::<Int32Array>().context("kept: dist_moves is not a list of int32")?;
            let n = n.as_any().downcast_ref::<Int64Array>().context("kept: dist_counts is not a list of int64")?;
            let dist = m.values().iter().zip(n.values()).map(|(&m, &n)| (m as u16, n as u32)).collect();
            rows.push((srow.value(i) as u64, k, count.value(i) as u32, dist));
        }
        Ok(())
    })?;
    Ok(KeptCursor::from_rows(rows))
}

/// Step 6: pass 4 on part folder `dir` → `dir/samples/` and `dir/split-write.json`. With
/// dedup on, `kept` holds the part's kept rows (step 5); with dedup off the replay's
/// tally and the split rejects are made here (step 4 does not run).
pub fn write_part(cfg: &Config, dir: &Path, dups: &Path, kept: &Path, progress: &Progress) -> anyhow::Result<Written> {
    let sc = &cfg.split;
    let d = read_duplicates(dir, dups)?;
    let mut cursor = if sc.dedup == DedupMode::Off { None } else { Some(read_kept(kept)?) };
    let mut tally = Tally::default();
    let count_here = if cursor.is_none() { Some(&mut tally) } else { None };
    let mut writer = TableWriter::new(dir, "samples", samples_schema(), samples_table_options(sc))?;
    let mut written =
        passes::write_samples(dir, &d, sc, cfg.pipeline.seed, cursor.as_mut(), count_here, &mut writer, progress)?;
    written.shards = writer.finish()?;
    if sc.dedup == DedupMode::Off {
        write_split_rejects(cfg, dir, d, &mut tally)?;
        save_json(dir, "split-keys.json", &tally)?;
    }
    save_json(dir, "split-write.json", &written)?;
    Ok(written)
}

/// What the Spark job measured (`report.json` → `spark`), passed to [`finish`] as JSON.
pub type SparkFigures = serde_json::Value;

/// A part's shard `table/part-…-NNNNN.parquet` under its name in the whole table: the
/// part number goes before the shard number (`part-train-00000.parquet` of part 3 →
/// `part-train-00003-00000.parquet`), so name order is canonical order.
fn whole_name(file: &str, part: u32) -> String {
    let stem = file.trim_end_matches(".parquet");
    match stem.rsplit_once('-') {
        Some((head, n)) => format!("{head}-{part:05}-{n}.parquet"),
        None => format!("{stem}-{part:05}.parquet"),
    }
}

/// Step 7: assembles the output folder `out` from the parts of `plan` in `work`: the
/// tables (moved, not copied), `report.json` and `manifest.json` as one process writes
/// them (with `spark` added), and the dataset card. Returns the split report.
pub fn finish(
    cfg: &Config,
    pipeline_file: Option<&Path>,
    work: &Path,
    out: &Path,
    plan: &Plan,
    spark: &SparkFigures,
) -> anyhow::Result<SplitReport> {
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    crate::storage::clean_stale(out)?;
    let mut filter = FilterReport::default();
    let mut tally = Tally::default();
    let mut written = Written::default();
    let mut reasons: BTreeMap<String, u64> = BTreeMap::new();
    let mut files: BTreeMap<&str, Vec<(PathBuf, String)>> = BTreeMap::new();
    for p in &plan.parts {
        let dir = part_dir(work, p.part);
        filter.merge(load_json(&dir, "filter-report.json")?);
        let t: Tally = load_json(&dir, "split-keys.json")?;
        add_tally(&mut tally, t);
        let w: Written = load_json(&dir, "split-write.json")?;
        add_written(&mut written, w);
        let r: BTreeMap<String, u64> = load_json(&dir, "split-rejects.json")?;
        for (k, v) in r {
            *reasons.entry(k).or_default() += v;
        }
        for table in ["games", "rejects", "samples"] {
            let entries = std::fs::read_dir(dir.join(table)).with_context(|| format!("reading {}", dir.display()))?;
            for e in entries {
                let name = e?.file_name().to_string_lossy().into_owned();
                if name.ends_with(".parquet") {
                    files.entry(table).or_default().push((dir.join(table).join(&name), whole_name(&name, p.part)));
                }
            }
        }
    }
    let mut shards = BTreeMap::new();
    for (table, list) in &files {
        shards.insert(*table, crate::storage::install_table(out, table, list)?);
    }
    let of = |table: &str, prefix: &str| -> Vec<crate::storage::ShardInfo> {
        let want = format!("{table}/{prefix}");
        shards.get(table).map_or(Vec::new(), |v| v.iter().filter(|s| s.path.starts_with(&want)).cloned().collect())
    };
    filter.games_shards = of("games", "part-");
    filter.rejects_shards = of("rejects", "part-filter-");
    crate::stages::report::write_filter(out, cfg, pipeline_file, &filter)?;
    let report = split_report(cfg, tally, written, reasons, [of("samples", "part-"), of("rejects", "part-split-")]);
    crate::stages::report::write_split(out, cfg, &report)?;
    crate::stages::report::write_section(out, "spark", spark)?;
    crate::stages::card::write(out)?;
    Ok(report)
}

fn add_tally(t: &mut Tally, o: Tally) {
    t.games_in += o.games_in;
    t.games_replayed += o.games_replayed;
    t.moves += o.moves;
    t.samples_before_dedup += o.samples_before_dedup;
    t.games_with_consecutive_moves += o.games_with_consecutive_moves;
    for (k, v) in o.dropped {
        *t.dropped.entry(k).or_default() += v;
    }
}

fn add_written(w: &mut Written, o: Written) {
    w.samples += o.samples;
    for (k, v) in o.samples_by_split {
        *w.samples_by_split.entry(k).or_default() += v;
    }
    for (k, v) in o.tag_counts {
        *w.tag_counts.entry(k).or_default() += v;
    }
}

/// The split report of the whole corpus from the parts' tallies: the same fields as one
/// process's (the dedup index's memory figures are Spark's, so they are zero here).
fn split_report(
    cfg: &Config,
    tally: Tally,
    written: Written,
    rejected_by_reason: BTreeMap<String, u64>,
    [shards, reject_shards]: [Vec<crate::storage::ShardInfo>; 2],
) -> SplitReport {
    let duplicate_games = rejected_by_reason.get(crate::reject::Reject::DuplicateGame.as_str()).copied().unwrap_or(0);
    let mut report = SplitReport {
        games_in: tally.games_in + duplicate_games,
        games_replayed: tally.games_replayed,
        games_rejected: rejected_by_reason.values().sum(),
        rejected_by_reason,
        duplicate_games,
        moves: tally.moves,
        samples_before_dedup: tally.samples_before_dedup,
        samples: written.samples,
        tag_counts: written.tag_counts,
        dedup: (cfg.split.dedup != DedupMode::Off).then(|| DedupStats {
            observations: tally.samples_before_dedup,
            unique_positions: written.samples,
            ..Default::default()
        }),
        dropped: tally.dropped,
        games_with_consecutive_moves: tally.games_with_consecutive_moves,
        samples_by_split: written.samples_by_split,
        shards,
        reject_shards,
        memory: MemoryReport { budget: cfg.memory(), ..Default::default() },
        ..Default::default()
    };
    report.accounting = SampleAccounting::of(&report);
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranges(p: &Plan) -> Vec<(u64, u64)> {
        p.parts.iter().map(|r| (r.first, r.end)).collect()
    }

    #[test]
    fn parts_cover_the_walk_in_order_with_about_equal_bytes() {
        let p = plan_sizes(&[10, 10, 10, 10, 10, 10, 10, 10], 4);
        assert_eq!(ranges(&p), vec![(0, 2), (2, 4), (4, 6), (6, 8)]);
        assert_eq!(p.parts.iter().map(|r| r.bytes).collect::<Vec<_>>(), vec![20; 4]);
        // One large archive is a part of its own; every part keeps at least one entry.
        let p = plan_sizes(&[1, 1000, 1, 1, 1], 3);
        assert_eq!(ranges(&p), vec![(0, 2), (2, 3), (3, 5)]);
        let p = plan_sizes(&[1000, 1, 1], 3);
        assert_eq!(ranges(&p), vec![(0, 1), (1, 2), (2, 3)]);
        // More parts than entries: one part per entry; no entries: one empty part.
        assert_eq!(ranges(&plan_sizes(&[5, 5], 8)), vec![(0, 1), (1, 2)]);
        assert_eq!(ranges(&plan_sizes(&[], 4)), vec![(0, 0)]);
        assert_eq!(ranges(&plan_sizes(&[0, 0, 0], 2)), vec![(0, 2), (2, 3)]);
        for n in 1..12 {
            let sizes: Vec<u64> = (0..10u64).map(|i| (i * 37) % 11).collect();
            let p = plan_sizes(&sizes, n);
            assert_eq!(p.parts.len(), n.min(10));
            assert_eq!(p.parts.first().unwrap().first, 0);
            assert_eq!(p.parts.last().unwrap().end, 10);
            for w in p.parts.windows(2) {
                assert_eq!(w[0].end, w[1].first);
                assert!(w[0].first < w[0].end, "{n}: {:?}", p.parts);
            }
            assert_eq!(p.parts.iter().map(|r| r.bytes).sum::<u64>(), sizes.iter().sum::<u64>());
        }
    }

    #[test]
    fn whole_table_names_sort_in_canonical_order() {
        assert_eq!(whole_name("part-train-00000.parquet", 3), "part-train-00003-00000.parquet");
        assert_eq!(whole_name("part-00001.parquet", 12), "part-00012-00001.parquet");
        assert_eq!(whole_name("part-split-00000.parquet", 0), "part-split-00000-00000.parquet");
        let mut names = vec![
            whole_name("part-train-00001.parquet", 0),
            whole_name("part-train-00000.parquet", 1),
            whole_name("part-train-00000.parquet", 0),
        ];
        names.sort();
        assert_eq!(
            names,
            ["part-train-00000-00000.parquet", "part-train-00000-00001.parquet", "part-train-00001-00000.parquet"]
        );
    }

    #[test]
    fn a_cursor_from_rows_answers_like_the_index() {
        let mut c = KeptCursor::from_rows(vec![(7, [7; 16], 2, vec![(3, 1), (5, 1)]), (2, [2; 16], 1, vec![(9, 1)])]);
        assert!(c.get(0).unwrap().is_none());
        let k = c.get(2).unwrap().unwrap();
        assert_eq!((k.row, k.count, k.dist), (2, 1, &[(9u16, 1u32)][..]));
        assert!(c.get(5).unwrap().is_none());
        let k = c.get(7).unwrap().unwrap();
        assert_eq!((k.key, k.count, k.dist), ([7; 16], 2, &[(3u16, 1u32), (5, 1)][..]));
        assert!(c.get(8).unwrap().is_none());
    }
}
