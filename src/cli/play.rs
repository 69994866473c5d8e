//! `kibo match`: players against each other, every game counted and kept, the strength
//! with its interval (docs/match.md).

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};

use super::args::{Board, KatagoJudgeArgs};
use super::exit::Exit;
use crate::error::SetupError;
use crate::scoring::RuleSet;
use crate::stages::play::count::CountRules;
use crate::stages::play::elo::Sprt;
use crate::stages::play::game::{GameSettings, OnInvalid, Resign};
use crate::stages::play::openai::{OpenaiOptions, Picture};
use crate::stages::play::players::{PlayerDef, PlayerEnv};
use crate::stages::play::run::{self, MatchOptions};

#[derive(Args, Debug)]
pub(super) struct MatchArgs {
    /// The match's folder: games/*.sgf, records/, log/, match.json. A rerun into it plays
    /// only the games it lacks (the same settings, or it is refused).
    #[arg(long)]
    to: PathBuf,
    /// A player, NAME=SPEC (at least two): gtp:CMD ARGS… (any GTP engine), katago:VISITS
    /// (`make katago`'s engine and net), random. Every player meets every later one.
    #[arg(long = "player", required = true)]
    players: Vec<PlayerDef>,
    /// Games a pair (colours alternate: each opening is played from both sides).
    #[arg(long, default_value_t = 2)]
    games: u64,
    /// Seed of the schedule: openings, colours, each game's seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Games at once (each with its own engine processes).
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// Komi given to White.
    #[arg(long, default_value_t = 7.5)]
    komi: f32,
    /// The counting rules.
    #[arg(long, value_enum, default_value = "chinese")]
    rules: Rules,
    /// Handicap stones (2–9, fixed places; White moves first).
    #[arg(long, default_value_t = 0)]
    handicap: u32,
    /// Stop a game at this many moves (the opening's included) and count it as it stands.
    #[arg(long)]
    max_moves: Option<u32>,
    /// Requests again after an invalid answer (unreadable, occupied, ko, superko, suicide).
    #[arg(long, default_value_t = 2)]
    retries: u32,
    /// Once a move's answers are all invalid: the move is a pass, or the game is lost.
    #[arg(long, value_enum, default_value = "pass")]
    on_invalid: Invalid,
    /// Seconds one answer may take before the player counts as failed.
    #[arg(long, default_value_t = 300.0)]
    timeout: f64,
    /// Stop when the SPRT decides: elo0=E0 elo1=E1 alpha=A beta=B (two players only).
    #[arg(long, num_args = 4, value_names = ["elo0=E0", "elo1=E1", "alpha=A", "beta=B"])]
    sprt: Vec<String>,
    /// A kibo output folder whose test split gives the openings (with --opening-moves).
    #[arg(long, requires = "opening_moves")]
    openings: Option<PathBuf>,
    /// Moves of each opening.
    #[arg(long, requires = "openings")]
    opening_moves: Option<usize>,
    /// Who counts a game stopped at --max-moves: katago (KataGo's ownership, kibo
    /// counting), reference (as it stands: territory and captures, no dead stones), or
    /// auto: katago when `make katago`'s engine and net are there.
    #[arg(long, value_enum, default_value = "auto")]
    count_stopped: CountStopped,
    /// Adjudicate: a side whose winrate (KataGo's analysis after each move, at
    /// --katago-visits) stays under this for --resign-moves moves in a row loses (`B+R`/`W+R`).
    #[arg(long)]
    resign_below: Option<f32>,
    /// Moves in a row under --resign-below.
    #[arg(long, default_value_t = 6, requires = "resign_below")]
    resign_moves: u32,
    /// `openai:` players: the `model` sent (a spec's `model=` overrides it).
    #[arg(long, default_value = "")]
    model: String,
    /// `openai:` players: the environment variable holding the API key (sent as a Bearer
    /// token when set).
    /// [default: OPENAI_API_KEY]
    #[arg(long)]
    api_key_env: Option<String>,
    /// `openai:` players: the picture and prompt of this VLM set's vlm.json (`kibo export
    /// vlm --to SET`), so a model is shown what it was trained or evaluated on; else the
    /// export's defaults.
    #[arg(long)]
    vlm_set: Option<PathBuf>,
    /// `openai:` players: how the board is shown, as `kibo export vlm --board` (picture,
    /// text, both); overrides --vlm-set's.
    #[arg(long, value_enum)]
    board: Option<Board>,
    /// `openai:` players: a JSON file of every option (docs/match.md, "openai:"); the flags
    /// above override it.
    #[arg(long)]
    openai_options: Option<PathBuf>,
    /// `openai:` players: tries after a failed request (refused, timed out, 4xx/5xx), with
    /// a backoff doubling from 1 s.
    #[arg(long)]
    http_retries: Option<u32>,
    #[command(flatten)]
    katago: KatagoJudgeArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Rules {
    Chinese,
    Japanese,
    Korean,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Invalid {
    Pass,
    Lose,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum CountStopped {
    Auto,
    Katago,
    Reference,
}

/// `elo0=… elo1=… alpha=… beta=…`.
fn parse_sprt(v: &[String]) -> anyhow::Result<Option<Sprt>> {
    if v.is_empty() {
        return Ok(None);
    }
    let mut t = Sprt { elo0: f64::NAN, elo1: f64::NAN, alpha: f64::NAN, beta: f64::NAN };
    for kv in v {
        let bad = || SetupError(format!("--sprt {kv:?}: expected elo0=, elo1=, alpha= or beta= and a number"));
        let (k, x) = kv.split_once('=').ok_or_else(bad)?;
        let x: f64 = x.parse().map_err(|_| bad())?;
        match k {
            "elo0" => t.elo0 = x,
            "elo1" => t.elo1 = x,
            "alpha" => t.alpha = x,
            "beta" => t.beta = x,
            _ => return Err(bad().into()),
        }
    }
    let ok = [t.elo0, t.elo1].iter().all(|e| e.is_finite())
        && t.elo0 < t.elo1
        && [t.alpha, t.beta].iter().all(|p| *p > 0.0 && *p < 0.5);
    if !ok {
        return crate::error::setup("--sprt: give elo0 < elo1, and alpha and beta in (0, 0.5)");
    }
    Ok(Some(t))
}

/// The `openai:` players' options: the JSON file, then the flags.
fn openai(a: &MatchArgs) -> anyhow::Result<OpenaiOptions> {
    let mut o = match &a.openai_options {
        Some(p) => {
            let text = std::fs::read(p).map_err(|e| SetupError(format!("{}: {e}", p.display())))?;
            serde_json::from_slice(&text).map_err(|e| SetupError(format!("{}: {e}", p.display())))?
        }
        None => OpenaiOptions::default(),
    };
    if !a.model.is_empty() {
        o.model.clone_from(&a.model);
    }
    if let Some(v) = &a.api_key_env {
        o.api_key_env.clone_from(v);
    }
    o.timeout_s = a.timeout;
    if let Some(r) = a.http_retries {
        o.retries = r;
    }
    if let Some(set) = &a.vlm_set {
        o.picture = Picture::from_set(set)?;
    }
    if let Some(b) = a.board {
        o.picture.board = b.into();
    }
    o.check().map_err(SetupError)?;
    Ok(o)
}

/// The match's options from the flags; every problem is a setup error, found before a game.
fn options(a: &MatchArgs) -> anyhow::Result<MatchOptions> {
    if a.players.len() < 2 {
        return crate::error::setup("kibo match needs two --player or more");
    }
    let mut names: Vec<&str> = a.players.iter().map(|p| p.name.as_str()).collect();
    names.sort_unstable();
    if names.windows(2).any(|w| w[0] == w[1]) {
        return crate::error::setup("two players have the same name");
    }
    let sprt = parse_sprt(&a.sprt)?;
    if sprt.is_some() && a.players.len() != 2 {
        return crate::error::setup("--sprt needs exactly two players");
    }
    if a.games == 0
        || a.concurrency == 0
        || a.timeout.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater)
        || a.handicap == 1
        || a.handicap > 9
    {
        return crate::error::setup("--games and --concurrency at least 1, --timeout above 0, --handicap 0 or 2–9");
    }
    let mut k = crate::config::KatagoConfig::default();
    a.katago.apply_to(&mut k);
    let katago = k.settings_in("match");
    let need = |flag: &str| katago.check().map_err(|e| SetupError(format!("{flag}: {e:#}")));
    let stopped_by_katago = match a.count_stopped {
        CountStopped::Reference => false,
        CountStopped::Katago => need("--count-stopped katago").map(|_| true)?,
        CountStopped::Auto => katago.check().is_ok(),
    };
    let resign = match a.resign_below {
        Some(below) if below > 0.0 && below < 0.5 && a.resign_moves > 0 => {
            need("--resign-below")?;
            Some(Resign { below, moves: a.resign_moves })
        }
        Some(_) => return crate::error::setup("--resign-below takes a winrate in (0, 0.5), --resign-moves at least 1"),
        None => None,
    };
    let judge = (stopped_by_katago || resign.is_some()).then(|| katago.clone());
    let openings = match (&a.openings, a.opening_moves) {
        (Some(out), Some(k)) => crate::stages::play::openings::from_test_split(out, k)?,
        _ => Vec::new(),
    };
    let rules = match a.rules {
        Rules::Chinese => RuleSet::Chinese,
        Rules::Japanese => RuleSet::Japanese,
        Rules::Korean => RuleSet::Korean,
    };
    let settings = GameSettings {
        count: CountRules { rules, komi: a.komi, handicap: a.handicap },
        max_moves: a.max_moves,
        retries: a.retries,
        on_invalid: if a.on_invalid == Invalid::Lose { OnInvalid::Lose } else { OnInvalid::Pass },
        stopped_by_katago,
        resign,
    };
    let env = PlayerEnv {
        timeout: Duration::from_secs_f64(a.timeout),
        log_dir: a.to.join("log"),
        katago,
        openai: openai(a)?,
    };
    Ok(MatchOptions {
        dir: a.to.clone(),
        players: a.players.clone(),
        games: a.games,
        seed: a.seed,
        concurrency: a.concurrency,
        settings,
        sprt,
        openings,
        judge,
        env,
        quiet: false,
    })
}

/// `kibo match`: exit 0 when every game has a result, 3 when some ended in an error (a
/// rerun plays them again), 2 for a usage or setup problem.
pub(super) fn exec(a: MatchArgs) -> anyhow::Result<i32> {
    let o = options(&a)?;
    let rep = run::run(&o)?;
    for p in &rep.pairs {
        println!(
            "Score of {} vs {}: {} - {} - {}  [{}] {}",
            p.first,
            p.second,
            p.score.wins,
            p.score.losses,
            p.score.draws,
            p.score_share.map_or("-".into(), |s| format!("{s:.3}")),
            p.games
        );
        let elo = p.elo.map_or("-".into(), |e| match e.margin {
            Some(m) => format!("{:.1} +/- {m:.1}", e.diff),
            None => format!("{:.1} (an interval end unbounded)", e.diff),
        });
        let pct = |x: Option<f64>| x.map_or("-".into(), |x| format!("{:.1} %", 100.0 * x));
        println!("Elo difference: {elo}, LOS: {}, DrawRatio: {}", pct(p.los), pct(p.draw_ratio));
    }
    if let Some(s) = &rep.sprt {
        println!(
            "SPRT: llr {:.3}, lbound {:.3}, ubound {:.3}: {:?} after {} games",
            s.state.llr, s.state.lower, s.state.upper, s.state.decision, s.games
        );
    }
    println!("{} games with a result, {} errors: {}", rep.played, rep.errors, o.dir.join("match.json").display());
    if rep.errors > 0 {
        eprintln!(
            "kibo match: {} of {} games ended in an error (see match.json; a rerun plays them again)",
            rep.errors,
            rep.played + rep.errors
        );
        return Ok(Exit::Failed as i32);
    }
    Ok(Exit::Ok as i32)
}
