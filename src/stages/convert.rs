/*!
`kibo convert FILE --to sgf [--out DIR]`: any record kibo reads (SGF, Tygem `.gib`,
WBaduk `.ngf`, IGS `.ugf`/`.ugi`) written as clean SGF by [`crate::formats::write_sgf`].

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
