//! The match's HTML report (docs/match.md, "The HTML report"): `DIR/match.html` with every
//! pair's score, win rate and Elo with their intervals, the margins histogram, the games'
//! ends and counts, each player's invalid answers (the first [`INVALID_SHOWN`] drawn on
//! their positions as `kibo eval`'s page draws wrong answers: the move finally played
//! ringed in red by the renderer, the refused answer in blue), the errors, and one review
//! page a game, `DIR/review/NNNNN.html` (the moves stepped through by a few lines of inline
//! script, no external file). Made from match.json's report, the records and the games'
//! SGFs read back with kibo's SGF reader; every text a player gave is escaped.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context;

use super::elo::Score;
use super::record::{GameRecordOut, Invalid};
use super::report::{MatchReport, PairReport, PlayerReport};
use crate::color::Color;
use crate::coord::{gtp_move, Move, Point};
use crate::engine::{Board, Rules};
use crate::stages::eval::html::{answer_ring, pct, with_marks};
use crate::stages::eval::stats::Rate;
use crate::storage::write_file_atomic;
use crate::verify::{render_svg, xml_escape as esc, VerifySample};

/// How many invalid answers the page draws (the rest are counted, not drawn).
pub const INVALID_SHOWN: usize = 50;

const STYLE: &str = "<style>body{font-family:sans-serif;margin:2em;max-width:1200px}\
    table{border-collapse:collapse;margin:.5em 0}td,th{padding:2px 10px;text-align:left;border-bottom:1px solid #ddd}\
    figure.invalid{display:inline-block;margin:1em;width:520px;vertical-align:top}.invalid svg{width:500px;height:auto}\
    pre{white-space:pre-wrap;word-break:break-all;font-size:12px;background:#f4f4f4;padding:4px}\
    li.here{background:#ffe9a8}</style>";

/// A game's setup stones and moves, as its SGF holds them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameMoves {
    pub setup: Vec<(Color, Point)>,
    pub moves: Vec<(Color, Move)>,
}

impl GameMoves {
    /// The game of `DIR/games/NNNNN.sgf`, read with kibo's SGF reader.
    pub fn read(dir: &Path, game: u64) -> anyhow::Result<GameMoves> {
        let path = dir.join("games").join(format!("{game:05}.sgf"));
        let bytes = std::fs::read(&path).with_context(|| format!("{}: cannot read it", path.display()))?;
        let rec = crate::sgf::read_games(&bytes)
            .games
            .into_iter()
            .next()
            .context("no game tree")
            .and_then(|g| g.map_err(|e| anyhow::anyhow!("{e}")))
            .with_context(|| format!("{}: not a readable game", path.display()))?;
        let setup = (rec.setup_black.iter().map(|&p| (Color::Black, p)))
            .chain(rec.setup_white.iter().map(|&p| (Color::White, p)))
            .collect();
        Ok(GameMoves { setup, moves: rec.moves.iter().map(|m| (m.color, m.mv)).collect() })
    }

    /// Replays the game: `visit(k, board)` after the setup (k = 0) and after each move
    /// (k = the moves played), until it returns `false`.
    fn replay(&self, mut visit: impl FnMut(usize, &Board) -> bool) -> anyhow::Result<()> {
        let mut b = Board::new();
        for &(c, p) in &self.setup {
            b.set_stone(p, c.as_u8()).map_err(|e| anyhow::anyhow!("setup stone {}: {e:?}", p.to_gtp()))?;
        }
        if !visit(0, &b) {
            return Ok(());
        }
        for (i, &(c, m)) in self.moves.iter().enumerate() {
            b.play(c, m, &Rules::default())
                .map_err(|e| anyhow::anyhow!("move {} ({} {}) is illegal: {e}", i + 1, c.as_str(), m.to_gtp()))?;
            if !visit(i + 1, &b) {
                break;
            }
        }
        Ok(())
    }

    /// The board (cells) and the ko point after `k` moves (all of them if fewer).
    fn position(&self, k: usize) -> anyhow::Result<([u8; 361], Option<Point>)> {
        let mut out = ([0u8; 361], None);
        self.replay(|i, b| {
            b.cells(&mut out.0);
            out.1 = b.ko_point();
            i < k
        })?;
        Ok(out)
    }

    /// Per move, the stones it captured (point indices).
    fn captures(&self) -> anyhow::Result<Vec<Vec<u16>>> {
        let (mut before, mut now) = ([0u8; 361], [0u8; 361]);
        let mut caps = Vec::with_capacity(self.moves.len());
        self.replay(|i, b| {
            b.cells(&mut now);
            if i > 0 {
                caps.push((0..361u16).filter(|&j| before[j as usize] != 0 && now[j as usize] == 0).collect());
            }
            before = now;
            true
        })?;
        Ok(caps)
    }
}

fn review_href(game: u64) -> String {
    format!("review/{game:05}.html")
}

