//! `kibo stats`: summary tables of an output folder, computed with Polars (cargo
//! feature `query`).
//!
//! [`compute`] scans `DIR/{games,rejects,samples}/*.parquet` lazily; Polars does the
//! scans, group-bys, explodes and sorts, and only the small aggregates come back to
//! Rust, where they are ordered and labelled into fixed-type tables (text labels,
//! `u64` counts, `f64` shares). A missing table folder counts as an empty table and a
//! missing column as all-null (a missing `dup_count` as all 1), so the stats of an
//! output written with dedup, tags or rejects off still compute.
//!
//! Tables (see [`Stats`]): `summary`, `games_by_source`, `rejects`,
//! `rejects_by_reason`, `samples_by_split`, `tags`, `result_kinds`, `winners`, `score_checks`,
//! `ranks`, `move_numbers`, `top_positions`, `duplicate_games`. [`Stats::write`] puts
//! each in `DIR/stats/<table>.csv` and all of them in `DIR/stats/stats.json`, with
//! deterministic bytes.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use polars::prelude::*;
use serde_json::{json, Map, Value};

use crate::game::hex;
use crate::tactics::TAG_NAMES;

/// Width of a `move_numbers` bucket (1–25, 26–50, …).
pub const MOVE_BUCKET: u64 = 25;
/// How many positions `top_positions` lists.
pub const TOP_POSITIONS: u32 = 10;
/// Label of the totals row in `games_by_source`, `rejects_by_reason` and `samples_by_split`.
pub const TOTAL: &str = "(total)";
/// Label of a null rank.
pub const UNKNOWN: &str = "unknown";
/// Label of a null key other than a rank (`winner` null = no winner is `none`).
pub const MISSING: &str = "(null)";
/// Version of the `stats.json` layout.
pub const STATS_VERSION: u32 = 1;

/// The summary tables, each a small Polars `DataFrame` in a fixed row order.
pub struct Stats {
    /// `metric`, `value` (null when unknown): games_found, games_kept, games_rejected,
    /// games_rejected_filter, games_rejected_split, games_replayed, duplicate_games,
    /// samples, samples_before_dedup (sum of `dup_count`), unique_positions,
    /// repeated_positions (rows with `dup_count` > 1), tactical_samples (null without tags).
    pub summary: DataFrame,
    /// `source`, `found` (kept + rejected by filter), `kept` (rows of `games`),
    /// `rejected` (rows of `rejects`), `rejected_filter`, `rejected_split`,
    /// `replayed` (kept − rejected_split); by source, then a `(total)` row.
    pub games_by_source: DataFrame,
    /// `stage`, `reason`, `source`, `games`; sorted by the three keys.
    pub rejects: DataFrame,
    /// `stage`, `reason`, `games`; sorted by stage and reason, then a `(total)` row.
    pub rejects_by_reason: DataFrame,
    /// `split`, `samples`, `positions` (sum of `dup_count` = samples before dedup),
    /// `share` (of samples); train, val, test, others by name, then a `(total)` row.
    pub samples_by_split: DataFrame,
    /// `tag`, `samples`, `share`: every tag name (zeros included) by count (descending)
    /// then name, then `is_tactical`; empty when no sample carries tags (`split.tags =
    /// false` leaves the tag columns null).
    pub tags: DataFrame,
    /// `result_kind`, `games`; by count (descending) then name.
    pub result_kinds: DataFrame,
    /// `winner` (`B`, `W`, `none`), `games`; by count (descending) then name.
    pub winners: DataFrame,
    /// `score_check` (`agrees`, `margin_differs`, `winner_differs`, `undecided`, `not
    /// counted` for games that did not end by counting), `games`; by count (descending)
    /// then name.
    pub score_checks: DataFrame,
    /// `rank` (label: `5k`, `3d`, `2p`, `unknown`), `rank_num`, `black`, `white`;
    /// by `rank_num`, `unknown` last.
    pub ranks: DataFrame,
    /// `bucket` (`1-25`), `from`, `to`, `samples`, `share`; every bucket from the first
    /// to the last that has samples.
    pub move_numbers: DataFrame,
    /// The most repeated positions: `position_hash` (hex), `occurrences` (sum of
    /// `dup_count` over the rows with that hash), `rows`, and `source`, `move_number`,
    /// `move_gtp`, `split` of its first row in shard order; by occurrences (descending)
    /// then hash.
    pub top_positions: DataFrame,
    /// Rejects with reason `duplicate_game`: `source`, `source_file`, `member`,
    /// `game_index`, `detail`, `game_id`; sorted by the first four.
    pub duplicate_games: DataFrame,
}

