/*!
The `openai:URL` player of `kibo match` (docs/match-openai.md): a vision-language model
behind an OpenAI-compatible chat-completions endpoint (vLLM, SGLang, llama.cpp's server,
ms-swift deploy, LMDeploy, LLaMA-Factory's api).

Each [`Player::genmove`] draws the position exactly as `kibo export vlm` draws a
next-move row ([`export::vlm::make_row`] on a [`SourceRow`] made from the [`Seen`],
symmetry 0), sends it as one user turn (the picture as a base64 `data:` URL, then the
prompt; the system text first when the templates have one) with `temperature: 0`, a seed
and `max_tokens`, and reads `choices[0].message.content` with `kibo eval`'s parser
([`parse_move`], plus `resign`). A refused connection, a timeout, an HTTP 4xx/5xx or a body
without a message is tried again after `backoff_s`, 2·`backoff_s`, 4·`backoff_s`, … and,
after the last try, is the player's `Err` (the game is `error`). Every request is logged,
one JSON line each, in `LOG/game-NNNNN.jsonl` ([`LogLine`]).
*/

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;
use base64::Engine as _;
use serde_json::json;

use super::player::{Answer, Player, Reply, Seen};
use crate::coord::NN;
use crate::samples::HISTORY;
use crate::stages::eval::parse::{is_resign, parse_move};
use crate::stages::export::vlm::{self, BoardMode, Notation, SourceRow, Templates, VlmOptions, VlmRow};
use crate::verify::{BoardPainter, Style};

/// How the position is drawn and asked: `kibo export vlm`'s options that a next-move row
/// depends on (docs/vlm.md). The defaults are the export's.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Picture {
    /// Pixels between two grid lines (`--cell-px`).
    pub cell_px: u32,
    /// The picture, the text board, or both (`--board`); written in `match.json` only when
    /// not the picture, so a picture match's file is as before.
    #[serde(skip_serializing_if = "BoardMode::is_picture")]
    pub board: BoardMode,
    /// How the prompt writes points and the answer is read (`--answer`).
    pub notation: Notation,
    /// Earlier moves the prompt lists (`--last-moves`).
    pub last_moves: usize,
    /// Ring the previous move's stone.
    pub last_move_marker: bool,
    /// Square the ko point.
    pub ko_marker: bool,
    /// The prompt templates (the system text and `next_move` are used).
    pub templates: Templates,
}

impl Default for Picture {
    fn default() -> Picture {
        Picture::from(&VlmOptions::default())
    }
}

impl From<&VlmOptions> for Picture {
    fn from(o: &VlmOptions) -> Picture {
        Picture {
            cell_px: o.cell_px,
            board: o.board,
            notation: o.notation,
            last_moves: o.last_moves,
            last_move_marker: o.last_move_marker,
            ko_marker: o.ko_marker,
            templates: o.templates.clone(),
        }
    }
}

impl Picture {
    /// The picture options a VLM set was exported with (its `vlm.json`, read by
    /// [`crate::stages::eval::set::vlm_options`]).
    pub fn from_set(dest: &Path) -> anyhow::Result<Picture> {
        Ok(Picture::from(&crate::stages::eval::set::vlm_options(dest)?))
    }

    /// The export options that draw these pictures: next-move rows alone, as pictured
    /// (symmetry 0), checked as the export checks them.
    pub fn vlm_options(&self) -> anyhow::Result<VlmOptions> {
        let o = VlmOptions {
            cell_px: self.cell_px,
            board: self.board,
            notation: self.notation,
            last_moves: self.last_moves,
            last_move_marker: self.last_move_marker,
            ko_marker: self.ko_marker,
            templates: self.templates.clone(),
            ..VlmOptions::default()
        };
        o.check().map_err(crate::error::SetupError)?;
        Ok(o)
    }
}

