//! `cargo bench --bench micro`: divan micro-benchmarks of kibo's hot paths, one core each.
//!
//! Input: `$KGS` (a file or folder: SGF files or archives), by default
//! `../shared/data/dev/kgs-2001-archive` relative to the package root; when that is absent,
//! the embedded sample `data/kombilo` (one line says so). Every document is read into
//! memory and every data set below is built once (in `LazyLock`s, before the timed loop).
//! Each benchmark runs 20 samples of one pass over its data set, so read the **median**
//! column, and in it the throughput rows (`item/s`, `B/s`) rather than the time: the time
//! is for the whole data set. Other work on the machine makes figures noisy; compare
//! figures from one run only. Nothing is asserted. On the KGS 2001 archive (2,298 games,
//! 435k moves) the whole suite takes about 15 s on 2 cores.
//!
//! The benches (one iteration = one pass over the data set; `score_game` is described
//! beside its function):
//!
//! * `sgf_parse`: `sgf::read_games` (decode, parse, game records) on every document.
//!   Read `B/s`: SGF bytes per second. (For another corpus, point `$KGS` at it, e.g.
//!   `KGS=../shared/data/dev/gnugo-regression-games cargo bench --bench micro -- sgf_parse`.)
//! * `replay_moves`: every game's main line replayed with `Board::play` (legality checks),
//!   setup stones placed first, each game stopping at its first illegal move.
//!   Read `item/s`: moves per second.
//! * `replay_samples_no_tags`: `stages::split::game_samples` (`BufMode::NoHash`, tags
//!   off) on every game: replay, board copy, history, game metadata; no hash, no Parquet.
//!   Read `item/s`: samples per second.
//! * `replay_and_tag`: as `replay_moves`, plus `tactics::Tagger::tag` on the position before
//!   every move. Read `item/s`: tagged moves per second; its time minus `replay_moves`'
//!   time, divided by the moves, is the tagging cost per move.
//! * `replay_and_tag_played`: as `replay_moves`, plus a copy of the position before every
//!   move (`Board::clone_from`) and `tactics::Tagger::tag_played` on the positions before
//!   and after it (the split stage's way). Read `item/s`: tagged moves per second; its
//!   time minus `replay_moves`' time, divided by the moves, is the cost per move of
//!   copy + `tag_played`.
//! * `tagging`: `Tagger::tag` alone on stored positions of the first games (whole games, at
//!   most 16,384 positions: a `Board` is 4.6 KiB, so storing the whole corpus would take
//!   gigabytes). Read `item/s`: tags per second, on a subset (compare with `replay_and_tag`).
//! * `position_hash`: `samples::position_hash` (blake3 of 364 bytes) on 4,096 real positions
//!   (board, side to move, ko point) spread over the corpus. Read `item/s`: hashes per second.
//!   `position_hashes_batched`: the same hashes 256 at a time with `samples::position_hashes`
//!   (encodings included), as the split stage computes them.
//! * `dedup`: a `dedup::DedupIndex` with 64 MiB (in memory unless the input is large) fed
//!   every sample's real observation (`position_hash`, row, move), `finish`ed, then
//!   `KeptCursor::get` for every row. Read `item/s`: observations per second.
//! * `parquet_write`: `SampleBuf::into_batch`, then `storage::TableWriter` with the split
//!   stage's options for `samples` (zstd 3, no dictionary on `board`/`position_hash`),
//!   `write` and `finish` (fsync, rename, blake3 of the shard) into a fresh temp folder, for
//!   the samples of the first 256 games (every column, tags on). Copying the buffer is not
//!   timed. Read `item/s`: samples written per second, and `B/s`: Parquet bytes per second.
//!   A line printed before the table gives rows, bytes on disk and bytes per sample.
//!   The library may encode columns in parallel on rayon's global pool; for a one-core
//!   figure run with `RAYON_NUM_THREADS=1`.
//!
//! * `vlm_picture_32`, `vlm_picture_28`: `verify::BoardPainter::png_of` (the picture of
//!   `kibo export vlm`: squares copied into the palette rows, then the PNG encoded) of the
//!   4,096 `position_hash` positions, each with its ko point marked, at 32- and 28-px
//!   cells. Read `item/s`: pictures per second on one core, and `B/s` / `item/s`: bytes
//!   a picture (also printed before the table).
//!
//! Filter as usual: `cargo bench --bench micro -- dedup parquet`.
use std::path::Path;
use std::sync::LazyLock;

