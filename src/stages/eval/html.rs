//! The HTML report (`--html`): the figures per task, plots as inline SVG (top-1 and
//! legal rates by move number and by rank, with their intervals; the error classes as
//! bars) and up to 20 wrong answers drawn on their boards with the eye check's renderer
//! ([`crate::verify::render_svg`]): the truth ringed in red by the renderer, the model's
//! answer marked in blue.

use std::fmt::Write as _;

use serde_json::Value;

use super::errors::ErrorClass;
use super::score::{Wrong, MOVE_BANDS, RANK_BANDS};
use super::set::EvalRow;
use crate::coord::{Move, Point};
use crate::verify::{point_pixel, render_svg, VerifySample};

/// How many wrong answers the page draws.
pub const WRONG_SHOWN: usize = 20;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn pct(v: &Value) -> String {
    match v["rate"].as_f64() {
        Some(x) => format!(
            "{:.1}% <small>[{:.1}, {:.1}] · {}/{}</small>",
            100.0 * x,
            100.0 * v["low"].as_f64().unwrap_or(0.0),
            100.0 * v["high"].as_f64().unwrap_or(0.0),
            v["count"],
            v["n"]
        ),
        None => "–".to_string(),
    }
}

/// A table of the named rates of `task`.
fn table(task: &Value, names: &[&str]) -> String {
    let mut s = String::from("<table class=\"rates\"><tr><th>rate</th><th>value [95% interval] · count/n</th></tr>");
    for n in names {
        if task[*n].is_object() {
            let _ = write!(s, "<tr><td>{n}</td><td>{}</td></tr>", pct(&task[*n]));
        }
    }
    s + "</table>"
}

/// Horizontal bars of `rate` per key of `slices` (each `{n, <rate>: Rate}`), with the
/// interval as a whisker.
fn rate_plot(title: &str, slices: &Value, rate: &str, order: &[&str]) -> String {
    let Some(m) = slices.as_object() else { return String::new() };
    let mut m: Vec<(&String, &Value)> = m.iter().collect();
    m.sort_by_key(|(k, _)| order.iter().position(|o| o == k).unwrap_or(order.len()));
    let (w, row, left) = (520.0, 24.0, 130.0);
    let h = row * m.len() as f64 + 30.0;
    let mut s = format!(
        "<figure class=\"plot\"><figcaption>{}</figcaption><svg width=\"{w}\" height=\"{h}\" role=\"img\" \
         aria-label=\"{}\">",
        esc(title),
        esc(title)
    );
    let scale = w - left - 70.0;
    for (k, (name, v)) in m.into_iter().enumerate() {
        let y = 10.0 + row * k as f64;
        let r = &v[rate];
        let x = r["rate"].as_f64().unwrap_or(0.0);
        let (lo, hi) = (r["low"].as_f64().unwrap_or(0.0), r["high"].as_f64().unwrap_or(0.0));
        let _ = write!(
            s,
            "<text x=\"{tx}\" y=\"{ty}\" text-anchor=\"end\" font-size=\"12\">{name} (n {n})</text>\
             <rect class=\"bar\" data-key=\"{name}\" data-rate=\"{x}\" x=\"{left}\" y=\"{y}\" width=\"{bw:.1}\" height=\"16\" fill=\"#4a7fb5\"/>\
             <line x1=\"{l:.1}\" x2=\"{hh:.1}\" y1=\"{my}\" y2=\"{my}\" stroke=\"#222\"/>\
             <text x=\"{vx:.1}\" y=\"{ty}\" font-size=\"12\">{p:.1}%</text>",
            tx = left - 6.0,
            ty = y + 12.0,
            name = esc(name),
            n = v["n"],
            bw = scale * x,
            l = left + scale * lo,
            hh = left + scale * hi,
            my = y + 8.0,
            vx = left + scale + 6.0,
            p = 100.0 * x,
        );
    }
    s + "</svg></figure>"
}

