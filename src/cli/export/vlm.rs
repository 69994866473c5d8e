//! `kibo export vlm`: a vision-language training set or evaluation set (docs/vlm.md).

use clap::{Args, ValueEnum};

use crate::cli::args::{Board, DrawArgs, ExportArgs, Split};
use crate::cli::exit::Exit;
use crate::cli::resolve::{pool, resolve_with};
use crate::error::{setup, SetupError};
use crate::stages::export::vlm;

#[derive(Args, Debug)]
pub(in crate::cli) struct VlmArgs {
    #[command(flatten)]
    export: ExportArgs,
    /// parquet (shards with PNG bytes and a dataset card) or qwen (the Qwen-VL recipe's
    /// JSONL with PNG files).
    #[arg(long, value_enum, default_value = "parquet")]
    layout: Layout,
    #[command(flatten)]
    pub(in crate::cli) draw: DrawArgs,
    /// Pixels between two grid lines: 32 (672 px pictures, Qwen3-VL's 32-px tokens) or
    /// 28 (588 px, Qwen2/2.5-VL); any even number from 26 to 64.
    #[arg(long, default_value_t = 32)]
    cell_px: u32,
    /// How a row shows the board: picture (the default), text (the board as text in the
    /// prompt, no picture) or both.
    #[arg(long, value_enum, default_value = "picture")]
    board: Board,
    /// The next-move answer: human (the move played, the default) or engine (KataGo's
    /// move from `kibo label`; the move played stays in `human_move`). `gtp` and `sgf`
    /// are kept as the human answer in that notation (as --notation).
    #[arg(long, value_enum, default_value = "human")]
    answer: Answer,
    /// Answers and prompts in gtp (Q16) or sgf (pd) notation.
    #[arg(long, value_enum)]
    notation: Option<Notation>,
    /// Tasks and their shares, e.g. next-move=0.8,transcribe=0.1,tactics=0.1,judge=0.1
    /// [default: next-move=1; next-move=0.2,transcribe=0.2,tactics=0.6 with --splits test].
    #[arg(long)]
    mix: Option<String>,
    /// 1 (the position as played) or 8 (one of the eight board symmetries a row, applied
    /// to the picture, the marks and the answer together).
    #[arg(long, default_value_t = 1)]
    symmetries: u8,
    /// Earlier moves the prompt lists (`{last_moves}`, at most 8).
    #[arg(long, default_value_t = 0)]
    last_moves: usize,
    /// No ring on the previous move's stone.
    #[arg(long)]
    no_last_move_marker: bool,
    /// No square on the ko point.
    #[arg(long)]
    no_ko_marker: bool,
    /// Leave `<image>` out of `messages` (TRL puts the image before the first user turn).
    #[arg(long)]
    no_image_tag: bool,
    /// A system turn before each user turn (overrides `export.vlm.system`).
    #[arg(long)]
    system: Option<String>,
    /// Rows per Parquet file.
    #[arg(long, default_value_t = 10_000)]
    rows_per_file: usize,
}

/// `--layout`: [`vlm::Layout`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Layout {
    Parquet,
    Qwen,
}

impl From<Layout> for vlm::Layout {
    fn from(l: Layout) -> vlm::Layout {
        match l {
            Layout::Parquet => vlm::Layout::Parquet,
            Layout::Qwen => vlm::Layout::Qwen,
        }
    }
}

/// `--notation`: [`vlm::Notation`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Notation {
    Gtp,
    Sgf,
}

impl From<Notation> for vlm::Notation {
    fn from(n: Notation) -> vlm::Notation {
        match n {
            Notation::Gtp => vlm::Notation::Gtp,
            Notation::Sgf => vlm::Notation::Sgf,
        }
    }
}

/// `--answer`: the move played (`human`, or `gtp`/`sgf`: the move played in that
/// notation, as `--notation`) or KataGo's (`engine`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Answer {
    Human,
    Engine,
    Gtp,
    Sgf,
}

impl Answer {
    /// The flag's value, as typed.
    fn name(self) -> &'static str {
        match self {
            Answer::Human => "human",
            Answer::Engine => "engine",
            Answer::Gtp => "gtp",
            Answer::Sgf => "sgf",
        }
    }

    /// Where the next-move answer comes from.
    fn from(self) -> vlm::AnswerFrom {
        match self {
            Answer::Engine => vlm::AnswerFrom::Engine,
            Answer::Human | Answer::Gtp | Answer::Sgf => vlm::AnswerFrom::Human,
        }
    }

    /// The notation `--answer gtp|sgf` names.
    fn notation(self) -> Option<vlm::Notation> {
        match self {
            Answer::Gtp => Some(vlm::Notation::Gtp),
            Answer::Sgf => Some(vlm::Notation::Sgf),
            Answer::Human | Answer::Engine => None,
        }
    }
}

