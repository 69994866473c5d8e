/*!
One game into samples: [`game_samples`] replays a [`GameRow`] through
[`crate::replay::replay`] with a [`SampleVisitor`] that records, for every eligible
move, the position before it (board, side to move, ko point, history and what each
history move captured, prisoners), the move and its tags, then applies the sampling
policy ([`super::policy`]).
*/

use std::sync::Arc;

use crate::color::Color;
use crate::config::SplitConfig;
use crate::coord::NN;
use crate::engine::{Board, Rules};
use crate::game::GameRow;
use crate::replay::{replay, Refusal, ReplayRules, Step, Visitor};
use crate::samples::{capture_code, BufMode, GameInfo, SampleBuf, SampleMove, HISTORY};
use crate::tactics::{PendingTags, Tagger, TAG_NAMES};

use super::policy::{self, Dropped};

/// Tag counts of every replayed move, in the bit order of [`TAG_NAMES`], then
/// `is_tactical` last.
pub type TagCounts = [u32; TAG_NAMES.len() + 1];

/// A game replayed into samples.
pub struct GameSamples {
    /// The samples kept by the sampling options.
    pub samples: SampleBuf,
    /// Moves replayed.
    pub moves: u64,
    /// Moves not sampled, by option.
    pub dropped: Dropped,
    /// One colour moved twice somewhere.
    pub consecutive: bool,
    /// Every replayed move counted per tag.
    pub tag_counts: TagCounts,
}

/// The replay rules of `[split]`.
pub fn replay_rules(cfg: &SplitConfig) -> ReplayRules {
    ReplayRules {
        rules: Rules { multi_stone_suicide: cfg.allow_multi_stone_suicide },
        superko: cfg.superko,
        allow_consecutive_moves: cfg.allow_consecutive_moves,
    }
}

/// Records samples around each move (see the module docs).
struct SampleVisitor<'a> {
    cfg: &'a SplitConfig,
    mode: BufMode,
    keep: Vec<bool>,
    buf: SampleBuf,
    tagger: Option<&'a mut Tagger>,
    pending: Option<PendingTags>,
    sample: Option<(SampleMove, usize, Option<[i8; NN]>)>,
    cells: [u8; NN],
    played: Vec<u16>,
    recent: [u16; HISTORY],
    /// What each move changed besides its own point (captures; mid-game setup before the
    /// next move): `changes[change_off[t]..change_off[t + 1]]` for move `t`, as
    /// `(old cell << 9) | point`.
    changes: Vec<u16>,
    change_off: Vec<u32>,
    /// The cells before the previous move (`None` before the first).
    prev_cells: Option<[u8; NN]>,
    captures: Vec<u16>,
    tag_counts: TagCounts,
}

impl Visitor for SampleVisitor<'_> {
    fn before(&mut self, board: &Board, s: &Step) {
        // The simple-ko ban binds one colour only (the opponent of the capturer).
        let ko = if board.ko_color() == Some(s.color) { board.ko_point().map(|p| p.index()) } else { None };
        // The tags need S and S′: half of them now, half after the move (no board copy).
        self.pending = self.tagger.as_mut().map(|t| t.before_move(board, s.color, s.mv));
        let full = matches!(self.mode, BufMode::Full | BufMode::NoHash);
        if full {
            self.record_changes(board);
        }
        if !self.keep[s.index] {
            return;
        }
        if !full {
            board.cells(&mut self.cells);
        }
        let k = self.played.len().min(HISTORY);
        self.captures.clear();
        for (j, slot) in self.recent.iter_mut().take(k).enumerate() {
            let t = self.played.len() - 1 - j;
            *slot = self.played[t];
            if full {
                let c = &self.changes[self.change_off[t] as usize..self.change_off[t + 1] as usize];
                self.captures.extend(c.iter().map(|&v| capture_code(j, (v >> 9) as u8, v & 511)));
            }
        }
        let clamp = |c: Color| board.prisoners(c).min(u16::MAX as u32) as u16;
        let sm = SampleMove {
            move_number: s.number.min(u16::MAX as u32) as u16,
            to_play: s.color.as_u8(),
            ko_point: ko,
            mv: s.mv,
            prisoners: [clamp(Color::Black), clamp(Color::White)],
        };
        let infl = (self.cfg.influence && full)
            .then(|| crate::scoring::influence_areas(&crate::scoring::influence(board), self.cfg.influence_threshold));
        self.sample = Some((sm, k, infl));
    }

    fn after(&mut self, board: &Board, s: &Step) {
        let tags = self.tagger.as_mut().zip(self.pending.take()).map(|(t, pending)| {
            let tg = t.after_move(pending, board);
            for (b, c) in self.tag_counts.iter_mut().take(TAG_NAMES.len()).enumerate() {
                *c += (tg.mask >> b) & 1;
            }
            self.tag_counts[TAG_NAMES.len()] += tg.is_tactical() as u32;
            (tg.mask, tg.capture_size, tg.self_atari_size)
        });
        if let Some((sm, k, infl)) = self.sample.take() {
            self.buf.push(&self.cells, sm, &self.recent[..k], &self.captures, tags);
            if let Some(areas) = infl {
                self.buf.push_influence(&areas);
            }
        }
        self.played.push(s.mv.index());
    }
}

