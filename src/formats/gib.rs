/*!
Tygem `.gib`: a header of `\[KEY=value\]` entries between `\HS` and `\HE`, then the game
between `\GS` and `\GE`, one command per line.

* Moves: `STO 0 <n> <colour 1 = B, 2 = W> <x> <y>`, 0-based from the top left (SGF letter
  `'a' + x`, `'a' + y`); `SKI 0 <n>` is a pass of the colour after the previous move's.
  Other commands (`REM`, `DSC`, …) and the lines before `INI` are not moves.
* Handicap: the 4th token of `INI`, else `GAMETAG` `R`; the stones are placed on the Tygem
  layout ([`super::tygem_handicap`]).
* Values are read from `GAMEINFOMAIN`, falling back to the `GAMETAG` letters: komi
  `GONGJE`/10 (`G`), result `GRLT` (`W`) with score `ZIPSU`/10 (`Z`), date `GDATE` of
  `GAMEINFOSUB` (`C`). A non-zero `DUM` (`D`) leaves the komi unknown (`komi_unknown`).
* Players: `GAMEBLACKNAME` / `GAMEWHITENAME` without the trailing ` (rank)`; files without
  them (the 2025 web export) use `BID` / `WID`. The rank in brackets, else the level
  number (`BLV`, `GAMEBLACKLEVEL`, `GAMETAG` `N`/`L`): ≤ 17 → (18 − L)k, 18..26 →
  (L − 17)d, ≥ 27 → (L − 26)p.
*/

use std::collections::HashMap;

use super::common::{
    canonical_rank, empty_record, margin_text, non_empty, record_error, server_rank, set_date, set_komi, tygem_handicap,
};
use crate::coord::{Move, Point};
use crate::sgf::{parse_result, Color, GameMove, GameRecord, Rank, RankKind, RecordError, RejectReason};

/// The text has a GIB header or game section.
pub fn looks_like(text: &str) -> bool {
    text.contains("\\HS") || text.contains("\\GS")
}

/// The header: `\[KEY=value\]` entries (a value may span lines), first one of each key.
fn header(text: &str) -> HashMap<&str, &str> {
    let mut h = HashMap::new();
    let end = text.find("\\GS").unwrap_or(text.len());
    let mut rest = &text[..end];
    while let Some(i) = rest.find("\\[") {
        rest = &rest[i + 2..];
        let close = rest.find("\\]").unwrap_or(rest.len());
        let entry = &rest[..close];
        if let Some((k, v)) = entry.split_once('=') {
            h.entry(k.trim()).or_insert(v);
        }
        rest = &rest[close.min(rest.len())..];
    }
    h
}

/// `KEY:value` fields of `GAMEINFOMAIN`, `GAMEINFOSUB`, `…USERINFO` (split at the first
/// `:`, fields trimmed).
fn fields(v: Option<&&str>) -> HashMap<String, String> {
    let mut m = HashMap::new();
    for f in v.map(|s| s.split(',')).into_iter().flatten() {
        if let Some((k, val)) = f.split_once(':') {
            m.entry(k.trim().to_string()).or_insert_with(|| val.trim().to_string());
        }
    }
    m
}

/// `GAMETAG` letters: a field `X…` (letter then value) is `X`; `I:…` style fields are
/// kept under `I:`. Fields are trimmed first (tabs before `C…`).
fn tag_fields(v: Option<&&str>) -> HashMap<String, String> {
    let mut m = HashMap::new();
    for f in v.map(|s| s.split(',')).into_iter().flatten() {
        let f = f.trim();
        let mut cs = f.chars();
        let Some(c) = cs.next().filter(char::is_ascii_uppercase) else { continue };
        let rest = cs.as_str();
        let key = if rest.starts_with(':') { format!("{c}:") } else { c.to_string() };
        m.entry(key).or_insert_with(|| rest.trim_start_matches(':').to_string());
    }
    m
}

fn num(s: Option<&String>) -> Option<i64> {
    let s = s?.trim();
    let end = s.char_indices().find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-'))).map_or(s.len(), |x| x.0);
    s[..end].parse().ok()
}

/// Reads a GIB document's one game.
pub fn read(text: &str) -> Result<GameRecord, RecordError> {
    let h = header(text);
    let main = fields(h.get("GAMEINFOMAIN"));
    let sub = fields(h.get("GAMEINFOSUB"));
    let tag = tag_fields(h.get("GAMETAG"));
    let pick = |a: &str, t: &str| main.get(a).or_else(|| tag.get(t));
    let mut g = empty_record("gib");
    if let Some(n) = num(main.get("LINE")).filter(|&n| n != 19) {
        return Err(record_error(RejectReason::SizeNot19, format!("LINE:{n}"), None));
    }
    let Some(gs) = text.find("\\GS") else {
        return Err(record_error(RejectReason::BadRecord, "GIB without a game section (\\GS)".into(), None));
    };
    let (handicap, moves, stones) = game_section(&text[gs + 3..], num(tag.get("R")).unwrap_or(0))?;
    g.handicap = handicap;
    g.setup_black = tygem_handicap(handicap);
    g.moves = moves;
    if let Some(t) = num(main.get("TCNT")) {
        g.quirks.move_count_mismatch = t != stones as i64;
    }
    let dum = num(pick("DUM", "D")).unwrap_or(0);
    let komi = num(pick("GONGJE", "G")).map(|k| k as f32 / 10.0);
    if dum != 0 {
        g.quirks.komi_unknown = true;
        set_komi(&mut g, None);
    } else {
        set_komi(&mut g, komi);
    }
    g.result = gib_result(num(pick("GRLT", "W")), num(pick("ZIPSU", "Z")));
    if let Some(d) = sub.get("GDATE").or_else(|| tag.get("C")) {
        set_date(&mut g, d);
    }
    let (bu, wu) = (fields(h.get("BUSERINFO")), fields(h.get("WUSERINFO")));
    (g.black, g.black_rank) = player(
        h.get("GAMEBLACKNAME"),
        bu.get("BID"),
        [bu.get("BLV"), h.get("GAMEBLACKLEVEL").map(|s| s.trim().to_string()).as_ref(), tag.get("N")],
    );
    (g.white, g.white_rank) = player(
        h.get("GAMEWHITENAME"),
        wu.get("WID"),
        [wu.get("WLV"), h.get("GAMEWHITELEVEL").map(|s| s.trim().to_string()).as_ref(), tag.get("L")],
    );
    g.event = h.get("GAMENAME").and_then(|s| non_empty(s)).or_else(|| sub.get("GNAME").and_then(|s| non_empty(s)));
    g.place = h.get("GAMEPLACE").and_then(|s| non_empty(s)).or_else(|| sub.get("GPLC").and_then(|s| non_empty(s)));
    Ok(g)
}

