//! `kibo export leela`: Leela Zero's training chunks (docs/planes-leela.md).

use clap::{Args, ValueEnum};

use crate::cli::args::ExportArgs;
use crate::cli::resolve::resolve_with;

use crate::cli::exit::Exit;

#[derive(Args, Debug)]
pub(in crate::cli) struct LeelaArgs {
    #[command(flatten)]
    export: ExportArgs,
    /// Policy target: dist (the corpus's moves from the position) or played (the move alone).
    #[arg(long, value_enum, default_value = "dist")]
    policy: Policy,
    /// Positions per chunk file.
    #[arg(long, default_value_t = 4096)]
    chunk_positions: usize,
}

/// `--policy`: [`crate::stages::export::Policy`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Policy {
    Dist,
    Played,
}

impl From<Policy> for crate::stages::export::Policy {
    fn from(p: Policy) -> crate::stages::export::Policy {
        match p {
            Policy::Dist => crate::stages::export::Policy::Dist,
            Policy::Played => crate::stages::export::Policy::Played,
        }
    }
}

/// `kibo export leela`: needs the samples table.
pub(super) fn exec(a: LeelaArgs) -> anyhow::Result<i32> {
    let r = resolve_with(&a.export.common, &["samples"])?;
    let opt =
        crate::stages::export::leela::LeelaOptions { policy: a.policy.into(), chunk_positions: a.chunk_positions };
    for (split, n) in crate::stages::export::leela::run(&r.out, &a.export.to, &opt)? {
        eprintln!(
            "export leela: {split}: {} positions in {} chunks ({} without a winner left out)",
            n.positions, n.chunks, n.no_winner
        );
    }
    Ok(Exit::Ok as i32)
}
