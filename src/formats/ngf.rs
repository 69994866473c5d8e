/*!
WBaduk / Cyberoro `.ngf`: fixed header lines, then one `PMnnCxyyx` line per move.

* Header (0-based lines): 0 title, 2 **White** `name<spaces>rank`, 3 Black, 4 site,
  5 handicap (1 = an even game without komi), 7 komi's integer part, 8 date, 10 result
  text, 11 move count.
* Move `PM` + 2-letter number + colour `B`/`W` + x, y letters with `B` = 0 … `T` = 18,
  from the top left (SGF letter = letter − 1); `A` (or anything below `B`) is a pass.
* Komi: line 7 plus ½ in an even game (`7` → 7.5); the line itself (`0`) in a handicap
  game or with handicap 1.
* Ranks `9DP` → 9p, `7D*` → 7d, `21K*` → 21k; results `Black wins by 0.5!`,
  `White wins by  resign!`, `White loses on time`, `… 34win >> White(58):Black(92)`,
  Korean and Chinese texts through [`crate::sgf::parse_result`].
* The older "GI" variant (every header line starts with `GI`): title, the two players as
  `name rank` (White first, by analogy), two blank lines, date, size, two unknown
  lines, komi, move count; the result in a trailing `IDB[n] <text>[EndTxt]` line.
*/

use super::common::{
    canonical_rank, empty_record, margin_text, non_empty, record_error, server_rank, set_date, set_komi, tygem_handicap,
};
use crate::coord::{Move, Point};
use crate::sgf::{parse_result, Color, GameMove, GameRecord, GameResult, Rank, RankKind, RecordError, RejectReason};

/// The text has `PM` move lines (or is an empty game with the fixed header).
pub fn looks_like(text: &str) -> bool {
    text.lines().any(is_move_line) || text.lines().nth(1).is_some_and(|l| l.trim() == "19")
}

fn is_move_line(l: &str) -> bool {
    let b = l.trim_end().as_bytes();
    b.len() >= 7 && b.starts_with(b"PM") && matches!(b[4], b'B' | b'W')
}

/// Reads an NGF document's one game.
pub fn read(text: &str) -> Result<GameRecord, RecordError> {
    let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches(['\r', '\0'])).collect();
    let mut g = empty_record("ngf");
    let gi = lines.first().is_some_and(|l| l.starts_with("GI"));
    let line = |i: usize| -> &str {
        let l = lines.get(i).copied().unwrap_or("");
        if gi {
            l.strip_prefix("GI").unwrap_or(l).trim()
        } else {
            l.trim()
        }
    };
    // Header line numbers: (white, black, site, handicap, komi, date, result, size).
    let (w, b, site, ha, km, dt, size) = if gi { (1, 2, None, 8, 9, 5, 6) } else { (2, 3, Some(4), 5, 7, 8, 1) };
    if let Ok(n) = line(size).parse::<u32>() {
        if n != 19 {
            return Err(record_error(RejectReason::SizeNot19, format!("board size {n}"), None));
        }
    }
    let handicap: u32 = line(ha).parse().unwrap_or(0);
    let komi_int: Option<f32> = line(km).parse::<i32>().ok().map(|k| k as f32);
    g.handicap = if handicap >= 2 { handicap } else { 0 };
    g.quirks.fox_handicap_one = handicap == 1;
    g.setup_black = tygem_handicap(g.handicap);
    set_komi(&mut g, komi_int.map(|k| if handicap >= 1 { k } else { k + 0.5 }));
    (g.white, g.white_rank) = player(line(w), gi);
    (g.black, g.black_rank) = player(line(b), gi);
    g.event = non_empty(line(0));
    g.place = site.and_then(|s| non_empty(line(s)));
    set_date(&mut g, line(dt));
    let result_text = if gi {
        lines.iter().find_map(|l| l.strip_prefix("IDB[")).map(|r| {
            let r = r.split_once(']').map_or(r, |x| x.1);
            r.split("[EndTxt]").next().unwrap_or(r).trim().to_string()
        })
    } else {
        Some(line(10).to_string())
    };
    g.result = result_text.as_deref().map_or_else(GameResult::none, ngf_result);
    for l in lines.iter().copied().filter(|l| is_move_line(l)) {
        let n = g.moves.len() as u32 + 1;
        let bytes = l.as_bytes();
        let color = if bytes[4] == b'B' { Color::Black } else { Color::White };
        let (x, y) = (bytes.get(5).copied().unwrap_or(b'A'), bytes.get(6).copied().unwrap_or(b'A'));
        let mv = if x < b'B' || y < b'B' {
            Move::Pass
        } else {
            match Point::new((y - b'B') as usize, (x - b'B') as usize) {
                Some(p) => Move::Play(p),
                None => {
                    return Err(record_error(RejectReason::BadCoordinate, format!("{l}: off the board"), Some(n)));
                }
            }
        };
        g.moves.push(GameMove { color, mv });
    }
    let declared: Option<usize> = line(if gi { 10 } else { 11 }).parse().ok();
    g.quirks.move_count_mismatch = declared.is_some_and(|d| d != g.moves.len());
    Ok(g)
}

/// `name<spaces>rank` (the rank is the last word when it reads as one). The "GI"
/// variant holds professional games: its dan ranks (`初段`, `五段`) are pro ranks.
fn player(l: &str, gi: bool) -> (Option<String>, Option<Rank>) {
    match l.rsplit_once(char::is_whitespace) {
        Some((name, rank)) => match server_rank(rank) {
            Some(r) if gi && r.kind == RankKind::Dan => (non_empty(name), canonical_rank(RankKind::Pro, r.value)),
            Some(r) => (non_empty(name), Some(r)),
            None => (non_empty(l), None),
        },
        None => (non_empty(l), None),
    }
}

/// The result line as the `RE` kibo writes.
fn ngf_result(text: &str) -> GameResult {
    let lower = text.to_lowercase();
    let winner = if lower.contains("black win") || lower.contains("white lose") {
        Some("B")
    } else if lower.contains("white win") || lower.contains("black lose") {
        Some("W")
    } else {
        None
    };
    let Some(w) = winner else {
        // Korean / Chinese text, or "Progressing!".
        let r = parse_result(text);
        return match (r.winner, r.kind) {
            (Some(c), k) => {
                let detail = match k {
                    crate::sgf::ResultKind::Resign => "R".to_string(),
                    crate::sgf::ResultKind::Time => "T".to_string(),
                    crate::sgf::ResultKind::Score => r.margin.map(margin_text).unwrap_or_default(),
                    _ => String::new(),
                };
                parse_result(&format!("{}+{detail}", c.as_str()))
            }
            _ => GameResult::none(),
        };
    };
    let detail = if lower.contains("resign") {
        "R".to_string()
    } else if lower.contains("time") {
        "T".to_string()
    } else {
        // The first number after "by".
        let after = lower.find(" by").map_or(lower.as_str(), |i| &lower[i + 3..]);
        let t = after.trim_start_matches(|c: char| !c.is_ascii_digit());
        let end = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
        t[..end].trim_end_matches('.').parse::<f32>().ok().map(margin_text).unwrap_or_default()
    };
    parse_result(&format!("{w}+{detail}"))
}
