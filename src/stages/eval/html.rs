//! The HTML report (`--html`): the figures of every task in the report (judge included
//! when the set has judge rows), plots as inline SVG (top-1 and
//! legal rates by move number and by rank, with their intervals; the error classes as
//! bars) and up to 20 wrong answers drawn on their boards with the eye check's renderer
//! ([`crate::verify::render_svg`]): the truth ringed in red by the renderer, the model's
//! answer marked in blue.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::errors::ErrorClass;
use super::report::{Errors, Report, SliceReport};
use super::score::{Wrong, MOVE_BANDS, RANK_BANDS};
use super::set::EvalRow;
use super::stats::Rate;
use crate::coord::{Move, Point};
use crate::verify::{point_pixel, render_svg, VerifySample};

/// How many wrong answers the page draws.
pub const WRONG_SHOWN: usize = 20;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A rate as the page shows it: `12.5% [low, high] · count/n`, `–` when n is 0.
pub(crate) fn pct(r: &Rate) -> String {
    match r.percent() {
        Some((x, low, high)) => format!("{x:.1}% <small>[{low:.1}, {high:.1}] · {}/{}</small>", r.count, r.n),
        None => "–".to_string(),
    }
}

/// A table of named rates.
fn table(rates: &[(&str, Rate)]) -> String {
    let mut s = String::from("<table class=\"rates\"><tr><th>rate</th><th>value [95% interval] · count/n</th></tr>");
    for (n, r) in rates {
        let _ = write!(s, "<tr><td>{n}</td><td>{}</td></tr>", pct(r));
    }
    s + "</table>"
}

