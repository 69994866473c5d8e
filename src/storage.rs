/*!
Parquet tables on disk, written atomically.

A table is a folder of shards `DIR/<table>/part-00000.parquet`, … Every shard is
written inside a staging folder `DIR/.tmp-<table>/`; only when the whole table is
complete is the staging folder swapped in for `DIR/<table>/` (the previous version is
moved to `DIR/.old-<table>/` and removed). A crash therefore never leaves a partial
file under its final name, and [`clean_stale`] removes what a crashed run left.

Files are byte-identical for identical input: no timestamps, a fixed `created_by`,
and the schema version in the key-value metadata (`kibo.schema_version`).
*/

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::arrow::arrow_writer::{
    compute_leaves, ArrowColumnChunk, ArrowColumnWriter, ArrowLeafColumn, ArrowRowGroupWriterFactory,
};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use rayon::prelude::*;

/// Version of every table schema kibo writes. Bump on any column change.
pub const SCHEMA_VERSION: &str = "6";

/// One finished shard.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ShardInfo {
    /// Path relative to the output folder (`games/part-00000.parquet`).
    pub path: String,
    /// Rows in the shard.
    pub rows: u64,
    /// Bytes on disk.
    pub bytes: u64,
    /// blake3 of the file, hex.
    pub blake3: String,
}

/// Options for one table.
#[derive(Clone, Debug)]
pub struct TableOptions {
    /// Rows per row group.
    pub row_group_rows: usize,
    /// Rows per shard file.
    pub shard_rows: usize,
    /// zstd level.
    pub zstd_level: i32,
    /// Columns without min/max statistics: values no
    /// query prunes on, whose statistics would cost a comparison per value. Leaf paths
    /// (`history.list.item` for a list column).
    pub no_stats_columns: Vec<String>,
    /// Further columns without dictionary encoding (statistics kept): numbers that are
    /// constant within a game or small counts, where plain values compressed by zstd are
    /// as small as dictionary indices and much cheaper to write than interning every
    /// value (docs/performance.md).
    pub no_dictionary_columns: Vec<String>,
}

impl Default for TableOptions {
    fn default() -> Self {
        TableOptions {
            row_group_rows: 65536,
            shard_rows: 1 << 20,
            zstd_level: 3,
            no_stats_columns: Vec::new(),
            no_dictionary_columns: Vec::new(),
        }
    }
}

/// Writes one table as a folder of shards, atomically.
pub struct TableWriter {
    out: PathBuf,
    name: String,
    staging: PathBuf,
    schema: SchemaRef,
    props: WriterProperties,
    opts: TableOptions,
    /// Open shard per partition key ("" = unpartitioned): writer, rows, index in `shards`.
    current: std::collections::BTreeMap<String, (Shard, u64, usize)>,
    /// Shards per partition key so far.
    counts: std::collections::BTreeMap<String, usize>,
    shards: Vec<(String, u64)>,
    rows: u64,
    /// File names are `part-<prefix>-…` (empty: `part-…`).
    prefix: String,
    /// Partition mode: only this writer's files in the table folder are replaced.
    partition: bool,
    /// Set by [`TableWriter::finish`]; until then dropping the writer removes its staging folder.
    done: bool,
}

/// `e` with `path` in its message (same kind, so "disk full" stays recognisable).
pub fn at_path(path: &Path) -> impl Fn(std::io::Error) -> std::io::Error + '_ {
    move |e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// A Parquet error as an I/O error naming `path` (the OS error inside, if any, keeps its kind).
fn parquet_at(path: &Path) -> impl Fn(parquet::errors::ParquetError) -> std::io::Error + '_ {
    move |e| match e {
        parquet::errors::ParquetError::External(b) => match b.downcast::<std::io::Error>() {
            Ok(io) => at_path(path)(*io),
            Err(b) => std::io::Error::other(format!("{}: {b}", path.display())),
        },
        e => std::io::Error::other(format!("{}: {e}", path.display())),
    }
}

