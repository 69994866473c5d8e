//! One game between two players (docs/match.md, "Games"): the opening, then each side asked
//! in turn; every answer checked against kibo's rules (simple ko, no suicide, positional
//! superko); an invalid answer asked again up to `retries` times, then a pass or a loss;
//! two passes end the game, `max_moves` stops it, KataGo's winrate may adjudicate it; then
//! the count.

use super::count::{self, CountRules, KatagoJudge};
use super::player::{Player, Reply, Seen};
use super::record::{Count, End, GameRecordOut, Invalid, InvalidKind};
use crate::color::Color;
use crate::coord::{Move, Point};
use crate::engine::{Board, Illegal, Rules, SuperkoHistory, SuperkoMode, Violation};
use crate::stages::eval::errors::classify_move;

/// Moves after which a game without `--max-moves` is stopped and counted as it stands
/// (three times the points: far past any real game).
pub const SAFETY_CAP: u32 = 3 * 361;

/// What to do once a move's answers are all invalid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OnInvalid {
    /// The move is a pass.
    Pass,
    /// The game is lost.
    Lose,
}

/// The settings every game of a match shares.
#[derive(Clone, Debug)]
pub struct GameSettings {
    pub count: CountRules,
    /// Stop (and count) at this many moves, the opening's included.
    pub max_moves: Option<u32>,
    /// Requests again after an invalid answer.
    pub retries: u32,
    pub on_invalid: OnInvalid,
    /// Games stopped at the move cap are counted by the KataGo judge (else as they stand).
    pub stopped_by_katago: bool,
    /// `--resign-below W --resign-moves N`: a side whose winrate (KataGo's, after each
    /// move) stays under W for N moves in a row loses.
    pub resign: Option<Resign>,
}

/// When KataGo's winrate ends a game.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Resign {
    /// The winrate under which a side counts as lost.
    pub below: f32,
    /// Moves in a row it must stay there.
    pub moves: u32,
}

/// Tracks the adjudication's streaks: `[black, white]` moves in a row under the threshold.
#[derive(Default)]
struct Streaks([u32; 2]);

impl Streaks {
    /// Adds the winrate after a move; the side that has lost, if any.
    fn add(&mut self, winrate_black: f32, r: &Resign) -> Option<Color> {
        for (i, w) in [winrate_black, 1.0 - winrate_black].into_iter().enumerate() {
            self.0[i] = if w < r.below { self.0[i] + 1 } else { 0 };
        }
        [Color::Black, Color::White].into_iter().find(|c| self.0[side(*c)] >= r.moves)
    }
}

/// Where a game starts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Opening {
    /// Its source (`game_id@moves`), `None` for the empty board.
    pub id: Option<String>,
    pub moves: Vec<(Color, Move)>,
}

/// A game's place in the schedule.
#[derive(Clone, Debug)]
pub struct Fixture {
    pub game: u64,
    pub pair: usize,
    pub seed: u64,
    /// Black's and White's names.
    pub names: [String; 2],
}

/// A played game: its record, and the moves and setup its SGF needs.
pub struct Played {
    pub record: GameRecordOut,
    pub setup: Vec<(Color, Point)>,
    pub moves: Vec<(Color, Move)>,
}

/// The game's state while it is played.
struct State {
    board: Board,
    history: SuperkoHistory,
    setup: Vec<(Color, Point)>,
    moves: Vec<(Color, Move)>,
    invalid: Vec<Invalid>,
    seconds: [f64; 2],
    requests: [u32; 2],
}

impl State {
    fn to_move(&self) -> Color {
        match self.moves.last() {
            Some((c, _)) => c.opponent(),
            None if self.setup.is_empty() => Color::Black,
            None => Color::White,
        }
    }

    fn passes_at_end(&self) -> usize {
        self.moves.iter().rev().take_while(|m| m.1 == Move::Pass).count()
    }
}

fn side(c: Color) -> usize {
    usize::from(c == Color::White)
}

fn kind_of(v: Violation) -> InvalidKind {
    match v {
        Violation::Superko => InvalidKind::Superko,
        Violation::Illegal(Illegal::Occupied) => InvalidKind::Occupied,
        Violation::Illegal(Illegal::Suicide) => InvalidKind::Suicide,
        Violation::Illegal(Illegal::Ko) => InvalidKind::Ko,
        Violation::Illegal(Illegal::OffBoard) => InvalidKind::OffBoard,
    }
}

/// How one turn ended.
enum Turn {
    Played(Move),
    Resigned,
    /// Every answer invalid, and `--on-invalid lose`.
    Forfeit,
}

