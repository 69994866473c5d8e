//! Dead stones and seki decided from an engine's ownership maps ([`judge_by_ownership`]):
//! the evidence of `filter.score_check = "katago"` (docs/scoring.md, "KataGo as the
//! judge"). The engine reads the final position twice, once with each side to move; its
//! ownership is evidence for the life and death of each chain, never territory by
//! itself: the territory is then found on the board exactly as [`super::judge`] finds it
//! ([`super::benson::assemble`]: an empty area is a colour's only when that colour's
//! living stones alone close it).
//!
//! Nothing here looks at the recorded result.

use crate::coord::{Point, NN};
use crate::engine::{Board, Color, BLACK, EMPTY};

use super::benson::{assemble, conservative_status, Chains, Pos, Seki};
use super::judge::{ChainStatus, ChainVerdict, Evidence, Judgement};
use super::Owner;

/// A chain is dead when, in both maps, the mean ownership of its stones lies at least
/// this far on the opponent's side (ownership runs from −1, surely the opponent's, to
/// +1, surely its own); alive when it lies this far on its own side in both.
pub const LIFE_OWNERSHIP: f32 = 0.5;

/// An empty point that the count gives to a colour is dame instead when both maps put
/// its ownership nearer zero than this (nobody's, whoever moves).
pub const DAME_OWNERSHIP: f32 = 0.2;

/// A chain the maps do not settle is in seki only when every empty area next to it
/// has at most this many points (its eyes and shared liberties; the bound of
/// [`super::judge`]'s seki); next to a larger area it stays unsettled.
pub const SEKI_AREA_MAX: u32 = 6;

/// An engine's ownership of every point of one position, read twice: with Black to move
/// and with White to move. Values from Black's side (+1 Black's, −1 White's), indexed by
/// [`Point::index`] (`row * 19 + col`); points off a smaller board are `0`.
#[derive(Clone, Debug, PartialEq)]
pub struct OwnershipMaps {
    /// Black to move.
    pub black_to_move: [f32; NN],
    /// White to move.
    pub white_to_move: [f32; NN],
}

impl OwnershipMaps {
    /// The two maps of point `i`, from the side of `color` (+1: `color`'s).
    fn of(&self, i: usize, color: u8) -> [f32; 2] {
        let s = if color == BLACK { 1.0 } else { -1.0 };
        [s * self.black_to_move[i], s * self.white_to_move[i]]
    }
}

