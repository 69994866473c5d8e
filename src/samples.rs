/*!
The per-move sample table: columns built in a columnar buffer (one per worker, then
concatenated in game order), its Arrow schema, and the `position_hash`.

`board` is `Binary`, 361 bytes per row (row-major from the top-left, 0 empty,
1 black, 2 white): in Python Polars,
`np.frombuffer(b"".join(df["board"]), np.uint8).reshape(-1, 19, 19)`.
See `docs/schema.md` for every column and the reasons behind the encoding.
*/

use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Float32Builder, Int16Builder, ListBuilder, StringBuilder, UInt16Builder, UInt32Builder,
    UInt8Builder,
};
use arrow_array::types::{UInt16Type, UInt32Type};
use arrow_array::{
    ArrayRef, BinaryArray, DictionaryArray, FixedSizeBinaryArray, ListArray, RecordBatch, StringArray, UInt16Array,
    UInt32Array, UInt8Array,
};
use arrow_buffer::{Buffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, SchemaRef};

use crate::coord::{Move, NN, PASS};

/// Length of the canonical encoding that [`position_hash`] hashes.
pub const ENCODING_LEN: usize = NN + 3;

/// The canonical encoding of a position (RULES-AND-SGF §4): the 361 cells (row-major
/// from the top-left, 0/1/2) ‖ side to move (1 black, 2 white) ‖ ko point as u16
/// little-endian (`0xFFFF` = none).
pub fn encoding(cells: &[u8; NN], to_play: u8, ko: Option<u16>) -> [u8; ENCODING_LEN] {
    let mut buf = [0u8; ENCODING_LEN];
    buf[..NN].copy_from_slice(cells);
    buf[NN] = to_play;
    buf[NN + 1..].copy_from_slice(&ko.unwrap_or(0xFFFF).to_le_bytes());
    buf
}

/// 128-bit position hash: blake3 of the [`encoding`], truncated to 16 bytes. Stable
/// across versions and languages. [`position_hashes`] computes the same values for many
/// positions at once, several times faster.
pub fn position_hash(cells: &[u8; NN], to_play: u8, ko: Option<u16>) -> [u8; 16] {
    let h = blake3::hash(&encoding(cells, to_play, ko));
    let mut out = [0u8; 16];
    out.copy_from_slice(&h.as_bytes()[..16]);
    out
}

/// [`position_hash`] of many encodings: `out[i]` = the first 16 bytes of
/// `blake3(encs[i])`.
///
/// A 364-byte input is one BLAKE3 chunk of six blocks, compressed one after the other:
/// hashing positions one by one leaves the SIMD lanes of the CPU idle. Here the first
/// five (full) blocks of up to 16 positions go through the blake3 crate's own multi-input
/// compression (`Platform::hash_many`, the routine it uses for the chunks of long
/// inputs), and the last, partial block of each through its single-block compression
/// with the chunk-end and root flags: the same steps as `blake3::hash`, so the same bytes
/// (checked against it in the tests). `platform` is a hidden module of the crate, so the
/// version is pinned in `Cargo.toml`.
pub fn position_hashes(encs: &[[u8; ENCODING_LEN]], out: &mut [[u8; 16]]) {
    use blake3::platform::Platform;
    const FULL: usize = 5 * blake3::BLOCK_LEN;
    const LAST: usize = ENCODING_LEN - FULL;
    // BLAKE3's IV and domain flags (the specification, §2.1 and Table 3).
    const IV: [u32; 8] =
        [0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19];
    const CHUNK_START: u8 = 1;
    const CHUNK_END: u8 = 2;
    const ROOT: u8 = 8;
    assert_eq!(encs.len(), out.len(), "position_hashes: one output per encoding");
    static PLATFORM: std::sync::OnceLock<Platform> = std::sync::OnceLock::new();
    let platform = *PLATFORM.get_or_init(Platform::detect);
    const GROUP: usize = 64;
    let mut cvs = [0u8; 32 * GROUP];
    let mut refs: Vec<&[u8; FULL]> = Vec::with_capacity(GROUP);
    for (encs, out) in encs.chunks(GROUP).zip(out.chunks_mut(GROUP)) {
        refs.clear();
        refs.extend(encs.iter().map(|e| <&[u8; FULL]>::try_from(&e[..FULL]).expect("invariant: 320 bytes")));
        let cvs = &mut cvs[..32 * encs.len()];
        platform.hash_many(&refs, &IV, 0, blake3::IncrementCounter::No, 0, CHUNK_START, 0, cvs);
        for ((e, cv), o) in encs.iter().zip(cvs.chunks_exact(32)).zip(out.iter_mut()) {
            let mut words = [0u32; 8];
            for (w, b) in words.iter_mut().zip(cv.chunks_exact(4)) {
                *w = u32::from_le_bytes(b.try_into().expect("invariant: 4 bytes"));
            }
            let mut block = [0u8; blake3::BLOCK_LEN];
            block[..LAST].copy_from_slice(&e[FULL..]);
            platform.compress_in_place(&mut words, &block, LAST as u8, 0, CHUNK_END | ROOT);
            for (b, w) in o.chunks_exact_mut(4).zip(&words[..4]) {
                b.copy_from_slice(&w.to_le_bytes());
            }
        }
    }
}

