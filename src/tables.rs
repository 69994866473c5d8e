/*!
The `games` and `rejects` tables as Arrow: the only code that turns a typed
[`GameRow`] / [`RejectRow`] into columns and back. Column meanings are in
`docs/schema.md`.

Each table's columns are declared once, name, type and values side by side
([`game_columns`], [`reject_columns`]); the schema is what that declaration gives for no
rows, so a column cannot be added to one and forgotten in the other. Reading back goes
by column name with checked types ([`Cols`]): a table written by another version or
damaged gives an error naming the column, never a panic.
*/

use std::sync::Arc;

use anyhow::{anyhow, bail, Context};
use arrow_array::builder::{ListBuilder, StringBuilder};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Int16Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type};
use arrow_array::{
    Array, ArrayRef, ArrowPrimitiveType, GenericListArray, ListArray, PrimitiveArray, RecordBatch, StringArray,
    StructArray,
};
use arrow_buffer::OffsetBuffer;
use arrow_schema::{DataType, Field, Fields, SchemaRef};

use crate::color::Color;
use crate::coord::{Move, Point};
use crate::game::{GameId, GameMeta, GameRow, ScoreJudge, ScoreVerdict};
use crate::reject::{Reject, Stage};
use crate::scoring::{RuleSet, Score, ScoreCheck};
use crate::sgf::{GameMove, MidSetup, ResultKind};

/// One game left out, or a file that could not be read.
#[derive(Clone, Debug, PartialEq)]
pub struct RejectRow {
    /// Why (its stage is `reason.stage()`).
    pub reason: Reject,
    /// Configured source name.
    pub source: String,
    /// File on disk.
    pub source_file: String,
    /// Path inside the archive(s), or null.
    pub member: Option<String>,
    /// Game index in its file; null when the whole file failed.
    pub game_index: Option<u32>,
    /// Byte offset in the decoded file text, when known.
    pub byte_offset: Option<u64>,
    /// Human-readable detail (SZ value, coordinate, OS error, …).
    pub detail: String,
    /// 1-based move number, when the reason concerns a move.
    pub move_number: Option<u32>,
    /// The game's id when the game was read (split-stage rejects), else null.
    pub game_id: Option<GameId>,
}

impl RejectRow {
    /// The stage that gave it.
    pub fn stage(&self) -> Stage {
        self.reason.stage()
    }
    /// A split-stage reject of a kept game.
    pub fn of_game(g: &GameRow, reason: Reject, detail: String, move_number: Option<u32>) -> RejectRow {
        RejectRow {
            reason,
            source: g.source.clone(),
            source_file: g.source_file.clone(),
            member: g.member.clone(),
            game_index: Some(g.game_index),
            byte_offset: Some(g.byte_offset),
            detail,
            move_number,
            game_id: Some(g.game_id),
        }
    }
}

// ---------------------------------------------------------------- building columns

type Column = (Field, ArrayRef);

fn utf8<'a>(name: &str, nullable: bool, v: impl Iterator<Item = Option<&'a str>>) -> Column {
    let a: StringArray = v.collect();
    (Field::new(name, DataType::Utf8, nullable), Arc::new(a))
}

fn prim<T: ArrowPrimitiveType>(name: &str, nullable: bool, v: impl Iterator<Item = Option<T::Native>>) -> Column {
    let a: PrimitiveArray<T> = v.collect();
    (Field::new(name, T::DATA_TYPE, nullable), Arc::new(a))
}

fn item(dt: DataType) -> Arc<Field> {
    Arc::new(Field::new("item", dt, false))
}

/// A non-null `list<item>` column from per-row value vectors.
fn list_of(name: &str, values: Column, lens: impl Iterator<Item = usize>) -> Column {
    let (f, a) = values;
    let f = Arc::new(f.with_name("item"));
    let list = ListArray::new(f.clone(), OffsetBuffer::from_lengths(lens), a, None);
    (Field::new(name, DataType::List(f), false), Arc::new(list))
}

fn u16_list<'a>(name: &str, rows: impl Iterator<Item = &'a [u16]> + Clone) -> Column {
    let values = prim::<UInt16Type>("item", false, rows.clone().flat_map(|r| r.iter().map(|&v| Some(v))));
    list_of(name, values, rows.map(<[u16]>::len))
}

