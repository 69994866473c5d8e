/*!
The filter stage: inputs → `games` and `rejects` tables plus `report.json`.

Every game found ends in exactly one place. Documents are read in walk order, in
batches; each batch is parsed in parallel (rayon) and merged back **in order**, so
the tables are byte-identical whatever the thread count.

Accounting: a file or archive tail that cannot be read is one `unreadable_file`
reject row (its games cannot be counted), and counts as one entry found.
*/

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use crate::config::{Config, FilterConfig, Source};
use crate::input::{self, Item, Location};
use crate::sgf::{self, GameRecord, RecordError};
use crate::storage::{ShardInfo, TableOptions, TableWriter};
use crate::tables::{games_batch, games_schema, rejects_batch, rejects_schema, GameRow, RejectRow};

/// Result kinds a pipeline may name in `filter.result_kinds`.
pub const RESULT_KINDS: &[&str] = &["score", "resign", "time", "forfeit", "draw", "void", "unknown"];

/// Every reject reason the filter stage can give.
pub const REASONS: &[&str] = &[
    "unreadable_file",
    "parse_error",
    "not_go",
    "size_not_19",
    "bad_coordinate",
    "setup_after_root",
    "no_moves",
    "too_short",
    "too_long",
    "filtered_out",
    "score_disagrees",
];

/// Counts for one source (or for the whole run).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Counts {
    /// Files on disk read.
    pub files_read: u64,
    /// Bytes of files on disk read.
    pub bytes_read: u64,
    /// SGF documents (files, archive members, `.sgfs` lines) parsed.
    pub documents: u64,
    /// Non-SGF files and members skipped.
    pub skipped_non_sgf: u64,
    /// Games found = kept + rejected.
    pub games_found: u64,
    /// Games written to `games`.
    pub games_kept: u64,
    /// Rows written to `rejects`.
    pub games_rejected: u64,
    /// Rejects by reason.
    pub rejected_by_reason: BTreeMap<String, u64>,
}

impl Counts {
    fn reject(&mut self, reason: &str) {
        self.games_found += 1;
        self.games_rejected += 1;
        *self.rejected_by_reason.entry(reason.to_string()).or_default() += 1;
    }
    fn keep(&mut self) {
        self.games_found += 1;
        self.games_kept += 1;
    }
}

/// The filter stage's report (`report.json` → `"filter"`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct FilterReport {
    /// Whole-run counts.
    pub total: Counts,
    /// Counts per source name.
    pub by_source: BTreeMap<String, Counts>,
    /// Kept games per normalised quirk.
    pub quirks: BTreeMap<String, u64>,
    /// Documents per charset used to decode them.
    pub charsets: BTreeMap<String, u64>,
    /// Input files with size and blake3, per source.
    pub inputs: BTreeMap<String, Vec<InputFile>>,
    /// Shards of `games`.
    pub games_shards: Vec<ShardInfo>,
    /// Shards of `rejects`.
    pub rejects_shards: Vec<ShardInfo>,
}

/// A file on disk that was read.
#[derive(Clone, Debug, Serialize)]
pub struct InputFile {
    /// Path as given.
    pub path: String,
    /// Size in bytes.
    pub bytes: u64,
    /// blake3, hex.
    pub blake3: String,
}

impl FilterReport {
    /// True when some input could not be read (exit code 1).
    pub fn had_unreadable(&self) -> bool {
        self.total.rejected_by_reason.contains_key("unreadable_file")
    }
}

/// Outcome of one document, produced in parallel.
enum Outcome {
    Kept(Box<GameRow>, Vec<&'static str>, &'static str),
    Rejected(RejectRow),
    Skipped,
}

/// A unit of work: one item plus the source it came from.
struct Work {
    source: usize,
    item: Item,
}