/// Bars of the error classes of `errors` (counts).
fn error_plot(title: &str, errors: &Value) -> String {
    let counts: Vec<(&str, u64)> =
        ErrorClass::ALL.iter().map(|c| (c.name(), errors[c.name()].as_u64().unwrap_or(0))).collect();
    let max = counts.iter().map(|c| c.1).max().unwrap_or(0).max(1) as f64;
    let (w, row, left) = (520.0, 22.0, 130.0);
    let mut s = format!(
        "<figure class=\"plot\"><figcaption>{}</figcaption><svg width=\"{w}\" height=\"{}\" role=\"img\" aria-label=\"{}\">",
        esc(title),
        row * counts.len() as f64 + 20.0,
        esc(title)
    );
    for (k, (name, n)) in counts.iter().enumerate() {
        let y = 8.0 + row * k as f64;
        let _ = write!(
            s,
            "<text x=\"{tx}\" y=\"{ty}\" text-anchor=\"end\" font-size=\"12\">{name}</text>\
             <rect class=\"bar\" data-key=\"{name}\" data-count=\"{n}\" x=\"{left}\" y=\"{y}\" width=\"{bw:.1}\" height=\"14\" fill=\"#b5614a\"/>\
             <text x=\"{vx:.1}\" y=\"{ty}\" font-size=\"12\">{n}</text>",
            tx = left - 6.0,
            ty = y + 11.0,
            bw = (w - left - 50.0) * *n as f64 / max,
            vx = left + (w - left - 50.0) * *n as f64 / max + 6.0,
        );
    }
    s + "</svg></figure>"
}

/// The truth drawn by the renderer (its answer ringed), the model's answer marked in blue.
fn board_svg(r: &EvalRow, w: &Wrong) -> String {
    let s = VerifySample {
        id: w.row + 1,
        board: r.truth.board,
        to_play: r.truth.to_play,
        mv: r.truth.mv,
        prev_move: None,
        ko_point: r.truth.ko,
        source: String::new(),
        game_index: 0,
        move_number: r.row.move_number as u32,
        game_id: r.row.game_id.clone(),
        black: None,
        white: None,
        black_rank: None,
        white_rank: None,
        tags: r.row.tags.clone(),
        split: "test".to_string(),
    };
    let svg = render_svg(&s, w.mv.is_some());
    let mut marks = String::new();
    let mut mark = |p: Point, square: bool| {
        let (x, y) = point_pixel(p);
        let _ = if square {
            write!(marks, "<rect class=\"answer\" x=\"{}\" y=\"{}\" width=\"14\" height=\"14\" fill=\"none\" stroke=\"#1964ff\" stroke-width=\"3\"/>", x as i64 - 7, y as i64 - 7)
        } else {
            write!(marks, "<circle class=\"answer\" cx=\"{x}\" cy=\"{y}\" r=\"9\" fill=\"none\" stroke=\"#1964ff\" stroke-width=\"4\"/>")
        };
    };
    if let Some(Move::Play(p)) = w.mv {
        mark(p, false);
    }
    if let Some(b) = &w.board {
        for (i, (a, t)) in b.iter().zip(r.truth.board.iter()).enumerate() {
            if a != t {
                mark(Point::from_index(i as u16).expect("invariant: on the board"), true);
            }
        }
    }
    match svg.rfind("</svg>") {
        Some(end) => format!("{}{marks}{}", &svg[..end], &svg[end..]),
        None => svg,
    }
}

