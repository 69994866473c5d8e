//! [`Position`]: one samples row with the boards before it rebuilt, read from a batch
//! ([`positions_of_batch`]) or from an output folder's shards ([`for_each_position`]).

use std::path::{Path, PathBuf};

use anyhow::Context;
use arrow_array::types::{Float32Type, Int16Type, UInt16Type, UInt32Type, UInt8Type};
use arrow_array::{Array, RecordBatch};

use crate::color::Color;
use crate::coord::{Move, NN, PASS};
use crate::engine::Board;
use crate::samples::{capture_code, capture_parts, HISTORY};
use crate::tables::Cols;

/// One samples row, with the boards before it ([`Position::rebuild`]). Text fields are
/// reused from row to row ([`for_each_position`] fills one `Position` per batch row).
#[derive(Clone, Debug)]
pub struct Position {
    /// The board before the move: 0 empty, 1 black, 2 white, row-major from the top-left.
    pub board: [u8; NN],
    /// Side to move: 1 black, 2 white.
    pub to_play: u8,
    /// The point the side to move may not play (simple ko).
    pub ko_point: Option<u16>,
    /// The previous moves, most recent first: `history[..history_len]` (361 = pass).
    pub history: [u16; HISTORY],
    /// How many of `history` are set.
    pub history_len: usize,
    /// `history_captures` as stored ([`crate::samples::capture_code`]).
    pub history_captures: Vec<u16>,
    /// `earlier[k]`: the board `k + 1` moves before `board` (before history move `k`), for
    /// `k < history_len`; filled by [`Position::rebuild`].
    pub earlier: [[u8; NN]; HISTORY],
    /// The move played (361 = pass), its 1-based number.
    pub mv: u16,
    /// 1-based number of the move played.
    pub move_number: u16,
    /// Stones captured before this move by black / white.
    pub prisoners: [u16; 2],
    /// `komi`, `handicap`, `rules` as in the samples table.
    pub komi: Option<f32>,
    /// `HA`.
    pub handicap: u8,
    /// `RU` as written.
    pub rules: Option<String>,
    /// The game's winner: 1 black, 2 white, `None` for no result or a draw.
    pub winner: Option<u8>,
    /// Numeric ranks (`black_rank_num`, `white_rank_num`).
    pub ranks: [Option<i16>; 2],
    /// `date`, `YYYY[-MM[-DD]]`.
    pub date: Option<String>,
    /// The game's content hash and split.
    pub game_id: String,
    /// `train`, `val` or `test`.
    pub split: String,
    /// The moves played from this position across the corpus and how often
    /// (`move_dist_moves`, `move_dist_counts`).
    pub dist: Vec<(u16, u32)>,
}

impl Default for Position {
    fn default() -> Position {
        Position {
            board: [0; NN],
            to_play: 1,
            ko_point: None,
            history: [PASS; HISTORY],
            history_len: 0,
            history_captures: Vec::new(),
            earlier: [[0; NN]; HISTORY],
            mv: PASS,
            move_number: 1,
            prisoners: [0; 2],
            komi: None,
            handicap: 0,
            rules: None,
            winner: None,
            ranks: [None; 2],
            date: None,
            game_id: String::new(),
            split: String::new(),
            dist: Vec::new(),
        }
    }
}