/// Asks `p` for `c`'s move until an answer is legal or the retries are spent.
fn turn(p: &mut dyn Player, st: &mut State, f: &Fixture, s: &GameSettings) -> anyhow::Result<Turn> {
    let c = st.to_move();
    let first_invalid = st.invalid.len();
    let move_number = st.moves.len() as u32 + 1;
    for attempt in 0..=s.retries {
        let seen = Seen {
            board: &st.board,
            to_move: c,
            moves: &st.moves,
            setup: &st.setup,
            history: &st.history,
            komi: s.count.komi,
            rules: s.count.rules,
            game: f.game,
            seed: f.seed,
            attempt,
        };
        let a = p.genmove(&seen)?;
        st.seconds[side(c)] += a.seconds;
        st.requests[side(c)] += 1;
        let refused = |kind, answer: Option<Move>| Invalid {
            move_number,
            color: c.as_str().to_string(),
            attempt,
            raw: a.raw.clone(),
            kind,
            answer: answer.map(|m| m.to_gtp()),
            class: None,
        };
        let bad = match a.reply {
            Some(Reply::Resign) => return Ok(Turn::Resigned),
            Some(Reply::Move(m)) => match st.history.play(&mut st.board, c, m, &Rules::default()) {
                Ok(_) => {
                    // The refused answers of this move, against the one the player meant.
                    for v in &mut st.invalid[first_invalid..] {
                        if let Some(ans) = v.answer.as_deref().and_then(crate::coord::gtp_move) {
                            v.class = Some(classify_move(m, ans).name().to_string());
                        }
                    }
                    st.moves.push((c, m));
                    return Ok(Turn::Played(m));
                }
                Err(v) => refused(kind_of(v), Some(m)),
            },
            None => refused(InvalidKind::Unreadable, None),
        };
        st.invalid.push(bad);
        p.refused()?;
    }
    match s.on_invalid {
        OnInvalid::Lose => Ok(Turn::Forfeit),
        OnInvalid::Pass => {
            st.history.play(&mut st.board, c, Move::Pass, &Rules::default()).map_err(|v| anyhow::anyhow!("{v}"))?;
            st.moves.push((c, Move::Pass));
            Ok(Turn::Played(Move::Pass))
        }
    }
}

/// The starting position: the fixed handicap stones, then the opening's moves.
fn start(opening: &Opening, s: &GameSettings) -> anyhow::Result<State> {
    let mut board = Board::new();
    let setup: Vec<(Color, Point)> =
        crate::formats::tygem_handicap(s.count.handicap).into_iter().map(|p| (Color::Black, p)).collect();
    for &(c, p) in &setup {
        board.set_stone(p, c.as_u8()).map_err(|e| anyhow::anyhow!("handicap stone {}: {e}", p.to_gtp()))?;
    }
    let first = if setup.is_empty() { Color::Black } else { Color::White };
    let history = SuperkoHistory::with_start(SuperkoMode::Positional, &board, first);
    let mut st =
        State { board, history, setup, moves: Vec::new(), invalid: Vec::new(), seconds: [0.0; 2], requests: [0; 2] };
    for (i, &(c, m)) in opening.moves.iter().enumerate() {
        st.history
            .play(&mut st.board, c, m, &Rules::default())
            .map_err(|v| anyhow::anyhow!("the opening {:?} is illegal at move {}: {v}", opening.id, i + 1))?;
        st.moves.push((c, m));
    }
    Ok(st)
}

