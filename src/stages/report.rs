/*!
`report.json` (counts that add up) and `manifest.json` (what was read and written,
with checksums). Each stage adds its own section; both files are written
atomically and contain no timestamps, so reruns give identical files.
*/

use std::path::Path;

use serde_json::{json, Value};

use crate::config::Config;
use crate::stages::filter::FilterReport;
use crate::stages::split::SplitReport;
use crate::storage::{write_atomic, ShardInfo, SCHEMA_VERSION};

fn load(out: &Path, name: &str) -> Value {
    std::fs::read(out.join(name))
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .filter(|v| v.is_object())
        .unwrap_or_else(|| json!({}))
}

fn save(out: &Path, name: &str, v: &Value) -> anyhow::Result<()> {
    let mut text = serde_json::to_string_pretty(v)?;
    text.push('\n');
    write_atomic(out, name, text.as_bytes())?;
    Ok(())
}

/// The accounting promise (docs/schema.md): games found = games kept + filter rejects;
/// games kept = games replayed + split rejects. `split` = (games read by the split stage,
/// replayed, rejected), once it ran.
fn games_accounting(found: u64, kept: u64, filter_rejects: u64, split: Option<(u64, u64, u64)>) -> Value {
    let mut v = json!({ "found": found, "kept": kept, "filter_rejects": filter_rejects });
    let mut balanced = found == kept + filter_rejects;
    let mut line = format!("{found} games found = {kept} kept + {filter_rejects} rejected by the filter");
    if let Some((read, replayed, split_rejects)) = split {
        v["replayed"] = json!(replayed);
        v["split_rejects"] = json!(split_rejects);
        balanced &= read == kept && kept == replayed + split_rejects;
        line += &format!("; {kept} kept = {replayed} replayed + {split_rejects} rejected by the split");
    }
    v["balanced"] = json!(balanced);
    v["line"] = json!(format!("{line} ({})", if balanced { "balanced" } else { "NOT BALANCED" }));
    v
}

fn table(shards: &[ShardInfo]) -> Value {
    json!({ "rows": shards.iter().map(|s| s.rows).sum::<u64>(), "shards": shards })
}

/// Writes the filter sections. Starts both files afresh (a new filter run
/// invalidates later stages' sections).
pub fn write_filter(out: &Path, cfg: &Config, pipeline_file: Option<&Path>, r: &FilterReport) -> anyhow::Result<()> {
    let mut report = json!({
        "kibo_version": env!("CARGO_PKG_VERSION"),
        "games": games_accounting(r.total.games_found, r.total.games_kept, r.total.games_rejected, None),
        "filter": {
            "total": r.total,
            "by_source": r.by_source,
            "quirks": r.quirks,
            "charsets": r.charsets,
            "by_format": r.by_format,
        },
    });
    if let Some(k) = &r.katago {
        report["filter"]["katago"] = json!(k);
    }
    save(out, "report.json", &report)?;
    let sources: Vec<Value> = cfg
        .sources
        .iter()
        .map(|s| {
            json!({
                "name": s.name,
                "path": s.path.to_string_lossy(),
                "origin": s.origin,
                "licence": s.recorded_licence(),
                "files": r.inputs.get(&s.name),
            })
        })
        .collect();
    // The thread count does not change the output, so it is left out.
    let mut config_json = serde_json::to_value(cfg)?;
    config_json["pipeline"]["threads"] = json!(null);
    // `[export]` and `[label]` shape the exports and the labels (each records its own
    // settings), not this dataset.
    if let Some(o) = config_json.as_object_mut() {
        o.remove("export");
        o.remove("label");
    }
    let manifest = json!({
        "schema_version": SCHEMA_VERSION,
        "kibo_version": env!("CARGO_PKG_VERSION"),
        "pipeline": {
            "name": cfg.pipeline.name,
            "file": pipeline_file.map(|p| p.to_string_lossy().into_owned()),
            "config": config_json,
        },
        "sources": sources,
        "tables": {
            "games": table(&r.games_shards),
            "rejects": table(&r.rejects_shards),
        },
    });
    save(out, "manifest.json", &manifest)
}

/// Adds the split sections.
pub fn write_split(out: &Path, cfg: &Config, r: &SplitReport) -> anyhow::Result<()> {
    let mut report = load(out, "report.json");
    let t = &report["filter"]["total"];
    let n = |k: &str| t[k].as_u64().unwrap_or(0);
    report["games"] = games_accounting(
        n("games_found"),
        n("games_kept"),
        n("games_rejected"),
        Some((r.games_in, r.games_replayed, r.games_rejected)),
    );
    report["split"] = serde_json::to_value(r)?;
    save(out, "report.json", &report)?;
    let mut manifest = load(out, "manifest.json");
    manifest["schema_version"] = json!(SCHEMA_VERSION);
    manifest["split_config"] = serde_json::to_value(&cfg.split)?;
    if !manifest["tables"].is_object() {
        manifest["tables"] = json!({});
    }
    manifest["tables"]["samples"] = table(&r.shards);
    manifest["tables"]["split_rejects"] = table(&r.reject_shards);
    save(out, "manifest.json", &manifest)
}

/// Sets section `name` of `report.json` to `v` (the Spark job's figures).
pub fn write_section(out: &Path, name: &str, v: &Value) -> anyhow::Result<()> {
    let mut report = load(out, "report.json");
    report[name] = v.clone();
    save(out, "report.json", &report)
}

/// Sets `manifest.json` → `labels` (and its shards under `tables.labels`) and
/// `report.json` → `label` (`kibo label`).
pub fn write_labels(out: &Path, labels: &Value, shards: &[ShardInfo], rep: &Value) -> anyhow::Result<()> {
    let mut manifest = load(out, "manifest.json");
    if !manifest["tables"].is_object() {
        manifest["tables"] = json!({});
    }
    manifest["tables"]["labels"] = table(shards);
    manifest["labels"] = labels.clone();
    save(out, "manifest.json", &manifest)?;
    write_section(out, "label", rep)
}
