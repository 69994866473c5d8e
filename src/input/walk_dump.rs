/*!
The walker's side of the one-line dumps ([`super::dump`]): recognising a dump by
content, joining each line to its index entry, and reading the indexes of an input tree
before its walk.

The index pass ([`Walker::build_index`]) runs at the start of every walk of an input
(and so of every part of it, `kibo part`), over the whole tree, whatever part is read:
`*.index` files, `*.index` members of every zip (a zip's directory is cheap to list) and
of the `.tar`/`.tar.gz`/`.tar.bz2`/`.gz` files whose name holds `index`
(`index/Kifu2016.index.tar.gz`), and of the `.7z` files (and first volumes) whose name
holds `index`. What it has to say about an index (lines in neither layout, a spill that
failed) is said when the walk reaches that file, so that
each part reports only its own files.
*/

use std::io::{Cursor, Read};
use std::path::{Path, PathBuf};

use super::dump::{self, Insert};
use super::{file_loc, kind_of, line_loc, nest, read_line_capped, Item, Kind, Line, Location, Streamed, Walker};

/// The most bytes read to decide whether a file of no known kind is a dump.
const SNIFF_BYTES: usize = 4096;

/// Reads up to `n` bytes (fewer at the end of the stream).
fn peek(r: &mut dyn Read, n: usize) -> std::io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(n);
    r.take(n as u64).read_to_end(&mut head)?;
    Ok(head)
}

/// What one index file (or member) gave.
#[derive(Default)]
struct IndexRead {
    records: u64,
    bad_lines: u64,
    first_bad: Option<u32>,
    over_budget: u64,
    error: Option<String>,
}

