//! `DIR/match.json` (docs/match.md, "match.json"): per pair of players the first's wins,
//! losses and draws, overall and per colour, the margins, the Elo difference with its 95%
//! interval and LOS ([`super::elo`]); per player the invalid answers by kind and class and
//! the seconds a request; the SPRT where one ran. Made from the games' records alone, in
//! schedule order, so the same games give the same file.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::elo::{EloEstimate, Score, Sprt, SprtState};
use super::record::{GameRecordOut, InvalidKind};

/// The version of match.json's layout.
pub const MATCH_VERSION: u32 = 1;

/// Margins from the first player's side (points; above 0 it won).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Margins {
    /// Counted games.
    pub games: u64,
    pub median: Option<f64>,
    pub mean: Option<f64>,
}

/// One pair's figures, from `first`'s side.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairReport {
    pub first: String,
    pub second: String,
    /// Games with a result (errors left out).
    pub games: u64,
    pub score: Score,
    pub as_black: Score,
    pub as_white: Score,
    /// (W + D/2) / games.
    pub score_share: Option<f64>,
    pub elo: Option<EloEstimate>,
    pub los: Option<f64>,
    pub draw_ratio: Option<f64>,
    pub margins: Margins,
    /// Games by how they ended (`two_passes`, `max_moves`, `resign`, `invalid`, `error`).
    pub ends: BTreeMap<String, u64>,
    /// Counted games by who counted them (`kibo`, `katago`, `reference`).
    pub counted_by: BTreeMap<String, u64>,
    /// Counted games whose undecided points could change the winner (counted as the
    /// margin says, and listed here).
    pub winner_open: u64,
    pub errors: u64,
}

/// One player's conduct over the match.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PlayerReport {
    pub name: String,
    /// Requests answered (retries included).
    pub requests: u64,
    /// Mean seconds a request.
    pub seconds_per_request: Option<f64>,
    /// Invalid answers by kind (every kind listed, 0 included).
    pub invalid: BTreeMap<String, u64>,
    /// Invalid answers by `kibo eval`'s error class, where the intended move was known.
    pub invalid_classes: BTreeMap<String, u64>,
}

/// The SPRT's settings and where it stands.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtReport {
    #[serde(flatten)]
    pub test: Sprt,
    #[serde(flatten)]
    pub state: SprtState,
    /// Games the decision counts (the match stops after them).
    pub games: u64,
}

/// match.json.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchReport {
    pub version: u32,
    /// Games the schedule holds (before an SPRT stop).
    pub scheduled: u64,
    /// Games with a result.
    pub played: u64,
    /// Games that ended in an error (a rerun plays them again).
    pub errors: u64,
    pub pairs: Vec<PairReport>,
    pub players: Vec<PlayerReport>,
    pub sprt: Option<SprtReport>,
}

fn median(v: &mut [f64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 })
}

/// Adds game `r`'s result, from `first`'s side, to `s`.
fn add(s: &mut Score, r: &GameRecordOut, first: &str) {
    let first_colour = if r.black == first { "B" } else { "W" };
    match r.winner.as_deref() {
        None => s.draws += 1,
        Some(w) if w == first_colour => s.wins += 1,
        Some(_) => s.losses += 1,
    }
}

fn bump(m: &mut BTreeMap<String, u64>, k: &str) {
    *m.entry(k.to_string()).or_insert(0) += 1;
}

/// `pair`'s figures from the games `recs` (all of that pair), `first` and `second` its
/// players.
pub fn pair(first: &str, second: &str, recs: &[&GameRecordOut]) -> PairReport {
    let (mut score, mut as_black, mut as_white) = (Score::default(), Score::default(), Score::default());
    let (mut ends, mut counted_by) = (BTreeMap::new(), BTreeMap::new());
    let (mut margins, mut winner_open, mut errors) = (Vec::new(), 0, 0);
    for r in recs {
        bump(&mut ends, r.end.name());
        if r.error.is_some() {
            errors += 1;
            continue;
        }
        let first_black = r.black == first;
        add(&mut score, r, first);
        add(if first_black { &mut as_black } else { &mut as_white }, r, first);
        if let Some(c) = &r.count {
            bump(&mut counted_by, c.by.name());
            margins.push(if first_black { c.margin as f64 } else { -c.margin as f64 });
            winner_open += u64::from(c.winner_open);
        }
    }
    let games = score.games();
    let mean = (!margins.is_empty()).then(|| margins.iter().sum::<f64>() / margins.len() as f64);
    PairReport {
        first: first.to_string(),
        second: second.to_string(),
        games,
        score,
        as_black,
        as_white,
        score_share: score.score(),
        elo: score.elo(),
        los: (score.wins + score.losses > 0).then(|| score.los()),
        draw_ratio: score.draw_ratio(),
        margins: Margins { games: margins.len() as u64, mean, median: median(&mut margins) },
        ends,
        counted_by,
        winner_open,
        errors,
    }
}

/// `name`'s conduct over the games `recs`.
pub fn player(name: &str, recs: &[GameRecordOut]) -> PlayerReport {
    let mut p = PlayerReport { name: name.to_string(), ..Default::default() };
    for k in InvalidKind::ALL {
        p.invalid.insert(k.name().to_string(), 0);
    }
    let mut seconds = 0.0;
    for r in recs {
        for (i, (who, colour)) in [(&r.black, "B"), (&r.white, "W")].into_iter().enumerate() {
            if who != name {
                continue;
            }
            p.requests += u64::from(r.requests[i]);
            seconds += r.seconds[i];
            for v in r.invalid.iter().filter(|v| v.color == colour) {
                bump(&mut p.invalid, v.kind.name());
                if let Some(c) = &v.class {
                    bump(&mut p.invalid_classes, c);
                }
            }
        }
    }
    p.seconds_per_request = (p.requests > 0).then(|| seconds / p.requests as f64);
    p
}

/// The SPRT over the games of the match's one pair, in schedule order: the first prefix
/// at which H0 or H1 is accepted (the games it counts and the state), else the state
/// after all of them. `recs` in schedule order; error games are skipped.
pub fn sprt_prefix(test: &Sprt, first: &str, recs: &[&GameRecordOut]) -> SprtReport {
    let mut s = Score::default();
    let mut state = test.state(&s);
    let mut games = 0;
    for r in recs {
        if r.error.is_some() {
            continue;
        }
        add(&mut s, r, first);
        games += 1;
        state = test.state(&s);
        if state.decision != super::elo::SprtDecision::Continue {
            break;
        }
    }
    SprtReport { test: *test, state, games }
}