/// Options of an `openai:URL` player (`kibo match --model …`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OpenaiOptions {
    /// The `model` sent (`--model`; a server serving one model may ignore it).
    pub model: String,
    /// The environment variable holding the API key, sent as `Authorization: Bearer`
    /// when it is set and not empty.
    pub api_key_env: String,
    /// Seconds one request may take, connection included (`--timeout`).
    pub timeout_s: f64,
    /// Tries after the first one fails (refused, timed out, 4xx/5xx, no message).
    pub retries: u32,
    /// Seconds before the first retry; each further one waits twice the one before.
    pub backoff_s: f64,
    /// `max_tokens` sent.
    pub max_tokens: u32,
    /// The `seed` sent; `None`: the game's seed (from the match's `--seed`).
    pub seed: Option<u64>,
    /// Save every picture sent as `LOG/png/<blake3>.png`, not only those of refused answers.
    pub save_pictures: bool,
    /// How the position is drawn and asked.
    pub picture: Picture,
}

impl Default for OpenaiOptions {
    fn default() -> OpenaiOptions {
        OpenaiOptions {
            model: "default".to_string(),
            api_key_env: "OPENAI_API_KEY".to_string(),
            timeout_s: 60.0,
            retries: 3,
            backoff_s: 1.0,
            max_tokens: 16,
            seed: None,
            save_pictures: false,
            picture: Picture::default(),
        }
    }
}

impl OpenaiOptions {
    /// Refuses options that cannot be used, naming the option and the value.
    pub fn check(&self) -> Result<(), String> {
        if !(self.timeout_s.is_finite() && self.timeout_s > 0.0) {
            return Err(format!("--timeout must be a number of seconds above 0, not {}", self.timeout_s));
        }
        if !(self.backoff_s.is_finite() && self.backoff_s >= 0.0) {
            return Err(format!("the retry backoff must be 0 or more seconds, not {}", self.backoff_s));
        }
        if self.max_tokens == 0 {
            return Err("max_tokens must be at least 1".to_string());
        }
        if self.retries > 16 {
            return Err(format!("at most 16 retries, not {}", self.retries));
        }
        Ok(())
    }

    /// The wait before try `k + 1` (`k` ≥ 1 tries have failed): `backoff_s · 2^(k−1)`.
    pub fn backoff(&self, k: u32) -> Duration {
        Duration::from_secs_f64(self.backoff_s * f64::from(1u32 << k.saturating_sub(1).min(16)))
    }
}

/// The [`SourceRow`] `kibo export vlm` would read for the position `seen` shows: its
/// cells, the side to move, the ko point that side may not take, the last [`HISTORY`]
/// moves (most recent first) and the 1-based number of the move asked for.
pub fn source_row(seen: &Seen<'_>) -> SourceRow {
    let mut cells = [0u8; NN];
    seen.board.cells(&mut cells);
    let ko = seen.board.ko_point().filter(|_| seen.board.ko_color() == Some(seen.to_move));
    SourceRow {
        board: cells.to_vec(),
        to_play: seen.to_move.as_u8(),
        ko_point: ko.map(|p| p.index()),
        mv: crate::coord::PASS,
        move_number: u16::try_from(seen.moves.len() + 1).unwrap_or(u16::MAX),
        history: seen.moves.iter().rev().take(HISTORY).map(|(_, m)| m.index()).collect(),
        game_id: format!("match-{}", seen.game),
        ..SourceRow::default()
    }
}

/// The chat-completions request: the system text (when there is one), then one user
/// turn with the picture as a `data:image/png;base64,` URL and the prompt (the order of
/// the export's `<image>` + prompt), `temperature: 0`, `seed`, `max_tokens`. A text board
/// (`board: text`) has no picture: the user turn's content is the prompt, a plain string.
pub fn request_body(opts: &OpenaiOptions, row: &VlmRow, seed: u64) -> serde_json::Value {
    let mut messages = Vec::new();
    if let Some(s) = &row.system {
        messages.push(json!({"role": "system", "content": s}));
    }
    if opts.picture.board.picture() {
        let url = format!("data:image/png;base64,{}", base64::engine::general_purpose::STANDARD.encode(&row.png));
        messages.push(json!({"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": url}},
            {"type": "text", "text": row.prompt},
        ]}));
    } else {
        messages.push(json!({"role": "user", "content": row.prompt}));
    }
    json!({
        "model": opts.model,
        "messages": messages,
        "temperature": 0,
        "seed": seed,
        "max_tokens": opts.max_tokens,
    })
}

