//! The labels table (docs/schema.md, "`labels`"): one row a labelled position, its
//! Arrow schema ([`Col`]: every column's name in one place), the batch of a chunk's rows
//! (the one writer) and [`read`], the one reader: every consumer (the label stage's
//! reuse, the VLM and KataGo exports, eval) reads the table through it, asking for the
//! columns it needs, and a file of another [`LABELS_VERSION`] is refused, named.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{anyhow, Context};
use arrow_array::builder::{
    FixedSizeListBuilder, Float32Builder, Int8Builder, ListBuilder, StringBuilder, StructBuilder, UInt32Builder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Int8Type, UInt16Type, UInt32Type};
use arrow_array::{
    Array, ArrayRef, FixedSizeListArray, Float32Array, RecordBatch, StringArray, StructArray, UInt16Array, UInt32Array,
};
use arrow_schema::{DataType, Field, Fields, SchemaRef};

use crate::analysis::label::TopMove;
use crate::coord::{gtp_move, Move, NN};
use crate::tables::Cols;

/// The version of the labels table's columns (`kibo.labels_version` in every file, and
/// `labels.version` in `manifest.json`). Bump on any column change; [`read`] refuses a
/// file of another version. 2: the root values nullable, `status` added.
pub const LABELS_VERSION: &str = "2";

/// The file metadata key of [`LABELS_VERSION`].
pub const VERSION_KEY: &str = "kibo.labels_version";

/// The file metadata key of the engine fingerprint a file was written with.
pub const ENGINE_KEY: &str = "kibo.labels_engine";

/// Ownership is stored as `round(ownership × OWNERSHIP_SCALE)` in an i8.
pub const OWNERSHIP_SCALE: f32 = 100.0;

/// A column of the labels table, in the table's order (docs/schema.md, "`labels`", says
/// what each holds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Col {
    GameId,
    MoveNumber,
    Split,
    EngineMove,
    EngineMoveIndex,
    WinrateBlack,
    ScoreLeadBlack,
    ScoreStdev,
    Visits,
    EngineTop,
    Sent,
    Status,
    /// With `kibo label --policy` only.
    Policy,
    /// With `kibo label --ownership` only.
    Ownership,
}

impl Col {
    /// Every column, in the table's order.
    pub const ALL: [Col; 14] = [
        Col::GameId,
        Col::MoveNumber,
        Col::Split,
        Col::EngineMove,
        Col::EngineMoveIndex,
        Col::WinrateBlack,
        Col::ScoreLeadBlack,
        Col::ScoreStdev,
        Col::Visits,
        Col::EngineTop,
        Col::Sent,
        Col::Status,
        Col::Policy,
        Col::Ownership,
    ];

    /// The column's name in the table.
    pub fn name(self) -> &'static str {
        match self {
            Col::GameId => "game_id",
            Col::MoveNumber => "move_number",
            Col::Split => "split",
            Col::EngineMove => "engine_move",
            Col::EngineMoveIndex => "engine_move_index",
            Col::WinrateBlack => "winrate_black",
            Col::ScoreLeadBlack => "score_lead_black",
            Col::ScoreStdev => "score_stdev",
            Col::Visits => "visits",
            Col::EngineTop => "engine_top",
            Col::Sent => "sent",
            Col::Status => "status",
            Col::Policy => "policy",
            Col::Ownership => "ownership",
        }
    }

    /// The root values KataGo may leave out: nullable, and named by `status`.
    pub const ROOT: [Col; 4] = [Col::WinrateBlack, Col::ScoreLeadBlack, Col::ScoreStdev, Col::Visits];
}

/// How KataGo was shown the position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sent {
    /// The game's setup and moves up to the position (its ko and superko bans hold).
    History,
    /// The position's stones alone (the history could not be sent: a setup in mid-game,
    /// a colour that moved twice, a move the engine's rules refuse).
    Board,
}

impl Sent {
    /// The column's text.
    pub fn as_str(self) -> &'static str {
        match self {
            Sent::History => "history",
            Sent::Board => "board",
        }
    }

    /// The column's text read back; another text is `None`.
    pub fn parse(s: &str) -> Option<Sent> {
        [Sent::History, Sent::Board].into_iter().find(|x| x.as_str() == s)
    }
}

