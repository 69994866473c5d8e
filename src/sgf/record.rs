/*!
Go game records from parsed trees: [`read_games`] is the entry point of the SGF reader.

# Policies

* **One record per game tree**, in file order; `index` counts every tree found, including
  ones that fail. A file with no tree at all gives one `parse_error` at index 0
  ("no SGF game found") so that callers can count it.
* **Main line** = first child at every branch (ff3.html, sgfmill). Variations are ignored
  (`quirks.variations` tells that there were some).
* **Order of checks**: unusable tree (`parse_error`) → `GM` present and not 1, or not a
  number (`not_go`, detail `GM[..]`) → `SZ` not 19 / `19:19`, or unreadable (`size_not_19`,
  detail the SZ value) → coordinates (`bad_coordinate`). Moves of non-19×19 games are never
  interpreted.
* **Root properties** `GM` and `SZ` are taken from the first main-line node that has them,
  up to the node with the first move. **Game-info** properties (`PB`, `RE`, `KM`, …) are
  taken from the first main-line node that has them (`ff4_ex.sgf` game 2 keeps them in a
  later node; `quirks.game_info_after_root`). For repeated values the first one is used,
  except that every `AP` value is searched for `foxwq`.
* **Moves**: every `B`/`W` value of every main-line node, in property order (`B[aa][bb]` is
  two moves, like KataGo). `B[]` and, on 19×19, `B[tt]` are passes (counted in
  `quirks.tt_pass`); any other value that [`crate::coord`] refuses — malformed
  (`B[R16]`, `B[90]`, `B[Pass]`) or off the board (`B[zz]`, uppercase letters = 26+) —
  rejects the game with `bad_coordinate` and its 1-based move number. Never a pass.
  Whitespace around a point (`B[ cc ]`) is accepted, as `coord` does.
* **Setup** `AB`/`AW`/`AE`: in each node applied AB, then AW, then AE (KataGo's order;
  later ones overwrite), with compressed rectangles `aa:cc` expanded (reversed corners are
  accepted with min/max and flagged). Setup in any main-line node before the first move
  (including the node of the first move itself: Fox puts handicap `AB` in the first move's
  node, and KataGo's `foxlike.sgf` too) builds the starting position; `setup_black`/
  `setup_white` list its stones in index order (row-major). Setup in a non-root node
  there sets `quirks.handicap_after_root`. Setup after the first move becomes a
  [`MidSetup`] (`quirks.setup_after_root`); its `before_move` is the number of moves
  played before its node. Setup and `PL` count as coming before the moves of their own
  node, whatever the property order (the spec forbids mixing them; such nodes are
  flagged `quirks.setup_in_move_node`). Off-board setup points reject the game (`bad_coordinate`, no move
  number, detail names the property). An empty setup value (`AW[]`) is skipped and flagged
  (`quirks.empty_setup_value`). Setup stones may leave chains without liberties: that is
  the rules engine's business.
* **`PL`** before the first move gives `first_player` (`B`/`W`/`black`/`white`, any case);
  a `PL` after the first move is only flagged (`quirks.pl_after_root`).
* **`HA`** is recorded as written (leading digits; unreadable → 0); missing handicap
  stones are not invented
  (`quirks.handicap_stones_missing` when `HA` ≥ 2 and fewer black setup stones exist).
* **`KM`**: decimal, `,` accepted, `5 1/2` read as 5.5. Fox stores komi ×100: the value is
  divided by 100 when it is ≥ 100 in absolute value and either an `AP` value contains
  `foxwq` or the value is a whole multiple of 25 (no real komi is that large, so a
  non-Fox `KM[11]` (OGS) or `KM[-1.5]` is never touched) → `quirks.fox_komi_scaled`. Then a
  komi ending in .25 or .75 is a Chinese komi in *zi* (stones, half a point each) and is
  doubled (`375` → 3.75 → 7.5, `325` → 6.5, GoGoD's `KM[3.75]` → 7.5) →
  `quirks.komi_in_zi`; real point komi are whole or half numbers. Fox's `KM[0]` in
  handicap games stays 0 (Sabaki's test suite expects a guessed 0.5/6.5; kibo does not
  guess). Unreadable komi → `komi = None`, `komi_raw` kept.
* **Fox conventions by content**, whatever the `AP`: `HA[1]` is an even game without
  komi, read as handicap 0 (`quirks.fox_handicap_one`); `KM[0]` in an even game (no `HA`
  ≥ 2, no setup stones) is Fox's 6.5 (`quirks.fox_komi_zero`), whatever the result,
  when the record is Fox's: an `AP` names `foxwq`, or two of the Fox client's `AP[YuanYu]`,
  Fox's `TC` and `TT`, and a rank spelled `段`/`级` (`quirks.fox_by_content`; the yenw
  Fox files say `AP[YuanYu]`); or when the result's margin has a half point, which komi
  0 cannot give. `komi_raw` stays `0`.
* **Text fields** are SimpleText-decoded and trimmed; empty → `None`. A bad text field
  never rejects a game. `source_copyright` is `SO` and `CP` joined by `"; "`.
* **Dates**: `date` is the raw `DT`; `date_iso` the first date found in it: `YYYY-MM-DD`,
  `YYYY-MM` or `YYYY` from year-first forms (`2020-08-27`, `1999/5/3`, `2020年8月27日`,
  `20200827`, `1993-07-18,19`), day-first `DD.MM.YYYY` / `DD-MM-YYYY`, and `DD/MM/YYYY`
  or `MM/DD/YYYY` when one of the two numbers is above 12 (otherwise only the year).
*/

