/*!
`kibo label --out DIR`: KataGo's reading of chosen positions of the samples table, as
the table `DIR/labels/` (docs/labels.md; columns in docs/schema.md, "`labels`").

1. **The draw** ([`crate::stages::draw`]): the rows `kibo export vlm` draws with the same
   seed, limit and tags (train and val by default; `--splits` adds test), or every row.
2. **Chunks.** The drawn rows, in shard then row order, are cut into chunks of
   [`LabelOptions::chunk_rows`]. A chunk's rows are grouped by game; each game's
   positions go to the engine in one query (setup, moves up to the last position asked
   for, rules, komi, `analyzeTurns`), every query of the chunk in flight at once
   ([`crate::analysis::Katago::read_turns`]). A position whose history KataGo cannot be
   shown (a setup in mid-game, a colour that moved twice, a move its rules refuse) is
   sent as its stones alone (`sent = "board"`).
3. **Commit and resume.** Each finished chunk is written at once, atomically, into the
   chunk store `DIR/.tmp-label-chunks/` under a name made of its number and a digest of
   its rows and of the engine's [`Fingerprint`] (every setting that changes a row). A
   rerun finds the chunks already written and skips them (after kill -9, it goes on
   where the last committed chunk ended), and takes every row it can from the existing
   labels and the chunk store whose fingerprint is the same (a larger `--limit` labels
   only the new rows); a reused row is the same value the engine gives again (`nnRandomize =
   false`, `wideRootNoise = 0`, one search thread a position), so the files are the same as an uninterrupted
   run's. At the end the chunks become `DIR/labels/part-NNNNN.parquet` (the folder
   swapped in whole), then `manifest.json`, `report.json` and the dataset card follow.
*/

pub mod table;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use arrow_array::types::{UInt16Type, UInt8Type};
use serde_json::json;

use crate::analysis::label::{Answer, Ask, Engines, GameQuery};
use crate::analysis::{Katago, KatagoSettings};
use crate::coord::{Move, Point, NN};
use crate::engine::Color;
use crate::features::katago::KataRules;
use crate::game::GameRow;
use crate::stages::draw::{self, Draw};
use crate::tables::games_from_batch;
use table::{Col, Label, Sent};

/// Moves kept in `engine_top`.
pub const TOP: usize = 8;

/// The chunk store's folder under the output folder.
pub const STORE: &str = ".tmp-label-chunks";

/// Options of `kibo label`.
#[derive(Clone, Debug)]
pub struct LabelOptions {
    /// The splits to draw from (names of [`draw::ALL_SPLITS`]).
    pub splits: Vec<String>,
    /// Rows to label (0: every row of the splits).
    pub limit: u64,
    /// Seed of the draw.
    pub seed: u64,
    /// Keep only rows whose move has one of these tags.
    pub tags: Vec<String>,
    /// Write KataGo's raw policy (`policy`).
    pub policy: bool,
    /// Write KataGo's ownership (`ownership`).
    pub ownership: bool,
    /// The engine.
    pub katago: KatagoSettings,
    /// Engines run at once, each reading one position at a time (`[label.katago]
    /// threads`, `--katago-threads`).
    pub engines: usize,
    /// Rows a chunk (the unit of commit).
    pub chunk_rows: usize,
    /// No progress bar.
    pub quiet: bool,
    /// `kibo part label`: this part of `parts` labels the chunks `k` with
    /// `k % parts == part` into the chunk store and installs nothing (a later `kibo label`
    /// finds them all and installs).
    pub part: Option<(usize, usize)>,
}

/// What a run did (`report.json` → `label`).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct LabelReport {
    /// Rows the draw saw (the splits' rows with the tags).
    pub candidates: u64,
    /// Rows labelled (the table's rows).
    pub rows: u64,
    /// Rows taken from the existing labels or an interrupted run's chunks.
    pub reused: u64,
    /// Rows read by the engine in this run.
    pub read: u64,
    /// Of those, positions sent as their stones alone.
    pub sent_board: u64,
    /// Queries sent (one a game a chunk, plus one a position sent alone).
    pub queries: u64,
    /// Queries the engine refused (then sent position by position).
    pub refused: u64,
    /// Chunks (files).
    pub chunks: u64,
    /// Seconds spent waiting for the engine.
    pub engine_seconds: f64,
}