/// Computes every table from the output folder `out`.
pub fn compute(out: &Path) -> Result<Stats> {
    let games = Input::open(out, "games")?;
    let rejects = Input::open(out, "rejects")?;
    let samples = Input::open(out, "samples")?;
    if games.lf.is_none() && rejects.lf.is_none() && samples.lf.is_none() {
        bail!("{} has no games, rejects or samples Parquet files; is it a kibo output folder?", out.display());
    }

    let counts = game_counts(&games, &rejects)?;
    let games_by_source = games_by_source_table(&counts)?;
    let rejects_table = rejects_table(&counts)?;
    let rejects_by_reason = rejects_by_reason_table(&counts)?;

    let dup_sum = dup_sum_expr(&samples);
    let totals = sample_totals(&samples, &dup_sum)?;
    let samples_by_split = samples_by_split_table(&samples, &dup_sum, &totals)?;
    let tags = tags_table(&samples, &totals)?;

    let result_kinds = by_count_table(group(&games, &[games.key("result_kind")], &[])?, MISSING, "result_kind")?;
    let winners = by_count_table(group(&games, &[games.key("winner")], &[])?, "none", "winner")?;
    let score_checks = by_count_table(group(&games, &[games.key("score_check")], &[])?, "not counted", "score_check")?;
    let ranks = ranks_table(&games)?;

    let move_numbers = move_numbers_table(&samples, totals.n_samples)?;
    let top_positions = top_positions_table(&samples, &dup_sum)?;
    let duplicate_games = duplicate_games_table(&rejects)?;
    let summary = summary_table(&counts.total, duplicate_games.height() as u64, &totals)?;

    Ok(Stats {
        summary,
        games_by_source,
        rejects: rejects_table,
        rejects_by_reason,
        samples_by_split,
        tags,
        result_kinds,
        winners,
        score_checks,
        ranks,
        move_numbers,
        top_positions,
        duplicate_games,
    })
}

// ---------------------------------------------------------------------------------------------
// The tables

/// Game counts of one source (or of all of them).
#[derive(Default)]
struct BySource {
    /// Rows of `games`.
    kept: u64,
    /// Rows of `rejects`.
    rejected: u64,
    /// Rejects of stage `filter`.
    filter: u64,
    /// Rejects of stage `split`.
    split: u64,
}

/// The counts behind `games_by_source`, `rejects` and `rejects_by_reason`.
struct GameCounts {
    /// Per source (null source = [`MISSING`]), in name order.
    by_source: BTreeMap<String, BySource>,
    /// Rejects per (stage, reason).
    by_reason: BTreeMap<(String, String), u64>,
    /// `(stage, reason, source, games)`, sorted.
    rej_rows: Vec<(String, String, String, u64)>,
    /// Sum over the sources.
    total: BySource,
}

/// Groups `games` by source and `rejects` by stage, reason and source.
fn game_counts(games: &Input, rejects: &Input) -> Result<GameCounts> {
    let kept_by_source = group(games, &[games.key("source")], &[])?;
    let rej = group(rejects, &[rejects.key("stage"), rejects.key("reason"), rejects.key("source")], &[])?;

    let mut by_source: BTreeMap<String, BySource> = BTreeMap::new();
    for g in &kept_by_source {
        by_source.entry(label(&g.keys[0], MISSING)).or_default().kept += g.len;
    }
    let mut rej_rows: Vec<(String, String, String, u64)> = Vec::new();
    let mut by_reason: BTreeMap<(String, String), u64> = BTreeMap::new();
    for g in &rej {
        let (stage, reason, source) =
            (label(&g.keys[0], MISSING), label(&g.keys[1], MISSING), label(&g.keys[2], MISSING));
        let e = by_source.entry(source.clone()).or_default();
        e.rejected += g.len;
        match stage.as_str() {
            "filter" => e.filter += g.len,
            "split" => e.split += g.len,
            _ => {}
        }
        *by_reason.entry((stage.clone(), reason.clone())).or_default() += g.len;
        rej_rows.push((stage, reason, source, g.len));
    }
    rej_rows.sort();

    let mut t = BySource::default();
    for b in by_source.values() {
        t = BySource {
            kept: t.kept + b.kept,
            rejected: t.rejected + b.rejected,
            filter: t.filter + b.filter,
            split: t.split + b.split,
        };
    }
    Ok(GameCounts { by_source, by_reason, rej_rows, total: t })
}

/// The `games_by_source` table: one row per source, then the `(total)` row.
fn games_by_source_table(c: &GameCounts) -> Result<DataFrame> {
    let rows: Vec<(&str, &BySource)> =
        c.by_source.iter().map(|(n, b)| (n.as_str(), b)).chain([(TOTAL, &c.total)]).collect();
    let src = rows.iter().map(|r| Some(r.0.to_string())).collect();
    let found = rows.iter().map(|r| r.1.kept + r.1.filter).collect();
    let kept = rows.iter().map(|r| r.1.kept).collect();
    let rejected = rows.iter().map(|r| r.1.rejected).collect();
    let filter = rows.iter().map(|r| r.1.filter).collect();
    let split = rows.iter().map(|r| r.1.split).collect();
    let replayed = rows.iter().map(|r| r.1.kept.saturating_sub(r.1.split)).collect();
    frame(vec![
        Col::str("source", src),
        Col::u64("found", found),
        Col::u64("kept", kept),
        Col::u64("rejected", rejected),
        Col::u64("rejected_filter", filter),
        Col::u64("rejected_split", split),
        Col::u64("replayed", replayed),
    ])
}