use super::decode::decode;
use super::parse::{simple_text, split_compose, unescape, IssueKind, ParseIssue, ParseLimits, PropRef, Tree, Trees};
pub use super::rank::{parse_rank, Rank, RankKind};
pub use super::result::{parse_result, GameResult, ResultKind};
use crate::coord::{sgf_move, sgf_point, CoordError, Move, Point};

pub use crate::color::Color;

/// One move of the main line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameMove {
    /// Who played.
    pub color: Color,
    /// Where (or pass).
    pub mv: Move,
}

/// Setup properties met after the first move.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MidSetup {
    /// 0-based index into `moves` of the move that follows this setup (= moves before it).
    pub before_move: u32,
    /// `AB` points.
    pub black: Vec<Point>,
    /// `AW` points.
    pub white: Vec<Point>,
    /// `AE` points.
    pub empty: Vec<Point>,
}

/// Unusual things met while reading a game that did not reject it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Quirks {
    /// `KM` was Fox's ×100 form and was divided by 100.
    pub fox_komi_scaled: bool,
    /// `KM` was in Chinese *zi* (x.25 / x.75) and was doubled.
    pub komi_in_zi: bool,
    /// Setup stones in non-root nodes before the first move were merged into the start position.
    pub handicap_after_root: bool,
    /// `HA` ≥ 2 but fewer black stones in the start position.
    pub handicap_stones_missing: bool,
    /// Passes written `tt`.
    pub tt_pass: u32,
    /// Property identifiers with lowercase letters (`FF[1]`–`FF[3]`).
    pub lowercase_idents: bool,
    /// A property repeated inside one node (values merged).
    pub repeated_props: bool,
    /// The tree's closing `)` was missing at end of input.
    pub missing_close_paren: bool,
    /// Text was skipped before this tree.
    pub junk_before: bool,
    /// A node was assumed where a `;` was missing.
    pub missing_semicolon: bool,
    /// Other recoverable syntax issues (stray characters or values, properties without
    /// value, dropped identifiers, empty variations).
    pub syntax_issues: u32,
    /// Moves by the same colour as the move before.
    pub non_alternating: u32,
    /// Nodes holding more than one move.
    pub multi_move_nodes: u32,
    /// Setup after the first move (see `mid_setup`).
    pub setup_after_root: bool,
    /// A node holds both setup and a move (the spec forbids it).
    pub setup_in_move_node: bool,
    /// `PL` after the first move (ignored).
    pub pl_after_root: bool,
    /// The tree has variations (only the main line is read).
    pub variations: bool,
    /// A compressed point list `aa:cc` was expanded.
    pub compressed_lists: bool,
    /// A compressed point list had its corners reversed.
    pub reversed_rectangle: bool,
    /// An empty setup value (`AW[]`) was skipped.
    pub empty_setup_value: bool,
    /// `SZ[19:19]` form.
    pub size_compose: bool,
    /// Game-info properties found outside the root node.
    pub game_info_after_root: bool,
    /// Fox's `KM[0]` in an even game read as 6.5 (see the module docs).
    pub fox_komi_zero: bool,
    /// A Fox record told by its content without `AP[foxwq]` (see the module docs).
    pub fox_by_content: bool,
    /// `HA[1]` (an even game without komi, as Fox and Cyberoro write it) read as no handicap.
    pub fox_handicap_one: bool,
    /// The komi cannot be known (a Tygem record with a non-zero `DUM`).
    pub komi_unknown: bool,
    /// The move count the record declares differs from its moves (GIB `TCNT`, NGF line 11).
    pub move_count_mismatch: bool,
    /// The charset could not be decided: the names are kept as decoded by the last resort.
    pub charset_undecided: bool,
}

impl Quirks {
    /// Names (the field names) of the quirks present: `true` flags and non-zero counters,
    /// in declaration order. Stable strings for reports and the games table.
    pub fn names(&self) -> Vec<&'static str> {
        [
            ("fox_komi_scaled", self.fox_komi_scaled),
            ("komi_in_zi", self.komi_in_zi),
            ("handicap_after_root", self.handicap_after_root),
            ("handicap_stones_missing", self.handicap_stones_missing),
            ("tt_pass", self.tt_pass > 0),
            ("lowercase_idents", self.lowercase_idents),
            ("repeated_props", self.repeated_props),
            ("missing_close_paren", self.missing_close_paren),
            ("junk_before", self.junk_before),
            ("missing_semicolon", self.missing_semicolon),
            ("syntax_issues", self.syntax_issues > 0),
            ("non_alternating", self.non_alternating > 0),
            ("multi_move_nodes", self.multi_move_nodes > 0),
            ("setup_after_root", self.setup_after_root),
            ("setup_in_move_node", self.setup_in_move_node),
            ("pl_after_root", self.pl_after_root),
            ("variations", self.variations),
            ("compressed_lists", self.compressed_lists),
            ("reversed_rectangle", self.reversed_rectangle),
            ("empty_setup_value", self.empty_setup_value),
            ("size_compose", self.size_compose),
            ("game_info_after_root", self.game_info_after_root),
            ("fox_komi_zero", self.fox_komi_zero),
            ("fox_by_content", self.fox_by_content),
            ("fox_handicap_one", self.fox_handicap_one),
            ("komi_unknown", self.komi_unknown),
            ("move_count_mismatch", self.move_count_mismatch),
            ("charset_undecided", self.charset_undecided),
        ]
        .iter()
        .filter(|(_, on)| *on)
        .map(|(n, _)| *n)
        .collect()
    }
}

