//! How a match game is counted (docs/match.md, "Counting"): a game that ended by two
//! passes by kibo's judge under the match's rules (as `kibo run` counts a record); a game
//! stopped at `--max-moves` by the KataGo judge (KataGo's ownership as evidence, kibo
//! counting) when KataGo is at hand, else as it stands (territory and captures, no dead
//! stones: the MariaGO notes' count). Undecided points count for nobody, and a count whose
//! undecided points could change the winner says so.

use std::sync::Mutex;

use super::record::{Count, CountedBy};
use crate::color::Color;
use crate::engine::Board;
use crate::scoring::{count, judge, judge_by_ownership, ownership_as_it_stands, Ownership, RuleSet, Score};

/// What a count needs besides the board.
#[derive(Clone, Copy, Debug)]
pub struct CountRules {
    pub rules: RuleSet,
    pub komi: f32,
    pub handicap: u32,
}

/// The KataGo judge, started when first needed and shared by the match's games.
pub struct KatagoJudge {
    settings: crate::analysis::KatagoSettings,
    engine: Mutex<Option<crate::analysis::Katago>>,
}

impl KatagoJudge {
    /// A judge that starts KataGo (`settings`) at its first count.
    pub fn new(settings: crate::analysis::KatagoSettings) -> KatagoJudge {
        KatagoJudge { settings, engine: Mutex::new(None) }
    }

    /// Runs `f` on the engine, started at the first call.
    fn with<T>(&self, f: impl FnOnce(&mut crate::analysis::Katago) -> anyhow::Result<T>) -> anyhow::Result<T> {
        let mut guard = self.engine.lock().map_err(|_| anyhow::anyhow!("the KataGo judge's lock is poisoned"))?;
        if guard.is_none() {
            *guard = Some(crate::analysis::Katago::start(&self.settings)?);
        }
        f(guard.as_mut().ok_or_else(|| anyhow::anyhow!("KataGo did not start"))?)
    }

    fn ownership(&self, name: &str, board: &Board, r: &CountRules) -> anyhow::Result<crate::scoring::OwnershipMaps> {
        let pos = crate::analysis::Position { game: name, board, rules: r.rules, komi: r.komi };
        self.with(|k| k.ownership(&[pos])?.pop().ok_or_else(|| anyhow::anyhow!("{name}: KataGo gave no ownership")))
    }

    /// KataGo's winrate for Black after `moves` (from the empty board with `setup`), at the
    /// judge's visits: the evidence of `--resign-below`.
    pub fn winrate_black(
        &self,
        name: &str,
        setup: &[(Color, crate::coord::Point)],
        moves: &[(Color, crate::coord::Move)],
        r: &CountRules,
    ) -> anyhow::Result<Option<f32>> {
        use crate::analysis::label::{Answer, Ask, GameQuery};
        let q = GameQuery {
            name: name.to_string(),
            rules: r.rules.as_str(),
            komi: r.komi,
            setup: setup.to_vec(),
            first_player: moves.first().map_or(if setup.is_empty() { Color::Black } else { Color::White }, |m| m.0),
            moves: moves.to_vec(),
            turns: vec![moves.len() as u32],
        };
        let ask = Ask { visits: self.settings.visits, ownership: false, top: 0 };
        match self.with(|k| k.read_turns(&[q], &ask))?.pop() {
            Some(Answer::Read(mut v)) => Ok(v.pop().and_then(|r| r.winrate_black)),
            Some(Answer::Refused(why)) => anyhow::bail!("{name}: KataGo refused the position: {why}"),
            None => anyhow::bail!("{name}: KataGo gave no answer"),
        }
    }
}

fn counted(board: &Board, own: &Ownership, r: &CountRules, by: CountedBy) -> Count {
    let s: Score =
        count(board, own, r.rules, r.komi, board.prisoners(Color::Black), board.prisoners(Color::White), r.handicap);
    let (down, up) = (s.margin - s.swing[0], s.margin + s.swing[1]);
    Count {
        by,
        rules: r.rules.as_str().to_string(),
        komi: r.komi,
        black: s.black,
        white: s.white,
        margin: s.margin,
        undecided_points: s.undecided_points,
        winner_open: s.undecided_points > 0 && (down.signum() != s.margin.signum() || up.signum() != s.margin.signum()),
    }
}

/// A game that ended by two passes, `to_move` next: kibo's judge.
pub fn finished(board: &Board, to_move: Color, r: &CountRules) -> Count {
    let j = judge(board, None, to_move);
    counted(board, &j.own, r, CountedBy::Kibo)
}

/// A game stopped before its end: the KataGo judge when given, else as it stands.
pub fn stopped(board: &Board, r: &CountRules, katago: Option<&KatagoJudge>, name: &str) -> anyhow::Result<Count> {
    match katago {
        Some(k) => {
            let maps = k.ownership(name, board, r)?;
            let j = judge_by_ownership(board, &maps);
            Ok(counted(board, &j.own, r, CountedBy::Katago))
        }
        None => Ok(counted(board, &ownership_as_it_stands(board), r, CountedBy::Reference)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `rows` of `.XO` from the top-left, padded with empty points to 19 × 19.
    fn board_of(rows: &[&str]) -> Board {
        let diagram: String = rows.iter().map(|r| format!("{r:.<19}\n")).collect();
        Board::from_diagram(&diagram).expect("a diagram")
    }

    #[test]
    fn as_it_stands_counts_territory_and_captures_and_no_dead_stones() {
        // Black walls off column 0–2 (3 columns × 19 = 57 points, 38 of them empty);
        // a white stone inside stays alive, so the area it touches is nobody's.
        let mut rows = vec!["..X"; 19];
        rows[0] = "..XO";
        let b = board_of(&rows);
        let r = CountRules { rules: RuleSet::Japanese, komi: 6.5, handicap: 0 };
        let c = stopped(&b, &r, None, "t").expect("a count");
        assert_eq!(c.by, CountedBy::Reference);
        // Black: the 38 empty points of columns 0–1; White: nothing (its area touches Black).
        assert_eq!(c.black, 38.0);
        assert_eq!(c.white, 6.5);
        assert_eq!(c.margin, 31.5);
        assert_eq!(c.undecided_points, 0);

        let mut with_dead = rows.clone();
        with_dead[5] = "O.X";
        let b = board_of(&with_dead);
        let c = stopped(&b, &r, None, "t").expect("a count");
        // The white stone inside is not judged dead: the area it touches is nobody's.
        assert_eq!((c.black, c.white), (0.0, 6.5), "{c:?}");
    }
}