impl<F: FnMut(Item)> Walker<'_, F> {
    /// A file of no known kind: a one-line dump if its first line is one (read as a
    /// stream, line by line), else skipped.
    pub(super) fn other_file(&mut self, path: &Path, loc: Location) {
        let head = std::fs::File::open(path).and_then(|mut f| peek(&mut f, SNIFF_BYTES));
        match head {
            Ok(h) if dump::looks_like_dump(&h) => self.stream_file(path, loc, Self::stream_dump),
            _ => (self.sink)(Item::Skipped { loc }),
        }
    }

    /// A member of no known kind: a one-line dump (streamed) or skipped.
    pub(super) fn other_member(&mut self, loc: &Location, r: &mut dyn Read) -> Streamed {
        let head = match peek(r, SNIFF_BYTES) {
            Ok(h) => h,
            Err(_) => {
                (self.sink)(Item::Skipped { loc: loc.clone() });
                return Streamed::Damaged;
            }
        };
        if !dump::looks_like_dump(&head) {
            (self.sink)(Item::Skipped { loc: loc.clone() });
            return Streamed::Whole;
        }
        self.stream_dump(loc, &mut Cursor::new(head).chain(r), true)
    }

    /// Content of no known kind already in memory (a `.gz` member, a nested archive's):
    /// a dump or skipped.
    pub(super) fn other_bytes(&mut self, loc: Location, bytes: Vec<u8>) {
        if dump::looks_like_dump(&bytes[..bytes.len().min(SNIFF_BYTES)]) {
            let _ = self.stream_dump(&loc, &mut Cursor::new(bytes), false);
        } else {
            (self.sink)(Item::Skipped { loc });
        }
    }

    /// One line of a dump: joined to its index entry and handed on as an SGF document,
    /// or refused (`bad_dump_line`) when it is not `id<TAB>;B[..]…`.
    pub(super) fn dump_line(&mut self, loc: &Location, line: u32, bytes: &[u8]) {
        let Some((id, moves)) = dump::split_line(bytes) else {
            let error = format!("line {line} is not a dump line (id, TAB, ;B[..];W[..]…)");
            return (self.sink)(Item::Refused { loc: line_loc(loc, line), reason: "bad_dump_line", error });
        };
        let name = loc.member.as_deref().map(|m| m.rsplit("!/").next().unwrap_or(m));
        let year = name.and_then(dump::year_of_month).or_else(|| dump::year_of_month(&loc.file));
        let entry = self.index.lookup(Path::new(&loc.file), year, id);
        let (doc, quirks) = dump::to_sgf(id, moves, entry.as_ref());
        (self.sink)(Item::SgfLine { loc: loc.clone(), line, bytes: doc, quirks, dump: true });
    }

    /// A `*.index` file met by the walk (read before it, [`Walker::build_index`]): its
    /// size and blake3 for the manifest, and what the index pass found wrong in it.
    pub(super) fn index_file(&mut self, path: &Path, loc: Location) {
        self.stream_file(path, loc, Self::read_through);
    }

    /// Hands on what the index pass found about `path` (when the walk reaches it).
    pub(super) fn index_notes(&mut self, path: &Path) {
        if self.notes.is_empty() {
            return;
        }
        let (mine, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.notes).into_iter().partition(|n| n.0 == path);
        self.notes = rest;
        for (_, item) in mine {
            (self.sink)(item);
        }
    }

    /// Reads every index of `inputs` into `self.index` (see the module docs).
    pub(super) fn build_index(&mut self, inputs: &[PathBuf]) {
        let root = self.limits.dump_spill_dir.clone().unwrap_or_else(std::env::temp_dir);
        self.index = dump::DumpIndex::with_spill(self.limits.dump_index_bytes as usize, root);
        let mut last = None;
        for input in inputs {
            for e in walkdir::WalkDir::new(input).follow_links(true).sort_by_file_name().into_iter().flatten() {
                if e.file_type().is_file() && self.index_candidate(e.path()) {
                    last = Some(e.path().to_path_buf());
                }
            }
        }
        if let (Err(error), Some(path)) = (self.index.finish(), last) {
            // Said with the last index read: every spilled record is lost.
            let error = format!(
                "the dump index's {} spilled records could not be merged ({error}); their lines keep their moves, \
                 with the quirk dump_no_index_entry",
                self.index.spilled
            );
            let item = Item::Refused { loc: file_loc(&path), reason: "dump_index_over_budget", error };
            self.notes.push((path, item));
        }
    }

    /// Reads `path`'s indexes, if it holds any (true when it did).
    fn index_candidate(&mut self, path: &Path) -> bool {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let lower = name.to_ascii_lowercase();
        let kind = kind_of(&name);
        let mut any = false;
        let mut read = |w: &mut Self, member: Option<&str>, r: &mut dyn Read| {
            any = true;
            let loc = member.map_or_else(|| file_loc(path), |m| nest(&file_loc(path), m));
            let year = dump::year_of_index(member.unwrap_or(&name)).or_else(|| dump::year_of_index(&name));
            let got = w.read_index(r, dump::scope_dir(path), year);
            w.note_index(path, loc, got);
        };
        let open = || std::fs::File::open(path).map(std::io::BufReader::new);
        match kind {
            Kind::Index => {
                if let Ok(mut f) = open() {
                    read(self, None, &mut f);
                }
            }
            Kind::Zip => {
                let Ok(mut z) = open().map_err(|_| ()).and_then(|f| zip::ZipArchive::new(f).map_err(|_| ())) else {
                    return false;
                };
                for i in 0..z.len() {
                    let Ok(mut m) = z.by_index(i) else { continue };
                    let member = String::from_utf8_lossy(m.name_raw()).into_owned();
                    if kind_of(&member) == Kind::Index {
                        let limit = self.limits.max_archive_bytes;
                        read(self, Some(&member), &mut (&mut m).take(limit));
                    }
                }
            }
            Kind::Tar | Kind::TarGz | Kind::TarBz2 if lower.contains("index") => {
                let Ok(f) = open() else { return false };
                let r: Box<dyn Read> = match kind {
                    Kind::TarGz => Box::new(flate2::read::MultiGzDecoder::new(f)),
                    Kind::TarBz2 => Box::new(bzip2::read::MultiBzDecoder::new(f)),
                    _ => Box::new(f),
                };
                let mut ar = tar::Archive::new(r);
                let Ok(entries) = ar.entries() else { return false };
                for mut entry in entries.map_while(Result::ok) {
                    let member = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
                    if entry.header().entry_type().is_file() && kind_of(&member) == Kind::Index {
                        read(self, Some(&member), &mut entry);
                    }
                }
            }
            Kind::SevenZ if lower.contains("index") => {
                let paths = if super::sevenz::volume_number(&name).is_some() {
                    super::sevenz::volumes(path)
                } else {
                    vec![path.to_path_buf()]
                };
                let Ok(mut v) = super::sevenz::Volumes::open(&paths) else { return false };
                let limit = self.limits.max_archive_bytes;
                let mut each = |member: &str, _size: u64, r: &mut dyn Read| {
                    if kind_of(member) == Kind::Index {
                        read(self, Some(member), &mut r.take(limit));
                    }
                    super::sevenz::Next::Go
                };
                // A damaged 7z keeps the index records read before the damage; the
                // walk reports the damage when it reaches the file.
                let _ = super::sevenz::for_each_member(&mut v, &mut each);
            }
            Kind::Gz if kind_of(&name[..name.len() - 3]) == Kind::Index => {
                if let Ok(f) = open() {
                    read(self, Some(&name[..name.len() - 3]), &mut flate2::read::MultiGzDecoder::new(f));
                }
            }
            _ => {}
        }
        any
    }

    /// Reads index lines into `self.index` under the scope `(dir, year)`.
    fn read_index(&mut self, r: &mut dyn Read, dir: PathBuf, year: Option<u16>) -> IndexRead {
        let scope = self.index.scope(dir, year);
        let mut r = std::io::BufReader::with_capacity(1 << 16, r);
        let mut got = IndexRead::default();
        let mut buf = Vec::new();
        for line in 1u32.. {
            let found = match read_line_capped(&mut r, &mut buf, 1 << 16) {
                Ok((found, _)) => found,
                Err(e) => {
                    got.error = Some(format!("damaged after line {}: {e}; later index lines are lost", line - 1));
                    break;
                }
            };
            let records = match found {
                Line::End => break,
                Line::TooLong => None,
                Line::Full => dump::parse_index_line(&String::from_utf8_lossy(&buf)),
            };
            let Some(records) = records else {
                got.bad_lines += 1;
                got.first_bad.get_or_insert(line);
                continue;
            };
            for (id, entry) in records {
                got.records += 1;
                got.over_budget += u64::from(self.index.insert(scope, id, entry) == Insert::OverBudget);
            }
        }
        got
    }

    /// Keeps what is wrong with one index for when the walk reaches its file.
    fn note_index(&mut self, path: &Path, loc: Location, got: IndexRead) {
        let mut note =
            |reason, error| self.notes.push((path.to_path_buf(), Item::Refused { loc: loc.clone(), reason, error }));
        if let Some(first) = got.first_bad {
            let error = format!(
                "{} index lines are in neither index layout (the first: line {first}); their games keep their moves",
                got.bad_lines
            );
            note("bad_dump_line", error);
        }
        if got.over_budget > 0 {
            let why = self.index.spill_error.as_deref().unwrap_or("no spill folder");
            let error = format!(
                "{} of its {} records not kept: the dump index is at its {} bytes (its share of pipeline.memory_mb) \
                 and could not spill to disk ({why}); their lines keep their moves, with the quirk dump_no_index_entry",
                got.over_budget, got.records, self.limits.dump_index_bytes
            );
            note("dump_index_over_budget", error);
        }
        if let Some(error) = got.error {
            self.notes.push((path.to_path_buf(), Item::Unreadable { loc, error }));
        }
    }
}