/// One Go game, main line only.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// Game index within its file (0-based, counting every tree found, including failures).
    pub index: usize,
    /// Byte offset of the tree's `(` in the decoded text.
    pub offset: usize,
    /// `(cols, rows)`; always `(19, 19)` for a record (other sizes are rejected).
    pub size: (u32, u32),
    /// `GM` as written; `None` when absent (treated as 1 = Go).
    pub game_type: Option<u32>,
    /// Komi in points after normalisation (see module docs).
    pub komi: Option<f32>,
    /// `KM` as written.
    pub komi_raw: Option<String>,
    /// `HA`, 0 when absent or unreadable.
    pub handicap: u32,
    /// `RU`.
    pub rules: Option<String>,
    /// `RE`, parsed.
    pub result: GameResult,
    /// `PB`.
    pub black: Option<String>,
    /// `PW`.
    pub white: Option<String>,
    /// `BR`, parsed (`None` when absent or not a rank).
    pub black_rank: Option<Rank>,
    /// `WR`, parsed.
    pub white_rank: Option<Rank>,
    /// `DT` as written.
    pub date: Option<String>,
    /// First date in `DT`, `YYYY-MM-DD` / `YYYY-MM` / `YYYY`.
    pub date_iso: Option<String>,
    /// `EV`.
    pub event: Option<String>,
    /// `RO`.
    pub round: Option<String>,
    /// `PC`.
    pub place: Option<String>,
    /// `GN`.
    pub game_name: Option<String>,
    /// `AP` (first value).
    pub application: Option<String>,
    /// `SO` and `CP`, joined by `"; "`.
    pub source_copyright: Option<String>,
    /// Black stones of the starting position, index order.
    pub setup_black: Vec<Point>,
    /// White stones of the starting position, index order.
    pub setup_white: Vec<Point>,
    /// `PL` before the first move.
    pub first_player: Option<Color>,
    /// Main-line moves.
    pub moves: Vec<GameMove>,
    /// Setup after the first move.
    pub mid_setup: Vec<MidSetup>,
    /// `TB` (black territory markup) of the last main-line node that has it, as servers
    /// such as KGS write at the end of a counted game; empty when absent or unreadable.
    pub territory_black: Vec<Point>,
    /// `TW` likewise.
    pub territory_white: Vec<Point>,
    /// What was unusual.
    pub quirks: Quirks,
    /// Charset the file was decoded with.
    pub charset: &'static str,
    /// The tree's parse issues (recoverable), for reports.
    pub issues: Vec<ParseIssue>,
    /// The reader that read it: `"sgf"`, `"gib"`, `"ngf"`, `"ugf"` (`crate::formats`).
    pub format: &'static str,
}

/// Why a game was not read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RejectReason {
    /// No usable game tree (unterminated value, empty tree, no tree in the file).
    ParseError,
    /// `GM` present and not 1.
    NotGo,
    /// `SZ` other than 19 (or `19:19`), or unreadable.
    SizeNot19,
    /// A move or setup point malformed or off the board.
    BadCoordinate,
    /// The game tree is over a [`ParseLimits`] limit (too many nodes, variations nested
    /// too deep).
    TooLarge,
    /// A `.gib`/`.ngf`/`.ugf`/`.ugi` whose content is neither that format nor SGF.
    UnknownFormat,
    /// A GIB/NGF/UGF record that cannot be read (no game section, a move line without
    /// a colour).
    BadRecord,
}

impl RejectReason {
    /// `"parse_error"`, `"not_go"`, `"size_not_19"`, `"bad_coordinate"`, `"too_large"`.
    pub fn as_str(self) -> &'static str {
        match self {
            RejectReason::ParseError => "parse_error",
            RejectReason::NotGo => "not_go",
            RejectReason::SizeNot19 => "size_not_19",
            RejectReason::BadCoordinate => "bad_coordinate",
            RejectReason::TooLarge => "too_large",
            RejectReason::UnknownFormat => "unknown_format",
            RejectReason::BadRecord => "bad_record",
        }
    }
}

/// A rejected game: reason, detail and location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError {
    /// Why.
    pub reason: RejectReason,
    /// Short detail, e.g. the SZ value or `B[zz]: off the board`.
    pub detail: String,
    /// Byte offset in the decoded text, when known.
    pub offset: Option<usize>,
    /// 1-based move number for bad moves.
    pub move_number: Option<u32>,
}

impl std::fmt::Display for RecordError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.reason.as_str(), self.detail)?;
        if let Some(m) = self.move_number {
            write!(f, " (move {m})")?;
        }
        if let Some(o) = self.offset {
            write!(f, " (at byte {o})")?;
        }
        Ok(())
    }
}

impl std::error::Error for RecordError {}

/// Everything read from one file.
#[derive(Clone, Debug, PartialEq)]
pub struct FileGames {
    /// One entry per game tree, in order (`index` = position); never empty.
    pub games: Vec<Result<GameRecord, RecordError>>,
    /// Encoding used to decode the file.
    pub charset: &'static str,
    /// Raw `CA` value, if any.
    pub declared_charset: Option<String>,
    /// The `CA` value chose the decoder.
    pub declared_used: bool,
    /// The encoding was guessed.
    pub charset_fallback: bool,
    /// The file started with a byte-order mark.
    pub had_bom: bool,
    /// Some bytes did not fit the encoding (U+FFFD in the text).
    pub malformed_text: bool,
    /// File-level parse issues (trailing garbage, empty `()`, no game tree).
    pub issues: Vec<ParseIssue>,
}

/// Reads every game of an SGF file. Never panics, never fails: problems are per game.
pub fn read_games(bytes: &[u8]) -> FileGames {
    read_games_with(bytes, ParseLimits::default())
}

