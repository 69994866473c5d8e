//! The split stage: replay against golden positions from an independent oracle,
//! classic coordinate mistakes, rule violations, sampling options, determinism.

use kibo::config::SplitConfig;
use kibo::coord::{Move, Point, NN};
use kibo::engine::{Board, Color, Rules};
use kibo::game::{GameId, GameRow};
use kibo::samples::BufMode;
use kibo::sgf::GameMove;
use kibo::stages::split::game_samples;

use crate::util::{report, run, snapshot, stderr};

/// The main line of a file, read by kibo's own reader.
fn main_line(path: &str) -> (Vec<(Color, Move)>, Vec<Point>, Vec<Point>) {
    let bytes = std::fs::read(path).unwrap();
    let g = kibo::sgf::read_games(&bytes).games.remove(0).unwrap();
    let moves = g.moves.iter().map(|m| (m.color, m.mv)).collect();
    (moves, g.setup_black.clone(), g.setup_white.clone())
}

/// How a buggy reader might map coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mistake {
    None,
    Transposed,
    FlippedRows,
    /// Colours swapped (e.g. ignoring who moves first).
    WrongTurnOrder,
}

/// Replays with an optional mistake; returns the final diagram and prisoners, or the illegal move.
fn replay(path: &str, mistake: Mistake) -> Result<(String, u32, u32), String> {
    let (moves, sb, sw) = main_line(path);
    let mut b = Board::new();
    for p in sb {
        b.set_stone(p, 1).unwrap();
    }
    for p in sw {
        b.set_stone(p, 2).unwrap();
    }
    for (i, &(c, m)) in moves.iter().enumerate() {
        let m = match (mistake, m) {
            (Mistake::Transposed, Move::Play(p)) => Move::Play(Point { row: p.col, col: p.row }),
            (Mistake::FlippedRows, Move::Play(p)) => Move::Play(Point { row: 18 - p.row, col: p.col }),
            _ => m,
        };
        let c = if mistake == Mistake::WrongTurnOrder { c.opponent() } else { c };
        let _ = i;
        b.play(c, m, &Rules::default()).map_err(|e| format!("move {}: {}", i + 1, e.as_str()))?;
        b.check_consistency().unwrap();
    }
    Ok((b.to_diagram(), b.prisoners(Color::Black), b.prisoners(Color::White)))
}

fn golden(name: &str) -> (String, u32, u32) {
    let text = std::fs::read_to_string(format!("tests/golden/{name}.txt")).unwrap();
    let head = text.lines().next().unwrap();
    let nums: Vec<u32> =
        head.split(|c: char| !c.is_ascii_digit()).filter(|s| !s.is_empty()).map(|s| s.parse().unwrap()).collect();
    let diagram: String = text.lines().skip(1).map(|l| format!("{l}\n")).collect();
    (diagram, nums[1], nums[2])
}

const GOLDEN: &[&str] = &["Gosei-Gos23-T01", "Agon-Agon02-2", "under-the-stones", "1600JSTP06"];

#[test]
fn final_positions_match_sgfmill() {
    for name in GOLDEN {
        let got = replay(&format!("data/kombilo/{name}.sgf"), Mistake::None).unwrap();
        let want = golden(name);
        assert_eq!(got.0.trim_end(), want.0.trim_end(), "{name}: final position");
        assert_eq!((got.1, got.2), (want.1, want.2), "{name}: prisoners");
    }
}

/// Each classic mistake is caught: either a move becomes illegal, or the final
/// position differs from the oracle's.
#[test]
fn classic_mistakes_are_caught() {
    for mistake in [Mistake::Transposed, Mistake::FlippedRows, Mistake::WrongTurnOrder] {
        for name in GOLDEN {
            let path = format!("data/kombilo/{name}.sgf");
            match replay(&path, mistake) {
                Err(_) => {}
                Ok(got) => assert_ne!(got.0.trim_end(), golden(name).0.trim_end(), "{mistake:?} not caught on {name}"),
            }
        }
    }
    // Wrong capture order: removing the mover's own chain before the opponent's turns
    // every capture-into-atari into a suicide. The engine must capture first:
    let mut b = Board::from_diagram(&format!(
        "{}\n",
        [
            ".XO", "XO.", "O..", "...", "...", "...", "...", "...", "...", "...", "...", "...", "...", "...", "...",
            "...", "...", "...", "..."
        ]
        .map(|r| format!("{r:.<19}"))
        .join("\n")
    ))
    .unwrap();
    // White plays A19 (0,0): it has no liberty itself, but captures the black stones at B19 and A18.
    let info =
        b.play(Color::White, Move::Play(Point { row: 0, col: 0 }), &Rules::default()).expect("capture, not suicide");
    assert_eq!(info.captured, 2);
    assert_eq!(b.get(Point { row: 0, col: 0 }), 2);
}

