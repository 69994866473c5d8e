//! The options of `kibo export vlm`, what it reports, and one finished row: the types
//! the choice, the rows and the writers ([`super::layout`]) share.

use std::path::PathBuf;

use super::text::{Notation, Question, Task, Templates};
use crate::samples::HISTORY;
use crate::verify::Style;

/// Which files the export writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    /// Parquet shards with PNG bytes (datasets, LLaMA-Factory, ms-swift, TRL).
    #[default]
    Parquet,
    /// PNG files and JSONL in the Qwen-VL fine-tuning recipe's format.
    Qwen,
}

impl std::str::FromStr for Layout {
    type Err = String;
    fn from_str(s: &str) -> Result<Layout, String> {
        match s {
            "parquet" => Ok(Layout::Parquet),
            "qwen" => Ok(Layout::Qwen),
            _ => Err(format!("{s:?}: expected parquet or qwen")),
        }
    }
}

/// How a row shows the board (`--board`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BoardMode {
    /// The picture alone (the default).
    #[default]
    Picture,
    /// The board as text in the prompt ([`super::text::text_board`]), no picture.
    Text,
    /// The picture and the text board.
    Both,
}

impl BoardMode {
    /// Whether this is the default, [`BoardMode::Picture`] (serde's `skip_serializing_if`).
    pub fn is_picture(&self) -> bool {
        *self == BoardMode::Picture
    }

    /// Whether rows carry a picture.
    pub fn picture(self) -> bool {
        self != BoardMode::Text
    }

    /// Whether prompts carry the text board.
    pub fn text(self) -> bool {
        self != BoardMode::Picture
    }

    /// The mode's name (`picture`, `text`, `both`).
    pub fn name(self) -> &'static str {
        match self {
            BoardMode::Picture => "picture",
            BoardMode::Text => "text",
            BoardMode::Both => "both",
        }
    }
}

impl std::str::FromStr for BoardMode {
    type Err = String;
    fn from_str(s: &str) -> Result<BoardMode, String> {
        match s {
            "picture" => Ok(BoardMode::Picture),
            "text" => Ok(BoardMode::Text),
            "both" => Ok(BoardMode::Both),
            _ => Err(format!("{s:?}: expected picture, text or both")),
        }
    }
}

/// Where the next-move answer comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AnswerFrom {
    /// The move played (the default).
    #[default]
    Human,
    /// KataGo's move (`kibo label`'s `engine_move`); the move played stays in `human_move`.
    Engine,
}

/// Options of `kibo export vlm`.
#[derive(Clone, Debug)]
pub struct VlmOptions {
    /// The folder to write.
    pub to: PathBuf,
    /// Parquet shards (the default) or the Qwen recipe's JSONL and PNG files.
    pub layout: Layout,
    /// Rows to keep; 0 keeps every row.
    pub limit: u64,
    /// Seed of the choice, the tasks and the symmetries.
    pub seed: u64,
    /// Keep only rows whose move has one of these tags (empty: every row).
    pub tags: Vec<String>,
    /// Write the test split alone (an evaluation set for `kibo eval`) instead of train and val.
    pub test: bool,
    /// Pixels between two grid lines (28 for Qwen2/2.5-VL, 32 for Qwen3-VL).
    pub cell_px: u32,
    /// The picture, the text board in the prompt, or both.
    pub board: BoardMode,
    /// How answers and prompts write points.
    pub notation: Notation,
    /// The next-move answer: the move played or KataGo's.
    pub answer_from: AnswerFrom,
    /// Each task's share of the rows (at least one positive).
    pub mix: Vec<(Task, f64)>,
    /// 1 (as played) or 8 (one of the eight board symmetries a row).
    pub symmetries: u8,
    /// How many earlier moves the prompt lists (`{last_moves}`).
    pub last_moves: usize,
    /// Ring the previous move's stone.
    pub last_move_marker: bool,
    /// Square the ko point.
    pub ko_marker: bool,
    /// `<image>` in the user turn of `messages` (LLaMA-Factory, ms-swift); without it,
    /// TRL's typed messages put the image before the first user turn.
    pub image_tag: bool,
    /// The prompt templates.
    pub templates: Templates,
    /// Rows per Parquet file or JSONL file.
    pub rows_per_file: usize,
    /// Memory budget in MiB (the choice's heap and the chunks must fit).
    pub memory_mb: u64,
    /// Show a progress bar on a terminal.
    pub quiet: bool,
}

/// `kibo export vlm`'s defaults (its flags' defaults, the default templates), with
/// next-move rows alone as pictured (`--mix next-move=1 --symmetries 1`): the options of a
/// caller that draws single rows ([`super::make_row`]), such as `kibo match`'s `openai:`
/// player, which sets the picture's and prompt's fields it takes from a set.
impl Default for VlmOptions {
    fn default() -> VlmOptions {
        VlmOptions {
            to: PathBuf::new(),
            layout: Layout::Parquet,
            limit: 0,
            seed: 0,
            tags: Vec::new(),
            test: false,
            cell_px: 32,
            board: BoardMode::Picture,
            notation: Notation::Gtp,
            answer_from: AnswerFrom::Human,
            mix: vec![(Task::NextMove, 1.0)],
            symmetries: 1,
            last_moves: 0,
            last_move_marker: true,
            ko_marker: true,
            image_tag: true,
            templates: Templates::default(),
            rows_per_file: 10_000,
            memory_mb: 1024,
            quiet: true,
        }
    }
}

