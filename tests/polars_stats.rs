#![cfg(feature = "query")]
//! `kibo::stats` (Polars) against numbers read independently: `report.json`,
//! `manifest.json` and row counts from the `parquet` crate's own reader
//! (`kibo::storage::read_table`). Runs the real binary; needs `--features query`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

/// Runs `kibo <args> --out <out> -q` from the crate root and asserts it succeeded.
fn kibo(args: &[&str], out: &Path) {
    let o = Command::new(env!("CARGO_BIN_EXE_kibo"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .args(["--out", out.to_str().unwrap(), "-q"])
        .output()
        .expect("kibo runs");
    assert!(o.status.success(), "kibo {args:?} failed: {}", String::from_utf8_lossy(&o.stderr));
}

fn read_json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))).expect("valid JSON")
}

/// Rows of `out/<table>/` counted with the parquet crate (no Polars involved).
fn parquet_rows(out: &Path, table: &str) -> u64 {
    let mut n = 0u64;
    kibo::storage::read_table(out, table, |b| {
        n += b.num_rows() as u64;
        Ok(())
    })
    .expect("table reads");
    n
}

/// Tag names (and `is_tactical` trues) counted over the samples with the parquet crate.
fn parquet_tag_counts(out: &Path) -> BTreeMap<String, u64> {
    use arrow_array::cast::AsArray;
    use arrow_array::Array;
    let mut m = BTreeMap::new();
    kibo::storage::read_table(out, "samples", |b| {
        let tags = b.column_by_name("tags").expect("tags column").as_list::<i32>();
        for i in 0..b.num_rows() {
            if tags.is_null(i) {
                continue;
            }
            let names = tags.value(i);
            let names = names.as_string::<i32>();
            for j in 0..names.len() {
                *m.entry(names.value(j).to_string()).or_default() += 1;
            }
        }
        let tactical = b.column_by_name("is_tactical").expect("is_tactical column").as_boolean();
        if tactical.null_count() < tactical.len() {
            *m.entry("is_tactical".to_string()).or_default() += tactical.true_count() as u64;
        }
        Ok(())
    })
    .expect("samples read");
    m
}

/// Merges `{reason: n}` maps (the filter's and the split's).
fn merged(maps: &[&Value]) -> Value {
    let mut m = serde_json::Map::new();
    for map in maps {
        for (k, v) in map.as_object().expect("object") {
            let prev = m.get(k).and_then(Value::as_u64).unwrap_or(0);
            m.insert(k.clone(), json!(prev + v.as_u64().unwrap()));
        }
    }
    Value::Object(m)
}