/// Runs the filter stage over `sources`, writing into `out`.
pub fn run(
    cfg: &Config,
    sources: &[Source],
    out: &Path,
    progress: &crate::progress::Progress,
) -> anyhow::Result<FilterReport> {
    crate::storage::clean_stale(out)?;
    let opts = TableOptions {
        row_group_rows: 16384,
        shard_rows: 250_000,
        zstd_level: cfg.split.zstd_level,
        ..Default::default()
    };
    let mut games = TableWriter::new(out, "games", games_schema(), opts.clone())?;
    let mut rejects = TableWriter::new(out, "rejects", rejects_schema(), opts)?;
    let mut report = FilterReport::default();
    for s in sources {
        report.by_source.entry(s.name.clone()).or_default();
        report.inputs.entry(s.name.clone()).or_default();
    }
    let filter = Filter::new(&cfg.filter)?;
    let mut batch: Vec<Work> = Vec::new();
    let mut batch_bytes = 0usize;

    let flush = |batch: &mut Vec<Work>,
                 report: &mut FilterReport,
                 games: &mut TableWriter,
                 rejects: &mut TableWriter|
     -> anyhow::Result<()> {
        let work = std::mem::take(batch);
        let outcomes: Vec<(usize, Vec<Outcome>)> = work
            .into_par_iter()
            .map(|w| (w.source, process(&w.item, &sources[w.source], &filter, cfg.limits.parse_limits())))
            .collect();
        let mut kept = Vec::new();
        let mut rej = Vec::new();
        for (si, outs) in outcomes {
            let name = &sources[si].name;
            for o in outs {
                let c = report.by_source.get_mut(name).expect("invariant: source registered");
                match o {
                    Outcome::Kept(row, quirks, charset) => {
                        c.keep();
                        report.total.keep();
                        for q in quirks {
                            *report.quirks.entry(q.to_string()).or_default() += 1;
                        }
                        *report.charsets.entry(charset.to_string()).or_default() += 1;
                        kept.push(*row);
                    }
                    Outcome::Rejected(r) => {
                        c.reject(&r.reason);
                        report.total.reject(&r.reason);
                        rej.push(r);
                    }
                    Outcome::Skipped => {
                        c.skipped_non_sgf += 1;
                        report.total.skipped_non_sgf += 1;
                    }
                }
            }
        }
        progress.add(kept.len() as u64 + rej.len() as u64);
        if !kept.is_empty() {
            games.write(&games_batch(&kept))?;
        }
        if !rej.is_empty() {
            rejects.write(&rejects_batch(&rej))?;
        }
        Ok(())
    };

    for (si, source) in sources.iter().enumerate() {
        let mut err: Option<anyhow::Error> = None;
        let paths: Vec<PathBuf> = vec![source.path.clone()];
        input::walk(&paths, &cfg.limits, |item| {
            if err.is_some() {
                return;
            }
            match &item {
                Item::FileRead { path, bytes, blake3 } => {
                    let c = report.by_source.get_mut(&source.name).expect("invariant: source registered");
                    c.files_read += 1;
                    c.bytes_read += bytes;
                    report.total.files_read += 1;
                    report.total.bytes_read += bytes;
                    progress.add_bytes(*bytes);
                    report.inputs.get_mut(&source.name).expect("invariant").push(InputFile {
                        path: path.clone(),
                        bytes: *bytes,
                        blake3: blake3.clone(),
                    });
                    return;
                }
                Item::Sgf { bytes, .. } => {
                    batch_bytes += bytes.len();
                    report.by_source.get_mut(&source.name).expect("invariant").documents += 1;
                    report.total.documents += 1;
                }
                Item::SgfLine { bytes, .. } => {
                    batch_bytes += bytes.len();
                    report.by_source.get_mut(&source.name).expect("invariant").documents += 1;
                    report.total.documents += 1;
                }
                _ => {}
            }
            batch.push(Work { source: si, item });
            if batch.len() >= 4096 || batch_bytes >= 32 << 20 {
                batch_bytes = 0;
                if let Err(e) = flush(&mut batch, &mut report, &mut games, &mut rejects) {
                    err = Some(e);
                }
            }
        });
        if let Some(e) = err {
            return Err(e);
        }
    }
    flush(&mut batch, &mut report, &mut games, &mut rejects)?;
    report.games_shards = games.finish()?;
    report.rejects_shards = rejects.finish()?;
    Ok(report)
}

/// The configured filters, resolved.
pub struct Filter {
    cfg: FilterConfig,
    min_rank: Option<i16>,
    max_rank: Option<i16>,
}

impl Filter {
    /// `filter.komi` when set.
    pub fn komi_override(&self) -> Option<f32> {
        self.cfg.komi
    }
    /// `filter.drop_score_disagreements`.
    pub fn drops_disagreements(&self) -> bool {
        self.cfg.drop_score_disagreements
    }

    /// Resolves rank bounds.
    pub fn new(cfg: &FilterConfig) -> anyhow::Result<Filter> {
        let rank = |r: &Option<String>| -> anyhow::Result<Option<i16>> {
            match r {
                None => Ok(None),
                Some(s) => {
                    sgf::parse_rank(s).map(|r| Some(r.numeric)).ok_or_else(|| anyhow::anyhow!("cannot read rank {s:?}"))
                }
            }
        };
        Ok(Filter { cfg: cfg.clone(), min_rank: rank(&cfg.min_rank)?, max_rank: rank(&cfg.max_rank)? })
    }

