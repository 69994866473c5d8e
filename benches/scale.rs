//! `cargo bench --bench scale` (`make bench-scale`): kibo at scale. Builds large corpora
//! deterministically from the dev games, runs the release `kibo run` on them at three sizes
//! (about 10^6, 10^7 and 10^8 samples) and prints one table. It prints and asserts
//! nothing, and exits 0 even when a run fails (the failure is printed).
//!
//! Two jobs, chosen by the arguments after `--`:
//!
//! * **runner** (no arguments, the default): for each size, makes the corpus under
//!   `$SCALE_ROOT/<size>/` (or reuses it: its `stamp` file records the generator version,
//!   the target, the base games' fingerprint and the figures), then runs
//!   `/usr/bin/time -f '%e %U %S %M' $KIBO run --input CORPUS --out OUT -q --threads 2`
//!   on each layout, and the middle size once more with `--threads 1` (its samples shards
//!   are compared, blake3 of every file under `samples/`, with the 2-thread run's). When
//!   `kibo run --help` lists `--memory-mb`, `--memory-mb $SCALE_MEMORY_MB` is passed and
//!   printed as the budget; otherwise nothing is passed and the budget reads `n/a`.
//!   Each output is deleted once measured (`SCALE_KEEP_OUT=1` keeps them); corpora are kept.
//!   Then prints one row per run: size, layout, threads, games kept, moves read (samples
//!   before dedup), samples, wall s, CPU s (user + sys), CPU s per million samples, peak
//!   RSS (MiB), budget (MiB), bytes spilled by the dedup index (MB,
//!   `split.dedup.spill_bytes`), bytes per sample of the samples shards; then the
//!   CPU-per-sample ratio of the largest size over the one below, and the same per move
//!   read (the share of repeated positions differs by size, see below, so the per-move
//!   ratio is nearer kibo's own scaling; the corpora also differ in kind: random
//!   continuations dominate at 10^8). The `report` lines give each run's accounting.
//!   On a shared machine CPU figures move with the other load: compare one run's rows.
//! * **generator**: `cargo bench --bench scale -- gen SIZE [DIR]` writes the corpus for
//!   SIZE samples to DIR (default `$SCALE_ROOT/SIZE`) and prints its figures.
//!
//! Environment:
//!
//! * `SCALE_SIZES`: comma-separated sample targets, default `1e6,1e7,1e8` (`1e7`, `2500000`).
//! * `SCALE_LAYOUTS`: `files`, `sgfs` or both (default `files,sgfs`), the layouts run.
//! * `SCALE_ROOT`: where corpora and outputs go, default `/tmp/kibo-scale`.
//! * `SCALE_MEMORY_MB`: the budget passed as `--memory-mb` when kibo has it, default 1024.
//! * `SCALE_KEEP_OUT=1`: keep the outputs (`$SCALE_ROOT/out/`).
//! * `KIBO`: the kibo binary, default `$CARGO_TARGET_DIR/release/kibo` (build it first:
//!   `cargo build --release --bin kibo`; `make bench-scale` does).
//! * `SHARED`: the shared data folder, default `../shared/data`; the base games are read
//!   from `$SHARED/dev`. When it is absent, one line says so and nothing is measured.
//!
//! The corpus. Base games: every game of `$SHARED/dev` (read with `kibo::input::walk` and
//! `kibo::sgf::read_games`) that is 19×19, has at least 20 moves, no setup after the first
//! move, and replays legally with `Board::play`; exact repeats (same setup and moves) are
//! kept once. Games are then made in this order until the target is reached:
//!
//! 1. the 16 variants of each base game: 8 board symmetries (`coord::symmetry_index`) × 2
//!    colour swaps (B and W of every move and setup stone exchanged), variant by variant;
//! 2. seeded continuations: a random variant of a random base game replayed for its first
//!    k moves (k in 10..=120, less than the game's length), then 100..=250 random legal moves
//!    (`Board::play` decides legality; a point whose 4 neighbours are all own stones or
//!    off the board is never played), then two passes.
//!
//! Randomness is one splitmix64 with a fixed seed, so a corpus is a function of the base
//! games and the target alone, and a smaller corpus is a prefix of a larger one. The target
//! counts the positions expected to be new (what dedup keeps): a variant's moves less 4
//! (its first positions repeat across games: empty board, common openings; dedup merges
//! 4 to 7 per variant on the dev games), and a continuation's random moves plus one (its
//! replayed prefix repeats its base game). Total moves are therefore above the target:
//! 1.02-1.03× up to ~10^7 (variants only), 1.34× at 10^8 (continuations dominate); the
//! samples kept come to 99.5-99.9% of the target.
//!
//! Layouts, both written in one pass: `files/part-NNNNN.sgf` (1,000 games per multi-game
//! file) and `games.sgfs` (one game per line). Games are
//! `(;GM[1]FF[4]SZ[19]KM[6.5]RE[?]GN[..]PB[..]PW[..]AB[..]AW[..];B[pd];W[dd]...)`.
use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use kibo::coord::{move_texts, symmetry_index, Move, Point, N, NN, PASS};
use kibo::engine::{Board, Color, Rules, EMPTY};
use kibo::input::{walk, Item, Limits};

