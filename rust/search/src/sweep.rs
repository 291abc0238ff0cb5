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

/// Empties `v` and gives it room for exactly `n` items: a buffer too small is freed
/// before the new one is allocated (a reallocation would copy the stale contents and
/// hold both at once).
fn clear_with_room<T>(v: &mut Vec<T>, n: usize) {
    v.clear();
    if v.capacity() < n {
        *v = Vec::new();
        v.reserve_exact(n);
    }
}

/// The best depth-at-most-one tree of one side, built up by sweeps over sorted columns.
#[derive(Default)]
struct Helper {
    total: Vec<f64>,
    acc: Vec<f64>,
    rest: Vec<f64>,
    total_rows: f64,
    total_mass: f64,
    acc_rows: f64,
    acc_mass: f64,
    /// The rank of the last value summed in the current column (`u32::MAX` before the
    /// first: no boundary before it).
    prev: u32,
    /// Cost of the best tree found (at first the leaf) and its split; or, while
    /// `capped`, a cap below every tree found (see [`Helper::cap`]).
    best: f64,
    split: Option<u32>,
    /// `best` is a cap, not the cost of a tree: no tree found costs less.
    capped: bool,
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
    /// The current column, and the column of the best split.
    col: usize,
    best_col: usize,
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
            prev: u32::MAX,
            best: f64::INFINITY,
            split: None,
            capped: false,
            split_lb: 0.0,
            done: true,
            col_done: true,
            skip_until: f64::NEG_INFINITY,
            base: 0,
            col: NONE,
            best_col: NONE,
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
        self.capped = false;
        self.best_col = NONE;
        self.split_lb = s.proven;
        self.done = s.terminal || self.best <= self.split_lb;
    }

    /// Searches only for trees cheaper than `cap`: when the best tree known costs more,
    /// `best` becomes the cap (and the sweeps skip what cannot beat it). A side that
    /// ends capped costs at least the cap, and has no tree to show.
    fn cap(&mut self, cap: f64) {
        if cap < self.best {
            self.best = cap;
            self.split = None;
            self.best_col = NONE;
            self.capped = true;
            self.done |= self.best <= self.split_lb;
        }
    }

    /// Starts a sweep over a column whose threshold 0 is split `base`.
    #[inline]
    fn begin(&mut self, base: u32, col: usize) {
        self.col = col;
        self.acc.fill(0.0);
        self.acc_rows = 0.0;
        self.acc_mass = 0.0;
        self.prev = u32::MAX;
        self.col_done = self.done;
        self.skip_until = f64::NEG_INFINITY;
        self.base = base;
    }

    /// The next value of the column present in the side, with the `c + 2` sums of its
    /// groups there (statistics, rows, mass): scores the boundary before it, then sums
    /// it left. `inv_unit` is the inverse of the objective's
    /// [`Objective::max_unit_loss`] (`None` when it has none; infinite when it is 0).
    #[inline(always)]
    fn push<O: Objective, const C: usize>(&mut self, obj: &O, sums: &[f64], rank: u32, rules: &Rules, inv_unit: Option<f64>) {
        if self.col_done {
            return;
        }
        let c = width::<C>(&self.acc);
        if rank != self.prev
            && self.acc_mass > self.skip_until
            && self.acc_rows >= rules.min_support
            && self.total_rows - self.acc_rows >= rules.min_support
        {
            for ((r, t), a) in self.rest[..c].iter_mut().zip(&self.total[..c]).zip(&self.acc[..c]) {
                *r = t - a;
            }
            let rest = obj.leaf_loss(&self.rest[..c]);
            let cost = obj.leaf_loss(&self.acc[..c]) + rest + 2.0 * rules.penalty;
            if cost < self.best {
                self.best = cost;
                self.capped = false;
                self.split = Some(self.base + self.prev);
                self.best_col = self.col;
                if cost <= self.split_lb {
                    self.done = true;
                    self.col_done = true;
                    return;
                }
            } else if let Some(inv) = inv_unit {
                // Moving mass w lowers the cost by at most w k: the next boundaries
                // cannot beat the best before the left part gains (cost - best) / k.
                let gap = cost - self.best;
                self.skip_until = if gap > 0.0 { self.acc_mass + gap * inv * (1.0 - 1e-9) } else { self.acc_mass };
                if self.skip_until >= self.total_mass {
                    self.col_done = true;
                    return;
                }
            }
            if inv_unit.is_some() && rest <= 0.0 {
                // The right part is pure and the left one only grows dearer: no later
                // boundary of the column beats this one (ConTree's zero rule).
                self.col_done = true;
                return;
            }
        }
        for (a, s) in self.acc[..c].iter_mut().zip(&sums[..c]) {
            *a += s;
        }
        self.acc_rows += sums[c];
        self.acc_mass += sums[c + 1];
        self.prev = rank;
    }
}
impl Helper {
    /// True when the side skips statistics of mass `mass` at once: no boundary before
    /// they are summed could be scored (the side is skipping past them, or done).
    #[inline(always)]
    fn skips(&self, mass: f64) -> bool {
        self.col_done || self.acc_mass + mass <= self.skip_until
    }

    /// True when no boundary up to the end of a block with sums `block` (statistics,
    /// rows, mass) can beat `best`: every boundary there sends left a superset of what
    /// is summed left now and right a superset of what lies past the block, and a leaf
    /// only grows dearer with more rows (misclassified weight under any cost matrix is
    /// the least over labels of sums of non-negative terms), so both leaves' losses
    /// now and past the block bound every such boundary's cost from below (ConTree's
    /// sub-interval bound, within a column). Classification objectives only
    /// (`inv_unit`); a margin keeps rounding from skipping a tie.
    #[inline(always)]
    fn block_beaten<O: Objective, const C: usize>(&mut self, obj: &O, block: &[f64], rules: &Rules) -> bool {
        let c = width::<C>(&self.acc);
        for i in 0..c {
            self.rest[i] = self.total[i] - self.acc[i] - block[i];
        }
        let lb = obj.leaf_loss(&self.acc[..c]) + obj.leaf_loss(&self.rest[..c]) + 2.0 * rules.penalty;
        lb - 1e-9 * self.total_mass.max(1.0) >= self.best
    }

    /// Sums `c + 2` statistics, rows and mass left without scoring a boundary (a block
    /// the side [`skips`](Self::skips)).
    #[inline(always)]
    fn absorb<const C: usize>(&mut self, sums: &[f64]) {
        let c = width::<C>(&self.acc);
        for (a, s) in self.acc[..c].iter_mut().zip(&sums[..c]) {
            *a += s;
        }
        self.acc_rows += sums[c];
        self.acc_mass += sums[c + 1];
    }
}

/// The number of statistics `C` when it is known at compile time (not 0), else the
/// length of `stats`.
#[inline(always)]
fn width<const C: usize>(stats: &[f64]) -> usize {
    if C > 0 {
        debug_assert_eq!(stats.len(), C);
        C
    } else {
        stats.len()
    }
}

/// A root threshold of a column: its rank (left: rank at most `t`), the groups it sends
/// left (a prefix of the column's sorted members) and their mass and rows.
#[derive(Clone, Copy)]
struct Cut {
    t: u32,
    pos: usize,
    mass: f64,
    rows: f64,
}

