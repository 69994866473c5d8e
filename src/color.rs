/*!
The one player colour of the crate: the SGF reader, the rules engine, the tables and
the renderers all use [`Color`]. Its discriminants are the cell values of boards
(`1` black, `2` white; `0` is an empty point), and its text form is SGF's (`B`/`W`).
*/

/// A player, and the colour of a stone. The discriminants are the cell values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Color {
    /// Black, cell value `1`, SGF `B`.
    Black = 1,
    /// White, cell value `2`, SGF `W`.
    White = 2,
}

impl Color {
    /// The other colour.
    #[inline]
    pub const fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }
    /// From a cell value: `1` black, `2` white, anything else `None`.
    #[inline]
    pub const fn from_u8(v: u8) -> Option<Color> {
        match v {
            1 => Some(Color::Black),
            2 => Some(Color::White),
            _ => None,
        }
    }
    /// Cell value: `1` black, `2` white.
    #[inline]
    pub const fn as_u8(self) -> u8 {
        self as u8
    }
    /// `"B"` or `"W"` (SGF's property names; the tables' text form).
    pub const fn as_str(self) -> &'static str {
        match self {
            Color::Black => "B",
            Color::White => "W",
        }
    }
    /// From `"B"` / `"W"` (exactly; the tables' text form).
    pub fn from_str_exact(s: &str) -> Option<Color> {
        match s {
            "B" => Some(Color::Black),
            "W" => Some(Color::White),
            _ => None,
        }
    }
    /// `"black"` or `"white"`, for messages.
    pub const fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Color;

    #[test]
    fn cell_values_and_text() {
        for (c, v, s) in [(Color::Black, 1u8, "B"), (Color::White, 2, "W")] {
            assert_eq!(c.as_u8(), v);
            assert_eq!(Color::from_u8(v), Some(c));
            assert_eq!(c.as_str(), s);
            assert_eq!(Color::from_str_exact(s), Some(c));
            assert_eq!(c.opponent().opponent(), c);
        }
        assert_eq!(Color::from_u8(0), None);
        assert_eq!(Color::from_u8(3), None);
        assert_eq!(Color::from_str_exact("b"), None);
    }
}
