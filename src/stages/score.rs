/*!
`kibo score FILE [--game N] [--png PATH] [--svg PATH]`: counts one game as the filter
stage does ([`super::filter::count_game`]) and shows the work: the final position with
dead stones and territory marked, the count under the game's rules and under Korean
rules (komi 6.5 even, 0.5 handicap), the recorded result and the verdict with its
reason. `--png` / `--svg` draw the same with the eye check's renderer
([`crate::verify::render_marks_png`]): dead stones crossed, territory as small squares.
*/

use std::fmt::Write as _;
use std::path::Path;

use crate::coord::{Point, N, NN};
use crate::engine::{Board, Color};
use crate::scoring::{count, default_komi, Owner, RuleSet, Score};
use crate::verify::BoardMarks;

/// Where to draw the position, if anywhere, and whether to print JSON.
#[derive(Clone, Copy, Debug, Default)]
pub struct Pictures<'a> {
    /// PNG output path.
    pub png: Option<&'a Path>,
    /// SVG output path.
    pub svg: Option<&'a Path>,
    /// Print the report as one JSON object instead of text ([`score_json`]).
    pub json: bool,
}

/// One line of a count: `"japanese: Black 71 territory + 13 prisoners + 1 dead = 85 · White … → B+8.5"`
/// (a White win `W+4.5`, as records write results).
pub fn count_line(s: &Score) -> String {
    let side = |k: usize| {
        if s.rules.is_area() {
            format!("{} stones + {} territory", s.stones[k], s.territory[k])
        } else {
            format!("{} territory + {} prisoners + {} dead", s.territory[k], s.prisoners[k], s.dead[1 - k])
        }
    };
    let mut white = side(1);
    if s.bonus > 0.0 {
        let _ = write!(white, " + {} handicap", s.bonus);
    }
    let undecided =
        if s.undecided_points > 0 { format!(" ({} undecided points)", s.undecided_points) } else { String::new() };
    format!(
        "{}: Black {} = {} · White {} + komi {} = {} → {}{undecided}",
        s.rules.as_str(),
        side(0),
        s.black,
        white,
        s.komi,
        s.white,
        s.result_text()
    )
}

/// The report for game `game` (0-based) of the SGF file at `path`, as text; draws the
/// pictures asked for.
/// `cfg` chooses the mode (`score_check`: KataGo's evidence for the hard games with
/// `katago`, [`super::filter::count_game_mode`]) and the komi, as in the filter stage.
pub fn score_report(
    path: &Path,
    game: usize,
    pictures: Pictures,
    cfg: &crate::config::FilterConfig,
) -> anyhow::Result<String> {
    let (g, row) = crate::stages::inspect::read_game(path, game)?;
    let name = path.display().to_string();
    let m = &row.meta;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# {name} game {game}: {} moves; RE[{}] RU[{}] KM[{}] HA[{}]",
        row.moves.len(),
        m.result_raw.as_deref().unwrap_or(""),
        m.rules.as_deref().unwrap_or(""),
        m.komi_raw.as_deref().unwrap_or(""),
        m.handicap
    );
    let Some(c) = super::filter::count_game_mode(&row, &g.territory_black, &g.territory_white, cfg)? else {
        let _ = writeln!(out, "not counted: the game did not end by counting (no score result, no two final passes)");
        return Ok(out);
    };
    let Some((board, j)) = &c.end else {
        let _ = writeln!(out, "not counted: {}", c.verdict.reason.as_deref().unwrap_or("cannot be replayed"));
        return Ok(out);
    };
    let marks = marks(board, &j.own);
    if pictures.json {
        let v = score_json(&name, game, &row, &c.verdict, j, &marks);
        out = format!("{v}\n");
    } else {
        out.push_str(&diagram(&marks));
    }
    let _ = (!pictures.json).then(|| {
        writeln!(
            out,
            "legend: X O stones, x o dead stones (removed), b w territory, s seki, ? undecided, . dame; {}",
            match c.verdict.judge {
                crate::game::ScoreJudge::Katago => "dead stones and seki from KataGo's ownership maps".to_string(),
                crate::game::ScoreJudge::Kibo => format!("{} playouts", j.playouts),
            }
        )
    });
    let mut caption = Vec::new();
    if let Some(s) = &c.verdict.count {
        caption.push(format!("game's rules, {}", count_line(s)));
        let h = row.effective_handicap();
        let korean = count(
            board,
            &j.own,
            RuleSet::Korean,
            default_komi(h),
            board.prisoners(Color::Black),
            board.prisoners(Color::White),
            h,
        );
        caption.push(format!("Korean rules, {}", count_line(&korean)));
    }
    caption.push(format!("recorded RE[{}]: {}", m.result_raw.as_deref().unwrap_or(""), c.verdict.check.as_str()));
    if let Some(r) = &c.verdict.reason {
        caption.push(format!("undecided: {r}"));
    }
    if !pictures.json {
        for line in &caption {
            let _ = writeln!(out, "{line}");
        }
        out.push_str(&evidence_lines(j));
    }
    let mut pic = BoardMarks { board: [0; NN], dead: j.own.dead.clone(), territory: [0; NN], caption, title: name };
    board.cells(&mut pic.board);
    for (i, t) in pic.territory.iter_mut().enumerate() {
        *t = match marks[i] {
            b'b' | b'o' => 1,
            b'w' | b'x' => 2,
            _ => 0,
        };
    }
    if let Some(p) = pictures.png {
        std::fs::write(p, crate::verify::render_marks_png(&pic))
            .map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
    }
    if let Some(p) = pictures.svg {
        std::fs::write(p, crate::verify::render_marks_svg(&pic))
            .map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
    }
    Ok(out)
}

