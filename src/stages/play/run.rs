//! The match (docs/match.md): the schedule fixed by `--seed` (pairs, openings, colours,
//! each game's seed), K games at once, each finished game committed atomically
//! (`games/NNNNN.sgf`, then `records/NNNNN.json`), a rerun playing only the games with no
//! record (or an `error` one), the SPRT stopping at the first game of the schedule where it
//! decides, and `match.json` made from the records in schedule order, so that an
//! interrupted match finished by a rerun equals an uninterrupted one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::count::KatagoJudge;
use super::elo::{Sprt, SprtDecision};
use super::game::{self, Fixture, GameSettings, OnInvalid, Opening};
use super::players::{self, PlayerDef, PlayerEnv};
use super::record::{self, End, GameRecordOut, SgfGame};
use super::report::{self, MatchReport, MATCH_VERSION};
use crate::engine::zobrist::splitmix64;
use crate::storage::write_file_atomic;

/// Everything a match is run with.
pub struct MatchOptions {
    /// The match's folder (`--to`).
    pub dir: PathBuf,
    pub players: Vec<PlayerDef>,
    /// Games a pair.
    pub games: u64,
    pub seed: u64,
    /// Games at once.
    pub concurrency: usize,
    pub settings: GameSettings,
    pub sprt: Option<Sprt>,
    /// The openings drawn from (empty: every game from the empty board).
    pub openings: Vec<Opening>,
    /// KataGo's analysis engine, for counting stopped games and adjudicating
    /// (`settings.stopped_by_katago`, `settings.resign`); `None` when neither uses it.
    pub judge: Option<crate::analysis::KatagoSettings>,
    pub env: PlayerEnv,
    pub quiet: bool,
}

/// What fixes a match's games: a rerun into the same folder must give the same, or it is
/// refused (`DIR/match-settings.json`).
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Fixed {
    version: u32,
    players: Vec<PlayerDef>,
    games: u64,
    seed: u64,
    komi: f32,
    rules: String,
    handicap: u32,
    max_moves: Option<u32>,
    retries: u32,
    on_invalid: OnInvalid,
    openings: Vec<Option<String>>,
    sprt: Option<Sprt>,
    stopped_counted_by: &'static str,
    resign: Option<game::Resign>,
    /// The `openai:` players' options, where there are such players.
    openai: Option<super::openai::OpenaiOptions>,
}

impl Fixed {
    fn of(o: &MatchOptions) -> Fixed {
        Fixed {
            version: MATCH_VERSION,
            players: o.players.clone(),
            games: o.games,
            seed: o.seed,
            komi: o.settings.count.komi,
            rules: o.settings.count.rules.as_str().to_string(),
            handicap: o.settings.count.handicap,
            max_moves: o.settings.max_moves,
            retries: o.settings.retries,
            on_invalid: o.settings.on_invalid,
            openings: o.openings.iter().map(|op| op.id.clone()).collect(),
            sprt: o.sprt,
            stopped_counted_by: if o.settings.stopped_by_katago { "katago" } else { "reference" },
            resign: o.settings.resign,
            openai: o
                .players
                .iter()
                .any(|p| matches!(p.spec, players::Spec::Openai { .. }))
                .then(|| o.env.openai.clone()),
        }
    }
}

/// The pairs of players, in order: every player against every later one.
pub fn pairs(n: usize) -> Vec<(usize, usize)> {
    (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))).collect()
}

/// Game `g` of the schedule: its pair, colours (the pair's first is Black in even games,
/// White in odd ones: each opening played from both sides), seed and opening.
pub fn fixture(o: &MatchOptions, g: u64) -> (Fixture, [usize; 2], &Opening) {
    static EMPTY: Opening = Opening { id: None, moves: Vec::new() };
    let pair_list = pairs(o.players.len());
    let pair = (g / o.games) as usize;
    let k = g % o.games;
    let (a, b) = pair_list[pair];
    let sides = if k.is_multiple_of(2) { [a, b] } else { [b, a] };
    let seed = splitmix64(o.seed ^ (g + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)).1;
    let opening = if o.openings.is_empty() {
        &EMPTY
    } else {
        let pick = splitmix64(o.seed ^ 0x6f70_656e ^ (k / 2 + 1).wrapping_mul(0xbf58_476d_1ce4_e5b9)).1;
        &o.openings[(pick % o.openings.len() as u64) as usize]
    };
    let names = [o.players[sides[0]].name.clone(), o.players[sides[1]].name.clone()];
    (Fixture { game: g, pair, seed, names }, sides, opening)
}

