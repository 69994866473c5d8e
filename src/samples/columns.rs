//! The samples table's columns, declared once in [`COLUMNS`]: name, Parquet type,
//! nullability, encoding (dictionary, statistics) and the function that builds the
//! column from a [`SampleBuf`]. [`samples_schema`], [`samples_table_options`] and
//! [`SampleBuf::into_batch`] are all read off that table, so a column cannot be added to
//! the schema and forgotten in the batch, or land in the wrong position.
//!
//! A new column: one [`Column`] entry here (and its data in [`SampleBuf`]), one row in
//! docs/schema.md.

use std::sync::{Arc, OnceLock};

use arrow_array::builder::{ListBuilder, StringBuilder};
use arrow_array::types::{Float32Type, Int16Type, UInt16Type, UInt32Type, UInt8Type};
use arrow_array::{
    ArrayRef, ArrowPrimitiveType, BinaryArray, BooleanArray, DictionaryArray, FixedSizeBinaryArray, ListArray,
    PrimitiveArray, RecordBatch, StringArray, UInt16Array, UInt32Array, UInt8Array,
};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, SchemaRef};

use crate::color::Color;
use crate::config::SplitConfig;
use crate::coord::{Move, NN};
use crate::game::GameMeta;
use crate::storage::TableOptions;
use crate::tactics::{Tags, TAG_NAMES};

use super::buffer::{GameInfo, SampleBuf};

/// How a column is held in the Arrow batch (the Parquet column is the same either way).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Held {
    /// As its own type.
    Plain,
    /// Text with one value per game: a dictionary array keyed by the row's game.
    PerGame,
    /// Text with one value per move index: a dictionary array keyed by the move.
    PerMove,
}

/// One column of the samples table.
pub struct Column {
    /// Name (stable snake_case).
    pub name: &'static str,
    /// Parquet/Arrow type of the file's column.
    ty: fn() -> DataType,
    /// Whether it may be null.
    nullable: bool,
    /// How the batch holds it.
    held: Held,
    /// Dictionary-encode its pages (off: plain values, which zstd squeezes better for
    /// numbers constant within a game, counts, flags and per-row binaries).
    pub dictionary: bool,
    /// Page statistics (off where nothing prunes on it: ids, per-move text, lists, blobs).
    pub statistics: bool,
    /// Builds the column from the buffer.
    build: fn(&mut Parts) -> ArrayRef,
}

/// The buffer being turned into a batch, with what several columns share.
pub struct Parts {
    b: SampleBuf,
    n: usize,
    game_keys: UInt32Array,
    move_keys: UInt16Array,
    /// Which optional column groups the buffer holds (read before any column takes its data).
    with_dup: bool,
    with_tags: bool,
    with_infl: bool,
}

impl Parts {
    fn game(&self, i: usize) -> &GameInfo {
        &self.b.games[self.b.game[i] as usize]
    }
    fn meta(&self, i: usize) -> &GameMeta {
        &self.game(i).meta
    }
    /// One value per game, a key per row: no string copied per row.
    fn per_game(&self, f: fn(&GameInfo) -> Option<&str>) -> ArrayRef {
        let values: StringArray = self.b.games.iter().map(f).collect();
        Arc::new(DictionaryArray::<UInt32Type>::new(self.game_keys.clone(), Arc::new(values)))
    }
    fn per_move(&self, values: &ArrayRef) -> ArrayRef {
        Arc::new(DictionaryArray::<UInt16Type>::new(self.move_keys.clone(), values.clone()))
    }
    /// Offsets of `n` lists of `w` values each.
    fn fixed(&self, w: usize) -> OffsetBuffer<i32> {
        OffsetBuffer::new(ScalarBuffer::from((0..=self.n).map(|i| (i * w) as i32).collect::<Vec<i32>>()))
    }
    fn with_tags(&self) -> bool {
        self.with_tags
    }
    fn with_dup(&self) -> bool {
        self.with_dup
    }
    fn with_infl(&self) -> bool {
        self.with_infl
    }
    /// A per-row primitive column from `f(row)`, collected in one pass (no builder).
    fn values<T: ArrowPrimitiveType>(&self, f: impl Fn(usize) -> T::Native) -> ArrayRef {
        Arc::new(PrimitiveArray::<T>::from_iter_values((0..self.n).map(f)))
    }
    /// A per-row nullable primitive column from `f(row)`: the values (a default where
    /// null) and the validity bits, each collected in one pass (so `f` runs twice a row:
    /// keep it a lookup); no null buffer when no row is null, as a builder gives.
    fn options<T: ArrowPrimitiveType>(&self, f: impl Fn(usize) -> Option<T::Native>) -> ArrayRef {
        let values: ScalarBuffer<T::Native> = (0..self.n).map(|i| f(i).unwrap_or_default()).collect();
        let nulls = NullBuffer::new(BooleanBuffer::collect_bool(self.n, |i| f(i).is_some()));
        Arc::new(PrimitiveArray::<T>::new(values, (nulls.null_count() > 0).then_some(nulls)))
    }
    /// A per-row column from `f(row)`, built with a builder of capacity `n`.
    fn rows<B, F>(&self, mut builder: B, mut f: F) -> ArrayRef
    where
        B: arrow_array::builder::ArrayBuilder,
        F: FnMut(&mut B, usize),
    {
        for i in 0..self.n {
            f(&mut builder, i);
        }
        builder.finish()
    }
}

