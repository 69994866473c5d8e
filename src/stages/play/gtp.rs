//! A GTP engine as a player (`gtp:CMD ARGS…`, and `katago:VISITS`): a child process spoken
//! to in the Go Text Protocol. The engine keeps its own board; before each `genmove` it is
//! told the moves it has not seen (`play`), and a refused answer is taken back (`undo`).
//! An engine that dies (or does not answer within the timeout) is restarted once and told
//! the whole game again; a second failure is the game's fault (`error`).

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};

use super::player::{Answer, Player, Reply, Seen};
use crate::coord::gtp_move;
use crate::scoring::RuleSet;

/// How to start an engine.
#[derive(Clone, Debug)]
pub struct GtpCommand {
    /// The program and its arguments.
    pub argv: Vec<String>,
    /// Where the engine's standard error goes (appended), so its messages are kept.
    pub stderr: Option<PathBuf>,
    /// How long one command may take.
    pub timeout: Duration,
}

/// A running engine: its input, and its output's lines as a reader thread sends them.
struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    commands: Vec<String>,
}

impl Engine {
    fn start(cmd: &GtpCommand) -> anyhow::Result<Engine> {
        let (prog, args) = cmd.argv.split_first().context("an empty GTP command")?;
        let stderr = match &cmd.stderr {
            Some(p) => Stdio::from(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(p)
                    .with_context(|| format!("{}: cannot open the engine's log", p.display()))?,
            ),
            None => Stdio::null(),
        };
        let mut child = Command::new(prog)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .with_context(|| format!("cannot start the GTP engine `{}`", cmd.argv.join(" ")))?;
        let stdin = child.stdin.take().context("no stdin")?;
        let stdout = child.stdout.take().context("no stdout")?;
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut e = Engine { child, stdin, lines, commands: Vec::new() };
        let list = e.send("list_commands", cmd.timeout)?.map_err(|m| anyhow::anyhow!("list_commands refused: {m}"))?;
        e.commands = list.lines().map(|l| l.trim().to_string()).collect();
        Ok(e)
    }