/// Whether the draw's `--splits` are the test split alone (an evaluation set) rather than
/// train and val (a training set); any other set is a setup error.
fn test_split(splits: &[Split]) -> anyhow::Result<bool> {
    let mut set = splits.to_vec();
    set.sort();
    set.dedup();
    match set.as_slice() {
        [Split::Train, Split::Val] => Ok(false),
        [Split::Test] => Ok(true),
        _ => {
            let names: Vec<&str> = splits.iter().map(|s| s.as_str()).collect();
            setup(format!("--splits {:?}: expected train,val or test", names.join(",")))
        }
    }
}

/// `kibo export vlm`: options checked before anything is written.
pub(super) fn exec(a: VlmArgs) -> anyhow::Result<i32> {
    let r = resolve_with(&a.export.common, &["samples"])?;
    let mut templates = r.cfg.export.vlm.clone();
    if let Some(s) = &a.system {
        templates.system = s.clone();
    }
    let test = test_split(&a.draw.splits)?;
    // The evaluation set's documented default draw (docs/eval.md).
    let limit = a.draw.limit.unwrap_or(if test { 10_000 } else { 100_000 });
    let mix = a.mix.as_deref().unwrap_or(if test { "next-move=0.2,transcribe=0.2,tactics=0.6" } else { "next-move=1" });
    let notation = match (a.answer.notation(), a.notation.map(vlm::Notation::from)) {
        (Some(named), Some(n)) if n != named => {
            return setup(format!("--answer {} and --notation disagree", a.answer.name()));
        }
        (Some(named), _) => named,
        (None, n) => n.unwrap_or_default(),
    };
    let opt = vlm::VlmOptions {
        to: a.export.to.clone(),
        layout: a.layout.into(),
        limit,
        seed: a.draw.seed.unwrap_or(r.cfg.pipeline.seed),
        tags: a.draw.tags.clone(),
        test,
        cell_px: a.cell_px,
        board: a.board.into(),
        notation,
        answer_from: a.answer.from(),
        mix: vlm::parse_mix(mix).map_err(SetupError)?,
        symmetries: a.symmetries,
        last_moves: a.last_moves,
        last_move_marker: !a.no_last_move_marker,
        ko_marker: !a.no_ko_marker,
        image_tag: !a.no_image_tag,
        templates,
        rows_per_file: a.rows_per_file,
        memory_mb: (r.cfg.memory().total >> 20) as u64,
        quiet: r.quiet,
    };
    opt.check().map_err(SetupError)?;
    if opt.needs_labels() && !r.out.join("labels").is_dir() {
        return setup(format!(
            "--answer engine and the judge task need KataGo's labels: {} has no labels table (run `kibo label --out {}` \
             with the same --limit, --seed and --tag)",
            r.out.display(),
            r.out.display()
        ));
    }
    let t0 = std::time::Instant::now();
    let rep = pool(r.cfg.pipeline.threads)?.install(|| vlm::run(&r.out, &opt))?;
    let rows = rep.rows[0] + rep.rows[1];
    let tasks: Vec<String> = vlm::Task::ALL
        .iter()
        .zip(rep.tasks)
        .filter(|(_, n)| *n > 0)
        .map(|(t, n)| format!("{} {n}", t.name()))
        .collect();
    let pictures = if opt.board.picture() {
        format!(
            "{}x{} px pictures of {:.1} KB on average",
            rep.picture_px,
            rep.picture_px,
            if rows == 0 { 0.0 } else { rep.picture_bytes as f64 / rows as f64 / 1000.0 }
        )
    } else {
        "text boards, no pictures".to_string()
    };
    eprintln!(
        "export vlm: {} rows ({}) of {} candidates, {pictures}, {} files in {}, {:.1} s",
        if test { format!("{} test", rep.rows[0]) } else { format!("{} train and {} val", rep.rows[0], rep.rows[1]) },
        tasks.join(", "),
        rep.candidates,
        rep.files,
        opt.to.display(),
        t0.elapsed().as_secs_f64()
    );
    Ok(Exit::Ok as i32)
}
