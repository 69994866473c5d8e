/*!
The one-line dumps of FORMATS.md §4 (the Tygem and Tom "9d" datasets): month files of
`id<TAB>;B[qd];W[dp];…` lines, and `*.index` files that give each id its players, date,
result (and komi, Tom) in one of two TAB-separated layouts:

* Tygem, 11 fields: `id, "CYYYY.MM.DD HH:MM", white name, white id, white nation,
  black name, black id, black nation, result, moves, time`;
* Tom, 8 fields: `id, "YYYY.MM.DD HH:MM", white, black, komi, result, moves, time`.

An index line holding two records (no newline between them: the first one's time and
the second one's id in one field, or joined by a TAB) is split at its second date field.

Each line with its index entry becomes one small SGF document ([`to_sgf`]), so that the
SGF reader and the filter take it from there. The quirks say what was assumed or did
not match: `dump_no_index_entry`, `dump_move_count_differs`, `dump_komi_assumed`.

The index ([`DumpIndex`]) keeps a byte budget (a share of `pipeline.memory_mb`) in
memory; past it the entries spill to sorted runs on disk ([`super::dump_spill`]), merged
once the indexes are read, and a lookup then reads one block of the merged file. The
join is the same whatever the budget. Only when the spill itself fails are further
entries not kept: the lines they would have served keep their moves with
`dump_no_index_entry`.

Nothing here reads files: the walker (`input/mod.rs`) hands lines in.
*/

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::dump_spill::Spill;

/// Whether `head` (the first bytes of a file) starts like a dump line: an id of letters,
/// digits, `_`, `-` or `.`, a TAB, then `;B[` or `;W[`.
pub fn looks_like_dump(head: &[u8]) -> bool {
    split_line(head.split(|&b| b == b'\n').next().unwrap_or(head)).is_some()
        || head.iter().position(|&b| b == b'\t').is_some_and(|t| {
            t > 0 && t <= 64 && is_id(&head[..t]) && matches!(head.get(t + 1..t + 4), Some(b";B[") | Some(b";W["))
        })
}

fn is_id(b: &[u8]) -> bool {
    !b.is_empty() && b.len() <= 64 && b.iter().all(|c| c.is_ascii_alphanumeric() || b"_-.".contains(c))
}

/// A dump line split into its id and its moves (`;B[..];W[..]…`, a trailing `\r`
/// dropped); `None` when it is not one (no TAB, a bad id, moves that do not start with
/// `;B[`/`;W[`, or that hold `(` or `)`, which would end the game tree early).
pub fn split_line(line: &[u8]) -> Option<(&str, &[u8])> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let t = line.iter().position(|&b| b == b'\t')?;
    let (id, moves) = (&line[..t], line[t + 1..].trim_ascii_end());
    if !is_id(id) || !(moves.starts_with(b";B[") || moves.starts_with(b";W[")) {
        return None;
    }
    if moves.iter().any(|&b| b == b'(' || b == b')') {
        return None;
    }
    Some((std::str::from_utf8(id).ok()?, moves))
}

/// Moves of a line: all of them, and those that are not passes (`B[]`, `W[]`, `B[tt]`).
pub fn count_moves(moves: &[u8]) -> (u32, u32) {
    let (mut all, mut played) = (0u32, 0u32);
    for node in moves.split(|&b| b == b';').filter(|n| !n.is_empty()) {
        all += 1;
        let value = node.get(2..).and_then(|v| v.strip_suffix(b"]")).unwrap_or(b"");
        played += u32::from(!value.is_empty() && value != b"tt");
    }
    (all, played)
}

/// Which index layout a record came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// 11 fields, no komi (6.5 by the dataset's convention).
    Tygem,
    /// 8 fields with a komi column.
    Tom,
}

