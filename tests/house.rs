//! What holds the stages together: the reject vocabulary matches the README, bad
//! configuration values are located errors, a failing stage leaves no temporaries and
//! the previous output intact, and each stage writes its own rejects partition.

use std::path::Path;

use kibo::reject::{Reject, Stage};

use crate::util::{rejects, report, run, snapshot, stderr};

/// The README's reject table, row by row.
fn readme_reject_rows() -> Vec<String> {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let start = readme.find("### Reject reasons").expect("README has a reject table");
    let section = &readme[start..];
    let end = section[3..].find("\n## ").map_or(section.len(), |i| i + 3);
    section[..end].lines().filter(|l| l.starts_with("| `")).map(str::to_string).collect()
}

#[test]
fn readme_reject_table_is_exactly_every_reason() {
    let want: Vec<String> = Reject::ALL
        .iter()
        .map(|r| format!("| `{}` | {} | {} |", r.as_str(), r.stage().as_str(), r.meaning()))
        .collect();
    assert_eq!(readme_reject_rows(), want, "README.md's reject table and kibo::reject::Reject differ");
    assert!(Reject::of_stage(Stage::Filter).count() > 0 && Reject::of_stage(Stage::Split).count() > 0);
}

#[test]
fn a_bad_config_value_names_file_line_and_the_allowed_values() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.toml");
    std::fs::write(&p, "[pipeline]\nseed = 3\n\n[split]\ndedup = \"fuzzy\"\n").unwrap();
    let out = dir.path().join("out");
    let o = run(&["run", "--input", "data/kombilo", "--out", out.to_str().unwrap(), "--pipeline", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains(&format!("{}:5:", p.display())), "{e}");
    assert!(e.contains("fuzzy") && e.contains("exact") && e.contains("symmetry") && e.contains("off"), "{e}");
    assert!(!out.join("games").exists(), "nothing is written on a setup error");
}

