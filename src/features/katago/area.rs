//! Channels 18/19 of `katago-v7`: KataGo's `Board::calculateArea` (`cpp/game/board.cpp`,
//! Python `board.py` `calculateArea` / `calculateAreaForPla`), ported point for point.
//!
//! For each colour P in turn (black, then white, so white's marks win a conflict):
//! regions are the maximal connected sets of empty-or-opponent points seeded from empty
//! points; a region is *vital* to a P chain when every empty point of it (every point,
//! when multi-stone suicide is legal) is adjacent to that chain; chains with fewer than
//! two vital regions still counted are killed, and every region they border stops
//! counting, until nothing changes. Surviving chains are marked P, and so is each region
//! that (a) has at most one point not adjacent to P and borders no killed chain, or
//! (b) with `safe_big` holds no opponent stone and borders no killed chain, or
//! (c) with `unsafe_big` holds no opponent stone. With `non_pass_alive_stones` every
//! point still unmarked takes its own colour (stones) or stays empty.

use crate::coord::{N, NN};
use crate::engine::Board;

/// Side of the padded grid (a wall ring around 19×19).
const W: usize = N + 2;
/// Cells of the padded grid.
const WW: usize = W * W;
const EMPTY: u8 = 0;
const WALL: u8 = 3;
const NONE: u16 = u16::MAX;
const ADJ: [isize; 4] = [-(W as isize), -1, 1, W as isize];

#[inline]
fn pad(p: usize) -> usize {
    (p / N + 1) * W + (p % N + 1)
}

#[inline]
fn step(q: usize, d: usize) -> usize {
    (q as isize + ADJ[d]) as usize
}

/// Reusable buffers for [`Area::calculate`].
#[derive(Clone, Debug)]
pub struct Area {
    cells: Vec<u8>,
    chain: Vec<u16>,
    region: Vec<u16>,
    stack: Vec<usize>,
    /// Per region: the P chains it is still vital for.
    vital: Vec<[u16; 4]>,
    vital_len: Vec<u8>,
    internal: Vec<u8>,
    contains_opp: Vec<bool>,
    borders_dead: Vec<bool>,
    killed: Vec<bool>,
    /// Per chain head: killed in the current round of [`Area::for_pla`]'s loop.
    newly_killed: Vec<bool>,
    vital_count: Vec<u8>,
    /// The result, per padded cell: 0 none, 1 black, 2 white.
    out: Vec<u8>,
}

impl Default for Area {
    fn default() -> Area {
        Area::new()
    }
}

impl Area {
    /// Empty buffers.
    pub fn new() -> Area {
        Area {
            cells: vec![WALL; WW],
            chain: vec![NONE; WW],
            region: vec![NONE; WW],
            stack: Vec::with_capacity(NN),
            vital: Vec::new(),
            vital_len: Vec::new(),
            internal: Vec::new(),
            contains_opp: Vec::new(),
            borders_dead: Vec::new(),
            killed: Vec::new(),
            newly_killed: Vec::new(),
            vital_count: Vec::new(),
            out: vec![0; WW],
        }
    }

    /// KataGo `calculateArea(result, nonPassAliveStones = true, safeBigTerritories = true,
    /// unsafeBigTerritories = true, suicide)`: the owner of each point (0, 1 black,
    /// 2 white) into `result`, indexed by point.
    pub fn calculate(&mut self, board: &Board, suicide: bool, result: &mut [u8; NN]) {
        self.load(board);
        self.out.fill(0);
        self.for_pla(1, true, true, suicide);
        self.for_pla(2, true, true, suicide);
        for (p, r) in result.iter_mut().enumerate() {
            let q = pad(p);
            *r = if self.out[q] != 0 { self.out[q] } else { self.cells[q] };
        }
    }

    /// Cells and chain labels (each chain labelled by its first point in scan order).
    fn load(&mut self, board: &Board) {
        let mut cells = [0u8; NN];
        board.cells(&mut cells);
        let (cols, rows) = board.size();
        self.cells.fill(WALL);
        for (p, &v) in cells.iter().enumerate() {
            if p % N < cols && p / N < rows {
                self.cells[pad(p)] = v;
            }
        }
        self.chain.fill(NONE);
        for q in 0..WW {
            let v = self.cells[q];
            if (v == 1 || v == 2) && self.chain[q] == NONE {
                self.chain[q] = q as u16;
                self.stack.clear();
                self.stack.push(q);
                while let Some(s) = self.stack.pop() {
                    for d in 0..4 {
                        let t = step(s, d);
                        if self.cells[t] == v && self.chain[t] == NONE {
                            self.chain[t] = q as u16;
                            self.stack.push(t);
                        }
                    }
                }
            }
        }
    }