fn offsets(v: &[u32]) -> OffsetBuffer<i32> {
    OffsetBuffer::new(ScalarBuffer::from(v.iter().map(|&x| x as i32).collect::<Vec<i32>>()))
}

fn item(t: DataType) -> Arc<Field> {
    Arc::new(Field::new("item", t, false))
}

fn list(t: DataType) -> DataType {
    DataType::List(item(t))
}

/// The SGF and GTP text of every move index as two string arrays (the values of the
/// `move_sgf` / `move_gtp` dictionary arrays), built once.
fn move_texts() -> &'static (ArrayRef, ArrayRef) {
    static T: OnceLock<(ArrayRef, ArrayRef)> = OnceLock::new();
    T.get_or_init(|| {
        let texts = crate::coord::move_texts();
        let sgf: StringArray = texts.iter().map(|t| Some(t.0.as_str())).collect();
        let gtp: StringArray = texts.iter().map(|t| Some(t.1.as_str())).collect();
        (Arc::new(sgf) as ArrayRef, Arc::new(gtp) as ArrayRef)
    })
}

macro_rules! col {
    ($name:literal, $ty:expr, $nullable:expr, $held:ident, dict: $dict:expr, stats: $stats:expr, $build:expr) => {
        Column {
            name: $name,
            ty: || $ty,
            nullable: $nullable,
            held: Held::$held,
            dictionary: $dict,
            statistics: $stats,
            build: $build,
        }
    };
}

use DataType as T;

