/*!
The `games` and `rejects` tables: row structs, Arrow schemas, and conversion both ways.
Column meanings are documented in `docs/schema.md`.
*/

use std::sync::Arc;

use arrow_array::builder::{
    Float32Builder, Int16Builder, ListBuilder, StringBuilder, UInt16Builder, UInt32Builder, UInt64Builder, UInt8Builder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Int16Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, SchemaRef};

/// One kept game.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameRow {
    /// 32 hex chars: blake3 of the game's content (setup, first player, moves), not its metadata.
    pub game_id: String,
    /// Configured source name.
    pub source: String,
    /// File on disk.
    pub source_file: String,
    /// Path inside the archive(s), or null.
    pub member: Option<String>,
    /// Game index in its file (0-based).
    pub game_index: u32,
    /// Byte offset of the game in the decoded file text.
    pub byte_offset: u64,
    /// Charset used to decode the file.
    pub charset: String,
    /// Komi after normalisation.
    pub komi: Option<f32>,
    /// KM as written.
    pub komi_raw: Option<String>,
    /// HA (0 when absent).
    pub handicap: u8,
    /// RU as written.
    pub rules: Option<String>,
    /// RE as written.
    pub result_raw: Option<String>,
    /// "B", "W" or null.
    pub winner: Option<String>,
    /// score, resign, time, forfeit, draw, void, unknown.
    pub result_kind: String,
    /// Score margin for `score` results.
    pub margin: Option<f32>,
    /// PB.
    pub black_name: Option<String>,
    /// PW.
    pub white_name: Option<String>,
    /// BR as written.
    pub black_rank: Option<String>,
    /// WR as written.
    pub white_rank: Option<String>,
    /// Numeric black rank (kyu k → 1−k, dan d → d, pro p → 9+p).
    pub black_rank_num: Option<i16>,
    /// Numeric white rank.
    pub white_rank_num: Option<i16>,
    /// DT as written.
    pub date: Option<String>,
    /// First date in DT, `YYYY[-MM[-DD]]`.
    pub date_iso: Option<String>,
    /// EV.
    pub event: Option<String>,
    /// RO.
    pub round: Option<String>,
    /// PC.
    pub place: Option<String>,
    /// GN.
    pub game_name: Option<String>,
    /// AP.
    pub application: Option<String>,
    /// Black setup stones (point indices row*19+col) of the start position.
    pub setup_black: Vec<u16>,
    /// White setup stones.
    pub setup_white: Vec<u16>,
    /// PL at the start: "B", "W" or null.
    pub first_player: Option<String>,
    /// Main-line moves as indices (361 = pass).
    pub moves: Vec<u16>,
    /// Colour of each move, one char per move (`B`/`W`).
    pub colors: String,
    /// Number of moves (passes included).
    pub num_moves: u32,
    /// Moves whose colour equals the previous move's.
    pub non_alternating: u32,
    /// Setup after the first move, as JSON (`[{"before_move":n,"black":[..],"white":[..],"empty":[..]}]`), or null.
    pub mid_setup: Option<String>,
    /// Names of the quirks normalised while reading (`fox_komi_scaled`, `tt_pass`, …).
    pub quirks: Vec<String>,
    /// For games that ended by counting: `agrees`, `disagrees` or `undecided`; else null.
    pub score_check: Option<String>,
    /// The counted margin (black − white, komi included) behind `score_check`.
    pub counted_margin: Option<f32>,
}

/// One game left out, or a file that could not be read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RejectRow {
    /// Stage that rejected it: `filter` or `split`.
    pub stage: String,
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
    /// Stable reason code.
    pub reason: String,
    /// Human-readable detail (SZ value, coordinate, OS error, …).
    pub detail: String,
    /// 1-based move number, when the reason concerns a move.
    pub move_number: Option<u32>,
    /// game_id when the game was read (split-stage rejects), else null.
    pub game_id: Option<String>,
}

fn utf8(name: &str, nullable: bool) -> Field {
    Field::new(name, DataType::Utf8, nullable)
}

fn list_of(name: &str, dt: DataType) -> Field {
    Field::new(name, DataType::List(Arc::new(Field::new("item", dt, false))), false)
}