/// One labelled position. A root value KataGo did not give is `None` (null in the
/// table, named by [`Label::status`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    pub game_id: String,
    pub move_number: u16,
    pub split: String,
    pub sent: Sent,
    pub winrate_black: Option<f32>,
    pub score_lead_black: Option<f32>,
    pub score_stdev: Option<f32>,
    pub visits: Option<u32>,
    /// KataGo's best moves, its order; the first is `engine_move`.
    pub top: Vec<TopMove>,
    /// The raw policy (362 values), with `--policy`.
    pub policy: Option<Vec<f32>>,
    /// Ownership from Black's side, quantised ([`OWNERSHIP_SCALE`]), with `--ownership`.
    pub ownership: Option<Vec<i8>>,
}

impl Label {
    /// The engine's move (the first of [`Label::top`]).
    pub fn engine_move(&self) -> Move {
        self.top.first().map_or(Move::Pass, |t| t.mv)
    }

    /// The `status` column: `ok` when KataGo gave every root value, else `missing:`
    /// and the null columns, comma-separated in the table's order
    /// (`missing:winrate_black,score_stdev`).
    pub fn status(&self) -> String {
        let present = [
            self.winrate_black.is_some(),
            self.score_lead_black.is_some(),
            self.score_stdev.is_some(),
            self.visits.is_some(),
        ];
        let missing: Vec<&str> = Col::ROOT.iter().zip(present).filter(|(_, p)| !p).map(|(c, _)| c.name()).collect();
        if missing.is_empty() {
            "ok".to_string()
        } else {
            format!("missing:{}", missing.join(","))
        }
    }
}

/// Quantises an ownership value to the stored i8.
pub fn quantise(o: f32) -> i8 {
    (o.clamp(-1.0, 1.0) * OWNERSHIP_SCALE).round() as i8
}

fn top_fields() -> Fields {
    Fields::from(vec![
        Field::new("move", DataType::Utf8, false),
        Field::new("prior", DataType::Float32, false),
        Field::new("visits", DataType::UInt32, false),
        Field::new("winrate_black", DataType::Float32, true),
        Field::new("score_lead_black", DataType::Float32, true),
    ])
}

/// The column's field.
fn field(c: Col) -> Field {
    let list = |item: DataType, n: usize| DataType::FixedSizeList(Arc::new(Field::new("item", item, false)), n as i32);
    let (t, nullable) = match c {
        Col::GameId | Col::Split | Col::EngineMove | Col::Sent | Col::Status => (DataType::Utf8, false),
        Col::MoveNumber | Col::EngineMoveIndex => (DataType::UInt16, false),
        Col::WinrateBlack | Col::ScoreLeadBlack | Col::ScoreStdev => (DataType::Float32, true),
        Col::Visits => (DataType::UInt32, true),
        Col::EngineTop => (DataType::List(Arc::new(Field::new("item", DataType::Struct(top_fields()), true))), false),
        Col::Policy => (list(DataType::Float32, NN + 1), false),
        Col::Ownership => (list(DataType::Int8, NN), false),
    };
    Field::new(c.name(), t, nullable)
}

/// The table's schema; `policy` and `ownership` columns only when asked for.
pub fn schema(policy: bool, ownership: bool) -> SchemaRef {
    let f = Col::ALL
        .into_iter()
        .filter(|c| match c {
            Col::Policy => policy,
            Col::Ownership => ownership,
            _ => true,
        })
        .map(field)
        .collect();
    crate::storage::schema(f)
}

