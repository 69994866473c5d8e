//! `kibo stats`: the summary tables (Polars, the `query` feature) of an output folder.

use std::path::Path;

use super::args::OutArgs;
#[cfg(feature = "query")]
use super::exit::Exit;
use super::resolve::resolve;
use crate::error::setup;

/// `kibo stats`: needs the games table of `kibo run`.
pub(super) fn exec(a: OutArgs) -> anyhow::Result<i32> {
    let r = resolve(&a, &[], None)?;
    if !r.out.join("games").is_dir() {
        return setup(format!("{} has no games table: run `kibo run` first", r.out.display()));
    }
    stats(&r.out)
}

/// The tables computed, written to DIR/stats/ and printed.
#[cfg(feature = "query")]
fn stats(out: &Path) -> anyhow::Result<i32> {
    let s = crate::stats::compute(out)?;
    s.write(out)?;
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = s.print(&mut stdout) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            return Err(e.into());
        }
    }
    eprintln!("stats: tables written to {}", out.join("stats").display());
    Ok(Exit::Ok as i32)
}

#[cfg(not(feature = "query"))]
fn stats(_out: &Path) -> anyhow::Result<i32> {
    setup("this kibo was built without the `query` feature (Polars); run `make stats`, which builds it")
}
