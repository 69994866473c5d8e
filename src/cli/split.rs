//! `kibo split`: the games table replayed into the sample shards; its summary lines,
//! which `kibo run` and `kibo part finish` print too.

use super::args::OutArgs;
use super::exit::Exit;
use super::resolve::{pool, prepare_out, resolve, Resolved};
use crate::error::setup;

/// `kibo split`: needs the games table of `kibo filter`.
pub(super) fn exec(a: OutArgs) -> anyhow::Result<i32> {
    let r = resolve(&a, &[], None)?;
    if !r.out.join("games").is_dir() {
        return setup(format!("{} has no games table: run `kibo filter` first", r.out.display()));
    }
    prepare_out(&r.out)?;
    pool(r.cfg.pipeline.threads)?.install(|| do_split(&r))?;
    Ok(Exit::Ok as i32)
}

/// The split stage, its report and the dataset card written, its summary printed.
pub(super) fn do_split(r: &Resolved) -> anyhow::Result<()> {
    let t0 = std::time::Instant::now();
    let report = crate::stages::split::run(&r.cfg, &r.out, r.quiet)?;
    crate::stages::report::write_split(&r.out, &r.cfg, &report)?;
    crate::stages::card::write(&r.out)?;
    print_split(&report, t0);
    if !report.accounting.balanced {
        anyhow::bail!("split: the sample counts do not add up (report.json split.accounting); this is a bug in kibo");
    }
    Ok(())
}

/// The split's summary lines (stderr).
pub(super) fn print_split(report: &crate::stages::split::SplitReport, t0: std::time::Instant) {
    let secs = t0.elapsed().as_secs_f64();
    eprintln!(
        "split: {} games replayed, {} rejected, {} samples in {} shard(s), {:.2} bytes/sample, in {:.2}s: {:.0} samples/s",
        report.games_replayed,
        report.games_rejected,
        report.samples,
        report.shards.len(),
        report.bytes_per_sample(),
        secs,
        report.samples as f64 / secs
    );
    eprintln!("split: accounting: {}", report.accounting.line);
    let m = &report.memory;
    eprintln!(
        "split: memory: peak {:.0} MiB, budget {} MiB (pipeline.memory_mb = {}); {:.1} MB spilled",
        crate::stages::split::peak_rss_bytes() as f64 / (1 << 20) as f64,
        m.budget.total >> 20,
        m.budget.describe(),
        m.spilled_bytes as f64 / 1e6
    );
}
