/*!
The dump index's records on disk, once they pass its share of `pipeline.memory_mb`
([`super::dump::DumpIndex`]): sorted runs written as the index fills, merged at the end
of the index pass into one sorted file, of which only every [`BLOCK`]-th key stays in
memory. A lookup reads one block.

A record is `(scope, id)` and an opaque payload (the entry, encoded by the caller). When
the same key is in several runs the earliest run's record is kept, as the in-memory
index keeps the first entry it meets, so the join is the same whatever the budget.

On disk a record is `id length (u32 LE) | payload length (u32 LE) | scope (u32 LE) | id | payload`.
*/

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Records per block of the merged file: one key of each block stays in memory.
pub const BLOCK: usize = 64;

/// Most runs merged at once (open files, and their read buffers of 64 KiB each).
const FAN_IN: usize = 64;

/// One record read back: its key and payload.
type Record = ((u32, String), Vec<u8>);

/// The spilled part of a dump index: runs, then one merged file.
#[derive(Debug)]
pub struct Spill {
    dir: tempfile::TempDir,
    runs: Vec<PathBuf>,
    merged: Option<Merged>,
    /// Bytes written to spill files (runs, merges and the merged file).
    pub bytes_written: u64,
}

#[derive(Debug)]
struct Merged {
    file: File,
    /// The first key of each block and its offset.
    keys: Vec<((u32, String), u64)>,
    len: u64,
    buf: Vec<u8>,
}

fn put_record(w: &mut impl Write, scope: u32, id: &str, payload: &[u8]) -> std::io::Result<u64> {
    w.write_all(&(id.len() as u32).to_le_bytes())?;
    w.write_all(&(payload.len() as u32).to_le_bytes())?;
    w.write_all(&scope.to_le_bytes())?;
    w.write_all(id.as_bytes())?;
    w.write_all(payload)?;
    Ok(12 + id.len() as u64 + payload.len() as u64)
}

/// The next record of `r`, `None` at its end.
fn get_record(r: &mut impl Read) -> std::io::Result<Option<Record>> {
    let mut head = [0u8; 12];
    match r.read_exact(&mut head) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let word = |i: usize| u32::from_le_bytes([head[i], head[i + 1], head[i + 2], head[i + 3]]);
    let (id_len, payload_len, scope) = (word(0) as usize, word(4) as usize, word(8));
    let mut id = vec![0u8; id_len];
    r.read_exact(&mut id)?;
    let id = String::from_utf8(id).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
    let mut payload = vec![0u8; payload_len];
    r.read_exact(&mut payload)?;
    Ok(Some(((scope, id), payload)))
}

/// Merges sorted runs (earliest first) into `out`, keeping the earliest run's record of
/// a key; `keys` gets every [`BLOCK`]-th key and its offset. Returns the records
/// dropped as duplicates and the bytes written.
fn merge(
    runs: &[PathBuf],
    out: &Path,
    mut keys: Option<&mut Vec<((u32, String), u64)>>,
) -> std::io::Result<(u64, u64)> {
    let mut readers = runs
        .iter()
        .map(|p| File::open(p).map(|f| BufReader::with_capacity(1 << 16, f)))
        .collect::<std::io::Result<Vec<_>>>()?;
    let mut heads: Vec<Option<Vec<u8>>> = vec![None; readers.len()];
    let mut heap = BinaryHeap::new();
    for (i, r) in readers.iter_mut().enumerate() {
        if let Some((key, payload)) = get_record(r)? {
            heads[i] = Some(payload);
            heap.push(Reverse((key, i)));
        }
    }
    let mut w = BufWriter::with_capacity(1 << 16, File::create(out)?);
    let (mut written, mut records, mut dropped) = (0u64, 0usize, 0u64);
    let mut last: Option<(u32, String)> = None;
    while let Some(Reverse((key, i))) = heap.pop() {
        let payload = heads[i].take().expect("invariant: a run in the heap has its head");
        if last.as_ref() == Some(&key) {
            dropped += 1;
        } else {
            if records.is_multiple_of(BLOCK) {
                if let Some(k) = keys.as_deref_mut() {
                    k.push((key.clone(), written));
                }
            }
            written += put_record(&mut w, key.0, &key.1, &payload)?;
            records += 1;
            last = Some(key);
        }
        if let Some((next, payload)) = get_record(&mut readers[i])? {
            heads[i] = Some(payload);
            heap.push(Reverse((next, i)));
        }
    }
    w.into_inner().map_err(|e| e.into_error())?.flush()?;
    Ok((dropped, written))
}

impl Spill {
    /// A spill in a new scratch folder `.tmp-dump-index-*` under `parent` (removed when the
    /// spill is dropped; after a crash, by the next run's `storage::clean_stale`).
    pub fn new(parent: &Path) -> std::io::Result<Spill> {
        std::fs::create_dir_all(parent)?;
        let dir = tempfile::Builder::new().prefix(".tmp-dump-index-").tempdir_in(parent)?;
        Ok(Spill { dir, runs: Vec::new(), merged: None, bytes_written: 0 })
    }

