//! Life and death for counting: Benson's pass-alive analysis ([`benson_pass_alive`])
//! and the conservative dead-stone / seki analysis built on it
//! ([`ownership_conservative`]).
//!
//! Everything here reads the board through [`Board::cells`] and [`Board::size`] and
//! works on its own flood fills, so it runs unchanged on [`Board::new_sized`] boards and
//! on setup positions (chains without liberties included). Points outside
//! [`Board::size`] are walls.
//!
//! ## Benson (`benson_pass_alive`)
//! A port of KataGo `Board::calculateAreaForPla` with `safeBigTerritories`,
//! `unsafeBigTerritories` and `isMultiStoneSuicideLegal` all false (RULES §4):
//! regions are the maximal connected sets of non-P points seeded from empty points; a
//! region is vital to a P chain when every *empty* point of it is adjacent to the chain;
//! chains with fewer than two vital regions still counted are removed, and every region
//! bordering a removed chain stops counting, until nothing changes. The survivors are
//! pass-alive; a region is P's pass-alive territory when it borders only surviving
//! chains, borders at least one, and has at most one point not adjacent to P (opponent
//! stones inside it are dead).
//!
//! ## Conservative rules (`ownership_conservative`)
//! Benson alone settles little of a real final position (a territory with two inner
//! points is not vital), so three more rules follow. They assume the game is over (both
//! players passed), and each is chosen to leave a position unsettled rather than guess:
//!
//! 1. **Living chains** ("relaxed Benson"): the Benson iteration again, but a region
//!    (maximal connected set of points that are not living P stones) counts for every
//!    P chain bordering it if it holds no opponent stone other than dead ones: as two
//!    vital regions if it has at least [`BIG_REGION`] points, or 4 to 6 empty points in
//!    a shape that makes two eyes whoever plays first (straight, bent, zigzag: no 2×2
//!    block, no point next to three others), as one otherwise. Benson's pass-alive
//!    chains always live. A chain short of two is also spared when it is *sheltered*
//!    (at least two liberties, every one in such a region that also borders a chain
//!    living in its own right: a cutting stone inside its own eye space cannot be
//!    approached from outside) or *connected* (at least two liberties, one of them a
//!    point the opponent cannot play, with no opponent neighbour and at most one empty
//!    one, next to a chain that lives even without that point: the opponent must take
//!    liberties from outside first, and the chain then joins). False eyes are still
//!    caught: a chain that borders a single eye and has a liberty outside, or only one
//!    liberty, dies, and the eye stops counting for its other neighbours.
//! 2. **Dead stones**, repeated until nothing changes:
//!    * *candidates*: the opponent stones O inside a region R of P (maximal connected
//!      non-P set, dead P stones counting as non-P) when they have at most one
//!      potential eye (an O-region, i.e. a maximal connected non-O set, bordered only
//!      by O chains inside R counts two eyes if it could be split as in rule 1, one
//!      otherwise), and when they are the ones inside: no more liberties in R than the
//!      P stones around R have there (so a long wall with a gap that "encloses" one
//!      opponent stone is not taken for a dead group inside that stone's area);
//!    * *verified*: the candidates of R are dead when every P chain bordering R lives
//!      by rule 1 with all candidates of both colours assumed dead, and is not itself a
//!      candidate (so two groups each waiting for the other to die, a seki or a
//!      capturing race, are never declared dead).
//! 3. **Seki** among the chains still unsettled: a cluster of chains of both colours
//!    (joined by contact or by shared liberties) in which every chain's liberties are
//!    either one eye (an empty area of at most two points bordered only by its colour)
//!    plus at least one shared liberty, or no eye and at least two shared liberties; all
//!    chains have the same eye size (a bigger eye wins the race, so that is no seki);
//!    every shared liberty and eye touches only chains of the cluster; and every other
//!    chain in contact with the cluster lives by rule 1. Its stones, eyes and shared
//!    liberties are [`Owner::Neutral`] and listed in [`Ownership::seki`].
//!
//! Then the points: every connected area of empty points and dead stones (seki points
//! excluded) bordered only by living stones of one colour belongs to that colour (dead
//! stones of the other colour inside it included); bordered by living stones of both
//! colours it is dame ([`Owner::Neutral`]); touching any unsettled chain, or holding dead
//! stones that do not fit, it is [`Owner::Undecided`], and so are the unsettled stones.
//! An area bordered by no stone at all (an empty board) is [`Owner::Neutral`].
//!
//! ## Implementation
//! The position is read once, with bit sets of its points, into *blocks* (`Chains`):
//! its chains and its empty areas (maximal connected sets of empty points), with how
//! many points of each block touch each neighbouring block. Every region and area above
//! is a union of whole blocks (a chain is living or not as a whole, and an empty area
//! holds no stone), so the regions of each round are the connected components of a
//! small graph of blocks (a player's regions once some of its chains are dead: those
//! with none dead, joined through the dead chains), and what the rules ask of a region
//! (its size, liberties, bordering chains, eye shape) is summed over its blocks instead
//! of found by a new flood fill over its points.

use crate::coord::{Point, N, NN};
use crate::engine::{Board, Color, BLACK, EMPTY, WHITE};

use super::{Owner, Ownership};

/// A region with at least this many points counts as two vital regions (an eye space
/// that big can always be split into two eyes) in the conservative life rule.
pub const BIG_REGION: usize = 7;

/// Largest number of dead-stone rounds (each round only adds dead chains, so the loop
/// ends by itself long before; this is a bound on the work).
const MAX_ROUNDS: usize = 16;

/// "No region / no chain / no block" in the `u32` label arrays.
const NONE: u32 = u32::MAX;

// ------------------------------------------------------------------- shared geometry

/// The cells of a board and which points are on it.
pub(crate) struct Pos {
    /// `0` empty, `1` black, `2` white (`0` off the board).
    pub(crate) cells: [u8; NN],
    /// Whether the point is inside [`Board::size`].
    pub(crate) on: [bool; NN],
}

