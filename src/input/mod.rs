/*!
Input discovery: walk files and folders, read archives **as streams**, and hand every
SGF document found to a callback, in a deterministic order.

Memory: an archive on disk is read as it comes (tar, gzip, bzip2 streams; a zip from its
file), one member at a time; a `.sgfs` line by line; a multi-game `.sgf` over
[`Limits::max_member_bytes`] in parts of whole game trees ([`Item::SgfPart`]). So an
input of any size is read in the memory of one member (or one part, or one line), and a
truncated or corrupt stream keeps everything complete before the damage.

What is read:
* plain files ending in `.sgf` (single or multi-game) and `.sgfs` (one game per line);
  `.gib`, `.ngf`, `.ugf`, `.ugi` are documents like an `.sgf` (read by `crate::formats`);
* `.zip`, `.tar`, `.tar.gz`/`.tgz`, `.tar.bz2`/`.tbz2`/`.tbz`, and single-file `.gz`/`.bz2`,
  nested inside folders or inside other archives (up to [`Limits::max_nesting`] deep);
* anything else is skipped and counted, never an error.

Nothing is ever extracted to disk, so member names such as `../../x` cannot write
anywhere: they are only labels. Folders are walked with `walkdir`, sorted by file
name, following symlinks with loop detection. Member sizes are capped
([`Limits::max_member_bytes`]) and so is the total bytes one archive may inflate to
([`Limits::max_archive_bytes`]), which guards against decompression bombs and zips
whose size headers lie (the cap is enforced on the bytes actually read).

A damaged archive (truncated `.tar.gz`, bad zip entry) keeps every member read before
the damage and reports the rest as one [`Item::Unreadable`].
*/

pub mod dump;
mod dump_spill;
pub mod sevenz;
mod walk_7z;
mod walk_dump;

use std::io::{BufRead, Cursor, Read};
use std::path::{Path, PathBuf};

/// Size limits applied while reading inputs.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// Largest single file or archive member read, in bytes (after decompression).
    pub max_member_bytes: u64,
    /// Most bytes one archive (with everything nested in it) may decompress to.
    pub max_archive_bytes: u64,
    /// Deepest nesting of archives inside archives.
    pub max_nesting: u32,
    /// Most bytes a file may decompress to per byte on disk (decompression bomb guard; SGF
    /// archives inflate 4–10×). The budget of a file is `max(max_ratio × its size, 1 MiB)`,
    /// and never more than `max_archive_bytes`.
    pub max_ratio: u64,
    /// Most nodes in one game tree; a larger tree is a `too_large` reject.
    pub max_nodes: u32,
    /// Deepest nesting of variations in one game tree; deeper is a `too_large` reject.
    pub max_variation_depth: u32,
    /// Most bytes the index of the one-line dumps may hold (set from the dump index's
    /// share of `pipeline.memory_mb`, `Config::memory`; not a pipeline key).
    #[serde(skip)]
    pub dump_index_bytes: u64,
    /// Where the dump index spills past `dump_index_bytes` (a scratch folder is made
    /// under it); `None`: the system's temporary folder. Not a pipeline key.
    #[serde(skip)]
    pub dump_spill_dir: Option<PathBuf>,
}

impl Default for Limits {
    fn default() -> Self {
        let p = crate::sgf::ParseLimits::default();
        Limits {
            max_member_bytes: 64 << 20,
            // Archives are streamed: the ratio guard (`max_ratio`) is what stops a bomb;
            // this absolute cap only bounds the time spent on one input.
            max_archive_bytes: 1 << 40,
            max_nesting: 4,
            max_ratio: 1000,
            max_nodes: p.max_nodes,
            max_variation_depth: p.max_depth,
            dump_index_bytes: 64 << 20,
            dump_spill_dir: None,
        }
    }
}

impl Limits {
    /// The SGF parser's share of the limits.
    pub fn parse_limits(&self) -> crate::sgf::ParseLimits {
        crate::sgf::ParseLimits { max_nodes: self.max_nodes, max_depth: self.max_variation_depth }
    }
}

/// Where a document came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The file on disk (as a display string; non-UTF-8 bytes are replaced).
    pub file: String,
    /// Path inside the archive(s), nested levels joined by `!/`; `None` for plain files.
    pub member: Option<String>,
}

impl Location {
    /// `file` or `file!member`.
    pub fn display(&self) -> String {
        match &self.member {
            Some(m) => format!("{}!{}", self.file, m),
            None => self.file.clone(),
        }
    }
}

/// One thing found while walking the inputs.
#[derive(Debug)]
pub enum Item {
    /// An SGF document (`.sgf`): may hold several games.
    Sgf { loc: Location, bytes: Vec<u8> },
    /// A part of a multi-game `.sgf` collection larger than `max_member_bytes`: whole game
    /// trees, read as a stream. `first_game` is the index of its first tree in the whole
    /// document and `base_offset` the byte offset of the part in it.
    SgfPart { loc: Location, bytes: Vec<u8>, first_game: u32, base_offset: u64 },
    /// One line of a `.sgfs` file: one game. `line` is 1-based. A line of a one-line
    /// dump comes as the SGF document it makes with its index entry, and `quirks` say
    /// what the join assumed or found ([`dump::to_sgf`]); empty for `.sgfs`. `dump`: the
    /// line came from a one-line dump (the games table's format `dump`).
    SgfLine { loc: Location, line: u32, bytes: Vec<u8>, quirks: Vec<&'static str>, dump: bool },
    /// A file that is not SGF and not an archive: skipped and counted.
    Skipped { loc: Location },
    /// A file or member that could not be read, or the damaged rest of an archive.
    Unreadable { loc: Location, error: String },
    /// Something read but left out for a reason of its own (`reason`: a reject reason's
    /// name, such as `bad_dump_line`).
    Refused { loc: Location, reason: &'static str, error: String },
    /// A file on disk was read (for the manifest): its size and blake3.
    FileRead { path: String, bytes: u64, blake3: String },
}

/// What kind of content a name (or its first bytes) announces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Sgf,
    Sgfs,
    Zip,
    Tar,
    TarGz,
    TarBz2,
    Gz,
    Bz2,
    /// `.7z`, or the first volume of a multi-volume one (`.7z.001`).
    SevenZ,
    /// A later volume (`.7z.002`, …): read with the first one.
    SevenZVolume,
    /// A dump index (`*.index`): read before the walk ([`walk_dump`]).
    Index,
    /// Anything else: skipped, unless its content is a one-line dump.
    Other,
}

fn kind_of(name: &str) -> Kind {
    let n = name.to_ascii_lowercase();
    // Tygem, WBaduk and IGS records are documents like an SGF: `crate::formats` reads them.
    if n.ends_with(".sgf") || [".gib", ".ngf", ".ugf", ".ugi"].iter().any(|e| n.ends_with(e)) {
        Kind::Sgf
    } else if n.ends_with(".sgfs") {
        Kind::Sgfs
    } else if n.ends_with(".zip") {
        Kind::Zip
    } else if n.ends_with(".tar") {
        Kind::Tar
    } else if n.ends_with(".tar.gz") || n.ends_with(".tgz") {
        Kind::TarGz
    } else if n.ends_with(".tar.bz2") || n.ends_with(".tbz2") || n.ends_with(".tbz") {
        Kind::TarBz2
    } else if n.ends_with(".gz") {
        Kind::Gz
    } else if n.ends_with(".bz2") {
        Kind::Bz2
    } else if n.ends_with(".7z") || sevenz::volume_number(&n) == Some(1) {
        Kind::SevenZ
    } else if sevenz::volume_number(&n).is_some() {
        Kind::SevenZVolume
    } else if n.ends_with(".index") {
        Kind::Index
    } else {
        Kind::Other
    }
}

/// Reads up to `limit` bytes; errors if there is more.
fn read_capped(r: &mut dyn Read, limit: u64, hint: u64) -> std::io::Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(hint.min(limit).min(16 << 20) as usize);
    let n = r.take(limit + 1).read_to_end(&mut buf)?;
    if n as u64 > limit {
        return Err(std::io::Error::new(std::io::ErrorKind::FileTooLarge, format!("larger than {limit} bytes")));
    }
    Ok(buf)
}

/// Counts and hashes what is read through it (a file on disk read as a stream).
struct Hashing<R> {
    inner: R,
    hasher: blake3::Hasher,
    bytes: u64,
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }
}

/// What [`read_line_capped`] found.
#[derive(Debug, PartialEq, Eq)]
enum Line {
    /// The end of the stream, nothing read.
    End,
    /// A line (without its `\n`) is in the buffer.
    Full,
    /// A line longer than the cap was skipped to its end.
    TooLong,
}

/// Reads one `\n`-terminated line into `out` (cleared first), at most `cap` bytes of it;
/// a longer line is consumed to its end and reported as [`Line::TooLong`]. Returns what
/// was found and the bytes consumed. Memory: the line, never more than `cap`.
fn read_line_capped(r: &mut impl BufRead, out: &mut Vec<u8>, cap: u64) -> std::io::Result<(Line, u64)> {
    out.clear();
    let (mut consumed, mut too_long) = (0u64, false);
    loop {
        let avail = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            let found = if consumed == 0 {
                Line::End
            } else if too_long {
                Line::TooLong
            } else {
                Line::Full
            };
            return Ok((found, consumed));
        }
        let (chunk, newline) = match avail.iter().position(|&b| b == b'\n') {
            Some(i) => (&avail[..i], true),
            None => (avail, false),
        };
        if !too_long {
            if (out.len() + chunk.len()) as u64 > cap {
                too_long = true;
                out.clear();
            } else {
                out.extend_from_slice(chunk);
            }
        }
        let n = chunk.len() + newline as usize;
        consumed += n as u64;
        r.consume(n);
        if newline {
            return Ok((if too_long { Line::TooLong } else { Line::Full }, consumed));
        }
    }
}

