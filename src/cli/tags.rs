//! `kibo tags FILE`: the tactical tags of every move of one game, on stdout.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::exit::Exit;
use crate::error::SetupError;

#[derive(Args, Debug)]
pub(super) struct TagsArgs {
    /// SGF file.
    file: PathBuf,
    /// Game index in the file (0-based).
    #[arg(long, default_value_t = 0)]
    game: usize,
}

/// `kibo tags`: an unreadable file or game is a setup error; a closed pipe is no error.
pub(super) fn exec(a: TagsArgs) -> anyhow::Result<i32> {
    let text = crate::stages::inspect::tags_report(&a.file, a.game).map_err(|e| SetupError(format!("{e:#}")))?;
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_all(text.as_bytes()) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            return Err(e.into());
        }
    }
    Ok(Exit::Ok as i32)
}