/// Every column of the samples table, in file order (docs/schema.md).
pub static COLUMNS: &[Column] = &[
    col!("game_id", T::Utf8, false, PerGame, dict: true, stats: false, |p| p.per_game(|g| Some(&g.game_id))),
    col!("source", T::Utf8, false, PerGame, dict: true, stats: false, |p| p.per_game(|g| Some(&g.source))),
    col!("game_index", T::UInt32, false, Plain, dict: false, stats: true, |p| {
        p.values::<UInt32Type>(|i| p.game(i).game_index)
    }),
    col!("move_number", T::UInt16, false, Plain, dict: false, stats: true, |p| {
        Arc::new(UInt16Array::from(std::mem::take(&mut p.b.move_number)))
    }),
    col!("position_hash", T::FixedSizeBinary(16), false, Plain, dict: false, stats: false, |p| {
        Arc::new(FixedSizeBinaryArray::new(16, Buffer::from_vec(p.b.hash.concat()), None))
    }),
    col!("board", T::Binary, false, Plain, dict: false, stats: false, |p| {
        Arc::new(BinaryArray::new(p.fixed(NN), Buffer::from_vec(std::mem::take(&mut p.b.boards)), None))
    }),
    col!("to_play", T::UInt8, false, Plain, dict: false, stats: true, |p| Arc::new(UInt8Array::from(p.b.to_play.clone()))),
    col!("ko_point", T::UInt16, true, Plain, dict: false, stats: true, |p| {
        p.options::<UInt16Type>(|i| p.b.ko[i])
    }),
    col!("history", list(T::UInt16), false, Plain, dict: false, stats: false, |p| {
        let values = Arc::new(UInt16Array::from(std::mem::take(&mut p.b.history)));
        Arc::new(ListArray::new(item(T::UInt16), offsets(&p.b.history_off), values, None))
    }),
    col!("history_captures", list(T::UInt16), false, Plain, dict: false, stats: false, |p| {
        let values = Arc::new(UInt16Array::from(std::mem::take(&mut p.b.hcap)));
        Arc::new(ListArray::new(item(T::UInt16), offsets(&p.b.hcap_off), values, None))
    }),
    col!("prisoners_black", T::UInt16, false, Plain, dict: false, stats: true, |p| {
        p.values::<UInt16Type>(|i| p.b.prisoners[i][0])
    }),
    col!("prisoners_white", T::UInt16, false, Plain, dict: false, stats: true, |p| {
        p.values::<UInt16Type>(|i| p.b.prisoners[i][1])
    }),
    col!("move", T::UInt16, false, Plain, dict: true, stats: true, |p| Arc::new(UInt16Array::from(p.b.moves.clone()))),
    col!("move_row", T::UInt8, true, Plain, dict: true, stats: true, |p| move_part(p, |pt| pt.row)),
    col!("move_col", T::UInt8, true, Plain, dict: true, stats: true, |p| move_part(p, |pt| pt.col)),
    col!("move_sgf", T::Utf8, false, PerMove, dict: true, stats: false, |p| p.per_move(&move_texts().0)),
    col!("move_gtp", T::Utf8, false, PerMove, dict: true, stats: false, |p| p.per_move(&move_texts().1)),
    col!("komi", T::Float32, true, Plain, dict: false, stats: true, |p| {
        p.options::<Float32Type>(|i| p.meta(i).komi)
    }),
    col!("handicap", T::UInt8, false, Plain, dict: false, stats: true, |p| {
        p.values::<UInt8Type>(|i| p.meta(i).handicap)
    }),
    col!("rules", T::Utf8, true, PerGame, dict: true, stats: true, |p| p.per_game(|g| g.meta.rules.as_deref())),
    col!("result", T::Utf8, true, PerGame, dict: true, stats: true, |p| p.per_game(|g| g.meta.result_raw.as_deref())),
    col!("winner", T::Utf8, true, PerGame, dict: true, stats: true, |p| p.per_game(|g| g.meta.winner.map(Color::as_str))),
    col!("result_kind", T::Utf8, false, PerGame, dict: true, stats: true, |p| {
        p.per_game(|g| Some(g.meta.result_kind.as_str()))
    }),
    col!("margin", T::Float32, true, Plain, dict: false, stats: true, |p| {
        p.options::<Float32Type>(|i| p.meta(i).margin)
    }),
    col!("black_rank_num", T::Int16, true, Plain, dict: false, stats: true, |p| {
        p.options::<Int16Type>(|i| p.meta(i).black_rank_num)
    }),
    col!("white_rank_num", T::Int16, true, Plain, dict: false, stats: true, |p| {
        p.options::<Int16Type>(|i| p.meta(i).white_rank_num)
    }),
    col!("black_rank", T::Utf8, true, PerGame, dict: true, stats: true, |p| p.per_game(|g| g.meta.black_rank.as_deref())),
    col!("white_rank", T::Utf8, true, PerGame, dict: true, stats: true, |p| p.per_game(|g| g.meta.white_rank.as_deref())),
    col!("date", T::Utf8, true, PerGame, dict: true, stats: true, |p| p.per_game(|g| g.meta.date_iso.as_deref())),
    col!("is_winner_move", T::Boolean, false, Plain, dict: true, stats: true, |p| {
        Arc::new(BooleanArray::new(
            BooleanBuffer::collect_bool(p.n, |i| {
                p.meta(i).winner.is_some() && p.meta(i).winner == Color::from_u8(p.b.to_play[i])
            }),
            None,
        ))
    }),
    col!("split", T::Utf8, false, PerGame, dict: true, stats: true, |p| p.per_game(|g| Some(g.split.as_str()))),
    col!("dup_count", T::UInt32, false, Plain, dict: false, stats: true, |p| {
        Arc::new(UInt32Array::from(if p.with_dup() { std::mem::take(&mut p.b.dup_count) } else { vec![1u32; p.n] }))
    }),
    col!("move_dist_moves", list(T::UInt16), false, Plain, dict: true, stats: false, |p| {
        // Without dedup every row is its own position, played once.
        let (off, values) = if p.with_dup() {
            (offsets(&p.b.dist_off), std::mem::take(&mut p.b.dist_moves))
        } else {
            (p.fixed(1), p.b.moves.clone())
        };
        Arc::new(ListArray::new(item(T::UInt16), off, Arc::new(UInt16Array::from(values)), None))
    }),
    col!("move_dist_counts", list(T::UInt32), false, Plain, dict: false, stats: false, |p| {
        let (off, values) = if p.with_dup() {
            (offsets(&p.b.dist_off), std::mem::take(&mut p.b.dist_counts))
        } else {
            (p.fixed(1), vec![1u32; p.n])
        };
        Arc::new(ListArray::new(item(T::UInt32), off, Arc::new(UInt32Array::from(values)), None))
    }),
    col!("dedup_symmetry", T::UInt8, false, Plain, dict: false, stats: true, |p| {
        Arc::new(UInt8Array::from(if p.b.sym.is_empty() { vec![0u8; p.n] } else { std::mem::take(&mut p.b.sym) }))
    }),
    col!("tag_mask", T::UInt32, true, Plain, dict: false, stats: true, |p| {
        let on = p.with_tags();
        p.options::<UInt32Type>(|i| on.then(|| p.b.tags[i].0))
    }),
    col!("tags", list(T::Utf8), true, Plain, dict: true, stats: false, |p| {
        let on = p.with_tags();
        let b = ListBuilder::with_capacity(StringBuilder::with_capacity(p.n, 12 * p.n), p.n).with_field(item(T::Utf8));
        p.rows(b, |b, i| {
            if !on {
                return b.append_null();
            }
            let mask = p.b.tags[i].0;
            for (bit, name) in TAG_NAMES.iter().enumerate() {
                if mask & (1 << bit) != 0 {
                    b.values().append_value(name);
                }
            }
            b.append(true);
        })
    }),
    col!("capture_size", T::UInt16, true, Plain, dict: false, stats: true, |p| {
        let on = p.with_tags();
        p.options::<UInt16Type>(|i| on.then(|| p.b.tags[i].1))
    }),
    col!("self_atari_size", T::UInt16, true, Plain, dict: false, stats: true, |p| {
        let on = p.with_tags();
        p.options::<UInt16Type>(|i| on.then(|| p.b.tags[i].2))
    }),
    col!("is_tactical", T::Boolean, true, Plain, dict: true, stats: true, |p| {
        let on = p.with_tags();
        let nulls = (!on).then(|| NullBuffer::new_null(p.n));
        Arc::new(BooleanArray::new(BooleanBuffer::collect_bool(p.n, |i| on && p.b.tags[i].0 & Tags::TACTICAL != 0), nulls))
    }),
    col!("influence_areas", T::Binary, true, Plain, dict: false, stats: false, |p| {
        if p.with_infl() {
            Arc::new(BinaryArray::new(p.fixed(NN), Buffer::from_vec(std::mem::take(&mut p.b.infl_areas)), None))
        } else {
            arrow_array::new_null_array(&T::Binary, p.n)
        }
    }),
    col!("influence_black_area", T::UInt16, true, Plain, dict: false, stats: true, |p| {
        let on = p.with_infl();
        p.options::<UInt16Type>(|i| on.then(|| p.b.infl_counts[i].0))
    }),
    col!("influence_white_area", T::UInt16, true, Plain, dict: false, stats: true, |p| {
        let on = p.with_infl();
        p.options::<UInt16Type>(|i| on.then(|| p.b.infl_counts[i].1))
    }),
];

