/*!
Every reason a game can be left out, in one closed set: [`Reject`].

Each reason belongs to the stage that gives it ([`Reject::stage`]), has a stable
`snake_case` name ([`Reject::as_str`], the `reason` column of the `rejects` table) and a
one-line meaning ([`Reject::meaning`], the README's table, which a test compares with
[`Reject::ALL`]). A new reason goes here, in the stage that gives it, and in the README.
*/

use serde::Serialize;

/// The stage that wrote a `rejects` row (its `stage` column and its shard name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// Reading and filtering the archives.
    Filter,
    /// Replaying the games into samples.
    Split,
}

impl Stage {
    /// `"filter"` or `"split"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Stage::Filter => "filter",
            Stage::Split => "split",
        }
    }
}

macro_rules! reasons {
    ($($variant:ident = $name:literal, $stage:ident, $meaning:literal;)*) => {
        /// Why a game (or a whole file) was left out.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Reject {
            $(
                #[doc = $meaning]
                $variant,
            )*
        }

        impl Reject {
            /// Every reason, filter's first, in the README's order.
            pub const ALL: &'static [Reject] = &[$(Reject::$variant),*];

            /// The stable name (the `reason` column).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Reject::$variant => $name,)*
                }
            }
            /// The stage that gives this reason.
            pub const fn stage(self) -> Stage {
                match self {
                    $(Reject::$variant => Stage::$stage,)*
                }
            }
            /// What it means, in one line (the README's table).
            pub const fn meaning(self) -> &'static str {
                match self {
                    $(Reject::$variant => $meaning,)*
                }
            }
        }
    };
}

reasons! {
    UnreadableFile = "unreadable_file", Filter, "file or archive member could not be read (OS error, damaged archive, size cap)";
    ParseError = "parse_error", Filter, "no SGF game tree could be read (detail has the byte offset)";
    NotGo = "not_go", Filter, "`GM` is not 1";
    SizeNot19 = "size_not_19", Filter, "`SZ` is not 19";
    BadCoordinate = "bad_coordinate", Filter, "a move or setup point is malformed or off the board (never read as a pass)";
    TooLarge = "too_large", Filter, "the game tree is over a `limits` bound (nodes, nesting depth)";
    UnknownFormat = "unknown_format", Filter, "a `.gib`/`.ngf`/`.ugf`/`.ugi` whose content is neither that format nor SGF";
    BadRecord = "bad_record", Filter, "a GIB/NGF/UGF record that cannot be read (no game section, a move without a colour)";
    SetupAfterRoot = "setup_after_root", Filter, "setup stones after the first move (unless `filter.allow_setup_after_root`)";
    NoMoves = "no_moves", Filter, "the main line has no moves";
    TooShort = "too_short", Filter, "fewer than `min_moves`";
    TooLong = "too_long", Filter, "more than `max_moves`";
    FilteredOut = "filtered_out", Filter, "handicap, rank range, result kind or date range excluded it";
    ScoreWinnerDiffers = "score_winner_differs", Filter, "the count names another winner than `RE` (only when `filter.drop_score_disagreements` lists `winner_differs`)";
    ScoreMarginDiffers = "score_margin_differs", Filter, "the count has `RE`'s winner but a margin more than a point away (only when `filter.drop_score_disagreements` lists `margin_differs`)";
    ScoreUndecided = "score_undecided", Filter, "the count could not decide the result (only when `filter.drop_score_disagreements` lists `undecided`)";
    BadDumpLine = "bad_dump_line", Filter, "a line of a one-line dump, or of its index, is not in the dump's layout (detail names the line)";
    DumpIndexOverBudget = "dump_index_over_budget", Filter, "the dump index reached its share of `pipeline.memory_mb` and could not spill to disk: the rest of this index is not joined (its games keep their moves)";
    InternalError = "internal_error", Filter, "a bug in kibo met this game (detail names it; please report it): the game alone is left out, the run goes on";
    DuplicateGame = "duplicate_game", Split, "same setup and moves as an earlier game (detail names it); kept once";
    IllegalSetup = "illegal_setup", Split, "setup leaves a chain without liberties";
    OccupiedPoint = "occupied_point", Split, "a move on an occupied point (detail names it, `move_number` is 1-based)";
    Suicide = "suicide", Split, "a suicide (detail names it, `move_number` is 1-based)";
    KoViolation = "ko_violation", Split, "a move that retakes a simple ko at once (detail names it, `move_number` is 1-based)";
    SuperkoViolation = "superko_violation", Split, "a move that repeats a position under `split.superko` (detail names it)";
    ConsecutiveMoves = "consecutive_moves", Split, "one colour moved twice (only when `split.allow_consecutive_moves = false`)";
}

impl Reject {
    /// The reason named by [`Reject::as_str`].
    pub fn from_name(s: &str) -> Option<Reject> {
        Reject::ALL.iter().copied().find(|r| r.as_str() == s)
    }
    /// The reasons `stage` gives.
    pub fn of_stage(stage: Stage) -> impl Iterator<Item = Reject> {
        Reject::ALL.iter().copied().filter(move |r| r.stage() == stage)
    }
}

impl std::fmt::Display for Reject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Reject {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl From<crate::sgf::RejectReason> for Reject {
    fn from(r: crate::sgf::RejectReason) -> Reject {
        use crate::sgf::RejectReason as R;
        match r {
            R::ParseError => Reject::ParseError,
            R::NotGo => Reject::NotGo,
            R::SizeNot19 => Reject::SizeNot19,
            R::BadCoordinate => Reject::BadCoordinate,
            R::TooLarge => Reject::TooLarge,
            R::UnknownFormat => Reject::UnknownFormat,
            R::BadRecord => Reject::BadRecord,
        }
    }
}

impl From<crate::engine::Illegal> for Reject {
    /// `OffBoard` cannot reach a 19×19 replay (its moves are [`crate::coord::Move`]s);
    /// it is filed with the coordinate errors.
    fn from(e: crate::engine::Illegal) -> Reject {
        use crate::engine::Illegal as I;
        match e {
            I::OffBoard => Reject::BadCoordinate,
            I::Occupied => Reject::OccupiedPoint,
            I::Suicide => Reject::Suicide,
            I::Ko => Reject::KoViolation,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_round_trip() {
        let mut seen = std::collections::HashSet::new();
        for &r in Reject::ALL {
            assert!(seen.insert(r.as_str()), "{r} twice");
            assert_eq!(Reject::from_name(r.as_str()), Some(r));
        }
        assert_eq!(Reject::from_name("bad_game_row"), None);
        // Filter's reasons come first, then split's.
        let stages: Vec<Stage> = Reject::ALL.iter().map(|r| r.stage()).collect();
        assert!(stages.windows(2).all(|w| w[0] <= w[1]), "{stages:?}");
    }

    #[test]
    fn engine_and_reader_reasons_map_to_their_names() {
        use crate::engine::Illegal;
        for (e, name) in
            [(Illegal::Occupied, "occupied_point"), (Illegal::Suicide, "suicide"), (Illegal::Ko, "ko_violation")]
        {
            assert_eq!(Reject::from(e).as_str(), e.as_str());
            assert_eq!(Reject::from(e).as_str(), name);
        }
        use crate::sgf::RejectReason as R;
        for r in [R::ParseError, R::NotGo, R::SizeNot19, R::BadCoordinate, R::TooLarge, R::UnknownFormat, R::BadRecord]
        {
            assert_eq!(Reject::from(r).as_str(), r.as_str());
            assert_eq!(Reject::from(r).stage(), Stage::Filter);
        }
    }
}
