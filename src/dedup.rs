/*!
Global, deterministic position dedup with bounded memory.

The split stage replays the corpus twice. Pass 1 feeds every sample's
`(key, row, move)` to a [`DedupIndex`], where `key` is the 16-byte dedup key
(`position_hash`, or the canonical-symmetry hash), `row` the sample's number in
canonical order (games-table order, then move number), and `move` the move played
(mapped into the canonical frame in symmetry mode). [`DedupIndex::finish`] groups
observations by key: the **first row** of each group is kept and carries the group's
size (`dup_count`) and its move distribution (move → count). Pass 2 replays again and
asks a [`KeptCursor`], in increasing row order, which rows are kept; a kept row also
gets its group's key, which in exact mode is its `position_hash`, so pass 2 does not
hash again.

Memory: observations are buffered in memory (26 bytes each) up to a limit. Past it,
they spill to 256 bucket files by the key's first byte; each bucket is then sorted and
aggregated alone, and the kept rows are written to row-range chunk files that pass 2
reads one at a time. The in-memory and spilled paths run the same aggregation on the
same sorted groups, so their results are identical (a test checks this).
*/

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use rayon::iter::{IntoParallelIterator, ParallelIterator};
use rayon::slice::ParallelSliceMut;

/// One observation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Obs {
    /// Dedup key.
    pub key: [u8; 16],
    /// Row number in canonical order.
    pub row: u64,
    /// Move played (canonical frame), 361 = pass.
    pub mv: u16,
}

const OBS_BYTES: usize = 26;
/// Fixed part of a spilled [`Kept`] (row, key, count, distribution length).
const KEPT_BYTES: usize = 32;

impl Obs {
    /// Writes the 26-byte record in one call (one copy into the writer's buffer).
    fn write(&self, w: &mut impl Write) -> std::io::Result<()> {
        let mut b = [0u8; OBS_BYTES];
        b[..16].copy_from_slice(&self.key);
        b[16..24].copy_from_slice(&self.row.to_le_bytes());
        b[24..].copy_from_slice(&self.mv.to_le_bytes());
        w.write_all(&b)
    }
    fn read(b: &[u8]) -> Obs {
        let mut key = [0u8; 16];
        key.copy_from_slice(&b[..16]);
        Obs {
            key,
            row: u64::from_le_bytes(b[16..24].try_into().expect("invariant: 8 bytes")),
            mv: u16::from_le_bytes(b[24..26].try_into().expect("invariant: 2 bytes")),
        }
    }
}

/// What a kept row carries (borrowed from the [`KeptCursor`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kept<'a> {
    /// Row number of the kept sample.
    pub row: u64,
    /// The group's dedup key (in exact mode the kept row's `position_hash`, which pass 2
    /// then need not compute again).
    pub key: [u8; 16],
    /// How many samples share the position (≥ 1).
    pub count: u32,
    /// Moves played from the position, sorted by move index, with counts (canonical frame).
    pub dist: &'a [(u16, u32)],
}

/// One kept row; its distribution is `dist[start..start + len]` of its [`KeptList`].
#[derive(Clone, Copy, Debug)]
struct KeptRow {
    row: u64,
    key: [u8; 16],
    count: u32,
    start: u32,
    len: u32,
}

/// Kept rows with their distributions in one flat vector (no allocation per row: most
/// positions are unique, with a distribution of one move).
#[derive(Default)]
struct KeptList {
    rows: Vec<KeptRow>,
    dist: Vec<(u16, u32)>,
}

