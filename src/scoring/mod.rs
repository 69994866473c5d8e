/*!
Counting a finished game, and positional influence.

Uses nothing from the crate but [`crate::coord`] and [`crate::engine`] (plain `std`).
The rules it follows are `shared/docs/RULES-AND-SGF.md` §4; the decisions it takes
(komi, handicap bonus, tolerance, the conservative life rules, the influence kernel)
and the figures on real games are in `docs/results/scoring.md`.

Counting a final position is three steps:

1. **Who owns each point** ([`Ownership`]): which stones are dead, which points are
   territory / area of each player, which are dame or seki, and which are unclear.
   Two sources, to be tried in this order:
   * [`ownership_from_markup`]: the record's own `TB`/`TW` territory markup (KGS writes
     it at the end of a scored game; an opponent stone on a marked point is dead);
   * [`ownership_conservative`]: Benson's pass-alive analysis ([`benson_pass_alive`],
     KataGo `calculateAreaForPla` semantics) plus conservative rules for the rest; any
     point it cannot settle is [`Owner::Undecided`].
2. **The count** ([`count()`]): territory rules ([`RuleSet::Korean`],
   [`RuleSet::Japanese`]) count owned empty points, prisoners and dead stones, and
   nothing in seki; area rules ([`RuleSet::Chinese`]) count stones and owned empty
   points, seki eyes included. White gets the komi ([`default_komi`]: 6.5 in even
   games, 0.5 with a handicap) and, under area rules, one point per handicap stone.
3. **The check** ([`check_result`]): the count against the recorded result, as
   [`ScoreCheck::Agrees`], [`ScoreCheck::MarginDiffers`], [`ScoreCheck::WinnerDiffers`] or
   [`ScoreCheck::Undecided`].

Separately, [`influence()`] gives every point a signed influence (+ black, − white) that
decays with distance from the stones, and [`influence_areas`] turns it into areas.

Geometry: points are `(row, col)` from the top-left, index `row * 19 + col`. On a
smaller [`Board::new_sized`] board the points outside [`Board::size`] are off the board:
they are [`Owner::Neutral`], never counted, and have influence `0`. Nothing here panics,
whatever the board (setup positions with chains that have no liberty included).

```
use kibo::engine::Board;
use kibo::scoring::{check_result, count, default_komi, ownership_conservative, RuleSet, ScoreCheck};

let board = Board::new(); // an empty board: nobody owns anything
let own = ownership_conservative(&board);
let score = count(&board, &own, RuleSet::Korean, default_komi(0), 0, 0, 0);
assert_eq!(score.margin, -6.5);
assert_eq!(check_result(&score, Some(false), Some(6.5)), ScoreCheck::Agrees);
```
*/

pub mod benson;
pub mod count;
pub mod engine_judge;
pub mod flip;
pub mod influence;
pub mod judge;
pub mod playout;

#[cfg(test)]
mod tests;

use crate::coord::{Point, NN};
#[allow(unused_imports)] // `Board` is named by the docs above.
use crate::engine::Board;

pub use benson::{benson_pass_alive, ownership_conservative};
pub use count::{check_result, count, default_komi, ownership_as_it_stands, ownership_from_markup, MARGIN_TOLERANCE};
pub use engine_judge::{judge_by_ownership, OwnershipMaps, DAME_OWNERSHIP, LIFE_OWNERSHIP};
pub use flip::{flip_doubt, flip_near_the_line, JudgementMismatch, FLIP_MARGIN};
pub use influence::{influence, influence_areas, INFLUENCE_DECAY, INFLUENCE_RADIUS};
pub use judge::{
    judge, judge_with, undecided_reason, ChainStatus, ChainVerdict, Evidence, Judgement, Unsettled, CONTRADICT_SHARE,
    SETTLED_SHARE,
};
pub use playout::{playout_ownership, PlayoutOwnership, Playouts, MAX_MOVES, PLAYOUTS};