    /// Writes one run: `records` sorted by key, with no key twice.
    pub fn write_run<'a>(&mut self, records: impl Iterator<Item = (u32, &'a str, &'a [u8])>) -> std::io::Result<()> {
        let path = self.dir.path().join(format!("run-{:06}", self.runs.len()));
        let mut w = BufWriter::with_capacity(1 << 16, File::create(&path)?);
        for (scope, id, payload) in records {
            self.bytes_written += put_record(&mut w, scope, id, payload)?;
        }
        w.into_inner().map_err(|e| e.into_error())?.flush()?;
        self.runs.push(path);
        Ok(())
    }

    /// Merges every run into one file, ready for [`Spill::get`]; returns the records
    /// dropped as duplicates (a key already in an earlier run).
    pub fn finish(&mut self) -> std::io::Result<u64> {
        let mut dropped = 0;
        let mut generation = 0;
        while self.runs.len() > FAN_IN {
            let out = self.dir.path().join(format!("merge-{generation:06}"));
            generation += 1;
            let (d, bytes) = merge(&self.runs[..FAN_IN], &out, None)?;
            dropped += d;
            self.bytes_written += bytes;
            for p in self.runs.drain(..FAN_IN) {
                std::fs::remove_file(p)?;
            }
            // The merged runs are the earliest: their result stays first.
            self.runs.insert(0, out);
        }
        let out = self.dir.path().join("merged");
        let mut keys = Vec::new();
        let (d, bytes) = merge(&self.runs, &out, Some(&mut keys))?;
        dropped += d;
        self.bytes_written += bytes;
        for p in self.runs.drain(..) {
            std::fs::remove_file(p)?;
        }
        let file = File::open(&out)?;
        let len = file.metadata()?.len();
        self.merged = Some(Merged { file, keys, len, buf: Vec::new() });
        Ok(dropped)
    }

    /// Bytes the merged file's keys take in memory.
    pub fn key_bytes(&self) -> usize {
        self.merged.as_ref().map_or(0, |m| m.keys.iter().map(|k| k.0 .1.len() + 40).sum())
    }

    /// The payload of `(scope, id)` (after [`Spill::finish`]).
    pub fn get(&mut self, scope: u32, id: &str) -> std::io::Result<Option<Vec<u8>>> {
        let Some(m) = self.merged.as_mut() else { return Ok(None) };
        let at = m.keys.partition_point(|((s, i), _)| (*s, i.as_str()) <= (scope, id));
        if at == 0 {
            return Ok(None);
        }
        let start = m.keys[at - 1].1;
        let end = m.keys.get(at).map_or(m.len, |k| k.1);
        m.buf.resize((end - start) as usize, 0);
        m.file.seek(SeekFrom::Start(start))?;
        m.file.read_exact(&mut m.buf)?;
        let mut r = &m.buf[..];
        while let Some(((s, i), payload)) = get_record(&mut r)? {
            if (s, i.as_str()) == (scope, id) {
                return Ok(Some(payload));
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_merge_with_the_earliest_record_kept_and_every_key_found() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Spill::new(dir.path()).unwrap();
        // 150 runs (more than FAN_IN, so a first merge generation runs), each sorted;
        // key k appears in runs k % 7 .. and the earliest run's payload must win.
        let mut first: std::collections::BTreeMap<(u32, String), Vec<u8>> = Default::default();
        let mut total = 0u64;
        for run in 0..150u32 {
            let mut recs: Vec<(u32, String, Vec<u8>)> = (0..40u32)
                .map(|j| {
                    let k = (run * 13 + j * 31) % 997;
                    (k % 3, format!("id{k}"), format!("run{run}-{k}").into_bytes())
                })
                .collect();
            recs.sort();
            recs.dedup_by(|a, b| (a.0, &a.1) == (b.0, &b.1));
            for (sc, id, p) in &recs {
                first.entry((*sc, id.clone())).or_insert_with(|| p.clone());
                total += 1;
            }
            s.write_run(recs.iter().map(|(sc, id, p)| (*sc, id.as_str(), p.as_slice()))).unwrap();
        }
        let dropped = s.finish().unwrap();
        assert_eq!(dropped, total - first.len() as u64);
        for ((sc, id), p) in &first {
            assert_eq!(s.get(*sc, id).unwrap().as_ref(), Some(p), "{sc} {id}");
        }
        assert_eq!(s.get(0, "id1").unwrap(), None, "id1 has scope 1");
        assert_eq!(s.get(9, "id3").unwrap(), None);
        assert_eq!(s.get(0, "").unwrap(), None);
        assert_eq!(std::fs::read_dir(s.dir.path()).unwrap().count(), 1, "only the merged file is left");
        let scratch = s.dir.path().to_path_buf();
        drop(s);
        assert!(!scratch.exists(), "the scratch folder goes with the spill");
    }
}
