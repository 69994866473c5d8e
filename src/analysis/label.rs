//! KataGo's reading of chosen positions of games, for `kibo label` (docs/labels.md).
//!
//! A game's positions go in one query: its setup, its moves up to the last position
//! asked for, its rules and komi, and `analyzeTurns` naming the positions, so that the
//! engine sees each position with its history (ko and superko bans hold). Every query of
//! a batch is written at once and the answers read as they come (the engine reads
//! `numAnalysisThreads` positions at a time). A query the engine refuses (an illegal
//! move under its rules) is returned as [`Answer::Refused`], for the caller to send again
//! another way; an engine that stops or hangs is an error naming the positions waited for.

use anyhow::bail;
use serde_json::{json, Value};

use super::Katago;
use crate::coord::{gtp_move, Move, Point, NN, PASS};
use crate::engine::Color;

/// The positions of one game to read.
#[derive(Clone, Debug)]
pub struct GameQuery {
    /// What errors name: the game and its positions.
    pub name: String,
    /// KataGo's name of the rules (`japanese`, `chinese`, …).
    pub rules: &'static str,
    /// Komi (rounded to a half point and kept within ±150 for the engine).
    pub komi: f32,
    /// Stones on the board before the first move.
    pub setup: Vec<(Color, Point)>,
    /// Who plays first.
    pub first_player: Color,
    /// The moves played, up to the last position asked for.
    pub moves: Vec<(Color, Move)>,
    /// The positions to read, as moves played before them (`0..=moves.len()`), ascending.
    pub turns: Vec<u32>,
}

/// What to ask of every position.
#[derive(Clone, Copy, Debug)]
pub struct Ask {
    /// Visits per position (`maxVisits`).
    pub visits: u32,
    /// Ask for the ownership map.
    pub ownership: bool,
    /// Moves kept in [`Reading::top`].
    pub top: usize,
}

/// One candidate move of a reading.
#[derive(Clone, Debug, PartialEq)]
pub struct TopMove {
    pub mv: Move,
    /// The net's policy for it.
    pub prior: f32,
    /// Visits the search gave it (0 at one visit).
    pub visits: u32,
    /// Black's winrate after it (none at one visit).
    pub winrate_black: Option<f32>,
    /// Black's score lead after it (none at one visit).
    pub score_lead_black: Option<f32>,
}

/// KataGo's reading of one position. A root value the answer leaves out is `None`
/// (never a stand-in number).
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    /// The root's winrate for Black.
    pub winrate_black: Option<f32>,
    /// The root's score lead for Black.
    pub score_lead_black: Option<f32>,
    /// The root's score standard deviation.
    pub score_stdev: Option<f32>,
    /// The root's visits.
    pub visits: Option<u32>,
    /// The best moves in KataGo's order (with more than one visit: the search's
    /// `moveInfos`; at one visit: the raw policy, best legal point first).
    pub top: Vec<TopMove>,
    /// The raw policy: 361 points row-major from the top-left, then pass; -1 on illegal
    /// points.
    pub policy: Vec<f32>,
    /// Ownership from Black's side (361 values, -1 white to 1 black), when asked.
    pub ownership: Option<Vec<f32>>,
}

/// The engine's answer to one game's query.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// A reading per asked position, in the order of [`GameQuery::turns`].
    Read(Vec<Reading>),
    /// The engine refused the query, with its words.
    Refused(String),
}

fn color_text(c: Color) -> &'static str {
    if c == Color::Black {
        "B"
    } else {
        "W"
    }
}

/// The query's JSON line.
fn query_line(id: u64, q: &GameQuery, ask: &Ask) -> String {
    let stones: Vec<Value> = q.setup.iter().map(|&(c, p)| json!([color_text(c), p.to_gtp()])).collect();
    let moves: Vec<Value> = q.moves.iter().map(|&(c, m)| json!([color_text(c), m.to_gtp()])).collect();
    let komi = if q.komi.is_finite() { ((q.komi * 2.0).round() / 2.0).clamp(-150.0, 150.0) } else { 0.0 };
    json!({
        "id": id.to_string(),
        "initialStones": stones,
        "initialPlayer": color_text(q.first_player),
        "moves": moves,
        "rules": q.rules,
        "komi": komi,
        "boardXSize": 19,
        "boardYSize": 19,
        "analyzeTurns": q.turns,
        "maxVisits": ask.visits.max(1),
        "includePolicy": true,
        "includeOwnership": ask.ownership,
        "overrideSettings": {"reportAnalysisWinratesAs": "BLACK"},
    })
    .to_string()
}

