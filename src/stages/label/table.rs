//! The labels table (docs/schema.md, "`labels`"): one row a labelled position, its
//! Arrow schema, the batch of a chunk's rows and the rows of a batch read back (for the
//! rows a rerun reuses). Written and read back here only, so the two agree.

use std::sync::Arc;

use anyhow::{anyhow, Context};
use arrow_array::builder::{
    FixedSizeListBuilder, Float32Builder, Int8Builder, ListBuilder, StringBuilder, StructBuilder, UInt32Builder,
};
use arrow_array::types::{Float32Type, UInt16Type, UInt32Type};
use arrow_array::{Array, ArrayRef, FixedSizeListArray, RecordBatch, StringArray, StructArray, UInt16Array};
use arrow_schema::{DataType, Field, Fields, SchemaRef};

use crate::analysis::label::TopMove;
use crate::coord::{gtp_move, Move, NN};
use crate::tables::Cols;

/// The version of the labels table's columns (`kibo.labels_version` in every file, and
/// `labels.version` in `manifest.json`). Bump on any column change.
pub const LABELS_VERSION: &str = "1";

/// Ownership is stored as `round(ownership × OWNERSHIP_SCALE)` in an i8.
pub const OWNERSHIP_SCALE: f32 = 100.0;

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
}

/// One labelled position.
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    pub game_id: String,
    pub move_number: u16,
    pub split: String,
    pub sent: Sent,
    pub winrate_black: f32,
    pub score_lead_black: f32,
    pub score_stdev: f32,
    pub visits: u32,
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

/// The table's schema; `policy` and `ownership` columns only when asked for.
pub fn schema(policy: bool, ownership: bool) -> SchemaRef {
    let mut f = vec![
        Field::new("game_id", DataType::Utf8, false),
        Field::new("move_number", DataType::UInt16, false),
        Field::new("split", DataType::Utf8, false),
        Field::new("engine_move", DataType::Utf8, false),
        Field::new("engine_move_index", DataType::UInt16, false),
        Field::new("winrate_black", DataType::Float32, false),
        Field::new("score_lead_black", DataType::Float32, false),
        Field::new("score_stdev", DataType::Float32, false),
        Field::new("visits", DataType::UInt32, false),
        Field::new(
            "engine_top",
            DataType::List(Arc::new(Field::new("item", DataType::Struct(top_fields()), true))),
            false,
        ),
        Field::new("sent", DataType::Utf8, false),
    ];
    if policy {
        f.push(Field::new(
            "policy",
            DataType::FixedSizeList(Arc::new(Field::new("item", DataType::Float32, false)), (NN + 1) as i32),
            false,
        ));
    }
    if ownership {
        f.push(Field::new(
            "ownership",
            DataType::FixedSizeList(Arc::new(Field::new("item", DataType::Int8, false)), NN as i32),
            false,
        ));
    }
    crate::storage::schema(f)
}

/// The batch of `rows` under `schema` (from [`schema`]).
pub fn batch(rows: &[Label], schema: &SchemaRef) -> anyhow::Result<RecordBatch> {
    let strs = |f: &dyn Fn(&Label) -> String| -> ArrayRef {
        Arc::new(rows.iter().map(|r| Some(f(r))).collect::<StringArray>())
    };
    let f32s =
        |f: &dyn Fn(&Label) -> f32| -> ArrayRef { Arc::new(rows.iter().map(f).collect::<arrow_array::Float32Array>()) };
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
        Arc::new(rows.iter().map(|r| r.visits).collect::<arrow_array::UInt32Array>()),
        Arc::new(top),
        strs(&|r| r.sent.as_str().to_string()),
    ];
    if schema.column_with_name("policy").is_some() {
        let mut b = FixedSizeListBuilder::new(Float32Builder::with_capacity(rows.len() * (NN + 1)), (NN + 1) as i32)
            .with_field(Arc::new(Field::new("item", DataType::Float32, false)));
        for r in rows {
            let p = r.policy.as_ref().context("a label without the policy asked for")?;
            b.values().append_slice(p);
            b.append(true);
        }
        cols.push(Arc::new(b.finish()));
    }
    if schema.column_with_name("ownership").is_some() {
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

fn fixed<'a>(b: &'a RecordBatch, name: &str) -> anyhow::Result<Option<&'a FixedSizeListArray>> {
    match b.column_by_name(name) {
        None => Ok(None),
        Some(c) => c
            .as_any()
            .downcast_ref::<FixedSizeListArray>()
            .map(Some)
            .ok_or_else(|| anyhow!("labels table, column {name:?}: expected a fixed-size list")),
    }
}

/// The rows of a labels batch.
pub fn rows_of(b: &RecordBatch) -> anyhow::Result<Vec<Label>> {
    let c = Cols::new(b, "labels");
    let (id, mn, split, sent) =
        (c.str("game_id")?, c.prim::<UInt16Type>("move_number")?, c.str("split")?, c.str("sent")?);
    let (wr, sl, sd) = (
        c.prim::<Float32Type>("winrate_black")?,
        c.prim::<Float32Type>("score_lead_black")?,
        c.prim::<Float32Type>("score_stdev")?,
    );
    let visits = c.prim::<UInt32Type>("visits")?;
    let top = c.list("engine_top")?;
    let s = top.values().as_any().downcast_ref::<StructArray>().context("labels table, engine_top: not structs")?;
    let t_move = s.column(0).as_any().downcast_ref::<StringArray>().context("engine_top.move")?;
    let f = |k: usize| s.column(k).as_any().downcast_ref::<arrow_array::Float32Array>().context("engine_top floats");
    let (t_prior, t_wr, t_sl) = (f(1)?, f(3)?, f(4)?);
    let t_visits = s.column(2).as_any().downcast_ref::<arrow_array::UInt32Array>().context("engine_top.visits")?;
    let (policy, ownership) = (fixed(b, "policy")?, fixed(b, "ownership")?);
    let mut out = Vec::with_capacity(b.num_rows());
    for i in 0..b.num_rows() {
        let o = top.value_offsets();
        let mut tops = Vec::new();
        for j in o[i] as usize..o[i + 1] as usize {
            let mv = gtp_move(t_move.value(j)).with_context(|| format!("engine_top move {:?}", t_move.value(j)))?;
            tops.push(TopMove {
                mv,
                prior: t_prior.value(j),
                visits: t_visits.value(j),
                winrate_black: (!t_wr.is_null(j)).then(|| t_wr.value(j)),
                score_lead_black: (!t_sl.is_null(j)).then(|| t_sl.value(j)),
            });
        }
        let policy = policy.map(|p| p.value(i).as_primitive::<Float32Type>().values().to_vec());
        let ownership = ownership.map(|p| p.value(i).as_primitive::<arrow_array::types::Int8Type>().values().to_vec());
        out.push(Label {
            game_id: id.value(i).to_string(),
            move_number: mn.value(i),
            split: split.value(i).to_string(),
            sent: if sent.value(i) == "board" { Sent::Board } else { Sent::History },
            winrate_black: wr.value(i),
            score_lead_black: sl.value(i),
            score_stdev: sd.value(i),
            visits: visits.value(i),
            top: tops,
            policy,
            ownership,
        });
    }
    Ok(out)
}

use arrow_array::cast::AsArray;

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
            winrate_black: 0.25,
            score_lead_black: -3.5,
            score_stdev: 11.0,
            visits: 1,
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
}