impl Pos {
    /// Reads `board`.
    pub(crate) fn new(board: &Board) -> Pos {
        let mut cells = [EMPTY; NN];
        board.cells(&mut cells);
        let (cols, rows) = board.size();
        let mut on = [false; NN];
        for i in 0..NN {
            on[i] = i / N < rows && i % N < cols;
            if !on[i] || cells[i] > WHITE {
                cells[i] = EMPTY;
            }
        }
        Pos { cells, on }
    }

    /// The on-board neighbours of `i` (up, left, right, down).
    #[inline]
    pub(crate) fn adj(&self, i: usize) -> impl Iterator<Item = usize> {
        let mut out = [0usize; 4];
        let mut n = 0;
        let (r, c) = (i / N, i % N);
        if r > 0 && self.on[i - N] {
            out[n] = i - N;
            n += 1;
        }
        if c > 0 && self.on[i - 1] {
            out[n] = i - 1;
            n += 1;
        }
        if c + 1 < N && i + 1 < NN && self.on[i + 1] {
            out[n] = i + 1;
            n += 1;
        }
        if r + 1 < N && self.on[i + N] {
            out[n] = i + N;
            n += 1;
        }
        out.into_iter().take(n)
    }
}

/// A set of points of the 19×19 grid, one bit per [`Point::index`].
#[derive(Clone, Copy, Default)]
struct Bits([u64; WORDS]);

/// Words of a [`Bits`].
const WORDS: usize = NN.div_ceil(64);

/// The points of column 0, of column `N - 1`, and all points.
const COL_FIRST: Bits = Bits::column(0);
const COL_LAST: Bits = Bits::column(N - 1);
const ALL: Bits = {
    let mut b = Bits([0; WORDS]);
    let mut i = 0;
    while i < NN {
        b.0[i / 64] |= 1 << (i % 64);
        i += 1;
    }
    b
};

impl Bits {
    /// The points of column `col`.
    const fn column(col: usize) -> Bits {
        let mut b = Bits([0; WORDS]);
        let mut i = col;
        while i < NN {
            b.0[i / 64] |= 1 << (i % 64);
            i += N;
        }
        b
    }

