//! One game's rows of the KataGo npz: the game replayed, each sampled position encoded
//! (`katago-v7`) with its targets, packed into a fixed-size record.

use crate::color::Color;
use crate::coord::{Move, NN};
use crate::engine::{Board, Rules};
use crate::features::katago::{
    handicap_stones, Area, Earlier, KataRules, KoRule, V7Encoder, V7Position, V7Row, GLOBAL, SPATIAL,
};
use crate::game::GameRow;
use crate::replay::{replay, ReplayRules, Step, Visitor};
use crate::samples::HISTORY;
use crate::scoring::{Owner, ScoreCheck};
use crate::sgf::ResultKind;

/// Bytes of one channel's packed bits (⌈361 / 8⌉).
pub const PACKED: usize = 46;
/// Columns of `globalTargetsNC`.
pub const GLOBAL_TARGETS: usize = 80;
/// Entries of `scoreDistrN` (2·361 + 2·60).
pub const SCORE_DISTR: usize = 842;
/// Channels of `valueTargetsNCHW`.
pub const VALUE_CHANNELS: usize = 5;
/// Entries of `metadataInputNC`.
pub const METADATA: usize = 192;
/// Policy entries per channel (361 points and the pass).
pub const MOVES: usize = NN + 1;
/// Record header: shuffle key u64, game index u32, move number u16, split u8, pad u8.
pub const HEADER: usize = 16;
/// Compact record header: [`HEADER`], then the record's length in bytes (u32).
pub const COMPACT_HEADER: usize = HEADER + 4;
/// Bytes of the compact score distribution: first nonzero bin u16, its value and the next bin's.
const COMPACT_SCORE: usize = 4;
/// Bytes of the compact value targets: one byte per point, channels 0–3 two bits each.
const COMPACT_VALUE: usize = NN;

/// Byte offsets of the arrays inside one record.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    pub bin: usize,
    pub global: usize,
    pub policy: usize,
    pub gtargets: usize,
    pub score: usize,
    pub value: usize,
    pub meta: usize,
    /// Record size.
    pub size: usize,
}

impl Layout {
    pub fn new(metadata: bool) -> Layout {
        let bin = HEADER;
        let global = bin + SPATIAL * PACKED;
        let policy = global + GLOBAL * 4;
        let gtargets = policy + 2 * MOVES * 2;
        let score = gtargets + GLOBAL_TARGETS * 4;
        let value = score + SCORE_DISTR;
        let meta = value + VALUE_CHANNELS * NN;
        let size = meta + if metadata { METADATA * 4 } else { 0 };
        Layout { bin, global, policy, gtargets, score, value, meta, size }
    }
    /// Whether the records carry `metadataInputNC`.
    pub fn metadata(&self) -> bool {
        self.size > self.meta
    }
    /// The byte ranges of the npz arrays in a record, in the npz's order
    /// (`metadataInputNC` last, only with `--metadata`).
    pub fn arrays(&self) -> Vec<(usize, usize)> {
        let ends = [self.bin, self.global, self.policy, self.gtargets, self.score, self.value, self.meta, self.size];
        let n = if self.size > self.meta { 7 } else { 6 };
        (0..n).map(|i| (ends[i], ends[i + 1])).collect()
    }
}

/// Byte offsets inside one compact record, the intermediate form the export buckets
/// and sorts: the npz arrays that are mostly zero or derived are stored small and
/// expanded ([`expand`]) when a file's columns are gathered.
///
/// ```text
/// header (16) | length u32 | packed planes | globalInputNC | globalTargetsNC
/// | scoreDistrN: bin u16, value u8, next value u8 (the only nonzero bins)
/// | valueTargetsNCHW channels 0-3: per point 2 bits each (v + 1); channel 4 = channel 0 × 120
/// | policy channel 1: the next move's index, u16::MAX for all 1s
/// | metadataInputNC (with --metadata)
/// | policy channel 0: n u16, then n × (index u16, count i16), written in order
/// ```
#[derive(Clone, Copy, Debug)]
struct Compact {
    bin: usize,
    global: usize,
    gtargets: usize,
    score: usize,
    value: usize,
    next: usize,
    meta: usize,
    policy: usize,
}

