/*!
`.7z` archives, single (`x.7z`) and multi-volume (`x.7z.001`, `x.7z.002`, …: the bytes
of one archive cut in pieces, read here as one stream over the volumes, [`Volumes`]),
through the sevenz-rust2 crate (pure Rust; LZMA, LZMA2, BZip2, PPMd, BCJ filters; no
AES, so an encrypted archive is unreadable).

Members are handed on one at a time as they are decoded ([`for_each_member`]): an archive
of any size is read in the memory of one member plus the decoder's dictionary, which is
capped by the caller (the archive's decompression budget).

A 7z keeps its directory (names, sizes, coders) at its **end**. A truncated archive has
lost it, so its members have no names; what is left are the packed streams from byte 32
on. [`recover`] decodes them as LZMA2 (7-Zip's default coder), stream after stream, and
hands each on nameless until the damage: the caller sniffs what they hold (SGF trees,
dump lines) and keeps every whole game before the cut.

Nothing here knows the walker: it gives names and readers, and takes decisions.
*/

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Bytes before the first packed stream (the signature header).
const SIGNATURE_HEADER: u64 = 32;

/// The 6 signature bytes every 7z starts with.
pub const SIGNATURE: [u8; 6] = [b'7', b'z', 0xBC, 0xAF, 0x27, 0x1C];

/// `.7z.NNN` with NNN a number: a volume of a multi-volume archive; `Some(NNN)`.
pub fn volume_number(name: &str) -> Option<u32> {
    let n = name.to_ascii_lowercase();
    let (stem, num) = n.rsplit_once('.')?;
    if !stem.ends_with(".7z") || num.is_empty() || num.len() > 4 || !num.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    num.parse().ok()
}

/// The volumes of the archive whose first volume is `first` (`x.7z.001`): it, then
/// `x.7z.002`, … while they exist, numbered with as many digits as the first.
pub fn volumes(first: &Path) -> Vec<PathBuf> {
    let name = first.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let Some((stem, num)) = name.rsplit_once('.') else { return vec![first.to_path_buf()] };
    let width = num.len();
    let mut out = vec![first.to_path_buf()];
    for k in 2u32.. {
        let p = first.with_file_name(format!("{stem}.{k:0width$}"));
        if !p.is_file() {
            break;
        }
        out.push(p);
    }
    out
}

/// One seekable stream over files read one after the other (the volumes of an archive).
pub struct Volumes {
    parts: Vec<(std::fs::File, u64)>,
    pos: u64,
    total: u64,
}

impl Volumes {
    /// Opens every file of `paths`, in order.
    pub fn open(paths: &[PathBuf]) -> std::io::Result<Volumes> {
        let mut parts = Vec::new();
        let mut total = 0;
        for p in paths {
            let f = std::fs::File::open(p)?;
            let len = f.metadata()?.len();
            total += len;
            parts.push((f, len));
        }
        Ok(Volumes { parts, pos: 0, total })
    }

    /// Bytes in all volumes.
    pub fn len(&self) -> u64 {
        self.total
    }

    /// No bytes at all.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }
}

impl Read for Volumes {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut start = 0;
        for (f, len) in &mut self.parts {
            if self.pos < start + *len {
                let at = self.pos - start;
                f.seek(SeekFrom::Start(at))?;
                let want = buf.len().min((*len - at) as usize);
                let n = f.read(&mut buf[..want])?;
                self.pos += n as u64;
                return Ok(n);
            }
            start += *len;
        }
        Ok(0)
    }
}

impl Seek for Volumes {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        let target = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::End(d) => self.total.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        let Some(p) = target else {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "seek before the start"));
        };
        self.pos = p;
        Ok(p)
    }
}

/// What the caller wants after a member.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// The next member (what was not read of this one is decoded and checked first).
    Go,
    /// Skip the rest of this member's block (a solid block: the members after it in
    /// the block too), then go on.
    SkipBlock,
    /// Stop reading the archive.
    Stop,
}