    #[inline]
    fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    #[inline]
    fn count(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    /// The lowest point of the set.
    #[inline]
    fn first(&self) -> Option<usize> {
        let w = self.0.iter().position(|&w| w != 0)?;
        Some(w * 64 + self.0[w].trailing_zeros() as usize)
    }

    /// The points of the set, ascending.
    fn ones(self) -> impl Iterator<Item = usize> {
        self.0.into_iter().enumerate().flat_map(|(w, mut word)| {
            std::iter::from_fn(move || {
                let bit = (word != 0).then(|| word.trailing_zeros() as usize)?;
                word &= word - 1;
                Some(w * 64 + bit)
            })
        })
    }

    /// The points of `self` not in `other`.
    #[inline]
    fn minus(self, other: Bits) -> Bits {
        Bits(std::array::from_fn(|w| self.0[w] & !other.0[w]))
    }

    /// The set moved `k` points up the index order (`0 < k < 64`), points past the end
    /// dropped.
    #[inline]
    fn shl(self, k: u32) -> Bits {
        Bits(std::array::from_fn(|w| self.0[w] << k | if w > 0 { self.0[w - 1] >> (64 - k) } else { 0 })) & ALL
    }

    /// The set moved `k` points down the index order (`0 < k < 64`).
    #[inline]
    fn shr(self, k: u32) -> Bits {
        Bits(std::array::from_fn(|w| self.0[w] >> k | if w + 1 < WORDS { self.0[w + 1] << (64 - k) } else { 0 }))
    }

    /// For each direction (up, left, right, down), the points of the grid whose
    /// neighbour that way is in the set.
    #[inline]
    fn sides(self) -> [Bits; 4] {
        [self.shl(N as u32), self.shl(1).minus(COL_FIRST), self.shr(1).minus(COL_LAST), self.shr(N as u32)]
    }

    /// The points of the grid next to a point of the set.
    #[inline]
    fn neighbours(self) -> Bits {
        let [a, b, c, d] = self.sides();
        a | b | c | d
    }

    /// The points of `self` connected to its point `s` within `self`.
    fn fill(self, s: usize) -> Bits {
        let mut f = Bits::default();
        f.insert(s);
        loop {
            let g = (f | f.neighbours()) & self;
            if g == f {
                return f;
            }
            f = g;
        }
    }
}

impl PartialEq for Bits {
    #[inline]
    fn eq(&self, o: &Bits) -> bool {
        // Word by word: a derived comparison calls `memcmp`.
        self.0.iter().zip(&o.0).fold(0, |acc, (a, b)| acc | (a ^ b)) == 0
    }
}

impl std::ops::BitAnd for Bits {
    type Output = Bits;
    #[inline]
    fn bitand(self, o: Bits) -> Bits {
        Bits(std::array::from_fn(|w| self.0[w] & o.0[w]))
    }
}

impl std::ops::BitOr for Bits {
    type Output = Bits;
    #[inline]
    fn bitor(self, o: Bits) -> Bits {
        Bits(std::array::from_fn(|w| self.0[w] | o.0[w]))
    }
}

impl std::ops::BitOrAssign for Bits {
    #[inline]
    fn bitor_assign(&mut self, o: Bits) {
        *self = *self | o;
    }
}

/// How a block touches one of its neighbouring blocks.
#[derive(Clone, Copy)]
pub(crate) struct Link {
    /// The neighbouring block.
    pub(crate) to: u32,
    /// Points of `to` next to this block (for a chain: its liberties in `to`, once the
    /// stones of `to` are gone).
    theirs: u16,
}

/// The blocks of a position: its chains, numbered `0..len()` in the order of their
/// first point, then its empty areas (maximal connected sets of empty points), numbered
/// `len()..blocks()` likewise; and which blocks touch.
pub(crate) struct Chains {
    /// Chain of each stone; [`NONE`] on empty and off-board points.
    pub(crate) label: [u32; NN],
    /// Block of each on-board point; [`NONE`] off the board.
    block: [u32; NN],
    /// Colour of each block: `1` or `2` for a chain, `0` for an empty area.
    pub(crate) color: Vec<u8>,
    /// Number of chains.
    nch: usize,
    /// Points of each block.
    mask: Vec<Bits>,
    /// Points of block `b`, ascending: `pts[start[b]..start[b + 1]]`.
    start: Vec<u32>,
    pts: Vec<u16>,
    /// Blocks touching block `b`: `links[lstart[b]..lstart[b + 1]]`, each once.
    lstart: Vec<u32>,
    links: Vec<Link>,
    /// Per block: its points with no black neighbour, with no white neighbour.
    far: Vec<[u16; 2]>,
    /// Per block: an empty area in a shape that makes two eyes ([`two_eye_shape`]).
    eye2: Vec<bool>,
    /// Joining points of chain `c` (rule 1, *connected*): `joins[jstart[c]..jstart[c +
    /// 1]]`, the empty points next to it and to another chain of its colour, with no
    /// opponent neighbour and at most one empty neighbour.
    jstart: Vec<u32>,
    joins: Vec<u16>,
}

impl Chains {
    /// Finds the blocks of `pos` and how they touch.
    pub(crate) fn new(pos: &Pos) -> Chains {
        // Points by content: empty, black, white.
        let mut by = [Bits::default(); 3];
        for i in 0..NN {
            if pos.on[i] {
                by[pos.cells[i] as usize].insert(i);
            }
        }
        let on = by[0] | by[1] | by[2];

        // Blocks: chains first, then empty areas, each from its lowest point.
        let mut block = [NONE; NN];
        let mut color = Vec::new();
        let mut mask = Vec::new();
        let mut start = Vec::new();
        let mut pts: Vec<u16> = Vec::with_capacity(NN);
        for mut todo in [by[1] | by[2], by[0]] {
            while let Some(s) = todo.first() {
                let c = pos.cells[s];
                let m = by[c as usize].fill(s);
                todo = todo.minus(m);
                start.push(pts.len() as u32);
                for p in m.ones() {
                    block[p] = color.len() as u32;
                    pts.push(p as u16);
                }
                color.push(c);
                mask.push(m);
            }
        }
        start.push(pts.len() as u32);
        let nch = color.iter().take_while(|&&c| c != EMPTY).count();
        let nblk = color.len();
        let mut label = [NONE; NN];
        for i in 0..NN {
            if block[i] < nch as u32 {
                label[i] = block[i];
            }
        }

        // Links: the points around a block, one neighbouring block at a time.
        let mut lstart = Vec::with_capacity(nblk + 1);
        let mut links: Vec<Link> = Vec::with_capacity(8 * nblk);
        let near = [by[1].neighbours(), by[2].neighbours()];
        let mut far = Vec::with_capacity(nblk);
        for m in &mask {
            lstart.push(links.len() as u32);
            let mut around = (m.neighbours() & on).minus(*m);
            while let Some(q) = around.first() {
                let n = block[q] as usize;
                links.push(Link { to: n as u32, theirs: (around & mask[n]).count() as u16 });
                around = around.minus(mask[n]);
            }
            far.push([m.minus(near[0]).count() as u16, m.minus(near[1]).count() as u16]);
        }
        lstart.push(links.len() as u32);
        let eye2 =
            (0..nblk).map(|b| b >= nch && two_eye_shape(pos, &pts[start[b] as usize..start[b + 1] as usize])).collect();

        // Joining points, as (chain, point) pairs sorted by chain.
        let [a, b, c, d] = by[0].sides();
        let crowded = (a & b) | (a & c) | (a & d) | (b & c) | (b & d) | (c & d);
        let mut pairs: Vec<(u32, u16)> = Vec::new();
        for col in [BLACK, WHITE] {
            let opp = 3 - col;
            for p in (by[0] & near[col as usize - 1]).minus(near[opp as usize - 1] | crowded).ones() {
                let (mut chains, mut n) = ([NONE; 4], 0);
                for q in pos.adj(p) {
                    if pos.cells[q] == col && !chains[..n].contains(&label[q]) {
                        chains[n] = label[q];
                        n += 1;
                    }
                }
                if n >= 2 {
                    pairs.extend(chains[..n].iter().map(|&c| (c, p as u16)));
                }
            }
        }
        pairs.sort_unstable();
        let mut jstart = Vec::with_capacity(nch + 1);
        let mut k = 0;
        for c in 0..=nch {
            while k < pairs.len() && (pairs[k].0 as usize) < c {
                k += 1;
            }
            jstart.push(k as u32);
        }
        let joins = pairs.iter().map(|&(_, p)| p).collect();
        Chains { label, block, color, nch, mask, start, pts, lstart, links, far, eye2, jstart, joins }
    }

    /// Number of chains.
    pub(crate) fn len(&self) -> usize {
        self.nch
    }

    /// Chain of the stone at `i`, if any.
    #[inline]
    pub(crate) fn of(&self, i: usize) -> Option<usize> {
        let l = self.label[i];
        (l != NONE).then_some(l as usize)
    }

    /// Number of blocks (chains and empty areas).
    pub(crate) fn blocks(&self) -> usize {
        self.color.len()
    }

    /// Points of block `b` (the stones of a chain), ascending.
    #[inline]
    pub(crate) fn points(&self, b: usize) -> &[u16] {
        &self.pts[self.start[b] as usize..self.start[b + 1] as usize]
    }

    /// Number of points of block `b`.
    #[inline]
    pub(crate) fn size(&self, b: usize) -> u32 {
        self.start[b + 1] - self.start[b]
    }

    /// The joining points of chain `c`: empty points next to it and to another chain
    /// of its colour, with no opponent neighbour and at most one empty one.
    #[inline]
    fn joins(&self, c: usize) -> &[u16] {
        &self.joins[self.jstart[c] as usize..self.jstart[c + 1] as usize]
    }

    /// Blocks touching block `b`.
    #[inline]
    pub(crate) fn links(&self, b: usize) -> &[Link] {
        &self.links[self.lstart[b] as usize..self.lstart[b + 1] as usize]
    }

    /// Whether block `b` is a chain of colour `col` not marked in `dead` (indexed by
    /// chain).
    #[inline]
    fn living(&self, b: usize, col: u8, dead: &[bool]) -> bool {
        self.color[b] == col && !dead[b]
    }
}

/// Root of `x` in the union-find forest `parent` (with path halving).
fn find(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        parent[x as usize] = parent[parent[x as usize] as usize];
        x = parent[x as usize];
    }
    x
}