use divan::counter::{BytesCount, ItemsCount};
use divan::{black_box, Bencher};
use kibo::config::SplitConfig;
use kibo::coord::{Move, NN};
use kibo::dedup::{DedupIndex, Obs};
use kibo::engine::{Board, Color, Rules};
use kibo::game::GameRow;
use kibo::input::{walk, Item, Limits};
use kibo::samples::{encoding, position_hash, position_hashes, samples_schema, BufMode, SampleBuf};
use kibo::stages::split::game_samples;
use kibo::storage::TableWriter;
use kibo::tactics::Tagger;

/// Benchmark settings shared by every bench: 20 samples of one pass over the data set.
const SAMPLES: u32 = 20;
/// Stored positions for `tagging`.
const TAG_POSITIONS: usize = 16_384;
/// Real positions for `position_hash`.
const HASH_POSITIONS: usize = 4_096;
/// Games whose samples `parquet_write` writes.
const PARQUET_GAMES: usize = 256;
/// Memory limit of the dedup index.
const DEDUP_MEMORY: usize = 64 << 20;

fn main() {
    let input = &*INPUT;
    println!(
        "input: {} ({} documents, {:.2} MB of SGF, {} games)",
        input.path,
        input.docs.len(),
        input.bytes as f64 / 1e6,
        input.games.len()
    );
    let p = &*PARQUET;
    println!(
        "parquet: {} rows, {} bytes on disk, {:.1} bytes/sample ({} games)",
        p.rows,
        p.bytes,
        p.bytes as f64 / p.rows.max(1) as f64,
        p.games
    );
    for cell in [32, 28] {
        let (n, bytes) = vlm_pictures(cell);
        println!("vlm_picture_{cell}: {n} pictures, {:.0} bytes a picture", bytes as f64 / n as f64);
    }
    divan::main();
}

/// Every SGF document of the input and the games read from them.
struct Input {
    path: String,
    docs: Vec<Vec<u8>>,
    bytes: usize,
    games: Vec<kibo::sgf::GameRecord>,
}

static INPUT: LazyLock<Input> = LazyLock::new(|| {
    let mut path = std::env::var("KGS").unwrap_or_else(|_| "../shared/data/dev/kgs-2001-archive".into());
    if !Path::new(&path).exists() {
        let fallback = concat!(env!("CARGO_MANIFEST_DIR"), "/data/kombilo").to_string();
        println!("bench: {path} is absent; falling back to the embedded sample {fallback}");
        path = fallback;
    }
    let mut docs: Vec<Vec<u8>> = Vec::new();
    walk(&[path.clone().into()], &Limits::default(), |item| {
        if let Item::Sgf { bytes, .. } = item {
            docs.push(bytes)
        }
    });
    let bytes = docs.iter().map(|d| d.len()).sum();
    let games = docs.iter().flat_map(|d| kibo::sgf::read_games(d).games.into_iter().filter_map(|g| g.ok())).collect();
    Input { path, docs, bytes, games }
});

/// One game ready for the engine: setup stones and the main line.
struct Seq {
    setup: Vec<(kibo::coord::Point, u8)>,
    moves: Vec<(Color, Move)>,
}

impl Seq {
    /// The starting position (setup stones placed; a refused one is skipped).
    fn start(&self) -> Board {
        let mut b = Board::new();
        for &(p, v) in &self.setup {
            let _ = b.set_stone(p, v);
        }
        b
    }
}

/// Every game's main line, and the number of moves `Board::play` accepts (each game
/// stops at its first illegal move).
struct Seqs {
    seqs: Vec<Seq>,
    moves: u64,
}

static SEQS: LazyLock<Seqs> = LazyLock::new(|| {
    let seqs: Vec<Seq> = INPUT
        .games
        .iter()
        .map(|g| Seq {
            setup: g.setup_black.iter().map(|&p| (p, 1)).chain(g.setup_white.iter().map(|&p| (p, 2))).collect(),
            moves: g.moves.iter().map(|m| (m.color, m.mv)).collect(),
        })
        .collect();
    let moves = seqs.iter().map(replay_one).sum();
    Seqs { seqs, moves }
});