/// Every setting that changes a label row: a stored row is reused only under the same
/// fingerprint (its JSON text, [`Fingerprint::key`], is each chunk file's
/// `kibo.labels_engine`), and the manifest records it (`labels.engine`). A setting added
/// to the stage that changes what a row holds is a field here.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Fingerprint {
    /// The table's columns ([`table::LABELS_VERSION`]).
    pub labels_version: String,
    /// The KataGo binary's BLAKE3.
    pub binary_blake3: String,
    /// The net's file name (recorded; a renamed net is read again).
    pub model: String,
    /// The net's BLAKE3.
    pub model_blake3: String,
    /// The analysis config's file name (recorded; a renamed config is read again).
    pub config: String,
    /// The analysis config's BLAKE3.
    pub config_blake3: String,
    /// Visits per position (`maxVisits`).
    pub visits: u32,
    /// The engine's `-override-config` ([`Katago::overrides`] of [`Engines::settings`]:
    /// no randomness, one analysis and one search thread).
    pub overrides: Vec<String>,
    /// The `policy` column written.
    pub policy: bool,
    /// The `ownership` column written (and asked of the engine).
    pub ownership: bool,
    /// Moves kept in `engine_top` ([`TOP`]).
    pub top: usize,
}

impl Fingerprint {
    /// The fingerprint of `opt`'s run: the engine's files hashed, its settings as
    /// [`Engines::settings`] makes them.
    pub fn of(opt: &LabelOptions) -> anyhow::Result<Fingerprint> {
        let k = Engines::settings(&opt.katago);
        let hash = |p: &Path| crate::storage::file_blake3(p).with_context(|| format!("reading {}", p.display()));
        let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        Ok(Fingerprint {
            labels_version: table::LABELS_VERSION.to_string(),
            binary_blake3: hash(&k.binary)?,
            model: name(&k.model),
            model_blake3: hash(&k.model)?,
            config: name(&k.config),
            config_blake3: hash(&k.config)?,
            visits: k.visits,
            overrides: Katago::overrides(&k),
            policy: opt.policy,
            ownership: opt.ownership,
            top: TOP,
        })
    }

    /// The text stored rows are matched by.
    pub fn key(&self) -> String {
        serde_json::to_string(self).expect("invariant: a struct of strings, numbers and flags")
    }
}

/// One drawn row, as the chunk needs it.
#[derive(Clone, Debug)]
struct Row {
    game_id: String,
    move_number: u16,
    split: String,
    board: Vec<u8>,
    to_play: u8,
}

/// The canonical order of the asked splits (train, val, test), refused when unknown.
pub fn split_names(splits: &[String]) -> anyhow::Result<Vec<&'static str>> {
    for s in splits {
        anyhow::ensure!(draw::ALL_SPLITS.contains(&s.as_str()), "--splits: {s:?} is not train, val or test");
    }
    Ok(draw::ALL_SPLITS.iter().copied().filter(|n| splits.iter().any(|s| s == n)).collect())
}

