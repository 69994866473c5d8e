//! The 19×19 board: stones, chains, exact liberty counts, captures, simple ko, hash.
//!
//! The model is KataGo's (`cpp/game/board.h`):
//!
//! * a 1-D array of cells with a wall border, so that the four neighbours of any point
//!   on the board are `loc - 20`, `loc - 1`, `loc + 1`, `loc + 20` and a neighbour loop
//!   needs no bounds test: a point `(row, col)` sits at `(row + 2) * 20 + col + 1`;
//!   column 0 of each padded row is the wall shared by the right edge of the row above;
//!   two wall rows lie above and below the board, and the array has 512 cells, so
//!   indexing with `& 511` never needs a bounds check and never panics;
//! * chains as circular linked lists (`next`), every stone knowing its chain's `head`;
//!   the head holds the chain's stone count and its **exact** number of distinct
//!   liberties, kept exact through placements, merges and captures;
//! * a smaller `cols`×`rows` board ([`Board::new_sized`], for test positions from other
//!   programs' suites) lives in the top-left corner of the same array: the points outside
//!   it hold the wall value, so play, liberties, legality and chain queries treat them as
//!   off the board at no cost to the 19×19 hot path;
//! * `head` is `0` (a wall cell, never a head) on empty points and walls, so
//!   "is this point next to chain `h`" is four comparisons;
//! * a simple-ko point, prisoners per colour, stone counts and a 64-bit zobrist hash of
//!   the stones only (see [`super::zobrist`]).
//!
//! [`Board`] knows nothing of turn order or superko; those live in
//! [`super::history`]. [`Board::play`] checks legality and then plays;
//! [`Board::play_unchecked`] trusts its caller (KataGo `playMoveAssumeLegal`).
//! No method panics on any argument: points off the board and bad cell values are
//! reported as errors or treated as documented.
//!
//! Speed: `play` runs at about 20–25 million moves per second on one core replaying
//! real games (legality checked, no allocation). The hot path is mostly branch-free;
//! the comments there say why each odd-looking choice was made.

use std::fmt;
use std::ops::{Index, IndexMut};

use crate::coord::{Move, Point, N, NN};

use super::zobrist::STONE_KEYS;

/// Width of a padded row: 19 points and one wall cell (column 0 of each padded row is
/// the wall shared by the right edge of the row above and the left edge of its own row).
const STRIDE: usize = N + 1;
/// Wall rows above the board. Two, so that every neighbour of a neighbour of a point is
/// inside the array (branch-free liberty tests may look past the first wall).
const TOP: usize = 2;
/// Cells in the padded array: a power of two, so that indexing with `& MASK` needs no
/// bounds check. Rows `0..2` and `21..` are walls.
const ARR: usize = 512;
/// `ARR - 1`.
const MASK: usize = ARR - 1;
/// Offsets of the four neighbours, as wrapping `usize` additions.
const ADJ: [usize; 4] = [STRIDE.wrapping_neg(), 1usize.wrapping_neg(), 1, STRIDE];

/// Runs `$body` with `$a` bound to each of the four neighbours of `$loc` (an on-board
/// location), unrolled. `$body` must not use `continue` or `break`.
macro_rules! each_adj {
    ($loc:expr, $a:ident => $body:expr) => {{
        let base: usize = $loc;
        {
            let $a = base - STRIDE;
            $body;
        }
        {
            let $a = base - 1;
            $body;
        }
        {
            let $a = base + 1;
            $body;
        }
        {
            let $a = base + STRIDE;
            $body;
        }
    }};
}

/// Cell value of an empty point.
pub const EMPTY: u8 = 0;
/// Cell value of a black stone.
pub const BLACK: u8 = 1;
/// Cell value of a white stone.
pub const WHITE: u8 = 2;
/// Internal cell value of the border.
const WALL: u8 = 3;

/// A per-cell array over the padded board. Indexing masks the index with [`MASK`], so
/// it never panics and needs no bounds check; every location the board computes is
/// below [`ARR`] anyway.
#[derive(Clone, PartialEq, Eq)]
struct Grid<T>([T; ARR]);

impl<T> Index<usize> for Grid<T> {
    type Output = T;
    #[inline(always)]
    fn index(&self, i: usize) -> &T {
        &self.0[i & MASK]
    }
}

impl<T> IndexMut<usize> for Grid<T> {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.0[i & MASK]
    }
}

/// Zobrist keys laid out on the padded array: `KEYS[colour][loc]`, zero for colours 0
/// and 3 and for walls.
static KEYS: [[u64; ARR]; 4] = padded_keys();

/// Builds [`KEYS`] from [`STONE_KEYS`] at compile time.
const fn padded_keys() -> [[u64; ARR]; 4] {
    let mut t = [[0u64; ARR]; 4];
    let mut i = 0;
    while i < NN {
        let loc = loc_at(i / N, i % N);
        t[1][loc] = STONE_KEYS[i][0];
        t[2][loc] = STONE_KEYS[i][1];
        i += 1;
    }
    t
}

/// Zobrist key of a stone of cell value `c` at `loc`.
#[inline(always)]
fn key(c: u8, loc: usize) -> u64 {
    KEYS[(c & 3) as usize][loc & MASK]
}

/// Padded location of the on-board point `(row, col)`.
#[inline(always)]
const fn loc_at(row: usize, col: usize) -> usize {
    (row + TOP) * STRIDE + col + 1
}

/// Padded location of a point; `None` when the point is off the 19×19 board.
#[inline(always)]
fn loc_of(p: Point) -> Option<usize> {
    if (p.row as usize) < N && (p.col as usize) < N {
        Some(loc_at(p.row as usize, p.col as usize))
    } else {
        None
    }
}

/// Point of a padded location that is on the board.
#[inline(always)]
fn point_of(loc: usize) -> Point {
    Point { row: (loc / STRIDE).wrapping_sub(TOP) as u8, col: (loc % STRIDE).wrapping_sub(1) as u8 }
}

/// Whether a padded location is a wall cell.
const fn is_wall(loc: usize) -> bool {
    let row = loc / STRIDE;
    let col = loc % STRIDE;
    row < TOP || row >= TOP + N || col == 0
}

/// Bit 0 of each byte of a `u32` (see [`Board::place`]).
const LOW_BITS: u32 = 0x0101_0101;
/// Bit 0 of each byte of a `u64` ([`Board::empty_locs`]).
const LOW_BITS_64: u64 = 0x0101_0101_0101_0101;
/// [`Board::place`] refused a ko violation.
const REFUSED_KO: u32 = u32::MAX;
/// [`Board::place`] refused a suicide.
const REFUSED_SUICIDE: u32 = u32::MAX - 1;

pub use crate::color::Color;

/// Why a move is illegal. [`Illegal::as_str`] gives the stable `snake_case` reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Illegal {
    /// The point is not on the board (off 19×19 only by building a [`Point`] by hand, or
    /// outside a [`Board::new_sized`] area).
    OffBoard,
    /// The point already holds a stone.
    Occupied,
    /// The move leaves its own chain without liberties and captures nothing (any suicide
    /// by default; single-stone suicide always, see [`Rules`]).
    Suicide,
    /// The move retakes a simple ko at once (see [`Board::ko_point`]).
    Ko,
}

impl Illegal {
    /// Stable `snake_case` reason: `"off_board"`, `"occupied_point"`, `"suicide"`,
    /// `"ko_violation"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Illegal::OffBoard => "off_board",
            Illegal::Occupied => "occupied_point",
            Illegal::Suicide => "suicide",
            Illegal::Ko => "ko_violation",
        }
    }
}

impl fmt::Display for Illegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::error::Error for Illegal {}

/// Why [`Board::set_stone`] refused its arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SetupError {
    /// The point is not on the board (19×19, or a [`Board::new_sized`] area).
    OffBoard,
    /// The cell value is not `0`, `1` or `2`.
    BadValue(u8),
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::OffBoard => f.write_str("point off the board"),
            SetupError::BadValue(v) => write!(f, "bad cell value {v} (expected 0, 1 or 2)"),
        }
    }
}

impl std::error::Error for SetupError {}