/// [`read_games`] with explicit tree size limits (a tree over them is a `too_large` game).
pub fn read_games_with(bytes: &[u8], limits: ParseLimits) -> FileGames {
    let d = decode(bytes);
    let (games, issues) = games_text_limited(&d.text, d.charset, limits);
    FileGames {
        games,
        charset: d.charset,
        declared_charset: d.declared,
        declared_used: d.declared_used,
        charset_fallback: d.fallback_used,
        had_bom: d.had_bom,
        malformed_text: d.malformed,
        issues,
    }
}

/// Reads every game of already decoded text: `(games, file-level issues)`.
pub fn games_from_text(text: &str, charset: &'static str) -> (Vec<Result<GameRecord, RecordError>>, Vec<ParseIssue>) {
    games_text_limited(text, charset, ParseLimits::default())
}

type TextGames = (Vec<Result<GameRecord, RecordError>>, Vec<ParseIssue>);

fn games_text_limited(text: &str, charset: &'static str, limits: ParseLimits) -> TextGames {
    let mut trees = Trees::with_limits(text, limits);
    let mut games: Vec<Result<GameRecord, RecordError>> =
        trees.by_ref().enumerate().map(|(i, t)| game_from_tree(&t, i, charset)).collect();
    if games.is_empty() {
        games.push(Err(RecordError {
            reason: RejectReason::ParseError,
            detail: "no SGF game found".to_string(),
            offset: None,
            move_number: None,
        }));
    }
    (games, trees.into_warnings())
}

fn reject(reason: RejectReason, detail: String, offset: Option<usize>, move_number: Option<u32>) -> RecordError {
    RecordError { reason, detail, offset, move_number }
}

/// At most 40 characters of a raw value, for details.
fn short(raw: &str) -> String {
    let mut s: String = raw.chars().take(40).collect();
    if s.len() < raw.len() {
        s.push('…');
    }
    s
}

fn coord_error_str(e: CoordError) -> &'static str {
    match e {
        CoordError::Malformed => "malformed",
        CoordError::OutOfRange => "off the board",
    }
}

// Slots for game-info properties.
const KM: usize = 0;
const HA: usize = 1;
const RU: usize = 2;
const RE: usize = 3;
const PB: usize = 4;
const PW: usize = 5;
const BR: usize = 6;
const WR: usize = 7;
const DT: usize = 8;
const EV: usize = 9;
const RO: usize = 10;
const PC: usize = 11;
const GN: usize = 12;
const AP: usize = 13;
const SO: usize = 14;
const CP: usize = 15;
const TC: usize = 16;
const TT: usize = 17;
const SLOTS: usize = 18;

fn slot_of(ident: &str) -> Option<usize> {
    Some(match ident {
        "KM" => KM,
        "HA" => HA,
        "RU" => RU,
        "RE" => RE,
        "PB" => PB,
        "PW" => PW,
        "BR" => BR,
        "WR" => WR,
        "DT" => DT,
        "EV" => EV,
        "RO" => RO,
        "PC" => PC,
        "GN" => GN,
        "AP" => AP,
        "SO" => SO,
        "CP" => CP,
        "TC" => TC,
        "TT" => TT,
        _ => return None,
    })
}

/// Builds the record of one parsed tree (see the module docs for the policies).
pub fn game_from_tree(tree: &Tree<'_>, index: usize, charset: &'static str) -> Result<GameRecord, RecordError> {
    check_usable(tree)?;
    let mut q = Quirks::default();
    let (gm, sz) = root_props(tree);
    let game_type = check_root(gm, sz, &mut q)?;
    let line = read_main_line(tree, &mut q)?;

    // Game info.
    let info = line.info;
    let first = |s: usize| info[s].and_then(|p| p.values.first().copied());
    let text = |s: usize| clean_text(first(s)?);
    let (komi, komi_raw) = read_komi(first(KM), info[AP], &mut q);
    let handicap = read_handicap(first(HA), line.setup_black.len(), &mut q);
    let result = first(RE).map(parse_result).unwrap_or_else(GameResult::none);
    let fox = fox_evidence(&info, &mut q);
    let (komi, handicap) = fox_fixes(komi, handicap, &result, fox, line.setup_black.is_empty(), &mut q);
    let date = text(DT);
    let date_iso = date.as_deref().and_then(iso_date);
    let source_copyright = join_source_copyright(text(SO), text(CP));
    syntax_quirks(tree, &mut q);

    Ok(GameRecord {
        index,
        offset: tree.offset,
        size: (19, 19),
        game_type,
        komi,
        komi_raw,
        handicap,
        rules: text(RU),
        result,
        black: text(PB),
        white: text(PW),
        black_rank: text(BR).as_deref().and_then(parse_rank),
        white_rank: text(WR).as_deref().and_then(parse_rank),
        date,
        date_iso,
        event: text(EV),
        round: text(RO),
        place: text(PC),
        game_name: text(GN),
        application: text(AP),
        source_copyright,
        setup_black: line.setup_black,
        setup_white: line.setup_white,
        first_player: line.first_player,
        moves: line.moves,
        mid_setup: line.mid_setup,
        territory_black: line.territory.0,
        territory_white: line.territory.1,
        quirks: q,
        charset,
        issues: tree.issues.clone(),
        format: "sgf",
    })
}

