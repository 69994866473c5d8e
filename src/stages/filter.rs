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

use anyhow::Context;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::config::{Config, FilterConfig, ScoreCheckMode, Source};
use crate::coord::{Move, Point};
use crate::formats;
use crate::game::{GameRow, ScoreJudge, ScoreVerdict};
use crate::input::{self, Item, Location};
use crate::reject::Reject;
use crate::replay::{replay, ReplayRules};
use crate::scoring::ScoreCheck;
use crate::sgf::{self, RecordError, ResultKind};
use crate::storage::{ShardInfo, TableOptions, TableWriter};
use crate::tables::{games_batch, games_schema, rejects_batch, rejects_schema, RejectRow};

/// Counts for one source (or for the whole run).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
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
    /// Kept games by score verdict (`score_check`; games not counted are left out).
    #[serde(default)]
    pub score_checks: BTreeMap<String, u64>,
    /// `score_check = "katago"`: the games KataGo's evidence judged, by kibo's own
    /// verdict and the verdict with KataGo's evidence (`"undecided -> agrees"`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub katago_verdicts: BTreeMap<String, u64>,
}

impl Counts {
    /// Adds `o`'s counts.
    pub fn add(&mut self, o: &Counts) {
        self.files_read += o.files_read;
        self.bytes_read += o.bytes_read;
        self.documents += o.documents;
        self.skipped_non_sgf += o.skipped_non_sgf;
        self.games_found += o.games_found;
        self.games_kept += o.games_kept;
        self.games_rejected += o.games_rejected;
        for (k, v) in &o.score_checks {
            *self.score_checks.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &o.katago_verdicts {
            *self.katago_verdicts.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &o.rejected_by_reason {
            *self.rejected_by_reason.entry(k.clone()).or_default() += v;
        }
    }
    /// Counts one reject (any stage's).
    pub fn reject(&mut self, reason: Reject) {
        self.games_found += 1;
        self.games_rejected += 1;
        *self.rejected_by_reason.entry(reason.as_str().to_string()).or_default() += 1;
    }
    fn keep(&mut self, check: Option<ScoreCheck>) {
        self.games_found += 1;
        self.games_kept += 1;
        if let Some(c) = check {
            *self.score_checks.entry(c.as_str().to_string()).or_default() += 1;
        }
    }
}

/// The filter stage's report (`report.json` → `"filter"`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct FilterReport {
    /// Whole-run counts.
    pub total: Counts,
    /// Counts per source name.
    pub by_source: BTreeMap<String, Counts>,
    /// Kept games per normalised quirk.
    pub quirks: BTreeMap<String, u64>,
    /// Documents per charset used to decode them.
    pub charsets: BTreeMap<String, u64>,
    /// Documents and games per record format (`sgf`, `gib`, `ngf`, `ugf`, `dump`: the reader
    /// that read them).
    #[serde(default)]
    pub by_format: BTreeMap<String, FormatCounts>,
    /// Input files with size and blake3, per source.
    pub inputs: BTreeMap<String, Vec<InputFile>>,
    /// Shards of `games`.
    pub games_shards: Vec<ShardInfo>,
    /// Shards of `rejects`.
    pub rejects_shards: Vec<ShardInfo>,
    /// `score_check = "katago"`: the engine's work.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub katago: Option<KatagoRun>,
}

/// What KataGo did in a filter run (`report.json` → `filter.katago`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct KatagoRun {
    /// Visits per query.
    pub visits: u32,
    /// Games whose final position KataGo read (two queries each).
    pub games: u64,
    /// Visits of the second reading (`recheck_visits`; 0: none).
    #[serde(default)]
    pub recheck_visits: u32,
    /// Games read again at `recheck_visits` ([`rechecks`]).
    #[serde(default)]
    pub rechecked: u64,
    /// Seconds spent waiting for KataGo (its start included); printed, not written to
    /// `report.json` (which stays the same from run to run).
    #[serde(skip)]
    pub seconds: f64,
}

/// What one record format gave (`report.json` → `filter.by_format`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct FormatCounts {
    /// Documents read with this format's reader.
    pub documents: u64,
    /// Their games kept.
    pub games_kept: u64,
    /// Their games rejected by the filter.
    pub games_rejected: u64,
}

impl FormatCounts {
    fn add(&mut self, o: &FormatCounts) {
        self.documents += o.documents;
        self.games_kept += o.games_kept;
        self.games_rejected += o.games_rejected;
    }
}

/// A file on disk that was read.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct InputFile {
    /// Path as given.
    pub path: String,
    /// Size in bytes.
    pub bytes: u64,
    /// blake3, hex.
    pub blake3: String,
}

