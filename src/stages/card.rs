/*!
The dataset card: `README.md` in the output folder, in the Hugging Face dataset-card
form, so that `datasets.load_dataset(DIR)` finds the configs and splits and the Hub
shows the data properly. A YAML header (the `samples`, `games` and `rejects` configs, the
samples' train/validation/test splits, the sources' licences as the manifest records
them, the size category), then the counts and the schema in prose (the tables of
`docs/schema.md`, compiled in). Made from `report.json` and `manifest.json` alone, so
`kibo run` and the Spark job write the same card for the same dataset.
*/

use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

use crate::config::UNKNOWN_LICENCE;
use crate::storage::write_atomic;

const SCHEMA_DOC: &str = include_str!("../../docs/schema.md");

fn load(out: &Path, name: &str) -> anyhow::Result<Value> {
    let p = out.join(name);
    let bytes = std::fs::read(&p).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
    Ok(serde_json::from_slice(&bytes)?)
}

/// The section of docs/schema.md whose heading starts with `## \`name\``.
fn schema_section(name: &str) -> &'static str {
    let head = format!("## `{name}`");
    let Some(start) = SCHEMA_DOC.find(&head) else { return "" };
    let body = &SCHEMA_DOC[start..];
    let end = body[3..].find("\n## ").map_or(body.len(), |i| i + 4);
    body[..end].trim_end()
}

/// A source's licence as the manifest records it (an older manifest's null or blank:
/// `unknown`).
fn recorded_licence(l: Option<&str>) -> &str {
    l.map(str::trim).filter(|l| !l.is_empty()).unwrap_or(UNKNOWN_LICENCE)
}

/// A licence as the Hub's `license:` field spells it (lowercase SPDX; none: `unknown`).
fn hub_licence(l: Option<&str>) -> String {
    let l = recorded_licence(l);
    if l.chars().all(|c| c.is_ascii_alphanumeric() || ".-+".contains(c)) {
        l.to_ascii_lowercase()
    } else {
        "other".to_string()
    }
}

fn size_category(n: u64) -> &'static str {
    match n {
        0..1_000 => "n<1K",
        1_000..10_000 => "1K<n<10K",
        10_000..100_000 => "10K<n<100K",
        100_000..1_000_000 => "100K<n<1M",
        1_000_000..10_000_000 => "1M<n<10M",
        10_000_000..100_000_000 => "10M<n<100M",
        100_000_000..1_000_000_000 => "100M<n<1B",
        _ => "n>1B",
    }
}