fn f32_of(v: &Value, key: &str) -> Option<f32> {
    v.get(key).and_then(Value::as_f64).map(|x| x as f32)
}

/// The floats of `v[key]`, which must number `n`, every one a number (a value that is
/// not is an error naming `name`, the game and move, and the value's place).
fn floats(v: &Value, key: &str, n: usize, name: &str) -> anyhow::Result<Vec<f32>> {
    let Some(a) = v.get(key).and_then(Value::as_array) else { bail!("KataGo's answer for {name} has no {key}") };
    if a.len() != n {
        bail!("KataGo's {key} for {name} has {} values, not {n}", a.len());
    }
    a.iter()
        .enumerate()
        .map(|(k, x)| match x.as_f64() {
            Some(f) => Ok(f as f32),
            None => bail!("KataGo's {key} for {name} has {x} at {k}, not a number"),
        })
        .collect()
}

/// The best `n` legal moves of a raw policy (-1 marks illegal points), best first, ties
/// by point index.
pub fn policy_top(policy: &[f32], n: usize) -> Vec<TopMove> {
    let mut order: Vec<u16> = (0..=PASS).filter(|&i| policy.get(i as usize).is_some_and(|&p| p >= 0.0)).collect();
    order.sort_by(|&a, &b| policy[b as usize].total_cmp(&policy[a as usize]).then(a.cmp(&b)));
    order
        .into_iter()
        .take(n)
        .map(|i| TopMove {
            mv: Move::from_index(i).expect("invariant: 0..=PASS"),
            prior: policy[i as usize],
            visits: 0,
            winrate_black: None,
            score_lead_black: None,
        })
        .collect()
}

/// One answer line as a reading.
fn reading(v: &Value, ask: &Ask, name: &str) -> anyhow::Result<Reading> {
    let Some(root) = v.get("rootInfo") else { bail!("KataGo's answer for {name} has no rootInfo") };
    let policy = floats(v, "policy", NN + 1, name)?;
    let ownership = if ask.ownership { Some(floats(v, "ownership", NN, name)?) } else { None };
    let mut infos: Vec<&Value> =
        v.get("moveInfos").and_then(Value::as_array).map(|a| a.iter().collect()).unwrap_or_default();
    infos.sort_by_key(|m| m.get("order").and_then(Value::as_u64).unwrap_or(u64::MAX));
    let top = if infos.is_empty() {
        policy_top(&policy, ask.top)
    } else {
        let mut top = Vec::new();
        for m in infos.into_iter().take(ask.top) {
            let text = m.get("move").and_then(Value::as_str).unwrap_or("");
            let Some(mv) = gtp_move(text) else { bail!("KataGo named the move {text:?} for {name}") };
            let (Some(prior), Some(visits)) = (f32_of(m, "prior"), m.get("visits").and_then(Value::as_u64)) else {
                bail!("KataGo's move {text} for {name} has no prior or visits")
            };
            top.push(TopMove {
                mv,
                prior,
                visits: visits as u32,
                winrate_black: f32_of(m, "winrate"),
                score_lead_black: f32_of(m, "scoreLead"),
            });
        }
        top
    };
    Ok(Reading {
        winrate_black: f32_of(root, "winrate"),
        score_lead_black: f32_of(root, "scoreLead"),
        score_stdev: f32_of(root, "scoreStdev"),
        visits: root.get("visits").and_then(Value::as_u64).map(|n| n as u32),
        top,
        policy,
        ownership,
    })
}