/// Positions of a column summed as one slot when the column has many distinct values
/// (few in unit tests, so that their small instances skip whole blocks).
#[cfg(not(test))]
const BLOCK: usize = 32;
#[cfg(test)]
const BLOCK: usize = 4;
// A block's positions are the bits of a `u32` mask.
const _: () = assert!(BLOCK <= 32);

/// Reusable buffers of the sweep kernel for one numeric dataset.
///
/// A subproblem is held as its members (dataset groups) in every column's sorted order,
/// and per column as slots with the sums of their members: a column with few distinct
/// values (at most half its members) has a slot per value and is swept value by value;
/// any other column has a slot per block of [`BLOCK`] positions and is swept member by
/// member, a side skipping whole blocks while no boundary in them can beat its best.
/// A root threshold's left side is kept as per-slot sums too (and a mask per block),
/// updated as members cross the root.
#[derive(Default)]
pub(crate) struct Sweep {
    c: usize,
    m: usize,
    /// The objective's bound on the loss per unit of mass moved (neighbourhood pruning
    /// and the depth-one skip), `None` when it has none; and its inverse.
    unit: Option<f64>,
    inv_unit: Option<f64>,
    /// Per dataset group, its index among the current subproblem's members.
    local: Vec<u32>,
    /// The members of the current subproblem (dataset groups), ascending.
    members: Vec<u32>,
    /// Per member, `c + 2` sums: its statistics, rows and mass.
    member_sums: Vec<f64>,
    /// Per column (`m * n`), the members (local indices) in sorted order, and their ranks.
    cols: Vec<u32>,
    col_rank: Vec<u32>,
    /// Per (member, column) (`n * m`), the slot its sums go to.
    slot: Vec<u32>,
    /// Per (member, column) (`n * m`), its position within its block of the column's
    /// order (block columns; unused in value columns).
    offset: Vec<u8>,
    /// Per column, its first slot (`m + 1`), and whether its slots are values (else
    /// blocks of positions).
    col_start: Vec<usize>,
    by_value: Vec<bool>,
    /// Per slot, its value's rank (value slots), and `c + 2` sums over its members:
    /// statistics, rows and mass, side by side.
    slot_rank: Vec<u32>,
    slot_sums: Vec<f64>,
    /// Per column, the least impurity ([`Objective::impurity`]) of a split on it: root
    /// columns are tried in this order.
    col_impurity: Vec<f64>,
    /// Per slot, its `c + 2` sums over the members left of the current root threshold.
    left: Vec<f64>,
    /// Per slot of a block column, the positions of the block whose members lie left
    /// of the current root threshold (bit `i`: position `i` of the block).
    left_mask: Vec<u32>,
    /// Per slot, its mask with every member left (the bits of its members' positions).
    full_mask: Vec<u32>,
    /// Members of the root column's order currently summed left.
    left_pos: usize,
    /// The root column the checkpoints below belong to (`NONE`: none).
    checkpoint_col: usize,
    /// Positions of the root column's order (ascending, from 0 to every member) at
    /// which the left sums and masks are known, and the saved copies of the interior
    /// ones, one after the other (the ends need none): [`Sweep::shift`] moves from the
    /// nearest one when that is shorter.
    marks: Vec<usize>,
    saved: Vec<f64>,
    saved_masks: Vec<u32>,
    /// Bytes the kernel may hold (the budget of the current solve).
    budget_bytes: usize,
    totals: Vec<f64>,
    right: Vec<f64>,
    cuts: Vec<Cut>,
    /// Per cut, the statistics it sends left (`cuts.len() * c`).
    prefix: Vec<f64>,
    /// Per cut, the optima of its left and right sides once evaluated.
    found: Vec<(f64, f64)>,
    /// Per cut, the columns of its sides' best splits once evaluated.
    found_col: Vec<(usize, usize)>,
    /// The root column of the last best tree of depth two found.
    last_root: usize,
    queue: VecDeque<(usize, usize, usize, usize)>,
    helpers: [Helper; 2],
    work: usize,
    /// Solves not answered from `last`, and root thresholds evaluated in them.
    pub(crate) solves: u64,
    pub(crate) roots: u64,
    /// The last optimum solved, by set and depth: the search's tree is rebuilt from the
    /// kernel, which then finds its answer here instead of solving again.
    last: Option<(Vec<u64>, u32, SmallTree)>,
}

/// The per-set buffers that both numeric kernels (this one and the value-sum kernel,
/// [`crate::table::Table`]) lay out alike and rebuild for every set: per dataset group
/// its member index, the members, their per-column orders and per-(member, column)
/// slots, and the per-member and per-slot sums. Only one kernel runs at a time, so the
/// one about to run takes them from the other ([`Shared::swap`]) instead of both holding
/// a copy sized for the largest set each has seen.
pub(crate) struct Shared<'a> {
    pub local: &'a mut Vec<u32>,
    pub members: &'a mut Vec<u32>,
    pub cols: &'a mut Vec<u32>,
    pub slot: &'a mut Vec<u32>,
    pub sums: &'a mut Vec<f64>,
    pub slot_sums: &'a mut Vec<f64>,
}

impl Shared<'_> {
    /// Exchanges these buffers with `other`'s (their contents are rebuilt per set).
    pub fn swap(self, other: Shared<'_>) {
        std::mem::swap(self.local, other.local);
        std::mem::swap(self.members, other.members);
        std::mem::swap(self.cols, other.cols);
        std::mem::swap(self.slot, other.slot);
        std::mem::swap(self.sums, other.sums);
        std::mem::swap(self.slot_sums, other.slot_sums);
    }
}

impl Sweep {
    pub fn new<O: Objective, S: SplitFamily>(t: &Task<O, S>, th: &Thresholds) -> Self {
        let c = t.obj.n_stats();
        Sweep {
            c,
            m: th.numeric().n_columns(),
            unit: t.obj.max_unit_loss(),
            inv_unit: t.obj.max_unit_loss().map(|k| if k > 0.0 { 1.0 / k } else { f64::INFINITY }),
            totals: vec![0.0; c],
            right: vec![0.0; c],
            last_root: NONE,
            checkpoint_col: NONE,
            helpers: [Helper::new(c), Helper::new(c)],
            // Every buffer starts empty; the counters at zero.
            ..Default::default()
        }
    }

    /// Bytes held by the kernel's buffers.
    pub fn bytes(&self) -> usize {
        4 * (self.local.capacity() + self.members.capacity() + self.cols.capacity() + self.col_rank.capacity() + self.slot.capacity() + self.slot_rank.capacity())
            + self.offset.capacity()
            + 4 * (self.left_mask.capacity() + self.full_mask.capacity() + self.saved_masks.capacity())
            + 8 * (self.saved.capacity() + self.marks.capacity())
            + self.by_value.capacity()
            + 8 * (self.col_start.capacity()
                + self.member_sums.capacity()
                + self.slot_sums.capacity()
                + self.col_impurity.capacity()
                + self.left.capacity()
                + self.prefix.capacity()
                + 2 * self.found.capacity()
                + 2 * self.found_col.capacity())
            + std::mem::size_of::<Cut>() * self.cuts.capacity()
            + 32 * self.queue.capacity()
            + 8 * 8 * self.c
            + self.last.as_ref().map_or(0, |l| 8 * l.0.capacity())
    }