impl FilterReport {
    /// An empty report with a count and an input list for each source.
    fn for_sources(sources: &[Source]) -> FilterReport {
        let mut report = FilterReport::default();
        for s in sources {
            report.by_source.entry(s.name.clone()).or_default();
            report.inputs.entry(s.name.clone()).or_default();
        }
        report
    }

    /// Adds the report of the next part of the corpus (the parts of a Spark run, in
    /// walk order): counts summed, inputs and shards appended.
    pub fn merge(&mut self, o: FilterReport) {
        self.total.add(&o.total);
        for (k, c) in &o.by_source {
            self.by_source.entry(k.clone()).or_default().add(c);
        }
        for (k, v) in o.quirks {
            *self.quirks.entry(k).or_default() += v;
        }
        for (k, v) in o.charsets {
            *self.charsets.entry(k).or_default() += v;
        }
        for (k, v) in &o.by_format {
            self.by_format.entry(k.clone()).or_default().add(v);
        }
        for (k, v) in o.inputs {
            self.inputs.entry(k).or_default().extend(v);
        }
        self.games_shards.extend(o.games_shards);
        self.rejects_shards.extend(o.rejects_shards);
        if let Some(k) = o.katago {
            let m = self.katago.get_or_insert_with(|| KatagoRun {
                visits: k.visits,
                recheck_visits: k.recheck_visits,
                ..Default::default()
            });
            m.games += k.games;
            m.rechecked += k.rechecked;
            m.seconds += k.seconds;
        }
    }

    /// True when some input could not be read (exit code 1).
    pub fn had_unreadable(&self) -> bool {
        self.total.rejected_by_reason.contains_key(Reject::UnreadableFile.as_str())
    }
}

/// Outcome of one document, produced in parallel. A kept game carries its final
/// position when KataGo is to judge it ([`escalates`]).
enum Outcome {
    Kept(Box<GameRow>, Vec<&'static str>, &'static str, Option<Box<crate::engine::Board>>),
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
    run_part(cfg, sources, out, None, progress)
}

