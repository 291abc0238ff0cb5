//! Exact optimal subtrees of depth one or two on numeric columns by sweeps over sorted
//! orders (the depth-two solver of ConTree, Brița, van der Linden and Demirović, AAAI
//! 2025), the counterpart for [`Thresholds`] of the pairwise-count kernel of 0/1 columns
//! ([`crate::depth2`]), whose pairs of thresholds would grow with their square.
//!
//! * Depth one: one pass per column over the subproblem's groups in that column's
//!   sorted order, summing the statistics sent left and scoring every boundary between
//!   distinct values. After a boundary scoring `gap` above the best, the next boundaries
//!   are skipped until the left part has gained more than `gap / k` of mass, `k` the
//!   objective's [`Objective::max_unit_loss`]: moving mass `w` between the two leaves
//!   lowers their cost by at most `w k` (ConTree's skip).
//! * Depth two: for a root threshold, the best depth-one trees of both sides come from
//!   one pass over every column's sorted order, each group routed by its root rank. The
//!   root thresholds of a column are visited by bisection of intervals (ConTree's
//!   interval search): with a minimum leaf support of one, the optimum `L(t)` of the
//!   left side never decreases as the threshold `t` grows (it only gains rows: any tree
//!   of the larger side restricted to the smaller is still a valid tree, or a leaf that
//!   costs no more) and the right side's `R(t)` never increases, so an interval between
//!   evaluated thresholds `a < b` costs at least `L(a) + R(b)` everywhere (sub-interval
//!   pruning); and moving groups of mass `w` across the root changes `L + R` by at most
//!   `w k` downwards (the side gaining rows only gets dearer, the side losing them loses
//!   at most `w k`), so near a threshold scoring `gap` above the best nothing better lies
//!   within mass `gap / k` (neighbourhood pruning). With a minimum leaf support above one
//!   the restriction argument fails (a restricted leaf may fall below the support), so
//!   both interval prunings are off there and every root threshold is evaluated.
//!
//! Leaves are closed by the same rules as in the graph search ([`crate::rules`]); the
//! sides of a root split take the equivalent-points floor as zero (that only closes
//! fewer nodes, and a node the rules close can never gain from a split). The caller's
//! bound prunes too: when no tree costs less than it, the kernel says so instead of
//! finishing the search for the exact optimum.

use crate::depth2::{Halt, SmallTree};
use crate::objective::Objective;
use crate::rules::{side, Rules};
use crate::split::{SplitFamily, Task, Thresholds};
use std::collections::VecDeque;
use treeopt_core::bitset::for_each_one;

/// Group visits between two checks of the clock and the monitor.
const POLL_WORK: usize = 1 << 16;

const NONE: usize = usize::MAX;

/// The best depth-at-most-one tree of one side, built up by sweeps over sorted columns.
struct Helper {
    total: Vec<f64>,
    acc: Vec<f64>,
    rest: Vec<f64>,
    total_rows: f64,
    total_mass: f64,
    acc_rows: f64,
    acc_mass: f64,
    /// A group of the current column has been summed, the last of rank `prev`.
    started: bool,
    prev: u32,
    /// Cost of the best tree found (at first the leaf) and its split.
    best: f64,
    split: Option<u32>,
    /// No split tree of the side costs less.
    split_lb: f64,
    /// Nothing can beat `best`: the side needs no more sweeps.
    done: bool,
    /// The rest of the current column cannot beat `best`.
    col_done: bool,
    /// Boundaries of the current column are scored once the left part holds more.
    skip_until: f64,
    /// Split number of the current column's threshold 0.
    base: u32,
}

impl Helper {
    fn new(c: usize) -> Self {
        Helper {
            total: vec![0.0; c],
            acc: vec![0.0; c],
            rest: vec![0.0; c],
            total_rows: 0.0,
            total_mass: 0.0,
            acc_rows: 0.0,
            acc_mass: 0.0,
            started: false,
            prev: 0,
            best: f64::INFINITY,
            split: None,
            split_lb: 0.0,
            done: true,
            col_done: true,
            skip_until: f64::NEG_INFINITY,
            base: 0,
        }
    }

    /// Starts a side with these statistics, equivalent-points floor and rows.
    fn reset<O: Objective>(&mut self, obj: &O, totals: &[f64], floor: f64, rows: f64, rules: &Rules) {
        self.total.copy_from_slice(totals);
        self.total_rows = rows;
        self.total_mass = totals.iter().sum();
        let s = side(obj, totals, floor, None, rows, 1, rules);
        self.best = s.leaf_cost;
        self.split = None;
        self.split_lb = s.proven;
        self.done = s.terminal || self.best <= self.split_lb;
    }