/// The `rejects` table: games per stage, reason and source.
fn rejects_table(c: &GameCounts) -> Result<DataFrame> {
    let rej_rows = &c.rej_rows;
    frame(vec![
        Col::str("stage", rej_rows.iter().map(|r| Some(r.0.clone())).collect()),
        Col::str("reason", rej_rows.iter().map(|r| Some(r.1.clone())).collect()),
        Col::str("source", rej_rows.iter().map(|r| Some(r.2.clone())).collect()),
        Col::u64("games", rej_rows.iter().map(|r| r.3).collect()),
    ])
}

/// The `rejects_by_reason` table: games per stage and reason, then the `(total)` row.
fn rejects_by_reason_table(c: &GameCounts) -> Result<DataFrame> {
    let mut rr: Vec<(Option<String>, Option<String>, u64)> =
        c.by_reason.iter().map(|((s, r), n)| (Some(s.clone()), Some(r.clone()), *n)).collect();
    rr.push((Some(TOTAL.into()), None, c.total.rejected));
    frame(vec![
        Col::str("stage", rr.iter().map(|r| r.0.clone()).collect()),
        Col::str("reason", rr.iter().map(|r| r.1.clone()).collect()),
        Col::u64("games", rr.iter().map(|r| r.2).collect()),
    ])
}

/// Sum of `dup_count` (per group or overall); without the column every row counts once.
fn dup_sum_expr(samples: &Input) -> Expr {
    if samples.has("dup_count") { col("dup_count").cast(DataType::UInt64).sum() } else { len() }.cast(DataType::UInt64)
}

/// Numbers over all samples.
struct SampleTotals {
    /// Rows.
    n_samples: u64,
    /// Sum of `dup_count`.
    n_positions: u64,
    /// Distinct `position_hash` values (`None` without the column).
    unique: Option<u64>,
    /// Rows with `dup_count` > 1.
    repeated: Option<u64>,
    /// Rows that carry tags.
    tagged: u64,
    /// Sum of `is_tactical` (`None` when no row carries tags).
    tactical: Option<u64>,
}

/// One Polars pass over `samples` for its [`SampleTotals`].
fn sample_totals(samples: &Input, dup_sum: &Expr) -> Result<SampleTotals> {
    let mut totals = vec![len().cast(DataType::UInt64).alias("rows"), dup_sum.clone().alias("positions")];
    let has_hash = samples.has("position_hash");
    if has_hash {
        totals.push(col("position_hash").n_unique().cast(DataType::UInt64).alias("unique"));
    }
    if samples.has("dup_count") {
        totals.push(col("dup_count").gt(lit(1u32)).cast(DataType::UInt64).sum().alias("repeated"));
    }
    // Rows that carry tags: with `split.tags = false` the tag columns are all null.
    let tag_col = ["tags", "tag_mask"].into_iter().find(|c| samples.has(c));
    if let Some(c) = tag_col {
        totals.push(col(c).is_not_null().cast(DataType::UInt64).sum().cast(DataType::UInt64).alias("tagged"));
    }
    if samples.has("is_tactical") {
        totals.push(col("is_tactical").cast(DataType::UInt64).sum().cast(DataType::UInt64).alias("tactical"));
    }
    let (n_samples, n_positions, unique, repeated, tagged, tactical) = match samples.lf() {
        None => (0, 0, None, None, 0, None),
        Some(lf) => {
            let df = lf.select(totals).collect()?;
            let one = |name: &str| -> Result<Option<u64>> {
                if df.schema().get(name).is_none() {
                    return Ok(None);
                }
                Ok(ints(&df, name)?.first().copied().flatten().map(|v| v as u64).or(Some(0)))
            };
            let repeated = if samples.has("dup_count") { one("repeated")? } else { Some(0) };
            let tagged = one("tagged")?.unwrap_or(0);
            let tactical = if tagged > 0 { one("tactical")? } else { None };
            (one("rows")?.unwrap_or(0), one("positions")?.unwrap_or(0), one("unique")?, repeated, tagged, tactical)
        }
    };
    Ok(SampleTotals { n_samples, n_positions, unique, repeated, tagged, tactical })
}

/// The `samples_by_split` table: train, val, test, others by name, then `(total)`.
fn samples_by_split_table(samples: &Input, dup_sum: &Expr, totals: &SampleTotals) -> Result<DataFrame> {
    let n_samples = totals.n_samples;
    let splits = group(samples, &[samples.key("split")], std::slice::from_ref(dup_sum))?;
    let mut sp: Vec<(Option<String>, u64, u64)> =
        splits.iter().map(|g| (g.keys[0].clone(), g.len, g.aggs[0].unwrap_or(0) as u64)).collect();
    let split_rank = |s: &Option<String>| match s.as_deref() {
        Some("train") => (0, String::new()),
        Some("val") => (1, String::new()),
        Some("test") => (2, String::new()),
        Some(other) => (3, other.to_string()),
        None => (4, String::new()),
    };
    sp.sort_by_key(|r| split_rank(&r.0));
    sp.push((Some(TOTAL.into()), n_samples, totals.n_positions));
    frame(vec![
        Col::str("split", sp.iter().map(|r| Some(label(&r.0, MISSING))).collect()),
        Col::u64("samples", sp.iter().map(|r| r.1).collect()),
        Col::u64("positions", sp.iter().map(|r| r.2).collect()),
        Col::f64("share", sp.iter().map(|r| share(r.1, n_samples)).collect()),
    ])
}

