//! Helpers: run the real `kibo` binary, find the shared corpus, read tables back.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Path of the built binary.
pub fn kibo() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kibo"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

/// Runs kibo with args; returns the output.
pub fn run(args: &[&str]) -> Output {
    kibo().args(args).output().expect("kibo runs")
}

/// stderr as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `../shared/data`, or `None` after printing one visible line.
pub fn shared(sub: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data").join(sub);
    if p.exists() {
        Some(p)
    } else {
        println!("SKIPPED: {} is absent; this test needs the shared corpus", p.display());
        None
    }
}

/// Reads a whole table into row structs via the library.
pub fn games(out: &Path) -> Vec<kibo::tables::GameRow> {
    let mut v = Vec::new();
    kibo::storage::read_table(out, "games", |b| {
        v.extend(kibo::tables::games_from_batch(&b)?);
        Ok(())
    })
    .expect("games table reads");
    v
}

/// Rejects rows.
pub fn rejects(out: &Path) -> Vec<kibo::tables::RejectRow> {
    let mut v = Vec::new();
    kibo::storage::read_table(out, "rejects", |b| {
        v.extend(kibo::tables::rejects_from_batch(&b)?);
        Ok(())
    })
    .expect("rejects table reads");
    v
}

/// Parsed report.json.
pub fn report(out: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(out.join("report.json")).expect("report.json")).expect("report is JSON")
}

/// All files under `dir` with their blake3, relative paths sorted.
pub fn snapshot(dir: &Path) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            (rel, blake3::hash(&std::fs::read(e.path()).unwrap()).to_hex().to_string())
        })
        .collect();
    v.sort();
    v
}

/// Runs `kibo <cmd> --input INPUT --out OUT --pipeline PIPELINE -q`.
pub fn run_with(cmd: &str, input: &Path, out: &Path, pipeline: &Path) -> Output {
    run(&[
        cmd,
        "--input",
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--pipeline",
        pipeline.to_str().unwrap(),
        "-q",
    ])
}

/// [`run_with`], asserting success.
pub fn run_ok(cmd: &str, input: &Path, out: &Path, pipeline: &Path) -> Output {
    let o = run_with(cmd, input, out, pipeline);
    assert!(o.status.success(), "kibo {cmd}: {}", stderr(&o));
    o
}