/// Bump when the generated games change: a stamp of another version is regenerated.
const GEN_VERSION: u32 = 1;
/// Fixed seed of the one PRNG.
const SEED: u64 = 0x6b69_626f_7363_616c;
/// Games per `.sgf` file of the `files` layout.
const GAMES_PER_FILE: usize = 1000;
/// Threads of every run (and 1 for the middle size's second run).
const THREADS: usize = 2;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let root = PathBuf::from(env_or("SCALE_ROOT", "/tmp/kibo-scale"));
    let dev = Path::new(&env_or("SHARED", "../shared/data")).join("dev");
    if !dev.exists() {
        println!("bench-scale: {} is absent; nothing measured", dev.display());
        return;
    }
    match args.first().map(String::as_str) {
        Some("gen") => {
            let Some(size) = args.get(1).and_then(|s| parse_size(s)) else {
                println!("usage: cargo bench --bench scale -- gen SIZE [DIR]   (SIZE e.g. 1e7)");
                return;
            };
            let dir = args.get(2).map(PathBuf::from).unwrap_or_else(|| root.join(&args[1]));
            let bases = load_bases(&dev);
            match ensure_corpus(&bases, size, &dir) {
                Ok(c) => println!("{}", c.describe(&args[1])),
                Err(e) => println!("bench-scale: generating {}: {e:#}", dir.display()),
            }
        }
        None => runner(&root, &dev),
        Some(other) => println!("bench-scale: unknown argument {other:?} (expected none, or `gen SIZE [DIR]`)"),
    }
}

fn env_or(key: &str, default: &str) -> String {
    std::env::var(key).ok().filter(|v| !v.trim().is_empty()).unwrap_or_else(|| default.to_string())
}

/// `1e7`, `2.5e6` or `1000000`.
fn parse_size(s: &str) -> Option<u64> {
    let v: f64 = s.trim().parse().ok()?;
    (1.0..1e15).contains(&v).then_some(v as u64)
}

// ---------------------------------------------------------------------------------------
// Generator
// ---------------------------------------------------------------------------------------

/// splitmix64 (Steele, Lea, Flood 2014).
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (multiply-shift; the bias is below 2^-50 for these n).
    fn below(&mut self, n: u64) -> u64 {
        ((self.next() as u128 * n as u128) >> 64) as u64
    }
    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }
}

/// A base game: setup stones `(point index, cell value)` and moves `(cell value, index)`.
struct Base {
    setup: Vec<(u16, u8)>,
    moves: Vec<(u8, u16)>,
}

/// Setup and moves: what makes two base games the same.
type GameKey = (Vec<(u16, u8)>, Vec<(u8, u16)>);

/// The base games and a fingerprint of them (for the stamp).
struct Bases {
    games: Vec<Base>,
    fingerprint: String,
    /// Games read, and why the others were left out.
    read: u64,
    skipped: BTreeMap<&'static str, u64>,
}

/// The base games of `dev`, with one line saying how many and why the others were left out.
fn load_bases(dev: &Path) -> Bases {
    let t = Instant::now();
    let b = read_bases(dev);
    let moves: usize = b.games.iter().map(|b| b.moves.len()).sum();
    println!(
        "base games: {} of {} read in {} ({} moves; left out: {}) in {:.1}s",
        b.games.len(),
        b.read,
        dev.display(),
        moves,
        b.skipped.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", "),
        t.elapsed().as_secs_f64()
    );
    b
}

