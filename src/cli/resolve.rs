//! The flags merged with the pipeline file into the settings a command runs with, and
//! the checks of the folders it reads and writes (setup errors, before anything is
//! written).

use std::path::{Path, PathBuf};

use anyhow::Context;

use super::args::{OutArgs, RunArgs};
use crate::config::{Config, Source, UNKNOWN_LICENCE};
use crate::error::{setup, SetupError};

/// Settings after merging the pipeline file and flags.
pub struct Resolved {
    /// Merged config.
    pub cfg: Config,
    /// Output folder.
    pub out: PathBuf,
    /// Pipeline file used, if any.
    pub pipeline_file: Option<PathBuf>,
    /// Progress off.
    pub quiet: bool,
    /// The sources are the `--input` paths (not the pipeline file's `[[sources]]`).
    pub from_inputs: bool,
}

/// Merges the pipeline file (or the defaults) with the flags; `inputs` (with their
/// `licence`) replace the file's sources when not empty.
pub(super) fn resolve(args: &OutArgs, inputs: &[PathBuf], licence: Option<&str>) -> anyhow::Result<Resolved> {
    let mut cfg = match &args.pipeline {
        Some(p) => Config::load(p).map_err(|e| SetupError(e.to_string()))?,
        None => Config::default(),
    };
    if let Some(t) = args.threads {
        cfg.pipeline.threads = t;
    }
    if let Some(m) = args.memory_mb {
        cfg.pipeline.memory_mb = m;
    }
    if let Some(d) = &args.tmp_dir {
        cfg.pipeline.tmp_dir = Some(d.clone());
    }
    let origin = args.pipeline.clone().unwrap_or_else(|| PathBuf::from("command line"));
    cfg.validate(&origin).map_err(|e| SetupError(e.to_string()))?;
    if let Some(l) = licence {
        if inputs.is_empty() {
            return setup("--licence applies to the --input sources; a pipeline file's [[sources]] declare their own");
        }
        if l.trim().is_empty() {
            return setup("--licence is empty: give an SPDX id (e.g. --licence CC-BY-4.0)");
        }
    }
    let from_inputs = !inputs.is_empty();
    if from_inputs {
        let n = inputs.len();
        cfg.sources = inputs
            .iter()
            .enumerate()
            .map(|(i, p)| Source {
                name: if n == 1 { "input".to_string() } else { format!("input{}", i + 1) },
                path: p.clone(),
                origin: Some("command line".into()),
                licence: licence.map(|l| l.trim().to_string()),
            })
            .collect();
    }
    let out = match args.out.clone().or_else(|| cfg.pipeline.out.clone()) {
        Some(o) => o,
        None => return setup("no output folder: pass --out DIR or set pipeline.out"),
    };
    Ok(Resolved { cfg, out, pipeline_file: args.pipeline.clone(), quiet: args.quiet, from_inputs })
}

/// [`resolve`] for `kibo filter`, `kibo run` and `kibo part`: their `--input` sources and
/// the count's flags (`--score-check`, KataGo's), checked.
pub(super) fn resolve_run(a: &RunArgs) -> anyhow::Result<Resolved> {
    let mut r = resolve(&a.common, &a.input, a.licence.as_deref())?;
    a.katago.apply(a.score_check, &mut r.cfg.filter)?;
    Ok(r)
}

/// [`resolve`] for a command that reads the output folder's `tables` (the exports,
/// `kibo label`): a setup error names the missing ones.
pub(super) fn resolve_with(args: &OutArgs, tables: &[&str]) -> anyhow::Result<Resolved> {
    let r = resolve(args, &[], None)?;
    let missing: Vec<&str> = tables.iter().copied().filter(|t| !r.out.join(t).is_dir()).collect();
    if !missing.is_empty() {
        return setup(format!("{} has no {} table: run `kibo run` first", r.out.display(), missing.join(" or ")));
    }
    Ok(r)
}

/// Checks that every source exists and, for a pipeline file's sources under
/// `pipeline.require_licence`, declares a licence; then prepares the folder `dir` that
/// the command writes, and warns (one line) about the sources recorded with an unknown
/// licence.
pub(super) fn check_inputs(r: &Resolved, dir: &Path) -> anyhow::Result<()> {
    if r.cfg.sources.is_empty() {
        return setup("no inputs: pass --input PATH or list [[sources]] in the pipeline");
    }
    let mut unlicensed = Vec::new();
    for s in &r.cfg.sources {
        if let Err(e) = std::fs::metadata(&s.path) {
            return setup(format!("input {}: {e}", s.path.display()));
        }
        if s.declared_licence().is_none() {
            if r.cfg.pipeline.require_licence && !r.from_inputs {
                return setup(format!(
                    "source {:?} ({}) declares no licence and pipeline.require_licence is set",
                    s.name,
                    s.path.display()
                ));
            }
            unlicensed.push(format!("{:?} ({})", s.name, s.path.display()));
        }
    }
    prepare_out(dir)?;
    if !unlicensed.is_empty() {
        let how = if r.from_inputs {
            "pass --licence SPDX (e.g. --licence CC-BY-4.0), or list the source with its licence under [[sources]] in a pipeline file"
        } else {
            "add licence = \"SPDX\" to the [[sources]] entry in the pipeline file"
        };
        let (noun, verb) = if unlicensed.len() == 1 { ("source", "declares") } else { ("sources", "declare") };
        eprintln!(
            "kibo: warning: {noun} {} {verb} no licence: recorded as {UNKNOWN_LICENCE:?} in manifest.json and the \
             dataset card; to declare one, {how}",
            unlicensed.join(", ")
        );
    }
    Ok(())
}

/// Creates the output folder `out` and checks that it is writable.
pub(super) fn prepare_out(out: &Path) -> anyhow::Result<()> {
    if let Err(e) = std::fs::create_dir_all(out) {
        return setup(format!("output folder {}: {e}", out.display()));
    }
    let probe = out.join(".tmp-write-probe");
    if let Err(e) = std::fs::write(&probe, b"") {
        return setup(format!("output folder {} is not writable: {e}", out.display()));
    }
    let _ = std::fs::remove_file(probe);
    Ok(())
}

/// The worker threads of a command (8 MiB stacks).
pub(super) fn pool(threads: usize) -> anyhow::Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new().num_threads(threads).stack_size(8 << 20).build().context("starting worker threads")
}