/// Removes staging and old folders a crashed run may have left in `out`.
pub fn clean_stale(out: &Path) -> std::io::Result<()> {
    if !out.exists() {
        return Ok(());
    }
    for e in std::fs::read_dir(out)? {
        let e = e?;
        let n = e.file_name().to_string_lossy().into_owned();
        if n.starts_with(".tmp-") || n.starts_with(".old-") {
            if e.file_type()?.is_dir() {
                std::fs::remove_dir_all(e.path())?;
            } else {
                std::fs::remove_file(e.path())?;
            }
        }
    }
    Ok(())
}

/// Writes `bytes` to `out/name` atomically ([`write_file_atomic`]).
pub fn write_atomic(out: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    write_file_atomic(&out.join(name), |f| f.write_all(bytes))
}

/// The one atomic write of a file (every stage's: reports, the card, label chunks, the
/// eval report): `write` fills a temporary sibling `.NAME.tmp`, which is synced and
/// renamed to `path`, so `path` holds the old bytes or the new, never a part. On an error
/// the temporary is removed and the error names the file. Readers of a folder skip the
/// temporary: it starts with a dot and does not end in `.parquet`.
pub fn write_file_atomic(path: &Path, write: impl FnOnce(&mut File) -> std::io::Result<()>) -> std::io::Result<()> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp"));
    let result = File::create(&tmp)
        .and_then(|mut f| write(&mut f).and_then(|_| f.sync_all()))
        .map_err(at_path(&tmp))
        .and_then(|_| std::fs::rename(&tmp, path).map_err(at_path(path)));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// blake3 of a file, hex.
pub fn file_blake3(path: &Path) -> std::io::Result<String> {
    let mut h = blake3::Hasher::new();
    h.update_reader(File::open(path)?)?;
    Ok(h.finalize().to_hex().to_string())
}

/// Parquet writer properties of table `name` with options `opts`.
pub fn writer_properties(opts: &TableOptions, name: &str) -> std::io::Result<WriterProperties> {
    writer_properties_with(opts, name, Vec::new())
}

/// [`writer_properties`] with `extra` key-value metadata after kibo's own.
pub fn writer_properties_with(
    opts: &TableOptions,
    name: &str,
    extra: Vec<KeyValue>,
) -> std::io::Result<WriterProperties> {
    let level = ZstdLevel::try_new(opts.zstd_level).map_err(|e| std::io::Error::other(e.to_string()))?;
    let mut props = WriterProperties::builder();
    for c in &opts.no_dictionary_columns {
        let path = parquet::schema::types::ColumnPath::from(c.split('.').map(String::from).collect::<Vec<_>>());
        props = props.set_column_dictionary_enabled(path, false);
    }
    for c in &opts.no_stats_columns {
        let path = parquet::schema::types::ColumnPath::from(c.split('.').map(String::from).collect::<Vec<_>>());
        props = props.set_column_statistics_enabled(path, EnabledStatistics::None);
    }
    let props = props
        .set_compression(Compression::ZSTD(level))
        .set_max_row_group_row_count(Some(opts.row_group_rows))
        .set_statistics_enabled(EnabledStatistics::Page)
        .set_created_by(format!("kibo {}", env!("CARGO_PKG_VERSION")))
        .set_key_value_metadata(Some(
            [
                KeyValue::new("kibo.schema_version".to_string(), SCHEMA_VERSION.to_string()),
                KeyValue::new("kibo.table".to_string(), name.to_string()),
            ]
            .into_iter()
            .chain(extra)
            .collect(),
        ))
        .build();
    Ok(props)
}

impl TableWriter {
    /// Starts table `name` under `out`.
    pub fn new(out: &Path, name: &str, schema: SchemaRef, opts: TableOptions) -> std::io::Result<TableWriter> {
        Self::start(out, name, "", false, schema, opts)
    }