fn opt(x: Option<f64>, digits: usize) -> String {
    x.map(|v| format!("{v:.digits$}")).unwrap_or_else(|| "–".to_string())
}

/// The score rows (overall, as Black, as White) of one pair, with the win rate's interval.
fn score_table(k: usize, p: &PairReport) -> String {
    let mut s = format!(
        "<table class=\"score\" data-pair=\"{k}\"><tr><th></th><th>W-L-D</th><th>games</th>\
         <th>win rate [95% interval] · wins/games</th></tr>"
    );
    for (side, label, sc) in
        [("all", "overall", &p.score), ("black", "as Black", &p.as_black), ("white", "as White", &p.as_white)]
    {
        let Score { wins, losses, draws } = *sc;
        let _ = write!(
            s,
            "<tr data-side=\"{side}\" data-wins=\"{wins}\" data-losses=\"{losses}\" data-draws=\"{draws}\">\
             <td>{label}</td><td>{wins}-{losses}-{draws}</td><td>{}</td><td>{}</td></tr>",
            sc.games(),
            pct(&Rate::of(wins, sc.games()))
        );
    }
    s + "</table>"
}

/// A key → count table (ends, counted by, invalid kinds).
fn count_table(class: &str, head: &str, m: &BTreeMap<String, u64>) -> String {
    let mut s = format!("<table class=\"{class}\"><tr><th>{head}</th><th>games</th></tr>");
    for (k, n) in m {
        let _ = write!(s, "<tr data-key=\"{}\" data-count=\"{n}\"><td>{}</td><td>{n}</td></tr>", esc(k), esc(k));
    }
    s + "</table>"
}

/// A round bin width for `range` in about 20 bins.
fn bin_width(range: f64) -> f64 {
    let want = range / 20.0;
    [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0].into_iter().find(|&w| w >= want).unwrap_or(200.0)
}

/// The margins' histogram as inline SVG: bins of a round width, from the first player's
/// side (won to the right of 0), one bar a bin with its count.
fn histogram(margins: &[f64]) -> String {
    if margins.is_empty() {
        return "<p class=\"histogram\">No counted game.</p>".to_string();
    }
    let lo = margins.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = margins.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let w = bin_width(hi - lo);
    let mut bins: BTreeMap<i64, u64> = BTreeMap::new();
    for m in margins {
        *bins.entry((m / w).floor() as i64).or_insert(0) += 1;
    }
    let (first, last) = ((lo / w).floor() as i64, (hi / w).floor() as i64);
    let n = (last - first + 1) as f64;
    let max = bins.values().copied().max().unwrap_or(1) as f64;
    let (width, height, left, bottom) = (600.0, 200.0, 30.0, 30.0);
    let bw = (width - left - 10.0) / n;
    let mut s = format!(
        "<figure class=\"histogram\"><figcaption>Margins, from the side of the first player (points; {} counted games, bins of {w})</figcaption>\
         <svg width=\"{width}\" height=\"{height}\" role=\"img\" aria-label=\"margins\">",
        margins.len()
    );
    for (b, c) in &bins {
        let x = left + bw * (b - first) as f64;
        let h = (height - bottom - 10.0) * *c as f64 / max;
        let from = *b as f64 * w;
        let fill = if from >= 0.0 { "#4a7fb5" } else { "#b5614a" };
        let _ = write!(
            s,
            "<rect class=\"bin\" data-from=\"{from}\" data-to=\"{}\" data-count=\"{c}\" x=\"{x:.1}\" y=\"{:.1}\" \
             width=\"{:.1}\" height=\"{h:.1}\" fill=\"{fill}\"><title>[{from}, {}): {c}</title></rect>",
            from + w,
            height - bottom - h,
            (bw - 1.0).max(1.0),
            from + w,
        );
    }
    if lo <= 0.0 && hi >= 0.0 {
        let x0 = left + bw * (0.0 / w - first as f64);
        let _ = write!(s, "<line x1=\"{x0:.1}\" x2=\"{x0:.1}\" y1=\"0\" y2=\"{}\" stroke=\"#222\"/>", height - bottom);
    }
    let _ = write!(
        s,
        "<text x=\"{left}\" y=\"{}\" font-size=\"12\">{}</text><text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"end\">{}</text>",
        height - 8.0,
        first as f64 * w,
        width - 10.0,
        height - 8.0,
        (last + 1) as f64 * w
    );
    s + "</svg></figure>"
}