/// `move_row` / `move_col`: a part of the answer's point, null for a pass.
fn move_part(p: &mut Parts, f: fn(crate::coord::Point) -> u8) -> ArrayRef {
    p.options::<UInt8Type>(|i| match Move::from_index(p.b.moves[i]).expect("invariant: valid move index") {
        Move::Play(pt) => Some(f(pt)),
        Move::Pass => None,
    })
}

impl Column {
    fn field(&self) -> Field {
        Field::new(self.name, (self.ty)(), self.nullable)
    }
    /// The field as the batch holds it.
    fn batch_field(&self) -> Field {
        let key = match self.held {
            Held::Plain => return self.field(),
            Held::PerGame => DataType::UInt32,
            Held::PerMove => DataType::UInt16,
        };
        self.field().with_data_type(DataType::Dictionary(Box::new(key), Box::new(DataType::Utf8)))
    }
    /// The Parquet path of its values (`history.list.item` for a list).
    fn leaf_path(&self) -> String {
        match (self.ty)() {
            DataType::List(_) => format!("{}.list.item", self.name),
            _ => self.name.to_string(),
        }
    }
}

/// Schema of the samples table.
pub fn samples_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    S.get_or_init(|| crate::storage::schema(COLUMNS.iter().map(Column::field).collect())).clone()
}

