//! KataGo's analysis engine (`katago analysis`) as a child process: the ownership of
//! final positions, for `filter.score_check = "katago"` (docs/scoring.md, "KataGo as
//! the judge"). One engine serves a whole filter run; positions are sent in batches, two
//! queries each (Black to move, White to move), and the answers are read as they come
//! (the engine analyses several at once with its own threads, on whatever backend the
//! binary was built with: Eigen on a CPU, CUDA or OpenCL on a GPU).
//!
//! Every failure is an error that names the game: a binary, model or config that is
//! missing ([`KatagoSettings::check`]), an engine that does not start or refuses a query,
//! one that exits while games wait, and one that gives no answer within the timeout
//! (then it is killed).

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{anyhow, bail, Context};
use serde_json::{json, Value};

pub mod label;

use crate::coord::{Point, N, NN};
use crate::engine::{Board, Color};
use crate::scoring::{OwnershipMaps, RuleSet};

/// How to run the engine.
#[derive(Clone, Debug, PartialEq)]
pub struct KatagoSettings {
    /// The `katago` binary.
    pub binary: PathBuf,
    /// The network (`.bin.gz`).
    pub model: PathBuf,
    /// The analysis config (`analysis_config.cfg`).
    pub config: PathBuf,
    /// Visits per query (`maxVisits`).
    pub visits: u32,
    /// Positions analysed at once (`numAnalysisThreads`); `None`: the config's.
    pub threads: Option<u32>,
    /// Search threads per position (`numSearchThreads`); `None`: the config's.
    pub search_threads: Option<u32>,
    /// Visits of the judge's second reading (0: none; `filter.katago.recheck_visits`).
    pub recheck_visits: u32,
    /// The longest wait for any one answer before the engine counts as hung.
    pub timeout: Duration,
    /// The pipeline file's table of these settings (`filter.katago`, `label.katago`),
    /// as messages name it.
    pub section: &'static str,
}

/// One position to read: the game it comes from (named in errors), its final board, the
/// rules and komi it is counted under.
#[derive(Clone, Copy, Debug)]
pub struct Position<'a> {
    /// The game, as errors name it (file, member, index).
    pub game: &'a str,
    /// The final position.
    pub board: &'a Board,
    /// The counting rules.
    pub rules: RuleSet,
    /// Komi (rounded to a half point and kept within ±150 for the engine).
    pub komi: f32,
}

impl KatagoSettings {
    /// A setup check before anything is written: the binary, model and config exist and
    /// are files, and the visits are at least 1.
    pub fn check(&self) -> anyhow::Result<()> {
        let section = self.section;
        for (what, p) in [("binary", &self.binary), ("model", &self.model), ("config", &self.config)] {
            if !p.is_file() {
                bail!(
                    "{section}: the KataGo {what} {} is missing (set {section}.{what} or --katago-{what}; `make katago` \
                     builds KataGo and fetches a net and an analysis config)",
                    p.display()
                );
            }
        }
        if self.visits == 0 {
            bail!("{section}: visits must be at least 1");
        }
        Ok(())
    }
}

/// A running `katago analysis`.
pub struct Katago {
    settings: KatagoSettings,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    next_id: u64,
}

/// Lines of the engine's stderr kept for error messages.
const STDERR_LINES: usize = 12;

impl Katago {
    /// Starts the engine and waits for its answer to a one-visit query on an empty
    /// board, so that an engine that cannot run (a bad model, a bad config) is an error
    /// here, before the first game.
    pub fn start(settings: &KatagoSettings) -> anyhow::Result<Katago> {
        settings.check()?;
        let mut k = Katago::spawn(settings)?;
        let empty = Board::new();
        let probe =
            Position { game: "(a first query on an empty board)", board: &empty, rules: RuleSet::Japanese, komi: 6.5 };
        k.ownership(&[probe]).context("KataGo does not answer")?;
        Ok(k)
    }