/// The counting rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuleSet {
    /// Territory counting: owned empty points + prisoners + dead opponent stones; seki
    /// points count for nobody. Komi 6.5 (0.5 with a handicap), no handicap bonus.
    Korean,
    /// Territory counting, counted exactly as [`RuleSet::Korean`] (the two rule sets
    /// differ in how life and death is judged, not in what is counted).
    Japanese,
    /// Area counting: stones on the board + owned empty points (dead stones removed
    /// first); seki eyes count for their owner, shared liberties for nobody. White gets
    /// one extra point per handicap stone.
    Chinese,
}

impl RuleSet {
    /// The counting rules named by `RU`: area rules for Chinese, AGA, New Zealand,
    /// Tromp-Taylor and Ing; Korean; Japanese (territory) otherwise.
    pub fn from_ru(ru: Option<&str>) -> RuleSet {
        let r = ru.unwrap_or("").to_ascii_lowercase();
        if ["chin", "aga", "new zealand", "nz", "tromp", "ing", "goe", "area"].iter().any(|k| r.contains(k)) {
            RuleSet::Chinese
        } else if r.contains("korea") {
            RuleSet::Korean
        } else {
            RuleSet::Japanese
        }
    }
}

impl RuleSet {
    /// Stable lower-case name: `"korean"`, `"japanese"`, `"chinese"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            RuleSet::Korean => "korean",
            RuleSet::Japanese => "japanese",
            RuleSet::Chinese => "chinese",
        }
    }
    /// The rule set named by [`RuleSet::as_str`].
    pub fn from_name(s: &str) -> Option<RuleSet> {
        [RuleSet::Korean, RuleSet::Japanese, RuleSet::Chinese].into_iter().find(|r| r.as_str() == s)
    }
    /// Whether this rule set counts area (stones + territory) rather than territory.
    pub const fn is_area(self) -> bool {
        matches!(self, RuleSet::Chinese)
    }
}

/// Who a point belongs to at the end of the game.
///
/// For an empty point: whose territory it is. For a stone: [`Owner::Black`] or
/// [`Owner::White`] is the colour of a living stone, or the owner of the territory a
/// dead stone lies in (the opponent of its colour); [`Owner::Neutral`] is a stone in seki.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Owner {
    /// Black's territory, a living black stone, or a dead white stone in black's territory.
    Black,
    /// White's territory, a living white stone, or a dead black stone in white's territory.
    White,
    /// Nobody's: dame, a point in seki (stone, eye or shared liberty), or a point off a
    /// smaller board.
    Neutral,
    /// Not settled by the analysis: it could belong to either player.
    Undecided,
}

impl Owner {
    /// Stable lower-case name: `"black"`, `"white"`, `"neutral"`, `"undecided"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Owner::Black => "black",
            Owner::White => "white",
            Owner::Neutral => "neutral",
            Owner::Undecided => "undecided",
        }
    }
    /// `+1` black, `-1` white, `0` neutral or undecided (a per-point training target).
    pub const fn sign(self) -> i8 {
        match self {
            Owner::Black => 1,
            Owner::White => -1,
            Owner::Neutral | Owner::Undecided => 0,
        }
    }
}

/// The ownership of every point of a final position, as [`count()`] reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ownership {
    /// Owner of each point, indexed by [`Point::index`] (`row * 19 + col`).
    pub point: [Owner; NN],
    /// Dead stones (of both colours), in row-major order. A stone is dead iff it is
    /// listed here; [`count()`] removes it and credits it to the opponent as a prisoner
    /// (territory rules).
    pub dead: Vec<Point>,
    /// Points in seki, in row-major order: the stones of the groups in seki, their eyes
    /// and their shared liberties (all [`Owner::Neutral`]).
    pub seki: Vec<Point>,
}