#[test]
fn each_stage_writes_its_own_rejects_partition() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let p = dir.path().join("p.toml");
    // min_moves rejects short games in the filter; a duplicate file makes a split reject.
    std::fs::write(&p, "[filter]\nmin_moves = 10\n").unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    for f in ["Gosei-Gos23-T01.sgf", "contlist.sgf"] {
        std::fs::copy(Path::new("data/kombilo").join(f), input.join(f)).unwrap();
    }
    std::fs::copy(Path::new("data/kombilo/Gosei-Gos23-T01.sgf"), input.join("copy.sgf")).unwrap();
    let args = ["run", "--input", input.to_str().unwrap(), "--out", out.to_str().unwrap()];
    let o = run(&[&args[..], &["--pipeline", p.to_str().unwrap(), "-q"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let mut names: Vec<String> = std::fs::read_dir(out.join("rejects"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["part-filter-00000.parquet", "part-split-00000.parquet"]);
    let r = rejects(&out);
    assert!(r.iter().any(|r| r.reason == Reject::TooShort));
    assert_eq!(r.iter().filter(|r| r.reason == Reject::DuplicateGame).count(), 1);
    // Rerunning the split alone leaves the filter's partition byte for byte as it was.
    let filter_part = std::fs::read(out.join("rejects/part-filter-00000.parquet")).unwrap();
    let o = run(&["split", "--out", out.to_str().unwrap(), "--pipeline", p.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(out.join("rejects/part-filter-00000.parquet")).unwrap(), filter_part);
    assert_eq!(rejects(&out).len(), r.len());
    // The accounting promise, as the report states it.
    let rep = report(&out);
    let g = &rep["games"];
    assert_eq!(g["balanced"], true, "{g}");
    let n = |k: &str| g[k].as_u64().unwrap_or_else(|| panic!("games.{k}: {g}"));
    assert_eq!(n("found"), n("kept") + n("filter_rejects"));
    assert_eq!(n("kept"), n("replayed") + n("split_rejects"));
}

/// Runs kibo under a file-size limit (`ulimit -f`, SIGXFSZ ignored so a write past it
/// fails with EFBIG), the closest to a full disk a test can make without root mounts.
fn run_with_file_limit(kb: u64, args: &[&str]) -> std::process::Output {
    let script = format!("trap '' XFSZ; ulimit -f {kb}; exec \"$0\" \"$@\"");
    std::process::Command::new("bash")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["-c", &script, env!("CARGO_BIN_EXE_kibo")])
        .args(args)
        .output()
        .expect("bash runs")
}

#[test]
fn a_failing_write_names_the_file_leaves_no_temporaries_and_the_old_output_intact() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = run(&["run", "--input", "data/kombilo", "--out", out.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let before = snapshot(&out);
    // A rerun whose sample shard (about 250 KB) cannot be written whole: 64 blocks of 1 KiB.
    let o = run_with_file_limit(64, &["split", "--out", out.to_str().unwrap(), "-q"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "a failure mid-run is exit code 3: {e}");
    assert!(e.contains(".parquet") && e.contains(out.to_str().unwrap()), "the error names the file: {e}");
    assert!(e.to_lowercase().contains("file too large"), "{e}");
    let leftovers: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with(".tmp-") || n.starts_with(".old-"))
        .collect();
    assert!(leftovers.is_empty(), "temporaries left behind: {leftovers:?}");
    assert_eq!(snapshot(&out), before, "the previous output must stay as it was");
}

#[test]
fn a_tiny_memory_budget_spills_every_index_and_gives_the_same_shards() {
    let Some(kgs) = crate::util::shared("dev/kgs-2001-archive") else { return };
    let dir = tempfile::tempdir().unwrap();
    let (free, tight) = (dir.path().join("free"), dir.path().join("tight"));
    let spill = dir.path().join("spill");
    for (out, extra) in [(&free, vec![]), (&tight, vec!["--memory-mb", "1", "--tmp-dir", spill.to_str().unwrap()])] {
        let mut args = vec!["run", "--input", kgs.to_str().unwrap(), "--out", out.to_str().unwrap(), "-q"];
        args.extend(extra);
        let o = run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let m = &report(&tight)["split"]["memory"];
    assert_eq!(m["budget"]["total"], 1 << 20, "{m}");
    assert_eq!((&m["budget"]["memory_mb"], &m["budget"]["auto"]), (&1.into(), &serde_json::Value::Null), "{m}");
    let f = &report(&free)["split"]["memory"]["budget"];
    assert_eq!(f["memory_mb"], "auto", "the default: {f}");
    assert_eq!(f["auto"]["budget"], f["total"], "{f}");
    assert_eq!(m["duplicate_game_index"]["spilled"], true, "{m}");
    assert_eq!(report(&tight)["split"]["dedup"]["spilled"], true);
    assert!(m["spilled_bytes"].as_u64().unwrap() > 1 << 20, "{m}");
    assert_eq!(report(&free)["split"]["memory"]["spilled_bytes"], 0);
    for table in ["samples", "games", "rejects"] {
        assert_eq!(snapshot(&tight.join(table)), snapshot(&free.join(table)), "{table} differs under a tiny budget");
    }
    // Spill files lived under --tmp-dir and are gone.
    let left: Vec<_> =
        std::fs::read_dir(&spill).map(|d| d.map(|e| e.unwrap().file_name()).collect()).unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
    assert!(std::fs::read_dir(&tight).unwrap().all(|e| !e.unwrap().file_name().to_string_lossy().starts_with(".tmp-")));
}

#[test]
fn a_collection_over_max_member_bytes_is_read_whole_in_parts() {
    let dir = tempfile::tempdir().unwrap();
    // One collection of the embedded sample's single-game files (about 100 KB).
    let mut text = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir("data/kombilo").unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    for f in files.iter().filter(|p| p.extension().is_some_and(|e| e == "sgf")) {
        text.extend(std::fs::read(f).unwrap());
        text.push(b'\n');
    }
    let input = dir.path().join("all.sgf");
    std::fs::write(&input, &text).unwrap();
    let (plain, small) = (dir.path().join("plain.toml"), dir.path().join("small.toml"));
    std::fs::write(&plain, "").unwrap();
    std::fs::write(&small, "[limits]\nmax_member_bytes = 8000\n").unwrap();
    let (whole, parts) = (dir.path().join("whole"), dir.path().join("parts"));
    crate::util::run_ok("filter", &input, &whole, &plain);
    crate::util::run_ok("filter", &input, &parts, &small);
    assert!(text.len() > 5 * 8000, "the collection spans several parts");
    let key = |out: &Path| -> Vec<_> {
        crate::util::games(out).into_iter().map(|g| (g.game_index, g.byte_offset, g.game_id, g.moves)).collect()
    };
    let (a, b) = (key(&whole), key(&parts));
    assert!(a.len() >= 35, "{}", a.len());
    assert_eq!(a, b, "the same games, indices and offsets whether read whole or in parts");
    assert_eq!(rejects(&whole).len(), rejects(&parts).len());
}

#[test]
fn memory_mb_auto_is_the_default_and_is_reported_with_what_it_came_from() {
    let dir = tempfile::tempdir().unwrap();
    let budget = |out: &Path| report(out)["split"]["memory"]["budget"].clone();
    let mut outs = Vec::new();
    for (name, flags) in [("default", &[][..]), ("auto", &["--memory-mb", "auto"]), ("n", &["--memory-mb", "300"])] {
        let out = dir.path().join(name);
        let mut args = vec!["run", "--input", "data/kombilo", "--out", out.to_str().unwrap(), "-q"];
        args.extend(flags);
        let o = run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        outs.push(out);
    }
    for out in &outs[..2] {
        let b = budget(out);
        assert_eq!(b["memory_mb"], "auto", "{b}");
        let a = &b["auto"];
        assert_eq!(a["budget"], b["total"], "{b}");
        assert!(a["rule"].as_str().unwrap().contains("1/4"), "{b}");
        // What it came from is this machine's: a quarter of MemTotal, or of a lower limit.
        let base = [&a["ram_bytes"], &a["cgroup_limit_bytes"]].iter().filter_map(|v| v.as_u64()).min().unwrap();
        let total = b["total"].as_u64().unwrap();
        assert_eq!(total, (((base / 4) >> 20) << 20).max(256 << 20), "{b}");
        assert_eq!(b["dedup_index"].as_u64().unwrap(), total / 2, "{b}");
        let manifest: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
        assert_eq!(
            manifest["pipeline"]["config"]["pipeline"]["memory_mb"], "auto",
            "the setting, not the machine's figure"
        );
    }
    let b = budget(&outs[2]);
    assert_eq!(
        (&b["memory_mb"], &b["total"], &b["auto"]),
        (&300.into(), &(300u64 << 20).into(), &serde_json::Value::Null)
    );
    for table in ["samples", "games"] {
        assert_eq!(snapshot(&outs[0].join(table)), snapshot(&outs[2].join(table)), "{table} depends on the budget");
    }
    // A bad value: exit 2, naming the allowed values, nothing written.
    for bad in ["0", "lots", "-5"] {
        let out = dir.path().join(format!("bad{bad}"));
        let o = run(&["run", "--input", "data/kombilo", "--out", out.to_str().unwrap(), &format!("--memory-mb={bad}")]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(stderr(&o).contains("\"auto\"") && stderr(&o).contains("number of MiB"), "{}", stderr(&o));
        assert!(!out.exists());
    }
}