/// One index record: what the join brings to a line.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexEntry {
    /// The layout it was read in.
    pub layout: Layout,
    /// `YYYY-MM-DD`.
    pub date: String,
    /// Black's name (Tygem: the name, else the account id).
    pub black: String,
    /// White's name.
    pub white: String,
    /// The result as written (`B+Resign`, `W+0.5`, `B+Offline`, …).
    pub result: String,
    /// Komi as written (Tom); `None` for Tygem.
    pub komi: Option<String>,
    /// The move count of the index (Tygem's excludes passes).
    pub moves: Option<u32>,
}

impl IndexEntry {
    /// Bytes this entry and its id take in the index (for the memory budget).
    fn bytes(&self, id: &str) -> usize {
        let strings = self.date.len() + self.black.len() + self.white.len() + self.result.len();
        std::mem::size_of::<(u32, String, IndexEntry)>()
            + id.len()
            + strings
            + self.komi.as_ref().map_or(0, |k| k.len())
            + 16 // the hash table's own slot overhead
    }
}

/// `YYYY.MM.DD` (or with `-`), with an optional `C` before it (Tygem), then anything.
fn date_of(field: &str) -> Option<String> {
    let f = field.strip_prefix('C').unwrap_or(field);
    let b = f.as_bytes();
    let digits = |r: std::ops::Range<usize>| b.get(r).is_some_and(|s| s.iter().all(u8::is_ascii_digit));
    let sep = |i: usize| matches!(b.get(i), Some(b'.') | Some(b'-') | Some(b'/'));
    if digits(0..4) && sep(4) && digits(5..7) && sep(7) && digits(8..10) {
        Some(format!("{}-{}-{}", &f[0..4], &f[5..7], &f[8..10]))
    } else {
        None
    }
}

fn record(f: &[&str]) -> Option<(String, IndexEntry)> {
    if f.len() != 11 && f.len() != 8 {
        return None;
    }
    let date = date_of(f[1])?;
    let name = |name: &str, id: &str| if name.trim().is_empty() { id.trim() } else { name.trim() }.to_string();
    let moves = |s: &str| s.trim().parse::<u32>().ok();
    let e = match f.len() {
        11 => IndexEntry {
            layout: Layout::Tygem,
            date,
            white: name(f[2], f[3]),
            black: name(f[5], f[6]),
            result: f[8].trim().to_string(),
            komi: None,
            moves: moves(f[9]),
        },
        8 => IndexEntry {
            layout: Layout::Tom,
            date,
            white: f[2].trim().to_string(),
            black: f[3].trim().to_string(),
            komi: Some(f[4].trim().to_string()).filter(|k| !k.is_empty()),
            result: f[5].trim().to_string(),
            moves: moves(f[6]),
        },
        _ => return None,
    };
    let id = f[0].trim();
    is_id(id.as_bytes()).then(|| (id.to_string(), e))
}

/// The records of one index line (usually one; two when a newline between them was
/// lost); `None` when the line is in neither layout. A blank line gives no record.
pub fn parse_index_line(line: &str) -> Option<Vec<(String, IndexEntry)>> {
    let line = line.trim_end_matches(['\r', '\n']);
    if line.trim().is_empty() {
        return Some(Vec::new());
    }
    let f: Vec<&str> = line.split('\t').collect();
    let dates: Vec<usize> = (1..f.len()).filter(|&i| date_of(f[i]).is_some()).collect();
    if dates.first() != Some(&1) {
        return None;
    }
    let fits = |n: usize| n == 11 || n == 8;
    let mut out = Vec::new();
    let mut carried: Option<&str> = None;
    for (k, &d) in dates.iter().enumerate() {
        let end = dates.get(k + 1).map_or(f.len(), |&n| n - 1);
        if end < d {
            return None;
        }
        let mut fields: Vec<&str> = f[d - 1..end].to_vec();
        if let Some(id) = carried.take() {
            fields[0] = id;
        }
        if k + 1 < dates.len() && !fits(fields.len()) && fits(fields.len() + 1) {
            // This record's last field and the next one's id share a field: `30/3 5m12345`.
            let merged = f[end];
            let cut = merged.trim_end_matches(|c: char| c.is_ascii_digit()).len();
            if cut == merged.len() {
                return None;
            }
            fields.push(&merged[..cut]);
            carried = Some(&merged[cut..]);
        }
        out.push(record(&fields)?);
    }
    Some(out)
}