/// Connected components of the blocks for which `inside` holds.
#[derive(Clone)]
struct Regions {
    /// Component of each block; [`NONE`] where `inside` is false.
    of: Vec<u32>,
    /// Number of components.
    n: usize,
}

impl Regions {
    /// Components of the blocks where `inside(b)` holds.
    fn new(ch: &Chains, inside: impl Fn(usize) -> bool) -> Regions {
        let nblk = ch.blocks();
        let mut of = vec![NONE; nblk];
        let mut n = 0;
        let mut stack = Vec::with_capacity(nblk);
        for b in 0..nblk {
            if of[b] != NONE || !inside(b) {
                continue;
            }
            of[b] = n as u32;
            stack.push(b);
            while let Some(x) = stack.pop() {
                for l in ch.links(x) {
                    let y = l.to as usize;
                    if of[y] == NONE && inside(y) {
                        of[y] = n as u32;
                        stack.push(y);
                    }
                }
            }
            n += 1;
        }
        Regions { of, n }
    }

    /// The regions of `pla`: maximal connected sets of points that are not `pla` stones.
    fn base(ch: &Chains, pla: u8) -> Regions {
        Regions::new(ch, |b| ch.color[b] != pla)
    }

    /// The regions of `pla` with the `pla` chains marked in `dead` (indexed by chain)
    /// taken off the board, from `self`, those with none taken off ([`Regions::base`]):
    /// each dead chain joins the regions around it into one.
    fn without(&self, ch: &Chains, pla: u8, dead: &[bool]) -> Regions {
        let removed: Vec<usize> = (0..ch.len()).filter(|&d| ch.color[d] == pla && dead[d]).collect();
        if removed.is_empty() {
            return self.clone();
        }
        let mut parent: Vec<u32> = (0..self.n as u32).collect();
        for &d in &removed {
            if let Some((first, rest)) = ch.links(d).split_first() {
                let a = find(&mut parent, self.of[first.to as usize]);
                for l in rest {
                    let b = find(&mut parent, self.of[l.to as usize]);
                    if b != a {
                        parent[b as usize] = a;
                    }
                }
            }
        }
        // Number the merged regions afresh.
        let mut id = vec![NONE; self.n];
        let mut of = self.of.clone();
        let mut n = 0;
        for r in of.iter_mut().filter(|r| **r != NONE) {
            let root = find(&mut parent, *r) as usize;
            if id[root] == NONE {
                id[root] = n as u32;
                n += 1;
            }
            *r = id[root];
        }
        for &d in &removed {
            of[d] = match ch.links(d).first() {
                Some(l) => of[l.to as usize],
                None => {
                    n += 1;
                    n as u32 - 1
                }
            };
        }
        Regions { of, n }
    }

    /// Region of block `b` (which must be inside one).
    #[inline]
    fn of(&self, b: usize) -> usize {
        self.of[b] as usize
    }
}

// ------------------------------------------------------------------------- Benson

/// Pass-alive stones and pass-alive territory of `color`, indexed by [`Point::index`]:
/// KataGo `calculateAreaForPla(pla, safeBigTerritories = false,
/// unsafeBigTerritories = false, isMultiStoneSuicideLegal = false)` (see the module
/// docs). `true` marks the stones of every pass-alive chain of `color` and every point
/// (empty or opponent stone) of its pass-alive territory; an opponent stone marked
/// `true` is dead. Points off a smaller board are `false`.
pub fn benson_pass_alive(board: &Board, color: Color) -> [bool; NN] {
    let pos = Pos::new(board);
    let ch = Chains::new(&pos);
    let pla = color.as_u8();
    benson_area(&ch, pla, &Regions::base(&ch, pla))
}

/// [`benson_pass_alive`] on an analysed position, for player `pla` (`1` or `2`), whose
/// regions are `regs` ([`Regions::base`]).
fn benson_area(ch: &Chains, pla: u8, regs: &Regions) -> [bool; NN] {
    let mut out = [false; NN];
    let nch = ch.len();
    let nreg = regs.n;
    // Per region: empty areas (KataGo seeds regions from empty points only: a region
    // without one, an opponent chain with no liberty after setup, is no region at all),
    // points, and points not next to a `pla` stone.
    let mut areas = vec![0u32; nreg];
    let mut size = vec![0u32; nreg];
    let mut internal = vec![0u32; nreg];
    for b in 0..ch.blocks() {
        if regs.of[b] == NONE {
            continue;
        }
        let r = regs.of(b);
        areas[r] += (b >= nch) as u32;
        size[r] += ch.size(b);
        internal[r] += ch.far[b][pla as usize - 1] as u32;
    }

    // A region is vital to a chain next to every empty point of it: to every empty area
    // of the region, all of it. `(chain, region)` pairs, through a tally per region.
    let pla_chains: Vec<usize> = (0..nch).filter(|&c| ch.color[c] == pla).collect();
    let full = |l: &Link| l.to as usize >= nch && l.theirs as u32 == ch.size(l.to as usize);
    let mut vital: Vec<(usize, usize)> = Vec::new();
    let mut tally = vec![(NONE, 0u32); nreg];
    for &c in &pla_chains {
        for l in ch.links(c).iter().filter(|l| full(l)) {
            let r = regs.of(l.to as usize);
            if tally[r].0 != c as u32 {
                tally[r] = (c as u32, 0);
            }
            tally[r].1 += 1;
        }
        for l in ch.links(c).iter().filter(|l| full(l)) {
            let r = regs.of(l.to as usize);
            if tally[r].0 == c as u32 && tally[r].1 == areas[r] {
                vital.push((c, r));
                tally[r].0 = NONE;
            }
        }
    }

    let mut killed = vec![false; nch];
    let mut tainted = vec![false; nreg];
    let mut count = vec![0u32; nch];
    loop {
        for &c in &pla_chains {
            count[c] = 0;
        }
        for &(c, r) in &vital {
            count[c] += !tainted[r] as u32;
        }
        let mut any = false;
        for &c in &pla_chains {
            if !killed[c] && count[c] < 2 {
                killed[c] = true;
                any = true;
                for l in ch.links(c) {
                    tainted[regs.of(l.to as usize)] = true;
                }
            }
        }
        if !any {
            break;
        }
    }

    for &c in &pla_chains {
        if !killed[c] {
            for &s in ch.points(c) {
                out[s as usize] = true;
            }
        }
    }
    for b in 0..ch.blocks() {
        if regs.of[b] == NONE {
            continue;
        }
        let r = regs.of(b);
        let borders = internal[r] < size[r];
        if areas[r] > 0 && internal[r] <= 1 && borders && !tainted[r] {
            for &p in ch.points(b) {
                out[p as usize] = true;
            }
        }
    }
    out
}