impl Position {
    /// The board `k` moves before this one: `k = 0` is `board`; `None` past the history
    /// (before the game's first move, or more than 8 moves back).
    pub fn board_before(&self, k: usize) -> Option<&[u8; NN]> {
        match k {
            0 => Some(&self.board),
            k if k <= self.history_len => Some(&self.earlier[k - 1]),
            _ => None,
        }
    }
    /// The position of a game before `to_play`'s next move, exactly as a samples row of
    /// that game records it (the split stage's `SampleVisitor`): `boards[t]` is the board
    /// before `moves[t]` and the last board the board now (`boards.len() == moves.len() +
    /// 1`). Fills the board, the side to move and its simple-ko ban, the history (the
    /// last 8 moves, what each changed besides its own point, the earlier boards), the
    /// prisoners and the move number; `mv` becomes a pass and the corpus fields (`dist`,
    /// `winner`) are cleared. The game's own fields (`komi`, `rules`, `handicap`, …) are
    /// the caller's. For a game being played (kibo-py's `Game`, the GTP front of the
    /// example policy net).
    pub fn set_game(&mut self, boards: &[Board], moves: &[Move], to_play: Color) -> anyhow::Result<()> {
        let n = moves.len();
        let now = match boards.last() {
            Some(b) if boards.len() == n + 1 => b,
            _ => anyhow::bail!("a game of {n} moves needs {} boards, not {}", n + 1, boards.len()),
        };
        now.cells(&mut self.board);
        self.to_play = to_play.as_u8();
        self.ko_point = now.ko_point().filter(|_| now.ko_color() == Some(to_play)).map(|p| p.index());
        self.history_len = n.min(HISTORY);
        self.history_captures.clear();
        let mut after = self.board;
        for k in 0..self.history_len {
            let t = n - 1 - k;
            let own = moves[t].index();
            self.history[k] = own;
            let mut before = [0u8; NN];
            boards[t].cells(&mut before);
            for (p, (&old, &new)) in before.iter().zip(&after).enumerate() {
                if old != new && p as u16 != own {
                    self.history_captures.push(capture_code(k, old, p as u16));
                }
            }
            self.earlier[k] = before;
            after = before;
        }
        let clamp = |c: Color| now.prisoners(c).min(u16::MAX as u32) as u16;
        self.prisoners = [clamp(Color::Black), clamp(Color::White)];
        self.move_number = (n + 1).min(u16::MAX as usize) as u16;
        self.mv = PASS;
        self.dist.clear();
        self.winner = None;
        Ok(())
    }
    /// Fills `earlier` from `board`, `history` and `history_captures`: undoing history
    /// move `k` empties its point (a pass changes nothing) and restores the cells its
    /// capture codes name.
    pub fn rebuild(&mut self) {
        let mut cur = self.board;
        let mut codes = self.history_captures.iter().map(|&c| capture_parts(c)).peekable();
        for k in 0..self.history_len {
            let m = self.history[k];
            if (m as usize) < NN {
                cur[m as usize] = 0;
            }
            while let Some((_, old, p)) = codes.next_if(|c| c.0 == k) {
                cur[p as usize] = old;
            }
            self.earlier[k] = cur;
        }
    }
}

/// The columns a [`Position`] is read from.
pub const POSITION_COLUMNS: &[&str] = &[
    "game_id",
    "move_number",
    "board",
    "to_play",
    "ko_point",
    "history",
    "history_captures",
    "prisoners_black",
    "prisoners_white",
    "move",
    "komi",
    "handicap",
    "rules",
    "winner",
    "black_rank_num",
    "white_rank_num",
    "date",
    "split",
    "move_dist_moves",
    "move_dist_counts",
];

