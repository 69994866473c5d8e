/*!
kibo turns archives of Go game records into a clean, deduplicated, tactically
tagged training set of per-move samples in Parquet.

Data flow:
```text
inputs ──input::walk──▶ documents ──sgf::read_games──▶ GameRecord
   ──stages::filter──▶ games + rejects tables (Parquet)
   ──stages::split (engine replay)──▶ samples shards + manifest.json
```
Module rules: `coord`, `engine` and `sgf` use nothing else from the crate but
`coord`; `storage`/`tables` know Arrow and Parquet; `stages` wire the rest; `cli`
is the only place that knows about the command line.
*/

pub mod cli;
pub mod color;
pub mod config;
pub mod coord;
pub mod dedup;
pub mod engine;
pub mod game;
pub mod input;
pub mod progress;
pub mod reject;
pub mod replay;
pub mod samples;
pub mod scoring;
pub mod sgf;
pub mod stages;
#[cfg(feature = "query")]
pub mod stats;
pub mod storage;
pub mod tables;
pub mod tactics;
pub mod verify;