impl Compact {
    fn new(metadata: bool) -> Compact {
        let bin = COMPACT_HEADER;
        let global = bin + SPATIAL * PACKED;
        let gtargets = global + GLOBAL * 4;
        let score = gtargets + GLOBAL_TARGETS * 4;
        let value = score + COMPACT_SCORE;
        let next = value + COMPACT_VALUE;
        let meta = next + 2;
        let policy = meta + if metadata { METADATA * 4 } else { 0 };
        Compact { bin, global, gtargets, score, value, next, meta, policy }
    }
}

/// The length of the compact record that starts `data`.
pub fn record_len(data: &[u8]) -> usize {
    u32::from_le_bytes(data[HEADER..COMPACT_HEADER].try_into().expect("4 bytes")) as usize
}

/// Appends the npz arrays of compact record `rec` to `arrays` (one per
/// [`Layout::arrays`], in that order).
pub fn expand(layout: &Layout, rec: &[u8], arrays: &mut [Vec<u8>]) {
    let c = Compact::new(layout.metadata());
    let grow = |v: &mut Vec<u8>, n: usize| -> usize {
        let start = v.len();
        v.resize(start + n, 0);
        start
    };
    arrays[0].extend_from_slice(&rec[c.bin..c.global]);
    arrays[1].extend_from_slice(&rec[c.global..c.gtargets]);
    // Policy.
    let start = grow(&mut arrays[2], 2 * MOVES * 2);
    let out = &mut arrays[2][start..];
    let n = u16::from_le_bytes(rec[c.policy..c.policy + 2].try_into().expect("2 bytes")) as usize;
    for e in rec[c.policy + 2..c.policy + 2 + 4 * n].chunks_exact(4) {
        let m = u16::from_le_bytes([e[0], e[1]]) as usize;
        out[2 * m..2 * m + 2].copy_from_slice(&e[2..4]);
    }
    match u16::from_le_bytes([rec[c.next], rec[c.next + 1]]) {
        u16::MAX => (0..MOVES).for_each(|i| put_i16(out, MOVES + i, 1)),
        m => put_i16(out, MOVES + m as usize, 1),
    }
    arrays[3].extend_from_slice(&rec[c.gtargets..c.score]);
    // Score distribution.
    let start = grow(&mut arrays[4], SCORE_DISTR);
    let bin = u16::from_le_bytes([rec[c.score], rec[c.score + 1]]) as usize;
    arrays[4][start + bin] = rec[c.score + 2];
    arrays[4][start + bin + 1] = rec[c.score + 3];
    // Value targets.
    let start = grow(&mut arrays[5], VALUE_CHANNELS * NN);
    let out = &mut arrays[5][start..];
    for (p, &b) in rec[c.value..c.next].iter().enumerate() {
        for k in 0..4 {
            out[k * NN + p] = (((b >> (2 * k)) & 3) as i8 - 1) as u8;
        }
        out[4 * NN + p] = ((((b & 3) as i8) - 1) * 120) as u8;
    }
    if layout.metadata() {
        arrays[6].extend_from_slice(&rec[c.meta..c.policy]);
    }
}

/// A sampled row to export.
#[derive(Clone, Debug)]
pub struct Wanted {
    pub move_number: u32,
    /// 0 train, 1 val.
    pub split: u8,
    /// The corpus's moves from this position and their counts (the row's frame).
    pub dist: Vec<(u16, u32)>,
}

/// Options that shape the rows.
#[derive(Clone, Copy, Debug)]
pub struct RowOptions {
    pub played_policy: bool,
    pub seed: u64,
    pub layout: Layout,
}

/// What the final count gives the rows of a counted game.
pub struct Final {
    /// Black's margin (komi included).
    pub margin: f32,
    /// Owner per point: +1 black, −1 white, 0 nobody.
    pub own: [i8; NN],
    /// Seki / dame per point: KataGo's full-area owner where the final ownership is empty.
    pub seki: [i8; NN],
}

