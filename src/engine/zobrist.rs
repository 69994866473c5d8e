//! Fixed-seed zobrist keys, generated at compile time.
//!
//! Every key comes from [`splitmix64`] run from [`SEED`], so the keys, and every
//! hash built from them, are the same on every run, build and platform. The
//! order of generation is: for each point index `0..361` (row-major from the
//! top-left), the black key then the white key; then the two side-to-move keys
//! (black, white).
//!
//! A board's hash is the XOR of [`stone_key`] over its stones ([`super::Board::hash`]);
//! ko and side to move are left out. [`side_key`] is XORed in by
//! [`super::SuperkoHistory`] for situational superko.

use crate::coord::NN;

use crate::color::Color;

/// Seed of the key stream (the bytes of `"kibo-zob"` read as a big-endian integer).
pub const SEED: u64 = 0x6b69_626f_2d7a_6f62;

/// One step of splitmix64: advances `state` and returns the next output.
///
/// Returns `(new_state, output)` so that it can run inside a `const fn`.
pub const fn splitmix64(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (s, z ^ (z >> 31))
}

const fn generate() -> ([[u64; 2]; NN], [u64; 2]) {
    let mut stones = [[0u64; 2]; NN];
    let mut state = SEED;
    let mut i = 0;
    while i < NN {
        let (s, k) = splitmix64(state);
        stones[i][0] = k;
        let (s, k) = splitmix64(s);
        stones[i][1] = k;
        state = s;
        i += 1;
    }
    let (s, b) = splitmix64(state);
    let (_, w) = splitmix64(s);
    (stones, [b, w])
}

const KEYS: ([[u64; 2]; NN], [u64; 2]) = generate();

/// Stone keys by point index (`row * 19 + col`), then colour (`0` black, `1` white).
pub const STONE_KEYS: [[u64; 2]; NN] = KEYS.0;

/// Side-to-move keys (`0` black, `1` white), used for situational superko.
pub const SIDE_KEYS: [u64; 2] = KEYS.1;

/// Key of a stone of colour `c` on point index `index` (`row * 19 + col`);
/// `0` when `index >= 361`.
pub const fn stone_key(index: usize, c: Color) -> u64 {
    if index < NN {
        STONE_KEYS[index][c as usize - 1]
    } else {
        0
    }
}

/// Key XORed in for "`c` to move" in situational hashes.
pub const fn side_key(c: Color) -> u64 {
    SIDE_KEYS[c as usize - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_pinned_and_distinct() {
        // splitmix64 reference value for state 0 (first output of the published generator).
        assert_eq!(splitmix64(0).1, 0xe220_a839_7b1d_cdaf);
        // Keys pinned as literals (not recomputed with the generator under test), so a
        // change of seed, generator or generation order fails here: the first three
        // points and the last one, each colour, then the side-to-move keys.
        let pinned: [(usize, [u64; 2]); 4] = [
            (0, [0xf76a_273b_3dca_2a70, 0xba52_5d45_bbdc_3daa]),
            (1, [0x1ee5_4461_ae3e_3527, 0x9753_d451_9ae7_4ab6]),
            (2, [0x8fd6_5f50_ec5e_0adf, 0x02b0_71a2_e1ee_f976]),
            (NN - 1, [0x3339_a952_a53b_55ce, 0x2aa2_aa03_0f83_f387]),
        ];
        for (i, keys) in pinned {
            assert_eq!(STONE_KEYS[i], keys, "stone keys of point {i}");
            assert_eq!([stone_key(i, Color::Black), stone_key(i, Color::White)], keys, "stone_key of point {i}");
        }
        assert_eq!(SIDE_KEYS, [0x5c88_4a28_615b_55b3, 0x6285_a682_0046_9dd8]);
        assert_eq!([side_key(Color::Black), side_key(Color::White)], SIDE_KEYS);
        // Every stone key at once: their XOR.
        let xor = STONE_KEYS.iter().fold(0, |acc, k| acc ^ k[0] ^ k[1]);
        assert_eq!(xor, 0x7bee_8328_798b_3eb2, "XOR of all stone keys");
        assert_eq!(stone_key(NN, Color::Black), 0);
        let mut all: Vec<u64> = STONE_KEYS.iter().flat_map(|k| k.iter().copied()).collect();
        all.extend_from_slice(&SIDE_KEYS);
        assert!(all.iter().all(|&k| k != 0));
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 2 * NN + 2);
    }
}