/// `choices[0].message.content` of a response body, or what is wrong with it.
pub fn content_of(body: &str) -> Result<String, String> {
    let v: serde_json::Value = serde_json::from_str(body).map_err(|e| format!("the body is not JSON ({e})"))?;
    match v["choices"][0]["message"]["content"].as_str() {
        Some(s) => Ok(s.to_string()),
        None => Err("the body has no choices[0].message.content (a string)".to_string()),
    }
}

/// The move an answer names, read as `kibo eval` reads next-move answers ([`parse_move`]),
/// or `resign`; `None` when it names neither.
pub fn read_reply(content: &str, notation: Notation) -> Option<Reply> {
    if is_resign(content) {
        return Some(Reply::Resign);
    }
    parse_move(content, notation).map(Reply::Move)
}

/// One line of `LOG/game-NNNNN.jsonl`: one request (with its retries) and its answer.
#[derive(Clone, Debug, serde::Serialize)]
pub struct LogLine {
    pub game: u64,
    /// 1-based number of the move asked for.
    pub move_number: u16,
    /// `B` or `W`.
    pub color: &'static str,
    /// 0 when first asked, 1, 2, … after invalid answers.
    pub attempt: u32,
    pub url: String,
    pub model: String,
    pub seed: u64,
    pub system: Option<String>,
    pub prompt: String,
    /// blake3 of the PNG sent (its file `png/<blake3>.png` when kept); empty for a text board.
    pub png_blake3: String,
    pub png_bytes: usize,
    /// `ok`, or `error` (every try failed: the game's fault).
    pub status: &'static str,
    /// The last try's HTTP status (none when no response came).
    pub http_status: Option<u16>,
    /// What went wrong with the last failed try (none when the last try answered).
    pub error: Option<String>,
    /// The message's content, as it came.
    pub raw: Option<String>,
    /// The move read from it (`Q16`, `pass`, `resign`), in the set's notation.
    pub reply: Option<String>,
    /// Seconds of the answered try (none when none answered).
    pub latency_s: Option<f64>,
    /// Seconds of all tries and waits.
    pub total_s: f64,
    pub tries: u32,
}

/// The log of one player: `game-NNNNN.jsonl` per game (made anew when a game is first
/// asked for a move), `png/` for the pictures kept.
struct Log {
    dir: PathBuf,
    game: Option<(u64, std::fs::File)>,
}

impl Log {
    fn line(&mut self, line: &LogLine) -> anyhow::Result<()> {
        if self.game.as_ref().map(|(g, _)| *g) != Some(line.game) {
            let path = self.dir.join(format!("game-{:05}.jsonl", line.game));
            let f = std::fs::File::create(&path).with_context(|| format!("creating {}", path.display()))?;
            self.game = Some((line.game, f));
        }
        let (_, f) = self.game.as_mut().context("invariant: opened above")?;
        let mut text = serde_json::to_string(line)?;
        text.push('\n');
        f.write_all(text.as_bytes()).with_context(|| format!("writing the log in {}", self.dir.display()))
    }

    /// Writes `png/<hash>.png` unless it exists (written whole, then renamed).
    fn picture(&self, hash: &str, png: &[u8]) -> anyhow::Result<()> {
        let dir = self.dir.join("png");
        let path = dir.join(format!("{hash}.png"));
        if path.exists() {
            return Ok(());
        }
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        crate::storage::write_file_atomic(&path, |f| f.write_all(png))
            .with_context(|| format!("writing {}", path.display()))
    }
}

/// What one request brought back after its tries.
struct Outcome {
    content: Result<String, String>,
    http_status: Option<u16>,
    latency_s: Option<f64>,
    tries: u32,
}