/// Every count of `kibo::stats` agrees with report.json, manifest.json and the parquet reader.
fn check_against_report(out: &Path) -> Value {
    let stats = kibo::stats::compute(out).expect("stats compute");
    let c = stats.counts();
    let report = read_json(&out.join("report.json"));
    let manifest = read_json(&out.join("manifest.json"));
    let (f, s) = (&report["filter"]["total"], &report["split"]);

    let games = parquet_rows(out, "games");
    let rejects = parquet_rows(out, "rejects");
    let samples = parquet_rows(out, "samples");
    assert_eq!(c["games_kept"], json!(games), "games rows (parquet reader)");
    assert_eq!(c["games_kept"], f["games_kept"], "report filter.total.games_kept");
    assert_eq!(c["games_rejected"], json!(rejects), "rejects rows (parquet reader)");
    assert_eq!(
        c["games_rejected"],
        json!(f["games_rejected"].as_u64().unwrap() + s["games_rejected"].as_u64().unwrap()),
        "filter + split rejects"
    );
    assert_eq!(c["rejected_by_reason"], merged(&[&f["rejected_by_reason"], &s["rejected_by_reason"]]));
    assert_eq!(c["games_replayed"], s["games_replayed"]);
    assert_eq!(c["duplicate_games"], s["duplicate_games"]);

    assert_eq!(c["samples"], json!(samples), "samples rows (parquet reader)");
    assert_eq!(c["samples"], s["samples"]);
    assert_eq!(c["samples"], manifest["tables"]["samples"]["rows"]);
    assert_eq!(c["samples_before_dedup"], s["samples_before_dedup"]);
    assert_eq!(c["samples_by_split"], s["samples_by_split"]);
    // Games by source against the filter's per-source report; the last row against its total.
    let g = &stats.games_by_source;
    let u = |col: &str| -> Vec<u64> { g.column(col).unwrap().u64().unwrap().iter().map(Option::unwrap).collect() };
    let names: Vec<String> =
        g.column("source").unwrap().str().unwrap().iter().map(|s| s.unwrap().to_string()).collect();
    let (found, kept, rej_filter) = (u("found"), u("kept"), u("rejected_filter"));
    let mut expected: Vec<String> = report["filter"]["by_source"].as_object().unwrap().keys().cloned().collect();
    expected.push(kibo::stats::TOTAL.to_string());
    assert_eq!(names, expected, "games_by_source rows");
    for (i, name) in names.iter().enumerate() {
        let r = if name == kibo::stats::TOTAL { f } else { &report["filter"]["by_source"][name] };
        assert_eq!(json!(found[i]), r["games_found"], "{name}: found");
        assert_eq!(json!(kept[i]), r["games_kept"], "{name}: kept");
        assert_eq!(json!(rej_filter[i]), r["games_rejected"], "{name}: rejected by filter");
    }

    // Tags: the stats count the rows written; every tag name is listed, zeros included.
    let tags = c["tag_counts"].as_object().expect("tag_counts");
    let pq = parquet_tag_counts(out);
    for (k, v) in tags {
        assert_eq!(v.as_u64(), Some(pq.get(k).copied().unwrap_or(0)), "tag {k} (parquet reader)");
    }
    assert!(pq.keys().all(|k| tags.contains_key(k)), "tags {pq:?} vs {tags:?}");
    // The report counts every replayed move before sampling and dedup: the same when no
    // row was dropped, otherwise an upper bound.
    let report_tags = s["tag_counts"].as_object().expect("report tag_counts");
    assert_eq!(tags.keys().collect::<Vec<_>>(), report_tags.keys().collect::<Vec<_>>(), "tag names");
    if s["samples"] == s["samples_before_dedup"] && s["dropped"] == json!({}) {
        assert_eq!(c["tag_counts"], s["tag_counts"], "nothing dropped: tag counts as in the report");
    } else {
        for (k, v) in tags {
            assert!(v.as_u64() <= report_tags[k].as_u64(), "tag {k}: {v} > report {}", report_tags[k]);
        }
    }
    if s["dedup"].is_object() {
        assert_eq!(c["unique_positions"], s["dedup"]["unique_positions"]);
        assert_eq!(c["unique_positions"], c["samples"], "dedup on: one row per position");
    }

    // write(): every table as CSV plus stats.json, same bytes twice, counts inside.
    stats.write(out).expect("stats write");
    let sd = out.join("stats");
    let json1 = std::fs::read(sd.join("stats.json")).unwrap();
    let csv1 = std::fs::read(sd.join("samples_by_split.csv")).unwrap();
    kibo::stats::compute(out).unwrap().write(out).unwrap();
    assert_eq!(json1, std::fs::read(sd.join("stats.json")).unwrap(), "stats.json is deterministic");
    assert_eq!(csv1, std::fs::read(sd.join("samples_by_split.csv")).unwrap(), "CSV is deterministic");
    let doc: Value = serde_json::from_slice(&json1).unwrap();
    assert_eq!(doc["counts"], c);
    for (name, df) in stats.tables() {
        let csv = std::fs::read_to_string(sd.join(format!("{name}.csv"))).unwrap();
        assert_eq!(csv.lines().count(), df.height() + 1, "{name}.csv: header + one line per row");
        assert_eq!(doc["tables"][name]["rows"].as_array().map(Vec::len), Some(df.height()), "{name} in stats.json");
    }
    let leftovers: Vec<PathBuf> = std::fs::read_dir(&sd)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");

    let mut text = Vec::new();
    stats.print(&mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(text.contains("Samples by split") && text.contains("Top positions"), "{text}");
    c
}

#[test]
fn stats_of_the_default_pipeline_agree_with_report_and_parquet_reader() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    kibo(&["run", "--pipeline", "pipelines/default.toml"], &out);
    let c = check_against_report(&out);
    assert!(c["samples"].as_u64().unwrap() > 1000, "{c}");
    assert!(c["tag_counts"]["is_tactical"].as_u64().unwrap() > 0, "{c}");

    // The move-number histogram and the split table add up to the samples.
    let stats = kibo::stats::compute(&out).unwrap();
    let sum = |df: &polars::prelude::DataFrame, col: &str| -> u64 {
        df.column(col).unwrap().u64().unwrap().iter().flatten().sum()
    };
    assert_eq!(sum(&stats.move_numbers, "samples"), c["samples"].as_u64().unwrap());
    // samples_by_split ends with a "(total)" row: the splits and the total each make up the samples.
    assert_eq!(sum(&stats.samples_by_split, "samples"), 2 * c["samples"].as_u64().unwrap());
    // Ranks count every game once per colour.
    assert_eq!(sum(&stats.ranks, "black"), c["games_kept"].as_u64().unwrap());
    assert_eq!(sum(&stats.ranks, "white"), c["games_kept"].as_u64().unwrap());
    assert_eq!(sum(&stats.result_kinds, "games"), c["games_kept"].as_u64().unwrap());
    // Every kept game once by score verdict, the verdicts named as schema 5 names them.
    assert_eq!(sum(&stats.score_checks, "games"), c["games_kept"].as_u64().unwrap());
    let names: Vec<String> =
        stats.score_checks.column("score_check").unwrap().str().unwrap().iter().flatten().map(String::from).collect();
    assert!(
        names
            .iter()
            .all(|n| ["agrees", "margin_differs", "winner_differs", "undecided", "not counted"].contains(&n.as_str())),
        "{names:?}"
    );
    // Top positions: at most 10, most repeated first, the first one repeated.
    let occ: Vec<u64> = stats.top_positions.column("occurrences").unwrap().u64().unwrap().iter().flatten().collect();
    assert!(!occ.is_empty() && occ.len() <= 10 && occ.windows(2).all(|w| w[0] >= w[1]) && occ[0] > 1, "{occ:?}");
}