impl KeptList {
    fn get(&self, i: usize) -> Kept<'_> {
        let k = &self.rows[i];
        Kept { row: k.row, key: k.key, count: k.count, dist: &self.dist[k.start as usize..(k.start + k.len) as usize] }
    }

    fn write_row(&self, i: usize, w: &mut impl Write) -> std::io::Result<()> {
        let k = self.get(i);
        let mut b = [0u8; KEPT_BYTES + 6];
        b[..8].copy_from_slice(&k.row.to_le_bytes());
        b[8..24].copy_from_slice(&k.key);
        b[24..28].copy_from_slice(&k.count.to_le_bytes());
        b[28..32].copy_from_slice(&(k.dist.len() as u32).to_le_bytes());
        // Most positions are unique: their one-move distribution goes in the same call.
        let (first, rest) = k.dist.split_first().map_or((None, &[][..]), |(f, r)| (Some(f), r));
        let n = match first {
            Some((m, c)) => {
                b[32..34].copy_from_slice(&m.to_le_bytes());
                b[34..38].copy_from_slice(&c.to_le_bytes());
                KEPT_BYTES + 6
            }
            None => KEPT_BYTES,
        };
        w.write_all(&b[..n])?;
        for (m, c) in rest {
            let mut e = [0u8; 6];
            e[..2].copy_from_slice(&m.to_le_bytes());
            e[2..].copy_from_slice(&c.to_le_bytes());
            w.write_all(&e)?;
        }
        Ok(())
    }

    fn read_all(bytes: &[u8]) -> KeptList {
        let mut out = KeptList::default();
        // Most kept rows have a one-move distribution (38 bytes).
        out.rows.reserve(bytes.len() / (KEPT_BYTES + 6));
        out.dist.reserve(bytes.len() / (KEPT_BYTES + 6));
        let mut i = 0;
        while i + KEPT_BYTES <= bytes.len() {
            let row = u64::from_le_bytes(bytes[i..i + 8].try_into().expect("invariant"));
            let key: [u8; 16] = bytes[i + 8..i + 24].try_into().expect("invariant");
            let count = u32::from_le_bytes(bytes[i + 24..i + 28].try_into().expect("invariant"));
            let n = u32::from_le_bytes(bytes[i + 28..i + 32].try_into().expect("invariant")) as usize;
            i += KEPT_BYTES;
            let start = out.dist.len() as u32;
            for _ in 0..n {
                let m = u16::from_le_bytes(bytes[i..i + 2].try_into().expect("invariant"));
                let c = u32::from_le_bytes(bytes[i + 2..i + 6].try_into().expect("invariant"));
                out.dist.push((m, c));
                i += 6;
            }
            out.rows.push(KeptRow { row, key, count, start, len: n as u32 });
        }
        out
    }
}

/// Figures for the report.
#[derive(Clone, Debug, Default, serde::Serialize, PartialEq)]
pub struct DedupStats {
    /// Observations (samples before dedup).
    pub observations: u64,
    /// Unique positions (= rows kept).
    pub unique_positions: u64,
    /// True when the index spilled to disk.
    pub spilled: bool,
    /// Bytes written to spill files (observations + kept rows).
    pub spill_bytes: u64,
    /// Largest in-memory buffer, in bytes.
    pub peak_memory_bytes: u64,
    /// Index bytes per unique position: (peak memory + spill bytes) / unique positions.
    pub bytes_per_unique_position: f64,
}

/// Which positions count as the same sample (`split.dedup`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DedupMode {
    /// Same board, side to move and ko point.
    #[default]
    Exact,
    /// The same over the 8 board symmetries.
    Symmetry,
    /// Every sample kept.
    Off,
}

/// Memory per observation held in memory: the observation, and the kept row and
/// distribution entry it may aggregate to (the in-memory path holds all three at once).
pub const BYTES_PER_OBSERVATION: usize =
    std::mem::size_of::<Obs>() + std::mem::size_of::<KeptRow>() + std::mem::size_of::<(u16, u32)>();

/// Collects observations (pass 1).
pub struct DedupIndex {
    limit_obs: usize,
    buf: Vec<Obs>,
    dir: PathBuf,
    buckets: Vec<BufWriter<File>>,
    stats: DedupStats,
    max_row: u64,
}

/// Observations from this many on are sorted in buckets first ([`sort_obs`]).
const BUCKET_SORT_MIN: usize = 1 << 12;