/// The batch of `rows` under `schema` (from [`schema`]).
pub fn batch(rows: &[Label], schema: &SchemaRef) -> anyhow::Result<RecordBatch> {
    let strs = |f: &dyn Fn(&Label) -> String| -> ArrayRef {
        Arc::new(rows.iter().map(|r| Some(f(r))).collect::<StringArray>())
    };
    let f32s =
        |f: &dyn Fn(&Label) -> Option<f32>| -> ArrayRef { Arc::new(rows.iter().map(f).collect::<Float32Array>()) };
    let mut top = ListBuilder::new(StructBuilder::from_fields(top_fields(), rows.len() * 8));
    for r in rows {
        let s = top.values();
        for t in &r.top {
            s.field_builder::<StringBuilder>(0).expect("invariant: move").append_value(t.mv.to_gtp());
            s.field_builder::<Float32Builder>(1).expect("invariant: prior").append_value(t.prior);
            s.field_builder::<UInt32Builder>(2).expect("invariant: visits").append_value(t.visits);
            s.field_builder::<Float32Builder>(3).expect("invariant: winrate").append_option(t.winrate_black);
            s.field_builder::<Float32Builder>(4).expect("invariant: score").append_option(t.score_lead_black);
            s.append(true);
        }
        top.append(true);
    }
    let top = top.finish();
    // The builder names the items "item" and makes them nullable, as the schema does.
    let mut cols: Vec<ArrayRef> = vec![
        strs(&|r| r.game_id.clone()),
        Arc::new(rows.iter().map(|r| r.move_number).collect::<UInt16Array>()),
        strs(&|r| r.split.clone()),
        strs(&|r| r.engine_move().to_gtp()),
        Arc::new(rows.iter().map(|r| r.engine_move().index()).collect::<UInt16Array>()),
        f32s(&|r| r.winrate_black),
        f32s(&|r| r.score_lead_black),
        f32s(&|r| r.score_stdev),
        Arc::new(rows.iter().map(|r| r.visits).collect::<UInt32Array>()),
        Arc::new(top),
        strs(&|r| r.sent.as_str().to_string()),
        strs(&|r| r.status()),
    ];
    if schema.column_with_name(Col::Policy.name()).is_some() {
        let mut b = FixedSizeListBuilder::new(Float32Builder::with_capacity(rows.len() * (NN + 1)), (NN + 1) as i32)
            .with_field(Arc::new(Field::new("item", DataType::Float32, false)));
        for r in rows {
            let p = r.policy.as_ref().context("a label without the policy asked for")?;
            b.values().append_slice(p);
            b.append(true);
        }
        cols.push(Arc::new(b.finish()));
    }
    if schema.column_with_name(Col::Ownership.name()).is_some() {
        let mut b = FixedSizeListBuilder::new(Int8Builder::with_capacity(rows.len() * NN), NN as i32)
            .with_field(Arc::new(Field::new("item", DataType::Int8, false)));
        for r in rows {
            let o = r.ownership.as_ref().context("a label without the ownership asked for")?;
            b.values().append_slice(o);
            b.append(true);
        }
        cols.push(Arc::new(b.finish()));
    }
    Ok(RecordBatch::try_new(schema.clone(), cols)?)
}

/// Refuses labels of another [`LABELS_VERSION`] (a [`crate::error::SetupError`] naming
/// `what` and both versions); `found` is the version a file carries.
fn check_version(what: &str, found: Option<&str>) -> anyhow::Result<()> {
    match found {
        Some(LABELS_VERSION) => Ok(()),
        Some(v) => crate::error::setup(format!(
            "{what}: labels table version {v}; this kibo reads version {LABELS_VERSION} (rerun `kibo label`)"
        )),
        None => crate::error::setup(format!(
            "{what}: no {VERSION_KEY} in its metadata; this kibo reads labels version {LABELS_VERSION} (rerun `kibo label`)"
        )),
    }
}

/// A metadata value of a Parquet file's footer.
pub fn file_key(p: &Path, key: &str) -> anyhow::Result<Option<String>> {
    let f = std::fs::File::open(p).with_context(|| format!("opening {}", p.display()))?;
    let r = parquet::file::reader::SerializedFileReader::new(f).with_context(|| format!("reading {}", p.display()))?;
    let kv = parquet::file::reader::FileReader::metadata(&r).file_metadata().key_value_metadata().cloned();
    Ok(kv.unwrap_or_default().into_iter().find(|k| k.key == key).and_then(|k| k.value))
}