const NINE_BY_NINE: &str = "(;GM[1]FF[4]SZ[9]KM[7]RE[B+R];B[ee];W[cc];B[gg])\n";
const NO_MOVES: &str = "(;GM[1]FF[4]SZ[19]KM[6.5]PB[a]PW[b])\n";

#[test]
fn stats_count_rejects_and_duplicate_games() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    let kombilo = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/kombilo");
    for name in ["Gosei-Gos23-T01.sgf", "Gosei-Gos23-T02.sgf", "Agon-Agon02-2.sgf"] {
        std::fs::copy(kombilo.join(name), input.join(name)).unwrap();
    }
    // The same game under another name: a duplicate_game reject in the split stage.
    std::fs::copy(kombilo.join("Gosei-Gos23-T01.sgf"), input.join("z-copy.sgf")).unwrap();
    std::fs::write(input.join("nine.sgf"), NINE_BY_NINE).unwrap();
    std::fs::write(input.join("empty.sgf"), NO_MOVES).unwrap();
    let out = dir.path().join("out");
    kibo(&["run", "--input", input.to_str().unwrap()], &out);

    let c = check_against_report(&out);
    assert_eq!(c["duplicate_games"], json!(1), "{c}");
    assert_eq!(c["rejected_by_reason"]["duplicate_game"], json!(1), "{c}");
    assert_eq!(c["rejected_by_reason"]["size_not_19"], json!(1), "{c}");
    assert_eq!(c["rejected_by_reason"]["no_moves"], json!(1), "{c}");
    assert_eq!(c["games_kept"], json!(4), "{c}");
    assert_eq!(c["games_replayed"], json!(3), "{c}");

    let stats = kibo::stats::compute(&out).unwrap();
    let d = &stats.duplicate_games;
    assert_eq!(d.height(), 1);
    let file = d.column("source_file").unwrap().str().unwrap().get(0).unwrap().to_string();
    let detail = d.column("detail").unwrap().str().unwrap().get(0).unwrap().to_string();
    assert!(file.ends_with("z-copy.sgf"), "{file}");
    assert!(detail.contains("Gosei-Gos23-T01.sgf"), "{detail}");
}

/// Writes a pipeline over the embedded sample with the given `[split]` lines and runs it.
fn run_sample_with(dir: &Path, name: &str, split: &str) -> PathBuf {
    let kombilo = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/kombilo");
    let pipeline = dir.join(format!("{name}.toml"));
    let toml = format!(
        "[pipeline]\nname = {name:?}\nseed = 1\n[[sources]]\nname = \"kombilo\"\npath = {:?}\n[split]\n{split}\n",
        kombilo.to_str().unwrap()
    );
    std::fs::write(&pipeline, toml).unwrap();
    let out = dir.join(name);
    kibo(&["run", "--pipeline", pipeline.to_str().unwrap()], &out);
    out
}

