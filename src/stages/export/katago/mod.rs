//! `kibo export katago --out OUT --to DIR`: the train and val samples as KataGo training
//! npz files, in the layout `train.py -datadir DIR` reads (docs/planes.md, "The npz
//! export"):
//!
//! ```text
//! DIR/train.json                      {"range": [0, train rows]}
//! DIR/train/data-NNNNN.npz            + data-NNNNN.json {"num_rows": n} + data-NNNNN.rows.parquet
//! DIR/val/data-NNNNN.npz              likewise
//! ```
//!
//! Each game of the games table that has train or val samples is replayed once (in
//! parallel); every sampled position becomes one compact record (inputs and targets,
//! the mostly-zero and derived arrays stored small, [`rows`]) with a shuffle key from
//! `--seed`, game id and move number. Records go to
//! bucket files by the key's top bits, enough buckets that one fits in half of
//! `memory_mb`; then each bucket, in key order, is read back, sorted by key and cut into
//! files of `--rows-per-file` rows. The result depends on the tables and the options
//! only, so a rerun writes identical bytes, whatever the thread count.

mod meta;
pub mod npz;
pub mod rows;

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use arrow_array::{ArrayRef, RecordBatch, StringArray, UInt16Array, UInt8Array};
use rayon::prelude::*;

use super::SPLITS;
use crate::features::katago::{V7Encoder, GLOBAL, SPATIAL};
use crate::game::GameRow;
use crate::tables::{games_from_batch, Cols};
use npz::{Dtype, NpzWriter};
use rows::{Layout, RowOptions, Wanted, GLOBAL_TARGETS, METADATA, MOVES, PACKED, SCORE_DISTR, VALUE_CHANNELS};

/// Options of `kibo export katago`.
#[derive(Clone, Debug)]
pub struct KatagoOptions {
    /// The data folder to write (`train.py -datadir`).
    pub to: PathBuf,
    /// Policy channel 0 is the played move alone (else the corpus's move distribution).
    pub played_policy: bool,
    /// Policy channel 0 is KataGo's raw policy from `kibo label --policy` (scaled to
    /// counts out of [`ENGINE_POLICY_SCALE`]); only the labelled rows are written.
    pub engine_policy: bool,
    /// Shuffle seed.
    pub seed: u64,
    /// Write `metadataInputNC`.
    pub metadata: bool,
    /// Rows per npz file (the last file of a split holds the rest).
    pub rows_per_file: usize,
    /// Memory budget in MiB.
    pub memory_mb: u64,
}

/// What the export wrote.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct KatagoReport {
    /// Rows written to train and val.
    pub rows: [u64; 2],
    /// Npz files written to train and val.
    pub files: [usize; 2],
    /// Games whose rows have ownership and score targets (counted, agreeing).
    pub counted_games: u64,
    /// Bucket files used for the shuffle.
    pub buckets: usize,
}

/// KataGo's policy as channel-0 counts: each legal point's probability times this,
/// rounded (points that round to 0 left out).
pub const ENGINE_POLICY_SCALE: f32 = 32_000.0;

/// Channel-0 entries (point index, count) by `(game_id, move_number)`.
type Policies = HashMap<(String, u16), Vec<(u16, u32)>>;

/// The labels' policies by `(game_id, move_number)`, as channel-0 entries (read through
/// [`crate::stages::label::table::read`]: the version checked, each row through the
/// list's offsets).
fn engine_policies(out: &Path) -> anyhow::Result<Policies> {
    use crate::stages::label::table::{self, Col};
    let dir = out.join("labels");
    anyhow::ensure!(dir.is_dir(), "{} has no labels: run `kibo label --policy` first", out.display());
    let mut m = HashMap::new();
    table::read(&dir, Some(&[Col::GameId, Col::MoveNumber, Col::Policy]), |v| {
        for i in 0..v.len() {
            let dist: Vec<(u16, u32)> = v
                .policy(i)
                .iter()
                .enumerate()
                .filter(|(_, &x)| x > 0.0)
                .map(|(k, &x)| (k as u16, (x * ENGINE_POLICY_SCALE).round() as u32))
                .filter(|&(_, n)| n > 0)
                .collect();
            m.insert((v.game_id(i).to_string(), v.move_number(i)), dist);
        }
        Ok(())
    })?;
    Ok(m)
}