/// Sorts observations by (key, row): the same order as `Obs`'s `Ord` (rows are unique),
/// with the key compared as one integer. The sort keys are unique, so the order does not
/// depend on the thread count or on how the work is split.
///
/// From [`BUCKET_SORT_MIN`] observations on, they are first scattered into buckets by the
/// leading bits of their keys, skipping the bits every key shares (a spilled bucket's
/// first byte), about eight observations a bucket and at most 2¹⁶ buckets, and each bucket
/// is then sorted alone, in parallel on the caller's rayon pool. Keys are hashes, so the
/// buckets are even: one counting pass and one scatter instead of the ~log₂ n comparisons
/// per observation of a comparison sort. The scatter needs a second buffer as large as
/// the first while it runs (counted in [`DedupStats::peak_memory_bytes`]; within
/// [`BYTES_PER_OBSERVATION`], which the kept rows need after it). Returns the bytes of
/// that buffer (`0` without one).
fn sort_obs(v: &mut Vec<Obs>) -> usize {
    let by = |o: &Obs| (u128::from_be_bytes(o.key), o.row);
    let top = |o: &Obs| u32::from_be_bytes([o.key[0], o.key[1], o.key[2], o.key[3]]);
    let n = v.len();
    let first = v.first().map_or(0, top);
    let shared = v.iter().fold(0, |d, o| d | (top(o) ^ first)).leading_zeros();
    if n < BUCKET_SORT_MIN || shared >= 32 {
        v.par_sort_unstable_by_key(by);
        return 0;
    }
    // log₂(n / 8), between 1 and 16 bits.
    let bits = (usize::BITS - 1 - n.leading_zeros()).saturating_sub(3).clamp(1, 16);
    let bucket = |o: &Obs| ((top(o) << shared) >> (32 - bits)) as usize;
    let mut start = vec![0usize; (1 << bits) + 1];
    for o in v.iter() {
        start[bucket(o) + 1] += 1;
    }
    for b in 1..start.len() {
        start[b] += start[b - 1];
    }
    let mut out = vec![v[0]; n];
    let mut next = start.clone();
    for o in v.iter() {
        let b = bucket(o);
        out[next[b]] = *o;
        next[b] += 1;
    }
    let mut buckets: Vec<&mut [Obs]> = Vec::with_capacity(1 << bits);
    let mut rest = out.as_mut_slice();
    for w in start.windows(2) {
        let (b, r) = rest.split_at_mut(w[1] - w[0]);
        buckets.push(b);
        rest = r;
    }
    buckets.into_par_iter().for_each(|b| b.sort_unstable_by_key(by));
    *v = out;
    n * std::mem::size_of::<Obs>()
}

/// Sorts kept rows by row (unique: the order does not depend on the thread count).
fn sort_kept(v: &mut [KeptRow]) {
    v.par_sort_unstable_by_key(|k| k.row);
}

/// Groups sorted observations and adds one kept row per key to `out`.
fn aggregate(sorted: &[Obs], out: &mut KeptList) {
    let mut i = 0;
    let mut moves: Vec<u16> = Vec::new();
    while i < sorted.len() {
        let mut j = i + 1;
        while j < sorted.len() && sorted[j].key == sorted[i].key {
            j += 1;
        }
        let start = out.dist.len();
        if j == i + 1 {
            out.dist.push((sorted[i].mv, 1));
        } else {
            moves.clear();
            moves.extend(sorted[i..j].iter().map(|o| o.mv));
            moves.sort_unstable();
            for &m in &moves {
                match out.dist[start..].last_mut() {
                    Some((lm, c)) if *lm == m => *c += 1,
                    _ => out.dist.push((m, 1)),
                }
            }
        }
        out.rows.push(KeptRow {
            row: sorted[i].row,
            key: sorted[i].key,
            count: (j - i) as u32,
            start: start as u32,
            len: (out.dist.len() - start) as u32,
        });
        i = j;
    }
}

impl DedupIndex {
    /// An index within `memory_limit` bytes: it keeps observations in memory while they
    /// and the kept rows they could aggregate to fit ([`BYTES_PER_OBSERVATION`] each),
    /// and spills into `dir` (created on demand) beyond that.
    pub fn new(memory_limit: usize, dir: &Path) -> DedupIndex {
        DedupIndex {
            limit_obs: (memory_limit / BYTES_PER_OBSERVATION).max(16),
            buf: Vec::new(),
            dir: dir.to_path_buf(),
            buckets: Vec::new(),
            stats: DedupStats::default(),
            max_row: 0,
        }
    }