// --------------------------------------------------------------- conservative rules

/// Rule 1 of the module docs: which chains of `pla` live, given the chains already
/// known `dead` (of both colours) and the chains that live whatever happens (`forced`,
/// Benson's). `regs`: the regions of `pla` with the `dead` chains taken off. Indexed by
/// chain; `false` for chains of the other colour and dead ones.
fn relaxed_alive(pos: &Pos, ch: &Chains, pla: u8, dead: &[bool], forced: &[bool], regs: &Regions) -> Vec<bool> {
    let opp = 3 - pla;
    let nch = ch.len();
    let nreg = regs.n;
    // Weight of each region: 0 if it holds a living opponent stone, 2 if it is big or a
    // single empty area in a two-eye shape, 1 otherwise.
    let mut size = vec![0u32; nreg];
    let mut blocks = vec![0u32; nreg];
    let mut healthy = vec![true; nreg];
    let mut eye2 = vec![false; nreg];
    for b in 0..ch.blocks() {
        if regs.of[b] == NONE {
            continue;
        }
        let r = regs.of(b);
        size[r] += ch.size(b);
        blocks[r] += 1;
        healthy[r] &= !ch.living(b, opp, dead);
        eye2[r] |= ch.eye2[b];
    }
    let chains: Vec<usize> = (0..nch).filter(|&c| ch.living(c, pla, dead)).collect();
    // The regions each chain borders (each once: `near[near_at[k]..near_at[k + 1]]` for
    // `chains[k]`), and its liberties (points that are empty or hold a dead stone).
    let mut near: Vec<u32> = Vec::new();
    let mut near_at = Vec::with_capacity(chains.len() + 1);
    let mut stamp = vec![NONE; nreg];
    let mut nlibs = vec![0u32; nch];
    for &c in &chains {
        near_at.push(near.len());
        for l in ch.links(c) {
            let b = l.to as usize;
            let r = regs.of(b);
            if stamp[r] != c as u32 {
                stamp[r] = c as u32;
                near.push(r as u32);
            }
            if b >= nch || dead[b] {
                nlibs[c] += l.theirs as u32;
            }
        }
    }
    near_at.push(near.len());
    let weak_wall = weak_walls(ch, pla, dead, regs);
    let weight: Vec<u32> = (0..nreg)
        .map(|r| {
            if !healthy[r] {
                0
            } else if size[r] as usize >= BIG_REGION || (eye2[r] && blocks[r] == 1 && !weak_wall[r]) {
                2
            } else {
                1
            }
        })
        .collect();

    let mut killed = vec![false; nch];
    let mut tainted = vec![false; nreg];
    let mut count = vec![0u32; nch];
    // Per region: bordering chains living in their own right.
    let mut strong = vec![0u32; nreg];
    loop {
        for (k, &c) in chains.iter().enumerate() {
            count[c] = near[near_at[k]..near_at[k + 1]]
                .iter()
                .map(|&r| if tainted[r as usize] { 0 } else { weight[r as usize] })
                .sum();
        }
        strong.fill(0);
        for (k, &c) in chains.iter().enumerate() {
            if !killed[c] && (forced[c] || count[c] >= 2) {
                for &r in &near[near_at[k]..near_at[k + 1]] {
                    strong[r as usize] += 1;
                }
            }
        }
        // Sheltered: at least two liberties, all inside counted regions that also serve
        // a chain living in its own right, so the opponent cannot approach it from
        // outside (a cutting stone inside its own eye space). Decided on the state at
        // the start of the round, like the counts. (Only asked of a chain that does not
        // live in its own right, so any such chain of the region is another one.)
        let anchored = |r: usize| weight[r] > 0 && !tainted[r] && strong[r] > 0;
        let sheltered = |c: usize| {
            nlibs[c] >= 2
                && ch
                    .links(c)
                    .iter()
                    .filter(|l| l.to as usize >= nch || dead[l.to as usize])
                    .all(|l| anchored(regs.of(l.to as usize)))
        };
        // Connected: at least two liberties, one of them a point the opponent cannot
        // play (no opponent neighbour, at most one empty neighbour: a stone there would
        // be in atari at once) next to a chain that lives without that point's region:
        // a joining point of the chain with no dead stone next to it.
        let connected = |c: usize| {
            nlibs[c] >= 2
                && ch.joins(c).iter().any(|&p| {
                    let p = p as usize;
                    let r = regs.of(ch.block[p] as usize);
                    let own = if tainted[r] { 0 } else { weight[r] };
                    let mut anchor = false;
                    for q in pos.adj(p) {
                        if pos.cells[q] == EMPTY {
                            continue;
                        }
                        let d = ch.label[q] as usize;
                        if dead[d] {
                            return false;
                        }
                        anchor |= d != c && !killed[d] && (forced[d] || count[d] >= 2 + own);
                    }
                    anchor
                })
        };
        let doomed: Vec<usize> = chains
            .iter()
            .copied()
            .filter(|&c| !killed[c] && !forced[c] && count[c] < 2 && !sheltered(c) && !connected(c))
            .collect();
        if doomed.is_empty() {
            break;
        }
        for c in doomed {
            killed[c] = true;
            for l in ch.links(c) {
                tainted[regs.of(l.to as usize)] = true;
            }
        }
    }
    let mut alive = vec![false; nch];
    for &c in &chains {
        alive[c] = !killed[c];
    }
    alive
}

