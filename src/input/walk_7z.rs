/*!
The walker's side of `.7z` archives ([`super::sevenz`]): members go through the same
path as a zip's (kind by name, the member cap, the archive's decompression budget set by
`max_ratio` over the size of all volumes, nesting), and a 7z whose directory is lost
(truncated) keeps what its packed streams still decode to, nameless, before the damage.
*/

use std::io::{Cursor, Read, Seek};
use std::path::Path;

use super::sevenz::{self, Failure, Next, Recovered};
use super::{dump, file_loc, kind_of, nest, Hashing, Item, Kind, Location, Member, Streamed, Walker};

impl<F: FnMut(Item)> Walker<'_, F> {
    /// A `.7z` on disk, or the first volume of a multi-volume one with the volumes
    /// after it, read as one stream; then the size and blake3 of this file (each later
    /// volume gives its own when the walk reaches it).
    pub(super) fn sevenz_file(&mut self, path: &Path, loc: Location, name: &str) {
        let paths =
            if sevenz::volume_number(name).is_some() { sevenz::volumes(path) } else { vec![path.to_path_buf()] };
        let mut v = match sevenz::Volumes::open(&paths) {
            Ok(v) => v,
            Err(e) => return (self.sink)(Item::Unreadable { loc, error: e.to_string() }),
        };
        self.set_budget(v.len());
        self.read_7z(loc.clone(), &mut v, 0);
        let hashed = std::fs::File::open(path).and_then(|f| {
            let mut h = Hashing { inner: f, hasher: blake3::Hasher::new(), bytes: 0 };
            std::io::copy(&mut h, &mut std::io::sink()).map(|_| (h.bytes, h.hasher.finalize()))
        });
        match hashed {
            Ok((bytes, hash)) => {
                (self.sink)(Item::FileRead { path: loc.file, bytes, blake3: hash.to_hex().to_string() })
            }
            Err(e) => (self.sink)(Item::Unreadable { loc: file_loc(path), error: e.to_string() }),
        }
    }

    /// A later volume (`x.7z.002`, …): read with its first volume; here only its size
    /// and blake3. Without the volumes before it, it is unreadable.
    pub(super) fn sevenz_volume(&mut self, path: &Path, loc: Location, name: &str) {
        let (stem, num) = name.rsplit_once('.').unwrap_or((name, ""));
        let first = path.with_file_name(format!("{stem}.{:0w$}", 1, w = num.len()));
        if !first.is_file() || !sevenz::volumes(&first).iter().any(|p| p == path) {
            let error = format!(
                "a volume of a multi-volume 7z without the volumes before it ({stem}.{:0w$}…)",
                1,
                w = num.len()
            );
            return (self.sink)(Item::Unreadable { loc, error });
        }
        self.stream_file(path, loc, Self::read_through);
    }

    /// The members of a 7z (on disk, or in memory inside another archive).
    pub(super) fn read_7z<R: Read + Seek>(&mut self, loc: Location, mut source: R, depth: u32) {
        let result = {
            let mut each = |name: &str, size: u64, r: &mut dyn Read| self.sevenz_member(&loc, name, size, r, depth);
            sevenz::for_each_member(&mut source, &mut each)
        };
        match result {
            Ok(()) => {}
            Err(Failure::Directory(e)) => self.recover_7z(loc, &mut source, &e),
            Err(Failure::Damaged { members, last, error }) => {
                let after = last.map(|n| format!(" after member {n} ({members} members read)")).unwrap_or_default();
                let error = format!("damaged archive{after}: {error}; later members are lost");
                (self.sink)(Item::Unreadable { loc, error });
            }
        }
    }

    /// One member of a 7z, as a zip's member is read.
    fn sevenz_member(&mut self, loc: &Location, name: &str, size: u64, r: &mut dyn Read, depth: u32) -> Next {
        let mloc = nest(loc, name);
        let streamed = match kind_of(name) {
            Kind::Index => return Next::Go,
            Kind::Other => self.other_member(&mloc, r),
            Kind::Sgfs => self.stream_sgfs(&mloc, r, true),
            _ => {
                let limit = self.member_limit();
                match self.read_member(&mloc, name, r, limit, size) {
                    Member::Bytes(d) => {
                        self.archive_bytes += d.len() as u64;
                        self.dispatch(mloc, name, d, depth + 1);
                        Streamed::Whole
                    }
                    Member::Streamed(s) => s,
                    Member::Failed(e) => {
                        let error = self.describe(&e, limit);
                        (self.sink)(Item::Unreadable { loc: mloc, error });
                        if e.kind() != std::io::ErrorKind::FileTooLarge {
                            // The decoder reports the damage when it goes on.
                            return Next::Go;
                        }
                        if limit < self.limits.max_member_bytes {
                            return Next::Stop;
                        }
                        // Over the member cap: decode the rest only if the budget allows it.
                        let left = self.archive_budget.saturating_sub(self.archive_bytes);
                        return if size > left { Next::SkipBlock } else { Next::Go };
                    }
                }
            }
        };
        if streamed == Streamed::OverBudget {
            Next::Stop
        } else {
            Next::Go
        }
    }

    /// A 7z whose directory cannot be read: what its packed streams decode to, before
    /// the damage, handed on nameless (`x.7z!#stream1`, …) by content (SGF trees, dump
    /// lines), and one unreadable item naming the file for the rest.
    fn recover_7z<R: Read + Seek>(&mut self, loc: Location, source: &mut R, why: &str) {
        let budget = self.archive_budget.saturating_sub(self.archive_bytes);
        let mut each = |k: u32, r: &mut dyn Read| {
            let mloc = nest(&loc, &format!("#stream{k}"));
            let mut head = Vec::new();
            if r.take(4096).read_to_end(&mut head).is_err() && head.is_empty() {
                return Next::Stop;
            }
            let mut all = Cursor::new(head.clone()).chain(r);
            let s = if head.windows(2).any(|w| w == b"(;") {
                self.stream_sgf(&mloc, &mut all, true)
            } else if dump::looks_like_dump(&head) {
                self.stream_dump(&mloc, &mut all, true)
            } else {
                (self.sink)(Item::Skipped { loc: mloc });
                Streamed::Whole
            };
            if s == Streamed::Whole {
                Next::Go
            } else {
                Next::Stop
            }
        };
        let error = match sevenz::recover(source, budget, &mut each) {
            None | Some(Recovered { streams: 0, .. }) => format!("not a readable 7z: {why}"),
            Some(Recovered { streams, error }) => format!(
                "its directory is lost ({why}): {streams} packed streams read without member names, up to the damage{}; \
                 the rest is lost",
                error.map(|e| format!(" ({e})")).unwrap_or_default()
            ),
        };
        (self.sink)(Item::Unreadable { loc, error });
    }
}