    /// The per-set buffers shared with the value-sum kernel ([`Shared`]).
    pub(crate) fn shared(&mut self) -> Shared<'_> {
        Shared { local: &mut self.local, members: &mut self.members, cols: &mut self.cols, slot: &mut self.slot, sums: &mut self.member_sums, slot_sums: &mut self.slot_sums }
    }

    /// Frees the per-subproblem buffers.
    pub fn release(&mut self) {
        (self.cols, self.col_rank, self.slot, self.slot_rank) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        (self.member_sums, self.slot_sums, self.left) = (Vec::new(), Vec::new(), Vec::new());
        (self.offset, self.left_mask, self.full_mask) = (Vec::new(), Vec::new(), Vec::new());
        (self.prefix, self.found, self.cuts) = (Vec::new(), Vec::new(), Vec::new());
        (self.saved, self.saved_masks, self.marks) = (Vec::new(), Vec::new(), Vec::new());
        self.checkpoint_col = NONE;
        self.found_col = Vec::new();
        self.last = None;
    }

    /// Counts work and polls `stop` every [`POLL_WORK`] units.
    #[inline]
    fn poll(&mut self, work: usize, stop: &mut dyn FnMut() -> Option<Halt>) -> Result<(), Halt> {
        poll_every(&mut self.work, work, POLL_WORK, stop)
    }

    /// The optimal subtree of depth at most `depth` (1 or 2) for the groups in `set`
    /// under the leaf-closing rules, with a proven lower bound on its cost: the tree's
    /// own cost, unless no tree costs less than `bound`: then the tree returned is the
    /// best found (costing `bound` or more) and the bound (at least `bound`) is the least
    /// that the searched and the pruned trees were shown to cost. The
    /// kernel holds at most `budget_bytes` (else [`Halt::MemoryLimit`]) and gives up
    /// with `stop`'s status when `stop` asks it to.
    /// `known` is a bound the caller already proved (no tree of the set costs less,
    /// from neighbouring thresholds say; `f64::NEG_INFINITY` when none): a tree meeting
    /// it is optimal, and the search for one stops there.
    #[allow(clippy::too_many_arguments)]
    pub fn solve_above<O: Objective, S: SplitFamily>(
        &mut self,
        t: &Task<O, S>,
        th: &Thresholds,
        set: &[u64],
        depth: u32,
        rules: &Rules,
        known: f64,
        bound: f64,
        budget_bytes: usize,
        stop: &mut dyn FnMut() -> Option<Halt>,
    ) -> Result<(SmallTree, f64), Halt> {
        debug_assert!(depth == 1 || depth == 2);
        if let Some((s, d, tree)) = &self.last {
            if *d == depth && s.as_slice() == set {
                return Ok((*tree, tree.cost));
            }
        }
        self.solves += 1;
        let (floor, rows) = self.prepare(t, th, set, budget_bytes, stop)?;
        let obj = &t.obj;
        let s = side(obj, &self.totals, floor, None, rows, depth, rules);
        if s.terminal {
            return Ok((SmallTree { cost: s.leaf_cost, split: None }, s.leaf_cost));
        }
        // The best stump (a tree of depth two too).
        let mut h = std::mem::replace(&mut self.helpers[0], Helper::new(0));
        h.reset(obj, &self.totals, floor, rows, rules);
        let mut order: Vec<(f64, usize)> = Vec::with_capacity(self.m);
        for j in 0..self.m {
            if !h.done {
                h.begin(th.split_of(j, 0), j);
                match self.c {
                    2 => self.sweep_whole::<O, 2>(&mut h, j, obj, rules),
                    3 => self.sweep_whole::<O, 3>(&mut h, j, obj, rules),
                    _ => self.sweep_whole::<O, 0>(&mut h, j, obj, rules),
                }
            }
            order.push((self.col_impurity[j], j));
        }
        let mut best = SmallTree { cost: h.best, split: h.split.map(|f| (f, None, None)) };
        self.helpers[0] = h;
        let floor = s.proven.max(known);
        if depth == 2 && best.cost > floor {
            // Root columns by their best split's impurity: good trees early make the
            // bounds bite (the misclassified weight of stumps often ties).
            order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            // The root column of the last tree of depth two found first: the search asks
            // for neighbouring subproblems in turn, whose optima often share it.
            if let Some(p) = order.iter().position(|o| o.1 == self.last_root) {
                let o = order.remove(p);
                order.insert(0, o);
            }
            // Two and three classes, the common cases, compiled apart (their loops unrolled).
            let proved = match self.c {
                2 => self.depth_two::<O, S, 2>(t, th, rows, floor, bound, &mut best, &order, rules, stop)?,
                3 => self.depth_two::<O, S, 3>(t, th, rows, floor, bound, &mut best, &order, rules, stop)?,
                _ => self.depth_two::<O, S, 0>(t, th, rows, floor, bound, &mut best, &order, rules, stop)?,
            };
            if best.cost >= bound {
                return Ok((best, proved.min(best.cost)));
            }
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
        Ok((best, best.cost))
    }

    /// Lists the members of `set` in every column's sorted order (filtering the
    /// dataset's orders when the set is large, sorting the members when it is small),
    /// sums them per slot and in total, and scores each column's best split impurity.
    /// Returns the equivalent-points floor and the rows of the set.
    fn prepare<O: Objective, S: SplitFamily>(&mut self, t: &Task<O, S>, th: &Thresholds, set: &[u64], budget: usize, stop: &mut dyn FnMut() -> Option<Halt>) -> Result<(f64, f64), Halt> {
        let data = th.numeric();
        let (m, c) = (self.m, self.c);
        let n_all = data.n_groups();
        let n = set.iter().map(|w| w.count_ones() as usize).sum::<usize>();
        let need = 4 * n_all + 17 * m * n + 16 * (c + 2) * m * n + (16 * c + 72) * n;
        if self.bytes() + need > budget {
            self.release();
            if self.bytes() + need > budget {
                return Err(Halt::MemoryLimit);
            }
        }
        if self.local.len() != n_all {
            self.local = vec![0; n_all];
        }
        // Exact room: grown by doubling, these held up to twice the sums they use.
        clear_with_room(&mut self.members, n);
        clear_with_room(&mut self.member_sums, n * (c + 2));
        self.totals.fill(0.0);
        let (mut floor, mut rows) = (0.0, 0.0);
        {
            let (members, sums, totals, local) = (&mut self.members, &mut self.member_sums, &mut self.totals, &mut self.local);
            for_each_one(set, |g| {
                local[g] = members.len() as u32;
                members.push(g as u32);
                let st = t.obj.group_stats(g);
                for (s, w) in totals.iter_mut().zip(st) {
                    *s += w;
                }
                let r = t.data.group_rows(g) as f64;
                sums.extend_from_slice(st);
                sums.push(r);
                sums.push(st.iter().sum::<f64>());
                floor += t.obj.group_floor(g);
                rows += r;
            });
        }
        self.checkpoint_col = NONE;
        self.budget_bytes = budget;
        self.cols.resize(m * n, 0);
        self.col_rank.resize(m * n, 0);
        self.slot.resize(n * m, 0);
        self.offset.resize(n * m, 0);
        self.col_start.clear();
        self.by_value.clear();
        self.col_impurity.clear();
        let filter = n * 16 >= n_all;
        let mut slots = 0;
        for j in 0..m {
            let out = &mut self.cols[j * n..(j + 1) * n];
            if filter {
                let mut k = 0;
                for &g in data.sorted(j) {
                    if set[g as usize >> 6] >> (g & 63) & 1 == 1 {
                        out[k] = self.local[g as usize];
                        k += 1;
                    }
                }
                debug_assert_eq!(k, n);
            } else {
                let members = &self.members;
                out.iter_mut().enumerate().for_each(|(q, o)| *o = q as u32);
                out.sort_unstable_by_key(|&q| data.rank(members[q as usize] as usize, j));
            }
            let mut distinct = 0;
            for k in 0..n {
                let r = data.rank(self.members[self.cols[j * n + k] as usize] as usize, j);
                distinct += (k == 0 || r != self.col_rank[j * n + k - 1]) as usize;
                self.col_rank[j * n + k] = r;
            }
            let by_value = 2 * distinct <= n;
            self.by_value.push(by_value);
            slots += if by_value { distinct } else { n.div_ceil(BLOCK) };
            self.col_impurity.push(self.best_impurity(&t.obj, j));
            self.poll(if filter { n_all } else { 4 * n }, stop)?;
        }
        // The slots, once their number is known (a value column has one per distinct
        // value, any other one per block of positions): their sums get exactly their
        // room (grown by doubling, segment d2's 0.47 MB of sums took 0.59 MB, and 0.88 MB
        // while the last doubling copied them).
        clear_with_room(&mut self.slot_rank, slots);
        clear_with_room(&mut self.full_mask, slots);
        clear_with_room(&mut self.slot_sums, slots * (c + 2));
        for j in 0..m {
            self.col_start.push(self.slot_rank.len());
            let by_value = self.by_value[j];
            for k in 0..n {
                let (q, r) = (self.cols[j * n + k] as usize, self.col_rank[j * n + k]);
                let new_slot = if by_value { k == 0 || r != self.col_rank[j * n + k - 1] } else { k % BLOCK == 0 };
                if new_slot {
                    self.slot_rank.push(r);
                    self.full_mask.push(0);
                    self.slot_sums.extend(std::iter::repeat(0.0).take(c + 2));
                }
                let v = self.slot_rank.len() - 1;
                for (a, s) in self.slot_sums[v * (c + 2)..(v + 1) * (c + 2)].iter_mut().zip(&self.member_sums[q * (c + 2)..(q + 1) * (c + 2)]) {
                    *a += s;
                }
                self.slot[q * m + j] = v as u32;
                self.offset[q * m + j] = (k % BLOCK) as u8;
                self.full_mask[v] ^= 1 << (k % BLOCK);
            }
        }
        self.col_start.push(self.slot_rank.len());
        Ok((floor, rows))
    }

    /// The least impurity of a split of the current subproblem on column `j` (infinite
    /// when the column holds one value).
    fn best_impurity<O: Objective>(&self, obj: &O, j: usize) -> f64 {
        let (n, c) = (self.members.len(), self.c);
        let (mut left, mut right) = (vec![0.0; c], vec![0.0; c]);
        let mut best = f64::INFINITY;
        for k in 0..n.saturating_sub(1) {
            let q = self.cols[j * n + k] as usize;
            for (a, s) in left.iter_mut().zip(&self.member_sums[q * (c + 2)..q * (c + 2) + c]) {
                *a += s;
            }
            if self.col_rank[j * n + k + 1] != self.col_rank[j * n + k] {
                for ((r, t), a) in right.iter_mut().zip(&self.totals).zip(&left) {
                    *r = t - a;
                }
                best = best.min(obj.impurity(&left) + obj.impurity(&right));
            }
        }
        best
    }

    /// Moves the left sums to position `to` of root column `f`'s order (the members
    /// before it summed left): from where they are, or from the nearest checkpoint when
    /// that is shorter (a copy of the slots' sums costs about as much as moving one
    /// member per slot and column). The interval search jumps between positions far
    /// apart (each level of its bisection runs over the whole order, fico at depth 3
    /// moved about a fifth of the members per root threshold, and spent 60 % of its time
    /// moving them); checkpoints every sixteenth of the order bound a move by a thirty-second (fico
    /// at depth 3: root thresholds evaluated per CPU second 16.3k -> 20.5k), fewer
    /// when a restore costs more (see [`Sweep::checkpoint`]).
    fn shift<const C: usize>(&mut self, f: usize, to: usize) {
        if self.checkpoint_col != f {
            self.checkpoint::<C>(f);
        }
        let m = self.m;
        let direct = if self.left_pos == usize::MAX { usize::MAX } else { self.left_pos.abs_diff(to) };
        let restore = self.slot_rank.len() / m.max(1);
        let (i, &at) = self.marks.iter().enumerate().min_by_key(|(_, &a)| a.abs_diff(to)).expect("a checkpoint at 0");
        if at.abs_diff(to).saturating_add(restore) < direct {
            let (len, masks) = (self.slot_sums.len(), self.slot_rank.len());
            if at == 0 {
                // Nothing left: zero sums and empty masks.
                self.left.fill(0.0);
                self.left_mask.fill(0);
            } else if at == self.members.len() {
                // Every member left: the slots' own sums and masks.
                self.left.copy_from_slice(&self.slot_sums);
                self.left_mask.copy_from_slice(&self.full_mask);
            } else {
                // The interior checkpoints, saved one after the other.
                self.left.copy_from_slice(&self.saved[(i - 1) * len..i * len]);
                self.left_mask.copy_from_slice(&self.saved_masks[(i - 1) * masks..i * masks]);
            }
            self.left_pos = at;
        }
        self.move_to::<C>(f, to);
    }

    /// Saves the left sums of root column `f` at the checkpoints: at `parts + 1` evenly
    /// spaced positions of its order, or only its two ends (nothing and every member
    /// left) when the copies would not fit the kernel's byte budget or the order is
    /// short. `parts` is at most 16, and at most the order's length over twice the cost
    /// of a restore ([`Sweep::shift`]'s `restore`, the slots per column): with more,
    /// a move from the nearest checkpoint would cost less than the restore before it, so
    /// the extra copies would only cost their memory and the time to make them (on sets
    /// with many slots, such as magic at depth 2, 4 parts instead of 16: 17 copies of
    /// 0.8 MB down to 5, and 11 % fewer instructions; segment at depth 2, 2 parts: 23 %
    /// fewer).
    fn checkpoint<const C: usize>(&mut self, f: usize) {
        let n = self.members.len();
        let (len, masks) = (self.slot_sums.len(), self.slot_rank.len());
        let each = 8 * len + 4 * masks;
        let room = self.budget_bytes.saturating_sub(self.bytes() - 8 * self.saved.capacity() - 4 * self.saved_masks.capacity());
        let restore = masks / self.m.max(1);
        let want = (n / (2 * restore.max(1))).clamp(1, 16);
        let parts = if n >= 16 * BLOCK && (want - 1) * each <= room { want } else { 1 };
        self.marks.clear();
        self.marks.extend((0..=parts).map(|i| i * n / parts));
        // Only the interior checkpoints are copies: at the ends the left sums are zero
        // or the slots' own sums, which [`Sweep::shift`] restores from those (segment at
        // depth 2: 2 parts, one copy of 0.47 MB kept instead of three). The copies'
        // exact room is reserved before the first: grown by doubling, the buffers held
        // up to twice the copies and, while reallocating, both sizes at once (magic at
        // depth 2: 17 copies of 0.8 MB had grown to 22.7 MB; with the 16 parts of then,
        // the fit's heap peak went from 41.9 to 29.9 MB).
        clear_with_room(&mut self.saved, (parts - 1) * len);
        clear_with_room(&mut self.saved_masks, (parts - 1) * masks);
        self.left.clear();
        self.left.resize(len, 0.0);
        self.left_mask.clear();
        self.left_mask.resize(masks, 0);
        self.left_pos = 0;
        for i in 1..parts {
            self.move_to::<C>(f, self.marks[i]);
            self.saved.extend_from_slice(&self.left);
            self.saved_masks.extend_from_slice(&self.left_mask);
        }
        self.checkpoint_col = f;
    }

    /// Moves the members at positions `left_pos..to` (or `to..left_pos`) of root column
    /// `f`'s order into (out of) the left sums. `C` is the number of statistics when
    /// known at compile time (0: `self.c`): each member adds its `C + 2` sums to one
    /// slot per column, the kernel's innermost loop on wide sets, so the sums of a slot
    /// are added or subtracted in a loop of fixed length, without a multiplication by
    /// the direction.
    fn move_to<const C: usize>(&mut self, f: usize, to: usize) {
        let (n, m) = (self.members.len(), self.m);
        let w = if C > 0 { C + 2 } else { self.c + 2 };
        let from = self.left_pos;
        let (lo, hi, into_left) = if to >= from { (from, to, true) } else { (to, from, false) };
        let (left, mask) = (&mut self.left, &mut self.left_mask);
        for &q in &self.cols[f * n + lo..f * n + hi] {
            let q = q as usize;
            let sums = &self.member_sums[q * w..q * w + w];
            for (&v, &o) in self.slot[q * m..(q + 1) * m].iter().zip(&self.offset[q * m..(q + 1) * m]) {
                let v = v as usize;
                mask[v] ^= 1 << o;
                let slot = &mut left[v * w..v * w + w];
                if into_left {
                    for i in 0..w {
                        slot[i] += sums[i];
                    }
                } else {
                    for i in 0..w {
                        slot[i] -= sums[i];
                    }
                }
            }
        }
        self.left_pos = to;
    }

    /// Sweeps column `j` with every member on one side (the best stump).
    fn sweep_whole<O: Objective, const C: usize>(&self, h: &mut Helper, j: usize, obj: &O, rules: &Rules) {
        let (n, w) = (self.members.len(), if C > 0 { C + 2 } else { self.c + 2 });
        if self.by_value[j] {
            for v in self.col_start[j]..self.col_start[j + 1] {
                h.push::<O, C>(obj, &self.slot_sums[v * w..(v + 1) * w], self.slot_rank[v], rules, self.inv_unit);
                if h.col_done {
                    return;
                }
            }
        } else {
            for p in 0..n {
                let q = self.cols[j * n + p] as usize;
                h.push::<O, C>(obj, &self.member_sums[q * w..(q + 1) * w], self.col_rank[j * n + p], rules, self.inv_unit);
                if h.col_done {
                    return;
                }
            }
        }
    }

    /// Sweeps column `j` for both sides of the current root threshold.
    #[inline]
    fn sweep_sides<O: Objective, const C: usize>(&self, helpers: &mut [Helper; 2], j: usize, obj: &O, rules: &Rules, scratch: &mut [f64]) {
        let (n, w) = (self.members.len(), if C > 0 { C + 2 } else { self.c + 2 });
        let [hl, hr] = helpers;
        let (start, end) = (self.col_start[j], self.col_start[j + 1]);
        if self.by_value[j] {
            for v in start..end {
                let left = &self.left[v * w..(v + 1) * w];
                let all = &self.slot_sums[v * w..(v + 1) * w];
                let rank = self.slot_rank[v];
                if left[w - 2] > 0.0 {
                    hl.push::<O, C>(obj, left, rank, rules, self.inv_unit);
                }
                if all[w - 2] > left[w - 2] {
                    for ((x, a), b) in scratch.iter_mut().zip(all).zip(left) {
                        *x = a - b;
                    }
                    hr.push::<O, C>(obj, scratch, rank, rules, self.inv_unit);
                }
                if hl.col_done && hr.col_done {
                    return;
                }
            }
            return;
        }
        for (b, v) in (start..end).enumerate() {
            // A block: each side sums it at once when no boundary in it can be scored,
            // else its members are pushed one by one.
            let left = &self.left[v * w..(v + 1) * w];
            for ((x, a), l) in scratch.iter_mut().zip(&self.slot_sums[v * w..(v + 1) * w]).zip(left) {
                *x = a - l;
            }
            let bounded = self.inv_unit.is_some();
            let walk_left = !hl.skips(left[w - 1]) && !(bounded && hl.block_beaten::<O, C>(obj, left, rules));
            let walk_right = !hr.skips(scratch[w - 1]) && !(bounded && hr.block_beaten::<O, C>(obj, scratch, rules));
            if !walk_left && !hl.col_done {
                hl.absorb::<C>(left);
            }
            if !walk_right && !hr.col_done {
                hr.absorb::<C>(scratch);
            }
            // A walking side visits only its own members of the block, by their bits
            // (the sides' pushes are independent: each sees its members in order).
            let base = j * n + b * BLOCK;
            let len = BLOCK.min(n - b * BLOCK);
            let all = if len == 32 { u32::MAX } else { (1u32 << len) - 1 };
            for (walk, h, mut bits) in [(walk_left, &mut *hl, self.left_mask[v]), (walk_right, &mut *hr, !self.left_mask[v] & all)] {
                if !walk {
                    continue;
                }
                while bits != 0 {
                    let p = base + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let q = self.cols[p] as usize;
                    h.push::<O, C>(obj, &self.member_sums[q * w..(q + 1) * w], self.col_rank[p], rules, self.inv_unit);
                }
            }
            if hl.col_done && hr.col_done {
                return;
            }
        }
        for h in [hl, hr] {
            debug_assert!(h.col_done || (h.acc_mass - h.total_mass).abs() <= 1e-9 * h.total_mass.max(1.0), "a side summed {} of {}", h.acc_mass, h.total_mass);
        }
    }

    /// Searches the depth-two trees of the members for one cheaper than `best` (and,
    /// for pruning, than `bound`), root column by root column in `order`; `lb` bounds
    /// every split tree of the members. Returns the least bound by which a tree was
    /// pruned (every tree costs at least that or `best`).
    #[allow(clippy::too_many_arguments)]
    fn depth_two<O: Objective, S: SplitFamily, const C: usize>(
        &mut self,
        t: &Task<O, S>,
        th: &Thresholds,
        rows: f64,
        lb: f64,
        bound: f64,
        best: &mut SmallTree,
        order: &[(f64, usize)],
        rules: &Rules,
        stop: &mut dyn FnMut() -> Option<Halt>,
    ) -> Result<f64, Halt> {
        let (n, m, c) = (self.members.len(), self.m, self.c);
        let mut proved = f64::INFINITY;
        let obj = &t.obj;
        let monotone = rules.min_support <= 1.0;
        let unit = self.unit.filter(|_| monotone);
        let mut helpers = std::mem::replace(&mut self.helpers, [Helper::new(0), Helper::new(0)]);
        let mut scratch = vec![0.0; c + 2];
        let mut col_order: Vec<usize> = Vec::with_capacity(m + 4);
        let out = (|| {
            for &(_, f) in order {
                if best.cost.min(bound) <= lb {
                    proved = proved.min(lb);
                    break;
                }
                // The root thresholds of column f with their left sums.
                self.cuts.clear();
                self.prefix.clear();
                let (mut acc_rows, mut acc_mass) = (0.0, 0.0);
                let mut acc = vec![0.0; c];
                let mut prev = u32::MAX;
                for p in 0..n {
                    let q = self.cols[f * n + p] as usize;
                    let r = self.col_rank[f * n + p];
                    if p > 0 && r != prev && acc_rows >= rules.min_support && rows - acc_rows >= rules.min_support {
                        self.cuts.push(Cut { t: prev, pos: p, mass: acc_mass, rows: acc_rows });
                        self.prefix.extend_from_slice(&acc);
                    }
                    let sums = &self.member_sums[q * (c + 2)..(q + 1) * (c + 2)];
                    for (a, s) in acc.iter_mut().zip(sums) {
                        *a += s;
                    }
                    acc_rows += sums[c];
                    acc_mass += sums[c + 1];
                    prev = r;
                }
                let n_cuts = self.cuts.len();
                if n_cuts == 0 {
                    continue;
                }
                self.left_pos = usize::MAX;
                self.found.clear();
                self.found.resize(n_cuts, (0.0, 0.0));
                self.found_col.clear();
                self.found_col.resize(n_cuts, (NONE, NONE));
                self.queue.clear();
                self.queue.push_back((0, n_cuts - 1, NONE, NONE));
                // The intervals of one level of the bisection, ascending, fill the queue;
                // the levels are run in turn left to right and right to left, so that the
                // left sums follow them with few moves (a level run left to right after
                // another would first move the root column's members back to its start).
                let (mut forward, mut remaining, mut next) = (true, 1usize, 0usize);
                loop {
                    if remaining == 0 {
                        (remaining, next, forward) = (next, 0, !forward);
                    }
                    let popped = if forward { self.queue.pop_front() } else { self.queue.pop_back() };
                    let Some((lo, hi, le, re)) = popped else { break };
                    remaining -= 1;
                    let target = best.cost.min(bound);
                    if target <= lb {
                        proved = proved.min(lb);
                        break;
                    }
                    if monotone {
                        // Sub-interval pruning: L grows and R shrinks with the threshold;
                        // and moving mass w across the root lowers a side by at most w k,
                        // so L(i) >= L(re) - k (mass(re) - mass(i)) and R(i) >=
                        // R(le) - k (mass(i) - mass(le)), each weakest at an interval end.
                        let (mut l, mut r) = (0.0f64, 0.0f64);
                        if le != NONE {
                            l = self.found[le].0;
                            if let Some(k) = unit {
                                r = r.max(self.found[le].1 - k * (self.cuts[hi].mass - self.cuts[le].mass) * (1.0 + 1e-9));
                            }
                        }
                        if re != NONE {
                            r = r.max(self.found[re].1);
                            if let Some(k) = unit {
                                l = l.max(self.found[re].0 - k * (self.cuts[re].mass - self.cuts[lo].mass) * (1.0 + 1e-9));
                            }
                        }
                        if l + r >= target {
                            proved = proved.min(l + r);
                            continue;
                        }
                    }
                    let (mut lo, mut hi) = (lo, hi);
                    if let Some(k) = unit {
                        // Interval shrinking: the best may have improved since the interval
                        // was queued, so the neighbourhoods of its evaluated ends reach
                        // further (at mass within gap / k they cost at least the target).
                        let end_gap = |e: usize| self.found[e].0 + self.found[e].1 - target;
                        if le != NONE && end_gap(le) > 0.0 {
                            let reach = end_gap(le) / k;
                            while lo <= hi && self.cuts[lo].mass - self.cuts[le].mass <= reach {
                                lo += 1;
                            }
                        }
                        let mut top = hi as isize;
                        if re != NONE && end_gap(re) > 0.0 {
                            let reach = end_gap(re) / k;
                            while top >= lo as isize && self.cuts[re].mass - self.cuts[top as usize].mass <= reach {
                                top -= 1;
                            }
                        }
                        if top < lo as isize {
                            proved = proved.min(target);
                            continue;
                        }
                        hi = top as usize;
                    }
                    let mid = lo + (hi - lo) / 2;
                    let cut = self.cuts[mid];
                    self.roots += 1;
                    let moved = if self.left_pos == usize::MAX { cut.pos } else { self.left_pos.abs_diff(cut.pos) };
                    self.shift::<C>(f, cut.pos);
                    for ((r, tot), p) in self.right.iter_mut().zip(&self.totals).zip(&self.prefix[mid * c..(mid + 1) * c]) {
                        *r = tot - p;
                    }
                    helpers[0].reset(obj, &self.prefix[mid * c..(mid + 1) * c], 0.0, cut.rows, rules);
                    helpers[1].reset(obj, &self.right, 0.0, rows - cut.rows, rules);
                    // Columns in order: first those of the sides' best splits at the
                    // evaluated neighbours, where the optimum of a side often stays.
                    col_order.clear();
                    if monotone {
                        // What the evaluated neighbours prove about this threshold's sides
                        // (as for sub-interval pruning, at the threshold itself): a side
                        // whose best tree meets it is solved, and its sweeps stop.
                        let (mut l, mut r) = (0.0f64, 0.0f64);
                        if le != NONE {
                            l = self.found[le].0;
                            if let Some(k) = unit {
                                r = r.max(self.found[le].1 - k * (cut.mass - self.cuts[le].mass) * (1.0 + 1e-9));
                            }
                            col_order.push(self.found_col[le].0);
                            col_order.push(self.found_col[le].1);
                        }
                        if re != NONE {
                            r = r.max(self.found[re].1);
                            if let Some(k) = unit {
                                l = l.max(self.found[re].0 - k * (self.cuts[re].mass - cut.mass) * (1.0 + 1e-9));
                            }
                            col_order.push(self.found_col[re].1);
                            col_order.push(self.found_col[re].0);
                        }
                        for (h, b) in helpers.iter_mut().zip([l, r]) {
                            if b > h.split_lb {
                                h.split_lb = b;
                                h.done |= h.best <= b;
                            }
                        }
                    }
                    // Each side searched only for trees that, with the other side's least
                    // cost, beat the target by a slack (ConTree's per-side upper bound,
                    // less the other side's bound): the sweeps skip more, and a side left
                    // capped shows that the threshold costs at least the target plus the
                    // slack. The slack, the objective's unit times half the mass from the
                    // threshold to its interval's farther end, keeps room for
                    // neighbourhood pruning: a threshold so shown prunes its neighbours
                    // within that mass. (A slack of zero left mc3-like sets 2.7 times the
                    // evaluations; a full half-width capped few sides.)
                    let side_lb = |h: &Helper| h.best.min(h.split_lb).max(0.0);
                    let (lb_l, lb_r) = (side_lb(&helpers[0]), side_lb(&helpers[1]));
                    if lb_l + lb_r < target {
                        let slack = unit.map_or(0.0, |k| k * (cut.mass - self.cuts[lo].mass).max(self.cuts[hi].mass - cut.mass) / 2.0);
                        helpers[0].cap(target + slack - lb_r);
                        helpers[1].cap(target + slack - lb_l);
                    }
                    let mut hinted = 0;
                    for k in 0..col_order.len() {
                        let j = col_order[k];
                        if j != NONE && !col_order[..hinted].contains(&j) {
                            col_order[hinted] = j;
                            hinted += 1;
                        }
                    }
                    col_order.truncate(hinted);
                    for j in 0..m {
                        if !col_order[..hinted].contains(&j) {
                            col_order.push(j);
                        }
                    }
                    for &j in col_order.iter() {
                        if helpers[0].done && helpers[1].done {
                            break;
                        }
                        let base = th.split_of(j, 0);
                        helpers[0].begin(base, j);
                        helpers[1].begin(base, j);
                        self.sweep_sides::<O, C>(&mut helpers, j, obj, rules, &mut scratch);
                    }
                    self.poll(self.slot_rank.len() + moved * m, stop)?;
                    let (l, r) = (helpers[0].best, helpers[1].best);
                    self.found[mid] = (l, r);
                    self.found_col[mid] = (helpers[0].best_col, helpers[1].best_col);
                    let capped = helpers[0].capped || helpers[1].capped;
                    let cost = l + r;
                    if capped {
                        // No tree of this threshold beats the target (at best a tie).
                        proved = proved.min(cost.max(target));
                    } else if cost < best.cost {
                        *best = SmallTree { cost, split: Some((th.split_of(f, cut.t), helpers[0].split, helpers[1].split)) };
                        self.last_root = f;
                    }
                    let target = best.cost.min(bound);
                    let (mut left_end, mut right_start) = (mid as isize - 1, mid + 1);
                    if let Some(k) = unit {
                        // Neighbourhood pruning: within mass gap / k of this threshold the
                        // cost stays at or above the target (at best a tie).
                        let gap = cost - target;
                        if gap > 0.0 {
                            let reach = gap / k;
                            while right_start <= hi && self.cuts[right_start].mass - cut.mass <= reach {
                                right_start += 1;
                            }
                            while left_end >= lo as isize && cut.mass - self.cuts[left_end as usize].mass <= reach {
                                left_end -= 1;
                            }
                            // What the pruned thresholds were shown to cost at least.
                            let mut far = 0.0f64;
                            if right_start > mid + 1 {
                                far = far.max(self.cuts[right_start - 1].mass - cut.mass);
                            }
                            if left_end + 1 < mid as isize {
                                far = far.max(cut.mass - self.cuts[(left_end + 1) as usize].mass);
                            }
                            // (At least the target: the reach was gap / k. Said exactly, so
                            // that a rounding margin cannot leave an optimum unproved.)
                            proved = proved.min(target.max(cost - far * k * (1.0 + 1e-9)));
                        }
                    }
                    // The halves join the next level in ascending order: at its back after
                    // a run left to right, at its front after one right to left.
                    let left_half = (left_end >= lo as isize).then(|| (lo, left_end as usize, le, mid));
                    let right_half = (right_start <= hi).then(|| (right_start, hi, mid, re));
                    next += left_half.is_some() as usize + right_half.is_some() as usize;
                    if forward {
                        self.queue.extend(left_half.into_iter().chain(right_half));
                    } else {
                        right_half.into_iter().chain(left_half).for_each(|h| self.queue.push_front(h));
                    }
                }
            }
            Ok(())
        })();
        self.helpers = helpers;
        out.map(|_| proved)
    }
}