/// Reads up to `limit` bytes: `Ok(Ok(all))`, or `Ok(Err(first limit + 1 bytes))` when
/// there is more (the caller may go on streaming from there).
fn read_or_overflow(r: &mut dyn Read, limit: u64, hint: u64) -> std::io::Result<Result<Vec<u8>, Vec<u8>>> {
    let mut buf = Vec::with_capacity(hint.min(limit).min(16 << 20) as usize);
    let n = r.take(limit + 1).read_to_end(&mut buf)?;
    Ok(if n as u64 > limit { Err(buf) } else { Ok(buf) })
}

/// Finds where top-level game trees end in SGF text, byte by byte: parentheses outside
/// property values (`[...]`, with `\` escapes) open and close trees.
#[derive(Default)]
struct TreeSplitter {
    depth: u32,
    in_value: bool,
    escape: bool,
    /// Top-level trees opened so far.
    trees: u32,
}

impl TreeSplitter {
    /// Feeds one byte; returns `true` when it closes a top-level tree.
    #[inline]
    fn step(&mut self, b: u8) -> bool {
        if self.in_value {
            if self.escape {
                self.escape = false;
            } else if b == b'\\' {
                self.escape = true;
            } else if b == b']' {
                self.in_value = false;
            }
            return false;
        }
        match b {
            b'[' if self.depth > 0 => self.in_value = true,
            b'(' => {
                self.trees += u32::from(self.depth == 0);
                self.depth += 1;
            }
            b')' if self.depth > 0 => {
                self.depth -= 1;
                return self.depth == 0;
            }
            _ => {}
        }
        false
    }
}

/// What [`Walker::read_member`] did with a member.
enum Member {
    /// Read whole.
    Bytes(Vec<u8>),
    /// Streamed to the sink in parts (a large `.sgf`).
    Streamed(Streamed),
    /// Could not be read (over a limit, or a read error).
    Failed(std::io::Error),
}

/// How a streamed `.sgfs` document ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Streamed {
    /// Read to its end.
    Whole,
    /// A read error: the stream is damaged from there on.
    Damaged,
    /// The archive's budget ran out (the stream itself is fine).
    OverBudget,
}

/// The location of line `line` of a `.sgfs` document (as the filter stage names it).
fn line_loc(loc: &Location, line: u32) -> Location {
    let member = match &loc.member {
        Some(m) => format!("{m}#L{line}"),
        None => format!("#L{line}"),
    };
    Location { file: loc.file.clone(), member: Some(member) }
}

/// Walks inputs and reports items through a callback.
pub struct Walker<'a, F: FnMut(Item)> {
    limits: &'a Limits,
    sink: F,
    /// Bytes decompressed so far inside the current top-level archive.
    archive_bytes: u64,
    /// Most bytes the current top-level file may decompress to (`max_archive_bytes`, or
    /// less by `max_ratio`).
    archive_budget: u64,
    /// The budget is set by `max_ratio` (for the error message).
    budget_by_ratio: bool,
    /// Size on disk of the current top-level file.
    file_bytes: u64,
    /// Entries (files and unreadable entries) of the walk seen so far, across inputs.
    ordinal: u64,
    /// Only the entries whose ordinal is in this range are read (a part of the corpus).
    select: Option<std::ops::Range<u64>>,
    /// The dump indexes of the input tree, read before the walk ([`walk_dump`]).
    index: dump::DumpIndex,
    /// What the index pass found wrong in an index file, handed on when the walk
    /// reaches that file.
    notes: Vec<(PathBuf, Item)>,
}

/// Walks every input path (files or folders) in order and calls `sink` for each item.
/// Folders are walked sorted by name. A missing path is reported as `Unreadable`.
pub fn walk<F: FnMut(Item)>(inputs: &[PathBuf], limits: &Limits, sink: F) {
    walk_part(inputs, limits, &mut 0, None, sink);
}

/// [`walk`], reading only the entries whose ordinal (their place in the walk: files and
/// unreadable entries, counted from `*ordinal` on, across `inputs`) lies in `select`;
/// `*ordinal` is advanced past the entries walked. This is how a part of the corpus is
/// read alone (the Spark map side): the parts of one walk, read in order, give exactly
/// the items of the whole walk.
pub fn walk_part<F: FnMut(Item)>(
    inputs: &[PathBuf],
    limits: &Limits,
    ordinal: &mut u64,
    select: Option<std::ops::Range<u64>>,
    sink: F,
) {
    let mut w = Walker {
        limits,
        sink,
        archive_bytes: 0,
        archive_budget: 0,
        budget_by_ratio: false,
        file_bytes: 0,
        ordinal: *ordinal,
        select,
        index: dump::DumpIndex::default(),
        notes: Vec::new(),
    };
    for input in inputs {
        w.build_index(std::slice::from_ref(input));
        w.walk_path(input);
    }
    *ordinal = w.ordinal;
}

/// The entries of a walk of `inputs` in walk order (the ordinals of [`walk_part`]), each
/// with its size on disk (0 for an entry that cannot be read), without reading them.
pub fn list_entries(inputs: &[PathBuf]) -> Vec<u64> {
    let mut sizes = Vec::new();
    for input in inputs {
        for entry in walkdir::WalkDir::new(input).follow_links(true).sort_by_file_name() {
            match entry {
                Ok(e) if e.file_type().is_dir() => {}
                Ok(e) => sizes.push(std::fs::metadata(e.path()).map_or(0, |m| m.len())),
                Err(_) => sizes.push(0),
            }
        }
    }
    sizes
}

impl<'a, F: FnMut(Item)> Walker<'a, F> {
    fn walk_path(&mut self, input: &Path) {
        let wd = walkdir::WalkDir::new(input).follow_links(true).sort_by_file_name();
        for entry in wd {
            if entry.as_ref().is_ok_and(|e| e.file_type().is_dir()) {
                continue;
            }
            self.ordinal += 1;
            if self.select.as_ref().is_some_and(|r| !r.contains(&(self.ordinal - 1))) {
                continue;
            }
            match entry {
                Ok(e) => {
                    self.read_file(e.path());
                    self.index_notes(e.path());
                }
                Err(err) => {
                    let path = err.path().unwrap_or(input).to_path_buf();
                    let msg = if let Some(anc) = err.loop_ancestor() {
                        format!("symlink loop back to {}", anc.display())
                    } else if let Some(io) = err.io_error() {
                        io.to_string()
                    } else {
                        err.to_string()
                    };
                    (self.sink)(Item::Unreadable { loc: file_loc(&path), error: msg });
                }
            }
        }
    }

    fn read_file(&mut self, path: &Path) {
        let loc = file_loc(path);
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let kind = kind_of(&name);
        match kind {
            Kind::Other => return self.other_file(path, loc),
            Kind::Index => return self.index_file(path, loc),
            Kind::SevenZ => return self.sevenz_file(path, loc, &name),
            Kind::SevenZVolume => return self.sevenz_volume(path, loc, &name),
            _ => {}
        }
        if kind == Kind::Sgfs {
            self.stream_sgfs_file(path, loc);
            return;
        }
        let on_disk = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        if kind == Kind::Sgf && on_disk > self.limits.max_member_bytes {
            self.stream_sgf_file(path, loc);
            return;
        }
        if kind != Kind::Sgf && on_disk <= self.limits.max_archive_bytes {
            self.stream_archive_file(path, loc, &name, kind, on_disk);
            return;
        }
        let bytes = match std::fs::File::open(path).and_then(|mut f| {
            let len = f.metadata().map(|m| m.len()).unwrap_or(0);
            let limit = if matches!(kind, Kind::Sgf | Kind::Sgfs) {
                self.limits.max_member_bytes
            } else {
                // Compressed archives on disk may be larger than one member.
                self.limits.max_archive_bytes
            };
            read_capped(&mut f, limit, len)
        }) {
            Ok(b) => b,
            Err(e) => {
                let error = if e.kind() == std::io::ErrorKind::FileTooLarge {
                    let which =
                        if matches!(kind, Kind::Sgf | Kind::Sgfs) { "max_member_bytes" } else { "max_archive_bytes" };
                    format!("{e} (limits.{which})")
                } else {
                    e.to_string()
                };
                (self.sink)(Item::Unreadable { loc, error });
                return;
            }
        };
        self.archive_bytes = 0;
        self.file_bytes = bytes.len() as u64;
        let by_ratio = self.limits.max_ratio.saturating_mul(self.file_bytes).max(1 << 20);
        self.archive_budget = self.limits.max_archive_bytes.min(by_ratio);
        self.budget_by_ratio = by_ratio < self.limits.max_archive_bytes;
        (self.sink)(Item::FileRead {
            path: loc.file.clone(),
            bytes: bytes.len() as u64,
            blake3: blake3::hash(&bytes).to_hex().to_string(),
        });
        self.dispatch(loc, &name, bytes, 0);
    }

    /// A `.sgfs` file on disk, read line by line (one game per line): any size, in the
    /// memory of one line. Its size and blake3 are reported after its lines.
    fn stream_sgfs_file(&mut self, path: &Path, loc: Location) {
        self.stream_file(path, loc, Self::stream_sgfs);
    }

    /// A `.sgf` file on disk larger than `max_member_bytes`, streamed in parts of whole
    /// trees; its size and blake3 are reported after its parts.
    fn stream_sgf_file(&mut self, path: &Path, loc: Location) {
        self.stream_file(path, loc, Self::stream_sgf);
    }

