//! Helpers: run the real `kibo` binary, find the shared corpus, read tables back.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// Path of the built binary.
pub fn kibo() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kibo"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

/// Runs kibo with args; returns the output.
pub fn run(args: &[&str]) -> Output {
    kibo().args(args).output().expect("kibo runs")
}

/// stderr as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The shared corpus, or a skip / failure (`KIBO_REQUIRE_SHARED_DATA`): the library's one lookup.
pub use kibo::test_data::shared;

/// Reads a whole table into row structs via the library.
pub fn games(out: &Path) -> Vec<kibo::game::GameRow> {
    let mut v = Vec::new();
    kibo::storage::read_table(out, "games", |b| {
        v.extend(kibo::tables::games_from_batch(&b)?);
        Ok(())
    })
    .expect("games table reads");
    v
}

/// Rejects rows.
pub fn rejects(out: &Path) -> Vec<kibo::tables::RejectRow> {
    let mut v = Vec::new();
    kibo::storage::read_table(out, "rejects", |b| {
        v.extend(kibo::tables::rejects_from_batch(&b)?);
        Ok(())
    })
    .expect("rejects table reads");
    v
}

/// Parsed report.json.
pub fn report(out: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(out.join("report.json")).expect("report.json")).expect("report is JSON")
}

/// All files under `dir` with their blake3, relative paths sorted.
pub fn snapshot(dir: &Path) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            (rel, blake3::hash(&std::fs::read(e.path()).unwrap()).to_hex().to_string())
        })
        .collect();
    v.sort();
    v
}

/// Runs `kibo <cmd> --input INPUT --out OUT --pipeline PIPELINE -q`.
pub fn run_with(cmd: &str, input: &Path, out: &Path, pipeline: &Path) -> Output {
    run(&[
        cmd,
        "--input",
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--pipeline",
        pipeline.to_str().unwrap(),
        "-q",
    ])
}

/// [`run_with`], asserting success.
pub fn run_ok(cmd: &str, input: &Path, out: &Path, pipeline: &Path) -> Output {
    let o = run_with(cmd, input, out, pipeline);
    assert!(o.status.success(), "kibo {cmd}: {}", stderr(&o));
    o
}

/// One row of the `samples` table as Rust types (columns in docs/schema.md,
/// `kibo::samples::samples_schema`); `Option` for the nullable columns.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleRow {
    pub game_id: String,
    pub source: String,
    pub game_index: u32,
    pub move_number: u16,
    pub position_hash: [u8; 16],
    pub board: Vec<u8>,
    pub to_play: u8,
    pub ko_point: Option<u16>,
    pub history: Vec<u16>,
    pub history_captures: Vec<u16>,
    pub prisoners_black: u16,
    pub prisoners_white: u16,
    /// Column `move`: the answer as a point index, 361 = pass.
    pub mv: u16,
    pub move_row: Option<u8>,
    pub move_col: Option<u8>,
    pub move_sgf: String,
    pub move_gtp: String,
    pub komi: Option<f32>,
    pub handicap: u8,
    pub rules: Option<String>,
    pub result: Option<String>,
    pub winner: Option<String>,
    pub result_kind: String,
    pub margin: Option<f32>,
    pub black_rank_num: Option<i16>,
    pub white_rank_num: Option<i16>,
    pub black_rank: Option<String>,
    pub white_rank: Option<String>,
    pub date: Option<String>,
    pub is_winner_move: bool,
    pub split: String,
    pub dup_count: u32,
    pub move_dist_moves: Vec<u16>,
    pub move_dist_counts: Vec<u32>,
    pub dedup_symmetry: u8,
    pub tag_mask: Option<u32>,
    pub tags: Option<Vec<String>>,
    pub capture_size: Option<u16>,
    pub self_atari_size: Option<u16>,
    pub is_tactical: Option<bool>,
    pub influence_areas: Option<Vec<u8>>,
    pub influence_black_area: Option<u16>,
    pub influence_white_area: Option<u16>,
}

/// The columns [`SampleRow`] reads, in schema order.
pub const SAMPLE_COLUMNS: [&str; 43] = [
    "game_id",
    "source",
    "game_index",
    "move_number",
    "position_hash",
    "board",
    "to_play",
    "ko_point",
    "history",
    "history_captures",
    "prisoners_black",
    "prisoners_white",
    "move",
    "move_row",
    "move_col",
    "move_sgf",
    "move_gtp",
    "komi",
    "handicap",
    "rules",
    "result",
    "winner",
    "result_kind",
    "margin",
    "black_rank_num",
    "white_rank_num",
    "black_rank",
    "white_rank",
    "date",
    "is_winner_move",
    "split",
    "dup_count",
    "move_dist_moves",
    "move_dist_counts",
    "dedup_symmetry",
    "tag_mask",
    "tags",
    "capture_size",
    "self_atari_size",
    "is_tactical",
    "influence_areas",
    "influence_black_area",
    "influence_white_area",
];

