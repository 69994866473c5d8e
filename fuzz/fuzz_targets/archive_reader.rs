//! The archive walker never panics on bytes named as any archive kind (also `.7z`, the first
//! volume of a multi-volume 7z, and an extension-less name, read by content as a dump).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("kibo-fuzz-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let names = ["x.zip", "x.tar", "x.tar.gz", "x.tar.bz2", "x.gz", "x.sgfs", "x.7z", "x.7z.001", "2016-12"];
    // The first byte picks the name, the rest is the file (so that a file may start with
    // any byte: a 7z's first byte, `7`, would otherwise always pick the same name).
    let Some((pick, body)) = data.split_first() else { return };
    let name = names[*pick as usize % names.len()];
    let p = dir.join(name);
    if std::fs::write(&p, body).is_ok() {
        // Small caps so that the limit paths (member, archive, ratio, nesting) are hit.
        let limits = kibo::input::Limits {
            max_member_bytes: 1 << 20,
            max_archive_bytes: 16 << 20,
            max_nesting: 3,
            max_ratio: 50,
            ..Default::default()
        };
        kibo::input::walk(&[p.clone()], &limits, |_| {});
        let _ = std::fs::remove_file(&p);
    }
});
