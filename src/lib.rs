/*!
kibo turns archives of Go game records into a clean, deduplicated, tactically
tagged training set of per-move samples in Parquet.

Data flow:
```text
inputs ──input::walk──▶ documents ──sgf::read_games──▶ GameRecord ──▶ game::GameRow
   ──stages::filter──▶ games + rejects tables (Parquet, through tables)
   ──stages::split (passes over replay::replay)──▶ samples shards + manifest.json
```
The layers, what each module may import, and where a new column, reject reason, tag or
stage goes: `docs/architecture.md` (a test enforces its layer table and the absence of
import cycles). In short: `coord` and `color` are the vocabulary of the board; `engine`
and `sgf` use nothing else; `reject`, `config` and `game` are the pipeline's vocabulary;
`tables` and `samples` are the only code that knows the tables' columns; `stages` wire
the rest; `cli` is the only place that knows about the command line.
*/

pub mod analysis;
pub mod cli;
pub mod color;
pub mod config;
pub mod coord;
pub mod cpu;
pub mod dedup;
pub mod engine;
pub mod error;
pub mod features;
pub mod formats;
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

/// Where the tests find the shared corpus: the one lookup every test uses (the unit tests
/// in `src` and, through `tests/util`, the integration tests). Not part of the API.
#[doc(hidden)]
pub mod test_data {
    use std::path::{Path, PathBuf};

    /// Set to `1` to make a missing corpus a test failure instead of a skip.
    pub const REQUIRE_VAR: &str = "KIBO_REQUIRE_SHARED_DATA";

    /// `CARGO_MANIFEST_DIR/../shared/data/<sub>` if it exists. If it is absent: a panic
    /// naming the path when `KIBO_REQUIRE_SHARED_DATA=1`, else one `SKIPPED: …` line and
    /// `None` (the caller returns).
    pub fn shared(sub: &str) -> Option<PathBuf> {
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data").join(sub);
        if p.exists() {
            return Some(p);
        }
        match std::env::var(REQUIRE_VAR).as_deref() {
            Ok("1") => panic!("{} is absent and {REQUIRE_VAR}=1: this test needs the shared corpus", p.display()),
            Ok("0") | Ok("") | Err(std::env::VarError::NotPresent) => {
                println!(
                    "SKIPPED: {} is absent; this test needs the shared corpus ({REQUIRE_VAR}=1 fails instead)",
                    p.display()
                );
                None
            }
            Ok(v) => panic!("{REQUIRE_VAR}={v:?}: expected 1 (require the shared corpus) or 0"),
            Err(e) => panic!("{REQUIRE_VAR}: {e}"),
        }
    }
}
