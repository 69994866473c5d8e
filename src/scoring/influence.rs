//! Positional influence: how strongly each point is under the sway of black or white
//! stones, and the areas where that sway passes a threshold.
//!
//! **Kernel.** Every stone on the board (dead or alive: influence is a feature of the
//! position, not a judgement of it) radiates `k(d) = exp(−d / λ)` to every on-board
//! point at Manhattan distance `d ≤ R`, with [`INFLUENCE_DECAY`] `λ = 1.5` and
//! [`INFLUENCE_RADIUS`] `R = 4`: `k = 1, 0.513, 0.264, 0.135, 0.069` for
//! `d = 0, 1, 2, 3, 4`, and nothing farther. The kernel is normalised to `k(0) = 1` and
//! is not renormalised at the edges (a stone near the edge simply reaches fewer points).
//! Black stones add, white stones subtract, and the sum is squashed with `tanh`, so the
//! influence lies in `(−1, 1)`: a lone stone gives `tanh(1) ≈ 0.76` on its own point and
//! `≈ 0.47` next to it. Manhattan distance is invariant under the eight board
//! symmetries, so the influence of a transformed position is the transformed influence.
//! Cost: at most 41 additions per stone.
//!
//! **Areas.** [`influence_areas`] marks `+1` where the influence is above `threshold`,
//! `−1` where it is below `−threshold`, `0` elsewhere.

use crate::coord::{N, NN};
use crate::engine::{Board, BLACK, WHITE};

/// Largest Manhattan distance a stone's influence reaches.
pub const INFLUENCE_RADIUS: usize = 4;

/// Decay length `λ` of the kernel `exp(−d / λ)`, in points.
pub const INFLUENCE_DECAY: f32 = 1.5;

/// Signed influence of every point, indexed by `row * 19 + col`: positive where black
/// stones dominate, negative where white ones do, in `(−1, 1)`, `0` on points off a
/// smaller board and far from every stone. See the module docs for the kernel.
pub fn influence(board: &Board) -> [f32; NN] {
    let mut cells = [0u8; NN];
    board.cells(&mut cells);
    let (cols, rows) = board.size();
    let (cols, rows) = (cols.min(N) as i32, rows.min(N) as i32);
    let mut kernel = [0f32; INFLUENCE_RADIUS + 1];
    for (d, k) in kernel.iter_mut().enumerate() {
        *k = (-(d as f32) / INFLUENCE_DECAY).exp();
    }
    let r = INFLUENCE_RADIUS as i32;
    let mut raw = [0f32; NN];
    for row in 0..rows {
        for col in 0..cols {
            let sign = match cells[(row * N as i32 + col) as usize] {
                BLACK => 1.0,
                WHITE => -1.0,
                _ => continue,
            };
            for dr in -r..=r {
                let y = row + dr;
                if y < 0 || y >= rows {
                    continue;
                }
                let span = r - dr.abs();
                for dc in -span..=span {
                    let x = col + dc;
                    if x < 0 || x >= cols {
                        continue;
                    }
                    let d = (dr.abs() + dc.abs()) as usize;
                    raw[(y * N as i32 + x) as usize] += sign * kernel[d];
                }
            }
        }
    }
    let mut out = [0f32; NN];
    for (o, v) in out.iter_mut().zip(raw.iter()) {
        *o = v.tanh();
    }
    out
}

/// Areas of influence: `+1` where `infl > threshold` (black's area), `−1` where
/// `infl < −threshold` (white's area), `0` elsewhere. The sign of `threshold` is
/// ignored; a NaN threshold counts as `0` and a NaN influence gives `0`.
pub fn influence_areas(infl: &[f32; NN], threshold: f32) -> [i8; NN] {
    let t = if threshold.is_nan() { 0.0 } else { threshold.abs() };
    let mut out = [0i8; NN];
    for (o, &v) in out.iter_mut().zip(infl.iter()) {
        *o = if v > t {
            1
        } else if v < -t {
            -1
        } else {
            0
        };
    }
    out
}
