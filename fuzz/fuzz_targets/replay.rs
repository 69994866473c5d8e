//! Replay never panics and keeps the board consistent on any move sequence.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let moves: Vec<u16> = data.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]]) % 362).collect();
    let colors: String = data.iter().take(moves.len()).map(|b| if b & 1 == 0 { 'B' } else { 'W' }).collect();
    let g = kibo::tables::GameRow {
        game_id: "0".repeat(32),
        num_moves: moves.len() as u32,
        moves,
        colors,
        result_kind: "unknown".into(),
        ..Default::default()
    };
    let cfg = kibo::config::SplitConfig::default();
    let _ = kibo::stages::split::replay_game(&g, &cfg, 1);
});