/// Runs the stage (see the module docs).
pub fn run(out: &Path, opt: &LabelOptions) -> anyhow::Result<LabelReport> {
    let splits = split_names(&opt.splits)?;
    // Each engine reads one position at a time, with one search thread.
    let settings = Engines::settings(&opt.katago);
    let fp = Fingerprint::of(opt)?;
    let fp_text = fp.key();
    let d = Draw { splits: &splits, seed: opt.seed, limit: opt.limit, tags: &opt.tags };
    let (kept, candidates) = draw::choose(out, &d)?;
    let total = kept.as_ref().map_or(candidates, |v| v.len() as u64);
    let games = read_games(out)?;
    let store = out.join(STORE);
    std::fs::create_dir_all(&store).with_context(|| format!("creating {}", store.display()))?;
    let mut old = Reuse::open(out, &store, &fp_text)?;
    let mut engine: Option<Engines> = None;
    let mut rep = LabelReport { candidates, ..LabelReport::default() };
    let schema = table::schema(opt.policy, opt.ownership);
    let bar = crate::progress::Progress::new("label", "positions", Some(total), opt.quiet);
    let mut files: Vec<PathBuf> = Vec::new();
    let mut chunk: Vec<Row> = Vec::with_capacity(opt.chunk_rows.min(1 << 16));
    let mut flush = |chunk: &mut Vec<Row>, rep: &mut LabelReport| -> anyhow::Result<()> {
        let k = files.len();
        let name = chunk_name(k, &fp_text, chunk);
        let path = store.join(&name);
        let mine = opt.part.is_none_or(|(p, n)| k % n.max(1) == p);
        if mine && path.is_file() {
            rep.reused += chunk.len() as u64;
        } else if mine {
            let labels = label_chunk(chunk, &games, &mut old, &mut engine, &settings, opt, rep)?;
            let b = table::batch(&labels, &schema)?;
            write_chunk(&path, &b, &fp_text)?;
        }
        rep.rows += chunk.len() as u64;
        bar.add(chunk.len() as u64);
        files.push(path);
        rep.chunks += 1;
        chunk.clear();
        Ok(())
    };
    draw::for_each_kept(out, &d, &kept, &["game_id", "move_number", "board", "to_play"], |s, c, rows| {
        let (id, mn) = (c.str("game_id")?, c.prim::<UInt16Type>("move_number")?);
        let (board, to_play) = (c.binary("board")?, c.prim::<UInt8Type>("to_play")?);
        for &i in rows {
            chunk.push(Row {
                game_id: id.value(i).to_string(),
                move_number: mn.value(i),
                split: splits[s].to_string(),
                board: board.value(i).to_vec(),
                to_play: to_play.value(i),
            });
            if chunk.len() == opt.chunk_rows {
                flush(&mut chunk, &mut rep)?;
            }
        }
        Ok(())
    })?;
    if !chunk.is_empty() || rep.chunks == 0 {
        flush(&mut chunk, &mut rep)?;
    }
    bar.finish();
    drop(engine);
    if opt.part.is_some() {
        return Ok(rep);
    }
    let named: Vec<(PathBuf, String)> =
        files.iter().enumerate().map(|(i, p)| (p.clone(), format!("part-{i:05}.parquet"))).collect();
    drop(old);
    let shards = crate::storage::install_table(out, "labels", &named)?;
    std::fs::remove_dir_all(&store).with_context(|| format!("removing {}", store.display()))?;
    record(out, opt, &splits, &fp, &rep, &shards)?;
    Ok(rep)
}

/// The chunk file's name: its number and a digest of the engine and its rows.
fn chunk_name(k: usize, fp: &str, rows: &[Row]) -> String {
    let mut h = blake3::Hasher::new();
    h.update(fp.as_bytes());
    for r in rows {
        h.update(r.game_id.as_bytes());
        h.update(&r.move_number.to_le_bytes());
        h.update(r.split.as_bytes());
    }
    format!("chunk-{k:05}-{}.parquet", &h.finalize().to_hex()[..16])
}

/// Writes one chunk file atomically (`storage::write_file_atomic`), with the fingerprint
/// in its metadata.
fn write_chunk(path: &Path, b: &arrow_array::RecordBatch, fp: &str) -> anyhow::Result<()> {
    let extra = vec![
        parquet::file::metadata::KeyValue::new("kibo.labels_version".into(), table::LABELS_VERSION.to_string()),
        parquet::file::metadata::KeyValue::new("kibo.labels_engine".into(), fp.to_string()),
    ];
    let props = crate::storage::writer_properties_with(&crate::storage::TableOptions::default(), "labels", extra)?;
    crate::storage::write_file_atomic(path, |f| {
        let mut w = parquet::arrow::ArrowWriter::try_new(f, b.schema(), Some(props)).map_err(std::io::Error::other)?;
        w.write(b).map_err(std::io::Error::other)?;
        w.into_inner().map_err(std::io::Error::other).map(|_| ())
    })?;
    Ok(())
}

/// Every game of the games table by id (a game filed twice: its first copy).
fn read_games(out: &Path) -> anyhow::Result<HashMap<String, GameRow>> {
    let mut games = HashMap::new();
    crate::storage::read_table(out, "games", |b| {
        for g in games_from_batch(&b)? {
            games.entry(g.game_id.to_hex()).or_insert(g);
        }
        Ok(())
    })?;
    Ok(games)
}

/// The rows a rerun can take instead of asking the engine: those of the existing labels
/// and of the chunk store whose files carry the same [`Fingerprint`], found by
/// `(game_id, move_number)`: a reading depends on the position and the engine, not on
/// the split, so a reused row takes the split of the row it labels now. The file last
/// read is kept decoded.
struct Reuse {
    files: Vec<PathBuf>,
    index: HashMap<(String, u16), (usize, usize)>,
    cached: Option<(usize, Vec<Label>)>,
}