/// Reads the games table and the train/val sample rows wanted per game (with
/// `engine`, only the labelled rows, each with KataGo's policy as its distribution).
fn read_inputs(out: &Path, engine: bool) -> anyhow::Result<(Vec<GameRow>, Vec<Vec<Wanted>>)> {
    let mut policies = if engine { Some(engine_policies(out)?) } else { None };
    let mut games = Vec::new();
    crate::storage::read_table(out, "games", |b| {
        games.extend(games_from_batch(&b)?);
        Ok(())
    })?;
    // A game filed twice keeps its first copy (the split stage's `duplicate_game` rule).
    let mut index: HashMap<String, usize> = HashMap::with_capacity(games.len());
    for (i, g) in games.iter().enumerate() {
        index.entry(g.game_id.to_hex()).or_insert(i);
    }
    let mut wanted: Vec<Vec<Wanted>> = vec![Vec::new(); games.len()];
    let cols = ["game_id", "move_number", "split", "move_dist_moves", "move_dist_counts"];
    crate::storage::read_table_columns(out, "samples", Some(&cols), |b| {
        let c = Cols::new(&b, "samples");
        let (id, mn, split) =
            (c.str("game_id")?, c.prim::<arrow_array::types::UInt16Type>("move_number")?, c.str("split")?);
        let (ml, mv) = c.u16_list("move_dist_moves")?;
        let cl = c.list("move_dist_counts")?;
        let cv = cl.values().as_any().downcast_ref::<arrow_array::UInt32Array>().context("move_dist_counts")?;
        for i in 0..b.num_rows() {
            let s = match split.value(i) {
                "train" => 0,
                "val" => 1,
                _ => continue,
            };
            let g = *index.get(id.value(i)).with_context(|| format!("sample of unknown game {}", id.value(i)))?;
            let (mo, co) = (ml.value_offsets(), cl.value_offsets());
            let dist = match policies.as_mut() {
                Some(m) => match m.remove(&(id.value(i).to_string(), mn.value(i))) {
                    Some(d) => d,
                    None => continue,
                },
                None => (mo[i] as usize..mo[i + 1] as usize)
                    .zip(co[i] as usize..co[i + 1] as usize)
                    .map(|(a, b)| (mv[a], cv.value(b)))
                    .collect(),
            };
            wanted[g].push(Wanted { move_number: mn.value(i) as u32, split: s, dist });
        }
        Ok(())
    })?;
    for w in &mut wanted {
        w.sort_by_key(|w| w.move_number);
    }
    Ok((games, wanted))
}

/// Bucket files of one export: per split and bucket, a file of zstd frames (level 1)
/// that concatenate to its records. A bucket's records wait in a pending buffer of at
/// most `frame` bytes (plus one record) before they are compressed and appended, so the
/// buffers together hold at most a quarter of the budget; the records (compact, under
/// 2 KB each where the npz row is about 5.5 KB) shrink further, which makes the spill
/// cheap to write and read.
struct Buckets {
    dir: PathBuf,
    shift: u32,
    n: usize,
    frame: usize,
    files: Vec<File>,
    pending: Vec<Vec<u8>>,
    /// Bytes of records per file, so that a bucket is read back into one allocation.
    bytes: Vec<usize>,
    zstd: zstd::bulk::Compressor<'static>,
}

impl Buckets {
    fn new(dir: PathBuf, n: usize, budget: u64) -> anyhow::Result<Buckets> {
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let mut files = Vec::new();
        for s in 0..2 {
            for b in 0..n {
                let p = dir.join(format!("{s}-{b:05}.zst"));
                files.push(File::create(&p).with_context(|| format!("creating {}", p.display()))?);
            }
        }
        let frame = (budget as usize / 4 / (2 * n)).clamp(16 << 10, 1 << 20);
        let zstd = zstd::bulk::Compressor::new(1)?;
        Ok(Buckets {
            dir,
            shift: 64 - n.trailing_zeros(),
            n,
            frame,
            files,
            pending: vec![Vec::new(); 2 * n],
            bytes: vec![0; 2 * n],
            zstd,
        })
    }
    fn push(&mut self, rec: &[u8]) -> std::io::Result<()> {
        let key = u64::from_le_bytes(rec[..8].try_into().expect("8 bytes"));
        let b = if self.n == 1 { 0 } else { (key >> self.shift) as usize };
        let i = rec[14] as usize * self.n + b;
        self.pending[i].extend_from_slice(rec);
        self.bytes[i] += rec.len();
        if self.pending[i].len() >= self.frame {
            self.flush(i)?;
        }
        Ok(())
    }
    /// Compresses bucket `i`'s pending records into one frame at the end of its file.
    fn flush(&mut self, i: usize) -> std::io::Result<()> {
        if !self.pending[i].is_empty() {
            let z = self.zstd.compress(&self.pending[i])?;
            self.files[i].write_all(&z)?;
            self.pending[i].clear();
        }
        Ok(())
    }
    fn finish(&mut self) -> std::io::Result<()> {
        for i in 0..self.pending.len() {
            self.flush(i)?;
        }
        self.pending = Vec::new();
        Ok(())
    }
    /// Reads bucket `b` of `split` into `v` (cleared first; one buffer for every bucket,
    /// so its pages are faulted in once).
    fn read(&self, split: usize, b: usize, v: &mut Vec<u8>) -> std::io::Result<()> {
        let p = self.dir.join(format!("{split}-{b:05}.zst"));
        v.clear();
        v.reserve(self.bytes[split * self.n + b]);
        // An empty bucket (a split with no rows) holds no frame, which zstd's reader
        // takes for a cut one.
        if self.bytes[split * self.n + b] > 0 {
            zstd::stream::read::Decoder::new(File::open(p)?)?.read_to_end(v)?;
        }
        Ok(())
    }
}

