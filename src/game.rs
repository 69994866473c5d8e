/*!
A kept game as the stages pass it on: [`GameRow`], one row of the `games` table, typed.

The filter stage builds it from a [`GameRecord`] ([`GameRow::from_record`]); the split
stage replays it; [`crate::tables`] is the only code that turns it into Arrow columns and
back. [`GameMeta`] is the part that every sample of the game repeats (komi, result,
ranks, …): the samples table takes its game columns from the same struct.
*/

use crate::color::Color;
use crate::coord::Point;
use crate::scoring::{Score, ScoreCheck};
use crate::sgf::{GameMove, GameRecord, MidSetup, ResultKind};

/// Stable content hash of a game: the first 16 bytes of blake3 over its setup, first
/// player and moves, not its metadata (docs/schema.md). Written as 32 hex digits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameId(pub [u8; 16]);

impl GameId {
    /// The id of a game's content (docs/schema.md gives the byte layout).
    pub fn of(setup_black: &[Point], setup_white: &[Point], first_player: Option<Color>, moves: &[GameMove]) -> GameId {
        // The bytes gathered first and hashed in one call: two small updates a move cost
        // more than the hashing itself.
        let mut b = Vec::with_capacity(13 + 2 * (setup_black.len() + setup_white.len() + 2) + 1 + 3 * moves.len());
        b.extend_from_slice(b"kibo.game.v1\0");
        for setup in [setup_black, setup_white] {
            let mut s: Vec<u16> = setup.iter().map(|p| p.index()).collect();
            s.sort_unstable();
            for p in s {
                b.extend_from_slice(&p.to_le_bytes());
            }
            b.extend_from_slice(&[0xff, 0xff]);
        }
        b.extend_from_slice(first_player.map_or("-", Color::as_str).as_bytes());
        for m in moves {
            b.extend_from_slice(m.color.as_str().as_bytes());
            b.extend_from_slice(&m.mv.index().to_le_bytes());
        }
        let mut id = [0u8; 16];
        id.copy_from_slice(&blake3::hash(&b).as_bytes()[..16]);
        GameId(id)
    }
    /// 32 lowercase hex digits (the `game_id` column).
    pub fn to_hex(&self) -> String {
        hex(&self.0)
    }
    /// From 32 hex digits.
    pub fn from_hex(s: &str) -> Option<GameId> {
        if s.len() != 32 || !s.is_ascii() {
            return None;
        }
        let mut id = [0u8; 16];
        for (i, b) in id.iter_mut().enumerate() {
            *b = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()?;
        }
        Some(GameId(id))
    }
}

/// Lowercase hex digits of `bytes`, two a byte (from a digit table: a `format!` a byte
/// costs more than the rest of a game's id).
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    bytes.iter().flat_map(|b| [DIGITS[(b >> 4) as usize] as char, DIGITS[(b & 15) as usize] as char]).collect()
}

impl std::fmt::Display for GameId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_hex())
    }
}

/// The train / val / test side of a game (and of all its samples).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Split {
    /// Training.
    Train,
    /// Validation.
    Val,
    /// Test.
    Test,
}

