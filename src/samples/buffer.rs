//! [`SampleBuf`]: the columnar buffer a game's samples are collected in (one per game,
//! then per split and chunk), and what each pass records in it ([`BufMode`]).

use std::sync::Arc;

use crate::coord::{Move, NN};
use crate::game::{GameMeta, Split};

use super::{canonical_key, encoding, position_hash, position_hashes, ENCODING_LEN};

/// Game-level values repeated on every sample of a game.
#[derive(Clone, Debug)]
pub struct GameInfo {
    /// Content hash of the game.
    pub game_id: String,
    /// `file` or `file!member`.
    pub source: String,
    /// Game index in its file.
    pub game_index: u32,
    /// The game's metadata (komi, result, ranks, …), shared by its rows.
    pub meta: Arc<GameMeta>,
    /// train / val / test.
    pub split: Split,
}

/// One sample (the board is passed separately to avoid copies).
#[derive(Clone, Copy, Debug)]
pub struct SampleMove {
    /// 1-based.
    pub move_number: u16,
    /// 1 black, 2 white.
    pub to_play: u8,
    /// Point the side to move may not play (simple ko).
    pub ko_point: Option<u16>,
    /// The answer.
    pub mv: Move,
    /// Stones captured so far by black / white.
    pub prisoners: [u16; 2],
}

/// What [`SampleBuf::push`] records.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BufMode {
    /// Every column, `position_hash` included.
    #[default]
    Full,
    /// Every column but `position_hash`: pass 2 of an exact-dedup run takes it from the
    /// dedup index, which computed it in pass 1.
    NoHash,
    /// Only what dedup pass 1 needs: the game, the move, `position_hash` (the key) and
    /// tags. No board, history or metadata columns.
    Keys,
    /// As `Keys`, with the canonical-symmetry key and the symmetry instead of the hash.
    CanonicalKeys,
}

/// Columnar buffer of samples.
#[derive(Default)]
pub struct SampleBuf {
    pub(super) mode: BufMode,
    pub(super) game: Vec<u32>,
    pub(super) games: Vec<GameInfo>,
    pub(super) move_number: Vec<u16>,
    pub(super) hash: Vec<[u8; 16]>,
    pub(super) boards: Vec<u8>,
    pub(super) to_play: Vec<u8>,
    pub(super) ko: Vec<Option<u16>>,
    pub(super) history: Vec<u16>,
    pub(super) history_off: Vec<u32>,
    /// `history_captures` values ([`capture_code`]) and their list offsets.
    pub(super) hcap: Vec<u16>,
    pub(super) hcap_off: Vec<u32>,
    pub(super) prisoners: Vec<[u16; 2]>,
    pub(super) moves: Vec<u16>,
    /// Dedup key per row (only filled in symmetry mode; else the key is `hash`).
    pub(super) keys: Vec<[u8; 16]>,
    /// Symmetry mapping the row onto its canonical form (symmetry mode), else 0.
    pub(super) sym: Vec<u8>,
    /// Influence areas per row (361 bytes: 0 none, 1 black, 2 white) and the two area
    /// sizes; empty when `split.influence` is off.
    pub(super) infl_areas: Vec<u8>,
    pub(super) infl_counts: Vec<(u16, u16)>,
    /// Tactical tags per row (bit mask, capture size, self-atari size); empty when tags are off.
    pub(super) tags: Vec<(u32, u16, u16)>,
    /// Dedup columns, filled by [`SampleBuf::push_kept`].
    pub(super) dup_count: Vec<u32>,
    pub(super) dist_moves: Vec<u16>,
    pub(super) dist_counts: Vec<u32>,
    pub(super) dist_off: Vec<u32>,
    /// Encodings of the rows whose `position_hash` is still to be computed (the last
    /// `enc.len()` rows): hashed together by [`SampleBuf::finish_hashes`].
    pub(super) enc: Vec<[u8; ENCODING_LEN]>,
}

/// Number of previous moves kept in `history`.
pub const HISTORY: usize = 8;

/// One value of `history_captures`: point `point` held `old` (0 empty, 1 black, 2 white)
/// before history move `k` (0 = the most recent) and something else after it (and any
/// setup before the next move), the point of move `k` itself excepted. Undoing move `k`
/// is: empty its point, then put `old` back on every such point.
pub fn capture_code(k: usize, old: u8, point: u16) -> u16 {
    debug_assert!(k < HISTORY && old < 3 && (point as usize) < NN);
    ((k as u16) << 11) | ((old as u16) << 9) | point
}