/// One pair's section: the score, the Elo, the margins, the ends and counts.
fn pair_section(k: usize, p: &PairReport, recs: &[GameRecordOut]) -> String {
    let mut s = format!("<h2 id=\"pair-{k}\">{} against {}</h2>", esc(&p.first), esc(&p.second));
    s += &score_table(k, p);
    let elo = match &p.elo {
        Some(e) => format!(
            "{:+.1} ± {} [{}, {}]{}",
            e.diff + 0.0, // not −0.0
            opt(e.margin, 1),
            e.low.map(|v| format!("{v:.1}")).unwrap_or_else(|| "−∞".into()),
            e.high.map(|v| format!("{v:.1}")).unwrap_or_else(|| "+∞".into()),
            if e.exact { "" } else { " (a count of 0 taken as 0.001)" }
        ),
        None => "–".to_string(),
    };
    let _ = write!(
        s,
        "<p class=\"elo\">Elo difference of {first}: <b>{elo}</b> · LOS {} · score share {} · draws {} · \
         margins median {} mean {} · {} games whose undecided points could change the winner · {} errors</p>",
        p.los.map(|v| format!("{:.1}%", 100.0 * v)).unwrap_or_else(|| "–".into()),
        opt(p.score_share, 3),
        opt(p.draw_ratio, 3),
        opt(p.margins.median, 1),
        opt(p.margins.mean, 1),
        p.winner_open,
        p.errors,
        first = esc(&p.first),
    );
    let margins: Vec<f64> = recs
        .iter()
        .filter(|r| r.pair == k && r.error.is_none())
        .filter_map(|r| r.count.as_ref().map(|c| if r.black == p.first { c.margin } else { -c.margin } as f64))
        .collect();
    s += &histogram(&margins);
    s += &count_table("ends", "end", &p.ends);
    s += &count_table("counted-by", "counted by", &p.counted_by);
    s
}

/// Per player: requests, seconds, invalid answers by kind and by class.
fn players_section(players: &[PlayerReport]) -> String {
    let mut s = String::from("<h2 id=\"players\">Players</h2><table class=\"players\"><tr><th>player</th><th>requests</th><th>s/request</th>");
    let kinds: Vec<&String> = players.first().map(|p| p.invalid.keys().collect()).unwrap_or_default();
    for k in &kinds {
        let _ = write!(s, "<th>{}</th>", esc(k));
    }
    s += "<th>by class</th></tr>";
    for p in players {
        let _ = write!(
            s,
            "<tr data-player=\"{n}\"><td>{n}</td><td>{}</td><td>{}</td>",
            p.requests,
            opt(p.seconds_per_request, 3),
            n = esc(&p.name)
        );
        for k in &kinds {
            let c = p.invalid.get(*k).copied().unwrap_or(0);
            let _ = write!(s, "<td class=\"invalid\" data-kind=\"{}\" data-count=\"{c}\">{c}</td>", esc(k));
        }
        let classes: Vec<String> = p.invalid_classes.iter().map(|(c, n)| format!("{} {n}", esc(c))).collect();
        let _ = write!(s, "<td>{}</td></tr>", classes.join(", "));
    }
    s + "</table>"
}

/// The position of an invalid answer drawn by the eye check's renderer (the move finally
/// played ringed in red, where one was), the refused answer ringed in blue.
pub fn invalid_svg(r: &GameRecordOut, v: &Invalid, g: &GameMoves) -> anyhow::Result<String> {
    let k = (v.move_number as usize).saturating_sub(1);
    let (board, ko_point) = g.position(k)?;
    let played = g.moves.get(k).map(|m| m.1);
    let to_play = Color::from_str_exact(&v.color).unwrap_or(Color::Black);
    let s = VerifySample {
        id: r.game as usize,
        board,
        to_play: to_play.as_u8(),
        mv: played.unwrap_or(Move::Pass),
        prev_move: k.checked_sub(1).and_then(|i| g.moves.get(i)).map(|m| m.1),
        ko_point,
        source: format!("kibo match game {}", r.game),
        game_index: 0,
        move_number: v.move_number,
        game_id: format!("{:05}", r.game),
        black: Some(r.black.clone()),
        white: Some(r.white.clone()),
        black_rank: None,
        white_rank: None,
        tags: Vec::new(),
        split: "match".to_string(),
    };
    let marks = match v.answer.as_deref().and_then(gtp_move) {
        Some(Move::Play(p)) => answer_ring(p),
        _ => String::new(),
    };
    Ok(with_marks(render_svg(&s, played.is_some()), &marks))
}

/// The invalid answers: the first [`INVALID_SHOWN`] drawn, the number left out said.
fn invalid_section(recs: &[GameRecordOut], games: &BTreeMap<u64, GameMoves>) -> anyhow::Result<String> {
    let all: Vec<(&GameRecordOut, &Invalid)> =
        recs.iter().flat_map(|r| r.invalid.iter().map(move |v| (r, v))).collect();
    let shown = all.len().min(INVALID_SHOWN);
    let mut s = format!(
        "<h2 id=\"invalid\">Invalid answers ({shown} of {} drawn, {} left out)</h2>\
         <p>Red ring: the move finally played (none when the answers lost the game). Blue ring: the refused answer, where it named a point.</p>",
        all.len(),
        all.len() - shown
    );
    for (r, v) in all.into_iter().take(INVALID_SHOWN) {
        let svg = match games.get(&r.game) {
            Some(g) => invalid_svg(r, v, g).with_context(|| format!("game {}", r.game))?,
            None => String::new(),
        };
        let who = if v.color == "B" { &r.black } else { &r.white };
        let _ = write!(
            s,
            "<figure class=\"invalid\" data-game=\"{g}\" data-move=\"{m}\" data-kind=\"{kind}\" data-answer=\"{ans}\">{svg}\
             <figcaption><a href=\"{href}\">game {g}</a>, move {m}, {c} ({who}), attempt {a} · {kind} · class {class} · \
             answer <pre>{raw}</pre></figcaption></figure>",
            g = r.game,
            m = v.move_number,
            kind = v.kind.name(),
            ans = esc(v.answer.as_deref().unwrap_or("")),
            href = review_href(r.game),
            c = esc(&v.color),
            who = esc(who),
            a = v.attempt + 1,
            class = esc(v.class.as_deref().unwrap_or("–")),
            raw = esc(&v.raw),
        );
    }
    Ok(s)
}