    /// Why a readable 19×19 game is left out, if it is: (reason, detail, move number).
    pub fn check(&self, g: &GameRecord) -> Option<(&'static str, String, Option<u32>)> {
        let c = &self.cfg;
        if !g.mid_setup.is_empty() && !c.allow_setup_after_root {
            let m = g.mid_setup[0].before_move + 1;
            return Some(("setup_after_root", format!("setup stones before move {m}"), Some(m)));
        }
        let n = g.moves.len() as u32;
        if n == 0 {
            return Some(("no_moves", "the main line has no moves".into(), None));
        }
        if n < c.min_moves {
            return Some(("too_short", format!("{n} moves, fewer than min_moves = {}", c.min_moves), None));
        }
        if n > c.max_moves {
            return Some(("too_long", format!("{n} moves, more than max_moves = {}", c.max_moves), None));
        }
        let handicap = g.handicap.max(if g.setup_white.is_empty() && g.setup_black.len() >= 2 {
            g.setup_black.len() as u32
        } else {
            0
        });
        if handicap >= 2 && !c.allow_handicap {
            return Some(("filtered_out", format!("handicap {handicap} (allow_handicap = false)"), None));
        }
        if handicap > c.max_handicap {
            return Some(("filtered_out", format!("handicap {handicap} > max_handicap = {}", c.max_handicap), None));
        }
        if self.min_rank.is_some() || self.max_rank.is_some() {
            for (who, r) in [("black", &g.black_rank), ("white", &g.white_rank)] {
                match r {
                    None if !c.allow_unknown_rank => {
                        return Some(("filtered_out", format!("{who} rank unknown"), None))
                    }
                    None => {}
                    Some(r) => {
                        if self.min_rank.is_some_and(|m| r.numeric < m) || self.max_rank.is_some_and(|m| r.numeric > m)
                        {
                            return Some((
                                "filtered_out",
                                format!("{who} rank {} outside the rank range", r.raw),
                                None,
                            ));
                        }
                    }
                }
            }
        }
        if !c.result_kinds.is_empty() && !c.result_kinds.iter().any(|k| k == g.result.kind.as_str()) {
            return Some(("filtered_out", format!("result kind {} not in result_kinds", g.result.kind.as_str()), None));
        }
        if c.date_from.is_some() || c.date_to.is_some() {
            match &g.date_iso {
                None if !c.allow_unknown_date => return Some(("filtered_out", "no readable date".into(), None)),
                None => {}
                Some(d) => {
                    // Compare on the common prefix length, so "2001" is inside "2001-01-01".."2001-12-31".
                    let before = |a: &str, b: &str| {
                        let n = a.len().min(b.len());
                        a[..n] < b[..n]
                    };
                    if c.date_from.as_deref().is_some_and(|f| before(d, f))
                        || c.date_to.as_deref().is_some_and(|t| before(t, d))
                    {
                        return Some(("filtered_out", format!("date {d} outside the date range"), None));
                    }
                }
            }
        }
        None
    }
}