impl Reuse {
    fn open(out: &Path, store: &Path, fp: &str) -> anyhow::Result<Reuse> {
        let mut r = Reuse { files: Vec::new(), index: HashMap::new(), cached: None };
        for dir in [out.join("labels"), store.to_path_buf()] {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            let mut paths: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
                .collect();
            paths.sort();
            for p in paths {
                if engine_of(&p).as_deref() != Some(fp) {
                    continue;
                }
                let f = r.files.len();
                let mut row = 0usize;
                table::read(&p, Some(&[Col::GameId, Col::MoveNumber]), |v| {
                    for i in 0..v.len() {
                        r.index.entry((v.game_id(i).to_string(), v.move_number(i))).or_insert((f, row + i));
                    }
                    row += v.len();
                    Ok(())
                })?;
                r.files.push(p);
            }
        }
        Ok(r)
    }

    /// The stored label of `row`, if any.
    fn get(&mut self, row: &Row) -> anyhow::Result<Option<Label>> {
        let Some(&(f, i)) = self.index.get(&(row.game_id.clone(), row.move_number)) else { return Ok(None) };
        if self.cached.as_ref().is_none_or(|(c, _)| *c != f) {
            let mut rows = Vec::new();
            table::read(&self.files[f], None, |v| {
                rows.extend(v.labels()?);
                Ok(())
            })?;
            self.cached = Some((f, rows));
        }
        let rows = &self.cached.as_ref().expect("invariant: just read").1;
        Ok(rows.get(i).map(|l| Label { split: row.split.clone(), ..l.clone() }))
    }
}

/// The engine fingerprint a labels file was written with (none for a file that cannot
/// be read: it is not reused).
fn engine_of(p: &Path) -> Option<String> {
    table::file_key(p, table::ENGINE_KEY).ok().flatten()
}

/// The labels of one chunk's rows, in order: reused where stored, else read by the
/// engine (started on first need).
fn label_chunk(
    rows: &[Row],
    games: &HashMap<String, GameRow>,
    old: &mut Reuse,
    engine: &mut Option<Engines>,
    settings: &KatagoSettings,
    opt: &LabelOptions,
    rep: &mut LabelReport,
) -> anyhow::Result<Vec<Label>> {
    let mut out: Vec<Option<Label>> = Vec::with_capacity(rows.len());
    for r in rows {
        out.push(old.get(r)?);
    }
    let todo: Vec<usize> = (0..rows.len()).filter(|&i| out[i].is_none()).collect();
    rep.reused += (rows.len() - todo.len()) as u64;
    if todo.is_empty() {
        return every_row(rows, out);
    }
    let (queries, owners, kinds) = queries_of(rows, &todo, games)?;
    let ask = Ask { visits: settings.visits, ownership: opt.ownership, top: TOP };
    if engine.is_none() {
        *engine = Some(Engines::start(settings, opt.engines)?);
    }
    let k = engine.as_mut().expect("invariant: started");
    let t0 = std::time::Instant::now();
    let answers = k.read_turns(&queries, &ask)?;
    rep.queries += queries.len() as u64;
    let mut alone: Vec<usize> = Vec::new();
    for ((turn_rows, sent), a) in owners.iter().zip(&kinds).zip(answers) {
        match a {
            Answer::Read(readings) => {
                for (same, reading) in turn_rows.iter().zip(readings) {
                    let Some((&last, others)) = same.split_last() else { continue };
                    for &i in others {
                        out[i] = Some(to_label(&rows[i], *sent, reading.clone(), opt));
                    }
                    out[last] = Some(to_label(&rows[last], *sent, reading, opt));
                }
            }
            Answer::Refused(_) => {
                rep.refused += 1;
                alone.extend(turn_rows.iter().flatten().copied());
            }
        }
    }
    if !alone.is_empty() {
        let qs: Vec<GameQuery> = alone.iter().map(|&i| board_query(&rows[i], games)).collect::<anyhow::Result<_>>()?;
        rep.queries += qs.len() as u64;
        for ((q, &i), a) in qs.iter().zip(&alone).zip(k.read_turns(&qs, &ask)?) {
            match a {
                Answer::Read(mut r) => out[i] = Some(to_label(&rows[i], Sent::Board, r.remove(0), opt)),
                Answer::Refused(why) => anyhow::bail!("KataGo refused {}: {why}", q.name),
            }
        }
    }
    rep.engine_seconds += t0.elapsed().as_secs_f64();
    rep.read += todo.len() as u64;
    rep.sent_board += todo.iter().filter(|&&i| out[i].as_ref().is_some_and(|l| l.sent == Sent::Board)).count() as u64;
    every_row(rows, out)
}