    /// Table `name` whose files are named `part-<prefix>-NNNNN.parquet`; the whole folder
    /// is replaced on [`TableWriter::finish`], as with [`TableWriter::new`].
    pub fn with_prefix(
        out: &Path,
        name: &str,
        prefix: &str,
        schema: SchemaRef,
        opts: TableOptions,
    ) -> std::io::Result<TableWriter> {
        Self::start(out, name, prefix, false, schema, opts)
    }

    /// One partition of table `name`: its files `part-<part>-NNNNN.parquet` replace that
    /// partition's files in `out/<name>/` on [`TableWriter::finish`] (each by an atomic
    /// rename; stale ones removed after); other files of the folder are left alone.
    pub fn partition(
        out: &Path,
        name: &str,
        part: &str,
        schema: SchemaRef,
        opts: TableOptions,
    ) -> std::io::Result<TableWriter> {
        Self::start(out, name, part, true, schema, opts)
    }

    fn start(
        out: &Path,
        name: &str,
        prefix: &str,
        partition: bool,
        schema: SchemaRef,
        opts: TableOptions,
    ) -> std::io::Result<TableWriter> {
        let staging =
            out.join(if prefix.is_empty() { format!(".tmp-{name}") } else { format!(".tmp-{name}-{prefix}") });
        if staging.exists() {
            std::fs::remove_dir_all(&staging).map_err(at_path(&staging))?;
        }
        std::fs::create_dir_all(&staging).map_err(at_path(&staging))?;
        let props = writer_properties(&opts, name)?;
        Ok(TableWriter {
            out: out.to_path_buf(),
            name: name.to_string(),
            staging,
            schema,
            props,
            opts,
            current: Default::default(),
            counts: Default::default(),
            shards: Vec::new(),
            rows: 0,
            prefix: prefix.to_string(),
            partition,
            done: false,
        })
    }

    /// The table's schema.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// Appends a batch; rolls to a new shard every `shard_rows` rows.
    pub fn write(&mut self, batch: &RecordBatch) -> std::io::Result<()> {
        self.write_part("", batch)
    }

    /// Appends a batch to partition `key`: its shards are named `part-<key>-NNNNN.parquet`,
    /// so a filter on the partitioning column skips whole files.
    pub fn write_part(&mut self, key: &str, batch: &RecordBatch) -> std::io::Result<()> {
        let mut offset = 0;
        while offset < batch.num_rows() {
            if !self.current.contains_key(key) {
                let n = self.counts.get(key).copied().unwrap_or(0);
                self.counts.insert(key.to_string(), n + 1);
                let file_name = self.file_name(key, n);
                let w = Shard::create(
                    &self.staging.join(&file_name),
                    self.schema.clone(),
                    self.props.clone(),
                    self.opts.row_group_rows,
                )?;
                self.shards.push((file_name, 0));
                self.current.insert(key.to_string(), (w, 0, self.shards.len() - 1));
            }
            let (w, rows, _) = self.current.get_mut(key).expect("invariant: shard open");
            let room = self.opts.shard_rows as u64 - *rows;
            let take = room.min((batch.num_rows() - offset) as u64) as usize;
            w.write(&batch.slice(offset, take))?;
            *rows += take as u64;
            offset += take;
            self.rows += take as u64;
            if *rows >= self.opts.shard_rows as u64 {
                self.close(key)?;
            }
        }
        Ok(())
    }

    fn file_name(&self, key: &str, n: usize) -> String {
        let parts: Vec<&str> = [self.prefix.as_str(), key].into_iter().filter(|s| !s.is_empty()).collect();
        if parts.is_empty() {
            format!("part-{n:05}.parquet")
        } else {
            format!("part-{}-{n:05}.parquet", parts.join("-"))
        }
    }

    fn close(&mut self, key: &str) -> std::io::Result<()> {
        if let Some((w, rows, idx)) = self.current.remove(key) {
            let path = w.path.clone();
            w.finish()?.sync_all().map_err(at_path(&path))?;
            self.shards[idx].1 = rows;
        }
        Ok(())
    }

