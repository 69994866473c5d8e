/*!
`kibo tags FILE [--game N]`: replays one game and prints the tactical tags of every
move, so a person can check them against a board (docs/tags.md has the definitions).
*/

use std::fmt::Write as _;
use std::path::Path;

use crate::coord::Move;
use crate::engine::Board;
use crate::game::GameRow;
use crate::replay::{replay, ReplayRules, Step, Visitor};
use crate::tactics::Tagger;

/// Prints one line per move with its tags.
struct TagLines {
    tagger: Tagger,
    out: String,
}

impl Visitor for TagLines {
    fn before(&mut self, board: &Board, s: &Step) {
        let tags = self.tagger.tag(board, s.color, s.mv);
        let names: Vec<String> = tags
            .names()
            .iter()
            .map(|&n| match n {
                "capture" => format!("capture({})", tags.capture_size),
                "self_atari" => format!("self_atari({})", tags.self_atari_size),
                n => n.to_string(),
            })
            .collect();
        let sgf = match s.mv {
            Move::Pass => "-".to_string(),
            Move::Play(p) => p.to_sgf(),
        };
        let (c, gtp) = (s.color.as_str(), s.mv.to_gtp());
        let _ = writeln!(self.out, "{:>5}  {c:<5} {gtp:<5} {sgf:<4} {}", s.number, names.join(" "));
    }
}

/// Game `game` (0-based) of the SGF file at `path`: its record and its games-table row.
/// The errors name the file (unreadable, a game that cannot be read, out of range).
pub fn read_game(path: &Path, game: usize) -> anyhow::Result<(crate::sgf::GameRecord, GameRow)> {
    let bytes = std::fs::read(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let file = crate::sgf::read_games(&bytes);
    let n = file.games.len();
    let g = match file.games.into_iter().nth(game) {
        Some(Ok(g)) => g,
        Some(Err(e)) => anyhow::bail!("{} game {game}: {e}", path.display()),
        None => anyhow::bail!("{} has {n} game(s); --game {game} is out of range", path.display()),
    };
    let name = path.display().to_string();
    let row = GameRow::from_record(&g, "", &name, None, &[]);
    Ok((g, row))
}

/// The report for game `game` (0-based) of the SGF file at `path`, as text.
pub fn tags_report(path: &Path, game: usize) -> anyhow::Result<String> {
    let (g, row) = read_game(path, game)?;
    let name = path.display().to_string();
    let mut v = TagLines { tagger: Tagger::new(), out: String::new() };
    let _ = writeln!(v.out, "# {name} game {game}: {} moves; tags per docs/tags.md", g.moves.len());
    let _ = writeln!(v.out, "{:>5}  {:<5} {:<5} {:<4} tags", "move", "color", "gtp", "sgf");
    let rules = ReplayRules { allow_consecutive_moves: true, ..Default::default() };
    if let Err(e) = replay(&row, &rules, &mut v) {
        let at = e.move_number.map(|m| format!("move {m}")).unwrap_or_else(|| "the setup".into());
        let _ = writeln!(v.out, "# {at} is illegal ({}); stopping", e.reason);
    }
    Ok(v.out)
}
