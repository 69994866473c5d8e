/*!
`kibo export leela`: Leela Zero's v1 training chunks (`src/Training.cpp`,
`dump_training`; read by `training/tf/chunkparser.py`). Each record is 19 lines:

* lines 1–16: planes 0–15 of `leela-18` ([`crate::features::leela`]), each as 90 hex
  digits (bits 0–359, four per digit, the first bit the digit's most significant) and one
  `0`/`1` for bit 360. Bits are Leela Zero's vertices (`coord::leela_index`: A1 is bit 0),
  flipped from kibo's frame here and nowhere else;
* line 17: the side to move, `0` black, `1` white (planes 16–17 are rebuilt from it);
* line 18: 362 probabilities (Leela Zero's vertices, 361 = pass): the corpus's move
  distribution from this position, or with `--policy played` the move played;
* line 19: `1` if the side to move won the game, else `-1`.

Rows of games without a winner (draw, void, unknown) are left out: `chunkparser` drops a
winner that is not ±1. Records go in shard order (games-table order, then move; the
trainer shuffles), `--chunk-positions` per gzipped chunk `DIR/<split>/kibo-<split>.NNNNN.gz`,
each with `…NNNNN.rows.tsv` beside it naming each record's `game_id` and `move_number`.
One chunk is in memory at a time; a rerun writes identical files (gzip without a time
stamp).
*/

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use flate2::write::GzEncoder;

use super::{Policy, SPLITS};
use crate::coord::{leela_index, NN};
use crate::features::{for_each_position, leela, Position};

/// What `kibo export leela` writes.
#[derive(Clone, Debug)]
pub struct LeelaOptions {
    /// Policy target.
    pub policy: Policy,
    /// Records per chunk.
    pub chunk_positions: usize,
}

/// What was written, per split.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct SplitCounts {
    /// Records written.
    pub positions: u64,
    /// Rows left out: their game has no winner.
    pub no_winner: u64,
    /// Chunk files.
    pub chunks: u64,
}

/// One chunk being written: the gzipped records and the rows beside them.
struct Chunk {
    gz: GzEncoder<std::io::BufWriter<std::fs::File>>,
    rows: String,
    n: usize,
}

/// Appends one record's 19 lines to `out` (see the module docs); `planes` is the position's
/// `leela-18` encoding.
pub fn write_record(out: &mut Vec<u8>, pos: &Position, planes: &[u8], policy: Policy) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let kibo_of = kibo_of_vertex();
    for plane in planes.chunks_exact(NN).take(16) {
        for quad in kibo_of[..NN - 1].chunks_exact(4) {
            let d = (plane[quad[0]] << 3) | (plane[quad[1]] << 2) | (plane[quad[2]] << 1) | plane[quad[3]];
            out.push(HEX[d as usize]);
        }
        out.push(b'0' + plane[kibo_of[NN - 1]]);
        out.push(b'\n');
    }
    out.extend_from_slice(if pos.to_play == 1 { b"0\n" } else { b"1\n" });
    let mut probs = [0f32; NN + 1];
    match policy {
        Policy::Played => probs[leela_index(pos.mv) as usize] = 1.0,
        Policy::Dist => {
            let total: u32 = pos.dist.iter().map(|d| d.1).sum();
            for &(m, c) in &pos.dist {
                probs[leela_index(m) as usize] = c as f32 / total as f32;
            }
        }
    }
    for (i, p) in probs.iter().enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        if *p == 0.0 {
            out.push(b'0');
        } else {
            write!(out, "{p}").expect("invariant: writing to a Vec");
        }
    }
    out.push(b'\n');
    out.extend_from_slice(if pos.winner == Some(pos.to_play) { b"1\n" } else { b"-1\n" });
}

/// `[v]`: the kibo index of Leela Zero vertex `v`.
fn kibo_of_vertex() -> &'static [usize; NN] {
    static T: std::sync::OnceLock<[usize; NN]> = std::sync::OnceLock::new();
    T.get_or_init(|| std::array::from_fn(|v| leela_index(v as u16) as usize))
}