    /// Total rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Closes the last shard and swaps the staging folder in. An empty table still
    /// gets one shard with zero rows, so readers always find the schema.
    pub fn finish(mut self) -> std::io::Result<Vec<ShardInfo>> {
        if self.shards.is_empty() {
            let file_name = self.file_name("", 0);
            let path = self.staging.join(&file_name);
            let mut w = Shard::create(&path, self.schema.clone(), self.props.clone(), self.opts.row_group_rows)?;
            w.write(&RecordBatch::new_empty(self.schema.clone()))?;
            self.shards.push((file_name, 0));
            self.current.insert(String::new(), (w, 0, 0));
        }
        let keys: Vec<String> = self.current.keys().cloned().collect();
        for k in keys {
            self.close(&k)?;
        }
        // Shards listed by name, as readers see them.
        self.shards.sort();
        let final_dir = self.out.join(&self.name);
        if self.partition {
            self.replace_partition(&final_dir)?;
        } else {
            self.replace_folder(&final_dir)?;
        }
        self.done = true;
        let mut infos = Vec::new();
        for (file_name, rows) in &self.shards {
            let p = final_dir.join(file_name);
            infos.push(ShardInfo {
                path: format!("{}/{}", self.name, file_name),
                rows: *rows,
                bytes: std::fs::metadata(&p).map_err(at_path(&p))?.len(),
                blake3: file_blake3(&p).map_err(at_path(&p))?,
            });
        }
        Ok(infos)
    }
}

/// One open shard file. Columns are encoded in parallel on the current rayon pool
/// (Parquet column chunks are independent), and the row group is assembled in column
/// order, so the bytes are the same as [`ArrowWriter`]'s for the same batches whatever
/// the thread count.
impl TableWriter {
    /// Swaps the staging folder in for `final_dir` (the old one moved aside, then removed).
    fn replace_folder(&self, final_dir: &Path) -> std::io::Result<()> {
        swap_folder(&self.out, &self.name, &self.staging, final_dir)
    }

    /// Moves this partition's files into `final_dir`, then removes its stale ones.
    fn replace_partition(&self, final_dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(final_dir).map_err(at_path(final_dir))?;
        let mine = format!("part-{}-", self.prefix);
        let stale: Vec<PathBuf> = std::fs::read_dir(final_dir)
            .map_err(at_path(final_dir))?
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with(&mine))
            .filter(|e| !self.shards.iter().any(|(n, _)| e.file_name().to_string_lossy() == n.as_str()))
            .map(|e| e.path())
            .collect();
        for (file_name, _) in &self.shards {
            let to = final_dir.join(file_name);
            std::fs::rename(self.staging.join(file_name), &to).map_err(at_path(&to))?;
        }
        for p in stale {
            std::fs::remove_file(&p).map_err(at_path(&p))?;
        }
        std::fs::remove_dir_all(&self.staging).map_err(at_path(&self.staging))
    }
}

impl Drop for TableWriter {
    /// A writer dropped before [`TableWriter::finish`] (an error on the way) leaves
    /// nothing behind: its staging folder is removed, the table as it was stays.
    fn drop(&mut self) {
        if !self.done {
            self.current.clear();
            let _ = std::fs::remove_dir_all(&self.staging);
        }
    }
}

struct Shard {
    path: PathBuf,
    file: SerializedFileWriter<File>,
    factory: ArrowRowGroupWriterFactory,
    schema: SchemaRef,
    /// Column writers of the row group in progress, and its rows.
    writers: Option<Vec<ArrowColumnWriter>>,
    rg_rows: usize,
    rg_max: usize,
}

