/*!
`kibo export vlm --out OUT --to DEST`: a vision-language training set from the train and
val samples: per row a picture of the board made for a model
([`crate::verify::BoardPainter`]), a prompt, an answer and where the row came from
(docs/vlm.md).

Two passes over the sample shards, neither holding more than a bounded part of the corpus:

1. **Choice** ([`choose`]): every train or val row (with one of `--tag`'s tags, when
   given) gets the key `blake3("kibo.vlm.v1" ‖ seed ‖ game_id ‖ move_number)`; the
   `--limit` rows with the smallest keys are kept (a heap of 16 bytes a kept row). A
   key depends on the row alone, so the choice is a uniform draw spread over games,
   move numbers and splits, and a larger limit keeps every row a smaller one kept.
2. **Rows** ([`run`]): the shards are read again in order (train, then val); the kept
   rows are gathered in chunks of [`CHUNK`], each chunk's pictures and words made in
   parallel (one painter a thread) and written in row order, so the files are the same
   whatever the thread count. The row's task, symmetry and tactics question come from
   the same key's other bytes.

Everything is written into `DEST/.tmp-vlm/` and moved into place at the end
([`layout::Staging`]): an interrupted export leaves DEST as it was.
*/

pub mod layout;
pub mod options;
pub mod text;

use std::path::Path;

use anyhow::Context;
use arrow_array::types::{UInt16Type, UInt8Type};
use arrow_array::Array;
use rayon::prelude::*;

use crate::coord::{symmetry, symmetry_index, Move, Point, NN};
use crate::stages::draw::{row_key, Draw};
use crate::verify::{BoardMarkers, BoardPainter, Style};
pub use options::{parse_mix, split_names, AnswerFrom, BoardMode, Layout, VlmOptions, VlmReport, VlmRow};
pub use text::{Notation, Question, Task, Templates};

/// Rows whose pictures are made together (a few tens of MB of PNGs at most).
pub const CHUNK: usize = 2048;

/// The kept rows as sorted `(shard, row)` ordinals; `None` keeps every row that passes `--tag`.
pub use crate::stages::draw::Kept;

/// The draw of `opt` (its [`split_names`]).
fn draw(opt: &VlmOptions) -> Draw<'_> {
    Draw { splits: split_names(opt), seed: opt.seed, limit: opt.limit, tags: &opt.tags }
}

/// Pass 1: the kept rows ([`Kept`]) and how many rows the choice saw
/// ([`crate::stages::draw::choose`]).
pub fn choose(out: &Path, opt: &VlmOptions) -> anyhow::Result<(Kept, u64)> {
    crate::stages::draw::choose(out, &draw(opt))
}

/// One kept row as read from the shards.
#[derive(Clone, Debug, Default)]
pub struct SourceRow {
    /// The index in [`split_names`]: 0 train, 1 val (0 test in a test export).
    pub split: usize,
    pub board: Vec<u8>,
    pub to_play: u8,
    pub ko_point: Option<u16>,
    pub mv: u16,
    pub move_number: u16,
    /// The moves before, most recent first.
    pub history: Vec<u16>,
    pub game_id: String,
    pub source: String,
    pub tags: Vec<String>,
    /// KataGo's move (point index, 361 pass) and score lead for Black (`None` where
    /// KataGo gave none), from the labels.
    pub label: Option<(u16, Option<f32>)>,
}

/// The labels of the output folder by `(game_id, move_number)`: KataGo's move and score
/// lead for Black (`None` where KataGo gave none; docs/labels.md).
pub type Labels = std::collections::HashMap<(String, u16), (u16, Option<f32>)>;

/// Reads `out/labels/` into [`Labels`] (through [`crate::stages::label::table::read`]);
/// a clear error when the folder is missing.
pub fn read_labels(out: &Path) -> anyhow::Result<Labels> {
    use crate::stages::label::table::{self, Col};
    let dir = out.join("labels");
    anyhow::ensure!(
        dir.is_dir(),
        "{} has no labels: run `kibo label --out {}` first (with the same --limit, --seed and --tag)",
        out.display(),
        out.display()
    );
    let mut m = Labels::new();
    let cols = [Col::GameId, Col::MoveNumber, Col::EngineMoveIndex, Col::ScoreLeadBlack];
    table::read(&dir, Some(&cols), |v| {
        for i in 0..v.len() {
            m.insert((v.game_id(i).to_string(), v.move_number(i)), (v.engine_move_index(i), v.score_lead_black(i)));
        }
        Ok(())
    })?;
    Ok(m)
}