/// The labels files of `path` (a labels folder or one file), in name order.
pub fn files(path: &Path) -> anyhow::Result<Vec<PathBuf>> {
    if path.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut v: Vec<PathBuf> = std::fs::read_dir(path)
        .with_context(|| format!("reading the labels folder {}", path.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
        .collect();
    v.sort();
    Ok(v)
}

/// Reads the labels at `path` (a labels folder or one file) in file then row order,
/// calling `f` with a [`View`] per batch. Only the columns `cols` are decoded (`None`:
/// every column a file has); a file without one of them is refused, named, as is a file
/// of another [`LABELS_VERSION`] (before any of its rows is read).
pub fn read(
    path: &Path,
    cols: Option<&[Col]>,
    mut f: impl FnMut(&View<'_>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let names: Option<Vec<&str>> = cols.map(|c| c.iter().map(|c| c.name()).collect());
    for file in files(path)? {
        check_version(&file.display().to_string(), file_key(&file, VERSION_KEY)?.as_deref())?;
        let mut first = 0usize;
        crate::storage::read_parquet_columns(&file, true, names.as_deref(), |b| {
            let v = View::new(&b, &file, first, cols)?;
            first += b.num_rows();
            f(&v)
        })?;
    }
    Ok(())
}

/// The asked columns of one batch of a labels file, typed once a batch; the accessors
/// take a row of the batch (a column that was not asked for is a bug of the caller: it
/// panics). Lists are read through their offsets.
pub struct View<'a> {
    b: &'a RecordBatch,
    file: &'a Path,
    first: usize,
    game_id: Option<&'a StringArray>,
    move_number: Option<&'a UInt16Array>,
    engine_move_index: Option<&'a UInt16Array>,
    winrate_black: Option<&'a Float32Array>,
    score_lead_black: Option<&'a Float32Array>,
    policy: Option<&'a FixedSizeListArray>,
}

/// A column that must have been read.
fn asked<T>(c: Option<T>, col: Col) -> T {
    c.unwrap_or_else(|| panic!("invariant: the labels column {} was asked for", col.name()))
}

impl<'a> View<'a> {
    fn new(b: &'a RecordBatch, file: &'a Path, first: usize, cols: Option<&[Col]>) -> anyhow::Result<View<'a>> {
        let c = Cols::new(b, "labels");
        let want = |col: Col| cols.is_none_or(|cs| cs.contains(&col)) && (cols.is_some() || c.has(col.name()));
        for &col in cols.unwrap_or_default() {
            if !c.has(col.name()) {
                let hint = match col {
                    Col::Policy => " (run `kibo label --policy`)",
                    Col::Ownership => " (run `kibo label --ownership`)",
                    _ => "",
                };
                return crate::error::setup(format!(
                    "{}: the labels have no {} column{hint}",
                    file.display(),
                    col.name()
                ));
            }
        }
        let policy = match want(Col::Policy) {
            false => None,
            true => Some(fixed(b, Col::Policy, NN + 1, file)?),
        };
        Ok(View {
            b,
            file,
            first,
            game_id: want(Col::GameId).then(|| c.str(Col::GameId.name())).transpose()?,
            move_number: want(Col::MoveNumber).then(|| c.prim::<UInt16Type>(Col::MoveNumber.name())).transpose()?,
            engine_move_index: want(Col::EngineMoveIndex)
                .then(|| c.prim::<UInt16Type>(Col::EngineMoveIndex.name()))
                .transpose()?,
            winrate_black: want(Col::WinrateBlack)
                .then(|| c.prim::<Float32Type>(Col::WinrateBlack.name()))
                .transpose()?,
            score_lead_black: want(Col::ScoreLeadBlack)
                .then(|| c.prim::<Float32Type>(Col::ScoreLeadBlack.name()))
                .transpose()?,
            policy,
        })
    }

    /// Rows in the batch.
    pub fn len(&self) -> usize {
        self.b.num_rows()
    }

    /// Whether the batch has no row.
    pub fn is_empty(&self) -> bool {
        self.b.num_rows() == 0
    }

    /// What errors call row `i`: the file and the row's number in it.
    pub fn row_name(&self, i: usize) -> String {
        format!("{} row {}", self.file.display(), self.first + i)
    }

    /// The row's game.
    pub fn game_id(&self, i: usize) -> &'a str {
        asked(self.game_id, Col::GameId).value(i)
    }

    /// The row's move number.
    pub fn move_number(&self, i: usize) -> u16 {
        asked(self.move_number, Col::MoveNumber).value(i)
    }

    /// KataGo's move as a point index (361: pass).
    pub fn engine_move_index(&self, i: usize) -> u16 {
        asked(self.engine_move_index, Col::EngineMoveIndex).value(i)
    }

    /// Black's winrate, `None` where KataGo gave none.
    pub fn winrate_black(&self, i: usize) -> Option<f32> {
        let a = asked(self.winrate_black, Col::WinrateBlack);
        a.is_valid(i).then(|| a.value(i))
    }

    /// Black's score lead, `None` where KataGo gave none.
    pub fn score_lead_black(&self, i: usize) -> Option<f32> {
        let a = asked(self.score_lead_black, Col::ScoreLeadBlack);
        a.is_valid(i).then(|| a.value(i))
    }

    /// The raw policy of row `i` (362 values: 361 points, then pass).
    pub fn policy(&self, i: usize) -> &'a [f32] {
        let p = asked(self.policy, Col::Policy);
        let n = p.value_length() as usize;
        let v = p.values().as_primitive::<Float32Type>().values();
        let at = p.value_offset_at(i);
        &v[at..at + n]
    }

    /// Every row of the batch as a [`Label`] (the batch read with every column).
    pub fn labels(&self) -> anyhow::Result<Vec<Label>> {
        rows_at(self.b, self.first).with_context(|| format!("reading {}", self.file.display()))
    }
}