    /// Starts a sweep over a column whose threshold 0 is split `base`.
    #[inline]
    fn begin(&mut self, base: u32) {
        self.acc.fill(0.0);
        self.acc_rows = 0.0;
        self.acc_mass = 0.0;
        self.started = false;
        self.col_done = self.done;
        self.skip_until = f64::NEG_INFINITY;
        self.base = base;
    }

    /// The next group of the side in the column's order: scores the boundary before it
    /// (when its rank differs from the previous group's), then sums it left.
    #[inline]
    fn push<O: Objective>(&mut self, obj: &O, stats: &[f64], rows: f64, rank: u32, rules: &Rules, unit: Option<f64>) {
        if self.col_done {
            return;
        }
        if self.started
            && rank != self.prev
            && self.acc_mass > self.skip_until
            && self.acc_rows >= rules.min_support
            && self.total_rows - self.acc_rows >= rules.min_support
        {
            for ((r, t), a) in self.rest.iter_mut().zip(&self.total).zip(&self.acc) {
                *r = t - a;
            }
            let cost = obj.leaf_loss(&self.acc) + obj.leaf_loss(&self.rest) + 2.0 * rules.penalty;
            if cost < self.best {
                self.best = cost;
                self.split = Some(self.base + self.prev);
                if cost <= self.split_lb {
                    self.done = true;
                    self.col_done = true;
                    return;
                }
            } else if let Some(k) = unit {
                // Moving mass w lowers the cost by at most w k: the next boundaries
                // cannot beat the best before the left part gains (cost - best) / k.
                let gap = cost - self.best;
                self.skip_until = if k > 0.0 {
                    self.acc_mass + gap / k * (1.0 - 1e-9)
                } else if gap > 0.0 {
                    f64::INFINITY
                } else {
                    self.acc_mass
                };
                if self.skip_until >= self.total_mass {
                    self.col_done = true;
                    return;
                }
            }
        }
        for (a, s) in self.acc.iter_mut().zip(stats) {
            *a += s;
        }
        self.acc_rows += rows;
        self.acc_mass += stats.iter().sum::<f64>();
        self.started = true;
        self.prev = rank;
    }
}

/// A root threshold of a column: its rank (left: rank at most `t`), and the mass and
/// rows it sends left.
#[derive(Clone, Copy)]
struct Cut {
    t: u32,
    mass: f64,
    rows: f64,
}

/// Reusable buffers of the sweep kernel for one numeric dataset.
pub(crate) struct Sweep {
    c: usize,
    m: usize,
    /// The objective's bound on the loss per unit of mass moved (neighbourhood pruning
    /// and the depth-one skip), `None` when it has none.
    unit: Option<f64>,
    /// The groups of the current subproblem, ascending.
    members: Vec<u32>,
    /// Per column (`m * n`), the subproblem's groups in sorted order, and their ranks.
    cols: Vec<u32>,
    col_ranks: Vec<u32>,
    /// Per dataset group, its rank in the current root column.
    root_rank: Vec<u32>,
    totals: Vec<f64>,
    right: Vec<f64>,
    cuts: Vec<Cut>,
    /// Per cut, the statistics it sends left (`cuts.len() * c`).
    prefix: Vec<f64>,
    /// Per cut, the optima of its left and right sides once evaluated.
    found: Vec<(f64, f64)>,
    queue: VecDeque<(usize, usize, usize, usize)>,
    helpers: [Helper; 2],
    work: usize,
    /// The last optimum solved, by set and depth: the search's tree is rebuilt from the
    /// kernel, which then finds its answer here instead of solving again.
    last: Option<(Vec<u64>, u32, SmallTree)>,
}

impl Sweep {
    pub fn new<O: Objective, S: SplitFamily>(t: &Task<O, S>, th: &Thresholds) -> Self {
        let c = t.obj.n_stats();
        Sweep {
            c,
            m: th.numeric().n_columns(),
            unit: t.obj.max_unit_loss(),
            members: Vec::new(),
            cols: Vec::new(),
            col_ranks: Vec::new(),
            root_rank: Vec::new(),
            totals: vec![0.0; c],
            right: vec![0.0; c],
            cuts: Vec::new(),
            prefix: Vec::new(),
            found: Vec::new(),
            queue: VecDeque::new(),
            helpers: [Helper::new(c), Helper::new(c)],
            work: 0,
            last: None,
        }
    }