/// Per region of `col` (`regs`): whether its wall is weak. A two-eye shape makes two
/// eyes only if its wall holds: a living `col` chain with at most two liberties, in two
/// regions, is put in atari from outside the one and must fill a point of it to stay on
/// the board (docs/scoring.md, "Weak walls"). Marks both regions.
fn weak_walls(ch: &Chains, col: u8, dead: &[bool], regs: &Regions) -> Vec<bool> {
    let nch = ch.len();
    let mut weak = vec![false; regs.n];
    for c in (0..nch).filter(|&c| ch.living(c, col, dead)) {
        let (mut libs, mut at, mut spread) = (0u32, [NONE; 2], false);
        for l in ch.links(c).iter().filter(|l| l.to as usize >= nch || dead[l.to as usize]) {
            libs += l.theirs as u32;
            let r = regs.of(l.to as usize) as u32;
            if at[0] == NONE || at[0] == r {
                at[0] = r;
            } else {
                (spread, at[1]) = (true, r);
            }
        }
        if spread && libs <= 2 {
            for r in at {
                weak[r as usize] = true;
            }
        }
    }
    weak
}

/// Whether an eye space of 4 to 6 empty points makes two eyes even if the opponent
/// plays first: no 2×2 block (square four, bulky five, rectangular six) and no point
/// next to three or more others (pyramid four, crossed five, rabbity six), which leaves
/// straight, bent and zigzag shapes. Spaces holding stones never qualify.
fn two_eye_shape(pos: &Pos, pts: &[u16]) -> bool {
    if !(4..=6).contains(&pts.len()) || pts.iter().any(|&p| pos.cells[p as usize] != EMPTY) {
        return false;
    }
    let has = |i: usize| pts.contains(&(i as u16));
    for &p in pts {
        let p = p as usize;
        if pos.adj(p).filter(|&q| has(q)).count() >= 3 {
            return false;
        }
        let (r, c) = (p / N, p % N);
        if r + 1 < N && c + 1 < N && has(p + 1) && has(p + N) && has(p + N + 1) {
            return false;
        }
    }
    true
}

/// Rule 2, candidates: opponent chains inside a region of P with at most one potential
/// eye (see the module docs), for both P. `regs`: the regions of black and of white
/// with the `dead` chains removed. Indexed by chain.
fn candidates(ch: &Chains, dead: &[bool], forced: &[bool], regs: &[Regions; 2]) -> Vec<bool> {
    let nch = ch.len();
    let mut cand = vec![false; nch];
    // Liberties inside each region (points that are empty or dead) of the P stones
    // around it and of the opponent stones in it, for P = black (`[0]`) and white (`[1]`).
    let mut living = [Bits::default(); 2];
    for c in (0..nch).filter(|&c| !dead[c]) {
        living[ch.color[c] as usize - 1] |= ch.mask[c];
    }
    let near = [living[0].neighbours(), living[1].neighbours()];
    let mut libs_pla = [vec![0u32; regs[0].n], vec![0u32; regs[1].n]];
    let mut libs_opp = [vec![0u32; regs[0].n], vec![0u32; regs[1].n]];
    for b in (0..ch.blocks()).filter(|&b| b >= nch || dead[b]) {
        let next_to = [(ch.mask[b] & near[0]).count(), (ch.mask[b] & near[1]).count()];
        for k in 0..2 {
            let r = regs[k].of(b);
            libs_pla[k][r] += next_to[k];
            libs_opp[k][r] += next_to[1 - k];
        }
    }
    for (k, pla) in [BLACK, WHITE].into_iter().enumerate() {
        let opp = 3 - pla;
        let (pregs, oregs) = (&regs[k], &regs[1 - k]);
        let mut has_forced = vec![false; pregs.n];
        for c in 0..nch {
            if ch.living(c, opp, dead) && forced[c] {
                has_forced[pregs.of(c)] = true;
            }
        }
        // O-regions (maximal connected sets of points that are not living opponent
        // stones): room (points that are not living P stones), blocks, shape.
        let mut room = vec![0u32; oregs.n];
        let mut blocks = vec![0u32; oregs.n];
        let mut eye2 = vec![false; oregs.n];
        for b in 0..ch.blocks() {
            if oregs.of[b] == NONE {
                continue;
            }
            let q = oregs.of(b);
            if !ch.living(b, pla, dead) {
                room[q] += ch.size(b);
            }
            blocks[q] += 1;
            eye2[q] |= ch.eye2[b];
        }
        // The P-region of the opponent chains bordering each O-region, if they all lie
        // in one.
        let in_atari: Vec<bool> = (0..ch.blocks())
            .map(|b| {
                b < nch
                    && ch.living(b, pla, dead)
                    && ch
                        .links(b)
                        .iter()
                        .filter(|l| l.to as usize >= nch || dead[l.to as usize])
                        .map(|l| l.theirs as u32)
                        .sum::<u32>()
                        == 1
            })
            .collect();
        let mut inner = vec![NONE; oregs.n];
        let mut mixed = vec![false; oregs.n];
        for d in 0..nch {
            if !ch.living(d, opp, dead) {
                continue;
            }
            let r = pregs.of(d) as u32;
            // Not through a P chain in atari: it is captured at once, and the room of its
            // O-region then joins the opponent chains on both sides of it into one
            // P-region (docs/scoring.md, "Eyes across a stone in atari").
            for l in ch.links(d).iter().filter(|l| !in_atari[l.to as usize]) {
                let q = oregs.of(l.to as usize);
                if inner[q] == NONE {
                    inner[q] = r;
                } else if inner[q] != r {
                    mixed[q] = true;
                }
            }
        }
        let weak = weak_walls(ch, opp, dead, oregs);
        let mut eyes = vec![0u32; pregs.n];
        for q in 0..oregs.n {
            if inner[q] != NONE && !mixed[q] {
                let two = room[q] as usize >= BIG_REGION || (eye2[q] && blocks[q] == 1 && !weak[q]);
                eyes[inner[q] as usize] += if two { 2 } else { 1 };
            }
        }
        for c in 0..nch {
            if ch.living(c, opp, dead) && !forced[c] {
                let r = pregs.of(c);
                if eyes[r] <= 1 && libs_opp[k][r] <= libs_pla[k][r] && !has_forced[r] {
                    cand[c] = true;
                }
            }
        }
    }
    cand
}