/// What a move did. Cheap to return: no allocation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PlayInfo {
    /// Opponent stones removed by the move.
    pub captured: u16,
    /// Own stones removed by the move (a multi-stone suicide, or an illegal suicide
    /// forced through [`Board::play_unchecked`]); `0` for every legal move by default rules.
    pub suicided: u16,
    /// Simple-ko point after the move (the opponent may not play there next), if any.
    pub ko_point: Option<Point>,
}

/// Rule switches the board itself enforces. Superko lives in
/// [`super::SuperkoHistory`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Rules {
    /// `false` (default): every suicide is illegal. `true` (New Zealand, Tromp-Taylor,
    /// Ing): a multi-stone suicide is legal and removes the player's own chain, crediting
    /// the opponent with the prisoners. A single-stone suicide is illegal either way, as
    /// in every KataGo ruleset.
    pub multi_stone_suicide: bool,
}

/// A point as the board's padded array addresses it: what the random playouts of the
/// scoring work with, so that their inner loop converts no coordinates. Only a
/// [`Board`] makes one ([`Board::loc`], [`Board::empty_locs`]) and turns it back into
/// a point ([`Board::point`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Loc(u16);

impl Loc {
    /// Its index in the board's padded arrays (below 512): a key for per-location
    /// tables such as a playout's candidate lists.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize & MASK
    }
}

/// A 19×19 Go position with incrementally maintained chains (see the module docs).
///
/// `Clone` is a flat copy of about 4.6 KiB. `PartialEq` compares the whole internal state
/// (stones, chain lists, ko, prisoners), so two boards reaching the same stones by
/// different routes may compare unequal; compare [`Board::cells`] or [`Board::hash`] to
/// compare positions.
#[derive(Clone, PartialEq, Eq)]
pub struct Board {
    /// Cell values: `EMPTY`, `BLACK`, `WHITE` or `WALL`.
    color: Grid<u8>,
    /// Head of the chain of each stone; `0` on empty points and walls.
    head: Grid<u16>,
    /// Next stone in the circular chain list (meaningful on stones only).
    next: Grid<u16>,
    /// At a head: number of stones of the chain.
    stones: Grid<u16>,
    /// At a head: number of distinct empty points next to the chain.
    libs: Grid<u16>,
    /// Simple-ko location, `0` when there is none.
    ko_loc: u16,
    /// Colour (cell value) that may not play at `ko_loc`.
    ko_color: u8,
    /// Stones captured by each colour (index = cell value; `[0]` and `[3]` unused).
    prisoners: [u32; 4],
    /// Stones on the board per colour (index = cell value; `[0]` and `[3]` unused).
    count: [u32; 4],
    /// XOR of the zobrist keys of all stones.
    hash: u64,
    /// Width of the playing area (`19` except for [`Board::new_sized`]).
    cols: u8,
    /// Height of the playing area (`19` except for [`Board::new_sized`]).
    rows: u8,
}

impl Default for Board {
    fn default() -> Board {
        Board::new()
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Board {{ ko: {:?}, prisoners: B {} W {}, hash: {:016x} }}",
            self.ko_point().map(|p| p.to_gtp()),
            self.prisoners[1],
            self.prisoners[2],
            self.hash
        )?;
        f.write_str(&self.to_diagram())
    }
}

impl Board {
    /// An empty board: no stones, no ko, no prisoners, hash `0`.
    pub fn new() -> Board {
        let mut color = [WALL; ARR];
        for (loc, c) in color.iter_mut().enumerate() {
            if !is_wall(loc) {
                *c = EMPTY;
            }
        }
        Board {
            color: Grid(color),
            head: Grid([0; ARR]),
            next: Grid([0; ARR]),
            stones: Grid([0; ARR]),
            libs: Grid([0; ARR]),
            ko_loc: 0,
            ko_color: 0,
            prisoners: [0; 4],
            count: [0; 4],
            hash: 0,
            cols: N as u8,
            rows: N as u8,
        }
    }

    /// An empty board of `cols` columns by `rows` rows (each clamped to `1..=19`), in the
    /// top-left corner of the 19×19 array: points with `col >= cols` or `row >= rows` are
    /// walls. They are off the board for every query: [`Board::get`] reads `0` there,
    /// [`Board::play`], [`Board::is_legal`] and [`Board::set_stone`] answer
    /// [`Illegal::OffBoard`] / [`SetupError::OffBoard`], they are never liberties, and
    /// [`Board::cells`] writes `0` for them. Coordinates keep their meaning (row 0 is the
    /// top edge, column 0 the left edge). The hash does not include the size. For test
    /// positions from other programs' suites (9×9 ladder problems and the like);
    /// `Board::new_sized(19, 19)` equals [`Board::new`].
    pub fn new_sized(cols: usize, rows: usize) -> Board {
        let cols = cols.clamp(1, N);
        let rows = rows.clamp(1, N);
        let mut b = Board::new();
        for row in 0..N {
            for col in 0..N {
                if row >= rows || col >= cols {
                    b.color[loc_at(row, col)] = WALL;
                }
            }
        }
        b.cols = cols as u8;
        b.rows = rows as u8;
        b
    }

    /// `(cols, rows)` of the playing area: `(19, 19)` except for [`Board::new_sized`].
    #[inline]
    pub fn size(&self) -> (usize, usize) {
        (self.cols as usize, self.rows as usize)
    }

    /// Whether `p` is a point of the playing area (see [`Board::new_sized`]).
    #[inline]
    pub fn is_on_board(&self, p: Point) -> bool {
        p.row < self.rows && p.col < self.cols
    }

    /// Whether the padded location `loc` is a wall of this board (the border, or a point
    /// outside a [`Board::new_sized`] area).
    fn is_wall_here(&self, loc: usize) -> bool {
        is_wall(loc) || (loc / STRIDE - TOP) >= self.rows as usize || (loc % STRIDE - 1) >= self.cols as usize
    }

    /// Cell value at `p`: `0` empty, `1` black, `2` white (`0` for a point off the board).
    #[inline]
    pub fn get(&self, p: Point) -> u8 {
        match loc_of(p) {
            // A wall inside the array only exists on a `new_sized` board.
            Some(loc) => match self.color[loc] {
                WALL => EMPTY,
                c => c,
            },
            None => EMPTY,
        }
    }

    /// Colour of the stone at `p`, `None` when empty or off the board.
    #[inline]
    pub fn color_at(&self, p: Point) -> Option<Color> {
        Color::from_u8(self.get(p))
    }

    /// All 361 cells, row-major from the top-left (`index = row * 19 + col`):
    /// `0` empty, `1` black, `2` white (`0` outside a [`Board::new_sized`] area).
    pub fn cells(&self, out: &mut [u8; NN]) {
        for row in 0..N {
            let src = loc_at(row, 0);
            out[row * N..row * N + N].copy_from_slice(&self.color.0[src..src + N]);
        }
        if self.cols as usize != N || self.rows as usize != N {
            for c in out.iter_mut() {
                if *c == WALL {
                    *c = EMPTY;
                }
            }
        }
    }

    /// Per point, row-major as [`Board::cells`]: who owns it by area at the end of a
    /// random playout: a stone's colour (`1` black, `2` white); on an empty point the
    /// colours of the stones next to it together (`1` or `2` when all are one colour's,
    /// `3` when both touch it, `0` when none does); `0` outside a [`Board::new_sized`] area.
    pub fn area_owners(&self, out: &mut [u8; NN]) {
        // A wall next to a point adds no colour.
        const STONE: [u8; 4] = [0, BLACK, WHITE, 0];
        for row in 0..N {
            for col in 0..N {
                let loc = loc_at(row, col);
                let at = |l: usize| STONE[(self.color[l] & 3) as usize];
                out[row * N + col] = match self.color[loc] {
                    EMPTY => at(loc - STRIDE) | at(loc - 1) | at(loc + 1) | at(loc + STRIDE),
                    v => STONE[(v & 3) as usize],
                };
            }
        }
    }

    /// Per point, row-major as [`Board::cells`]: the liberties of its chain, capped at
    /// 255; `0` on empty points and outside a [`Board::new_sized`] area. One pass over
    /// the cells (the encoders' liberty channels and ladder scan).
    pub fn liberties_by_point(&self, out: &mut [u8; NN]) {
        for row in 0..N {
            let src = loc_at(row, 0);
            for (o, &h) in out[row * N..row * N + N].iter_mut().zip(&self.head.0[src..src + N]) {
                *o = if h == 0 { 0 } else { self.libs.0[h as usize].min(255) as u8 };
            }
        }
    }

