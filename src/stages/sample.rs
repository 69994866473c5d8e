/*!
The sample stage: draw `n` samples at random (seeded) from the shards and write the
eye-check export into `DIR/verify/`.

The draw is deterministic and independent of shard layout and thread count: every row
gets the score `blake3("kibo.sample.v1" ‖ seed ‖ position_hash ‖ game_id ‖ move_number)`
and the `n` rows with the smallest scores are taken, in score order. Filters (split,
tag, rank range) apply before the draw.
*/

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use anyhow::Context;

use arrow_array::types::{Int16Type, UInt16Type, UInt32Type, UInt8Type};
use arrow_array::Array;

use crate::coord::{Move, Point, NN};
use crate::storage::read_table;
use crate::tables::Cols;
use crate::verify::{VerifySample, VlmView};

/// What to draw.
#[derive(Clone, Debug, Default)]
pub struct SampleOptions {
    /// How many samples.
    pub n: usize,
    /// Seed of the draw.
    pub seed: u64,
    /// Only this split (`train`, `val`, `test`).
    pub split: Option<String>,
    /// Only moves carrying this tag.
    pub tag: Option<String>,
    /// Lowest numeric rank of the side to move.
    pub min_rank: Option<i16>,
    /// Highest numeric rank of the side to move.
    pub max_rank: Option<i16>,
}

/// A draw's key: the first 16 bytes of `blake3(domain ‖ seed ‖ parts…)`.
fn draw_key(domain: &[u8], seed: u64, parts: &[&[u8]]) -> [u8; 16] {
    let mut h = blake3::Hasher::new();
    h.update(domain);
    h.update(&seed.to_le_bytes());
    for p in parts {
        h.update(p);
    }
    let mut out = [0u8; 16];
    out.copy_from_slice(&h.finalize().as_bytes()[..16]);
    out
}

/// The `n` values with the smallest keys seen so far, in key order.
struct Smallest<T> {
    n: usize,
    best: BTreeMap<[u8; 16], T>,
}

impl<T> Smallest<T> {
    fn new(n: usize) -> Smallest<T> {
        Smallest { n, best: BTreeMap::new() }
    }
    /// Would a value with key `k` be kept?
    fn wants(&self, k: &[u8; 16]) -> bool {
        self.best.len() < self.n || self.best.last_key_value().is_some_and(|(last, _)| k < last)
    }
    /// Keeps `v` under `k` if it is among the `n` smallest.
    fn offer(&mut self, k: [u8; 16], v: T) {
        if self.wants(&k) {
            self.best.insert(k, v);
            if self.best.len() > self.n {
                self.best.pop_last();
            }
        }
    }
}

/// The `i`th values of a list column.
fn list_range(l: &arrow_array::GenericListArray<i32>, i: usize) -> std::ops::Range<usize> {
    let o = l.value_offsets();
    o[i] as usize..o[i + 1] as usize
}

