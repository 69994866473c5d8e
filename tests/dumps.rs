//! The one-line dumps and `.7z` archives through the real binary: the games table gets
//! the index's players and results (and the quirks of the join), a `.7z` and a
//! two-volume `.7z` give the folder's games, and `kibo part` parts see the index.

use std::io::{Cursor, Write};
use std::path::Path;

use crate::util::{games, rejects, report, run, run_ok, stderr};

/// `n` moves that never capture: columns along rows 0, 2, 4, ….
fn moves(n: usize) -> String {
    (0..n)
        .map(|k| {
            let (x, y) = ((b'a' + (k % 19) as u8) as char, (b'a' + 2 * (k / 19) as u8) as char);
            format!(";{}[{x}{y}]", if k % 2 == 0 { "B" } else { "W" })
        })
        .collect()
}

/// A Tygem index record (11 TAB-separated fields, FORMATS.md §4.1).
fn tygem(id: u32, white: &str, black: &str, result: &str, moves: usize) -> String {
    format!(
        "{id}\tC2016.12.1{} 10:00\t{white}\t{white}_id\t0\t{black}\t{black}_id\t2\t{result}\t{moves}\t30/3 5m",
        id % 9
    )
}

fn zip_bytes(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut buf = Cursor::new(Vec::new());
    let mut z = zip::ZipWriter::new(&mut buf);
    let o = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, data) in files {
        z.start_file(*name, o).unwrap();
        z.write_all(data).unwrap();
    }
    z.finish().unwrap();
    buf.into_inner()
}

fn pipeline(dir: &Path) -> std::path::PathBuf {
    let p = dir.join("p.toml");
    std::fs::write(&p, "[filter]\nmin_moves = 1\n[split]\ndedup = \"off\"\n").unwrap();
    p
}

fn filter(input: &Path, out: &Path, pipe: &Path) {
    let (i, o, p) = (input.to_str().unwrap(), out.to_str().unwrap(), pipe.to_str().unwrap());
    let r = run(&["filter", "--input", i, "--out", o, "--pipeline", p, "-q"]);
    assert!(r.status.success(), "{}", stderr(&r));
}

#[test]
fn a_dump_zip_with_its_index_gives_the_index_players_and_results() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    let month = format!("501\t{}\n502\t{}\n503\t{}\n504\t{}\n", moves(120), moves(90), moves(60), moves(150));
    // 503 has no entry; 502's move count is wrong; 501 and 504 share one index line.
    let index = format!(
        "{}{}\n{}\n",
        tygem(501, "White One", "Black One", "B+Resign", 120),
        tygem(504, "White Four", "Black Four", "W+Time", 150),
        tygem(502, "White Two", "Black Two", "B+Offline", 80)
    );
    let zip = zip_bytes(&[("2016-12", month.as_bytes()), ("Kifu2016.index", index.as_bytes())]);
    std::fs::write(input.join("2016-12.zip"), zip).unwrap();
    let out = dir.path().join("out");
    filter(&input, &out, &pipeline(dir.path()));
    let g = games(&out);
    type Row<'a> = (String, Option<String>, Option<String>, Option<String>, &'a str, Vec<String>);
    let rows: Vec<Row> = g
        .iter()
        .map(|r| {
            let m = &r.meta;
            let (b, w, re) = (m.black_name.clone(), m.white_name.clone(), m.result_raw.clone());
            (r.member.clone().unwrap(), b, w, re, m.result_kind.as_str(), r.quirks.clone())
        })
        .collect();
    let q = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let s = |v: &str| Some(v.to_string());
    assert_eq!(
        rows,
        vec![
            ("2016-12#L1".into(), s("Black One"), s("White One"), s("B+Resign"), "resign", q(&["dump_komi_assumed"])),
            (
                "2016-12#L2".into(),
                s("Black Two"),
                s("White Two"),
                s("B+Offline"),
                "unknown",
                q(&["dump_komi_assumed", "dump_move_count_differs"])
            ),
            ("2016-12#L3".into(), None, None, None, "unknown", q(&["dump_no_index_entry"])),
            ("2016-12#L4".into(), s("Black Four"), s("White Four"), s("W+Time"), "time", q(&["dump_komi_assumed"])),
        ]
    );
    assert_eq!(g.iter().map(|r| r.moves.len()).collect::<Vec<_>>(), [120, 90, 60, 150], "no line loses its moves");
    assert_eq!(g[0].meta.komi, Some(6.5));
    assert_eq!(g[0].meta.date_iso.as_deref(), Some("2016-12-16"));
    assert!(rejects(&out).is_empty(), "a missing entry and a wrong count are not fatal");
    let rep = report(&out);
    assert_eq!(rep["filter"]["quirks"]["dump_no_index_entry"], 1, "{}", rep["filter"]["quirks"]);
    assert_eq!(rep["filter"]["quirks"]["dump_move_count_differs"], 1);
    assert!(g.iter().all(|r| r.format == "dump"), "a dump line's game is format dump");
    assert_eq!(rep["filter"]["by_format"]["dump"]["games_kept"], 4, "{}", rep["filter"]["by_format"]);
    assert!(rep["filter"]["by_format"].get("sgf").is_none(), "{}", rep["filter"]["by_format"]);
}

