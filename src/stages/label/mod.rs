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
   its rows and of the engine's fingerprint (binary, net, config, visits, overrides,
   columns asked for). A rerun finds the chunks already written and skips them (after
   kill -9, it goes on where the last committed chunk ended), and takes every row it
   can from the existing labels and the chunk store (a larger `--limit` labels only the
   new rows); a reused row is the same value the engine gives again (`nnRandomize =
   false`, `wideRootNoise = 0`, one search thread a position), so the files are the same as an uninterrupted
   run's. At the end the chunks become `DIR/labels/part-NNNNN.parquet` (the folder
   swapped in whole), then `manifest.json`, `report.json` and the dataset card follow.
*/

pub mod table;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use arrow_array::types::{UInt16Type, UInt8Type};
use serde_json::{json, Value};

use crate::analysis::label::{Answer, Ask, Engines, GameQuery};
use crate::analysis::{Katago, KatagoSettings};
use crate::coord::{Move, Point, NN};
use crate::engine::Color;
use crate::features::katago::KataRules;
use crate::game::GameRow;
use crate::stages::draw::{self, Draw, KeptFilter};
use crate::tables::{games_from_batch, Cols};
use table::{Label, Sent};

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

/// The engine's fingerprint: what must match for a stored row to be reused, and what the
/// manifest records.
pub fn fingerprint(opt: &LabelOptions) -> anyhow::Result<Value> {
    let k = &opt.katago;
    let hash = |p: &Path| crate::storage::file_blake3(p).with_context(|| format!("reading {}", p.display()));
    let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    Ok(json!({
        "labels_version": table::LABELS_VERSION,
        "binary_blake3": hash(&k.binary)?,
        "model": name(&k.model),
        "model_blake3": hash(&k.model)?,
        "config": name(&k.config),
        "config_blake3": hash(&k.config)?,
        "visits": k.visits,
        "overrides": Katago::overrides(k),
        "policy": opt.policy,
        "ownership": opt.ownership,
        "top": TOP,
    }))
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
    let fp = fingerprint(&LabelOptions { katago: settings.clone(), ..opt.clone() })?;
    let fp_text = fp.to_string();
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
    let mut filter = KeptFilter::new(&kept, &opt.tags);
    for (k, (s, shard)) in draw::shards(out, &splits)?.iter().enumerate() {
        let mut row = 0u32;
        let cols = ["game_id", "move_number", "board", "to_play", "tags"];
        crate::storage::read_parquet_columns(shard, true, Some(&cols), |b| {
            let c = Cols::new(&b, "samples");
            let (id, mn) = (c.str("game_id")?, c.prim::<UInt16Type>("move_number")?);
            let (board, to_play) = (c.binary("board")?, c.prim::<UInt8Type>("to_play")?);
            for i in 0..b.num_rows() {
                let r = row + i as u32;
                if !filter.wanted(k as u32, r, &c, i)? {
                    continue;
                }
                chunk.push(Row {
                    game_id: id.value(i).to_string(),
                    move_number: mn.value(i),
                    split: splits[*s].to_string(),
                    board: board.value(i).to_vec(),
                    to_play: to_play.value(i),
                });
                if chunk.len() == opt.chunk_rows {
                    flush(&mut chunk, &mut rep)?;
                }
            }
            row += b.num_rows() as u32;
            Ok(())
        })
        .with_context(|| format!("reading {}", shard.display()))?;
    }
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
/// and of the chunk store whose files carry the same engine fingerprint, found by
/// `(game_id, move_number, split)`; the file last read is kept decoded.
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
                crate::storage::read_parquet_columns(&p, true, Some(&["game_id", "move_number"]), |b| {
                    let c = Cols::new(&b, "labels");
                    let (id, mn) = (c.str("game_id")?, c.prim::<UInt16Type>("move_number")?);
                    for i in 0..b.num_rows() {
                        r.index.entry((id.value(i).to_string(), mn.value(i))).or_insert((f, row + i));
                    }
                    row += b.num_rows();
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
            crate::storage::read_parquet(&self.files[f], true, |b| {
                rows.extend(table::rows_of(&b)?);
                Ok(())
            })?;
            self.cached = Some((f, rows));
        }
        let rows = &self.cached.as_ref().expect("invariant: just read").1;
        Ok(rows.get(i).map(|l| Label { split: row.split.clone(), ..l.clone() }))
    }
}