/// Runs the export (see the module docs).
pub fn run(out: &Path, o: &KatagoOptions) -> anyhow::Result<KatagoReport> {
    let (games, wanted) = read_inputs(out, o.engine_policy)?;
    let layout = Layout::new(o.metadata);
    let total: [u64; 2] = [0, 1].map(|s| wanted.iter().map(|w| w.iter().filter(|x| x.split == s).count() as u64).sum());
    let budget = (o.memory_mb.max(16) << 20) / 2;
    let need = (total[0].max(total[1]) * layout.size as u64).div_ceil(budget / 2).max(1);
    let n = need.next_power_of_two().min(1 << 12) as usize;
    let rows_per_file = o.rows_per_file.clamp(1, (budget / 2 / layout.size as u64).max(1) as usize);
    let mut report = KatagoReport { buckets: n, ..Default::default() };
    for s in SPLITS {
        let p = o.to.join(s);
        if p.exists() {
            std::fs::remove_dir_all(&p).with_context(|| format!("removing {}", p.display()))?;
        }
    }
    let tmp = o.to.join(".tmp-katago-buckets");
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp)?;
    }
    let mut buckets = Buckets::new(tmp.clone(), n, budget)?;
    let opts = RowOptions { played_policy: o.played_policy, seed: o.seed, layout };
    let todo: Vec<usize> = (0..games.len()).filter(|&i| !wanted[i].is_empty()).collect();
    for chunk in todo.chunks(256) {
        let recs: Vec<anyhow::Result<(Vec<u8>, bool)>> = chunk
            .par_iter()
            .map_init(V7Encoder::new, |enc, &gi| {
                let g = &games[gi];
                let fin = rows::final_count(g)?;
                let mut v = Vec::with_capacity(wanted[gi].len() * 2048);
                rows::game_rows(g, gi as u32, &wanted[gi], fin.as_ref(), opts, enc, &mut v)?;
                Ok((v, fin.is_some()))
            })
            .collect();
        for r in recs {
            let (v, counted) = r?;
            report.counted_games += counted as u64;
            let mut rest = &v[..];
            while !rest.is_empty() {
                let (rec, r) = rest.split_at(rows::record_len(rest));
                buckets.push(rec)?;
                rest = r;
            }
        }
    }
    buckets.finish()?;
    // One bucket buffer, one record index and one set of columns for the whole export.
    let mut data = Vec::new();
    let mut recs: Vec<((u64, u32, u16), usize, usize)> = Vec::new();
    let mut pending = Columns::new(layout, rows_per_file);
    for (s, name) in SPLITS.iter().enumerate() {
        let dir = o.to.join(name);
        std::fs::create_dir_all(&dir)?;
        let mut file_no = 0;
        for b in 0..n {
            buckets.read(s, b, &mut data)?;
            recs.clear();
            let mut at = 0;
            while at < data.len() {
                let len = rows::record_len(&data[at..]);
                recs.push((record_order(&data[at..]), at, len));
                at += len;
            }
            // The (key, game, move) triples are distinct, so the unstable sort's order is
            // the stable one's.
            recs.sort_unstable_by_key(|r| r.0);
            for &(_, at, len) in &recs {
                pending.push(&data[at..at + len]);
                if pending.rows() == rows_per_file {
                    write_file(&dir, file_no, &pending, &games)?;
                    file_no += 1;
                    pending.clear();
                }
            }
        }
        if pending.rows() > 0 {
            write_file(&dir, file_no, &pending, &games)?;
            file_no += 1;
            pending.clear();
        }
        report.files[s] = file_no;
        report.rows[s] = total[s];
    }
    std::fs::remove_dir_all(&tmp)?;
    let train_json = format!("{{\"range\": [0, {}]}}\n", total[0]);
    std::fs::write(o.to.join("train.json"), train_json)?;
    Ok(report)
}