#[test]
fn stats_without_dedup_tags_or_rejects() {
    let dir = tempfile::tempdir().unwrap();

    // Dedup off: every move is a row, dup_count is 1, positions repeat; nothing is
    // dropped, so the tag counts must equal the report's exactly.
    let out = run_sample_with(dir.path(), "off", "dedup = \"off\"");
    let c = check_against_report(&out);
    let (samples, unique) = (c["samples"].as_u64().unwrap(), c["unique_positions"].as_u64().unwrap());
    assert_eq!(c["samples_before_dedup"], c["samples"]);
    assert!(0 < unique && unique < samples, "{c}");
    assert!(c["tag_counts"]["atari"].as_u64().unwrap() > 0, "{c}");
    let stats = kibo::stats::compute(&out).unwrap();
    let occ = stats.top_positions.column("occurrences").unwrap().u64().unwrap().get(0).unwrap();
    let rows = stats.top_positions.column("rows").unwrap().u64().unwrap().get(0).unwrap();
    assert!(occ > 1 && occ == rows, "the opening position repeats: {occ} occurrences, {rows} rows");

    // Tags off: the tag columns are null; no tag counts (as in the report).
    let out = run_sample_with(dir.path(), "notags", "tags = false");
    let c = check_against_report(&out);
    assert_eq!(c["tag_counts"], json!({}));

    // No rejects folder at all still computes.
    std::fs::remove_dir_all(out.join("rejects")).unwrap();
    let c2 = kibo::stats::compute(&out).unwrap().counts();
    assert_eq!(c2["games_rejected"], json!(0));
    assert_eq!(c2["rejected_by_reason"], json!({}));
    assert_eq!(c2["samples"], c["samples"]);
}

#[test]
fn stats_with_missing_columns_and_empty_tables() {
    use polars::prelude::*;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path();
    let write = |table: &str, mut df: DataFrame| {
        std::fs::create_dir_all(out.join(table)).unwrap();
        let f = std::fs::File::create(out.join(table).join("part-00000.parquet")).unwrap();
        ParquetWriter::new(f).with_compression(ParquetCompression::Uncompressed).finish(&mut df).unwrap();
    };
    // Samples with only a split and a move number; games with only a source; empty rejects.
    write(
        "samples",
        df!("split" => ["train", "train", "val", "train", "test"], "move_number" => [1u16, 2, 26, 60, 3]).unwrap(),
    );
    write("games", df!("source" => ["a", "b", "a"]).unwrap());
    write("rejects", df!("stage" => Vec::<String>::new(), "reason" => Vec::<String>::new()).unwrap());

    let stats = kibo::stats::compute(out).expect("stats compute without the usual columns");
    let c = stats.counts();
    assert_eq!(c["samples"], json!(5));
    assert_eq!(c["samples_before_dedup"], json!(5), "no dup_count: each row counts once");
    assert_eq!(c["samples_by_split"], json!({"train": 3, "val": 1, "test": 1}));
    assert_eq!(c["games_kept"], json!(3));
    assert_eq!(c["games_rejected"], json!(0));
    assert_eq!(c["unique_positions"], Value::Null, "no position_hash: unknown");
    assert_eq!(c["tag_counts"], json!({}));
    assert_eq!(c["duplicate_games"], json!(0));
    // Buckets 1-25 (3 samples), 26-50 (1), 51-75 (1).
    let b: Vec<u64> = stats.move_numbers.column("samples").unwrap().u64().unwrap().iter().flatten().collect();
    assert_eq!(b, vec![3, 1, 1]);
    let ranks = stats.ranks.column("rank").unwrap().str().unwrap().get(0).map(str::to_owned);
    assert_eq!(ranks.as_deref(), Some("unknown"));
    assert_eq!(stats.top_positions.height(), 0);
    let mut text = Vec::new();
    stats.print(&mut text).unwrap();
    stats.write(out).unwrap();
    assert!(out.join("stats/stats.json").is_file());

    // Not an output folder at all.
    let empty = tempfile::tempdir().unwrap();
    assert!(kibo::stats::compute(empty.path()).is_err());
}