/// [`run`] over the entries of the walk whose ordinals lie in `select`
/// ([`input::walk_part`]; `None`: all): one part of the corpus.
pub fn run_part(
    cfg: &Config,
    sources: &[Source],
    out: &Path,
    select: Option<std::ops::Range<u64>>,
    progress: &crate::progress::Progress,
) -> anyhow::Result<FilterReport> {
    // KataGo starts (and answers a first query) before anything is written.
    let mut katago = Judge::start(&cfg.filter)?;
    crate::storage::clean_stale(out)?;
    let opts = TableOptions {
        row_group_rows: 16384,
        shard_rows: 250_000,
        zstd_level: cfg.split.zstd_level,
        ..Default::default()
    };
    let mut games = TableWriter::new(out, "games", games_schema(), opts.clone())?;
    // The filter stage starts the rejects folder afresh (a new games table makes any
    // split rejects stale) and writes its own partition, `part-filter-*`.
    let mut rejects = TableWriter::with_prefix(out, "rejects", "filter", rejects_schema(), opts)?;
    let mut report = FilterReport::for_sources(sources);
    let filter = Filter::new(&cfg.filter);
    let mut batch: Vec<Work> = Vec::new();
    let mut batch_bytes = 0usize;

    let flush = |batch: &mut Vec<Work>,
                 report: &mut FilterReport,
                 games: &mut TableWriter,
                 rejects: &mut TableWriter,
                 katago: &mut Option<Judge>|
     -> anyhow::Result<()> {
        let work = std::mem::take(batch);
        let mut outcomes: Vec<(usize, Option<&'static str>, Vec<Outcome>)> = work
            .into_par_iter()
            .map(|w| {
                let (format, outs) = process(&w.item, &sources[w.source], &filter, cfg.limits.parse_limits());
                (w.source, format, outs)
            })
            .collect();
        if let Some(k) = katago.as_mut() {
            k.judge(&mut outcomes, sources, &filter.cfg, report)?;
        }
        let mut kept = Vec::new();
        let mut rej = Vec::new();
        for (si, format, outs) in outcomes {
            let name = &sources[si].name;
            let mut by_format = format.map(|f| {
                let c = report.by_format.entry(f.to_string()).or_default();
                c.documents += 1;
                c
            });
            for o in outs {
                let o = drop_by_score(o, &filter.cfg);
                if let Some(f) = by_format.as_mut() {
                    match o {
                        Outcome::Kept(..) => f.games_kept += 1,
                        Outcome::Rejected(_) => f.games_rejected += 1,
                        Outcome::Skipped => {}
                    }
                }
                let c = report.by_source.get_mut(name).expect("invariant: source registered");
                match o {
                    Outcome::Kept(row, quirks, charset, _) => {
                        let check = row.score.as_ref().map(|v| v.check);
                        c.keep(check);
                        report.total.keep(check);
                        for q in quirks {
                            *report.quirks.entry(q.to_string()).or_default() += 1;
                        }
                        *report.charsets.entry(charset.to_string()).or_default() += 1;
                        kept.push(*row);
                    }
                    Outcome::Rejected(r) => {
                        c.reject(r.reason);
                        report.total.reject(r.reason);
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

    let limits = cfg.walk_limits(out);
    let mut ordinal = 0u64;
    for (si, source) in sources.iter().enumerate() {
        let mut err: Option<anyhow::Error> = None;
        let paths: Vec<PathBuf> = vec![source.path.clone()];
        input::walk_part(&paths, &limits, &mut ordinal, select.clone(), |item| {
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
                Item::Sgf { bytes, .. } | Item::SgfPart { bytes, .. } | Item::SgfLine { bytes, .. } => {
                    batch_bytes += bytes.len();
                    report.by_source.get_mut(&source.name).expect("invariant").documents += 1;
                    report.total.documents += 1;
                }
                _ => {}
            }
            batch.push(Work { source: si, item });
            if batch.len() >= 4096 || batch_bytes >= 32 << 20 {
                batch_bytes = 0;
                if let Err(e) = flush(&mut batch, &mut report, &mut games, &mut rejects, &mut katago) {
                    err = Some(e);
                }
            }
        });
        if let Some(e) = err {
            return Err(e);
        }
    }
    flush(&mut batch, &mut report, &mut games, &mut rejects, &mut katago)?;
    report.games_shards = games.finish()?;
    report.rejects_shards = rejects.finish()?;
    report.katago = katago.map(|k| k.run);
    Ok(report)
}

/// The configured filters.
pub struct Filter {
    cfg: FilterConfig,
}

/// Why a game is left out: the reason, a detail for people, the 1-based move number.
pub type Verdict = (Reject, String, Option<u32>);

impl Filter {
    /// The filters of `[filter]`.
    pub fn new(cfg: &FilterConfig) -> Filter {
        Filter { cfg: cfg.clone() }
    }

    /// Why a readable 19×19 game is left out, if it is.
    pub fn check(&self, g: &GameRow) -> Option<Verdict> {
        let c = &self.cfg;
        let out = |detail: String| Some((Reject::FilteredOut, detail, None));
        if let Some(s) = g.mid_setup.first().filter(|_| !c.allow_setup_after_root) {
            let m = s.before_move + 1;
            return Some((Reject::SetupAfterRoot, format!("setup stones before move {m}"), Some(m)));
        }
        let n = g.moves.len() as u32;
        if n == 0 {
            return Some((Reject::NoMoves, "the main line has no moves".into(), None));
        }
        if n < c.min_moves {
            return Some((Reject::TooShort, format!("{n} moves, fewer than min_moves = {}", c.min_moves), None));
        }
        if n > c.max_moves {
            return Some((Reject::TooLong, format!("{n} moves, more than max_moves = {}", c.max_moves), None));
        }
        let handicap = g.effective_handicap();
        if handicap >= 2 && !c.allow_handicap {
            return out(format!("handicap {handicap} (allow_handicap = false)"));
        }
        if handicap > c.max_handicap {
            return out(format!("handicap {handicap} > max_handicap = {}", c.max_handicap));
        }
        if let Some(d) = self.rank_outside(g) {
            return out(d);
        }
        if !c.result_kinds.is_empty() && !c.result_kinds.contains(&g.meta.result_kind) {
            return out(format!("result kind {} not in result_kinds", g.meta.result_kind.as_str()));
        }
        self.date_outside(g).and_then(out)
    }

    /// The rank bounds: why `g` is outside them, if it is.
    fn rank_outside(&self, g: &GameRow) -> Option<String> {
        let c = &self.cfg;
        let (lo, hi) = (c.min_rank.as_ref().map(|r| r.numeric), c.max_rank.as_ref().map(|r| r.numeric));
        if lo.is_none() && hi.is_none() {
            return None;
        }
        let m = &g.meta;
        for (who, num, raw) in [("black", m.black_rank_num, &m.black_rank), ("white", m.white_rank_num, &m.white_rank)]
        {
            match num {
                None if !c.allow_unknown_rank => return Some(format!("{who} rank unknown")),
                None => {}
                Some(r) if lo.is_some_and(|m| r < m) || hi.is_some_and(|m| r > m) => {
                    return Some(format!("{who} rank {} outside the rank range", raw.as_deref().unwrap_or("")));
                }
                Some(_) => {}
            }
        }
        None
    }

    /// The date bounds: why `g` is outside them, if it is.
    fn date_outside(&self, g: &GameRow) -> Option<String> {
        let c = &self.cfg;
        if c.date_from.is_none() && c.date_to.is_none() {
            return None;
        }
        let Some(d) = &g.meta.date_iso else {
            return (!c.allow_unknown_date).then(|| "no readable date".into());
        };
        // Compare on the common prefix length, so "2001" is inside "2001-01-01".."2001-12-31".
        let before = |a: &str, b: &str| {
            let n = a.len().min(b.len());
            a[..n] < b[..n]
        };
        let outside =
            c.date_from.as_deref().is_some_and(|f| before(d, f)) || c.date_to.as_deref().is_some_and(|t| before(t, d));
        outside.then(|| format!("date {d} outside the date range"))
    }
}

/// Parses one document into outcomes, with the format of the reader that read it
/// ([`formats::read_document`]: chosen by the name's extension, confirmed by the
/// content). A `.sgfs` line is its own document: its member gets a `#L<line>` suffix
/// and its games are indexed within the line.
fn process(
    item: &Item,
    source: &Source,
    filter: &Filter,
    limits: sgf::ParseLimits,
) -> (Option<&'static str>, Vec<Outcome>) {
    let reject = |loc: &Location, idx: Option<u32>, off: Option<u64>, (reason, detail, mv): Verdict| {
        Outcome::Rejected(RejectRow {
            reason,
            source: source.name.clone(),
            source_file: loc.file.clone(),
            member: loc.member.clone(),
            game_index: idx,
            byte_offset: off,
            detail,
            move_number: mv,
            game_id: None,
        })
    };
    match item {
        Item::FileRead { .. } => (None, Vec::new()),
        Item::Skipped { .. } => (None, vec![Outcome::Skipped]),
        Item::Unreadable { loc, error } => {
            (None, vec![reject(loc, None, None, (Reject::UnreadableFile, error.clone(), None))])
        }
        Item::Refused { loc, reason, error } => {
            // The walker names a filter-stage reason; an unknown name (a bug) is still a
            // reject of this file, never a panic.
            let reason = Reject::from_name(reason).unwrap_or(Reject::UnreadableFile);
            (None, vec![reject(loc, None, None, (reason, error.clone(), None))])
        }
        Item::Sgf { loc, bytes } | Item::SgfLine { loc, bytes, .. } | Item::SgfPart { loc, bytes, .. } => {
            // A part of a large collection: its games' indices and offsets in the whole file.
            let (first, base) = match item {
                Item::SgfPart { first_game, base_offset, .. } => (*first_game, *base_offset),
                _ => (0, 0),
            };
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
            // A dump line's quirks (its join with the index) join the reader's. A dump
            // line is read as the SGF document its reader made of it, and its games are
            // format `dump`.
            let (joined, dump): (&[&'static str], bool) = match item {
                Item::SgfLine { quirks, dump, .. } => (quirks, *dump),
                _ => (&[], false),
            };
            let name = loc.member.as_deref().unwrap_or(&loc.file);
            let file = formats::read_document(name, bytes, limits);
            let charset = file.charset;
            let format = file
                .games
                .iter()
                .find_map(|g| g.as_ref().ok())
                .map_or_else(|| formats::Format::of_name(name).as_str(), |g| g.format);
            let format = if dump { "dump" } else { format };
            let keep_or_reject = |g: sgf::GameRecord| {
                let mut quirks = g.quirks.names();
                quirks.extend_from_slice(joined);
                let mut row = GameRow::from_record(&g, &source.name, &loc.file, loc.member.as_deref(), &quirks);
                (row.game_index, row.byte_offset) = (row.game_index + first, row.byte_offset + base);
                if dump {
                    row.format = format.to_string();
                }
                let at = (Some(row.game_index), Some(row.byte_offset));
                if let Some(v) = filter.check(&row) {
                    return reject(&loc, at.0, at.1, v);
                }
                let mode = filter.cfg.score_check;
                let mut end = None;
                let counted = count_game_checked(&row, &g.territory_black, &g.territory_white, filter.cfg.komi, mode);
                // A count that meets a bug rejects this game alone (docs/scoring.md, "Flips").
                let counted = match counted {
                    Ok(c) => c,
                    Err(e) => return reject(&loc, at.0, at.1, (Reject::InternalError, format!("{e:#}"), None)),
                };
                row.score = counted.map(|c| {
                    if mode == ScoreCheckMode::Katago && escalates(&row, c.verdict.check) {
                        end = c.end.map(|(board, _)| Box::new(board));
                    }
                    c.verdict
                });
                Outcome::Kept(Box::new(row), quirks, charset, end)
            };
            let outs = file
                .games
                .into_iter()
                .enumerate()
                .map(|(i, g)| match g {
                    Err(RecordError { reason, detail, offset, move_number }) => {
                        let (idx, off) = (Some(first + i as u32), offset.map(|o| o as u64 + base));
                        reject(&loc, idx, off, (reason.into(), detail, move_number))
                    }
                    Ok(g) => keep_or_reject(g),
                })
                .collect();
            (Some(format), outs)
        }
    }
}

/// Counts a game that ended by counting (a result with a score, or two final passes):
/// replays it, decides its dead stones and seki from evidence ([`crate::scoring::judge`]:
/// Benson, the conservative rules, random playouts, and the `TB`/`TW` markup `tb`, `tw`
/// when present), counts under the game's rules with its komi (or the default: 6.5
/// even, 0.5 handicap), and only then compares with `RE`. `None` for games that did not
/// end by counting; `undecided` without a margin when the game cannot be replayed; an
/// error, naming the game, where the count meets a bug in kibo
/// ([`crate::scoring::JudgementMismatch`]).
pub fn score_game(
    g: &GameRow,
    tb: &[Point],
    tw: &[Point],
    komi_override: Option<f32>,
) -> anyhow::Result<Option<ScoreVerdict>> {
    Ok(count_game(g, tb, tw, komi_override)?.map(|c| c.verdict))
}

/// What [`count_game`] found: the verdict, and the final position with its judgement
/// (`None` when the game cannot be replayed).
pub struct Counted {
    /// The verdict written to the games table.
    pub verdict: ScoreVerdict,
    /// The final position and the dead stones, seki and territory decided on it.
    pub end: Option<(crate::engine::Board, crate::scoring::Judgement)>,
}

/// [`score_game`], keeping the final position and its judgement.
pub fn count_game(
    g: &GameRow,
    tb: &[Point],
    tw: &[Point],
    komi_override: Option<f32>,
) -> anyhow::Result<Option<Counted>> {
    count_game_checked(g, tb, tw, komi_override, ScoreCheckMode::Full)
}

/// [`count_game`] in a [`ScoreCheckMode`]: `Rules` judges without playouts
/// ([`crate::scoring::judge_with`]); `Off` counts nothing (`None`).
pub fn count_game_checked(
    g: &GameRow,
    tb: &[Point],
    tw: &[Point],
    komi_override: Option<f32>,
    mode: ScoreCheckMode,
) -> anyhow::Result<Option<Counted>> {
    use crate::engine::{Color, Rules};
    use crate::scoring::judge_with;
    if mode == ScoreCheckMode::Off {
        return Ok(None);
    }
    let n = g.moves.len();
    let two_passes = n >= 2 && g.moves[n - 1].mv == Move::Pass && g.moves[n - 2].mv == Move::Pass;
    let kind = g.meta.result_kind;
    let scored = kind == ResultKind::Score;
    // A resignation, time loss or forfeit after two passes did not end by counting.
    let not_counted = matches!(kind, ResultKind::Resign | ResultKind::Time | ResultKind::Forfeit | ResultKind::Void);
    if !(scored || (two_passes && !not_counted)) {
        return Ok(None);
    }
    let rules =
        ReplayRules { rules: Rules { multi_stone_suicide: true }, allow_consecutive_moves: true, ..Default::default() };
    let Ok(end) = replay(g, &rules, &mut ()) else {
        let verdict = ScoreVerdict {
            check: ScoreCheck::Undecided,
            counted_margin: None,
            count: None,
            reason: Some("the main line cannot be replayed".into()),
            judge: ScoreJudge::Kibo,
        };
        return Ok(Some(Counted { verdict, end: None }));
    };
    let b = &end.board;
    let markup = (!tb.is_empty() || !tw.is_empty()).then_some((tb, tw));
    let to_move = g.moves.last().map_or(Color::Black, |m| m.color.opponent());
    let j = judge_with(b, markup, to_move, mode != ScoreCheckMode::Rules);
    let verdict = verdict_of(g, b, &j, komi_override, ScoreJudge::Kibo)?;
    Ok(Some(Counted { verdict, end: Some((end.board, j)) }))
}

/// The count of `g`'s final position `b` with the dead stones and seki of `j`, under the
/// game's rules and komi, compared with `RE`. An error, naming the game, when `j` is not
/// `b`'s judgement (a bug: [`crate::scoring::JudgementMismatch`]).
fn verdict_of(
    g: &GameRow,
    b: &crate::engine::Board,
    j: &crate::scoring::Judgement,
    komi_override: Option<f32>,
    judge: ScoreJudge,
) -> anyhow::Result<ScoreVerdict> {
    use crate::engine::Color;
    use crate::scoring::{check_result, count, default_komi, undecided_reason};
    let handicap = g.effective_handicap();
    let komi = komi_override.or(g.meta.komi).unwrap_or_else(|| default_komi(handicap));
    let score = count(
        b,
        &j.own,
        crate::scoring::RuleSet::from_ru(g.meta.rules.as_deref()),
        komi,
        b.prisoners(Color::Black),
        b.prisoners(Color::White),
        handicap,
    );
    let winner = g.meta.winner.map(|w| w == Color::Black);
    let recorded = if g.meta.result_kind == ResultKind::Score { g.meta.margin } else { None };
    let mut check = check_result(&score, winner, recorded);
    let mut reason = undecided_reason(&score, j, check, winner);
    if check == ScoreCheck::WinnerDiffers {
        // A recorded winner is flipped only on decisive evidence (docs/scoring.md, "Flips").
        let recount = |own: &crate::scoring::Ownership| {
            count(b, own, score.rules, komi, b.prisoners(Color::Black), b.prisoners(Color::White), handicap)
        };
        let doubt = match judge {
            ScoreJudge::Kibo => {
                crate::scoring::flip_doubt(b, j, &score, recount, winner, recorded).with_context(|| game_name(g))?
            }
            ScoreJudge::Katago => crate::scoring::flip_near_the_line(&score),
        };
        if let Some(doubt) = doubt {
            (check, reason) = (ScoreCheck::Undecided, Some(doubt));
        }
    }
    Ok(ScoreVerdict { check, counted_margin: Some(score.margin), count: Some(score), reason, judge })
}

/// [`count_game_checked`] in any mode, `Katago` included: a game kibo's judge
/// [`escalates`] is judged again with KataGo's ownership maps (an engine started for it,
/// `kibo score --score-check katago`; [`katago_judge`]), keeping the final position and
/// that judgement.
pub fn count_game_mode(g: &GameRow, tb: &[Point], tw: &[Point], cfg: &FilterConfig) -> anyhow::Result<Option<Counted>> {
    let Some(c) = count_game_checked(g, tb, tw, cfg.komi, cfg.score_check)? else { return Ok(None) };
    let (Some((board, _)), ScoreCheckMode::Katago) = (&c.end, cfg.score_check) else { return Ok(Some(c)) };
    if !escalates(g, c.verdict.check) {
        return Ok(Some(c));
    }
    let settings = cfg.katago.settings();
    let mut engine = crate::analysis::Katago::start(&settings)?;
    let (judged, _) = katago_judge(&mut engine, &[(g, board)], cfg.komi, settings.recheck_visits)?;
    let (verdict, j) = judged.into_iter().next().context("KataGo judged no game")??;
    Ok(Some(Counted { verdict, end: Some((board.clone(), j)) }))
}

/// One game's verdict and judgement by [`katago_judge`], or the bug its count met.
type KatagoJudged = anyhow::Result<(ScoreVerdict, crate::scoring::Judgement)>;

/// The KataGo judge on `games` (each a game and its final position): KataGo's ownership
/// maps at the engine's visits, [`crate::scoring::judge_by_ownership`] and kibo's count
/// of each; then, when `recheck_visits` is not 0, the second reading at `recheck_visits`
/// of the games [`rechecks`] picks, whose verdicts and judgements replace the first.
/// Returns each game's verdict and judgement, in order (an error for a game whose count
/// meets a bug), and how many games were read again. An engine error is the whole call's.
fn katago_judge(
    engine: &mut crate::analysis::Katago,
    games: &[(&GameRow, &crate::engine::Board)],
    komi: Option<f32>,
    recheck_visits: u32,
) -> anyhow::Result<(Vec<KatagoJudged>, u64)> {
    let names: Vec<String> = games.iter().map(|(g, _)| game_name(g)).collect();
    let positions: Vec<crate::analysis::Position> =
        games.iter().zip(&names).map(|((g, b), name)| position(g, b, name, komi)).collect();
    let judged = |(g, b): &(&GameRow, &crate::engine::Board), m: &crate::scoring::OwnershipMaps| {
        let j = crate::scoring::judge_by_ownership(b, m);
        verdict_of(g, b, &j, komi, ScoreJudge::Katago).map(|v| (v, j))
    };
    let maps = engine.ownership(&positions)?;
    let mut out: Vec<_> = games.iter().zip(&maps).map(|(g, m)| judged(g, m)).collect();
    // The second reading, at more visits, of the flips and near-flips: it replaces the
    // first.
    let again: Vec<usize> = (0..games.len())
        .filter(|&i| recheck_visits > 0 && out[i].as_ref().is_ok_and(|(v, _)| rechecks(games[i].0, v)))
        .collect();
    if !again.is_empty() {
        let positions: Vec<crate::analysis::Position> = again.iter().map(|&i| positions[i]).collect();
        let maps = engine.ownership_at(&positions, recheck_visits)?;
        for (&i, m) in again.iter().zip(&maps) {
            out[i] = judged(&games[i], m);
        }
    }
    Ok((out, again.len() as u64))
}

/// Whether the KataGo judge reads game `g` a second time, at `recheck_visits`: its
/// one-visit verdict `v` names the other winner (`winner_differs`), or the record's winner
/// by at most [`crate::scoring::MARGIN_TOLERANCE`] (a point from flipping).
pub fn rechecks(g: &GameRow, v: &ScoreVerdict) -> bool {
    let near = v.counted_margin.is_some_and(|m| m.abs() <= crate::scoring::MARGIN_TOLERANCE);
    g.meta.winner.is_some() && (v.check == ScoreCheck::WinnerDiffers || (v.check.is_decided() && near))
}

/// Whether `score_check = "katago"` sends a game with kibo's verdict `check` to KataGo:
/// `undecided` and `winner_differs`, when the record names a winner (without one, no
/// evidence can decide the verdict).
pub fn escalates(g: &GameRow, check: ScoreCheck) -> bool {
    matches!(check, ScoreCheck::Undecided | ScoreCheck::WinnerDiffers) && g.meta.winner.is_some()
}

/// KataGo's analysis engine in a filter run, with what it did.
struct Judge {
    engine: crate::analysis::Katago,
    run: KatagoRun,
}

impl Judge {
    /// The engine of `score_check = "katago"`, started; `None` in the other modes.
    fn start(cfg: &FilterConfig) -> anyhow::Result<Option<Judge>> {
        if cfg.score_check != ScoreCheckMode::Katago {
            return Ok(None);
        }
        let t0 = std::time::Instant::now();
        let settings = cfg.katago.settings();
        let engine = crate::analysis::Katago::start(&settings)?;
        let run = KatagoRun {
            visits: settings.visits,
            recheck_visits: settings.recheck_visits,
            seconds: t0.elapsed().as_secs_f64(),
            ..Default::default()
        };
        Ok(Some(Judge { engine, run }))
    }

    /// Reads the final position of every kept game that carries one (the games
    /// [`escalates`] sends), and replaces its verdict by the count with KataGo's
    /// ownership as the evidence ([`katago_judge`]), counted by kibo; a game whose count
    /// meets a bug in kibo becomes an `internal_error` reject.
    fn judge(
        &mut self,
        outcomes: &mut [(usize, Option<&'static str>, Vec<Outcome>)],
        sources: &[Source],
        cfg: &FilterConfig,
        report: &mut FilterReport,
    ) -> anyhow::Result<()> {
        let t0 = std::time::Instant::now();
        // The games sent: where each is in `outcomes`, with its final position.
        let mut sent: Vec<(usize, usize, Box<crate::engine::Board>)> = Vec::new();
        for (k, (_, _, outs)) in outcomes.iter_mut().enumerate() {
            for (i, o) in outs.iter_mut().enumerate() {
                if let Outcome::Kept(_, _, _, end) = o {
                    if let Some(b) = end.take() {
                        sent.push((k, i, b));
                    }
                }
            }
        }
        if sent.is_empty() {
            return Ok(());
        }
        let games: Vec<(&GameRow, &crate::engine::Board)> = sent
            .iter()
            .map(|(k, i, b)| match &outcomes[*k].2[*i] {
                Outcome::Kept(row, ..) => Some((&**row, &**b)),
                _ => None,
            })
            .collect::<Option<_>>()
            .context("invariant: a game sent to KataGo is kept")?;
        let (judged, rechecked) = katago_judge(&mut self.engine, &games, cfg.komi, self.run.recheck_visits)?;
        self.run.rechecked += rechecked;
        for ((k, i, _), judged) in sent.into_iter().zip(judged) {
            let source = &sources[outcomes[k].0].name;
            let o = &mut outcomes[k].2[i];
            let Outcome::Kept(g, ..) = o else { continue };
            self.run.games += 1;
            let v = match judged {
                Ok((v, _)) => v,
                Err(e) => {
                    *o = Outcome::Rejected(reject_of(g, Reject::InternalError, format!("{e:#}")));
                    continue;
                }
            };
            let before = g.score.as_ref().map_or("none", |s| s.check.as_str());
            let key = format!("{before} -> {}", v.check.as_str());
            for c in [report.by_source.get_mut(source), Some(&mut report.total)].into_iter().flatten() {
                *c.katago_verdicts.entry(key.clone()).or_default() += 1;
            }
            g.score = Some(v);
        }
        self.run.seconds += t0.elapsed().as_secs_f64();
        Ok(())
    }
}

/// What KataGo reads of game `g`: its final position `b`, with the rules and komi kibo
/// counts it under.
fn position<'a>(
    g: &GameRow,
    b: &'a crate::engine::Board,
    name: &'a str,
    komi_override: Option<f32>,
) -> crate::analysis::Position<'a> {
    let komi = komi_override.or(g.meta.komi).unwrap_or_else(|| crate::scoring::default_komi(g.effective_handicap()));
    crate::analysis::Position {
        game: name,
        board: b,
        rules: crate::scoring::RuleSet::from_ru(g.meta.rules.as_deref()),
        komi,
    }
}

/// A game as messages name it: its file, member and index in the file.
fn game_name(g: &GameRow) -> String {
    let member = g.member.as_deref().map(|m| format!(":{m}")).unwrap_or_default();
    format!("{}{member} (game {})", g.source_file, g.game_index)
}

/// A kept game whose verdict `filter.drop_score_disagreements` drops becomes its reject
/// (`score_winner_differs`, `score_margin_differs`, `score_undecided`); any other outcome
/// is returned as it is.
fn drop_by_score(o: Outcome, cfg: &FilterConfig) -> Outcome {
    let Outcome::Kept(row, ..) = &o else { return o };
    let Some(v) = row.score.as_ref().filter(|v| cfg.drop_score_disagreements.drops(v.check)) else { return o };
    let counted = v.counted_margin.map(crate::scoring::count::result_text).unwrap_or_default();
    let detail = format!("counted {counted} against RE[{}]", row.meta.result_raw.as_deref().unwrap_or(""));
    let reason = match v.check {
        ScoreCheck::MarginDiffers => Reject::ScoreMarginDiffers,
        ScoreCheck::WinnerDiffers => Reject::ScoreWinnerDiffers,
        _ => Reject::ScoreUndecided,
    };
    Outcome::Rejected(reject_of(row, reason, detail))
}

/// The reject of kept game `row` for `reason`, with `detail`.
fn reject_of(row: &GameRow, reason: Reject, detail: String) -> RejectRow {
    RejectRow {
        reason,
        source: row.source.clone(),
        source_file: row.source_file.clone(),
        member: row.member.clone(),
        game_index: Some(row.game_index),
        byte_offset: Some(row.byte_offset),
        detail,
        move_number: None,
        game_id: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Board, Color};

    /// An empty board but for Black's wall across row `row`: Black's whole board.
    fn wall(row: usize) -> Board {
        let mut b = Board::new();
        for c in 0..19 {
            b.set_stone(Point::new(row, c).expect("on the board"), 1).expect("an empty point");
        }
        b
    }

    #[test]
    fn a_judgement_of_another_board_is_an_error_naming_the_game_never_a_verdict() {
        let rec = crate::sgf::read_games(b"(;GM[1]SZ[19]KM[6.5]RE[W+0.5];B[dd];W[pp])").games.remove(0);
        let row = GameRow::from_record(&rec.expect("the game reads"), "t", "t.sgf", None, &[]);
        let b = wall(3);
        // Its own judgement: the count names Black against RE[W+0.5], and the flip is weighed.
        let j = crate::scoring::judge(&b, None, Color::White);
        let v = verdict_of(&row, &b, &j, None, ScoreJudge::Kibo).expect("the board's own judgement");
        assert!(v.counted_margin.is_some_and(|m| m > 2.0), "{v:?}");
        // A judgement of another board (one chain there too, another one): an error that
        // names the game, not an `undecided` verdict.
        let other = crate::scoring::judge(&wall(4), None, Color::White);
        let e = verdict_of(&row, &b, &other, None, ScoreJudge::Kibo).expect_err("a mismatch");
        let e = format!("{e:#}");
        assert!(e.starts_with("t.sgf (game 0): the judgement does not match the board"), "{e}");
    }
}