/// The games, each linked to its review page; the errors with their messages.
fn games_section(recs: &[GameRecordOut]) -> String {
    let mut s = String::from("<h2 id=\"errors\">Errors</h2>");
    let errors: Vec<&GameRecordOut> = recs.iter().filter(|r| r.error.is_some()).collect();
    if errors.is_empty() {
        s += "<p>None.</p>";
    }
    for r in errors {
        let _ = write!(
            s,
            "<p class=\"error\" data-game=\"{g}\"><a href=\"{}\">game {g}</a> ({} – {}): <code>{}</code></p>",
            review_href(r.game),
            esc(&r.black),
            esc(&r.white),
            esc(r.error.as_deref().unwrap_or("")),
            g = r.game
        );
    }
    s += "<h2 id=\"games\">Games</h2><table class=\"games\"><tr><th>game</th><th>Black</th><th>White</th><th>result</th>\
          <th>end</th><th>counted by</th><th>moves</th><th>invalid answers</th></tr>";
    for r in recs {
        let _ = write!(
            s,
            "<tr data-game=\"{g}\"><td><a class=\"review\" href=\"{}\">{g:05}</a></td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            review_href(r.game),
            esc(&r.black),
            esc(&r.white),
            esc(&r.result),
            r.end.name(),
            r.count.as_ref().map(|c| c.by.name()).unwrap_or("–"),
            r.moves,
            r.invalid.len(),
            g = r.game
        );
    }
    s + "</table>"
}

/// `match.html`: the report's figures, the invalid answers drawn (their games' moves in
/// `games`), the errors and the games.
pub fn page(rep: &MatchReport, recs: &[GameRecordOut], games: &BTreeMap<u64, GameMoves>) -> anyhow::Result<String> {
    let mut s =
        format!("<!doctype html><html><head><meta charset=\"utf-8\"><title>kibo match</title>{STYLE}</head><body>");
    let _ = write!(
        s,
        "<h1>kibo match</h1><p class=\"summary\">{} games scheduled, {} played, {} errors.</p>",
        rep.scheduled, rep.played, rep.errors
    );
    for (k, p) in rep.pairs.iter().enumerate() {
        s += &pair_section(k, p, recs);
    }
    if let Some(t) = &rep.sprt {
        let _ = write!(
            s,
            "<h2 id=\"sprt\">SPRT</h2><p class=\"sprt\">H0 Elo {} against H1 Elo {} (α {}, β {}): LLR {:.3} in [{:.3}, {:.3}] \
             after {} games: <b>{}</b>.</p>",
            t.test.elo0,
            t.test.elo1,
            t.test.alpha,
            t.test.beta,
            t.state.llr,
            t.state.lower,
            t.state.upper,
            t.games,
            match t.state.decision {
                super::elo::SprtDecision::H0 => "H0 accepted",
                super::elo::SprtDecision::H1 => "H1 accepted",
                super::elo::SprtDecision::Continue => "undecided",
            }
        );
    }
    s += &players_section(&rep.players);
    s += &invalid_section(recs, games)?;
    s += &games_section(recs);
    Ok(s + "</body></html>\n")
}