fn points(ps: &[Point]) -> Vec<u16> {
    ps.iter().map(|p| p.index()).collect()
}

/// `mid_setup`: per game a list of `{before_move, black, white, empty}`.
fn mid_setup_column(rows: &[GameRow]) -> Column {
    let all: Vec<&MidSetup> = rows.iter().flat_map(|r| &r.mid_setup).collect();
    let [b, w, e] = [|s: &MidSetup| points(&s.black), |s: &MidSetup| points(&s.white), |s: &MidSetup| points(&s.empty)];
    let lists = |name: &str, f: fn(&MidSetup) -> Vec<u16>| {
        let v: Vec<Vec<u16>> = all.iter().map(|s| f(s)).collect();
        u16_list(name, v.iter().map(Vec::as_slice))
    };
    let cols: Vec<Column> = vec![
        prim::<UInt32Type>("before_move", false, all.iter().map(|s| Some(s.before_move))),
        lists("black", b),
        lists("white", w),
        lists("empty", e),
    ];
    let (fields, arrays): (Vec<Field>, Vec<ArrayRef>) = cols.into_iter().unzip();
    let fields = Fields::from(fields);
    let s = StructArray::new(fields.clone(), arrays, None);
    let f = item(DataType::Struct(fields));
    let list = ListArray::new(
        f.clone(),
        OffsetBuffer::from_lengths(rows.iter().map(|r| r.mid_setup.len())),
        Arc::new(s),
        None,
    );
    (Field::new("mid_setup", DataType::List(f), false), Arc::new(list))
}

fn str_list(name: &str, rows: impl Iterator<Item = Vec<&'static str>>) -> Column {
    let mut b = ListBuilder::new(StringBuilder::new()).with_field(item(DataType::Utf8));
    for r in rows {
        for v in r {
            b.values().append_value(v);
        }
        b.append(true);
    }
    (Field::new(name, DataType::List(item(DataType::Utf8)), false), Arc::new(b.finish()))
}

/// The games table, declared once: each column's name, type and values side by side.
pub fn game_columns(rows: &[GameRow]) -> Vec<Column> {
    let m = |f: fn(&GameMeta) -> Option<&str>| rows.iter().map(move |r| f(&r.meta));
    let s = |f: fn(&GameRow) -> Option<&str>| rows.iter().map(f);
    let ids: Vec<String> = rows.iter().map(|r| r.game_id.to_hex()).collect();
    let moves: Vec<Vec<u16>> = rows.iter().map(|r| r.moves.iter().map(|m| m.mv.index()).collect()).collect();
    let setup_b: Vec<Vec<u16>> = rows.iter().map(|r| points(&r.setup_black)).collect();
    let setup_w: Vec<Vec<u16>> = rows.iter().map(|r| points(&r.setup_white)).collect();
    let mut quirks = ListBuilder::new(StringBuilder::new()).with_field(item(DataType::Utf8));
    for r in rows {
        for q in &r.quirks {
            quirks.values().append_value(q);
        }
        quirks.append(true);
    }
    let mut cols = vec![
        utf8("game_id", false, ids.iter().map(|s| Some(s.as_str()))),
        utf8("source", false, s(|r| Some(&r.source))),
        utf8("source_file", false, s(|r| Some(&r.source_file))),
        utf8("member", true, s(|r| r.member.as_deref())),
        prim::<UInt32Type>("game_index", false, rows.iter().map(|r| Some(r.game_index))),
        prim::<UInt64Type>("byte_offset", false, rows.iter().map(|r| Some(r.byte_offset))),
        utf8("charset", false, s(|r| Some(&r.charset))),
        utf8("format", false, s(|r| Some(&r.format))),
        prim::<Float32Type>("komi", true, rows.iter().map(|r| r.meta.komi)),
        utf8("komi_raw", true, m(|g| g.komi_raw.as_deref())),
        prim::<UInt8Type>("handicap", false, rows.iter().map(|r| Some(r.meta.handicap))),
        utf8("rules", true, m(|g| g.rules.as_deref())),
        utf8("result_raw", true, m(|g| g.result_raw.as_deref())),
        utf8("winner", true, m(|g| g.winner.map(Color::as_str))),
        utf8("result_kind", false, m(|g| Some(g.result_kind.as_str()))),
        prim::<Float32Type>("margin", true, rows.iter().map(|r| r.meta.margin)),
        utf8("black_name", true, m(|g| g.black_name.as_deref())),
        utf8("white_name", true, m(|g| g.white_name.as_deref())),
        utf8("black_rank", true, m(|g| g.black_rank.as_deref())),
        utf8("white_rank", true, m(|g| g.white_rank.as_deref())),
        prim::<Int16Type>("black_rank_num", true, rows.iter().map(|r| r.meta.black_rank_num)),
        prim::<Int16Type>("white_rank_num", true, rows.iter().map(|r| r.meta.white_rank_num)),
        utf8("date", true, m(|g| g.date.as_deref())),
        utf8("date_iso", true, m(|g| g.date_iso.as_deref())),
        utf8("event", true, m(|g| g.event.as_deref())),
        utf8("round", true, m(|g| g.round.as_deref())),
        utf8("place", true, m(|g| g.place.as_deref())),
        utf8("game_name", true, m(|g| g.game_name.as_deref())),
        utf8("application", true, m(|g| g.application.as_deref())),
        u16_list("setup_black", setup_b.iter().map(Vec::as_slice)),
        u16_list("setup_white", setup_w.iter().map(Vec::as_slice)),
        utf8("first_player", true, s(|r| r.first_player.map(Color::as_str))),
        u16_list("moves", moves.iter().map(Vec::as_slice)),
        str_list("colors", rows.iter().map(|r| r.moves.iter().map(|m| m.color.as_str()).collect())),
        prim::<UInt32Type>("num_moves", false, rows.iter().map(|r| Some(r.moves.len() as u32))),
        prim::<UInt32Type>("non_alternating", false, rows.iter().map(|r| Some(r.non_alternating))),
        mid_setup_column(rows),
        (Field::new("quirks", DataType::List(item(DataType::Utf8)), false), Arc::new(quirks.finish())),
        utf8("score_check", true, s(|r| r.score.as_ref().map(|v| v.check.as_str()))),
        prim::<Float32Type>(
            "counted_margin",
            true,
            rows.iter().map(|r| r.score.as_ref().and_then(|v| v.counted_margin).filter(|m| m.is_finite())),
        ),
    ];
    cols.extend(score_columns(rows));
    cols
}