/// The count of `g`, when the games table says it agrees with `RE` and a recount (no
/// markup) gives the same margin; an error when the recount meets a bug in kibo.
pub fn final_count(g: &GameRow) -> anyhow::Result<Option<Final>> {
    let Some(v) = g.score.as_ref().filter(|v| v.check == ScoreCheck::Agrees) else { return Ok(None) };
    let c = crate::stages::filter::count_game(g, &[], &[], None)?;
    let Some((board, j)) = c.and_then(|c| {
        (c.verdict.check == ScoreCheck::Agrees && c.verdict.counted_margin == v.counted_margin)
            .then_some(c.end)
            .flatten()
    }) else {
        return Ok(None);
    };
    let mut area = [0u8; NN];
    Area::new().calculate(&board, true, &mut area);
    let mut own = [0i8; NN];
    let mut seki = [0i8; NN];
    for p in 0..NN {
        own[p] = match j.own.point[p] {
            Owner::Black => 1,
            Owner::White => -1,
            _ => 0,
        };
        if own[p] == 0 && area[p] != 0 {
            seki[p] = if area[p] == 1 { 1 } else { -1 };
        }
    }
    Ok(v.counted_margin.map(|margin| Final { margin, own, seki }))
}

/// Shuffle key of a row: the first 8 bytes of `blake3("kibo.katago.v1\0" ‖ seed ‖ game_id ‖ move)`.
pub fn shuffle_key(seed: u64, game_id: &[u8; 16], move_number: u32) -> u64 {
    let mut h = blake3::Hasher::new();
    h.update(b"kibo.katago.v1\0");
    h.update(&seed.to_le_bytes());
    h.update(game_id);
    h.update(&move_number.to_le_bytes());
    u64::from_le_bytes(h.finalize().as_bytes()[..8].try_into().expect("8 bytes"))
}

/// Cells before every move, then the final position.
struct Collect {
    cells: Vec<[u8; NN]>,
}

impl Visitor for Collect {
    fn before(&mut self, board: &Board, _: &Step) {
        let mut c = [0u8; NN];
        board.cells(&mut c);
        self.cells.push(c);
    }
}

/// The permissive replay: every game the split stage replayed replays the same way.
fn permissive() -> ReplayRules {
    ReplayRules { rules: Rules { multi_stone_suicide: true }, allow_consecutive_moves: true, ..Default::default() }
}

/// Everything fixed for one game.
struct GameCtx<'a> {
    g: &'a GameRow,
    rules: KataRules,
    komi: f32,
    positions: Vec<[u8; NN]>,
    fin: Option<&'a Final>,
    opts: RowOptions,
    game_index: u32,
}

struct Encode<'a, 'b> {
    ctx: &'b GameCtx<'a>,
    wanted: &'b [Wanted],
    next: usize,
    enc: &'b mut V7Encoder,
    row: V7Row,
    /// The boards before the last two steps, in turn: `prev[newest]` is one move back,
    /// the other two moves back (each step overwrites the older one in place).
    prev: [Option<Board>; 2],
    newest: usize,
    /// Superko rules only: the cells before the last [`HISTORY`] steps, most recent first,
    /// and the colour of each step (the side to move on them): the boards a samples row
    /// rebuilds, so the bans of channel 6 are the rows path's.
    earlier: Vec<[u8; NN]>,
    earlier_to_play: Vec<Color>,
    placed: [u32; 2],
    out: &'b mut Vec<u8>,
}