fn chunk_path(dir: &Path, split: &str, k: u64, ext: &str) -> std::path::PathBuf {
    dir.join(format!("kibo-{split}.{k:05}.{ext}"))
}

fn close(chunk: Option<Chunk>, dir: &Path, split: &str, k: u64) -> anyhow::Result<()> {
    if let Some(c) = chunk {
        let path = chunk_path(dir, split, k, "gz");
        c.gz.finish().and_then(|mut w| w.flush()).with_context(|| format!("writing {}", path.display()))?;
        let rows = chunk_path(dir, split, k, "rows.tsv");
        std::fs::write(&rows, c.rows).with_context(|| format!("writing {}", rows.display()))?;
    }
    Ok(())
}

/// Writes split `split` of `out`'s samples into `dir` (created).
fn export_split(out: &Path, split: &str, dir: &Path, opt: &LeelaOptions) -> anyhow::Result<SplitCounts> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut counts = SplitCounts::default();
    let mut planes = vec![0u8; leela::LEELA_18.spatial * NN];
    let mut record = Vec::with_capacity(20 * 1024);
    let mut chunk: Option<Chunk> = None;
    for_each_position(out, Some(split), |pos| {
        if pos.winner.is_none() {
            counts.no_winner += 1;
            return Ok(());
        }
        if chunk.is_none() {
            let path = chunk_path(dir, split, counts.chunks, "gz");
            let f = std::fs::File::create(&path).with_context(|| format!("creating {}", path.display()))?;
            let gz = GzEncoder::new(std::io::BufWriter::new(f), flate2::Compression::default());
            chunk = Some(Chunk { gz, rows: String::from("record\tgame_id\tmove_number\n"), n: 0 });
        }
        let c = chunk.as_mut().expect("invariant: opened above");
        (leela::LEELA_18.encode)(pos, &mut planes, &mut []);
        record.clear();
        write_record(&mut record, pos, &planes, opt.policy);
        c.gz.write_all(&record).context("writing a chunk")?;
        c.rows.push_str(&format!("{}\t{}\t{}\n", c.n, pos.game_id, pos.move_number));
        c.n += 1;
        counts.positions += 1;
        if c.n == opt.chunk_positions {
            close(chunk.take(), dir, split, counts.chunks)?;
            counts.chunks += 1;
        }
        Ok(())
    })?;
    if chunk.is_some() {
        close(chunk, dir, split, counts.chunks)?;
        counts.chunks += 1;
    }
    Ok(counts)
}

/// Writes the chunks of `out`'s train and val samples under `to` (`to/train/`,
/// `to/val/`, replaced whole) and `to/leela.json` (the options and counts).
pub fn run(out: &Path, to: &Path, opt: &LeelaOptions) -> anyhow::Result<Vec<(String, SplitCounts)>> {
    anyhow::ensure!(opt.chunk_positions > 0, "--chunk-positions must be at least 1");
    let mut v = Vec::new();
    for split in SPLITS {
        let dir = to.join(split);
        if dir.exists() {
            std::fs::remove_dir_all(&dir).with_context(|| format!("removing {}", dir.display()))?;
        }
        v.push((split.to_string(), export_split(out, split, &dir, opt)?));
    }
    let json = serde_json::json!({
        "format": "leela-zero-v1",
        "policy": opt.policy,
        "chunk_positions": opt.chunk_positions,
        "splits": v.iter().map(|(s, c)| (s.clone(), serde_json::to_value(c).expect("invariant: plain counts"))).collect::<serde_json::Map<_, _>>(),
    });
    let text = serde_json::to_string_pretty(&json).expect("invariant: JSON values");
    crate::storage::write_atomic(to, "leela.json", text.as_bytes())?;
    Ok(v)
}