    /// Streams a file on disk through `read` (not an archive: no budget), hashing it as it
    /// goes; reports its size and blake3 when it was read to its end.
    fn stream_file(
        &mut self,
        path: &Path,
        loc: Location,
        read: fn(&mut Self, &Location, &mut dyn Read, bool) -> Streamed,
    ) {
        let f = match std::fs::File::open(path) {
            Ok(f) => f,
            Err(e) => return (self.sink)(Item::Unreadable { loc, error: e.to_string() }),
        };
        let mut r = Hashing { inner: f, hasher: blake3::Hasher::new(), bytes: 0 };
        (self.archive_bytes, self.archive_budget, self.budget_by_ratio) = (0, u64::MAX, false);
        if read(self, &loc, &mut r, false) == Streamed::Whole {
            let item =
                Item::FileRead { path: loc.file, bytes: r.bytes, blake3: r.hasher.finalize().to_hex().to_string() };
            (self.sink)(item);
        }
    }

    /// An archive on disk, read as a stream (zip: from the file, which it seeks in): its
    /// members go to the sink one at a time, so an archive of any size is read in the
    /// memory of one member. Its size and blake3 follow its members.
    fn stream_archive_file(&mut self, path: &Path, loc: Location, name: &str, kind: Kind, on_disk: u64) {
        let open = |p: &Path| std::fs::File::open(p).map(std::io::BufReader::new);
        let f = match open(path) {
            Ok(f) => f,
            Err(e) => return (self.sink)(Item::Unreadable { loc, error: e.to_string() }),
        };
        self.set_budget(on_disk);
        let file = loc.file.clone();
        // The file's size and blake3, hashed as it is read (zip: a second sequential read).
        let hash_rest = |h: &mut Hashing<_>| std::io::copy(h, &mut std::io::sink()).map(|_| ());
        let read = if kind == Kind::Zip {
            self.read_zip(loc, f, 0);
            open(path).and_then(|f| {
                let mut h = Hashing { inner: f, hasher: blake3::Hasher::new(), bytes: 0 };
                hash_rest(&mut h).map(|_| (h.bytes, h.hasher.finalize()))
            })
        } else {
            let mut h = Hashing { inner: f, hasher: blake3::Hasher::new(), bytes: 0 };
            self.read_stream(loc, name, kind, &mut h, 0);
            // What the archive did not read (tar padding, bytes after a damaged part)
            // still counts in the file's checksum.
            hash_rest(&mut h).map(|_| (h.bytes, h.hasher.finalize()))
        };
        match read {
            Ok((bytes, hash)) => (self.sink)(Item::FileRead { path: file, bytes, blake3: hash.to_hex().to_string() }),
            Err(e) => (self.sink)(Item::Unreadable { loc: file_loc(path), error: e.to_string() }),
        }
    }

    /// Reads a stream to its end for its size and checksum alone (a file read elsewhere:
    /// a dump index, a later volume of a 7z).
    fn read_through(&mut self, _: &Location, r: &mut dyn Read, _: bool) -> Streamed {
        match std::io::copy(r, &mut std::io::sink()) {
            Ok(_) => Streamed::Whole,
            Err(_) => Streamed::Damaged,
        }
    }

    /// Starts the decompression budget of a top-level file of `on_disk` bytes.
    fn set_budget(&mut self, on_disk: u64) {
        self.archive_bytes = 0;
        self.file_bytes = on_disk;
        let by_ratio = self.limits.max_ratio.saturating_mul(on_disk).max(1 << 20);
        self.archive_budget = self.limits.max_archive_bytes.min(by_ratio);
        self.budget_by_ratio = by_ratio < self.limits.max_archive_bytes;
    }

    /// Hands every non-blank line of a `.sgfs` stream to the sink as an [`Item::SgfLine`].
    /// A line longer than `max_member_bytes` is one `Unreadable` item and the next lines
    /// are still read. With `in_archive`, the bytes count against the archive's budget
    /// (the decompression-bomb guard, over the stream). A read error (a truncated or
    /// corrupt stream) keeps every complete line before it and reports the rest as one
    /// `Unreadable` item.
    fn stream_sgfs(&mut self, loc: &Location, r: &mut dyn Read, in_archive: bool) -> Streamed {
        self.stream_lines(loc, r, in_archive, false)
    }

    /// [`Walker::stream_sgfs`] for a one-line dump: each line goes through
    /// [`Walker::dump_line`] (joined to its index entry).
    fn stream_dump(&mut self, loc: &Location, r: &mut dyn Read, in_archive: bool) -> Streamed {
        self.stream_lines(loc, r, in_archive, true)
    }

    /// The lines of a `.sgfs` stream, or of a dump (`dump`).
    fn stream_lines(&mut self, loc: &Location, r: &mut dyn Read, in_archive: bool, dump: bool) -> Streamed {
        let mut r = std::io::BufReader::with_capacity(1 << 16, r);
        let cap = self.limits.max_member_bytes;
        let mut buf = Vec::new();
        let mut line = 0u32;
        loop {
            line += 1;
            let (found, n) = match read_line_capped(&mut r, &mut buf, cap) {
                Ok(x) => x,
                Err(e) => {
                    let error = format!("damaged after line {}: {e}; later lines are lost", line - 1);
                    (self.sink)(Item::Unreadable { loc: loc.clone(), error });
                    return Streamed::Damaged;
                }
            };
            if in_archive {
                self.archive_bytes += n;
                if self.archive_bytes > self.archive_budget {
                    let e = std::io::Error::new(std::io::ErrorKind::FileTooLarge, "archive budget");
                    let error = format!("after line {}: {}", line - 1, self.describe(&e, self.archive_budget));
                    (self.sink)(Item::Unreadable { loc: loc.clone(), error });
                    return Streamed::OverBudget;
                }
            }
            match found {
                Line::End => return Streamed::Whole,
                Line::TooLong => {
                    let error = format!("line {line} is longer than {cap} bytes (limits.max_member_bytes); skipped");
                    (self.sink)(Item::Unreadable { loc: line_loc(loc, line), error });
                }
                Line::Full if buf.iter().all(|b| b.is_ascii_whitespace()) => {}
                Line::Full if dump => self.dump_line(loc, line, &buf),
                Line::Full => (self.sink)(Item::SgfLine {
                    loc: loc.clone(),
                    line,
                    bytes: buf.clone(),
                    quirks: Vec::new(),
                    dump: false,
                }),
            }
        }
    }