/// Draws the samples; returns them in draw order, with `id` 1..=n.
pub fn draw(out: &Path, opt: &SampleOptions) -> anyhow::Result<Vec<VerifySample>> {
    // (score) → sample, keeping the n smallest.
    let mut best: Smallest<VerifySample> = Smallest::new(opt.n);
    read_table(out, "samples", |b| {
        let c = Cols::new(&b, "samples");
        let hash = c.fixed_binary("position_hash")?;
        let game_id = c.str("game_id")?;
        let mn = c.prim::<UInt16Type>("move_number")?;
        let split = c.str("split")?;
        let to_play = c.prim::<UInt8Type>("to_play")?;
        let brn = c.prim::<Int16Type>("black_rank_num")?;
        let wrn = c.prim::<Int16Type>("white_rank_num")?;
        let tags = if c.has("tags") { Some(c.str_list("tags")?) } else { None };
        for i in 0..b.num_rows() {
            if let Some(s) = &opt.split {
                if split.value(i) != s {
                    continue;
                }
            }
            if opt.min_rank.is_some() || opt.max_rank.is_some() {
                let r = if to_play.value(i) == 1 { brn } else { wrn };
                if r.is_null(i) {
                    continue;
                }
                let r = r.value(i);
                if opt.min_rank.is_some_and(|m| r < m) || opt.max_rank.is_some_and(|m| r > m) {
                    continue;
                }
            }
            if let Some(t) = &opt.tag {
                let Some((tags, names)) = tags else {
                    anyhow::bail!("the shards have no tags column; cannot filter by tag")
                };
                if !list_range(tags, i).any(|j| names.value(j) == t) {
                    continue;
                }
            }
            let parts: [&[u8]; 3] = [hash.value(i), game_id.value(i).as_bytes(), &mn.value(i).to_le_bytes()];
            let sc = draw_key(b"kibo.sample.v1\0", opt.seed, &parts);
            if best.wants(&sc) {
                best.offer(sc, row_to_sample(&c, i)?);
            }
        }
        Ok(())
    })?;
    // Player names come from the games table.
    let wanted: std::collections::HashSet<String> = best.best.values().map(|s| s.game_id.clone()).collect();
    let mut names: HashMap<String, (Option<String>, Option<String>)> = HashMap::new();
    read_table(out, "games", |b| {
        let c = Cols::new(&b, "games");
        let (gid, pb, pw) = (c.str("game_id")?, c.str("black_name")?, c.str("white_name")?);
        for i in 0..b.num_rows() {
            if wanted.contains(gid.value(i)) && !names.contains_key(gid.value(i)) {
                let s = |a: &arrow_array::StringArray| (!a.is_null(i)).then(|| a.value(i).to_string());
                names.insert(gid.value(i).to_string(), (s(pb), s(pw)));
            }
        }
        Ok(())
    })?;
    let mut v: Vec<VerifySample> = best.best.into_values().collect();
    for (i, s) in v.iter_mut().enumerate() {
        s.id = i + 1;
        if let Some((b, w)) = names.get(&s.game_id) {
            s.black = b.clone();
            s.white = w.clone();
        }
    }
    Ok(v)
}

fn row_to_sample(c: &Cols<'_>, i: usize) -> anyhow::Result<VerifySample> {
    let cells: [u8; NN] =
        c.binary("board")?.value(i).try_into().map_err(|_| anyhow::anyhow!("board is not 361 bytes"))?;
    let mv = c.prim::<UInt16Type>("move")?.value(i);
    let ko = c.prim::<UInt16Type>("ko_point")?;
    let (hl, hv) = c.u16_list("history")?;
    let prev = list_range(hl, i).next().map(|j| hv[j]);
    let s = |name: &str| -> anyhow::Result<Option<String>> {
        let a = c.str(name)?;
        Ok((!a.is_null(i)).then(|| a.value(i).to_string()))
    };
    let tags = if c.has("tags") {
        let (l, names) = c.str_list("tags")?;
        list_range(l, i).map(|j| names.value(j).to_string()).collect()
    } else {
        Vec::new()
    };
    Ok(VerifySample {
        id: 0,
        board: cells,
        to_play: c.prim::<UInt8Type>("to_play")?.value(i),
        mv: Move::from_index(mv).ok_or_else(|| anyhow::anyhow!("bad move index {mv}"))?,
        prev_move: prev.and_then(Move::from_index),
        ko_point: (!ko.is_null(i)).then(|| Point::from_index(ko.value(i))).flatten(),
        source: s("source")?.unwrap_or_default(),
        game_index: c.prim::<UInt32Type>("game_index")?.value(i),
        move_number: c.prim::<UInt16Type>("move_number")?.value(i) as u32,
        game_id: s("game_id")?.unwrap_or_default(),
        black: None,
        white: None,
        black_rank: s("black_rank")?,
        white_rank: s("white_rank")?,
        tags,
        split: s("split")?.unwrap_or_default(),
    })
}

