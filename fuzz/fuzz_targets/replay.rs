//! Replay never panics and keeps the board consistent on any move sequence.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    use kibo::color::Color;
    use kibo::coord::Move;
    let moves = data
        .chunks_exact(2)
        .zip(data.iter())
        .map(|(c, b)| kibo::sgf::GameMove {
            color: if b & 1 == 0 { Color::Black } else { Color::White },
            mv: Move::from_index(u16::from_le_bytes([c[0], c[1]]) % 362).expect("index in 0..=361"),
        })
        .collect();
    let g = kibo::game::GameRow { moves, ..Default::default() };
    let cfg = kibo::config::SplitConfig::default();
    let _ = kibo::stages::split::game_samples(&g, &cfg, 1, kibo::samples::BufMode::Full);
});
