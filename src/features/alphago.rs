/*!
`alphago-48`: the 48 policy-network planes of AlphaGo (Silver et al. 2016, Extended
Data Table 2), in RocAlphaGo's order (`preprocessing.py`, `DEFAULT_FEATURES`);
docs/planes-leela.md, "alphago-48", channel by channel:

| planes | feature |
|---|---|
| 0, 1, 2 | own stones, opponent stones, empty points |
| 3 | ones |
| 4–11 | turns since the stone was played: 0 (the last move), 1, …, 6, ≥ 7 |
| 12–19 | liberties of the stone's chain: 1, …, 7, ≥ 8 |
| 20–27 | capture size of a legal move: 0, …, 6, ≥ 7 stones |
| 28–35 | self-atari size: a legal move leaving its chain one liberty, chain of 1, …, 7, ≥ 8 |
| 36–43 | liberties after a legal move: 1, …, 7, ≥ 8 |
| 44 | ladder capture: the move puts an opponent chain in atari that a ladder captures |
| 45 | ladder escape: the move extends an own chain in atari and no ladder captures it |
| 46 | sensibleness: legal and not filling one of the mover's own eyes |
| 47 | zeros |

"Legal" is kibo's default rules (no suicide) with this position's simple-ko ban. Ages
come from the row's 8 moves of history (a stone older than that, or from setup, is
≥ 7). Ladders are kibo's reader (`tactics::ladder`, KataGo's); an eye is KataGo's simple
eye (`tactics::is_simple_eye`) where RocAlphaGo asks for a true eye.
*/

use std::cell::RefCell;

use super::position::Position;
use super::set::FeatureSet;
use crate::coord::{Move, Point, NN};
use crate::engine::{Board, Color, Rules};
use crate::tactics::{is_simple_eye, LadderSearch};

/// AlphaGo's 48 policy planes.
pub static ALPHAGO_48: FeatureSet = FeatureSet { name: "alphago-48", spatial: 48, global: 0, encode };

thread_local! {
    static LADDER: RefCell<LadderSearch> = RefCell::new(LadderSearch::new());
}

/// See the module docs.
pub fn encode(pos: &Position, spatial: &mut [u8], _global: &mut [f32]) {
    let sp = &mut spatial[..48 * NN];
    sp.fill(0);
    let own = pos.to_play;
    let me = Color::from_u8(own).expect("invariant: to_play is 1 or 2");
    let Ok(board) = Board::from_cells(&pos.board) else { return };
    let mut set = |ch: usize, p: usize| sp[ch * NN + p] = 1;
    let age = ages(pos);
    for (p, (&c, &a)) in pos.board.iter().zip(age.iter()).enumerate() {
        let colour_plane = match c {
            0 => 2,
            c if c == own => 0,
            _ => 1,
        };
        set(colour_plane, p);
        set(3, p);
        if c != 0 {
            let pt = Point::from_index(p as u16).expect("invariant: p < 361");
            set(4 + a.min(7) as usize, p);
            set(12 + (board.chain_liberties(pt).clamp(1, 8) - 1) as usize, p);
        }
    }
    LADDER.with_borrow_mut(|ladder| {
        for p in 0..NN {
            if pos.board[p] == 0 && Some(p as u16) != pos.ko_point {
                legal_move_planes(&board, me, p, ladder, &mut set);
            }
        }
    });
}

/// How many moves ago each stone was played: 0 for the last move; 7 for older stones.
fn ages(pos: &Position) -> [u8; NN] {
    let mut age = [7u8; NN];
    for (k, &m) in pos.history[..pos.history_len].iter().enumerate().rev() {
        if (m as usize) < NN && pos.board[m as usize] != 0 {
            age[m as usize] = k as u8;
        }
    }
    age
}

/// Planes 20–46 at the empty point `p`, when `me` may play there.
fn legal_move_planes(
    board: &Board,
    me: Color,
    p: usize,
    ladder: &mut LadderSearch,
    set: &mut impl FnMut(usize, usize),
) {
    let pt = Point::from_index(p as u16).expect("invariant: p < 361");
    let mut after = board.clone();
    let Ok(info) = after.play(me, Move::Play(pt), &Rules::default()) else { return };
    let libs = after.chain_liberties(pt);
    set(20 + (info.captured as usize).min(7), p);
    if libs == 1 {
        set(28 + (after.chain_size(pt).clamp(1, 8) - 1) as usize, p);
    }
    set(36 + (libs.clamp(1, 8) - 1) as usize, p);
    let (mut capture, mut in_atari) = (false, false);
    for q in neighbours(pt) {
        match board.color_at(q) {
            Some(c) if c == me => in_atari |= board.chain_liberties(q) == 1,
            Some(_) => {
                capture |= after.get(q) != 0 && after.chain_liberties(q) == 1 && ladder.is_captured(&after, q, true);
            }
            None => {}
        }
    }
    if capture {
        set(44, p);
    }
    if in_atari && (libs >= 3 || (libs == 2 && !ladder.is_captured(&after, pt, false))) {
        set(45, p);
    }
    if !is_simple_eye(board, pt, me) {
        set(46, p);
    }
}

fn neighbours(p: Point) -> impl Iterator<Item = Point> {
    let (r, c) = (p.row as isize, p.col as isize);
    [(r - 1, c), (r, c - 1), (r, c + 1), (r + 1, c)]
        .into_iter()
        .filter_map(|(r, c)| (r >= 0 && c >= 0).then(|| Point::new(r as usize, c as usize)).flatten())
}