/// The review page's script: draws the position after `k` moves from `SETUP` and `MOVES`
/// (numbers only: `[colour, point]` and `[colour, point or −1 for a pass, [captured…]]`),
/// marks the last move, and highlights the invalid answers given at the next move.
const REVIEW_JS: &str = r##"
const G=document.getElementById('stones'),R=document.getElementById('at'),L=document.getElementById('label');
let k=MOVES.length;
function xy(i){return [26+(i%19)*22,26+Math.floor(i/19)*22];}
function ring(i,c,r,w){const [x,y]=xy(i);return `<circle cx="${x}" cy="${y}" r="${r}" fill="none" stroke="${c}" stroke-width="${w}"/>`;}
function draw(){
  const b=new Array(361).fill(0);for(const [c,i] of SETUP)b[i]=c;
  for(let j=0;j<k;j++){const [c,i,caps]=MOVES[j];if(i>=0)b[i]=c;for(const x of caps)b[x]=0;}
  let s='';
  for(let i=0;i<361;i++)if(b[i]){const [x,y]=xy(i);s+=`<circle cx="${x}" cy="${y}" r="10" fill="${b[i]==1?'#111':'#fafafa'}" stroke="#111"/>`;}
  if(k>0&&MOVES[k-1][1]>=0)s+=ring(MOVES[k-1][1],'#d22',5,3);
  document.querySelectorAll('#inv li').forEach(li=>{const on=+li.dataset.move===k+1;li.classList.toggle('here',on);
    if(on&&li.dataset.point!=='')s+=`<g class="answer">${ring(+li.dataset.point,'#1964ff',9,4)}</g>`;});
  G.innerHTML=s;R.value=k;
  const at=i=>i<0?'pass':'ABCDEFGHJKLMNOPQRST'[i%19]+(19-Math.floor(i/19));
  L.textContent=`after move ${k} of ${MOVES.length}`+(k<MOVES.length?`; next: ${MOVES[k][0]==1?'B':'W'} ${at(MOVES[k][1])}`:'');
}
function go(n){k=Math.max(0,Math.min(MOVES.length,n));draw();}
document.addEventListener('keydown',e=>{if(e.key==='ArrowLeft')go(k-1);if(e.key==='ArrowRight')go(k+1);});
document.querySelectorAll('#inv li').forEach(li=>li.addEventListener('click',()=>go(+li.dataset.move-1)));
R.max=MOVES.length;draw();
"##;

/// The empty board of the review page (lines, star points, labels), 22 px a line.
fn review_board() -> String {
    let mut s = String::from(
        "<svg id=\"board\" width=\"448\" height=\"448\" viewBox=\"0 0 448 448\" font-size=\"10\" font-family=\"sans-serif\">\
         <rect width=\"448\" height=\"448\" fill=\"#dcb35c\"/>",
    );
    for i in 0..19u32 {
        let c = 26 + 22 * i;
        let _ = write!(
            s,
            "<line x1=\"26\" y1=\"{c}\" x2=\"422\" y2=\"{c}\" stroke=\"#222\"/><line x1=\"{c}\" y1=\"26\" x2=\"{c}\" y2=\"422\" stroke=\"#222\"/>\
             <text x=\"{c}\" y=\"12\" text-anchor=\"middle\">{col}</text><text x=\"{c}\" y=\"444\" text-anchor=\"middle\">{col}</text>\
             <text x=\"12\" y=\"{ty}\" text-anchor=\"middle\">{row}</text><text x=\"436\" y=\"{ty}\" text-anchor=\"middle\">{row}</text>",
            col = char::from(b"ABCDEFGHJKLMNOPQRST"[i as usize]),
            row = 19 - i,
            ty = c + 4,
        );
    }
    for r in [3u32, 9, 15] {
        for c in [3u32, 9, 15] {
            let _ = write!(s, "<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"#222\"/>", 26 + 22 * c, 26 + 22 * r);
        }
    }
    s + "<g id=\"stones\"></g></svg>"
}

/// `DIR/review/NNNNN.html`: the game's players, result and count, its moves stepped
/// through (`g`; `None` for an error game, which has no SGF) and its invalid answers at
/// their moves.
pub fn review_page(r: &GameRecordOut, g: Option<&GameMoves>) -> anyhow::Result<String> {
    let mut s = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>kibo match game {g:05}</title>{STYLE}</head><body>\
         <p><a href=\"../match.html\">the match</a></p><h1>Game {g}: {} (Black) – {} (White)</h1>\
         <p class=\"result\">Result <b>{}</b>, end {}, {} moves, seed {}{}.</p>",
        esc(&r.black),
        esc(&r.white),
        esc(&r.result),
        r.end.name(),
        r.moves,
        r.seed,
        r.opening.as_deref().map(|o| format!(", opening {}", esc(o))).unwrap_or_default(),
        g = r.game
    );
    if let Some(c) = &r.count {
        let _ = write!(
            s,
            "<p class=\"count\">Counted by {} under {} rules, komi {}: Black {}, White {}, margin {}; {} undecided points{}.</p>",
            c.by.name(),
            esc(&c.rules),
            c.komi,
            c.black,
            c.white,
            c.margin,
            c.undecided_points,
            if c.winner_open { " (they could change the winner)" } else { "" }
        );
    }
    if let Some(e) = &r.error {
        let _ = write!(s, "<p class=\"error\">Error: <code>{}</code></p>", esc(e));
    }
    if let Some(g) = g {
        let caps = g.captures()?;
        let setup: Vec<String> = g.setup.iter().map(|(c, p)| format!("[{},{}]", c.as_u8(), p.index())).collect();
        let moves: Vec<String> = (g.moves.iter().zip(&caps))
            .map(|((c, m), cap)| {
                let at = match m {
                    Move::Play(p) => i32::from(p.index()),
                    _ => -1,
                };
                let cap: Vec<String> = cap.iter().map(|i| i.to_string()).collect();
                format!("[{},{at},[{}]]", c.as_u8(), cap.join(","))
            })
            .collect();
        s += &review_board();
        s += "<p><button onclick=\"go(0)\">|&lt;</button> <button onclick=\"go(k-1)\">&lt;</button> \
              <button onclick=\"go(k+1)\">&gt;</button> <button onclick=\"go(MOVES.length)\">&gt;|</button> \
              <input id=\"at\" type=\"range\" min=\"0\" value=\"0\" oninput=\"go(+this.value)\"> <span id=\"label\"></span></p>";
        let _ = write!(s, "<script>const SETUP=[{}];const MOVES=[{}];</script>", setup.join(","), moves.join(","));
    }
    let _ = write!(s, "<h2>Invalid answers ({})</h2><ol id=\"inv\">", r.invalid.len());
    for v in &r.invalid {
        let point = match v.answer.as_deref().and_then(gtp_move) {
            Some(Move::Play(p)) => p.index().to_string(),
            _ => String::new(),
        };
        let _ = write!(
            s,
            "<li data-move=\"{m}\" data-point=\"{point}\">move {m}, {c}, attempt {a}: {kind}{class} <pre>{raw}</pre></li>",
            m = v.move_number,
            c = esc(&v.color),
            a = v.attempt + 1,
            kind = v.kind.name(),
            class = v.class.as_deref().map(|c| format!(" ({})", esc(c))).unwrap_or_default(),
            raw = esc(&v.raw),
        );
    }
    s += "</ol>";
    if g.is_some() {
        let _ = write!(s, "<script>{REVIEW_JS}</script>");
    }
    Ok(s + "</body></html>\n")
}

