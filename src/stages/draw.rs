/*!
The seeded row draw that `kibo export vlm`, `kibo label` and `kibo eval` share, so that
a VLM set and its engine labels cover the same positions.

Every row of the chosen splits (with one of the tags, when given) gets the key
`blake3("kibo.vlm.v1" ‖ seed ‖ game_id ‖ move_number)`; the `limit` rows with the
smallest keys are kept (a heap of 16 bytes a kept row). A key depends on the row alone,
so the choice is a uniform draw spread over games, move numbers and splits, a larger
limit keeps every row a smaller one kept, and adding a split to the draw never changes
which rows of the others a smaller draw would have kept before the new split's rows
compete for the same places.
*/

use std::collections::BinaryHeap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use arrow_array::types::UInt16Type;

use crate::features::sample_shards;
use crate::tables::Cols;

/// A row's key: the choice's order (bytes 0..8), then bytes the exports use for the
/// row's other draws (the VLM export: symmetry 8, task 9..13, question 13).
pub fn row_key(seed: u64, game_id: &str, move_number: u16) -> [u8; 16] {
    let mut h = blake3::Hasher::new();
    h.update(b"kibo.vlm.v1\0");
    h.update(&seed.to_le_bytes());
    h.update(game_id.as_bytes());
    h.update(&move_number.to_le_bytes());
    let mut k = [0u8; 16];
    k.copy_from_slice(&h.finalize().as_bytes()[..16]);
    k
}

/// A row's stable id in every export and in `kibo eval`: `<game_id>-<move_number>`
/// (unique: a game gives a position at most once a move number).
pub fn row_id(game_id: &str, move_number: u16) -> String {
    format!("{game_id}-{move_number}")
}

/// The split names a draw may take, in the order their shards are read.
pub const ALL_SPLITS: [&str; 3] = ["train", "val", "test"];

/// The sample shards of `splits` (names from [`ALL_SPLITS`]), in the order rows are
/// drawn and written: split by split as given, each split's shards by name. The number
/// is the split's index in `splits`.
pub fn shards(out: &Path, splits: &[&str]) -> anyhow::Result<Vec<(usize, PathBuf)>> {
    let mut v = Vec::new();
    for (s, name) in splits.iter().enumerate() {
        v.extend(sample_shards(out, Some(name))?.into_iter().map(|p| (s, p)));
    }
    Ok(v)
}

/// Does row `i` carry one of `tags`?
pub fn has_tag(c: &Cols<'_>, i: usize, tags: &[String]) -> anyhow::Result<bool> {
    if tags.is_empty() {
        return Ok(true);
    }
    let (l, names) = c.str_list("tags")?;
    let o = l.value_offsets();
    Ok((o[i] as usize..o[i + 1] as usize).any(|j| tags.iter().any(|t| t == names.value(j))))
}

/// The kept rows as sorted `(shard, row)` ordinals (shards as [`shards`] lists them);
/// `None` keeps every row that passes the tags.
pub type Kept = Option<Vec<(u32, u32)>>;

/// What to draw.
#[derive(Clone, Debug)]
pub struct Draw<'a> {
    /// The splits to draw from, in order.
    pub splits: &'a [&'a str],
    /// Seed of the keys.
    pub seed: u64,
    /// Rows to keep; 0 keeps every row.
    pub limit: u64,
    /// Keep only rows whose move has one of these tags (empty: every row).
    pub tags: &'a [String],
}

/// The kept rows ([`Kept`]) and how many rows the choice saw.
pub fn choose(out: &Path, d: &Draw<'_>) -> anyhow::Result<(Kept, u64)> {
    let mut heap: BinaryHeap<(u64, u32, u32)> = BinaryHeap::new();
    let mut seen = 0u64;
    let mut cols = vec!["game_id", "move_number"];
    if !d.tags.is_empty() {
        cols.push("tags");
    }
    each_batch(out, d.splits, &cols, |k, _, row, c, n| {
        let (id, mn) = (c.str("game_id")?, c.prim::<UInt16Type>("move_number")?);
        for i in 0..n {
            let r = row + i as u32;
            if !has_tag(c, i, d.tags)? {
                continue;
            }
            seen += 1;
            if d.limit == 0 {
                continue;
            }
            let key = row_key(d.seed, id.value(i), mn.value(i));
            let score = u64::from_be_bytes(key[..8].try_into().expect("invariant: 8 bytes"));
            if (heap.len() as u64) < d.limit {
                heap.push((score, k, r));
            } else if heap.peek().is_some_and(|top| (score, k, r) < *top) {
                heap.pop();
                heap.push((score, k, r));
            }
        }
        Ok(())
    })?;
    if d.limit == 0 {
        return Ok((None, seen));
    }
    let mut kept: Vec<(u32, u32)> = heap.into_iter().map(|(_, s, r)| (s, r)).collect();
    kept.sort_unstable();
    Ok((Some(kept), seen))
}