fn record_path(dir: &Path, g: u64) -> PathBuf {
    dir.join("records").join(format!("{g:05}.json"))
}

fn sgf_path(dir: &Path, g: u64) -> PathBuf {
    dir.join("games").join(format!("{g:05}.sgf"))
}

/// The records already committed (a record that cannot be read is played again).
fn committed(dir: &Path, total: u64) -> BTreeMap<u64, GameRecordOut> {
    (0..total)
        .filter_map(|g| {
            let text = std::fs::read(record_path(dir, g)).ok()?;
            serde_json::from_slice::<GameRecordOut>(&text).ok().map(|r| (g, r))
        })
        .collect()
}

/// Creates the folder, refuses one holding a match of other settings, removes what a
/// killed run left half-written.
fn prepare(o: &MatchOptions) -> anyhow::Result<()> {
    for sub in ["games", "records", "log"] {
        let d = o.dir.join(sub);
        std::fs::create_dir_all(&d).with_context(|| format!("{}: cannot create it", d.display()))?;
        for e in std::fs::read_dir(&d).with_context(|| format!("{}", d.display()))?.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') && name.ends_with(".tmp") {
                std::fs::remove_file(e.path()).with_context(|| format!("{}", e.path().display()))?;
            }
        }
    }
    let fixed = Fixed::of(o);
    let path = o.dir.join("match-settings.json");
    if let Ok(text) = std::fs::read(&path) {
        let old: serde_json::Value = serde_json::from_slice(&text).with_context(|| format!("{}", path.display()))?;
        if old != serde_json::to_value(&fixed)? {
            return crate::error::setup(format!(
                "{} holds a match with other settings ({}); give another --to, or the same settings to finish it",
                o.dir.display(),
                path.display()
            ));
        }
        return Ok(());
    }
    let text = serde_json::to_vec_pretty(&fixed)?;
    write_file_atomic(&path, |f| std::io::Write::write_all(f, &text)).with_context(|| format!("{}", path.display()))
}

/// Plays game `g` and commits it.
fn play_one(o: &MatchOptions, g: u64, judge: Option<&KatagoJudge>) -> anyhow::Result<GameRecordOut> {
    let (f, sides, opening) = fixture(o, g);
    let make = |i: usize| players::make(&o.players[i], &o.env);
    let played = match (make(sides[0]), make(sides[1])) {
        (Ok(mut b), Ok(mut w)) => game::play([b.as_mut(), w.as_mut()], opening, &f, &o.settings, judge)?,
        (Err(e), _) | (_, Err(e)) => {
            // A player that cannot even start: the game is an error, as a fault in play.
            game::play_failed(opening, &f, &o.settings, format!("{e:#}"))?
        }
    };
    let rec = played.record;
    if rec.end != End::Error {
        let text = record::sgf(&SgfGame {
            record: &rec,
            setup: &played.setup,
            moves: &played.moves,
            komi: o.settings.count.komi,
            handicap: o.settings.count.handicap,
            rules: o.settings.count.rules.as_str(),
        });
        let p = sgf_path(&o.dir, g);
        write_file_atomic(&p, |f| std::io::Write::write_all(f, text.as_bytes()))
            .with_context(|| format!("{}", p.display()))?;
    }
    let json = serde_json::to_vec_pretty(&rec)?;
    let p = record_path(&o.dir, g);
    write_file_atomic(&p, |f| std::io::Write::write_all(f, &json)).with_context(|| format!("{}", p.display()))?;
    Ok(rec)
}

/// The schedule's end after the SPRT: one past the game at which it decided over the
/// committed prefix, else the whole schedule.
fn sprt_end(o: &MatchOptions, done: &BTreeMap<u64, GameRecordOut>, total: u64) -> u64 {
    let Some(test) = &o.sprt else { return total };
    let prefix: Vec<&GameRecordOut> = (0..total).map_while(|g| done.get(&g)).collect();
    let r = report::sprt_prefix(test, &o.players[0].name, &prefix);
    if r.state.decision == SprtDecision::Continue {
        return total;
    }
    // The decision came at the r.games-th game with a result.
    let mut with_result = 0;
    for (i, rec) in prefix.iter().enumerate() {
        with_result += u64::from(rec.error.is_none());
        if with_result == r.games {
            return i as u64 + 1;
        }
    }
    total
}