/// The chunk's labels, one a row; a row left without one is an error naming it.
fn every_row(rows: &[Row], out: Vec<Option<Label>>) -> anyhow::Result<Vec<Label>> {
    rows.iter()
        .zip(out)
        .map(|(r, l)| l.with_context(|| format!("game {} move {} was not labelled", r.game_id, r.move_number)))
        .collect()
}

/// Row `r`'s label from KataGo's reading (a root value the reading lacks stays `None`).
fn to_label(r: &Row, sent: Sent, x: crate::analysis::label::Reading, opt: &LabelOptions) -> Label {
    Label {
        game_id: r.game_id.clone(),
        move_number: r.move_number,
        split: r.split.clone(),
        sent,
        winrate_black: x.winrate_black,
        score_lead_black: x.score_lead_black,
        score_stdev: x.score_stdev,
        visits: x.visits,
        top: x.top,
        policy: opt.policy.then_some(x.policy),
        ownership: if opt.ownership { x.ownership.map(|o| o.into_iter().map(table::quantise).collect()) } else { None },
    }
}

fn color_of(to_play: u8) -> Color {
    if to_play == 2 {
        Color::White
    } else {
        Color::Black
    }
}

/// The game of a row, and the rules and komi it is read under.
fn game_of<'a>(r: &Row, games: &'a HashMap<String, GameRow>) -> anyhow::Result<(&'a GameRow, &'static str, f32)> {
    let g = games.get(&r.game_id).with_context(|| format!("sample of unknown game {}", r.game_id))?;
    let rules = KataRules::from_ru(g.meta.rules.as_deref()).name;
    let komi = g.meta.komi.unwrap_or_else(|| crate::scoring::default_komi(g.effective_handicap()));
    Ok((g, rules, komi))
}

/// What errors call a game's positions.
fn name_of(g: &GameRow, moves: &[u16]) -> String {
    let file = match &g.member {
        Some(m) => format!("{}!{m}", g.source_file),
        None => g.source_file.clone(),
    };
    let list: Vec<String> = moves.iter().map(u16::to_string).collect();
    format!("{file} (game {}, {}, move {})", g.game_index, g.game_id.to_hex(), list.join(", "))
}

/// The query of one row's stones alone, its side to move first.
fn board_query(r: &Row, games: &HashMap<String, GameRow>) -> anyhow::Result<GameQuery> {
    let (g, rules, komi) = game_of(r, games)?;
    let mut setup = Vec::new();
    for (i, &c) in r.board.iter().enumerate().take(NN) {
        if c == 1 || c == 2 {
            setup.push((color_of(c), Point::from_index(i as u16).expect("invariant: < 361")));
        }
    }
    Ok(GameQuery {
        name: name_of(g, &[r.move_number]),
        rules,
        komi,
        setup,
        first_player: color_of(r.to_play),
        moves: Vec::new(),
        turns: vec![0],
    })
}

/// Can row `r` (move `t + 1` of `g`) be shown as the game's history up to it? Not after a
/// setup met in mid-game, and not when KataGo would give the move to the other colour.
fn history_fits(g: &GameRow, t: usize, to_play: u8) -> bool {
    if t >= g.moves.len() || g.mid_setup.iter().any(|m| (m.before_move as usize) <= t) {
        return false;
    }
    let next = match t {
        0 => first_color(g),
        _ => g.moves[t - 1].color.opponent(),
    };
    next == color_of(to_play) && g.moves[t].color == next
}

/// Who KataGo is told plays first.
fn first_color(g: &GameRow) -> Color {
    g.moves.first().map(|m| m.color).or(g.first_player).unwrap_or(Color::Black)
}

/// A chunk's queries, the rows each answers (per turn, in its turns' order: every row
/// of that position) and how each shows its positions.
type Planned = (Vec<GameQuery>, Vec<Vec<Vec<usize>>>, Vec<Sent>);

