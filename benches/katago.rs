//! `cargo bench --bench katago`: the `katago-v7` encoder's throughput on one core, and the
//! npz export of the dev corpus against its split stage. Prints figures, asserts nothing.
//!
//! 1. **Encoder**: every position of the first games of `$KGS` (default
//!    `../shared/data/dev/kgs-2001-archive`; the embedded sample when absent) until 8,000
//!    positions, replayed once beforehand; then `V7Encoder::encode` (22 spatial + 19
//!    global channels, ladder searches on the current board and the two before it, the
//!    area under area rules) on all of them, best of 5 passes (`PASSES=N` for N), one
//!    thread. `ENCODER_ONLY=1` stops there (for profiling).
//! 2. **Export vs split** (when `../shared/data/dev` exists): `kibo filter` of
//!    pipelines/dev.toml once, then `kibo split --threads 1` and `kibo export katago
//!    --threads 1` on its output, each timed by the CPU seconds (user + system) the child
//!    used, read from `/proc/self/stat` (`cutime`, `cstime`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use kibo::color::Color;
use kibo::coord::Move;
use kibo::engine::{Board, Rules};
use kibo::features::katago::{handicap_stones, KataRules, V7Encoder, V7Position, V7Row};
use kibo::game::GameRow;
use kibo::input::{walk, Item, Limits};
use kibo::replay::{replay, ReplayRules, Step, Visitor};

const POSITIONS: usize = 8_000;

struct Game {
    rules: KataRules,
    komi: f32,
    boards: Vec<Board>,
    moves: Vec<(Color, Move)>,
    setup: [u32; 2],
}

struct Boards(Vec<Board>);

impl Visitor for Boards {
    fn before(&mut self, b: &Board, _: &Step) {
        self.0.push(b.clone());
    }
}

fn load() -> Vec<Game> {
    let mut path = std::env::var("KGS").unwrap_or_else(|_| "../shared/data/dev/kgs-2001-archive".into());
    if !Path::new(&path).exists() {
        path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/kombilo").to_string();
        println!("bench: $KGS is absent; using the embedded sample {path}");
    }
    let mut docs = Vec::new();
    walk(&[PathBuf::from(&path)], &Limits::default(), |item| {
        if let Item::Sgf { bytes, .. } = item {
            docs.push(bytes)
        }
    });
    let rules =
        ReplayRules { rules: Rules { multi_stone_suicide: true }, allow_consecutive_moves: true, ..Default::default() };
    let mut games = Vec::new();
    let mut n = 0;
    for d in &docs {
        for g in kibo::sgf::read_games(d).games.into_iter().flatten() {
            let row = GameRow::from_record(&g, "bench", "bench", None, &[]);
            let mut v = Boards(Vec::new());
            if replay(&row, &rules, &mut v).is_err() || v.0.is_empty() {
                continue;
            }
            n += v.0.len();
            games.push(Game {
                rules: KataRules::from_ru(row.meta.rules.as_deref()),
                komi: row.meta.komi.unwrap_or(6.5),
                boards: v.0,
                moves: row.moves.iter().map(|m| (m.color, m.mv)).collect(),
                setup: [row.setup_black.len() as u32, row.setup_white.len() as u32],
            });
            if n >= POSITIONS {
                return games;
            }
        }
    }
    games
}

fn encode_all(games: &[Game], enc: &mut V7Encoder, row: &mut V7Row) -> (usize, u64) {
    let mut n = 0;
    let mut set = 0u64;
    for g in games {
        let mut placed = g.setup;
        for (i, b) in g.boards.iter().enumerate() {
            let recent: Vec<(Color, Move)> = g.moves[..i].iter().rev().take(5).copied().collect();
            let pos = V7Position {
                board: b,
                ko: b.ko_point(),
                prev: [i.checked_sub(1).map(|k| &g.boards[k]), i.checked_sub(2).map(|k| &g.boards[k])],
                earlier: Default::default(),
                to_play: g.moves[i].0,
                recent: &recent,
                rules: &g.rules,
                komi: g.komi,
                placed,
                handicap: handicap_stones(g.setup[0], g.setup[1], 0),
            };
            enc.encode(&pos, row);
            set += row.spatial[14 * 361..17 * 361].iter().map(|&v| v as u64).sum::<u64>();
            n += 1;
            if g.moves[i].1 != Move::Pass {
                placed[g.moves[i].0 as usize - 1] += 1;
            }
        }
    }
    (n, set)
}

fn children_cpu() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let f: Vec<&str> = s.rsplit_once(')').map_or("", |x| x.1).split_whitespace().collect();
    // After the ")": field 3 is index 0, so cutime (16) and cstime (17) are 13 and 14.
    let t = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (t(13) + t(14)) / 100.0
}

fn timed(kibo: &str, args: &[&str]) -> f64 {
    let before = children_cpu();
    let st = Command::new(kibo).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).status().expect("run kibo");
    assert!(st.success(), "kibo {args:?} failed");
    children_cpu() - before
}

fn main() {
    let games = load();
    let mut enc = V7Encoder::new();
    let mut row = V7Row::default();
    let mut best = f64::MAX;
    let (mut n, mut set) = (0, 0);
    for _ in 0..std::env::var("PASSES").map(|v| v.parse().unwrap()).unwrap_or(5) {
        let t0 = Instant::now();
        (n, set) = encode_all(&games, &mut enc, &mut row);
        best = best.min(t0.elapsed().as_secs_f64());
    }
    println!(
        "katago-v7 encode: {n} positions of {} games in {best:.3} s: {:.0} positions/s on one core (ladder bits set: {set})",
        games.len(),
        n as f64 / best
    );
    if std::env::var("ENCODER_ONLY").is_ok() {
        return;
    }
    let dev = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/dev");
    if !dev.exists() {
        println!("export vs split: {} is absent; not measured", dev.display());
        return;
    }
    let kibo = env!("CARGO_BIN_EXE_kibo");
    let tmp = std::env::temp_dir().join(format!("kibo-bench-katago-{}", std::process::id()));
    let out = tmp.join("out");
    let (o, d) = (out.to_str().unwrap(), tmp.join("npz"));
    timed(kibo, &["filter", "--pipeline", "pipelines/dev.toml", "--out", o, "-q"]);
    let split = timed(kibo, &["split", "--pipeline", "pipelines/dev.toml", "--out", o, "--threads", "1", "-q"]);
    let export = timed(kibo, &["export", "katago", "--out", o, "--to", d.to_str().unwrap(), "--threads", "1"]);
    println!(
        "dev corpus, one thread, CPU s: split {split:.1}, export katago {export:.1} (export / split = {:.2})",
        export / split
    );
    let _ = std::fs::remove_dir_all(&tmp);
}