/// Samples per tag name, from the `tags` list column or else the `tag_mask` bits;
/// `None` when no sample carries tags.
fn tag_counts(samples: &Input, tagged: u64) -> Result<Option<BTreeMap<String, u64>>> {
    let mut tag_counts: BTreeMap<String, u64> = BTreeMap::new();
    let mut have_tags = false;
    if let (Some(lf), true) = (samples.lf(), tagged > 0) {
        if samples.has("tags") {
            have_tags = true;
            let opts = ExplodeOptions { empty_as_null: false, keep_nulls: false };
            let df = lf
                .select([col("tags").explode(opts).cast(DataType::String).alias("tag")])
                .filter(col("tag").is_not_null())
                .group_by([col("tag")])
                .agg([len().cast(DataType::UInt64).alias("n")])
                .collect()?;
            for (tag, n) in strs(&df, "tag")?.into_iter().zip(ints(&df, "n")?) {
                *tag_counts.entry(tag.unwrap_or_default()).or_default() += n.unwrap_or(0) as u64;
            }
        } else if samples.has("tag_mask") {
            // No tag names stored: decode the bit mask (bit i = TAG_NAMES[i]).
            have_tags = true;
            let exprs: Vec<Expr> = TAG_NAMES
                .iter()
                .enumerate()
                .map(|(i, name)| {
                    col("tag_mask")
                        .cast(DataType::UInt32)
                        .and(lit(1u32 << i))
                        .neq(lit(0u32))
                        .cast(DataType::UInt64)
                        .sum()
                        .cast(DataType::UInt64)
                        .alias(*name)
                })
                .collect();
            let df = lf.select(exprs).collect()?;
            for name in TAG_NAMES {
                tag_counts.insert(name.to_string(), ints(&df, name)?.first().copied().flatten().unwrap_or(0) as u64);
            }
        }
    }
    Ok(have_tags.then_some(tag_counts))
}

/// The `tags` table: every tag name by count then name, then `is_tactical`.
fn tags_table(samples: &Input, totals: &SampleTotals) -> Result<DataFrame> {
    let mut tag_rows: Vec<(String, u64)> = Vec::new();
    if let Some(mut tag_counts) = tag_counts(samples, totals.tagged)? {
        for name in TAG_NAMES {
            tag_counts.entry(name.to_string()).or_default();
        }
        tag_rows = tag_counts.into_iter().collect();
        tag_rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    }
    if let Some(n) = totals.tactical {
        tag_rows.push(("is_tactical".into(), n));
    }
    frame(vec![
        Col::str("tag", tag_rows.iter().map(|r| Some(r.0.clone())).collect()),
        Col::u64("samples", tag_rows.iter().map(|r| r.1).collect()),
        Col::f64("share", tag_rows.iter().map(|r| share(r.1, totals.n_samples)).collect()),
    ])
}

/// A `name`, `games` table of one-key groups (null key = `null`), by count
/// (descending) then name (`result_kinds`, `winners`).
fn by_count_table(groups: Vec<Group>, null: &str, name: &'static str) -> Result<DataFrame> {
    let mut v: Vec<(String, u64)> = groups.into_iter().map(|g| (label(&g.keys[0], null), g.len)).collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    frame(vec![
        Col::str(name, v.iter().map(|r| Some(r.0.clone())).collect()),
        Col::u64("games", v.iter().map(|r| r.1).collect()),
    ])
}

/// The `ranks` table: games per black and white rank, by rank, `unknown` last.
fn ranks_table(games: &Input) -> Result<DataFrame> {
    let mut ranks: BTreeMap<(bool, i64), (u64, u64)> = BTreeMap::new(); // (is_unknown, num) -> (black, white)
    for (side, name) in [(0, "black_rank_num"), (1, "white_rank_num")] {
        for g in group(games, &[games.key(name)], &[])? {
            let num = g.keys[0].as_deref().and_then(|s| s.parse::<i64>().ok());
            let e = ranks.entry((num.is_none(), num.unwrap_or(0))).or_default();
            if side == 0 {
                e.0 += g.len
            } else {
                e.1 += g.len
            }
        }
    }
    let rank_keys: Vec<Option<i64>> = ranks.keys().map(|(unknown, n)| (!unknown).then_some(*n)).collect();
    frame(vec![
        Col::str("rank", rank_keys.iter().map(|n| Some(rank_label(*n))).collect()),
        Col::i64("rank_num", rank_keys),
        Col::u64("black", ranks.values().map(|v| v.0).collect()),
        Col::u64("white", ranks.values().map(|v| v.1).collect()),
    ])
}

