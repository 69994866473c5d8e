//! Crash safety: a split killed with SIGKILL leaves no partial file under a final
//! name, and a rerun gives exactly the output of an uninterrupted run.

use std::time::Duration;

use crate::util::{kibo, run, shared, snapshot, stderr};

#[cfg(unix)]
#[test]
fn sigkill_mid_split_then_rerun_is_identical() {
    let Some(dev) = shared("dev") else { return };
    let dir = tempfile::tempdir().unwrap();
    let clean = dir.path().join("clean");
    let crashed = dir.path().join("crashed");
    let p = dir.path().join("p.toml");
    // Small shards and a spilling dedup index, so a kill lands between many files.
    std::fs::write(&p, "[split]\nshard_rows = 50000\nrow_group_rows = 10000\ndedup_memory_mb = 1\n").unwrap();
    let input = dev.to_str().unwrap();
    for out in [&clean, &crashed] {
        let o =
            run(&["filter", "--input", input, "--out", out.to_str().unwrap(), "--pipeline", p.to_str().unwrap(), "-q"]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let o = run(&["split", "--out", clean.to_str().unwrap(), "--pipeline", p.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let want = snapshot(&clean);

    // Kill the split at several moments; after each kill, no final-named file is partial.
    let mut killed_mid_run = 0;
    for delay_ms in [150u64, 400, 900, 1500] {
        let mut child = kibo()
            .args(["split", "--out", crashed.to_str().unwrap(), "--pipeline", p.to_str().unwrap(), "-q"])
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let finished = child.try_wait().unwrap().is_some();
        unsafe { libc_kill(child.id() as i32) };
        let _ = child.wait();
        if !finished {
            killed_mid_run += 1;
        }
        // Every file under a final name is a complete Parquet file (ends with PAR1 and opens).
        for (name, _) in snapshot(&crashed) {
            if name.starts_with(".tmp-") || name.contains("/.tmp-") {
                continue;
            }
            if name.ends_with(".parquet") {
                let bytes = std::fs::read(crashed.join(&name)).unwrap();
                assert!(bytes.ends_with(b"PAR1"), "{name} is partial after a kill at {delay_ms} ms");
            }
        }
    }
    assert!(killed_mid_run >= 1, "no kill landed mid-run; the test proves nothing");
    // Rerun: identical to the clean run, and the crashed run's temporaries are gone.
    let o = run(&["split", "--out", crashed.to_str().unwrap(), "--pipeline", p.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(snapshot(&crashed), want);
    assert!(std::fs::read_dir(&crashed).unwrap().all(|e| !e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .starts_with(".tmp-")));
}

#[cfg(unix)]
unsafe fn libc_kill(pid: i32) {
    extern "C" {
        fn kill(pid: i32, sig: i32) -> i32;
    }
    kill(pid, 9);
}