/// Rejects a tree the parser gave up on (`too_large` over a limit, else `parse_error`)
/// or one without any node.
fn check_usable(tree: &Tree<'_>) -> Result<(), RecordError> {
    if let Some(e) = tree.error {
        let (reason, detail) = match e.kind {
            IssueKind::TooManyNodes => {
                let n = tree.limit.unwrap_or(0);
                (RejectReason::TooLarge, format!("more than {n} nodes in the game tree (limits.max_nodes)"))
            }
            IssueKind::TooDeep => {
                let n = tree.limit.unwrap_or(0);
                (RejectReason::TooLarge, format!("variations nested more than {n} deep (limits.max_variation_depth)"))
            }
            k => (RejectReason::ParseError, k.as_str().to_string()),
        };
        return Err(reject(reason, detail, Some(e.offset), None));
    }
    if tree.is_empty() {
        return Err(reject(RejectReason::ParseError, "empty game tree".to_string(), Some(tree.offset), None));
    }
    Ok(())
}

/// `GM` and `SZ`: from the first main-line node that has them, up to the first move.
fn root_props<'t, 'a>(tree: &'t Tree<'a>) -> (Option<PropRef<'t, 'a>>, Option<PropRef<'t, 'a>>) {
    let (mut gm, mut sz) = (None, None);
    for id in tree.main_line() {
        let mut has_move = false;
        for p in tree.props(id) {
            match p.ident {
                "B" | "W" => has_move = true,
                "GM" if gm.is_none() => gm = Some(p),
                "SZ" if sz.is_none() => sz = Some(p),
                _ => {}
            }
        }
        if has_move {
            break;
        }
    }
    (gm, sz)
}

/// The game-info properties by slot: the first main-line occurrence of each.
type Info<'t, 'a> = [Option<PropRef<'t, 'a>>; SLOTS];

/// Everything one pass over the main line collects, apart from the quirks.
struct MainLine<'t, 'a> {
    /// Game-info properties (slots `KM`, `HA`, …).
    info: Info<'t, 'a>,
    /// Black stones of the starting position, index order.
    setup_black: Vec<Point>,
    /// White stones of the starting position, index order.
    setup_white: Vec<Point>,
    /// `PL` before the first move.
    first_player: Option<Color>,
    /// Main-line moves.
    moves: Vec<GameMove>,
    /// Setup after the first move.
    mid_setup: Vec<MidSetup>,
    /// `TB` and `TW` of the last node that has them.
    territory: (Vec<Point>, Vec<Point>),
}

/// One pass over the main line: moves, setup, `PL`, territory markup and game info.
/// Setup and `PL` of a node count as coming before its moves, whatever their order in
/// the node.
fn read_main_line<'t, 'a>(tree: &'t Tree<'a>, q: &mut Quirks) -> Result<MainLine<'t, 'a>, RecordError> {
    let mut line = MainLine {
        info: [None; SLOTS],
        setup_black: Vec::new(),
        setup_white: Vec::new(),
        first_player: None,
        moves: Vec::new(),
        mid_setup: Vec::new(),
        territory: (Vec::new(), Vec::new()),
    };
    let mut board = [0u8; 361];
    let mut any_setup = false;
    line.moves.reserve(tree.len());
    for (k, id) in tree.main_line().enumerate() {
        let played_before = line.moves.len();
        let node = read_node(tree, id, k, &mut line, q)?;
        let played = line.moves.len() - played_before;
        if played > 1 {
            q.multi_move_nodes += 1;
        }
        if node.has_setup {
            let set = node_setup(tree, id, played_before as u32, q)?;
            if played > 0 {
                q.setup_in_move_node = true;
            }
            if played_before == 0 {
                any_setup = true;
                if k > 0 {
                    q.handicap_after_root = true;
                }
                place_setup(&mut board, &set);
            } else {
                q.setup_after_root = true;
                line.mid_setup.push(set);
            }
        }
        if let Some(v) = node.pl {
            if played_before == 0 {
                line.first_player = parse_color(v);
            } else {
                q.pl_after_root = true;
            }
        }
    }
    if any_setup {
        (line.setup_black, line.setup_white) = start_position(&board);
    }
    Ok(line)
}

/// What [`read_node`] leaves to its caller: whether the node has setup, and its `PL`.
struct NodeRest<'a> {
    /// The node has `AB`, `AW` or `AE`.
    has_setup: bool,
    /// First `PL` value.
    pl: Option<&'a str>,
}

/// The properties of main-line node `id` (the `k`-th) in order: moves into
/// `line.moves`, `TB`/`TW` into `line.territory`, game info into `line.info`.
fn read_node<'t, 'a>(
    tree: &'t Tree<'a>,
    id: u32,
    k: usize,
    line: &mut MainLine<'t, 'a>,
    q: &mut Quirks,
) -> Result<NodeRest<'a>, RecordError> {
    let mut rest = NodeRest { has_setup: false, pl: None };
    for p in tree.props(id) {
        let ib = p.ident.as_bytes();
        if ib.len() == 1 && (ib[0] == b'B' || ib[0] == b'W') {
            let color = if ib[0] == b'B' { Color::Black } else { Color::White };
            push_moves(p, color, &mut line.moves, q)?;
            continue;
        }
        match p.ident {
            "AB" | "AW" | "AE" => rest.has_setup = true,
            "TB" => line.territory.0 = markup_points(p),
            "TW" => line.territory.1 = markup_points(p),
            "PL" => rest.pl = p.values.first().copied(),
            other => {
                // Fox's time properties count in the root only: other applications write
                // `TC`/`TT` in later nodes with other meanings (GNU Go's `TC[-153]`).
                if let Some(s) = slot_of(other).filter(|&s| k == 0 || !(s == TC || s == TT)) {
                    if line.info[s].is_none() {
                        line.info[s] = Some(p);
                        q.game_info_after_root |= k > 0;
                    }
                }
            }
        }
    }
    Ok(rest)
}

