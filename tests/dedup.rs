//! Dedup on constructed corpora: duplicate games, mirror images, ko-only and
//! side-to-move-only differences, summed move distributions, spill = memory.

use std::collections::HashMap;
use std::path::Path;

use crate::util::{report, run_ok, samples, snapshot};

/// Writes one SGF file per (name, moves) into `dir`.
fn corpus(dir: &Path, games: &[(&str, &str, &str)]) {
    std::fs::create_dir_all(dir).unwrap();
    for (name, meta, moves) in games {
        std::fs::write(dir.join(name), format!("(;GM[1]SZ[19]{meta}{moves})")).unwrap();
    }
}

fn pipeline(dir: &Path, dedup: &str, memory_mb: usize) -> std::path::PathBuf {
    let p = dir.join(format!("p-{dedup}-{memory_mb}.toml"));
    std::fs::write(&p, format!("[split]\ndedup = \"{dedup}\"\ndedup_memory_mb = {memory_mb}\n")).unwrap();
    p
}

/// Kept rows as (source file name, move number) → (dup_count, distribution as GTP → count).
type Kept = HashMap<(String, u16), (u32, Vec<(String, u32)>)>;

fn kept(out: &Path) -> Kept {
    let mut m = HashMap::new();
    for r in samples(out) {
        let name = Path::new(&r.source).file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(r.move_dist_moves.len(), r.move_dist_counts.len(), "{name} move {}", r.move_number);
        let dist = r
            .move_dist_moves
            .iter()
            .zip(&r.move_dist_counts)
            .map(|(&mv, &n)| (kibo::coord::Move::from_index(mv).unwrap().to_gtp(), n))
            .collect();
        m.insert((name, r.move_number), (r.dup_count, dist));
    }
    m
}

const KO: &str = ";B[gf];W[hf];B[fg];W[gg];B[gh];W[ig];B[ss];W[hh];B[hg]";

fn run_split(input: &Path, out: &Path, p: &Path) {
    run_ok("run", input, out, p);
}

#[test]
fn exact_dedup_counts() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    corpus(
        &input,
        &[
            ("a.sgf", "PB[x]", ";B[pd];W[dp];B[pp];W[dd]"),
            ("b.sgf", "PB[someone else]EV[another archive]", ";B[pd];W[dp];B[pp];W[dd]"), // same game
            ("c.sgf", "", ";B[dd];W[pp];B[dp];W[pd]"), // mirror of a (columns flipped)
            ("d.sgf", "", &format!("{KO};W[aa]")),     // ko taken, then W elsewhere
            ("e.sgf", "", &format!("{KO};W[];B[];W[aa]")), // same board, ko cleared by passes
        ],
    );
    let out = dir.path().join("out");
    run_split(&input, &out, &pipeline(dir.path(), "exact", 64));
    let rep = report(&out);
    let s = &rep["split"];
    assert_eq!(s["duplicate_games"], 1, "b.sgf is a.sgf again");
    assert_eq!(s["rejected_by_reason"]["duplicate_game"], 1);
    let rejects = crate::util::rejects(&out);
    let dup = rejects.iter().find(|r| r.reason.as_str() == "duplicate_game").unwrap();
    assert!(dup.source_file.ends_with("b.sgf") && dup.detail.contains("a.sgf"), "{dup:?}");
    // Samples before dedup: a 4 + c 4 + d 10 + e 12 = 30.
    assert_eq!(s["samples_before_dedup"], 30);
    // Unique: a 4; c 3 (its empty board is a's); d 9 (its empty board is a's); e 2:
    // its first 10 positions are d's, then black to play (only the side differs) and
    // white to play without the ko point (only the ko differs) are new. 4+3+9+2 = 18.
    assert_eq!(s["samples"], 18);
    assert_eq!(s["dedup"]["unique_positions"], 18);
    let k = kept(&out);
    assert_eq!(k.len(), 18);
    // The empty board (move 1 of a) was played from 4 times: a Q16, c D16, d and e G14.
    // The distribution is summed over all duplicates, sorted by point index.
    let (count, dist) = &k[&("a.sgf".to_string(), 1)];
    assert_eq!(*count, 4);
    assert_eq!(dist, &vec![("D16".to_string(), 1), ("Q16".to_string(), 1), ("G14".to_string(), 2)]);
    // d's position before move 10 (ko at G13, white to play) recurs in e: W A19 once, pass once.
    let (count, dist) = &k[&("d.sgf".to_string(), 10)];
    assert_eq!(*count, 2);
    assert_eq!(dist, &vec![("A19".to_string(), 1), ("pass".to_string(), 1)]);
    // Same board and side, no ko: its own row in e (move 12), not merged with d's move 10.
    assert_eq!(k[&("e.sgf".to_string(), 12)].0, 1);
    assert_eq!(k[&("e.sgf".to_string(), 11)].0, 1, "black to play on the same board is another position");
    // Nothing from c after move 1 is merged in exact mode.
    assert!(k.contains_key(&("c.sgf".to_string(), 2)));
}

#[test]
fn symmetry_dedup_merges_mirror_images() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    corpus(&input, &[("a.sgf", "", ";B[pd];W[dp];B[pp];W[dd]"), ("c.sgf", "", ";B[dd];W[pp];B[dp];W[pd]")]);
    let out = dir.path().join("out");
    run_split(&input, &out, &pipeline(dir.path(), "symmetry", 64));
    let s = &report(&out)["split"];
    assert_eq!(s["samples_before_dedup"], 8);
    assert_eq!(s["samples"], 4, "every position of c is a mirror image of one of a");
    let k = kept(&out);
    // Kept rows are a's; distributions are in a's own frame: before a's move 2
    // (black at Q16), white played D4 (a) and, mirrored back, D4 (c's Q4).
    assert_eq!(k[&("a.sgf".to_string(), 2)], (2, vec![("D4".to_string(), 2)]));
    // The empty board: Q16 (a) and D16 (c) are different moves in the kept frame.
    assert_eq!(k[&("a.sgf".to_string(), 1)], (2, vec![("D16".to_string(), 1), ("Q16".to_string(), 1)]));
    // Exact mode on the same corpus merges only the empty board.
    let out2 = dir.path().join("out2");
    run_split(&input, &out2, &pipeline(dir.path(), "exact", 64));
    assert_eq!(report(&out2)["split"]["samples"], 7);
}

#[test]
fn spilled_index_gives_identical_output() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    // dedup_memory_mb = 0: the index spills after a handful of observations.
    let big = pipeline(dir.path(), "exact", 256);
    let tiny = pipeline(dir.path(), "exact", 0);
    for (out, p) in [(&a, &big), (&b, &tiny)] {
        run_ok("run", Path::new("data/kombilo"), out, p);
    }
    assert_eq!(report(&a)["split"]["dedup"]["spilled"], false);
    assert_eq!(report(&b)["split"]["dedup"]["spilled"], true);
    let strip = |v: Vec<(String, String)>| v.into_iter().filter(|(n, _)| n.starts_with("samples/")).collect::<Vec<_>>();
    assert_eq!(strip(snapshot(&a)), strip(snapshot(&b)));
    assert!(!b.join(".tmp-dedup").exists(), "spill files are removed");
}
