/*!
The sample stage: draw `n` samples at random (seeded) from the shards and write the
eye-check export into `DIR/verify/`.

The draw is deterministic and independent of shard layout and thread count: every row
gets the score `blake3("kibo.sample.v1" ‖ seed ‖ position_hash ‖ game_id ‖ move_number)`
and the `n` rows with the smallest scores are taken, in score order. Filters (split,
tag, rank range) apply before the draw.
*/

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int16Type, UInt16Type, UInt32Type, UInt8Type};
use arrow_array::{Array, RecordBatch};

use crate::coord::{Move, Point, NN};
use crate::storage::read_table;
use crate::verify::VerifySample;

/// What to draw.
#[derive(Clone, Debug, Default)]
pub struct SampleOptions {
    /// How many samples.
    pub n: usize,
    /// Seed of the draw.
    pub seed: u64,
    /// Only this split (`train`, `val`, `test`).
    pub split: Option<String>,
    /// Only moves carrying this tag.
    pub tag: Option<String>,
    /// Lowest numeric rank of the side to move.
    pub min_rank: Option<i16>,
    /// Highest numeric rank of the side to move.
    pub max_rank: Option<i16>,
}

fn score(seed: u64, hash: &[u8], game_id: &str, move_number: u16) -> [u8; 16] {
    let mut h = blake3::Hasher::new();
    h.update(b"kibo.sample.v1\0");
    h.update(&seed.to_le_bytes());
    h.update(hash);
    h.update(game_id.as_bytes());
    h.update(&move_number.to_le_bytes());
    let mut out = [0u8; 16];
    out.copy_from_slice(&h.finalize().as_bytes()[..16]);
    out
}

fn col<'a>(b: &'a RecordBatch, name: &str) -> anyhow::Result<&'a std::sync::Arc<dyn Array>> {
    b.column_by_name(name).ok_or_else(|| anyhow::anyhow!("samples table has no column {name:?}"))
}

/// Draws the samples; returns them in draw order, with `id` 1..=n.
pub fn draw(out: &Path, opt: &SampleOptions) -> anyhow::Result<Vec<VerifySample>> {
    // (score) → sample, keeping the n smallest.
    let mut best: BTreeMap<[u8; 16], VerifySample> = BTreeMap::new();
    read_table(out, "samples", |b| {
        let hash = col(&b, "position_hash")?.as_fixed_size_binary();
        let game_id = col(&b, "game_id")?.as_string::<i32>();
        let mn = col(&b, "move_number")?.as_primitive::<UInt16Type>();
        let split = col(&b, "split")?.as_string::<i32>();
        let to_play = col(&b, "to_play")?.as_primitive::<UInt8Type>();
        let brn = col(&b, "black_rank_num")?.as_primitive::<Int16Type>();
        let wrn = col(&b, "white_rank_num")?.as_primitive::<Int16Type>();
        let tags = b.column_by_name("tags").map(|c| c.as_list::<i32>());
        for i in 0..b.num_rows() {
            if let Some(s) = &opt.split {
                if split.value(i) != s {
                    continue;
                }
            }
            if opt.min_rank.is_some() || opt.max_rank.is_some() {
                let r = if to_play.value(i) == 1 { brn } else { wrn };
                if r.is_null(i) {
                    continue;
                }
                let r = r.value(i);
                if opt.min_rank.is_some_and(|m| r < m) || opt.max_rank.is_some_and(|m| r > m) {
                    continue;
                }
            }
            if let Some(t) = &opt.tag {
                let Some(tags) = tags else { anyhow::bail!("the shards have no tags column; cannot filter by tag") };
                let v = tags.value(i);
                let v = v.as_string::<i32>();
                if !(0..v.len()).any(|j| v.value(j) == t) {
                    continue;
                }
            }
            let sc = score(opt.seed, hash.value(i), game_id.value(i), mn.value(i));
            if best.len() >= opt.n {
                match best.last_key_value() {
                    Some((k, _)) if *k > sc => {}
                    _ => continue,
                }
            }
            best.insert(sc, row_to_sample(&b, i)?);
            if best.len() > opt.n {
                best.pop_last();
            }
        }
        Ok(())
    })?;
    // Player names come from the games table.
    let wanted: std::collections::HashSet<String> = best.values().map(|s| s.game_id.clone()).collect();
    let mut names: HashMap<String, (Option<String>, Option<String>)> = HashMap::new();
    read_table(out, "games", |b| {
        let gid = col(&b, "game_id")?.as_string::<i32>();
        let pb = col(&b, "black_name")?.as_string::<i32>();
        let pw = col(&b, "white_name")?.as_string::<i32>();
        for i in 0..b.num_rows() {
            if wanted.contains(gid.value(i)) && !names.contains_key(gid.value(i)) {
                let s = |a: &arrow_array::StringArray| (!a.is_null(i)).then(|| a.value(i).to_string());
                names.insert(gid.value(i).to_string(), (s(pb), s(pw)));
            }
        }
        Ok(())
    })?;
    let mut v: Vec<VerifySample> = best.into_values().collect();
    for (i, s) in v.iter_mut().enumerate() {
        s.id = i + 1;
        if let Some((b, w)) = names.get(&s.game_id) {
            s.black = b.clone();
            s.white = w.clone();
        }
    }
    Ok(v)
}