/// Point-index tables for the 8 symmetries: `SYM[s][i]` = image of point `i` under `s`.
fn sym_table() -> &'static [[u16; NN]; 8] {
    static T: std::sync::OnceLock<[[u16; NN]; 8]> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        let mut t = [[0u16; NN]; 8];
        for (s, row) in t.iter_mut().enumerate() {
            for (i, v) in row.iter_mut().enumerate() {
                *v = crate::coord::symmetry_index(i as u16, s as u8);
            }
        }
        t
    })
}

/// Dedup key in symmetry mode: the [`position_hash`] of the lexicographically smallest
/// of the 8 symmetric images of (board, ko point), and the symmetry `s` that maps this
/// position onto it (ties: the smallest `s`).
pub fn canonical_key(cells: &[u8; NN], to_play: u8, ko: Option<u16>) -> ([u8; 16], u8) {
    let t = sym_table();
    let mut best = [0u8; NN];
    let mut best_ko = u16::MAX;
    let mut best_s = 0u8;
    let mut img = [0u8; NN];
    for s in 0..8u8 {
        let map = &t[s as usize];
        for i in 0..NN {
            img[map[i] as usize] = cells[i];
        }
        let k = ko.map(|k| map[k as usize]).unwrap_or(u16::MAX);
        if s == 0 || (img, k) < (best, best_ko) {
            best = img;
            best_ko = k;
            best_s = s;
        }
    }
    (position_hash(&best, to_play, (best_ko != u16::MAX).then_some(best_ko)), best_s)
}

/// Game-level values repeated on every sample of a game.
#[derive(Clone, Debug, Default)]
pub struct GameInfo {
    /// Content hash of the game.
    pub game_id: String,
    /// `file` or `file!member`.
    pub source: String,
    /// Game index in its file.
    pub game_index: u32,
    /// Komi.
    pub komi: Option<f32>,
    /// Handicap.
    pub handicap: u8,
    /// RU.
    pub rules: Option<String>,
    /// RE as written.
    pub result: Option<String>,
    /// "B"/"W"/null.
    pub winner: Option<String>,
    /// Result kind.
    pub result_kind: String,
    /// Margin.
    pub margin: Option<f32>,
    /// Numeric ranks.
    pub black_rank_num: Option<i16>,
    /// Numeric ranks.
    pub white_rank_num: Option<i16>,
    /// BR/WR as written.
    pub black_rank: Option<String>,
    /// BR/WR as written.
    pub white_rank: Option<String>,
    /// `YYYY[-MM[-DD]]`.
    pub date: Option<String>,
    /// train / val / test.
    pub split: &'static str,
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
    mode: BufMode,
    game: Vec<u32>,
    games: Vec<GameInfo>,
    move_number: Vec<u16>,
    hash: Vec<[u8; 16]>,
    boards: Vec<u8>,
    to_play: Vec<u8>,
    ko: Vec<Option<u16>>,
    history: Vec<u16>,
    history_off: Vec<u32>,
    prisoners: Vec<[u16; 2]>,
    moves: Vec<u16>,
    /// Dedup key per row (only filled in symmetry mode; else the key is `hash`).
    keys: Vec<[u8; 16]>,
    /// Symmetry mapping the row onto its canonical form (symmetry mode), else 0.
    sym: Vec<u8>,
    /// Influence areas per row (361 bytes: 0 none, 1 black, 2 white) and the two area
    /// sizes; empty when `split.influence` is off.
    infl_areas: Vec<u8>,
    infl_counts: Vec<(u16, u16)>,
    /// Tactical tags per row (bit mask, capture size, self-atari size); empty when tags are off.
    tags: Vec<(u32, u16, u16)>,
    /// Dedup columns, filled by [`SampleBuf::push_kept`].
    dup_count: Vec<u32>,
    dist_moves: Vec<u16>,
    dist_counts: Vec<u32>,
    dist_off: Vec<u32>,
    /// Encodings of the rows whose `position_hash` is still to be computed (the last
    /// `enc.len()` rows): hashed together by [`SampleBuf::finish_hashes`].
    enc: Vec<[u8; ENCODING_LEN]>,
}