/// Schema of the games table.
pub fn games_schema() -> SchemaRef {
    crate::storage::schema(vec![
        utf8("game_id", false),
        utf8("source", false),
        utf8("source_file", false),
        utf8("member", true),
        Field::new("game_index", DataType::UInt32, false),
        Field::new("byte_offset", DataType::UInt64, false),
        utf8("charset", false),
        Field::new("komi", DataType::Float32, true),
        utf8("komi_raw", true),
        Field::new("handicap", DataType::UInt8, false),
        utf8("rules", true),
        utf8("result_raw", true),
        utf8("winner", true),
        utf8("result_kind", false),
        Field::new("margin", DataType::Float32, true),
        utf8("black_name", true),
        utf8("white_name", true),
        utf8("black_rank", true),
        utf8("white_rank", true),
        Field::new("black_rank_num", DataType::Int16, true),
        Field::new("white_rank_num", DataType::Int16, true),
        utf8("date", true),
        utf8("date_iso", true),
        utf8("event", true),
        utf8("round", true),
        utf8("place", true),
        utf8("game_name", true),
        utf8("application", true),
        list_of("setup_black", DataType::UInt16),
        list_of("setup_white", DataType::UInt16),
        utf8("first_player", true),
        list_of("moves", DataType::UInt16),
        utf8("colors", false),
        Field::new("num_moves", DataType::UInt32, false),
        Field::new("non_alternating", DataType::UInt32, false),
        utf8("mid_setup", true),
        list_of("quirks", DataType::Utf8),
        utf8("score_check", true),
        Field::new("counted_margin", DataType::Float32, true),
    ])
}

/// Schema of the rejects table.
pub fn rejects_schema() -> SchemaRef {
    crate::storage::schema(vec![
        utf8("stage", false),
        utf8("source", false),
        utf8("source_file", false),
        utf8("member", true),
        Field::new("game_index", DataType::UInt32, true),
        Field::new("byte_offset", DataType::UInt64, true),
        utf8("reason", false),
        utf8("detail", false),
        Field::new("move_number", DataType::UInt32, true),
        utf8("game_id", true),
    ])
}

fn strs<'a>(it: impl Iterator<Item = Option<&'a str>>) -> ArrayRef {
    let mut b = StringBuilder::new();
    for v in it {
        b.append_option(v);
    }
    Arc::new(b.finish())
}

fn u16_lists<'a>(it: impl Iterator<Item = &'a Vec<u16>>) -> ArrayRef {
    let mut b =
        ListBuilder::new(UInt16Builder::new()).with_field(Arc::new(Field::new("item", DataType::UInt16, false)));
    for v in it {
        b.values().append_slice(v);
        b.append(true);
    }
    Arc::new(b.finish())
}

/// Builds a games batch.
pub fn games_batch(rows: &[GameRow]) -> RecordBatch {
    let s = |f: fn(&GameRow) -> Option<&str>| strs(rows.iter().map(f));
    let mut gi = UInt32Builder::new();
    let mut off = UInt64Builder::new();
    let mut komi = Float32Builder::new();
    let mut ha = UInt8Builder::new();
    let mut margin = Float32Builder::new();
    let mut brn = Int16Builder::new();
    let mut wrn = Int16Builder::new();
    let mut nm = UInt32Builder::new();
    let mut na = UInt32Builder::new();
    let mut cm = Float32Builder::new();
    let mut quirks =
        ListBuilder::new(StringBuilder::new()).with_field(Arc::new(Field::new("item", DataType::Utf8, false)));
    for r in rows {
        gi.append_value(r.game_index);
        off.append_value(r.byte_offset);
        komi.append_option(r.komi);
        ha.append_value(r.handicap);
        margin.append_option(r.margin);
        brn.append_option(r.black_rank_num);
        wrn.append_option(r.white_rank_num);
        nm.append_value(r.num_moves);
        na.append_value(r.non_alternating);
        cm.append_option(r.counted_margin.filter(|m| m.is_finite()));
        for q in &r.quirks {
            quirks.values().append_value(q);
        }
        quirks.append(true);
    }
    let cols: Vec<ArrayRef> = vec![
        s(|r| Some(&r.game_id)),
        s(|r| Some(&r.source)),
        s(|r| Some(&r.source_file)),
        s(|r| r.member.as_deref()),
        Arc::new(gi.finish()),
        Arc::new(off.finish()),
        s(|r| Some(&r.charset)),
        Arc::new(komi.finish()),
        s(|r| r.komi_raw.as_deref()),
        Arc::new(ha.finish()),
        s(|r| r.rules.as_deref()),
        s(|r| r.result_raw.as_deref()),
        s(|r| r.winner.as_deref()),
        s(|r| Some(&r.result_kind)),
        Arc::new(margin.finish()),
        s(|r| r.black_name.as_deref()),
        s(|r| r.white_name.as_deref()),
        s(|r| r.black_rank.as_deref()),
        s(|r| r.white_rank.as_deref()),
        Arc::new(brn.finish()),
        Arc::new(wrn.finish()),
        s(|r| r.date.as_deref()),
        s(|r| r.date_iso.as_deref()),
        s(|r| r.event.as_deref()),
        s(|r| r.round.as_deref()),
        s(|r| r.place.as_deref()),
        s(|r| r.game_name.as_deref()),
        s(|r| r.application.as_deref()),
        u16_lists(rows.iter().map(|r| &r.setup_black)),
        u16_lists(rows.iter().map(|r| &r.setup_white)),
        s(|r| r.first_player.as_deref()),
        u16_lists(rows.iter().map(|r| &r.moves)),
        s(|r| Some(&r.colors)),
        Arc::new(nm.finish()),
        Arc::new(na.finish()),
        s(|r| r.mid_setup.as_deref()),
        Arc::new(quirks.finish()),
        s(|r| r.score_check.as_deref()),
        Arc::new(cm.finish()),
    ];
    RecordBatch::try_new(games_schema(), cols).expect("invariant: games columns match schema")
}