/// A model behind an OpenAI-compatible endpoint (module docs).
pub struct OpenaiPlayer {
    url: String,
    opts: OpenaiOptions,
    vlm: VlmOptions,
    painter: BoardPainter,
    agent: ureq::Agent,
    key: Option<String>,
    log: Log,
    /// The last picture sent (hash, bytes), kept when its answer is refused.
    last_png: Option<(String, Vec<u8>)>,
}

/// The player for `openai:URL` (`url`: the endpoint's chat-completions URL, e.g.
/// `http://127.0.0.1:8000/v1/chat/completions`), logging into `log_dir` (created). Give
/// each player its own folder (`DIR/log/<NAME>/`): two players logging into one folder
/// would write the same `game-NNNNN.jsonl`. An https URL without the `https` feature, a
/// URL that is not http, or options [`OpenaiOptions::check`] or [`Picture::vlm_options`]
/// refuse are a [`crate::error::SetupError`].
pub fn make(url: &str, opts: &OpenaiOptions, log_dir: &Path) -> anyhow::Result<OpenaiPlayer> {
    opts.check().map_err(crate::error::SetupError)?;
    let lower = url.to_ascii_lowercase();
    if lower.starts_with("https://") && !cfg!(feature = "https") {
        return crate::error::setup(format!(
            "openai:{url}: this kibo was built without https (cargo feature `https`); reach the endpoint over \
             plain http (a local server, an SSH tunnel) or rebuild with `--features https`"
        ));
    }
    if !lower.starts_with("http://") && !lower.starts_with("https://") {
        return crate::error::setup(format!("openai:{url}: expected an http:// URL of a chat-completions endpoint"));
    }
    let vlm = opts.picture.vlm_options()?;
    let style = Style::model(vlm.cell_px).context("invariant: the cell size was checked")?;
    std::fs::create_dir_all(log_dir).with_context(|| format!("creating {}", log_dir.display()))?;
    let config = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs_f64(opts.timeout_s)))
        .http_status_as_error(false)
        .build();
    Ok(OpenaiPlayer {
        url: url.to_string(),
        opts: opts.clone(),
        vlm,
        painter: BoardPainter::new(style)?,
        agent: ureq::Agent::new_with_config(config),
        key: std::env::var(&opts.api_key_env).ok().filter(|k| !k.is_empty()),
        log: Log { dir: log_dir.to_path_buf(), game: None },
        last_png: None,
    })
}

impl OpenaiPlayer {
    /// One try: the message's content, or what went wrong (with the HTTP status when a
    /// response came).
    fn try_once(&self, body: &str, seen: &Seen<'_>) -> (Result<String, String>, Option<u16>) {
        let mut req = self
            .agent
            .post(&self.url)
            .header("X-Kibo-Game", seen.game.to_string())
            .header("X-Kibo-Move", (seen.moves.len() + 1).to_string())
            .header("X-Kibo-Attempt", seen.attempt.to_string());
        if let Some(k) = &self.key {
            req = req.header("Authorization", format!("Bearer {k}"));
        }
        let mut resp = match req.content_type("application/json").send(body) {
            Ok(r) => r,
            Err(e) => return (Err(e.to_string()), None),
        };
        let status = resp.status().as_u16();
        let text = resp.body_mut().read_to_string();
        match (status, text) {
            (200..=299, Ok(t)) => (content_of(&t), Some(status)),
            (_, Ok(t)) => (Err(format!("HTTP {status}: {}", t.chars().take(300).collect::<String>())), Some(status)),
            (_, Err(e)) => (Err(format!("HTTP {status}, the body unreadable ({e})")), Some(status)),
        }
    }

    /// Every try until one answers or the retries are spent, waiting the backoff between.
    fn ask(&self, body: &str, seen: &Seen<'_>) -> Outcome {
        let mut tries = 0;
        loop {
            tries += 1;
            let t0 = Instant::now();
            let (content, http_status) = self.try_once(body, seen);
            if content.is_ok() || tries > self.opts.retries {
                let latency_s = content.is_ok().then(|| t0.elapsed().as_secs_f64());
                return Outcome { content, http_status, latency_s, tries };
            }
            std::thread::sleep(self.opts.backoff(tries));
        }
    }
}

