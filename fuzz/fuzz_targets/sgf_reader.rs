//! The SGF reader never panics, whatever the bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Every other input runs with tiny tree limits, so that the over-limit paths
    // (skipping the rest of a tree, reading the next one) are fuzzed too.
    let f = match data.first() {
        Some(&b) if b & 1 == 1 => kibo::sgf::read_games_with(
            data,
            kibo::sgf::ParseLimits { max_nodes: 1 + (b as u32 >> 1) % 64, max_depth: 1 + (b as u32 >> 4) },
        ),
        _ => kibo::sgf::read_games(data),
    };
    for g in f.games.iter().flatten() {
        // Every point a record holds is on the 19×19 board.
        for m in &g.moves {
            assert!(m.mv.index() <= kibo::coord::PASS);
        }
    }
});
