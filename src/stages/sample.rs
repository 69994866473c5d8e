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

use arrow_array::types::{Int16Type, UInt16Type, UInt32Type, UInt8Type};
use arrow_array::Array;

use crate::coord::{Move, Point, NN};
use crate::storage::read_table;
use crate::tables::Cols;
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

/// The `i`th values of a list column.
fn list_range(l: &arrow_array::GenericListArray<i32>, i: usize) -> std::ops::Range<usize> {
    let o = l.value_offsets();
    o[i] as usize..o[i + 1] as usize
}

/// Draws the samples; returns them in draw order, with `id` 1..=n.
pub fn draw(out: &Path, opt: &SampleOptions) -> anyhow::Result<Vec<VerifySample>> {
    // (score) → sample, keeping the n smallest.
    let mut best: BTreeMap<[u8; 16], VerifySample> = BTreeMap::new();
    read_table(out, "samples", |b| {
        let c = Cols::new(&b, "samples");
        let hash = c.fixed_binary("position_hash")?;
        let game_id = c.str("game_id")?;
        let mn = c.prim::<UInt16Type>("move_number")?;
        let split = c.str("split")?;
        let to_play = c.prim::<UInt8Type>("to_play")?;
        let brn = c.prim::<Int16Type>("black_rank_num")?;
        let wrn = c.prim::<Int16Type>("white_rank_num")?;
        let tags = if c.has("tags") { Some(c.str_list("tags")?) } else { None };
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
                let Some((tags, names)) = tags else {
                    anyhow::bail!("the shards have no tags column; cannot filter by tag")
                };
                if !list_range(tags, i).any(|j| names.value(j) == t) {
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
            best.insert(sc, row_to_sample(&c, i)?);
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
        let c = Cols::new(&b, "games");
        let (gid, pb, pw) = (c.str("game_id")?, c.str("black_name")?, c.str("white_name")?);
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

fn row_to_sample(c: &Cols<'_>, i: usize) -> anyhow::Result<VerifySample> {
    let cells: [u8; NN] =
        c.binary("board")?.value(i).try_into().map_err(|_| anyhow::anyhow!("board is not 361 bytes"))?;
    let mv = c.prim::<UInt16Type>("move")?.value(i);
    let ko = c.prim::<UInt16Type>("ko_point")?;
    let (hl, hv) = c.u16_list("history")?;
    let prev = list_range(hl, i).next().map(|j| hv[j]);
    let s = |name: &str| -> anyhow::Result<Option<String>> {
        let a = c.str(name)?;
        Ok((!a.is_null(i)).then(|| a.value(i).to_string()))
    };
    let tags = if c.has("tags") {
        let (l, names) = c.str_list("tags")?;
        list_range(l, i).map(|j| names.value(j).to_string()).collect()
    } else {
        Vec::new()
    };
    Ok(VerifySample {
        id: 0,
        board: cells,
        to_play: c.prim::<UInt8Type>("to_play")?.value(i),
        mv: Move::from_index(mv).ok_or_else(|| anyhow::anyhow!("bad move index {mv}"))?,
        prev_move: prev.and_then(Move::from_index),
        ko_point: (!ko.is_null(i)).then(|| Point::from_index(ko.value(i))).flatten(),
        source: s("source")?.unwrap_or_default(),
        game_index: c.prim::<UInt32Type>("game_index")?.value(i),
        move_number: c.prim::<UInt16Type>("move_number")?.value(i) as u32,
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