/// Builds a rejects batch.
pub fn rejects_batch(rows: &[RejectRow]) -> RecordBatch {
    let s = |f: fn(&RejectRow) -> Option<&str>| strs(rows.iter().map(f));
    let mut gi = UInt32Builder::new();
    let mut off = UInt64Builder::new();
    let mut mn = UInt32Builder::new();
    for r in rows {
        gi.append_option(r.game_index);
        off.append_option(r.byte_offset);
        mn.append_option(r.move_number);
    }
    let cols: Vec<ArrayRef> = vec![
        s(|r| Some(&r.stage)),
        s(|r| Some(&r.source)),
        s(|r| Some(&r.source_file)),
        s(|r| r.member.as_deref()),
        Arc::new(gi.finish()),
        Arc::new(off.finish()),
        s(|r| Some(&r.reason)),
        s(|r| Some(&r.detail)),
        Arc::new(mn.finish()),
        s(|r| r.game_id.as_deref()),
    ];
    RecordBatch::try_new(rejects_schema(), cols).expect("invariant: rejects columns match schema")
}

/// Column reader helpers over a batch, by name.
struct Cols<'a>(&'a RecordBatch);

impl<'a> Cols<'a> {
    fn col(&self, name: &str) -> anyhow::Result<&'a ArrayRef> {
        self.0.column_by_name(name).ok_or_else(|| anyhow::anyhow!("table has no column {name:?}"))
    }
    fn s(&self, name: &str, i: usize) -> anyhow::Result<Option<String>> {
        let a = self.col(name)?.as_string_opt::<i32>().ok_or_else(|| anyhow::anyhow!("column {name} is not utf8"))?;
        Ok((!a.is_null(i)).then(|| a.value(i).to_string()))
    }
    fn u16s(&self, name: &str, i: usize) -> anyhow::Result<Vec<u16>> {
        let l = self.col(name)?.as_list_opt::<i32>().ok_or_else(|| anyhow::anyhow!("column {name} is not a list"))?;
        let v = l.value(i);
        let p = v.as_primitive_opt::<UInt16Type>().ok_or_else(|| anyhow::anyhow!("column {name} is not list<u16>"))?;
        Ok(p.values().to_vec())
    }
}

macro_rules! prim {
    ($c:expr, $name:expr, $t:ty, $i:expr) => {{
        let a = $c
            .col($name)?
            .as_primitive_opt::<$t>()
            .ok_or_else(|| anyhow::anyhow!("column {} has the wrong type", $name))?;
        if a.is_null($i) {
            None
        } else {
            Some(a.value($i))
        }
    }};
}