/// The year a month file's name gives (`2016-12`, `2016-12.zip`), if any.
pub fn year_of_month(name: &str) -> Option<u16> {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let b = base.as_bytes();
    let ok =
        b.len() >= 7 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-' && b[5..7].iter().all(u8::is_ascii_digit);
    ok.then(|| base[..4].parse().ok()).flatten()
}

/// The year an index's name gives (`Kifu2016.index`, `Kifu2016.index.tar.gz`,
/// `Kifu2016.zip`): four digits after a leading word; `None` serves every year.
pub fn year_of_index(name: &str) -> Option<u16> {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let stem = base.split('.').next().unwrap_or(base);
    let digits: String = stem.chars().skip_while(|c| !c.is_ascii_digit()).take_while(char::is_ascii_digit).collect();
    (digits.len() == 4).then(|| digits.parse().ok()).flatten()
}

/// The folder an index serves: the one it lies in (for an index inside an archive, the
/// archive's folder), or that folder's parent when it is named `index` (Tygem keeps its
/// yearly indexes in `index/`, beside `Kifu/`).
pub fn scope_dir(file_on_disk: &Path) -> PathBuf {
    let dir = file_on_disk.parent().unwrap_or(Path::new("")).to_path_buf();
    match dir.file_name() {
        Some(n) if n.eq_ignore_ascii_case("index") => dir.parent().unwrap_or(Path::new("")).to_path_buf(),
        _ => dir,
    }
}

/// What [`DumpIndex::insert`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Insert {
    /// Kept.
    Added,
    /// The id was already in this scope: the first entry stays.
    Duplicate,
    /// The index is at its byte budget: not kept.
    OverBudget,
}

/// The ids of every index of one input tree, each serving the month files under its
/// scope folder (and of its year, for a yearly index). Past its byte budget the entries
/// spill to sorted runs on disk ([`super::dump_spill`]), merged by [`DumpIndex::finish`];
/// without a spill folder (or when the spill fails) further entries are not kept.
#[derive(Debug, Default)]
pub struct DumpIndex {
    scopes: Vec<(PathBuf, Option<u16>)>,
    map: HashMap<(u32, String), IndexEntry>,
    bytes: usize,
    budget: usize,
    spill_root: Option<PathBuf>,
    spill: Option<Spill>,
    /// Why the spill failed, once it has (later entries are then not kept).
    pub spill_error: Option<String>,
    /// Entries written to disk.
    pub spilled: u64,
    /// Entries refused because the budget was reached and could not spill.
    pub over_budget: u64,
    /// Ids met twice in one scope (the first entry is kept).
    pub duplicates: u64,
}

/// An entry's bytes in a spill run: layout, then each string and option length-prefixed.
fn encode(e: &IndexEntry) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    let mut text = |s: &str| {
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    };
    text(&e.date);
    text(&e.black);
    text(&e.white);
    text(&e.result);
    text(e.komi.as_deref().unwrap_or(""));
    out.push(match e.layout {
        Layout::Tygem => 0,
        Layout::Tom => 1,
    });
    out.push(u8::from(e.komi.is_some()));
    out.extend_from_slice(&e.moves.map_or(u32::MAX, |m| m).to_le_bytes());
    out.push(u8::from(e.moves.is_some()));
    out
}