impl Split {
    /// The three, in partition order.
    pub const ALL: [Split; 3] = [Split::Train, Split::Val, Split::Test];
    /// `"train"`, `"val"` or `"test"` (the `split` column and the shard names).
    pub const fn as_str(self) -> &'static str {
        match self {
            Split::Train => "train",
            Split::Val => "val",
            Split::Test => "test",
        }
    }
    /// Position in [`Split::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// Game-level values, repeated on every sample of the game.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameMeta {
    /// Komi after normalisation.
    pub komi: Option<f32>,
    /// `KM` as written.
    pub komi_raw: Option<String>,
    /// `HA` (0 when absent), at most 255.
    pub handicap: u8,
    /// `RU` as written.
    pub rules: Option<String>,
    /// `RE` as written.
    pub result_raw: Option<String>,
    /// Winner, when the result names one.
    pub winner: Option<Color>,
    /// How the game ended.
    pub result_kind: ResultKind,
    /// Score margin for `score` results.
    pub margin: Option<f32>,
    /// `PB`.
    pub black_name: Option<String>,
    /// `PW`.
    pub white_name: Option<String>,
    /// `BR` as written.
    pub black_rank: Option<String>,
    /// `WR` as written.
    pub white_rank: Option<String>,
    /// Numeric black rank (kyu k → 1−k, dan d → d, pro p → 9+p).
    pub black_rank_num: Option<i16>,
    /// Numeric white rank.
    pub white_rank_num: Option<i16>,
    /// `DT` as written.
    pub date: Option<String>,
    /// First date in `DT`, `YYYY[-MM[-DD]]`.
    pub date_iso: Option<String>,
    /// `EV`.
    pub event: Option<String>,
    /// `RO`.
    pub round: Option<String>,
    /// `PC`.
    pub place: Option<String>,
    /// `GN`.
    pub game_name: Option<String>,
    /// `AP`.
    pub application: Option<String>,
}

/// The count of a game that ended by counting (docs/scoring.md).
#[derive(Clone, Debug, PartialEq)]
pub struct ScoreVerdict {
    /// How the count compares with `RE`.
    pub check: ScoreCheck,
    /// The counted margin (black − white, komi included); `None` when nothing was counted.
    pub counted_margin: Option<f32>,
    /// The count behind it (rules, komi, territory, prisoners, dead stones removed);
    /// `None` when nothing was counted.
    pub count: Option<Score>,
    /// Why the check is `undecided` (`None` otherwise).
    pub reason: Option<String>,
    /// Whose evidence decided the dead stones and seki behind the count.
    pub judge: ScoreJudge,
}

/// Whose evidence decided the dead stones and seki of a count (`score_judge`; kibo
/// counts in both cases).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ScoreJudge {
    /// Kibo's own judge (`scoring::judge`: Benson, the rules, the playouts, the markup).
    #[default]
    Kibo,
    /// KataGo's ownership maps (`scoring::judge_by_ownership`), `score_check = "katago"`.
    Katago,
}

impl ScoreJudge {
    /// Stable name: `"kibo"`, `"katago"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ScoreJudge::Kibo => "kibo",
            ScoreJudge::Katago => "katago",
        }
    }
    /// The judge named by [`ScoreJudge::as_str`].
    pub fn from_name(s: &str) -> Option<ScoreJudge> {
        [ScoreJudge::Kibo, ScoreJudge::Katago].into_iter().find(|j| j.as_str() == s)
    }
}

/// One kept game: where it came from, its metadata, its start position and main line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameRow {
    /// Content hash (setup, first player, moves).
    pub game_id: GameId,
    /// Configured source name.
    pub source: String,
    /// File on disk.
    pub source_file: String,
    /// Path inside the archive(s), or `None`.
    pub member: Option<String>,
    /// Game index in its file (0-based).
    pub game_index: u32,
    /// Byte offset of the game in the decoded file text.
    pub byte_offset: u64,
    /// Charset used to decode the file.
    pub charset: String,
    /// The reader that read it: `sgf`, `gib`, `ngf`, `ugf` (`crate::formats`).
    pub format: String,
    /// Game-level values.
    pub meta: GameMeta,
    /// Black stones of the start position.
    pub setup_black: Vec<Point>,
    /// White stones of the start position.
    pub setup_white: Vec<Point>,
    /// `PL` at the start.
    pub first_player: Option<Color>,
    /// The main line.
    pub moves: Vec<GameMove>,
    /// Setup met after the first move (only with `filter.allow_setup_after_root`).
    pub mid_setup: Vec<MidSetup>,
    /// Moves whose colour equals the previous move's.
    pub non_alternating: u32,
    /// Names of the quirks normalised while reading (`fox_komi_scaled`, `tt_pass`, …).
    pub quirks: Vec<String>,
    /// The count, for games that ended by counting.
    pub score: Option<ScoreVerdict>,
}

