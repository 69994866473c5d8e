/*!
The sampling policy and the split assignment: pure functions of a game's moves, tags
and id, tested directly (no board, no I/O).

* [`assign_split`]: train / val / test from the game id and the seed.
* [`eligible`]: which moves may become samples (`drop_passes`, `winner_only`).
* [`choose`]: of the eligible samples, which are kept (`tactical_only`, then the per-game
  quota `max_samples_per_game`, spread evenly, half of it from tactical moves with
  `tactical_bias`).
*/

use std::collections::BTreeMap;

use crate::color::Color;
use crate::config::SplitConfig;
use crate::coord::Move;
use crate::game::{GameId, Split};
use crate::sgf::GameMove;
use crate::tactics::Tags;

/// Moves not sampled, by the option that dropped them.
pub type Dropped = BTreeMap<&'static str, u64>;

/// Assigns a game to train/val/test from its id and the pipeline seed: blake3 of
/// `"kibo.split.v1\0" ‖ seed (u64 le) ‖ the id's 32 hex digits`, read as a fraction.
pub fn assign_split(game_id: &GameId, seed: u64, ratios: [f64; 3]) -> Split {
    // One call on the 54 bytes: a hasher's set-up and three updates cost several times
    // the hashing of one block.
    const TAG: &[u8] = b"kibo.split.v1\0";
    let mut bytes = [0u8; TAG.len() + 8 + 32];
    bytes[..TAG.len()].copy_from_slice(TAG);
    bytes[TAG.len()..TAG.len() + 8].copy_from_slice(&seed.to_le_bytes());
    bytes[TAG.len() + 8..].copy_from_slice(game_id.to_hex().as_bytes());
    let b = blake3::hash(&bytes);
    let x =
        u64::from_le_bytes(b.as_bytes()[..8].try_into().expect("invariant: 8 bytes")) as f64 / (u64::MAX as f64 + 1.0);
    if x < ratios[0] {
        Split::Train
    } else if x < ratios[0] + ratios[1] {
        Split::Val
    } else {
        Split::Test
    }
}

/// Indices of moves kept by `max_samples_per_game`: `k` of `n`, evenly spread.
pub fn spread(n: usize, k: usize) -> Vec<usize> {
    if k == 0 || k >= n {
        return (0..n).collect();
    }
    (0..k).map(|i| ((2 * i + 1) * n) / (2 * k)).collect()
}

/// Which moves may become samples, and the moves dropped by `drop_passes` and
/// `winner_only` (a game without a winner gives none with `winner_only`).
pub fn eligible(moves: &[GameMove], winner: Option<Color>, cfg: &SplitConfig, dropped: &mut Dropped) -> Vec<bool> {
    moves
        .iter()
        .map(|m| {
            if cfg.drop_passes && m.mv == Move::Pass {
                *dropped.entry("drop_passes").or_default() += 1;
                false
            } else if cfg.winner_only && Some(m.color) != winner {
                *dropped.entry("winner_only").or_default() += 1;
                false
            } else {
                true
            }
        })
        .collect()
}