    /// Adds one observation. Rows must be pushed in increasing order.
    pub fn push(&mut self, o: Obs) -> std::io::Result<()> {
        self.stats.observations += 1;
        self.max_row = self.max_row.max(o.row + 1);
        if self.buf.len() == self.buf.capacity() {
            // Grow by doubling, but never past the limit (no overshoot of the budget).
            let want = (self.buf.capacity() * 2).max(1024).min(self.limit_obs);
            self.buf.reserve_exact(want.saturating_sub(self.buf.len()).max(1));
        }
        self.buf.push(o);
        self.stats.peak_memory_bytes =
            self.stats.peak_memory_bytes.max((self.buf.capacity() * std::mem::size_of::<Obs>()) as u64);
        if self.buf.len() >= self.limit_obs {
            self.spill()?;
        }
        Ok(())
    }

    fn spill(&mut self) -> std::io::Result<()> {
        if self.buckets.is_empty() {
            std::fs::create_dir_all(&self.dir)?;
            for b in 0..256 {
                self.buckets.push(BufWriter::new(File::create(self.dir.join(format!("obs-{b:03}.bin")))?));
            }
            self.stats.spilled = true;
        }
        for o in self.buf.drain(..) {
            o.write(&mut self.buckets[o.key[0] as usize])?;
            self.stats.spill_bytes += OBS_BYTES as u64;
        }
        Ok(())
    }

    /// Aggregates everything and returns the cursor for pass 2.
    pub fn finish(mut self) -> std::io::Result<(KeptCursor, DedupStats)> {
        if !self.stats.spilled {
            let held = (self.buf.capacity() * std::mem::size_of::<Obs>()) as u64;
            let scratch = sort_obs(&mut self.buf) as u64;
            self.stats.peak_memory_bytes = self.stats.peak_memory_bytes.max(held + scratch);
            // At most one kept row and one distribution entry per observation: reserved
            // once, so the in-memory path stays within the limit (no doubling overshoot).
            let mut kept = KeptList::default();
            kept.rows.reserve_exact(self.buf.len());
            kept.dist.reserve_exact(self.buf.len());
            aggregate(&self.buf, &mut kept);
            self.buf = Vec::new();
            sort_kept(&mut kept.rows);
            self.stats.unique_positions = kept.rows.len() as u64;
            self.finish_stats();
            return Ok((
                KeptCursor { chunks: Vec::new(), chunk_rows: u64::MAX, current: kept, pos: 0, loaded: 0, dir: None },
                self.stats,
            ));
        }
        self.spill()?;
        // The buffer's memory goes back before the buckets are aggregated.
        self.buf = Vec::new();
        for w in self.buckets.drain(..) {
            // Flushed, not synced: spill files are scratch, removed when the stage ends.
            w.into_inner().map_err(|e| e.into_error())?;
        }
        // Kept rows go to row-range chunks that pass 2 loads one at a time: a chunk's
        // file bytes and its list (86 bytes per kept row at most) take half the limit.
        let total = self.max_row.max(1);
        let chunk_limit = (self.limit_obs as u64 / 2).max(1);
        let n_chunks = (total / chunk_limit + 1).min(4096);
        let chunk_rows = total.div_ceil(n_chunks);
        let mut chunk_files: Vec<BufWriter<File>> = Vec::new();
        let mut chunk_paths = Vec::new();
        for c in 0..n_chunks {
            let p = self.dir.join(format!("kept-{c:04}.bin"));
            chunk_files.push(BufWriter::new(File::create(&p)?));
            chunk_paths.push(p);
        }
        let mut kept = KeptList::default();
        for b in 0..256 {
            let p = self.dir.join(format!("obs-{b:03}.bin"));
            let bytes = std::fs::read(&p)?;
            std::fs::remove_file(&p)?;
            let mut obs: Vec<Obs> = bytes.chunks_exact(OBS_BYTES).map(Obs::read).collect();
            self.stats.peak_memory_bytes =
                self.stats.peak_memory_bytes.max((bytes.len() + obs.len() * std::mem::size_of::<Obs>()) as u64);
            drop(bytes);
            let scratch = sort_obs(&mut obs);
            self.stats.peak_memory_bytes =
                self.stats.peak_memory_bytes.max((obs.len() * std::mem::size_of::<Obs>() + scratch) as u64);
            kept.rows.clear();
            kept.dist.clear();
            aggregate(&obs, &mut kept);
            self.stats.unique_positions += kept.rows.len() as u64;
            for (i, k) in kept.rows.iter().enumerate() {
                kept.write_row(i, &mut chunk_files[(k.row / chunk_rows) as usize])?;
                self.stats.spill_bytes += KEPT_BYTES as u64 + 6 * k.len as u64;
            }
        }
        for w in chunk_files {
            // Flushed, not synced: spill files are scratch, removed when the stage ends.
            w.into_inner().map_err(|e| e.into_error())?;
        }
        self.finish_stats();
        Ok((
            KeptCursor {
                chunks: chunk_paths,
                chunk_rows,
                current: KeptList::default(),
                pos: 0,
                loaded: 0,
                dir: Some(self.dir.clone()),
            },
            self.stats,
        ))
    }

