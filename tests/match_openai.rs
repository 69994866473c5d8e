//! `kibo match`'s `openai:URL` player against the stand-in model server
//! (tests/python/match_server.py, a child process): the picture and prompt it sends are
//! `kibo export vlm`'s for the position byte for byte, the server reads every board off the
//! picture, the answers are read as `kibo eval` reads them, and a hung, failing, refusing
//! or malformed endpoint is an error after the retries; every request is logged.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use kibo::color::Color;
use kibo::coord::{Move, Point, NN};
use kibo::engine::Board;
use kibo::scoring::RuleSet;
use kibo::stages::play::openai::{make, OpenaiOptions, Picture};
use kibo::stages::play::player::{Player, Reply, Seen};

use crate::util;

/// The venv's Python (with Pillow and numpy): `$KIBO_VENV_PYTHON`, else the project's
/// `.venv` (`make test` makes it before the Rust tests run).
fn python() -> PathBuf {
    let p = std::env::var_os("KIBO_VENV_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python"));
    assert!(
        p.exists(),
        "{} is missing: these tests need the venv's Python (`make venv`, or set KIBO_VENV_PYTHON)",
        p.display()
    );
    p
}

/// match_server.py, running until dropped.
struct Server {
    child: Child,
    url: String,
    record: PathBuf,
}