/// The parts of the count, one `u16` column each (docs/schema.md), in this order.
const SCORE_PARTS: [&str; 9] = [
    "score_territory_black",
    "score_territory_white",
    "score_prisoners_black",
    "score_prisoners_white",
    "score_dead_black",
    "score_dead_white",
    "score_stones_black",
    "score_stones_white",
    "score_undecided_points",
];

/// The breakdown of the count (`score_rules`, `score_komi`, [`SCORE_PARTS`]) and the
/// reason of an `undecided` check (`score_reason`).
fn score_columns(rows: &[GameRow]) -> Vec<Column> {
    let count = |r: &GameRow| r.score.as_ref().and_then(|v| v.count);
    let part = |k: usize| {
        move |r: &GameRow| {
            count(r).map(|c| {
                let v = match k {
                    0..=1 => c.territory[k],
                    2..=3 => c.prisoners[k - 2],
                    4..=5 => c.dead[k - 4],
                    6..=7 => c.stones[k - 6],
                    _ => c.undecided_points,
                };
                v.min(u16::MAX as u32) as u16
            })
        }
    };
    let mut cols = vec![
        utf8("score_rules", true, rows.iter().map(move |r| count(r).map(|c| c.rules.as_str()))),
        prim::<Float32Type>("score_komi", true, rows.iter().map(move |r| count(r).map(|c| c.komi))),
    ];
    for (k, name) in SCORE_PARTS.iter().enumerate() {
        cols.push(prim::<UInt16Type>(name, true, rows.iter().map(part(k))));
    }
    cols.push(utf8("score_reason", true, rows.iter().map(|r| r.score.as_ref().and_then(|v| v.reason.as_deref()))));
    cols.push(utf8("score_judge", true, rows.iter().map(|r| r.score.as_ref().map(|v| v.judge.as_str()))));
    cols
}

/// The score columns of a games batch, read back ([`score_columns`]).
struct ScoreCols<'a> {
    check: &'a StringArray,
    counted: &'a PrimitiveArray<Float32Type>,
    rules: &'a StringArray,
    komi: &'a PrimitiveArray<Float32Type>,
    parts: Vec<&'a PrimitiveArray<UInt16Type>>,
    reason: &'a StringArray,
    judge: &'a StringArray,
}

