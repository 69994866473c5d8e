//! The files of a VLM set (docs/vlm.md, "Layouts"):
//!
//! ```text
//! parquet (default)                         qwen
//! DEST/train/part-NNNNN.parquet             DEST/train.jsonl, DEST/val.jsonl
//! DEST/val/part-NNNNN.parquet               DEST/images/<split>/<id[..2]>/<game_id>-<move>.png
//! DEST/README.md (card, configs)            DEST/README.md
//! DEST/dataset_info.json (LLaMA-Factory)    DEST/dataset_info.json (LLaMA-Factory)
//! DEST/vlm.json (options, counts)           DEST/vlm.json
//! ```
//!
//! The Parquet shards declare their columns as Hugging Face features in the `huggingface`
//! key of the file's metadata (`images` as `List(Image())`), so `datasets.load_dataset`
//! gives PIL images with no cast; their Arrow types and nullability are exactly the ones
//! `datasets` writes for those features.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use arrow_array::builder::{BinaryBuilder, ListBuilder, StringBuilder, StructBuilder, UInt16Builder, UInt8Builder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnPath;
use serde_json::json;

use super::options::{split_names, BoardMode, Layout, VlmOptions, VlmReport, VlmRow};
use super::text::{Notation, Task};

/// The names the export owns in DEST (either layout's): an export replaces them all.
const OWNED: [&str; 10] = [
    "train",
    "val",
    "test",
    "images",
    "train.jsonl",
    "val.jsonl",
    "test.jsonl",
    "README.md",
    "dataset_info.json",
    "vlm.json",
];
const STAGING: &str = ".tmp-vlm";

/// The staging folder `DEST/.tmp-vlm/`: everything is written there, then moved into
/// DEST by [`Staging::install`]; dropped before that, it is removed.
pub struct Staging {
    dest: PathBuf,
    dir: PathBuf,
    done: bool,
}

impl Staging {
    /// Creates DEST (if missing) and an empty staging folder (removing one left by an
    /// interrupted export).
    pub fn start(dest: &Path) -> anyhow::Result<Staging> {
        let dir = dest.join(STAGING);
        if dir.exists() {
            std::fs::remove_dir_all(&dir).with_context(|| format!("removing {}", dir.display()))?;
        }
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        Ok(Staging { dest: dest.to_path_buf(), dir, done: false })
    }

