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

use crate::coord::{Point, N, NN};
use crate::engine::{Board, Color, BLACK, EMPTY, WHITE};

use super::{Owner, Ownership};

/// A region with at least this many points counts as two vital regions (an eye space
/// that big can always be split into two eyes) in the conservative life rule.
pub const BIG_REGION: usize = 7;

/// Largest number of dead-stone rounds (each round only adds dead chains, so the loop
/// ends by itself long before; this is a bound on the work).
const MAX_ROUNDS: usize = 16;

/// "No region / no chain" in the `u32` label arrays.
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

/// The chains of a position, by flood fill.
pub(crate) struct Chains {
    /// Chain of each stone; [`NONE`] on empty and off-board points.
    pub(crate) label: [u32; NN],
    /// Colour of each chain (`1` or `2`).
    pub(crate) color: Vec<u8>,
    /// Stones of each chain, ascending.
    pub(crate) stones: Vec<Vec<usize>>,
}

impl Chains {
    /// Labels every chain of `pos`.
    pub(crate) fn new(pos: &Pos) -> Chains {
        let mut label = [NONE; NN];
        let mut color = Vec::new();
        let mut stones = Vec::new();
        let mut stack = Vec::with_capacity(NN);
        for start in 0..NN {
            let c = pos.cells[start];
            if !pos.on[start] || c == EMPTY || label[start] != NONE {
                continue;
            }
            let id = color.len() as u32;
            let mut list = Vec::new();
            label[start] = id;
            stack.push(start);
            while let Some(s) = stack.pop() {
                list.push(s);
                for q in pos.adj(s) {
                    if pos.cells[q] == c && label[q] == NONE {
                        label[q] = id;
                        stack.push(q);
                    }
                }
            }
            list.sort_unstable();
            color.push(c);
            stones.push(list);
        }
        Chains { label, color, stones }
    }

    /// Number of chains.
    pub(crate) fn len(&self) -> usize {
        self.color.len()
    }

    /// Chain of the stone at `i`, if any.
    #[inline]
    pub(crate) fn of(&self, i: usize) -> Option<usize> {
        let l = self.label[i];
        (l != NONE).then_some(l as usize)
    }
}

/// Connected components of the on-board points for which `inside` holds.
pub(crate) struct Regions {
    /// Component of each point; [`NONE`] where `inside` is false.
    pub(crate) id: [u32; NN],
    /// Points of each component.
    pub(crate) pts: Vec<Vec<usize>>,
}

impl Regions {
    /// Components of the points where `inside(i)` holds.
    pub(crate) fn new(pos: &Pos, inside: impl Fn(usize) -> bool) -> Regions {
        let mut id = [NONE; NN];
        let mut pts = Vec::new();
        let mut stack = Vec::with_capacity(NN);
        for start in 0..NN {
            if !pos.on[start] || id[start] != NONE || !inside(start) {
                continue;
            }
            let r = pts.len() as u32;
            let mut list = Vec::new();
            id[start] = r;
            stack.push(start);
            while let Some(p) = stack.pop() {
                list.push(p);
                for q in pos.adj(p) {
                    if id[q] == NONE && inside(q) {
                        id[q] = r;
                        stack.push(q);
                    }
                }
            }
            pts.push(list);
        }
        Regions { id, pts }
    }

    /// Number of components.
    pub(crate) fn len(&self) -> usize {
        self.pts.len()
    }

    /// Component of `i`, if any.
    #[inline]
    pub(crate) fn of(&self, i: usize) -> Option<usize> {
        let r = self.id[i];
        (r != NONE).then_some(r as usize)
    }
}