/// Column `col` as a fixed-size list of `n` values.
fn fixed<'a>(b: &'a RecordBatch, col: Col, n: usize, file: &Path) -> anyhow::Result<&'a FixedSizeListArray> {
    let a = b
        .column_by_name(col.name())
        .and_then(|c| c.as_any().downcast_ref::<FixedSizeListArray>())
        .ok_or_else(|| anyhow!("{}: labels column {:?} is not a fixed-size list", file.display(), col.name()))?;
    anyhow::ensure!(
        a.value_length() as usize == n,
        "{}: labels column {:?} has lists of {}, not {n}",
        file.display(),
        col.name(),
        a.value_length()
    );
    Ok(a)
}

/// A fixed-size list column's rows as vectors (through its offsets), when present.
fn fixed_rows<T: arrow_array::ArrowPrimitiveType>(
    b: &RecordBatch,
    col: Col,
    n: usize,
) -> anyhow::Result<Option<Vec<Vec<T::Native>>>> {
    if b.column_by_name(col.name()).is_none() {
        return Ok(None);
    }
    let a = fixed(b, col, n, Path::new("labels"))?;
    let v = a.values().as_primitive_opt::<T>().with_context(|| format!("labels column {:?}: its type", col.name()))?;
    Ok(Some((0..a.len()).map(|i| v.values()[a.value_offset_at(i)..][..n].to_vec()).collect()))
}

/// The rows of a labels batch (every column; `policy` and `ownership` when present), for
/// the tests: readers go through [`read`], which checks the file's version (a batch does
/// not carry it).
#[cfg(test)]
fn rows_of(b: &RecordBatch) -> anyhow::Result<Vec<Label>> {
    rows_at(b, 0)
}

