//! The GIB, NGF and UGF readers never panic, whatever the bytes, and every game they
//! read survives the SGF writer: written and read back, the same moves.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The first byte picks the name (and so the reader); the rest is the file.
    let Some((&b, rest)) = data.split_first() else { return };
    let name = ["x.gib", "x.ngf", "x.ugf", "x.ugi"][(b & 3) as usize];
    let f = kibo::formats::read_document(name, rest, kibo::sgf::ParseLimits::default());
    for g in f.games.iter().flatten() {
        for m in &g.moves {
            assert!(m.mv.index() <= kibo::coord::PASS);
        }
        if g.format == "sgf" {
            continue;
        }
        let sgf = kibo::formats::write_sgf(g);
        let back = kibo::sgf::read_games(sgf.as_bytes());
        let back = back.games[0].as_ref().expect("written SGF reads back");
        assert_eq!(back.moves, g.moves);
        if g.setup_white.is_empty() {
            assert_eq!(back.setup_black, g.setup_black);
        }
        if g.komi.is_some_and(|k| k.abs() < 100.0) {
            assert_eq!(back.komi, g.komi);
        }
        assert_eq!(back.result.kind, g.result.kind);
    }
});
