//! `cargo bench --bench replay`: figures for the filter and split stages on one core.
//! Prints; asserts nothing. Input: the KGS archive (or $KGS, a file or folder).
use std::time::Instant;

use kibo::config::SplitConfig;
use kibo::coord::Move;
use kibo::engine::{Board, Color, Rules};
use kibo::input::{walk, Item, Limits};

fn main() {
    let path = std::env::var("KGS").unwrap_or_else(|_| "../shared/data/dev/kgs-2001-archive".into());
    if !std::path::Path::new(&path).exists() {
        println!("bench: {path} is absent; nothing to measure");
        return;
    }
    // Read every document into memory first, so parsing is timed alone.
    let mut docs: Vec<Vec<u8>> = Vec::new();
    walk(&[path.clone().into()], &Limits::default(), |i| {
        if let Item::Sgf { bytes, .. } = i {
            docs.push(bytes)
        }
    });
    let bytes: usize = docs.iter().map(|d| d.len()).sum();
    let reps = 5;
    let t = Instant::now();
    let mut games = Vec::new();
    for r in 0..reps {
        for d in &docs {
            let f = kibo::sgf::read_games(d);
            if r == 0 {
                games.extend(f.games.into_iter().filter_map(|g| g.ok()));
            }
        }
    }
    let s = t.elapsed().as_secs_f64() / reps as f64;
    println!(
        "sgf parse (1 core): {} docs, {:.1} MB: {:.1} MB/s, {:.0} games/s",
        docs.len(),
        bytes as f64 / 1e6,
        bytes as f64 / 1e6 / s,
        docs.len() as f64 / s
    );

    // Replay with legality checks: engine only.
    let seqs: Vec<Vec<(Color, Move)>> = games
        .iter()
        .filter(|g| g.setup_black.is_empty() && g.setup_white.is_empty())
        .map(|g| {
            g.moves
                .iter()
                .map(|m| (if m.color == kibo::sgf::Color::Black { Color::Black } else { Color::White }, m.mv))
                .collect()
        })
        .collect();
    let rules = Rules::default();
    let mut moves = 0u64;
    let mut illegal = 0u64;
    let t = Instant::now();
    let reps = 20;
    for _ in 0..reps {
        for s in &seqs {
            let mut b = Board::new();
            for &(c, m) in s {
                if b.play(c, m, &rules).is_err() {
                    illegal += 1;
                    break;
                }
                moves += 1;
            }
        }
    }
    let s = t.elapsed().as_secs_f64();
    println!(
        "replay with legality checks (1 core): {} games x{reps}, {:.1} M moves/s ({illegal} illegal stops)",
        seqs.len(),
        moves as f64 / s / 1e6
    );

    // Replay into samples (board copy, hash, history), no Parquet.
    let rows: Vec<kibo::tables::GameRow> = games
        .iter()
        .map(|g| kibo::tables::GameRow {
            game_id: "0".repeat(32),
            moves: g.moves.iter().map(|m| m.mv.index()).collect(),
            colors: g.moves.iter().map(|m| if m.color == kibo::sgf::Color::Black { 'B' } else { 'W' }).collect(),
            setup_black: g.setup_black.iter().map(|p| p.index()).collect(),
            setup_white: g.setup_white.iter().map(|p| p.index()).collect(),
            result_kind: "unknown".into(),
            ..Default::default()
        })
        .collect();
    let run = |cfg: &SplitConfig| {
        let t = Instant::now();
        let mut samples = 0u64;
        for g in &rows {
            if let kibo::stages::split::Replayed::Ok { samples: s, .. } = kibo::stages::split::replay_game(g, cfg, 1) {
                samples += s.len() as u64;
            }
        }
        (samples, t.elapsed().as_secs_f64())
    };
    let (n0, s0) = run(&SplitConfig { tags: false, ..SplitConfig::default() });
    println!("replay into samples, no tags, no Parquet (1 core): {:.2} M samples/s", n0 as f64 / s0 / 1e6);
    let (n1, s1) = run(&SplitConfig::default());
    println!(
        "replay into samples with tags (1 core): {:.2} M samples/s; tagging costs {:.0} ns per sample",
        n1 as f64 / s1 / 1e6,
        (s1 - s0) / n1 as f64 * 1e9
    );
    // Position hashing alone (blake3 of 364 bytes per sample).
    let cells = [1u8; 361];
    let t = Instant::now();
    let mut acc = 0u8;
    for i in 0..1_000_000u32 {
        acc ^= kibo::samples::position_hash(&cells, 1, Some((i % 361) as u16))[0];
    }
    println!("position hash: {:.0} ns per sample ({acc})", t.elapsed().as_secs_f64() * 1e3);
}