fn read_bases(dev: &Path) -> Bases {
    let mut docs: Vec<Vec<u8>> = Vec::new();
    walk(&[dev.to_path_buf()], &Limits::default(), |item| match item {
        Item::Sgf { bytes, .. } | Item::SgfLine { bytes, .. } => docs.push(bytes),
        _ => {}
    });
    let mut out = Bases { games: Vec::new(), fingerprint: String::new(), read: 0, skipped: BTreeMap::new() };
    let mut seen: HashSet<GameKey> = HashSet::new();
    let rules = Rules::default();
    for doc in &docs {
        for g in kibo::sgf::read_games(doc).games {
            out.read += 1;
            let why = match g {
                Err(e) => Some(e.reason.as_str()),
                Ok(g) => {
                    let mut setup: Vec<(u16, u8)> = g.setup_black.iter().map(|p| (p.index(), 1)).collect();
                    setup.extend(g.setup_white.iter().map(|p| (p.index(), 2)));
                    let moves: Vec<(u8, u16)> = g.moves.iter().map(|m| (m.color as u8, m.mv.index())).collect();
                    if g.size != (19, 19) {
                        Some("not 19x19")
                    } else if moves.len() < 20 {
                        Some("under 20 moves")
                    } else if !g.mid_setup.is_empty() {
                        Some("setup after the first move")
                    } else if !replays(&setup, &moves, &rules) {
                        Some("illegal replay")
                    } else if !seen.insert((setup.clone(), moves.clone())) {
                        Some("repeat")
                    } else {
                        out.games.push(Base { setup, moves });
                        None
                    }
                }
            };
            if let Some(why) = why {
                *out.skipped.entry(why).or_default() += 1;
            }
        }
    }
    let mut h = blake3::Hasher::new();
    for b in &out.games {
        h.update(&(b.setup.len() as u32).to_le_bytes());
        for &(i, v) in &b.setup {
            h.update(&i.to_le_bytes());
            h.update(&[v]);
        }
        h.update(&(b.moves.len() as u32).to_le_bytes());
        for &(v, i) in &b.moves {
            h.update(&[v]);
            h.update(&i.to_le_bytes());
        }
    }
    out.fingerprint = h.finalize().to_hex()[..16].to_string();
    out
}

fn replays(setup: &[(u16, u8)], moves: &[(u8, u16)], rules: &Rules) -> bool {
    let mut b = Board::new();
    for &(i, v) in setup {
        let Some(p) = Point::from_index(i) else { return false };
        if b.set_stone(p, v).is_err() {
            return false;
        }
    }
    moves.iter().all(|&(v, i)| match (Color::from_u8(v), Move::from_index(i)) {
        (Some(c), Some(m)) => b.play(c, m, rules).is_ok(),
        _ => false,
    })
}

/// Cell value after an optional colour swap.
fn tc(v: u8, swap: bool) -> u8 {
    if swap {
        3 - v
    } else {
        v
    }
}

/// The two layouts being written, and the counts.
struct Writer {
    files_dir: PathBuf,
    file: Option<BufWriter<File>>,
    in_file: usize,
    n_files: usize,
    sgfs: BufWriter<File>,
    /// The game being written (reused: no allocation per game once grown).
    buf: Vec<u8>,
    /// SGF letters of every point index (from `coord::move_texts`).
    letters: [[u8; 2]; NN],
    games: u64,
    moves: u64,
    fresh: u64,
    variants: u64,
    continuations: u64,
}

impl Writer {
    fn new(dir: &Path) -> anyhow::Result<Writer> {
        let files_dir = dir.join("files");
        std::fs::create_dir_all(&files_dir)?;
        let sgfs = BufWriter::with_capacity(1 << 20, File::create(dir.join("games.sgfs"))?);
        let mut letters = [[0u8; 2]; NN];
        for (i, (sgf, _)) in move_texts().iter().take(NN).enumerate() {
            letters[i].copy_from_slice(sgf.as_bytes());
        }
        Ok(Writer {
            files_dir,
            file: None,
            in_file: 0,
            n_files: 0,
            sgfs,
            buf: Vec::with_capacity(8192),
            letters,
            games: 0,
            moves: 0,
            fresh: 0,
            variants: 0,
            continuations: 0,
        })
    }

    /// Root node of a game: header and the base's setup under symmetry `s` and `swap`.
    fn begin(&mut self, base: &Base, s: u8, swap: bool) {
        self.buf.clear();
        let n = self.games;
        let _ = write!(self.buf, "(;GM[1]FF[4]SZ[19]KM[6.5]RE[?]GN[kibo-scale {n}]PB[black {n}]PW[white {n}]");
        for (prop, colour) in [(b"AB", 1u8), (b"AW", 2u8)] {
            let mut any = false;
            for &(i, v) in &base.setup {
                if tc(v, swap) == colour {
                    if !any {
                        self.buf.extend_from_slice(prop);
                        any = true;
                    }
                    let l = self.letters[symmetry_index(i, s) as usize];
                    self.buf.extend_from_slice(&[b'[', l[0], l[1], b']']);
                }
            }
        }
    }

