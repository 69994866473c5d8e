/*!
`leela-18`: Leela Zero's 18 input planes (`src/Network.cpp`, `gather_features`;
docs/planes-leela.md channel by channel):

* 0–7: the stones of the side to move on the board now (0) and 1…7 moves before;
* 8–15: the opponent's stones on the same boards;
* 16: all ones when black is to move; 17: all ones when white is to move.

The side to move is this position's for all eight boards. A board before the game's
first move is all zeros (Leela Zero pads its history with zeros). Planes are in kibo's
frame; Leela Zero's chunks number points from A1 (the bottom-left), and the chunk writer
flips them there.
*/

use super::position::Position;
use super::set::FeatureSet;
use crate::coord::NN;

/// Boards of history in the planes (the current one and 7 before).
pub const BOARDS: usize = 8;

/// Leela Zero's 18 planes.
pub static LEELA_18: FeatureSet = FeatureSet { name: "leela-18", spatial: 18, global: 0, encode };

/// See the module docs.
pub fn encode(pos: &Position, spatial: &mut [u8], _global: &mut [f32]) {
    let spatial = &mut spatial[..18 * NN];
    let own = pos.to_play;
    let opp = 3 - own;
    for k in 0..BOARDS {
        let (mine, theirs) = spatial[k * NN..].split_at_mut(8 * NN);
        let (mine, theirs) = (&mut mine[..NN], &mut theirs[..NN]);
        match pos.board_before(k) {
            Some(b) => {
                for ((m, t), &c) in mine.iter_mut().zip(theirs.iter_mut()).zip(b.iter()) {
                    *m = (c == own) as u8;
                    *t = (c == opp) as u8;
                }
            }
            None => {
                mine.fill(0);
                theirs.fill(0);
            }
        }
    }
    spatial[16 * NN..17 * NN].fill((own == 1) as u8);
    spatial[17 * NN..18 * NN].fill((own == 2) as u8);
}