/// Parses one document into outcomes. A `.sgfs` line is its own document: its
/// member gets a `#L<line>` suffix and its games are indexed within the line.
fn process(item: &Item, source: &Source, filter: &Filter, limits: sgf::ParseLimits) -> Vec<Outcome> {
    let reject = |loc: &Location, idx: Option<u32>, off: Option<u64>, reason: &str, detail: String, mv: Option<u32>| {
        Outcome::Rejected(RejectRow {
            stage: "filter".into(),
            source: source.name.clone(),
            source_file: loc.file.clone(),
            member: loc.member.clone(),
            game_index: idx,
            byte_offset: off,
            reason: reason.into(),
            detail,
            move_number: mv,
            game_id: None,
        })
    };
    match item {
        Item::FileRead { .. } => Vec::new(),
        Item::Skipped { .. } => vec![Outcome::Skipped],
        Item::Unreadable { loc, error } => vec![reject(loc, None, None, "unreadable_file", error.clone(), None)],
        Item::Sgf { loc, bytes } | Item::SgfLine { loc, bytes, .. } => {
            let loc = match item {
                Item::SgfLine { line, .. } => Location {
                    file: loc.file.clone(),
                    member: Some(match &loc.member {
                        Some(m) => format!("{m}#L{line}"),
                        None => format!("#L{line}"),
                    }),
                },
                _ => loc.clone(),
            };
            let file = sgf::read_games_with(bytes, limits);
            let charset = file.charset;
            file.games
                .into_iter()
                .enumerate()
                .map(|(i, g)| match g {
                    Err(RecordError { reason, detail, offset, move_number }) => {
                        reject(&loc, Some(i as u32), offset.map(|o| o as u64), reason.as_str(), detail, move_number)
                    }
                    Ok(g) => match filter.check(&g) {
                        Some((reason, detail, mv)) => {
                            reject(&loc, Some(g.index as u32), Some(g.offset as u64), reason, detail, mv)
                        }
                        None => {
                            let quirks = g.quirks.names();
                            let mut row = game_row(&g, source, &loc, &quirks);
                            if let Some((check, margin)) = score_game(&g, filter.komi_override()) {
                                if check == crate::scoring::ScoreCheck::Disagrees && filter.drops_disagreements() {
                                    return reject(
                                        &loc,
                                        Some(g.index as u32),
                                        Some(g.offset as u64),
                                        "score_disagrees",
                                        format!(
                                            "counted B{margin:+.1} against RE[{}]",
                                            g.result.raw.as_deref().unwrap_or("")
                                        ),
                                        None,
                                    );
                                }
                                row.score_check = Some(check.as_str().to_string());
                                row.counted_margin = Some(margin);
                            }
                            Outcome::Kept(Box::new(row), quirks, charset)
                        }
                    },
                })
                .collect()
        }
    }
}

/// The counting rules named by `RU`: area rules for Chinese, AGA, New Zealand,
/// Tromp-Taylor and Ing; Korean; Japanese (territory) otherwise.
pub fn rule_set(ru: Option<&str>) -> crate::scoring::RuleSet {
    use crate::scoring::RuleSet;
    let r = ru.unwrap_or("").to_ascii_lowercase();
    if ["chin", "aga", "new zealand", "nz", "tromp", "ing", "goe", "area"].iter().any(|k| r.contains(k)) {
        RuleSet::Chinese
    } else if r.contains("korea") {
        RuleSet::Korean
    } else {
        RuleSet::Japanese
    }
}

/// Counts a game that ended by counting (a result with a score, or two final passes):
/// replays it, takes dead stones from `TB`/`TW` markup when present, else from the
/// conservative Benson-based analysis, counts under the game's rules with its komi (or
/// the default: 6.5 even, 0.5 handicap), and compares with `RE`. `None` for games that
/// did not end by counting. Returns the check and the counted margin (black − white).
pub fn score_game(g: &GameRecord, komi_override: Option<f32>) -> Option<(crate::scoring::ScoreCheck, f32)> {
    use crate::coord::Move;
    use crate::engine::{Board, Color, Rules};
    use crate::scoring::{
        check_result, count, default_komi, ownership_conservative, ownership_from_markup, ScoreCheck,
    };
    let n = g.moves.len();
    let two_passes = n >= 2 && g.moves[n - 1].mv == Move::Pass && g.moves[n - 2].mv == Move::Pass;
    let scored = g.result.kind == sgf::ResultKind::Score;
    // A resignation, time loss or forfeit after two passes did not end by counting.
    let not_counted = matches!(
        g.result.kind,
        sgf::ResultKind::Resign | sgf::ResultKind::Time | sgf::ResultKind::Forfeit | sgf::ResultKind::Void
    );
    if !(scored || (two_passes && !not_counted)) {
        return None;
    }
    let mut b = Board::new();
    for p in &g.setup_black {
        b.set_stone(*p, 1).ok()?;
    }
    for p in &g.setup_white {
        b.set_stone(*p, 2).ok()?;
    }
    let rules = Rules { multi_stone_suicide: true };
    for m in &g.moves {
        let c = if m.color == sgf::Color::Black { Color::Black } else { Color::White };
        if b.play(c, m.mv, &rules).is_err() {
            return Some((ScoreCheck::Undecided, f32::NAN));
        }
    }
    let own = if !g.territory_black.is_empty() || !g.territory_white.is_empty() {
        ownership_from_markup(&b, &g.territory_black, &g.territory_white)
    } else {
        ownership_conservative(&b)
    };
    let handicap = g.handicap.max(if g.setup_white.is_empty() && g.setup_black.len() >= 2 {
        g.setup_black.len() as u32
    } else {
        0
    });
    let komi = komi_override.or(g.komi).unwrap_or_else(|| default_komi(handicap));
    let score = count(
        &b,
        &own,
        rule_set(g.rules.as_deref()),
        komi,
        b.prisoners(Color::Black),
        b.prisoners(Color::White),
        handicap,
    );
    let winner = g.result.winner.map(|w| w == sgf::Color::Black);
    let recorded = if scored { g.result.margin } else { None };
    Some((check_result(&score, winner, recorded), score.margin))
}

