//! `kibo sample`: a seeded draw, and every exported mini SGF read back by kibo's own
//! reader gives the board, side to move and move of its sample row.

use crate::util::{run, samples, snapshot, stderr};

fn pipeline_run(out: &std::path::Path) {
    let o = run(&["run", "--pipeline", "pipelines/default.toml", "--out", out.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn export_round_trips_and_is_seeded() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    pipeline_run(&out);
    let o = run(&["sample", "--out", out.to_str().unwrap(), "--pipeline", "pipelines/default.toml", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let verify = out.join("verify");
    assert!(verify.join("index.html").exists());
    // Every sample row, by (source, move_number).
    let rows: std::collections::HashMap<(String, u64), _> =
        samples(&out).into_iter().map(|r| ((r.source.clone(), r.move_number as u64), r)).collect();
    let mut n = 0;
    for i in 1..=20 {
        let meta: serde_json::Value =
            serde_json::from_slice(&std::fs::read(verify.join(format!("sample-{i:02}.json"))).unwrap()).unwrap();
        let sgf = std::fs::read(verify.join(format!("sample-{i:02}.sgf"))).unwrap();
        let g = kibo::sgf::read_games(&sgf).games.remove(0).expect("mini SGF reads back");
        let key = (meta["source"].as_str().unwrap().to_string(), meta["move_number"].as_u64().unwrap());
        let row = rows.get(&key).expect("the sample row exists");
        let mut cells = vec![0u8; 361];
        for p in &g.setup_black {
            cells[p.index() as usize] = 1;
        }
        for p in &g.setup_white {
            cells[p.index() as usize] = 2;
        }
        assert_eq!(cells, row.board, "sample {i}: board");
        assert_eq!(g.moves.len(), 1, "sample {i}: one move");
        let color = if g.moves[0].color == kibo::sgf::Color::Black { 1 } else { 2 };
        assert_eq!(color, row.to_play, "sample {i}: side to move");
        assert_eq!(
            g.first_player.map(|c| if c == kibo::sgf::Color::Black { 1 } else { 2 }),
            Some(row.to_play),
            "sample {i}: PL"
        );
        assert_eq!(g.moves[0].mv.index(), row.mv, "sample {i}: move");
        assert_eq!(meta["answer_gtp"].as_str().unwrap(), g.moves[0].mv.to_gtp());
        n += 1;
    }
    assert_eq!(n, 20);
    // The same seed gives the same files; another seed another draw.
    let before = snapshot(&verify);
    let o = run(&["sample", "--out", out.to_str().unwrap(), "--pipeline", "pipelines/default.toml"]);
    assert!(o.status.success());
    assert_eq!(snapshot(&verify), before);
    let o = run(&["sample", "--out", out.to_str().unwrap(), "--seed", "7", "--n", "5", "--split", "train"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_ne!(snapshot(&verify), before);
    assert!(!verify.join("sample-06.json").exists(), "old files of a larger export are removed");
    for i in 1..=5 {
        let meta: serde_json::Value =
            serde_json::from_slice(&std::fs::read(verify.join(format!("sample-{i:02}.json"))).unwrap()).unwrap();
        assert_eq!(meta["split"], "train");
    }
    let o = run(&["sample", "--out", out.to_str().unwrap(), "--split", "bogus"]);
    assert_eq!(o.status.code(), Some(2));
}