/// The chunk's queries for rows `todo` (one a game, and one a position that cannot be
/// shown with its history), with the rows each answers, per turn in its turns' order
/// (rows of the same position share its turn).
fn queries_of(rows: &[Row], todo: &[usize], games: &HashMap<String, GameRow>) -> anyhow::Result<Planned> {
    let mut queries = Vec::new();
    let mut owners: Vec<Vec<Vec<usize>>> = Vec::new();
    let mut kinds = Vec::new();
    let mut at = 0;
    while at < todo.len() {
        let id = &rows[todo[at]].game_id;
        let end = todo[at..].iter().position(|&i| rows[i].game_id != *id).map_or(todo.len(), |n| at + n);
        let (g, rules, komi) = game_of(&rows[todo[at]], games)?;
        let mut fits: Vec<(u32, usize)> = Vec::new();
        for &i in &todo[at..end] {
            match rows[i].move_number.checked_sub(1).map(usize::from) {
                Some(t) if history_fits(g, t, rows[i].to_play) => fits.push((t as u32, i)),
                _ => {
                    queries.push(board_query(&rows[i], games)?);
                    owners.push(vec![vec![i]]);
                    kinds.push(Sent::Board);
                }
            }
        }
        fits.sort_unstable();
        let groups: Vec<&[(u32, usize)]> = fits.chunk_by(|a, b| a.0 == b.0).collect();
        let turns: Vec<u32> = groups.iter().map(|g| g[0].0).collect();
        if let Some(&last) = turns.last() {
            let mut setup: Vec<(Color, Point)> = g.setup_black.iter().map(|&p| (Color::Black, p)).collect();
            setup.extend(g.setup_white.iter().map(|&p| (Color::White, p)));
            let numbers: Vec<u16> = turns.iter().map(|&t| t as u16 + 1).collect();
            queries.push(GameQuery {
                name: name_of(g, &numbers),
                rules,
                komi,
                setup,
                first_player: first_color(g),
                moves: g.moves[..last as usize].iter().map(|m| (m.color, m.mv)).collect::<Vec<(Color, Move)>>(),
                turns,
            });
            owners.push(groups.iter().map(|g| g.iter().map(|f| f.1).collect()).collect());
            kinds.push(Sent::History);
        }
        at = end;
    }
    Ok((queries, owners, kinds))
}

/// The fingerprint with the engine's paths, for the manifest.
fn engine_record(fp: &Fingerprint, k: &KatagoSettings) -> anyhow::Result<serde_json::Value> {
    let mut v = serde_json::to_value(fp)?;
    v["binary"] = json!(k.binary.to_string_lossy());
    v["model_path"] = json!(k.model.to_string_lossy());
    v["config_path"] = json!(k.config.to_string_lossy());
    Ok(v)
}

