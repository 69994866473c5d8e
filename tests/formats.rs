//! The GIB / NGF / UGF readers through the real binary: every record of
//! `../shared/data/formats/` is kept, replays legally through the split stage, and
//! `kibo convert` writes SGF that reads back to the same games rows.

use std::path::Path;

use crate::util::{games, rejects, report, run, run_ok, shared, stderr};

/// Every record file of the folder (`sub/name`), sorted.
fn record_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .filter(|p| kibo::formats::Format::of_name(&p.to_string_lossy()) != kibo::formats::Format::Sgf)
        .collect();
    v.sort();
    v
}

fn run_kibo(cmd: &str, input: &Path, out: &Path) {
    run_ok(cmd, input, out, Path::new("pipelines/default.toml"));
}

#[test]
fn every_record_of_the_formats_folder_replays_through_the_split() {
    let Some(dir) = shared("formats") else { return };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    run_kibo("run", &dir, &out);
    let g = games(&out);
    assert_eq!(g.len(), 24, "every record kept");
    let mut by_format = std::collections::BTreeMap::new();
    for r in &g {
        *by_format.entry(r.format.clone()).or_insert(0) += 1;
    }
    assert_eq!(by_format, [("gib".to_string(), 17), ("ngf".into(), 5), ("ugf".into(), 2)].into_iter().collect());
    let rep = report(&out);
    assert_eq!(rep["filter"]["by_format"]["gib"]["documents"], 17);
    assert_eq!(rep["filter"]["by_format"]["ngf"]["games_kept"], 5);
    assert_eq!(rep["filter"]["by_format"]["ugf"]["games_rejected"], 0);
    let moves: usize = g.iter().map(|r| r.moves.len()).sum();
    assert_eq!(moves, 4913, "NOTES.md's move count");
    // The split's only reject: the one game present twice (sabaki/UTF-8_Global_even.gib
    // is rooklift/3handicap.gib with White renamed). No illegal move, no bad setup.
    let split: Vec<_> = rejects(&out).into_iter().filter(|r| r.stage().as_str() == "split").collect();
    assert_eq!(split.len(), 1, "{split:?}");
    assert_eq!(split[0].reason.as_str(), "duplicate_game", "{split:?}");
    assert!(split[0].source_file.contains("3handicap.gib") || split[0].source_file.contains("UTF-8_Global_even"));
}

/// A games row without the columns that say where it came from.
fn comparable(mut r: kibo::game::GameRow) -> String {
    r.source.clear();
    r.source_file.clear();
    r.member = None;
    r.game_index = 0;
    r.byte_offset = 0;
    r.charset.clear();
    r.format.clear();
    r.quirks.clear();
    format!("{r:?}")
}

#[test]
fn convert_to_sgf_reads_back_to_the_same_games_rows() {
    let Some(dir) = shared("formats") else { return };
    let tmp = tempfile::tempdir().unwrap();
    let conv = tmp.path().join("sgf");
    let files = record_files(&dir);
    assert_eq!(files.len(), 24);
    for (i, f) in files.iter().enumerate() {
        // Two files share a name stem in different folders: one folder each.
        let o =
            run(&["convert", f.to_str().unwrap(), "--to", "sgf", "--out", conv.join(i.to_string()).to_str().unwrap()]);
        assert!(o.status.success(), "convert {}: {}", f.display(), stderr(&o));
    }
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    run_kibo("filter", &dir, &a);
    run_kibo("filter", &conv, &b);
    let (ga, gb) = (games(&a), games(&b));
    assert!(gb.iter().all(|r| r.format == "sgf"));
    let mut ra: Vec<String> = ga.into_iter().map(comparable).collect();
    let mut rb: Vec<String> = gb.into_iter().map(comparable).collect();
    ra.sort();
    rb.sort();
    assert_eq!(ra.len(), 24);
    for (x, y) in ra.iter().zip(&rb) {
        assert_eq!(x, y);
    }
    assert_eq!(ra, rb);
}

#[test]
fn convert_prints_to_stdout_and_refuses_other_targets() {
    let Some(dir) = shared("formats") else { return };
    let f = dir.join("sabaki/even.ngf");
    let o = run(&["convert", f.to_str().unwrap(), "--to", "sgf"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.starts_with("(;GM[1]FF[4]CA[UTF-8]SZ[19]KM[7.5]RE[B+0.5]PB[CYY]PW[LQC]BR[9p]WR[9p]"), "{text}");
    assert!(text.contains("\n;B[qd]\n;W[dd]"), "{text}");
    let o = run(&["convert", f.to_str().unwrap(), "--to", "gib"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn convert_takes_a_folder_and_names_a_missing_path() {
    let Some(dir) = shared("formats") else { return };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("conv");
    let o = run(&["convert", dir.to_str().unwrap(), "--to", "sgf", "--out", out.to_str().unwrap()]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    // Every record file under the folder has its games in the same relative folder.
    let mut expected = 0;
    for e in walkdir::WalkDir::new(&dir) {
        let e = e.unwrap();
        let ext = e.path().extension().map(|x| x.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
        if e.file_type().is_file() && ["sgf", "gib", "ngf", "ugf", "ugi"].contains(&ext.as_str()) {
            expected += 1;
            let rel = e.path().parent().unwrap().strip_prefix(&dir).unwrap();
            let written = std::fs::read_dir(out.join(rel)).map(|d| d.count()).unwrap_or(0);
            assert!(written > 0, "nothing written for {}", e.path().display());
        }
    }
    assert!(expected > 3, "the formats corpus has record files");
    let missing = tmp.path().join("nope");
    let o = run(&["convert", missing.to_str().unwrap(), "--to", "sgf"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no such file or folder"), "{}", stderr(&o));
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let o = run(&["convert", empty.to_str().unwrap(), "--to", "sgf"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no record files"), "{}", stderr(&o));
}

#[test]
fn records_inside_an_archive_read_like_the_files() {
    let Some(dir) = shared("formats") else { return };
    let tmp = tempfile::tempdir().unwrap();
    let mut b = tar::Builder::new(Vec::new());
    let files = record_files(&dir);
    for f in &files {
        let data = std::fs::read(f).unwrap();
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        let name = f.strip_prefix(&dir).unwrap().to_string_lossy().into_owned();
        b.append_data(&mut h, name, data.as_slice()).unwrap();
    }
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut e, &b.into_inner().unwrap()).unwrap();
    let input = tmp.path().join("in");
    std::fs::create_dir(&input).unwrap();
    std::fs::write(input.join("records.tar.gz"), e.finish().unwrap()).unwrap();
    let (a, z) = (tmp.path().join("a"), tmp.path().join("z"));
    run_kibo("filter", &dir, &a);
    run_kibo("filter", &input, &z);
    let key = |r: &kibo::game::GameRow| (r.format.clone(), r.game_id.to_hex(), r.meta.black_name.clone());
    let mut ga: Vec<_> = games(&a).iter().map(key).collect();
    let mut gz: Vec<_> = games(&z).iter().map(key).collect();
    ga.sort();
    gz.sort();
    assert_eq!(gz.len(), 24);
    assert_eq!(ga, gz);
    assert!(games(&z).iter().all(|r| r.member.is_some()));
}