    /// The settings given to `-override-config`: `nnRandomize=false` (the net reads each
    /// position as it stands, no random symmetry) and `wideRootNoise=0` (the analysis
    /// engine's default 0.04 draws random noise at the root of every search past one
    /// visit), so that a rerun gives the same answers; then the threads that are set.
    pub fn overrides(settings: &KatagoSettings) -> Vec<String> {
        let mut overrides = vec!["nnRandomize=false".to_string(), "wideRootNoise=0".to_string()];
        for (k, v) in [("numAnalysisThreads", settings.threads), ("numSearchThreads", settings.search_threads)] {
            if let Some(v) = v {
                overrides.push(format!("{k}={v}"));
            }
        }
        overrides
    }

    /// Starts the process, with no query yet.
    fn spawn(settings: &KatagoSettings) -> anyhow::Result<Katago> {
        let mut cmd = Command::new(&settings.binary);
        cmd.arg("analysis").arg("-config").arg(&settings.config).arg("-model").arg(&settings.model);
        cmd.arg("-override-config").arg(Katago::overrides(settings).join(","));
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("cannot start KataGo ({})", settings.binary.display()))?;
        let (tx, lines) = std::sync::mpsc::channel();
        let stdout = child.stdout.take().ok_or_else(|| anyhow!("KataGo: no stdout"))?;
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let err_pipe = child.stderr.take().ok_or_else(|| anyhow!("KataGo: no stderr"))?;
        let tail = Arc::clone(&stderr);
        std::thread::spawn(move || {
            for line in BufReader::new(err_pipe).lines() {
                let Ok(line) = line else { break };
                let mut t = tail.lock().unwrap_or_else(|e| e.into_inner());
                if t.len() == STDERR_LINES {
                    t.pop_front();
                }
                t.push_back(line);
            }
        });
        let stdin = child.stdin.take();
        Ok(Katago { settings: settings.clone(), child, stdin, lines, stderr, next_id: 0 })
    }

    /// Writes `text` (queries, one a line) to the engine; `waiting` names what the
    /// error will name.
    fn send(&mut self, text: &str, waiting: &str) -> anyhow::Result<()> {
        let stdin = self.stdin.as_mut().ok_or_else(|| anyhow!("KataGo's input is closed"))?;
        if let Err(e) = stdin.write_all(text.as_bytes()).and_then(|_| stdin.flush()) {
            return Err(self.died(waiting, &format!("cannot send the queries ({e})")));
        }
        Ok(())
    }

    /// The engine's next answer as JSON, waiting at most the timeout (then the engine is
    /// killed); `waiting` names the position the error will name.
    fn recv(&mut self, waiting: &str) -> anyhow::Result<Value> {
        let line = match self.lines.recv_timeout(self.settings.timeout) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                bail!(
                    "KataGo gave no answer in {} s while reading {waiting} (stopped; raise {}.timeout_s or lower the \
                     visits)",
                    self.settings.timeout.as_secs(),
                    self.settings.section
                );
            }
            Err(RecvTimeoutError::Disconnected) => return Err(self.died(waiting, "it exited")),
        };
        serde_json::from_str(&line)
            .map_err(|e| anyhow!("KataGo wrote a line that is not JSON while reading {waiting} ({e}): {line}"))
    }

    /// The two ownership maps of each position, in order. An error names the game it
    /// waited for; after one, this engine is not used again.
    pub fn ownership(&mut self, positions: &[Position<'_>]) -> anyhow::Result<Vec<OwnershipMaps>> {
        self.ownership_at(positions, self.settings.visits)
    }

    /// [`Katago::ownership`] at `visits` visits a query.
    pub fn ownership_at(&mut self, positions: &[Position<'_>], visits: u32) -> anyhow::Result<Vec<OwnershipMaps>> {
        let base = self.next_id;
        self.next_id += positions.len() as u64;
        let mut text = String::new();
        for (i, p) in positions.iter().enumerate() {
            for (s, to_move) in [Color::Black, Color::White].into_iter().enumerate() {
                text.push_str(&query(&format!("{}.{s}", base + i as u64), p, to_move, visits));
                text.push('\n');
            }
        }
        let first = positions.first().map_or("", |p| p.game);
        self.send(&text, first)?;
        // Each position's two maps (Black to move, White to move), as they come.
        let mut got: Vec<[Option<Box<[f32; NN]>>; 2]> = vec![[None, None]; positions.len()];
        let mut left = 2 * positions.len();
        while left > 0 {
            let waiting = got.iter().position(|g| g.iter().any(Option::is_none)).map_or(first, |i| positions[i].game);
            let v = self.recv(waiting)?;
            // Ids are "<n>.<side>", n counted over the engine's life.
            let at = v.get("id").and_then(Value::as_str).and_then(|id| id.split_once('.')).and_then(|(n, s)| {
                let i = n.parse::<u64>().ok()?.checked_sub(base)? as usize;
                Some((i, s.parse::<usize>().ok()?)).filter(|&(i, s)| i < positions.len() && s < 2)
            });
            if let Some(e) = v.get("error") {
                bail!("KataGo refused the query for {}: {e}", at.map_or(waiting, |(i, _)| positions[i].game));
            }
            let (Some((i, s)), Some(own)) = (at, v.get("ownership").and_then(Value::as_array)) else {
                continue; // a warning, or an answer to nothing of ours
            };
            let p = &positions[i];
            let (cols, rows) = p.board.size();
            if own.len() != cols * rows {
                bail!("KataGo's ownership for {} has {} values, not {}", p.game, own.len(), cols * rows);
            }
            let mut m = Box::new([0f32; NN]);
            for (k, o) in own.iter().enumerate() {
                m[(k / cols) * N + k % cols] = o.as_f64().unwrap_or(0.0) as f32;
            }
            if got[i][s].replace(m).is_none() {
                left -= 1;
            }
        }
        Ok(got
            .into_iter()
            .map(|[b, w]| OwnershipMaps {
                black_to_move: *b.unwrap_or_else(|| Box::new([0.0; NN])),
                white_to_move: *w.unwrap_or_else(|| Box::new([0.0; NN])),
            })
            .collect())
    }

    /// The error of an engine that stopped while `game` waited, with its exit status
    /// and the last lines it wrote to stderr.
    fn died(&mut self, game: &str, what: &str) -> anyhow::Error {
        let status = match self.child.try_wait() {
            Ok(Some(s)) => s.to_string(),
            _ => {
                std::thread::sleep(Duration::from_millis(200));
                self.child.try_wait().ok().flatten().map_or_else(|| "still running".to_string(), |s| s.to_string())
            }
        };
        let tail: Vec<String> = self.stderr.lock().unwrap_or_else(|e| e.into_inner()).iter().cloned().collect();
        anyhow!("KataGo stopped while reading {game}: {what} ({status}); its last words: {}", tail.join(" | "))
    }
}

impl Drop for Katago {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One analysis query: the final position as setup stones, `to_move` to play, the
/// ownership asked for and reported from Black's side whatever the config says.
fn query(id: &str, p: &Position<'_>, to_move: Color, visits: u32) -> String {
    let (cols, rows) = p.board.size();
    let mut stones = Vec::new();
    for i in 0..NN {
        let Some(at) = Point::from_index(i as u16) else { continue };
        if (at.row as usize) < rows && (at.col as usize) < cols {
            if let Some(c) = p.board.color_at(at) {
                stones.push(json!([if c == Color::Black { "B" } else { "W" }, at.to_gtp_on(rows)]));
            }
        }
    }
    let komi = if p.komi.is_finite() { ((p.komi * 2.0).round() / 2.0).clamp(-150.0, 150.0) } else { 0.0 };
    json!({
        "id": id,
        "initialStones": stones,
        "moves": [],
        "initialPlayer": if to_move == Color::Black { "B" } else { "W" },
        "rules": p.rules.as_str(),
        "komi": komi,
        "boardXSize": cols,
        "boardYSize": rows,
        "maxVisits": visits.max(1),
        "includeOwnership": true,
        "overrideSettings": {"reportAnalysisWinratesAs": "BLACK"},
    })
    .to_string()
}