    /// A multi-game `.sgf` document larger than `max_member_bytes`, read as a stream and
    /// handed on in parts of whole game trees (each about `max_member_bytes`, as
    /// [`Item::SgfPart`]). A single tree larger than `max_member_bytes` is one
    /// `Unreadable` item and skipped; a read error keeps every complete tree before it.
    fn stream_sgf(&mut self, loc: &Location, r: &mut dyn Read, in_archive: bool) -> Streamed {
        let cap = self.limits.max_member_bytes as usize;
        let mut sp = TreeSplitter::default();
        let (mut part, mut part_start, mut part_game) = (Vec::new(), 0u64, 0u32);
        // Length of `part` up to its last complete tree; start (in `part`) of the open tree.
        let (mut complete, mut tree_start) = (0usize, 0usize);
        let (mut offset, mut skipping, mut parts) = (0u64, false, 0u32);
        let mut block = vec![0u8; 1 << 16];
        loop {
            let n = match r.read(&mut block) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.emit_part(loc, &part[..complete], part_game, part_start, &mut parts);
                    let whole = sp.trees - u32::from(sp.depth > 0);
                    let error = format!("damaged after {whole} complete games: {e}; later games are lost");
                    (self.sink)(Item::Unreadable { loc: loc.clone(), error });
                    return Streamed::Damaged;
                }
            };
            if in_archive {
                self.archive_bytes += n as u64;
                if self.archive_bytes > self.archive_budget {
                    self.emit_part(loc, &part[..complete], part_game, part_start, &mut parts);
                    let e = std::io::Error::new(std::io::ErrorKind::FileTooLarge, "archive budget");
                    let whole = sp.trees - u32::from(sp.depth > 0);
                    let error = format!("after {whole} complete games: {}", self.describe(&e, self.archive_budget));
                    (self.sink)(Item::Unreadable { loc: loc.clone(), error });
                    return Streamed::OverBudget;
                }
            }
            for &b in &block[..n] {
                let was_outside = sp.depth == 0;
                let closed = sp.step(b);
                if !skipping {
                    if was_outside && sp.depth > 0 {
                        tree_start = part.len();
                    }
                    part.push(b);
                }
                offset += 1;
                if closed && skipping {
                    skipping = false;
                    (part_start, part_game) = (offset, sp.trees);
                } else if closed {
                    complete = part.len();
                    if complete >= cap {
                        self.emit_part(loc, &part, part_game, part_start, &mut parts);
                        part.clear();
                        (complete, part_start, part_game) = (0, offset, sp.trees);
                    }
                } else if !skipping && sp.depth > 0 && part.len() - tree_start > cap {
                    // The open tree alone is over the cap: keep what came before, skip it.
                    self.emit_part(loc, &part[..complete], part_game, part_start, &mut parts);
                    let game = sp.trees - 1;
                    let error = format!(
                        "game {game} (at byte {}) is larger than {cap} bytes (limits.max_member_bytes); skipped",
                        part_start + tree_start as u64
                    );
                    (self.sink)(Item::Unreadable { loc: loc.clone(), error });
                    (skipping, complete) = (true, 0);
                    part.clear();
                }
            }
        }
        // The tail: the last trees, or junk after them (kept only if it may hold a tree).
        if !skipping && (parts == 0 || part.contains(&b'(')) {
            self.emit_part(loc, &part, part_game, part_start, &mut parts);
        }
        Streamed::Whole
    }

    /// Hands one part of a streamed `.sgf` document on (nothing when it is empty).
    fn emit_part(&mut self, loc: &Location, bytes: &[u8], first_game: u32, base_offset: u64, parts: &mut u32) {
        if bytes.is_empty() {
            return;
        }
        *parts += 1;
        (self.sink)(Item::SgfPart { loc: loc.clone(), bytes: bytes.to_vec(), first_game, base_offset });
    }

    /// Reads a member (or a file, or `.gz` content) as [`read_capped`] does, except that
    /// an `.sgf` over `max_member_bytes` (when the member cap, not the archive's budget,
    /// is the limit) is streamed in parts of whole trees ([`Walker::stream_sgf`]).
    fn read_member(&mut self, loc: &Location, name: &str, r: &mut dyn Read, limit: u64, hint: u64) -> Member {
        if kind_of(name) != Kind::Sgf || limit < self.limits.max_member_bytes {
            return read_capped(r, limit, hint).map_or_else(Member::Failed, Member::Bytes);
        }
        match read_or_overflow(r, limit, hint) {
            Ok(Ok(d)) => Member::Bytes(d),
            Ok(Err(prefix)) => Member::Streamed(self.stream_sgf(loc, &mut Cursor::new(prefix).chain(r), true)),
            Err(e) => Member::Failed(e),
        }
    }

    /// Handles the content of a file or member according to its name.
    fn dispatch(&mut self, loc: Location, name: &str, bytes: Vec<u8>, depth: u32) {
        let kind = kind_of(name);
        let nests = !matches!(kind, Kind::Sgf | Kind::Sgfs | Kind::Other | Kind::Index | Kind::SevenZVolume);
        if depth > self.limits.max_nesting && nests {
            (self.sink)(Item::Unreadable {
                loc,
                error: format!("archive nested deeper than {} levels", self.limits.max_nesting),
            });
            return;
        }
        match kind {
            Kind::Sgf => (self.sink)(Item::Sgf { loc, bytes }),
            Kind::Sgfs => {
                for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
                    if line.iter().all(|b| b.is_ascii_whitespace()) {
                        continue;
                    }
                    (self.sink)(Item::SgfLine {
                        loc: loc.clone(),
                        line: i as u32 + 1,
                        bytes: line.to_vec(),
                        quirks: Vec::new(),
                        dump: false,
                    });
                }
            }
            Kind::Other => self.other_bytes(loc, bytes),
            Kind::Index => {}
            Kind::SevenZVolume => (self.sink)(Item::Skipped { loc }),
            Kind::SevenZ => self.read_7z(loc, Cursor::new(bytes), depth),
            Kind::Zip => self.read_zip(loc, Cursor::new(bytes), depth),
            Kind::Tar | Kind::TarGz | Kind::TarBz2 | Kind::Gz | Kind::Bz2 => {
                self.read_stream(loc, name, kind, &mut Cursor::new(bytes), depth)
            }
        }
    }

    /// A compressed or tar stream (an archive on disk, or one inside another), read as
    /// it comes: members one at a time, never the whole archive in memory.
    fn read_stream(&mut self, loc: Location, name: &str, kind: Kind, r: &mut dyn Read, depth: u32) {
        match kind {
            Kind::Tar => self.read_tar(loc, r, depth),
            Kind::TarGz => self.read_tar(loc, flate2::read::MultiGzDecoder::new(r), depth),
            Kind::TarBz2 => self.read_tar(loc, bzip2::read::MultiBzDecoder::new(r), depth),
            Kind::Gz | Kind::Bz2 => {
                let inner = name[..name.len() - if kind == Kind::Gz { 3 } else { 4 }].to_string();
                let mut r: Box<dyn Read + '_> = if kind == Kind::Gz {
                    Box::new(flate2::read::MultiGzDecoder::new(r))
                } else {
                    Box::new(bzip2::read::MultiBzDecoder::new(r))
                };
                let limit = self.member_limit();
                let base = inner.rsplit('/').next().unwrap_or(&inner).to_string();
                match kind_of(&inner) {
                    Kind::Sgfs => {
                        let _ = self.stream_sgfs(&nest(&loc, &base), &mut r, true);
                        return;
                    }
                    Kind::Index => return,
                    _ => {}
                }
                // Content of no known kind: a dump is streamed; anything else is read
                // as before (capped; then skipped).
                let mut head = Vec::new();
                if kind_of(&inner) == Kind::Other {
                    let _ = (&mut r).take(4096).read_to_end(&mut head);
                    if dump::looks_like_dump(&head) {
                        let _ = self.stream_dump(&nest(&loc, &base), &mut Cursor::new(head).chain(r), true);
                        return;
                    }
                }
                let mut r = Cursor::new(head).chain(r);
                match self.read_member(&nest(&loc, &base), &inner, &mut r, limit, 0) {
                    Member::Bytes(data) => {
                        self.archive_bytes += data.len() as u64;
                        let member = nest(&loc, &base);
                        self.dispatch(member, &inner, data, depth + 1)
                    }
                    Member::Streamed(_) => {}
                    Member::Failed(e) => {
                        let error = format!("decompressing: {}", self.describe(&e, limit));
                        (self.sink)(Item::Unreadable { loc, error })
                    }
                }
            }
            _ => unreachable!("read_stream is called for tar and compressed kinds only"),
        }
    }

    /// Limit for the next member: the per-member cap, or what is left of the archive's
    /// budget.
    fn member_limit(&self) -> u64 {
        self.limits.max_member_bytes.min(self.archive_budget.saturating_sub(self.archive_bytes))
    }

    /// The message for a failed read of a member whose limit was `limit` bytes.
    fn describe(&self, e: &std::io::Error, limit: u64) -> String {
        if e.kind() != std::io::ErrorKind::FileTooLarge {
            e.to_string()
        } else if limit >= self.limits.max_member_bytes {
            format!("larger than {limit} bytes (limits.max_member_bytes)")
        } else if self.budget_by_ratio {
            format!(
                "the archive decompresses to more than {} bytes, {}× its {} bytes on disk (limits.max_ratio): \
                 decompression bomb guard",
                self.archive_budget, self.limits.max_ratio, self.file_bytes
            )
        } else {
            format!("the archive decompresses to more than {} bytes (limits.max_archive_bytes)", self.archive_budget)
        }
    }

    fn read_zip<R: Read + std::io::Seek>(&mut self, loc: Location, reader: R, depth: u32) {
        let mut zip = match zip::ZipArchive::new(reader) {
            Ok(z) => z,
            Err(e) => {
                (self.sink)(Item::Unreadable { loc, error: format!("not a readable zip: {e}") });
                return;
            }
        };
        for i in 0..zip.len() {
            let limit = self.member_limit();
            let (name, data) = match zip.by_index(i) {
                Ok(mut f) => {
                    if f.is_dir() {
                        continue;
                    }
                    let name = f
                        .name()
                        .map(|n| n.into_owned())
                        .unwrap_or_else(|_| String::from_utf8_lossy(f.name_raw()).into_owned());
                    match kind_of(&name) {
                        Kind::Other => {
                            let _ = self.other_member(&nest(&loc, &name), &mut f);
                            continue;
                        }
                        Kind::Index => continue,
                        Kind::Sgfs => {
                            let _ = self.stream_sgfs(&nest(&loc, &name), &mut f, true);
                            continue;
                        }
                        _ => {}
                    }
                    let hint = f.size();
                    let m = self.read_member(&nest(&loc, &name), &name, &mut f, limit, hint);
                    (name, m)
                }
                Err(e) => {
                    (self.sink)(Item::Unreadable {
                        loc: nest(&loc, &format!("#{i}")),
                        error: format!("zip entry {i}: {e}"),
                    });
                    continue;
                }
            };
            match data {
                Member::Bytes(d) => {
                    self.archive_bytes += d.len() as u64;
                    let mloc = nest(&loc, &name);
                    self.dispatch(mloc, &name, d, depth + 1);
                }
                Member::Streamed(_) => {}
                Member::Failed(e) => {
                    let error = self.describe(&e, limit);
                    (self.sink)(Item::Unreadable { loc: nest(&loc, &name), error })
                }
            }
        }
    }

    fn read_tar<R: Read>(&mut self, loc: Location, reader: R, depth: u32) {
        let mut ar = tar::Archive::new(reader);
        let entries = match ar.entries() {
            Ok(e) => e,
            Err(e) => {
                (self.sink)(Item::Unreadable { loc, error: format!("not a readable tar: {e}") });
                return;
            }
        };
        let mut last_ok: Option<String> = None;
        for entry in entries {
            let mut entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    let after = last_ok.as_deref().map(|n| format!(" after member {n}")).unwrap_or_default();
                    (self.sink)(Item::Unreadable {
                        loc: loc.clone(),
                        error: format!("damaged archive{after}: {e}; later members are lost"),
                    });
                    return;
                }
            };
            if !entry.header().entry_type().is_file() {
                continue;
            }
            let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
            if kind_of(&name) == Kind::Index {
                last_ok = Some(name);
                continue;
            }
            if matches!(kind_of(&name), Kind::Sgfs | Kind::Other) {
                let mloc = nest(&loc, &name);
                let streamed = if kind_of(&name) == Kind::Sgfs {
                    self.stream_sgfs(&mloc, &mut entry, true)
                } else {
                    self.other_member(&mloc, &mut entry)
                };
                if streamed == Streamed::Damaged {
                    (self.sink)(Item::Unreadable {
                        loc: loc.clone(),
                        error: format!("damaged archive in member {name}; later members are lost"),
                    });
                    return;
                }
                last_ok = Some(name);
                continue;
            }
            let limit = self.member_limit();
            let hint = entry.header().size().unwrap_or(0);
            match self.read_member(&nest(&loc, &name), &name, &mut entry, limit, hint) {
                Member::Bytes(d) => {
                    self.archive_bytes += d.len() as u64;
                    let mloc = nest(&loc, &name);
                    self.dispatch(mloc, &name, d, depth + 1);
                    last_ok = Some(name);
                }
                Member::Streamed(Streamed::Damaged) => {
                    (self.sink)(Item::Unreadable {
                        loc: loc.clone(),
                        error: format!("damaged archive in member {name}; later members are lost"),
                    });
                    return;
                }
                Member::Streamed(_) => last_ok = Some(name),
                Member::Failed(e) => {
                    let oversize = e.kind() == std::io::ErrorKind::FileTooLarge;
                    let error = self.describe(&e, limit);
                    (self.sink)(Item::Unreadable { loc: nest(&loc, &name), error });
                    if !oversize {
                        // The stream itself broke: nothing after this can be trusted.
                        (self.sink)(Item::Unreadable {
                            loc: loc.clone(),
                            error: format!("damaged archive after member {name}: {e}; later members are lost"),
                        });
                        return;
                    }
                    last_ok = Some(name);
                }
            }
        }
    }
}