/// `(handicap, moves, stones)` of the game section (the text after `\GS`).
fn game_section(text: &str, tag_handicap: i64) -> Result<(u32, Vec<GameMove>, usize), RecordError> {
    let body = &text[..text.find("\\GE").unwrap_or(text.len())];
    let mut handicap: Option<u32> = None;
    let mut moves: Vec<GameMove> = Vec::new();
    let mut stones = 0;
    for line in body.lines() {
        let toks: Vec<&str> =
            line.split(|c: char| c.is_whitespace() || c == '+' || c == '\0').filter(|t| !t.is_empty()).collect();
        match toks.first().copied() {
            Some("INI") if handicap.is_none() => {
                let t = toks.get(3).copied().unwrap_or("0");
                let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
                handicap = Some(digits.parse().unwrap_or(0));
            }
            Some("STO") => {
                let n = moves.len() as u32 + 1;
                let bad =
                    |what: &str| record_error(RejectReason::BadCoordinate, format!("{}: {what}", line.trim()), Some(n));
                let color = match toks.get(3).copied() {
                    Some("1") => Color::Black,
                    Some("2") => Color::White,
                    _ => {
                        return Err(record_error(
                            RejectReason::BadRecord,
                            format!("{}: colour not 1 or 2", line.trim()),
                            Some(n),
                        ))
                    }
                };
                let x: usize = toks.get(4).and_then(|t| t.parse().ok()).ok_or_else(|| bad("malformed"))?;
                let y: usize = toks.get(5).and_then(|t| t.parse().ok()).ok_or_else(|| bad("malformed"))?;
                let p = Point::new(y, x).ok_or_else(|| bad("off the board"))?;
                moves.push(GameMove { color, mv: Move::Play(p) });
                stones += 1;
            }
            Some("SKI") => {
                let h = handicap.unwrap_or(tag_handicap.max(0) as u32);
                let color = match moves.last() {
                    Some(m) => m.color.opponent(),
                    None if h >= 2 => Color::White,
                    None => Color::Black,
                };
                moves.push(GameMove { color, mv: Move::Pass });
            }
            _ => {}
        }
    }
    let h = handicap.unwrap_or(tag_handicap.max(0) as u32);
    Ok((if h >= 2 { h } else { 0 }, moves, stones))
}

/// The result from `GRLT` and `ZIPSU` (score ×10), as the `RE` kibo writes.
fn gib_result(grlt: Option<i64>, zipsu: Option<i64>) -> crate::sgf::GameResult {
    let score = |w: &str| match zipsu {
        Some(z) if z > 0 => format!("{w}+{}", margin_text(z as f32 / 10.0)),
        _ => format!("{w}+"),
    };
    let re = match grlt {
        Some(0) => score("B"),
        Some(1) => score("W"),
        Some(3) => "B+R".to_string(),
        Some(4) => "W+R".to_string(),
        Some(5) => "B+F".to_string(),
        Some(6) => "W+F".to_string(),
        Some(7) => "B+T".to_string(),
        Some(8) => "W+T".to_string(),
        Some(255) => "Void".to_string(),
        _ => return crate::sgf::GameResult::none(),
    };
    parse_result(&re)
}

/// `(name, rank)`: the name without its trailing `(rank)`, else the ID; the rank in the
/// brackets, else the first numeric level.
fn player(name: Option<&&str>, id: Option<&String>, levels: [Option<&String>; 3]) -> (Option<String>, Option<Rank>) {
    let (mut who, mut rank) = (None, None);
    if let Some(n) = name.map(|s| s.trim()).filter(|s| !s.is_empty()) {
        match n.rfind('(').filter(|_| n.ends_with(')')) {
            Some(i) if i > 0 => {
                who = non_empty(&n[..i]);
                rank = server_rank(&n[i + 1..n.len() - 1]);
            }
            _ => who = non_empty(n),
        }
    }
    if who.is_none() {
        who = id.and_then(|s| non_empty(s));
    }
    if rank.is_none() {
        rank = levels.iter().flatten().find_map(|l| l.trim().parse::<i64>().ok()).and_then(level_rank);
    }
    (who, rank)
}

/// A Tygem level number as a rank.
fn level_rank(l: i64) -> Option<Rank> {
    match l {
        1..=17 => canonical_rank(RankKind::Kyu, (18 - l) as u8),
        18..=26 => canonical_rank(RankKind::Dan, (l - 17) as u8),
        27..=36 => canonical_rank(RankKind::Pro, (l - 26) as u8),
        _ => None,
    }
}
