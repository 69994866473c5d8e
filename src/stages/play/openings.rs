//! `--openings OUT --opening-moves K`: the first K moves of the games of a kibo output
//! folder's test split (never trained on), as the match's openings. Games with setup
//! stones, a handicap, a mid-game setup or moves out of turn are left out; the rest are
//! listed in game-id order, and the schedule draws from them with its seed.

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::Context;

use super::game::Opening;
use crate::color::Color;

/// The openings of `out`'s test split: each game's first `k` moves.
pub fn from_test_split(out: &Path, k: usize) -> anyhow::Result<Vec<Opening>> {
    let mut test_ids = BTreeSet::new();
    for (_, shard) in crate::stages::draw::shards(out, &["test"])? {
        crate::storage::read_parquet_columns(&shard, true, Some(&["game_id"]), |b| {
            let c = crate::tables::Cols::new(&b, "samples");
            let ids = c.str("game_id")?;
            for i in 0..b.num_rows() {
                test_ids.insert(ids.value(i).to_string());
            }
            Ok(())
        })
        .with_context(|| format!("{}", shard.display()))?;
    }
    if test_ids.is_empty() {
        return crate::error::setup(format!("{}: no test-split samples to draw openings from", out.display()));
    }
    let mut openings = Vec::new();
    crate::storage::read_table(out, "games", |b| {
        for g in crate::tables::games_from_batch(&b)? {
            let id = g.game_id.to_hex();
            let plain = g.setup_black.is_empty() && g.setup_white.is_empty() && g.mid_setup.is_empty();
            if !plain || g.moves.len() < k || !test_ids.contains(&id) {
                continue;
            }
            let moves: Vec<(Color, crate::coord::Move)> = g.moves[..k].iter().map(|m| (m.color, m.mv)).collect();
            let alternating =
                moves.iter().enumerate().all(|(i, m)| m.0 == if i % 2 == 0 { Color::Black } else { Color::White });
            if alternating {
                openings.push(Opening { id: Some(format!("{id}@{k}")), moves });
                test_ids.remove(&id);
            }
        }
        Ok(())
    })?;
    openings.sort_by(|a, b| a.id.cmp(&b.id));
    if openings.is_empty() {
        return crate::error::setup(format!(
            "{}: no test-split game of {k} moves or more without setup stones to open from",
            out.display()
        ));
    }
    Ok(openings)
}
