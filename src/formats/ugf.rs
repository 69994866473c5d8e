/*!
IGS / Panda `.ugf` and `.ugi`: `[Header]` `Key=value` lines, then `[Data]` lines
`QP,B1,1,0` (point, colour + digit, node number, time); other sections (`[ReviewNode]`,
`[ReviewComment]`, `[Figure]`, …) are not part of the game.

* Points: column letter `A` = left; row letter `A` = **bottom** when the header says
  `CoordinateType=IGS`, top otherwise. `YA` or any letter past `S` is a pass. Node
  number 0 is a handicap stone.
* `Hdcp=<handicap>,<komi>` (komi as written, negative too), `Winner=<B|W>,<margin>`,
  `Date=YYYY/MM/DD,…`, `PlayerB=name,rank,…`, `Rule=JPN|CHN`, `Size`.
*/

use super::common::{empty_record, margin_text, non_empty, record_error, server_rank, set_date, set_komi};
use crate::coord::{Move, Point};
use crate::sgf::{parse_result, Color, GameMove, GameRecord, GameResult, RecordError, RejectReason};

/// The text has a `[Data]` section.
pub fn looks_like(text: &str) -> bool {
    text.lines().any(|l| l.trim().eq_ignore_ascii_case("[Data]"))
}

/// Reads a UGF/UGI document's one game (the `[Data]` main line).
pub fn read(text: &str) -> Result<GameRecord, RecordError> {
    let mut g = empty_record("ugf");
    let mut section = String::new();
    let mut data: Vec<&str> = Vec::new();
    let mut head: Vec<(&str, &str)> = Vec::new();
    for l in text.lines().map(|l| l.trim_matches(['\r', '\0', ' '])) {
        if l.starts_with('#') || l.is_empty() {
            continue;
        }
        if l.starts_with('[') && l.ends_with(']') {
            section = l[1..l.len() - 1].to_ascii_lowercase();
            continue;
        }
        match section.as_str() {
            "header" => head.extend(l.split_once('=')),
            "data" => data.push(l),
            _ => {}
        }
    }
    let get = |k: &str| head.iter().find(|(hk, _)| hk.eq_ignore_ascii_case(k)).map(|x| x.1.trim());
    if let Some(n) = get("Size").and_then(|s| s.parse::<u32>().ok()).filter(|&n| n != 19) {
        return Err(record_error(RejectReason::SizeNot19, format!("Size={n}"), None));
    }
    let from_bottom = get("CoordinateType").is_some_and(|c| c.eq_ignore_ascii_case("IGS"));
    if let Some(h) = get("Hdcp") {
        let mut it = h.split(',');
        let ha: u32 = it.next().and_then(|s| s.trim().parse().ok()).unwrap_or(0);
        g.handicap = if ha >= 2 { ha } else { 0 };
        set_komi(&mut g, it.next().and_then(|s| s.trim().parse::<f32>().ok()).filter(|k| k.is_finite()));
    }
    g.result = get("Winner").map_or_else(GameResult::none, ugf_result);
    if let Some(d) = get("Date") {
        set_date(&mut g, d);
    }
    g.rules = get("Rule").and_then(|r| match r.to_ascii_uppercase().as_str() {
        "JPN" => Some("Japanese".to_string()),
        "CHN" => Some("Chinese".to_string()),
        _ => non_empty(r),
    });
    let player = |k: &str| {
        let v = get(k).unwrap_or("");
        let mut it = v.split(',');
        (it.next().and_then(non_empty), it.next().and_then(server_rank))
    };
    (g.black, g.black_rank) = player("PlayerB");
    (g.white, g.white_rank) = player("PlayerW");
    g.place = get("Place").and_then(non_empty);
    for l in data {
        let mut f = l.split(',');
        let (pt, col, node) = (f.next().unwrap_or(""), f.next().unwrap_or(""), f.next().unwrap_or(""));
        let n = g.moves.len() as u32 + 1;
        let color = match col.as_bytes().first() {
            Some(b'B' | b'b') => Color::Black,
            Some(b'W' | b'w') => Color::White,
            _ => return Err(record_error(RejectReason::BadRecord, format!("{l}: colour not B or W"), Some(n))),
        };
        let b = pt.as_bytes();
        if b.len() != 2 || !b[0].is_ascii_uppercase() || !b[1].is_ascii_uppercase() {
            return Err(record_error(RejectReason::BadCoordinate, format!("{l}: malformed"), Some(n)));
        }
        let (x, y) = ((b[0] - b'A') as usize, (b[1] - b'A') as usize);
        let p = if x < 19 && y < 19 { Point::new(if from_bottom { 18 - y } else { y }, x) } else { None };
        if node.trim() == "0" {
            match (p, color) {
                (Some(p), Color::Black) => g.setup_black.push(p),
                (Some(p), Color::White) => g.setup_white.push(p),
                _ => {}
            }
            continue;
        }
        g.moves.push(GameMove { color, mv: p.map_or(Move::Pass, Move::Play) });
    }
    g.setup_black.sort_by_key(|p| p.index());
    g.setup_white.sort_by_key(|p| p.index());
    g.setup_black.dedup();
    g.setup_white.dedup();
    Ok(g)
}

/// `Winner=B,7.50` as the `RE` kibo writes.
fn ugf_result(v: &str) -> GameResult {
    let mut it = v.split(',');
    let w = match it.next().map(|s| s.trim().to_ascii_uppercase()) {
        Some(s) if s.starts_with('B') => "B",
        Some(s) if s.starts_with('W') => "W",
        Some(s) if s.starts_with('D') || s.starts_with('J') => return parse_result("Draw"),
        _ => return GameResult::none(),
    };
    let detail = it.next().unwrap_or("").trim().to_ascii_uppercase();
    let d = match detail.parse::<f32>() {
        Ok(m) if m > 0.0 && m.is_finite() => margin_text(m),
        _ if detail.starts_with('R') || detail.starts_with('C') => "R".to_string(),
        _ if detail.starts_with('T') => "T".to_string(),
        _ => String::new(),
    };
    parse_result(&format!("{w}+{d}"))
}