fn write_text(path: &Path, text: &str) -> anyhow::Result<()> {
    write_file_atomic(path, |f| std::io::Write::write_all(f, text.as_bytes()))
        .with_context(|| format!("{}", path.display()))
}

/// Writes `DIR/review/NNNNN.html` for every game of `recs` (removing the pages of games no
/// longer in the match), then `DIR/match.html`; each file atomically.
pub fn write(dir: &Path, rep: &MatchReport, recs: &[GameRecordOut]) -> anyhow::Result<()> {
    let review = dir.join("review");
    std::fs::create_dir_all(&review).with_context(|| format!("{}: cannot create it", review.display()))?;
    let mut games = BTreeMap::new();
    let mut pages = std::collections::BTreeSet::new();
    for r in recs {
        let g = if r.error.is_none() { Some(GameMoves::read(dir, r.game)?) } else { None };
        let name = format!("{:05}.html", r.game);
        write_text(&review.join(&name), &review_page(r, g.as_ref()).with_context(|| format!("game {}", r.game))?)?;
        pages.insert(name);
        if let Some(g) = g.filter(|_| !r.invalid.is_empty()) {
            games.insert(r.game, g);
        }
    }
    for e in std::fs::read_dir(&review).with_context(|| format!("{}", review.display()))?.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !pages.contains(&name) && (name.ends_with(".html") || name.ends_with(".tmp")) {
            std::fs::remove_file(e.path()).with_context(|| format!("{}", e.path().display()))?;
        }
    }
    write_text(&dir.join("match.html"), &page(rep, recs, &games)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stages::play::record::{self, Count, CountedBy, End, InvalidKind, SgfGame};
    use crate::stages::play::report;

    fn rec(game: u64, black: &str, white: &str, margin: f32) -> GameRecordOut {
        let winner = if margin > 0.0 { Some("B") } else { Some("W") };
        GameRecordOut {
            game,
            pair: 0,
            black: black.into(),
            white: white.into(),
            seed: game,
            opening: None,
            end: End::TwoPasses,
            winner: winner.map(String::from),
            result: crate::scoring::count::result_text(margin),
            count: Some(Count {
                by: CountedBy::Kibo,
                rules: "chinese".into(),
                komi: 7.5,
                black: 0.0,
                white: 0.0,
                margin,
                undecided_points: 0,
                winner_open: false,
            }),
            moves: 3,
            invalid: Vec::new(),
            error: None,
            seconds: [0.0; 2],
            requests: [0; 2],
        }
    }

    fn report_of(recs: &[GameRecordOut]) -> MatchReport {
        let all: Vec<&GameRecordOut> = recs.iter().collect();
        MatchReport {
            version: report::MATCH_VERSION,
            scheduled: recs.len() as u64,
            played: recs.iter().filter(|r| r.error.is_none()).count() as u64,
            errors: recs.iter().filter(|r| r.error.is_some()).count() as u64,
            pairs: vec![report::pair("a", "b", &all)],
            players: vec![report::player("a", recs), report::player("b", recs)],
            sprt: None,
        }
    }

    fn gtp(s: &str) -> Move {
        gtp_move(s).expect("a move")
    }

    /// B D4, W Q16, then Black answers D4 (occupied) and `<script>` before playing C3.
    fn game_with_invalid() -> (GameRecordOut, GameMoves) {
        let mut r = rec(0, "a", "b", 10.5);
        let moves = vec![(Color::Black, gtp("D4")), (Color::White, gtp("Q16")), (Color::Black, gtp("C3"))];
        let bad = |attempt, raw: &str, kind, answer: Option<&str>| Invalid {
            move_number: 3,
            color: "B".into(),
            attempt,
            raw: raw.into(),
            kind,
            answer: answer.map(String::from),
            class: answer.map(|_| "other".into()),
        };
        r.invalid = vec![
            bad(0, "D4", InvalidKind::Occupied, Some("D4")),
            bad(1, "<script>alert(1)</script>", InvalidKind::Unreadable, None),
        ];
        (r, GameMoves { setup: Vec::new(), moves })
    }

    /// The `<circle>` tags of `svg` as (cx, cy, fill, stroke).
    fn circles(svg: &str) -> Vec<(f32, f32, String, String)> {
        let attr = |tag: &str, name: &str| {
            let k = format!(" {name}=\"");
            tag.find(&k).map(|i| tag[i + k.len()..].split('"').next().unwrap_or("").to_string()).unwrap_or_default()
        };
        svg.split("<circle")
            .skip(1)
            .map(|t| {
                let tag = t.split('>').next().unwrap_or("");
                let num = |n| attr(tag, n).parse::<f32>().unwrap_or(f32::NAN);
                (num("cx"), num("cy"), attr(tag, "fill"), attr(tag, "stroke"))
            })
            .collect()
    }

    #[test]
    fn the_page_shows_the_counts_of_the_records() {
        // a: Black in games 0, 2, 4 (wins by 10.5, 3.5, loses by 0.5), White in 1, 3
        // (wins by 20.5, loses by 7.5); game 5 an error.
        let mut recs = vec![
            rec(0, "a", "b", 10.5),
            rec(1, "b", "a", -20.5),
            rec(2, "a", "b", 3.5),
            rec(3, "b", "a", 7.5),
            rec(4, "a", "b", -0.5),
            rec(5, "b", "a", 1.0),
        ];
        recs[5].end = End::Error;
        recs[5].count = None;
        recs[5].winner = None;
        recs[5].error = Some("b: the engine died <oops>".into());
        let html = page(&report_of(&recs), &recs, &BTreeMap::new()).unwrap();
        assert!(html.contains("<tr data-side=\"all\" data-wins=\"3\" data-losses=\"2\" data-draws=\"0\">"), "{html}");
        assert!(html.contains("<tr data-side=\"black\" data-wins=\"2\" data-losses=\"1\" data-draws=\"0\">"));
        assert!(html.contains("<tr data-side=\"white\" data-wins=\"1\" data-losses=\"1\" data-draws=\"0\">"));
        // The win rate with eval's Wilson interval: 3 of 5 → 60.0% [23.1, 88.2].
        assert!(html.contains("60.0% <small>[23.1, 88.2] · 3/5</small>"), "{html}");
        // Margins from the side of a: 10.5, 20.5, 3.5, −7.5, −0.5 in bins of 2 (range 28).
        let bins: Vec<(String, u64)> = html
            .split("<rect class=\"bin\" data-from=\"")
            .skip(1)
            .map(|t| {
                let from = t.split('"').next().unwrap().to_string();
                let count = t.split("data-count=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
                (from, count)
            })
            .collect();
        let want: Vec<(String, u64)> =
            [("-8", 1), ("-2", 1), ("2", 1), ("10", 1), ("20", 1)].iter().map(|(f, c)| (f.to_string(), *c)).collect();
        assert_eq!(bins, want);
        assert!(html.contains("<tr data-key=\"error\" data-count=\"1\">"));
        assert!(html.contains("<tr data-key=\"two_passes\" data-count=\"5\">"));
        assert!(html.contains("<tr data-key=\"kibo\" data-count=\"5\">"));
        // The error with its message, escaped; every game linked to its review page.
        assert!(html.contains("<code>b: the engine died &lt;oops&gt;</code>"), "{html}");
        for g in 0..6 {
            assert!(html.contains(&format!("href=\"review/{g:05}.html\">{g:05}</a>")), "game {g}");
        }
    }

    #[test]
    fn the_sprt_is_shown_with_its_ratio_bounds_and_decision() {
        // 18 wins in a row accept H1 of 0 against 50 Elo at α = β = 0.05 (elo.rs's test).
        let recs: Vec<GameRecordOut> = (0..18).map(|g| rec(g, "a", "b", 5.5)).collect();
        let all: Vec<&GameRecordOut> = recs.iter().collect();
        let t = crate::stages::play::elo::Sprt { elo0: 0.0, elo1: 50.0, alpha: 0.05, beta: 0.05 };
        let mut rep = report_of(&recs);
        rep.sprt = Some(report::sprt_prefix(&t, "a", &all));
        let html = page(&rep, &recs, &BTreeMap::new()).unwrap();
        assert!(html.contains("LLR 2.956 in [-2.944, 2.944] after 18 games: <b>H1 accepted</b>"), "{html}");
        rep.sprt = None;
        assert!(!page(&rep, &recs, &BTreeMap::new()).unwrap().contains("SPRT"));
    }

    #[test]
    fn a_raw_answer_is_escaped_on_both_pages() {
        let (r, g) = game_with_invalid();
        let recs = vec![r.clone()];
        let games = BTreeMap::from([(0, g.clone())]);
        let html = page(&report_of(&recs), &recs, &games).unwrap();
        let review = review_page(&r, Some(&g)).unwrap();
        for text in [&html, &review] {
            assert!(!text.contains("<script>alert"), "{text}");
            assert!(text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        }
        assert!(html.contains("<td class=\"invalid\" data-kind=\"unreadable\" data-count=\"1\">"));
        assert!(html.contains("<td class=\"invalid\" data-kind=\"occupied\" data-count=\"1\">"));
        assert!(html.contains("Invalid answers (2 of 2 drawn, 0 left out)"));
    }

    #[test]
    fn the_picture_rings_the_refused_point_over_its_stone_and_the_move_played() {
        let (r, g) = game_with_invalid();
        let svg = invalid_svg(&r, &r.invalid[0], &g).unwrap();
        let c = circles(&svg);
        let centre = |p: &str| {
            let Move::Play(p) = gtp(p) else { unreachable!() };
            crate::verify::point_pixel(p)
        };
        let near = |(x, y): (u32, u32), cx: f32, cy: f32| (cx - x as f32).abs() <= 1.0 && (cy - y as f32).abs() <= 1.0;
        // The blue ring at D4, where a black stone stands (the position before move 3).
        let d4 = centre("D4");
        assert_eq!(c.iter().filter(|c| c.3 == "#1964ff").count(), 1, "{svg}");
        assert!(c.iter().any(|c| c.3 == "#1964ff" && near(d4, c.0, c.1)), "{svg}");
        assert!(c.iter().any(|c| c.2 == "#161616" && near(d4, c.0, c.1)), "{svg}");
        // C3 (played after the refusals) is ringed in red, and holds no stone yet.
        let c3 = centre("C3");
        assert!(c.iter().any(|c| c.3 == "#dc1414" && near(c3, c.0, c.1)), "{svg}");
        assert!(!c.iter().any(|c| c.2 == "#161616" && near(c3, c.0, c.1)));
        // An unreadable answer marks nothing.
        let svg = invalid_svg(&r, &r.invalid[1], &g).unwrap();
        assert!(!svg.contains("#1964ff"));
    }

    #[test]
    fn the_pages_are_written_from_the_sgfs_with_a_review_page_a_game() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("games")).unwrap();
        // White captures the black stone at A1 (B A1, W A2, B T19, W B1).
        let (mut r, _) = game_with_invalid();
        let moves: Vec<(Color, Move)> =
            [(Color::Black, "A1"), (Color::White, "A2"), (Color::Black, "T19"), (Color::White, "B1")]
                .iter()
                .map(|(c, m)| (*c, gtp(m)))
                .collect();
        r.moves = 4;
        let mut err = rec(1, "b", "a", 0.0);
        (err.end, err.count, err.winner, err.error) = (End::Error, None, None, Some("died".into()));
        let sgf =
            record::sgf(&SgfGame { record: &r, setup: &[], moves: &moves, komi: 7.5, handicap: 0, rules: "Chinese" });
        std::fs::write(dir.path().join("games/00000.sgf"), sgf).unwrap();
        std::fs::create_dir_all(dir.path().join("review")).unwrap();
        std::fs::write(dir.path().join("review/00007.html"), "stale").unwrap();
        let recs = vec![r, err];
        write(dir.path(), &report_of(&recs), &recs).unwrap();
        let html = std::fs::read_to_string(dir.path().join("match.html")).unwrap();
        for g in 0..2 {
            assert!(html.contains(&format!("href=\"review/{g:05}.html\"")));
            let page = std::fs::read_to_string(dir.path().join(format!("review/{g:05}.html"))).unwrap();
            assert!(page.contains(&format!("Game {g}:")));
        }
        assert!(!dir.path().join("review/00007.html").exists());
        let review = std::fs::read_to_string(dir.path().join("review/00000.html")).unwrap();
        // A1 is index 18·19 = 342, A2 323, T19 18, B1 343: B1 captures A1.
        assert!(review.contains("const MOVES=[[1,342,[]],[2,323,[]],[1,18,[]],[2,343,[342]]];"), "{review}");
        let err_page = std::fs::read_to_string(dir.path().join("review/00001.html")).unwrap();
        assert!(err_page.contains("Error: <code>died</code>") && !err_page.contains("MOVES"));
    }
}