impl Visitor for Encode<'_, '_> {
    fn before(&mut self, board: &Board, step: &Step) {
        while self.next < self.wanted.len() && self.wanted[self.next].move_number < step.number {
            self.next += 1;
        }
        if self.next < self.wanted.len() && self.wanted[self.next].move_number == step.number {
            let w = &self.wanted[self.next];
            self.next += 1;
            self.encode(board, step, w);
        }
        self.newest ^= 1;
        match &mut self.prev[self.newest] {
            Some(b) => b.clone_from(board),
            slot => *slot = Some(board.clone()),
        }
        if self.ctx.rules.ko != KoRule::Simple {
            if self.earlier.len() == HISTORY {
                self.earlier.pop();
                self.earlier_to_play.pop();
            }
            let mut cells = [0u8; NN];
            board.cells(&mut cells);
            self.earlier.insert(0, cells);
            self.earlier_to_play.insert(0, step.color);
        }
    }
    fn after(&mut self, _: &Board, step: &Step) {
        if step.mv != Move::Pass {
            self.placed[step.color as usize - 1] += 1;
        }
    }
}

impl Encode<'_, '_> {
    fn encode(&mut self, board: &Board, step: &Step, w: &Wanted) {
        let ctx = self.ctx;
        let g = ctx.g;
        let before = &g.moves[..step.index];
        let recent: Vec<(Color, Move)> = before.iter().rev().take(5).map(|m| (m.color, m.mv)).collect();
        let pos = V7Position {
            board,
            ko: board.ko_point(),
            prev: [self.prev[self.newest].as_ref(), self.prev[self.newest ^ 1].as_ref()],
            earlier: Earlier { boards: &self.earlier, to_play: &self.earlier_to_play },
            to_play: step.color,
            recent: &recent,
            rules: &ctx.rules,
            komi: ctx.komi,
            placed: self.placed,
            handicap: handicap_stones(
                g.setup_black.len() as u32,
                g.setup_white.len() as u32,
                leading_black(before.iter().map(|m| (m.color, m.mv))),
            ),
        };
        self.enc.encode(&pos, &mut self.row);
        let l = ctx.opts.layout;
        let c = Compact::new(l.metadata());
        let start = self.out.len();
        self.out.resize(start + c.policy + 2, 0);
        let rec = &mut self.out[start..];
        let key = shuffle_key(ctx.opts.seed, &g.game_id.0, step.number);
        rec[0..8].copy_from_slice(&key.to_le_bytes());
        rec[8..12].copy_from_slice(&ctx.game_index.to_le_bytes());
        rec[12..14].copy_from_slice(&(step.number as u16).to_le_bytes());
        rec[14] = w.split;
        pack_bits(&self.row, &mut rec[c.bin..c.global]);
        for (i, v) in self.row.global.iter().enumerate() {
            rec[c.global + 4 * i..c.global + 4 * i + 4].copy_from_slice(&v.to_le_bytes());
        }
        let self_komi = self.row.global[5] * 20.0;
        let score = ctx.fin.map(|f| if step.color == Color::Black { f.margin } else { -f.margin });
        fill_global_targets(ctx, step, score, self_komi, &mut rec[c.gtargets..c.score]);
        fill_score_distr(score, &mut rec[c.score..c.value]);
        fill_value_targets(ctx, step, &mut rec[c.value..c.next]);
        let next = match ctx.g.moves.get(step.index + 1) {
            Some(n) => n.mv.index(),
            None => u16::MAX,
        };
        rec[c.next..c.next + 2].copy_from_slice(&next.to_le_bytes());
        if l.metadata() {
            super::meta::fill_metadata(g, step.color, &mut rec[c.meta..c.policy]);
        }
        let n = fill_policy(ctx, step, w, self.out);
        let rec = &mut self.out[start..];
        rec[c.policy..c.policy + 2].copy_from_slice(&(n as u16).to_le_bytes());
        let len = rec.len() as u32;
        rec[HEADER..COMPACT_HEADER].copy_from_slice(&len.to_le_bytes());
    }
}

/// KataGo's count of leading black non-pass moves (`computeNumHandicapStones`): stops
/// at the first white move, and counts nothing when white then moves twice in a row.
pub fn leading_black(moves: impl Iterator<Item = (Color, Move)>) -> u32 {
    let mut moves = moves.peekable();
    let mut n = 0;
    while let Some((c, m)) = moves.next() {
        if c != Color::Black {
            if moves.peek().is_some_and(|x| x.0 != Color::Black) {
                n = 0;
            }
            break;
        }
        if m != Move::Pass {
            n += 1;
        }
    }
    n
}