/// One line per chain that is not simply alive (dead, seki, unsettled), with the
/// evidence that settled it and its playout share, e.g. `"dead   white E19 (4 stones):
/// playouts, 12% own"`; alive chains are summed up in one line by evidence.
fn evidence_lines(j: &crate::scoring::Judgement) -> String {
    use crate::scoring::ChainStatus;
    let mut out = String::from("chains:\n");
    let mut alive: Vec<(crate::scoring::Evidence, u32)> = Vec::new();
    for c in &j.chains {
        if c.status == ChainStatus::Alive {
            match alive.iter_mut().find(|(w, _)| *w == c.why) {
                Some((_, n)) => *n += 1,
                None => alive.push((c.why, 1)),
            }
            continue;
        }
        let _ = writeln!(
            out,
            "  {:<9} {} ({}): {}, {:.0}% own{}",
            c.status.as_str(),
            c.name(),
            c.size(),
            c.why,
            100.0 * c.own_share,
            if c.proven || c.status == crate::scoring::ChainStatus::Unsettled { "" } else { ", not proven" }
        );
    }
    let by: Vec<String> = alive.iter().map(|(w, n)| format!("{n} by {w}")).collect();
    let n: u32 = alive.iter().map(|a| a.1).sum();
    let _ = writeln!(out, "  alive     {n} chain{}: {}", if n == 1 { "" } else { "s" }, by.join(", "));
    out
}

/// The report as JSON: the game, the verdict and count, the marked position (`marks`:
/// one string per row from the top, the characters of the text diagram), and every
/// chain with its status, playout share, the evidence that settled it and whether that
/// evidence is a proof (`proven`).
fn score_json(
    name: &str,
    game: usize,
    row: &crate::game::GameRow,
    v: &crate::game::ScoreVerdict,
    j: &crate::scoring::Judgement,
    marks: &[u8; NN],
) -> serde_json::Value {
    use serde_json::json;
    let m = &row.meta;
    let count = v.count.map(|s| {
        json!({
            "rules": s.rules.as_str(), "komi": s.komi, "handicap_bonus": s.bonus,
            "territory": s.territory, "prisoners": s.prisoners, "dead": s.dead, "stones": s.stones,
            "black": s.black, "white": s.white, "margin": s.margin, "undecided_points": s.undecided_points,
        })
    });
    let chains: Vec<serde_json::Value> = j
        .chains
        .iter()
        .map(|c| {
            json!({"at": c.at.to_gtp(), "color": c.color.name(), "stones": c.stones, "status": c.status.as_str(),
                   "own_share": c.own_share, "why": c.why.as_str(), "proven": c.proven})
        })
        .collect();
    let rows: Vec<String> = marks.chunks(N).map(|r| String::from_utf8_lossy(r).into_owned()).collect();
    let gtp = |ps: &[Point]| ps.iter().map(|p| p.to_gtp()).collect::<Vec<_>>();
    json!({
        "file": name, "game": game, "moves": row.moves.len(), "result_raw": m.result_raw, "rules": m.rules,
        "komi": m.komi_raw, "handicap": m.handicap, "check": v.check.as_str(), "reason": v.reason, "judge": v.judge.as_str(),
        "counted_margin": v.counted_margin, "count": count, "playouts": j.playouts, "marks": rows,
        "dead": gtp(&j.own.dead), "seki": gtp(&j.own.seki), "chains": chains,
    })
}

/// One character per point: `X`/`O` living stones, `x`/`o` dead ones, `b`/`w` territory
/// (empty points owned), `s` seki, `?` undecided, `.` dame.
fn marks(board: &Board, own: &crate::scoring::Ownership) -> [u8; NN] {
    let mut cells = [0u8; NN];
    board.cells(&mut cells);
    let mut m = [b'.'; NN];
    let dead: Vec<usize> = own.dead.iter().map(|p| p.index() as usize).collect();
    let seki: Vec<usize> = own.seki.iter().map(|p| p.index() as usize).collect();
    for i in 0..NN {
        m[i] = match (cells[i], own.point[i]) {
            (1, _) if dead.contains(&i) => b'x',
            (2, _) if dead.contains(&i) => b'o',
            (_, Owner::Undecided) => b'?',
            (1, _) => b'X',
            (2, _) => b'O',
            _ if seki.contains(&i) => b's',
            (_, Owner::Black) => b'b',
            (_, Owner::White) => b'w',
            _ => b'.',
        };
    }
    m
}

/// The marks as a diagram with GTP labels (row 19 at the top, columns A–T without I).
fn diagram(m: &[u8; NN]) -> String {
    let cols: String = (0..N)
        .map(|c| format!(" {}", crate::coord::Move::Play(pt(0, c)).to_gtp().chars().next().unwrap_or('?')))
        .collect();
    let mut out = format!("   {cols}\n");
    for r in 0..N {
        let _ = write!(out, "{:>2} ", N - r);
        for c in 0..N {
            let _ = write!(out, " {}", m[r * N + c] as char);
        }
        let _ = writeln!(out, "  {}", N - r);
    }
    out.push_str(&format!("   {cols}\n"));
    out
}

fn pt(r: usize, c: usize) -> Point {
    Point::new(r, c).expect("on the board")
}