impl Shard {
    fn create(path: &Path, schema: SchemaRef, props: WriterProperties, rg_max: usize) -> std::io::Result<Shard> {
        let f = File::create(path).map_err(at_path(path))?;
        // ArrowWriter sets up the file (with the Arrow schema in its metadata); its
        // lower-level parts then take the columns one by one.
        let (file, factory) = ArrowWriter::try_new(f, schema.clone(), Some(props))
            .and_then(|w| w.into_serialized_writer())
            .map_err(parquet_at(path))?;
        Ok(Shard { path: path.to_path_buf(), file, factory, schema, writers: None, rg_rows: 0, rg_max: rg_max.max(1) })
    }

    fn write(&mut self, batch: &RecordBatch) -> std::io::Result<()> {
        let mut off = 0;
        while off < batch.num_rows() {
            if self.writers.is_none() {
                let index = self.file.flushed_row_groups().len();
                self.writers = Some(self.factory.create_column_writers(index).map_err(parquet_at(&self.path))?);
            }
            let take = (self.rg_max - self.rg_rows).min(batch.num_rows() - off);
            let piece = batch.slice(off, take);
            let leaves: Vec<Vec<ArrowLeafColumn>> = self
                .schema
                .fields()
                .par_iter()
                .zip(piece.columns().par_iter())
                .map(|(f, c)| compute_leaves(f, c))
                .collect::<Result<_, _>>()
                .map_err(parquet_at(&self.path))?;
            let writers = self.writers.as_mut().expect("invariant: row group open");
            writers
                .par_iter_mut()
                .zip(leaves.into_iter().flatten().collect::<Vec<_>>().par_iter())
                .try_for_each(|(w, leaf)| w.write(leaf))
                .map_err(parquet_at(&self.path))?;
            self.rg_rows += take;
            off += take;
            if self.rg_rows >= self.rg_max {
                self.flush()?;
            }
        }
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let Some(writers) = self.writers.take() else { return Ok(()) };
        let chunks: Vec<ArrowColumnChunk> =
            writers.into_par_iter().map(|w| w.close()).collect::<Result<_, _>>().map_err(parquet_at(&self.path))?;
        let mut rg = self.file.next_row_group().map_err(parquet_at(&self.path))?;
        for c in chunks {
            c.append_to_row_group(&mut rg).map_err(parquet_at(&self.path))?;
        }
        rg.close().map_err(parquet_at(&self.path))?;
        self.rg_rows = 0;
        Ok(())
    }

    fn finish(mut self) -> std::io::Result<File> {
        self.flush()?;
        self.file.into_inner().map_err(parquet_at(&self.path))
    }
}

/// Reads every shard of `out/<table>/` in name order, calling `f` per batch.
pub fn read_table(out: &Path, table: &str, f: impl FnMut(RecordBatch) -> anyhow::Result<()>) -> anyhow::Result<()> {
    read_table_columns(out, table, None, f)
}

/// [`read_table`], decoding only the named top-level `columns` (all when `None`): a pass
/// that needs one column does not decode the others.
pub fn read_table_columns(
    out: &Path,
    table: &str,
    columns: Option<&[&str]>,
    f: impl FnMut(RecordBatch) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    use anyhow::Context;
    let dir = out.join(table);
    std::fs::metadata(&dir).with_context(|| format!("reading table folder {}", dir.display()))?;
    read_parquet_columns(&dir, true, columns, f)
}

/// Reads the Parquet files of folder `dir` (or the one file `dir`) in name order,
/// calling `f` per batch; with `kibo_table`, each must carry this kibo's schema version.
/// A missing `dir` reads as empty when `kibo_table` is false: the side inputs written by
/// another tool (Spark's outputs) have no file for an empty partition.
pub fn read_parquet(
    dir: &Path,
    kibo_table: bool,
    f: impl FnMut(RecordBatch) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    read_parquet_columns(dir, kibo_table, None, f)
}

