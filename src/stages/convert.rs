/*!
`kibo convert FILE --to sgf [--out DIR]`: any record kibo reads (SGF, Tygem `.gib`,
WBaduk `.ngf`, IGS `.ugf`/`.ugi`) written as clean SGF by [`crate::formats::write_sgf`].

`FILE` may be a folder: every record file under it (by extension, `.sgf`, `.gib`, `.ngf`,
`.ugf`, `.ugi`, any case; in name order) is converted as one file, into the same
relative folder under DIR ([`convert_folder`]).

Without `--out` the games go to stdout, one tree each; with it, one file per game in DIR:
`<stem>.sgf` for a one-game file, `<stem>-<n>.sgf` (n from 1) otherwise, where the stem
is the file name without its record extensions (`a.gib..gib` → `a`). Re-reading a
written file gives the same games row apart from the source columns (`source`,
`source_file`, `member`, `game_index`, `byte_offset`, `charset`, `format`, `quirks`,
and `komi_raw`, which becomes the normalised komi).
*/

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::formats::{read_document, write_sgf};
use crate::sgf::ParseLimits;

/// What one conversion did.
#[derive(Debug, Default)]
pub struct Converted {
    /// Files written (empty when writing to stdout).
    pub written: Vec<PathBuf>,
    /// The SGF text, when no folder was given.
    pub text: String,
    /// Games that could not be read: `(index, reason: detail)`.
    pub failed: Vec<(usize, String)>,
    /// Games converted.
    pub games: usize,
}

/// The file name without its record extensions.
fn stem(file: &Path) -> String {
    let mut s = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    loop {
        let lower = s.to_ascii_lowercase();
        match [".gib", ".ngf", ".ugf", ".ugi", ".sgf", "."].iter().find(|e| lower.ends_with(*e)) {
            Some(e) if s.len() > e.len() => s.truncate(s.len() - e.len()),
            _ => break,
        }
    }
    if s.is_empty() {
        "game".into()
    } else {
        s
    }
}

/// Converts `file`; writes into `out` when given (created if needed).
pub fn convert(file: &Path, out: Option<&Path>) -> anyhow::Result<Converted> {
    let bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let games = read_document(&name, &bytes, ParseLimits::default()).games;
    let mut done = Converted::default();
    let ok: Vec<_> = games
        .into_iter()
        .enumerate()
        .filter_map(|(i, g)| match g {
            Ok(g) => Some(g),
            Err(e) => {
                done.failed.push((i, e.to_string()));
                None
            }
        })
        .collect();
    done.games = ok.len();
    if let Some(dir) = out {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let stem = stem(file);
    for g in &ok {
        let sgf = write_sgf(g);
        match out {
            None => done.text.push_str(&sgf),
            Some(dir) => {
                let path = if ok.len() == 1 && done.failed.is_empty() {
                    dir.join(format!("{stem}.sgf"))
                } else {
                    dir.join(format!("{stem}-{}.sgf", g.index + 1))
                };
                std::fs::write(&path, sgf).with_context(|| format!("writing {}", path.display()))?;
                done.written.push(path);
            }
        }
    }
    Ok(done)
}

/// Is `path` a record file `kibo convert` reads (by extension)?
fn is_record_file(path: &Path) -> bool {
    let ext = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    ["sgf", "gib", "ngf", "ugf", "ugi"].contains(&ext.as_str())
}

/// Converts every record file under the folder `dir` (see the module docs), each into
/// its own relative folder under `out` (or to stdout's text). A file that cannot be read
/// at all is an error of its own, named, and does not stop the others.
pub fn convert_folder(dir: &Path, out: Option<&Path>) -> anyhow::Result<Vec<(PathBuf, anyhow::Result<Converted>)>> {
    let mut files: Vec<PathBuf> = Vec::new();
    for e in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let e = e.with_context(|| format!("reading folder {}", dir.display()))?;
        if e.file_type().is_file() && is_record_file(e.path()) {
            files.push(e.into_path());
        }
    }
    Ok(files
        .into_iter()
        .map(|f| {
            let target = out.map(|o| {
                let rel = f.strip_prefix(dir).ok().and_then(|r| r.parent()).unwrap_or(Path::new(""));
                o.join(rel)
            });
            let done = convert(&f, target.as_deref());
            (f, done)
        })
        .collect())
}