fn row(moves: &[(u8, u16)]) -> GameRow {
    let color = |c: u8| if c == b'B' { Color::Black } else { Color::White };
    GameRow {
        game_id: GameId([0xff; 16]),
        moves: moves.iter().map(|m| GameMove { color: color(m.0), mv: Move::from_index(m.1).unwrap() }).collect(),
        ..Default::default()
    }
}

/// Replays a row with every column recorded.
fn replay_game(g: &GameRow, cfg: &SplitConfig) -> Result<kibo::stages::split::GameSamples, kibo::replay::Refusal> {
    game_samples(g, cfg, 1, BufMode::Full)
}

fn idx(s: &str) -> u16 {
    kibo::coord::sgf_move(s).unwrap().index()
}

#[test]
fn illegal_moves_are_rejected_with_reason_and_number() {
    let cfg = SplitConfig::default();
    let reason = |g: &GameRow, cfg: &SplitConfig| match replay_game(g, cfg) {
        Err(e) => Some((e.reason.as_str(), e.move_number)),
        Ok(_) => None,
    };
    // Occupied point at move 3.
    assert_eq!(
        reason(&row(&[(b'B', idx("pd")), (b'W', idx("dd")), (b'B', idx("dd"))]), &cfg),
        Some(("occupied_point", Some(3)))
    );
    // Suicide: black fills its own last liberty in the corner.
    let g = row(&[(b'W', idx("ba")), (b'B', idx("pp")), (b'W', idx("ab")), (b'B', idx("aa"))]);
    assert_eq!(reason(&g, &cfg), Some(("suicide", Some(4))));
    // Ko in the centre:        . X O .      black captures at H13 (hg), white retakes
    //                          X O . O      at G13 (gg) at once: ko_violation at move 10.
    //                          . X O .
    let g = row(&[
        (b'B', idx("gf")),
        (b'W', idx("hf")),
        (b'B', idx("fg")),
        (b'W', idx("gg")),
        (b'B', idx("gh")),
        (b'W', idx("ig")),
        (b'B', idx("ss")),
        (b'W', idx("hh")),
        (b'B', idx("hg")),
        (b'W', idx("gg")),
    ]);
    assert_eq!(reason(&g, &cfg), Some(("ko_violation", Some(10))));
    // After a move elsewhere the retake is legal.
    let mut moves: Vec<(u8, u16)> = g.moves.iter().map(|m| (m.color.as_str().as_bytes()[0], m.mv.index())).collect();
    moves.truncate(9);
    moves.extend([(b'W', idx("aa")), (b'B', idx("ba")), (b'W', idx("gg"))]);
    assert_eq!(reason(&row(&moves), &cfg), None);
    // Consecutive moves: allowed by default, a reject when the pipeline says so.
    let twice = row(&[(b'B', idx("pd")), (b'B', idx("dd")), (b'W', idx("pp"))]);
    assert_eq!(reason(&twice, &cfg), None);
    let strict = SplitConfig { allow_consecutive_moves: false, ..SplitConfig::default() };
    assert_eq!(reason(&twice, &strict), Some(("consecutive_moves", Some(2))));
}

#[test]
fn superko_only_when_enabled() {
    // Passes around a ko: black captures (9), both pass (the simple-ko ban is
    // cleared), white retakes (12): the stones are those after move 8 again, so
    // positional superko forbids move 12 although simple ko allows it.
    let base: Vec<(u8, u16)> = vec![
        (b'B', idx("gf")),
        (b'W', idx("hf")),
        (b'B', idx("fg")),
        (b'W', idx("gg")),
        (b'B', idx("gh")),
        (b'W', idx("ig")),
        (b'B', idx("ss")),
        (b'W', idx("hh")),
        (b'B', idx("hg")), // 9: black takes the ko
        (b'W', kibo::coord::PASS),
        (b'B', kibo::coord::PASS),
        (b'W', idx("gg")), // 12: white retakes (ban cleared by the passes)
        (b'B', kibo::coord::PASS),
        (b'W', kibo::coord::PASS),
        (b'B', idx("hg")), // 15: black retakes: same stones as after move 9
    ];
    let g = row(&base);
    assert!(replay_game(&g, &SplitConfig::default()).is_ok());
    let psk = SplitConfig { superko: kibo::engine::SuperkoMode::Positional, ..SplitConfig::default() };
    match replay_game(&g, &psk) {
        Err(e) => assert_eq!((e.reason.as_str(), e.move_number), ("superko_violation", Some(12))),
        Ok(_) => panic!("superko not detected"),
    }
}

