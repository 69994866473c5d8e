/*!
`kibo tags FILE [--game N]`: replays one game and prints the tactical tags of every
move, so a person can check them against a board (docs/tags.md has the definitions).
*/

use std::fmt::Write as _;
use std::path::Path;

use crate::coord::Move;
use crate::engine::{Board, Color, Rules};
use crate::tactics::Tagger;

/// The report for game `game` (0-based) of the SGF file at `path`, as text.
pub fn tags_report(path: &Path, game: usize) -> anyhow::Result<String> {
    let bytes = std::fs::read(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let file = crate::sgf::read_games(&bytes);
    let n = file.games.len();
    let g = match file.games.into_iter().nth(game) {
        Some(Ok(g)) => g,
        Some(Err(e)) => anyhow::bail!("{} game {game}: {e}", path.display()),
        None => anyhow::bail!("{} has {n} game(s); --game {game} is out of range", path.display()),
    };
    let mut board = Board::new();
    for p in &g.setup_black {
        board.set_stone(*p, 1).map_err(|e| anyhow::anyhow!("setup: {e}"))?;
    }
    for p in &g.setup_white {
        board.set_stone(*p, 2).map_err(|e| anyhow::anyhow!("setup: {e}"))?;
    }
    let mut tagger = Tagger::new();
    let mut out = String::new();
    let _ = writeln!(out, "# {} game {game}: {} moves; tags per docs/tags.md", path.display(), g.moves.len());
    let _ = writeln!(out, "{:>5}  {:<5} {:<5} {:<4} tags", "move", "color", "gtp", "sgf");
    for (i, m) in g.moves.iter().enumerate() {
        let color = if m.color == crate::sgf::Color::Black { Color::Black } else { Color::White };
        let tags = tagger.tag(&board, color, m.mv);
        let mut names: Vec<String> = tags.names().iter().map(|s| s.to_string()).collect();
        for n in names.iter_mut() {
            if n == "capture" {
                *n = format!("capture({})", tags.capture_size);
            } else if n == "self_atari" {
                *n = format!("self_atari({})", tags.self_atari_size);
            }
        }
        let sgf = match m.mv {
            Move::Pass => "-".to_string(),
            Move::Play(p) => p.to_sgf(),
        };
        let _ = writeln!(
            out,
            "{:>5}  {:<5} {:<5} {:<4} {}",
            i + 1,
            if color == Color::Black { "B" } else { "W" },
            m.mv.to_gtp(),
            sgf,
            names.join(" ")
        );
        if let Err(e) = board.play(color, m.mv, &Rules::default()) {
            let _ = writeln!(out, "# move {} is illegal ({}); stopping", i + 1, e.as_str());
            break;
        }
    }
    Ok(out)
}