impl GameRow {
    /// The row of a record read from `file` (`member` inside it) of source `source`.
    pub fn from_record(g: &GameRecord, source: &str, file: &str, member: Option<&str>, quirks: &[&str]) -> GameRow {
        GameRow {
            game_id: GameId::of(&g.setup_black, &g.setup_white, g.first_player, &g.moves),
            source: source.to_string(),
            source_file: file.to_string(),
            member: member.map(str::to_string),
            game_index: g.index as u32,
            byte_offset: g.offset as u64,
            charset: g.charset.to_string(),
            format: g.format.to_string(),
            meta: GameMeta {
                komi: g.komi,
                komi_raw: g.komi_raw.clone(),
                handicap: g.handicap.min(255) as u8,
                rules: g.rules.clone(),
                result_raw: g.result.raw.clone(),
                winner: g.result.winner,
                result_kind: g.result.kind,
                margin: g.result.margin,
                black_name: g.black.clone(),
                white_name: g.white.clone(),
                black_rank: g.black_rank.as_ref().map(|r| r.raw.clone()),
                white_rank: g.white_rank.as_ref().map(|r| r.raw.clone()),
                black_rank_num: g.black_rank.as_ref().map(|r| r.numeric),
                white_rank_num: g.white_rank.as_ref().map(|r| r.numeric),
                date: g.date.clone(),
                date_iso: g.date_iso.clone(),
                event: g.event.clone(),
                round: g.round.clone(),
                place: g.place.clone(),
                game_name: g.game_name.clone(),
                application: g.application.clone(),
            },
            setup_black: g.setup_black.clone(),
            setup_white: g.setup_white.clone(),
            first_player: g.first_player,
            moves: g.moves.clone(),
            mid_setup: g.mid_setup.clone(),
            non_alternating: g.quirks.non_alternating,
            quirks: quirks.iter().map(|q| q.to_string()).collect(),
            score: None,
        }
    }
    /// `file` or `file!member`: the `source` column of its samples.
    pub fn source_path(&self) -> String {
        match &self.member {
            Some(m) => format!("{}!{}", self.source_file, m),
            None => self.source_file.clone(),
        }
    }
    /// `file!member #index`: how a reject detail names this game.
    pub fn location(&self) -> String {
        format!("{} #{}", self.source_path(), self.game_index)
    }
    /// The handicap: `HA`, or the number of black setup stones when there are at least
    /// two and no white ones (servers that write the stones but not `HA`).
    pub fn effective_handicap(&self) -> u32 {
        let stones =
            if self.setup_white.is_empty() && self.setup_black.len() >= 2 { self.setup_black.len() } else { 0 };
        (self.meta.handicap as u32).max(stones as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coord::Move;

    #[test]
    fn game_id_hex_round_trip_and_content_only() {
        let p = |i| Point::from_index(i).unwrap();
        let moves =
            [GameMove { color: Color::Black, mv: Move::Play(p(72)) }, GameMove { color: Color::White, mv: Move::Pass }];
        let id = GameId::of(&[p(60), p(300)], &[], None, &moves);
        assert_eq!(GameId::from_hex(&id.to_hex()), Some(id));
        assert_eq!(id.to_hex().len(), 32);
        // Setup order does not matter; the first player and each move do.
        assert_eq!(GameId::of(&[p(300), p(60)], &[], None, &moves), id);
        assert_ne!(GameId::of(&[p(60), p(300)], &[], Some(Color::Black), &moves), id);
        assert_ne!(GameId::of(&[p(60), p(300)], &[], None, &moves[..1]), id);
        assert_eq!(GameId::from_hex("zz"), None);
        // Pinned: the layout of docs/schema.md hashed by blake3 (checked with Python's
        // `blake3` on the same bytes); a change here would give every game a new id.
        assert_eq!(id.to_hex(), "f220cac6895b4577960f4fa300fef4b3");
        let all: Vec<u8> = (0..16).map(|i| i * 17).collect();
        let hex = GameId(all.clone().try_into().unwrap()).to_hex();
        assert_eq!(hex, all.iter().map(|b| format!("{b:02x}")).collect::<String>());
    }
}