/// Plays one game; `players` are Black's and White's. A player's fault ends the game as
/// [`End::Error`]; only a count that cannot be made (KataGo failing) is an `Err`.
pub fn play(
    players: [&mut dyn Player; 2],
    opening: &Opening,
    f: &Fixture,
    s: &GameSettings,
    katago: Option<&KatagoJudge>,
) -> anyhow::Result<Played> {
    let mut st = start(opening, s)?;
    let [black, white] = players;
    let cap = s.max_moves.unwrap_or(SAFETY_CAP).min(SAFETY_CAP) as usize;
    let mut outcome: (End, Option<Color>, Option<String>) = (End::MaxMoves, None, None);
    let mut streaks = Streaks::default();
    let name = format!("match game {}", f.game);
    while st.moves.len() < cap {
        if st.moves.len() >= 2 && st.passes_at_end() >= 2 {
            outcome.0 = End::TwoPasses;
            break;
        }
        let c = st.to_move();
        let p: &mut dyn Player = if c == Color::Black { &mut *black } else { &mut *white };
        match turn(p, &mut st, f, s) {
            Ok(Turn::Played(m)) => {
                let other: &mut dyn Player = if c == Color::Black { &mut *white } else { &mut *black };
                if let Err(e) = other.played(c, m) {
                    outcome = (End::Error, None, Some(format!("{}: {e:#}", f.names[side(c.opponent())])));
                    break;
                }
                if let (Some(r), Some(k)) = (&s.resign, katago) {
                    match k.winrate_black(&name, &st.setup, &st.moves, &s.count) {
                        Ok(Some(w)) => {
                            if let Some(lost) = streaks.add(w, r) {
                                outcome = (End::Adjudicated, Some(lost.opponent()), None);
                                break;
                            }
                        }
                        Ok(None) => {}
                        Err(e) => {
                            outcome = (End::Error, None, Some(format!("the KataGo adjudication: {e:#}")));
                            break;
                        }
                    }
                }
            }
            Ok(Turn::Resigned) => {
                outcome = (End::Resign, Some(c.opponent()), None);
                break;
            }
            Ok(Turn::Forfeit) => {
                outcome = (End::Invalid, Some(c.opponent()), None);
                break;
            }
            Err(e) => {
                outcome = (End::Error, None, Some(format!("{}: {e:#}", f.names[side(c)])));
                break;
            }
        }
    }
    if outcome.0 == End::MaxMoves && st.moves.len() >= 2 && st.passes_at_end() >= 2 {
        outcome.0 = End::TwoPasses;
    }
    black.finish();
    white.finish();
    let (end, winner, error) = outcome;
    let count: Option<Count> = match end {
        End::TwoPasses => Some(count::finished(&st.board, st.to_move(), &s.count)),
        End::MaxMoves => Some(count::stopped(&st.board, &s.count, katago.filter(|_| s.stopped_by_katago), &name)?),
        _ => None,
    };
    Ok(finish(st, opening, f, (end, winner, error), count))
}

/// The game as played: its record (the result from [`result_of`]) and its moves.
fn finish(
    st: State,
    opening: &Opening,
    f: &Fixture,
    (end, winner, error): (End, Option<Color>, Option<String>),
    count: Option<Count>,
) -> Played {
    let (winner, result) = result_of(end, winner, count.as_ref());
    let record = GameRecordOut {
        game: f.game,
        pair: f.pair,
        black: f.names[0].clone(),
        white: f.names[1].clone(),
        seed: f.seed,
        opening: opening.id.clone(),
        end,
        winner: winner.map(|c| c.as_str().to_string()),
        result,
        count,
        moves: st.moves.len() as u32,
        invalid: st.invalid,
        error,
        seconds: st.seconds,
        requests: st.requests,
    };
    Played { record, setup: st.setup, moves: st.moves }
}

/// The record of a game that could not start (a player failed to start, `error` says
/// why): `error`, no move played.
pub fn play_failed(opening: &Opening, f: &Fixture, s: &GameSettings, error: String) -> anyhow::Result<Played> {
    Ok(finish(start(opening, s)?, opening, f, (End::Error, None, Some(error)), None))
}

/// The winner and `RE`: the count's (`B+3.5`, `0` a draw), `B+R` / `W+R` for a
/// resignation, `B+F` / `W+F` for a game lost by invalid answers, `Void` for an error.
fn result_of(end: End, winner: Option<Color>, count: Option<&Count>) -> (Option<Color>, String) {
    if let Some(c) = count {
        let w = if c.margin > 0.0 {
            Some(Color::Black)
        } else if c.margin < 0.0 {
            Some(Color::White)
        } else {
            None
        };
        return (w, crate::scoring::count::result_text(c.margin));
    }
    match (end, winner) {
        (End::Resign | End::Adjudicated, Some(w)) => (Some(w), format!("{}+R", w.as_str())),
        (End::Invalid, Some(w)) => (Some(w), format!("{}+F", w.as_str())),
        _ => (None, "Void".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_side_under_the_threshold_for_n_moves_in_a_row_loses() {
        let r = Resign { below: 0.05, moves: 3 };
        let mut s = Streaks::default();
        // White under 5% twice, then a recovery, then three times: White loses at the third.
        assert_eq!(s.add(0.97, &r), None);
        assert_eq!(s.add(0.99, &r), None);
        assert_eq!(s.add(0.90, &r), None);
        assert_eq!(s.add(0.96, &r), None);
        assert_eq!(s.add(0.96, &r), None);
        assert_eq!(s.add(0.951, &r), Some(Color::White));
        let mut s = Streaks::default();
        for _ in 0..2 {
            assert_eq!(s.add(0.01, &r), None);
        }
        assert_eq!(s.add(0.049, &r), Some(Color::Black));
    }
}