impl Katago {
    /// KataGo's reading of every asked position of every query, in order. A refused
    /// query is [`Answer::Refused`]; a stopped or hung engine, or an answer that cannot
    /// be read, is an error naming the query waited for (after one, this engine is not
    /// used again).
    pub fn read_turns(&mut self, queries: &[GameQuery], ask: &Ask) -> anyhow::Result<Vec<Answer>> {
        let base = self.next_id;
        self.next_id += queries.len() as u64;
        let mut text = String::new();
        for (i, q) in queries.iter().enumerate() {
            text.push_str(&query_line(base + i as u64, q, ask));
            text.push('\n');
        }
        let first = queries.first().map_or("", |q| q.name.as_str());
        self.send(&text, first)?;
        let mut got: Vec<Vec<Option<Reading>>> = queries.iter().map(|q| vec![None; q.turns.len()]).collect();
        let mut refused: Vec<Option<String>> = vec![None; queries.len()];
        let mut left: usize = queries.iter().map(|q| q.turns.len()).sum();
        while left > 0 {
            let waiting = (0..queries.len())
                .find(|&i| refused[i].is_none() && got[i].iter().any(Option::is_none))
                .map_or(first, |i| queries[i].name.as_str());
            let v = self.recv(waiting)?;
            let at = v
                .get("id")
                .and_then(Value::as_str)
                .and_then(|id| id.parse::<u64>().ok())
                .and_then(|n| n.checked_sub(base))
                .map(|i| i as usize)
                .filter(|&i| i < queries.len());
            let Some(i) = at else { continue };
            if let Some(e) = v.get("error") {
                if refused[i].is_none() {
                    left -= got[i].iter().filter(|g| g.is_none()).count();
                    refused[i] = Some(e.as_str().map_or_else(|| e.to_string(), str::to_string));
                }
                continue;
            }
            let Some(turn) = v.get("turnNumber").and_then(Value::as_u64) else { continue }; // a warning
            let q = &queries[i];
            let Some(t) = q.turns.iter().position(|&x| u64::from(x) == turn) else { continue };
            if refused[i].is_some() || got[i][t].is_some() {
                continue;
            }
            got[i][t] = Some(reading(&v, ask, &format!("{} (move {})", q.name, turn + 1))?);
            left -= 1;
        }
        Ok(got
            .into_iter()
            .zip(refused)
            .map(|(g, r)| match r {
                Some(words) => Answer::Refused(words),
                None => Answer::Read(g.into_iter().map(|r| r.expect("invariant: every turn read")).collect()),
            })
            .collect())
    }
}

/// Engines that each read one position at a time (`numAnalysisThreads = 1`,
/// `numSearchThreads = 1`), the positions spread over them. One at a time, every
/// evaluation of the net is a batch of one, so a position's answer is the same bytes
/// however many engines run and whatever else they read: batches of two (Eigen's
/// largest) give other last digits than a batch of one.
pub struct Engines {
    engines: Vec<Katago>,
}

impl Engines {
    /// The settings each engine runs with.
    pub fn settings(k: &super::KatagoSettings) -> super::KatagoSettings {
        super::KatagoSettings { threads: Some(1), search_threads: Some(1), ..k.clone() }
    }