impl SampleVisitor<'_> {
    /// Reads the cells now (before this move) into `cells` and records what the previous
    /// move changed besides its own point, from the cells before it; then keeps these.
    fn record_changes(&mut self, board: &Board) {
        board.cells(&mut self.cells);
        if let Some(prev) = &self.prev_cells {
            let own = self.played.last().copied().unwrap_or(NN as u16);
            // Eight cells at a time, as words: a move changes its own point and its
            // captures, so nearly every word is equal and only the others are looked into.
            let word = |c: &[u8]| u64::from_ne_bytes(c.try_into().unwrap_or([0; 8]));
            let mut diff = |w: usize, a8: &[u8], b8: &[u8]| {
                for (i, (&a, &b)) in a8.iter().zip(b8).enumerate() {
                    let p = (8 * w + i) as u16;
                    if a != b && p != own {
                        self.changes.push(((a as u16) << 9) | p);
                    }
                }
            };
            let (pw, cw) = (prev.chunks_exact(8), self.cells.chunks_exact(8));
            let (pr, cr) = (pw.remainder(), cw.remainder());
            for (w, (a8, b8)) in pw.zip(cw).enumerate() {
                if word(a8) != word(b8) {
                    diff(w, a8, b8);
                }
            }
            diff(NN / 8, pr, cr);
            self.change_off.push(self.changes.len() as u32);
        }
        self.prev_cells = Some(self.cells);
    }
}

thread_local! {
    /// One tagger per thread, reused from game to game (its ladder reader's buffers grow
    /// once), reset for each game.
    static TAGGER: std::cell::RefCell<Tagger> = Default::default();
}

/// The metadata every sample of `g` repeats.
pub fn game_info(g: &GameRow, cfg: &SplitConfig, seed: u64) -> GameInfo {
    GameInfo {
        game_id: g.game_id.to_hex(),
        source: g.source_path(),
        game_index: g.game_index,
        meta: Arc::new(g.meta.clone()),
        split: policy::assign_split(&g.game_id, seed, cfg.split_ratios),
    }
}

/// Replays `g` into samples, recording what `mode` says (the dedup passes need less
/// than a row). No I/O.
pub fn game_samples(g: &GameRow, cfg: &SplitConfig, seed: u64, mode: BufMode) -> Result<GameSamples, Refusal> {
    let mut dropped = Dropped::new();
    let keep = policy::eligible(&g.moves, g.meta.winner, cfg, &mut dropped);
    let mut buf = SampleBuf::with_mode(mode);
    buf.reserve(keep.iter().filter(|&&k| k).count(), cfg.tags);
    buf.begin_game(game_info(g, cfg, seed));
    // The thread's tagger, borrowed in place (nothing in a replay starts other work on
    // this thread, so the borrow is never taken twice).
    TAGGER.with_borrow_mut(|tagger| visit(g, cfg, mode, keep, buf, tagger, dropped))
}

/// [`game_samples`] once its buffer is ready, with the thread's tagger.
fn visit(
    g: &GameRow,
    cfg: &SplitConfig,
    mode: BufMode,
    keep: Vec<bool>,
    buf: SampleBuf,
    tagger: &mut Tagger,
    mut dropped: Dropped,
) -> Result<GameSamples, Refusal> {
    let tagger = cfg.tags.then(|| {
        tagger.reset();
        tagger
    });
    let mut v = SampleVisitor {
        cfg,
        mode,
        keep,
        buf,
        tagger,
        pending: None,
        sample: None,
        cells: [0; NN],
        played: Vec::with_capacity(g.moves.len()),
        recent: [0; HISTORY],
        changes: Vec::new(),
        change_off: vec![0],
        prev_cells: None,
        captures: Vec::with_capacity(16),
        tag_counts: [0; TAG_NAMES.len() + 1],
    };
    let end = replay(g, &replay_rules(cfg), &mut v)?;
    let mut buf = v.buf;
    buf.finish_hashes();
    let masks: Vec<u32> = (0..buf.len()).map(|i| buf.tag_mask(i)).collect();
    let idx = policy::choose(&masks, cfg, &mut dropped);
    if idx.len() < buf.len() {
        buf = buf.select(&idx);
    }
    Ok(GameSamples {
        samples: buf,
        moves: g.moves.len() as u64,
        dropped,
        consecutive: end.consecutive,
        tag_counts: v.tag_counts,
    })
}