    /// Bytes held by the kernel's buffers.
    pub fn bytes(&self) -> usize {
        4 * (self.members.capacity() + self.cols.capacity() + self.col_ranks.capacity() + self.root_rank.capacity())
            + 8 * (self.prefix.capacity() + 2 * self.found.capacity())
            + std::mem::size_of::<Cut>() * self.cuts.capacity()
            + 32 * self.queue.capacity()
            + 8 * 8 * self.c
            + self.last.as_ref().map_or(0, |l| 8 * l.0.capacity())
    }

    /// Frees the per-subproblem buffers.
    pub fn release(&mut self) {
        (self.cols, self.col_ranks, self.prefix, self.found) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        self.cuts = Vec::new();
    }

    /// Counts work and polls `stop` every [`POLL_WORK`] group visits.
    #[inline]
    fn poll(&mut self, work: usize, stop: &mut dyn FnMut() -> Option<Halt>) -> Result<(), Halt> {
        self.work += work;
        if self.work >= POLL_WORK {
            self.work = 0;
            if let Some(h) = stop() {
                return Err(h);
            }
        }
        Ok(())
    }

    /// The optimal subtree of depth at most `depth` (1 or 2) for the groups in `set`
    /// under the leaf-closing rules, unless none costs less than `bound`: then the tree
    /// returned is the best found (costing `bound` or more) and the flag is false. The
    /// kernel holds at most `budget_bytes` (else [`Halt::MemoryLimit`]) and gives up
    /// with `stop`'s status when `stop` asks it to.
    #[allow(clippy::too_many_arguments)]
    pub fn solve<O: Objective, S: SplitFamily>(
        &mut self,
        t: &Task<O, S>,
        th: &Thresholds,
        set: &[u64],
        depth: u32,
        rules: &Rules,
        bound: f64,
        budget_bytes: usize,
        stop: &mut dyn FnMut() -> Option<Halt>,
    ) -> Result<(SmallTree, bool), Halt> {
        debug_assert!(depth == 1 || depth == 2);
        if let Some((s, d, tree)) = &self.last {
            if *d == depth && s.as_slice() == set {
                return Ok((*tree, tree.cost < bound));
            }
        }
        let (floor, rows) = self.prepare(t, th, set, budget_bytes, stop)?;
        let obj = &t.obj;
        let s = side(obj, &self.totals, floor, None, rows, depth, rules);
        if s.terminal {
            let tree = SmallTree { cost: s.leaf_cost, split: None };
            return Ok((tree, tree.cost < bound));
        }
        // The best stump (a tree of depth two too).
        let mut h = std::mem::replace(&mut self.helpers[0], Helper::new(0));
        h.reset(obj, &self.totals, floor, rows, rules);
        let stump = self.depth_one(t, th, &mut h, rules, stop);
        let (cost, split) = (h.best, h.split);
        self.helpers[0] = h;
        stump?;
        let mut best = SmallTree { cost, split: split.map(|f| (f, None, None)) };
        if depth == 2 && best.cost > s.proven {
            self.depth_two(t, th, floor, rows, s.proven, bound, &mut best, rules, stop)?;
        }
        if best.cost < bound {
            match &mut self.last {
                Some((s, d, tree)) => {
                    s.clear();
                    s.extend_from_slice(set);
                    (*d, *tree) = (depth, best);
                }
                None => self.last = Some((set.to_vec(), depth, best)),
            }
        }
        Ok((best, best.cost < bound))
    }