impl Server {
    fn start(record: &Path, args: &[&str]) -> Server {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/match_server.py");
        let mut child = Command::new(python())
            .arg(script)
            .arg("--record")
            .arg(record)
            .args(args)
            .stdout(Stdio::piped())
            .spawn()
            .expect("match_server.py starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let port: u16 = line.trim().strip_prefix("port ").and_then(|p| p.parse().ok()).expect("`port N` first");
        Server { child, url: format!("http://127.0.0.1:{port}/v1/chat/completions"), record: record.to_path_buf() }
    }

    /// The requests it recorded, in the order they came.
    fn requests(&self) -> Vec<serde_json::Value> {
        let text = std::fs::read_to_string(self.record.join("requests.jsonl")).unwrap_or_default();
        text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn seen<'a>(board: &'a Board, moves: &'a [(Color, Move)], to_move: Color, game: u64, attempt: u32) -> Seen<'a> {
    Seen {
        board,
        to_move,
        moves,
        setup: &[],
        history: Box::leak(Box::new(kibo::engine::SuperkoHistory::new(kibo::engine::SuperkoMode::Positional))),
        komi: 7.5,
        rules: RuleSet::Chinese,
        game,
        seed: 7,
        attempt,
    }
}

fn log_lines(dir: &Path, game: u64) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(dir.join(format!("game-{game:05}.jsonl"))).unwrap();
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// One next-move row of a `--layout qwen` export: its picture and prompt, and the position.
struct ExportRow {
    png: Vec<u8>,
    prompt: String,
    game_id: String,
    move_number: u16,
}

fn export_rows(dest: &Path) -> Vec<ExportRow> {
    let mut v = Vec::new();
    for split in ["train", "val"] {
        let Ok(text) = std::fs::read_to_string(dest.join(format!("{split}.jsonl"))) else { continue };
        for line in text.lines() {
            let j: serde_json::Value = serde_json::from_str(line).unwrap();
            assert_eq!(j["task"], "next-move");
            let user = j["conversations"][0]["value"].as_str().unwrap();
            v.push(ExportRow {
                png: std::fs::read(dest.join(j["image"].as_str().unwrap())).unwrap(),
                prompt: user.strip_prefix("<image>\n").unwrap().to_string(),
                game_id: j["game_id"].as_str().unwrap().to_string(),
                move_number: j["move_number"].as_u64().unwrap() as u16,
            });
        }
    }
    v
}

fn gtp_text(board: &[u8]) -> Vec<String> {
    board.chunks(19).map(|r| r.iter().map(|&c| [b'.', b'X', b'O'][c as usize] as char).collect()).collect()
}

#[test]
fn the_picture_and_prompt_are_export_vlms_and_the_server_reads_every_board() {
    let tmp = tempfile::tempdir().unwrap();
    let (out, dest) = (tmp.path().join("out"), tmp.path().join("vlm"));
    let o = util::run(&["run", "--input", "data/kombilo", "--out", out.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "kibo run: {}", util::stderr(&o));
    let o = util::run(&[
        "export",
        "vlm",
        "--out",
        out.to_str().unwrap(),
        "--to",
        dest.to_str().unwrap(),
        "--layout",
        "qwen",
        "--mix",
        "next-move=1",
        "--cell-px",
        "28",
        "--last-moves",
        "3",
        "--limit",
        "40",
        "--seed",
        "5",
        "-q",
    ]);
    assert!(o.status.success(), "kibo export vlm: {}", util::stderr(&o));
    let rows = export_rows(&dest);
    assert!(rows.len() >= 30, "{} rows", rows.len());
    let samples: std::collections::HashMap<(String, u16), util::SampleRow> =
        util::samples(&out).into_iter().map(|s| ((s.game_id.clone(), s.move_number), s)).collect();

    let server = Server::start(&tmp.path().join("rec"), &["--seed", "1"]);
    let picture = Picture::from_set(&dest).unwrap();
    assert_eq!((picture.cell_px, picture.last_moves), (28, 3), "read from the set's vlm.json");
    let opts = OpenaiOptions { model: "stand-in".into(), picture, ..OpenaiOptions::default() };
    let log = tmp.path().join("log");
    let mut player = make(&server.url, &opts, &log).unwrap();
    for (k, r) in rows.iter().enumerate() {
        let s = &samples[&(r.game_id.clone(), r.move_number)];
        let cells: [u8; NN] = s.board.as_slice().try_into().unwrap();
        let mut board = Board::from_cells(&cells).unwrap();
        let to_move = Color::from_u8(s.to_play).unwrap();
        board.set_ko(s.ko_point.and_then(Point::from_index).map(|p| (p, to_move)));
        // The moves before: the sample's history (most recent first) at the end, passes
        // before it (the player looks at the last eight alone).
        let n = usize::from(r.move_number) - 1;
        assert_eq!(s.history.len(), n.min(8));
        let mut moves: Vec<(Color, Move)> = Vec::with_capacity(n);
        for j in 0..n {
            let back = n - 1 - j; // 0: the last move, the opponent's
            let c = if back.is_multiple_of(2) { to_move.opponent() } else { to_move };
            let m = s.history.get(back).map(|&i| Move::from_index(i).unwrap()).unwrap_or(Move::Pass);
            moves.push((c, m));
        }
        let game = (k / 10) as u64;
        let a = player.genmove(&seen(&board, &moves, to_move, game, 0)).unwrap();
        let req = &server.requests()[k];
        assert_eq!(req["board"], serde_json::json!(gtp_text(&s.board)), "row {k}: the server read another board");
        let sent = std::fs::read(server.record.join(req["png"].as_str().unwrap())).unwrap();
        assert!(sent == r.png, "row {k} ({} move {}): the picture is not the export's", r.game_id, r.move_number);
        assert_eq!(req["prompt"], r.prompt.as_str(), "row {k}");
        assert_eq!(req["system"], serde_json::Value::Null);
        assert_eq!(
            (req["model"].as_str(), req["seed"].as_u64(), req["move"].as_u64()),
            (Some("stand-in"), Some(7), Some(u64::from(r.move_number)))
        );
        assert_eq!(a.raw, req["answer"].as_str().unwrap());
        match a.reply {
            Some(Reply::Move(Move::Play(p))) => assert_eq!(board.get(p), 0, "row {k}: the server answers empty points"),
            Some(Reply::Move(Move::Pass)) => assert_eq!(a.raw, "pass"),
            other => panic!("row {k}: {other:?} from {:?}", a.raw),
        }
        assert!(a.seconds > 0.0);
    }
    // One log file a game, one line a request, the picture's hash the export's.
    let games = rows.len().div_ceil(10);
    let mut lines = Vec::new();
    for g in 0..games {
        lines.extend(log_lines(&log, g as u64));
    }
    assert_eq!(lines.len(), rows.len());
    for (l, r) in lines.iter().zip(&rows) {
        assert_eq!(l["png_blake3"], blake3::hash(&r.png).to_hex().as_str());
        assert_eq!(
            (l["status"].as_str(), l["tries"].as_u64(), l["prompt"].as_str()),
            (Some("ok"), Some(1), Some(r.prompt.as_str()))
        );
        assert_eq!(l["move_number"].as_u64(), Some(u64::from(r.move_number)));
        assert!(l["latency_s"].as_f64().unwrap() > 0.0);
    }
    assert!(!log.join("png").exists(), "no picture is kept unless an answer is refused");
}

/// The empty board with Black to move and the moves so far (`n` passes): move `n + 1`.
fn passes(n: usize) -> Vec<(Color, Move)> {
    (0..n).map(|k| (if k.is_multiple_of(2) { Color::Black } else { Color::White }, Move::Pass)).collect()
}

fn quick() -> OpenaiOptions {
    OpenaiOptions { timeout_s: 0.5, retries: 2, backoff_s: 0.05, ..OpenaiOptions::default() }
}

#[test]
fn a_hung_failing_malformed_or_refusing_endpoint_is_an_error_after_the_retries() {
    let tmp = tempfile::tempdir().unwrap();
    let server = Server::start(
        &tmp.path().join("rec"),
        &[
            "--hang",
            "1",
            "--hang-seconds",
            "3",
            "--status500",
            "2",
            "--malformed",
            "3",
            "--flaky",
            "4",
            "--flaky-times",
            "2",
        ],
    );
    let log = tmp.path().join("log");
    let mut player = make(&server.url, &quick(), &log).unwrap();
    let board = Board::new();
    let ask = |player: &mut dyn Player, n: usize| {
        let moves = passes(n);
        let to_move = if n.is_multiple_of(2) { Color::Black } else { Color::White };
        let t0 = Instant::now();
        let r = player.genmove(&seen(&board, &moves, to_move, 0, 0));
        (r.map_err(|e| format!("{e:#}")), t0.elapsed().as_secs_f64())
    };
    let (r, secs) = ask(&mut player, 0);
    let e = r.unwrap_err();
    assert!(e.contains(&server.url) && e.contains("after 3 tries") && e.to_lowercase().contains("timeout"), "{e}");
    assert!(secs < 2.5, "3 tries of 0.5 s and two short waits took {secs} s");
    let e = ask(&mut player, 1).0.unwrap_err();
    assert!(e.contains("HTTP 500") && e.contains("after 3 tries") && e.contains("move 2 (white)"), "{e}");
    let e = ask(&mut player, 2).0.unwrap_err();
    assert!(e.contains("no choices[0].message.content") && e.contains("after 3 tries"), "{e}");
    // Move 4 fails twice (500), then answers: retried, not an error.
    let (a, _) = ask(&mut player, 3);
    let a = a.unwrap();
    assert!(matches!(a.reply, Some(Reply::Move(Move::Play(_)))), "{a:?}");
    let moves: Vec<u64> = server.requests().iter().map(|r| r["move"].as_u64().unwrap()).collect();
    assert_eq!(moves, [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4], "each try reached the server");
    let lines = log_lines(&log, 0);
    let summary: Vec<(&str, u64, Option<u64>)> = lines
        .iter()
        .map(|l| (l["status"].as_str().unwrap(), l["tries"].as_u64().unwrap(), l["http_status"].as_u64()))
        .collect();
    assert_eq!(summary, [("error", 3, None), ("error", 3, Some(500)), ("error", 3, Some(200)), ("ok", 3, Some(200))]);
    assert!(lines[0]["error"].as_str().unwrap().to_lowercase().contains("timeout"));
    drop(server);
    // Nothing listens there any more: connection refused, three times.
    let e = ask(&mut player, 4).0.unwrap_err();
    assert!(e.contains("after 3 tries"), "{e}");
}

#[test]
fn invalid_answers_are_read_as_they_come_and_their_pictures_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let server = Server::start(
        &tmp.path().join("rec"),
        &["--seed", "3", "--flip", "3", "--occupied", "4", "--garbage", "5@*", "--resign", "6", "--pass", "2:7"],
    );
    let key_var = format!("KIBO_TEST_OPENAI_KEY_{}", std::process::id());
    std::env::set_var(&key_var, "sk-test");
    let opts = OpenaiOptions { api_key_env: key_var, ..quick() };
    let log = tmp.path().join("log");
    let mut player = make(&server.url, &opts, &log).unwrap();
    let rules = kibo::engine::Rules::default();
    let mut board = Board::new();
    let mut moves: Vec<(Color, Move)> = Vec::new();
    // Black Q16 and White D4 on the board; then the server's answers at moves 3 to 7.
    for (c, g) in [(Color::Black, "Q16"), (Color::White, "D4")] {
        let m = kibo::coord::gtp_move(g).unwrap();
        board.play(c, m, &rules).unwrap();
        moves.push((c, m));
    }
    let occupied = |a: &kibo::stages::play::player::Answer, board: &Board| match a.reply {
        Some(Reply::Move(Move::Play(p))) => board.get(p) != 0,
        _ => false,
    };
    let a = player.genmove(&seen(&board, &moves, Color::Black, 2, 0)).unwrap();
    assert!(occupied(&a, &board) && ["Q16", "D4"].contains(&a.raw.as_str()), "a row-flipped move: {a:?}");
    player.refused().unwrap();
    let again = player.genmove(&seen(&board, &moves, Color::Black, 2, 1)).unwrap();
    assert!(!occupied(&again, &board), "attempt 1 is not in the plan: {again:?}");
    let m3 = match again.reply {
        Some(Reply::Move(m)) => m,
        other => panic!("{other:?}"),
    };
    board.play(Color::Black, m3, &rules).unwrap();
    moves.push((Color::Black, m3));
    let a = player.genmove(&seen(&board, &moves, Color::White, 2, 0)).unwrap();
    assert!(occupied(&a, &board), "{a:?}");
    moves.push((Color::White, Move::Pass));
    for attempt in 0..3 {
        let a = player.genmove(&seen(&board, &moves, Color::Black, 2, attempt)).unwrap();
        assert_eq!((a.raw.as_str(), a.reply), ("I am not sure.", None), "garbage at every attempt");
    }
    player.refused().unwrap();
    moves.push((Color::Black, Move::Pass));
    let a = player.genmove(&seen(&board, &moves, Color::White, 2, 0)).unwrap();
    assert_eq!(a.reply, Some(Reply::Resign));
    moves.push((Color::White, Move::Pass));
    let a = player.genmove(&seen(&board, &moves, Color::Black, 2, 0)).unwrap();
    assert_eq!(a.reply, Some(Reply::Move(Move::Pass)), "game 2's move 7 passes");
    let lines = log_lines(&log, 2);
    let replies: Vec<Option<&str>> = lines.iter().map(|l| l["reply"].as_str()).collect();
    assert_eq!(replies.len(), 8);
    assert_eq!(&replies[4..], [None, None, Some("resign"), Some("pass")]);
    assert_eq!(lines[4]["raw"], "I am not sure.");
    // The two refused answers' pictures, named by their hashes in the log.
    let kept: std::collections::BTreeSet<String> = std::fs::read_dir(log.join("png"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let expect: std::collections::BTreeSet<String> =
        [&lines[0], &lines[5]].iter().map(|l| format!("{}.png", l["png_blake3"].as_str().unwrap())).collect();
    assert_eq!(kept, expect);
    assert!(server.requests().iter().all(|r| r["authorization"] == "Bearer sk-test"), "the key is sent");
}
