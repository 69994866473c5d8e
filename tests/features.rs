//! Network inputs from the shards: every row of the embedded sample, read back with
//! `features::for_each_position`, rebuilds the boards before it exactly as an independent
//! replay of its game (the games table, played on the engine's board) has them.

use std::collections::HashMap;
use std::path::Path;

use kibo::coord::NN;
use kibo::engine::{Board, Rules};
use kibo::features::{by_name, for_each_position};

use crate::util::{games, run_ok};

/// The board before every move of every game, keyed by game id.
fn boards_by_game(out: &Path) -> HashMap<String, Vec<[u8; NN]>> {
    let mut m = HashMap::new();
    for g in games(out) {
        let mut b = Board::new();
        for (pts, v) in [(&g.setup_black, 1), (&g.setup_white, 2)] {
            for &p in pts {
                b.set_stone(p, v).unwrap();
            }
        }
        let mut v = Vec::new();
        for mv in &g.moves {
            let mut cells = [0u8; NN];
            b.cells(&mut cells);
            v.push(cells);
            if b.play(mv.color, mv.mv, &Rules::default()).is_err() {
                break;
            }
        }
        m.insert(g.game_id.to_hex(), v);
    }
    m
}

#[test]
fn every_sample_row_rebuilds_the_boards_of_its_game() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    run_ok("run", Path::new("data/kombilo"), &out, Path::new("pipelines/default.toml"));
    let want = boards_by_game(&out);
    let (mut rows, mut boards, mut with_captures) = (0, 0, 0);
    let set = by_name("leela-18").unwrap();
    let mut planes = vec![0u8; set.spatial * NN];
    for_each_position(&out, None, |p| {
        let game = &want[&p.game_id];
        let i = p.move_number as usize - 1;
        assert_eq!(p.board, game[i], "{} move {}: board", p.game_id, p.move_number);
        assert_eq!(p.history_len, i.min(8));
        for k in 1..=p.history_len {
            assert!(
                p.board_before(k).unwrap() == &game[i - k],
                "{} move {}: board {k} before",
                p.game_id,
                p.move_number
            );
            boards += 1;
        }
        (set.encode)(p, &mut planes, &mut []);
        // Plane 7 is the board 7 moves before: the own stones there, or zeros before the start.
        let own7: usize = planes[7 * NN..8 * NN].iter().map(|&v| v as usize).sum();
        let expect = p.board_before(7).map_or(0, |b| b.iter().filter(|&&c| c == p.to_play).count());
        assert_eq!(own7, expect);
        with_captures += !p.history_captures.is_empty() as usize;
        rows += 1;
        Ok(())
    })
    .unwrap();
    let mut train = 0;
    for_each_position(&out, Some("train"), |_| {
        train += 1;
        Ok(())
    })
    .unwrap();
    assert!(rows > 5_000 && boards > 7 * 5_000 && with_captures > 500, "{rows} rows, {boards}, {with_captures}");
    assert!(train > 0 && train < rows, "{train} of {rows}");
}