    /// One move node; `i` is already transformed.
    #[inline]
    fn push(&mut self, v: u8, i: u16) {
        let c = if v == 1 { b'B' } else { b'W' };
        if i == PASS {
            self.buf.extend_from_slice(&[b';', c, b'[', b']']);
        } else {
            let l = self.letters[i as usize];
            self.buf.extend_from_slice(&[b';', c, b'[', l[0], l[1], b']']);
        }
    }

    /// Closes the game and writes it to both layouts.
    fn end(&mut self) -> anyhow::Result<()> {
        self.buf.extend_from_slice(b")\n");
        if self.file.is_none() || self.in_file == GAMES_PER_FILE {
            if let Some(mut f) = self.file.take() {
                f.flush()?;
            }
            let path = self.files_dir.join(format!("part-{:05}.sgf", self.n_files));
            self.file = Some(BufWriter::with_capacity(1 << 20, File::create(path)?));
            self.n_files += 1;
            self.in_file = 0;
        }
        self.file.as_mut().expect("invariant: a file is open").write_all(&self.buf)?;
        self.in_file += 1;
        self.sgfs.write_all(&self.buf)?;
        self.games += 1;
        Ok(())
    }

    fn finish(mut self) -> anyhow::Result<(u64, u64, u64, u64, u64, usize)> {
        if let Some(mut f) = self.file.take() {
            f.flush()?;
        }
        self.sgfs.flush()?;
        Ok((self.games, self.moves, self.fresh, self.variants, self.continuations, self.n_files))
    }
}

/// One of the 16 variants of a base game.
fn write_variant(w: &mut Writer, b: &Base, s: u8, swap: bool) -> anyhow::Result<()> {
    w.begin(b, s, swap);
    for &(v, i) in &b.moves {
        w.push(tc(v, swap), symmetry_index(i, s));
    }
    w.end()?;
    w.moves += b.moves.len() as u64;
    w.fresh += b.moves.len().saturating_sub(4) as u64;
    w.variants += 1;
    Ok(())
}

/// Whether `p` is a single-point eye of `c`: every neighbour is `c`'s stone or off the board.
#[inline]
fn own_eye(board: &Board, p: Point, c: u8) -> bool {
    let (r, col) = (p.row as usize, p.col as usize);
    let own = |r: usize, col: usize| board.get(Point { row: r as u8, col: col as u8 }) == c;
    (r == 0 || own(r - 1, col))
        && (r + 1 == N || own(r + 1, col))
        && (col == 0 || own(r, col - 1))
        && (col + 1 == N || own(r, col + 1))
}

/// Tries to play point index `i` for `c`; true when it was played.
#[inline]
fn try_play(board: &mut Board, c: Color, i: u16, rules: &Rules) -> bool {
    let p = Point::from_index(i).expect("invariant: index below NN");
    board.get(p) == EMPTY && !own_eye(board, p, c as u8) && board.play(c, Move::Play(p), rules).is_ok()
}

/// Plays a random legal non-eye-filling move for `c`: 32 random draws, then a scan of
/// every point from a random start. `None` when there is no such move.
fn random_move(board: &mut Board, c: Color, rng: &mut SplitMix, rules: &Rules) -> Option<u16> {
    for _ in 0..32 {
        let i = rng.below(NN as u64) as u16;
        if try_play(board, c, i, rules) {
            return Some(i);
        }
    }
    let start = rng.below(NN as u64) as usize;
    (0..NN).map(|j| ((start + j) % NN) as u16).find(|&i| try_play(board, c, i, rules))
}