    /// Setup (SGF `AB`/`AW`/`AE`): puts `v` (`0` empty, `1` black, `2` white) on `p`,
    /// overwriting whatever was there. Never captures, so a setup may leave chains with no
    /// liberties (see [`Board::has_dead_chains`]); chains, liberties, counts and hash stay
    /// exact. Clears the ko point; prisoners are unchanged. Adding a stone to an empty
    /// point is O(chain); removing or recolouring one rebuilds the chains, O(board).
    pub fn set_stone(&mut self, p: Point, v: u8) -> Result<(), SetupError> {
        let loc = loc_of(p).ok_or(SetupError::OffBoard)?;
        if self.color[loc] == WALL {
            return Err(SetupError::OffBoard);
        }
        if v > WHITE {
            return Err(SetupError::BadValue(v));
        }
        self.ko_loc = 0;
        self.ko_color = 0;
        let old = self.color[loc];
        if old == v {
            return Ok(());
        }
        if old == EMPTY {
            // The common case (handicap stones, AB/AW): a stone on an empty point, kept
            // exact incrementally.
            self.add_stone(v, loc);
            return Ok(());
        }
        // Removing or recolouring a stone may split a chain: rebuild.
        self.hash ^= key(old, loc);
        self.count[(old & 3) as usize] -= 1;
        if v != EMPTY {
            self.hash ^= key(v, loc);
            self.count[(v & 3) as usize] += 1;
        }
        self.color[loc] = v;
        self.rebuild_chains();
        Ok(())
    }

    /// Puts a stone of colour `c` on the empty location `loc` without capturing
    /// anything: neighbouring chains lose the liberty and friendly ones merge.
    fn add_stone(&mut self, c: u8, loc: usize) {
        let l16 = loc as u16;
        let n = [loc - STRIDE, loc - 1, loc + 1, loc + STRIDE];
        let h = [self.head[n[0]], self.head[n[1]], self.head[n[2]], self.head[n[3]]];
        self.color[loc] = c;
        self.hash ^= key(c, loc);
        self.count[(c & 3) as usize] += 1;
        self.head[loc] = l16;
        self.next[loc] = l16;
        self.stones[loc] = 1;
        self.libs[loc] = 0;
        for a in n {
            self.libs[loc] += (self.color[a] == EMPTY) as u16;
        }
        for i in 0..4 {
            // Each distinct neighbouring chain loses `loc`; it had `loc` as a liberty, so
            // the count cannot underflow.
            if h[i] != 0 && !h[..i].contains(&h[i]) {
                self.libs[h[i] as usize] -= 1;
                if self.color[n[i]] == c {
                    let hl = self.head[loc];
                    self.merge(h[i] as usize, hl as usize);
                }
            }
        }
    }

    /// A setup position from 361 cells, row-major from the top-left (`0` empty, `1`
    /// black, `2` white), as [`Board::set_stone`] on each point would build it, in one
    /// O(board) pass. `Err` names the first bad value.
    pub fn from_cells(cells: &[u8; NN]) -> Result<Board, SetupError> {
        let mut b = Board::new();
        for (i, &v) in cells.iter().enumerate() {
            if v > WHITE {
                return Err(SetupError::BadValue(v));
            }
            if v != EMPTY {
                let loc = loc_at(i / N, i % N);
                b.color[loc] = v;
                b.hash ^= key(v, loc);
                b.count[v as usize] += 1;
            }
        }
        b.rebuild_chains();
        Ok(b)
    }

    /// Recomputes every chain list, head, stone count and liberty count from the cells.
    fn rebuild_chains(&mut self) {
        self.head = Grid([0; ARR]);
        self.next = Grid([0; ARR]);
        self.stones = Grid([0; ARR]);
        self.libs = Grid([0; ARR]);
        let mut stack = [0u16; NN];
        for start in 0..ARR {
            let c = self.color[start];
            if (c != BLACK && c != WHITE) || self.head[start] != 0 {
                continue;
            }
            // Flood fill, linking each new stone in after the head.
            let h = start as u16;
            self.head[start] = h;
            self.next[start] = h;
            let mut n = 1u16;
            let mut top = 1;
            stack[0] = h;
            let mut lib_seen = LocSet::new();
            let mut libs = 0u16;
            while top > 0 {
                top -= 1;
                let s = stack[top] as usize;
                for d in ADJ {
                    let a = s.wrapping_add(d);
                    let ac = self.color[a];
                    if ac == EMPTY {
                        if lib_seen.insert(a) {
                            libs += 1;
                        }
                    } else if ac == c && self.head[a] == 0 {
                        self.head[a] = h;
                        self.next[a] = self.next[start];
                        self.next[start] = a as u16;
                        n += 1;
                        stack[top] = a as u16;
                        top += 1;
                    }
                }
            }
            self.stones[start] = n;
            self.libs[start] = libs;
        }
    }

    /// Whether some chain has no liberty (possible only after setup stones).
    pub fn has_dead_chains(&self) -> bool {
        (0..ARR).any(|loc| {
            let c = self.color[loc];
            (c == BLACK || c == WHITE) && self.head[loc] as usize == loc && self.libs[loc] == 0
        })
    }

    /// 0: not suicide, 1: single-stone suicide, 2: multi-stone suicide, for colour `c` at
    /// the empty location `loc`. Branch-free over the neighbours: a move is safe if a
    /// neighbour is empty, an own chain with another liberty, or an opponent chain in
    /// atari (captured). Empty points and walls have head `0`, whose liberty count is `0`.
    #[inline(always)]
    fn suicide_kind(&self, c: u8, loc: usize) -> u8 {
        let opp = 3 - c;
        let mut safe = false;
        let mut own = false;
        each_adj!(loc, a => {
            let col = self.color[a];
            let l = self.libs[self.head[a] as usize];
            safe |= (col == EMPTY) | ((col == c) & (l > 1)) | ((col == opp) & (l == 1));
            own |= col == c;
        });
        if safe {
            0
        } else if own {
            2
        } else {
            1
        }
    }

    /// Checks a move without playing it: `Ok(())` when [`Board::play`] would accept it.
    /// A pass is always legal. Turn order and superko are not checked.
    pub fn is_legal(&self, c: Color, m: Move, rules: &Rules) -> Result<(), Illegal> {
        let p = match m {
            Move::Pass => return Ok(()),
            Move::Play(p) => p,
        };
        let loc = loc_of(p).ok_or(Illegal::OffBoard)?;
        match self.check_loc(c as u8, loc, rules) {
            Err(Illegal::Occupied) if self.color[loc] == WALL => Err(Illegal::OffBoard),
            r => r,
        }
    }

    /// [`Board::is_legal`] for the on-board location `loc`.
    #[inline(always)]
    fn check_loc(&self, c: u8, loc: usize, rules: &Rules) -> Result<(), Illegal> {
        if self.color[loc] != EMPTY {
            return Err(Illegal::Occupied);
        }
        if loc == self.ko_loc as usize && c == self.ko_color {
            return Err(Illegal::Ko);
        }
        match self.suicide_kind(c, loc) {
            0 => Ok(()),
            2 if rules.multi_stone_suicide => Ok(()),
            _ => Err(Illegal::Suicide),
        }
    }

    /// Own stones a play by `c` at `p` would remove as suicide: `0` when it is not a
    /// suicide (or `p` is occupied or off the board), `1` for a single-stone suicide,
    /// the size of the resulting chain for a multi-stone suicide.
    pub fn suicide_stones(&self, c: Color, p: Point) -> u32 {
        let loc = match loc_of(p) {
            Some(l) if self.color[l] == EMPTY => l,
            _ => return 0,
        };
        let c = c as u8;
        match self.suicide_kind(c, loc) {
            0 => 0,
            1 => 1,
            _ => {
                let mut seen = [0u16; 4];
                let mut k = 0;
                let mut n = 1;
                for d in ADJ {
                    let a = loc.wrapping_add(d);
                    if self.color[a] == c {
                        let h = self.head[a];
                        if !seen.contains(&h) {
                            seen[k & 3] = h;
                            k += 1;
                            n += self.stones[h as usize] as u32;
                        }
                    }
                }
                n
            }
        }
    }