/// Records the run in `manifest.json` (`labels`: version, draw, engine, shards) and
/// `report.json` (`label`), and rewrites the dataset card.
fn record(
    out: &Path,
    opt: &LabelOptions,
    splits: &[&str],
    fp: &Fingerprint,
    rep: &LabelReport,
    shards: &[crate::storage::ShardInfo],
) -> anyhow::Result<()> {
    let labels = json!({
        "version": table::LABELS_VERSION,
        "rows": rep.rows,
        "draw": {"splits": splits, "seed": opt.seed, "limit": opt.limit, "tags": opt.tags},
        "engine": engine_record(fp, &opt.katago)?,
    });
    crate::stages::report::write_labels(out, &labels, shards, &serde_json::to_value(rep)?)?;
    if out.join("report.json").is_file() && out.join("manifest.json").is_file() {
        crate::stages::card::write(out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Fingerprint {
        Fingerprint {
            labels_version: table::LABELS_VERSION.into(),
            binary_blake3: "b".into(),
            model: "net.bin.gz".into(),
            model_blake3: "m".into(),
            config: "analysis.cfg".into(),
            config_blake3: "c".into(),
            visits: 1,
            overrides: vec!["nnRandomize=false".into()],
            policy: false,
            ownership: false,
            top: TOP,
        }
    }

    #[test]
    fn a_changed_setting_is_not_reused() {
        // Naming every field (no `..`): a field added to the fingerprint fails to compile
        // here until it has its line below.
        let Fingerprint {
            labels_version: _,
            binary_blake3: _,
            model: _,
            model_blake3: _,
            config: _,
            config_blake3: _,
            visits: _,
            overrides: _,
            policy: _,
            ownership: _,
            top: _,
        } = base();
        let changed: Vec<(&str, Fingerprint)> = vec![
            ("labels_version", Fingerprint { labels_version: "0".into(), ..base() }),
            ("binary_blake3", Fingerprint { binary_blake3: "b2".into(), ..base() }),
            ("model", Fingerprint { model: "other.bin.gz".into(), ..base() }),
            ("model_blake3", Fingerprint { model_blake3: "m2".into(), ..base() }),
            ("config", Fingerprint { config: "other.cfg".into(), ..base() }),
            ("config_blake3", Fingerprint { config_blake3: "c2".into(), ..base() }),
            ("visits", Fingerprint { visits: 2, ..base() }),
            ("overrides", Fingerprint { overrides: vec!["nnRandomize=true".into()], ..base() }),
            ("policy", Fingerprint { policy: true, ..base() }),
            ("ownership", Fingerprint { ownership: true, ..base() }),
            ("top", Fingerprint { top: TOP + 1, ..base() }),
        ];
        assert_eq!(changed.len(), serde_json::to_value(base()).unwrap().as_object().unwrap().len(), "every field");
        // A stored chunk is found under its own fingerprint and under no changed one.
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join(STORE);
        std::fs::create_dir(&store).unwrap();
        let row = Row { game_id: "ab".into(), move_number: 3, split: "train".into(), board: vec![0; NN], to_play: 1 };
        let label = Label {
            game_id: "ab".into(),
            move_number: 3,
            split: "train".into(),
            sent: Sent::History,
            winrate_black: Some(0.5),
            score_lead_black: Some(1.0),
            score_stdev: Some(2.0),
            visits: Some(1),
            top: vec![],
            policy: None,
            ownership: None,
        };
        let b = table::batch(std::slice::from_ref(&label), &table::schema(false, false)).unwrap();
        write_chunk(&store.join("chunk-00000-x.parquet"), &b, &base().key()).unwrap();
        let mut same = Reuse::open(dir.path(), &store, &base().key()).unwrap();
        assert_eq!(
            same.get(&Row { split: "val".into(), ..row.clone() }).unwrap(),
            Some(Label { split: "val".into(), ..label })
        );
        for (field, fp) in changed {
            assert_ne!(fp.key(), base().key(), "{field}");
            let mut other = Reuse::open(dir.path(), &store, &fp.key()).unwrap();
            assert_eq!(other.get(&row).unwrap(), None, "{field} changed: the stored row is not reused");
        }
    }

    fn game() -> (GameRow, HashMap<String, GameRow>) {
        let sgf = "(;GM[1]FF[4]SZ[19]KM[6.5]RU[Japanese];B[pd];W[dp];B[pp];W[dd])";
        let g = crate::sgf::read_games(sgf.as_bytes()).games.remove(0).expect("the game reads");
        let g = GameRow::from_record(&g, "t", "t.sgf", None, &[]);
        let games = HashMap::from([(g.game_id.to_hex(), g.clone())]);
        (g, games)
    }

    fn row(g: &GameRow, move_number: u16, to_play: u8) -> Row {
        Row { game_id: g.game_id.to_hex(), move_number, split: "train".into(), board: vec![0; NN], to_play }
    }

    #[test]
    fn a_move_number_0_is_sent_as_its_board_without_a_panic() {
        let (g, games) = game();
        let rows = vec![row(&g, 0, 1), row(&g, 2, 2)];
        let (queries, owners, kinds) = queries_of(&rows, &[0, 1], &games).unwrap();
        assert_eq!(kinds, vec![Sent::Board, Sent::History]);
        assert_eq!(owners, vec![vec![vec![0]], vec![vec![1]]]);
        assert_eq!(queries[1].turns, vec![1]);
    }

    #[test]
    fn rows_of_the_same_position_are_all_labelled() {
        let (g, games) = game();
        let rows = vec![row(&g, 3, 1), row(&g, 2, 2), row(&g, 3, 1)];
        let (queries, owners, kinds) = queries_of(&rows, &[0, 1, 2], &games).unwrap();
        assert_eq!(kinds, vec![Sent::History]);
        assert_eq!(queries[0].turns, vec![1, 2], "each position asked once");
        assert_eq!(owners, vec![vec![vec![1], vec![0, 2]]], "both rows of move 3 take its reading");
        // A row left without a label is an error naming it, not a panic.
        let e = every_row(&rows, vec![None, None, None]).unwrap_err();
        assert!(format!("{e:#}").contains(&format!("game {} move 3 was not labelled", g.game_id.to_hex())), "{e:#}");
    }
}