    fn finish_stats(&mut self) {
        let u = self.stats.unique_positions.max(1) as f64;
        self.stats.bytes_per_unique_position = (self.stats.peak_memory_bytes + self.stats.spill_bytes) as f64 / u;
    }
}

/// Answers "is row r kept, and with what?" for increasing r (pass 2).
pub struct KeptCursor {
    chunks: Vec<PathBuf>,
    chunk_rows: u64,
    current: KeptList,
    pos: usize,
    loaded: usize,
    dir: Option<PathBuf>,
}

impl KeptCursor {
    /// A cursor over kept rows computed elsewhere (the reduce side of the map/reduce
    /// form, run by Spark): `(row, key, count, distribution)`, in any order, each
    /// distribution sorted by move.
    pub fn from_rows(rows: impl IntoIterator<Item = (u64, [u8; 16], u32, Vec<(u16, u32)>)>) -> KeptCursor {
        let mut list = KeptList::default();
        for (row, key, count, dist) in rows {
            let start = list.dist.len() as u32;
            list.dist.extend_from_slice(&dist);
            list.rows.push(KeptRow { row, key, count, start, len: dist.len() as u32 });
        }
        list.rows.sort_unstable_by_key(|k| k.row);
        KeptCursor { chunks: Vec::new(), chunk_rows: 1, current: list, pos: 0, loaded: 0, dir: None }
    }

    /// The kept record for `row`, if that row is kept. Call with increasing rows.
    pub fn get(&mut self, row: u64) -> std::io::Result<Option<Kept<'_>>> {
        if !self.chunks.is_empty() {
            let want = (row / self.chunk_rows) as usize + 1;
            while self.loaded < want && self.loaded < self.chunks.len() {
                let bytes = std::fs::read(&self.chunks[self.loaded])?;
                let mut v = KeptList::read_all(&bytes);
                sort_kept(&mut v.rows);
                self.current = v;
                self.pos = 0;
                self.loaded += 1;
            }
        }
        let rows = &self.current.rows;
        while self.pos < rows.len() && rows[self.pos].row < row {
            self.pos += 1;
        }
        if self.pos < rows.len() && rows[self.pos].row == row {
            // The distributions lie in key order, the rows in row order: each is a cache
            // miss unless asked for ahead of its row.
            if let Some(k) = rows.get(self.pos + PREFETCH_AHEAD) {
                let ahead = self.current.dist.get(k.start as usize..(k.start + k.len) as usize);
                crate::cpu::prefetch(ahead.unwrap_or_default());
            }
            self.pos += 1;
            Ok(Some(self.current.get(self.pos - 1)))
        } else {
            Ok(None)
        }
    }
}

/// How many kept rows ahead of the one [`KeptCursor::get`] returns its distribution is
/// prefetched: a split spends about a microsecond a row, far more than a miss.
const PREFETCH_AHEAD: usize = 8;