/// Channels packed MSB first, 46 bytes each (`np.packbits` order): eight 0/1 bytes read
/// as one little-endian word, whose product with `0x8040201008040201` gathers byte `j`
/// into bit `63 − j` (the partial products never overlap, so nothing carries); point 360
/// is the last byte's top bit.
fn pack_bits(row: &V7Row, out: &mut [u8]) {
    for (ch, dst) in out.chunks_exact_mut(PACKED).take(SPATIAL).enumerate() {
        let src = &row.spatial[ch * NN..(ch + 1) * NN];
        for (d, w) in dst.iter_mut().zip(src.chunks_exact(8)) {
            let x = u64::from_le_bytes(w.try_into().expect("8 bytes")) & 0x0101_0101_0101_0101;
            *d = (x.wrapping_mul(0x8040_2010_0804_0201) >> 56) as u8;
        }
        dst[PACKED - 1] = if src[NN - 1] != 0 { 0x80 } else { 0 };
    }
}

fn put_i16(out: &mut [u8], i: usize, v: i16) {
    out[2 * i..2 * i + 2].copy_from_slice(&v.to_le_bytes());
}

/// Policy channel 0 (the corpus's move counts, or the played move alone) as (index,
/// count) entries appended to `out`; returns their number. Channel 1 (the next move of
/// the game, all 1s when there is none) is the record's `next`.
fn fill_policy(ctx: &GameCtx, step: &Step, w: &Wanted, out: &mut Vec<u8>) -> usize {
    let mut put = |m: u16, v: i16| {
        out.extend_from_slice(&m.to_le_bytes());
        out.extend_from_slice(&v.to_le_bytes());
    };
    if ctx.opts.played_policy || w.dist.is_empty() {
        put(step.mv.index(), 1);
        1
    } else {
        for &(m, c) in &w.dist {
            put(m, c.min(i16::MAX as u32) as i16);
        }
        w.dist.len()
    }
}

/// `globalTargetsNC` (docs/planes.md, "Targets and weights").
fn fill_global_targets(ctx: &GameCtx, step: &Step, score: Option<f32>, self_komi: f32, out: &mut [u8]) {
    let g = ctx.g;
    let mut t = [0f32; GLOBAL_TARGETS];
    let pla = step.color;
    let (win, loss, none, value_weight) = match (g.meta.result_kind, g.meta.winner) {
        (ResultKind::Draw, _) => (0.5, 0.5, 0.0, 1.0),
        (_, Some(w)) => {
            if w == pla {
                (1.0, 0.0, 0.0, 1.0)
            } else {
                (0.0, 1.0, 0.0, 1.0)
            }
        }
        _ => (0.0, 0.0, 1.0, 0.0),
    };
    (t[0], t[1], t[2]) = (win, loss, none);
    let s = score.unwrap_or(0.0);
    t[3] = s;
    // TD targets: the final result again (a valid distribution), masked by C24 = 1.
    for k in 0..3 {
        (t[4 + 4 * k], t[5 + 4 * k], t[6 + 4 * k], t[7 + 4 * k]) = (win, loss, none, s);
    }
    let counted = score.is_some();
    if counted {
        (t[20], t[21]) = (s, s);
    }
    t[24] = 1.0;
    t[25] = 1.0;
    t[26] = 1.0;
    t[27] = counted as u8 as f32;
    t[28] = (step.index + 1 < g.moves.len()) as u8 as f32;
    t[29] = if counted { 0.25 } else { 0.0 };
    t[33] = 1.0;
    t[34] = counted as u8 as f32;
    t[35] = 1.0 - value_weight;
    t[36..41].fill(1.0);
    let id = &g.game_id.0;
    let bits = u128::from_le_bytes(*id);
    for (k, (shift, width)) in [(0, 22), (22, 22), (44, 20), (64, 22), (86, 22), (108, 20)].into_iter().enumerate() {
        t[41 + k] = ((bits >> shift) & ((1u128 << width) - 1)) as f32;
    }
    t[47] = self_komi;
    t[48] = (!ctx.rules.territory) as u8 as f32;
    t[51] = step.index as f32;
    t[54] = g.effective_handicap() as f32;
    t[62] = (g.meta.winner.is_some() || g.meta.result_kind == ResultKind::Draw) as u8 as f32;
    t[63] = 3.0;
    for (i, v) in t.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
    }
}