fn row_to_sample(b: &RecordBatch, i: usize) -> anyhow::Result<VerifySample> {
    let board_col = col(b, "board")?.as_binary::<i32>();
    let cells: [u8; NN] = board_col.value(i).try_into().map_err(|_| anyhow::anyhow!("board is not 361 bytes"))?;
    let mv = col(b, "move")?.as_primitive::<UInt16Type>().value(i);
    let ko = col(b, "ko_point")?.as_primitive::<UInt16Type>();
    let hist = col(b, "history")?.as_list::<i32>().value(i);
    let hist = hist.as_primitive::<UInt16Type>();
    let s = |name: &str| -> anyhow::Result<Option<String>> {
        let a = col(b, name)?.as_string::<i32>();
        Ok((!a.is_null(i)).then(|| a.value(i).to_string()))
    };
    let tags = match b.column_by_name("tags") {
        Some(c) => {
            let v = c.as_list::<i32>().value(i);
            let v = v.as_string::<i32>();
            (0..v.len()).map(|j| v.value(j).to_string()).collect()
        }
        None => Vec::new(),
    };
    Ok(VerifySample {
        id: 0,
        board: cells,
        to_play: col(b, "to_play")?.as_primitive::<UInt8Type>().value(i),
        mv: Move::from_index(mv).ok_or_else(|| anyhow::anyhow!("bad move index {mv}"))?,
        prev_move: (!hist.is_empty()).then(|| Move::from_index(hist.value(0))).flatten(),
        ko_point: (!ko.is_null(i)).then(|| Point::from_index(ko.value(i))).flatten(),
        source: s("source")?.unwrap_or_default(),
        game_index: col(b, "game_index")?.as_primitive::<UInt32Type>().value(i),
        move_number: col(b, "move_number")?.as_primitive::<UInt16Type>().value(i) as u32,
        game_id: s("game_id")?.unwrap_or_default(),
        black: None,
        white: None,
        black_rank: s("black_rank")?,
        white_rank: s("white_rank")?,
        tags,
        split: s("split")?.unwrap_or_default(),
    })
}

/// Draws and writes `DIR/verify/`. Returns how many samples were written.
pub fn run(out: &Path, opt: &SampleOptions) -> anyhow::Result<usize> {
    let samples = draw(out, opt)?;
    let dir = out.join("verify");
    std::fs::create_dir_all(&dir)?;
    crate::verify::write_export(&dir, &samples)?;
    Ok(samples.len())
}