/// A text column as a file holds it (`Utf8`) or as a samples batch built in memory holds
/// it (a dictionary of `Utf8` values, keyed by u32 or u16).
enum Text<'a> {
    Plain(&'a arrow_array::StringArray),
    Dict(Vec<Option<u32>>, &'a arrow_array::StringArray),
}

impl<'a> Text<'a> {
    fn of(batch: &'a RecordBatch, name: &str) -> anyhow::Result<Text<'a>> {
        use arrow_array::cast::AsArray;
        use arrow_schema::DataType;
        let col = batch.column_by_name(name).ok_or_else(|| anyhow::anyhow!("samples table has no column {name:?}"))?;
        let bad = || anyhow::anyhow!("samples table, column {name:?}: expected utf8, found {}", col.data_type());
        if let Some(s) = col.as_string_opt::<i32>() {
            return Ok(Text::Plain(s));
        }
        let (keys, values): (Vec<Option<u32>>, _) = match col.data_type() {
            DataType::Dictionary(k, _) if **k == DataType::UInt32 => {
                let d = col.as_dictionary::<UInt32Type>();
                (d.keys().iter().collect(), d.values())
            }
            DataType::Dictionary(k, _) if **k == DataType::UInt16 => {
                let d = col.as_dictionary::<UInt16Type>();
                (d.keys().iter().map(|k| k.map(u32::from)).collect(), d.values())
            }
            _ => return Err(bad()),
        };
        Ok(Text::Dict(keys, values.as_string_opt::<i32>().ok_or_else(bad)?))
    }
    fn get(&self, i: usize) -> Option<&'a str> {
        match self {
            Text::Plain(s) => (!s.is_null(i)).then(|| s.value(i)),
            Text::Dict(keys, values) => keys[i].map(|k| values.value(k as usize)),
        }
    }
}

fn list_range(l: &arrow_array::GenericListArray<i32>, i: usize) -> std::ops::Range<usize> {
    let o = l.value_offsets();
    o[i] as usize..o[i + 1] as usize
}

/// Calls `f` with the position of every row of `batch` (a batch of the samples table
/// holding at least [`POSITION_COLUMNS`]), in row order, one `Position` reused.
pub fn positions_of_batch(
    batch: &RecordBatch,
    pos: &mut Position,
    mut f: impl FnMut(&Position) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let c = Cols::new(batch, "samples");
    let text = |name| Text::of(batch, name);
    let (game_id, split, rules, winner, date) =
        (text("game_id")?, text("split")?, text("rules")?, text("winner")?, text("date")?);
    let board = c.binary("board")?;
    let (to_play, handicap) = (c.prim::<UInt8Type>("to_play")?, c.prim::<UInt8Type>("handicap")?);
    let (ko, mv, number) =
        (c.prim::<UInt16Type>("ko_point")?, c.prim::<UInt16Type>("move")?, c.prim::<UInt16Type>("move_number")?);
    let (pb, pw) = (c.prim::<UInt16Type>("prisoners_black")?, c.prim::<UInt16Type>("prisoners_white")?);
    let komi = c.prim::<Float32Type>("komi")?;
    let (rb, rw) = (c.prim::<Int16Type>("black_rank_num")?, c.prim::<Int16Type>("white_rank_num")?);
    let (hl, hv) = c.u16_list("history")?;
    let (cl, cv) = c.u16_list("history_captures")?;
    let (dl, dm) = c.u16_list("move_dist_moves")?;
    let dc = c.list("move_dist_counts")?;
    let dc = dc.values().as_any().downcast_ref::<arrow_array::PrimitiveArray<UInt32Type>>();
    let dc = dc.ok_or_else(|| anyhow::anyhow!("samples table, column \"move_dist_counts\": expected list<u32>"))?;
    let opt = |a: &dyn Array, i: usize| !a.is_null(i);
    let set_str = |dst: &mut String, a: &Text, i: usize| {
        dst.clear();
        dst.push_str(a.get(i).unwrap_or(""));
    };
    for i in 0..batch.num_rows() {
        pos.board =
            board.value(i).try_into().map_err(|_| anyhow::anyhow!("samples row {i}: board is not 361 bytes"))?;
        pos.to_play = to_play.value(i);
        pos.ko_point = opt(ko, i).then(|| ko.value(i));
        let h = &hv[list_range(hl, i)];
        pos.history_len = h.len().min(HISTORY);
        pos.history[..pos.history_len].copy_from_slice(&h[..pos.history_len]);
        pos.history_captures.clear();
        pos.history_captures.extend_from_slice(&cv[list_range(cl, i)]);
        pos.mv = mv.value(i);
        pos.move_number = number.value(i);
        pos.prisoners = [pb.value(i), pw.value(i)];
        pos.komi = opt(komi, i).then(|| komi.value(i));
        pos.handicap = handicap.value(i);
        pos.rules = rules.get(i).map(str::to_string);
        pos.winner = winner.get(i).and_then(crate::color::Color::from_str_exact).map(|c| c.as_u8());
        pos.ranks = [opt(rb, i).then(|| rb.value(i)), opt(rw, i).then(|| rw.value(i))];
        pos.date = date.get(i).map(str::to_string);
        set_str(&mut pos.game_id, &game_id, i);
        set_str(&mut pos.split, &split, i);
        pos.dist.clear();
        pos.dist.extend(list_range(dl, i).map(|j| (dm[j], dc.value(j))));
        pos.rebuild();
        f(pos)?;
    }
    Ok(())
}

/// The samples shards of output folder `out`, in name order; only those of `split`
/// (`part-<split>-*.parquet`) when given.
pub fn sample_shards(out: &Path, split: Option<&str>) -> anyhow::Result<Vec<PathBuf>> {
    let dir = out.join("samples");
    let prefix = split.map(|s| format!("part-{s}-"));
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .with_context(|| format!("reading table folder {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            prefix.as_deref().is_none_or(|pre| name.starts_with(pre))
        })
        .collect();
    v.sort();
    Ok(v)
}

/// Calls `f` with every position of the sample shards of `out` (of `split` only, when
/// given), in shard order then row order. Reads [`POSITION_COLUMNS`] only, one batch at a
/// time: memory does not grow with the corpus.
pub fn for_each_position(
    out: &Path,
    split: Option<&str>,
    mut f: impl FnMut(&Position) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut pos = Position::default();
    for shard in sample_shards(out, split)? {
        crate::storage::read_parquet_columns(&shard, true, Some(POSITION_COLUMNS), |b| {
            positions_of_batch(&b, &mut pos, &mut f)
        })?;
    }
    Ok(())
}