fn decode(b: &[u8]) -> Option<IndexEntry> {
    let mut at = 0usize;
    let mut text = || {
        let n = u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?) as usize;
        let s = std::str::from_utf8(b.get(at + 4..at + 4 + n)?).ok()?.to_string();
        at += 4 + n;
        Some(s)
    };
    let (date, black, white, result, komi) = (text()?, text()?, text()?, text()?, text()?);
    let tail = b.get(at..at + 7)?;
    let layout = if tail[0] == 0 { Layout::Tygem } else { Layout::Tom };
    let moves = u32::from_le_bytes(tail[2..6].try_into().ok()?);
    Some(IndexEntry {
        layout,
        date,
        black,
        white,
        result,
        komi: (tail[1] == 1).then_some(komi),
        moves: (tail[6] == 1).then_some(moves),
    })
}

impl DumpIndex {
    /// An empty index that keeps at most `budget` bytes of entries, and no more.
    pub fn new(budget: usize) -> DumpIndex {
        DumpIndex { budget, ..DumpIndex::default() }
    }

    /// An empty index that keeps `budget` bytes of entries in memory and spills the rest
    /// to a scratch folder under `root`.
    pub fn with_spill(budget: usize, root: PathBuf) -> DumpIndex {
        DumpIndex { budget, spill_root: Some(root), ..DumpIndex::default() }
    }

    /// Entries kept in memory.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// No entry kept in memory.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Bytes of the entries kept in memory (the budget's measure), with the spilled
    /// file's keys once merged.
    pub fn bytes(&self) -> usize {
        self.bytes + self.spill.as_ref().map_or(0, Spill::key_bytes)
    }

    /// Bytes written to disk by the spill.
    pub fn spill_bytes(&self) -> u64 {
        self.spill.as_ref().map_or(0, |s| s.bytes_written)
    }

    /// The scope of an index file: `dir` and its year (a yearly index), created on first use.
    pub fn scope(&mut self, dir: PathBuf, year: Option<u16>) -> u32 {
        let key = (dir, year);
        match self.scopes.iter().position(|s| *s == key) {
            Some(i) => i as u32,
            None => {
                self.scopes.push(key);
                self.scopes.len() as u32 - 1
            }
        }
    }

    /// Writes the entries in memory as one sorted run.
    fn spill_run(&mut self) -> std::io::Result<()> {
        let root = self.spill_root.clone().ok_or_else(|| std::io::Error::other("no spill folder"))?;
        if self.spill.is_none() {
            self.spill = Some(Spill::new(&root)?);
        }
        if self.map.is_empty() {
            return Ok(());
        }
        let mut entries: Vec<((u32, String), Vec<u8>)> = self.map.drain().map(|(k, e)| (k, encode(&e))).collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let spill = self.spill.as_mut().expect("invariant: created above");
        spill.write_run(entries.iter().map(|((s, id), p)| (*s, id.as_str(), p.as_slice())))?;
        self.spilled += entries.len() as u64;
        self.bytes = 0;
        Ok(())
    }

    /// Adds one entry under `scope`.
    pub fn insert(&mut self, scope: u32, id: String, entry: IndexEntry) -> Insert {
        let key = (scope, id);
        if self.map.contains_key(&key) {
            self.duplicates += 1;
            return Insert::Duplicate;
        }
        let n = entry.bytes(&key.1);
        if self.bytes + n > self.budget {
            // Spill what is in memory (an entry larger than the budget alone then still
            // goes in: memory stays within the budget and one entry).
            if self.spill_error.is_none() && self.spill_root.is_some() {
                if let Err(e) = self.spill_run() {
                    self.spill_error = Some(e.to_string());
                }
            }
            if self.spill_error.is_some() || self.spill_root.is_none() {
                self.over_budget += 1;
                return Insert::OverBudget;
            }
        }
        self.bytes += n;
        self.map.insert(key, entry);
        Insert::Added
    }