/// Number of previous moves kept in `history`.
pub const HISTORY: usize = 8;

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
        let mut o =
            SampleBuf { mode: self.mode, games: self.games.clone(), history_off: vec![0], ..Default::default() };
        o.copy_runs(self, idx, None);
        o
    }
    /// Appends rows `idx` (increasing) of `src`, every column `src` has, as rows of
    /// game `game` here (`None`: the game each row has in `src`). Runs of consecutive
    /// rows are copied as slices, column by column.
    fn copy_runs(&mut self, src: &SampleBuf, idx: &[usize], game: Option<u32>) {
        if self.history_off.is_empty() {
            self.history_off.push(0);
        }
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
    /// Adds one sample. `history` = previous moves, most recent first (at most [`HISTORY`]).
    pub fn push(&mut self, cells: &[u8; NN], s: SampleMove, history: &[u16], tags: Option<(u32, u16, u16)>) {
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
        if self.history_off.is_empty() {
            self.history_off.push(0);
        }
        self.history.extend_from_slice(&history[..history.len().min(HISTORY)]);
        self.history_off.push(self.history.len() as u32);
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
    fn assert_hashed(&self) {
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
        if self.history_off.is_empty() {
            self.history_off.push(0);
        }
        let hbase = self.history.len() as u32;
        self.history.append(&mut o.history);
        self.history_off.extend(o.history_off.iter().skip(1).map(|x| x + hbase));
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

    /// Builds an Arrow batch of all rows, consuming the buffer: the large columns
    /// (boards, history, hashes, numbers, distributions) become Arrow buffers without
    /// a copy.
    pub fn into_batch(mut self) -> RecordBatch {
        self.assert_hashed();
        let n = self.len();
        let with_dup = !self.dup_count.is_empty();
        let with_tags = !self.tags.is_empty();
        let with_infl = !self.infl_counts.is_empty();
        let texts = move_text_arrays();
        // Moved-out columns (zero-copy).
        let offsets =
            |v: &[u32]| OffsetBuffer::new(ScalarBuffer::from(v.iter().map(|&x| x as i32).collect::<Vec<i32>>()));
        let fixed =
            |w: usize| OffsetBuffer::new(ScalarBuffer::from((0..=n).map(|i| (i * w) as i32).collect::<Vec<i32>>()));
        let item = |t: DataType| Arc::new(Field::new("item", t, false));
        let board: ArrayRef =
            Arc::new(BinaryArray::new(fixed(NN), Buffer::from_vec(std::mem::take(&mut self.boards)), None));
        let hash: ArrayRef = Arc::new(FixedSizeBinaryArray::new(16, Buffer::from_vec(self.hash.concat()), None));
        let move_number: ArrayRef = Arc::new(UInt16Array::from(std::mem::take(&mut self.move_number)));
        let to_play_col: ArrayRef = Arc::new(UInt8Array::from(self.to_play.clone()));
        let hist: ArrayRef = Arc::new(ListArray::new(
            item(DataType::UInt16),
            offsets(&self.history_off),
            Arc::new(UInt16Array::from(std::mem::take(&mut self.history))),
            None,
        ));
        let mv: ArrayRef = Arc::new(UInt16Array::from(self.moves.clone()));
        let (dup, dmoves, dcounts): (ArrayRef, ArrayRef, ArrayRef) = if with_dup {
            (
                Arc::new(UInt32Array::from(std::mem::take(&mut self.dup_count))),
                Arc::new(ListArray::new(
                    item(DataType::UInt16),
                    offsets(&self.dist_off),
                    Arc::new(UInt16Array::from(std::mem::take(&mut self.dist_moves))),
                    None,
                )),
                Arc::new(ListArray::new(
                    item(DataType::UInt32),
                    offsets(&self.dist_off),
                    Arc::new(UInt32Array::from(std::mem::take(&mut self.dist_counts))),
                    None,
                )),
            )
        } else {
            // No dedup: every row is its own position, played once.
            (
                Arc::new(UInt32Array::from(vec![1u32; n])),
                Arc::new(ListArray::new(
                    item(DataType::UInt16),
                    fixed(1),
                    Arc::new(UInt16Array::from(self.moves.clone())),
                    None,
                )),
                Arc::new(ListArray::new(
                    item(DataType::UInt32),
                    fixed(1),
                    Arc::new(UInt32Array::from(vec![1u32; n])),
                    None,
                )),
            )
        };
        let infl_areas: ArrayRef = if with_infl {
            Arc::new(BinaryArray::new(fixed(NN), Buffer::from_vec(std::mem::take(&mut self.infl_areas)), None))
        } else {
            arrow_array::new_null_array(&DataType::Binary, n)
        };
        let symcol: ArrayRef = Arc::new(if self.sym.is_empty() {
            UInt8Array::from(vec![0u8; n])
        } else {
            UInt8Array::from(std::mem::take(&mut self.sym))
        });
        let g = |i: usize| &self.games[self.game[i] as usize];
        // Game-level text and the move's text are dictionary arrays: one value per game
        // (or per move index), a key per row, so no string is copied per row. The file
        // schema stays `Utf8` (Parquet dictionary-encodes the pages either way; the bytes
        // are the same).
        let game_keys = UInt32Array::from(self.game.clone());
        let per_game = |f: &dyn Fn(&GameInfo) -> Option<&str>| -> ArrayRef {
            let values: StringArray = self.games.iter().map(f).collect();
            Arc::new(DictionaryArray::<UInt32Type>::new(game_keys.clone(), Arc::new(values)))
        };
        let move_keys = UInt16Array::from(self.moves.clone());
        let per_move = |values: &ArrayRef| -> ArrayRef {
            Arc::new(DictionaryArray::<UInt16Type>::new(move_keys.clone(), values.clone()))
        };
        let mut game_index = UInt32Builder::with_capacity(n);
        let mut ko = UInt16Builder::with_capacity(n);
        let mut pb = UInt16Builder::with_capacity(n);
        let mut pw = UInt16Builder::with_capacity(n);
        let mut mrow = UInt8Builder::with_capacity(n);
        let mut mcol = UInt8Builder::with_capacity(n);
        let mut komi = Float32Builder::with_capacity(n);
        let mut handicap = UInt8Builder::with_capacity(n);
        let mut margin = Float32Builder::with_capacity(n);
        let mut brn = Int16Builder::with_capacity(n);
        let mut wrn = Int16Builder::with_capacity(n);
        let mut is_winner = BooleanBuilder::with_capacity(n);
        let mut tmask = UInt32Builder::with_capacity(n);
        let mut tnames = ListBuilder::with_capacity(StringBuilder::with_capacity(n, 12 * n), n)
            .with_field(Arc::new(Field::new("item", DataType::Utf8, false)));
        let mut tcap = UInt16Builder::with_capacity(n);
        let mut tsa = UInt16Builder::with_capacity(n);
        let mut ttac = BooleanBuilder::with_capacity(n);
        let mut iblack = UInt16Builder::with_capacity(n);
        let mut iwhite = UInt16Builder::with_capacity(n);
        for i in 0..n {
            let gi = g(i);
            game_index.append_value(gi.game_index);
            ko.append_option(self.ko[i]);
            pb.append_value(self.prisoners[i][0]);
            pw.append_value(self.prisoners[i][1]);
            let m = self.moves[i];
            let mm = Move::from_index(m).expect("invariant: valid move index");
            match mm {
                Move::Play(p) => {
                    mrow.append_value(p.row);
                    mcol.append_value(p.col);
                }
                Move::Pass => {
                    mrow.append_null();
                    mcol.append_null();
                }
            }
            komi.append_option(gi.komi);
            handicap.append_value(gi.handicap);
            margin.append_option(gi.margin);
            brn.append_option(gi.black_rank_num);
            wrn.append_option(gi.white_rank_num);
            let side = if self.to_play[i] == 1 { "B" } else { "W" };
            is_winner.append_value(gi.winner.as_deref() == Some(side));
            if with_tags {
                let (mask, cap, sa) = self.tags[i];
                tmask.append_value(mask);
                for (b, name) in crate::tactics::TAG_NAMES.iter().enumerate() {
                    if mask & (1 << b) != 0 {
                        tnames.values().append_value(name);
                    }
                }
                tnames.append(true);
                tcap.append_value(cap);
                tsa.append_value(sa);
                ttac.append_value(mask & crate::tactics::Tags::TACTICAL != 0);
            } else {
                tmask.append_null();
                tnames.append_null();
                tcap.append_null();
                tsa.append_null();
                ttac.append_null();
            }
            if with_infl {
                iblack.append_value(self.infl_counts[i].0);
                iwhite.append_value(self.infl_counts[i].1);
            } else {
                iblack.append_null();
                iwhite.append_null();
            }
        }
        let cols: Vec<ArrayRef> = vec![
            per_game(&|g| Some(g.game_id.as_str())),
            per_game(&|g| Some(g.source.as_str())),
            Arc::new(game_index.finish()),
            move_number,
            hash,
            board,
            to_play_col,
            Arc::new(ko.finish()),
            hist,
            Arc::new(pb.finish()),
            Arc::new(pw.finish()),
            mv,
            Arc::new(mrow.finish()),
            Arc::new(mcol.finish()),
            per_move(&texts.0),
            per_move(&texts.1),
            Arc::new(komi.finish()),
            Arc::new(handicap.finish()),
            per_game(&|g| g.rules.as_deref()),
            per_game(&|g| g.result.as_deref()),
            per_game(&|g| g.winner.as_deref()),
            per_game(&|g| Some(g.result_kind.as_str())),
            Arc::new(margin.finish()),
            Arc::new(brn.finish()),
            Arc::new(wrn.finish()),
            per_game(&|g| g.black_rank.as_deref()),
            per_game(&|g| g.white_rank.as_deref()),
            per_game(&|g| g.date.as_deref()),
            Arc::new(is_winner.finish()),
            per_game(&|g| Some(g.split)),
            dup,
            dmoves,
            dcounts,
            symcol,
            Arc::new(tmask.finish()),
            Arc::new(tnames.finish()),
            Arc::new(tcap.finish()),
            Arc::new(tsa.finish()),
            Arc::new(ttac.finish()),
            infl_areas,
            Arc::new(iblack.finish()),
            Arc::new(iwhite.finish()),
        ];
        RecordBatch::try_new(batch_schema(), cols).expect("invariant: sample columns match schema")
    }
}

/// String columns are plain `Utf8` (Polars reads `str`, joins work); Parquet still
/// dictionary-encodes their pages, so the bytes on disk are the same as a dictionary type.
fn dict(name: &str, nullable: bool) -> Field {
    Field::new(name, DataType::Utf8, nullable)
}

/// The SGF and GTP text of every move index as two string arrays (the values of the
/// `move_sgf` / `move_gtp` dictionary arrays), built once.
fn move_text_arrays() -> &'static (ArrayRef, ArrayRef) {
    static T: std::sync::OnceLock<(ArrayRef, ArrayRef)> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        let texts = crate::coord::move_texts();
        let sgf: StringArray = texts.iter().map(|t| Some(t.0.as_str())).collect();
        let gtp: StringArray = texts.iter().map(|t| Some(t.1.as_str())).collect();
        (Arc::new(sgf) as ArrayRef, Arc::new(gtp) as ArrayRef)
    })
}

