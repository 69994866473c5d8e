/*!
Command line: clap arguments → resolved settings → stage runs.

One file per command, each with its arguments and its handler (`exec`), as cargo's
`src/bin/cargo/commands/`; the argument groups several commands share are in [`args`],
their merge with the pipeline file in [`resolve`]. This file holds the parser, the
dispatch and the exit codes.

Exit codes (README, "Command line"; the first three are the product contract's, in
`../shared/docs/DESIGN.md`): 0 all read; 1 finished, but some inputs could not be read
(each reported in `rejects` as `unreadable_file`); 2 usage or setup error, nothing
written; 3 a stage failed while running, its outputs not replaced.
*/

use clap::{Parser, Subcommand};

mod args;
mod convert;
mod eval;
mod exit;
mod export;
mod filter;
mod label;
mod part;
mod play;
mod resolve;
mod sample;
mod score;
mod split;
mod stats;
mod tags;
#[cfg(test)]
mod tests;

pub use crate::error::SetupError;
pub use exit::Exit;
pub use resolve::Resolved;

/// kibo: Go game archives → clean, deduplicated Parquet training samples.
#[derive(Parser, Debug)]
#[command(name = "kibo", version, about, long_about = None, after_help = EXIT_CODES)]
pub struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

/// The exit codes as `kibo --help` lists them (the same as [`Exit`]).
const EXIT_CODES: &str = "Exit codes: 0 all inputs read; 1 finished, but some inputs could not be read (each a \
                          rejects row, unreadable_file); 2 usage or setup error, nothing written; 3 a stage failed \
                          while running (the message names the file; that stage's outputs were not replaced).";

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Read archives into the games and rejects tables.
    Filter(args::RunArgs),
    /// Replay the games table into per-move samples (Parquet shards).
    Split(args::OutArgs),
    /// filter, then split.
    Run(args::RunArgs),
    /// Draw random samples from the shards and write the eye-check export to DIR/verify/.
    Sample(sample::SampleArgs),
    /// Print the tactical tags of every move of one game.
    Tags(tags::TagsArgs),
    /// Count one game: dead stones and territory marked, the count, the recorded result.
    Score(score::ScoreArgs),
    /// Summary tables of the games, rejects and samples (Polars); also DIR/stats/*.csv and stats.json.
    Stats(args::OutArgs),
    /// Write the games of one record file (SGF, Tygem .gib, WBaduk .ngf, IGS .ugf/.ugi) as clean SGF.
    Convert(convert::ConvertArgs),
    /// One step of the map/reduce form, run by the Spark job (docs/distributed.md).
    #[command(subcommand)]
    Part(part::PartCmd),
    /// Training data for other tools' trainers, from the sample shards (train and val).
    #[command(subcommand)]
    Export(export::ExportCmd),
    /// KataGo's reading of drawn positions (the rows `kibo export vlm` draws with the same
    /// seed, limit and tags) as the table DIR/labels/ (docs/labels.md).
    Label(label::LabelArgs),
    /// Score a model's answers to an evaluation set (`kibo export vlm --splits test`):
    /// every rate with its 95% interval, the coordinate errors named (docs/eval.md).
    Eval(eval::EvalArgs),
    /// Play models and engines against each other: every game counted and kept as SGF,
    /// the Elo difference with its 95% interval, LOS and an optional SPRT (docs/match.md).
    Match(play::MatchArgs),
}

/// Parses `std::env::args` and runs; returns the exit code.
pub fn main_with_args() -> i32 {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("kibo: error: {e:#}");
            Exit::of_error(&e) as i32
        }
    }
}

/// Runs one parsed command line: each command's handler, which returns the exit code.
fn run(cli: Cli) -> anyhow::Result<i32> {
    match cli.cmd {
        Cmd::Filter(a) => filter::exec(a),
        Cmd::Split(a) => split::exec(a),
        Cmd::Run(a) => filter::exec_run(a),
        Cmd::Sample(a) => sample::exec(a),
        Cmd::Tags(a) => tags::exec(a),
        Cmd::Score(a) => score::exec(a),
        Cmd::Stats(a) => stats::exec(a),
        Cmd::Convert(a) => convert::exec(&a),
        Cmd::Part(c) => part::exec(c),
        Cmd::Export(c) => export::exec(c),
        Cmd::Label(a) => label::exec(a),
        Cmd::Eval(a) => eval::exec(a),
        Cmd::Match(a) => play::exec(a),
    }
}