    /// Ends the index pass: a spilled index writes what is left in memory as its last
    /// run and merges the runs (ids in an earlier run win, as in memory). On a failure
    /// the spilled entries are lost, and the error is returned (and kept in
    /// `spill_error`).
    pub fn finish(&mut self) -> Result<(), String> {
        if self.spill.is_none() {
            return Ok(());
        }
        let done = self.spill_run().and_then(|()| self.spill.as_mut().expect("invariant: spilled").finish());
        match done {
            Ok(dropped) => {
                self.duplicates += dropped;
                Ok(())
            }
            Err(e) => {
                self.spill = None;
                let e = e.to_string();
                self.spill_error = Some(e.clone());
                Err(e)
            }
        }
    }

    /// The entry for `id` of a line of the month file `file` (of `year`, when its name
    /// gives one): from the nearest scope folder above the file that serves that year.
    pub fn lookup(&mut self, file: &Path, year: Option<u16>, id: &str) -> Option<IndexEntry> {
        let mut best: Option<(usize, IndexEntry)> = None;
        for (i, (dir, y)) in self.scopes.iter().enumerate() {
            if !file.starts_with(dir) || (y.is_some() && year.is_some() && *y != year) {
                continue;
            }
            let depth = dir.components().count();
            if best.as_ref().is_some_and(|(d, _)| *d >= depth) {
                continue;
            }
            let found = match self.map.get(&(i as u32, id.to_string())) {
                Some(e) => Some(e.clone()),
                // A read error of the scratch file counts as no entry (the line keeps
                // its moves with `dump_no_index_entry`).
                None => self.spill.as_mut().and_then(|s| s.get(i as u32, id).ok().flatten()).and_then(|p| decode(&p)),
            };
            if let Some(e) = found {
                best = Some((depth, e));
            }
        }
        best.map(|b| b.1)
    }
}

/// Komi 6.5 where a Tygem record has none (docs/reading.md, "One-line dumps").
pub const TYGEM_KOMI: &str = "6.5";