/// Schema of [`SampleBuf::into_batch`]'s batches: [`samples_schema`] with the
/// game-level text and move text as dictionary arrays (written as the same `Utf8`
/// Parquet columns).
fn batch_schema() -> SchemaRef {
    static S: std::sync::OnceLock<SchemaRef> = std::sync::OnceLock::new();
    S.get_or_init(|| {
        let game_level = [
            "game_id",
            "source",
            "rules",
            "result",
            "winner",
            "result_kind",
            "black_rank",
            "white_rank",
            "date",
            "split",
        ];
        let fields: Vec<Field> = samples_schema()
            .fields()
            .iter()
            .map(|f| {
                let key = if game_level.contains(&f.name().as_str()) {
                    Some(DataType::UInt32)
                } else if matches!(f.name().as_str(), "move_sgf" | "move_gtp") {
                    Some(DataType::UInt16)
                } else {
                    None
                };
                match key {
                    Some(k) => {
                        f.as_ref().clone().with_data_type(DataType::Dictionary(Box::new(k), Box::new(DataType::Utf8)))
                    }
                    None => f.as_ref().clone(),
                }
            })
            .collect();
        crate::storage::schema(fields)
    })
    .clone()
}

/// Schema of the samples table.
pub fn samples_schema() -> SchemaRef {
    crate::storage::schema(vec![
        dict("game_id", false),
        dict("source", false),
        Field::new("game_index", DataType::UInt32, false),
        Field::new("move_number", DataType::UInt16, false),
        Field::new("position_hash", DataType::FixedSizeBinary(16), false),
        Field::new("board", DataType::Binary, false),
        Field::new("to_play", DataType::UInt8, false),
        Field::new("ko_point", DataType::UInt16, true),
        Field::new("history", DataType::List(Arc::new(Field::new("item", DataType::UInt16, false))), false),
        Field::new("prisoners_black", DataType::UInt16, false),
        Field::new("prisoners_white", DataType::UInt16, false),
        Field::new("move", DataType::UInt16, false),
        Field::new("move_row", DataType::UInt8, true),
        Field::new("move_col", DataType::UInt8, true),
        Field::new("move_sgf", DataType::Utf8, false),
        Field::new("move_gtp", DataType::Utf8, false),
        Field::new("komi", DataType::Float32, true),
        Field::new("handicap", DataType::UInt8, false),
        dict("rules", true),
        dict("result", true),
        dict("winner", true),
        dict("result_kind", false),
        Field::new("margin", DataType::Float32, true),
        Field::new("black_rank_num", DataType::Int16, true),
        Field::new("white_rank_num", DataType::Int16, true),
        dict("black_rank", true),
        dict("white_rank", true),
        dict("date", true),
        Field::new("is_winner_move", DataType::Boolean, false),
        dict("split", false),
        Field::new("dup_count", DataType::UInt32, false),
        Field::new("move_dist_moves", DataType::List(Arc::new(Field::new("item", DataType::UInt16, false))), false),
        Field::new("move_dist_counts", DataType::List(Arc::new(Field::new("item", DataType::UInt32, false))), false),
        Field::new("dedup_symmetry", DataType::UInt8, false),
        Field::new("tag_mask", DataType::UInt32, true),
        Field::new("tags", DataType::List(Arc::new(Field::new("item", DataType::Utf8, false))), true),
        Field::new("capture_size", DataType::UInt16, true),
        Field::new("self_atari_size", DataType::UInt16, true),
        Field::new("is_tactical", DataType::Boolean, true),
        Field::new("influence_areas", DataType::Binary, true),
        Field::new("influence_black_area", DataType::UInt16, true),
        Field::new("influence_white_area", DataType::UInt16, true),
    ])
}

/// `PASS` re-exported for readers of this module.
pub const PASS_INDEX: u16 = PASS;