impl<'a> ScoreCols<'a> {
    fn new(c: &Cols<'a>) -> anyhow::Result<ScoreCols<'a>> {
        Ok(ScoreCols {
            check: c.str("score_check")?,
            counted: c.prim::<Float32Type>("counted_margin")?,
            rules: c.str("score_rules")?,
            komi: c.prim::<Float32Type>("score_komi")?,
            parts: SCORE_PARTS.iter().map(|n| c.prim::<UInt16Type>(n)).collect::<anyhow::Result<_>>()?,
            reason: c.str("score_reason")?,
            judge: c.str("score_judge")?,
        })
    }

    /// Row `i`'s verdict (`handicap`: its `HA`, for the area-rules bonus).
    fn row(&self, i: usize, handicap: u32, at: &dyn Fn() -> String) -> anyhow::Result<Option<ScoreVerdict>> {
        let Some(v) = opt_str(self.check, i) else { return Ok(None) };
        let check = ScoreCheck::from_name(&v).ok_or_else(|| anyhow!("{}: score_check {v:?}", at()))?;
        let count = match opt_str(self.rules, i) {
            None => None,
            Some(r) => {
                let rules = RuleSet::from_name(&r).ok_or_else(|| anyhow!("{}: score_rules {r:?}", at()))?;
                let p: Vec<u32> = self.parts.iter().map(|a| opt(a, i).unwrap_or(0) as u32).collect();
                Some(Score::from_parts(
                    rules,
                    opt(self.komi, i).unwrap_or(0.0),
                    handicap,
                    [p[0], p[1]],
                    [p[2], p[3]],
                    [p[4], p[5]],
                    [p[6], p[7]],
                    p[8],
                ))
            }
        };
        let judge = match opt_str(self.judge, i) {
            None => ScoreJudge::Kibo,
            Some(j) => ScoreJudge::from_name(&j).ok_or_else(|| anyhow!("{}: score_judge {j:?}", at()))?,
        };
        Ok(Some(ScoreVerdict {
            check,
            counted_margin: opt(self.counted, i),
            count,
            reason: opt_str(self.reason, i),
            judge,
        }))
    }
}

/// The rejects table, declared once.
pub fn reject_columns(rows: &[RejectRow]) -> Vec<Column> {
    let s = |f: fn(&RejectRow) -> Option<&str>| rows.iter().map(f);
    let ids: Vec<Option<String>> = rows.iter().map(|r| r.game_id.map(|g| g.to_hex())).collect();
    vec![
        utf8("stage", false, s(|r| Some(r.stage().as_str()))),
        utf8("source", false, s(|r| Some(&r.source))),
        utf8("source_file", false, s(|r| Some(&r.source_file))),
        utf8("member", true, s(|r| r.member.as_deref())),
        prim::<UInt32Type>("game_index", true, rows.iter().map(|r| r.game_index)),
        prim::<UInt64Type>("byte_offset", true, rows.iter().map(|r| r.byte_offset)),
        utf8("reason", false, s(|r| Some(r.reason.as_str()))),
        utf8("detail", false, s(|r| Some(&r.detail))),
        prim::<UInt32Type>("move_number", true, rows.iter().map(|r| r.move_number)),
        utf8("game_id", true, ids.iter().map(|s| s.as_deref())),
    ]
}

fn batch(cols: Vec<Column>) -> RecordBatch {
    let (fields, arrays): (Vec<Field>, Vec<ArrayRef>) = cols.into_iter().unzip();
    RecordBatch::try_new(crate::storage::schema(fields), arrays).expect("invariant: columns built with their fields")
}

/// Schema of the games table.
pub fn games_schema() -> SchemaRef {
    batch(game_columns(&[])).schema()
}

/// Schema of the rejects table.
pub fn rejects_schema() -> SchemaRef {
    batch(reject_columns(&[])).schema()
}

/// Builds a games batch.
pub fn games_batch(rows: &[GameRow]) -> RecordBatch {
    batch(game_columns(rows))
}

/// Builds a rejects batch.
pub fn rejects_batch(rows: &[RejectRow]) -> RecordBatch {
    batch(reject_columns(rows))
}

// ---------------------------------------------------------------- reading back

/// Typed column access over a batch, by name, with checked types: a wrong or missing
/// column is an error naming the table and column.
pub struct Cols<'a> {
    batch: &'a RecordBatch,
    table: &'static str,
}