    /// Plays `m` for `c` if it is legal (see [`Board::is_legal`]); on `Err` the board is
    /// unchanged. A pass clears the ko point. Does not enforce turn order.
    #[inline]
    pub fn play(&mut self, c: Color, m: Move, rules: &Rules) -> Result<PlayInfo, Illegal> {
        let p = match m {
            Move::Pass => {
                self.ko_loc = 0;
                return Ok(PlayInfo::default());
            }
            Move::Play(p) => p,
        };
        let loc = loc_of(p).ok_or(Illegal::OffBoard)?;
        if self.color[loc] != EMPTY {
            return Err(if self.color[loc] == WALL { Illegal::OffBoard } else { Illegal::Occupied });
        }
        match self.place::<true>(c as u8, loc, rules) {
            REFUSED_KO => Err(Illegal::Ko),
            REFUSED_SUICIDE => Err(Illegal::Suicide),
            done => Ok(self.play_info(done)),
        }
    }

    /// [`PlayInfo`] from what [`Board::place`] returned and the new ko point.
    #[inline(always)]
    fn play_info(&self, done: u32) -> PlayInfo {
        PlayInfo { captured: done as u16, suicided: (done >> 16) as u16, ko_point: self.ko_point() }
    }

    /// Plays `m` for `c` without the ko and suicide checks (KataGo `playMoveAssumeLegal`).
    /// Precondition: the move is legal. If it is not: a point that is occupied or off the
    /// board leaves the board unchanged (and returns `PlayInfo::default()`); a ko
    /// violation is played; a suicide of any size is played and removes the chain,
    /// crediting the opponent (reported in [`PlayInfo::suicided`]).
    #[inline]
    pub fn play_unchecked(&mut self, c: Color, m: Move) -> PlayInfo {
        match m {
            Move::Pass => {
                self.ko_loc = 0;
                PlayInfo::default()
            }
            Move::Play(p) => match loc_of(p) {
                Some(loc) if self.color[loc] == EMPTY => {
                    let done = self.place::<false>(c as u8, loc, &Rules::default());
                    self.play_info(done)
                }
                _ => PlayInfo::default(),
            },
        }
    }

    /// Puts a stone of colour `c` on the empty location `loc`, captures, merges, sets the
    /// ko point, and removes the chain if it is left without liberties. With `CHECK`,
    /// first refuses a ko violation or a suicide the rules forbid, changing nothing.
    ///
    /// Returns `captured | suicided << 16`, or [`REFUSED_KO`] / [`REFUSED_SUICIDE`].
    /// (A plain `u32`: returning `Result<PlayInfo, Illegal>` from here made the compiler
    /// assemble the value through misaligned stack stores, a store-forwarding stall
    /// that cost about 15% of `play`.)
    #[inline(never)]
    fn place<const CHECK: bool>(&mut self, c: u8, loc: usize, rules: &Rules) -> u32 {
        let opp = 3 - c;
        let l16 = loc as u16;
        let n = [loc - STRIDE, loc - 1, loc + 1, loc + STRIDE];
        // Neighbour colours, chain heads (`0` for empty and wall) and the liberties of
        // those chains (`libs[0]` is `0`), all read before anything changes, then
        // summarised as bit masks. (Explicit arrays: `array::map` is not always inlined.)
        let cols = [self.color[n[0]], self.color[n[1]], self.color[n[2]], self.color[n[3]]];
        let h = [self.head[n[0]], self.head[n[1]], self.head[n[2]], self.head[n[3]]];
        let libs =
            [self.libs[h[0] as usize], self.libs[h[1] as usize], self.libs[h[2] as usize], self.libs[h[3] as usize]];
        // SWAR: one byte per neighbour in a `u32`, then bit 0 of byte `i` answers the
        // question for neighbour `i`. Cell values and clamped liberty counts fit in two
        // bits, so "byte == v" is `!(x | x >> 1)` on `x = byte ^ v`. (Half the
        // instructions of building the masks bit by bit.)
        let cw = cols[0] as u32 | (cols[1] as u32) << 8 | (cols[2] as u32) << 16 | (cols[3] as u32) << 24;
        let lw = libs[0].min(2) as u32
            | (libs[1].min(2) as u32) << 8
            | (libs[2].min(2) as u32) << 16
            | (libs[3].min(2) as u32) << 24;
        let is = |v: u8| {
            let x = cw ^ (v as u32 * LOW_BITS);
            !(x | x >> 1) & LOW_BITS
        };
        let empty = is(EMPTY); // empty points
        let own = is(c); // own stones
        let enemy = is(opp); // opponent stones
        let atari = enemy & lw & LOW_BITS; // opponent chains whose last liberty is `loc`
        let own_alive = own & (lw >> 1) & LOW_BITS; // own chains with another liberty

        if CHECK {
            if loc == self.ko_loc as usize && c == self.ko_color {
                return REFUSED_KO;
            }
            if (empty | atari | own_alive) == 0 && !(own != 0 && rules.multi_stone_suicide) {
                return REFUSED_SUICIDE;
            }
        }

        // 1. The new stone as a chain of its own, with its immediate liberties.
        self.color[loc] = c;
        self.hash ^= key(c, loc);
        self.count[(c & 3) as usize] += 1;
        self.head[loc] = l16;
        self.next[loc] = l16;
        self.stones[loc] = 1;
        self.libs[loc] = empty.count_ones() as u16;

        // 2. Every distinct neighbouring chain loses the liberty `loc`. Branch-free: the
        //    new count is written from the value read above, so a chain met twice gets
        //    the same value twice; empty points and walls write to `libs[0]`, reset after.
        for i in 0..4 {
            self.libs[h[i] as usize] = libs[i].wrapping_sub(1);
        }
        self.libs[0] = 0;

        // 3. Opponent chains left without liberties are captured, which gives liberties
        //    back to our chains (the new stone included). Removing one opponent chain
        //    changes no other opponent chain's liberties, so `atari` stays valid; a
        //    chain met twice is gone (empty) the second time.
        let mut captured = 0u32;
        let mut ko_candidate = 0usize;
        let mut take = atari;
        while take != 0 {
            let i = (take.trailing_zeros() / 8) as usize & 3;
            take &= take - 1;
            if self.color[n[i]] == opp {
                captured += self.remove_chain(h[i] as usize, opp);
                ko_candidate = n[i];
            }
        }

        // 4. Merge with each friendly chain (liberty counts stay exact). Heads are read
        //    again: an earlier merge may have relabelled a neighbour, and a chain met
        //    twice is already ours the second time. (A bit mask walked with
        //    `trailing_zeros`: fewer unpredictable branches than testing each neighbour.)
        let mut friends = own;
        while friends != 0 {
            let i = (friends.trailing_zeros() / 8) as usize & 3;
            friends &= friends - 1;
            let ha = self.head[n[i]];
            let hl = self.head[loc];
            if ha != hl {
                self.merge(ha as usize, hl as usize);
            }
        }

        // 5. Suicide or simple ko.
        let hl = self.head[loc] as usize;
        let mut suicided = 0u32;
        self.ko_loc = 0;
        if self.libs[hl] == 0 {
            suicided = self.remove_chain(hl, c);
        } else if (captured == 1) & (self.stones[hl] == 1) & (self.libs[hl] == 1) {
            self.ko_loc = ko_candidate as u16;
            self.ko_color = opp;
        }
        captured | suicided << 16
    }

    /// Merges the chains headed by `a` and `b` (distinct, same colour), relabelling the
    /// smaller one and counting only its liberties the larger lacks (KataGo
    /// `mergeChains`). A liberty of the smaller chain is new if no neighbour of it is
    /// already labelled with the larger head; relabelling as we go keeps liberties shared
    /// within the smaller chain from being counted twice.
    #[inline(always)]
    fn merge(&mut self, a: usize, b: usize) {
        let (big, small) = if self.stones[a] >= self.stones[b] { (a, b) } else { (b, a) };
        let big16 = big as u16;
        let mut new_libs = 0u16;
        let mut s = small;
        loop {
            each_adj!(s, e => {
                // `e` may be a wall; the two wall rows keep `e ± 20` inside the array.
                let next_to_big = (self.head[e - STRIDE] == big16)
                    | (self.head[e - 1] == big16)
                    | (self.head[e + 1] == big16)
                    | (self.head[e + STRIDE] == big16);
                new_libs += ((self.color[e] == EMPTY) & !next_to_big) as u16;
            });
            self.head[s] = big16;
            let nx = self.next[s] as usize;
            if nx == small {
                break;
            }
            s = nx;
        }
        // big -> small -> ... -> s (last of small) -> old next of big -> ... -> big
        self.next[s] = self.next[big];
        self.next[big] = small as u16;
        self.stones[big] += self.stones[small];
        self.libs[big] += new_libs;
    }