impl Ownership {
    /// Every point [`Owner::Undecided`], nothing dead, no seki.
    pub fn undecided() -> Ownership {
        Ownership { point: [Owner::Undecided; NN], dead: Vec::new(), seki: Vec::new() }
    }
    /// Owner of `p`.
    pub fn owner(&self, p: Point) -> Owner {
        self.point.get(p.index() as usize).copied().unwrap_or(Owner::Neutral)
    }
    /// Number of points owned by `o`.
    pub fn count_of(&self, o: Owner) -> u32 {
        self.point.iter().filter(|x| **x == o).count() as u32
    }
}

/// The count of a final position (see [`count()`]), with its parts: for each colour
/// (`[black, white]`) `black = territory + prisoners + dead white stones` under
/// territory rules, `black = stones + territory` under area rules; White adds the komi
/// and, under area rules, the handicap bonus.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Score {
    /// The rules counted under.
    pub rules: RuleSet,
    /// Komi given to White (`0` when it was not finite).
    pub komi: f32,
    /// Area rules: the handicap points given to White (`0` otherwise).
    pub bonus: f32,
    /// Owned empty points (dead stones removed); under area rules the seki eyes too.
    pub territory: [u32; 2],
    /// Stones captured during the game by each colour (counted under territory rules).
    pub prisoners: [u32; 2],
    /// Dead stones removed at the end, of each colour (`[dead black, dead white]`).
    pub dead: [u32; 2],
    /// Living stones on the board (counted under area rules; seki stones included).
    pub stones: [u32; 2],
    /// Black's points.
    pub black: f32,
    /// White's points, komi (and the area-rules handicap bonus) included.
    pub white: f32,
    /// `black − white`: above 0 Black wins, below 0 White wins.
    pub margin: f32,
    /// Points whose owner is [`Owner::Undecided`]; each could move the margin by up to 2
    /// ([`Score::swing`] says how far they can together).
    pub undecided_points: u32,
    /// How far the undecided points can move [`Score::margin`], `[down, up]` (towards
    /// White, towards Black; each at most `2 · undecided_points`): [`count()`] counts the
    /// position again with every unsettled chain settled in Black's favour and in White's
    /// (docs/scoring.md, "The check"); [`Score::from_parts`] gives `2 · undecided_points`
    /// both ways.
    pub swing: [f32; 2],
}

/// How a count compares with the recorded result (see [`check_result`]; what each means
/// for a training set: docs/scoring.md, "Verdicts").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScoreCheck {
    /// Same winner, and the margins are equal within [`MARGIN_TOLERANCE`].
    Agrees,
    /// Same winner, but the margins are more than [`MARGIN_TOLERANCE`] apart (and the
    /// undecided points cannot explain it).
    MarginDiffers,
    /// The count names another winner (or a draw against a recorded win).
    WinnerDiffers,
    /// Undecided points could change the winner or explain the difference, or the record
    /// gives no winner.
    Undecided,
}

impl ScoreCheck {
    /// Every verdict, in this order.
    pub const ALL: [ScoreCheck; 4] =
        [ScoreCheck::Agrees, ScoreCheck::MarginDiffers, ScoreCheck::WinnerDiffers, ScoreCheck::Undecided];

    /// The check named by [`ScoreCheck::as_str`].
    pub fn from_name(s: &str) -> Option<ScoreCheck> {
        ScoreCheck::ALL.into_iter().find(|c| c.as_str() == s)
    }
    /// Stable name: `"agrees"`, `"margin_differs"`, `"winner_differs"`, `"undecided"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ScoreCheck::Agrees => "agrees",
            ScoreCheck::MarginDiffers => "margin_differs",
            ScoreCheck::WinnerDiffers => "winner_differs",
            ScoreCheck::Undecided => "undecided",
        }
    }

    /// Kibo's count names a winner (`agrees`, `margin_differs`, `winner_differs`).
    pub const fn is_decided(self) -> bool {
        !matches!(self, ScoreCheck::Undecided)
    }
}