impl<'a> Cols<'a> {
    /// Access to `batch`, a batch of table `table` (named in errors).
    pub fn new(batch: &'a RecordBatch, table: &'static str) -> Cols<'a> {
        Cols { batch, table }
    }
    fn col(&self, name: &str) -> anyhow::Result<&'a ArrayRef> {
        self.batch.column_by_name(name).ok_or_else(|| anyhow!("{} table has no column {name:?}", self.table))
    }
    fn wrong(&self, name: &str, want: &str) -> anyhow::Error {
        let found = self.col(name).map(|c| c.data_type().to_string()).unwrap_or_default();
        anyhow!("{} table, column {name:?}: expected {want}, found {found}", self.table)
    }
    /// A `Utf8` column.
    pub fn str(&self, name: &str) -> anyhow::Result<&'a StringArray> {
        self.col(name)?.as_string_opt::<i32>().ok_or_else(|| self.wrong(name, "utf8"))
    }
    /// A primitive column of type `T`.
    pub fn prim<T: ArrowPrimitiveType>(&self, name: &str) -> anyhow::Result<&'a PrimitiveArray<T>> {
        self.col(name)?.as_primitive_opt::<T>().ok_or_else(|| self.wrong(name, &T::DATA_TYPE.to_string()))
    }
    /// A list column.
    pub fn list(&self, name: &str) -> anyhow::Result<&'a GenericListArray<i32>> {
        self.col(name)?.as_list_opt::<i32>().ok_or_else(|| self.wrong(name, "list"))
    }
    /// A `binary` column.
    pub fn binary(&self, name: &str) -> anyhow::Result<&'a arrow_array::BinaryArray> {
        self.col(name)?.as_binary_opt::<i32>().ok_or_else(|| self.wrong(name, "binary"))
    }
    /// A `fixed_size_binary` column.
    pub fn fixed_binary(&self, name: &str) -> anyhow::Result<&'a arrow_array::FixedSizeBinaryArray> {
        self.col(name)?.as_fixed_size_binary_opt().ok_or_else(|| self.wrong(name, "fixed_size_binary"))
    }
    /// A `list<utf8>` column as (list, values).
    pub fn str_list(&self, name: &str) -> anyhow::Result<(&'a GenericListArray<i32>, &'a StringArray)> {
        let l = self.list(name)?;
        let v = l.values().as_string_opt::<i32>().ok_or_else(|| self.wrong(name, "list<utf8>"))?;
        Ok((l, v))
    }
    /// Whether the batch has column `name`.
    pub fn has(&self, name: &str) -> bool {
        self.batch.column_by_name(name).is_some()
    }
    /// A `list<u16>` column as (list, values).
    pub fn u16_list(&self, name: &str) -> anyhow::Result<(&'a GenericListArray<i32>, &'a [u16])> {
        let l = self.list(name)?;
        let v = l.values().as_primitive_opt::<UInt16Type>().ok_or_else(|| self.wrong(name, "list<u16>"))?;
        Ok((l, v.values()))
    }
}

fn opt_str(a: &StringArray, i: usize) -> Option<String> {
    (!a.is_null(i)).then(|| a.value(i).to_string())
}

fn opt<T: ArrowPrimitiveType>(a: &PrimitiveArray<T>, i: usize) -> Option<T::Native> {
    (!a.is_null(i)).then(|| a.value(i))
}

fn row_values<'a>(l: &GenericListArray<i32>, values: &'a [u16], i: usize) -> &'a [u16] {
    let o = l.value_offsets();
    &values[o[i] as usize..o[i + 1] as usize]
}

/// `what` names the row in an error; it is formatted only then (it runs per move).
fn to_points<S: std::fmt::Display>(v: &[u16], what: impl Fn() -> S) -> anyhow::Result<Vec<Point>> {
    v.iter()
        .map(|&i| Point::from_index(i).ok_or_else(|| anyhow!("{}: point index {i} is off the board", what())))
        .collect()
}

fn color_of<S: std::fmt::Display>(s: &str, what: impl Fn() -> S) -> anyhow::Result<Color> {
    Color::from_str_exact(s).ok_or_else(|| anyhow!("{}: colour {s:?} is not \"B\" or \"W\"", what()))
}