    /// Removes the chain headed by `h` (colour `col`), giving a liberty back to each
    /// distinct neighbouring chain per removed stone and crediting the other colour.
    /// Returns the number of stones removed.
    #[inline(never)]
    fn remove_chain(&mut self, h: usize, col: u8) -> u32 {
        let other = 3 - col;
        let mut s = h;
        let mut n = 0u32;
        loop {
            let nx = self.next[s] as usize;
            self.color[s] = EMPTY;
            self.hash ^= key(col, s);
            self.head[s] = 0;
            let nb = [s - STRIDE, s - 1, s + 1, s + STRIDE];
            let mut hs = [0u16; 4];
            for i in 0..4 {
                hs[i] = if self.color[nb[i]] == other { self.head[nb[i]] } else { 0 };
            }
            // Increments of `libs[0]` (no chain) are harmless: it is reset below.
            self.libs[hs[0] as usize] += 1;
            self.libs[hs[1] as usize] += (hs[1] != hs[0]) as u16;
            self.libs[hs[2] as usize] += ((hs[2] != hs[0]) & (hs[2] != hs[1])) as u16;
            self.libs[hs[3] as usize] += ((hs[3] != hs[0]) & (hs[3] != hs[1]) & (hs[3] != hs[2])) as u16;
            n += 1;
            if nx == h {
                break;
            }
            s = nx;
        }
        self.libs[0] = 0;
        self.count[(col & 3) as usize] -= n;
        self.prisoners[(other & 3) as usize] = self.prisoners[(other & 3) as usize].wrapping_add(n);
        n
    }

    /// XOR of the keys of the stones of the chain headed by `h`.
    fn chain_key(&self, h: usize) -> u64 {
        let col = self.color[h];
        let mut k = 0;
        let mut s = h;
        loop {
            k ^= key(col, s);
            s = self.next[s] as usize;
            if s == h {
                return k;
            }
        }
    }

    /// The [`Board::hash`] the board would have after `c` plays `m`, computed without
    /// playing (for superko). Assumes the move is one [`Board::play_unchecked`] would make:
    /// a suicide is taken to remove the chain. A pass, an occupied point or a point off
    /// the board give the current hash.
    pub fn hash_after(&self, c: Color, m: Move) -> u64 {
        let loc = match m {
            Move::Pass => return self.hash,
            Move::Play(p) => match loc_of(p) {
                Some(l) if self.color[l] == EMPTY => l,
                _ => return self.hash,
            },
        };
        let c = c as u8;
        if self.suicide_kind(c, loc) != 0 {
            // The new stone and every neighbouring own chain disappear.
            let mut h = self.hash;
            let mut seen = [0u16; 4];
            let mut k = 0;
            for d in ADJ {
                let a = loc.wrapping_add(d);
                if self.color[a] == c {
                    let hd = self.head[a];
                    if !seen.contains(&hd) {
                        seen[k & 3] = hd;
                        k += 1;
                        h ^= self.chain_key(hd as usize);
                    }
                }
            }
            return h;
        }
        let opp = 3 - c;
        let mut h = self.hash ^ key(c, loc);
        let mut seen = [0u16; 4];
        let mut k = 0;
        for d in ADJ {
            let a = loc.wrapping_add(d);
            if self.color[a] == opp {
                let hd = self.head[a];
                if self.libs[hd as usize] == 1 && !seen.contains(&hd) {
                    seen[k & 3] = hd;
                    k += 1;
                    h ^= self.chain_key(hd as usize);
                }
            }
        }
        h
    }

    /// The simple-ko point: after a move that captured exactly one stone, when the played
    /// stone is a one-stone chain with exactly one liberty, the point of the captured
    /// stone (KataGo `ko_loc`, sgfmill `Board.play`). The player who did **not** make that
    /// capture (see [`Board::ko_color`]) may not play there on the next move. Cleared by
    /// any other move, a pass, or a setup stone.
    #[inline]
    pub fn ko_point(&self) -> Option<Point> {
        (self.ko_loc != 0).then(|| point_of(self.ko_loc as usize))
    }

    /// The colour [`Board::ko_point`] is banned for: the opponent of the player who made
    /// the ko capture. `None` when there is no ko point.
    #[inline]
    pub fn ko_color(&self) -> Option<Color> {
        if self.ko_loc != 0 {
            Color::from_u8(self.ko_color)
        } else {
            None
        }
    }

    /// Sets the simple-ko ban of a position read back from its stones (a sample's
    /// `ko_point`): `c` may not play at `p` on the next move; `None` clears it.
    pub fn set_ko(&mut self, ban: Option<(Point, Color)>) {
        match ban.and_then(|(p, c)| loc_of(p).map(|l| (l, c))) {
            Some((l, c)) => {
                self.ko_loc = l as u16;
                self.ko_color = c as u8;
            }
            None => self.ko_loc = 0,
        }
    }

    /// Removes the ko point (as a pass does), leaving everything else unchanged.
    #[inline]
    pub fn clear_ko(&mut self) {
        self.ko_loc = 0;
    }

    /// Stones captured **by** `c` so far (including an opponent's own stones removed by
    /// multi-stone suicide).
    #[inline]
    pub fn prisoners(&self, c: Color) -> u32 {
        self.prisoners[c as usize]
    }

    /// Zobrist hash of the stones only (no ko, no side to move): XOR of
    /// [`super::zobrist::stone_key`] over all stones. The empty board hashes to `0`.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Number of stones of colour `c` on the board.
    #[inline]
    pub fn stone_count(&self, c: Color) -> u32 {
        self.count[c as usize]
    }

    /// Head location of the chain at `p`, if `p` holds a stone.
    #[inline(always)]
    fn head_at(&self, p: Point) -> Option<usize> {
        let loc = loc_of(p)?;
        let h = self.head[loc] as usize;
        (h != 0).then_some(h)
    }

    /// Number of distinct liberties of the chain at `p` (`0` if `p` is empty or off the
    /// board). O(1).
    #[inline]
    pub fn chain_liberties(&self, p: Point) -> u32 {
        self.head_at(p).map_or(0, |h| self.libs[h] as u32)
    }

    /// Number of stones of the chain at `p` (`0` if `p` is empty or off the board). O(1).
    #[inline]
    pub fn chain_size(&self, p: Point) -> u32 {
        self.head_at(p).map_or(0, |h| self.stones[h] as u32)
    }

    /// Clears `out`, then pushes the stones of the chain at `p` (nothing if `p` is empty
    /// or off the board). Order: chain-list order, starting at the chain's head.
    pub fn chain_stones(&self, p: Point, out: &mut Vec<Point>) {
        out.clear();
        let Some(h) = self.head_at(p) else { return };
        let mut s = h;
        loop {
            out.push(point_of(s));
            s = self.next[s] as usize;
            if s == h {
                break;
            }
        }
    }

    /// Walks the chain at `p` from `p` itself along the chain list (the order KataGo's
    /// `next_in_chain` walk gives) and calls `f(q, cell)` for each on-board orthogonal
    /// neighbour `q` of each stone, in up, left, right, down order, repeats included,
    /// until `f` returns `false`. Nothing if `p` is empty or off the board. The ladder
    /// search's liberty and capture scans, without a list of the stones.
    #[inline]
    pub fn walk_chain_neighbours(&self, p: Point, mut f: impl FnMut(Point, u8) -> bool) {
        let Some(start) = loc_of(p).filter(|&l| self.head[l] != 0) else { return };
        let mut s = start;
        loop {
            for d in ADJ {
                let a = s.wrapping_add(d);
                let c = self.color[a];
                if c != WALL && !f(point_of(a), c) {
                    return;
                }
            }
            s = self.next[s] as usize;
            if s == start {
                break;
            }
        }
    }