/// Decides the dead stones and seki of `board` from the two ownership `maps`:
///
/// * Benson's proofs stand (a pass-alive chain is alive, a chain inside the opponent's
///   pass-alive area dead), whatever the maps say;
/// * a chain is dead when both maps give it to the opponent by [`LIFE_OWNERSHIP`] or
///   more, alive when both give it to its own colour by as much;
/// * any other chain (the maps disagree: its fate turns on who moves, or it is near
///   zero in both) is in seki when no empty area next to it is larger than
///   [`SEKI_AREA_MAX`]: its stones and those areas are nobody's; next to a larger area
///   it is unsettled, and its points and the areas it touches stay undecided;
/// * an empty point the count then gives to a colour is dame when both maps put it
///   within [`DAME_OWNERSHIP`] of zero.
///
/// [`ChainVerdict::why`] is [`Evidence::Katago`], [`Evidence::KatagoSeki`],
/// [`Evidence::KatagoSplit`] (unsettled) or [`Evidence::Benson`]; [`ChainVerdict::own_share`] is the chain's mean ownership over both
/// maps, from −1..1 mapped to 0..1. Besides an unsettled chain's, a point stays
/// [`Owner::Undecided`] only where the verdicts contradict the board (a dead chain inside
/// an area its own colour's living stones close).
pub fn judge_by_ownership(board: &Board, maps: &OwnershipMaps) -> Judgement {
    let pos = Pos::new(board);
    let ch = Chains::new(&pos);
    let nch = ch.len();
    let st = conservative_status(&pos, &ch);
    let mut status = vec![ChainStatus::Seki; nch];
    let mut why = vec![Evidence::KatagoSeki; nch];
    let mut share = vec![0f32; nch];
    for c in 0..nch {
        let pts = ch.points(c);
        let mut mean = [0f32; 2];
        for &p in pts {
            let o = maps.of(p as usize, ch.color[c]);
            mean[0] += o[0];
            mean[1] += o[1];
        }
        let n = pts.len().max(1) as f32;
        let mean = [mean[0] / n, mean[1] / n];
        share[c] = (2.0 + mean[0] + mean[1]) / 4.0;
        (status[c], why[c]) = if st.forced[c] {
            (ChainStatus::Alive, Evidence::Benson)
        } else if st.benson_dead[c] {
            (ChainStatus::Dead, Evidence::Benson)
        } else if mean.iter().all(|&m| m <= -LIFE_OWNERSHIP) {
            (ChainStatus::Dead, Evidence::Katago)
        } else if mean.iter().all(|&m| m >= LIFE_OWNERSHIP) {
            (ChainStatus::Alive, Evidence::Katago)
        } else if ch.links(c).iter().all(|l| (l.to as usize) < nch || ch.size(l.to as usize) <= SEKI_AREA_MAX) {
            (ChainStatus::Seki, Evidence::KatagoSeki)
        } else {
            (ChainStatus::Unsettled, Evidence::KatagoSplit)
        };
    }
    let seki = seki_points(&ch, &status);
    let dead: Vec<bool> = status.iter().map(|s| *s == ChainStatus::Dead).collect();
    let alive: Vec<bool> = status.iter().map(|s| matches!(s, ChainStatus::Alive | ChainStatus::Seki)).collect();
    let mut own = assemble(&pos, &ch, &dead, &alive, &seki);
    for i in (0..NN).filter(|&i| pos.on[i] && pos.cells[i] == EMPTY) {
        let o = maps.of(i, BLACK);
        if matches!(own.point[i], Owner::Black | Owner::White) && o.iter().all(|x| x.abs() < DAME_OWNERSHIP) {
            own.point[i] = Owner::Neutral;
        }
    }
    let chains = (0..nch)
        .filter_map(|c| {
            let pts = ch.points(c);
            let at = Point::from_index(pts[0])?;
            let color = if ch.color[c] == BLACK { Color::Black } else { Color::White };
            Some(ChainVerdict {
                at,
                color,
                stones: pts.len() as u32,
                status: status[c],
                own_share: share[c],
                why: why[c],
                proven: why[c].is_proof(),
            })
        })
        .collect();
    Judgement { own, chains, playouts: 0 }
}