/// The `move_numbers` histogram: samples per bucket of [`MOVE_BUCKET`] move numbers.
fn move_numbers_table(samples: &Input, n_samples: u64) -> Result<DataFrame> {
    // Polars counts per move number (at most a few thousand groups); buckets are
    // formed here (integer floor division in Polars needs the `round_series` feature).
    let mut buckets: BTreeMap<i64, u64> = BTreeMap::new();
    for g in group(samples, &[samples.key("move_number")], &[])? {
        if let Some(m) = g.keys[0].as_deref().and_then(|s| s.parse::<i64>().ok()) {
            *buckets.entry((m.max(1) - 1) / MOVE_BUCKET as i64).or_default() += g.len;
        }
    }
    let last = buckets.keys().next_back().copied().unwrap_or(-1);
    let first = buckets.keys().next().copied().unwrap_or(0);
    let bs: Vec<(u64, u64, u64)> = (first..=last)
        .map(|b| {
            let from = b as u64 * MOVE_BUCKET + 1;
            (from, from + MOVE_BUCKET - 1, buckets.get(&b).copied().unwrap_or(0))
        })
        .collect();
    frame(vec![
        Col::str("bucket", bs.iter().map(|r| Some(format!("{}-{}", r.0, r.1))).collect()),
        Col::u64("from", bs.iter().map(|r| r.0).collect()),
        Col::u64("to", bs.iter().map(|r| r.1).collect()),
        Col::u64("samples", bs.iter().map(|r| r.2).collect()),
        Col::f64("share", bs.iter().map(|r| share(r.2, n_samples)).collect()),
    ])
}

/// The `top_positions` table: the [`TOP_POSITIONS`] most repeated position hashes.
fn top_positions_table(samples: &Input, dup_sum: &Expr) -> Result<DataFrame> {
    let mut top = (vec![], vec![], vec![], vec![], vec![], vec![], vec![]);
    if let (Some(lf), true) = (samples.lf(), samples.has("position_hash")) {
        let mut aggs = vec![dup_sum.clone().alias("occurrences"), len().cast(DataType::UInt64).alias("rows")];
        for c in ["source", "move_number", "move_gtp", "split"] {
            if samples.has(c) {
                aggs.push(col(c).cast(DataType::String).first().alias(c));
            }
        }
        let df = lf
            .group_by([col("position_hash")])
            .agg(aggs)
            .sort_by_exprs(
                [col("occurrences"), col("position_hash")],
                SortMultipleOptions::default().with_order_descending_multi([true, false]).with_maintain_order(true),
            )
            .limit(TOP_POSITIONS)
            .collect()?;
        let opt_strs = |name: &str| -> Result<Vec<Option<String>>> {
            if df.schema().get(name).is_some() {
                strs(&df, name)
            } else {
                Ok(vec![None; df.height()])
            }
        };
        let hashes = df.column("position_hash")?.binary()?.iter().map(|h| h.map(hex)).collect();
        top = (
            hashes,
            ints(&df, "occurrences")?.into_iter().map(|v| v.unwrap_or(0) as u64).collect(),
            ints(&df, "rows")?.into_iter().map(|v| v.unwrap_or(0) as u64).collect(),
            opt_strs("source")?,
            opt_strs("move_number")?.into_iter().map(|v| v.and_then(|s| s.parse::<i64>().ok())).collect(),
            opt_strs("move_gtp")?,
            opt_strs("split")?,
        );
    }
    frame(vec![
        Col::str("position_hash", top.0),
        Col::u64("occurrences", top.1),
        Col::u64("rows", top.2),
        Col::str("source", top.3),
        Col::i64("move_number", top.4),
        Col::str("move_gtp", top.5),
        Col::str("split", top.6),
    ])
}

/// The `duplicate_games` table: rejects with reason `duplicate_game`, sorted.
fn duplicate_games_table(rejects: &Input) -> Result<DataFrame> {
    let dup_cols = ["source", "source_file", "member", "game_index", "detail", "game_id"];
    let mut dups: Vec<Vec<Option<String>>> = Vec::new();
    if let (Some(lf), true) = (rejects.lf(), rejects.has("reason")) {
        let sel: Vec<Expr> =
            dup_cols.iter().filter(|c| rejects.has(c)).map(|c| col(*c).cast(DataType::String).alias(*c)).collect();
        if !sel.is_empty() {
            let df = lf.filter(col("reason").cast(DataType::String).eq(lit("duplicate_game"))).select(sel).collect()?;
            let cols: Vec<Vec<Option<String>>> = dup_cols
                .iter()
                .map(|c| if df.schema().get(c).is_some() { strs(&df, c) } else { Ok(vec![None; df.height()]) })
                .collect::<Result<_>>()?;
            dups = (0..df.height()).map(|i| cols.iter().map(|c| c[i].clone()).collect()).collect();
        }
    }
    // Sort by source, source_file, member, then game_index as a number.
    dups.sort_by(|a, b| {
        let idx = |r: &Vec<Option<String>>| r[3].as_deref().and_then(|s| s.parse::<u64>().ok());
        (&a[0], &a[1], &a[2], idx(a), &a[4], &a[5]).cmp(&(&b[0], &b[1], &b[2], idx(b), &b[4], &b[5]))
    });
    frame(vec![
        Col::str("source", dups.iter().map(|r| r[0].clone()).collect()),
        Col::str("source_file", dups.iter().map(|r| r[1].clone()).collect()),
        Col::str("member", dups.iter().map(|r| r[2].clone()).collect()),
        Col::i64("game_index", dups.iter().map(|r| r[3].as_deref().and_then(|s| s.parse().ok())).collect()),
        Col::str("detail", dups.iter().map(|r| r[4].clone()).collect()),
        Col::str("game_id", dups.iter().map(|r| r[5].clone()).collect()),
    ])
}

