//! Tags through the pipeline: GNU Go's ladder1.sgf moves 55 and 59 are
//! `ladder_capture` in the shards; tactical sampling options; `kibo tags`.

use crate::util::{report, run, samples, shared, stderr};

/// (move number, tag mask, tag names) of every sample (tags on: both columns set).
fn tags_of(out: &std::path::Path) -> Vec<(u16, u32, Vec<String>)> {
    samples(out)
        .into_iter()
        .map(|r| (r.move_number, r.tag_mask.expect("tag_mask with tags on"), r.tags.expect("tags with tags on")))
        .collect()
}

#[test]
fn gnugo_ladder1_moves_55_and_59_are_ladder_captures() {
    let Some(ladders) = shared("ladders") else { return };
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    std::fs::copy(ladders.join("gnugo_ladder1.sgf"), input.join("ladder1.sgf")).unwrap();
    let out = dir.path().join("out");
    let o = run(&["run", "--input", input.to_str().unwrap(), "--out", out.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = tags_of(&out);
    let ladder: Vec<u16> = t.iter().filter(|r| r.2.iter().any(|n| n == "ladder_capture")).map(|r| r.0).collect();
    assert!(ladder.contains(&55) && ladder.contains(&59), "ladder_capture at {ladder:?}");
    // Names and mask agree.
    for (_, mask, names) in &t {
        let from_mask: Vec<&str> = kibo::tactics::TAG_NAMES
            .iter()
            .enumerate()
            .filter(|(b, _)| mask & (1 << b) != 0)
            .map(|(_, n)| *n)
            .collect();
        assert_eq!(&from_mask, names);
    }
    // The inspection command prints the same.
    let o = run(&["tags", input.join("ladder1.sgf").to_str().unwrap()]);
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    let line55 = text.lines().find(|l| l.trim_start().starts_with("55 ")).unwrap();
    assert!(line55.contains("H12") && line55.contains("ladder_capture"), "{line55}");
}

#[test]
fn tactical_sampling_options() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("base");
    let p_off = dir.path().join("off.toml");
    std::fs::write(&p_off, "[split]\ndedup = \"off\"\n").unwrap();
    let o = run(&[
        "run",
        "--input",
        "data/kombilo",
        "--out",
        base.to_str().unwrap(),
        "--pipeline",
        p_off.to_str().unwrap(),
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let all = tags_of(&base);
    let tactical = all.iter().filter(|r| r.1 & kibo::tactics::Tags::TACTICAL != 0).count();
    assert!(tactical > 100 && tactical < all.len(), "{tactical} of {}", all.len());
    assert_eq!(report(&base)["split"]["tag_counts"]["is_tactical"], tactical as u64);

    let only = dir.path().join("only");
    let p = dir.path().join("only.toml");
    std::fs::write(&p, "[split]\ndedup = \"off\"\ntactical_only = true\n").unwrap();
    let o = run(&[
        "run",
        "--input",
        "data/kombilo",
        "--out",
        only.to_str().unwrap(),
        "--pipeline",
        p.to_str().unwrap(),
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = tags_of(&only);
    assert_eq!(t.len(), tactical);
    assert!(t.iter().all(|r| r.1 & kibo::tactics::Tags::TACTICAL != 0));

    // Bias: with a quota of 20 per game, half of each game's samples are tactical
    // (every kombilo game has more than 10 tactical and 10 other moves except the short ones).
    let bias = dir.path().join("bias");
    let p = dir.path().join("bias.toml");
    std::fs::write(&p, "[split]\ndedup = \"off\"\nmax_samples_per_game = 20\ntactical_bias = true\n").unwrap();
    let o = run(&[
        "run",
        "--input",
        "data/kombilo",
        "--out",
        bias.to_str().unwrap(),
        "--pipeline",
        p.to_str().unwrap(),
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut per_game: std::collections::HashMap<String, (usize, usize)> = std::collections::HashMap::new();
    for r in samples(&bias) {
        let e = per_game.entry(r.game_id).or_default();
        e.0 += 1;
        e.1 += r.is_tactical.expect("is_tactical with tags on") as usize;
    }
    let full: Vec<&(usize, usize)> = per_game.values().filter(|v| v.0 == 20).collect();
    assert!(full.len() >= 30, "{} games with a full quota", full.len());
    assert!(full.iter().all(|v| v.1 >= 10), "{full:?}");
    // Without the bias the same quota is spread evenly: fewer tactical moves overall.
    let even = dir.path().join("even");
    let p = dir.path().join("even.toml");
    std::fs::write(&p, "[split]\ndedup = \"off\"\nmax_samples_per_game = 20\n").unwrap();
    let o = run(&[
        "run",
        "--input",
        "data/kombilo",
        "--out",
        even.to_str().unwrap(),
        "--pipeline",
        p.to_str().unwrap(),
        "-q",
    ]);
    assert!(o.status.success());
    let biased_tac: usize = per_game.values().map(|v| v.1).sum();
    let even_tac = tags_of(&even).iter().filter(|r| r.1 & kibo::tactics::Tags::TACTICAL != 0).count();
    assert!(biased_tac > even_tac, "bias {biased_tac} vs even {even_tac}");
}