/// The points of the chains in seki: their stones and every empty area next to them.
fn seki_points(ch: &Chains, status: &[ChainStatus]) -> Seki {
    let nch = ch.len();
    let mut seki = Seki { chain: vec![false; nch], point: [false; NN] };
    for c in (0..nch).filter(|&c| status[c] == ChainStatus::Seki) {
        seki.chain[c] = true;
        let areas = ch.links(c).iter().map(|l| l.to as usize).filter(|&b| b >= nch);
        for b in std::iter::once(c).chain(areas) {
            for &p in ch.points(b) {
                seki.point[p as usize] = true;
            }
        }
    }
    seki
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::{count, RuleSet};

    /// A board of `rows` of `.XO`, sized to them.
    fn board(rows: &[&str]) -> Board {
        let mut b = Board::new_sized(rows[0].len(), rows.len());
        for (r, line) in rows.iter().enumerate() {
            for (c, ch) in line.chars().enumerate() {
                let v = match ch {
                    'X' => 1,
                    'O' => 2,
                    _ => continue,
                };
                b.set_stone(Point::new(r, c).unwrap(), v).unwrap();
            }
        }
        b
    }

    /// Both maps: `f(row, col)` on the board, 0 off it.
    fn maps(b: &Board, black: impl Fn(usize, usize) -> f32, white: impl Fn(usize, usize) -> f32) -> OwnershipMaps {
        let (cols, rows) = b.size();
        let mut m = OwnershipMaps { black_to_move: [0.0; NN], white_to_move: [0.0; NN] };
        for r in 0..rows {
            for c in 0..cols {
                m.black_to_move[r * 19 + c] = black(r, c);
                m.white_to_move[r * 19 + c] = white(r, c);
            }
        }
        m
    }

    fn verdict(j: &Judgement, r: usize, c: usize) -> (ChainStatus, Evidence) {
        let v = j.chains.iter().find(|v| v.at == Point::new(r, c).unwrap()).expect("a chain there");
        (v.status, v.why)
    }

    /// Three black stones in White's corner, with one eye.
    const CORNER: [&str; 5] = [".XO..", "XXO..", "OOO..", ".....", "....."];

    fn in_corner(r: usize, c: usize) -> bool {
        matches!((r, c), (0, 0) | (0, 1) | (1, 0) | (1, 1))
    }

    #[test]
    fn a_chain_both_maps_give_the_opponent_is_dead_and_kibo_counts_it() {
        let b = board(&CORNER);
        let m = maps(&b, |_, _| -0.95, |_, _| -0.9);
        let j = judge_by_ownership(&b, &m);
        assert_eq!(verdict(&j, 0, 1), (ChainStatus::Dead, Evidence::Katago));
        assert_eq!(verdict(&j, 0, 2), (ChainStatus::Alive, Evidence::Katago));
        assert_eq!(j.own.dead.len(), 3);
        // 25 points: 5 white stones, 20 empty or freed; territory 20, 3 prisoners.
        let s = count(&b, &j.own, RuleSet::Japanese, 0.0, 0, 0, 0);
        assert_eq!((s.territory, s.dead, s.undecided_points), ([0, 20], [3, 0], 0));
        assert_eq!(s.margin, -23.0);
    }

    #[test]
    fn a_chain_near_zero_in_both_maps_with_small_areas_is_seki() {
        let b = board(&CORNER);
        let m = maps(
            &b,
            |r, c| if in_corner(r, c) { 0.05 } else { -0.9 },
            |r, c| if in_corner(r, c) { -0.1 } else { -0.9 },
        );
        let j = judge_by_ownership(&b, &m);
        assert_eq!(verdict(&j, 0, 1), (ChainStatus::Seki, Evidence::KatagoSeki));
        assert_eq!(j.own.owner(Point::new(0, 0).unwrap()), Owner::Neutral);
        assert_eq!(j.own.owner(Point::new(0, 1).unwrap()), Owner::Neutral);
        assert_eq!(j.own.owner(Point::new(4, 4).unwrap()), Owner::White);
    }

    #[test]
    fn a_chain_whose_fate_turns_on_who_moves_is_seki_beside_small_areas_and_unsettled_beside_large_ones() {
        let b = board(&CORNER);
        // Black to move: the corner lives; White to move: it dies.
        let m = maps(&b, |r, c| if in_corner(r, c) { 0.8 } else { -0.9 }, |_, _| -0.9);
        let j = judge_by_ownership(&b, &m);
        assert_eq!(verdict(&j, 0, 1).0, ChainStatus::Seki);
        // The white wall's outside is a large area: contested there, it stays unsettled.
        let m =
            maps(&b, |r, c| if in_corner(r, c) { 0.9 } else { 0.7 }, |r, c| if in_corner(r, c) { 0.9 } else { -0.7 });
        let j = judge_by_ownership(&b, &m);
        assert_eq!(verdict(&j, 0, 2), (ChainStatus::Unsettled, Evidence::KatagoSplit));
        assert_eq!(j.own.owner(Point::new(4, 4).unwrap()), Owner::Undecided);
    }

    #[test]
    fn benson_proofs_stand_whatever_the_maps_say() {
        // Black's corner group has two eyes: pass-alive.
        let b = board(&[".X.XO", "XXXXO", "OOOOO", ".....", "....."]);
        let m = maps(&b, |_, _| -1.0, |_, _| -1.0);
        let j = judge_by_ownership(&b, &m);
        assert_eq!(verdict(&j, 0, 1), (ChainStatus::Alive, Evidence::Benson));
        assert_eq!(j.own.owner(Point::new(0, 0).unwrap()), Owner::Black);
    }

    #[test]
    fn territory_comes_from_the_board_and_near_zero_points_in_it_are_dame() {
        // Two walls: Black owns columns 0-1, White columns 4-5.
        let b = board(&["..XO..", "..XO..", "..XO..", "..XO..", "..XO..", "..XO.."]);
        // The maps give White the whole board except Black's wall, and put one point of
        // Black's area at zero: the area stays Black's (ownership is never territory),
        // that point is dame.
        let m = maps(
            &b,
            |r, c| {
                if c == 2 {
                    0.9
                } else if (r, c) == (0, 0) {
                    0.1
                } else {
                    -0.9
                }
            },
            |r, c| {
                if c == 2 {
                    0.9
                } else if (r, c) == (0, 0) {
                    -0.1
                } else {
                    -0.9
                }
            },
        );
        let j = judge_by_ownership(&b, &m);
        assert_eq!(j.own.owner(Point::new(0, 0).unwrap()), Owner::Neutral);
        assert_eq!(j.own.owner(Point::new(5, 0).unwrap()), Owner::Black);
        assert_eq!(j.own.count_of(Owner::Black), 11 + 6);
    }
}