/// Appends every value of a `B`/`W` property to `moves` (see the module docs for passes
/// and bad coordinates).
#[inline]
fn push_moves(p: PropRef<'_, '_>, color: Color, moves: &mut Vec<GameMove>, q: &mut Quirks) -> Result<(), RecordError> {
    for raw in p.values {
        let v = unescape(raw);
        let mv = match read_move(&v) {
            Ok(mv) => mv,
            Err(e) => return Err(bad_move(p, raw, e, moves.len())),
        };
        if mv == Move::Pass && !v.is_empty() && v.trim() == "tt" {
            q.tt_pass += 1;
        }
        if moves.last().is_some_and(|m| m.color == color) {
            q.non_alternating += 1;
        }
        moves.push(GameMove { color, mv });
    }
    Ok(())
}

/// Points of a `TB`/`TW` markup property: an unreadable point never rejects the game,
/// it drops the list (empty).
fn markup_points(p: PropRef<'_, '_>) -> Vec<Point> {
    let mut pts = Vec::new();
    let mut scratch = Quirks::default();
    let ok = points(p, &mut pts, &mut scratch).is_ok();
    if ok {
        pts
    } else {
        Vec::new()
    }
}

/// The `AB`/`AW`/`AE` points of node `id`, as a [`MidSetup`] before move `before_move`.
fn node_setup(tree: &Tree<'_>, id: u32, before_move: u32, q: &mut Quirks) -> Result<MidSetup, RecordError> {
    let mut set = MidSetup { before_move, ..Default::default() };
    for p in tree.props(id) {
        match p.ident {
            "AB" => points(p, &mut set.black, q)?,
            "AW" => points(p, &mut set.white, q)?,
            "AE" => points(p, &mut set.empty, q)?,
            _ => {}
        }
    }
    Ok(set)
}

/// Applies one node's setup to the starting position (0 empty, 1 black, 2 white).
fn place_setup(board: &mut [u8; 361], set: &MidSetup) {
    // AB, then AW, then AE, whatever their order in the node.
    for p in &set.black {
        board[p.index() as usize] = 1;
    }
    for p in &set.white {
        board[p.index() as usize] = 2;
    }
    for p in &set.empty {
        board[p.index() as usize] = 0;
    }
}

/// `(black, white)` stones of the starting position, in index order (row-major).
fn start_position(board: &[u8; 361]) -> (Vec<Point>, Vec<Point>) {
    let mut setup_black = Vec::new();
    let mut setup_white = Vec::new();
    for (row, line) in board.chunks_exact(19).enumerate() {
        for (col, &c) in line.iter().enumerate() {
            match c {
                1 => setup_black.extend(Point::new(row, col)),
                2 => setup_white.extend(Point::new(row, col)),
                _ => {}
            }
        }
    }
    (setup_black, setup_white)
}

/// Some `AP` value names Fox (`foxwq`).
fn is_fox(ap: Option<PropRef<'_, '_>>) -> bool {
    ap_names(ap, "foxwq")
}

/// Some `AP` value contains `name` (ASCII case ignored).
fn ap_names(ap: Option<PropRef<'_, '_>>, name: &str) -> bool {
    ap.is_some_and(|p| p.values.iter().any(|v| v.to_ascii_lowercase().contains(name)))
}

/// Is this a Fox (野狐) record, told by what it holds? An `AP` naming `foxwq` is enough.
/// Otherwise two of three: the application Fox's client writes (`AP[YuanYu]`), Fox's own
/// time properties (`TC` and `TT` both), and a rank spelled as Fox spells it (`BR`/`WR`
/// ending in 段 or 级, `P9段`, `15级`). KGS writes `5d`/`3k` and `TM`/`OT`, GNU Go neither:
/// their no-komi games stay at 0. A record recognised without `foxwq` is flagged
/// `fox_by_content`.
fn fox_evidence(info: &[Option<PropRef<'_, '_>>; SLOTS], q: &mut Quirks) -> bool {
    if is_fox(info[AP]) {
        return true;
    }
    let fox_rank = [BR, WR].iter().any(|&s| {
        info[s].and_then(|p| p.values.first().copied()).is_some_and(|v| {
            let t = clean_text(v).unwrap_or_default();
            t.ends_with('段') || t.ends_with('级')
        })
    });
    let evidence = [ap_names(info[AP], "yuanyu"), info[TC].is_some() && info[TT].is_some(), fox_rank];
    let fox = evidence.iter().filter(|e| **e).count() >= 2;
    q.fox_by_content = fox;
    fox
}

/// Fox's komi and handicap conventions, told by the content whatever the `AP`:
/// `HA[1]` is an even game without komi (handicap 0, `fox_handicap_one`); `KM[0]` in an
/// even game without setup stones is 6.5 (`fox_komi_zero`) when the record is Fox's
/// ([`fox_evidence`]) or the result's margin has a half point (which komi 0 cannot give).
fn fox_fixes(
    komi: Option<f32>,
    handicap: u32,
    result: &GameResult,
    fox: bool,
    no_setup: bool,
    q: &mut Quirks,
) -> (Option<f32>, u32) {
    let mut handicap = handicap;
    if handicap == 1 {
        q.fox_handicap_one = true;
        handicap = 0;
        return (komi, handicap);
    }
    let half_point = result.margin.is_some_and(|m| (m.fract().abs() - 0.5).abs() < 1e-6);
    if komi == Some(0.0) && handicap == 0 && no_setup && (fox || half_point) {
        q.fox_komi_zero = true;
        return (Some(6.5), handicap);
    }
    (komi, handicap)
}

