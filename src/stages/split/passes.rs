/*!
The split stage's passes, each a function from typed input to typed output. None reads
another's in-memory state except through those outputs, so each could run elsewhere
(the map/reduce form for Spark distributes exactly these):

1. [`duplicate_games`]: games table → [`Duplicates`] (the table rows to skip, and a
   `duplicate_game` reject naming the first copy for each).
2. [`position_keys`]: games table + [`Duplicates`] → a [`DedupIndex`] of every
   sample's key, row and move, plus the [`Tally`] of the replay (dedup on only).
3. dedup: [`DedupIndex::finish`] → a [`KeptCursor`] (the first row of each position,
   with its count and move distribution).
4. [`write_samples`]: games table + [`Duplicates`] + the cursor → the samples shards
   (and the [`Tally`] when pass 2 did not run).

Rows are numbered in canonical order: games-table order, then move number. Every
game's samples depend on the game alone, so the passes give the same rows whatever
the thread count.
*/

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use arrow_array::RecordBatch;
use rayon::prelude::*;

use crate::config::SplitConfig;
use crate::coord::{symmetry_index, symmetry_inverse};
use crate::dedup::{DedupIndex, DedupMode, DedupStats, KeptCursor, Obs};
use crate::game::{GameId, GameRow, Split};
use crate::progress::Progress;
use crate::reject::Reject;
use crate::samples::{BufMode, SampleBuf};
use crate::storage::{read_table, read_table_columns, ShardInfo, TableWriter};
use crate::tables::{game_ids_from_batch, games_from_batch, RejectRow};
use crate::tactics::TAG_NAMES;

use super::policy::assign_split;
use super::replay::{game_samples, GameSamples};

/// Games per chunk, at most.
const CHUNK_GAMES: usize = 256;
/// Moves per chunk, at most (give or take one game): a chunk's samples live in memory
/// in up to three forms (replayed, kept, Arrow batch in the writer), ~1 KB each, so
/// this bounds the stage's memory whatever the games' lengths.
const CHUNK_MOVES: usize = 48 * 1024;