impl VlmOptions {
    /// Refuses options that cannot be written, before anything is: named, with the value.
    pub fn check(&self) -> Result<(), String> {
        if Style::model(self.cell_px).is_none() {
            return Err(format!(
                "--cell-px must be an even number from {} to {} (28 for Qwen2/2.5-VL, 32 for Qwen3-VL), not {}",
                Style::MIN_CELL,
                Style::MAX_CELL,
                self.cell_px
            ));
        }
        if !matches!(self.symmetries, 1 | 8) {
            return Err(format!("--symmetries must be 1 or 8, not {}", self.symmetries));
        }
        if self.mix.is_empty() || self.mix.iter().any(|(_, w)| !w.is_finite() || *w < 0.0) {
            return Err("--mix needs TASK=SHARE pairs with shares of 0 or more".to_string());
        }
        if self.mix.iter().all(|(_, w)| *w == 0.0) {
            return Err("--mix: at least one task needs a share above 0".to_string());
        }
        if self.rows_per_file == 0 {
            return Err("--rows-per-file must be at least 1".to_string());
        }
        if self.last_moves > HISTORY {
            return Err(format!("--last-moves must be at most {HISTORY}, not {}", self.last_moves));
        }
        for t in &self.tags {
            if !crate::tactics::TAG_NAMES.contains(&t.as_str()) {
                return Err(format!("--tag {t:?}: no such tag (one of {})", crate::tactics::TAG_NAMES.join(", ")));
            }
        }
        let heap = self.limit.saturating_mul(24) >> 20;
        if heap > self.memory_mb / 2 {
            return Err(format!(
                "--limit {} needs about {heap} MiB to choose its rows, more than half of --memory-mb {}",
                self.limit, self.memory_mb
            ));
        }
        if self.layout == Layout::Qwen && !self.templates.system.is_empty() {
            return Err("a system turn (--system, export.vlm.system) is for the parquet layout: the Qwen recipe \
                        reads human and gpt turns and adds its own system message"
                .to_string());
        }
        self.templates.check()
    }

    /// Whether the rows need the output folder's labels (`--answer engine`, or a share
    /// of the judge task).
    pub fn needs_labels(&self) -> bool {
        self.answer_from == AnswerFrom::Engine || self.mix.iter().any(|(t, w)| *t == Task::Judge && *w > 0.0)
    }

    /// The task of a row whose key's task bytes read `u` (uniform in `0..2^32`).
    pub fn task_of(&self, u: u32) -> Task {
        let total: f64 = self.mix.iter().map(|(_, w)| w).sum();
        let x = u as f64 / 4_294_967_296.0 * total;
        let mut acc = 0.0;
        for (t, w) in &self.mix {
            acc += w;
            if x < acc {
                return *t;
            }
        }
        self.mix.iter().rev().find(|(_, w)| *w > 0.0).map(|(t, _)| *t).unwrap_or(Task::NextMove)
    }
}

/// The splits an export writes: train and val ([`super::super::SPLITS`]), or test alone (`--split test`).
pub fn split_names(opt: &VlmOptions) -> &'static [&'static str] {
    if opt.test {
        &["test"]
    } else {
        &super::super::SPLITS
    }
}

/// Parses `--mix next-move=0.8,transcribe=0.1,tactics=0.1`.
pub fn parse_mix(s: &str) -> Result<Vec<(Task, f64)>, String> {
    let mut v: Vec<(Task, f64)> = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, share) = part.split_once('=').ok_or_else(|| format!("--mix: {part:?} is not TASK=SHARE"))?;
        let task: Task = name.trim().parse().map_err(|e| format!("--mix: {e}"))?;
        let share: f64 = share.trim().parse().map_err(|_| format!("--mix: {share:?} is not a number"))?;
        if v.iter().any(|(t, _)| *t == task) {
            return Err(format!("--mix names {} twice", task.name()));
        }
        v.push((task, share));
    }
    Ok(v)
}

/// What the export wrote.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct VlmReport {
    /// Rows written to train and val.
    pub rows: [u64; 2],
    /// Rows per task (`Task::ALL` order).
    pub tasks: [u64; 4],
    /// Tactics rows per question (atari, capture, ladder).
    pub questions: [u64; 3],
    /// Train and val rows the choice saw (after `--tag`).
    pub candidates: u64,
    /// Bytes of all pictures.
    pub picture_bytes: u64,
    /// Width (and height) of a picture.
    pub picture_px: u32,
    /// Files written (Parquet shards or JSONL files).
    pub files: usize,
}

/// One row of the export, ready to write.
#[derive(Clone, Debug)]
pub struct VlmRow {
    pub split: usize,
    /// The picture (empty with `--board text`: the row has none).
    pub png: Vec<u8>,
    /// `<game_id>-<move_number>.png`.
    pub image_name: String,
    pub system: Option<String>,
    pub prompt: String,
    pub answer: String,
    /// The move played, in the answer's notation and the row's frame (next-move rows).
    pub human_move: Option<String>,
    pub task: Task,
    pub question: Option<Question>,
    pub to_play: u8,
    pub symmetry: u8,
    pub game_id: String,
    pub move_number: u16,
    pub source: String,
    pub tags: Vec<String>,
}