/// `(komi, komi_raw)` from the first `KM` value, Fox's scale told by the `AP` values.
fn read_komi(km: Option<&str>, ap: Option<PropRef<'_, '_>>, q: &mut Quirks) -> (Option<f32>, Option<String>) {
    let is_fox = is_fox(ap);
    let komi_raw = km.map(|v| clean_text(v).unwrap_or_default());
    let komi = komi_raw.as_deref().and_then(|v| parse_komi(v, is_fox, q));
    (komi, komi_raw)
}

/// `HA` (0 when absent or unreadable); flags missing handicap stones.
fn read_handicap(ha: Option<&str>, setup_black: usize, q: &mut Quirks) -> u32 {
    let handicap = ha.and_then(|v| leading_uint(&simple_text(v))).unwrap_or(0);
    if handicap >= 2 && (setup_black as u32) < handicap {
        q.handicap_stones_missing = true;
    }
    handicap
}

/// `SO` and `CP` joined by `"; "`, or whichever is present.
fn join_source_copyright(so: Option<String>, cp: Option<String>) -> Option<String> {
    match (so, cp) {
        (Some(a), Some(b)) => Some(format!("{a}; {b}")),
        (a, b) => a.or(b),
    }
}

/// The quirks that come from the parser's issues and the tree's shape.
fn syntax_quirks(tree: &Tree<'_>, q: &mut Quirks) {
    q.lowercase_idents = tree.has(IssueKind::LowercaseIdent);
    q.repeated_props = tree.has(IssueKind::RepeatedProperty);
    q.missing_close_paren = tree.has(IssueKind::MissingCloseParen);
    q.junk_before = tree.has(IssueKind::JunkBefore);
    q.missing_semicolon = tree.has(IssueKind::MissingSemicolon);
    q.syntax_issues = [
        IssueKind::StrayChar,
        IssueKind::StrayValue,
        IssueKind::MissingValue,
        IssueKind::DroppedIdent,
        IssueKind::EmptyVariation,
    ]
    .iter()
    .map(|&k| tree.count(k))
    .fold(0u32, u32::saturating_add);
    q.variations = tree.has_variations();
}

/// `GM` and `SZ` checks; returns `game_type`.
fn check_root(
    gm: Option<PropRef<'_, '_>>,
    sz: Option<PropRef<'_, '_>>,
    q: &mut Quirks,
) -> Result<Option<u32>, RecordError> {
    let mut game_type = None;
    if let Some(p) = gm {
        let raw = p.values[0];
        match unescape(raw).trim().parse::<u32>() {
            Ok(1) => game_type = Some(1),
            _ => return Err(reject(RejectReason::NotGo, format!("GM[{}]", short(raw)), Some(p.offset), None)),
        }
    }
    if let Some(p) = sz {
        let raw = p.values[0];
        let v = unescape(raw);
        let size = match split_compose(&v) {
            Some((a, b)) => {
                q.size_compose = true;
                (a.trim().parse::<u32>().ok(), b.trim().parse::<u32>().ok())
            }
            None => {
                let n = v.trim().parse::<u32>().ok();
                (n, n)
            }
        };
        if size != (Some(19), Some(19)) {
            return Err(reject(RejectReason::SizeNot19, short(raw), Some(p.offset), None));
        }
    }
    Ok(game_type)
}

/// A move value on 19×19 through [`crate::coord`]: a two-letter value other than `tt`
/// goes straight to [`sgf_point`] (one trim instead of two: this is the hot path),
/// everything else (passes, odd lengths, whitespace) to [`sgf_move`].
#[inline]
fn read_move(v: &str) -> Result<Move, CoordError> {
    if v.len() == 2 && v != "tt" {
        let (row, col) = sgf_point(v, 19)?;
        Point::new(row, col).map(Move::Play).ok_or(CoordError::OutOfRange)
    } else {
        sgf_move(v)
    }
}

#[cold]
fn bad_move(p: PropRef<'_, '_>, raw: &str, e: CoordError, played: usize) -> RecordError {
    reject(
        RejectReason::BadCoordinate,
        format!("{}[{}]: {}", p.ident, short(raw), coord_error_str(e)),
        Some(p.offset),
        Some(played as u32 + 1),
    )
}

/// Expands the values of a setup property (single points and `aa:cc` rectangles).
fn points(p: PropRef<'_, '_>, out: &mut Vec<Point>, q: &mut Quirks) -> Result<(), RecordError> {
    let bad = |raw: &str, e: CoordError| {
        reject(
            RejectReason::BadCoordinate,
            format!("{}[{}]: {}", p.ident, short(raw), coord_error_str(e)),
            Some(p.offset),
            None,
        )
    };
    out.reserve(p.values.len());
    for &raw in p.values {
        let v = unescape(raw);
        let v = trim_ws(&v);
        if v.is_empty() {
            q.empty_setup_value = true;
            continue;
        }
        match split_compose(v) {
            Some((a, b)) => {
                let (r1, c1) = sgf_point(a, 19).map_err(|e| bad(raw, e))?;
                let (r2, c2) = sgf_point(b, 19).map_err(|e| bad(raw, e))?;
                q.compressed_lists = true;
                if r1 > r2 || c1 > c2 {
                    q.reversed_rectangle = true;
                }
                for r in r1.min(r2)..=r1.max(r2) {
                    for c in c1.min(c2)..=c1.max(c2) {
                        out.extend(Point::new(r, c));
                    }
                }
            }
            None => {
                let (r, c) = sgf_point(v, 19).map_err(|e| bad(raw, e))?;
                out.extend(Point::new(r, c));
            }
        }
    }
    Ok(())
}

/// `str::trim` with a fast exit for the usual value without surrounding whitespace.
#[inline]
fn trim_ws(v: &str) -> &str {
    match v.as_bytes() {
        [first, .., last] if !first.is_ascii_whitespace() && !last.is_ascii_whitespace() => v,
        _ => v.trim(),
    }
}