/// A seeded continuation of a random variant of a random base game.
fn write_continuation(w: &mut Writer, bases: &[Base], rng: &mut SplitMix, rules: &Rules) -> anyhow::Result<()> {
    let b = &bases[rng.below(bases.len() as u64) as usize];
    let v = rng.below(16);
    let (s, swap) = ((v & 7) as u8, v >= 8);
    let k = (rng.range(10, 120) as usize).min(b.moves.len() - 1);
    let extra = rng.range(100, 250);
    let mut board = Board::new();
    for &(i, c) in &b.setup {
        let p = Point::from_index(symmetry_index(i, s)).expect("invariant: setup point on the board");
        let _ = board.set_stone(p, tc(c, swap));
    }
    w.begin(b, s, swap);
    let mut to_move = Color::Black;
    for &(c, i) in &b.moves[..k] {
        let (c, i) = (tc(c, swap), symmetry_index(i, s));
        let colour = Color::from_u8(c).expect("invariant: a base move has a colour");
        let m = Move::from_index(i).expect("invariant: a base move is on the board or a pass");
        // Base games replay legally, and symmetry and colour swap keep legality.
        let _ = board.play(colour, m, rules);
        w.push(c, i);
        to_move = colour.opponent();
    }
    let mut played = 0u64;
    while played < extra {
        match random_move(&mut board, to_move, rng, rules) {
            Some(i) => {
                w.push(to_move as u8, i);
                to_move = to_move.opponent();
                played += 1;
            }
            None => break,
        }
    }
    w.push(to_move as u8, PASS);
    w.push(to_move.opponent() as u8, PASS);
    w.end()?;
    w.moves += k as u64 + played + 2;
    w.fresh += played + 1;
    w.continuations += 1;
    Ok(())
}

/// A corpus on disk, as its stamp records it.
struct Corpus {
    dir: PathBuf,
    reused: bool,
    seconds: f64,
    games: u64,
    moves: u64,
    fresh: u64,
    variants: u64,
    continuations: u64,
    files: usize,
    bytes_files: u64,
    bytes_sgfs: u64,
}

impl Corpus {
    fn describe(&self, label: &str) -> String {
        let how = if self.reused {
            "reused (stamp matches)".to_string()
        } else {
            format!(
                "generated in {:.1}s ({:.0} moves/s, {:.1} MB/s of SGF per layout)",
                self.seconds,
                self.moves as f64 / self.seconds.max(1e-9),
                self.bytes_sgfs as f64 / 1e6 / self.seconds.max(1e-9)
            )
        };
        format!(
            "corpus {label}: {how}: {} games ({} variants, {} continuations), {} moves, {} expected new positions; \
             files/ {} files {:.1} MB, games.sgfs {:.1} MB ({})",
            self.games,
            self.variants,
            self.continuations,
            self.moves,
            self.fresh,
            self.files,
            self.bytes_files as f64 / 1e6,
            self.bytes_sgfs as f64 / 1e6,
            self.dir.display()
        )
    }

    fn stamp(&self, head: &str) -> String {
        format!(
            "{head}games {}\nmoves {}\nfresh {}\nvariants {}\ncontinuations {}\nfiles {}\nbytes_files {}\nbytes_sgfs {}\nseconds {:.3}\n",
            self.games,
            self.moves,
            self.fresh,
            self.variants,
            self.continuations,
            self.files,
            self.bytes_files,
            self.bytes_sgfs,
            self.seconds
        )
    }

    fn from_stamp(dir: &Path, text: &str) -> Option<Corpus> {
        let get = |k: &str| -> Option<u64> {
            text.lines().find_map(|l| l.strip_prefix(k)?.strip_prefix(' ')?.parse::<f64>().ok()).map(|v| v as u64)
        };
        Some(Corpus {
            dir: dir.to_path_buf(),
            reused: true,
            seconds: 0.0,
            games: get("games")?,
            moves: get("moves")?,
            fresh: get("fresh")?,
            variants: get("variants")?,
            continuations: get("continuations")?,
            files: get("files")? as usize,
            bytes_files: get("bytes_files")?,
            bytes_sgfs: get("bytes_sgfs")?,
        })
    }
}

