//! `kibo filter` (archives → the games and rejects tables) and `kibo run` (filter, then
//! split); both take [`RunArgs`].

use super::args::RunArgs;
use super::exit::Exit;
use super::resolve::{check_inputs, pool, resolve_run, Resolved};

/// `kibo filter`: 0, or 1 when some inputs could not be read.
pub(super) fn exec(a: RunArgs) -> anyhow::Result<i32> {
    let r = resolve_run(&a)?;
    check_inputs(&r, &r.out)?;
    let code = pool(r.cfg.pipeline.threads)?.install(|| do_filter(&r))?;
    Ok(code)
}

/// `kibo run`: filter, then split; the filter's exit code.
pub(super) fn exec_run(a: RunArgs) -> anyhow::Result<i32> {
    let r = resolve_run(&a)?;
    check_inputs(&r, &r.out)?;
    let p = pool(r.cfg.pipeline.threads)?;
    let code = p.install(|| do_filter(&r))?;
    p.install(|| super::split::do_split(&r))?;
    Ok(code)
}

/// The filter stage, its report written and its summary printed.
fn do_filter(r: &Resolved) -> anyhow::Result<i32> {
    let t0 = std::time::Instant::now();
    let progress = crate::progress::Progress::new("filter", "games", None, r.quiet);
    let report = crate::stages::filter::run(&r.cfg, &r.cfg.sources, &r.out, &progress)?;
    progress.finish();
    crate::stages::report::write_filter(&r.out, &r.cfg, r.pipeline_file.as_deref(), &report)?;
    let secs = t0.elapsed().as_secs_f64();
    let t = &report.total;
    eprintln!(
        "filter: {} games found, {} kept, {} rejected ({} files, {:.1} MB, {} non-SGF skipped) in {:.2}s: {:.0} games/s, {:.1} MB/s",
        t.games_found,
        t.games_kept,
        t.games_rejected,
        t.files_read,
        t.bytes_read as f64 / 1e6,
        t.skipped_non_sgf,
        secs,
        t.games_found as f64 / secs,
        t.bytes_read as f64 / 1e6 / secs
    );
    if !t.rejected_by_reason.is_empty() {
        let parts: Vec<String> = t.rejected_by_reason.iter().map(|(k, v)| format!("{k} {v}")).collect();
        eprintln!("filter: rejected by reason: {}", parts.join(", "));
    }
    if let Some(k) = &report.katago {
        let moved: Vec<String> = t.katago_verdicts.iter().map(|(k, v)| format!("{k} {v}")).collect();
        eprintln!(
            "filter: KataGo ({} visits) read {} games, {} of them again at {} visits, in {:.1}s ({:.2}s a game, its start \
             included): {}",
            k.visits,
            k.games,
            k.rechecked,
            k.recheck_visits,
            k.seconds,
            k.seconds / k.games.max(1) as f64,
            if moved.is_empty() { "none".to_string() } else { moved.join(", ") }
        );
    }
    if report.had_unreadable() {
        eprintln!(
            "filter: {} input(s) could not be read; see rejects (reason unreadable_file)",
            t.rejected_by_reason.get("unreadable_file").copied().unwrap_or(0)
        );
        return Ok(Exit::SomeUnreadable as i32);
    }
    Ok(Exit::Ok as i32)
}
