/*!
The split stage: replay every game of the `games` table with full rules checking
and write one sample per move into `samples/` shards.

Games are read in table order, replayed in parallel in chunks, and merged back in
order, so shards are byte-identical whatever the thread count. A game with an illegal
move goes to `rejects` (stage `split`) with the reason and move number; the filter
stage's rejects are carried over, so `rejects` holds both stages.
*/

use std::collections::BTreeMap;
use std::path::Path;

use rayon::prelude::*;
use serde::Serialize;

use crate::config::{Config, SplitConfig};
use crate::coord::{Move, Point, NN, PASS};
use crate::engine::{Board, Color, Rules, SuperkoHistory, SuperkoMode};
use crate::samples::{samples_schema, BufMode, GameInfo, SampleBuf, SampleMove, HISTORY};
use crate::storage::{read_table, ShardInfo, TableOptions, TableWriter};
use crate::tables::{games_from_batch, rejects_batch, rejects_schema, GameRow, RejectRow};

/// Reject reasons the split stage can give.
pub const REASONS: &[&str] = &[
    "duplicate_game",
    "illegal_setup",
    "occupied_point",
    "suicide",
    "ko_violation",
    "superko_violation",
    "consecutive_moves",
    "bad_game_row",
];

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
    /// Shards of the combined rejects table.
    pub reject_shards: Vec<ShardInfo>,
    /// Where every move went: the sample count explained.
    pub accounting: SampleAccounting,
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

/// The splits, in partition order.
pub const SPLITS: [&str; 3] = ["train", "val", "test"];

/// Assigns a game to train/val/test from its id and the pipeline seed.
pub fn assign_split(game_id: &str, seed: u64, ratios: [f64; 3]) -> &'static str {
    let mut h = blake3::Hasher::new();
    h.update(b"kibo.split.v1\0");
    h.update(&seed.to_le_bytes());
    h.update(game_id.as_bytes());
    let b = h.finalize();
    let x =
        u64::from_le_bytes(b.as_bytes()[..8].try_into().expect("invariant: 8 bytes")) as f64 / (u64::MAX as f64 + 1.0);
    if x < ratios[0] {
        "train"
    } else if x < ratios[0] + ratios[1] {
        "val"
    } else {
        "test"
    }
}