    /// Clears `out`, then pushes each distinct liberty of the chain at `p` once (nothing
    /// if `p` is empty or off the board), in row-major order.
    pub fn chain_liberty_points(&self, p: Point, out: &mut Vec<Point>) {
        out.clear();
        let Some(h) = self.head_at(p) else { return };
        let mut set = LocSet::new();
        let mut s = h;
        loop {
            for d in ADJ {
                let a = s.wrapping_add(d);
                if self.color[a] == EMPTY {
                    set.insert(a);
                }
            }
            s = self.next[s] as usize;
            if s == h {
                break;
            }
        }
        set.for_each(|loc| out.push(point_of(loc)));
    }

    /// What a stone of colour `c` on the empty point `p` would look like, without
    /// playing it: `(eye, liberties, stones)`. `eye`: every on-board neighbour of `p` is
    /// a `c` stone (a single-point eye of `c`). `liberties`: the liberties of the chain
    /// the stone would join, captures included, capped at `2`. `stones`: the size of
    /// that chain (the stone included). `(false, 0, 0)` when `p` is occupied or off the
    /// board. Used by the random playouts of the scoring (never filling an own eye, never
    /// a self-atari of two stones or more).
    pub fn move_shape(&self, c: Color, p: Point) -> (bool, u32, u32) {
        let Some(loc) = loc_of(p).filter(|&l| self.color[l] == EMPTY) else { return (false, 0, 0) };
        let (c, opp) = (c as u8, 3 - c as u8);
        let mut libs = [0usize; 2];
        let mut n = 0usize;
        let add = |l: usize, libs: &mut [usize; 2], n: &mut usize| {
            if l != loc && *n < 2 && !libs[..*n].contains(&l) {
                libs[*n] = l;
                *n += 1;
            }
        };
        let (mut eye, mut heads, mut nh, mut stones) = (true, [0usize; 4], 0usize, 1u32);
        each_adj!(loc, a => {
            let col = self.color[a];
            eye &= col == c || col == WALL;
            if col == EMPTY || (col == opp && self.libs[self.head[a] as usize] == 1) {
                add(a, &mut libs, &mut n);
            } else if col == c {
                let h = self.head[a] as usize;
                if !heads[..nh].contains(&h) {
                    heads[nh] = h;
                    nh += 1;
                    stones += self.stones[h] as u32;
                }
            }
        });
        // `loc` is a liberty of each neighbouring chain (`libs` counts distinct ones):
        // a chain with one has no other, a chain with two has exactly one other (its
        // walk stops there), and one with three or more gives two at once.
        for &h in &heads[..nh] {
            if self.libs[h] >= 3 {
                n = 2;
            }
            if n >= 2 {
                break;
            }
            if self.libs[h] < 2 {
                continue;
            }
            let mut s = h;
            let mut other = None;
            while other.is_none() {
                each_adj!(s, a => {
                    if self.color[a] == EMPTY && a != loc {
                        other = Some(a);
                    }
                });
                s = self.next[s] as usize;
                debug_assert!(other.is_some() || s != h, "a chain of two liberties with no other than loc");
                if s == h {
                    break;
                }
            }
            if let Some(a) = other {
                add(a, &mut libs, &mut n);
            }
        }
        (eye, n as u32, stones)
    }

    /// Whether a random playout of the scoring may play `c` at `p`: the move is legal
    /// ([`Board::is_legal`] with the default rules), does not fill a single-point eye of
    /// `c` and is not a self-atari of two stones or more. Exactly
    /// `!(eye || libs == 0 || (libs == 1 && stones >= 2)) && is_legal` on
    /// [`Board::move_shape`]; [`Board::is_playout_move_at`] by location.
    #[inline]
    pub fn is_playout_move(&self, c: Color, p: Point) -> bool {
        loc_of(p).is_some_and(|l| self.is_playout_move_at(c, Loc(l as u16)))
    }

    /// [`Board::is_playout_move`] at a location, answered from the four neighbours alone
    /// in the common cases (an own eye; two empty neighbours), which is what makes a
    /// playout's search for a move cheap: a big living group's eyes are rejected without
    /// walking the group.
    #[inline]
    pub fn is_playout_move_at(&self, c: Color, at: Loc) -> bool {
        let loc = at.0 as usize;
        if self.color[loc] != EMPTY {
            return false;
        }
        let c8 = c as u8;
        let is = self.neighbour_cells(loc);
        let own_bits = is(c8);
        if (own_bits | is(WALL)) == LOW_BITS || (loc == self.ko_loc as usize && c8 == self.ko_color) {
            // An own single-point eye (the common case late in a playout), or the ko.
            return false;
        }
        let empty = is(EMPTY).count_ones();
        if empty >= 2 {
            // Two liberties of its own: no self-atari, no suicide, and the ko is checked.
            return true;
        }
        let (sure, takes) = self.sure_two_liberties(c8, loc, empty);
        if own_bits == 0 {
            // A lone stone: legal with one liberty (a throw-in), a capture's included;
            // suicide with none.
            return takes > 0 || empty == 1;
        }
        sure || self.playout_shape_ok(c8, loc)
    }

    /// Whether a stone of `c8` on the empty `loc`, with `empty` empty neighbours, surely
    /// leaves its chain two liberties or more, read from the four neighbours alone (the
    /// common cases of [`Board::move_shape`]'s test, without its walks): an own
    /// neighbouring chain with three liberties or more (`loc` is one of them), or two
    /// distinct neighbours that are empty or opponent stones captured by the move. Also
    /// the number of those captured neighbours. `false` says nothing: the test must walk.
    #[inline(always)]
    fn sure_two_liberties(&self, c8: u8, loc: usize, empty: u32) -> (bool, u32) {
        let opp = 3 - c8;
        let (mut takes, mut own_many) = (0u32, false);
        each_adj!(loc, a => {
            let (col, libs) = (self.color[a], self.libs[self.head[a] as usize]);
            takes += ((col == opp) & (libs == 1)) as u32;
            own_many |= (col == c8) & (libs >= 3);
        });
        (own_many || empty + takes >= 2, takes)
    }

    /// Whether `at` is an empty point whose every on-board neighbour is a stone of `c`:
    /// a single-point eye of `c`, the one kind of point a playout never lets `c` fill.
    #[inline]
    pub fn is_eye_at(&self, c: Color, at: Loc) -> bool {
        let loc = at.0 as usize;
        let is = self.neighbour_cells(loc);
        self.color[loc] == EMPTY && (is(c as u8) | is(WALL)) == LOW_BITS
    }

    /// The four neighbours of `loc` read as the bytes of one word: the returned test
    /// gives, for a cell value `v`, bit 0 of byte `i` set when neighbour `i` (above,
    /// left, right, below) holds `v`. "byte == v" is `!(x | x >> 1)` on `x = byte ^ v`
    /// (two-bit values, as in [`Board::place`]).
    #[inline(always)]
    fn neighbour_cells(&self, loc: usize) -> impl Fn(u8) -> u32 {
        let w = self.color[loc - STRIDE] as u32
            | (self.color[loc - 1] as u32) << 8
            | (self.color[loc + 1] as u32) << 16
            | (self.color[loc + STRIDE] as u32) << 24;
        move |v: u8| {
            let x = w ^ (v as u32 * LOW_BITS);
            !(x | x >> 1) & LOW_BITS
        }
    }

    /// The four neighbours of `at` that are on the board and empty, as locations (up to
    /// four, the rest `None`), in the order above, left, right, below.
    #[inline]
    pub fn empty_neighbours(&self, at: Loc) -> [Option<Loc>; 4] {
        let loc = at.0 as usize;
        [loc - STRIDE, loc - 1, loc + 1, loc + STRIDE].map(|a| (self.color[a] == EMPTY).then_some(Loc(a as u16)))
    }

    /// The four neighbours of `at` (above, left, right, below), walls included.
    #[inline]
    pub fn neighbour_locs(at: Loc) -> [Loc; 4] {
        let loc = at.0 as usize;
        [loc - STRIDE, loc - 1, loc + 1, loc + STRIDE].map(|a| Loc(a as u16))
    }