/// Why [`for_each_member`] ended early.
#[derive(Debug)]
pub enum Failure {
    /// The archive's directory could not be read (truncated, not a 7z, encrypted,
    /// an unsupported coder): no member was read. [`recover`] may still find data.
    Directory(String),
    /// Decoding broke after `members` members were handed on.
    Damaged { members: u64, last: Option<String>, error: String },
}

/// The most memory the decoder's dictionary (or the directory's buffers) may take: 7-Zip's
/// `-mx9` uses a 64 MiB dictionary. The bytes decoded are bounded by the caller.
pub const MEMORY_LIMIT: u64 = 256 << 20;

/// Hands every file member of a 7z to `each` (its name, declared size and a reader of
/// its bytes), in the archive's order; directories are skipped. The decoder's memory is
/// at most [`MEMORY_LIMIT`].
pub fn for_each_member<R: Read + Seek>(
    source: R,
    each: &mut dyn FnMut(&str, u64, &mut dyn Read) -> Next,
) -> Result<(), Failure> {
    let kb = (MEMORY_LIMIT >> 10) as usize;
    let mut ar = sevenz_rust2::ArchiveReader::new_with_memory_limit(source, sevenz_rust2::Password::empty(), kb)
        .map_err(|e| Failure::Directory(e.to_string()))?;
    ar.set_thread_count(1);
    let (mut members, mut last) = (0u64, None::<String>);
    let r = ar.for_each_entries_with_decision(|entry, r| {
        if entry.is_directory || entry.is_anti_item {
            return Ok(sevenz_rust2::EntryDecision::Continue);
        }
        members += 1;
        last = Some(entry.name.clone());
        Ok(match each(&entry.name, entry.size, r) {
            Next::Go => sevenz_rust2::EntryDecision::Continue,
            Next::SkipBlock => sevenz_rust2::EntryDecision::SkipBlock,
            Next::Stop => sevenz_rust2::EntryDecision::Stop,
        })
    });
    r.map_err(|e| Failure::Damaged { members, last, error: e.to_string() })
}

/// What [`recover`] found.
#[derive(Debug, PartialEq, Eq)]
pub struct Recovered {
    /// Streams handed on (whole or cut).
    pub streams: u32,
    /// Why decoding stopped, `None` at a clean end of the data.
    pub error: Option<String>,
}

/// The packed streams of a 7z whose directory is lost (a truncated archive), decoded as
/// LZMA2 from byte 32 on, one stream after another, each handed to `each` (1-based
/// number, reader) until one cannot be decoded or `each` says [`Next::Stop`].
/// `dict_limit` caps the dictionary (the caller's budget: a stream never needs more
/// than the bytes it decodes to). Returns `None` when the bytes do not start like a 7z.
pub fn recover<R: Read + Seek>(
    mut source: R,
    dict_limit: u64,
    each: &mut dyn FnMut(u32, &mut dyn Read) -> Next,
) -> Option<Recovered> {
    let mut sig = [0u8; 6];
    source.seek(SeekFrom::Start(0)).ok()?;
    source.read_exact(&mut sig).ok()?;
    if sig != SIGNATURE {
        return None;
    }
    let end = source.seek(SeekFrom::End(0)).ok()?;
    let mut at = SIGNATURE_HEADER;
    let dict = dict_limit.clamp(4096, 64 << 20) as u32;
    let mut streams = 0u32;
    while at < end {
        if source.seek(SeekFrom::Start(at)).is_err() {
            break;
        }
        // A stream starts with a chunk that resets the dictionary (LZMA2 control 0x01 or
        // 0xE0..=0xFF); anything else is not a packed LZMA2 stream (the directory, or
        // another coder), and ends the recovery.
        let mut first = [0u8; 1];
        if source.read_exact(&mut first).is_err() || !(first[0] == 1 || first[0] >= 0xE0) {
            break;
        }
        source.seek(SeekFrom::Start(at)).ok()?;
        streams += 1;
        let mut counted = Counting { inner: &mut source, n: 0 };
        let mut dec = lzma_rust2::Lzma2Reader::new(&mut counted, dict, None);
        let mut failed = None;
        let mut guarded = Guard { inner: &mut dec, error: &mut failed };
        let next = each(streams, &mut guarded);
        // What the caller left unread is decoded (and checked) to find the stream's end.
        if failed.is_none() && next != Next::Stop {
            if let Err(e) = std::io::copy(&mut dec, &mut std::io::sink()) {
                failed = Some(e.to_string());
            }
        }
        if failed.is_some() || next == Next::Stop {
            return Some(Recovered { streams, error: failed });
        }
        at += counted.n;
    }
    Some(Recovered { streams, error: None })
}