/// Pushes `x` unless already present (the lists here are short).
#[inline]
fn push_unique(v: &mut Vec<usize>, x: usize) {
    if !v.contains(&x) {
        v.push(x);
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
    benson_area(&pos, &ch, color.as_u8())
}

/// [`benson_pass_alive`] on an analysed position, for player `pla` (`1` or `2`).
pub(crate) fn benson_area(pos: &Pos, ch: &Chains, pla: u8) -> [bool; NN] {
    let mut out = [false; NN];
    let regs = Regions::new(pos, |i| pos.cells[i] != pla);
    let nreg = regs.len();
    // KataGo seeds regions from empty points only: a component without an empty point
    // (an opponent chain with no liberty, after setup) is no region at all.
    let mut seeded = vec![false; nreg];
    let mut vital: Vec<Vec<usize>> = vec![Vec::new(); nreg];
    let mut internal = vec![0u32; nreg];
    let mut borders = vec![false; nreg];
    let mut adj_chains = Vec::with_capacity(4);
    for r in 0..nreg {
        for &p in &regs.pts[r] {
            adj_chains.clear();
            for q in pos.adj(p) {
                if pos.cells[q] == pla {
                    if let Some(c) = ch.of(q) {
                        push_unique(&mut adj_chains, c);
                    }
                }
            }
            if adj_chains.is_empty() {
                internal[r] += 1;
            } else {
                borders[r] = true;
            }
            if pos.cells[p] == EMPTY {
                if !seeded[r] {
                    seeded[r] = true;
                    vital[r] = adj_chains.clone();
                } else {
                    vital[r].retain(|c| adj_chains.contains(c));
                }
            }
        }
    }

    let pla_chains: Vec<usize> = (0..ch.len()).filter(|&c| ch.color[c] == pla).collect();
    let mut killed = vec![false; ch.len()];
    let mut tainted = vec![false; nreg];
    let mut count = vec![0u32; ch.len()];
    loop {
        for &c in &pla_chains {
            count[c] = 0;
        }
        for r in 0..nreg {
            if seeded[r] && !tainted[r] {
                for &c in &vital[r] {
                    count[c] += 1;
                }
            }
        }
        let mut any = false;
        for &c in &pla_chains {
            if !killed[c] && count[c] < 2 {
                killed[c] = true;
                any = true;
                for &s in &ch.stones[c] {
                    for q in pos.adj(s) {
                        if let Some(r) = regs.of(q) {
                            tainted[r] = true;
                        }
                    }
                }
            }
        }
        if !any {
            break;
        }
    }

    for &c in &pla_chains {
        if !killed[c] {
            for &s in &ch.stones[c] {
                out[s] = true;
            }
        }
    }
    for r in 0..nreg {
        if seeded[r] && internal[r] <= 1 && borders[r] && !tainted[r] {
            for &p in &regs.pts[r] {
                out[p] = true;
            }
        }
    }
    out
}

// --------------------------------------------------------------- conservative rules

/// Rule 1 of the module docs: which chains of `pla` live, given the chains already
/// known `dead` (of both colours) and the chains that live whatever happens (`forced`,
/// Benson's). Indexed by chain; `false` for chains of the other colour and dead ones.
pub(crate) fn relaxed_alive(pos: &Pos, ch: &Chains, pla: u8, dead: &[bool], forced: &[bool]) -> Vec<bool> {
    let opp = 3 - pla;
    let is_pla = |i: usize| pos.cells[i] == pla && ch.of(i).is_some_and(|c| !dead[c]);
    let regs = Regions::new(pos, |i| !is_pla(i));
    let nreg = regs.len();
    let mut weight = vec![0u32; nreg];
    let mut border: Vec<Vec<usize>> = vec![Vec::new(); nreg];
    for r in 0..nreg {
        let mut healthy = true;
        for &p in &regs.pts[r] {
            if pos.cells[p] == opp && ch.of(p).is_some_and(|c| !dead[c]) {
                healthy = false;
            }
            for q in pos.adj(p) {
                if is_pla(q) {
                    if let Some(c) = ch.of(q) {
                        push_unique(&mut border[r], c);
                    }
                }
            }
        }
        weight[r] = if !healthy {
            0
        } else if regs.pts[r].len() >= BIG_REGION || two_eye_shape(pos, &regs.pts[r]) {
            2
        } else {
            1
        };
    }

    let chains: Vec<usize> = (0..ch.len()).filter(|&c| ch.color[c] == pla && !dead[c]).collect();
    // Liberties of each chain (points that are empty or hold a dead stone) and the
    // regions they lie in.
    let mut nlibs = vec![0u32; ch.len()];
    let mut libs_of: Vec<Vec<usize>> = vec![Vec::new(); ch.len()];
    let mut lib_regions: Vec<Vec<usize>> = vec![Vec::new(); ch.len()];
    let mut libs = Vec::new();
    for &c in &chains {
        libs.clear();
        for &s in &ch.stones[c] {
            for q in pos.adj(s) {
                let live_opp = pos.cells[q] == opp && ch.of(q).is_some_and(|d| !dead[d]);
                if !is_pla(q) && !live_opp {
                    push_unique(&mut libs, q);
                }
            }
        }
        nlibs[c] = libs.len() as u32;
        libs_of[c] = libs.clone();
        for &q in &libs {
            if let Some(r) = regs.of(q) {
                push_unique(&mut lib_regions[c], r);
            }
        }
    }
    let mut killed = vec![false; ch.len()];
    let mut tainted = vec![false; nreg];
    let mut count = vec![0u32; ch.len()];
    loop {
        for &c in &chains {
            count[c] = 0;
        }
        for r in 0..nreg {
            if !tainted[r] && weight[r] > 0 {
                for &c in &border[r] {
                    count[c] += weight[r];
                }
            }
        }
        // Sheltered: at least two liberties, all inside counted regions that also serve
        // a chain living in its own right, so the opponent cannot approach it from
        // outside (a cutting stone inside its own eye space). Decided on the state at
        // the start of the round, like the counts.
        let anchored = |r: usize, c: usize| {
            weight[r] > 0
                && !tainted[r]
                && border[r].iter().any(|&d| d != c && !killed[d] && (forced[d] || count[d] >= 2))
        };
        // Connected: at least two liberties, one of them a point the opponent cannot
        // play (no opponent neighbour, at most one empty neighbour: a stone there would
        // be in atari at once) next to a chain that lives without that point's region.
        let connected = |c: usize| {
            nlibs[c] >= 2
                && libs_of[c].iter().any(|&p| {
                    let mut empties = 0;
                    let mut ok = pos.cells[p] == EMPTY;
                    let mut anchor = false;
                    for q in pos.adj(p) {
                        if pos.cells[q] == EMPTY {
                            empties += 1;
                        } else if is_pla(q) {
                            if let Some(d) = ch.of(q) {
                                let r = regs.of(p);
                                let own = r.map_or(0, |r| if tainted[r] { 0 } else { weight[r] });
                                anchor |= d != c && !killed[d] && (forced[d] || count[d] >= 2 + own);
                            }
                        } else {
                            ok = false;
                        }
                    }
                    ok && empties <= 1 && anchor
                })
        };
        let doomed: Vec<usize> = chains
            .iter()
            .copied()
            .filter(|&c| {
                !killed[c]
                    && !forced[c]
                    && count[c] < 2
                    && (nlibs[c] < 2 || !lib_regions[c].iter().all(|&r| anchored(r, c)))
                    && !connected(c)
            })
            .collect();
        if doomed.is_empty() {
            break;
        }
        for c in doomed {
            killed[c] = true;
            for &s in &ch.stones[c] {
                for q in pos.adj(s) {
                    if let Some(r) = regs.of(q) {
                        tainted[r] = true;
                    }
                }
            }
        }
    }
    let mut alive = vec![false; ch.len()];
    for &c in &chains {
        alive[c] = !killed[c];
    }
    alive
}

/// Whether an eye space of 4 to 6 empty points makes two eyes even if the opponent
/// plays first: no 2×2 block (square four, bulky five, rectangular six) and no point
/// next to three or more others (pyramid four, crossed five, rabbity six), which leaves
/// straight, bent and zigzag shapes. Spaces holding stones never qualify.
fn two_eye_shape(pos: &Pos, pts: &[usize]) -> bool {
    if !(4..=6).contains(&pts.len()) || pts.iter().any(|&p| pos.cells[p] != EMPTY) {
        return false;
    }
    let has = |i: usize| pts.contains(&i);
    for &p in pts {
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
/// eye (see the module docs), for both P. Indexed by chain.
fn candidates(pos: &Pos, ch: &Chains, dead: &[bool], forced: &[bool]) -> Vec<bool> {
    let mut cand = vec![false; ch.len()];
    let live = |i: usize, col: u8| pos.cells[i] == col && ch.of(i).is_some_and(|c| !dead[c]);
    for pla in [BLACK, WHITE] {
        let opp = 3 - pla;
        let pregs = Regions::new(pos, |i| !live(i, pla));
        let oregs = Regions::new(pos, |i| !live(i, opp));
        let mut eyes = vec![0u32; pregs.len()];
        let mut has_forced = vec![false; pregs.len()];
        // Liberties inside each region: of the opponent stones in it, of the P stones
        // around it (points that are empty or dead).
        let mut libs_opp = vec![0u32; pregs.len()];
        let mut libs_pla = vec![0u32; pregs.len()];
        for (r, pts) in pregs.pts.iter().enumerate() {
            for &p in pts {
                if live(p, opp) {
                    continue;
                }
                let (mut by_opp, mut by_pla) = (false, false);
                for q in pos.adj(p) {
                    by_opp |= live(q, opp);
                    by_pla |= live(q, pla);
                }
                libs_opp[r] += by_opp as u32;
                libs_pla[r] += by_pla as u32;
            }
        }
        let region_of = |c: usize| pregs.of(ch.stones[c][0]);
        for c in 0..ch.len() {
            if ch.color[c] == opp && !dead[c] && forced[c] {
                if let Some(r) = region_of(c) {
                    has_forced[r] = true;
                }
            }
        }
        let mut border = Vec::new();
        for q in &oregs.pts {
            border.clear();
            let mut room = 0usize;
            for &p in q {
                if !live(p, pla) {
                    room += 1;
                }
                for n in pos.adj(p) {
                    if live(n, opp) {
                        if let Some(c) = ch.of(n) {
                            push_unique(&mut border, c);
                        }
                    }
                }
            }
            let Some(&first) = border.first() else {
                continue;
            };
            let Some(r0) = region_of(first) else { continue };
            if border.iter().all(|&c| region_of(c) == Some(r0)) {
                eyes[r0] += if room >= BIG_REGION || two_eye_shape(pos, q) { 2 } else { 1 };
            }
        }
        for c in 0..ch.len() {
            if ch.color[c] == opp && !dead[c] && !forced[c] {
                if let Some(r) = region_of(c) {
                    if eyes[r] <= 1 && libs_opp[r] <= libs_pla[r] && !has_forced[r] {
                        cand[c] = true;
                    }
                }
            }
        }
    }
    cand
}

/// Rule 2, verification: the candidate chains that are dead (see the module docs).
fn verified(pos: &Pos, ch: &Chains, dead: &[bool], cand: &[bool], alive_opt: &[bool]) -> Vec<usize> {
    let mut out = Vec::new();
    let live = |i: usize, col: u8| pos.cells[i] == col && ch.of(i).is_some_and(|c| !dead[c]);
    for pla in [BLACK, WHITE] {
        let opp = 3 - pla;
        let pregs = Regions::new(pos, |i| !live(i, pla));
        let mut inside = Vec::new();
        let mut walls = Vec::new();
        for pts in &pregs.pts {
            inside.clear();
            walls.clear();
            for &p in pts {
                if live(p, opp) {
                    if let Some(c) = ch.of(p) {
                        push_unique(&mut inside, c);
                    }
                }
                for q in pos.adj(p) {
                    if live(q, pla) {
                        if let Some(c) = ch.of(q) {
                            push_unique(&mut walls, c);
                        }
                    }
                }
            }
            if inside.is_empty() || walls.is_empty() || !inside.iter().all(|&c| cand[c]) {
                continue;
            }
            if walls.iter().all(|&w| alive_opt[w] && !cand[w]) {
                out.extend_from_slice(&inside);
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
pub(crate) fn detect_seki(pos: &Pos, ch: &Chains, cand: &[bool], ok_nb: &[bool], dead: &[bool]) -> Seki {
    let nch = ch.len();
    let mut seki = Seki { chain: vec![false; nch], point: [false; NN] };
    let comps = Regions::new(pos, |i| pos.cells[i] == EMPTY);
    let ncomp = comps.len();
    // Stones around each empty area, and their colours.
    let mut cborder: Vec<Vec<usize>> = vec![Vec::new(); ncomp];
    let mut cmask = vec![0u8; ncomp];
    for (k, pts) in comps.pts.iter().enumerate() {
        for &p in pts {
            for q in pos.adj(p) {
                if let Some(c) = ch.of(q) {
                    push_unique(&mut cborder[k], c);
                    cmask[k] |= pos.cells[q];
                }
            }
        }
    }
    // Empty areas touching each chain.
    let mut ccomps: Vec<Vec<usize>> = vec![Vec::new(); nch];
    for (k, border) in cborder.iter().enumerate() {
        for &c in border {
            ccomps[c].push(k);
        }
    }

    // Which chains have a seki-like set of liberties, and their eye size (0: no eye).
    let mut qual = vec![false; nch];
    let mut eye_size = vec![0usize; nch];
    for c in 0..nch {
        if !cand[c] || dead[c] {
            continue;
        }
        let col = ch.color[c];
        let (mut eyes, mut shared, mut ok) = (0usize, 0usize, true);
        for &k in &ccomps[c] {
            let size = comps.pts[k].len();
            if cmask[k] == col {
                eyes += 1;
                eye_size[c] = size;
                ok &= size <= 2;
            } else if cmask[k] == BLACK | WHITE {
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

    // Clusters: qualifying chains joined by a shared empty area or by contact.
    let mut parent: Vec<usize> = (0..nch).collect();
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    let union = |parent: &mut Vec<usize>, a: usize, b: usize| {
        let (ra, rb) = (find(parent, a), find(parent, b));
        if ra != rb {
            parent[ra] = rb;
        }
    };
    for border in &cborder {
        let q: Vec<usize> = border.iter().copied().filter(|&c| qual[c]).collect();
        for w in q.windows(2) {
            union(&mut parent, w[0], w[1]);
        }
    }
    for c in 0..nch {
        if !qual[c] {
            continue;
        }
        for &s in &ch.stones[c] {
            for q in pos.adj(s) {
                if let Some(d) = ch.of(q) {
                    if d != c && qual[d] {
                        union(&mut parent, c, d);
                    }
                }
            }
        }
    }

    // Validity of each cluster (indexed by root).
    let mut valid = vec![true; nch];
    let mut colours = vec![0u8; nch];
    let mut size_seen = vec![usize::MAX; nch];
    for c in 0..nch {
        if !qual[c] {
            continue;
        }
        let root = find(&mut parent, c);
        colours[root] |= ch.color[c];
        if size_seen[root] == usize::MAX {
            size_seen[root] = eye_size[c];
        } else if size_seen[root] != eye_size[c] {
            valid[root] = false;
        }
        // Every empty area it touches must touch only qualifying live chains.
        for &k in &ccomps[c] {
            if cborder[k].iter().any(|&d| !qual[d] || dead[d]) {
                valid[root] = false;
            }
        }
        // Every other chain in contact must be in the seki or living.
        for &s in &ch.stones[c] {
            for q in pos.adj(s) {
                if let Some(d) = ch.of(q) {
                    if d != c && !qual[d] && (dead[d] || !ok_nb[d]) {
                        valid[root] = false;
                    }
                }
            }
        }
    }
    for c in 0..nch {
        if !qual[c] {
            continue;
        }
        let root = find(&mut parent, c);
        if valid[root] && colours[root] == BLACK | WHITE {
            seki.chain[c] = true;
            for &s in &ch.stones[c] {
                seki.point[s] = true;
            }
            for &k in &ccomps[c] {
                for &p in &comps.pts[k] {
                    seki.point[p] = true;
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
    let nch = ch.len();

    // Benson: pass-alive chains live whatever happens; stones in the opponent's
    // pass-alive territory are dead.
    let pa = [benson_area(&pos, &ch, BLACK), benson_area(&pos, &ch, WHITE)];
    let mut forced = vec![false; nch];
    let mut dead = vec![false; nch];
    for c in 0..nch {
        let s = ch.stones[c][0];
        let col = ch.color[c] as usize;
        let (own, opp) = (pa[col - 1][s], pa[2 - col][s]);
        if own && !opp {
            forced[c] = true;
        } else if opp && !own {
            dead[c] = true;
        }
    }

    // Rule 2, until no chain dies.
    for _ in 0..MAX_ROUNDS {
        let cand = candidates(&pos, &ch, &dead, &forced);
        if !cand.iter().any(|&x| x) {
            break;
        }
        let optimistic: Vec<bool> = dead.iter().zip(&cand).map(|(d, c)| *d || *c).collect();
        let ab = relaxed_alive(&pos, &ch, BLACK, &optimistic, &forced);
        let aw = relaxed_alive(&pos, &ch, WHITE, &optimistic, &forced);
        let alive_opt: Vec<bool> = ab.iter().zip(&aw).map(|(b, w)| *b || *w).collect();
        let newly = verified(&pos, &ch, &dead, &cand, &alive_opt);
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
    let ab = relaxed_alive(&pos, &ch, BLACK, &dead, &forced);
    let aw = relaxed_alive(&pos, &ch, WHITE, &dead, &forced);
    let alive: Vec<bool> = (0..nch).map(|c| !dead[c] && (ab[c] || aw[c])).collect();
    let unknown: Vec<bool> = (0..nch).map(|c| !dead[c] && !alive[c]).collect();
    let seki = detect_seki(&pos, &ch, &unknown, &alive, &dead);

    assemble(&pos, &ch, &dead, &alive, &seki)
}

/// Builds the [`Ownership`] from the status of every chain (see the module docs, last
/// paragraph). Chains neither dead, alive nor in seki are unsettled.
pub(crate) fn assemble(pos: &Pos, ch: &Chains, dead: &[bool], alive: &[bool], seki: &Seki) -> Ownership {
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
    let areas = Regions::new(pos, |i| !seki.point[i] && (pos.cells[i] == EMPTY || is_dead(i)));
    for pts in &areas.pts {
        // Bits: 1 black alive, 2 white alive, 4 seki, 8 unsettled.
        let mut border = 0u8;
        let mut dead_colours = 0u8;
        for &p in pts {
            if is_dead(p) {
                dead_colours |= pos.cells[p];
            }
            for q in pos.adj(p) {
                if let Some(c) = ch.of(q) {
                    if dead[c] {
                        continue;
                    }
                    border |= if seki.chain[c] {
                        4
                    } else if alive[c] {
                        ch.color[c]
                    } else {
                        8
                    };
                }
            }
        }
        let owner = if border & 12 != 0 {
            Owner::Undecided
        } else {
            match border {
                BLACK if dead_colours & BLACK == 0 => Owner::Black,
                WHITE if dead_colours & WHITE == 0 => Owner::White,
                _ if dead_colours == 0 => Owner::Neutral,
                _ => Owner::Undecided,
            }
        };
        for &p in pts {
            own.point[p] = owner;
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