/// The page.
pub fn page(report: &Value, rows: &[EvalRow], wrong: &[Wrong]) -> String {
    let nm = &report["next-move"];
    let tr = &report["transcribe"];
    let ta = &report["tactics"];
    let mut s = String::from(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>kibo eval</title><style>\
         body{font-family:sans-serif;margin:2em;max-width:1100px} table.rates td,table.rates th{padding:2px 10px;text-align:left}\
         figure.plot{display:inline-block;margin:1em} figure.wrong{display:inline-block;margin:1em;width:520px}\
         .wrong svg{width:500px;height:auto} pre{font-size:11px}</style></head><body>",
    );
    let _ = write!(
        s,
        "<h1>kibo eval</h1><p>Set <code>{}</code>, predictions <code>{}</code> ({}): {} rows, {} answered, {} unanswered.</p>",
        esc(report["set"].as_str().unwrap_or("")),
        esc(report["predictions"].as_str().unwrap_or("")),
        esc(report["shape"].as_str().unwrap_or("")),
        report["rows"],
        report["answered"],
        report["unanswered"]
    );
    let _ = write!(s, "<h2 id=\"next-move\">next-move (n {})</h2>", nm["n"]);
    s += &table(nm, &["parsed", "legal", "top1", "engine_top1", "engine_top5", "in_engine_list"]);
    if let Some(m) = nm["score_loss"]["mean"].as_f64() {
        let _ = write!(
            s,
            "<p>Mean score loss of the answers in KataGo's list: {m:.2} points (n {}).</p>",
            nm["score_loss"]["n"]
        );
    }
    let moves: Vec<&str> = MOVE_BANDS.iter().map(|b| b.0).collect();
    let ranks: Vec<&str> = RANK_BANDS.iter().map(|b| b.0).collect();
    s += &rate_plot("top-1 by move number", &nm["by_move_number"], "top1", &moves);
    s += &rate_plot("top-1 by rank of the side to move", &nm["by_rank"], "top1", &ranks);
    s += &rate_plot("legal by move number", &nm["by_move_number"], "legal", &moves);
    s += &rate_plot("top-1 by tactical tag", &nm["by_tag"], "top1", &["none"]);
    s += &error_plot("next-move: wrong answers by class", &nm["errors"]);
    let _ = write!(s, "<h2 id=\"transcribe\">transcribe (n {})</h2>", tr["n"]);
    s += &table(tr, &["parsed", "exact", "point_accuracy"]);
    for c in ["black", "white"] {
        let f1 = tr[c]["f1"].as_f64().map(|f| format!("{f:.3}")).unwrap_or("–".into());
        let _ =
            write!(s, "<p>{c}: F1 {f1}, precision {}, recall {}</p>", pct(&tr[c]["precision"]), pct(&tr[c]["recall"]));
    }
    s += &error_plot("transcribe: wrong boards by class", &tr["errors"]);
    let _ = write!(s, "<h2 id=\"tactics\">tactics (n {})</h2>", ta["n"]);
    s += &table(ta, &["parsed", "accuracy"]);
    for q in ["atari", "capture", "ladder"] {
        let _ = write!(s, "<h3>{q} (n {})</h3>", ta["by_question"][q]["n"]);
        s += &table(&ta["by_question"][q], &["parsed", "accuracy", "exact", "precision", "recall"]);
    }
    let _ =
        write!(s, "<h2 id=\"wrong\">Wrong answers ({} of {} shown)</h2>", wrong.len().min(WRONG_SHOWN), wrong.len());
    s += "<p>Red: the true move (ringed by the renderer). Blue: the model's answer (a ring), or the points its transcription gets wrong (squares).</p>";
    for w in wrong.iter().take(WRONG_SHOWN) {
        let r = &rows[w.row];
        let _ = write!(
            s,
            "<figure class=\"wrong\" data-id=\"{id}\" data-class=\"{class}\">{svg}<figcaption><b>{id}</b> {task} · {class} · \
             truth <code>{truth}</code> · answer <pre>{ans}</pre></figcaption></figure>",
            id = esc(&r.row.id),
            class = w.class.name(),
            svg = board_svg(r, w),
            task = r.row.task.name(),
            truth = esc(if r.row.answer.len() > 40 { "(the board)" } else { &r.row.answer }),
            ans = esc(&w.answer),
        );
    }
    s + "</body></html>\n"
}
