/*!
The SGF reader: bytes of a `.sgf` file in, Go game records out.

Three layers, each usable alone:

1. [`mod@decode`]: bytes → `String` (BOM, UTF-16, `CA`, UTF-8, guessed legacy charsets).
   Decoding comes before tokenizing because Shift_JIS / Big5 / GBK characters may end in
   the bytes of `\` and `]`.
2. [`mod@parse`]: generic SGF grammar, knows nothing of Go. Flat node arena per tree, raw
   (still escaped) values borrowed from the text, located [`ParseIssue`]s, iterative (no
   recursion per node: 50,000-node lines parse on a 256 KiB stack), recovers from junk,
   missing `;`/`)`, lowercase identifiers, repeated properties. Value helpers
   [`text_value`], [`simple_text`], [`unescape`], [`split_compose`] live there too.
3. [`mod@record`]: one [`GameRecord`] (or a located [`RecordError`]) per tree: main line,
   setup, metadata, server quirks, with [`mod@rank`] (`BR`/`WR`) and [`mod@result`] (`RE`).
   [`read_games`] runs all three layers.

Coordinates are converted only by [`crate::coord`]. This module uses nothing else from
the crate, and only `encoding_rs` outside std.

```
use kibo::sgf::{read_games, ResultKind};
let file = read_games(b"junk (;GM[1]SZ[19]KM[650]AP[foxwq]RE[B+R];B[pd];W[tt])");
let game = file.games[0].as_ref().unwrap();
assert_eq!(game.moves.len(), 2);
assert_eq!(game.komi, Some(6.5));
assert_eq!(game.result.kind, ResultKind::Resign);
assert!(game.quirks.junk_before && game.quirks.fox_komi_scaled);
assert_eq!(game.quirks.tt_pass, 1);
```
*/

pub mod decode;
pub mod parse;
pub mod rank;
pub mod record;
pub mod result;

#[cfg(test)]
mod tests;

pub use decode::{decode, Decoded};
pub use parse::{
    parse, simple_text, split_compose, text_value, unescape, Collection, IssueKind, Node, ParseIssue, ParseLimits,
    PropRef, Props, Tree, Trees,
};
pub use rank::{parse_rank, Rank, RankKind};
pub use record::{
    game_from_tree, games_from_text, iso_date, read_games, read_games_with, Color, FileGames, GameMove, GameRecord,
    MidSetup, Quirks, RecordError, RejectReason,
};
pub use result::{parse_result, GameResult, ResultKind};