    /// Lists the groups of `set` in every column's sorted order (filtering the dataset's
    /// orders when the set is large, sorting its members when it is small) and sums its
    /// statistics into `totals`. Returns its equivalent-points floor and rows.
    fn prepare<O: Objective, S: SplitFamily>(&mut self, t: &Task<O, S>, th: &Thresholds, set: &[u64], budget: usize, stop: &mut dyn FnMut() -> Option<Halt>) -> Result<(f64, f64), Halt> {
        let data = th.numeric();
        let m = self.m;
        self.members.clear();
        self.totals.fill(0.0);
        let (mut floor, mut rows) = (0.0, 0.0);
        {
            let (members, totals) = (&mut self.members, &mut self.totals);
            for_each_one(set, |g| {
                members.push(g as u32);
                for (s, w) in totals.iter_mut().zip(t.obj.group_stats(g)) {
                    *s += w;
                }
                floor += t.obj.group_floor(g);
                rows += t.data.group_rows(g) as f64;
            });
        }
        let n = self.members.len();
        let n_all = data.n_groups();
        let need = 8 * m * n + 4 * n_all + (8 * self.c + 16 + std::mem::size_of::<Cut>() + 32) * n;
        if self.bytes() + need > budget {
            self.release();
            if self.bytes() + need > budget {
                return Err(Halt::MemoryLimit);
            }
        }
        if self.root_rank.len() != n_all {
            self.root_rank = vec![0; n_all];
        }
        self.cols.resize(m * n, 0);
        self.col_ranks.resize(m * n, 0);
        let filter = n * 16 >= n_all;
        for j in 0..m {
            let out = &mut self.cols[j * n..(j + 1) * n];
            if filter {
                let mut k = 0;
                for &g in data.sorted(j) {
                    if set[g as usize >> 6] >> (g & 63) & 1 == 1 {
                        out[k] = g;
                        k += 1;
                    }
                }
                debug_assert_eq!(k, n);
            } else {
                out.copy_from_slice(&self.members);
                out.sort_unstable_by_key(|&g| data.rank(g as usize, j));
            }
            for (r, &g) in self.col_ranks[j * n..(j + 1) * n].iter_mut().zip(out.iter()) {
                *r = data.rank(g as usize, j);
            }
            self.poll(if filter { n_all } else { 4 * n }, stop)?;
        }
        Ok((floor, rows))
    }

    /// The best depth-at-most-one tree of all the members into `h` (already reset).
    fn depth_one<O: Objective, S: SplitFamily>(&mut self, t: &Task<O, S>, th: &Thresholds, h: &mut Helper, rules: &Rules, stop: &mut dyn FnMut() -> Option<Halt>) -> Result<(), Halt> {
        let n = self.members.len();
        for j in 0..self.m {
            if h.done {
                break;
            }
            h.begin(th.split_of(j, 0));
            for k in j * n..(j + 1) * n {
                let g = self.cols[k] as usize;
                h.push(&t.obj, t.obj.group_stats(g), t.data.group_rows(g) as f64, self.col_ranks[k], rules, self.unit);
                if h.col_done {
                    break;
                }
            }
            self.poll(n, stop)?;
        }
        Ok(())
    }