/// Streams the games table in chunks of at most [`CHUNK_GAMES`] games and about
/// [`CHUNK_MOVES`] moves (bounded memory); `f` gets each chunk with the games' row
/// numbers in the table.
pub fn for_each_chunk(out: &Path, mut f: impl FnMut(&[GameRow], u64) -> anyhow::Result<()>) -> anyhow::Result<()> {
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

/// Pass 1's output: games that repeat an earlier game (same id = same setup and moves,
/// whatever the metadata).
#[derive(Debug, Default)]
pub struct Duplicates {
    /// Table rows of the games skipped.
    pub skip: std::collections::HashSet<u64>,
    /// One `duplicate_game` reject per skipped game, in table order.
    pub rejects: Vec<RejectRow>,
    /// Games in the table.
    pub games: u64,
    /// The duplicate-game index's figures (`unique_positions` = distinct games).
    pub stats: DedupStats,
}

/// Pass 1: the first game of each id, in table order, is kept; each later one is
/// rejected naming it. The ids go through a [`DedupIndex`] keyed by game id (16 bytes and
/// a row per game, within `memory` bytes, then spilled under `spill_dir`): the first row
/// of each id is its kept row. A second read of the table then names, for every later
/// copy, the first one (which comes before it in table order), keeping in memory only the
/// locations of games that have copies.
pub fn duplicate_games(out: &Path, memory: usize, spill_dir: &Path) -> anyhow::Result<Duplicates> {
    let mut index = DedupIndex::new(memory, spill_dir);
    let mut games = 0u64;
    // The ids alone: the other columns are decoded only when there are copies.
    read_table_columns(out, "games", Some(&["game_id"]), |b| {
        for id in game_ids_from_batch(&b)? {
            index.push(Obs { key: id.0, row: games, mv: 0 })?;
            games += 1;
        }
        Ok(())
    })?;
    let (mut cursor, stats) = index.finish()?;
    let mut d = Duplicates { games, stats, ..Default::default() };
    if d.stats.unique_positions == games {
        return Ok(d);
    }
    let mut first_copy: HashMap<GameId, String> = HashMap::new();
    for_each_chunk(out, |chunk, first| {
        for (g, row) in chunk.iter().zip(first..) {
            match cursor.get(row)? {
                Some(k) if k.count > 1 => {
                    first_copy.insert(g.game_id, g.location());
                }
                Some(_) => {}
                None => {
                    let orig = first_copy.get(&g.game_id).expect("invariant: the first copy comes first");
                    d.skip(g, row, orig);
                }
            }
        }
        Ok(())
    })?;
    Ok(d)
}

impl Duplicates {
    /// Skips table row `row` (game `g`), a copy of the game at location `orig`.
    fn skip(&mut self, g: &GameRow, row: u64, orig: &str) {
        self.skip.insert(row);
        self.rejects.push(RejectRow::of_game(g, Reject::DuplicateGame, format!("same game as {orig}"), None));
    }
}

/// Pass 1 computed elsewhere (Spark): `copies` maps the table rows of `out`'s games that
/// repeat an earlier game to the location of its first copy.
pub fn duplicates_from(out: &Path, copies: &HashMap<u64, String>) -> anyhow::Result<Duplicates> {
    let mut d = Duplicates::default();
    for_each_chunk(out, |chunk, first| {
        for (g, row) in chunk.iter().zip(first..) {
            if let Some(orig) = copies.get(&row) {
                d.skip(g, row, orig);
            }
        }
        d.games += chunk.len() as u64;
        Ok(())
    })?;
    d.stats.observations = d.games;
    d.stats.unique_positions = d.games - d.skip.len() as u64;
    Ok(d)
}

/// What the replay of the games gave: counts and the games it refused.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Tally {
    /// Games replayed (not duplicates).
    pub games_in: u64,
    /// Games replayed to the end.
    pub games_replayed: u64,
    /// Moves of those games.
    pub moves: u64,
    /// Samples produced by replay and the sampling options, before dedup.
    pub samples_before_dedup: u64,
    /// Replayed games with moves by the same colour twice in a row.
    pub games_with_consecutive_moves: u64,
    /// Moves not written, by sampling option.
    pub dropped: BTreeMap<String, u64>,
    /// Games refused by the replay, in table order (written to the rejects table, not
    /// serialized with the counts).
    #[serde(skip)]
    pub rejects: Vec<RejectRow>,
}

impl Tally {
    fn add(&mut self, g: &GameRow, r: &Result<GameSamples, crate::replay::Refusal>) {
        self.games_in += 1;
        match r {
            Ok(s) => {
                self.games_replayed += 1;
                self.moves += s.moves;
                self.samples_before_dedup += s.samples.len() as u64;
                self.games_with_consecutive_moves += s.consecutive as u64;
                for (k, v) in &s.dropped {
                    *self.dropped.entry(k.to_string()).or_default() += v;
                }
            }
            Err(e) => self.rejects.push(RejectRow::of_game(g, e.reason, e.detail.clone(), e.move_number)),
        }
    }
}

/// Replays a chunk in parallel, keeping order; skipped games give `None`.
fn replay_chunk(
    games: &[GameRow],
    dups: &Duplicates,
    first: u64,
    sc: &SplitConfig,
    seed: u64,
    mode: BufMode,
) -> Vec<Option<Result<GameSamples, crate::replay::Refusal>>> {
    games
        .par_iter()
        .with_min_len(8)
        .enumerate()
        .map(|(i, g)| {
            if dups.skip.contains(&(first + i as u64)) {
                return None;
            }
            let mut r = game_samples(g, sc, seed, mode);
            // Pass 4 of a symmetry run: each row's symmetry maps its distribution back.
            if mode == BufMode::NoHash && sc.dedup == DedupMode::Symmetry {
                if let Ok(s) = &mut r {
                    s.samples.compute_canonical_keys();
                }
            }
            Some(r)
        })
        .collect()
}

