//! One record as clean SGF (FF[4], UTF-8): what `kibo convert` writes.

use std::fmt::Write;

use crate::coord::Point;
use crate::sgf::{GameRecord, ResultKind};

/// `\` and `]` escaped, as SGF text values need (also the one-line dumps' SGF).
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        if c == '\\' || c == ']' {
            o.push('\\');
        }
        o.push(c);
    }
    o
}

fn prop(out: &mut String, id: &str, v: Option<&str>) {
    if let Some(v) = v {
        let _ = write!(out, "{id}[{}]", esc(v));
    }
}

fn points(out: &mut String, id: &str, pts: &[Point]) {
    if pts.is_empty() {
        return;
    }
    out.push_str(id);
    for p in pts {
        let _ = write!(out, "[{}]", p.to_sgf());
    }
}

/// The record as one SGF game tree: the root with the game info and the start
/// position, then one node per move (passes written `B[]`), setup met after the first
/// move in the node before its move, `TB`/`TW` on the last node. Re-reading it with
/// [`crate::sgf::read_games`] gives the same game (moves, setup, komi, handicap, result,
/// players, ranks, date, event, place, rules).
pub fn write_sgf(g: &GameRecord) -> String {
    let mut o = String::from("(;GM[1]FF[4]CA[UTF-8]SZ[19]");
    prop(&mut o, "KM", g.komi.map(|k| format!("{k}")).as_deref());
    if g.handicap > 0 {
        let _ = write!(o, "HA[{}]", g.handicap);
    }
    prop(&mut o, "RU", g.rules.as_deref());
    let re = match (&g.result.raw, g.result.kind) {
        (Some(r), _) => Some(r.clone()),
        (None, ResultKind::Unknown) => None,
        (None, k) => Some(k.as_str().to_string()),
    };
    prop(&mut o, "RE", re.as_deref());
    prop(&mut o, "PB", g.black.as_deref());
    prop(&mut o, "PW", g.white.as_deref());
    prop(&mut o, "BR", g.black_rank.as_ref().map(|r| r.raw.as_str()));
    prop(&mut o, "WR", g.white_rank.as_ref().map(|r| r.raw.as_str()));
    prop(&mut o, "DT", g.date.as_deref());
    prop(&mut o, "EV", g.event.as_deref());
    prop(&mut o, "RO", g.round.as_deref());
    prop(&mut o, "PC", g.place.as_deref());
    prop(&mut o, "GN", g.game_name.as_deref());
    prop(&mut o, "AP", g.application.as_deref());
    prop(&mut o, "SO", g.source_copyright.as_deref());
    points(&mut o, "AB", &g.setup_black);
    points(&mut o, "AW", &g.setup_white);
    if let Some(c) = g.first_player {
        let _ = write!(o, "PL[{}]", c.as_str());
    }
    let mut mids = g.mid_setup.iter().peekable();
    for (i, m) in g.moves.iter().enumerate() {
        while let Some(s) = mids.next_if(|s| s.before_move as usize <= i) {
            o.push_str("\n;");
            points(&mut o, "AB", &s.black);
            points(&mut o, "AW", &s.white);
            points(&mut o, "AE", &s.empty);
        }
        let _ = write!(o, "\n;{}[{}]", m.color.as_str(), m.mv.to_sgf());
    }
    for s in mids {
        o.push_str("\n;");
        points(&mut o, "AB", &s.black);
        points(&mut o, "AW", &s.white);
        points(&mut o, "AE", &s.empty);
    }
    if !g.territory_black.is_empty() || !g.territory_white.is_empty() {
        if g.moves.is_empty() {
            o.push_str("\n;");
        }
        points(&mut o, "TB", &g.territory_black);
        points(&mut o, "TW", &g.territory_white);
    }
    o.push_str(")\n");
    o
}