    /// Searches the depth-two trees of the members for one cheaper than `best` (and,
    /// for pruning, than `bound`), root column by root column; `lb` bounds every split
    /// tree of the members.
    #[allow(clippy::too_many_arguments)]
    fn depth_two<O: Objective, S: SplitFamily>(
        &mut self,
        t: &Task<O, S>,
        th: &Thresholds,
        floor: f64,
        rows: f64,
        lb: f64,
        bound: f64,
        best: &mut SmallTree,
        rules: &Rules,
        stop: &mut dyn FnMut() -> Option<Halt>,
    ) -> Result<(), Halt> {
        let _ = floor; // the sides take the floor as zero (see the module notes)
        let (n, m, c) = (self.members.len(), self.m, self.c);
        let obj = &t.obj;
        let monotone = rules.min_support <= 1.0;
        let unit = self.unit.filter(|_| monotone);
        let mut helpers = std::mem::replace(&mut self.helpers, [Helper::new(0), Helper::new(0)]);
        let out = (|| {
            for f in 0..m {
                if best.cost.min(bound) <= lb {
                    break;
                }
                // The root thresholds of column f with their left sums.
                self.cuts.clear();
                self.prefix.clear();
                let (mut acc_rows, mut acc_mass) = (0.0, 0.0);
                let mut acc = vec![0.0; c];
                for k in f * n..(f + 1) * n {
                    let (g, r) = (self.cols[k] as usize, self.col_ranks[k]);
                    if k > f * n && r != self.col_ranks[k - 1] && acc_rows >= rules.min_support && rows - acc_rows >= rules.min_support {
                        self.cuts.push(Cut { t: self.col_ranks[k - 1], mass: acc_mass, rows: acc_rows });
                        self.prefix.extend_from_slice(&acc);
                    }
                    let st = obj.group_stats(g);
                    for (a, s) in acc.iter_mut().zip(st) {
                        *a += s;
                    }
                    acc_mass += st.iter().sum::<f64>();
                    acc_rows += t.data.group_rows(g) as f64;
                    self.root_rank[g] = r;
                }
                let n_cuts = self.cuts.len();
                DBG_CUTS.fetch_add(n_cuts, std::sync::atomic::Ordering::Relaxed);
                if n_cuts == 0 {
                    continue;
                }
                self.found.clear();
                self.found.resize(n_cuts, (0.0, 0.0));
                self.queue.clear();
                self.queue.push_back((0, n_cuts - 1, NONE, NONE));
                while let Some((lo, hi, le, re)) = self.queue.pop_front() {
                    let target = best.cost.min(bound);
                    if target <= lb {
                        break;
                    }
                    if monotone {
                        // Sub-interval pruning: L grows and R shrinks with the threshold.
                        let l = if le == NONE { 0.0 } else { self.found[le].0 };
                        let r = if re == NONE { 0.0 } else { self.found[re].1 };
                        if l + r >= target {
                            continue;
                        }
                    }
                    let mid = lo + (hi - lo) / 2;
                    let cut = self.cuts[mid];
                    for ((r, tot), p) in self.right.iter_mut().zip(&self.totals).zip(&self.prefix[mid * c..(mid + 1) * c]) {
                        *r = tot - p;
                    }
                    helpers[0].reset(obj, &self.prefix[mid * c..(mid + 1) * c], 0.0, cut.rows, rules);
                    helpers[1].reset(obj, &self.right, 0.0, rows - cut.rows, rules);
                    for j in 0..m {
                        if helpers[0].done && helpers[1].done {
                            break;
                        }
                        let base = th.split_of(j, 0);
                        helpers[0].begin(base);
                        helpers[1].begin(base);
                        for k in j * n..(j + 1) * n {
                            let g = self.cols[k] as usize;
                            let h = &mut helpers[(self.root_rank[g] > cut.t) as usize];
                            h.push(obj, obj.group_stats(g), t.data.group_rows(g) as f64, self.col_ranks[k], rules, self.unit);
                            if helpers[0].col_done && helpers[1].col_done {
                                break;
                            }
                        }
                        self.poll(n, stop)?;
                    }
                    let (l, r) = (helpers[0].best, helpers[1].best);
                    DBG_EVALS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    self.found[mid] = (l, r);
                    let cost = l + r;
                    if cost < best.cost {
                        *best = SmallTree { cost, split: Some((th.split_of(f, cut.t), helpers[0].split, helpers[1].split)) };
                    }
                    let target = best.cost.min(bound);
                    let (mut left_end, mut right_start) = (mid as isize - 1, mid + 1);
                    if let Some(k) = unit {
                        // Neighbourhood pruning: within mass gap / k of this threshold the
                        // cost stays at or above the target.
                        let gap = cost - target;
                        if gap > 0.0 {
                            let reach = if k > 0.0 { gap / k * (1.0 - 1e-9) } else { f64::INFINITY };
                            while right_start <= hi && self.cuts[right_start].mass - cut.mass <= reach {
                                right_start += 1;
                            }
                            while left_end >= lo as isize && cut.mass - self.cuts[left_end as usize].mass <= reach {
                                left_end -= 1;
                            }
                        }
                    }
                    if right_start <= hi {
                        self.queue.push_back((right_start, hi, mid, re));
                    }
                    if left_end >= lo as isize {
                        self.queue.push_back((lo, left_end as usize, le, mid));
                    }
                }
            }
            Ok(())
        })();
        self.helpers = helpers;
        out
    }
}

