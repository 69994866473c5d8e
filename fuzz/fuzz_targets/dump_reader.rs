//! The one-line dump reader never panics: any bytes as a month file (read by content)
//! beside any bytes as its index (`Kifu2016.index`), walked together; and each line
//! through the line and index parsers and the SGF document a line makes.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Month file and index: the bytes before and after the first 0xFF.
    let cut = data.iter().position(|&b| b == 0xFF).unwrap_or(data.len());
    let (month, index) = (&data[..cut], data.get(cut + 1..).unwrap_or(&[]));
    for line in index.split(|&b| b == b'\n') {
        let _ = kibo::input::dump::parse_index_line(&String::from_utf8_lossy(line));
    }
    let entry = kibo::input::dump::parse_index_line(&String::from_utf8_lossy(index))
        .and_then(|mut r| if r.is_empty() { None } else { Some(r.remove(0).1) });
    for line in month.split(|&b| b == b'\n') {
        if let Some((id, moves)) = kibo::input::dump::split_line(line) {
            let (doc, _) = kibo::input::dump::to_sgf(id, moves, entry.as_ref());
            let _ = kibo::sgf::read_games(&doc);
        }
    }
    // A budget of about two records: most indexes of more lines spill to disk.
    let dir = std::env::temp_dir().join(format!("kibo-fuzz-dump-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let (m, i) = (dir.join("2016-12"), dir.join("Kifu2016.index"));
    // A month file that does not start like a dump is skipped: make most of them start like one.
    let head: &[u8] = if month.first().is_some_and(|b| b % 2 == 0) { b"1\t;B[aa]\n" } else { b"" };
    if std::fs::write(&m, [head, month].concat()).is_ok() && std::fs::write(&i, index).is_ok() {
        let limits = kibo::input::Limits { max_member_bytes: 1 << 16, dump_index_bytes: 600, ..Default::default() };
        kibo::input::walk(&[dir.clone()], &limits, |_| {});
    }
    let _ = std::fs::remove_file(&m);
    let _ = std::fs::remove_file(&i);
});