/// Counts the bytes read through it.
struct Counting<R> {
    inner: R,
    n: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.n += n as u64;
        Ok(n)
    }
}

/// Passes reads on and remembers the first error.
struct Guard<'a, R> {
    inner: R,
    error: &'a mut Option<String>,
}

impl<R: Read> Read for Guard<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.inner.read(buf).inspect_err(|e| {
            self.error.get_or_insert_with(|| e.to_string());
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn volume_names() {
        assert_eq!(volume_number("x.7z.001"), Some(1));
        assert_eq!(volume_number("X.7Z.012"), Some(12));
        assert_eq!(volume_number("x.7z"), None);
        assert_eq!(volume_number("x.zip.001"), None);
        let dir = tempfile::tempdir().unwrap();
        for n in ["a.7z.001", "a.7z.002", "a.7z.004"] {
            std::fs::write(dir.path().join(n), n).unwrap();
        }
        let v = volumes(&dir.path().join("a.7z.001"));
        assert_eq!(v.len(), 2, "stops at the first gap: {v:?}");
        let mut all = Volumes::open(&v).unwrap();
        let mut s = String::new();
        all.read_to_string(&mut s).unwrap();
        assert_eq!(s, "a.7z.001a.7z.002");
        all.seek(SeekFrom::End(-3)).unwrap();
        s.clear();
        all.read_to_string(&mut s).unwrap();
        assert_eq!(s, "002");
    }

    /// Damaged archives end: bytes overwritten anywhere (directory intact or not) and
    /// cuts anywhere, through both readers, all within a minute (a decoder that spins on
    /// damaged data would hang the walk of a whole corpus).
    #[test]
    fn damaged_archives_end() {
        let texts: Vec<(String, Vec<u8>)> = (0..24)
            .map(|i| {
                (
                    format!("{i:02}.sgf"),
                    format!("(;GM[1]SZ[19]C[{}];B[pd];W[dp])", "ab".repeat(50 + 40 * i)).into_bytes(),
                )
            })
            .collect();
        let files: Vec<(&str, &[u8])> = texts.iter().map(|(n, d)| (n.as_str(), d.as_slice())).collect();
        let archives =
            [super::super::tests::sevenz_bytes(&files, false), super::super::tests::sevenz_bytes(&files, true)];
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
            let mut rnd = move || {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as usize
            };
            let mut cases = 0;
            for a in &archives {
                for _ in 0..200 {
                    let mut b = a.clone();
                    let at = 6 + rnd() % (b.len() - 6);
                    for v in b.iter_mut().skip(at).take(1 + rnd() % 32) {
                        *v = rnd() as u8;
                    }
                    if rnd() % 2 == 0 {
                        b.truncate(at + rnd() % (b.len() - at));
                    }
                    let _ = for_each_member(std::io::Cursor::new(&b), &mut |_, _, r| {
                        let _ = std::io::copy(r, &mut std::io::sink());
                        Next::Go
                    });
                    let _ = recover(std::io::Cursor::new(&b), 1 << 20, &mut |_, r| {
                        let _ = std::io::copy(r, &mut std::io::sink());
                        Next::Go
                    });
                    cases += 1;
                }
            }
            let _ = tx.send(cases);
        });
        let done = rx.recv_timeout(std::time::Duration::from_secs(60));
        assert_eq!(done, Ok(400), "a damaged archive did not end within a minute (or a reader panicked)");
    }
}