#[test]
fn sampling_options() {
    let mut g = row(&[
        (b'B', idx("pd")),
        (b'W', idx("dd")),
        (b'B', kibo::coord::PASS),
        (b'W', idx("pp")),
        (b'B', idx("dp")),
        (b'W', idx("qq")),
    ]);
    g.meta.winner = Some(Color::White);
    let count = |cfg: &SplitConfig| match replay_game(&g, cfg) {
        Ok(s) => s.samples.len(),
        Err(e) => panic!("{}", e.reason),
    };
    assert_eq!(count(&SplitConfig::default()), 6);
    assert_eq!(count(&SplitConfig { drop_passes: true, ..Default::default() }), 5);
    assert_eq!(count(&SplitConfig { winner_only: true, ..Default::default() }), 3);
    assert_eq!(count(&SplitConfig { max_samples_per_game: 2, ..Default::default() }), 2);
    assert_eq!(kibo::stages::split::spread(10, 3), vec![1, 5, 8]);
    assert_eq!(kibo::stages::split::spread(3, 5), vec![0, 1, 2]);
}

#[test]
fn position_hash_is_pinned() {
    // The documented recipe: blake3(361 cells || to_play || ko u16le), first 16 bytes.
    let mut cells = [0u8; NN];
    cells[3 * 19 + 15] = 1; // Q16
    let h = kibo::samples::position_hash(&cells, 2, None);
    let mut buf = cells.to_vec();
    buf.push(2);
    buf.extend_from_slice(&0xFFFFu16.to_le_bytes());
    assert_eq!(&h[..], &blake3::hash(&buf).as_bytes()[..16]);
    assert_ne!(h, kibo::samples::position_hash(&cells, 1, None));
    assert_ne!(h, kibo::samples::position_hash(&cells, 2, Some(0)));
}

#[test]
fn batched_position_hashes_equal_blake3() {
    // `position_hashes` composes blake3's internal compression routines; it must give
    // exactly `blake3::hash` for every batch size (SIMD groups of 4, 8 or 16 and the
    // rest) and every kind of position (random cells, side, ko or none).
    let mut rng = 0x9E3779B97F4A7C15u64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    for n in [0usize, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 100, 257] {
        let encs: Vec<[u8; kibo::samples::ENCODING_LEN]> = (0..n)
            .map(|_| {
                let mut cells = [0u8; NN];
                cells.iter_mut().for_each(|c| *c = (next() % 3) as u8);
                let ko = (next() % 4 == 0).then(|| (next() % NN as u64) as u16);
                kibo::samples::encoding(&cells, 1 + (next() % 2) as u8, ko)
            })
            .collect();
        let mut out = vec![[0xAAu8; 16]; n];
        kibo::samples::position_hashes(&encs, &mut out);
        for (e, h) in encs.iter().zip(&out) {
            assert_eq!(&h[..], &blake3::hash(e).as_bytes()[..16], "batch of {n}");
        }
    }
    let cells = [0u8; NN];
    assert_eq!(kibo::samples::encoding(&cells, 2, Some(0x0102))[NN..], [2, 0x02, 0x01]);
}

#[test]
fn run_adds_up_and_is_identical_across_threads() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    for (out, t) in [(&a, "1"), (&b, "2")] {
        let o =
            run(&["run", "--pipeline", "pipelines/default.toml", "--out", out.to_str().unwrap(), "--threads", t, "-q"]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    assert_eq!(snapshot(&a), snapshot(&b));
    // A second split over the same games gives the same bytes.
    let before = snapshot(&a);
    let o = run(&["split", "--pipeline", "pipelines/default.toml", "--out", a.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(snapshot(&a), before);
    let rep = report(&a);
    let s = &rep["split"];
    let kept = rep["filter"]["total"]["games_kept"].as_u64().unwrap();
    assert_eq!(s["games_in"].as_u64().unwrap(), kept);
    assert_eq!(s["games_replayed"].as_u64().unwrap() + s["games_rejected"].as_u64().unwrap(), kept);
    // Default sampling options keep every move; dedup then keeps one row per position.
    assert_eq!(s["samples_before_dedup"], s["moves"]);
    assert_eq!(s["samples"], s["dedup"]["unique_positions"]);
    assert!(s["samples"].as_u64().unwrap() < s["moves"].as_u64().unwrap());
    let by_split: u64 = s["samples_by_split"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(by_split, s["samples"].as_u64().unwrap());
    let games = crate::util::games(&a);
    let moves: u64 = games.iter().map(|g| g.moves.len() as u64).sum();
    assert_eq!(s["moves"].as_u64().unwrap(), moves);
}