/// The corpus for `target` samples in `dir`: reused when its stamp matches, else
/// generated afresh (into `dir.tmp`, renamed when complete; the stamp is written last).
fn ensure_corpus(bases: &Bases, target: u64, dir: &Path) -> anyhow::Result<Corpus> {
    let head = format!(
        "kibo bench-scale corpus v{GEN_VERSION}\ntarget {target}\nbase_games {} {}\nseed {SEED:#x}\n",
        bases.games.len(),
        bases.fingerprint
    );
    if let Ok(text) = std::fs::read_to_string(dir.join("stamp")) {
        if text.starts_with(&head) {
            if let Some(c) = Corpus::from_stamp(dir, &text[head.len()..]) {
                return Ok(c);
            }
        }
    }
    anyhow::ensure!(!bases.games.is_empty(), "no base games");
    let tmp = dir.with_extension("tmp");
    let _ = std::fs::remove_dir_all(&tmp);
    let _ = std::fs::remove_dir_all(dir);
    let t = Instant::now();
    let mut w = Writer::new(&tmp)?;
    let rules = Rules::default();
    'variants: for v in 0..16u8 {
        for b in &bases.games {
            if w.fresh >= target {
                break 'variants;
            }
            write_variant(&mut w, b, v & 7, v >= 8)?;
        }
    }
    let mut rng = SplitMix(SEED);
    while w.fresh < target {
        write_continuation(&mut w, &bases.games, &mut rng, &rules)?;
    }
    let (games, moves, fresh, variants, continuations, files) = w.finish()?;
    let seconds = t.elapsed().as_secs_f64();
    let bytes_sgfs = std::fs::metadata(tmp.join("games.sgfs"))?.len();
    let mut bytes_files = 0;
    for e in std::fs::read_dir(tmp.join("files"))? {
        bytes_files += e?.metadata()?.len();
    }
    std::fs::rename(&tmp, dir)?;
    let c = Corpus {
        dir: dir.to_path_buf(),
        reused: false,
        seconds,
        games,
        moves,
        fresh,
        variants,
        continuations,
        files,
        bytes_files,
        bytes_sgfs,
    };
    std::fs::write(dir.join("stamp"), c.stamp(&head))?;
    Ok(c)
}

// ---------------------------------------------------------------------------------------
// Runner
// ---------------------------------------------------------------------------------------

/// What one `kibo run` gave.
struct RunRow {
    label: String,
    layout: &'static str,
    threads: usize,
    outcome: Result<Measured, String>,
}

struct Measured {
    games: u64,
    /// Samples before dedup (= moves replayed).
    moves: u64,
    samples: u64,
    wall: f64,
    cpu: f64,
    rss_kib: u64,
    spill_bytes: u64,
    shard_bytes: u64,
    note: String,
}