/// The `summary` table (metrics in the order documented on [`Stats::summary`]).
fn summary_table(t: &BySource, n_dup_games: u64, s: &SampleTotals) -> Result<DataFrame> {
    let n_samples = s.n_samples;
    let summary_rows: Vec<(&str, Option<u64>)> = vec![
        ("games_found", Some(t.kept + t.filter)),
        ("games_kept", Some(t.kept)),
        ("games_rejected", Some(t.rejected)),
        ("games_rejected_filter", Some(t.filter)),
        ("games_rejected_split", Some(t.split)),
        ("games_replayed", Some(t.kept.saturating_sub(t.split))),
        ("duplicate_games", Some(n_dup_games)),
        ("samples", Some(n_samples)),
        ("samples_before_dedup", Some(s.n_positions)),
        ("unique_positions", s.unique.or((n_samples == 0).then_some(0))),
        ("repeated_positions", s.repeated),
        ("tactical_samples", s.tactical),
    ];
    frame(vec![
        Col::str("metric", summary_rows.iter().map(|r| Some(r.0.to_string())).collect()),
        Col::i64("value", summary_rows.iter().map(|r| r.1.map(|v| v as i64)).collect()),
    ])
}

impl Stats {
    /// Every table with its name, in print order.
    pub fn tables(&self) -> [(&'static str, &DataFrame); 13] {
        [
            ("summary", &self.summary),
            ("games_by_source", &self.games_by_source),
            ("rejects_by_reason", &self.rejects_by_reason),
            ("rejects", &self.rejects),
            ("samples_by_split", &self.samples_by_split),
            ("tags", &self.tags),
            ("result_kinds", &self.result_kinds),
            ("winners", &self.winners),
            ("score_checks", &self.score_checks),
            ("ranks", &self.ranks),
            ("move_numbers", &self.move_numbers),
            ("top_positions", &self.top_positions),
            ("duplicate_games", &self.duplicate_games),
        ]
    }

    /// Human-readable tables: a title, a header, aligned columns (numbers to the
    /// right), `-` for null, shares as percentages.
    pub fn print(&self, w: &mut impl Write) -> io::Result<()> {
        for (i, (name, df)) in self.tables().into_iter().enumerate() {
            if i > 0 {
                writeln!(w)?;
            }
            let (names, rows) = table_values(df).map_err(io::Error::other)?;
            writeln!(w, "{} ({} row{})", title(name), rows.len(), if rows.len() == 1 { "" } else { "s" })?;
            if rows.is_empty() {
                writeln!(w, "  (none)")?;
                continue;
            }
            let text: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    r.iter()
                        .zip(&names)
                        .map(|(v, n)| match v {
                            Value::Null => "-".to_string(),
                            Value::String(s) => s.clone(),
                            Value::Number(x) if n == "share" => format!("{:.2}%", x.as_f64().unwrap_or(0.0) * 100.0),
                            other => other.to_string(),
                        })
                        .collect()
                })
                .collect();
            let numeric: Vec<bool> = (0..names.len()).map(|c| rows.iter().all(|r| !r[c].is_string())).collect();
            let width: Vec<usize> = (0..names.len())
                .map(|c| text.iter().map(|r| r[c].chars().count()).chain([names[c].chars().count()]).max().unwrap_or(0))
                .collect();
            let line = |cells: &[String]| -> String {
                let parts: Vec<String> = cells
                    .iter()
                    .enumerate()
                    .map(|(c, s)| {
                        let pad = " ".repeat(width[c] - s.chars().count());
                        if numeric[c] {
                            format!("{pad}{s}")
                        } else {
                            format!("{s}{pad}")
                        }
                    })
                    .collect();
                format!("  {}", parts.join("  ").trim_end())
            };
            writeln!(w, "{}", line(&names))?;
            writeln!(w, "{}", line(&width.iter().map(|n| "-".repeat(*n)).collect::<Vec<_>>()))?;
            for r in &text {
                writeln!(w, "{}", line(r))?;
            }
        }
        Ok(())
    }

    /// Writes `dir/stats/<table>.csv` for every table and `dir/stats/stats.json` with
    /// all of them (`{"version", "counts", "tables": {name: {"columns", "rows"}}}`).
    /// Same input, same bytes. Each file goes to a temporary name first, then is
    /// renamed into place.
    pub fn write(&self, dir: &Path) -> Result<()> {
        let sd = dir.join("stats");
        fs::create_dir_all(&sd).with_context(|| format!("creating {}", sd.display()))?;
        let mut tables = Map::new();
        for (name, df) in self.tables() {
            let (names, rows) = table_values(df)?;
            let mut csv = String::new();
            csv.push_str(&names.iter().map(|n| csv_field(n)).collect::<Vec<_>>().join(","));
            csv.push('\n');
            for r in &rows {
                let cells: Vec<String> = r
                    .iter()
                    .map(|v| match v {
                        Value::Null => String::new(),
                        Value::String(s) => csv_field(s),
                        other => other.to_string(),
                    })
                    .collect();
                csv.push_str(&cells.join(","));
                csv.push('\n');
            }
            crate::storage::write_atomic(&sd, &format!("{name}.csv"), csv.as_bytes())?;
            tables.insert(name.to_string(), json!({ "columns": names, "rows": rows }));
        }
        let doc = json!({ "version": STATS_VERSION, "counts": self.counts(), "tables": tables });
        let mut bytes = serde_json::to_vec_pretty(&doc)?;
        bytes.push(b'\n');
        crate::storage::write_atomic(&sd, "stats.json", &bytes).map_err(anyhow::Error::from)
    }

    /// The key numbers as JSON: `games_kept`, `games_rejected`, `games_replayed`,
    /// `rejected_by_reason` {reason: n, all stages}, `samples`, `samples_before_dedup`,
    /// `samples_by_split` {split: n}, `tag_counts` {tag: n, is_tactical: n},
    /// `unique_positions` (null when unknown), `duplicate_games`.
    pub fn counts(&self) -> Value {
        let summary: BTreeMap<String, Value> = pairs(&self.summary, "metric", "value").into_iter().collect();
        let get = |k: &str| summary.get(k).cloned().unwrap_or(Value::Null);
        let mut by_reason: BTreeMap<String, u64> = BTreeMap::new();
        for (k, v) in pairs(&self.rejects, "reason", "games") {
            *by_reason.entry(k).or_default() += v.as_u64().unwrap_or(0);
        }
        let by_split: Map<String, Value> =
            pairs(&self.samples_by_split, "split", "samples").into_iter().filter(|(k, _)| k != TOTAL).collect();
        let tags: Map<String, Value> = pairs(&self.tags, "tag", "samples").into_iter().collect();
        json!({
            "games_kept": get("games_kept"),
            "games_rejected": get("games_rejected"),
            "games_replayed": get("games_replayed"),
            "rejected_by_reason": by_reason,
            "samples": get("samples"),
            "samples_before_dedup": get("samples_before_dedup"),
            "samples_by_split": by_split,
            "tag_counts": tags,
            "unique_positions": get("unique_positions"),
            "duplicate_games": get("duplicate_games"),
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Input

/// One table folder: a lazy scan of its shards (none when it has no shards) and its schema.
struct Input {
    lf: Option<LazyFrame>,
    schema: Option<SchemaRef>,
}

/// A group key: its output name and the expression (text), or `None` when the column
/// is missing (every row then has a null key).
struct Key {
    name: &'static str,
    expr: Option<Expr>,
}

/// One group: its keys as text, its row count, and the extra aggregates as `i64`.
struct Group {
    keys: Vec<Option<String>>,
    len: u64,
    aggs: Vec<Option<i64>>,
}

impl Input {
    fn open(out: &Path, table: &str) -> Result<Input> {
        let dir = out.join(table);
        if !dir.is_dir() {
            return Ok(Input { lf: None, schema: None });
        }
        let mut files: Vec<PathBuf> = fs::read_dir(&dir)
            .with_context(|| format!("reading table folder {}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "parquet") && p.is_file())
            .collect();
        files.sort();
        if files.is_empty() {
            return Ok(Input { lf: None, schema: None });
        }
        let paths: Vec<PlRefPath> = files.iter().map(|p| PlRefPath::try_from_path(p)).collect::<PolarsResult<_>>()?;
        let mut lf = LazyFrame::scan_parquet_files(paths.into(), ScanArgsParquet::default())
            .map_err(anyhow::Error::from)
            .with_context(|| format!("scanning {}", dir.display()))?;
        let schema = lf
            .collect_schema()
            .map_err(anyhow::Error::from)
            .with_context(|| format!("reading the schema of {}", dir.display()))?;
        Ok(Input { lf: Some(lf), schema: Some(schema) })
    }

    fn lf(&self) -> Option<LazyFrame> {
        self.lf.clone()
    }

    fn has(&self, c: &str) -> bool {
        self.schema.as_ref().is_some_and(|s| s.get(c).is_some())
    }

    /// The column as a text key.
    fn key(&self, name: &'static str) -> Key {
        Key { name, expr: self.has(name).then(|| col(name).cast(DataType::String).alias(name)) }
    }
}

/// Row counts (and `aggs`, cast to `i64`) per combination of `keys`; groups of zero
/// rows are left out. Unordered: callers sort.
fn group(t: &Input, keys: &[Key], aggs: &[Expr]) -> Result<Vec<Group>> {
    let Some(lf) = t.lf() else { return Ok(Vec::new()) };
    let mut agg_exprs = vec![len().cast(DataType::UInt64).alias("__len")];
    agg_exprs.extend(aggs.iter().enumerate().map(|(i, e)| e.clone().cast(DataType::Int64).alias(format!("__agg{i}"))));
    let present: Vec<Expr> = keys.iter().filter_map(|k| k.expr.clone()).collect();
    let df = if present.is_empty() {
        lf.select(agg_exprs).collect()?
    } else {
        lf.group_by(present).agg(agg_exprs).collect()?
    };
    let key_cols: Vec<Vec<Option<String>>> = keys
        .iter()
        .map(|k| if k.expr.is_some() { strs(&df, k.name) } else { Ok(vec![None; df.height()]) })
        .collect::<Result<_>>()?;
    let lens = ints(&df, "__len")?;
    let agg_cols: Vec<Vec<Option<i64>>> =
        (0..aggs.len()).map(|i| ints(&df, &format!("__agg{i}"))).collect::<Result<_>>()?;
    Ok((0..df.height())
        .map(|i| Group {
            keys: key_cols.iter().map(|c| c[i].clone()).collect(),
            len: lens[i].unwrap_or(0) as u64,
            aggs: agg_cols.iter().map(|c| c[i]).collect(),
        })
        .filter(|g| g.len > 0)
        .collect())
}

fn strs(df: &DataFrame, name: &str) -> Result<Vec<Option<String>>> {
    let c = df.column(name)?.cast(&DataType::String)?;
    Ok(c.str()?.iter().map(|v| v.map(str::to_owned)).collect())
}

fn ints(df: &DataFrame, name: &str) -> Result<Vec<Option<i64>>> {
    let c = df.column(name)?.cast(&DataType::Int64)?;
    Ok(c.i64()?.iter().collect())
}

// ---------------------------------------------------------------------------------------------
// Output tables

/// A typed output column.
enum Col {
    Str(&'static str, Vec<Option<String>>),
    U64(&'static str, Vec<u64>),
    I64(&'static str, Vec<Option<i64>>),
    F64(&'static str, Vec<f64>),
}

impl Col {
    fn str(n: &'static str, v: Vec<Option<String>>) -> Col {
        Col::Str(n, v)
    }
    fn u64(n: &'static str, v: Vec<u64>) -> Col {
        Col::U64(n, v)
    }
    fn i64(n: &'static str, v: Vec<Option<i64>>) -> Col {
        Col::I64(n, v)
    }
    fn f64(n: &'static str, v: Vec<f64>) -> Col {
        Col::F64(n, v)
    }
}

fn frame(cols: Vec<Col>) -> Result<DataFrame> {
    let cols: Vec<Column> = cols
        .into_iter()
        .map(|c| match c {
            Col::Str(n, v) => Column::new(n.into(), v),
            Col::U64(n, v) => Column::new(n.into(), v),
            Col::I64(n, v) => Column::new(n.into(), v),
            Col::F64(n, v) => Column::new(n.into(), v),
        })
        .collect();
    Ok(DataFrame::new_infer_height(cols)?)
}

/// Column names and rows as JSON values (strings, integers, floats, null).
fn table_values(df: &DataFrame) -> Result<(Vec<String>, Vec<Vec<Value>>)> {
    let names: Vec<String> = df.get_column_names().iter().map(|n| n.to_string()).collect();
    let mut cols: Vec<Vec<Value>> = Vec::new();
    for c in df.columns() {
        let v: Vec<Value> = match c.dtype() {
            DataType::UInt64 => c.u64()?.iter().map(|v| v.map_or(Value::Null, Value::from)).collect(),
            DataType::Int64 => c.i64()?.iter().map(|v| v.map_or(Value::Null, Value::from)).collect(),
            DataType::Float64 => c.f64()?.iter().map(|v| v.map_or(Value::Null, Value::from)).collect(),
            _ => c.cast(&DataType::String)?.str()?.iter().map(|v| v.map_or(Value::Null, Value::from)).collect(),
        };
        cols.push(v);
    }
    let rows = (0..df.height()).map(|i| cols.iter().map(|c| c[i].clone()).collect()).collect();
    Ok((names, rows))
}

/// (key column as text, value column) for every row whose key is not null.
fn pairs(df: &DataFrame, k: &str, v: &str) -> Vec<(String, Value)> {
    let Ok((names, rows)) = table_values(df) else { return Vec::new() };
    let (Some(ki), Some(vi)) = (names.iter().position(|n| n == k), names.iter().position(|n| n == v)) else {
        return Vec::new();
    };
    rows.into_iter().filter_map(|r| r[ki].as_str().map(|s| (s.to_string(), r[vi].clone()))).collect()
}

fn label(v: &Option<String>, null: &str) -> String {
    v.clone().unwrap_or_else(|| null.to_string())
}

/// `5k`, `3d`, `2p` from kibo's numeric rank (kyu k → 1−k, dan d → d, pro p → 9+p).
fn rank_label(n: Option<i64>) -> String {
    match n {
        None => UNKNOWN.to_string(),
        Some(n) if n <= 0 => format!("{}k", 1 - n),
        Some(n) if n <= 9 => format!("{n}d"),
        Some(n) => format!("{}p", n - 9),
    }
}

/// `part / whole`, rounded to 6 decimals (0 when `whole` is 0).
fn share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        (part as f64 / whole as f64 * 1e6).round() / 1e6
    }
}

fn title(name: &str) -> String {
    let s = name.replace('_', " ");
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