/// Draws and writes `DIR/verify/`. Returns how many samples were written.
pub fn run(out: &Path, opt: &SampleOptions) -> anyhow::Result<usize> {
    let samples = draw(out, opt)?;
    let dir = out.join("verify");
    std::fs::create_dir_all(&dir)?;
    crate::verify::write_export(&dir, &samples)?;
    Ok(samples.len())
}

/// Draws `n` rows of the VLM set in `dest` (either layout of `kibo export vlm`) and writes
/// their eye check into `DIR/verify/vlm/` ([`crate::verify::write_vlm_export`]): the rows
/// with the smallest `blake3("kibo.sample.vlm.v1" ‖ seed ‖ game_id ‖ move_number)`, in
/// that order. Returns how many rows were written.
pub fn run_vlm(out: &Path, dest: &Path, n: usize, seed: u64) -> anyhow::Result<usize> {
    let mut best: Smallest<VlmView> = Smallest::new(n);
    let mut offer = |v: VlmView| {
        let k = draw_key(b"kibo.sample.vlm.v1\0", seed, &[v.game_id.as_bytes(), &v.move_number.to_le_bytes()]);
        best.offer(k, v);
    };
    let jsonl: Vec<PathBuf> =
        ["train.jsonl", "val.jsonl"].iter().map(|f| dest.join(f)).filter(|p| p.is_file()).collect();
    let text_only = text_set(dest)?;
    if !jsonl.is_empty() {
        for path in jsonl {
            let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
            let split = if path.ends_with("val.jsonl") { "val" } else { "train" };
            for (k, line) in text.lines().enumerate() {
                offer(
                    qwen_view(dest, line, split, text_only)
                        .with_context(|| format!("{} line {}", path.display(), k + 1))?,
                );
            }
        }
    } else {
        let mut found = false;
        for split in ["train", "val"] {
            let dir = dest.join(split);
            if !dir.is_dir() {
                continue;
            }
            found = true;
            let cols = if text_only { &VLM_COLUMNS[1..] } else { &VLM_COLUMNS[..] };
            crate::storage::read_parquet_columns(&dir, false, Some(cols), |b| {
                for v in parquet_views(&b, text_only)? {
                    offer(v);
                }
                Ok(())
            })?;
        }
        anyhow::ensure!(
            found,
            "{} holds no VLM set (train/, val/ or train.jsonl): run `kibo export vlm` first",
            dest.display()
        );
    }
    let mut rows: Vec<VlmView> = best.best.into_values().collect();
    for (i, r) in rows.iter_mut().enumerate() {
        r.id = i + 1;
    }
    crate::verify::write_vlm_export(&out.join("verify").join("vlm"), &rows, dest)?;
    Ok(rows.len())
}

/// Whether the set in `dest` is text boards without pictures (`vlm.json`'s `board` is
/// `text`; no `vlm.json` or no `board`: pictures).
fn text_set(dest: &Path) -> anyhow::Result<bool> {
    let path = dest.join("vlm.json");
    if !path.is_file() {
        return Ok(false);
    }
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let v: serde_json::Value = serde_json::from_str(&text).with_context(|| format!("reading {}", path.display()))?;
    Ok(v["board"].as_str() == Some("text"))
}

/// The columns the page reads (`images` first: a text set has none).
const VLM_COLUMNS: [&str; 9] =
    ["images", "messages", "task", "question", "game_id", "move_number", "source", "split", "symmetry"];

/// Width of a PNG from its header (0 if it is not one).
fn png_width(png: &[u8]) -> u32 {
    png.get(16..20).map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]])).unwrap_or(0)
}

/// The task as the page names it: `tactics (atari)` for a tactics row.
fn task_name(task: &str, question: Option<&str>) -> String {
    match question {
        Some(q) => format!("{task} ({q})"),
        None => task.to_string(),
    }
}