/// Outcome of replaying one game.
pub enum Replayed {
    /// Samples plus counters.
    Ok {
        /// The samples (taken out by the caller when batching).
        samples: SampleBuf,
        /// Number of samples produced (stays valid after `samples` is taken).
        samples_written: u64,
        /// Moves replayed.
        moves: u64,
        /// Moves not sampled, by option.
        dropped: Vec<(&'static str, u64)>,
        /// One colour moved twice somewhere.
        consecutive: bool,
        /// Every replayed move counted per tag (bit order of `TAG_NAMES`), and [14] = tactical.
        tag_counts: [u32; 15],
    },
    /// Rejected: reason, detail, 1-based move number.
    Rejected { reason: &'static str, detail: String, move_number: Option<u32> },
}

fn color_of(c: u8) -> Option<Color> {
    match c {
        b'B' => Some(Color::Black),
        b'W' => Some(Color::White),
        _ => None,
    }
}

fn describe(m: Move) -> String {
    match m {
        Move::Play(p) => format!("{} ({})", p.to_gtp(), p.to_sgf()),
        Move::Pass => "pass".into(),
    }
}

#[derive(serde::Deserialize)]
struct MidSetupJson {
    before_move: u32,
    black: Vec<u16>,
    white: Vec<u16>,
    empty: Vec<u16>,
}

/// Indices of moves kept by `max_samples_per_game`: `k` of `n`, evenly spread.
pub fn spread(n: usize, k: usize) -> Vec<usize> {
    if k == 0 || k >= n {
        return (0..n).collect();
    }
    (0..k).map(|i| ((2 * i + 1) * n) / (2 * k)).collect()
}

/// Replays one game row into samples (pure function; no I/O).
pub fn replay_game(g: &GameRow, cfg: &SplitConfig, seed: u64) -> Replayed {
    replay_game_as(g, cfg, seed, BufMode::Full)
}

/// [`replay_game`] recording what `mode` says (the dedup passes need less than a row).
pub fn replay_game_as(g: &GameRow, cfg: &SplitConfig, seed: u64, buf_mode: BufMode) -> Replayed {
    let rej =
        |reason: &'static str, detail: String, mv: Option<u32>| Replayed::Rejected { reason, detail, move_number: mv };
    let rules = Rules { multi_stone_suicide: cfg.allow_multi_stone_suicide };
    let mode = match cfg.superko.as_str() {
        "positional" => SuperkoMode::Positional,
        "situational" => SuperkoMode::Situational,
        _ => SuperkoMode::Off,
    };
    if g.moves.len() != g.colors.len() {
        return rej("bad_game_row", format!("{} moves but {} colours", g.moves.len(), g.colors.len()), None);
    }
    let mid: Vec<MidSetupJson> = match &g.mid_setup {
        Some(j) => match serde_json::from_str(j) {
            Ok(v) => v,
            Err(e) => return rej("bad_game_row", format!("mid_setup: {e}"), None),
        },
        None => Vec::new(),
    };
    let mut board = Board::new();
    let place = |board: &mut Board, idx: u16, v: u8| -> bool {
        match Point::from_index(idx) {
            Some(p) => board.set_stone(p, v).is_ok(),
            None => false,
        }
    };
    for &p in &g.setup_black {
        if !place(&mut board, p, 1) {
            return rej("bad_game_row", format!("setup point {p}"), None);
        }
    }
    for &p in &g.setup_white {
        if !place(&mut board, p, 2) {
            return rej("bad_game_row", format!("setup point {p}"), None);
        }
    }
    if board.has_dead_chains() {
        return rej("illegal_setup", "setup leaves a chain without liberties".into(), None);
    }
    let first = g.colors.as_bytes().first().and_then(|&c| color_of(c)).unwrap_or(Color::Black);
    let mut history = SuperkoHistory::with_start(mode, &board, first);
    let n = g.moves.len();
    // Which moves become samples.
    let winner = g.winner.as_deref().and_then(|w| color_of(w.as_bytes()[0]));
    let mut keep = vec![true; n];
    let mut dropped: BTreeMap<&'static str, u64> = BTreeMap::new();
    let colors = g.colors.as_bytes();
    for i in 0..n {
        if cfg.drop_passes && g.moves[i] == PASS {
            keep[i] = false;
            *dropped.entry("drop_passes").or_default() += 1;
        } else if cfg.winner_only && color_of(colors[i]) != winner {
            keep[i] = false;
            *dropped.entry("winner_only").or_default() += 1;
        }
    }
    let info = GameInfo {
        game_id: g.game_id.clone(),
        source: match &g.member {
            Some(m) => format!("{}!{}", g.source_file, m),
            None => g.source_file.clone(),
        },
        game_index: g.game_index,
        komi: g.komi,
        handicap: g.handicap,
        rules: g.rules.clone(),
        result: g.result_raw.clone(),
        winner: g.winner.clone(),
        result_kind: g.result_kind.clone(),
        margin: g.margin,
        black_rank_num: g.black_rank_num,
        white_rank_num: g.white_rank_num,
        black_rank: g.black_rank.clone(),
        white_rank: g.white_rank.clone(),
        date: g.date_iso.clone(),
        split: assign_split(&g.game_id, seed, cfg.split_ratios),
    };
    let mut buf = SampleBuf::with_mode(buf_mode);
    buf.reserve(keep.iter().filter(|&&k| k).count(), cfg.tags);
    buf.begin_game(info);
    let mut cells = [0u8; NN];
    let mut hist: Vec<u16> = Vec::with_capacity(n);
    let mut recent = [0u16; HISTORY];
    let mut prev: Option<Color> = None;
    let mut consecutive = false;
    let mut mid_iter = mid.iter().peekable();
    // One tagger per thread, reused from game to game (its ladder reader's buffers grow
    // once), reset for each game.
    thread_local! {
        static TAGGER: std::cell::RefCell<crate::tactics::Tagger> = Default::default();
    }
    let mut tagger = cfg.tags.then(|| {
        let mut t = TAGGER.take();
        t.reset();
        t
    });
    let mut tag_counts = [0u32; 15];
    for i in 0..n {
        let number = i as u32 + 1;
        while let Some(s) = mid_iter.peek() {
            if s.before_move as usize != i {
                break;
            }
            for (list, v) in [(&s.black, 1u8), (&s.white, 2u8), (&s.empty, 0u8)] {
                for &p in list {
                    if !place(&mut board, p, v) {
                        return rej("bad_game_row", format!("mid setup point {p}"), Some(number));
                    }
                }
            }
            if board.has_dead_chains() {
                return rej(
                    "illegal_setup",
                    format!("setup before move {number} leaves a chain without liberties"),
                    Some(number),
                );
            }
            mid_iter.next();
        }
        let Some(color) = color_of(colors[i]) else {
            return rej("bad_game_row", format!("colour {:?}", colors[i] as char), Some(number));
        };
        let Some(mv) = Move::from_index(g.moves[i]) else {
            return rej("bad_game_row", format!("move index {}", g.moves[i]), Some(number));
        };
        if prev == Some(color) {
            consecutive = true;
            if !cfg.allow_consecutive_moves {
                return rej(
                    "consecutive_moves",
                    format!("{} moves twice in a row", if color == Color::Black { "black" } else { "white" }),
                    Some(number),
                );
            }
        }
        // The simple-ko ban binds one colour only (the opponent of the capturer).
        let ko = if board.ko_color() == Some(color) { board.ko_point().map(|p| p.index()) } else { None };
        // The sample is taken from S; the tags need S and S′: half of them before the
        // move is played on the one board, half after (no board copy).
        let pending = tagger.as_mut().map(|t| t.before_move(&board, color, mv));
        let mut sample = None;
        if keep[i] {
            board.cells(&mut cells);
            let k = hist.len().min(HISTORY);
            for (j, slot) in recent.iter_mut().take(k).enumerate() {
                *slot = hist[hist.len() - 1 - j];
            }
            let sm = SampleMove {
                move_number: number.min(u16::MAX as u32) as u16,
                to_play: color as u8,
                ko_point: ko,
                mv,
                prisoners: [
                    board.prisoners(Color::Black).min(u16::MAX as u32) as u16,
                    board.prisoners(Color::White).min(u16::MAX as u32) as u16,
                ],
            };
            let infl = (cfg.influence && matches!(buf_mode, BufMode::Full | BufMode::NoHash))
                .then(|| crate::scoring::influence_areas(&crate::scoring::influence(&board), cfg.influence_threshold));
            sample = Some((sm, k, infl));
        }
        if let Err(e) = board.play(color, mv, &rules) {
            return rej(
                e.as_str(),
                format!("{} at {}", if color == Color::Black { "black" } else { "white" }, describe(mv)),
                Some(number),
            );
        }
        let tags = tagger.as_mut().zip(pending).map(|(t, pending)| {
            let tg = t.after_move(pending, &board);
            for (b, c) in tag_counts.iter_mut().take(crate::tactics::TAG_NAMES.len()).enumerate() {
                *c += (tg.mask >> b) & 1;
            }
            tag_counts[14] += tg.is_tactical() as u32;
            (tg.mask, tg.capture_size, tg.self_atari_size)
        });
        if let Some((sm, k, infl)) = sample {
            buf.push(&cells, sm, &recent[..k], tags);
            if let Some(areas) = infl {
                buf.push_influence(&areas);
            }
        }
        if mode != SuperkoMode::Off && mv != Move::Pass && !history.push(&board, color.opponent()) {
            return rej("superko_violation", format!("{} repeats an earlier position", describe(mv)), Some(number));
        }
        hist.push(g.moves[i]);
        prev = Some(color);
    }
    buf.finish_hashes();
    if let Some(t) = tagger {
        TAGGER.set(t);
    }
    // Tactical options, then the per-game quota (evenly spread).
    let mut idx: Vec<usize> = (0..buf.len()).collect();
    if cfg.tactical_only && cfg.tags {
        let before = idx.len();
        idx.retain(|&i| buf.tag_mask(i) & crate::tactics::Tags::TACTICAL != 0);
        if before > idx.len() {
            *dropped.entry("tactical_only").or_default() += (before - idx.len()) as u64;
        }
    }
    let quota = cfg.max_samples_per_game as usize;
    if quota > 0 && idx.len() > quota {
        let chosen = if cfg.tactical_bias && cfg.tags {
            let (tac, other): (Vec<usize>, Vec<usize>) =
                idx.iter().partition(|&&i| buf.tag_mask(i) & crate::tactics::Tags::TACTICAL != 0);
            let want_tac = quota.div_ceil(2).min(tac.len());
            let want_other = (quota - want_tac).min(other.len());
            // If the other moves run short, take more tactical ones.
            let want_tac = (quota - want_other).min(tac.len());
            let mut c: Vec<usize> = spread(tac.len(), want_tac).into_iter().map(|j| tac[j]).collect();
            c.extend(spread(other.len(), want_other).into_iter().map(|j| other[j]));
            c.sort_unstable();
            c
        } else {
            spread(idx.len(), quota).into_iter().map(|j| idx[j]).collect()
        };
        *dropped.entry("max_samples_per_game").or_default() += (idx.len() - chosen.len()) as u64;
        idx = chosen;
    }
    if idx.len() < buf.len() {
        buf = buf.select(&idx);
    }
    let samples_written = buf.len() as u64;
    Replayed::Ok {
        samples: buf,
        samples_written,
        moves: n as u64,
        dropped: dropped.into_iter().collect(),
        consecutive,
        tag_counts,
    }
}

/// Games per chunk, at most.
const CHUNK_GAMES: usize = 256;
/// Moves per chunk, at most (give or take one game): a chunk's samples live in memory
/// in up to three forms (replayed, kept, Arrow batch in the writer), ~1 KB each, so
/// this bounds the stage's memory whatever the games' lengths.
const CHUNK_MOVES: usize = 48 * 1024;

/// Streams the games table in chunks of at most [`CHUNK_GAMES`] games and about
/// [`CHUNK_MOVES`] moves (bounded memory); `f` gets each chunk with the games' row
/// numbers in the table.
fn for_each_chunk(out: &Path, mut f: impl FnMut(&[GameRow], u64) -> anyhow::Result<()>) -> anyhow::Result<()> {
    let mut pending: Vec<GameRow> = Vec::new();
    let mut moves = 0usize;
    let mut first = 0u64;
    read_table(out, "games", |b| {
        for g in games_from_batch(&b)? {
            moves += g.moves.len();
            pending.push(g);
            if pending.len() >= CHUNK_GAMES || moves >= CHUNK_MOVES {
                f(&pending, first)?;
                first += pending.len() as u64;
                pending.clear();
                moves = 0;
            }
        }
        Ok(())
    })?;
    if !pending.is_empty() {
        f(&pending, first)?;
    }
    Ok(())
}

/// Replays a chunk in parallel, keeping order; games in `skip` (duplicates) give `None`.
fn replay_chunk(
    games: &[GameRow],
    skip: &std::collections::HashSet<u64>,
    first: u64,
    sc: &SplitConfig,
    seed: u64,
    mode: BufMode,
    symmetry: bool,
) -> Vec<Option<Replayed>> {
    games
        .par_iter()
        .with_min_len(8)
        .enumerate()
        .map(|(i, g)| {
            if skip.contains(&(first + i as u64)) {
                return None;
            }
            let mut r = replay_game_as(g, sc, seed, mode);
            // Pass 2 of a symmetry run: each row's symmetry maps its distribution back.
            if symmetry {
                if let Replayed::Ok { samples, .. } = &mut r {
                    samples.compute_canonical_keys();
                }
            }
            Some(r)
        })
        .collect()
}

/// How the samples table is written (shared with the Parquet micro-benchmark).
pub fn samples_table_options(sc: &SplitConfig) -> TableOptions {
    TableOptions {
        row_group_rows: sc.row_group_rows,
        shard_rows: sc.shard_rows,
        zstd_level: sc.zstd_level,
        plain_columns: vec!["board", "position_hash", "influence_areas"],
        // Identifiers, per-move text and lists: nothing prunes on them. Statistics stay on
        // split, ranks, dates, result and move numbers (docs/performance.md).
        no_stats_columns: vec![
            "game_id",
            "source",
            "move_sgf",
            "move_gtp",
            "history.list.item",
            "move_dist_moves.list.item",
            "move_dist_counts.list.item",
            "tags.list.item",
        ],
        // Numbers constant within a game, counts and small flags: plain values (zstd
        // squeezes the runs) instead of a dictionary lookup per value. `history` too: a
        // row's history is the previous row's shifted by one move, which zstd finds in
        // plain values (2.1 instead of 9 bytes per row) but not in dictionary indices.
        // `move`, `move_row`/`move_col` keep their dictionary: it is smaller there.
        no_dictionary_columns: vec![
            "history.list.item",
            "game_index",
            "move_number",
            "to_play",
            "ko_point",
            "prisoners_black",
            "prisoners_white",
            "komi",
            "handicap",
            "margin",
            "black_rank_num",
            "white_rank_num",
            "dup_count",
            "move_dist_counts.list.item",
            "dedup_symmetry",
            "tag_mask",
            "capture_size",
            "self_atari_size",
            "influence_black_area",
            "influence_white_area",
        ],
    }
}

/// Runs the split stage on `out`'s games table.
pub fn run(cfg: &Config, out: &Path, quiet: bool) -> anyhow::Result<SplitReport> {
    crate::storage::clean_stale(out)?;
    let sc = &cfg.split;
    let seed = cfg.pipeline.seed;
    let dedup = sc.dedup.as_str();
    let symmetry = dedup == "symmetry";
    let mut rejects: Vec<RejectRow> = Vec::new();
    // Carry the filter stage's rejects over.
    if out.join("rejects").is_dir() {
        read_table(out, "rejects", |b| {
            rejects.extend(crate::tables::rejects_from_batch(&b)?.into_iter().filter(|r| r.stage != "split"));
            Ok(())
        })?;
    }
    let mut report = SplitReport::default();

    // Duplicate games (same game_id = same setup and moves, whatever the metadata):
    // the first in table order is kept, the others are rejected naming it.
    let mut first_seen: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    let mut skip: std::collections::HashSet<u64> = std::collections::HashSet::new();
    let mut total_games = 0u64;
    for_each_chunk(out, |games, first| {
        for (i, g) in games.iter().enumerate() {
            total_games += 1;
            let here = match &g.member {
                Some(m) => format!("{}!{} #{}", g.source_file, m, g.game_index),
                None => format!("{} #{}", g.source_file, g.game_index),
            };
            match first_seen.get(&g.game_id) {
                Some(orig) => {
                    skip.insert(first + i as u64);
                    report.duplicate_games += 1;
                    report.games_in += 1;
                    reject_game(&mut report, &mut rejects, g, "duplicate_game", format!("same game as {orig}"), None);
                }
                None => {
                    first_seen.insert(g.game_id.clone(), here);
                }
            }
        }
        Ok(())
    })?;
    drop(first_seen);

    let passes = if dedup == "off" { 1 } else { 2 };
    let progress = crate::progress::Progress::new("split", "games", Some(total_games * passes), quiet);

    // Pass 1 (dedup on): observe every sample's key, row and move; also counts and rejects.
    let spill_dir = out.join(".tmp-dedup");
    let mut cursor = None;
    let mut counted = false;
    if dedup != "off" {
        let mut index = crate::dedup::DedupIndex::new(sc.dedup_memory_mb.saturating_mul(1 << 20), &spill_dir);
        // Pass 1 needs tags only when they choose the samples.
        let mut sc1 = sc.clone();
        sc1.tags = sc.tags && (sc.tactical_only || sc.tactical_bias);
        let sc1 = &sc1;
        let mut row = 0u64;
        for_each_chunk(out, |games, first| {
            let mode = if symmetry { BufMode::CanonicalKeys } else { BufMode::Keys };
            let results = replay_chunk(games, &skip, first, sc1, seed, mode, false);
            for (g, r) in games.iter().zip(results) {
                let Some(r) = r else { continue };
                if let Replayed::Ok { samples, .. } = &r {
                    for i in 0..samples.len() {
                        let mv = if symmetry {
                            crate::coord::symmetry_index(samples.move_index(i), samples.symmetry(i))
                        } else {
                            samples.move_index(i)
                        };
                        index.push(crate::dedup::Obs { key: samples.key(i), row, mv })?;
                        row += 1;
                    }
                }
                count_result(&mut report, &mut rejects, g, &r, sc, seed);
            }
            progress.add(games.len() as u64);
            Ok(())
        })?;
        let (c, stats) = index.finish()?;
        report.dedup = Some(stats);
        cursor = Some(c);
        counted = true;
    }

    // Final pass: replay again, keep the first row of each position, write shards.
    let opts = samples_table_options(sc);
    let mut writer = TableWriter::new(out, "samples", samples_schema(), opts)?;
    // Chunk k's batches are encoded (columns in parallel) while chunk k + 1 is replayed:
    // `rayon::join` on the stage's own pool, so `--threads` bounds both, and the
    // batches reach the writer in order, so the bytes do not depend on timing.
    let mut row = 0u64;
    let mut pending: Vec<(&'static str, arrow_array::RecordBatch)> = Vec::new();
    let write_parts = |w: &mut TableWriter, parts: &[(&'static str, arrow_array::RecordBatch)]| {
        parts.iter().try_for_each(|(split, b)| w.write_part(split, b))
    };
    {
        let mut dist: Vec<(u16, u32)> = Vec::new();
        let (mut kept_idx, mut kept_hashes): (Vec<usize>, Vec<[u8; 16]>) = (Vec::new(), Vec::new());
        for_each_chunk(out, |games, first| {
            let to_write = std::mem::take(&mut pending);
            let (built, wrote) = rayon::join(
                || -> anyhow::Result<Vec<(&'static str, arrow_array::RecordBatch)>> {
                    // With dedup, only kept rows need a hash: exact mode takes it from the index
                    // (pass 1 computed it), symmetry mode computes it for kept rows only.
                    let mode = if cursor.is_some() { BufMode::NoHash } else { BufMode::Full };
                    let results = replay_chunk(games, &skip, first, sc, seed, mode, symmetry);
                    // One buffer per split: shards are partitioned by split (part-train-*, …),
                    // each sized for all of its games' samples.
                    let mut kept: [SampleBuf; 3] = Default::default();
                    let mut rows = [0usize; 3];
                    for (g, r) in games.iter().zip(&results) {
                        if let Some(Replayed::Ok { samples, .. }) = r {
                            let split = assign_split(&g.game_id, seed, sc.split_ratios);
                            rows[SPLITS.iter().position(|s| *s == split).expect("invariant: known split")] +=
                                samples.len();
                        }
                    }
                    for (k, n) in kept.iter_mut().zip(rows) {
                        k.reserve(n, sc.tags);
                    }
                    for (g, r) in games.iter().zip(results) {
                        let Some(r) = r else { continue };
                        if !counted {
                            count_result(&mut report, &mut rejects, g, &r, sc, seed);
                        }
                        if let Replayed::Ok { tag_counts, .. } = &r {
                            if sc.tags {
                                for (b, name) in crate::tactics::TAG_NAMES.iter().enumerate() {
                                    *report.tag_counts.entry(name.to_string()).or_default() += tag_counts[b] as u64;
                                }
                                *report.tag_counts.entry("is_tactical".to_string()).or_default() +=
                                    tag_counts[14] as u64;
                            }
                        }
                        let Replayed::Ok { samples, .. } = r else { continue };
                        let split = assign_split(&g.game_id, seed, sc.split_ratios);
                        let dst = &mut kept[SPLITS.iter().position(|s| *s == split).expect("invariant: known split")];
                        let written = match cursor.as_mut() {
                            None => {
                                let n = samples.len();
                                dst.append(samples);
                                n
                            }
                            Some(cur) => {
                                kept_idx.clear();
                                kept_hashes.clear();
                                for i in 0..samples.len() {
                                    let Some(k) = cur.get(row + i as u64)? else { continue };
                                    if kept_idx.is_empty() {
                                        dst.begin_game(samples.game_of(i).clone());
                                    }
                                    if symmetry {
                                        // The distribution is in the canonical frame: map it to the row's.
                                        let s_inv = crate::coord::symmetry_inverse(samples.symmetry(i));
                                        dist.clear();
                                        dist.extend(
                                            k.dist.iter().map(|&(m, c)| (crate::coord::symmetry_index(m, s_inv), c)),
                                        );
                                        dist.sort_unstable();
                                        dst.push_dedup(k.count, &dist);
                                        kept_hashes.push(samples.compute_hash(i));
                                    } else {
                                        dst.push_dedup(k.count, k.dist);
                                        kept_hashes.push(k.key);
                                    }
                                    kept_idx.push(i);
                                }
                                if !kept_idx.is_empty() {
                                    dst.copy_kept_rows(&samples, &kept_idx, &kept_hashes);
                                }
                                row += samples.len() as u64;
                                kept_idx.len()
                            }
                        };
                        if written > 0 {
                            *report.samples_by_split.entry(split.to_string()).or_default() += written as u64;
                            report.samples += written as u64;
                        }
                    }
                    progress.add(games.len() as u64);
                    let batches: Vec<Option<arrow_array::RecordBatch>> =
                        kept.into_par_iter().map(|k| (!k.is_empty()).then(|| k.into_batch())).collect();
                    Ok(SPLITS.iter().zip(batches).filter_map(|(s, b)| b.map(|b| (*s, b))).collect())
                },
                || write_parts(&mut writer, &to_write),
            );
            wrote?;
            pending = built?;
            Ok(())
        })?;
    }
    write_parts(&mut writer, &pending)?;
    drop(cursor);
    let _ = std::fs::remove_dir_all(&spill_dir);
    progress.finish();
    report.shards = writer.finish()?;
    let mut rw = TableWriter::new(
        out,
        "rejects",
        rejects_schema(),
        TableOptions { row_group_rows: 16384, shard_rows: 250_000, zstd_level: sc.zstd_level, ..Default::default() },
    )?;
    if !rejects.is_empty() {
        rw.write(&rejects_batch(&rejects))?;
    }
    report.reject_shards = rw.finish()?;
    report.accounting = SampleAccounting::of(&report);
    Ok(report)
}

/// Counts a split-stage reject and adds its row.
fn reject_game(
    report: &mut SplitReport,
    rejects: &mut Vec<RejectRow>,
    g: &GameRow,
    reason: &str,
    detail: String,
    move_number: Option<u32>,
) {
    report.games_rejected += 1;
    *report.rejected_by_reason.entry(reason.to_string()).or_default() += 1;
    rejects.push(RejectRow {
        stage: "split".into(),
        source: g.source.clone(),
        source_file: g.source_file.clone(),
        member: g.member.clone(),
        game_index: Some(g.game_index),
        byte_offset: Some(g.byte_offset),
        reason: reason.to_string(),
        detail,
        move_number,
        game_id: Some(g.game_id.clone()),
    });
}

/// Adds one game's outcome to the report (and its reject row).
fn count_result(
    report: &mut SplitReport,
    rejects: &mut Vec<RejectRow>,
    g: &GameRow,
    r: &Replayed,
    _sc: &SplitConfig,
    _seed: u64,
) {
    report.games_in += 1;
    match r {
        Replayed::Ok { moves, dropped, consecutive, samples_written, .. } => {
            report.games_replayed += 1;
            report.moves += moves;
            report.samples_before_dedup += samples_written;
            report.games_with_consecutive_moves += *consecutive as u64;
            for (k, v) in dropped {
                *report.dropped.entry(k.to_string()).or_default() += v;
            }
        }
        Replayed::Rejected { reason, detail, move_number } => {
            reject_game(report, rejects, g, reason, detail.clone(), *move_number);
        }
    }
}
