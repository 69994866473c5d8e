//! The map/reduce form without Spark (`kibo part …`): the parts of a walk give the
//! one process's games in order whatever the part count, and with dedup off (no reduce
//! step) the parts' samples, reports and card are the one process's.

use std::path::Path;

use crate::util::{games, report, run, samples, stderr};

fn part(step: &str, work: &Path, out: &Path, extra: &[&str]) {
    let (w, o) = (work.to_str().unwrap(), out.to_str().unwrap());
    let args = [&["part", step, "--work", w, "--out", o, "-q"][..], extra].concat();
    let r = run(&args);
    assert!(r.status.success(), "kibo part {step}: {}", stderr(&r));
}

#[test]
fn parts_of_the_walk_give_the_one_process_tables() {
    let dir = tempfile::tempdir().unwrap();
    let pipe = dir.path().join("p.toml");
    std::fs::write(&pipe, "[split]\ndedup = \"off\"\n").unwrap();
    let p = pipe.to_str().unwrap();
    let one = dir.path().join("one");
    let r = run(&["run", "--input", "data/kombilo", "--out", one.to_str().unwrap(), "--pipeline", p, "-q"]);
    assert!(r.status.success(), "{}", stderr(&r));
    assert_eq!(report(&one)["split"]["duplicate_games"], 0, "precondition: no duplicate games to find");
    let (want_games, want_samples) = (games(&one), samples(&one));
    assert!(want_games.len() > 10 && want_samples.len() > 1000);
    for n in ["1", "3", "7"] {
        let work = dir.path().join(format!("work-{n}"));
        let out = dir.path().join(format!("out-{n}"));
        let input = ["--input", "data/kombilo", "--pipeline", p];
        part("plan", &work, &out, &[&input[..], &["--parts", n]].concat());
        let plan: kibo::stages::part::Plan =
            serde_json::from_slice(&std::fs::read(work.join("plan.json")).unwrap()).unwrap();
        assert_eq!(plan.parts.len().to_string(), n);
        for k in 0..plan.parts.len() {
            let k = k.to_string();
            part("filter", &work, &out, &[&input[..], &["--part", &k]].concat());
            part("write", &work, &out, &[&input[..], &["--part", &k]].concat());
        }
        part("finish", &work, &out, &input);
        let got = games(&out);
        assert_eq!(got.len(), want_games.len(), "{n} parts");
        for (a, b) in got.iter().zip(&want_games) {
            assert_eq!((a.game_id, a.location()), (b.game_id, b.location()), "{n} parts: games in canonical order");
        }
        assert!(samples(&out) == want_samples, "{n} parts: the samples, in order");
        let (ra, rb) = (report(&one), report(&out));
        for k in ["games", "filter"] {
            assert_eq!(ra[k], rb[k], "{n} parts: report.json {k}");
        }
        for k in ["moves", "samples", "samples_by_split", "tag_counts", "accounting", "games_in"] {
            assert_eq!(ra["split"][k], rb["split"][k], "{n} parts: report.json split.{k}");
        }
        assert_eq!(std::fs::read(one.join("README.md")).unwrap(), std::fs::read(out.join("README.md")).unwrap());
    }
}

#[test]
fn a_step_without_its_plan_is_a_setup_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("w");
    let r = run(&["part", "filter", "--work", work.to_str().unwrap(), "--out", "x", "--input", "data/kombilo"]);
    assert_eq!(r.status.code(), Some(2), "a setup error");
    assert!(stderr(&r).contains("plan.json"), "{}", stderr(&r));
}
