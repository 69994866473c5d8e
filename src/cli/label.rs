//! `kibo label`: KataGo's reading of drawn positions as the labels table (docs/labels.md);
//! `kibo part label` runs one part of it.

use clap::Args;

use super::args::{DrawArgs, KatagoJudgeArgs, OutArgs};
use super::exit::Exit;
use super::resolve::resolve_with;
use crate::error::{setup, SetupError};

#[derive(Args, Debug)]
pub(super) struct LabelArgs {
    #[command(flatten)]
    common: OutArgs,
    #[command(flatten)]
    pub(super) draw: DrawArgs,
    /// Also write KataGo's raw policy (362 values a row).
    #[arg(long)]
    policy: bool,
    /// Also write KataGo's ownership (361 values a row, Black's view, ×100 as i8).
    #[arg(long)]
    ownership: bool,
    #[command(flatten)]
    katago: KatagoJudgeArgs,
}

/// `kibo label`: the engine checked before anything is written.
pub(super) fn exec(a: LabelArgs) -> anyhow::Result<i32> {
    exec_part(a, None)
}

/// `kibo label`, or with `part` one part of it (`kibo part label`).
pub(super) fn exec_part(a: LabelArgs, part: Option<(usize, usize)>) -> anyhow::Result<i32> {
    use crate::stages::label;
    let mut r = resolve_with(&a.common, &["games", "samples"])?;
    a.katago.apply_to(&mut r.cfg.label.katago);
    if r.cfg.label.katago.recheck_visits.is_some() {
        return setup("label.katago.recheck_visits: a setting of [filter.katago] only (the judge's second reading)");
    }
    let settings = r.cfg.label.katago.settings_in("label.katago");
    let engines = r
        .cfg
        .label
        .katago
        .threads
        .map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()), |t| t.max(1) as usize);
    settings.check().map_err(|e| SetupError(format!("{e:#}")))?;
    let opt = label::LabelOptions {
        splits: a.draw.splits.iter().map(|s| s.as_str().to_string()).collect(),
        limit: a.draw.limit.unwrap_or(100_000),
        seed: a.draw.seed.unwrap_or(r.cfg.pipeline.seed),
        tags: a.draw.tags.clone(),
        policy: a.policy,
        ownership: a.ownership,
        katago: settings,
        engines,
        chunk_rows: r.cfg.label.chunk_rows.max(1),
        quiet: r.quiet,
        part,
    };
    if let Some((p, n)) = part {
        if n == 0 || p >= n {
            return setup(format!("--part {p} --parts {n}: the part must be below the number of parts"));
        }
    }
    let t0 = std::time::Instant::now();
    let rep = label::run(&r.out, &opt)?;
    if let Some((p, n)) = part {
        eprintln!(
            "part label {p}/{n}: {} positions read by KataGo, {} reused, {:.1} s",
            rep.read,
            rep.reused,
            t0.elapsed().as_secs_f64()
        );
        return Ok(Exit::Ok as i32);
    }
    let secs = t0.elapsed().as_secs_f64();
    eprintln!(
        "label: {} positions of {} candidates ({} reused, {} read by {} KataGo engine(s) at {} visits in {} queries, \
         {} as their stones alone), {:.2} positions/s read, {} files in {}, {:.1} s",
        rep.rows,
        rep.candidates,
        rep.reused,
        rep.read,
        opt.engines,
        opt.katago.visits,
        rep.queries,
        rep.sent_board,
        if rep.engine_seconds > 0.0 { rep.read as f64 / rep.engine_seconds } else { 0.0 },
        rep.chunks,
        r.out.join("labels").display(),
        secs
    );
    Ok(Exit::Ok as i32)
}