/// Reads games rows back from a batch of the games table.
pub fn games_from_batch(b: &RecordBatch) -> anyhow::Result<Vec<GameRow>> {
    let c = Cols(b);
    let mut out = Vec::with_capacity(b.num_rows());
    let ql = c.col("quirks")?.as_list_opt::<i32>().ok_or_else(|| anyhow::anyhow!("quirks is not a list"))?;
    for i in 0..b.num_rows() {
        let qv = ql.value(i);
        let qs = qv.as_string::<i32>();
        out.push(GameRow {
            game_id: c.s("game_id", i)?.unwrap_or_default(),
            source: c.s("source", i)?.unwrap_or_default(),
            source_file: c.s("source_file", i)?.unwrap_or_default(),
            member: c.s("member", i)?,
            game_index: prim!(c, "game_index", UInt32Type, i).unwrap_or(0),
            byte_offset: prim!(c, "byte_offset", UInt64Type, i).unwrap_or(0),
            charset: c.s("charset", i)?.unwrap_or_default(),
            komi: prim!(c, "komi", Float32Type, i),
            komi_raw: c.s("komi_raw", i)?,
            handicap: prim!(c, "handicap", UInt8Type, i).unwrap_or(0),
            rules: c.s("rules", i)?,
            result_raw: c.s("result_raw", i)?,
            winner: c.s("winner", i)?,
            result_kind: c.s("result_kind", i)?.unwrap_or_default(),
            margin: prim!(c, "margin", Float32Type, i),
            black_name: c.s("black_name", i)?,
            white_name: c.s("white_name", i)?,
            black_rank: c.s("black_rank", i)?,
            white_rank: c.s("white_rank", i)?,
            black_rank_num: prim!(c, "black_rank_num", Int16Type, i),
            white_rank_num: prim!(c, "white_rank_num", Int16Type, i),
            date: c.s("date", i)?,
            date_iso: c.s("date_iso", i)?,
            event: c.s("event", i)?,
            round: c.s("round", i)?,
            place: c.s("place", i)?,
            game_name: c.s("game_name", i)?,
            application: c.s("application", i)?,
            setup_black: c.u16s("setup_black", i)?,
            setup_white: c.u16s("setup_white", i)?,
            first_player: c.s("first_player", i)?,
            moves: c.u16s("moves", i)?,
            colors: c.s("colors", i)?.unwrap_or_default(),
            num_moves: prim!(c, "num_moves", UInt32Type, i).unwrap_or(0),
            non_alternating: prim!(c, "non_alternating", UInt32Type, i).unwrap_or(0),
            mid_setup: c.s("mid_setup", i)?,
            quirks: (0..qs.len()).map(|j| qs.value(j).to_string()).collect(),
            score_check: c.s("score_check", i)?,
            counted_margin: prim!(c, "counted_margin", Float32Type, i),
        });
    }
    Ok(out)
}

/// Reads rejects rows back from a batch of the rejects table.
pub fn rejects_from_batch(b: &RecordBatch) -> anyhow::Result<Vec<RejectRow>> {
    let c = Cols(b);
    let mut out = Vec::with_capacity(b.num_rows());
    for i in 0..b.num_rows() {
        out.push(RejectRow {
            stage: c.s("stage", i)?.unwrap_or_default(),
            source: c.s("source", i)?.unwrap_or_default(),
            source_file: c.s("source_file", i)?.unwrap_or_default(),
            member: c.s("member", i)?,
            game_index: prim!(c, "game_index", UInt32Type, i),
            byte_offset: prim!(c, "byte_offset", UInt64Type, i),
            reason: c.s("reason", i)?.unwrap_or_default(),
            detail: c.s("detail", i)?.unwrap_or_default(),
            move_number: prim!(c, "move_number", UInt32Type, i),
            game_id: c.s("game_id", i)?,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_round_trip_through_parquet() {
        let row = GameRow {
            game_id: "ab".repeat(16),
            source: "s".into(),
            source_file: "f 棋.sgf".into(),
            member: Some("a/b.sgf".into()),
            game_index: 3,
            komi: Some(6.5),
            black_rank_num: Some(-4),
            winner: Some("W".into()),
            result_kind: "score".into(),
            setup_black: vec![60, 72],
            moves: vec![0, 361, 360],
            colors: "BWB".into(),
            num_moves: 3,
            quirks: vec!["tt_pass".into()],
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
}
