/*!
The one replay of a game on a board: [`replay`] plays a [`GameRow`]'s start position,
its mid-game setup and its main line with full rules checking, and calls a
[`Visitor`] around every move. The filter stage's scoring, `kibo tags`, the split stage
and the tests all replay through it, so they agree on what a legal game is.

Checks, in order, each a [`Refusal`] with a [`Reject`] reason:
* setup (start position, or setup before a move) that leaves a chain without liberties:
  `illegal_setup`;
* a colour moving twice in a row, when [`ReplayRules::allow_consecutive_moves`] is off:
  `consecutive_moves`;
* an occupied point, a suicide (multi-stone suicide only if the rules allow it), a simple
  ko retaken at once: `occupied_point`, `suicide`, `ko_violation`;
* with superko on, a move (not a pass) that repeats an earlier position:
  `superko_violation`.
*/

use crate::color::Color;
use crate::coord::{Move, Point};
use crate::engine::{Board, Rules, SuperkoHistory, SuperkoMode};
use crate::game::GameRow;
use crate::reject::Reject;

/// What a replay checks beyond the basic rules.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReplayRules {
    /// Suicide rules for [`Board::play`].
    pub rules: Rules,
    /// Superko.
    pub superko: SuperkoMode,
    /// Allow one colour to move twice in a row.
    pub allow_consecutive_moves: bool,
}

/// One move of the main line, as the visitor sees it.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    /// 0-based index into the game's moves.
    pub index: usize,
    /// 1-based move number.
    pub number: u32,
    /// Who plays.
    pub color: Color,
    /// What.
    pub mv: Move,
}

/// Called around every move: `before` sees the position S the move is played in, `after`
/// the position S′ it makes. Both default to nothing.
pub trait Visitor {
    /// Before the move is played on `board` (S).
    fn before(&mut self, _board: &Board, _step: &Step) {}
    /// After the move was played (S′); not called for a refused move.
    fn after(&mut self, _board: &Board, _step: &Step) {}
}

impl Visitor for () {}

/// Why a replay stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The reject reason.
    pub reason: Reject,
    /// What happened, for people (the move, in GTP and SGF).
    pub detail: String,
    /// 1-based move number, when a move (or the setup before it) was refused.
    pub move_number: Option<u32>,
}

/// A game replayed to its end.
#[derive(Clone, Debug)]
pub struct Replayed {
    /// The final position.
    pub board: Board,
    /// Some colour moved twice in a row somewhere.
    pub consecutive: bool,
}

/// The move as people read it: `Q16 (pd)`, or `pass`.
pub fn describe(m: Move) -> String {
    match m {
        Move::Play(p) => format!("{} ({})", p.to_gtp(), p.to_sgf()),
        Move::Pass => "pass".into(),
    }
}

fn place_all(board: &mut Board, stones: [(&[Point], u8); 3]) {
    for (points, v) in stones {
        for &p in points {
            // A point of a row is on the 19×19 board and `v` is a cell value: cannot fail.
            board.set_stone(p, v).expect("invariant: a board point and a cell value");
        }
    }
}

/// Replays `g` under `rules`, calling `visitor` around every move.
pub fn replay(g: &GameRow, rules: &ReplayRules, visitor: &mut impl Visitor) -> Result<Replayed, Refusal> {
    let refuse = |reason, detail, move_number| Refusal { reason, detail, move_number };
    let mut board = Board::new();
    place_all(&mut board, [(&g.setup_black, 1), (&g.setup_white, 2), (&[], 0)]);
    if board.has_dead_chains() {
        return Err(refuse(Reject::IllegalSetup, "setup leaves a chain without liberties".into(), None));
    }
    let first = g.moves.first().map_or(Color::Black, |m| m.color);
    let mut history = SuperkoHistory::with_start(rules.superko, &board, first);
    let mut mid = g.mid_setup.iter().peekable();
    let mut prev: Option<Color> = None;
    let mut consecutive = false;
    for (index, m) in g.moves.iter().enumerate() {
        let number = index as u32 + 1;
        while let Some(s) = mid.next_if(|s| s.before_move as usize == index) {
            place_all(&mut board, [(&s.black, 1), (&s.white, 2), (&s.empty, 0)]);
            if board.has_dead_chains() {
                let detail = format!("setup before move {number} leaves a chain without liberties");
                return Err(refuse(Reject::IllegalSetup, detail, Some(number)));
            }
        }
        let step = Step { index, number, color: m.color, mv: m.mv };
        if prev == Some(m.color) {
            consecutive = true;
            if !rules.allow_consecutive_moves {
                let detail = format!("{} moves twice in a row", m.color.name());
                return Err(refuse(Reject::ConsecutiveMoves, detail, Some(number)));
            }
        }
        visitor.before(&board, &step);
        if let Err(e) = board.play(m.color, m.mv, &rules.rules) {
            let detail = format!("{} at {}", m.color.name(), describe(m.mv));
            return Err(refuse(Reject::from(e), detail, Some(number)));
        }
        visitor.after(&board, &step);
        if m.mv != Move::Pass && !history.push(&board, m.color.opponent()) {
            let detail = format!("{} repeats an earlier position", describe(m.mv));
            return Err(refuse(Reject::SuperkoViolation, detail, Some(number)));
        }
        prev = Some(m.color);
    }
    Ok(Replayed { board, consecutive })
}