/// The rows of one batch of the Parquet layout (`text`: a text set, no pictures).
fn parquet_views(b: &arrow_array::RecordBatch, text: bool) -> anyhow::Result<Vec<VlmView>> {
    use arrow_array::{BinaryArray, ListArray, StringArray, StructArray};
    let c = Cols::new(b, "vlm");
    let list_struct = |name: &str| -> anyhow::Result<(&ListArray, &StructArray)> {
        let l = c.list(name)?;
        let s = l
            .values()
            .as_any()
            .downcast_ref::<StructArray>()
            .with_context(|| format!("{name}: not a list of structs"))?;
        Ok((l, s))
    };
    let field = |s: &StructArray, i: usize| -> anyhow::Result<StringArray> {
        Ok(s.column(i).as_any().downcast_ref::<StringArray>().context("expected a string field")?.clone())
    };
    let images = if text {
        None
    } else {
        let (il, is) = list_struct("images")?;
        Some((il, is.column(0).as_any().downcast_ref::<BinaryArray>().context("images.bytes: not binary")?))
    };
    let (ml, ms) = list_struct("messages")?;
    let (roles, contents) = (field(ms, 0)?, field(ms, 1)?);
    let (task, question, id, source, split) =
        (c.str("task")?, c.str("question")?, c.str("game_id")?, c.str("source")?, c.str("split")?);
    let mn = c.prim::<UInt16Type>("move_number")?;
    let sym = c.prim::<UInt8Type>("symmetry")?;
    let mut v = Vec::with_capacity(b.num_rows());
    for i in 0..b.num_rows() {
        let png = images.map(|(il, bytes)| bytes.value(il.value_offsets()[i] as usize).to_vec()).unwrap_or_default();
        let turns: Vec<(String, String)> =
            list_range(ml, i).map(|j| (roles.value(j).to_string(), contents.value(j).to_string())).collect();
        let (answer, turns) = match turns.split_last() {
            Some(((role, text), rest)) if role == "assistant" => (text.clone(), rest.to_vec()),
            _ => anyhow::bail!("row {i}: the last turn is not the assistant's"),
        };
        v.push(VlmView {
            id: 0,
            width: png_width(&png),
            png,
            turns,
            answer,
            task: task_name(task.value(i), (!question.is_null(i)).then(|| question.value(i))),
            game_id: id.value(i).to_string(),
            move_number: mn.value(i) as u32,
            source: source.value(i).to_string(),
            split: split.value(i).to_string(),
            symmetry: sym.value(i),
        });
    }
    Ok(v)
}

/// One line of the Qwen layout's JSONL, its picture read from `dest` (`text`: a text set,
/// no picture).
fn qwen_view(dest: &Path, line: &str, split: &str, text: bool) -> anyhow::Result<VlmView> {
    let j: serde_json::Value = serde_json::from_str(line)?;
    let s = |k: &str| j.get(k).and_then(|v| v.as_str()).map(str::to_string);
    let png = if text {
        Vec::new()
    } else {
        let image = s("image").context("no \"image\"")?;
        std::fs::read(dest.join(&image)).with_context(|| format!("reading {image}"))?
    };
    let conv = j.get("conversations").and_then(|c| c.as_array()).context("no \"conversations\"")?;
    let mut turns: Vec<(String, String)> = conv
        .iter()
        .map(|t| {
            let get = |k: &str| t.get(k).and_then(|v| v.as_str()).unwrap_or_default().to_string();
            (get("from"), get("value"))
        })
        .collect();
    let (_, answer) = turns.pop().context("no turns")?;
    Ok(VlmView {
        id: 0,
        width: png_width(&png),
        png,
        turns,
        answer,
        task: task_name(&s("task").unwrap_or_default(), j.get("question").and_then(|q| q.as_str())),
        game_id: s("game_id").unwrap_or_default(),
        move_number: j.get("move_number").and_then(|m| m.as_u64()).unwrap_or(0) as u32,
        source: s("source").unwrap_or_default(),
        split: split.to_string(),
        symmetry: j.get("symmetry").and_then(|m| m.as_u64()).unwrap_or(0) as u8,
    })
}