/// The engine fingerprint a labels file was written with.
fn engine_of(p: &Path) -> Option<String> {
    let f = std::fs::File::open(p).ok()?;
    let r = parquet::file::reader::SerializedFileReader::new(f).ok()?;
    let kv = parquet::file::reader::FileReader::metadata(&r).file_metadata().key_value_metadata()?.clone();
    kv.into_iter().find(|k| k.key == "kibo.labels_engine").and_then(|k| k.value)
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
        return Ok(out.into_iter().map(|l| l.expect("invariant: all reused")).collect());
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
    for ((rows_of_q, sent), a) in owners.iter().zip(&kinds).zip(answers) {
        match a {
            Answer::Read(readings) => {
                for (&i, reading) in rows_of_q.iter().zip(readings) {
                    out[i] = Some(to_label(&rows[i], *sent, reading, opt));
                }
            }
            Answer::Refused(_) => {
                rep.refused += 1;
                alone.extend(rows_of_q.iter().copied());
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
    Ok(out.into_iter().map(|l| l.expect("invariant: every row labelled")).collect())
}

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

/// A chunk's queries, the rows each answers (in its turns' order) and how each shows
/// its positions.
type Planned = (Vec<GameQuery>, Vec<Vec<usize>>, Vec<Sent>);

/// The chunk's queries for rows `todo` (one a game, and one a position that cannot be
/// shown with its history), with the rows each answers, in its turns' order.
fn queries_of(rows: &[Row], todo: &[usize], games: &HashMap<String, GameRow>) -> anyhow::Result<Planned> {
    let mut queries = Vec::new();
    let mut owners: Vec<Vec<usize>> = Vec::new();
    let mut kinds = Vec::new();
    let mut at = 0;
    while at < todo.len() {
        let id = &rows[todo[at]].game_id;
        let end = todo[at..].iter().position(|&i| rows[i].game_id != *id).map_or(todo.len(), |n| at + n);
        let (g, rules, komi) = game_of(&rows[todo[at]], games)?;
        let mut fits: Vec<(u32, usize)> = Vec::new();
        for &i in &todo[at..end] {
            let t = rows[i].move_number as usize - 1;
            if rows[i].move_number >= 1 && history_fits(g, t, rows[i].to_play) {
                fits.push((t as u32, i));
            } else {
                queries.push(board_query(&rows[i], games)?);
                owners.push(vec![i]);
                kinds.push(Sent::Board);
            }
        }
        fits.sort_unstable();
        fits.dedup_by_key(|f| f.0);
        if let Some(&(last, _)) = fits.last() {
            let mut setup: Vec<(Color, Point)> = g.setup_black.iter().map(|&p| (Color::Black, p)).collect();
            setup.extend(g.setup_white.iter().map(|&p| (Color::White, p)));
            let numbers: Vec<u16> = fits.iter().map(|&(t, _)| t as u16 + 1).collect();
            queries.push(GameQuery {
                name: name_of(g, &numbers),
                rules,
                komi,
                setup,
                first_player: first_color(g),
                moves: g.moves[..last as usize].iter().map(|m| (m.color, m.mv)).collect::<Vec<(Color, Move)>>(),
                turns: fits.iter().map(|f| f.0).collect(),
            });
            owners.push(fits.iter().map(|f| f.1).collect());
            kinds.push(Sent::History);
        }
        at = end;
    }
    Ok((queries, owners, kinds))
}

/// The fingerprint with the engine's paths, for the manifest.
fn engine_record(fp: &Value, k: &KatagoSettings) -> Value {
    let mut v = fp.clone();
    v["binary"] = json!(k.binary.to_string_lossy());
    v["model_path"] = json!(k.model.to_string_lossy());
    v["config_path"] = json!(k.config.to_string_lossy());
    v
}

/// Records the run in `manifest.json` (`labels`: version, draw, engine, shards) and
/// `report.json` (`label`), and rewrites the dataset card.
fn record(
    out: &Path,
    opt: &LabelOptions,
    splits: &[&str],
    fp: &Value,
    rep: &LabelReport,
    shards: &[crate::storage::ShardInfo],
) -> anyhow::Result<()> {
    let labels = json!({
        "version": table::LABELS_VERSION,
        "rows": rep.rows,
        "draw": {"splits": splits, "seed": opt.seed, "limit": opt.limit, "tags": opt.tags},
        "engine": engine_record(fp, &opt.katago),
    });
    crate::stages::report::write_labels(out, &labels, shards, &serde_json::to_value(rep)?)?;
    if out.join("report.json").is_file() && out.join("manifest.json").is_file() {
        crate::stages::card::write(out)?;
    }
    Ok(())
}