/// The `game_id` column of a batch of the games table (which may hold only that column).
pub fn game_ids_from_batch(b: &RecordBatch) -> anyhow::Result<Vec<GameId>> {
    let id = Cols::new(b, "games").str("game_id")?;
    (0..b.num_rows())
        .map(|i| {
            GameId::from_hex(id.value(i))
                .ok_or_else(|| anyhow!("games table, game_id {}: not 32 hex digits", id.value(i)))
        })
        .collect()
}

/// Reads games rows back from a batch of the games table. A value outside its type's
/// domain (a move index past 361, a colour other than B/W, an unknown result kind) is
/// an error naming the row: such a table was not written by this version.
pub fn games_from_batch(b: &RecordBatch) -> anyhow::Result<Vec<GameRow>> {
    let c = Cols::new(b, "games");
    let s = |n| c.str(n);
    let (id, source, file, member, charset) =
        (s("game_id")?, s("source")?, s("source_file")?, s("member")?, s("charset")?);
    let format = s("format")?;
    let (gi, off) = (c.prim::<UInt32Type>("game_index")?, c.prim::<UInt64Type>("byte_offset")?);
    let (komi, ha, margin) =
        (c.prim::<Float32Type>("komi")?, c.prim::<UInt8Type>("handicap")?, c.prim::<Float32Type>("margin")?);
    let (brn, wrn) = (c.prim::<Int16Type>("black_rank_num")?, c.prim::<Int16Type>("white_rank_num")?);
    let text: Vec<&StringArray> = [
        "komi_raw",
        "rules",
        "result_raw",
        "black_name",
        "white_name",
        "black_rank",
        "white_rank",
        "date",
        "date_iso",
        "event",
        "round",
        "place",
        "game_name",
        "application",
    ]
    .iter()
    .map(|n| c.str(n))
    .collect::<anyhow::Result<_>>()?;
    let (winner, kind, first) = (s("winner")?, s("result_kind")?, s("first_player")?);
    let scores = ScoreCols::new(&c)?;
    let non_alt = c.prim::<UInt32Type>("non_alternating")?;
    let (sb, sbv) = c.u16_list("setup_black")?;
    let (sw, swv) = c.u16_list("setup_white")?;
    let (mv, mvv) = c.u16_list("moves")?;
    let colors = c.list("colors")?;
    let colors_v = colors.values().as_string_opt::<i32>().ok_or_else(|| c.wrong("colors", "list<utf8>"))?;
    let quirks = c.list("quirks")?;
    let quirks_v = quirks.values().as_string_opt::<i32>().ok_or_else(|| c.wrong("quirks", "list<utf8>"))?;
    let mids = MidSetups::new(&c)?;
    let mut out = Vec::with_capacity(b.num_rows());
    for i in 0..b.num_rows() {
        let at = || format!("games table, game_id {}", id.value(i));
        let t = |k: usize| opt_str(text[k], i);
        let moves_i = row_values(mv, mvv, i);
        let co = colors.value_offsets();
        let (c0, c1) = (co[i] as usize, co[i + 1] as usize);
        if c1 - c0 != moves_i.len() {
            bail!("{}: {} moves but {} colours", at(), moves_i.len(), c1 - c0);
        }
        let moves = moves_i
            .iter()
            .zip(c0..c1)
            .enumerate()
            .map(|(n, (&m, ci))| {
                let mv = Move::from_index(m).ok_or_else(|| anyhow!("{}: move {} has index {m}", at(), n + 1))?;
                Ok(GameMove { color: color_of(colors_v.value(ci), at)?, mv })
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let result_kind =
            ResultKind::from_name(kind.value(i)).ok_or_else(|| anyhow!("{}: result kind {:?}", at(), kind.value(i)))?;
        let qo = quirks.value_offsets();
        let mut row = GameRow {
            game_id: GameId::from_hex(id.value(i)).ok_or_else(|| anyhow!("{}: not 32 hex digits", at()))?,
            source: source.value(i).to_string(),
            source_file: file.value(i).to_string(),
            member: opt_str(member, i),
            game_index: gi.value(i),
            byte_offset: off.value(i),
            charset: charset.value(i).to_string(),
            format: format.value(i).to_string(),
            meta: GameMeta {
                komi: opt(komi, i),
                komi_raw: t(0),
                handicap: ha.value(i),
                rules: t(1),
                result_raw: t(2),
                winner: opt_str(winner, i).map(|w| color_of(&w, at)).transpose()?,
                result_kind,
                margin: opt(margin, i),
                black_name: t(3),
                white_name: t(4),
                black_rank: t(5),
                white_rank: t(6),
                black_rank_num: opt(brn, i),
                white_rank_num: opt(wrn, i),
                date: t(7),
                date_iso: t(8),
                event: t(9),
                round: t(10),
                place: t(11),
                game_name: t(12),
                application: t(13),
            },
            setup_black: to_points(row_values(sb, sbv, i), at)?,
            setup_white: to_points(row_values(sw, swv, i), at)?,
            first_player: opt_str(first, i).map(|w| color_of(&w, at)).transpose()?,
            moves,
            mid_setup: mids.row(i).with_context(at)?,
            non_alternating: non_alt.value(i),
            quirks: (qo[i] as usize..qo[i + 1] as usize).map(|j| quirks_v.value(j).to_string()).collect(),
            score: None,
        };
        row.score = scores.row(i, row.effective_handicap(), &at)?;
        out.push(row);
    }
    Ok(out)
}

/// The `mid_setup` column's parts.
struct MidSetups<'a> {
    list: &'a GenericListArray<i32>,
    before: &'a PrimitiveArray<UInt32Type>,
    points: [(&'a GenericListArray<i32>, &'a [u16]); 3],
}

impl<'a> MidSetups<'a> {
    fn new(c: &Cols<'a>) -> anyhow::Result<MidSetups<'a>> {
        let list = c.list("mid_setup")?;
        let s = list.values().as_struct_opt().ok_or_else(|| c.wrong("mid_setup", "list<struct>"))?;
        let field = |n: &str| s.column_by_name(n).ok_or_else(|| anyhow!("games table, mid_setup has no field {n:?}"));
        let before = field("before_move")?
            .as_primitive_opt::<UInt32Type>()
            .ok_or_else(|| c.wrong("mid_setup", "before_move u32"))?;
        let pts = |n: &str| -> anyhow::Result<(&'a GenericListArray<i32>, &'a [u16])> {
            let l = field(n)?.as_list_opt::<i32>().ok_or_else(|| c.wrong("mid_setup", "list<u16> fields"))?;
            let v =
                l.values().as_primitive_opt::<UInt16Type>().ok_or_else(|| c.wrong("mid_setup", "list<u16> fields"))?;
            Ok((l, v.values()))
        };
        Ok(MidSetups { list, before, points: [pts("black")?, pts("white")?, pts("empty")?] })
    }
    fn row(&self, i: usize) -> anyhow::Result<Vec<MidSetup>> {
        let o = self.list.value_offsets();
        (o[i] as usize..o[i + 1] as usize)
            .map(|j| {
                let [b, w, e] = self.points.map(|(l, v)| row_values(l, v, j));
                Ok(MidSetup {
                    before_move: self.before.value(j),
                    black: to_points(b, || "mid_setup")?,
                    white: to_points(w, || "mid_setup")?,
                    empty: to_points(e, || "mid_setup")?,
                })
            })
            .collect()
    }
}

/// Reads rejects rows back from a batch of the rejects table.
pub fn rejects_from_batch(b: &RecordBatch) -> anyhow::Result<Vec<RejectRow>> {
    let c = Cols::new(b, "rejects");
    let (stage, source, file, member) = (c.str("stage")?, c.str("source")?, c.str("source_file")?, c.str("member")?);
    let (reason, detail, id) = (c.str("reason")?, c.str("detail")?, c.str("game_id")?);
    let (gi, off, mn) = (
        c.prim::<UInt32Type>("game_index")?,
        c.prim::<UInt64Type>("byte_offset")?,
        c.prim::<UInt32Type>("move_number")?,
    );
    (0..b.num_rows())
        .map(|i| {
            let r = Reject::from_name(reason.value(i))
                .ok_or_else(|| anyhow!("rejects table: unknown reason {:?}", reason.value(i)))?;
            if r.stage().as_str() != stage.value(i) {
                bail!("rejects table: reason {r} belongs to stage {}, not {:?}", r.stage().as_str(), stage.value(i));
            }
            Ok(RejectRow {
                reason: r,
                source: source.value(i).to_string(),
                source_file: file.value(i).to_string(),
                member: opt_str(member, i),
                game_index: opt(gi, i),
                byte_offset: opt(off, i),
                detail: detail.value(i).to_string(),
                move_number: opt(mn, i),
                game_id: opt_str(id, i)
                    .map(|s| GameId::from_hex(&s).ok_or_else(|| anyhow!("rejects table: game_id {s:?}")))
                    .transpose()?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(i: u16) -> Point {
        Point::from_index(i).unwrap()
    }

    #[test]
    fn games_round_trip_through_parquet() {
        let moves = vec![
            GameMove { color: Color::Black, mv: Move::Play(p(0)) },
            GameMove { color: Color::White, mv: Move::Pass },
            GameMove { color: Color::Black, mv: Move::Play(p(360)) },
        ];
        let row = GameRow {
            game_id: GameId([0xab; 16]),
            source: "s".into(),
            source_file: "f 棋.sgf".into(),
            member: Some("a/b.sgf".into()),
            game_index: 3,
            meta: GameMeta {
                komi: Some(6.5),
                black_rank_num: Some(-4),
                winner: Some(Color::White),
                result_kind: ResultKind::Score,
                ..Default::default()
            },
            setup_black: vec![p(60), p(72)],
            first_player: Some(Color::Black),
            moves,
            mid_setup: vec![MidSetup { before_move: 2, black: vec![p(5)], white: vec![], empty: vec![p(60)] }],
            quirks: vec!["tt_pass".into()],
            score: Some(ScoreVerdict {
                check: ScoreCheck::Undecided,
                counted_margin: Some(-3.5),
                count: Some(Score::from_parts(RuleSet::Japanese, 6.5, 0, [10, 12], [3, 1], [2, 0], [0; 2], 4)),
                reason: Some("4 undecided points".into()),
                judge: crate::game::ScoreJudge::Katago,
            }),
            ..Default::default()
        };
        let dir = tempfile::tempdir().unwrap();
        let mut w = crate::storage::TableWriter::new(dir.path(), "games", games_schema(), Default::default()).unwrap();
        w.write(&games_batch(&[row.clone(), GameRow::default()])).unwrap();
        let shards = w.finish().unwrap();
        assert_eq!(shards.len(), 1);
        let mut back = Vec::new();
        crate::storage::read_table(dir.path(), "games", |b| {
            back.extend(games_from_batch(&b)?);
            Ok(())
        })
        .unwrap();
        assert_eq!(back, vec![row, GameRow::default()]);
    }

    #[test]
    fn schema_is_the_declared_columns() {
        let names: Vec<String> = games_schema().fields().iter().map(|f| f.name().clone()).collect();
        assert_eq!(names.len(), game_columns(&[]).len());
        assert!(names.iter().any(|n| n == "mid_setup") && names.iter().any(|n| n == "colors"));
        let dt = games_schema().field_with_name("colors").unwrap().data_type().clone();
        assert_eq!(dt, DataType::List(item(DataType::Utf8)));
    }

    #[test]
    fn a_wrong_column_type_is_an_error_not_a_panic() {
        let b = games_batch(&[GameRow::default()]);
        let mut cols: Vec<ArrayRef> = b.columns().to_vec();
        let mut fields: Vec<Field> = b.schema().fields().iter().map(|f| f.as_ref().clone()).collect();
        let k = fields.iter().position(|f| f.name() == "handicap").unwrap();
        cols[k] = Arc::new(StringArray::from(vec!["9"]));
        fields[k] = Field::new("handicap", DataType::Utf8, false);
        let bad = RecordBatch::try_new(crate::storage::schema(fields), cols).unwrap();
        let e = games_from_batch(&bad).unwrap_err().to_string();
        assert!(e.contains("handicap") && e.contains("expected UInt8"), "{e}");
    }

    #[test]
    fn rejects_round_trip() {
        let rows = vec![RejectRow {
            reason: Reject::Suicide,
            source: "s".into(),
            source_file: "f.sgf".into(),
            member: None,
            game_index: Some(1),
            byte_offset: None,
            detail: "black at D4 (dp)".into(),
            move_number: Some(17),
            game_id: Some(GameId([7; 16])),
        }];
        let back = rejects_from_batch(&rejects_batch(&rows)).unwrap();
        assert_eq!(back, rows);
    }
}