/// Horizontal bars of the rate `rate` picks per slice, with the interval as a whisker.
fn rate_plot(
    title: &str,
    slices: &BTreeMap<String, SliceReport>,
    rate: fn(&SliceReport) -> Rate,
    order: &[&str],
) -> String {
    let mut m: Vec<(&String, &SliceReport)> = slices.iter().collect();
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
        let r = rate(v);
        let x = r.rate.unwrap_or(0.0);
        let (lo, hi) = (r.low.unwrap_or(0.0), r.high.unwrap_or(0.0));
        let _ = write!(
            s,
            "<text x=\"{tx}\" y=\"{ty}\" text-anchor=\"end\" font-size=\"12\">{name} (n {n})</text>\
             <rect class=\"bar\" data-key=\"{name}\" data-rate=\"{x}\" x=\"{left}\" y=\"{y}\" width=\"{bw:.1}\" height=\"16\" fill=\"#4a7fb5\"/>\
             <line x1=\"{l:.1}\" x2=\"{hh:.1}\" y1=\"{my}\" y2=\"{my}\" stroke=\"#222\"/>\
             <text x=\"{vx:.1}\" y=\"{ty}\" font-size=\"12\">{p:.1}%</text>",
            tx = left - 6.0,
            ty = y + 12.0,
            name = esc(name),
            n = v.n,
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
fn error_plot(title: &str, errors: &Errors) -> String {
    let counts: Vec<(&str, u64)> =
        ErrorClass::ALL.iter().map(|c| (c.name(), errors.get(c).copied().unwrap_or(0))).collect();
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
        if square {
            let _ = write!(marks, "<rect class=\"answer\" x=\"{}\" y=\"{}\" width=\"14\" height=\"14\" fill=\"none\" stroke=\"#1964ff\" stroke-width=\"3\"/>", x as i64 - 7, y as i64 - 7);
        } else {
            marks += &answer_ring(p);
        }
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
    with_marks(svg, &marks)
}

/// The blue ring the page marks an answer with, at `p` (class `answer`; `kibo match`'s
/// page marks a refused answer with it too).
pub(crate) fn answer_ring(p: Point) -> String {
    let (x, y) = point_pixel(p);
    format!(
        "<circle class=\"answer\" cx=\"{x}\" cy=\"{y}\" r=\"9\" fill=\"none\" stroke=\"#1964ff\" stroke-width=\"4\"/>"
    )
}

/// `svg` (a [`render_svg`] picture) with `marks` drawn over it, last.
pub(crate) fn with_marks(svg: String, marks: &str) -> String {
    match svg.rfind("</svg>") {
        Some(end) => format!("{}{marks}{}", &svg[..end], &svg[end..]),
        None => svg,
    }
}

/// The page: every task of the report, then the wrong answers drawn.
pub fn page(report: &Report, rows: &[EvalRow], wrong: &[Wrong]) -> String {
    let (nm, tr, ta) = (&report.next_move, &report.transcribe, &report.tactics);
    let mut s = String::from(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>kibo eval</title><style>\
         body{font-family:sans-serif;margin:2em;max-width:1100px} table.rates td,table.rates th{padding:2px 10px;text-align:left}\
         figure.plot{display:inline-block;margin:1em} figure.wrong{display:inline-block;margin:1em;width:520px}\
         .wrong svg{width:500px;height:auto} pre{font-size:11px}</style></head><body>",
    );
    let _ = write!(
        s,
        "<h1>kibo eval</h1><p>Set <code>{}</code>, predictions <code>{}</code> ({}): {} rows, {} answered, {} unanswered.</p>",
        esc(&report.set),
        esc(&report.predictions),
        esc(report.shape.name()),
        report.rows,
        report.answered,
        report.unanswered
    );
    let _ = write!(s, "<h2 id=\"next-move\">next-move (n {})</h2>", nm.n);
    s += &table(&[
        ("parsed", nm.parsed),
        ("legal", nm.legal),
        ("top1", nm.top1),
        ("engine_top1", nm.engine_top1),
        ("engine_top5", nm.engine_top5),
        ("in_engine_list", nm.in_engine_list),
    ]);
    if let Some(m) = nm.score_loss.mean {
        let _ =
            write!(s, "<p>Mean score loss of the answers in KataGo's list: {m:.2} points (n {}).</p>", nm.score_loss.n);
    }
    let moves: Vec<&str> = MOVE_BANDS.iter().map(|b| b.0).collect();
    let ranks: Vec<&str> = RANK_BANDS.iter().map(|b| b.0).collect();
    s += &rate_plot("top-1 by move number", &nm.by_move_number, |v| v.top1, &moves);
    s += &rate_plot("top-1 by rank of the side to move", &nm.by_rank, |v| v.top1, &ranks);
    s += &rate_plot("legal by move number", &nm.by_move_number, |v| v.legal, &moves);
    s += &rate_plot("top-1 by tactical tag", &nm.by_tag, |v| v.top1, &["none"]);
    s += &error_plot("next-move: wrong answers by class", &nm.errors);
    let _ = write!(s, "<h2 id=\"transcribe\">transcribe (n {})</h2>", tr.n);
    s += &table(&[("parsed", tr.parsed), ("exact", tr.exact), ("point_accuracy", tr.point_accuracy)]);
    for (c, r) in [("black", &tr.black), ("white", &tr.white)] {
        let f1 = r.f1.map(|f| format!("{f:.3}")).unwrap_or("–".into());
        let _ = write!(s, "<p>{c}: F1 {f1}, precision {}, recall {}</p>", pct(&r.precision), pct(&r.recall));
    }
    s += &error_plot("transcribe: wrong boards by class", &tr.errors);
    let _ = write!(s, "<h2 id=\"tactics\">tactics (n {})</h2>", ta.all.n);
    s += &table(&[("parsed", ta.all.parsed), ("accuracy", ta.all.accuracy)]);
    let atari = &ta.by_question.atari;
    let _ = write!(s, "<h3>atari (n {})</h3>", atari.asked.n);
    s += &table(&[("parsed", atari.asked.parsed), ("accuracy", atari.asked.accuracy), ("exact", atari.exact)]);
    for (q, r) in [("capture", &ta.by_question.capture), ("ladder", &ta.by_question.ladder)] {
        let _ = write!(s, "<h3>{q} (n {})</h3>", r.asked.n);
        s += &table(&[
            ("parsed", r.asked.parsed),
            ("accuracy", r.asked.accuracy),
            ("precision", r.precision),
            ("recall", r.recall),
        ]);
    }
    if let Some(j) = &report.judge {
        let _ = write!(s, "<h2 id=\"judge\">judge (n {})</h2>", j.n);
        s += &table(&[("parsed", j.parsed), ("winner", j.winner), ("exact", j.exact)]);
        if let Some(e) = j.mean_abs_error {
            let _ = write!(s, "<p>Mean absolute error of the parsed answers: {e:.2} points.</p>");
        }
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
