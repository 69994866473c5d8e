//! The eye check of a VLM set (`kibo sample --vlm DEST`): rows of `kibo export vlm`
//! exactly as the model sees them, the picture's own PNG bytes and the chat turns' own
//! text, on one page (`verify/vlm/index.html`, the PNGs beside it). The answer is hidden
//! until the reviewer opens it, as on the samples' review page.

use std::fmt::Write as _;
use std::path::Path;

/// One exported row as the page shows it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct VlmView {
    /// 1..=n, names the files (`vlm-01.png`).
    pub id: usize,
    /// The picture, as stored in the export.
    #[serde(skip)]
    pub png: Vec<u8>,
    /// The chat turns before the answer, `(role, text)`, as stored (`<image>` included).
    pub turns: Vec<(String, String)>,
    /// The assistant's answer.
    pub answer: String,
    /// `next-move`, `transcribe` or `tactics` (with its question).
    pub task: String,
    pub game_id: String,
    pub move_number: u32,
    pub source: String,
    pub split: String,
    /// The dihedral transform applied (0: as played).
    pub symmetry: u8,
    /// Width (and height) of the picture in pixels.
    pub width: u32,
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// `vlm-NN` (two digits at least).
pub fn vlm_stem(id: usize) -> String {
    format!("vlm-{id:02}")
}

/// The page: per row the picture at its own size, the turns and a hidden answer.
pub fn vlm_page(rows: &[VlmView], dest: &Path) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>kibo: {n} VLM rows as the model sees them</title><style>{CSS}</style></head><body>\n\
         <header><h1>{n} rows of the VLM set as the model sees them</h1>\
         <span class=\"from\">from <code>{dest}</code></span></header>\n\
         <p class=\"help\">Each picture is the PNG stored in the export, shown at its own size (one \
         pixel a pixel); the turns are the stored text. Read the board, then open the answer.</p>\n<main>\n",
        n = rows.len(),
        dest = esc(&dest.display().to_string()),
    );
    for r in rows {
        let stem = vlm_stem(r.id);
        let _ = write!(
            out,
            "<section class=\"row\" id=\"{stem}\"><h2>Row {id}: {task}</h2>\n\
             <p class=\"meta\">game <code>{game}</code> · move {mv} · {split} · symmetry {sym} · <code>{source}</code></p>\n\
             <div class=\"pair\">{img}\n<div class=\"turns\">",
            id = r.id,
            task = esc(&r.task),
            game = esc(&r.game_id),
            mv = r.move_number,
            split = esc(&r.split),
            sym = r.symmetry,
            source = esc(&r.source),
            // A text board's row has no picture: its board is in the turns.
            img = if r.png.is_empty() {
                String::new()
            } else {
                format!("<img src=\"{stem}.png\" width=\"{w}\" height=\"{w}\" alt=\"board of row {id}\">", w = r.width, id = r.id)
            },
        );
        for (role, text) in &r.turns {
            let _ =
                write!(out, "<div class=\"turn {role}\"><b>{role}</b><pre>{}</pre></div>", esc(text), role = esc(role));
        }
        let _ = writeln!(
            out,
            "<details class=\"answer\"><summary>assistant: show the answer</summary><pre>{}</pre></details>\
             </div></div></section>",
            esc(&r.answer)
        );
    }
    out.push_str("</main></body></html>\n");
    out
}

const CSS: &str = r#"
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; background: #f3f0e8; color: #222; }
header { background: #fffdf8; border-bottom: 1px solid #d8d0bc; padding: .6rem 1rem; display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; align-items: baseline; }
header h1 { font-size: 1.15rem; margin: 0; }
.help { margin: .8rem 1rem; max-width: 60rem; }
main { padding: 0 1rem 2rem; }
section.row { background: #fffdf8; border: 1px solid #d8d0bc; border-radius: 6px; margin: 1rem 0; padding: .6rem 1rem 1rem; }
section.row h2 { font-size: 1.05rem; margin: .2rem 0 .3rem; }
.meta { font-size: .9rem; color: #555; margin: .2rem 0 .6rem; overflow-wrap: anywhere; }
.pair { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; }
.pair img { image-rendering: pixelated; border: 1px solid #c9bfa6; }
.turns { flex: 1 1 24rem; min-width: 18rem; }
.turn pre, .answer pre { white-space: pre-wrap; font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: .85rem; background: #f7f4ec; padding: .5rem; margin: .2rem 0 .6rem; }
.answer summary { cursor: pointer; font-weight: 600; }
"#;