/// Sort key of a record: shuffle key, then game and move (a tie-break for equal keys).
fn record_order(r: &[u8]) -> (u64, u32, u16) {
    let u = |a: usize, b: usize| r[a..b].iter().rev().fold(0u64, |acc, &x| (acc << 8) | x as u64);
    (u(0, 8), u(8, 12) as u32, u(12, 14) as u16)
}

/// The records of one npz file, gathered array by array as they come (expanded once).
struct Columns {
    layout: Layout,
    /// Per array of [`Layout::arrays`], its bytes of every record so far.
    arrays: Vec<Vec<u8>>,
    /// Per record: game index and move number.
    heads: Vec<(u32, u16)>,
}

impl Columns {
    /// Columns with room for `rows` records.
    fn new(layout: Layout, rows: usize) -> Columns {
        let arrays = layout.arrays().iter().map(|&(a, b)| Vec::with_capacity(rows * (b - a))).collect();
        Columns { arrays, layout, heads: Vec::with_capacity(rows) }
    }
    /// Empties the columns, keeping their allocations.
    fn clear(&mut self) {
        self.arrays.iter_mut().for_each(Vec::clear);
        self.heads.clear();
    }
    fn push(&mut self, r: &[u8]) {
        rows::expand(&self.layout, r, &mut self.arrays);
        let gi = u32::from_le_bytes(r[8..12].try_into().expect("4 bytes"));
        self.heads.push((gi, u16::from_le_bytes(r[12..14].try_into().expect("2 bytes"))));
    }
    fn rows(&self) -> usize {
        self.heads.len()
    }
}

/// Writes `DIR/data-NNNNN.{npz,json,rows.parquet}` from the records `recs`.
fn write_file(dir: &Path, no: usize, recs: &Columns, games: &[GameRow]) -> anyhow::Result<()> {
    let n = recs.rows();
    let stem = format!("data-{no:05}");
    let path = dir.join(format!("{stem}.npz"));
    let f = BufWriter::new(File::create(&path).with_context(|| format!("creating {}", path.display()))?);
    let mut z = NpzWriter::new(f);
    let arrays: [(&str, Dtype, Vec<usize>); 7] = [
        ("binaryInputNCHWPacked", Dtype::U8, vec![n, SPATIAL, PACKED]),
        ("globalInputNC", Dtype::F32, vec![n, GLOBAL]),
        ("policyTargetsNCMove", Dtype::I16, vec![n, 2, MOVES]),
        ("globalTargetsNC", Dtype::F32, vec![n, GLOBAL_TARGETS]),
        ("scoreDistrN", Dtype::I8, vec![n, SCORE_DISTR]),
        ("valueTargetsNCHW", Dtype::I8, vec![n, VALUE_CHANNELS, 19, 19]),
        ("metadataInputNC", Dtype::F32, vec![n, METADATA]),
    ];
    for ((name, dt, shape), bytes) in arrays.into_iter().zip(&recs.arrays) {
        z.add(name, dt, &shape, bytes)?;
    }
    z.finish()?.flush()?;
    std::fs::write(dir.join(format!("{stem}.json")), format!("{{\"num_rows\": {n}}}\n"))?;
    let ids: Vec<String> = recs.heads.iter().map(|&(gi, _)| games[gi as usize].game_id.to_hex()).collect();
    let moves: Vec<u16> = recs.heads.iter().map(|&(_, m)| m).collect();
    let batch = RecordBatch::try_from_iter([
        ("game_id", Arc::new(StringArray::from(ids)) as ArrayRef),
        ("move_number", Arc::new(UInt16Array::from(moves)) as ArrayRef),
        ("symmetry", Arc::new(UInt8Array::from(vec![0u8; n])) as ArrayRef),
    ])?;
    let p = dir.join(format!("{stem}.rows.parquet"));
    let mut w = parquet::arrow::ArrowWriter::try_new(File::create(&p)?, batch.schema(), None)?;
    w.write(&batch)?;
    w.close()?;
    Ok(())
}
