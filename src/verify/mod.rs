/*!
Eye-check export: renders verification samples so that a person can compare them with
the original game (DESIGN.md, "Verification sample").

For every sample the export shows the board **before** the move, the side to move, the
previous move, the ko point and the move played, in four forms that share one layout and
one set of labels:

* a picture, as PNG ([`render_png`]) and SVG ([`render_svg`]): columns `A`–`T` without `I`
  along the top and the bottom, rows `1`–`19` on both sides with `19` at the **top**
  (right-aligned, so the units digits line up);
* a text diagram ([`text_diagram`]), with the same labels;
* a small SGF ([`mini_sgf`]) that any viewer opens: setup stones, `PL`, the move;
* one self-contained review page for all samples ([`html_page`]).

[`write_export`] writes all of them into a folder. Every coordinate conversion goes
through [`crate::coord`]; this module never turns letters into numbers itself.
*/

use std::path::{Path, PathBuf};

mod html;
pub(crate) mod marks;
mod model;
mod render;
mod sample;
mod text;
mod vlm_page;

#[cfg(test)]
mod tests;

pub use html::html_page;
pub use marks::{render_marks_png, render_marks_svg, BoardMarks};
pub use model::BoardPainter;
pub use render::{point_pixel, render_png, render_svg, BoardMarkers, Style, IMAGE_HEIGHT, IMAGE_WIDTH};
/// Text escaped for HTML and XML (the one escape of kibo's pages).
pub(crate) use sample::xml_escape;
use sample::{file_stem, sample_json};
pub use sample::{mini_sgf, VerifySample};
pub use text::text_diagram;
pub use vlm_page::{vlm_page, vlm_stem, VlmView};

/// Extensions of the per-sample files.
const SAMPLE_EXTS: [&str; 5] = ["png", "svg", "txt", "sgf", "json"];

/// Writes the export into `dir` (created if missing):
///
/// * per sample `sample-NN.png` and `sample-NN.svg` (picture with the answer marked),
///   `sample-NN.txt` ([`text_diagram`]), `sample-NN.sgf` ([`mini_sgf`]) and
///   `sample-NN.json` (source, game index, move number, answer in SGF and GTP, …),
///   `NN` being the sample's `id` (two digits at least);
/// * `index.html` ([`html_page`]), written last.
///
/// Every file is first written under a temporary name in `dir` and then renamed, so a
/// reader never sees a half-written file. `sample-*` files of an earlier, larger export
/// that this one does not rewrite are removed, and so are temporary files left by an
/// interrupted export, so the folder holds exactly this export.
/// Two samples with the same `id` are an `InvalidInput` error (nothing is written).
pub fn write_export(dir: &Path, samples: &[VerifySample]) -> std::io::Result<()> {
    let mut stems = std::collections::BTreeSet::new();
    for s in samples {
        if !stems.insert(file_stem(s)) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("two verification samples with id {}", s.id),
            ));
        }
    }
    std::fs::create_dir_all(dir)?;
    let mut written: Vec<String> = Vec::new();
    for s in samples {
        let stem = file_stem(s);
        let json = serde_json::to_string_pretty(&sample_json(s)).map_err(std::io::Error::other)? + "\n";
        let files: [(String, Vec<u8>); 5] = [
            (format!("{stem}.png"), render_png(s, true)),
            (format!("{stem}.svg"), render_svg(s, true).into_bytes()),
            (format!("{stem}.txt"), text_diagram(s).into_bytes()),
            (format!("{stem}.sgf"), mini_sgf(s).into_bytes()),
            (format!("{stem}.json"), json.into_bytes()),
        ];
        for (name, bytes) in files {
            write_atomic(dir, &name, &bytes)?;
            written.push(name);
        }
    }
    write_atomic(dir, "index.html", html_page(samples).as_bytes())?;
    remove_stale(dir, "sample-", &SAMPLE_EXTS, &written)?;
    Ok(())
}

/// Writes the eye check of a VLM set into `dir` (created if missing): per row
/// `vlm-NN.png` (the stored picture's bytes) and `vlm-NN.json` (its turns, answer and
/// provenance), then `index.html` ([`vlm_page`]); atomically per file, as
/// [`write_export`], and `vlm-*` files of an earlier, larger check are removed.
pub fn write_vlm_export(dir: &Path, rows: &[VlmView], dest: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut written: Vec<String> = Vec::new();
    for r in rows {
        let stem = vlm_stem(r.id);
        let json = serde_json::to_string_pretty(r).map_err(std::io::Error::other)? + "\n";
        for (name, bytes) in [(format!("{stem}.png"), r.png.clone()), (format!("{stem}.json"), json.into_bytes())] {
            if bytes.is_empty() {
                continue; // A text board's row has no picture.
            }
            write_atomic(dir, &name, &bytes)?;
            written.push(name);
        }
    }
    write_atomic(dir, "index.html", vlm_page(rows, dest).as_bytes())?;
    remove_stale(dir, "vlm-", &["png", "json"], &written)?;
    Ok(())
}

fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    let tmp: PathBuf = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        std::fs::write(&tmp, bytes)?;
        std::fs::rename(&tmp, dir.join(name))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Is `name` a file this module writes per row (`<prefix><digits>.<ext>`)?
fn is_row_file(name: &str, prefix: &str, exts: &[&str]) -> bool {
    let Some(rest) = name.strip_prefix(prefix) else { return false };
    let Some((num, ext)) = rest.split_once('.') else { return false };
    !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit()) && exts.contains(&ext)
}

fn remove_stale(dir: &Path, prefix: &str, exts: &[&str], written: &[String]) -> std::io::Result<()> {
    let is_sample_file = |name: &str| is_row_file(name, prefix, exts);
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        // Temporary files of an interrupted earlier export: `.sample-01.png.tmp-<pid>`.
        let leftover = name.strip_prefix('.').and_then(|n| n.split_once(".tmp-")).is_some_and(|(target, pid)| {
            (is_sample_file(target) || target == "index.html") && pid.bytes().all(|b| b.is_ascii_digit())
        });
        let stale = is_sample_file(name) && !written.iter().any(|w| w == name);
        if (stale || leftover) && entry.file_type()?.is_file() {
            std::fs::remove_file(entry.path())?;
        }
    }
    Ok(())
}