const READ_COLUMNS: [&str; 10] =
    ["board", "to_play", "ko_point", "move", "move_number", "history", "game_id", "source", "split", "tags"];

/// Calls `f` with every kept row, in shard then row order ([`crate::stages::draw::for_each_kept`]).
fn for_each_kept(
    out: &Path,
    opt: &VlmOptions,
    kept: &Kept,
    labels: Option<&Labels>,
    mut f: impl FnMut(SourceRow) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    crate::stages::draw::for_each_kept(out, &draw(opt), kept, &READ_COLUMNS, |split, c, rows| {
        let board = c.binary("board")?;
        let (to_play, ko) = (c.prim::<UInt8Type>("to_play")?, c.prim::<UInt16Type>("ko_point")?);
        let (mv, mn) = (c.prim::<UInt16Type>("move")?, c.prim::<UInt16Type>("move_number")?);
        let (hl, hv) = c.u16_list("history")?;
        let (id, source) = (c.str("game_id")?, c.str("source")?);
        let (tl, tn) = c.str_list("tags")?;
        for &i in rows {
            let (ho, to) = (hl.value_offsets(), tl.value_offsets());
            let label = match labels {
                None => None,
                Some(m) => Some(*m.get(&(id.value(i).to_string(), mn.value(i))).with_context(|| {
                    format!(
                        "{} move {} has no label: run `kibo label` with the export's --limit, --seed and --tag",
                        id.value(i),
                        mn.value(i)
                    )
                })?),
            };
            f(SourceRow {
                split,
                board: board.value(i).to_vec(),
                to_play: to_play.value(i),
                ko_point: (!ko.is_null(i)).then(|| ko.value(i)),
                mv: mv.value(i),
                move_number: mn.value(i),
                history: hv[ho[i] as usize..ho[i + 1] as usize].to_vec(),
                game_id: id.value(i).to_string(),
                source: source.value(i).to_string(),
                tags: (to[i] as usize..to[i + 1] as usize).map(|j| tn.value(j).to_string()).collect(),
                label,
            })?;
        }
        Ok(())
    })
}

/// The row's picture and words (`painter` of the options' cell size).
pub fn make_row(r: &SourceRow, opt: &VlmOptions, painter: &BoardPainter) -> anyhow::Result<VlmRow> {
    let key = row_key(opt.seed, &r.game_id, r.move_number);
    let sym = if opt.symmetries == 8 { key[8] % 8 } else { 0 };
    let task = opt.task_of(u32::from_le_bytes(key[9..13].try_into().expect("invariant: 4 bytes")));
    let question = [Question::Atari, Question::Capture, Question::Ladder][key[13] as usize % 3];
    let cells: &[u8; NN] = r.board.as_slice().try_into().map_err(|_| anyhow::anyhow!("board is not 361 bytes"))?;
    let mut board = [0u8; NN];
    for (i, &c) in cells.iter().enumerate() {
        board[symmetry_index(i as u16, sym) as usize] = c;
    }
    let turn = |i: u16| Move::from_index(symmetry_index(i, sym)).unwrap_or(Move::Pass);
    let point = |m: Move| match m {
        Move::Play(p) => Some(p),
        Move::Pass => None,
    };
    // The last move and the ko point: marks on the picture (unless turned off), words in
    // the text board (always).
    let prev_move = r.history.first().map(|&h| turn(h));
    let ko_point = r.ko_point.and_then(Point::from_index).map(|p| symmetry(p, sym));
    let marks = BoardMarkers {
        prev_move: prev_move.and_then(point).filter(|_| opt.last_move_marker),
        ko_point: ko_point.filter(|_| opt.ko_marker),
    };
    let png = if opt.board.picture() { painter.png_of(&board, marks)? } else { Vec::new() };
    let last: Vec<Move> = r.history.iter().take(opt.last_moves).map(|&h| turn(h)).collect();
    let facts = text::Facts {
        board: &board,
        to_play: r.to_play,
        mv: turn(r.mv),
        move_number: r.move_number,
        last_moves: &last,
        tags: &r.tags,
        score_lead_black: r.label.and_then(|l| l.1),
        last_move: prev_move,
        ko_point,
        text_board: opt.board.text(),
    };
    let (prompt, mut answer, question) = text::words(task, question, &facts, &opt.templates, opt.notation)
        .with_context(|| format!("{} move {}", r.game_id, r.move_number))?;
    let human_move = (task == Task::NextMove).then(|| answer.clone());
    if let (Task::NextMove, AnswerFrom::Engine, Some((mv, _))) = (task, opt.answer_from, r.label) {
        answer = opt.notation.write(turn(mv));
    }
    let system = (!opt.templates.system.is_empty()).then(|| text::fill(&opt.templates.system, &facts, opt.notation));
    Ok(VlmRow {
        split: r.split,
        png,
        image_name: format!("{}-{}.png", r.game_id, r.move_number),
        system,
        prompt,
        answer,
        human_move,
        task,
        question,
        to_play: r.to_play,
        symmetry: sym,
        game_id: r.game_id.clone(),
        move_number: r.move_number,
        source: r.source.clone(),
        tags: r.tags.clone(),
    })
}