/// One dump line (its id and moves, [`split_line`]) and its index entry as an SGF
/// document, with the quirks of the join.
pub fn to_sgf(id: &str, moves: &[u8], entry: Option<&IndexEntry>) -> (Vec<u8>, Vec<&'static str>) {
    let mut quirks = Vec::new();
    let mut root = format!("(;GM[1]FF[4]CA[UTF-8]SZ[19]GN[{}]", crate::formats::escape_text(id));
    match entry {
        None => quirks.push("dump_no_index_entry"),
        Some(e) => {
            for (p, v) in [("PB", &e.black), ("PW", &e.white), ("RE", &e.result), ("DT", &e.date)] {
                if !v.is_empty() {
                    root.push_str(&format!("{p}[{}]", crate::formats::escape_text(v)));
                }
            }
            match (&e.komi, e.layout) {
                (Some(k), _) => root.push_str(&format!("KM[{}]", crate::formats::escape_text(k))),
                (None, Layout::Tygem) => {
                    root.push_str(&format!("KM[{TYGEM_KOMI}]"));
                    quirks.push("dump_komi_assumed");
                }
                (None, Layout::Tom) => {}
            }
            let (all, played) = count_moves(moves);
            if e.moves.is_some_and(|n| n != all && n != played) {
                quirks.push("dump_move_count_differs");
            }
        }
    }
    let mut doc = root.into_bytes();
    doc.extend_from_slice(moves);
    doc.push(b')');
    (doc, quirks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_recognised_by_content() {
        assert!(looks_like_dump(b"12345\t;B[qd];W[dp]\n678\t;B[pp]"));
        assert!(!looks_like_dump(b"(;GM[1];B[aa])"));
        assert!(!looks_like_dump(b"12345 ;B[qd]"));
        assert_eq!(split_line(b"77\t;B[qd];W[]\r"), Some(("77", &b";B[qd];W[]"[..])));
        assert_eq!(split_line(b"77\t;B[qd])(;W[aa]"), None);
        assert_eq!(count_moves(b";B[qd];W[];B[tt];W[dd]"), (4, 2));
    }

    #[test]
    fn both_index_layouts_and_a_line_holding_two_records() {
        let tygem = "101\tC2016.12.31 23:59\tWhite Nick\twid\t0\t\tbid\t2\tB+Resign\t211\t30/3 5m";
        let r = parse_index_line(tygem).unwrap();
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].0, "101");
        let e = &r[0].1;
        assert_eq!(
            (e.layout, e.date.as_str(), e.white.as_str(), e.black.as_str()),
            (Layout::Tygem, "2016-12-31", "White Nick", "bid")
        );
        assert_eq!((e.result.as_str(), e.komi.as_deref(), e.moves), ("B+Resign", None, Some(211)));
        let tom = "7\t2008.08.01 10:00\tw\tb\t7.5\tW+2.5\t180\t10m\r";
        let e = &parse_index_line(tom).unwrap()[0].1;
        assert_eq!(
            (e.layout, e.komi.as_deref(), e.result.as_str(), e.moves),
            (Layout::Tom, Some("7.5"), "W+2.5", Some(180))
        );
        // Two Tygem records with the newline lost: 21 fields.
        let two = format!("{tygem}102\tC2016.12.30 01:02\tw2\twid2\t1\tb2\tbid2\t1\tW+0.5\t150\t30/3 5m");
        assert_eq!(two.split('\t').count(), 21);
        let r = parse_index_line(&two).unwrap();
        assert_eq!(r.iter().map(|x| x.0.as_str()).collect::<Vec<_>>(), ["101", "102"]);
        assert_eq!(r[1].1.result, "W+0.5");
        // Joined by a TAB: 22 fields.
        let r = parse_index_line(&format!("{tygem}\t{}", tom.trim_end())).unwrap();
        assert_eq!((r.len(), r[1].1.layout), (2, Layout::Tom));
        assert_eq!(parse_index_line("no\tdate\there"), None);
        // Two dates side by side (found by the fuzzer: a one-field record).
        assert_eq!(parse_index_line("1\tC2016.12.31 23: 516\tC2016.12.31 23:59Gidw\tMw\t\t0\te"), None);
        assert_eq!(parse_index_line("  "), Some(vec![]));
    }

    #[test]
    fn scopes_years_and_the_budget() {
        assert_eq!(year_of_month("kifu/2016-12"), Some(2016));
        assert_eq!(year_of_index("Kifu2016.index.tar.gz"), Some(2016));
        assert_eq!(year_of_index("Kifu.index"), None);
        assert_eq!(scope_dir(Path::new("/d/TYGEM/index/Kifu2016.zip")), Path::new("/d/TYGEM"));
        assert_eq!(scope_dir(Path::new("/d/Tom/Kifu.index")), Path::new("/d/Tom"));
        let e = parse_index_line("5\t2008.08.01 10:00\tw\tb\t7.5\tW+2.5\t180\t10m").unwrap().remove(0).1;
        // docs/reading.md's figure: under 300 bytes for a record of ordinary length.
        let long = parse_index_line(&format!(
            "12345678\tC2016.12.31 23:59\t{0}\t{0}\t0\t{0}\t{0}\t2\tB+Resign\t211\t30/3 5m",
            "n".repeat(12)
        ));
        assert!(long.unwrap()[0].1.bytes("12345678") < 300);
        let mut ix = DumpIndex::new(e.bytes("5") * 2);
        let y16 = ix.scope("/d/TYGEM".into(), Some(2016));
        let top = ix.scope("/d".into(), None);
        assert_eq!(ix.insert(y16, "5".into(), e.clone()), Insert::Added);
        assert_eq!(ix.insert(y16, "5".into(), e.clone()), Insert::Duplicate);
        assert_eq!(ix.insert(top, "6".into(), e.clone()), Insert::Added);
        assert_eq!(ix.insert(top, "7".into(), e.clone()), Insert::OverBudget);
        assert_eq!((ix.len(), ix.over_budget, ix.duplicates), (2, 1, 1));
        assert!(ix.lookup(Path::new("/d/TYGEM/Kifu/2016-12.zip"), Some(2016), "5").is_some());
        assert!(ix.lookup(Path::new("/d/TYGEM/Kifu/2015-12.zip"), Some(2015), "5").is_none());
        assert!(ix.lookup(Path::new("/other/2016-12"), Some(2016), "5").is_none());
        assert!(ix.lookup(Path::new("/d/x/2016-01"), Some(2016), "6").is_some());
    }

    #[test]
    fn a_spilled_index_counts_and_finds_what_one_in_memory_does() {
        let tom = parse_index_line("5\t2008.08.01 10:00\tw\tb\t7.5\tW+2.5\t180\t10m").unwrap().remove(0).1;
        let tygem =
            parse_index_line("9\tC2016.12.31 23:59\tW]n\twid\t0\t박\tbid\t2\tW+Time\t\t30/3 5m").unwrap().remove(0).1;
        for e in [&tom, &tygem] {
            assert_eq!(decode(&encode(e)).as_ref(), Some(e));
        }
        let dir = tempfile::tempdir().unwrap();
        let mut memory = DumpIndex::new(usize::MAX);
        let mut spilled = DumpIndex::with_spill(tom.bytes("5") * 3, dir.path().into());
        for ix in [&mut memory, &mut spilled] {
            let a = ix.scope("/d".into(), None);
            let b = ix.scope("/d/e".into(), Some(2016));
            for i in 0..200 {
                let mut e = if i % 2 == 0 { tom.clone() } else { tygem.clone() };
                e.black = format!("b{i}");
                ix.insert(if i % 3 == 0 { b } else { a }, format!("{}", i % 150), e);
            }
            ix.finish().unwrap();
        }
        assert_eq!((memory.spilled, memory.duplicates, memory.over_budget), (0, 50, 0));
        assert!(spilled.spilled > 190 && spilled.spill_bytes() > 0);
        assert_eq!((spilled.duplicates, spilled.over_budget), (50, 0));
        for id in 0..160 {
            for (file, year) in [("/d/2016-01", Some(2016)), ("/d/e/2016-02", Some(2016)), ("/d/e/2015-02", Some(2015))]
            {
                let id = id.to_string();
                assert_eq!(spilled.lookup(Path::new(file), year, &id), memory.lookup(Path::new(file), year, &id));
            }
        }
        assert!(spilled.lookup(Path::new("/d/e/2016-02"), Some(2016), "3").is_some());
    }

    #[test]
    fn a_line_and_its_entry_make_one_sgf_game() {
        let e = parse_index_line("9\tC2016.12.31 23:59\tW]n\twid\t0\tB\\n\tbid\t2\tW+Time\t3\t30/3 5m")
            .unwrap()
            .remove(0)
            .1;
        let (doc, q) = to_sgf("9", b";B[qd];W[dp];B[pp];W[]", Some(&e));
        let text = String::from_utf8(doc.clone()).unwrap();
        assert_eq!(
            text,
            "(;GM[1]FF[4]CA[UTF-8]SZ[19]GN[9]PB[B\\\\n]PW[W\\]n]RE[W+Time]DT[2016-12-31]KM[6.5];B[qd];W[dp];B[pp];W[])"
        );
        assert_eq!(q, ["dump_komi_assumed"]);
        let g = crate::sgf::read_games(&doc).games.remove(0).unwrap();
        assert_eq!((g.black.as_deref(), g.white.as_deref()), (Some("B\\n"), Some("W]n")));
        assert_eq!(g.moves.len(), 4);
        let (_, q) = to_sgf("9", b";B[qd];W[dp]", Some(&e));
        assert_eq!(q, ["dump_komi_assumed", "dump_move_count_differs"]);
        let (doc, q) = to_sgf("9", b";B[qd]", None);
        assert_eq!((doc, q), (b"(;GM[1]FF[4]CA[UTF-8]SZ[19]GN[9];B[qd])".to_vec(), vec!["dump_no_index_entry"]));
    }
}