    /// The staging folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Replaces DEST's owned names with the staged ones (each by a rename; names this
    /// export did not write are removed) and removes the staging folder.
    pub fn install(&mut self) -> anyhow::Result<()> {
        for name in OWNED {
            let (from, to) = (self.dir.join(name), self.dest.join(name));
            if to.is_dir() {
                std::fs::remove_dir_all(&to).with_context(|| format!("removing {}", to.display()))?;
            } else if to.exists() {
                std::fs::remove_file(&to).with_context(|| format!("removing {}", to.display()))?;
            }
            if from.exists() {
                std::fs::rename(&from, &to).with_context(|| format!("moving {} into place", to.display()))?;
            }
        }
        std::fs::remove_dir_all(&self.dir).with_context(|| format!("removing {}", self.dir.display()))?;
        self.done = true;
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

fn utf8(name: &str) -> Field {
    Field::new(name, DataType::Utf8, true)
}

fn list_of(name: &str, item: DataType) -> Field {
    Field::new(name, DataType::List(Arc::new(Field::new("item", item, true))), true)
}

fn image_fields() -> Fields {
    Fields::from(vec![Field::new("bytes", DataType::Binary, true), utf8("path")])
}

fn message_fields() -> Fields {
    Fields::from(vec![utf8("role"), utf8("content")])
}

/// The columns of the Parquet layout and their Hugging Face features (JSON, the keys in
/// the columns' and the structs' order: `datasets` orders columns and struct fields by them);
/// without `images` when the rows have no picture (`--board text`).
fn columns(picture: bool) -> Vec<(Field, String)> {
    const STRING: &str = r#"{"_type":"Value","dtype":"string"}"#;
    let image = r#"{"_type":"List","feature":{"_type":"Image"}}"#.to_string();
    let message = format!(r#"{{"_type":"List","feature":{{"role":{STRING},"content":{STRING}}}}}"#);
    let value = |dtype: &str| format!(r#"{{"_type":"Value","dtype":"{dtype}"}}"#);
    let images = picture.then(|| (list_of("images", DataType::Struct(image_fields())), image));
    images
        .into_iter()
        .chain([
            (list_of("messages", DataType::Struct(message_fields())), message),
            (utf8("prompt"), value("string")),
            (utf8("answer"), value("string")),
            (utf8("human_move"), value("string")),
            (utf8("task"), value("string")),
            (utf8("question"), value("string")),
            (utf8("to_play"), value("string")),
            (Field::new("symmetry", DataType::UInt8, true), value("uint8")),
            (utf8("game_id"), value("string")),
            (Field::new("move_number", DataType::UInt16, true), value("uint16")),
            (utf8("source"), value("string")),
            (utf8("split"), value("string")),
            (list_of("tags", DataType::Utf8), format!(r#"{{"_type":"List","feature":{STRING}}}"#)),
            (utf8("id"), value("string")),
        ])
        .collect()
}

/// The Parquet layout's schema, its `huggingface` metadata in the schema's metadata
/// (`picture`: with the `images` column).
pub fn schema(picture: bool) -> SchemaRef {
    let cols = columns(picture);
    let features: Vec<String> = cols.iter().map(|(f, v)| format!("{}:{v}", json!(f.name()))).collect();
    let hf = format!(r#"{{"info":{{"features":{{{}}}}}}}"#, features.join(","));
    let meta: std::collections::HashMap<String, String> = [("huggingface".to_string(), hf)].into_iter().collect();
    Arc::new(Schema::new_with_metadata(cols.into_iter().map(|(f, _)| f).collect::<Vec<_>>(), meta))
}

fn properties(schema: &Schema) -> WriterProperties {
    let bytes = ColumnPath::from(vec!["images".into(), "list".into(), "item".into(), "bytes".into()]);
    let mut kv: Vec<KeyValue> = schema.metadata().iter().map(|(k, v)| KeyValue::new(k.clone(), v.clone())).collect();
    kv.push(KeyValue::new("kibo.table".to_string(), "vlm".to_string()));
    kv.push(KeyValue::new("kibo.schema_version".to_string(), crate::storage::SCHEMA_VERSION.to_string()));
    WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(3).expect("invariant: a zstd level")))
        // PNGs are compressed already: stored as they are, no dictionary, no statistics.
        .set_column_compression(bytes.clone(), Compression::UNCOMPRESSED)
        .set_column_dictionary_enabled(bytes.clone(), false)
        .set_column_statistics_enabled(bytes, parquet::file::properties::EnabledStatistics::None)
        .set_max_row_group_row_count(Some(ROW_GROUP))
        .set_created_by(format!("kibo {}", env!("CARGO_PKG_VERSION")))
        .set_key_value_metadata(Some(kv))
        .build()
}

/// Rows per row group (a few MB of pictures).
const ROW_GROUP: usize = 512;

/// The rows of one batch as Arrow arrays, in [`schema`]'s order.
fn batch(schema: &SchemaRef, rows: &[VlmRow], opt: &VlmOptions) -> anyhow::Result<RecordBatch> {
    let (picture, image_tag) = (opt.board.picture(), opt.image_tag && opt.board.picture());
    let mut images = ListBuilder::new(StructBuilder::from_fields(image_fields(), rows.len()))
        .with_field(Arc::new(Field::new("item", DataType::Struct(image_fields()), true)));
    let mut messages = ListBuilder::new(StructBuilder::from_fields(message_fields(), rows.len() * 3))
        .with_field(Arc::new(Field::new("item", DataType::Struct(message_fields()), true)));
    let mut tags =
        ListBuilder::new(StringBuilder::new()).with_field(Arc::new(Field::new("item", DataType::Utf8, true)));
    let mut strs: Vec<StringBuilder> = (0..9).map(|_| StringBuilder::new()).collect();
    let mut ids = StringBuilder::new();
    let (mut sym, mut mn) = (UInt8Builder::new(), UInt16Builder::new());
    for r in rows {
        if picture {
            let s = images.values();
            s.field_builder::<BinaryBuilder>(0).expect("invariant: bytes").append_value(&r.png);
            s.field_builder::<StringBuilder>(1).expect("invariant: path").append_value(&r.image_name);
            s.append(true);
            images.append(true);
        }
        let m = messages.values();
        for (role, content) in turns(r, if image_tag { "<image>" } else { "" }) {
            m.field_builder::<StringBuilder>(0).expect("invariant: role").append_value(role);
            m.field_builder::<StringBuilder>(1).expect("invariant: content").append_value(content);
            m.append(true);
        }
        messages.append(true);
        let question = r.question.map(|q| serde_json::to_value(q).expect("invariant: a name"));
        let texts = [
            Some(r.prompt.as_str()),
            Some(r.answer.as_str()),
            r.human_move.as_deref(),
            Some(r.task.name()),
            question.as_ref().and_then(|q| q.as_str()),
            Some(if r.to_play == 2 { "white" } else { "black" }),
            Some(r.game_id.as_str()),
            Some(r.source.as_str()),
            Some(split_names(opt)[r.split]),
        ];
        for (b, t) in strs.iter_mut().zip(texts) {
            b.append_option(t);
        }
        ids.append_value(crate::stages::draw::row_id(&r.game_id, r.move_number));
        sym.append_value(r.symmetry);
        mn.append_value(r.move_number);
        for t in &r.tags {
            tags.values().append_value(t);
        }
        tags.append(true);
    }
    let mut s = strs.into_iter().map(|mut b| Arc::new(b.finish()) as ArrayRef);
    let mut next = || s.next().expect("invariant: nine string columns");
    let images: ArrayRef = Arc::new(images.finish());
    let arrays: Vec<ArrayRef> = picture
        .then_some(images)
        .into_iter()
        .chain([
            Arc::new(messages.finish()) as ArrayRef,
            next(),
            next(),
            next(),
            next(),
            next(),
            next(),
            Arc::new(sym.finish()),
            next(),
            Arc::new(mn.finish()),
            next(),
            next(),
            Arc::new(tags.finish()),
            Arc::new(ids.finish()),
        ])
        .collect();
    Ok(RecordBatch::try_new(schema.clone(), arrays)?)
}

/// The chat turns of a row: the system turn (if any), the user's (`tag` before the
/// prompt) and the answer.
fn turns(r: &VlmRow, tag: &str) -> Vec<(&'static str, String)> {
    let mut v = Vec::with_capacity(3);
    if let Some(s) = &r.system {
        v.push(("system", s.clone()));
    }
    v.push(("user", format!("{tag}{}", r.prompt)));
    v.push(("assistant", r.answer.clone()));
    v
}

/// One split's Parquet files: `rows_per_file` rows a file, row groups of [`ROW_GROUP`].
struct ParquetSplit {
    dir: PathBuf,
    schema: SchemaRef,
    props: WriterProperties,
    current: Option<(ArrowWriter<BufWriter<File>>, usize)>,
    pending: Vec<VlmRow>,
    files: usize,
}

impl ParquetSplit {
    fn open(&mut self) -> anyhow::Result<()> {
        let path = self.dir.join(format!("part-{:05}.parquet", self.files));
        let f = File::create(&path).with_context(|| format!("creating {}", path.display()))?;
        let w = ArrowWriter::try_new(BufWriter::new(f), self.schema.clone(), Some(self.props.clone()))?;
        self.current = Some((w, 0));
        self.files += 1;
        Ok(())
    }

    fn push(&mut self, row: VlmRow, opt: &VlmOptions) -> anyhow::Result<()> {
        self.pending.push(row);
        let room = opt.rows_per_file - self.current.as_ref().map(|c| c.1).unwrap_or(0);
        if self.pending.len() >= ROW_GROUP.min(room) {
            self.write(opt)?;
        }
        Ok(())
    }

    fn write(&mut self, opt: &VlmOptions) -> anyhow::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        if self.current.is_none() {
            self.open()?;
        }
        let b = batch(&self.schema, &self.pending, opt)?;
        let (w, n) = self.current.as_mut().expect("invariant: opened above");
        w.write(&b)?;
        w.flush()?;
        *n += self.pending.len();
        self.pending.clear();
        if *n >= opt.rows_per_file {
            self.close()?;
        }
        Ok(())
    }

    fn close(&mut self) -> anyhow::Result<()> {
        if let Some((w, _)) = self.current.take() {
            w.into_inner()?.flush()?;
        }
        Ok(())
    }

    /// Writes what is pending and closes. A split without rows has no folder (a reader
    /// that infers splits from folders would find an empty one and fail), except train
    /// when no split has rows: one empty file, so readers find the schema.
    fn finish(mut self, opt: &VlmOptions, keep_empty: bool) -> anyhow::Result<usize> {
        self.write(opt)?;
        if self.files == 0 && !keep_empty {
            std::fs::remove_dir(&self.dir).with_context(|| format!("removing {}", self.dir.display()))?;
            return Ok(0);
        }
        if self.files == 0 {
            self.open()?;
            let (w, _) = self.current.as_mut().expect("invariant: opened above");
            w.write(&RecordBatch::new_empty(self.schema.clone()))?;
        }
        self.close()?;
        Ok(self.files)
    }
}

/// One split's JSONL file of the Qwen layout, its PNGs beside it.
struct QwenSplit {
    root: PathBuf,
    name: &'static str,
    jsonl: BufWriter<File>,
}

impl QwenSplit {
    /// Writes the row's line (and its PNG, when it has a picture: `picture`).
    fn push(&mut self, r: VlmRow, picture: bool) -> anyhow::Result<()> {
        let rel = format!("images/{}/{}/{}", self.name, &r.image_name[..2.min(r.image_name.len())], r.image_name);
        if picture {
            let path = self.root.join(&rel);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
            }
            std::fs::write(&path, &r.png).with_context(|| format!("writing {}", path.display()))?;
        }
        let conversations: Vec<serde_json::Value> = turns(&r, if picture { "<image>\n" } else { "" })
            .into_iter()
            .map(|(role, text)| json!({"from": if role == "user" { "human" } else { "gpt" }, "value": text}))
            .collect();
        let mut line = json!({
            "image": rel,
            "conversations": conversations,
            "task": r.task.name(),
            "human_move": r.human_move,
            "question": r.question,
            "symmetry": r.symmetry,
            "game_id": r.game_id,
            "move_number": r.move_number,
            "source": r.source,
            "tags": r.tags,
            "id": crate::stages::draw::row_id(&r.game_id, r.move_number),
        });
        if !picture {
            line.as_object_mut().expect("invariant: an object").remove("image");
        }
        serde_json::to_writer(&mut self.jsonl, &line)?;
        self.jsonl.write_all(b"\n")?;
        Ok(())
    }
}

/// The writers of one export, per split.
pub struct Writer(Splits);

enum Splits {
    Parquet(Vec<ParquetSplit>, VlmOptions, PathBuf),
    Qwen(Vec<QwenSplit>, VlmOptions, PathBuf),
}

impl Writer {
    /// Opens the writers in the staging folder.
    pub fn new(staging: &Staging, opt: &VlmOptions) -> anyhow::Result<Writer> {
        let root = staging.dir().to_path_buf();
        match opt.layout {
            Layout::Parquet => {
                let schema = schema(opt.board.picture());
                let props = properties(&schema);
                let mut v = Vec::new();
                for name in split_names(opt) {
                    let dir = root.join(name);
                    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
                    v.push(ParquetSplit {
                        dir,
                        schema: schema.clone(),
                        props: props.clone(),
                        current: None,
                        pending: Vec::new(),
                        files: 0,
                    });
                }
                Ok(Writer(Splits::Parquet(v, opt.clone(), root)))
            }
            Layout::Qwen => {
                let mut v = Vec::new();
                for name in split_names(opt) {
                    let path = root.join(format!("{name}.jsonl"));
                    let f = File::create(&path).with_context(|| format!("creating {}", path.display()))?;
                    v.push(QwenSplit { root: root.clone(), name, jsonl: BufWriter::new(f) });
                }
                Ok(Writer(Splits::Qwen(v, opt.clone(), root)))
            }
        }
    }

    /// Appends a row to its split.
    pub fn push(&mut self, row: VlmRow) -> anyhow::Result<()> {
        match &mut self.0 {
            Splits::Parquet(v, opt, _) => {
                let s = row.split;
                v[s].push(row, opt)
            }
            Splits::Qwen(v, opt, _) => {
                let s = row.split;
                v[s].push(row, opt.board.picture())
            }
        }
    }

    /// Closes every file and writes the card, `dataset_info.json` and `vlm.json`;
    /// returns the number of data files.
    pub fn finish(self, rep: &VlmReport, out: &Path) -> anyhow::Result<usize> {
        let (files, opt, root) = match self.0 {
            Splits::Parquet(v, opt, root) => {
                let mut n = 0;
                let none = rep.rows.iter().all(|&r| r == 0);
                for (k, s) in v.into_iter().enumerate() {
                    n += s.finish(&opt, k == 0 && none)?;
                }
                (n, opt, root)
            }
            Splits::Qwen(v, opt, root) => {
                for mut s in v {
                    s.jsonl.flush()?;
                }
                (2, opt, root)
            }
        };
        let write = |name: &str, text: String| -> anyhow::Result<()> {
            std::fs::write(root.join(name), text).with_context(|| format!("writing {name}"))
        };
        write("dataset_info.json", pretty(&dataset_info(&opt, rep.rows))?)?;
        write("README.md", card(&opt, rep))?;
        let mut sum = summary(&opt, rep, files);
        if opt.board != BoardMode::Picture {
            // Recorded only when not the default, so a picture set's `vlm.json` is as before.
            sum["board"] = json!(opt.board.name());
        }
        if opt.test {
            // An evaluation set: its split, and the output folder `kibo eval` reads the
            // positions (and the engine's labels) from.
            let out = std::fs::canonicalize(out).unwrap_or_else(|_| out.to_path_buf());
            sum["split"] = json!("test");
            sum["rows"] = json!({"test": rep.rows[0]});
            sum["out"] = json!(out.to_string_lossy());
        }
        write("vlm.json", pretty(&sum)?)?;
        Ok(files)
    }
}

fn pretty(v: &serde_json::Value) -> anyhow::Result<String> {
    Ok(serde_json::to_string_pretty(v)? + "\n")
}

/// The splits a card or `dataset_info.json` lists: those with rows (train alone when
/// none has: `datasets` refuses a declared split without rows).
fn listed(rows: [u64; 2]) -> Vec<usize> {
    let v: Vec<usize> = (0..2).filter(|&s| rows[s] > 0).collect();
    if v.is_empty() {
        vec![0]
    } else {
        v
    }
}

/// LLaMA-Factory's `dataset_info.json`: one entry a split with rows, ShareGPT formatting
/// (no `images` column with `--board text`).
pub fn dataset_info(opt: &VlmOptions, rows: [u64; 2]) -> serde_json::Value {
    let (layout, test) = (opt.layout, opt.test);
    let mut m = serde_json::Map::new();
    for s in listed(rows) {
        let (split, name) =
            if test { ("test", "kibo_go_test") } else { [("train", "kibo_go_train"), ("val", "kibo_go_val")][s] };
        let mut entry = match layout {
            Layout::Parquet => json!({
                "file_name": split,
                "formatting": "sharegpt",
                "columns": {"messages": "messages", "images": "images"},
                "tags": {"role_tag": "role", "content_tag": "content", "user_tag": "user",
                         "assistant_tag": "assistant", "system_tag": "system"},
            }),
            Layout::Qwen => json!({
                "file_name": format!("{split}.jsonl"),
                "formatting": "sharegpt",
                "columns": {"messages": "conversations", "images": "image"},
            }),
        };
        if !opt.board.picture() {
            entry["columns"].as_object_mut().expect("invariant: an object").remove("images");
        }
        m.insert(name.to_string(), entry);
    }
    serde_json::Value::Object(m)
}

/// `vlm.json`: the options and what was written.
fn summary(opt: &VlmOptions, rep: &VlmReport, files: usize) -> serde_json::Value {
    let rows = rep.rows[0] + rep.rows[1];
    json!({
        "format": "kibo-vlm-v1",
        "layout": opt.layout,
        "cell_px": opt.cell_px,
        "picture_px": rep.picture_px,
        "answer": opt.notation,
        "answer_from": opt.answer_from,
        "limit": opt.limit,
        "seed": opt.seed,
        "tags": opt.tags,
        "mix": opt.mix.iter().map(|(t, w)| (t.name().to_string(), json!(w))).collect::<serde_json::Map<_, _>>(),
        "symmetries": opt.symmetries,
        "last_moves": opt.last_moves,
        "last_move_marker": opt.last_move_marker,
        "ko_marker": opt.ko_marker,
        "image_tag": opt.image_tag,
        "templates": opt.templates,
        "candidates": rep.candidates,
        "rows": {"train": rep.rows[0], "val": rep.rows[1]},
        // Rows per task, for the tasks of the mix (and any with rows).
        "tasks": Task::ALL
            .iter()
            .zip(rep.tasks)
            .filter(|(t, n)| *n > 0 || opt.mix.iter().any(|(m, w)| m == *t && *w > 0.0))
            .map(|(t, n)| (t.name().to_string(), json!(n)))
            .collect::<serde_json::Map<_, _>>(),
        "questions": {"atari": rep.questions[0], "capture": rep.questions[1], "ladder": rep.questions[2]},
        "picture_bytes_mean": rep.picture_bytes.checked_div(rows).unwrap_or(0),
        "files": files,
    })
}

/// The dataset card: configs for `datasets.load_dataset(DEST)` and what the rows hold.
fn card(opt: &VlmOptions, rep: &VlmReport) -> String {
    let mut configs = String::from("configs:\n- config_name: default\n  data_files:\n");
    for s in listed(rep.rows) {
        let (name, hf) = if opt.test { ("test", "test") } else { [("train", "train"), ("val", "validation")][s] };
        let path = match opt.layout {
            Layout::Parquet => format!("{name}/*.parquet"),
            Layout::Qwen => format!("{name}.jsonl"),
        };
        configs.push_str(&format!("  - split: {hf}\n    path: {path}\n"));
    }
    let side = rep.picture_px;
    let tokens = (side / opt.cell_px) * (side / opt.cell_px);
    let picture = format!(
        "a {side}×{side} px picture of a 19×19 board ({cell} px a cell: {tokens} visual tokens of {cell}×{cell} px, \
each intersection in the middle of its own), ",
        cell = opt.cell_px
    );
    let (category, title, shown) = match opt.board {
        BoardMode::Picture => ("image-text-to-text", "Go board pictures", picture),
        BoardMode::Both => {
            ("image-text-to-text", "Go board pictures and text boards", picture + "the board as text in ")
        }
        BoardMode::Text => ("text-generation", "Go text boards", "the board as text in ".to_string()),
    };
    format!(
        "---\n{configs}task_categories:\n- {category}\ntags:\n- go\n- baduk\n- kibo\n---\n\
# {title} and chat turns (kibo export vlm)\n\n\
{counts}. Each row: {shown}\
a prompt and its answer ({notation} notation). Columns labelled A–T without I, rows 1–19 with 19 at the top.\n\n\
Written by `kibo export vlm` (layout `{layout}`, seed {seed}); the options and counts are in `vlm.json`, \
the picture's geometry and the templates in kibo's docs/vlm.md.\n",
        counts = if opt.test {
            format!("{} test rows (an evaluation set for `kibo eval`)", rep.rows[0])
        } else {
            format!("{} train and {} validation rows", rep.rows[0], rep.rows[1])
        },
        notation = match opt.notation {
            Notation::Gtp => "GTP",
            Notation::Sgf => "SGF",
        },
        layout = serde_json::to_value(opt.layout).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default(),
        seed = opt.seed,
    )
}