impl Player for OpenaiPlayer {
    fn genmove(&mut self, seen: &Seen<'_>) -> anyhow::Result<Answer> {
        let t0 = Instant::now();
        let row = vlm::make_row(&source_row(seen), &self.vlm, &self.painter)
            .with_context(|| format!("drawing game {} move {}", seen.game, seen.moves.len() + 1))?;
        let seed = self.opts.seed.unwrap_or(seen.seed);
        let body = serde_json::to_string(&request_body(&self.opts, &row, seed))?;
        let out = self.ask(&body, seen);
        // A text board has no picture: no hash, nothing to keep.
        let picture = self.vlm.board.picture();
        let hash = if picture { blake3::hash(&row.png).to_hex().to_string() } else { String::new() };
        let reply = out.content.as_ref().ok().and_then(|c| read_reply(c, self.vlm.notation));
        let line = LogLine {
            game: seen.game,
            move_number: row.move_number,
            color: seen.to_move.as_str(),
            attempt: seen.attempt,
            url: self.url.clone(),
            model: self.opts.model.clone(),
            seed,
            system: row.system.clone(),
            prompt: row.prompt.clone(),
            png_blake3: hash.clone(),
            png_bytes: row.png.len(),
            status: if out.content.is_ok() { "ok" } else { "error" },
            http_status: out.http_status,
            error: out.content.as_ref().err().cloned(),
            raw: out.content.as_ref().ok().cloned(),
            reply: reply.map(|r| match r {
                Reply::Resign => "resign".to_string(),
                Reply::Move(m) => self.vlm.notation.write(m),
            }),
            latency_s: out.latency_s,
            total_s: t0.elapsed().as_secs_f64(),
            tries: out.tries,
        };
        self.log.line(&line)?;
        if self.opts.save_pictures && picture {
            self.log.picture(&hash, &row.png)?;
        }
        self.last_png = picture.then_some((hash, row.png));
        match out.content {
            Ok(raw) => Ok(Answer { raw, reply, seconds: out.latency_s.unwrap_or(0.0) }),
            Err(e) => anyhow::bail!(
                "openai:{}: game {} move {} ({}): {e}, after {} {}",
                self.url,
                seen.game,
                line.move_number,
                seen.to_move.name(),
                out.tries,
                if out.tries == 1 { "try" } else { "tries" }
            ),
        }
    }

