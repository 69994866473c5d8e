/*!
Network inputs from the samples table: a [`Position`] is one samples row with the boards
before it rebuilt ([`Position::rebuild`]), and a [`FeatureSet`] turns a position into
planes (`spatial` channels of 361 values, row-major from the top-left in kibo's frame)
and `global` values. [`by_name`] finds a set; [`for_each_position`] reads the sample
shards of an output folder batch by batch and yields their positions.

The boards before a row are rebuilt from the row alone: `board` is the board before the
move, `history` the previous moves (most recent first) and `history_captures` what each
of them changed besides its own point ([`crate::samples::capture_code`]). Undoing
history move `k` empties its point and puts back what it captured, so the board `k + 1`
moves before is exact, captures, suicide and mid-game setup included (tested against an
independent replay of every game of the embedded sample). [`Position::set_game`] builds
the same position from the boards of a game being played (kibo-py's `Game`, which the
example policy net's GTP engine plays through), so a net sees in play the planes it was
trained on.

Frames: a set writes its planes in kibo's frame (point index `row * 19 + col` from the
top-left); a writer that needs another orientation (Leela Zero's A1 = bit 0) converts
where it writes, through [`crate::coord`].
*/

pub mod alphago;
pub mod katago;
pub mod katago_rows;
pub mod leela;
pub mod position;
pub mod set;

pub use position::{for_each_position, positions_of_batch, sample_shards, Position, POSITION_COLUMNS};
pub use set::FeatureSet;

/// Every registered feature set (one line per set).
static SETS: &[&FeatureSet] = &[&katago_rows::KATAGO_V7, &leela::LEELA_18, &alphago::ALPHAGO_48];

/// Every registered feature set.
pub fn sets() -> &'static [&'static FeatureSet] {
    SETS
}

/// The set called `name`.
pub fn by_name(name: &str) -> Option<&'static FeatureSet> {
    sets().iter().copied().find(|s| s.name == name)
}

/// The names of the registered sets, for messages.
pub fn names() -> Vec<&'static str> {
    sets().iter().map(|s| s.name).collect()
}

#[cfg(test)]
pub(crate) mod tests;