/// C `round`: half away from zero.
fn round_away(x: f32) -> f32 {
    x.signum() * (x.abs() + 0.5).floor()
}

/// `scoreDistrN`: the final score split between its two neighbouring half-point bins
/// (KataGo's writer); a dummy 50/50 at 420/421 without a count. Written compact: the
/// first bin (u16), its value and the next bin's.
fn fill_score_distr(score: Option<f32>, out: &mut [u8]) {
    let centre = (SCORE_DISTR / 2) as i32;
    let (bin, a, b) = match score {
        None => (centre - 1, 50u8, 50u8),
        Some(s) => {
            let c = (round_away(s) as i32).clamp(-(centre - 1), centre - 1);
            let u = (round_away((s - (c as f32 - 0.5)) * 100.0) as i32).clamp(0, 100);
            (c + centre - 1, (100 - u) as u8, u as u8)
        }
    };
    out[..2].copy_from_slice(&(bin as u16).to_le_bytes());
    out[2] = a;
    out[3] = b;
}

/// `valueTargetsNCHW`: ownership, seki, the boards 8 and 32 moves later (clamped to the
/// end), scoring ×120; all from the side to move. Written compact: per point, channels
/// 0–3 two bits each (value + 1); channel 4 is channel 0 × 120.
fn fill_value_targets(ctx: &GameCtx, step: &Step, out: &mut [u8]) {
    let pla = step.color as u8;
    let sign: i8 = if step.color == Color::Black { 1 } else { -1 };
    let two = |v: i8| (v + 1) as u8;
    match ctx.fin {
        Some(f) => {
            for ((o, &own), &seki) in out.iter_mut().zip(&f.own).zip(&f.seki) {
                *o = two(own * sign) | two(seki * sign) << 2;
            }
        }
        None => out.fill(two(0) | two(0) << 2),
    }
    let last = ctx.positions.len() - 1;
    for (k, ahead) in [(2usize, 8usize), (3, 32)] {
        let cells = &ctx.positions[(step.index + ahead).min(last)];
        for (o, &cell) in out.iter_mut().zip(cells) {
            let v: i8 = match cell {
                0 => 0,
                c if c == pla => 1,
                _ => -1,
            };
            *o |= two(v) << (2 * k);
        }
    }
}