    fn adjacent_to_chain(&self, q: usize, pla: u8, head: u16) -> bool {
        (0..4).any(|d| {
            let t = step(q, d);
            self.cells[t] == pla && self.chain[t] == head
        })
    }

    /// KataGo `calculateAreaForPla(pla, safeBig, unsafeBig, suicide, result)`.
    fn for_pla(&mut self, pla: u8, safe_big: bool, unsafe_big: bool, suicide: bool) {
        let opp = 3 - pla;
        self.region.fill(NONE);
        self.vital.clear();
        self.vital_len.clear();
        self.internal.clear();
        self.contains_opp.clear();
        let mut at_least_one_pla = false;
        for seed in 0..WW {
            let v = self.cells[seed];
            if v == WALL || self.region[seed] != NONE {
                continue;
            }
            if v != EMPTY {
                at_least_one_pla |= v == pla;
                continue;
            }
            let r = self.vital.len() as u16;
            let mut vit = [NONE; 4];
            let mut vlen = 0usize;
            for d in 0..4 {
                let t = step(seed, d);
                if self.cells[t] == pla && !vit[..vlen].contains(&self.chain[t]) {
                    vit[vlen] = self.chain[t];
                    vlen += 1;
                }
            }
            let mut internal = 0u8;
            let mut contains_opp = false;
            self.region[seed] = r;
            self.stack.clear();
            self.stack.push(seed);
            while let Some(q) = self.stack.pop() {
                if suicide || self.cells[q] == EMPTY {
                    let mut k = 0;
                    for i in 0..vlen {
                        if self.adjacent_to_chain(q, pla, vit[i]) {
                            vit[k] = vit[i];
                            k += 1;
                        }
                    }
                    vlen = k;
                }
                if internal < 2 && (0..4).all(|d| self.cells[step(q, d)] != pla) {
                    internal += 1;
                }
                contains_opp |= self.cells[q] == opp;
                for d in 0..4 {
                    let t = step(q, d);
                    let c = self.cells[t];
                    if (c == EMPTY || c == opp) && self.region[t] == NONE {
                        self.region[t] = r;
                        self.stack.push(t);
                    }
                }
            }
            self.vital.push(vit);
            self.vital_len.push(vlen as u8);
            self.internal.push(internal);
            self.contains_opp.push(contains_opp);
        }
        let nreg = self.vital.len();
        self.borders_dead.clear();
        self.borders_dead.resize(nreg, false);
        self.killed.clear();
        self.killed.resize(WW, false);
        self.vital_count.clear();
        self.vital_count.resize(WW, 0);
        loop {
            self.vital_count.fill(0);
            for r in 0..nreg {
                if self.borders_dead[r] {
                    continue;
                }
                for &h in &self.vital[r][..self.vital_len[r] as usize] {
                    self.vital_count[h as usize] = self.vital_count[h as usize].saturating_add(1);
                }
            }
            // The chains killed this round (decided on the counts above, which the
            // round's kills do not change), then the regions they border, in one pass
            // over the board rather than one per killed chain.
            let mut killed_any = false;
            self.newly_killed.clear();
            self.newly_killed.resize(WW, false);
            for h in 0..WW {
                if self.cells[h] != pla || self.chain[h] != h as u16 || self.killed[h] || self.vital_count[h] >= 2 {
                    continue;
                }
                self.killed[h] = true;
                self.newly_killed[h] = true;
                killed_any = true;
            }
            if !killed_any {
                break;
            }
            for q in 0..WW {
                if self.cells[q] == pla && self.newly_killed[self.chain[q] as usize] {
                    for d in 0..4 {
                        let t = step(q, d);
                        let c = self.cells[t];
                        if (c == EMPTY || c == opp) && self.region[t] != NONE {
                            self.borders_dead[self.region[t] as usize] = true;
                        }
                    }
                }
            }
        }
        for q in 0..WW {
            if self.cells[q] == pla && !self.killed[self.chain[q] as usize] {
                self.out[q] = pla;
            }
        }
        let mut mark = vec![false; nreg];
        for (r, m) in mark.iter_mut().enumerate() {
            let alive_border = !self.borders_dead[r];
            let no_opp = !self.contains_opp[r];
            *m = at_least_one_pla
                && ((self.internal[r] <= 1 && alive_border)
                    || (safe_big && no_opp && alive_border)
                    || (unsafe_big && no_opp));
        }
        for q in 0..WW {
            let r = self.region[q];
            if r != NONE && mark[r as usize] {
                self.out[q] = pla;
            }
        }
    }
}