/// The card's text for the output folder's `report.json` and `manifest.json`.
pub fn render(report: &Value, manifest: &Value) -> String {
    let split = &report["split"];
    let by_split = |s: &str| split["samples_by_split"][s].as_u64().unwrap_or(0);
    let sources = manifest["sources"].as_array().cloned().unwrap_or_default();
    let mut licences: Vec<String> = sources.iter().map(|s| hub_licence(s["licence"].as_str())).collect();
    licences.sort();
    licences.dedup();
    let samples = split["samples"].as_u64().unwrap_or(0);
    let name = manifest["pipeline"]["name"].as_str().unwrap_or("kibo");
    let mut t = String::from("---\n");
    let _ = writeln!(t, "pretty_name: \"Go game positions ({name}), built by kibo\"");
    t += "license:\n";
    for l in &licences {
        let _ = writeln!(t, "- {l}");
    }
    t += "tags:\n- go\n- baduk\n- weiqi\n- game-records\n- kibo\n";
    let _ = writeln!(t, "size_categories:\n- {}", size_category(samples));
    t += "configs:\n- config_name: samples\n  default: true\n  data_files:\n";
    for (kibo, hub) in [("train", "train"), ("val", "validation"), ("test", "test")] {
        if by_split(kibo) > 0 {
            let _ = writeln!(t, "  - split: {hub}\n    path: samples/part-{kibo}-*.parquet");
        }
    }
    t += "- config_name: games\n  data_files: games/*.parquet\n";
    t += "- config_name: rejects\n  data_files: rejects/*.parquet\n";
    let labels = &manifest["labels"];
    if labels.is_object() {
        t += "- config_name: labels\n  data_files: labels/*.parquet\n";
    }
    t += "---\n\n";
    let _ = writeln!(t, "# Go game positions ({name})\n");
    let rows = if split["dedup"].is_null() {
        "One row per move of replayed Go games (not deduplicated)"
    } else {
        "One row per distinct position of replayed Go games (deduplicated; `dup_count` and the move \
         distribution say how often each was seen)"
    };
    let _ = write!(
        t,
        "{rows}: the board before the move, the move played (the label), the game's metadata and \
         tactical tags. Built by kibo from the sources below; `report.json` explains every count and \
         `manifest.json` lists every input and shard with its checksum.\n\n"
    );
    let g = &report["games"];
    let _ = writeln!(t, "## Counts\n");
    let _ = writeln!(t, "| | count |\n|---|---|");
    for (label, v) in [
        ("games found", g["found"].as_u64()),
        ("games kept by the filter", g["kept"].as_u64()),
        ("games replayed", g["replayed"].as_u64()),
        (
            "games rejected (both stages)",
            Some(g["filter_rejects"].as_u64().unwrap_or(0) + g["split_rejects"].as_u64().unwrap_or(0)),
        ),
        ("samples", Some(samples)),
        ("samples: train", Some(by_split("train"))),
        ("samples: validation", Some(by_split("val"))),
        ("samples: test", Some(by_split("test"))),
    ] {
        let _ = writeln!(t, "| {label} | {} |", v.unwrap_or(0));
    }
    let _ = writeln!(t, "\n{}\n", g["line"].as_str().unwrap_or(""));
    let checks = &report["filter"]["total"]["score_checks"];
    if checks.as_object().is_some_and(|o| !o.is_empty()) {
        let n = |k: &str| checks[k].as_u64().unwrap_or(0);
        let _ = writeln!(
            t,
            "Games that ended by counting, the count against the recorded result (`score_check`, \
             docs/scoring.md in kibo): {} agree, {} name the same winner with another margin \
             (`margin_differs`), {} name another winner (`winner_differs`), {} undecided. A value \
             net's training set usually leaves out `winner_differs` games.\n",
            n("agrees"),
            n("margin_differs"),
            n("winner_differs"),
            n("undecided")
        );
        if let Some(k) = report["filter"]["katago"]["games"].as_u64() {
            let _ = writeln!(
                t,
                "Of these, {k} games that kibo's own judge left undecided or counted for another winner were \
                 judged with KataGo's ownership maps as the evidence for life and death ({} visits; kibo counted \
                 them; `score_judge` = `katago`).\n",
                report["filter"]["katago"]["visits"].as_u64().unwrap_or(0)
            );
        }
    }
    if labels.is_object() {
        let e = &labels["engine"];
        let _ = writeln!(
            t,
            "## Engine labels\n\n`labels` holds KataGo's reading of {} drawn positions (net `{}`, {} visits a \
             position; `kibo label`): its move, winrate, score lead and best moves, joined to `samples` on \
             (`game_id`, `move_number`).\n",
            labels["rows"].as_u64().unwrap_or(0),
            e["model"].as_str().unwrap_or(""),
            e["visits"].as_u64().unwrap_or(0)
        );
    }
    let _ = writeln!(t, "## Sources and licences\n\n| source | licence | games found | origin |\n|---|---|---|---|");
    for s in &sources {
        let n = s["name"].as_str().unwrap_or("");
        let found = report["filter"]["by_source"][n]["games_found"].as_u64().unwrap_or(0);
        let _ = writeln!(
            t,
            "| {n} | {} | {found} | {} |",
            recorded_licence(s["licence"].as_str()),
            s["origin"].as_str().unwrap_or("")
        );
    }
    t += "\nEach source keeps its own licence; a row's `source` column names the file it came from.\n\n";
    let _ = writeln!(t, "## Schema (version {})\n", manifest["schema_version"].as_str().unwrap_or(""));
    t += "The `samples` config is the training set; `games` and `rejects` account for every game \
          found. Splits are by game (`split` column), so no game is in two splits.\n\n";
    let tables: &[&str] =
        if labels.is_object() { &["samples", "games", "rejects", "labels"] } else { &["samples", "games", "rejects"] };
    for &table in tables {
        let section = schema_section(table);
        if !section.is_empty() {
            t += &section.replacen("## ", "### ", 1);
            t += "\n\n";
        }
    }
    t
}

/// Writes `out/README.md` from the folder's report and manifest (atomically).
pub fn write(out: &Path) -> anyhow::Result<()> {
    let text = render(&load(out, "report.json")?, &load(out, "manifest.json")?);
    write_atomic(out, "README.md", text.as_bytes())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn licences_are_spelled_as_the_hub_spells_them() {
        assert_eq!(hub_licence(Some("GPL-3.0")), "gpl-3.0");
        assert_eq!(hub_licence(Some("MIT")), "mit");
        assert_eq!(hub_licence(None), "unknown");
        assert_eq!(hub_licence(Some("  ")), "unknown");
        assert_eq!(hub_licence(Some("free for research use")), "other");
        assert_eq!(size_category(999), "n<1K");
        assert_eq!(size_category(611_926), "100K<n<1M");
        assert_eq!(size_category(10_000_000_000), "n>1B");
    }

    #[test]
    fn the_card_lists_the_splits_that_have_samples_and_the_schema() {
        let report = json!({
            "games": {"found": 3, "kept": 2, "replayed": 2, "filter_rejects": 1, "split_rejects": 0, "line": "3 found (balanced)"},
            "filter": {"by_source": {"a": {"games_found": 3}}},
            "split": {"samples": 400, "samples_by_split": {"train": 390, "test": 10}},
        });
        let manifest = json!({
            "schema_version": "2",
            "pipeline": {"name": "t"},
            "sources": [
                {"name": "a", "licence": "MIT", "origin": "here"},
                {"name": "b", "licence": null},
                {"name": "c", "licence": "unknown", "origin": "command line"},
            ],
        });
        let card = render(&report, &manifest);
        let header = card.split("\n---\n").next().unwrap();
        assert!(header.contains("- split: train\n    path: samples/part-train-*.parquet"));
        assert!(header.contains("- split: test\n    path: samples/part-test-*.parquet"));
        assert!(!header.contains("validation"), "a split without samples is not listed");
        assert!(header.contains("license:\n- mit\n- unknown\n"));
        assert!(card.contains("| a | MIT | 3 | here |") && card.contains("| b | unknown | 0 |  |"));
        assert!(card.contains("| c | unknown | 0 | command line |"), "an undeclared licence is recorded as unknown");
        assert!(card.contains("### `samples`") && card.contains("| `move_gtp` |"), "the schema is in the card");
        assert_eq!(card, render(&report, &manifest));
    }
}
