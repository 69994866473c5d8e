//! The filter stage through the real binary: exit codes, accounting, archives, corpora.

use std::collections::BTreeMap;
use std::io::Write;

use crate::util::{games, rejects, report, run, run_ok, run_with, shared, snapshot, stderr};

fn reasons(out: &std::path::Path) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    for r in rejects(out) {
        *m.entry(r.reason.as_str().to_string()).or_default() += 1;
    }
    m
}

/// found = kept + rejected, per source and in total, and the tables agree.
fn assert_accounting(out: &std::path::Path) {
    let rep = report(out);
    let t = &rep["filter"]["total"];
    let found = t["games_found"].as_u64().unwrap();
    let kept = t["games_kept"].as_u64().unwrap();
    let rejected = t["games_rejected"].as_u64().unwrap();
    assert_eq!(found, kept + rejected);
    assert_eq!(kept as usize, games(out).len());
    assert_eq!(rejected as usize, rejects(out).iter().filter(|r| r.stage().as_str() == "filter").count());
    let by_reason: u64 = t["rejected_by_reason"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(by_reason, rejected);
    let mut sum = 0;
    for (_, c) in rep["filter"]["by_source"].as_object().unwrap() {
        let f = c["games_found"].as_u64().unwrap();
        assert_eq!(f, c["games_kept"].as_u64().unwrap() + c["games_rejected"].as_u64().unwrap());
        sum += f;
    }
    assert_eq!(sum, found);
}

/// After a split: the report's accounting line holds, and its move count is recomputed
/// from the tables (moves of kept games not rejected by the split stage) and its sample
/// count from the shards.
fn assert_sample_accounting(out: &std::path::Path) -> serde_json::Value {
    let rep = report(out);
    let a = rep["split"]["accounting"].clone();
    let n = |k: &str| a[k].as_u64().unwrap_or_else(|| panic!("accounting.{k}: {a}"));
    assert_eq!(a["balanced"], true, "{a}");
    assert_eq!(n("moves") - n("dropped"), n("samples_before_dedup"), "{a}");
    assert_eq!(n("samples_before_dedup") - n("merged_by_dedup"), n("samples"), "{a}");
    let dropped: u64 = rep["split"]["dropped"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(dropped, n("dropped"));
    // Games are identified by where they were found (duplicates share a game_id).
    let split_rejected: std::collections::HashSet<(String, Option<String>, Option<u32>)> = rejects(out)
        .into_iter()
        .filter(|r| r.stage().as_str() == "split")
        .map(|r| (r.source_file, r.member, r.game_index))
        .collect();
    let moves: u64 = games(out)
        .into_iter()
        .filter(|g| !split_rejected.contains(&(g.source_file.clone(), g.member.clone(), Some(g.game_index))))
        .map(|g| g.moves.len() as u64)
        .sum();
    assert_eq!(moves, n("moves"), "moves of replayed games");
    let mut rows = 0u64;
    kibo::storage::read_table(out, "samples", |b| {
        rows += b.num_rows() as u64;
        Ok(())
    })
    .unwrap();
    assert_eq!(rows, n("samples"));
    a
}

#[test]
fn embedded_sample_runs_and_adds_up() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = run(&["filter", "--pipeline", "pipelines/default.toml", "--out", out.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_accounting(&out);
    let g = games(&out);
    // 35 single-game files + contlist.sgf (7 trees) + under-the-stones.sgf.
    let rep = report(&out);
    assert_eq!(rep["filter"]["total"]["games_found"], 43);
    assert!(g.len() >= 36, "kept {}", g.len());
    assert!(g.iter().all(|r| !r.moves.is_empty()));
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["sources"][0]["licence"], "MIT");
    assert_eq!(manifest["sources"][0]["files"].as_array().unwrap().len(), 37); // the licence file is not read
}

fn manifest(out: &std::path::Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap()
}

#[test]
fn an_input_without_a_licence_is_recorded_unknown_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    // pipelines/default.toml sets require_licence: it holds for its own [[sources]], not for --input.
    let out = dir.path().join("out");
    let o = run_ok("run", std::path::Path::new("data/kombilo"), &out, std::path::Path::new("pipelines/default.toml"));
    let e = stderr(&o);
    let warnings: Vec<&str> = e.lines().filter(|l| l.starts_with("kibo: warning:")).collect();
    assert_eq!(warnings.len(), 1, "{e}");
    assert!(warnings[0].contains("\"input\" (data/kombilo)") && warnings[0].contains("--licence SPDX"), "{e}");
    assert!(warnings[0].contains("[[sources]]") && warnings[0].contains("\"unknown\""), "{e}");
    assert_eq!(manifest(&out)["sources"][0]["licence"], "unknown");
    let card = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(
        card.contains("license:\n- unknown\n") && card.contains("| input | unknown | 43 | command line |"),
        "{card}"
    );

    // --licence declares it, for every --input: no warning.
    let out = dir.path().join("mit");
    let (a, b) = ("data/kombilo/contlist.sgf", "data/kombilo/under-the-stones.sgf");
    let args = ["run", "--input", a, "--input", b, "--licence", "MIT", "--out", out.to_str().unwrap(), "-q"];
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
    let m = manifest(&out);
    assert_eq!((&m["sources"][0]["licence"], &m["sources"][1]["licence"]), (&"MIT".into(), &"MIT".into()));
    let card = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(card.contains("license:\n- mit\n") && card.contains("| input2 | MIT |"), "{card}");

    // --licence without --input, or empty: usage errors, nothing written.
    let out = dir.path().join("none");
    for args in [
        vec!["run", "--pipeline", "pipelines/default.toml", "--licence", "MIT", "--out", out.to_str().unwrap()],
        vec!["run", "--input", "data/kombilo", "--licence", " ", "--out", out.to_str().unwrap()],
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains("--licence"), "{}", stderr(&o));
        assert!(!out.exists());
    }
}

