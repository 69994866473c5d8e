//! The SGF reader never panics, whatever the bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let f = kibo::sgf::read_games(data);
    for g in f.games.iter().flatten() {
        // Every point a record holds is on the 19×19 board.
        for m in &g.moves {
            assert!(m.mv.index() <= kibo::coord::PASS);
        }
    }
});