    /// Whether `at` is an empty point where `c` may not play until a neighbour is
    /// freed by a capture or a neighbouring chain is put in atari: every on-board
    /// neighbour is an opponent's stone and none of their chains has one liberty left
    /// (a stone there would have no liberty and capture nothing).
    #[inline]
    pub fn is_closed_to(&self, c: Color, at: Loc) -> bool {
        let loc = at.0 as usize;
        if self.color[loc] != EMPTY {
            return false;
        }
        let opp = 3 - c as u8;
        let mut closed = true;
        each_adj!(loc, a => {
            let col = self.color[a];
            closed &= col == WALL || (col == opp && self.libs[self.head[a] as usize] >= 2);
        });
        closed
    }

    /// The chains at `at` and next to it that have exactly one liberty: for each (once,
    /// in the order `at`, above, below, left, right), the colour that may capture it and
    /// its liberty, written to the front of `out`; returns how many.
    pub fn ataris_at(&self, at: Loc, out: &mut [(Color, Loc); 5]) -> usize {
        let loc = at.0 as usize;
        let mut heads = [0usize; 5];
        let mut n = 0;
        for q in [loc, loc - STRIDE, loc + STRIDE, loc - 1, loc + 1] {
            let col = self.color[q];
            if col != BLACK && col != WHITE {
                continue;
            }
            let h = self.head[q] as usize;
            if self.libs[h] != 1 || heads[..n].contains(&h) {
                continue;
            }
            heads[n] = h;
            let by = if col == BLACK { Color::White } else { Color::Black };
            out[n] = (by, Loc(self.only_liberty(h) as u16));
            n += 1;
        }
        n
    }

    /// The rest of [`Board::is_playout_move_at`]'s test (out of line: the common cases
    /// never get here; the ko is checked before): not a self-atari of two stones or
    /// more, and not a suicide. (A stone whose chain keeps a liberty, captures counted,
    /// is no suicide: no legality check is needed beyond the liberties.)
    #[inline(never)]
    fn playout_shape_ok(&self, c8: u8, loc: usize) -> bool {
        let c = if c8 == BLACK { Color::Black } else { Color::White };
        let (_, libs, stones) = self.move_shape(c, point_of(loc));
        !(libs == 0 || (libs == 1 && stones >= 2))
    }

    /// Clears `out`, then pushes every empty point of the playing area in row-major order.
    pub fn empty_points(&self, out: &mut Vec<Point>) {
        out.clear();
        for row in 0..self.rows as usize {
            let base = loc_at(row, 0);
            for col in 0..self.cols as usize {
                if self.color[base + col] == EMPTY {
                    out.push(Point { row: row as u8, col: col as u8 });
                }
            }
        }
    }

    /// The locations of every empty point of the playing area, in row-major order (the
    /// order of [`Board::empty_points`]), written to the front of `out`; returns how
    /// many. A playout rebuilds this list after every capture, so it reads the cells
    /// eight at a time: a byte of a word is an empty cell when its two value bits are
    /// both clear (as in [`Board::place`]), and only those bytes are visited.
    pub fn empty_locs(&self, out: &mut [Loc; NN]) -> usize {
        let mut n = 0usize;
        let cols = self.cols as usize;
        // Per word of a row (cells 0–7, 8–15, 16–23): the bytes inside the playing area.
        let within = |first: usize| match cols.saturating_sub(first) {
            0 => 0,
            k if k >= 8 => LOW_BITS_64,
            k => LOW_BITS_64 & ((1u64 << (8 * k)) - 1),
        };
        let masks = [within(0), within(8), within(16)];
        for row in 0..self.rows as usize {
            let base = loc_at(row, 0);
            for (k, &m) in masks.iter().enumerate() {
                let at = base + 8 * k;
                let Some(bytes) = self.color.0.get(at..at + 8) else { continue };
                let x = u64::from_le_bytes(bytes.try_into().unwrap_or([WALL; 8]));
                let mut empty = !(x | x >> 1) & m;
                while empty != 0 {
                    let i = (empty.trailing_zeros() / 8) as usize;
                    empty &= empty - 1;
                    out[n.min(NN - 1)] = Loc((at + i) as u16);
                    n += 1;
                }
            }
        }
        n.min(NN)
    }

    /// Appends to `out`, from `out[n]` on, the stones a play by `c` at `at` would
    /// capture (each opponent chain next to `at` whose last liberty it is, in the order
    /// above, left, right, below, each stone once); returns the new length. O(captured).
    pub fn captured_by(&self, c: Color, at: Loc, out: &mut [Loc; NN], mut n: usize) -> usize {
        let loc = at.0 as usize;
        let opp = 3 - c as u8;
        let mut seen = [0u16; 4];
        for (i, a) in [loc - STRIDE, loc - 1, loc + 1, loc + STRIDE].into_iter().enumerate() {
            let h = self.head[a];
            if self.color[a] != opp || self.libs[h as usize] != 1 || seen[..i].contains(&h) {
                continue;
            }
            seen[i] = h;
            let mut s = h as usize;
            loop {
                out[n.min(NN - 1)] = Loc(s as u16);
                n += 1;
                s = self.next[s] as usize;
                if s == h as usize {
                    break;
                }
            }
        }
        n.min(NN)
    }

    /// Plays `c` at the location `at` without the ko and suicide checks
    /// ([`Board::play_unchecked`] by location; an occupied point is left unchanged).
    #[inline]
    pub fn play_at(&mut self, c: Color, at: Loc) -> PlayInfo {
        let loc = at.0 as usize;
        if self.color[loc] != EMPTY {
            return PlayInfo::default();
        }
        let done = self.place::<false>(c as u8, loc, &Rules::default());
        PlayInfo { captured: done as u16, suicided: (done >> 16) as u16, ko_point: None }
    }

    /// The playouts' tactical reply for `c` to the opponent's move at `last`, if there is
    /// one: capture a chain in atari at or next to `last` (looked at in the order
    /// `last`, above, below, left, right) when [`Board::is_playout_move_at`] allows it,
    /// else save the first own chain there in atari by extending, when that gives two
    /// liberties and is legal.
    pub fn playout_reply(&self, c: Color, last: Loc) -> Option<Loc> {
        let mut ataris = [(c, Loc::default()); 5];
        let n = self.ataris_at(last, &mut ataris);
        self.playout_reply_among(c, &ataris[..n])
    }

    /// [`Board::playout_reply`] from the chains in atari at and next to the last move,
    /// as [`Board::ataris_at`] lists them (a playout lists them once per move, for this
    /// and to reopen the points a capture would open).
    #[inline]
    pub fn playout_reply_among(&self, c: Color, ataris: &[(Color, Loc)]) -> Option<Loc> {
        let c8 = c as u8;
        let mut save = None;
        for &(by, lib) in ataris {
            if by == c {
                if self.is_playout_move_at(c, lib) {
                    return Some(lib);
                }
            } else if save.is_none() {
                let loc = lib.0 as usize;
                let is = self.neighbour_cells(loc);
                let eye = (is(c8) | is(WALL)) == LOW_BITS;
                let two = !eye
                    && (self.sure_two_liberties(c8, loc, is(EMPTY).count_ones()).0
                        || self.move_shape(c, point_of(loc)).1 >= 2);
                // Two liberties: no suicide; only the ko could forbid it.
                if two && !(lib.0 == self.ko_loc && c8 == self.ko_color) {
                    save = Some(lib);
                }
            }
        }
        save
    }

    /// The liberty of the chain headed by `h`, which has exactly one.
    fn only_liberty(&self, h: usize) -> usize {
        let mut s = h;
        loop {
            for d in ADJ {
                let a = s.wrapping_add(d);
                if self.color[a] == EMPTY {
                    return a;
                }
            }
            s = self.next[s] as usize;
            if s == h {
                return 0;
            }
        }
    }

    /// The location of an on-board point, `None` off the board.
    #[inline]
    pub fn loc(&self, p: Point) -> Option<Loc> {
        loc_of(p).filter(|&l| self.color[l] != WALL).map(|l| Loc(l as u16))
    }

    /// The point at a location.
    #[inline]
    pub fn point(&self, at: Loc) -> Point {
        point_of(at.0 as usize)
    }