/// Every row of every samples shard under `out`, in shard order. Panics, naming the
/// column, on a missing or extra column, a column of another type, or a null in a
/// non-null column.
pub fn samples(out: &Path) -> Vec<SampleRow> {
    let mut v = Vec::new();
    kibo::storage::read_table(out, "samples", |b| {
        sample_rows(&b, &mut v);
        Ok(())
    })
    .expect("samples table reads");
    v
}

fn sample_rows(b: &arrow_array::RecordBatch, v: &mut Vec<SampleRow>) {
    use arrow_array::types::{Float32Type, Int16Type, UInt16Type, UInt32Type, UInt8Type};
    use arrow_array::{Array, BinaryArray, BooleanArray, FixedSizeBinaryArray, ListArray, StringArray};

    let names: Vec<&str> = b.schema_ref().fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names, SAMPLE_COLUMNS, "samples: the columns differ from the ones SampleRow reads");

    /// The column `name` as array type `T`.
    fn col<'a, T: Array + 'static>(b: &'a arrow_array::RecordBatch, name: &str) -> &'a T {
        let c = b.column_by_name(name).unwrap_or_else(|| panic!("samples: no column {name}"));
        c.as_any()
            .downcast_ref::<T>()
            .unwrap_or_else(|| panic!("samples.{name}: {} is not a {}", c.data_type(), std::any::type_name::<T>()))
    }
    /// The child values of the list column `name` as array type `T`.
    fn items<'a, T: Array + 'static>(l: &'a ListArray, name: &str) -> &'a T {
        l.values().as_any().downcast_ref::<T>().unwrap_or_else(|| {
            panic!("samples.{name}: items of type {} are not a {}", l.values().data_type(), std::any::type_name::<T>())
        })
    }
    type Prim<T> = arrow_array::PrimitiveArray<T>;
    let present = |a: &dyn Array, name: &str, i: usize| {
        assert!(!a.is_null(i), "samples.{name}: null in row {i} of a non-null column");
        i
    };
    let opt = |a: &dyn Array, i: usize| (!a.is_null(i)).then_some(i);
    let range = |l: &ListArray, i: usize| {
        let o = l.value_offsets();
        o[i] as usize..o[i + 1] as usize
    };

    let game_id = col::<StringArray>(b, "game_id");
    let source = col::<StringArray>(b, "source");
    let game_index = col::<Prim<UInt32Type>>(b, "game_index");
    let move_number = col::<Prim<UInt16Type>>(b, "move_number");
    let position_hash = col::<FixedSizeBinaryArray>(b, "position_hash");
    assert_eq!(position_hash.value_length(), 16, "samples.position_hash: width");
    let board = col::<BinaryArray>(b, "board");
    let to_play = col::<Prim<UInt8Type>>(b, "to_play");
    let ko_point = col::<Prim<UInt16Type>>(b, "ko_point");
    let history = col::<ListArray>(b, "history");
    let history_items = items::<Prim<UInt16Type>>(history, "history");
    let history_captures = col::<ListArray>(b, "history_captures");
    let history_captures_items = items::<Prim<UInt16Type>>(history_captures, "history_captures");
    let prisoners_black = col::<Prim<UInt16Type>>(b, "prisoners_black");
    let prisoners_white = col::<Prim<UInt16Type>>(b, "prisoners_white");
    let mv = col::<Prim<UInt16Type>>(b, "move");
    let move_row = col::<Prim<UInt8Type>>(b, "move_row");
    let move_col = col::<Prim<UInt8Type>>(b, "move_col");
    let move_sgf = col::<StringArray>(b, "move_sgf");
    let move_gtp = col::<StringArray>(b, "move_gtp");
    let komi = col::<Prim<Float32Type>>(b, "komi");
    let handicap = col::<Prim<UInt8Type>>(b, "handicap");
    let rules = col::<StringArray>(b, "rules");
    let result = col::<StringArray>(b, "result");
    let winner = col::<StringArray>(b, "winner");
    let result_kind = col::<StringArray>(b, "result_kind");
    let margin = col::<Prim<Float32Type>>(b, "margin");
    let black_rank_num = col::<Prim<Int16Type>>(b, "black_rank_num");
    let white_rank_num = col::<Prim<Int16Type>>(b, "white_rank_num");
    let black_rank = col::<StringArray>(b, "black_rank");
    let white_rank = col::<StringArray>(b, "white_rank");
    let date = col::<StringArray>(b, "date");
    let is_winner_move = col::<BooleanArray>(b, "is_winner_move");
    let split = col::<StringArray>(b, "split");
    let dup_count = col::<Prim<UInt32Type>>(b, "dup_count");
    let move_dist_moves = col::<ListArray>(b, "move_dist_moves");
    let move_dist_moves_items = items::<Prim<UInt16Type>>(move_dist_moves, "move_dist_moves");
    let move_dist_counts = col::<ListArray>(b, "move_dist_counts");
    let move_dist_counts_items = items::<Prim<UInt32Type>>(move_dist_counts, "move_dist_counts");
    let dedup_symmetry = col::<Prim<UInt8Type>>(b, "dedup_symmetry");
    let tag_mask = col::<Prim<UInt32Type>>(b, "tag_mask");
    let tags = col::<ListArray>(b, "tags");
    let tags_items = items::<StringArray>(tags, "tags");
    let capture_size = col::<Prim<UInt16Type>>(b, "capture_size");
    let self_atari_size = col::<Prim<UInt16Type>>(b, "self_atari_size");
    let is_tactical = col::<BooleanArray>(b, "is_tactical");
    let influence_areas = col::<BinaryArray>(b, "influence_areas");
    let influence_black_area = col::<Prim<UInt16Type>>(b, "influence_black_area");
    let influence_white_area = col::<Prim<UInt16Type>>(b, "influence_white_area");

    let string = |a: &StringArray, name: &str, i: usize| a.value(present(a, name, i)).to_string();
    let opt_string = |a: &StringArray, i: usize| opt(a, i).map(|i| a.value(i).to_string());
    for i in 0..b.num_rows() {
        v.push(SampleRow {
            game_id: string(game_id, "game_id", i),
            source: string(source, "source", i),
            game_index: game_index.value(present(game_index, "game_index", i)),
            move_number: move_number.value(present(move_number, "move_number", i)),
            position_hash: position_hash.value(present(position_hash, "position_hash", i)).try_into().unwrap(),
            board: board.value(present(board, "board", i)).to_vec(),
            to_play: to_play.value(present(to_play, "to_play", i)),
            ko_point: opt(ko_point, i).map(|i| ko_point.value(i)),
            history: history_items.values()[range(history, present(history, "history", i))].to_vec(),
            history_captures: history_captures_items.values()
                [range(history_captures, present(history_captures, "history_captures", i))]
            .to_vec(),
            prisoners_black: prisoners_black.value(present(prisoners_black, "prisoners_black", i)),
            prisoners_white: prisoners_white.value(present(prisoners_white, "prisoners_white", i)),
            mv: mv.value(present(mv, "move", i)),
            move_row: opt(move_row, i).map(|i| move_row.value(i)),
            move_col: opt(move_col, i).map(|i| move_col.value(i)),
            move_sgf: string(move_sgf, "move_sgf", i),
            move_gtp: string(move_gtp, "move_gtp", i),
            komi: opt(komi, i).map(|i| komi.value(i)),
            handicap: handicap.value(present(handicap, "handicap", i)),
            rules: opt_string(rules, i),
            result: opt_string(result, i),
            winner: opt_string(winner, i),
            result_kind: string(result_kind, "result_kind", i),
            margin: opt(margin, i).map(|i| margin.value(i)),
            black_rank_num: opt(black_rank_num, i).map(|i| black_rank_num.value(i)),
            white_rank_num: opt(white_rank_num, i).map(|i| white_rank_num.value(i)),
            black_rank: opt_string(black_rank, i),
            white_rank: opt_string(white_rank, i),
            date: opt_string(date, i),
            is_winner_move: is_winner_move.value(present(is_winner_move, "is_winner_move", i)),
            split: string(split, "split", i),
            dup_count: dup_count.value(present(dup_count, "dup_count", i)),
            move_dist_moves: move_dist_moves_items.values()
                [range(move_dist_moves, present(move_dist_moves, "move_dist_moves", i))]
            .to_vec(),
            move_dist_counts: move_dist_counts_items.values()
                [range(move_dist_counts, present(move_dist_counts, "move_dist_counts", i))]
            .to_vec(),
            dedup_symmetry: dedup_symmetry.value(present(dedup_symmetry, "dedup_symmetry", i)),
            tag_mask: opt(tag_mask, i).map(|i| tag_mask.value(i)),
            tags: opt(tags, i).map(|i| range(tags, i).map(|j| tags_items.value(j).to_string()).collect()),
            capture_size: opt(capture_size, i).map(|i| capture_size.value(i)),
            self_atari_size: opt(self_atari_size, i).map(|i| self_atari_size.value(i)),
            is_tactical: opt(is_tactical, i).map(|i| is_tactical.value(i)),
            influence_areas: opt(influence_areas, i).map(|i| influence_areas.value(i).to_vec()),
            influence_black_area: opt(influence_black_area, i).map(|i| influence_black_area.value(i)),
            influence_white_area: opt(influence_white_area, i).map(|i| influence_white_area.value(i)),
        });
    }
}