/// Pass 2: every sample's dedup key, row and move to `index` (a [`DedupIndex`], or the
/// keys table of the map/reduce form), and the tally of the replay.
pub fn position_keys(
    out: &Path,
    dups: &Duplicates,
    sc: &SplitConfig,
    seed: u64,
    index: &mut dyn FnMut(Obs) -> std::io::Result<()>,
    progress: &Progress,
) -> anyhow::Result<Tally> {
    let symmetry = sc.dedup == DedupMode::Symmetry;
    // Tags are needed here only when they choose the samples.
    let mut sc1 = sc.clone();
    sc1.tags = sc.tags && (sc.tactical_only || sc.tactical_bias);
    let mode = if symmetry { BufMode::CanonicalKeys } else { BufMode::Keys };
    let mut tally = Tally::default();
    let mut row = 0u64;
    for_each_chunk(out, |games, first| {
        for (g, r) in games.iter().zip(replay_chunk(games, dups, first, &sc1, seed, mode)) {
            let Some(r) = r else { continue };
            if let Ok(s) = &r {
                let s = &s.samples;
                for i in 0..s.len() {
                    let mv = if symmetry { symmetry_index(s.move_index(i), s.symmetry(i)) } else { s.move_index(i) };
                    index(Obs { key: s.key(i), row, mv })?;
                    row += 1;
                }
            }
            tally.add(g, &r);
        }
        progress.add(games.len() as u64);
        Ok(())
    })?;
    Ok(tally)
}

/// Pass 4's output.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Written {
    /// Samples written.
    pub samples: u64,
    /// Samples per split.
    pub samples_by_split: BTreeMap<String, u64>,
    /// Every replayed move counted per tag, plus `is_tactical`.
    pub tag_counts: BTreeMap<String, u64>,
    /// The shards.
    pub shards: Vec<ShardInfo>,
}

/// The kept rows of one game's samples, appended to `dst` (dedup on).
struct Keeper<'a> {
    cursor: &'a mut KeptCursor,
    symmetry: bool,
    row: u64,
    idx: Vec<usize>,
    hashes: Vec<[u8; 16]>,
    dist: Vec<(u16, u32)>,
}

impl Keeper<'_> {
    /// Appends the kept rows of `samples` to `dst`; returns how many.
    fn keep(&mut self, samples: &SampleBuf, dst: &mut SampleBuf) -> anyhow::Result<usize> {
        self.idx.clear();
        self.hashes.clear();
        for i in 0..samples.len() {
            let Some(k) = self.cursor.get(self.row + i as u64)? else { continue };
            if self.idx.is_empty() {
                dst.begin_game(samples.game_of(i).clone());
            }
            if self.symmetry {
                // The distribution is in the canonical frame: map it to the row's.
                let s_inv = symmetry_inverse(samples.symmetry(i));
                self.dist.clear();
                self.dist.extend(k.dist.iter().map(|&(m, c)| (symmetry_index(m, s_inv), c)));
                self.dist.sort_unstable();
                dst.push_dedup(k.count, &self.dist);
                self.hashes.push(samples.compute_hash(i));
            } else {
                dst.push_dedup(k.count, k.dist);
                self.hashes.push(k.key);
            }
            self.idx.push(i);
        }
        if !self.idx.is_empty() {
            dst.copy_kept_rows(samples, &self.idx, &self.hashes);
        }
        self.row += samples.len() as u64;
        Ok(self.idx.len())
    }
}

