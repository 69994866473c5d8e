//! Counting finished games in the filter stage: `score_check` and `counted_margin` in
//! the games table, and the option that drops disagreements.

use crate::util::{games, rejects, run, run_ok, samples, stderr};

/// Black wall on column K (SGF `j` = column 9), white wall on column L (SGF `k`).
const WALLS: &str = "AB[ja:js]AW[ka:ks]";

fn corpus(dir: &std::path::Path) {
    std::fs::create_dir_all(dir).unwrap();
    let g = |re: &str, ru: &str, moves: &str| format!("(;GM[1]SZ[19]KM[6.5]RU[{ru}]RE[{re}]{WALLS}{moves})");
    // Black owns columns A–J (9 × 19 = 171), white M–T (8 × 19 = 152): B+12.5 with komi 6.5.
    std::fs::write(dir.join("a_agrees.sgf"), g("B+12.5", "Japanese", ";B[];W[]")).unwrap();
    std::fs::write(dir.join("b_disagrees.sgf"), g("W+5.5", "Japanese", ";B[aa];W[];B[];W[]")).unwrap();
    std::fs::write(dir.join("c_area.sgf"), g("B+12.5", "Chinese", ";B[bb];W[];B[cc];W[]")).unwrap();
    std::fs::write(dir.join("d_resign.sgf"), g("B+R", "Japanese", ";B[dd];W[pp]")).unwrap();
    // The same winner as the count (B+12.5), a margin 9 points away.
    std::fs::write(dir.join("e_margin.sgf"), g("B+3.5", "Japanese", ";B[];W[]")).unwrap();
}

#[test]
fn counted_games_are_checked_against_their_results() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    corpus(&input);
    let out = dir.path().join("out");
    let o = run(&["filter", "--input", input.to_str().unwrap(), "--out", out.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let g = games(&out);
    let by = |name: &str| g.iter().find(|r| r.source_file.ends_with(name)).unwrap();
    assert_eq!(by("a_agrees.sgf").score.as_ref().map(|v| v.check.as_str()), Some("agrees"));
    assert_eq!(by("a_agrees.sgf").score.as_ref().and_then(|v| v.counted_margin), Some(12.5));
    assert_eq!(by("b_disagrees.sgf").score.as_ref().map(|v| v.check.as_str()), Some("winner_differs"));
    assert_eq!(by("e_margin.sgf").score.as_ref().map(|v| v.check.as_str()), Some("margin_differs"));
    // Area counting: black also played two stones inside its own area (A19 is not
    // counted twice): 171 + 19 stones vs 152 + 19 + 6.5 → B+12.5.
    assert_eq!(by("c_area.sgf").score.as_ref().map(|v| v.check.as_str()), Some("agrees"));
    assert_eq!(by("d_resign.sgf").score, None, "a resigned game is not counted");

    let p = dir.path().join("p.toml");
    std::fs::write(&p, "[filter]\ndrop_score_disagreements = true\n").unwrap();
    let out2 = dir.path().join("out2");
    run_ok("filter", &input, &out2, &p);
    assert_eq!(games(&out2).len(), 4, "`true` drops the winner flips only");
    let r = rejects(&out2);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].reason.as_str(), "score_winner_differs");
    assert!(r[0].source_file.ends_with("b_disagrees.sgf"), "{:?}", r[0]);
    assert!(r[0].detail.contains("counted B+11.5 against RE[W+5.5]"), "{:?}", r[0]);

    std::fs::write(&p, "[filter]\ndrop_score_disagreements = [\"margin_differs\", \"winner_differs\"]\n").unwrap();
    let out3 = dir.path().join("out3");
    run_ok("filter", &input, &out3, &p);
    let mut reasons: Vec<String> = rejects(&out3).iter().map(|r| r.reason.as_str().to_string()).collect();
    reasons.sort();
    assert_eq!(reasons, ["score_margin_differs", "score_winner_differs"]);

    std::fs::write(&p, "[filter]\ndrop_score_disagreements = [\"agrees\"]\n").unwrap();
    let o = run(&[
        "filter",
        "--input",
        input.to_str().unwrap(),
        "--out",
        dir.path().join("o4").to_str().unwrap(),
        "--pipeline",
        p.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("winner_differs"), "{}", stderr(&o));
}

#[test]
fn influence_columns_when_enabled() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.toml");
    std::fs::write(&p, "[split]\ninfluence = true\n").unwrap();
    let out = dir.path().join("out");
    let o = run(&[
        "run",
        "--input",
        "data/kombilo/Gosei-Gos23-T01.sgf",
        "--out",
        out.to_str().unwrap(),
        "--pipeline",
        p.to_str().unwrap(),
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = samples(&out);
    let mut totals = (0usize, 0usize, 0usize);
    for r in &rows {
        let a = r.influence_areas.as_deref().expect("influence_areas with split.influence on");
        let (black, white) = (r.influence_black_area.unwrap(), r.influence_white_area.unwrap());
        assert_eq!(a.len(), 361);
        assert_eq!(a.iter().filter(|&&v| v == 1).count() as u16, black);
        assert_eq!(a.iter().filter(|&&v| v == 2).count() as u16, white);
        // Almost every stone lies in its own colour's area (a stone deep in the
        // opponent's influence may not), and an empty board has no areas.
        let stones = r.board.iter().filter(|&&c| c != 0).count();
        let own = r.board.iter().zip(a).filter(|(c, ar)| **c != 0 && *c == *ar).count();
        let opposite = r.board.iter().zip(a).filter(|(c, ar)| **c != 0 && **ar != 0 && *c != *ar).count();
        totals.0 += own;
        totals.1 += stones;
        totals.2 += opposite;
        if stones == 0 {
            assert_eq!(black + white, 0);
        }
    }
    assert_eq!(rows.len(), 163);
    // Most stones sit in their own colour's area; few in the opponent's (contact fights).
    assert!(totals.0 * 10 >= totals.1 * 7, "{} of {} stones in their own area", totals.0, totals.1);
    assert!(totals.2 * 20 <= totals.1, "{} of {} stones in the opponent's area", totals.2, totals.1);
}