#[test]
fn parts_of_the_walk_see_the_whole_tree_s_index() {
    let dir = tempfile::tempdir().unwrap();
    let tom = dir.path().join("Tom");
    std::fs::create_dir_all(tom.join("kifu")).unwrap();
    let mut index = String::new();
    for (m, month) in ["2008-08", "2008-09", "2008-10"].iter().enumerate() {
        let mut lines = String::new();
        for k in 0..5 {
            let id = 100 * m + k;
            lines.push_str(&format!("{id}\t{}\n", moves(40 + id % 50)));
            index.push_str(&format!(
                "{id}\t2008.{:02}.01 10:00\tw{id}\tb{id}\t7.5\tW+{k}.5\t{}\t10m\n",
                8 + m,
                40 + id % 50
            ));
        }
        std::fs::write(tom.join("kifu").join(month), lines).unwrap();
    }
    std::fs::write(tom.join("Kifu.index"), index).unwrap();
    let pipe = pipeline(dir.path());
    let one = dir.path().join("one");
    filter(&tom, &one, &pipe);
    let want = games(&one);
    assert_eq!(want.len(), 15);
    let all_joined =
        want.iter().all(|g| g.meta.komi == Some(7.5) && g.quirks.is_empty() && g.meta.black_name.is_some());
    assert!(all_joined, "{:?}", want.iter().map(|g| (&g.meta.komi, &g.quirks, &g.meta.black_name)).collect::<Vec<_>>());
    let (work, out) = (dir.path().join("work"), dir.path().join("out"));
    let (w, o) = (work.to_str().unwrap(), out.to_str().unwrap());
    let input = ["--input", tom.to_str().unwrap(), "--pipeline", pipe.to_str().unwrap()];
    let step = |s: &str, extra: &[&str]| {
        let r = run(&[&["part", s, "--work", w, "--out", o, "-q"][..], &input[..], extra].concat());
        assert!(r.status.success(), "kibo part {s}: {}", stderr(&r));
    };
    step("plan", &["--parts", "4"]);
    let plan: kibo::stages::part::Plan =
        serde_json::from_slice(&std::fs::read(work.join("plan.json")).unwrap()).unwrap();
    assert!(plan.parts.len() >= 2, "{} parts", plan.parts.len());
    for k in 0..plan.parts.len() {
        step("filter", &["--part", &k.to_string()]);
        step("write", &["--part", &k.to_string()]);
    }
    step("finish", &[]);
    let got = games(&out);
    let key = |g: &kibo::game::GameRow| {
        (g.location(), g.meta.black_name.clone(), g.meta.result_raw.clone(), g.quirks.clone())
    };
    assert_eq!(got.iter().map(key).collect::<Vec<_>>(), want.iter().map(key).collect::<Vec<_>>());
}

fn sevenz(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut w = sevenz_rust2::ArchiveWriter::new(Cursor::new(Vec::new())).unwrap();
    let entries = files.iter().map(|f| sevenz_rust2::ArchiveEntry::new_file(&f.0)).collect();
    let readers = files.iter().map(|f| sevenz_rust2::SourceReader::new(f.1.as_slice())).collect();
    w.push_archive_entries(entries, readers).unwrap();
    w.finish().unwrap().into_inner()
}

#[test]
fn a_7z_and_a_two_volume_7z_give_the_folder_s_games() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("folder");
    std::fs::create_dir_all(folder.join("g")).unwrap();
    let files: Vec<(String, Vec<u8>)> = (0..9)
        .map(|i| {
            let sgf = format!("(;GM[1]FF[4]SZ[19]PB[b{i}]PW[w{i}]KM[6.5]RE[B+R]{})", moves(30 + 7 * i));
            (format!("g/{i}.sgf"), sgf.into_bytes())
        })
        .collect();
    for (name, data) in &files {
        std::fs::write(folder.join(name), data).unwrap();
    }
    let a = sevenz(&files);
    let (one, two) = (dir.path().join("one"), dir.path().join("two"));
    std::fs::create_dir_all(&one).unwrap();
    std::fs::create_dir_all(&two).unwrap();
    std::fs::write(one.join("g.7z"), &a).unwrap();
    std::fs::write(two.join("g.7z.001"), &a[..a.len() / 2]).unwrap();
    std::fs::write(two.join("g.7z.002"), &a[a.len() / 2..]).unwrap();
    let pipe = pipeline(dir.path());
    let row =
        |g: &kibo::game::GameRow| (g.game_id, g.game_index, format!("{:?}", g.meta), g.moves.clone(), g.quirks.clone());
    let mut seen = Vec::new();
    for input in [&folder, &one, &two] {
        let out = input.with_extension("out");
        run_ok("filter", input, &out, &pipe);
        let g = games(&out);
        assert_eq!(g.len(), 9, "{input:?}");
        seen.push(g.iter().map(row).collect::<Vec<_>>());
        assert!(rejects(&out).is_empty(), "{input:?}");
    }
    assert_eq!(seen[0], seen[1], "the .7z gives the folder's games");
    assert_eq!(seen[0], seen[2], "the two-volume .7z gives the folder's games");
}