/// Schema of [`SampleBuf::into_batch`]'s batches: the game-level and move text as
/// dictionary arrays (written as the same `Utf8` Parquet columns).
fn batch_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    S.get_or_init(|| crate::storage::schema(COLUMNS.iter().map(Column::batch_field).collect())).clone()
}

/// How the samples table is written: the encodings of [`COLUMNS`] and the `[split]`
/// sizes (shared with the Parquet micro-benchmark).
pub fn samples_table_options(sc: &SplitConfig) -> TableOptions {
    let paths = |f: fn(&Column) -> bool| COLUMNS.iter().filter(|c| f(c)).map(Column::leaf_path).collect();
    TableOptions {
        row_group_rows: sc.row_group_rows,
        shard_rows: sc.shard_rows,
        zstd_level: sc.zstd_level,
        no_dictionary_columns: paths(|c| !c.dictionary),
        no_stats_columns: paths(|c| !c.statistics),
    }
}

impl SampleBuf {
    /// Builds an Arrow batch of all rows, consuming the buffer: the large columns
    /// (boards, history, hashes, numbers, distributions) become Arrow buffers without
    /// a copy.
    pub fn into_batch(mut self) -> RecordBatch {
        self.assert_hashed();
        self.start_lists();
        let n = self.len();
        let game_keys = UInt32Array::from(self.game.clone());
        let move_keys = UInt16Array::from(self.moves.clone());
        let (with_dup, with_tags, with_infl) =
            (!self.dup_count.is_empty(), !self.tags.is_empty(), !self.infl_counts.is_empty());
        let mut parts = Parts { b: self, n, game_keys, move_keys, with_dup, with_tags, with_infl };
        let cols: Vec<ArrayRef> = COLUMNS.iter().map(|c| (c.build)(&mut parts)).collect();
        RecordBatch::try_new(batch_schema(), cols).expect("invariant: columns built with their fields")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_the_batch_matches_the_schema() {
        let mut seen = std::collections::HashSet::new();
        assert!(COLUMNS.iter().all(|c| seen.insert(c.name)));
        let b = SampleBuf::default().into_batch();
        let schema = samples_schema();
        let file: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        let batch: Vec<&str> = b.schema_ref().fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(file, batch);
        assert_eq!(file.len(), COLUMNS.len());
    }

    #[test]
    fn encodings_as_documented() {
        let o = samples_table_options(&SplitConfig::default());
        for c in ["board", "position_hash", "influence_areas", "history.list.item", "game_index", "dup_count"] {
            assert!(o.no_dictionary_columns.iter().any(|x| x == c), "{c} should be plain");
        }
        for c in ["board", "game_id", "move_gtp", "tags.list.item", "move_dist_moves.list.item"] {
            assert!(o.no_stats_columns.iter().any(|x| x == c), "{c} should have no statistics");
        }
        for c in ["move", "split", "winner", "rules", "move_row"] {
            assert!(!o.no_dictionary_columns.iter().any(|x| x == c), "{c} keeps its dictionary");
            assert!(!o.no_stats_columns.iter().any(|x| x == c), "{c} keeps its statistics");
        }
    }
}
