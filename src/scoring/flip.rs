//! Whether kibo's own judge stands behind a flip of the recorded winner
//! ([`flip_doubt`]): a `winner_differs` says "this record's result is wrong", so it is
//! said only on decisive evidence, and the game is `undecided` otherwise. A judgement
//! checked against a board it was not made on is an error ([`JudgementMismatch`]).

use crate::coord::NN;
use crate::engine::{Board, Color, BLACK};

use super::benson::{assemble, Chains, Pos, Seki};
use super::count::check_result;
use super::judge::{ChainStatus, Judgement};
use super::{Ownership, Score, ScoreCheck};

/// A count that names the other winner by at most this many points is no proof that the
/// record is wrong: a dame filled or not, a point that must be filled, a seki eye or
/// another komi moves a count by a point or two.
pub const FLIP_MARGIN: f32 = 2.0;

/// Why a count that names the other winner is too near the line to say the record is
/// wrong (at most [`FLIP_MARGIN`] points; whoever's evidence the dead stones come from,
/// the count's dame and points that must be filled are kibo's), or `None`.
pub fn flip_near_the_line(score: &Score) -> Option<String> {
    (score.margin.abs() <= FLIP_MARGIN)
        .then(|| format!("the count {} names the other winner by {FLIP_MARGIN} points or less", score.result_text()))
}

/// A judgement handed to [`flip_doubt`] with a board it was not made on: its chains are
/// not the board's. This is a bug of the caller (a judgement is made from the board it
/// is checked against), never something a record can cause, so it is an error and never
/// a verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JudgementMismatch {
    /// What differs: the chain counts, or the first chain that is not the board's.
    pub detail: String,
}

impl std::fmt::Display for JudgementMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the judgement does not match the board ({}): a bug in kibo", self.detail)
    }
}

impl std::error::Error for JudgementMismatch {}

/// [`JudgementMismatch`] unless every chain of `j` is the chain of `ch` at its index:
/// the same first stone, colour and size.
fn check_match(ch: &Chains, j: &Judgement) -> Result<(), JudgementMismatch> {
    if ch.len() != j.chains.len() {
        let detail = format!("{} chains judged, {} on the board", j.chains.len(), ch.len());
        return Err(JudgementMismatch { detail });
    }
    for (c, v) in j.chains.iter().enumerate() {
        let pts = ch.points(c);
        let color = if ch.color[c] == BLACK { Color::Black } else { Color::White };
        if pts.first() != Some(&v.at.index()) || color != v.color || pts.len() != v.stones as usize {
            return Err(JudgementMismatch { detail: format!("the chain judged at {} is not the board's", v.name()) });
        }
    }
    Ok(())
}

/// Why a `winner_differs` of kibo's own judge is not decisive, `Ok(None)` when it is.
///
/// `score` is the count of `j` (its margin names the other winner); `recount` counts
/// another ownership of the same board under the same rules, komi and prisoners;
/// `winner_black` and `recorded_margin` are the record's, as [`check_result`] takes them.
/// The flip is doubted when
/// 1. the count names the other winner by at most [`FLIP_MARGIN`] points, or
/// 2. it rests on a chain whose verdict is not proven ([`super::ChainVerdict::proven`]:
///    the playouts alone, a seki, the rules against the playouts):
///    with every such chain unsettled, the check is no longer `winner_differs`.
///
/// A judgement that is not `board`'s is an error ([`JudgementMismatch`]).
pub fn flip_doubt(
    board: &Board,
    j: &Judgement,
    score: &Score,
    recount: impl Fn(&Ownership) -> Score,
    winner_black: Option<bool>,
    recorded_margin: Option<f32>,
) -> Result<Option<String>, JudgementMismatch> {
    let pos = Pos::new(board);
    let ch = Chains::new(&pos);
    check_match(&ch, j)?;
    if let Some(near) = flip_near_the_line(score) {
        return Ok(Some(near));
    }
    let weak: Vec<usize> =
        (0..j.chains.len()).filter(|&c| !j.chains[c].proven && j.chains[c].status != ChainStatus::Unsettled).collect();
    if weak.is_empty() {
        return Ok(None);
    }
    let nch = ch.len();
    let mut status: Vec<ChainStatus> = j.chains.iter().map(|c| c.status).collect();
    for &c in &weak {
        status[c] = ChainStatus::Unsettled;
    }
    let dead: Vec<bool> = status.iter().map(|s| *s == ChainStatus::Dead).collect();
    let alive: Vec<bool> = status.iter().map(|s| *s == ChainStatus::Alive).collect();
    let proven = assemble(&pos, &ch, &dead, &alive, &Seki { chain: vec![false; nch], point: [false; NN] });
    let firm = recount(&proven);
    if check_result(&firm, winner_black, recorded_margin) == ScoreCheck::WinnerDiffers {
        return Ok(None);
    }
    let named: Vec<String> = weak
        .iter()
        .take(3)
        .map(|&c| {
            let v = &j.chains[c];
            format!("{} ({}, {} by {})", v.name(), v.size(), v.status.as_str(), v.why)
        })
        .collect();
    let more = if weak.len() > 3 { ", …" } else { "" };
    Ok(Some(format!(
        "the flip to {} rests on {} chain{} not proven: {}{more}",
        score.result_text(),
        weak.len(),
        if weak.len() == 1 { "" } else { "s" },
        named.join(", ")
    )))
}
