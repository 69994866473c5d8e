//! `kibo export <format>`: the leela chunks, the katago npz files or the VLM set from a
//! `kibo run` folder; one file per format, each with its args and its handler.

use clap::Subcommand;

mod katago;
mod leela;
mod vlm;

/// The formats of `kibo export` (`stages::export`).
#[derive(Subcommand, Debug)]
pub(super) enum ExportCmd {
    /// Leela Zero v1 training chunks (gzipped text, 19 lines per position) in DIR/train/
    /// and DIR/val/, each chunk with a .rows.tsv naming its records' games and moves.
    Leela(leela::LeelaArgs),
    /// KataGo training npz files (katago-v7 inputs and targets) in the layout of
    /// `train.py -datadir DIR` (docs/planes.md).
    Katago(katago::KatagoArgs),
    /// A vision-language training set: board pictures made for a model, prompts and
    /// answers, as Parquet shards (datasets, LLaMA-Factory, ms-swift, TRL) or the Qwen-VL
    /// recipe's JSONL and PNGs (docs/vlm.md).
    Vlm(vlm::VlmArgs),
}

/// `kibo export`: each format's handler.
pub(super) fn exec(c: ExportCmd) -> anyhow::Result<i32> {
    match c {
        ExportCmd::Leela(a) => leela::exec(a),
        ExportCmd::Katago(a) => katago::exec(a),
        ExportCmd::Vlm(a) => vlm::exec(a),
    }
}