fn runner(root: &Path, dev: &Path) {
    let sizes_text = env_or("SCALE_SIZES", "1e6,1e7,1e8");
    let mut sizes: Vec<(String, u64)> = Vec::new();
    for s in sizes_text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match parse_size(s) {
            Some(n) => sizes.push((s.to_string(), n)),
            None => println!("bench-scale: SCALE_SIZES: {s:?} is not a number; left out"),
        }
    }
    sizes.sort_by_key(|s| s.1);
    let mut layouts: Vec<&'static str> = Vec::new();
    for l in env_or("SCALE_LAYOUTS", "files,sgfs").split(',').map(str::trim) {
        match l {
            "files" => layouts.push("files"),
            "sgfs" => layouts.push("sgfs"),
            "" => {}
            other => println!("bench-scale: SCALE_LAYOUTS: unknown layout {other:?} (files, sgfs); left out"),
        }
    }
    if sizes.is_empty() || layouts.is_empty() {
        println!("bench-scale: no sizes or no layouts; nothing measured");
        return;
    }
    let kibo = match std::env::var("KIBO") {
        Ok(k) if !k.is_empty() => PathBuf::from(k),
        _ => Path::new(&env_or("CARGO_TARGET_DIR", "target")).join("release/kibo"),
    };
    let help = Command::new(&kibo).args(["run", "--help"]).output();
    let help = match help {
        Ok(o) => String::from_utf8_lossy(&o.stdout).into_owned(),
        Err(e) => {
            println!("bench-scale: cannot run {}: {e} (build it: cargo build --release --bin kibo)", kibo.display());
            return;
        }
    };
    let budget: Option<u64> =
        help.contains("--memory-mb").then(|| env_or("SCALE_MEMORY_MB", "1024").parse().unwrap_or(1024));
    let keep = std::env::var("SCALE_KEEP_OUT").is_ok_and(|v| v == "1");
    let t1_size = sizes[sizes.len() / 2].1;
    println!(
        "bench-scale: kibo {}; sizes {}; layouts {}; {} threads (and 1 on {}); memory budget {}; root {}",
        kibo.display(),
        sizes.iter().map(|s| s.0.as_str()).collect::<Vec<_>>().join(","),
        layouts.join(","),
        THREADS,
        sizes[sizes.len() / 2].0,
        budget.map_or("n/a (kibo run has no --memory-mb; nothing passed)".to_string(), |b| format!("{b} MiB")),
        root.display()
    );
    let bases = load_bases(dev);
    let out_root = root.join("out");
    let mut rows: Vec<RunRow> = Vec::new();
    let mut identity: Option<String> = None;
    for (label, size) in &sizes {
        let corpus = match ensure_corpus(&bases, *size, &root.join(label)) {
            Ok(c) => c,
            Err(e) => {
                println!("corpus {label}: FAILED: {e:#}");
                continue;
            }
        };
        println!("{}", corpus.describe(label));
        for (li, &layout) in layouts.iter().enumerate() {
            let input = match layout {
                "files" => corpus.dir.join("files"),
                _ => corpus.dir.join("games.sgfs"),
            };
            let out = out_root.join(format!("{label}-{layout}-t{THREADS}"));
            let outcome = run_kibo(&kibo, &input, &out, THREADS, budget);
            println!("ran {label} {layout} t{THREADS}: {}", brief(&outcome));
            let ok = outcome.is_ok();
            rows.push(RunRow { label: label.clone(), layout, threads: THREADS, outcome });
            if *size == t1_size && li == 0 {
                let out1 = out_root.join(format!("{label}-{layout}-t1"));
                let outcome = run_kibo(&kibo, &input, &out1, 1, budget);
                println!("ran {label} {layout} t1: {}", brief(&outcome));
                if ok && outcome.is_ok() {
                    identity = Some(format!("{label} {layout}: {}", compare_samples(&out, &out1)));
                } else {
                    identity = Some(format!("{label} {layout}: not compared (a run failed)"));
                }
                rows.push(RunRow { label: label.clone(), layout, threads: 1, outcome });
                if !keep {
                    let _ = std::fs::remove_dir_all(&out1);
                }
            }
            if !keep {
                let _ = std::fs::remove_dir_all(&out);
            }
        }
    }
    print_table(&rows, budget);
    // CPU per sample, largest size over the one below it, per layout (2 threads).
    if sizes.len() >= 2 {
        let (hi, lo) = (&sizes[sizes.len() - 1].0, &sizes[sizes.len() - 2].0);
        for &layout in &layouts {
            let find = |label: &str| {
                rows.iter()
                    .find(|r| r.label == label && r.layout == layout && r.threads == THREADS)
                    .and_then(|r| r.outcome.as_ref().ok())
            };
            match (find(hi), find(lo)) {
                (Some(a), Some(b)) => {
                    let per = |m: &Measured, n: u64| m.cpu / (n.max(1) as f64 / 1e6);
                    let (sa, sb) = (per(a, a.samples), per(b, b.samples));
                    let (ma, mb) = (per(a, a.moves), per(b, b.moves));
                    println!(
                        "CPU-s per million samples, {hi} over {lo} ({layout}, {THREADS} threads): {sa:.2} / {sb:.2} = {:.3}; \
                         per million moves read (samples before dedup): {ma:.2} / {mb:.2} = {:.3}",
                        sa / sb,
                        ma / mb
                    )
                }
                _ => println!("CPU-s per million samples, {hi} over {lo} ({layout}): n/a (a run failed)"),
            }
        }
    }
    if let Some(line) = identity {
        println!("samples shards, --threads {THREADS} vs --threads 1, {line}");
    }
    for r in &rows {
        if let Ok(m) = &r.outcome {
            println!("report {} {} t{}: {}", r.label, r.layout, r.threads, m.note);
        }
    }
}

fn brief(o: &Result<Measured, String>) -> String {
    match o {
        Ok(m) => {
            format!("{} samples, wall {:.1}s, CPU {:.1}s, peak RSS {} MiB", m.samples, m.wall, m.cpu, m.rss_kib / 1024)
        }
        Err(e) => format!("FAILED: {e}"),
    }
}