/// Reads `cols` of every sample shard of `splits` in order ([`shards`]), calling
/// `f(shard, split, first_row, batch, rows)` per batch (`first_row`: the batch's first
/// row's number in its shard; `rows`: the batch's rows).
fn each_batch(
    out: &Path,
    splits: &[&str],
    cols: &[&str],
    mut f: impl FnMut(u32, usize, u32, &Cols<'_>, usize) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    for (k, (split, shard)) in shards(out, splits)?.iter().enumerate() {
        let mut row = 0u32;
        crate::storage::read_parquet_columns(shard, true, Some(cols), |b| {
            f(k as u32, *split, row, &Cols::new(&b, "samples"), b.num_rows())?;
            row += b.num_rows() as u32;
            Ok(())
        })
        .with_context(|| format!("reading {}", shard.display()))?;
    }
    Ok(())
}

/// The one consumer of a draw: calls `f(split, batch, rows)` with the rows of each batch
/// of the samples that `kept` (from [`choose`] with the same draw `d`) holds, in shard
/// then row order (`split`: the index in `d.splits`; `rows`: the batch's kept rows,
/// ascending; a batch without one is skipped). Only `cols` are read, with `tags` added
/// when the tags decide (every row drawn).
pub fn for_each_kept(
    out: &Path,
    d: &Draw<'_>,
    kept: &Kept,
    cols: &[&str],
    mut f: impl FnMut(usize, &Cols<'_>, &[usize]) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut cols = cols.to_vec();
    if kept.is_none() && !d.tags.is_empty() && !cols.contains(&"tags") {
        cols.push("tags");
    }
    let mut filter = KeptFilter::new(kept, d.tags);
    let mut rows: Vec<usize> = Vec::new();
    each_batch(out, d.splits, &cols, |k, split, row, c, n| {
        rows.clear();
        for i in 0..n {
            if filter.wanted(k, row + i as u32, c, i)? {
                rows.push(i);
            }
        }
        if rows.is_empty() {
            return Ok(());
        }
        f(split, c, &rows)
    })
}

/// Walks the rows of the drawn shards in order and says, row by row, whether the draw
/// kept it: `wanted(shard, row, cols, i)` for a batch's row `i`.
struct KeptFilter<'a> {
    kept: &'a Kept,
    tags: &'a [String],
    next: usize,
}

impl<'a> KeptFilter<'a> {
    /// A filter over `kept` (rows in shard, row order) with the draw's tags.
    fn new(kept: &'a Kept, tags: &'a [String]) -> KeptFilter<'a> {
        KeptFilter { kept, tags, next: 0 }
    }

    /// Whether row `r` of shard `k` (row `i` of the batch `c`) was kept; call in order.
    fn wanted(&mut self, k: u32, r: u32, c: &Cols<'_>, i: usize) -> anyhow::Result<bool> {
        match self.kept {
            Some(v) => {
                let hit = v.get(self.next) == Some(&(k, r));
                if hit {
                    self.next += 1;
                }
                Ok(hit)
            }
            None => has_tag(c, i, self.tags),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_depend_on_the_row_alone() {
        assert_eq!(row_key(7, "ab", 3), row_key(7, "ab", 3));
        assert_ne!(row_key(7, "ab", 3), row_key(8, "ab", 3));
        assert_ne!(row_key(7, "ab", 3), row_key(7, "ab", 4));
        assert_ne!(row_key(7, "ab", 3), row_key(7, "ac", 3));
    }
}
