//! `cargo bench --bench features`: throughput of the feature sets, one core, on the
//! embedded sample's positions (`data/kombilo`, every move, dedup off). Prints figures,
//! asserts nothing.
//!
//! * `rows → positions`: `features::positions_of_batch` on in-memory sample batches
//!   (column access, earlier boards rebuilt from `history_captures`).
//! * one line per feature set: `encode` alone on the stored positions (leela-18's target
//!   is ≥ 500 k positions/s per core). `cargo bench --bench features -- katago` runs only
//!   the sets whose name holds `katago`.
//! * `katago-v7, RU = Tromp-Taylor`: the same positions with their rules replaced by a
//!   superko rule set (the sample's games are Japanese, and simple ko costs nothing extra),
//!   to measure the superko bans of channel 6.

use std::time::Instant;

use kibo::config::SplitConfig;
use kibo::coord::NN;
use kibo::features::{positions_of_batch, sets, Position};
use kibo::game::GameRow;
use kibo::samples::BufMode;

fn batches() -> Vec<arrow_array::RecordBatch> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/kombilo");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let cfg = SplitConfig::default();
    let mut v = Vec::new();
    for f in files {
        for g in kibo::sgf::read_games(&std::fs::read(&f).unwrap()).games.into_iter().flatten() {
            let g = GameRow::from_record(&g, "kombilo", &f.to_string_lossy(), None, &[]);
            if let Ok(s) = kibo::stages::split::game_samples(&g, &cfg, 1, BufMode::Full) {
                v.push(s.samples.into_batch());
            }
        }
    }
    v
}

fn main() {
    let batches = batches();
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    let mut positions = Vec::with_capacity(rows);
    let t = Instant::now();
    let mut pos = Position::default();
    let mut n = 0usize;
    for _ in 0..5 {
        for b in &batches {
            positions_of_batch(b, &mut pos, |p| {
                n += p.history_len;
                Ok(())
            })
            .unwrap();
        }
    }
    let dt = t.elapsed().as_secs_f64();
    println!(
        "rows -> positions: {:.0} positions/s ({} rows x 5, {:.2} s; {n} boards rebuilt)",
        5.0 * rows as f64 / dt,
        rows,
        dt
    );
    for b in &batches {
        positions_of_batch(b, &mut pos, |p| {
            positions.push(p.clone());
            Ok(())
        })
        .unwrap();
    }
    // `cargo bench --bench features -- NAME`: only the sets whose name holds NAME.
    let only: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    for set in sets().iter().filter(|s| only.is_empty() || only.iter().any(|o| s.name.contains(o.as_str()))) {
        encode_rate(set, set.name, &positions);
        if set.name == "katago-v7" {
            let tt: Vec<Position> =
                positions.iter().map(|p| Position { rules: Some("Tromp-Taylor".into()), ..p.clone() }).collect();
            encode_rate(set, "katago-v7, RU = Tromp-Taylor", &tt);
        }
    }
}

/// Prints `set`'s encoding rate on `positions`, one core.
fn encode_rate(set: &kibo::features::FeatureSet, name: &str, positions: &[Position]) {
    let mut spatial = vec![0u8; set.spatial * NN];
    let mut global = vec![0f32; set.global];
    let reps = if set.name.starts_with("leela") { 20 } else { 5 };
    let t = Instant::now();
    let mut check = 0u64;
    for _ in 0..reps {
        for p in positions {
            (set.encode)(p, &mut spatial, &mut global);
            check += spatial[NN / 2] as u64;
        }
    }
    let dt = t.elapsed().as_secs_f64();
    let per_s = (reps * positions.len()) as f64 / dt;
    println!(
        "{}: {:.0} positions/s on one core ({} positions x {reps}, {:.2} s; check {check})",
        name,
        per_s,
        positions.len(),
        dt
    );
}