/// Rule 2, verification: the candidate chains that are dead (see the module docs).
/// `regs`: as for [`candidates`].
fn verified(ch: &Chains, dead: &[bool], cand: &[bool], alive_opt: &[bool], regs: &[Regions; 2]) -> Vec<usize> {
    let nch = ch.len();
    let mut out = Vec::new();
    for (k, pla) in [BLACK, WHITE].into_iter().enumerate() {
        let opp = 3 - pla;
        let pregs = &regs[k];
        // Per region: an opponent chain inside that is no candidate; a P chain around
        // it; one that does not live or is a candidate.
        let mut inside_bad = vec![false; pregs.n];
        let mut walled = vec![false; pregs.n];
        let mut walls_bad = vec![false; pregs.n];
        for c in 0..nch {
            if ch.living(c, opp, dead) && !cand[c] {
                inside_bad[pregs.of(c)] = true;
            }
            if ch.living(c, pla, dead) {
                let ok = alive_opt[c] && !cand[c];
                for l in ch.links(c) {
                    let r = pregs.of(l.to as usize);
                    walled[r] = true;
                    walls_bad[r] |= !ok;
                }
            }
        }
        for c in 0..nch {
            if ch.living(c, opp, dead) {
                let r = pregs.of(c);
                if walled[r] && !inside_bad[r] && !walls_bad[r] {
                    out.push(c);
                }
            }
        }
    }
    out
}

/// Chains in seki and the points of the seki (stones, eyes, shared liberties).
pub(crate) struct Seki {
    /// Per chain: in seki.
    pub(crate) chain: Vec<bool>,
    /// Per point: a stone, eye or shared liberty of a seki.
    pub(crate) point: [bool; NN],
}

/// Rule 3 of the module docs. `cand`: chains that may be in seki; `ok_nb`: chains that
/// may touch a seki from outside (living ones); `dead`: dead chains. Indexed by chain.
/// Marks whole chains and whole empty areas.
pub(crate) fn detect_seki(_pos: &Pos, ch: &Chains, cand: &[bool], ok_nb: &[bool], dead: &[bool]) -> Seki {
    let nch = ch.len();
    let mut seki = Seki { chain: vec![false; nch], point: [false; NN] };
    // Colours of the stones around empty area `k`.
    let colours_around = |k: usize| ch.links(k).iter().fold(0, |m, l| m | ch.color[l.to as usize]);

    // Which chains have a seki-like set of liberties, and their eye size (0: no eye).
    let mut qual = vec![false; nch];
    let mut eye_size = vec![0u32; nch];
    for c in 0..nch {
        if !cand[c] || dead[c] {
            continue;
        }
        let col = ch.color[c];
        let (mut eyes, mut shared, mut ok) = (0usize, 0u32, true);
        for l in ch.links(c).iter().filter(|l| l.to as usize >= nch) {
            let k = l.to as usize;
            let size = ch.size(k);
            let around = colours_around(k);
            if around == col {
                eyes += 1;
                eye_size[c] = size;
                ok &= size <= 2;
            } else if around == BLACK | WHITE {
                shared += size;
            } else {
                ok = false;
            }
        }
        ok &= match eyes {
            0 => shared >= 2,
            1 => shared >= 1,
            _ => false,
        };
        qual[c] = ok;
    }
    if !qual.contains(&true) {
        return seki;
    }

    // Clusters: qualifying chains joined by a shared empty area or by contact.
    let mut parent: Vec<u32> = (0..nch as u32).collect();
    for c in (0..nch).filter(|&c| qual[c]) {
        for l in ch.links(c) {
            let b = l.to as usize;
            let joined = if b >= nch { ch.links(b) } else { std::slice::from_ref(l) };
            for m in joined.iter().filter(|m| qual[m.to as usize]) {
                let (ra, rb) = (find(&mut parent, c as u32), find(&mut parent, m.to));
                if ra != rb {
                    parent[ra as usize] = rb;
                }
            }
        }
    }

    // Validity of each cluster (indexed by root).
    let mut valid = vec![true; nch];
    let mut colours = vec![0u8; nch];
    let mut size_seen = vec![NONE; nch];
    for c in (0..nch).filter(|&c| qual[c]) {
        let root = find(&mut parent, c as u32) as usize;
        colours[root] |= ch.color[c];
        if size_seen[root] == NONE {
            size_seen[root] = eye_size[c];
        } else if size_seen[root] != eye_size[c] {
            valid[root] = false;
        }
        for l in ch.links(c) {
            let b = l.to as usize;
            if b >= nch {
                // Every empty area it touches must touch only qualifying live chains.
                if ch.links(b).iter().any(|m| !qual[m.to as usize] || dead[m.to as usize]) {
                    valid[root] = false;
                }
            } else if !qual[b] && (dead[b] || !ok_nb[b]) {
                // Every other chain in contact must be in the seki or living.
                valid[root] = false;
            }
        }
    }
    for c in (0..nch).filter(|&c| qual[c]) {
        let root = find(&mut parent, c as u32) as usize;
        if valid[root] && colours[root] == BLACK | WHITE {
            seki.chain[c] = true;
            for &s in ch.points(c) {
                seki.point[s as usize] = true;
            }
            for l in ch.links(c).iter().filter(|l| l.to as usize >= nch) {
                for &p in ch.points(l.to as usize) {
                    seki.point[p as usize] = true;
                }
            }
        }
    }
    seki
}

/// Ownership from Benson's analysis plus the conservative rules of the module docs,
/// without any markup: dead stones, seki, territory, dame, and
/// [`Owner::Undecided`] for everything the rules cannot settle. Never panics.
pub fn ownership_conservative(board: &Board) -> Ownership {
    let pos = Pos::new(board);
    let ch = Chains::new(&pos);
    let st = conservative_status(&pos, &ch);
    assemble(&pos, &ch, &st.dead, &st.alive, &st.seki)
}