    /// Starts `n` engines (at least one) at once.
    pub fn start(k: &super::KatagoSettings, n: usize) -> anyhow::Result<Engines> {
        let s = Engines::settings(k);
        let started: Vec<anyhow::Result<Katago>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..n.max(1)).map(|_| scope.spawn(|| Katago::start(&s))).collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err(anyhow::anyhow!("KataGo's start panicked"))))
                .collect()
        });
        Ok(Engines { engines: started.into_iter().collect::<anyhow::Result<_>>()? })
    }

    /// [`Katago::read_turns`] over the engines: each query goes to the engine with the
    /// fewest positions so far (the longest queries placed first), all read at once;
    /// the answers in the queries' order.
    pub fn read_turns(&mut self, queries: &[GameQuery], ask: &Ask) -> anyhow::Result<Vec<Answer>> {
        let n = self.engines.len();
        let mut order: Vec<usize> = (0..queries.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(queries[i].turns.len()));
        let mut load = vec![0usize; n];
        let mut share: Vec<Vec<usize>> = vec![Vec::new(); n];
        for i in order {
            let e = (0..n).min_by_key(|&e| load[e]).expect("invariant: at least one engine");
            load[e] += queries[i].turns.len();
            share[e].push(i);
        }
        let answers: Vec<anyhow::Result<Vec<Answer>>> = std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .engines
                .iter_mut()
                .zip(&share)
                .map(|(k, mine)| {
                    let qs: Vec<GameQuery> = mine.iter().map(|&i| queries[i].clone()).collect();
                    scope.spawn(move || if qs.is_empty() { Ok(Vec::new()) } else { k.read_turns(&qs, ask) })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err(anyhow::anyhow!("a KataGo reader panicked"))))
                .collect()
        });
        let mut out: Vec<Option<Answer>> = vec![None; queries.len()];
        for (mine, got) in share.iter().zip(answers) {
            for (&i, a) in mine.iter().zip(got?) {
                out[i] = Some(a);
            }
        }
        Ok(out.into_iter().map(|a| a.expect("invariant: every query answered")).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_top_skips_illegal_points_and_breaks_ties_by_index() {
        let mut p = vec![-1.0f32; NN + 1];
        p[72] = 0.5;
        p[60] = 0.2;
        p[300] = 0.2;
        p[PASS as usize] = 0.05;
        let top = policy_top(&p, 3);
        let idx: Vec<u16> = top.iter().map(|t| t.mv.index()).collect();
        assert_eq!(idx, vec![72, 60, 300]);
        assert_eq!(policy_top(&p, 8).len(), 4);
        assert_eq!(policy_top(&p, 8)[3].mv, Move::Pass);
    }

    /// An answer line of one visit with `root` as its rootInfo and `policy` as its policy.
    fn answer(root: Value, policy: Vec<Value>) -> Value {
        json!({"id": "0", "turnNumber": 3, "rootInfo": root, "policy": policy, "moveInfos": []})
    }

    #[test]
    fn a_root_value_left_out_is_none_not_a_number() {
        let ask = Ask { visits: 1, ownership: false, top: 8 };
        let policy = vec![json!(0.5); NN + 1];
        let full = json!({"winrate": 0.25, "scoreLead": -1.5, "scoreStdev": 9.0, "visits": 1});
        let r = reading(&answer(full, policy.clone()), &ask, "g (move 4)").unwrap();
        assert_eq!(
            (r.winrate_black, r.score_lead_black, r.score_stdev, r.visits),
            (Some(0.25), Some(-1.5), Some(9.0), Some(1))
        );
        let r = reading(&answer(json!({"winrate": 0.25}), policy), &ask, "g (move 4)").unwrap();
        assert_eq!((r.winrate_black, r.score_lead_black, r.score_stdev, r.visits), (Some(0.25), None, None, None));
    }

    #[test]
    fn a_policy_value_that_is_not_a_number_is_an_error_naming_the_game_and_move() {
        let ask = Ask { visits: 1, ownership: false, top: 8 };
        let mut policy = vec![json!(0.5); NN + 1];
        policy[40] = json!("x");
        let e = reading(&answer(json!({"winrate": 0.5}), policy), &ask, "a.sgf (game 0, move 4)").unwrap_err();
        let text = format!("{e:#}");
        assert!(text.contains("a.sgf (game 0, move 4)") && text.contains("at 40"), "{text}");
    }

    #[test]
    fn a_query_names_the_setup_the_moves_and_the_turns_in_gtp() {
        let q = GameQuery {
            name: "g".into(),
            rules: "chinese",
            komi: 7.3,
            setup: vec![(Color::Black, Point::new(3, 15).unwrap())],
            first_player: Color::White,
            moves: vec![(Color::White, Move::Play(Point::new(15, 3).unwrap())), (Color::Black, Move::Pass)],
            turns: vec![0, 2],
        };
        let v: Value = serde_json::from_str(&query_line(7, &q, &Ask { visits: 1, ownership: false, top: 8 })).unwrap();
        assert_eq!(v["id"], "7");
        assert_eq!(v["initialStones"], json!([["B", "Q16"]]));
        assert_eq!(v["moves"], json!([["W", "D4"], ["B", "pass"]]));
        assert_eq!(v["initialPlayer"], "W");
        assert_eq!(v["analyzeTurns"], json!([0, 2]));
        assert_eq!(v["komi"], 7.5);
        assert_eq!(v["rules"], "chinese");
        assert_eq!(v["includeOwnership"], false);
    }
}
