//! `kibo convert FILE`: the games of a record file (or of every record file under a
//! folder) written as clean SGF.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::exit::Exit;
use crate::error::{setup, SetupError};

#[derive(Args, Debug)]
pub(super) struct ConvertArgs {
    /// The record file, or a folder: every record file under it (.sgf .gib .ngf .ugf .ugi).
    file: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "sgf")]
    to: Format,
    /// Folder for the written files (default: stdout).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// The formats `kibo convert` writes: SGF alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    Sgf,
}

/// `kibo convert`: 0 every game written, 1 some games (or files of a folder) could not be
/// read (named on stderr), 2 a usage error or no game at all.
pub(super) fn exec(a: &ConvertArgs) -> anyhow::Result<i32> {
    let Format::Sgf = a.to; // the one format; another is a match on it here
    if !a.file.exists() {
        return setup(format!("{}: no such file or folder", a.file.display()));
    }
    let results = if a.file.is_dir() {
        crate::stages::convert::convert_folder(&a.file, a.out.as_deref()).map_err(|e| SetupError(format!("{e:#}")))?
    } else {
        vec![(a.file.clone(), crate::stages::convert::convert(&a.file, a.out.as_deref()))]
    };
    if results.is_empty() {
        return setup(format!("{}: no record files (.sgf .gib .ngf .ugf .ugi) in this folder", a.file.display()));
    }
    let (mut games, mut failed) = (0usize, false);
    for (file, done) in &results {
        let done = match done {
            Ok(d) => d,
            Err(e) => {
                eprintln!("convert: {e:#}");
                failed = true;
                continue;
            }
        };
        for (i, e) in &done.failed {
            eprintln!("convert: {} game {i}: {e}", file.display());
            failed = true;
        }
        if done.written.is_empty() && done.text.is_empty() {
            eprintln!("convert: {}: no game could be read", file.display());
            failed = true;
        }
        games += done.games;
        print!("{}", done.text);
        for p in &done.written {
            eprintln!("convert: wrote {}", p.display());
        }
    }
    if games == 0 {
        return setup(format!("{}: no game could be read", a.file.display()));
    }
    Ok(if failed { Exit::SomeUnreadable } else { Exit::Ok } as i32)
}