/// Pass 4: replays again, keeps the rows the cursor names (all rows without dedup),
/// writes them to `writer` partitioned by split; counts into `tally` when given (dedup
/// off: pass 2 did not run).
#[allow(clippy::too_many_arguments)]
pub fn write_samples(
    out: &Path,
    dups: &Duplicates,
    sc: &SplitConfig,
    seed: u64,
    cursor: Option<&mut KeptCursor>,
    mut tally: Option<&mut Tally>,
    writer: &mut TableWriter,
    progress: &Progress,
) -> anyhow::Result<Written> {
    let mut w = Written::default();
    let mut tags = [0u64; TAG_NAMES.len() + 1];
    let mut tagged = false;
    let mut keeper = cursor.map(|cursor| Keeper {
        cursor,
        symmetry: sc.dedup == DedupMode::Symmetry,
        row: 0,
        idx: Vec::new(),
        hashes: Vec::new(),
        dist: Vec::new(),
    });
    // Chunk k's batches are encoded (columns in parallel) while chunk k + 1 is replayed:
    // `rayon::join` on the stage's own pool, so `--threads` bounds both, and the
    // batches reach the writer in order, so the bytes do not depend on timing.
    let mut pending: Vec<(Split, RecordBatch)> = Vec::new();
    let write_parts = |wr: &mut TableWriter, parts: &[(Split, RecordBatch)]| {
        parts.iter().try_for_each(|(split, b)| wr.write_part(split.as_str(), b))
    };
    for_each_chunk(out, |games, first| {
        let to_write = std::mem::take(&mut pending);
        let (built, wrote) = rayon::join(
            || -> anyhow::Result<Vec<(Split, RecordBatch)>> {
                // With dedup, only kept rows need a hash: exact mode takes it from the index
                // (pass 2 computed it), symmetry mode computes it for kept rows only.
                let mode = if keeper.is_some() { BufMode::NoHash } else { BufMode::Full };
                let results = replay_chunk(games, dups, first, sc, seed, mode);
                let mut kept = split_buffers(games, &results, sc, seed);
                for (g, r) in games.iter().zip(results) {
                    let Some(r) = r else { continue };
                    if let Some(t) = tally.as_deref_mut() {
                        t.add(g, &r);
                    }
                    let Ok(s) = r else { continue };
                    tagged = true;
                    for (t, c) in tags.iter_mut().zip(s.tag_counts) {
                        *t += c as u64;
                    }
                    let split = assign_split(&g.game_id, seed, sc.split_ratios);
                    let dst = &mut kept[split.index()];
                    let n = match keeper.as_mut() {
                        None => {
                            let n = s.samples.len();
                            dst.append(s.samples);
                            n
                        }
                        Some(k) => k.keep(&s.samples, dst)?,
                    };
                    if n > 0 {
                        *w.samples_by_split.entry(split.as_str().to_string()).or_default() += n as u64;
                        w.samples += n as u64;
                    }
                }
                progress.add(games.len() as u64);
                let batches: Vec<Option<RecordBatch>> =
                    kept.into_par_iter().map(|k| (!k.is_empty()).then(|| k.into_batch())).collect();
                Ok(Split::ALL.into_iter().zip(batches).filter_map(|(s, b)| b.map(|b| (s, b))).collect())
            },
            || write_parts(writer, &to_write),
        );
        wrote?;
        pending = built?;
        Ok(())
    })?;
    write_parts(writer, &pending)?;
    if sc.tags && tagged {
        for (name, c) in TAG_NAMES.iter().chain(["is_tactical"].iter()).zip(tags) {
            w.tag_counts.insert(name.to_string(), c);
        }
    }
    Ok(w)
}

/// One buffer per split (shards are partitioned by split: part-train-*, …), each sized
/// for all of its games' samples.
fn split_buffers(
    games: &[GameRow],
    results: &[Option<Result<GameSamples, crate::replay::Refusal>>],
    sc: &SplitConfig,
    seed: u64,
) -> [SampleBuf; 3] {
    let mut kept: [SampleBuf; 3] = Default::default();
    let mut rows = [0usize; 3];
    for (g, r) in games.iter().zip(results) {
        if let Some(Ok(s)) = r {
            rows[assign_split(&g.game_id, seed, sc.split_ratios).index()] += s.samples.len();
        }
    }
    for (k, n) in kept.iter_mut().zip(rows) {
        k.reserve(n, sc.tags);
    }
    kept
}

/// Pass 3: the dedup index → the cursor over kept rows and the index's figures.
pub fn dedup(index: DedupIndex) -> std::io::Result<(KeptCursor, DedupStats)> {
    index.finish()
}
