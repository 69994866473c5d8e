/*!
`katago-v7` as a registered [`FeatureSet`]: the same [`V7Encoder`] rows as the npz export
(`kibo export katago`), computed from one samples row alone ([`Position`]) instead of a
replay of its game. Each input the encoder needs is read off the row:

* the board now and the boards one and two moves before: `board` and the boards
  [`Position::rebuild`] restores. The board now gets its ko state (channel 6, and the
  ban the attacker's first working move obeys in channel 17) from the last move played
  again on the board before it; else from `ko_point`. (The defender's ladder search
  ignores a ko ban at its root, so the earlier boards need none.)
* the colours of the recent moves: a stone's colour is the one on its point right after
  it; a pass (or a stone its own move removed: suicide) alternates from the move after
  it, the side to move's opponent for the latest;
* the boards up to 8 moves before and the side to move on each (the colour of the move
  made from it), for the superko bans of channel 6: [`Position::rebuild`]'s boards;
* the stones placed by each side (territory-rules komi chilling): its stones on the board
  plus the ones the other side captured (`prisoners_*`, suicide included, as the replay
  counts them: setup stones plus moves);
* the handicap: `handicap` (`HA`) when it is 2 or more, else 0;
* the rules from `rules` ([`KataRules::from_ru`]), the komi from `komi`, or the default
  komi of the handicap when it is null.

Where a row cannot tell what the game replay knows, the two may differ: a game whose
handicap stones are played as the first black moves (the replay counts them one by one,
the row says `HA` from the start), black setup stones without `HA` in a game without
`KM` (the replay's default komi is the handicap one), a setup stone added in mid-game, or
two moves in a row by one colour (docs/planes.md, "From sample rows");
`tests/python/test_kibo_py.py` bounds them on the dev corpus.
*/

use std::cell::RefCell;

use super::katago::{Earlier, KataRules, KoRule, V7Encoder, V7Position, V7Row, GLOBAL, SPATIAL};
use crate::coord::{Move, Point, NN, PASS};
use crate::engine::{Board, Color};
use crate::features::position::Position;
use crate::features::set::FeatureSet;

/// KataGo's v7 inputs, from sample rows.
pub static KATAGO_V7: FeatureSet = FeatureSet { name: "katago-v7", spatial: SPATIAL, global: GLOBAL, encode };

/// One thread's encoder and boards (encoding allocates nothing after the first row).
#[derive(Default)]
struct Scratch {
    enc: V7Encoder,
    row: V7Row,
    boards: Vec<Board>,
    recent: Vec<(Color, Move)>,
    /// The colour of every history move (the side to move on the board before it).
    colors: Vec<Color>,
    built: Built,
}

/// The boards of the last rows, by their cells: a game's rows, read in order, meet each
/// board three times (now, one and two moves back), and a copy costs far less than
/// [`Board::from_cells`]. A board here has no ko point; the chain lists' order may be a
/// replay's rather than `from_cells`'s, which no channel depends on (the ladder search
/// only through its node budget, docs/planes.md).
#[derive(Default)]
struct Built {
    /// Most recent first, at most [`BUILT_BOARDS`].
    boards: Vec<([u8; NN], Board)>,
}

const BUILT_BOARDS: usize = 4;

impl Built {
    /// The board of `cells` into `out` (`from_cells`, or a copy of a remembered one).
    fn board(&mut self, cells: &[u8; NN], out: &mut Board) {
        match self.boards.iter().position(|(c, _)| c == cells) {
            Some(i) => out.clone_from(&self.boards[i].1),
            None => {
                // A row's cells are 0/1/2 by construction (the split stage wrote them).
                *out = Board::from_cells(cells).unwrap_or_default();
                self.remember(cells, out);
            }
        }
    }

    /// Remembers `board` (its ko point cleared) as the board of `cells`.
    fn remember(&mut self, cells: &[u8; NN], board: &Board) {
        if self.boards.iter().any(|(c, _)| c == cells) {
            return;
        }
        let mut entry = if self.boards.len() >= BUILT_BOARDS { self.boards.pop() } else { None }
            .unwrap_or_else(|| ([0; NN], Board::new()));
        entry.0 = *cells;
        entry.1.clone_from(board);
        entry.1.clear_ko();
        self.boards.insert(0, entry);
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// See the module docs.
pub fn encode(pos: &Position, spatial: &mut [u8], global: &mut [f32]) {
    SCRATCH.with_borrow_mut(|s| {
        encode_with(s, pos);
        spatial[..SPATIAL * NN].copy_from_slice(&s.row.spatial);
        global[..GLOBAL].copy_from_slice(&s.row.global);
    })
}

fn encode_with(s: &mut Scratch, pos: &Position) {
    let to_play = Color::from_u8(pos.to_play).unwrap_or(Color::Black);
    // Boards: now, then one and two moves before while the history reaches.
    let have = (0..3).take_while(|&k| pos.board_before(k).is_some()).count();
    s.boards.resize_with(have, Board::new);
    for k in (1..have).rev() {
        let cells = pos.board_before(k).expect("k < have");
        s.built.board(cells, &mut s.boards[k]);
    }
    s.recent.clear();
    s.colors.clear();
    let rules = KataRules::from_ru(pos.rules.as_deref());
    // Superko rules need every history move's colour; the others the last 5.
    let colored = if rules.ko == KoRule::Simple { pos.history_len.min(5) } else { pos.history_len };
    let mut next = to_play;
    for k in 0..colored {
        let m = pos.history[k];
        let after = pos.board_before(k).expect("k < history_len");
        let stone = after.get(m as usize).filter(|_| m != PASS).and_then(|&v| Color::from_u8(v));
        let color = stone.unwrap_or(next.opponent());
        let mv = match Point::from_index(m) {
            Some(p) if m != PASS => Move::Play(p),
            _ => Move::Pass,
        };
        if k < 5 {
            s.recent.push((color, mv));
        }
        s.colors.push(color);
        next = color;
    }
    // The board now with its ko state as the replay left it (the attacker's first move in
    // the working-move search of channel 17 obeys the ko ban): the last move played again
    // on the board before it, when that gives the row's cells.
    let (first, rest) = s.boards.split_at_mut(1);
    let mut replayed = false;
    if let (Some(&(c, mv)), Some(before)) = (s.recent.first(), rest.first()) {
        first[0].clone_from(before);
        first[0].play_unchecked(c, mv);
        let mut cells = [0u8; NN];
        first[0].cells(&mut cells);
        replayed = cells == pos.board;
    }
    if replayed {
        s.built.remember(&pos.board, &s.boards[0]);
    } else {
        s.built.board(&pos.board, &mut s.boards[0]);
    }
    let handicap = if pos.handicap >= 2 { pos.handicap as u32 } else { 0 };
    let board = &s.boards[0];
    let stones = |c: Color| board.stone_count(c);
    let placed = [stones(Color::Black) + pos.prisoners[1] as u32, stones(Color::White) + pos.prisoners[0] as u32];
    let v7 = V7Position {
        board,
        ko: board.ko_point().or_else(|| pos.ko_point.and_then(Point::from_index)),
        prev: [s.boards.get(1), s.boards.get(2)],
        earlier: Earlier { boards: &pos.earlier[..s.colors.len()], to_play: &s.colors },
        to_play,
        recent: &s.recent,
        rules: &rules,
        komi: pos.komi.unwrap_or_else(|| crate::scoring::default_komi(handicap)),
        placed,
        handicap,
    };
    s.enc.encode(&v7, &mut s.row);
}