    /// Sends one command; `Ok(Ok(text))` for `=`, `Ok(Err(text))` for `?`, `Err` when the
    /// engine is gone or silent past `timeout`.
    fn send(&mut self, command: &str, timeout: Duration) -> anyhow::Result<Result<String, String>> {
        writeln!(self.stdin, "{command}").and_then(|_| self.stdin.flush()).context("the engine is gone")?;
        let deadline = Instant::now() + timeout;
        let mut text: Vec<String> = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(l) => l,
                Err(RecvTimeoutError::Timeout) => bail!("no answer to `{command}` in {} s", timeout.as_secs_f64()),
                Err(RecvTimeoutError::Disconnected) => bail!("the engine exited while answering `{command}`"),
            };
            let line = line.trim_end_matches('\r');
            if line.is_empty() {
                if text.is_empty() {
                    continue;
                }
                break;
            }
            text.push(line.to_string());
        }
        let all = text.join("\n");
        let (ok, rest) = match all.chars().next() {
            Some('=') => (true, &all[1..]),
            Some('?') => (false, &all[1..]),
            _ => bail!("`{command}`: not a GTP answer: {all:?}"),
        };
        // An id may follow the `=`; kibo sends none, so what follows is the answer.
        let rest = rest.trim().to_string();
        Ok(if ok { Ok(rest) } else { Err(rest) })
    }

    fn knows(&self, c: &str) -> bool {
        self.commands.iter().any(|k| k == c)
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit").and_then(|_| self.stdin.flush());
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A GTP engine playing one game.
pub struct GtpPlayer {
    cmd: GtpCommand,
    engine: Option<Engine>,
    /// Moves of the game the engine has on its board (the setup is sent with the first).
    sent: usize,
    /// Restarts so far (one is allowed).
    restarts: u32,
    /// The last `genmove` put a stone (or a pass) on the engine's board.
    played_last: bool,
}

impl GtpPlayer {
    /// Starts the engine.
    pub fn new(cmd: GtpCommand) -> anyhow::Result<GtpPlayer> {
        let engine = Some(Engine::start(&cmd)?);
        Ok(GtpPlayer { cmd, engine, sent: 0, restarts: 0, played_last: false })
    }

    /// One command that must succeed.
    fn must(e: &mut Engine, c: &str, timeout: Duration) -> anyhow::Result<String> {
        e.send(c, timeout)?.map_err(|m| anyhow::anyhow!("the engine refused `{c}`: {m}"))
    }

    /// Sets the game up (first call) and sends the moves the engine has not seen.
    fn sync(&mut self, seen: &Seen<'_>) -> anyhow::Result<()> {
        let t = self.cmd.timeout;
        let e = self.engine.as_mut().context("no engine")?;
        if self.sent == 0 {
            Self::must(e, "boardsize 19", t)?;
            Self::must(e, "clear_board", t)?;
            Self::must(e, &format!("komi {}", seen.komi), t)?;
            if e.knows("kata-set-rules") {
                let r = match seen.rules {
                    RuleSet::Chinese => "chinese",
                    RuleSet::Japanese => "japanese",
                    RuleSet::Korean => "korean",
                };
                Self::must(e, &format!("kata-set-rules {r}"), t)?;
            }
            if e.knows("set_random_seed") {
                Self::must(e, &format!("set_random_seed {}", seen.seed % (1 << 31)), t)?;
            }
            let black_only = seen.setup.iter().all(|s| s.0 == crate::color::Color::Black);
            if !seen.setup.is_empty() && black_only && e.knows("set_free_handicap") {
                // Handicap stones as a setup, not as moves (an engine's history stays empty).
                let pts: Vec<String> = seen.setup.iter().map(|s| s.1.to_gtp()).collect();
                Self::must(e, &format!("set_free_handicap {}", pts.join(" ")), t)?;
            } else {
                for (c, p) in seen.setup {
                    Self::must(e, &format!("play {} {}", c.as_str(), p.to_gtp()), t)?;
                }
            }
        }
        for (c, m) in &seen.moves[self.sent..] {
            Self::must(e, &format!("play {} {}", c.as_str(), m.to_gtp()), t)?;
        }
        self.sent = seen.moves.len();
        Ok(())
    }

    fn try_genmove(&mut self, seen: &Seen<'_>) -> anyhow::Result<Answer> {
        self.sync(seen)?;
        let e = self.engine.as_mut().context("no engine")?;
        let started = Instant::now();
        let raw = e.send(&format!("genmove {}", seen.to_move.as_str()), self.cmd.timeout)?;
        let seconds = started.elapsed().as_secs_f64();
        let (raw, reply) = match raw {
            Ok(t) => {
                let reply =
                    if t.eq_ignore_ascii_case("resign") { Some(Reply::Resign) } else { gtp_move(&t).map(Reply::Move) };
                // The engine played it on its own board.
                self.played_last = matches!(reply, Some(Reply::Move(_)));
                self.sent += usize::from(self.played_last);
                (t, reply)
            }
            Err(m) => {
                self.played_last = false;
                (format!("? {m}"), None)
            }
        };
        Ok(Answer { raw, reply, seconds })
    }
}

impl Player for GtpPlayer {
    fn genmove(&mut self, seen: &Seen<'_>) -> anyhow::Result<Answer> {
        match self.try_genmove(seen) {
            Ok(a) => Ok(a),
            Err(first) if self.restarts == 0 => {
                self.restarts += 1;
                self.engine = None;
                self.sent = 0;
                self.engine = Some(Engine::start(&self.cmd).with_context(|| format!("restarting after: {first:#}"))?);
                self.try_genmove(seen).with_context(|| {
                    format!("`{}` failed again after a restart (first: {first:#})", self.cmd.argv.join(" "))
                })
            }
            Err(e) => Err(e.context(format!("`{}` failed after its one restart", self.cmd.argv.join(" ")))),
        }
    }

    fn refused(&mut self) -> anyhow::Result<()> {
        // Only a move the engine played on its own board is taken back.
        let Some(e) = self.engine.as_mut() else { return Ok(()) };
        if self.played_last {
            let t = self.cmd.timeout;
            Self::must(e, "undo", t)?;
            self.sent -= 1;
            self.played_last = false;
        }
        Ok(())
    }

    fn finish(&mut self) {
        self.engine = None;
    }
}