/// Replays one game with legality checks; returns the moves played.
fn replay_one(s: &Seq) -> u64 {
    let rules = Rules::default();
    let mut b = s.start();
    let mut n = 0;
    for &(c, m) in &s.moves {
        if b.play(c, m, &rules).is_err() {
            break;
        }
        n += 1;
    }
    n
}

/// Games as the split stage reads them from the games table (as `benches/replay.rs`).
static ROWS: LazyLock<Vec<GameRow>> = LazyLock::new(|| {
    INPUT
        .games
        .iter()
        .map(|g| GameRow {
            moves: g.moves.clone(),
            setup_black: g.setup_black.clone(),
            setup_white: g.setup_white.clone(),
            ..Default::default()
        })
        .collect()
});

fn no_tags() -> SplitConfig {
    SplitConfig { tags: false, ..SplitConfig::default() }
}

/// Samples `replay_game_as` produces over all games with tags off.
static SAMPLE_COUNT: LazyLock<u64> = LazyLock::new(|| {
    let cfg = no_tags();
    ROWS.iter().map(|g| game_samples(g, &cfg, 1, BufMode::NoHash).map_or(0, |s| s.samples.len() as u64)).sum()
});

/// Positions before each move of the first games (whole games), for `tagging`.
static TAG_SET: LazyLock<Vec<Vec<(Board, Color, Move)>>> = LazyLock::new(|| {
    let rules = Rules::default();
    let mut out = Vec::new();
    let mut total = 0;
    for s in &SEQS.seqs {
        let mut b = s.start();
        let mut game = Vec::new();
        for &(c, m) in &s.moves {
            let before = b.clone();
            if b.play(c, m, &rules).is_err() {
                break;
            }
            game.push((before, c, m));
        }
        if total + game.len() > TAG_POSITIONS {
            break;
        }
        total += game.len();
        out.push(game);
    }
    out
});

/// A position as `position_hash` takes it: cells, side to move, ko point.
type Position = ([u8; NN], u8, Option<u16>);

/// Real positions, spread over the corpus.
static HASH_SET: LazyLock<Vec<Position>> = LazyLock::new(|| {
    let rules = Rules::default();
    let step = (SEQS.moves as usize / HASH_POSITIONS).max(1);
    let mut out = Vec::with_capacity(HASH_POSITIONS);
    let mut i = 0usize;
    'games: for s in &SEQS.seqs {
        let mut b = s.start();
        for &(c, m) in &s.moves {
            if i.is_multiple_of(step) {
                let mut cells = [0u8; NN];
                b.cells(&mut cells);
                out.push((cells, c.as_u8(), b.ko_point().map(|p| p.index())));
                if out.len() == HASH_POSITIONS {
                    break 'games;
                }
            }
            i += 1;
            if b.play(c, m, &rules).is_err() {
                break;
            }
        }
    }
    out
});

/// Every sample's dedup observation in canonical row order (real `position_hash` keys).
static OBS: LazyLock<Vec<Obs>> = LazyLock::new(|| {
    let cfg = no_tags();
    let mut out = Vec::new();
    for g in ROWS.iter() {
        if let Ok(s) = game_samples(g, &cfg, 1, BufMode::Keys) {
            let samples = s.samples;
            for i in 0..samples.len() {
                out.push(Obs { key: samples.key(i), row: out.len() as u64, mv: samples.move_index(i) });
            }
        }
    }
    out
});

/// The samples of the first games (every column, tags on) in one buffer, and the size of
/// the Parquet shard they make.
struct ParquetSet {
    buf: SampleBuf,
    games: usize,
    rows: u64,
    bytes: u64,
}