/// The parts of a [`capture_code`] value: (history index, old cell, point).
pub fn capture_parts(code: u16) -> (usize, u8, u16) {
    ((code >> 11) as usize, ((code >> 9) & 3) as u8, code & 511)
}

impl SampleBuf {
    /// An empty buffer that records what `mode` says.
    pub fn with_mode(mode: BufMode) -> SampleBuf {
        SampleBuf { mode, ..Default::default() }
    }
    /// Makes room for `rows` more rows in the columns this buffer's mode records (growing
    /// a board column by doubling copies it about once more).
    pub fn reserve(&mut self, rows: usize, tags: bool) {
        self.game.reserve(rows);
        self.moves.reserve(rows);
        if tags {
            self.tags.reserve(rows);
        }
        match self.mode {
            BufMode::Keys => {
                self.hash.reserve(rows);
                self.enc.reserve(rows);
            }
            BufMode::CanonicalKeys => {
                self.keys.reserve(rows);
                self.sym.reserve(rows);
            }
            BufMode::Full | BufMode::NoHash => {
                self.hash.reserve(rows);
                if self.mode == BufMode::Full {
                    self.enc.reserve(rows);
                }
                self.move_number.reserve(rows);
                self.boards.reserve(rows * NN);
                self.to_play.reserve(rows);
                self.ko.reserve(rows);
                self.history.reserve(rows * HISTORY);
                self.history_off.reserve(rows + 1);
                self.hcap_off.reserve(rows + 1);
                self.prisoners.reserve(rows);
                // Dedup columns (kept buffers): most positions were played once, one
                // move in their distribution.
                self.dup_count.reserve(rows);
                self.dist_off.reserve(rows + 1);
                self.dist_moves.reserve(rows);
                self.dist_counts.reserve(rows);
            }
        }
    }
    /// Rows buffered.
    pub fn len(&self) -> usize {
        self.moves.len()
    }
    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }
    /// Dedup key of row `i` (symmetry mode: canonical key; else `position_hash`).
    pub fn key(&self, i: usize) -> [u8; 16] {
        debug_assert!(self.enc.is_empty(), "invariant: SampleBuf::finish_hashes called after the last push");
        if self.keys.is_empty() {
            self.hash[i]
        } else {
            self.keys[i]
        }
    }
    /// Symmetry of row `i` onto its canonical form (0 unless symmetry mode).
    pub fn symmetry(&self, i: usize) -> u8 {
        self.sym.get(i).copied().unwrap_or(0)
    }
    /// Move index of row `i`.
    pub fn move_index(&self, i: usize) -> u16 {
        self.moves[i]
    }
    /// Attaches influence areas to the row just pushed (see [`crate::scoring::influence`]).
    pub fn push_influence(&mut self, areas: &[i8; NN]) {
        if self.keys_only() {
            return;
        }
        let (mut b, mut w) = (0u16, 0u16);
        for &a in areas.iter() {
            let v = match a {
                1 => {
                    b += 1;
                    1
                }
                -1 => {
                    w += 1;
                    2
                }
                _ => 0,
            };
            self.infl_areas.push(v);
        }
        self.infl_counts.push((b, w));
    }
    /// Tag mask of row `i` (0 when tags are off).
    pub fn tag_mask(&self, i: usize) -> u32 {
        self.tags.get(i).map(|t| t.0).unwrap_or(0)
    }
    fn keys_only(&self) -> bool {
        matches!(self.mode, BufMode::Keys | BufMode::CanonicalKeys)
    }
    /// A new buffer with rows `idx` (increasing) only.
    pub fn select(&self, idx: &[usize]) -> SampleBuf {
        self.assert_hashed();
        let mut o = SampleBuf {
            mode: self.mode,
            games: self.games.clone(),
            history_off: vec![0],
            hcap_off: vec![0],
            ..Default::default()
        };
        o.copy_runs(self, idx, None);
        o
    }
    /// Appends rows `idx` (increasing) of `src`, every column `src` has, as rows of
    /// game `game` here (`None`: the game each row has in `src`). Runs of consecutive
    /// rows are copied as slices, column by column.
    fn copy_runs(&mut self, src: &SampleBuf, idx: &[usize], game: Option<u32>) {
        self.start_lists();
        let mut j = 0;
        while j < idx.len() {
            let a = idx[j];
            let mut len = 1;
            while j + len < idx.len() && idx[j + len] == a + len {
                len += 1;
            }
            let b = a + len;
            j += len;
            match game {
                Some(g) => self.game.extend(std::iter::repeat_n(g, len)),
                None => self.game.extend_from_slice(&src.game[a..b]),
            }
            self.moves.extend_from_slice(&src.moves[a..b]);
            for (dst, col) in [(&mut self.hash, &src.hash), (&mut self.keys, &src.keys)] {
                if !col.is_empty() {
                    dst.extend_from_slice(&col[a..b]);
                }
            }
            if !src.sym.is_empty() {
                self.sym.extend_from_slice(&src.sym[a..b]);
            }
            if !src.tags.is_empty() {
                self.tags.extend_from_slice(&src.tags[a..b]);
            }
            if src.keys_only() {
                continue;
            }
            self.move_number.extend_from_slice(&src.move_number[a..b]);
            self.boards.extend_from_slice(&src.boards[a * NN..b * NN]);
            self.to_play.extend_from_slice(&src.to_play[a..b]);
            self.ko.extend_from_slice(&src.ko[a..b]);
            let (h0, h1) = (src.history_off[a] as usize, src.history_off[b] as usize);
            let base = self.history.len() as u32;
            self.history.extend_from_slice(&src.history[h0..h1]);
            self.history_off.extend(src.history_off[a + 1..=b].iter().map(|&o| o - h0 as u32 + base));
            let (c0, c1) = (src.hcap_off[a] as usize, src.hcap_off[b] as usize);
            let base = self.hcap.len() as u32;
            self.hcap.extend_from_slice(&src.hcap[c0..c1]);
            self.hcap_off.extend(src.hcap_off[a + 1..=b].iter().map(|&o| o - c0 as u32 + base));
            self.prisoners.extend_from_slice(&src.prisoners[a..b]);
            if !src.infl_counts.is_empty() {
                self.infl_areas.extend_from_slice(&src.infl_areas[a * NN..b * NN]);
                self.infl_counts.extend_from_slice(&src.infl_counts[a..b]);
            }
        }
    }
    /// Board of row `i` (not in the keys-only modes).
    pub fn board(&self, i: usize) -> &[u8; NN] {
        self.boards[i * NN..(i + 1) * NN].try_into().expect("invariant: 361 cells")
    }
    /// `position_hash` of row `i`, computed from its board (for rows of a
    /// [`BufMode::NoHash`] buffer).
    pub fn compute_hash(&self, i: usize) -> [u8; 16] {
        position_hash(self.board(i), self.to_play[i], self.ko[i])
    }
    /// Fills the canonical keys (symmetry mode).
    pub fn compute_canonical_keys(&mut self) {
        self.keys.clear();
        self.sym.clear();
        for i in 0..self.len() {
            let (k, s) = canonical_key(self.board(i), self.to_play[i], self.ko[i]);
            self.keys.push(k);
            self.sym.push(s);
        }
    }
    /// The metadata of row `i`'s game.
    pub fn game_of(&self, i: usize) -> &GameInfo {
        &self.games[self.game[i] as usize]
    }
    /// Records the dedup information of the next kept row (see [`SampleBuf::copy_kept_rows`]).
    pub fn push_dedup(&mut self, count: u32, dist: &[(u16, u32)]) {
        if self.dist_off.is_empty() {
            self.dist_off.push(0);
        }
        self.dup_count.push(count);
        for &(m, c) in dist {
            self.dist_moves.push(m);
            self.dist_counts.push(c);
        }
        self.dist_off.push(self.dist_moves.len() as u32);
    }

    /// Appends rows `idx` (increasing) of `src` as kept rows of the game last started
    /// here with [`SampleBuf::begin_game`], `hashes[j]` being the `position_hash` of row
    /// `idx[j]`; their dedup information comes from [`SampleBuf::push_dedup`]. Runs of
    /// consecutive rows are copied as slices, column by column.
    pub fn copy_kept_rows(&mut self, src: &SampleBuf, idx: &[usize], hashes: &[[u8; 16]]) {
        assert_eq!(idx.len(), hashes.len(), "invariant: one hash per kept row");
        assert!(src.hash.is_empty(), "invariant: kept rows come from a NoHash buffer");
        src.assert_hashed();
        self.hash.extend_from_slice(hashes);
        if src.sym.is_empty() {
            self.sym.extend(std::iter::repeat_n(0, idx.len()));
        }
        self.copy_runs(src, idx, Some(self.games.len() as u32 - 1));
    }

    /// Starts a game; following `push` calls belong to it.
    pub fn begin_game(&mut self, g: GameInfo) {
        self.games.push(g);
    }
    /// Pushes the first offset of each list column, once.
    pub(super) fn start_lists(&mut self) {
        if self.history_off.is_empty() {
            self.history_off.push(0);
        }
        if self.hcap_off.is_empty() {
            self.hcap_off.push(0);
        }
    }
    /// Adds one sample. `history` = previous moves, most recent first (at most
    /// [`HISTORY`]); `captures` = what they changed besides their own point, as
    /// [`capture_code`] values.
    pub fn push(
        &mut self,
        cells: &[u8; NN],
        s: SampleMove,
        history: &[u16],
        captures: &[u16],
        tags: Option<(u32, u16, u16)>,
    ) {
        if let Some(t) = tags {
            self.tags.push(t);
        }
        self.game.push(self.games.len() as u32 - 1);
        self.moves.push(s.mv.index());
        match self.mode {
            BufMode::Full => self.push_encoding(cells, s),
            BufMode::NoHash => {}
            BufMode::Keys => {
                self.push_encoding(cells, s);
                return;
            }
            BufMode::CanonicalKeys => {
                let (k, sym) = canonical_key(cells, s.to_play, s.ko_point);
                self.keys.push(k);
                self.sym.push(sym);
                return;
            }
        }
        self.move_number.push(s.move_number);
        self.boards.extend_from_slice(cells);
        self.to_play.push(s.to_play);
        self.ko.push(s.ko_point);
        self.start_lists();
        self.history.extend_from_slice(&history[..history.len().min(HISTORY)]);
        self.history_off.push(self.history.len() as u32);
        self.hcap.extend_from_slice(captures);
        self.hcap_off.push(self.hcap.len() as u32);
        self.prisoners.push(s.prisoners);
    }
    fn push_encoding(&mut self, cells: &[u8; NN], s: SampleMove) {
        self.enc.push(encoding(cells, s.to_play, s.ko_point));
        self.hash.push([0; 16]);
    }
    /// Computes the `position_hash` of the rows pushed since the last call, all at once
    /// ([`position_hashes`]). Call after the last `push` of a game: until then those rows'
    /// hashes are not set.
    pub fn finish_hashes(&mut self) {
        let start = self.hash.len() - self.enc.len();
        position_hashes(&self.enc, &mut self.hash[start..]);
        // Freed, not kept: a chunk's game buffers all live until the chunk is done.
        self.enc = Vec::new();
    }
    pub(super) fn assert_hashed(&self) {
        assert!(self.enc.is_empty(), "invariant: SampleBuf::finish_hashes called after the last push");
    }
    /// Appends another buffer (keeps order).
    pub fn append(&mut self, mut o: SampleBuf) {
        o.assert_hashed();
        let base = self.games.len() as u32;
        self.games.append(&mut o.games);
        self.game.extend(o.game.iter().map(|g| g + base));
        self.move_number.append(&mut o.move_number);
        self.hash.append(&mut o.hash);
        self.boards.append(&mut o.boards);
        self.to_play.append(&mut o.to_play);
        self.ko.append(&mut o.ko);
        self.start_lists();
        let hbase = self.history.len() as u32;
        self.history.append(&mut o.history);
        self.history_off.extend(o.history_off.iter().skip(1).map(|x| x + hbase));
        let cbase = self.hcap.len() as u32;
        self.hcap.append(&mut o.hcap);
        self.hcap_off.extend(o.hcap_off.iter().skip(1).map(|x| x + cbase));
        self.prisoners.append(&mut o.prisoners);
        self.moves.append(&mut o.moves);
        self.keys.append(&mut o.keys);
        self.tags.append(&mut o.tags);
        self.infl_areas.append(&mut o.infl_areas);
        self.infl_counts.append(&mut o.infl_counts);
        self.sym.append(&mut o.sym);
        self.dup_count.append(&mut o.dup_count);
        if self.dist_off.is_empty() {
            self.dist_off.push(0);
        }
        let dbase = self.dist_moves.len() as u32;
        self.dist_moves.append(&mut o.dist_moves);
        self.dist_counts.append(&mut o.dist_counts);
        self.dist_off.extend(o.dist_off.iter().skip(1).map(|x| x + dbase));
    }
}