/// [`read_parquet`] of the named top-level `columns` only (all when `None`).
pub fn read_parquet_columns(
    dir: &Path,
    kibo_table: bool,
    columns: Option<&[&str]>,
    mut f: impl FnMut(RecordBatch) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    use anyhow::Context;
    let mut files: Vec<PathBuf> = if dir.is_file() {
        vec![dir.to_path_buf()]
    } else if !dir.exists() && !kibo_table {
        Vec::new()
    } else {
        std::fs::read_dir(dir)
            .with_context(|| format!("reading table folder {}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
            .collect()
    };
    files.sort();
    for p in files {
        let file = File::open(&p).with_context(|| format!("opening {}", p.display()))?;
        let builder = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
            .with_context(|| format!("reading {}", p.display()))?;
        if kibo_table {
            check_schema_version(&p, builder.metadata().file_metadata().key_value_metadata())?;
        }
        let builder = match columns {
            Some(names) => {
                let mask = parquet::arrow::ProjectionMask::columns(builder.parquet_schema(), names.iter().copied());
                builder.with_projection(mask)
            }
            None => builder,
        };
        let reader = builder.with_batch_size(8192).build().with_context(|| format!("reading {}", p.display()))?;
        for b in reader {
            f(b.with_context(|| format!("reading {}", p.display()))?)?;
        }
    }
    Ok(())
}

/// Installs table `name` of `out` from shards written elsewhere (the parts of a Spark
/// run): each `(file, new_name)` is moved into a staging folder, which then replaces
/// `out/<name>/` whole, as [`TableWriter::finish`] does. Returns the shards' figures.
pub fn install_table(out: &Path, name: &str, files: &[(PathBuf, String)]) -> std::io::Result<Vec<ShardInfo>> {
    let staging = out.join(format!(".tmp-{name}"));
    if staging.exists() {
        std::fs::remove_dir_all(&staging).map_err(at_path(&staging))?;
    }
    std::fs::create_dir_all(&staging).map_err(at_path(&staging))?;
    let mut names: Vec<&String> = Vec::new();
    for (from, to) in files {
        let dst = staging.join(to);
        // A work folder on another filesystem: copy, then remove.
        if std::fs::rename(from, &dst).is_err() {
            std::fs::copy(from, &dst).map_err(at_path(from))?;
            std::fs::remove_file(from).map_err(at_path(from))?;
        }
        names.push(to);
    }
    names.sort();
    let final_dir = out.join(name);
    swap_folder(out, name, &staging, &final_dir)?;
    let mut infos = Vec::new();
    for n in names {
        let p = final_dir.join(n);
        let file = File::open(&p).map_err(at_path(&p))?;
        let rows = parquet::file::reader::SerializedFileReader::new(file)
            .map(|r| parquet::file::reader::FileReader::metadata(&r).file_metadata().num_rows() as u64)
            .map_err(parquet_at(&p))?;
        infos.push(ShardInfo {
            path: format!("{name}/{n}"),
            rows,
            bytes: std::fs::metadata(&p).map_err(at_path(&p))?.len(),
            blake3: file_blake3(&p).map_err(at_path(&p))?,
        });
    }
    Ok(infos)
}

/// Swaps `staging` in for `final_dir` (the old one moved aside, then removed).
fn swap_folder(out: &Path, name: &str, staging: &Path, final_dir: &Path) -> std::io::Result<()> {
    let old = out.join(format!(".old-{name}"));
    if final_dir.exists() {
        if old.exists() {
            std::fs::remove_dir_all(&old).map_err(at_path(&old))?;
        }
        std::fs::rename(final_dir, &old).map_err(at_path(final_dir))?;
    }
    std::fs::rename(staging, final_dir).map_err(at_path(final_dir))?;
    if old.exists() {
        std::fs::remove_dir_all(&old).map_err(at_path(&old))?;
    }
    Ok(())
}

/// A shard written by another schema version is refused with a message that says which.
fn check_schema_version(p: &Path, kv: Option<&Vec<KeyValue>>) -> anyhow::Result<()> {
    let found = kv.and_then(|kv| kv.iter().find(|k| k.key == "kibo.schema_version")).and_then(|k| k.value.as_deref());
    match found {
        Some(SCHEMA_VERSION) => Ok(()),
        Some(v) => anyhow::bail!(
            "{}: written with kibo schema version {v}; this kibo reads version {SCHEMA_VERSION} \
             (rerun the stage that wrote it, e.g. `kibo run`)",
            p.display()
        ),
        None => anyhow::bail!("{}: not a kibo table (no kibo.schema_version in its metadata)", p.display()),
    }
}

/// Shorthand for an `Arc`'d schema.
pub fn schema(fields: Vec<arrow_schema::Field>) -> SchemaRef {
    Arc::new(arrow_schema::Schema::new(fields))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::UInt32Array;
    use arrow_schema::{DataType, Field};

    fn one_column() -> (SchemaRef, RecordBatch) {
        let s = schema(vec![Field::new("x", DataType::UInt32, false)]);
        let b = RecordBatch::try_new(s.clone(), vec![Arc::new(UInt32Array::from(vec![1, 2, 3]))]).unwrap();
        (s, b)
    }

    #[test]
    fn an_atomic_write_that_fails_keeps_the_old_file_and_leaves_no_temporary() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.json");
        write_file_atomic(&path, |f| f.write_all(b"old")).unwrap();
        let e = write_file_atomic(&path, |f| {
            f.write_all(b"half")?;
            Err(std::io::Error::other("disk full"))
        })
        .unwrap_err();
        assert!(e.to_string().contains(".report.json.tmp") && e.to_string().contains("disk full"), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("report.json")]);
        write_atomic(dir.path(), "report.json", b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
    }

    #[test]
    fn a_table_of_another_schema_version_is_refused_naming_the_version() {
        let dir = tempfile::tempdir().unwrap();
        let (s, b) = one_column();
        std::fs::create_dir(dir.path().join("t")).unwrap();
        let path = dir.path().join("t/part-00000.parquet");
        let props = WriterProperties::builder()
            .set_key_value_metadata(Some(vec![KeyValue::new("kibo.schema_version".into(), "1".to_string())]))
            .build();
        let mut w = ArrowWriter::try_new(File::create(&path).unwrap(), s, Some(props)).unwrap();
        w.write(&b).unwrap();
        w.close().unwrap();
        let e = read_table(dir.path(), "t", |_| Ok(())).unwrap_err().to_string();
        assert!(e.contains("part-00000.parquet") && e.contains("version 1") && e.contains(SCHEMA_VERSION), "{e}");
    }

    #[test]
    fn partitions_replace_only_their_own_files_and_a_dropped_writer_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (s, b) = one_column();
        let mut w = TableWriter::with_prefix(dir.path(), "t", "a", s.clone(), Default::default()).unwrap();
        w.write(&b).unwrap();
        w.finish().unwrap();
        for _ in 0..2 {
            let mut w = TableWriter::partition(dir.path(), "t", "b", s.clone(), Default::default()).unwrap();
            w.write(&b).unwrap();
            w.finish().unwrap();
        }
        let names = |d: &Path| {
            let mut v: Vec<String> =
                std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
            v.sort();
            v
        };
        assert_eq!(names(&dir.path().join("t")), ["part-a-00000.parquet", "part-b-00000.parquet"]);
        let mut rows = 0;
        read_table(dir.path(), "t", |b| {
            rows += b.num_rows();
            Ok(())
        })
        .unwrap();
        assert_eq!(rows, 6);
        // An error on the way: the writer is dropped unfinished; its staging folder goes.
        let mut w = TableWriter::partition(dir.path(), "t", "b", s, Default::default()).unwrap();
        w.write(&b).unwrap();
        drop(w);
        assert_eq!(names(dir.path()), ["t"]);
        assert_eq!(names(&dir.path().join("t")), ["part-a-00000.parquet", "part-b-00000.parquet"]);
    }
}
