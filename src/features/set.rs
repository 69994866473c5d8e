//! [`FeatureSet`]: what one set of network inputs declares (see [`super`]).

use super::position::Position;

/// One set of network inputs.
pub struct FeatureSet {
    /// Its name (`leela-18`, …), as [`by_name`] and the command line know it.
    pub name: &'static str,
    /// Spatial channels, 361 values each.
    pub spatial: usize,
    /// Global values.
    pub global: usize,
    /// Writes `pos`'s planes into `spatial` (`spatial * 361` values, 0/1, channel-major,
    /// each channel row-major from the top-left) and `global` (`global` values). Every
    /// value is written.
    pub encode: fn(pos: &Position, spatial: &mut [u8], global: &mut [f32]),
}