/// SimpleText, trimmed; `None` when empty.
fn clean_text(raw: &str) -> Option<String> {
    let mut s = simple_text(raw);
    let t = s.trim();
    if t.is_empty() {
        return None;
    }
    if t.len() != s.len() {
        s = t.to_string();
    }
    Some(s)
}

/// `PL` value: `B`, `W`, `black`, `white` (any case).
fn parse_color(raw: &str) -> Option<Color> {
    let v = simple_text(raw).trim().to_ascii_lowercase();
    match v.as_str() {
        "b" | "black" => Some(Color::Black),
        "w" | "white" => Some(Color::White),
        _ => None,
    }
}

fn leading_uint(s: &str) -> Option<u32> {
    let s = s.trim();
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    s[..end].parse().ok()
}

/// Komi in points (see the module docs); updates the komi quirks.
pub fn parse_komi(raw: &str, is_fox: bool, q: &mut Quirks) -> Option<f32> {
    let t = raw.trim().replace(',', ".");
    let mut v: f64 = match t.parse::<f64>() {
        Ok(v) => v,
        Err(_) => {
            // Leading number, optionally followed by "1/2" or "½".
            let end = t
                .char_indices()
                .find(|&(i, c)| !(c.is_ascii_digit() || c == '.' || (i == 0 && (c == '-' || c == '+'))))
                .map(|(i, _)| i)
                .unwrap_or(t.len());
            let mut v: f64 = t[..end].parse().ok()?;
            let rest = t[end..].trim_start();
            if rest.starts_with("1/2") || rest.starts_with('½') {
                v += if v < 0.0 || t.starts_with('-') { -0.5 } else { 0.5 };
            }
            v
        }
    };
    if !v.is_finite() {
        return None;
    }
    if v.abs() >= 100.0 && (is_fox || (v.fract() == 0.0 && (v as i64) % 25 == 0)) {
        v /= 100.0;
        q.fox_komi_scaled = true;
    }
    let quarters = v.abs() * 4.0;
    if (quarters - quarters.round()).abs() < 1e-6 && (quarters.round() as i64) % 2 == 1 {
        v *= 2.0;
        q.komi_in_zi = true;
    }
    Some(v as f32)
}

/// First date in a `DT` value as `YYYY-MM-DD`, `YYYY-MM` or `YYYY` (see module docs).
pub fn iso_date(dt: &str) -> Option<String> {
    // Maximal runs of ASCII digits: (start, end).
    let b = dt.as_bytes();
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let s = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            runs.push((s, i));
        } else {
            i += 1;
        }
    }
    let num = |r: (usize, usize)| dt[r.0..r.1].parse::<u32>().unwrap_or(0);
    let len = |r: (usize, usize)| r.1 - r.0;
    let sep = |a: (usize, usize), b: (usize, usize)| dt[a.1..b.0].trim().to_string();
    let date_sep =
        |s: &str, raw_len: usize| matches!(s, "-" | "/" | "." | "年" | "月") || (s.is_empty() && raw_len > 0);
    let fmt = |y: u32, m: Option<u32>, d: Option<u32>| match (m, d) {
        (Some(m), Some(d)) => format!("{y:04}-{m:02}-{d:02}"),
        (Some(m), None) => format!("{y:04}-{m:02}"),
        _ => format!("{y:04}"),
    };
    for (k, &r) in runs.iter().enumerate() {
        if len(r) == 8 {
            let (y, m, d) = (num((r.0, r.0 + 4)), num((r.0 + 4, r.0 + 6)), num((r.0 + 6, r.1)));
            if (1000..=2999).contains(&y) && (1..=12).contains(&m) && (1..=31).contains(&d) {
                return Some(fmt(y, Some(m), Some(d)));
            }
            continue;
        }
        if len(r) != 4 || !(1000..=2999).contains(&num(r)) {
            continue;
        }
        let y = num(r);
        // Year first.
        if let Some(&mr) = runs.get(k + 1) {
            let s = sep(r, mr);
            if len(mr) <= 2 && (1..=12).contains(&num(mr)) && date_sep(&s, mr.0 - r.1) {
                let m = num(mr);
                if let Some(&dr) = runs.get(k + 2) {
                    let s2 = sep(mr, dr);
                    if len(dr) <= 2 && (1..=31).contains(&num(dr)) && date_sep(&s2, dr.0 - mr.1) {
                        return Some(fmt(y, Some(m), Some(num(dr))));
                    }
                }
                return Some(fmt(y, Some(m), None));
            }
        }
        // Day or month first: a.b.YYYY
        if k >= 2 {
            let (ar, br) = (runs[k - 2], runs[k - 1]);
            let (s1, s2) = (sep(ar, br), sep(br, r));
            if len(ar) <= 2 && len(br) <= 2 && s1 == s2 && matches!(s1.as_str(), "." | "-" | "/") {
                let (a, bb) = (num(ar), num(br));
                let dm = if s1 == "/" {
                    if a > 12 && a <= 31 && (1..=12).contains(&bb) {
                        Some((bb, a))
                    } else if bb > 12 && bb <= 31 && (1..=12).contains(&a) {
                        Some((a, bb))
                    } else {
                        None
                    }
                } else if (1..=31).contains(&a) && (1..=12).contains(&bb) {
                    Some((bb, a))
                } else {
                    None
                };
                if let Some((m, d)) = dm {
                    return Some(fmt(y, Some(m), Some(d)));
                }
            }
        }
        return Some(fmt(y, None, None));
    }
    None
}