#[test]
fn require_licence_still_holds_for_the_pipeline_sources() {
    let dir = tempfile::tempdir().unwrap();
    let pipeline = |require: bool| {
        let p = dir.path().join(format!("p-{require}.toml"));
        let text = format!(
            "[pipeline]\nrequire_licence = {require}\n\n[[sources]]\nname = \"mine\"\npath = \"data/kombilo\"\n"
        );
        std::fs::write(&p, text).unwrap();
        p
    };
    let out = dir.path().join("strict");
    let o = run(&["filter", "--pipeline", pipeline(true).to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("source \"mine\" (data/kombilo) declares no licence and pipeline.require_licence is set")
    );
    assert!(!out.exists());
    let out = dir.path().join("lax");
    let o = run(&["filter", "--pipeline", pipeline(false).to_str().unwrap(), "--out", out.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("kibo: warning: source \"mine\"") && e.contains("to the [[sources]] entry"), "{e}");
    assert!(!e.contains("--licence"), "the pipeline's source is declared in the file: {e}");
    assert_eq!(manifest(&out)["sources"][0]["licence"], "unknown");
}

#[test]
fn missing_input_and_unwritable_out_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = run(&["filter", "--input", "/no/such/path.sgf", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert_eq!(e.trim().lines().count(), 1, "{e}");
    assert!(e.contains("/no/such/path.sgf"), "{e}");
    assert!(!out.exists(), "nothing written");

    let blocker = dir.path().join("file");
    std::fs::write(&blocker, b"x").unwrap();
    let o = run(&["filter", "--input", "data/kombilo", "--out", blocker.join("sub").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr(&o).trim().lines().count(), 1, "{}", stderr(&o));

    let o = run(&["filter", "--input", "data/kombilo"]);
    assert_eq!(o.status.code(), Some(2));
    let o = run(&["filter", "--bogus"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn bad_pipeline_key_names_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.toml");
    std::fs::write(&p, "[pipeline]\nname = \"x\"\n[filter]\nmin_moovs = 3\n").unwrap();
    let o = run(&[
        "filter",
        "--input",
        "data/kombilo",
        "--out",
        dir.path().join("o").to_str().unwrap(),
        "--pipeline",
        p.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("p.toml:4") && e.contains("min_moovs"), "{e}");
}

fn gz(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

#[test]
fn truncated_targz_keeps_members_reports_rest_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let mut b = tar::Builder::new(Vec::new());
    // Incompressible comments so the cut falls in the middle of the members.
    let mut seed = 12345u64;
    for i in 0..30 {
        let comment: String = (0..3000)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                (b'a' + (seed % 26) as u8) as char
            })
            .collect();
        let sgf = format!("(;GM[1]SZ[19]C[{comment}];B[pd];W[dp];B[pp];W[dd])");
        let mut h = tar::Header::new_gnu();
        h.set_size(sgf.len() as u64);
        h.set_mode(0o644);
        b.append_data(&mut h, format!("g{i:02}.sgf"), sgf.as_bytes()).unwrap();
    }
    let full = gz(&b.into_inner().unwrap());
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    std::fs::write(input.join("cut.tar.gz"), &full[..full.len() / 2]).unwrap();
    std::fs::write(input.join("ok.sgf"), b"(;SZ[19];B[aa];W[bb])").unwrap();
    let out = dir.path().join("out");
    let o = run(&["filter", "--input", input.to_str().unwrap(), "--out", out.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_accounting(&out);
    let kept = games(&out).len();
    assert!(kept > 3 && kept < 31, "kept {kept}");
    let r = reasons(&out);
    assert!(r.get("unreadable_file").copied().unwrap_or(0) >= 1, "{r:?}");
    assert!(games(&out).iter().any(|g| g.source_file.ends_with("ok.sgf")));
}

#[test]
fn reruns_and_thread_counts_give_identical_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    for (out, t) in [(&a, "1"), (&b, "2"), (&b, "2")] {
        let o = run(&[
            "filter",
            "--pipeline",
            "pipelines/default.toml",
            "--out",
            out.to_str().unwrap(),
            "--threads",
            t,
            "-q",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    assert_eq!(snapshot(&a), snapshot(&b));
}

/// Every edge file is processed without a panic; every game lands somewhere.
#[test]
fn edge_corpus_every_game_accounted() {
    let Some(edge) = shared("edge") else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    // Sampling options on, so that the accounting has drops of every kind to explain.
    let pipeline = dir.path().join("p.toml");
    std::fs::write(&pipeline, "[split]\ndrop_passes = true\nmax_samples_per_game = 150\n").unwrap();
    let o = run_ok("run", &edge, &out, &pipeline);
    assert!(stderr(&o).contains("balanced"), "{}", stderr(&o));
    assert_accounting(&out);
    let a = assert_sample_accounting(&out);
    let rep = report(&out);
    assert!(rep["split"]["dropped"]["drop_passes"].as_u64().unwrap() > 0);
    assert!(rep["split"]["dropped"]["max_samples_per_game"].as_u64().unwrap() > 0);
    println!("edge: {}", serde_json::to_string_pretty(&rep["filter"]["total"]).unwrap());
    println!("edge: {}", a["line"]);
}

/// The dev corpus: counts per source and reason, documented in docs/reading.md.
#[test]
fn dev_corpus_counts() {
    let Some(_) = shared("dev") else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = run(&["run", "--pipeline", "pipelines/dev.toml", "--out", out.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_accounting(&out);
    let a = assert_sample_accounting(&out);
    println!("dev: {}", a["line"]);
    let rep = report(&out);
    let src = &rep["filter"]["by_source"];
    let expect = [
        (
            "gnugo",
            1646,
            735,
            vec![("no_moves", 267), ("parse_error", 1), ("setup_after_root", 4), ("size_not_19", 639)],
        ),
        ("fuego", 575, 72, vec![("no_moves", 116), ("size_not_19", 387)]),
        ("kombilo", 43, 43, vec![]),
        ("kgs2001", 2298, 2269, vec![("no_moves", 29)]),
    ];
    for (name, found, kept, reasons) in expect {
        let c = &src[name];
        assert_eq!(c["games_found"], found, "{name} found");
        assert_eq!(c["games_kept"], kept, "{name} kept");
        let got: BTreeMap<String, u64> = c["rejected_by_reason"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
            .collect();
        let want: BTreeMap<String, u64> = reasons.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        assert_eq!(got, want, "{name} reasons");
    }
    // The KGS archive: 2,298 members, each one game.
    assert_eq!(src["kgs2001"]["documents"], 2298);
}

/// Resource limits from `[limits]` end as reject rows that name the limit; the other
/// games of the same input are kept.
#[test]
fn resource_limits_are_rejects_naming_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    let long: String = (0..300).map(|i| if i % 2 == 0 { ";B[pd]" } else { ";W[dp]" }).collect();
    let deep: String = "(;B[pd](;W[dp]".repeat(40) + &")".repeat(80);
    std::fs::write(input.join("a.sgf"), format!("(;GM[1]SZ[19]{long})(;GM[1]SZ[19]{deep})(;GM[1]SZ[19];B[qq])"))
        .unwrap();
    std::fs::write(input.join("bomb.sgf.gz"), gz(&vec![b' '; 8 << 20])).unwrap();
    let pipeline = dir.path().join("p.toml");
    std::fs::write(&pipeline, "[limits]\nmax_nodes = 100\nmax_variation_depth = 50\nmax_ratio = 20\n").unwrap();
    let out = dir.path().join("out");
    let o = run_with("filter", &input, &out, &pipeline);
    // An unreadable input (the bomb) makes the exit code 1; the rest is still written.
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_accounting(&out);
    assert_eq!(games(&out).len(), 1);
    let mut rj: Vec<(String, Option<u32>, String)> =
        rejects(&out).into_iter().map(|r| (r.reason.as_str().to_string(), r.game_index, r.detail)).collect();
    rj.sort();
    assert_eq!(rj.len(), 3, "{rj:?}");
    assert_eq!((rj[0].0.as_str(), rj[0].1), ("too_large", Some(0)));
    assert_eq!(rj[0].2, "more than 100 nodes in the game tree (limits.max_nodes)");
    assert_eq!((rj[1].0.as_str(), rj[1].1), ("too_large", Some(1)));
    assert_eq!(rj[1].2, "variations nested more than 50 deep (limits.max_variation_depth)");
    assert_eq!(rj[2].0, "unreadable_file");
    assert!(rj[2].2.contains("limits.max_ratio"), "{}", rj[2].2);
}
