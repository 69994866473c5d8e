//! One self-contained review page for all samples (inline CSS, JS and SVG; no external
//! references, works from a local file without a network).
//!
//! For each sample the page first shows the board without the answer. The reviewer
//! clicks the intersection where they believe the move was played (a blue ring marks it;
//! "Guess pass" for a pass), then "Reveal" shows the board with the answer (red), the
//! text diagram, and whether the pick was right; a running tally counts correct /
//! revealed / total. "Save review (JSON)" downloads `kibo-review.json`: one entry per
//! sample, `{id, source, game_index, move_number, answer_gtp, clicked_gtp, revealed,
//! correct}` (`clicked_gtp` null when nothing was picked, `correct` null until revealed).
//!
//! Clicks are mapped to intersections in the SVG's own coordinates (the same geometry as
//! [`super::point_pixel`]); intersection names come from a table that Rust fills from
//! [`crate::coord`], so the page does no coordinate conversion of its own. The links to the
//! per-sample files are relative, for the page that [`super::write_export`] writes beside them.

use super::render;
use super::render::{svg_markup, CELL};
use super::sample::*;
use super::text::text_diagram;
use crate::coord::{Move, Point, N};
use std::fmt::Write as _;

const CSS: &str = r#"
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; background: #f3f0e8; color: #222; }
header { position: sticky; top: 0; z-index: 2; background: #fffdf8; border-bottom: 1px solid #d8d0bc; padding: .6rem 1rem; display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; align-items: center; }
header h1 { font-size: 1.15rem; margin: 0; }
#tally { font-variant-numeric: tabular-nums; }
#tally b { font-size: 1.1rem; }
.help { margin: .8rem 1rem; max-width: 60rem; }
main { padding: 0 1rem 2rem; }
section.sample { background: #fffdf8; border: 1px solid #d8d0bc; border-radius: 6px; margin: 1rem 0; padding: .6rem 1rem 1rem; }
section.sample h2 { font-size: 1.05rem; margin: .2rem 0 .3rem; }
.meta { font-size: .9rem; color: #555; margin: .2rem 0 .6rem; overflow-wrap: anywhere; }
.meta code { font-size: .85rem; }
.boards { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; }
figure { margin: 0; flex: 0 1 520px; min-width: 260px; }
figcaption { font-size: .85rem; color: #555; margin-bottom: .2rem; }
figure svg { width: 100%; height: auto; display: block; border: 1px solid #c9bfa6; }
.question svg { cursor: crosshair; }
.controls { margin-top: .6rem; display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; }
button { font: inherit; padding: .25rem .8rem; cursor: pointer; }
button:disabled { cursor: default; }
.verdict.correct { color: #0a7a22; font-weight: 600; }
.verdict.incorrect { color: #c21818; font-weight: 600; }
pre.diagram { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: .8rem; line-height: 1.15; background: #f7f4ec; padding: .5rem; overflow-x: auto; }
"#;

const JS: &str = r#"
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("kibo-data").textContent);
  var state = DATA.samples.map(function () { return { pick: null, revealed: false, correct: null }; });

  function nameOf(index) { return index === null ? null : DATA.names[index]; }

  // Intersection index under a click, in the SVG's own coordinates; null off the grid.
  function pointAt(svg, clientX, clientY) {
    var m = svg.getScreenCTM();
    if (!m) { return null; }
    var pt = svg.createSVGPoint();
    pt.x = clientX; pt.y = clientY;
    var p = pt.matrixTransform(m.inverse());
    var col = Math.round((p.x - DATA.origin_x) / DATA.cell);
    var row = Math.round((p.y - DATA.origin_y) / DATA.cell);
    if (row < 0 || row >= DATA.n || col < 0 || col >= DATA.n) { return null; }
    return row * DATA.n + col;
  }

  function showPick(svg, index) {
    var g = svg && svg.querySelector("g.pick");
    if (!g) { return; }
    if (index === null || index === DATA.pass) { g.setAttribute("visibility", "hidden"); return; }
    var row = Math.floor(index / DATA.n), col = index % DATA.n;
    g.setAttribute("transform", "translate(" + (DATA.origin_x + col * DATA.cell) + " " + (DATA.origin_y + row * DATA.cell) + ")");
    g.setAttribute("visibility", "visible");
  }

  function updateTally() {
    var correct = 0, revealed = 0;
    state.forEach(function (st) { if (st.revealed) { revealed += 1; if (st.correct) { correct += 1; } } });
    document.getElementById("n-correct").textContent = String(correct);
    document.getElementById("n-revealed").textContent = String(revealed);
    document.getElementById("n-total").textContent = String(state.length);
  }

  function setPick(section, i, index) {
    if (state[i].revealed) { return; }
    state[i].pick = index;
    showPick(section.querySelector(".question svg"), index);
    section.querySelector(".pick-text").textContent = "your pick: " + (index === null ? "none" : nameOf(index));
  }

  function reveal(section, i) {
    var st = state[i], s = DATA.samples[i];
    if (st.revealed) { return; }
    st.revealed = true;
    st.correct = st.pick !== null && st.pick === s.answer_index;
    var fig = section.querySelector(".answer");
    fig.appendChild(section.querySelector("template.answer-tpl").content.cloneNode(true));
    fig.hidden = false;
    showPick(fig.querySelector("svg"), st.pick);
    var v = section.querySelector(".verdict");
    v.className = "verdict " + (st.correct ? "correct" : "incorrect");
    v.textContent = (st.correct ? "\u2713 correct" : "\u2717 incorrect") + ": answer " + s.answer_gtp +
      " (SGF " + s.to_play + "[" + s.answer_sgf + "])" + (st.pick === null ? ", nothing picked" : ", you picked " + nameOf(st.pick));
    section.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
    section.classList.add("revealed");
    updateTally();
  }

  document.querySelectorAll("section.sample").forEach(function (section) {
    var i = Number(section.getAttribute("data-index"));
    var svg = section.querySelector(".question svg");
    svg.addEventListener("click", function (ev) {
      var index = pointAt(svg, ev.clientX, ev.clientY);
      if (index !== null) { setPick(section, i, index); }
    });
    section.querySelector("button.guess-pass").addEventListener("click", function () { setPick(section, i, DATA.pass); });
    section.querySelector("button.reveal").addEventListener("click", function () { reveal(section, i); });
  });

  document.getElementById("save").addEventListener("click", function () {
    var entries = DATA.samples.map(function (s, i) {
      var st = state[i];
      return { id: s.id, source: s.source, game_index: s.game_index, move_number: s.move_number,
               answer_gtp: s.answer_gtp, clicked_gtp: nameOf(st.pick), revealed: st.revealed,
               correct: st.revealed ? st.correct : null };
    });
    var blob = new Blob([JSON.stringify(entries, null, 2) + "\n"], { type: "application/json" });
    var url = URL.createObjectURL(blob);
    var a = document.createElement("a");
    a.href = url; a.download = "kibo-review.json";
    document.body.appendChild(a); a.click(); document.body.removeChild(a);
    setTimeout(function () { URL.revokeObjectURL(url); }, 2000);
  });

  updateTally();
})();
"#;

/// The data the page's script reads: geometry, intersection names, and per sample what
/// the tally and the saved review need.
pub(crate) fn page_data(samples: &[VerifySample]) -> serde_json::Value {
    let (ox, oy) = render::centre(Point::new(0, 0).expect("on board"));
    let names: Vec<String> =
        (0..=crate::coord::PASS).map(|i| Move::from_index(i).expect("index in range").to_gtp()).collect();
    let entries: Vec<serde_json::Value> = samples
        .iter()
        .map(|s| {
            serde_json::json!({
                "id": s.id,
                "source": s.source,
                "game_index": s.game_index,
                "move_number": s.move_number,
                "to_play": color_letter(s.to_play),
                "answer_index": s.mv.index(),
                "answer_gtp": s.mv.to_gtp(),
                "answer_sgf": s.mv.to_sgf(),
            })
        })
        .collect();
    serde_json::json!({
        "n": N,
        "pass": crate::coord::PASS,
        "cell": CELL,
        "origin_x": ox,
        "origin_y": oy,
        "names": names,
        "samples": entries,
    })
}

/// JSON that is safe inside `<script type="application/json">`: no `<` (so no `</script>`)
/// and no `://`.
fn script_json(v: &serde_json::Value) -> String {
    serde_json::to_string(v).expect("JSON of plain values").replace('<', "\\u003c").replace("://", ":\\/\\/")
}

fn players(s: &VerifySample) -> Option<String> {
    let one = |name: &Option<String>, rank: &Option<String>| -> Option<String> {
        match (name, rank) {
            (Some(n), Some(r)) => Some(format!("{n} ({r})")),
            (Some(n), None) => Some(n.clone()),
            (None, Some(r)) => Some(format!("? ({r})")),
            (None, None) => None,
        }
    };
    match (one(&s.black, &s.black_rank), one(&s.white, &s.white_rank)) {
        (None, None) => None,
        (b, w) => {
            Some(format!("Black {} vs White {}", b.unwrap_or_else(|| "?".into()), w.unwrap_or_else(|| "?".into())))
        }
    }
}

/// One self-contained review page for all samples (see the module documentation).
pub fn html_page(samples: &[VerifySample]) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>kibo verification sample ({n})</title>\n<style>{CSS}</style>\n</head>\n<body>\n\
         <header><h1>kibo verification sample</h1>\
         <div id=\"tally\">correct <b id=\"n-correct\">0</b> / revealed <b id=\"n-revealed\">0</b> / total <b id=\"n-total\">{n}</b></div>\
         <button type=\"button\" id=\"save\">Save review (JSON)</button></header>\n\
         <p class=\"help\">For each board, click the intersection where you believe the move was played \
         (a blue ring marks your pick; &ldquo;Guess pass&rdquo; for a pass), then press &ldquo;Reveal&rdquo;: the answer \
         appears in red. Compare the board, the side to move and the move with the original game \
         (source file and move number are given; the SGF link opens the position in any viewer). \
         Columns are A&ndash;T without I, row 19 is at the top.</p>\n<main>\n",
        n = samples.len()
    );
    if samples.is_empty() {
        out.push_str("<p>No samples.</p>\n");
    }
    for (i, s) in samples.iter().enumerate() {
        let stem = file_stem(s);
        let _ = writeln!(out, "<section class=\"sample\" id=\"{stem}\" data-index=\"{i}\" data-id=\"{}\">", s.id);
        let _ = writeln!(
            out,
            "<h2>Sample {} &middot; {} &middot; move {}</h2>",
            s.id,
            xml_escape(&side_line(s)),
            s.move_number
        );
        let mut meta =
            format!("source: <code>{}</code>, game {}, move {}", xml_escape(&s.source), s.game_index, s.move_number);
        if let Some(p) = players(s) {
            let _ = write!(meta, " &middot; {}", xml_escape(&p));
        }
        let _ = write!(
            meta,
            " &middot; {} &middot; {} &middot; split {}",
            xml_escape(&previous_line(s)),
            xml_escape(&ko_line(s)),
            xml_escape(&s.split)
        );
        let _ = write!(
            meta,
            " &middot; files: <a href=\"{stem}.png\">PNG</a> <a href=\"{stem}.svg\">SVG</a> \
             <a href=\"{stem}.sgf\">SGF</a> <a href=\"{stem}.txt\">text</a> <a href=\"{stem}.json\">JSON</a>"
        );
        let _ = writeln!(out, "<p class=\"meta\">{meta}</p>");
        out.push_str("<div class=\"boards\">\n<figure class=\"question\"><figcaption>Your pick: click an intersection</figcaption>\n");
        out.push_str(&svg_markup(s, false, false));
        out.push_str("</figure>\n<figure class=\"answer\" hidden><figcaption>Answer (red); your pick in blue</figcaption></figure>\n</div>\n");
        out.push_str(
            "<div class=\"controls\"><button type=\"button\" class=\"guess-pass\">Guess pass</button>\
             <button type=\"button\" class=\"reveal\">Reveal</button>\
             <span class=\"pick-text\">your pick: none</span><span class=\"verdict\"></span></div>\n",
        );
        out.push_str("<template class=\"answer-tpl\">");
        out.push_str(&svg_markup(s, true, false));
        let _ = write!(out, "<pre class=\"diagram\">{}</pre>", xml_escape(&text_diagram(s)));
        out.push_str("</template>\n</section>\n");
    }
    out.push_str("</main>\n");
    let _ = writeln!(
        out,
        "<script type=\"application/json\" id=\"kibo-data\">{}</script>",
        script_json(&page_data(samples))
    );
    let _ = write!(out, "<script>{JS}</script>\n</body>\n</html>\n");
    out
}