/// [`rows_of`], the batch's first row being row `first` of its file (as errors name it).
fn rows_at(b: &RecordBatch, first: usize) -> anyhow::Result<Vec<Label>> {
    let c = Cols::new(b, "labels");
    let name = |col: Col| col.name();
    let (id, mn, split, sent) = (
        c.str(name(Col::GameId))?,
        c.prim::<UInt16Type>(name(Col::MoveNumber))?,
        c.str(name(Col::Split))?,
        c.str(name(Col::Sent))?,
    );
    let (wr, sl, sd) = (
        c.prim::<Float32Type>(name(Col::WinrateBlack))?,
        c.prim::<Float32Type>(name(Col::ScoreLeadBlack))?,
        c.prim::<Float32Type>(name(Col::ScoreStdev))?,
    );
    let visits = c.prim::<UInt32Type>(name(Col::Visits))?;
    let top = c.list(name(Col::EngineTop))?;
    let s = top.values().as_any().downcast_ref::<StructArray>().context("labels table, engine_top: not structs")?;
    let t_move = s.column(0).as_any().downcast_ref::<StringArray>().context("engine_top.move")?;
    let f = |k: usize| s.column(k).as_any().downcast_ref::<Float32Array>().context("engine_top floats");
    let (t_prior, t_wr, t_sl) = (f(1)?, f(3)?, f(4)?);
    let t_visits = s.column(2).as_any().downcast_ref::<UInt32Array>().context("engine_top.visits")?;
    let mut policy = fixed_rows::<Float32Type>(b, Col::Policy, NN + 1)?.map(Vec::into_iter);
    let mut ownership = fixed_rows::<Int8Type>(b, Col::Ownership, NN)?.map(Vec::into_iter);
    let opt = |a: &Float32Array, i: usize| a.is_valid(i).then(|| a.value(i));
    let o = top.value_offsets();
    let mut out = Vec::with_capacity(b.num_rows());
    for i in 0..b.num_rows() {
        let mut tops = Vec::new();
        for j in o[i] as usize..o[i + 1] as usize {
            let mv = gtp_move(t_move.value(j)).with_context(|| format!("engine_top move {:?}", t_move.value(j)))?;
            tops.push(TopMove {
                mv,
                prior: t_prior.value(j),
                visits: t_visits.value(j),
                winrate_black: opt(t_wr, j),
                score_lead_black: opt(t_sl, j),
            });
        }
        let Some(sent_as) = Sent::parse(sent.value(i)) else {
            return crate::error::setup(format!(
                "labels row {} (game {}, move {}): sent {:?} is neither \"history\" nor \"board\"",
                first + i,
                id.value(i),
                mn.value(i),
                sent.value(i)
            ));
        };
        out.push(Label {
            game_id: id.value(i).to_string(),
            move_number: mn.value(i),
            split: split.value(i).to_string(),
            sent: sent_as,
            winrate_black: opt(wr, i),
            score_lead_black: opt(sl, i),
            score_stdev: opt(sd, i),
            visits: visits.is_valid(i).then(|| visits.value(i)),
            top: tops,
            policy: policy.as_mut().and_then(Iterator::next),
            ownership: ownership.as_mut().and_then(Iterator::next),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coord::Point;

    fn label(policy: bool, ownership: bool) -> Label {
        Label {
            game_id: "ab".into(),
            move_number: 12,
            split: "val".into(),
            sent: Sent::Board,
            winrate_black: Some(0.25),
            score_lead_black: Some(-3.5),
            score_stdev: Some(11.0),
            visits: Some(1),
            top: vec![
                TopMove {
                    mv: Move::Play(Point::new(3, 15).unwrap()),
                    prior: 0.4,
                    visits: 0,
                    winrate_black: None,
                    score_lead_black: Some(2.0),
                },
                TopMove { mv: Move::Pass, prior: 0.1, visits: 3, winrate_black: Some(0.5), score_lead_black: None },
            ],
            policy: policy.then(|| (0..=NN).map(|i| i as f32 / 1000.0).collect()),
            ownership: ownership.then(|| (0..NN).map(|i| quantise(i as f32 / 180.0 - 1.0)).collect()),
        }
    }

    /// Writes `b` as a labels file of `version` (none: no version key).
    fn write(dir: &Path, name: &str, b: &RecordBatch, version: Option<&str>) -> PathBuf {
        let p = dir.join(name);
        let kv: Vec<_> = version
            .map(|v| parquet::file::metadata::KeyValue::new(VERSION_KEY.into(), v.to_string()))
            .into_iter()
            .collect();
        let props =
            crate::storage::writer_properties_with(&crate::storage::TableOptions::default(), "labels", kv).unwrap();
        let mut w =
            parquet::arrow::ArrowWriter::try_new(std::fs::File::create(&p).unwrap(), b.schema(), Some(props)).unwrap();
        w.write(b).unwrap();
        w.close().unwrap();
        p
    }

    #[test]
    fn a_label_reads_back_as_written() {
        for (p, o) in [(false, false), (true, false), (false, true), (true, true)] {
            let rows = vec![label(p, o), Label { top: vec![], ..label(p, o) }];
            let s = schema(p, o);
            let b = batch(&rows, &s).unwrap();
            assert_eq!(b.column_by_name("engine_move").unwrap().as_string::<i32>().value(0), "Q16");
            assert_eq!(rows_of(&b).unwrap(), rows);
        }
        assert_eq!(quantise(0.996), 100);
        assert_eq!(quantise(-2.0), -100);
        assert_eq!(quantise(0.004), 0);
    }

    #[test]
    fn a_missing_root_value_is_null_and_named_by_the_status() {
        let full = label(false, false);
        let gap = Label { winrate_black: None, score_stdev: None, ..full.clone() };
        let none =
            Label { winrate_black: None, score_lead_black: None, score_stdev: None, visits: None, ..full.clone() };
        let rows = vec![full, gap, none];
        let b = batch(&rows, &schema(false, false)).unwrap();
        let status = b.column_by_name("status").unwrap().as_string::<i32>();
        assert_eq!(status.value(0), "ok");
        assert_eq!(status.value(1), "missing:winrate_black,score_stdev");
        assert_eq!(status.value(2), "missing:winrate_black,score_lead_black,score_stdev,visits");
        for c in Col::ROOT {
            assert!(b.schema().field_with_name(c.name()).unwrap().is_nullable(), "{}", c.name());
            assert!(b.column_by_name(c.name()).unwrap().is_null(2), "{} is null, not a number", c.name());
        }
        assert_eq!(rows_of(&b).unwrap(), rows);
    }

    #[test]
    fn an_unknown_sent_value_is_an_error_naming_the_row() {
        let b = batch(&[label(false, false), label(false, false)], &schema(false, false)).unwrap();
        let i = b.schema().index_of("sent").unwrap();
        let mut cols = b.columns().to_vec();
        cols[i] = Arc::new(StringArray::from(vec!["board", "histroy"]));
        let b = RecordBatch::try_new(b.schema(), cols).unwrap();
        let e = rows_of(&b).unwrap_err();
        assert!(crate::error::is_setup(&e), "{e:#}");
        assert!(format!("{e:#}").contains("labels row 1 (game ab, move 12)"), "{e:#}");
        assert!(format!("{e:#}").contains("\"histroy\""), "{e:#}");
    }

    #[test]
    fn a_file_of_another_version_is_refused_naming_the_file_and_both_versions() {
        let dir = tempfile::tempdir().unwrap();
        let b = batch(&[label(true, false)], &schema(true, false)).unwrap();
        let good = write(dir.path(), "part-00000.parquet", &b, Some(LABELS_VERSION));
        let mut n = 0;
        read(&good, Some(&[Col::GameId]), |v| {
            n += v.len();
            Ok(())
        })
        .unwrap();
        assert_eq!(n, 1);
        let old = write(dir.path(), "part-00001.parquet", &b, Some("1"));
        let e = read(dir.path(), Some(&[Col::GameId]), |_| Ok(())).unwrap_err();
        assert!(crate::error::is_setup(&e), "{e:#}");
        let text = format!("{e:#}");
        assert!(text.contains(&old.display().to_string()) && text.contains("version 1"), "{text}");
        assert!(text.contains(&format!("version {LABELS_VERSION}")), "{text}");
        std::fs::remove_file(&old).unwrap();
        write(dir.path(), "part-00002.parquet", &b, None);
        let e = read(dir.path(), None, |_| Ok(())).unwrap_err();
        assert!(format!("{e:#}").contains(VERSION_KEY), "{e:#}");
    }

    #[test]
    fn the_reader_honours_offsets_and_refuses_a_policy_of_another_length() {
        let rows: Vec<Label> = (0..4)
            .map(|k| Label { move_number: k, policy: Some(vec![k as f32; NN + 1]), ..label(true, false) })
            .collect();
        let b = batch(&rows, &schema(true, false)).unwrap();
        let part = b.slice(1, 2);
        let v = View::new(&part, Path::new("x"), 1, Some(&[Col::MoveNumber, Col::Policy])).unwrap();
        for i in 0..2 {
            assert_eq!(v.move_number(i), i as u16 + 1);
            assert_eq!(v.policy(i), &vec![(i + 1) as f32; NN + 1][..]);
        }
        assert_eq!(v.row_name(1), "x row 2");
        assert_eq!(rows_of(&part).unwrap(), rows[1..3].to_vec());
        // A policy of 361 values (no pass) is refused, not read as 362.
        let short = FixedSizeListArray::new(
            Arc::new(Field::new("item", DataType::Float32, false)),
            NN as i32,
            Arc::new(Float32Array::from(vec![0.5f32; NN * 4])),
            None,
        );
        let i = b.schema().index_of("policy").unwrap();
        let mut cols = b.columns().to_vec();
        cols[i] = Arc::new(short);
        let mut fields: Vec<Field> = b.schema().fields().iter().map(|f| f.as_ref().clone()).collect();
        fields[i] = Field::new("policy", cols[i].data_type().clone(), false);
        let bad = RecordBatch::try_new(crate::storage::schema(fields), cols).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let p = write(dir.path(), "part-00000.parquet", &bad, Some(LABELS_VERSION));
        let e = read(&p, Some(&[Col::Policy]), |_| Ok(())).unwrap_err();
        assert!(format!("{e:#}").contains("lists of 361, not 362"), "{e:#}");
        // A reader that asks for a column the file lacks is told which.
        let p = write(
            dir.path(),
            "part-00001.parquet",
            &batch(&rows, &schema(false, false)).unwrap(),
            Some(LABELS_VERSION),
        );
        let e = read(&p, Some(&[Col::Policy]), |_| Ok(())).unwrap_err();
        assert!(crate::error::is_setup(&e) && format!("{e:#}").contains("no policy column"), "{e:#}");
    }
}