static PARQUET: LazyLock<ParquetSet> = LazyLock::new(|| {
    let cfg = SplitConfig::default();
    let mut buf = SampleBuf::with_mode(BufMode::Full);
    let mut games = 0;
    for g in ROWS.iter().take(PARQUET_GAMES) {
        if let Ok(s) = game_samples(g, &cfg, 1, BufMode::Full) {
            buf.append(s.samples);
            games += 1;
        }
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let shards = write_samples(copy_of(&buf), dir.path());
    ParquetSet { buf, games, rows: shards.iter().map(|s| s.rows).sum(), bytes: shards.iter().map(|s| s.bytes).sum() }
});

fn copy_of(buf: &SampleBuf) -> SampleBuf {
    buf.select(&(0..buf.len()).collect::<Vec<_>>())
}

/// What the split stage does with one buffer of samples: Arrow batch, Parquet shard.
fn write_samples(buf: SampleBuf, out: &Path) -> Vec<kibo::storage::ShardInfo> {
    let opts = kibo::stages::split::samples_table_options(&SplitConfig::default());
    let batch = buf.into_batch();
    let mut w = TableWriter::new(out, "samples", samples_schema(), opts).expect("table writer");
    w.write(&batch).expect("write samples");
    w.finish().expect("finish samples")
}

#[divan::bench(sample_count = SAMPLES, sample_size = 1)]
fn sgf_parse(bencher: Bencher) {
    let input = &*INPUT;
    bencher.counter(BytesCount::new(input.bytes)).bench_local(|| {
        let mut games = 0;
        for d in &input.docs {
            games += black_box(kibo::sgf::read_games(black_box(d))).games.len();
        }
        games
    });
}

#[divan::bench(sample_count = SAMPLES, sample_size = 1)]
fn replay_moves(bencher: Bencher) {
    let seqs = &*SEQS;
    bencher
        .counter(ItemsCount::new(seqs.moves))
        .bench_local(|| seqs.seqs.iter().map(|s| replay_one(black_box(s))).sum::<u64>());
}

#[divan::bench(sample_count = SAMPLES, sample_size = 1)]
fn replay_samples_no_tags(bencher: Bencher) {
    let rows = &*ROWS;
    let cfg = no_tags();
    bencher.counter(ItemsCount::new(*SAMPLE_COUNT)).bench_local(|| {
        let mut n = 0u64;
        for g in rows {
            if let Ok(s) = game_samples(black_box(g), &cfg, 1, BufMode::NoHash) {
                n += s.samples.len() as u64;
            }
        }
        n
    });
}

#[divan::bench(sample_count = SAMPLES, sample_size = 1)]
fn replay_and_tag(bencher: Bencher) {
    let seqs = &*SEQS;
    let rules = Rules::default();
    let mut tagger = Tagger::new();
    bencher.counter(ItemsCount::new(seqs.moves)).bench_local(|| {
        let mut mask = 0u32;
        for s in &seqs.seqs {
            tagger.reset();
            let mut b = s.start();
            for &(c, m) in &s.moves {
                mask |= tagger.tag(&b, c, m).mask;
                if b.play(c, m, &rules).is_err() {
                    break;
                }
            }
        }
        mask
    });
}

#[divan::bench(sample_count = SAMPLES, sample_size = 1)]
fn replay_and_tag_played(bencher: Bencher) {
    let seqs = &*SEQS;
    let rules = Rules::default();
    let mut tagger = Tagger::new();
    let mut before = Board::new();
    bencher.counter(ItemsCount::new(seqs.moves)).bench_local(|| {
        let mut mask = 0u32;
        for s in &seqs.seqs {
            tagger.reset();
            let mut b = s.start();
            for &(c, m) in &s.moves {
                before.clone_from(&b);
                if b.play(c, m, &rules).is_err() {
                    break;
                }
                mask |= tagger.tag_played(black_box(&before), &b, c, m).mask;
            }
        }
        mask
    });
}

#[divan::bench(sample_count = SAMPLES, sample_size = 1)]
fn tagging(bencher: Bencher) {
    let set = &*TAG_SET;
    let n: usize = set.iter().map(|g| g.len()).sum();
    let mut tagger = Tagger::new();
    bencher.counter(ItemsCount::new(n)).bench_local(|| {
        let mut mask = 0u32;
        for game in set {
            tagger.reset();
            for (b, c, m) in game {
                mask |= tagger.tag(black_box(b), *c, *m).mask;
            }
        }
        mask
    });
}

#[divan::bench(name = "position_hash", sample_count = SAMPLES, sample_size = 1)]
fn hash_positions(bencher: Bencher) {
    let set = &*HASH_SET;
    bencher.counter(ItemsCount::new(set.len())).bench_local(|| {
        let mut acc = 0u8;
        for (cells, to_play, ko) in set {
            acc ^= position_hash(black_box(cells), *to_play, *ko)[0];
        }
        acc
    });
}

/// The same hashes as `position_hash`, computed per game as the split stage does
/// (`position_hashes`: several positions per SIMD pass), encodings included.
#[divan::bench(name = "position_hashes_batched", sample_count = SAMPLES, sample_size = 1)]
fn hash_positions_batched(bencher: Bencher) {
    let set = &*HASH_SET;
    let mut encs = Vec::with_capacity(256);
    let mut out = vec![[0u8; 16]; 256];
    bencher.counter(ItemsCount::new(set.len())).bench_local(|| {
        let mut acc = 0u8;
        for group in set.chunks(256) {
            encs.clear();
            encs.extend(group.iter().map(|(cells, to_play, ko)| encoding(black_box(cells), *to_play, *ko)));
            position_hashes(&encs, &mut out[..group.len()]);
            acc ^= out[0][0];
        }
        acc
    });
}

#[divan::bench(sample_count = SAMPLES, sample_size = 1)]
fn dedup(bencher: Bencher) {
    let obs = &*OBS;
    bencher
        .counter(ItemsCount::new(obs.len()))
        .with_inputs(|| tempfile::tempdir().expect("temp dir"))
        .bench_local_values(|dir| {
            let mut index = DedupIndex::new(DEDUP_MEMORY, &dir.path().join("dedup"));
            for &o in obs {
                index.push(o).expect("push");
            }
            let (mut cursor, stats) = index.finish().expect("finish");
            let mut kept = 0u64;
            for row in 0..obs.len() as u64 {
                if let Some(k) = cursor.get(row).expect("cursor") {
                    kept += k.count as u64;
                }
            }
            drop(cursor);
            (dir, kept, stats.unique_positions)
        });
}

#[divan::bench(sample_count = SAMPLES, sample_size = 1)]
fn parquet_write(bencher: Bencher) {
    let p = &*PARQUET;
    bencher
        .counter(ItemsCount::new(p.rows))
        .counter(BytesCount::new(p.bytes))
        .with_inputs(|| (copy_of(&p.buf), tempfile::tempdir().expect("temp dir")))
        .bench_local_values(|(buf, dir)| {
            let shards = write_samples(buf, dir.path());
            (dir, shards)
        });
}

/// The games of `ROWS` that ended by counting (what the filter stage scores).
static COUNTED: LazyLock<Vec<&'static GameRow>> = LazyLock::new(|| {
    ROWS.iter().filter(|g| kibo::stages::filter::score_game(g, &[], &[], None).is_ok_and(|v| v.is_some())).collect()
});

