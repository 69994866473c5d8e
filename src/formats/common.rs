//! What the GIB, NGF and UGF readers share: the empty record they fill in, the Tygem
//! handicap layout, and the canonical spellings of ranks, komi, margins and dates (so
//! that an SGF written from a record reads back to the same values).

use crate::coord::Point;
use crate::sgf::{self, parse_rank, GameRecord, GameResult, Quirks, Rank, RankKind, RecordError, RejectReason};

/// A located error of one of these readers.
pub(crate) fn record_error(reason: RejectReason, detail: String, move_number: Option<u32>) -> RecordError {
    RecordError { reason, detail, offset: None, move_number }
}

/// An empty record of `format`: 19×19, no metadata, no moves (the readers fill it in).
pub(crate) fn empty_record(format: &'static str) -> GameRecord {
    GameRecord {
        index: 0,
        offset: 0,
        size: (19, 19),
        game_type: None,
        komi: None,
        komi_raw: None,
        handicap: 0,
        rules: None,
        result: GameResult::none(),
        black: None,
        white: None,
        black_rank: None,
        white_rank: None,
        date: None,
        date_iso: None,
        event: None,
        round: None,
        place: None,
        game_name: None,
        application: None,
        source_copyright: None,
        setup_black: Vec::new(),
        setup_white: Vec::new(),
        first_player: None,
        moves: Vec::new(),
        mid_setup: Vec::new(),
        territory_black: Vec::new(),
        territory_white: Vec::new(),
        quirks: Quirks::default(),
        charset: "UTF-8",
        issues: Vec::new(),
        format,
    }
}

/// The handicap stones Tygem and Cyberoro place (they never list them): the usual star
/// points, except that the 3rd stone is `dd` (top left), not `pp`. Index order, as the
/// SGF reader lists a start position. Fewer than 2 or more than 9: none.
pub fn tygem_handicap(stones: u32) -> Vec<Point> {
    let pt = |s: &str| {
        let b = s.as_bytes();
        Point::new((b[1] - b'a') as usize, (b[0] - b'a') as usize)
    };
    let list: &[&str] = match stones {
        2 => &["pd", "dp"],
        3 => &["pd", "dp", "dd"],
        4 => &["pd", "dp", "dd", "pp"],
        5 => &["pd", "dp", "dd", "pp", "jj"],
        6 => &["pd", "dp", "dd", "pp", "dj", "pj"],
        7 => &["pd", "dp", "dd", "pp", "dj", "pj", "jj"],
        8 => &["pd", "dp", "dd", "pp", "dj", "pj", "jd", "jp"],
        9 => &["pd", "dp", "dd", "pp", "dj", "pj", "jd", "jp", "jj"],
        _ => &[],
    };
    let mut v: Vec<Point> = list.iter().filter_map(|s| pt(s)).collect();
    v.sort_by_key(|p| p.index());
    v
}

/// A rank in its canonical SGF spelling (`5k`, `7d`, `9p`), so that an SGF written from
/// the record reads back to the same rank.
pub(crate) fn canonical_rank(kind: RankKind, value: u8) -> Option<Rank> {
    let unit = match kind {
        RankKind::Kyu => 'k',
        RankKind::Dan => 'd',
        RankKind::Pro => 'p',
    };
    parse_rank(&format!("{value}{unit}"))
}

/// A rank text as these servers write it (`1급`, `3段`, `4D`, `9DP`, `7D*`, `2k?`), in
/// canonical spelling: a `P` after the dan unit means professional.
pub(crate) fn server_rank(text: &str) -> Option<Rank> {
    let t = text.trim().trim_end_matches(['*', '?', ' ']);
    let pro = t.len() > 1 && (t.ends_with('P') || t.ends_with('p')) && !t[..t.len() - 1].ends_with(['P', 'p']);
    let r = parse_rank(t)?;
    let kind = if pro && r.kind == RankKind::Dan { RankKind::Pro } else { r.kind };
    canonical_rank(kind, r.value)
}

/// A margin as `RE` writes it: `11`, `24.5`.
pub(crate) fn margin_text(m: f32) -> String {
    format!("{m}")
}

/// `komi` and its text (`6.5`, `0`, `-5.5`), the way `KM` is written back.
pub(crate) fn set_komi(g: &mut GameRecord, komi: Option<f32>) {
    g.komi = komi;
    g.komi_raw = komi.map(|k| format!("{k}"));
}

/// A date from its numbers (`2015- 8-29-22-56-58`, `2015:08:29`, `2019/03/08`,
/// `20170316 [09:37]`) as `YYYY-MM-DD`; `date` and `date_iso` both get it.
pub(crate) fn set_date(g: &mut GameRecord, text: &str) {
    let nums: Vec<u32> =
        text.split(|c: char| !c.is_ascii_digit()).filter(|s| !s.is_empty()).map(|s| s.parse().unwrap_or(0)).collect();
    let iso = match nums.as_slice() {
        [y, m, d, ..] if (1000..3000).contains(y) && (1..=12).contains(m) && (1..=31).contains(d) => {
            Some(format!("{y:04}-{m:02}-{d:02}"))
        }
        _ => sgf::iso_date(text),
    };
    g.date_iso = iso.clone();
    g.date = iso;
}

/// `Some(text)` trimmed, `None` when empty.
pub(crate) fn non_empty(s: &str) -> Option<String> {
    let t = s.trim().trim_matches('\0');
    (!t.is_empty()).then(|| t.to_string())
}