/// Makes one chunk's rows in parallel, in order.
fn make_chunk(rows: &[SourceRow], opt: &VlmOptions, style: Style) -> anyhow::Result<Vec<VlmRow>> {
    thread_local! {
        static PAINTER: std::cell::RefCell<Option<BoardPainter>> = const { std::cell::RefCell::new(None) };
    }
    rows.par_iter()
        .map(|r| {
            PAINTER.with(|cell| {
                let mut p = cell.borrow_mut();
                if p.as_ref().is_none_or(|p| p.style() != style) {
                    *p = Some(BoardPainter::new(style)?);
                }
                make_row(r, opt, p.as_ref().expect("invariant: set above"))
            })
        })
        .collect()
}

/// Runs the export (see the module docs).
pub fn run(out: &Path, opt: &VlmOptions) -> anyhow::Result<VlmReport> {
    opt.check().map_err(anyhow::Error::msg)?;
    let style = Style::model(opt.cell_px).expect("invariant: checked");
    let labels = if opt.needs_labels() { Some(read_labels(out)?) } else { None };
    let (kept, candidates) = choose(out, opt)?;
    let total = kept.as_ref().map(|v| v.len() as u64).unwrap_or(candidates);
    let mut rep = VlmReport { candidates, picture_px: style.board_px(), ..VlmReport::default() };
    let mut staging = layout::Staging::start(&opt.to)?;
    let mut writer = layout::Writer::new(&staging, opt)?;
    let bar = crate::progress::Progress::new("export vlm", "rows", Some(total), opt.quiet);
    let mut chunk: Vec<SourceRow> = Vec::with_capacity(CHUNK);
    let mut flush = |chunk: &mut Vec<SourceRow>, rep: &mut VlmReport| -> anyhow::Result<()> {
        for row in make_chunk(chunk, opt, style)? {
            rep.rows[row.split] += 1;
            rep.tasks[Task::ALL.iter().position(|t| *t == row.task).expect("invariant: a task")] += 1;
            if let Some(q) = row.question {
                rep.questions[q as usize] += 1;
            }
            rep.picture_bytes += row.png.len() as u64;
            writer.push(row)?;
        }
        bar.add(chunk.len() as u64);
        chunk.clear();
        Ok(())
    };
    for_each_kept(out, opt, &kept, labels.as_ref(), |r| {
        chunk.push(r);
        if chunk.len() == CHUNK {
            flush(&mut chunk, &mut rep)?;
        }
        Ok(())
    })
    .with_context(|| format!("reading the samples of {}", out.display()))?;
    flush(&mut chunk, &mut rep)?;
    bar.finish();
    rep.files = writer.finish(&rep, out)?;
    staging.install()?;
    Ok(rep)
}