/// `score_game`: the filter stage's count of every game that ended by counting (replay,
/// Benson and the conservative rules, 64 seeded playouts, seki, the count, the check).
/// Read `item/s`: counted games per second (its inverse is the cost per game).
#[divan::bench(sample_count = SAMPLES, sample_size = 1)]
fn score_game(bencher: Bencher) {
    let games = &*COUNTED;
    bencher.counter(ItemsCount::new(games.len())).bench_local(|| {
        games
            .iter()
            .filter(|g| kibo::stages::filter::score_game(black_box(g), &[], &[], None).is_ok_and(|v| v.is_some()))
            .count()
    });
}

/// Every `HASH_SET` position's picture at `cell`-px cells: (pictures, bytes).
fn vlm_pictures(cell: u32) -> (usize, usize) {
    let painter = kibo::verify::BoardPainter::new(kibo::verify::Style::model(cell).expect("a model cell size"))
        .expect("the painter draws");
    let mut bytes = 0;
    for (board, _, ko) in HASH_SET.iter() {
        let marks =
            kibo::verify::BoardMarkers { prev_move: None, ko_point: ko.and_then(kibo::coord::Point::from_index) };
        bytes += black_box(painter.png_of(board, marks).expect("PNG")).len();
    }
    (HASH_SET.len(), bytes)
}

#[divan::bench(sample_count = SAMPLES, sample_size = 1)]
fn vlm_picture_32(bencher: Bencher) {
    let n = HASH_SET.len();
    bencher.counter(ItemsCount::new(n)).bench(|| vlm_pictures(32));
}

#[divan::bench(sample_count = SAMPLES, sample_size = 1)]
fn vlm_picture_28(bencher: Bencher) {
    let n = HASH_SET.len();
    bencher.counter(ItemsCount::new(n)).bench(|| vlm_pictures(28));
}