/// Of a game's samples (`tag_masks[i]` = the tags of sample `i`, 0 without tags), the
/// ones kept, in order: `tactical_only` first, then the quota.
pub fn choose(tag_masks: &[u32], cfg: &SplitConfig, dropped: &mut Dropped) -> Vec<usize> {
    let tactical = |i: &usize| tag_masks[*i] & Tags::TACTICAL != 0;
    let mut idx: Vec<usize> = (0..tag_masks.len()).collect();
    if cfg.tactical_only && cfg.tags {
        let before = idx.len();
        idx.retain(tactical);
        if before > idx.len() {
            *dropped.entry("tactical_only").or_default() += (before - idx.len()) as u64;
        }
    }
    let quota = cfg.max_samples_per_game as usize;
    if quota == 0 || idx.len() <= quota {
        return idx;
    }
    let chosen = if cfg.tactical_bias && cfg.tags {
        let (tac, other): (Vec<usize>, Vec<usize>) = idx.iter().partition(|i| tactical(i));
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
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coord::Point;

    fn cfg(f: impl FnOnce(&mut SplitConfig)) -> SplitConfig {
        let mut c = SplitConfig::default();
        f(&mut c);
        c
    }

    #[test]
    fn spread_is_even_and_total() {
        assert_eq!(spread(10, 3), vec![1, 5, 8]);
        assert_eq!(spread(3, 5), vec![0, 1, 2]);
        assert_eq!(spread(4, 0), vec![0, 1, 2, 3]);
        assert_eq!(spread(100, 4), vec![12, 37, 62, 87]);
    }

    #[test]
    fn split_assignment_is_stable_and_follows_the_ratios() {
        let id = |i: u8| GameId([i; 16]);
        // Pinned: a change of hashing or order would move games between splits.
        let got: Vec<&str> = (0..8).map(|i| assign_split(&id(i), 20261130, [0.5, 0.25, 0.25]).as_str()).collect();
        assert_eq!(got, assign_split_reference(&(0..8).map(id).collect::<Vec<_>>(), 20261130, [0.5, 0.25, 0.25]));
        assert!((0..50).all(|i| assign_split(&id(i), 1, [1.0, 0.0, 0.0]) == Split::Train));
        assert!((0..50).all(|i| assign_split(&id(i), 1, [0.0, 0.0, 1.0]) == Split::Test));
        let val = (0..=255).filter(|&i| assign_split(&id(i), 7, [0.0, 1.0, 0.0]) == Split::Val).count();
        assert_eq!(val, 256);
    }

    /// The specification of [`assign_split`] written out again.
    fn assign_split_reference(ids: &[GameId], seed: u64, r: [f64; 3]) -> Vec<&'static str> {
        ids.iter()
            .map(|id| {
                let mut bytes = b"kibo.split.v1\0".to_vec();
                bytes.extend_from_slice(&seed.to_le_bytes());
                bytes.extend_from_slice(id.to_hex().as_bytes());
                let h = blake3::hash(&bytes);
                let x = u64::from_le_bytes(h.as_bytes()[..8].try_into().unwrap()) as f64 / 2f64.powi(64);
                if x < r[0] {
                    "train"
                } else if x < r[0] + r[1] {
                    "val"
                } else {
                    "test"
                }
            })
            .collect()
    }

    #[test]
    fn eligible_drops_passes_and_losers_moves() {
        let p = Move::Play(Point::new(3, 3).unwrap());
        let m = |c, mv| GameMove { color: c, mv };
        let moves = [m(Color::Black, p), m(Color::White, Move::Pass), m(Color::Black, p), m(Color::White, p)];
        let mut d = Dropped::new();
        assert_eq!(eligible(&moves, None, &SplitConfig::default(), &mut d), vec![true; 4]);
        assert!(d.is_empty());
        let c = cfg(|c| {
            c.drop_passes = true;
            c.winner_only = true;
        });
        assert_eq!(eligible(&moves, Some(Color::White), &c, &mut d), vec![false, false, false, true]);
        assert_eq!(d, Dropped::from([("drop_passes", 1), ("winner_only", 2)]));
        let mut d = Dropped::new();
        assert_eq!(eligible(&moves, None, &cfg(|c| c.winner_only = true), &mut d), vec![false; 4]);
    }

    #[test]
    fn choose_applies_tactical_options_then_the_quota() {
        let t = Tags::TACTICAL & Tags::TACTICAL.wrapping_neg(); // the lowest tactical bit
        let masks = [0, t, 0, t, 0, 0, t, 0, 0, 0];
        let mut d = Dropped::new();
        assert_eq!(choose(&masks, &SplitConfig::default(), &mut d), (0..10).collect::<Vec<_>>());
        assert_eq!(choose(&masks, &cfg(|c| c.tactical_only = true), &mut d), vec![1, 3, 6]);
        assert_eq!(d, Dropped::from([("tactical_only", 7)]));
        let mut d = Dropped::new();
        assert_eq!(choose(&masks, &cfg(|c| c.max_samples_per_game = 3), &mut d), vec![1, 5, 8]);
        assert_eq!(d, Dropped::from([("max_samples_per_game", 7)]));
        // Bias: half the quota (rounded up) from tactical moves, the rest from the others.
        let mut d = Dropped::new();
        let c = cfg(|c| {
            c.max_samples_per_game = 4;
            c.tactical_bias = true;
        });
        let got = choose(&masks, &c, &mut d);
        assert_eq!(got.iter().filter(|&&i| masks[i] != 0).count(), 2, "{got:?}");
        assert_eq!(got.len(), 4);
        // Too few other moves: the tactical ones fill the quota.
        let all_tac = [t; 6];
        assert_eq!(choose(&all_tac, &c, &mut Dropped::new()), spread(6, 4));
    }
}