fn run_kibo(kibo: &Path, input: &Path, out: &Path, threads: usize, budget: Option<u64>) -> Result<Measured, String> {
    let _ = std::fs::remove_dir_all(out);
    std::fs::create_dir_all(out.parent().unwrap_or(out)).map_err(|e| format!("{}: {e}", out.display()))?;
    let timing = out.with_extension("time");
    let log = out.with_extension("log");
    let log_file = File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
    let mut cmd = Command::new("/usr/bin/time");
    cmd.arg("-o").arg(&timing).args(["-f", "%e %U %S %M"]).arg(kibo).arg("run").arg("--input").arg(input);
    cmd.arg("--out").arg(out).arg("-q").args(["--threads", &threads.to_string()]);
    if let Some(b) = budget {
        cmd.args(["--memory-mb", &b.to_string()]);
    }
    let err_file = log_file.try_clone().map_err(|e| e.to_string())?;
    let status = cmd.stdout(log_file).stderr(err_file).status().map_err(|e| format!("/usr/bin/time: {e}"))?;
    let log_text = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    let time_text = std::fs::read_to_string(&timing).unwrap_or_default();
    let _ = std::fs::remove_file(&timing);
    // kibo: 0 all read, 1 some inputs unreadable (still a complete run).
    if !matches!(status.code(), Some(0) | Some(1)) {
        let tail: Vec<&str> = log_text.lines().rev().take(6).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(format!("exit {:?}: {} | {}", status.code(), tail.join(" | "), time_text.trim()));
    }
    let f: Vec<f64> = time_text.split_whitespace().rev().take(4).filter_map(|x| x.parse().ok()).collect();
    let [rss, sys, user, wall] = f[..] else {
        return Err(format!("cannot read /usr/bin/time's output {:?}", time_text.trim()));
    };
    let report: serde_json::Value = std::fs::read(out.join("report.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or_else(|| format!("no readable {}", out.join("report.json").display()))?;
    let u = |v: &serde_json::Value| v.as_u64().unwrap_or(0);
    let split = &report["split"];
    let shard_bytes = split["shards"].as_array().map_or(0, |a| a.iter().map(|s| u(&s["bytes"])).sum());
    let note = format!(
        "{}; {}; dedup peak memory {:.0} MiB, spilled {}",
        report["games"]["line"].as_str().unwrap_or("?"),
        split["accounting"]["line"].as_str().unwrap_or("?"),
        u(&split["dedup"]["peak_memory_bytes"]) as f64 / (1u64 << 20) as f64,
        split["dedup"]["spilled"]
    );
    Ok(Measured {
        games: u(&report["filter"]["total"]["games_kept"]),
        moves: u(&split["samples_before_dedup"]),
        samples: u(&split["samples"]),
        wall,
        cpu: user + sys,
        rss_kib: rss as u64,
        spill_bytes: u(&split["dedup"]["spill_bytes"]),
        shard_bytes,
        note,
    })
}

/// blake3 of every file under `samples/` of two outputs, compared.
fn compare_samples(a: &Path, b: &Path) -> String {
    let hashes = |dir: &Path| -> std::io::Result<BTreeMap<String, String>> {
        let mut m = BTreeMap::new();
        for e in std::fs::read_dir(dir.join("samples"))? {
            let e = e?;
            if e.file_type()?.is_file() {
                let mut h = blake3::Hasher::new();
                h.update_reader(File::open(e.path())?)?;
                m.insert(e.file_name().to_string_lossy().into_owned(), h.finalize().to_hex().to_string());
            }
        }
        Ok(m)
    };
    match (hashes(a), hashes(b)) {
        (Ok(x), Ok(y)) if x == y => format!("byte-identical ({} files)", x.len()),
        (Ok(x), Ok(y)) => {
            let differ: Vec<&String> = x.keys().chain(y.keys()).filter(|k| x.get(*k) != y.get(*k)).collect();
            format!("DIFFER ({} vs {} files; differing: {:?})", x.len(), y.len(), differ)
        }
        (Err(e), _) | (_, Err(e)) => format!("not compared: {e}"),
    }
}

fn print_table(rows: &[RunRow], budget: Option<u64>) {
    let budget = budget.map_or("n/a".to_string(), |b| b.to_string());
    println!();
    println!(
        "{:<6} {:<6} {:>3} {:>9} {:>11} {:>11} {:>8} {:>8} {:>9} {:>9} {:>7} {:>10} {:>8}",
        "size",
        "layout",
        "thr",
        "games",
        "moves",
        "samples",
        "wall s",
        "CPU s",
        "CPU-s/M",
        "RSS MiB",
        "budget",
        "spilled MB",
        "B/sample"
    );
    for r in rows {
        match &r.outcome {
            Ok(m) => println!(
                "{:<6} {:<6} {:>3} {:>9} {:>11} {:>11} {:>8.1} {:>8.1} {:>9.2} {:>9.0} {:>7} {:>10.1} {:>8.2}",
                r.label,
                r.layout,
                r.threads,
                m.games,
                m.moves,
                m.samples,
                m.wall,
                m.cpu,
                m.cpu / (m.samples.max(1) as f64 / 1e6),
                m.rss_kib as f64 / 1024.0,
                budget,
                m.spill_bytes as f64 / 1e6,
                m.shard_bytes as f64 / m.samples.max(1) as f64
            ),
            Err(e) => println!("{:<6} {:<6} {:>3} FAILED: {e}", r.label, r.layout, r.threads),
        }
    }
    println!();
}