    /// Whether `a` and `b` are stones of the same chain.
    #[inline]
    pub fn same_chain(&self, a: Point, b: Point) -> bool {
        match (self.head_at(a), self.head_at(b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        }
    }

    /// Recomputes walls, chains, liberties, stone counts and the hash from the cells alone
    /// and compares them with the incremental state (KataGo `checkConsistency`).
    /// `Err` describes the first difference. O(board); for tests and debugging.
    pub fn check_consistency(&self) -> Result<(), String> {
        let mut count = [0u32; 4];
        let mut hash = 0u64;
        for loc in 0..ARR {
            let c = self.color[loc];
            if self.is_wall_here(loc) {
                if c != WALL {
                    return Err(format!("wall cell {loc} holds {c}"));
                }
                if self.head[loc] != 0 {
                    return Err(format!("wall cell {loc} has head {}", self.head[loc]));
                }
                continue;
            }
            match c {
                EMPTY => {
                    if self.head[loc] != 0 {
                        return Err(format!("empty {:?} has head {}", point_of(loc), self.head[loc]));
                    }
                }
                BLACK | WHITE => {
                    count[c as usize] += 1;
                    hash ^= key(c, loc);
                    let h = self.head[loc] as usize;
                    if self.color[h] != c || self.head[h] as usize != h {
                        return Err(format!("stone {:?} has bad head {h}", point_of(loc)));
                    }
                }
                _ => return Err(format!("point {:?} holds {c}", point_of(loc))),
            }
        }
        if self.libs[0] != 0 {
            return Err("liberty count stored on the no-chain cell 0".into());
        }
        if count != self.count {
            return Err(format!("stone counts {:?}, recomputed {:?}", self.count, count));
        }
        if hash != self.hash {
            return Err(format!("hash {:016x}, recomputed {:016x}", self.hash, hash));
        }

        // Every head: its list is exactly its flood-filled chain; counts match.
        let mut stack = Vec::with_capacity(NN);
        for h in 0..ARR {
            let c = self.color[h];
            if (c != BLACK && c != WHITE) || self.head[h] as usize != h {
                continue;
            }
            let mut flood = LocSet::new();
            let mut libs = LocSet::new();
            flood.insert(h);
            stack.clear();
            stack.push(h);
            let mut size = 1u32;
            while let Some(s) = stack.pop() {
                for d in ADJ {
                    let a = s.wrapping_add(d);
                    if self.color[a] == c && flood.insert(a) {
                        size += 1;
                        stack.push(a);
                    } else if self.color[a] == EMPTY {
                        libs.insert(a);
                    }
                }
            }
            let mut listed = LocSet::new();
            let mut s = h;
            let mut n = 0u32;
            loop {
                if s >= ARR || !flood.contains(s) || !listed.insert(s) {
                    return Err(format!("chain list of {:?} strays to cell {s}", point_of(h)));
                }
                if self.head[s] as usize != h {
                    return Err(format!("stone {:?} not headed by {:?}", point_of(s), point_of(h)));
                }
                n += 1;
                s = self.next[s] as usize;
                if s == h {
                    break;
                }
            }
            if n != size {
                return Err(format!("chain {:?}: list has {n} stones, flood fill {size}", point_of(h)));
            }
            if self.stones[h] as u32 != size {
                return Err(format!("chain {:?}: stone count {}, recomputed {size}", point_of(h), self.stones[h]));
            }
            if self.libs[h] as u32 != libs.len() {
                return Err(format!("chain {:?}: liberties {}, recomputed {}", point_of(h), self.libs[h], libs.len()));
            }
        }

        if self.ko_loc != 0 {
            let k = self.ko_loc as usize;
            if k >= ARR || self.is_wall_here(k) || self.color[k] != EMPTY {
                return Err(format!("ko location {k} is not an empty point"));
            }
            if self.ko_color != BLACK && self.ko_color != WHITE {
                return Err(format!("ko colour {}", self.ko_color));
            }
        }
        Ok(())
    }
}

/// A set of padded locations (a stamp buffer on the stack: 512 bits).
struct LocSet([u64; ARR / 64]);

impl LocSet {
    /// The empty set.
    #[inline]
    fn new() -> LocSet {
        LocSet([0; ARR / 64])
    }
    /// Inserts `loc`; `true` if it was not there.
    #[inline]
    fn insert(&mut self, loc: usize) -> bool {
        let (w, b) = ((loc & MASK) / 64, 1u64 << (loc % 64));
        let fresh = self.0[w] & b == 0;
        self.0[w] |= b;
        fresh
    }
    /// Whether `loc` is in the set.
    #[inline]
    fn contains(&self, loc: usize) -> bool {
        self.0[(loc & MASK) / 64] & (1u64 << (loc % 64)) != 0
    }
    /// Number of members.
    fn len(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
    /// Calls `f` on each member in increasing order.
    fn for_each(&self, mut f: impl FnMut(usize)) {
        for (i, &w) in self.0.iter().enumerate() {
            let mut w = w;
            while w != 0 {
                let b = w.trailing_zeros() as usize;
                f(i * 64 + b);
                w &= w - 1;
            }
        }
    }
}

#[cfg(test)]
mod sized_tests {
    //! The `new_sized` board: points outside the area are walls for every query.

    use super::*;

    fn p(row: usize, col: usize) -> Point {
        Point::new(row, col).expect("test point")
    }

    #[test]
    fn sized_board_edges_are_walls() {
        let rules = Rules::default();
        let mut b = Board::new_sized(5, 4);
        assert_eq!(b.size(), (5, 4));
        assert!(b.is_on_board(p(3, 4)) && !b.is_on_board(p(4, 4)) && !b.is_on_board(p(3, 5)));
        b.check_consistency().unwrap();
        // Outside the area: off the board everywhere.
        assert_eq!(b.get(p(0, 5)), EMPTY);
        assert_eq!(b.color_at(p(4, 0)), None);
        assert_eq!(b.is_legal(Color::Black, Move::Play(p(0, 5)), &rules), Err(Illegal::OffBoard));
        assert_eq!(b.play(Color::Black, Move::Play(p(4, 0)), &rules), Err(Illegal::OffBoard));
        assert_eq!(b.set_stone(p(4, 4), BLACK), Err(SetupError::OffBoard));
        assert_eq!(b.play_unchecked(Color::Black, Move::Play(p(6, 6))), PlayInfo::default());
        // The bottom-right corner of the area has two liberties, like a real corner.
        b.play(Color::Black, Move::Play(p(3, 4)), &rules).unwrap();
        assert_eq!(b.chain_liberties(p(3, 4)), 2);
        let mut v = Vec::new();
        b.chain_liberty_points(p(3, 4), &mut v);
        assert_eq!(v, vec![p(2, 4), p(3, 3)]);
        // Capture in that corner; single-stone suicide there is illegal.
        b.play(Color::White, Move::Play(p(2, 4)), &rules).unwrap();
        let info = b.play(Color::White, Move::Play(p(3, 3)), &rules).unwrap();
        assert_eq!(info.captured, 1);
        assert_eq!(b.is_legal(Color::Black, Move::Play(p(3, 4)), &rules), Err(Illegal::Suicide));
        b.check_consistency().unwrap();
        let mut cells = [9u8; NN];
        b.cells(&mut cells);
        assert_eq!(cells.iter().filter(|&&c| c != EMPTY).count(), 2);
        assert_eq!(cells[4 * N + 4], EMPTY);
        // Setup stones, removal (rebuild) keeps the walls.
        b.set_stone(p(0, 0), BLACK).unwrap();
        b.set_stone(p(2, 4), EMPTY).unwrap();
        b.check_consistency().unwrap();
        assert_eq!(b.chain_liberties(p(3, 3)), 3);
        assert!(b.to_diagram().lines().all(|l| l.len() == N));
    }

    #[test]
    fn sized_board_clamps_and_full_size_equals_new() {
        assert!(Board::new_sized(19, 19) == Board::new());
        assert_eq!(Board::new_sized(0, 40).size(), (1, 19));
        let mut b = Board::new_sized(1, 1);
        assert_eq!(b.is_legal(Color::White, Move::Play(p(0, 0)), &Rules::default()), Err(Illegal::Suicide));
        assert_eq!(b.set_stone(p(0, 0), WHITE), Ok(()));
        assert!(b.has_dead_chains());
        b.check_consistency().unwrap();
    }
}