impl Drop for KeptCursor {
    fn drop(&mut self) {
        if let Some(d) = &self.dir {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The next number of a xorshift stream.
    fn xorshift(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    fn obs(n: u64, seed: u64) -> Vec<Obs> {
        let mut x = seed;
        (0..n)
            .map(|row| {
                let x = xorshift(&mut x);
                let mut key = [0u8; 16];
                // Few distinct keys so groups are large, with varied first bytes.
                key[0] = (x % 251) as u8;
                key[1] = (x % 7) as u8;
                Obs { key, row, mv: (x % 5) as u16 }
            })
            .collect()
    }

    type Owned = (u64, [u8; 16], u32, Vec<(u16, u32)>);

    fn run(limit: usize, all: &[Obs]) -> (Vec<Owned>, DedupStats) {
        let dir = tempfile::tempdir().unwrap();
        let mut idx = DedupIndex::new(limit, &dir.path().join("spill"));
        for o in all {
            idx.push(*o).unwrap();
        }
        let (mut cur, stats) = idx.finish().unwrap();
        let mut kept = Vec::new();
        for r in 0..all.len() as u64 {
            if let Some(k) = cur.get(r).unwrap() {
                kept.push((k.row, k.key, k.count, k.dist.to_vec()));
            }
        }
        (kept, stats)
    }

    #[test]
    fn spill_path_equals_memory_path() {
        let all = obs(20_000, 7);
        let (mem, s1) = run(64 << 20, &all);
        let (disk, s2) = run(4096, &all);
        assert!(!s1.spilled && s2.spilled);
        assert_eq!(mem, disk);
        assert_eq!(s1.unique_positions, s2.unique_positions);
        // Every key's first row is kept, counts add up to the observations.
        assert_eq!(mem.iter().map(|k| k.2 as u64).sum::<u64>(), 20_000);
        assert_eq!(
            mem.iter().map(|k| k.3.iter().map(|d| d.1).sum::<u32>()).collect::<Vec<_>>(),
            mem.iter().map(|k| k.2).collect::<Vec<_>>()
        );
        let mut first = std::collections::HashMap::new();
        for o in &all {
            first.entry(o.key).or_insert(o.row);
        }
        let mut rows: Vec<u64> = first.values().copied().collect();
        rows.sort();
        assert_eq!(mem.iter().map(|k| k.0).collect::<Vec<_>>(), rows);
        // Each kept row carries its group's key.
        assert!(mem.iter().all(|k| all[k.0 as usize].key == k.1));
    }

    #[test]
    fn bucketed_sort_equals_the_comparison_sort() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut rnd = || xorshift(&mut x);
        type Fill = fn(&mut [u8; 16], u64);
        // Hash-like keys; keys sharing their first byte (a spilled bucket), their first
        // three, or all their first four (the comparison sort alone); many duplicates; a
        // few observations only; rows out of order.
        let shapes: [(usize, Fill); 5] = [
            (100_000, |k, r| k.copy_from_slice(&[r.to_be_bytes(), (!r).to_be_bytes()].concat())),
            (50_000, |k, r| k[1..9].copy_from_slice(&r.to_be_bytes())),
            (20_000, |k, r| k[3..11].copy_from_slice(&r.to_be_bytes())),
            (20_000, |k, r| k[4..12].copy_from_slice(&r.to_be_bytes())),
            (30_000, |k, r| k[0] = (r % 3) as u8),
        ];
        for (n, fill) in shapes.into_iter().chain([(100, shapes[0].1), (BUCKET_SORT_MIN, shapes[1].1)]) {
            let mut v: Vec<Obs> = (0..n)
                .map(|i| {
                    let mut key = [7u8; 16];
                    fill(&mut key, rnd());
                    Obs { key, row: (i as u64).wrapping_mul(0x2545_f491) % (1 << 40), mv: (rnd() % 362) as u16 }
                })
                .collect();
            let mut want = v.clone();
            want.sort_unstable_by_key(|o| (u128::from_be_bytes(o.key), o.row));
            let scratch = sort_obs(&mut v);
            assert_eq!(v, want, "{n} observations");
            assert_eq!(scratch > 0, n >= BUCKET_SORT_MIN && want[0].key[..4] != want[n - 1].key[..4], "{n}");
        }
    }
}