fn file_loc(path: &Path) -> Location {
    Location { file: path.to_string_lossy().into_owned(), member: None }
}

fn nest(loc: &Location, name: &str) -> Location {
    Location {
        file: loc.file.clone(),
        member: Some(match &loc.member {
            Some(m) => format!("{m}!/{name}"),
            None => name.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn collect(paths: &[PathBuf], limits: &Limits) -> Vec<Item> {
        let mut v = Vec::new();
        walk(paths, limits, |i| v.push(i));
        v
    }

    fn tar_bytes(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut b = tar::Builder::new(Vec::new());
        for (name, data) in files {
            let mut h = tar::Header::new_gnu();
            h.set_size(data.len() as u64);
            h.set_mode(0o644);
            h.set_entry_type(tar::EntryType::Regular);
            // set_path refuses `..`; write the raw name bytes to test hostile names.
            let raw = &mut h.as_old_mut().name;
            raw[..name.len()].copy_from_slice(name.as_bytes());
            h.set_cksum();
            b.append(&h, *data).unwrap();
        }
        b.into_inner().unwrap()
    }

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    /// The `(line, bytes)` of the `.sgfs` lines found, and the other items as text.
    fn lines_and_rest(items: &[Item]) -> (Vec<(u32, Vec<u8>)>, Vec<String>) {
        let mut lines = Vec::new();
        let mut rest = Vec::new();
        for i in items {
            match i {
                Item::SgfLine { line, bytes, .. } => lines.push((*line, bytes.clone())),
                Item::Unreadable { loc, error } => rest.push(format!("unreadable {}: {error}", loc.display())),
                Item::FileRead { bytes, .. } => rest.push(format!("read {bytes}")),
                other => rest.push(format!("{other:?}")),
            }
        }
        (lines, rest)
    }

    fn sgfs_text(games: usize) -> Vec<u8> {
        (0..games).map(|i| format!("(;GM[1]SZ[19]C[game {i:04}];B[aa];W[bb])\n")).collect::<String>().into_bytes()
    }

    #[test]
    fn a_sgfs_larger_than_max_member_bytes_is_read_whole_line_by_line() {
        let dir = tempfile::tempdir().unwrap();
        let text = sgfs_text(500); // 20 KB, 40 bytes a line
        let p = dir.path().join("big.sgfs");
        std::fs::write(&p, &text).unwrap();
        let limits = Limits { max_member_bytes: 1000, ..Limits::default() };
        let items = collect(std::slice::from_ref(&p), &limits);
        let (lines, rest) = lines_and_rest(&items);
        assert_eq!(lines.len(), 500);
        assert_eq!(lines[499], (500, b"(;GM[1]SZ[19]C[game 0499];B[aa];W[bb])".to_vec()));
        // The file is listed with its size and checksum after its lines.
        assert_eq!(rest, vec![format!("read {}", text.len())]);
        let Some(Item::FileRead { blake3, .. }) = items.last() else { panic!("FileRead last") };
        assert_eq!(*blake3, blake3::hash(&text).to_hex().to_string());
        // The same inside a .gz and a .tar.gz: the cap applies per line, not per member.
        std::fs::write(dir.path().join("big.sgfs.gz"), gz(&text)).unwrap();
        std::fs::write(dir.path().join("big.tar.gz"), gz(&tar_bytes(&[("a/big.sgfs", &text)]))).unwrap();
        for name in ["big.sgfs.gz", "big.tar.gz"] {
            let (lines, rest) = lines_and_rest(&collect(&[dir.path().join(name)], &limits));
            assert_eq!(lines.len(), 500, "{name}: {rest:?}");
            assert!(rest.iter().all(|r| r.starts_with("read ")), "{name}: {rest:?}");
        }
    }

    #[test]
    fn a_sgfs_line_over_the_cap_is_skipped_and_the_next_lines_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let mut text = sgfs_text(2);
        text.extend(format!("(;C[{}])\n", "x".repeat(5000)).bytes());
        text.extend(sgfs_text(3));
        std::fs::write(dir.path().join("g.sgfs"), &text).unwrap();
        let limits = Limits { max_member_bytes: 1000, ..Limits::default() };
        let (lines, rest) = lines_and_rest(&collect(&[dir.path().join("g.sgfs")], &limits));
        assert_eq!(lines.iter().map(|l| l.0).collect::<Vec<_>>(), vec![1, 2, 4, 5, 6]);
        assert_eq!(rest.len(), 2, "{rest:?}");
        assert!(rest[0].contains("g.sgfs!#L3") && rest[0].contains("longer than 1000 bytes (limits.max_member_bytes)"));
    }

    #[test]
    fn a_truncated_sgfs_stream_keeps_every_complete_game_before_the_damage() {
        let dir = tempfile::tempdir().unwrap();
        let text = sgfs_text(2000);
        let z = gz(&text);
        std::fs::write(dir.path().join("t.sgfs.gz"), &z[..z.len() / 2]).unwrap();
        let (lines, rest) = lines_and_rest(&collect(&[dir.path().join("t.sgfs.gz")], &Limits::default()));
        assert!(lines.len() > 100 && lines.len() < 2000, "{} lines", lines.len());
        // Every line kept is whole and in order.
        for (k, (n, bytes)) in lines.iter().enumerate() {
            assert_eq!(*n as usize, k + 1);
            assert_eq!(*bytes, format!("(;GM[1]SZ[19]C[game {k:04}];B[aa];W[bb])").into_bytes());
        }
        let damaged: Vec<&String> = rest.iter().filter(|r| r.starts_with("unreadable")).collect();
        assert_eq!(damaged.len(), 1, "{rest:?}");
        assert!(damaged[0].contains(&format!("damaged after line {}", lines.len())), "{damaged:?}");
    }

    /// The parts of a streamed `.sgf`: (first game, offset, text), and the other items.
    fn parts_and_rest(items: &[Item]) -> (Vec<(u32, u64, String)>, Vec<String>) {
        let mut parts = Vec::new();
        let mut rest = Vec::new();
        for i in items {
            match i {
                Item::SgfPart { bytes, first_game, base_offset, .. } => {
                    parts.push((*first_game, *base_offset, String::from_utf8(bytes.clone()).unwrap()))
                }
                Item::Sgf { bytes, .. } => parts.push((0, 0, String::from_utf8(bytes.clone()).unwrap())),
                Item::Unreadable { error, .. } => rest.push(format!("unreadable: {error}")),
                Item::FileRead { bytes, .. } => rest.push(format!("read {bytes}")),
                other => rest.push(format!("{other:?}")),
            }
        }
        (parts, rest)
    }

    /// `n` games, the value of each escaping a `)` and a `]` so that only a real parser
    /// state finds where trees end.
    fn collection(n: usize) -> String {
        (0..n).map(|i| format!("(;GM[1]SZ[19]C[g{i:04} \\] :)];B[aa](;W[bb])(;W[cc]))\n")).collect()
    }

    #[test]
    fn a_collection_larger_than_max_member_bytes_is_read_in_parts_of_whole_games() {
        let dir = tempfile::tempdir().unwrap();
        let text = collection(300); // 300 games of 43 bytes: 12.9 KB
        let one = text.len() / 300;
        std::fs::write(dir.path().join("big.sgf"), &text).unwrap();
        std::fs::write(dir.path().join("big.tar.gz"), gz(&tar_bytes(&[("a/big.sgf", text.as_bytes())]))).unwrap();
        let limits = Limits { max_member_bytes: 1000, ..Limits::default() };
        for name in ["big.sgf", "big.tar.gz"] {
            let (parts, rest) = parts_and_rest(&collect(&[dir.path().join(name)], &limits));
            assert!(rest.iter().all(|r| r.starts_with("read ")), "{name}: {rest:?}");
            assert!(parts.len() > 5, "{name}: {} parts", parts.len());
            // Parts are whole games, in order, and together the whole text.
            let joined: String = parts.iter().map(|p| p.2.as_str()).collect();
            // Together the whole text (but the newline after the last tree: junk, dropped).
            assert!(joined == text.trim_end(), "{name}: the parts are not the text");
            for (first, offset, part) in &parts {
                assert!(part.len() <= 1000 + one, "{name}: a part of {} bytes", part.len());
                let lead = part.len() - part.trim_start().len();
                assert_eq!(*offset as usize + lead, *first as usize * one, "{name}");
                assert!(part.trim_start().starts_with(&format!("(;GM[1]SZ[19]C[g{first:04}")), "{name}: {part:.40}");
                let games = crate::sgf::read_games(part.as_bytes()).games;
                assert!(games.iter().all(|g| g.is_ok()), "{name}");
            }
        }
        // The same file within the cap is one document, as before.
        let (parts, _) = parts_and_rest(&collect(&[dir.path().join("big.sgf")], &Limits::default()));
        assert_eq!(parts, vec![(0, 0, text.clone())]);
    }

    #[test]
    fn a_game_tree_over_the_cap_is_skipped_and_the_others_kept() {
        let dir = tempfile::tempdir().unwrap();
        let huge = format!("(;GM[1]C[{}];B[aa])", "x".repeat(3000));
        let text = format!("{}{huge}{}", collection(40), collection(40));
        std::fs::write(dir.path().join("c.sgf"), &text).unwrap();
        let limits = Limits { max_member_bytes: 1000, ..Limits::default() };
        let (parts, rest) = parts_and_rest(&collect(&[dir.path().join("c.sgf")], &limits));
        let games: usize = parts.iter().map(|p| crate::sgf::read_games(p.2.as_bytes()).games.len()).sum();
        assert_eq!(games, 80);
        let skipped: Vec<&String> = rest.iter().filter(|r| r.starts_with("unreadable")).collect();
        assert_eq!(skipped.len(), 1, "{rest:?}");
        assert!(
            skipped[0].contains("game 40 (at byte") && skipped[0].contains("limits.max_member_bytes"),
            "{skipped:?}"
        );
        // The games after the skipped one keep their index in the file.
        assert!(parts.iter().any(|p| p.0 == 41), "{:?}", parts.iter().map(|p| p.0).collect::<Vec<_>>());
    }

    #[test]
    fn a_truncated_collection_stream_keeps_every_complete_game() {
        let dir = tempfile::tempdir().unwrap();
        let text = collection(3000);
        let z = gz(text.as_bytes());
        std::fs::write(dir.path().join("t.sgf.gz"), &z[..z.len() / 2]).unwrap();
        let limits = Limits { max_member_bytes: 4000, ..Limits::default() };
        let (parts, rest) = parts_and_rest(&collect(&[dir.path().join("t.sgf.gz")], &limits));
        let joined: String = parts.iter().map(|p| p.2.as_str()).collect();
        assert!(text.starts_with(&joined) && joined.ends_with(')'), "parts end on a whole game");
        let kept = joined.matches("(;GM").count();
        assert!(kept > 100 && kept < 3000, "{kept}");
        let damaged: Vec<&String> = rest.iter().filter(|r| r.starts_with("unreadable")).collect();
        assert_eq!(damaged.len(), 1, "{rest:?}");
        assert!(damaged[0].contains(&format!("damaged after {kept} complete games")), "{damaged:?}");
    }

    #[test]
    fn read_line_capped_reports_lines_long_lines_and_the_end() {
        let mut r = std::io::BufReader::with_capacity(4, &b"ab\n\ncdefgh\nij"[..]);
        let mut buf = Vec::new();
        let mut got = Vec::new();
        loop {
            let (l, n) = read_line_capped(&mut r, &mut buf, 5).unwrap();
            if l == Line::End {
                break;
            }
            got.push((l, n, String::from_utf8(buf.clone()).unwrap()));
        }
        assert_eq!(
            got,
            vec![
                (Line::Full, 3, "ab".into()),
                (Line::Full, 1, "".into()),
                (Line::TooLong, 7, "".into()),
                (Line::Full, 2, "ij".into())
            ]
        );
    }

    #[test]
    fn nested_archives_and_hostile_names() {
        let dir = tempfile::tempdir().unwrap();
        let inner = tar_bytes(&[("g/1.sgf", b"(;B[aa])"), ("../../evil.sgf", b"(;W[bb])"), ("readme.txt", b"hi")]);
        let inner_gz = gz(&inner);
        let mut zbuf = Cursor::new(Vec::new());
        {
            let mut z = zip::ZipWriter::new(&mut zbuf);
            let o = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
            z.start_file("in/nested.tgz", o).unwrap();
            z.write_all(&inner_gz).unwrap();
            z.start_file("top.sgf", o).unwrap();
            z.write_all(b"(;B[cc])").unwrap();
            z.finish().unwrap();
        }
        let sub = dir.path().join("dir (1) 棋譜");
        std::fs::create_dir(&sub).unwrap();
        std::fs::write(sub.join("a b.zip"), zbuf.into_inner()).unwrap();
        std::fs::write(sub.join("games.sgfs"), b"(;B[aa])\n\n(;B[bb])\n").unwrap();
        std::fs::write(sub.join("x.sgf.gz"), gz(b"(;B[dd])")).unwrap();
        let items = collect(&[dir.path().to_path_buf()], &Limits::default());
        let mut sgf = Vec::new();
        let mut skipped = 0;
        for it in &items {
            match it {
                Item::Sgf { loc, bytes } => sgf.push((loc.member.clone().unwrap_or_default(), bytes.clone())),
                Item::SgfLine { line, bytes, .. } => sgf.push((format!("line{line}"), bytes.clone())),
                Item::Skipped { .. } => skipped += 1,
                Item::Unreadable { loc, error } => panic!("unreadable {loc:?}: {error}"),
                Item::Refused { loc, error, .. } => panic!("refused {loc:?}: {error}"),
                Item::FileRead { .. } => {}
                Item::SgfPart { .. } => panic!("no part of a small file"),
            }
        }
        let names: Vec<&str> = sgf.iter().map(|s| s.0.as_str()).collect();
        assert_eq!(
            names,
            ["in/nested.tgz!/g/1.sgf", "in/nested.tgz!/../../evil.sgf", "top.sgf", "line1", "line3", "x.sgf"]
        );
        assert_eq!(skipped, 1);
        // Nothing was written next to the input.
        assert!(!dir.path().join("evil.sgf").exists() && !dir.path().parent().unwrap().join("evil.sgf").exists());
    }

    #[test]
    fn truncated_targz_keeps_readable_members() {
        let mut files = Vec::new();
        let big: Vec<u8> = (0..20000u32).map(|i| (i * 7919 % 251) as u8).collect();
        for i in 0..20 {
            files.push((format!("g{i:02}.sgf"), big.clone()));
        }
        let refs: Vec<(&str, &[u8])> = files.iter().map(|(n, d)| (n.as_str(), d.as_slice())).collect();
        let full = gz(&tar_bytes(&refs));
        let cut = &full[..full.len() / 2];
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("cut.tar.gz");
        std::fs::write(&p, cut).unwrap();
        let items = collect(&[p], &Limits::default());
        let ok = items.iter().filter(|i| matches!(i, Item::Sgf { .. })).count();
        let bad = items.iter().filter(|i| matches!(i, Item::Unreadable { .. })).count();
        assert!((3..20).contains(&ok), "ok={ok}");
        assert!(bad >= 1);
    }

    #[test]
    fn caps_and_missing_paths() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("bomb.gz");
        std::fs::write(&p, gz(&vec![b'('; 1 << 20])).unwrap();
        let limits = Limits { max_member_bytes: 1000, ..Limits::default() };
        let items: Vec<Item> = collect(&[p.clone(), dir.path().join("missing.sgf")], &limits)
            .into_iter()
            .filter(|i| !matches!(i, Item::FileRead { .. }))
            .collect();
        assert_eq!(items.len(), 2);
        match &items[0] {
            Item::Unreadable { error, .. } => assert!(error.contains("limit"), "{error}"),
            other => panic!("{other:?}"),
        }
        match &items[1] {
            Item::Unreadable { loc, error } => {
                // The path and the OS error.
                assert!(loc.file.ends_with("missing.sgf"));
                assert!(error.contains("No such file"), "{error}");
            }
            other => panic!("{other:?}"),
        }
    }

    /// A small file that inflates to far more than `max_ratio` times its size is stopped
    /// at the ratio's budget, with a message that names the limit; the same file is read
    /// when the ratio allows it.
    #[test]
    fn decompression_ratio_cap() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("zeros.sgf.gz");
        std::fs::write(&p, gz(&vec![0u8; 24 << 20])).unwrap();
        let on_disk = std::fs::metadata(&p).unwrap().len();
        assert!(on_disk < 100_000, "{on_disk}");
        let strict = Limits { max_ratio: 50, ..Limits::default() };
        let items: Vec<Item> = collect(std::slice::from_ref(&p), &strict)
            .into_iter()
            .filter(|i| !matches!(i, Item::FileRead { .. }))
            .collect();
        match &items[..] {
            [Item::Unreadable { error, .. }] => {
                assert!(error.contains("limits.max_ratio") && error.contains("bomb"), "{error}")
            }
            other => panic!("{other:?}"),
        }
        let loose = Limits { max_ratio: 100_000, ..Limits::default() };
        let items = collect(std::slice::from_ref(&p), &loose);
        assert!(items.iter().any(|i| matches!(i, Item::Sgf { bytes, .. } if bytes.len() == 24 << 20)));
        // The archive cap still applies when the ratio would allow more.
        let capped = Limits { max_ratio: 100_000, max_archive_bytes: 1 << 20, ..Limits::default() };
        let items: Vec<Item> =
            collect(&[p], &capped).into_iter().filter(|i| !matches!(i, Item::FileRead { .. })).collect();
        match &items[..] {
            [Item::Unreadable { error, .. }] => assert!(error.contains("limits.max_archive_bytes"), "{error}"),
            other => panic!("{other:?}"),
        }
    }

    /// A zip whose headers lie about the member's size (huge, or tiny): no panic, no
    /// huge allocation, and the member is either read correctly or reported.
    #[test]
    fn zip_with_lying_size_headers() {
        let content = b"(;GM[1]SZ[19];B[pd];W[dp];B[pp];W[dd])".repeat(50);
        let mut buf = Cursor::new(Vec::new());
        {
            let mut z = zip::ZipWriter::new(&mut buf);
            let o = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
            z.start_file("a.sgf", o).unwrap();
            z.write_all(&content).unwrap();
            z.finish().unwrap();
        }
        let good = buf.into_inner();
        let n = content.len() as u32;
        for lie in [0xFFFF_FFF0u32, 3u32] {
            // Patch every 32-bit field equal to the true size (local header and central
            // directory: compressed and uncompressed sizes).
            let mut bad = good.clone();
            let mut i = 0;
            while i + 4 <= bad.len() {
                if u32::from_le_bytes(bad[i..i + 4].try_into().unwrap()) == n {
                    bad[i..i + 4].copy_from_slice(&lie.to_le_bytes());
                    i += 4;
                } else {
                    i += 1;
                }
            }
            assert_ne!(bad, good);
            let dir = tempfile::tempdir().unwrap();
            let p = dir.path().join("lying.zip");
            std::fs::write(&p, &bad).unwrap();
            let limits = Limits { max_member_bytes: 1 << 20, ..Limits::default() };
            let items = collect(&[p], &limits);
            let mut seen = 0;
            for it in &items {
                match it {
                    Item::Sgf { bytes, .. } => {
                        assert!(bytes.len() <= 1 << 20);
                        seen += 1;
                    }
                    Item::Unreadable { .. } => seen += 1,
                    _ => {}
                }
            }
            assert!(seen >= 1, "the member is read or reported (lie = {lie}): {items:?}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn symlink_loop_terminates() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("a");
        std::fs::create_dir(&sub).unwrap();
        std::os::unix::fs::symlink(dir.path(), sub.join("loop")).unwrap();
        std::fs::write(sub.join("g.sgf"), b"(;B[aa])").unwrap();
        let items = collect(&[dir.path().to_path_buf()], &Limits::default());
        assert_eq!(items.iter().filter(|i| matches!(i, Item::Sgf { .. })).count(), 1);
        assert!(items.iter().any(|i| matches!(i, Item::Unreadable { error, .. } if error.contains("loop"))));
    }

    /// `n` moves that never capture: columns along rows 0, 2, 4, … (one row apart).
    pub(super) fn dump_moves(n: usize) -> String {
        (0..n)
            .map(|k| {
                let (x, y) = ((b'a' + (k % 19) as u8) as char, (b'a' + 2 * (k / 19) as u8) as char);
                format!(";{}[{x}{y}]", if k % 2 == 0 { "B" } else { "W" })
            })
            .collect()
    }

    fn zip_bytes(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut zbuf = Cursor::new(Vec::new());
        let mut z = zip::ZipWriter::new(&mut zbuf);
        let o = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        for (name, data) in files {
            z.start_file(*name, o).unwrap();
            z.write_all(data).unwrap();
        }
        z.finish().unwrap();
        zbuf.into_inner()
    }

    /// Each line's number, quirks and game read back, and the other items as text.
    type DumpGame = (u32, Vec<&'static str>, crate::sgf::GameRecord);

    fn dump_games(items: &[Item]) -> (Vec<DumpGame>, Vec<String>) {
        let mut games = Vec::new();
        let mut rest = Vec::new();
        for i in items {
            match i {
                Item::SgfLine { line, bytes, quirks, .. } => {
                    let g = crate::sgf::read_games(bytes).games.remove(0).expect("a game");
                    games.push((*line, quirks.clone(), g));
                }
                Item::Refused { loc, reason, error } => rest.push(format!("{reason} {}: {error}", loc.display())),
                Item::Unreadable { loc, error } => rest.push(format!("unreadable {}: {error}", loc.display())),
                Item::FileRead { .. } => {}
                other => rest.push(format!("{other:?}")),
            }
        }
        (games, rest)
    }

    /// A Tygem index record (11 fields).
    fn tygem(id: u32, white: &str, black: &str, result: &str, moves: usize) -> String {
        format!(
            "{id}\tC2016.12.0{} 10:00\t{white}\t{white}_id\t0\t{black}\t{black}_id\t2\t{result}\t{moves}\t30/3 5m",
            id % 9 + 1
        )
    }

    #[test]
    fn a_dump_zip_with_its_index_gives_the_index_players_and_results() {
        let month = format!(
            "1001\t{}\n1002\t{}\r\n1003\t{}\nnot a dump line\n1004\t{};W[]\n",
            dump_moves(30),
            dump_moves(40),
            dump_moves(20),
            dump_moves(25)
        );
        // 1001 and 1004 on one index line (the newline between them lost); 1002's count
        // is wrong (35 for 40 moves); 1003 has no entry; 1004's count leaves out its pass.
        let index = format!(
            "{}{}\n{}\n",
            tygem(1001, "Kim", "Lee", "B+Resign", 30),
            tygem(1004, "박", "Choi", "W+Time", 25),
            tygem(1002, "Wang", "Sato", "W+0.5", 35)
        );
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("2016-12.zip");
        std::fs::write(&p, zip_bytes(&[("2016-12", month.as_bytes()), ("Kifu2016.index", index.as_bytes())])).unwrap();
        let (games, rest) = dump_games(&collect(&[p], &Limits::default()));
        type Seen<'a> = (u32, Option<&'a str>, Option<&'a str>, Option<&'a str>, Vec<&'a str>);
        let seen: Vec<Seen> = games
            .iter()
            .map(|(l, q, g)| (*l, g.black.as_deref(), g.white.as_deref(), g.result.raw.as_deref(), q.clone()))
            .collect();
        assert_eq!(
            seen,
            vec![
                (1, Some("Lee"), Some("Kim"), Some("B+Resign"), vec!["dump_komi_assumed"]),
                (2, Some("Sato"), Some("Wang"), Some("W+0.5"), vec!["dump_komi_assumed", "dump_move_count_differs"]),
                (3, None, None, None, vec!["dump_no_index_entry"]),
                (5, Some("Choi"), Some("박"), Some("W+Time"), vec!["dump_komi_assumed"]),
            ]
        );
        let moves: Vec<usize> = games.iter().map(|g| g.2.moves.len()).collect();
        assert_eq!(moves, [30, 40, 20, 26], "every line keeps its moves");
        assert_eq!(games[0].2.date_iso.as_deref(), Some("2016-12-03"));
        assert_eq!(games[1].2.komi, Some(6.5));
        assert_eq!(rest.len(), 1, "{rest:?}");
        assert!(rest[0].starts_with("bad_dump_line") && rest[0].contains("2016-12#L4"), "{rest:?}");
    }

    #[test]
    fn yearly_and_top_level_indexes_serve_their_months_only() {
        let dir = tempfile::tempdir().unwrap();
        // Tygem: index/Kifu2016.index.tar.gz beside Kifu/; the same id in 2015 is not served.
        let ty = dir.path().join("TYGEM");
        std::fs::create_dir_all(ty.join("Kifu")).unwrap();
        std::fs::create_dir_all(ty.join("index")).unwrap();
        let idx = tygem(7, "w7", "b7", "B+3.5", 10);
        std::fs::write(ty.join("index/Kifu2016.index.tar.gz"), gz(&tar_bytes(&[("Kifu2016.index", idx.as_bytes())])))
            .unwrap();
        let line = format!("7\t{}\n", dump_moves(10));
        std::fs::write(ty.join("Kifu/2016-12.zip"), zip_bytes(&[("2016-12", line.as_bytes())])).unwrap();
        std::fs::write(ty.join("Kifu/2015-01.zip"), zip_bytes(&[("2015-01", line.as_bytes())])).unwrap();
        // Tom: Kifu.index at the top of the tree, the months in kifu/, uncompressed; komi from the index.
        let tom = dir.path().join("Tom");
        std::fs::create_dir_all(tom.join("kifu")).unwrap();
        std::fs::write(tom.join("Kifu.index"), "8\t2008.08.01 10:00\tw8\tb8\t7.5\tW+1.5\t12\t10m\n").unwrap();
        std::fs::write(tom.join("kifu/2008-08"), format!("8\t{}\n", dump_moves(12))).unwrap();
        let (games, rest) = dump_games(&collect(&[dir.path().to_path_buf()], &Limits::default()));
        assert!(rest.is_empty(), "{rest:?}");
        let seen: Vec<(Option<&str>, Option<f32>, Vec<&str>)> =
            games.iter().map(|(_, q, g)| (g.black.as_deref(), g.komi, q.clone())).collect();
        assert_eq!(
            seen,
            vec![
                (None, None, vec!["dump_no_index_entry"]),
                (Some("b7"), Some(6.5), vec!["dump_komi_assumed"]),
                (Some("b8"), Some(7.5), vec![]),
            ],
            "2015-01 not joined (a 2016 index), 2016-12 joined, Tom's komi from its index"
        );
        // The same with a budget too small for any entry: the index spills to disk and
        // the join is the same.
        let scratch = tempfile::tempdir().unwrap();
        let tiny = Limits { dump_index_bytes: 10, dump_spill_dir: Some(scratch.path().into()), ..Limits::default() };
        let (spilled, rest) = dump_games(&collect(&[dir.path().to_path_buf()], &tiny));
        assert!(rest.is_empty(), "{rest:?}");
        assert_eq!(spilled, games);
        assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 0, "the spill is removed after the walk");
        // A spill that cannot be written (its folder is a file): the lines keep their
        // moves, and one reject per index says why.
        let blocked = scratch.path().join("not-a-folder");
        std::fs::write(&blocked, b"").unwrap();
        let tiny = Limits { dump_index_bytes: 10, dump_spill_dir: Some(blocked), ..Limits::default() };
        let (games, rest) = dump_games(&collect(&[dir.path().to_path_buf()], &tiny));
        assert!(games.iter().all(|g| g.1 == ["dump_no_index_entry"]), "{games:?}");
        assert_eq!(games.len(), 3);
        assert_eq!(rest.len(), 2, "{rest:?}");
        assert!(
            rest.iter().all(|r| r.starts_with("dump_index_over_budget") && r.contains("could not spill")),
            "{rest:?}"
        );
    }

    #[test]
    fn a_spilled_dump_index_joins_like_one_in_memory_even_inside_a_7z() {
        // 3,000 records in a 7z index (ids 0..3000, each once) and a zip index beside
        // it that repeats ids 0..500 with other names (the first index read, by name,
        // wins): a budget of ~1 KiB spills hundreds of runs, merged in two generations.
        let dir = tempfile::tempdir().unwrap();
        let first: String =
            (0..3000).map(|i| tygem(i, &format!("w{i}"), &format!("b{i}"), "B+Resign", 10) + "\n").collect();
        let later: String = (0..500).map(|i| tygem(i, "other", "other", "W+Time", 10) + "\n").collect();
        std::fs::write(dir.path().join("a.index.7z"), sevenz_bytes(&[("Kifu2016.index", first.as_bytes())], true))
            .unwrap();
        std::fs::write(dir.path().join("b.zip"), zip_bytes(&[("Kifu2016.index", later.as_bytes())])).unwrap();
        let lines: String = (0..3100).step_by(7).map(|i| format!("{i}\t{}\n", dump_moves(10))).collect();
        std::fs::write(dir.path().join("2016-12"), lines).unwrap();
        let (memory, rest) = dump_games(&collect(&[dir.path().to_path_buf()], &Limits::default()));
        assert!(rest.iter().all(|r| r.starts_with("not_sgf") || r.is_empty()), "{rest:?}");
        assert_eq!(memory.len(), 443);
        assert_eq!(memory[1].2.black.as_deref(), Some("b7"), "the 7z's record, read first");
        assert!(memory.iter().filter(|g| g.1 == ["dump_no_index_entry"]).count() == 14, "ids 3003.. have none");
        let scratch = tempfile::tempdir().unwrap();
        let tiny = Limits { dump_index_bytes: 1024, dump_spill_dir: Some(scratch.path().into()), ..Limits::default() };
        let (spilled, rest2) = dump_games(&collect(&[dir.path().to_path_buf()], &tiny));
        assert_eq!((spilled, rest2), (memory, rest));
    }

    pub(super) fn sevenz_bytes(files: &[(&str, &[u8])], solid: bool) -> Vec<u8> {
        let mut w = sevenz_rust2::ArchiveWriter::new(Cursor::new(Vec::new())).unwrap();
        if solid {
            let entries = files.iter().map(|f| sevenz_rust2::ArchiveEntry::new_file(f.0)).collect();
            let readers = files.iter().map(|f| sevenz_rust2::SourceReader::new(f.1)).collect();
            w.push_archive_entries(entries, readers).unwrap();
        } else {
            for (name, data) in files {
                w.push_archive_entry(sevenz_rust2::ArchiveEntry::new_file(name), Some(*data)).unwrap();
            }
        }
        w.finish().unwrap().into_inner()
    }

    /// The SGF documents of a walk by member name, and the rest.
    fn documents(items: &[Item]) -> (Vec<(String, Vec<u8>)>, Vec<String>) {
        let mut docs = Vec::new();
        let mut rest = Vec::new();
        for i in items {
            match i {
                Item::Sgf { loc, bytes } | Item::SgfPart { loc, bytes, .. } => {
                    docs.push((loc.member.clone().unwrap_or_else(|| loc.file.clone()), bytes.clone()))
                }
                Item::FileRead { .. } => {}
                Item::Unreadable { loc, error } => rest.push(format!("unreadable {}: {error}", loc.display())),
                other => rest.push(format!("{other:?}")),
            }
        }
        (docs, rest)
    }

    #[test]
    fn a_7z_and_a_two_volume_7z_give_the_folder_s_documents() {
        let texts: Vec<(String, Vec<u8>)> = (0..12)
            .map(|i| (format!("g/{i:02}.sgf"), format!("(;GM[1]SZ[19]PB[b{i}]{})", dump_moves(20 + i)).into_bytes()))
            .collect();
        let files: Vec<(&str, &[u8])> = texts.iter().map(|(n, d)| (n.as_str(), d.as_slice())).collect();
        let dir = tempfile::tempdir().unwrap();
        for solid in [false, true] {
            let a = sevenz_bytes(&files, solid);
            std::fs::write(dir.path().join("one.7z"), &a).unwrap();
            let vols = dir.path().join("vols");
            std::fs::create_dir_all(&vols).unwrap();
            std::fs::write(vols.join("two.7z.001"), &a[..a.len() / 2]).unwrap();
            std::fs::write(vols.join("two.7z.002"), &a[a.len() / 2..]).unwrap();
            for p in [dir.path().join("one.7z"), vols.clone()] {
                let items = collect(std::slice::from_ref(&p), &Limits::default());
                let (docs, rest) = documents(&items);
                assert!(rest.is_empty(), "{p:?} solid={solid}: {rest:?}");
                assert_eq!(docs, texts, "{p:?} solid={solid}");
                let read = items.iter().filter(|i| matches!(i, Item::FileRead { .. })).count();
                assert_eq!(read, if p == vols { 2 } else { 1 }, "each volume is listed in the manifest");
            }
        }
        // A later volume alone is unreadable, naming the missing first one.
        std::fs::remove_file(dir.path().join("vols/two.7z.001")).unwrap();
        let (_, rest) = documents(&collect(&[dir.path().join("vols")], &Limits::default()));
        assert!(rest.len() == 1 && rest[0].contains("two.7z.001"), "{rest:?}");
    }

    #[test]
    fn a_truncated_7z_keeps_the_games_before_the_damage() {
        // A comment of pseudo-random letters per game, so that the packed data is most of the archive
        // (and spans several LZMA2 chunks: a cut chunk is lost whole).
        let noise = |i: u64| {
            let mut x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            (0..1000)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    char::from(b'a' + (x % 26) as u8)
                })
                .collect::<String>()
        };
        let texts: Vec<(String, Vec<u8>)> = (0..200)
            .map(|i| {
                let text = format!("(;GM[1]SZ[19]C[g{i:03} {}]{})\n", noise(i as u64), dump_moves(60 + i % 100));
                (format!("{i:03}.sgf"), text.into_bytes())
            })
            .collect();
        let files: Vec<(&str, &[u8])> = texts.iter().map(|(n, d)| (n.as_str(), d.as_slice())).collect();
        let dir = tempfile::tempdir().unwrap();
        for solid in [false, true] {
            let a = sevenz_bytes(&files, solid);
            let p = dir.path().join("cut.7z");
            std::fs::write(&p, &a[..a.len() * 6 / 10]).unwrap();
            let (docs, rest) = documents(&collect(std::slice::from_ref(&p), &Limits::default()));
            let joined: Vec<u8> = docs.iter().flat_map(|d| d.1.clone()).collect();
            let kept = crate::sgf::read_games(&joined).games;
            assert!(kept.len() >= 20 && kept.len() < 200, "solid={solid}: {} games kept", kept.len());
            for (k, g) in kept.iter().enumerate() {
                let g = g.as_ref().expect("whole games only");
                assert_eq!(g.moves.len(), 60 + k % 100, "solid={solid}: game {k} whole and in order");
            }
            assert!(
                docs.iter().all(|d| d.0.starts_with("#stream")),
                "{:?}",
                docs.iter().map(|d| &d.0).collect::<Vec<_>>()
            );
            let last = rest.last().expect("one item names the file for the rest");
            assert!(last.contains("cut.7z") && last.contains("directory is lost"), "{rest:?}");
        }
        // Bytes that are not a 7z at all: one unreadable item, nothing else.
        std::fs::write(dir.path().join("junk.7z"), b"not a 7z").unwrap();
        let (docs, rest) = documents(&collect(&[dir.path().join("junk.7z")], &Limits::default()));
        assert!(docs.is_empty() && rest.len() == 1 && rest[0].contains("not a readable 7z"), "{rest:?}");
    }

    #[test]
    fn a_7z_bomb_is_stopped_by_the_ratio_guard() {
        let zeros = vec![b'('; 24 << 20];
        let a = sevenz_bytes(&[("z.sgf", &zeros)], false);
        assert!(a.len() < 100_000, "{}", a.len());
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("bomb.7z");
        std::fs::write(&p, &a).unwrap();
        let strict = Limits { max_ratio: 50, ..Limits::default() };
        let (docs, rest) = documents(&collect(std::slice::from_ref(&p), &strict));
        assert!(docs.is_empty(), "{} docs", docs.len());
        assert!(rest.iter().any(|r| r.contains("limits.max_ratio")), "{rest:?}");
        let small = Limits { max_member_bytes: 1 << 20, ..Limits::default() };
        let (docs, rest) = documents(&collect(&[p], &small));
        assert!(docs.is_empty() && rest.iter().any(|r| r.contains("max_member_bytes")), "{rest:?}");
    }
}