    /// Keeps the refused answer's picture (`LOG/png/<blake3>.png`, named in its log line).
    fn refused(&mut self) -> anyhow::Result<()> {
        match &self.last_png {
            Some((hash, png)) => self.log.picture(hash, png),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::color::Color;
    use crate::coord::{gtp_move, Move};
    use crate::engine::Board;
    use crate::scoring::RuleSet;

    fn seen<'a>(board: &'a Board, moves: &'a [(Color, Move)], to_move: Color) -> Seen<'a> {
        Seen {
            board,
            to_move,
            moves,
            setup: &[],
            history: Box::leak(Box::new(crate::engine::SuperkoHistory::new(crate::engine::SuperkoMode::Positional))),
            komi: 7.5,
            rules: RuleSet::Chinese,
            game: 3,
            seed: 99,
            attempt: 0,
        }
    }

    fn mv(g: &str) -> Move {
        gtp_move(g).unwrap()
    }

    #[test]
    fn the_request_is_one_user_turn_with_the_picture_then_the_prompt() {
        let mut opts = OpenaiOptions { model: "m".into(), max_tokens: 9, ..OpenaiOptions::default() };
        opts.picture.templates.system = "You play Go as {side}.".into();
        opts.picture.last_moves = 2;
        let vlm = opts.picture.vlm_options().unwrap();
        let painter = BoardPainter::new(Style::model(vlm.cell_px).unwrap()).unwrap();
        let mut board = Board::new();
        let moves = [(Color::Black, mv("Q16")), (Color::White, mv("D4"))];
        let rules = crate::engine::Rules::default();
        for (c, m) in moves {
            board.play(c, m, &rules).unwrap();
        }
        let s = seen(&board, &moves, Color::Black);
        let row = vlm::make_row(&source_row(&s), &vlm, &painter).unwrap();
        assert_eq!(row.move_number, 3);
        assert_eq!(row.prompt.matches("The last moves were B Q16, W D4.").count(), 1, "{}", row.prompt);
        let body = request_body(&opts, &row, 5);
        assert_eq!(body["model"], "m");
        assert_eq!(
            (body["temperature"].as_i64(), body["seed"].as_u64(), body["max_tokens"].as_u64()),
            (Some(0), Some(5), Some(9))
        );
        let msgs = body["messages"].as_array().unwrap();
        assert_eq!(msgs.len(), 2);
        assert_eq!(msgs[0], json!({"role": "system", "content": "You play Go as Black."}));
        assert_eq!(msgs[1]["role"], "user");
        let parts = msgs[1]["content"].as_array().unwrap();
        assert_eq!(parts[1], json!({"type": "text", "text": row.prompt}));
        assert_eq!(parts[0]["type"], "image_url");
        let url = parts[0]["image_url"]["url"].as_str().unwrap();
        let b64 = url.strip_prefix("data:image/png;base64,").unwrap();
        assert_eq!(base64::engine::general_purpose::STANDARD.decode(b64).unwrap(), row.png);
        // No system text: the user turn alone.
        opts.picture.templates.system.clear();
        let row = vlm::make_row(&source_row(&s), &opts.picture.vlm_options().unwrap(), &painter).unwrap();
        assert_eq!(request_body(&opts, &row, 5)["messages"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn a_text_set_sends_one_user_turn_of_text_alone() {
        let mut opts = OpenaiOptions::default();
        opts.picture.board = BoardMode::Text;
        let vlm = opts.picture.vlm_options().unwrap();
        assert_eq!(vlm.board, BoardMode::Text);
        let painter = BoardPainter::new(Style::model(vlm.cell_px).unwrap()).unwrap();
        let mut board = Board::new();
        let moves = [(Color::Black, mv("Q16"))];
        board.play(Color::Black, mv("Q16"), &crate::engine::Rules::default()).unwrap();
        let row = vlm::make_row(&source_row(&seen(&board, &moves, Color::White)), &vlm, &painter).unwrap();
        assert!(row.png.is_empty(), "a text row has no picture");
        assert!(row.prompt.contains("\n16 . . . . . . . . . . . . . . . X . . .\n"), "{}", row.prompt);
        assert!(row.prompt.contains("The last move was Black Q16."), "{}", row.prompt);
        let body = request_body(&opts, &row, 5);
        let msgs = body["messages"].as_array().unwrap();
        assert_eq!(msgs.len(), 1);
        assert_eq!(msgs[0], json!({"role": "user", "content": row.prompt}));
        assert!(!body.to_string().contains("image_url"));
        // A picture set's options serialise as before (no `board` key); a text set's carry it.
        assert!(!serde_json::to_string(&Picture::default()).unwrap().contains("\"board\":"));
        let back: Picture = serde_json::from_str(&serde_json::to_string(&opts.picture).unwrap()).unwrap();
        assert_eq!(back.board, BoardMode::Text);
    }

    #[test]
    fn the_source_row_has_the_history_most_recent_first_and_the_ko_of_the_side_to_move() {
        // A ko: Black captures at E5... built from a diagram-free sequence.
        let rules = crate::engine::Rules::default();
        let mut board = Board::new();
        let seq = ["D5", "E5", "E4", "F4", "E6", "F6", "pass", "G5", "F5"];
        let mut moves = Vec::new();
        let mut c = Color::Black;
        for g in seq {
            board.play(c, mv(g), &rules).unwrap();
            moves.push((c, mv(g)));
            c = c.opponent();
        }
        // Black F5 captured White E5: White may not retake at E5 now.
        let r = source_row(&seen(&board, &moves, Color::White));
        assert_eq!(r.ko_point, Some(mv("E5").index()), "White to move is banned from E5");
        assert_eq!(r.history[0], mv("F5").index());
        assert_eq!(r.history[2], crate::coord::PASS);
        assert_eq!(r.history.len(), HISTORY.min(moves.len()));
        assert_eq!((r.to_play, r.move_number), (2, 10));
        let mut cells = [0u8; NN];
        board.cells(&mut cells);
        assert_eq!(r.board, cells.to_vec());
        assert_eq!(source_row(&seen(&board, &moves, Color::Black)).ko_point, None, "the ban is White's alone");
    }

    #[test]
    fn answers_read_as_eval_reads_them_with_resign() {
        assert_eq!(read_reply(" q16.", Notation::Gtp), Some(Reply::Move(mv("Q16"))));
        assert_eq!(read_reply("Pass", Notation::Gtp), Some(Reply::Move(Move::Pass)));
        assert_eq!(read_reply("`resign`", Notation::Gtp), Some(Reply::Resign));
        assert_eq!(read_reply("pd", Notation::Sgf), Some(Reply::Move(mv("Q16"))));
        assert_eq!(read_reply("pd", Notation::Gtp), None);
        assert_eq!(read_reply("I would play Q16", Notation::Gtp), None);
        assert_eq!(content_of(r#"{"choices":[{"message":{"role":"assistant","content":"D4"}}]}"#), Ok("D4".into()));
        assert!(content_of(r#"{"error":{"message":"overloaded"}}"#).unwrap_err().contains("no choices[0]"));
        assert!(content_of(r#"{"choices":[{"message":{"content":null}}]}"#).is_err());
        assert!(content_of("<html>").unwrap_err().contains("not JSON"));
    }

    #[test]
    fn the_backoff_doubles_from_its_base() {
        let o = OpenaiOptions::default();
        let waits: Vec<f64> = (1..=3).map(|k| o.backoff(k).as_secs_f64()).collect();
        assert_eq!(waits, [1.0, 2.0, 4.0]);
        let fast = OpenaiOptions { backoff_s: 0.01, ..o };
        assert_eq!(fast.backoff(4), Duration::from_secs_f64(0.08));
        assert!(OpenaiOptions { timeout_s: 0.0, ..OpenaiOptions::default() }
            .check()
            .unwrap_err()
            .contains("--timeout"));
    }

    #[test]
    fn options_round_trip_through_json_with_defaults() {
        let o: OpenaiOptions = serde_json::from_str(r#"{"model": "qwen", "picture": {"cell_px": 28}}"#).unwrap();
        assert_eq!((o.model.as_str(), o.picture.cell_px, o.retries), ("qwen", 28, 3));
        assert_eq!(o.picture.templates, Templates::default());
        let back: OpenaiOptions = serde_json::from_value(serde_json::to_value(&o).unwrap()).unwrap();
        assert_eq!(back, o);
        assert!(serde_json::from_str::<OpenaiOptions>(r#"{"modle": "x"}"#).is_err(), "a misspelt key is refused");
        let bad = Picture { cell_px: 31, ..Picture::default() }.vlm_options().unwrap_err();
        assert!(crate::error::is_setup(&bad) && bad.to_string().contains("--cell-px"), "{bad}");
    }

    #[test]
    fn an_https_url_without_the_feature_and_a_non_http_url_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let e = make("ftp://x/", &OpenaiOptions::default(), dir.path()).err().unwrap();
        assert!(crate::error::is_setup(&e), "{e}");
        let r = make("https://api.example/v1/chat/completions", &OpenaiOptions::default(), dir.path());
        if cfg!(feature = "https") {
            assert!(r.is_ok());
        } else {
            let e = r.err().unwrap();
            assert!(crate::error::is_setup(&e) && e.to_string().contains("without https"), "{e}");
        }
    }
}