pub static DBG_EVALS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
pub static DBG_CUTS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::objective::{CostSensitive, Misclassification};
    use crate::testing::stats_of;
    use crate::Status;
    use treeopt_core::NumericDataset;

    /// A seeded random numeric dataset with many ties: values from a few levels, random
    /// weights, `classes` classes.
    fn numeric(rows: usize, m: usize, classes: usize, levels: usize, seed: u64) -> NumericDataset {
        let mut s = seed;
        let mut next = || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (s >> 33) as usize
        };
        let x: Vec<f64> = (0..rows * m).map(|_| (next() % levels) as f64 * 0.5 - 1.0).collect();
        let y: Vec<u32> = (0..rows).map(|_| (next() % classes) as u32).collect();
        let w: Vec<f64> = (0..rows).map(|_| if seed % 2 == 0 { 1.0 } else { 0.5 + (next() % 4) as f64 }).collect();
        NumericDataset::new(&x, rows, m, &y, classes, Some(&w)).unwrap()
    }

    /// Exhaustive optimum over every threshold tree of depth at most `depth` on `groups`.
    fn brute<O: Objective>(obj: &O, th: &Thresholds, data: &NumericDataset, groups: &[usize], depth: u32, penalty: f64, min_support: f64) -> f64 {
        let mut best = obj.leaf_loss(&stats_of(obj, groups)) + penalty;
        if depth == 0 {
            return best;
        }
        let rows = |side: &[usize]| side.iter().map(|&g| data.group_rows(g) as f64).sum::<f64>();
        for s in 0..th.n_splits() {
            let (l, r): (Vec<usize>, Vec<usize>) = groups.iter().partition(|&&g| !th.goes_right(g, s));
            if l.is_empty() || r.is_empty() || rows(&l) < min_support || rows(&r) < min_support {
                continue;
            }
            best = best.min(brute(obj, th, data, &l, depth - 1, penalty, min_support) + brute(obj, th, data, &r, depth - 1, penalty, min_support));
        }
        best
    }

    /// Cost of the kernel's tree, recomputed from the groups it routes to each leaf; and
    /// whether every leaf holds the minimum support.
    fn cost_of<O: Objective>(obj: &O, th: &Thresholds, data: &NumericDataset, groups: &[usize], tree: &SmallTree, penalty: f64, min_support: f64) -> f64 {
        let leaf = |gs: &[usize]| {
            assert!(gs.iter().map(|&g| data.group_rows(g) as f64).sum::<f64>() >= min_support, "a leaf below the support");
            obj.leaf_loss(&stats_of(obj, gs)) + penalty
        };
        let split = |gs: &[usize], s: u32| -> (Vec<usize>, Vec<usize>) {
            let parts: (Vec<usize>, Vec<usize>) = gs.iter().partition(|&&g| !th.goes_right(g, s as usize));
            assert!(!parts.0.is_empty() && !parts.1.is_empty(), "a split with an empty side");
            parts
        };
        match tree.split {
            None => leaf(groups),
            Some((f, fl, fr)) => {
                let (l, r) = split(groups, f);
                let side = |gs: &[usize], sub: Option<u32>| match sub {
                    None => leaf(gs),
                    Some(s) => {
                        let (a, b) = split(gs, s);
                        leaf(&a) + leaf(&b)
                    }
                };
                side(&l, fl) + side(&r, fr)
            }
        }
    }

    fn check<O: Objective>(task: &Task<O, Thresholds>, data: &NumericDataset, groups: &[usize], rules: &Rules, seed: u64) {
        let th = &task.splits;
        let mut set = vec![0u64; data.words()];
        groups.iter().for_each(|&g| set[g / 64] |= 1 << (g % 64));
        let mut never = || None;
        let mut kernel = Sweep::new(task, th);
        for depth in [1, 2] {
            let want = brute(&task.obj, th, data, groups, depth, rules.penalty, rules.min_support);
            let (got, exact) = kernel.solve(task, th, &set, depth, rules, f64::INFINITY, usize::MAX, &mut never).unwrap();
            assert!(exact);
            assert!((got.cost - want).abs() < 1e-9, "seed {seed}, depth {depth}: kernel {} brute force {want}", got.cost);
            let again = cost_of(&task.obj, th, data, groups, &got, rules.penalty, rules.min_support);
            assert!((again - got.cost).abs() < 1e-9, "seed {seed}, depth {depth}: tree costs {again}, kernel said {}", got.cost);
            // With a bound: exact below it, else a proof that nothing is below it.
            for bound in [want - 1.0, want, want + 1e-6, want + 2.0] {
                let (got, exact) = kernel.solve(task, th, &set, depth, rules, bound, usize::MAX, &mut never).unwrap();
                let again = cost_of(&task.obj, th, data, groups, &got, rules.penalty, rules.min_support);
                assert!((again - got.cost).abs() < 1e-9);
                if exact {
                    assert!(got.cost < bound && (got.cost - want).abs() < 1e-9, "seed {seed}: bound {bound}, kernel {} brute force {want}", got.cost);
                } else {
                    assert!(want >= bound - 1e-9 && got.cost >= bound, "seed {seed}: bound {bound}, kernel {} brute force {want}", got.cost);
                }
            }
        }
    }

    #[test]
    fn matches_brute_force_with_weights_penalty_support_and_costs() {
        for seed in 0..300u64 {
            let classes = 2 + (seed % 3) as usize;
            let data = numeric(6 + (seed % 23) as usize, 1 + (seed % 4) as usize, classes, 2 + (seed % 5) as usize, seed + 3);
            let rules = Rules { penalty: [0.0, 0.3, 1.0, 2.5][(seed % 4) as usize], min_support: 1.0 + (seed / 4 % 3) as f64 };
            let groups: Vec<usize> = (0..data.n_groups()).filter(|g| seed % 5 == 0 || (g + seed as usize) % 4 != 0).collect();
            if groups.is_empty() {
                continue;
            }
            let plain = Task { data: &data, obj: Misclassification::new(&data), splits: Thresholds::new(&data) };
            check(&plain, &data, &groups, &rules, seed);
            let cost: Vec<f64> = (0..classes * classes).map(|i| if i / classes == i % classes { 0.0 } else { ((i * 7 + seed as usize) % 5) as f64 * 0.75 }).collect();
            let costed = Task { data: &data, obj: CostSensitive::new(&data, &cost).unwrap(), splits: Thresholds::new(&data) };
            check(&costed, &data, &groups, &rules, seed);
        }
    }

    #[test]
    fn large_sets_filter_the_sorted_orders_alike() {
        // A set of most groups (the orders are filtered) and one of few (sorted).
        for seed in 0..20u64 {
            let data = numeric(200, 3, 2 + (seed % 2) as usize, 12, seed);
            let task = Task { data: &data, obj: Misclassification::new(&data), splits: Thresholds::new(&data) };
            let rules = Rules { penalty: 0.0, min_support: 1.0 + (seed % 3) as f64 };
            let few: Vec<usize> = (0..data.n_groups()).filter(|g| g % 23 == (seed as usize % 23)).collect();
            check(&task, &data, &few, &rules, seed);
            let many: Vec<usize> = (0..data.n_groups()).filter(|g| g % 7 != 0).collect();
            let mut set = vec![0u64; data.words()];
            many.iter().for_each(|&g| set[g / 64] |= 1 << (g % 64));
            let mut kernel = Sweep::new(&task, &task.splits);
            let mut never = || None;
            let (got, _) = kernel.solve(&task, &task.splits, &set, 2, &rules, f64::INFINITY, usize::MAX, &mut never).unwrap();
            let again = cost_of(&task.obj, &task.splits, &data, &many, &got, 0.0, rules.min_support);
            assert!((again - got.cost).abs() < 1e-9);
            // Depth two of the whole set: every root threshold tried by hand.
            let th = &task.splits;
            let mut want = f64::INFINITY;
            for s in 0..th.n_splits() {
                let (l, r): (Vec<usize>, Vec<usize>) = many.iter().partition(|&&g| !th.goes_right(g, s));
                let rows = |v: &[usize]| v.iter().map(|&g| data.group_rows(g) as f64).sum::<f64>();
                if l.is_empty() || r.is_empty() || rows(&l) < rules.min_support || rows(&r) < rules.min_support {
                    continue;
                }
                want = want.min(brute(&task.obj, th, &data, &l, 1, 0.0, rules.min_support) + brute(&task.obj, th, &data, &r, 1, 0.0, rules.min_support));
            }
            let leaf = task.obj.leaf_loss(&stats_of(&task.obj, &many));
            assert!((got.cost - want.min(leaf)).abs() < 1e-9, "seed {seed}: kernel {} brute force {}", got.cost, want.min(leaf));
        }
    }

    #[test]
    fn stops_when_asked_and_refuses_a_budget_too_small() {
        let data = numeric(400, 4, 2, 40, 5);
        let task = Task { data: &data, obj: Misclassification::new(&data), splits: Thresholds::new(&data) };
        let rules = Rules { penalty: 0.0, min_support: 1.0 };
        let mut kernel = Sweep::new(&task, &task.splits);
        let all = data.all_groups();
        let mut stop = || Some(Status::TimeLimit);
        assert_eq!(kernel.solve(&task, &task.splits, all.words(), 2, &rules, f64::INFINITY, usize::MAX, &mut stop).unwrap_err(), Status::TimeLimit);
        let mut never = || None;
        assert_eq!(kernel.solve(&task, &task.splits, all.words(), 2, &rules, f64::INFINITY, 1000, &mut never).unwrap_err(), Status::MemoryLimit);
    }
}