/// The status of every chain by the conservative analysis (indexed by chain).
pub(crate) struct Status {
    /// Pass-alive (Benson).
    pub(crate) forced: Vec<bool>,
    /// In the opponent's pass-alive territory (Benson).
    pub(crate) benson_dead: Vec<bool>,
    /// Dead (Benson or rule 2).
    pub(crate) dead: Vec<bool>,
    /// Alive (rule 1), not dead.
    pub(crate) alive: Vec<bool>,
    /// Seki (rule 3).
    pub(crate) seki: Seki,
    /// Per point: in Black's or White's pass-alive area (Benson: the pass-alive chains
    /// and the regions they enclose, dead stones included).
    pub(crate) pass_alive: Vec<bool>,
}

/// Rules 1 to 3 of the module docs on `pos` (whose blocks are `ch`).
pub(crate) fn conservative_status(pos: &Pos, ch: &Chains) -> Status {
    let nch = ch.len();

    // Benson: pass-alive chains live whatever happens; stones in the opponent's
    // pass-alive territory are dead.
    let base = [Regions::base(ch, BLACK), Regions::base(ch, WHITE)];
    let regions = |dead: &[bool]| [base[0].without(ch, BLACK, dead), base[1].without(ch, WHITE, dead)];
    let pa = [benson_area(ch, BLACK, &base[0]), benson_area(ch, WHITE, &base[1])];
    let mut forced = vec![false; nch];
    let mut dead = vec![false; nch];
    let mut benson_dead = vec![false; nch];
    for c in 0..nch {
        let s = ch.points(c)[0] as usize;
        let col = ch.color[c] as usize;
        let (own, opp) = (pa[col - 1][s], pa[2 - col][s]);
        if own && !opp {
            forced[c] = true;
        } else if opp && !own {
            dead[c] = true;
            benson_dead[c] = true;
        }
    }

    // Rule 2, until no chain dies.
    for _ in 0..MAX_ROUNDS {
        let regs = regions(&dead);
        let cand = candidates(ch, &dead, &forced, &regs);
        if !cand.iter().any(|&x| x) {
            break;
        }
        let optimistic: Vec<bool> = dead.iter().zip(&cand).map(|(d, c)| *d || *c).collect();
        let opt_regs = regions(&optimistic);
        let ab = relaxed_alive(pos, ch, BLACK, &optimistic, &forced, &opt_regs[0]);
        let aw = relaxed_alive(pos, ch, WHITE, &optimistic, &forced, &opt_regs[1]);
        let alive_opt: Vec<bool> = ab.iter().zip(&aw).map(|(b, w)| *b || *w).collect();
        let newly = verified(ch, &dead, &cand, &alive_opt, &regs);
        let mut changed = false;
        for c in newly {
            if !dead[c] {
                dead[c] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }

    // Rule 1 with the dead stones known, then rule 3 among the rest.
    let regs = regions(&dead);
    let ab = relaxed_alive(pos, ch, BLACK, &dead, &forced, &regs[0]);
    let aw = relaxed_alive(pos, ch, WHITE, &dead, &forced, &regs[1]);
    let alive: Vec<bool> = (0..nch).map(|c| !dead[c] && (ab[c] || aw[c])).collect();
    let unknown: Vec<bool> = (0..nch).map(|c| !dead[c] && !alive[c]).collect();
    let seki = detect_seki(pos, ch, &unknown, &alive, &dead);

    let pass_alive = (0..NN).map(|i| pa[0][i] || pa[1][i]).collect();
    Status { forced, benson_dead, dead, alive, seki, pass_alive }
}

/// Builds the [`Ownership`] from the status of every chain (see the module docs, last
/// paragraph). Chains neither dead, alive nor in seki are unsettled. `seki` is
/// [`detect_seki`]'s: whole chains (none dead) and whole empty areas.
pub(crate) fn assemble(pos: &Pos, ch: &Chains, dead: &[bool], alive: &[bool], seki: &Seki) -> Ownership {
    let nch = ch.len();
    let mut own = Ownership::undecided();
    for i in 0..NN {
        if !pos.on[i] || seki.point[i] {
            own.point[i] = Owner::Neutral;
        } else if let Some(c) = ch.of(i) {
            if !dead[c] && alive[c] {
                own.point[i] = if ch.color[c] == BLACK { Owner::Black } else { Owner::White };
            }
        }
    }
    let is_dead = |i: usize| ch.of(i).is_some_and(|c| dead[c]);
    // Areas: empty areas outside seki and dead chains, connected.
    let areas = Regions::new(ch, |b| if b < nch { dead[b] } else { !seki.point[ch.points(b)[0] as usize] });
    // Bits: 1 black alive, 2 white alive, 4 seki, 8 unsettled.
    let mut border = vec![0u8; areas.n];
    let mut dead_colours = vec![0u8; areas.n];
    for b in 0..ch.blocks() {
        if areas.of[b] == NONE {
            continue;
        }
        let a = areas.of(b);
        if b < nch {
            dead_colours[a] |= ch.color[b];
        }
        for l in ch.links(b) {
            let c = l.to as usize;
            if c >= nch || dead[c] {
                continue;
            }
            border[a] |= if seki.chain[c] {
                4
            } else if alive[c] {
                ch.color[c]
            } else {
                8
            };
        }
    }
    for b in 0..ch.blocks() {
        if areas.of[b] == NONE {
            continue;
        }
        let a = areas.of(b);
        let owner = if border[a] & 12 != 0 {
            Owner::Undecided
        } else {
            match border[a] {
                BLACK if dead_colours[a] & BLACK == 0 => Owner::Black,
                WHITE if dead_colours[a] & WHITE == 0 => Owner::White,
                _ if dead_colours[a] == 0 => Owner::Neutral,
                _ => Owner::Undecided,
            }
        };
        for &p in ch.points(b) {
            own.point[p as usize] = owner;
        }
    }
    for i in 0..NN {
        if let Some(p) = Point::from_index(i as u16) {
            if pos.on[i] && is_dead(i) {
                own.dead.push(p);
            }
            if pos.on[i] && seki.point[i] {
                own.seki.push(p);
            }
        }
    }
    own
}