/// Runs (or finishes) the match and writes `match.json`.
pub fn run(o: &MatchOptions) -> anyhow::Result<MatchReport> {
    for p in &o.players {
        players::check(p, &o.env)?;
    }
    prepare(o)?;
    let total = pairs(o.players.len()).len() as u64 * o.games;
    let found = committed(&o.dir, total);
    let todo: Vec<u64> = (0..total).filter(|g| found.get(g).is_none_or(|r| r.end == End::Error)).collect();
    let end = AtomicU64::new(sprt_end(o, &found, total));
    let done = Mutex::new(found);
    let judge = o.judge.clone().map(KatagoJudge::new);
    let progress = crate::progress::Progress::new("match", "games", Some(todo.len() as u64), o.quiet);
    let next = AtomicUsize::new(0);
    let played_now = AtomicU64::new(0);
    let started = Instant::now();
    let failures: Mutex<Vec<anyhow::Error>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..o.concurrency.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(&g) = todo.get(i) else { break };
                if g >= end.load(Ordering::SeqCst) {
                    continue;
                }
                match play_one(o, g, judge.as_ref()) {
                    Ok(rec) => {
                        let Ok(mut d) = done.lock() else { break };
                        d.insert(g, rec);
                        end.fetch_min(sprt_end(o, &d, total), Ordering::SeqCst);
                        let now = played_now.fetch_add(1, Ordering::SeqCst) + 1;
                        progress.message(progress_line(o, &d, now, started));
                    }
                    Err(e) => {
                        if let Ok(mut f) = failures.lock() {
                            f.push(e.context(format!("game {g}")));
                        }
                        break;
                    }
                }
                progress.add(1);
            });
        }
    });
    progress.finish();
    if let Some(e) = failures.into_inner().map_err(|_| anyhow::anyhow!("poisoned"))?.into_iter().next() {
        return Err(e);
    }
    let done = done.into_inner().map_err(|_| anyhow::anyhow!("poisoned"))?;
    let end = end.load(Ordering::SeqCst);
    // Games past the SPRT's decision are not part of the match, whenever they finished.
    for g in end..total {
        for p in [record_path(&o.dir, g), sgf_path(&o.dir, g)] {
            if p.exists() {
                std::fs::remove_file(&p).with_context(|| format!("{}", p.display()))?;
            }
        }
    }
    let recs: Vec<GameRecordOut> = done.into_values().filter(|r| r.game < end).collect();
    let rep = build_report(o, &recs, total);
    let json = serde_json::to_vec_pretty(&rep)?;
    let p = o.dir.join("match.json");
    write_file_atomic(&p, |f| std::io::Write::write_all(f, &json)).with_context(|| format!("{}", p.display()))?;
    super::html::write(&o.dir, &rep, &recs)?;
    Ok(rep)
}

/// match.json from the records (schedule order).
pub fn build_report(o: &MatchOptions, recs: &[GameRecordOut], total: u64) -> MatchReport {
    let pair_reports = pairs(o.players.len())
        .into_iter()
        .enumerate()
        .map(|(k, (a, b))| {
            let mine: Vec<&GameRecordOut> = recs.iter().filter(|r| r.pair == k).collect();
            report::pair(&o.players[a].name, &o.players[b].name, &mine)
        })
        .collect();
    let sprt = o.sprt.as_ref().map(|t| {
        let all: Vec<&GameRecordOut> = recs.iter().collect();
        report::sprt_prefix(t, &o.players[0].name, &all)
    });
    let errors = recs.iter().filter(|r| r.end == End::Error).count() as u64;
    MatchReport {
        version: MATCH_VERSION,
        scheduled: total,
        played: recs.len() as u64 - errors,
        errors,
        pairs: pair_reports,
        players: o.players.iter().map(|p| report::player(&p.name, recs)).collect(),
        sprt,
    }
}

/// The bar's message: games an hour (those this run played), and the first pair's score
/// (every game committed).
fn progress_line(o: &MatchOptions, d: &BTreeMap<u64, GameRecordOut>, played_now: u64, started: Instant) -> String {
    let hours = started.elapsed().as_secs_f64() / 3600.0;
    let first: Vec<&GameRecordOut> = d.values().filter(|r| r.pair == 0).collect();
    let p = report::pair(&o.players[0].name, &o.players[1].name, &first);
    format!(
        "{:.0} games/h  {} {}-{}-{} {}",
        played_now as f64 / hours.max(1e-9),
        p.first,
        p.score.wins,
        p.score.losses,
        p.score.draws,
        p.second
    )
}
