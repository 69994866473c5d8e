/*!
Readers for the Asian servers' own record formats, beside the SGF reader: Tygem `.gib`
([`mod@gib`]), WBaduk/Cyberoro `.ngf` ([`mod@ngf`]) and IGS/Panda `.ugf`/`.ugi`
([`mod@ugf`]). Each gives the same [`GameRecord`] the SGF reader gives, so everything
after the reader (the games row, the filter, the split's replay) is the same for every
format; [`GameRecord::format`] says which reader read the game (the games table's
`format` column). [`write_sgf`] writes any record back as clean SGF (`kibo convert`).

[`read_document`] chooses the reader from the name's extension **confirmed by the
content**: a `.gib` must have a `\HS`/`\GS` section, an `.ngf` `PM` move lines, a
`.ugf`/`.ugi` a `[Data]` section. A file that says one of these extensions but holds SGF
(`(;`) is read as SGF; one that holds neither gives one `unknown_format` game. Every
other name goes straight to [`sgf::read_games_with`], unchanged.

The conventions (Tygem 3-stone layout, komi scales, result codes, charsets) are in
docs/reading.md, "Other formats"; the facts behind them in `../shared/docs/FORMATS.md`.
Coordinates become [`Point`]s here and nowhere else in this module.
*/

mod common;
pub mod gib;
pub mod ngf;
pub mod ugf;
mod write;

/// SGF text with `\` and `]` escaped.
pub use write::esc as escape_text;

#[cfg(test)]
mod tests;

use crate::sgf::{self, decode, FileGames, ParseLimits, RejectReason};

use common::record_error;
pub use common::tygem_handicap;
pub use write::write_sgf;

/// The record formats kibo reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// SGF (`.sgf`, `.sgfs` lines, and anything not named otherwise).
    Sgf,
    /// Tygem `.gib`.
    Gib,
    /// WBaduk / Cyberoro `.ngf`.
    Ngf,
    /// IGS / Panda `.ugf` and `.ugi`.
    Ugf,
}

impl Format {
    /// `"sgf"`, `"gib"`, `"ngf"`, `"ugf"`: the games table's `format` column.
    pub const fn as_str(self) -> &'static str {
        match self {
            Format::Sgf => "sgf",
            Format::Gib => "gib",
            Format::Ngf => "ngf",
            Format::Ugf => "ugf",
        }
    }

    /// The format a file or member name announces by its extension (any case;
    /// `x.gib..gib` counts as `.gib`).
    pub fn of_name(name: &str) -> Format {
        let n = name.to_ascii_lowercase();
        if n.ends_with(".gib") {
            Format::Gib
        } else if n.ends_with(".ngf") {
            Format::Ngf
        } else if n.ends_with(".ugf") || n.ends_with(".ugi") {
            Format::Ugf
        } else {
            Format::Sgf
        }
    }
}

/// Reads every game of a document named `name` (see the module docs for the choice of
/// reader). Never panics, never fails: problems are per game.
pub fn read_document(name: &str, bytes: &[u8], limits: ParseLimits) -> FileGames {
    let announced = Format::of_name(name);
    if announced == Format::Sgf {
        return sgf::read_games_with(bytes, limits);
    }
    let d = decode(bytes);
    let confirmed = match announced {
        Format::Gib => gib::looks_like(&d.text),
        Format::Ngf => ngf::looks_like(&d.text),
        Format::Ugf => ugf::looks_like(&d.text),
        Format::Sgf => false,
    };
    let game = if confirmed {
        let mut g = match announced {
            Format::Gib => gib::read(&d.text),
            Format::Ngf => ngf::read(&d.text),
            _ => ugf::read(&d.text),
        };
        if let Ok(g) = &mut g {
            g.charset = d.charset;
            g.quirks.charset_undecided = d.fallback_used && d.charset == "windows-1252";
        }
        g
    } else if d.text.contains("(;") {
        return sgf::read_games_with(bytes, limits);
    } else {
        Err(record_error(
            RejectReason::UnknownFormat,
            format!(
                "named .{} but the content is not {} (nor SGF)",
                announced.as_str(),
                announced.as_str().to_uppercase()
            ),
            None,
        ))
    };
    FileGames {
        games: vec![game],
        charset: d.charset,
        declared_charset: None,
        declared_used: false,
        charset_fallback: d.fallback_used,
        had_bom: d.had_bom,
        malformed_text: d.malformed,
        issues: Vec::new(),
    }
}