/// Encodes the wanted rows of game `g` (sorted by move number) into compact records
/// ([`expand`] gives their npz arrays) appended to `out`. A game that does not replay yields no rows.
pub fn game_rows(
    g: &GameRow,
    game_index: u32,
    wanted: &[Wanted],
    fin: Option<&Final>,
    opts: RowOptions,
    enc: &mut V7Encoder,
    out: &mut Vec<u8>,
) -> anyhow::Result<()> {
    let mut collect = Collect { cells: Vec::with_capacity(g.moves.len() + 1) };
    let end = replay(g, &permissive(), &mut collect).map_err(|r| anyhow::anyhow!("{}: {}", g.location(), r.detail))?;
    let mut c = [0u8; NN];
    end.board.cells(&mut c);
    collect.cells.push(c);
    let rules = KataRules::from_ru(g.meta.rules.as_deref());
    let komi = g.meta.komi.unwrap_or_else(|| crate::scoring::default_komi(g.effective_handicap()));
    let ctx = GameCtx { g, rules, komi, positions: collect.cells, fin, opts, game_index };
    let placed = [g.setup_black.len() as u32, g.setup_white.len() as u32];
    let mut v = Encode {
        ctx: &ctx,
        wanted,
        next: 0,
        enc,
        row: V7Row::default(),
        prev: [None, None],
        newest: 0,
        earlier: Vec::new(),
        earlier_to_play: Vec::new(),
        placed,
        out,
    };
    replay(g, &permissive(), &mut v).map_err(|r| anyhow::anyhow!("{}: {}", g.location(), r.detail))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_bits_is_numpys_packbits_msb_first() {
        let mut state = 3u64;
        for density in [0u64, 1, 7, 50, 100] {
            let mut row = V7Row::default();
            for v in row.spatial.iter_mut() {
                let r;
                (state, r) = crate::engine::zobrist::splitmix64(state);
                *v = (r % 100 < density) as u8;
            }
            let mut want = vec![0u8; SPATIAL * PACKED];
            for ch in 0..SPATIAL {
                for p in 0..NN {
                    if row.get(ch, p) {
                        want[ch * PACKED + p / 8] |= 0x80 >> (p % 8);
                    }
                }
            }
            let mut got = vec![0xAAu8; SPATIAL * PACKED];
            pack_bits(&row, &mut got);
            assert_eq!(got, want, "density {density}%");
        }
    }

    #[test]
    fn leading_black_counts_the_leading_black_stones() {
        let (b, w, pass) = (Color::Black, Color::White, Move::Pass);
        let at = Move::Play(crate::coord::Point::new(3, 3).expect("on board"));
        assert_eq!(leading_black([(b, at), (b, at), (w, at), (b, at)].into_iter()), 2);
        assert_eq!(leading_black([(b, at), (b, pass), (b, at)].into_iter()), 2);
        assert_eq!(leading_black([(b, at), (b, at), (w, at), (w, at)].into_iter()), 0);
        assert_eq!(leading_black([(w, at), (b, at)].into_iter()), 0);
        assert_eq!(leading_black([].into_iter()), 0);
    }

    /// Channel 6 of the npz row at move `number` of `sgf`, as SGF points.
    fn ko_channel(sgf: &str, number: u32) -> Vec<String> {
        let rec = crate::sgf::read_games(sgf.as_bytes()).games.remove(0).expect("the game reads");
        let g = GameRow::from_record(&rec, "t", "t.sgf", None, &[]);
        let layout = Layout::new(false);
        let opts = RowOptions { played_policy: true, seed: 0, layout };
        let wanted = [Wanted { move_number: number, split: 0, dist: Vec::new() }];
        let mut out = Vec::new();
        game_rows(&g, 0, &wanted, None, opts, &mut V7Encoder::new(), &mut out).unwrap();
        assert_eq!(out.len(), record_len(&out));
        let mut arrays = vec![Vec::new(); layout.arrays().len()];
        expand(&layout, &out, &mut arrays);
        assert_eq!(arrays[0].len(), layout.global - layout.bin);
        let bits = &arrays[0][6 * PACKED..7 * PACKED];
        let pt = |i: usize| crate::coord::Point::from_index(i as u16).unwrap().to_sgf();
        (0..NN).filter(|&i| bits[i / 8] & (0x80 >> (i % 8)) != 0).map(pt).collect()
    }

    /// The npz export (a replay) bans what the rows path bans (`features::tests`).
    #[test]
    fn superko_bans_in_the_npz_rows() {
        use crate::features::tests::{positional_only, triple_ko};
        assert_eq!(ko_channel(&triple_ko("Tromp-Taylor"), 6), ["hb", "nb"]);
        assert_eq!(ko_channel(&triple_ko("AGA"), 6), ["hb", "nb"]);
        assert_eq!(ko_channel(&triple_ko("Japanese"), 6), ["hb"]);
        assert_eq!(ko_channel(&positional_only("Tromp-Taylor"), 6), ["ib", "ob"]);
        assert_eq!(ko_channel(&positional_only("NZ"), 6), ["ob"]);
    }
}