/// Stable content hash of a game: setup, first player and moves, not metadata.
pub fn game_id(
    setup_black: &[u16],
    setup_white: &[u16],
    first_player: Option<&str>,
    moves: &[u16],
    colors: &str,
) -> String {
    let mut h = blake3::Hasher::new();
    h.update(b"kibo.game.v1\0");
    let mut sb = setup_black.to_vec();
    sb.sort_unstable();
    let mut sw = setup_white.to_vec();
    sw.sort_unstable();
    for p in sb {
        h.update(&p.to_le_bytes());
    }
    h.update(&[0xff, 0xff]);
    for p in sw {
        h.update(&p.to_le_bytes());
    }
    h.update(&[0xff, 0xff]);
    h.update(first_player.unwrap_or("-").as_bytes());
    for (m, c) in moves.iter().zip(colors.bytes()) {
        h.update(&[c]);
        h.update(&m.to_le_bytes());
    }
    h.finalize().to_hex()[..32].to_string()
}

fn color_str(c: sgf::Color) -> &'static str {
    match c {
        sgf::Color::Black => "B",
        sgf::Color::White => "W",
    }
}

fn game_row(g: &GameRecord, source: &Source, loc: &Location, quirks: &[&'static str]) -> GameRow {
    let setup_black: Vec<u16> = g.setup_black.iter().map(|p| p.index()).collect();
    let setup_white: Vec<u16> = g.setup_white.iter().map(|p| p.index()).collect();
    let moves: Vec<u16> = g.moves.iter().map(|m| m.mv.index()).collect();
    let colors: String = g.moves.iter().map(|m| color_str(m.color)).collect();
    let first_player = g.first_player.map(|c| color_str(c).to_string());
    let mid_setup = (!g.mid_setup.is_empty()).then(|| {
        let v: Vec<serde_json::Value> = g
            .mid_setup
            .iter()
            .map(|s| {
                serde_json::json!({
                    "before_move": s.before_move,
                    "black": s.black.iter().map(|p| p.index()).collect::<Vec<_>>(),
                    "white": s.white.iter().map(|p| p.index()).collect::<Vec<_>>(),
                    "empty": s.empty.iter().map(|p| p.index()).collect::<Vec<_>>(),
                })
            })
            .collect();
        serde_json::Value::Array(v).to_string()
    });
    GameRow {
        game_id: game_id(&setup_black, &setup_white, first_player.as_deref(), &moves, &colors),
        source: source.name.clone(),
        source_file: loc.file.clone(),
        member: loc.member.clone(),
        game_index: g.index as u32,
        byte_offset: g.offset as u64,
        charset: g.charset.to_string(),
        komi: g.komi,
        komi_raw: g.komi_raw.clone(),
        handicap: g.handicap.min(255) as u8,
        rules: g.rules.clone(),
        result_raw: g.result.raw.clone(),
        winner: g.result.winner.map(|c| color_str(c).to_string()),
        result_kind: g.result.kind.as_str().to_string(),
        margin: g.result.margin,
        black_name: g.black.clone(),
        white_name: g.white.clone(),
        black_rank: g.black_rank.as_ref().map(|r| r.raw.clone()),
        white_rank: g.white_rank.as_ref().map(|r| r.raw.clone()),
        black_rank_num: g.black_rank.as_ref().map(|r| r.numeric),
        white_rank_num: g.white_rank.as_ref().map(|r| r.numeric),
        date: g.date.clone(),
        date_iso: g.date_iso.clone(),
        event: g.event.clone(),
        round: g.round.clone(),
        place: g.place.clone(),
        game_name: g.game_name.clone(),
        application: g.application.clone(),
        setup_black,
        setup_white,
        first_player,
        num_moves: moves.len() as u32,
        non_alternating: g.quirks.non_alternating,
        moves,
        colors,
        mid_setup,
        quirks: quirks.iter().map(|q| q.to_string()).collect(),
        score_check: None,
        counted_margin: None,
    }
}