/// Adds `work` to the `count` of units done since the last poll and asks `stop` once
/// `every` units have been done (the kernels' way to honour limits in long loops).
#[inline]
pub(crate) fn poll_every(count: &mut usize, work: usize, every: usize, stop: &mut dyn FnMut() -> Option<Halt>) -> Result<(), Halt> {
    *count += work;
    if *count >= every {
        *count = 0;
        if let Some(h) = stop() {
            return Err(h);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::objective::{CostSensitive, Misclassification};
    use crate::testing::{small_tree_cost, stats_of, threshold_brute};
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

    /// Cost of the kernel's tree, recomputed from the groups it routes to each leaf; and
    /// whether every leaf holds the minimum support.
    fn cost_of<O: Objective>(obj: &O, th: &Thresholds, data: &NumericDataset, groups: &[usize], tree: &SmallTree, penalty: f64, min_support: f64) -> f64 {
        small_tree_cost(obj, groups, tree, penalty, min_support, |g| data.group_rows(g) as f64, |g, s| th.goes_right(g, s as usize))
    }

    fn check<O: Objective>(task: &Task<O, Thresholds>, data: &NumericDataset, groups: &[usize], rules: &Rules, seed: u64) {
        let th = &task.splits;
        let mut set = vec![0u64; data.words()];
        groups.iter().for_each(|&g| set[g / 64] |= 1 << (g % 64));
        let mut never = || None;
        let mut kernel = Sweep::new(task, th);
        for depth in [1, 2] {
            let want = threshold_brute(&task.obj, th, data, groups, depth, rules.penalty, rules.min_support);
            let (got, proved) = kernel.solve_above(task, th, &set, depth, rules, f64::NEG_INFINITY, f64::INFINITY, usize::MAX, &mut never).unwrap();
            assert_eq!(proved, got.cost);
            assert!((got.cost - want).abs() < 1e-9, "seed {seed}, depth {depth}: kernel {} brute force {want}", got.cost);
            let again = cost_of(&task.obj, th, data, groups, &got, rules.penalty, rules.min_support);
            assert!((again - got.cost).abs() < 1e-9, "seed {seed}, depth {depth}: tree costs {again}, kernel said {}", got.cost);
            // With a bound: exact below it, else a proof that nothing is below it.
            for bound in [want - 1.0, want, want + 1e-6, want + 2.0] {
                let (got, proved) = kernel.solve_above(task, th, &set, depth, rules, f64::NEG_INFINITY, bound, usize::MAX, &mut never).unwrap();
                let again = cost_of(&task.obj, th, data, groups, &got, rules.penalty, rules.min_support);
                assert!((again - got.cost).abs() < 1e-9);
                assert!(proved <= got.cost && proved <= want + 1e-9, "seed {seed}: bound {bound}, proved {proved}, brute force {want}");
                if proved >= got.cost {
                    assert!((got.cost - want).abs() < 1e-9, "seed {seed}: bound {bound}, kernel {} brute force {want}", got.cost);
                } else {
                    assert!(proved >= bound - 1e-9 && got.cost >= bound, "seed {seed}: bound {bound}, proved {proved}, kernel {}", got.cost);
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
    fn a_known_bound_stops_the_search_only_at_an_optimum() {
        // One kernel for many sets and depths (the root column of its last tree is tried
        // first); a bound known of the set, up to its true optimum, never changes the cost.
        for seed in 0..200u64 {
            let data = numeric(8 + (seed % 21) as usize, 1 + (seed % 4) as usize, 2 + (seed % 2) as usize, 2 + (seed % 6) as usize, seed + 101);
            let task = Task { data: &data, obj: Misclassification::new(&data), splits: Thresholds::new(&data) };
            let rules = Rules { penalty: [0.0, 0.5][(seed % 2) as usize], min_support: 1.0 };
            let mut kernel = Sweep::new(&task, &task.splits);
            let mut never = || None;
            for part in 0..3usize {
                let groups: Vec<usize> = (0..data.n_groups()).filter(|g| part == 0 || (g + part) % 3 != 0).collect();
                let mut set = vec![0u64; data.words()];
                groups.iter().for_each(|&g| set[g / 64] |= 1 << (g % 64));
                let want = threshold_brute(&task.obj, &task.splits, &data, &groups, 2, rules.penalty, rules.min_support);
                for known in [f64::NEG_INFINITY, want - 2.0, want - 0.5, want] {
                    kernel.last = None;
                    let (got, proved) = kernel.solve_above(&task, &task.splits, &set, 2, &rules, known, f64::INFINITY, usize::MAX, &mut never).unwrap();
                    assert!((got.cost - want).abs() < 1e-9, "seed {seed}, known {known}: kernel {} brute force {want}", got.cost);
                    assert_eq!(proved, got.cost);
                    let again = cost_of(&task.obj, &task.splits, &data, &groups, &got, rules.penalty, rules.min_support);
                    assert!((again - got.cost).abs() < 1e-9);
                }
            }
        }
    }

    #[test]
    fn columns_swept_by_blocks_and_by_values_match_brute_force() {
        // Column 0 mostly distinct (slots are blocks of positions, skipped whole), column 1
        // with three values (slots are values), column 2 between: both sweeps side by side.
        for seed in 0..40u64 {
            let rows = 40 + (seed % 4) as usize * 11;
            let mut s = seed;
            let mut next = || {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (s >> 33) as usize
            };
            let x: Vec<f64> = (0..rows * 3).map(|i| [(next() % 1000) as f64, (next() % 3) as f64, (next() % (rows / 3)) as f64][i % 3]).collect();
            let classes = 2 + (seed % 2) as usize;
            let y: Vec<u32> = (0..rows).map(|i| ((x[3 * i] as usize / 300 + next() % 2) % classes) as u32).collect();
            let w: Vec<f64> = (0..rows).map(|_| if seed % 3 == 0 { 1.0 } else { 0.5 + (next() % 3) as f64 }).collect();
            let data = NumericDataset::new(&x, rows, 3, &y, classes, Some(&w)).unwrap();
            let task = Task { data: &data, obj: Misclassification::new(&data), splits: Thresholds::new(&data) };
            let rules = Rules { penalty: [0.0, 0.7][(seed % 2) as usize], min_support: 1.0 + (seed / 2 % 2) as f64 };
            let groups: Vec<usize> = (0..data.n_groups()).filter(|g| seed % 4 == 0 || (g + seed as usize) % 5 != 0).collect();
            check(&task, &data, &groups, &rules, seed);
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
            let (got, _) = kernel.solve_above(&task, &task.splits, &set, 2, &rules, f64::NEG_INFINITY, f64::INFINITY, usize::MAX, &mut never).unwrap();
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
                want = want.min(threshold_brute(&task.obj, th, &data, &l, 1, 0.0, rules.min_support) + threshold_brute(&task.obj, th, &data, &r, 1, 0.0, rules.min_support));
            }
            let leaf = task.obj.leaf_loss(&stats_of(&task.obj, &many));
            assert!((got.cost - want.min(leaf)).abs() < 1e-9, "seed {seed}: kernel {} brute force {}", got.cost, want.min(leaf));
        }
    }

    #[test]
    fn left_sums_moved_or_restored_from_checkpoints_agree_with_sums_from_scratch() {
        // Root positions visited in a random order (as the interval search jumps): the
        // left sums, masks and flags, whether moved from the last position or from a
        // checkpoint, equal those summed from scratch over the members before it.
        let mut restored = 0;
        for seed in 0..30u64 {
            let data = numeric(80 + (seed % 5) as usize * 13, 3, 2 + (seed % 2) as usize, 5 + (seed % 4) as usize * 9, seed + 77);
            let task = Task { data: &data, obj: Misclassification::new(&data), splits: Thresholds::new(&data) };
            let mut kernel = Sweep::new(&task, &task.splits);
            let mut never = || None;
            let all = data.all_groups();
            kernel.prepare(&task, &task.splits, all.words(), usize::MAX, &mut never).unwrap();
            let (n, m, w) = (kernel.members.len(), kernel.m, kernel.c + 2);
            let mut s = seed;
            for f in 0..m {
                kernel.left_pos = usize::MAX;
                for _ in 0..40 {
                    s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    let to = (s >> 33) as usize % (n + 1);
                    let from = kernel.left_pos;
                    match kernel.c {
                        2 => kernel.shift::<2>(f, to),
                        3 => kernel.shift::<3>(f, to),
                        _ => kernel.shift::<0>(f, to),
                    }
                    let (inner, far) = (kernel.marks.len() > 2, from != usize::MAX && from.abs_diff(to) > n / 4);
                    restored += (inner && far) as u32;
                    let mut want = vec![0.0; kernel.slot_sums.len()];
                    let mut want_mask = vec![0u32; kernel.slot_rank.len()];
                    for &q in &kernel.cols[f * n..f * n + to] {
                        let q = q as usize;
                        for j in 0..m {
                            let v = kernel.slot[q * m + j] as usize;
                            want_mask[v] ^= 1 << kernel.offset[q * m + j];
                            for i in 0..w {
                                want[v * w + i] += kernel.member_sums[q * w + i];
                            }
                        }
                    }
                    assert_eq!(kernel.left_pos, to);
                    // The checkpoints: no more than pay for their restore, and only the
                    // interior ones copied, in exactly their room.
                    let (parts, restore) = (kernel.marks.len() - 1, kernel.slot_rank.len() / m);
                    assert!(parts == 1 || parts <= n / (2 * restore), "{parts} parts of {n} members, restore {restore}");
                    assert_eq!(kernel.saved.capacity(), (parts - 1) * kernel.slot_sums.len());
                    assert_eq!(kernel.saved_masks.capacity(), (parts - 1) * kernel.slot_rank.len());
                    assert_eq!(want_mask, kernel.left_mask, "seed {seed}, column {f}, position {to}");
                    for (a, b) in want.iter().zip(&kernel.left) {
                        assert!((a - b).abs() < 1e-9, "seed {seed}, column {f}, position {to}: from scratch {a}, kernel {b}");
                    }
                }
            }
        }
        assert!(restored > 100, "only {restored} far moves with checkpoints between the ends");
    }

    #[test]
    fn stops_when_asked_and_refuses_a_budget_too_small() {
        let data = numeric(20000, 4, 2, 5000, 5);
        let task = Task { data: &data, obj: Misclassification::new(&data), splits: Thresholds::new(&data) };
        let rules = Rules { penalty: 0.0, min_support: 1.0 };
        let mut kernel = Sweep::new(&task, &task.splits);
        let all = data.all_groups();
        let mut stop = || Some(Status::TimeLimit);
        assert_eq!(kernel.solve_above(&task, &task.splits, all.words(), 2, &rules, f64::NEG_INFINITY, f64::INFINITY, usize::MAX, &mut stop).unwrap_err(), Status::TimeLimit);
        let mut never = || None;
        assert_eq!(kernel.solve_above(&task, &task.splits, all.words(), 2, &rules, f64::NEG_INFINITY, f64::INFINITY, 1000, &mut never).unwrap_err(), Status::MemoryLimit);
    }
}
