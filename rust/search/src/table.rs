//! Exact optimal subtrees of depth two on numeric columns with few distinct values, by
//! per-value sums: the counterpart of the sweep kernel ([`crate::sweep`]) for sets whose
//! columns hold few distinct values each (fico: 5,000 rows, at most a few hundred values
//! per column).
//!
//! A depth-two tree is a root split on column `a` at threshold `t`, and on each side the
//! best tree of depth at most one, the two sides independent given `t`. For a root
//! column, the members are added to a side one root value at a time, in the column's
//! sorted order, into per-(column, value) sums (the 2-D count tables of every pair `(a,
//! b)`, accumulated along `a`); each side's best split on a column `b` is then read from
//! its `d_b` value sums, without visiting rows. Every root threshold of `a` is visited in
//! order, twice: right to left to find the right sides' optima `R(t)` (the right side
//! gains rows), then left to right for the left sides' `L(t)` (the left side gains rows).
//!
//! With a minimum leaf support of one, a side's optimum restricted to one column `b`
//! (leaf included), `V_b`, never decreases as the side gains rows (a split of the larger
//! side restricted to the smaller is a split or a leaf costing no more): so `V_b` of the
//! previous threshold bounds it at the next, and a column whose bound reaches the side's
//! best is not read. The left pass looks only for left sides cheaper than the target
//! (the best tree's cost, or the caller's bound) less `R(t)`; and it ends once the
//! least left side to come plus the least `R` to come reaches the target. With a larger
//! support the restriction argument fails: every column is read and nothing is ended
//! early, which stays exact.
//!
//! With two threads allowed, a helper runs the right passes of the root columns ahead
//! of the left passes ([`Table::depth_two`]); the answer is the one thread's, bit for
//! bit. Where every group's statistics are integers summing to its rows (unweighted
//! classes), the rows are not summed: a side's rows are its statistics' exact sum.

use crate::depth2::{Halt, SmallTree};
use crate::objective::Objective;
use crate::rules::{side, Rules};
use crate::split::{SplitFamily, Task, Thresholds};
use crate::sweep::{poll_every, Shared};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, TryRecvError};
use treeopt_core::bitset::for_each_one;

/// Units of work (slot additions and reads) between two checks of the clock and the monitor.
const POLL_WORK: usize = 1 << 18;

/// Whether the value sums pay for a set of `n` groups on `m` columns whose columns have
/// at most `distinct[j]` distinct values over the whole dataset (the sweep kernel takes
/// the others). The sums cost one pass of `n m` additions per root column and pass, and a
/// read of the `S = sum_j min(n, distinct_j)` value sums per root threshold and side not
/// pruned; the sweep moves members and reads the same `S` sums per root threshold it
/// evaluates, and on columns of mostly distinct values its slots are blocks of rows, so it
/// reads far fewer than the value sums would. The sums are used while `S` is at most a
/// quarter of `n m`, i.e. a column holds four rows per value on average (fico's subsets
/// of 5,000 rows: about one in twenty; raisin: every value distinct).
pub(crate) fn pays(n: usize, distinct: impl Iterator<Item = usize>) -> bool {
    let (mut slots, mut m) = (0usize, 0usize);
    for d in distinct {
        slots += d.min(n);
        m += 1;
    }
    n >= 64 && 4 * slots <= n * m
}
/// The inputs of one depth-two solve that every pass reads: the objective, the
/// thresholds, the set's rows, a bound `lb` on every tree of the set, the caller's
/// pruning `bound`, the root columns in search order, and the leaf rules.
struct Solve<'p, O> {
    obj: &'p O,
    th: &'p Thresholds<'p>,
    rows: f64,
    lb: f64,
    bound: f64,
    order: &'p [(f64, usize)],
    rules: &'p Rules,
}

impl<O> Clone for Solve<'_, O> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<O> Copy for Solve<'_, O> {}

/// Per side, the best tree of depth at most one found at the current root threshold.
struct SideBest {
    cost: f64,
    split: Option<u32>,
}

/// The members of the current set laid out for the passes: read-only while they run,
/// so that a helper thread shares them.
#[derive(Default)]
struct Layout {
    c: usize,
    m: usize,
    /// Sums per member and slot: the `c` statistics, then the rows unless `derived`
    /// (every group's statistics are integers summing to its rows, as for unweighted
    /// classes: a sum's rows are then its statistics' exact sum, and not stored).
    w: usize,
    derived: bool,
    /// The members of the current set (dataset groups), ascending.
    members: Vec<u32>,
    /// Per member, `w` sums: its statistics and rows.
    sums: Vec<f64>,
    /// Per column (`m * n`), the members (local indices) in sorted order.
    cols: Vec<u32>,
    /// Per (member, column) (`n * m`), the value slot it belongs to.
    slot: Vec<u32>,
    /// Per column, its first slot (`m + 1`); per slot, its value's rank in the dataset,
    /// and the position in its column's order of its first member.
    col_start: Vec<usize>,
    slot_rank: Vec<u32>,
    slot_pos: Vec<u32>,
}

/// The mutable state of one pass over a root column's cuts: the side's per-value sums
/// and totals, and per column a lower bound on the side's optimum restricted to it.
#[derive(Default)]
struct Pass {
    part: Vec<f64>,
    side_tot: Vec<f64>,
    col_lb: Vec<f64>,
    col_order: Vec<usize>,
    /// Root thresholds read.
    roots: u64,
}

/// The right pass of one root column: its cuts and, from `low` on, the right sides'
/// optima (cost and split); with `record`, per cut read (right to left), the column
/// order the pass left behind it (`m` entries each), and where the set's sums are whole
/// numbers (`derived`), the right side's per-value sums and totals at cut `low`.
/// Where they are whole numbers, also copies of the right side's sums and totals
/// (`snaps`, `w` totals then the slots' sums each) at the cuts whose members since the
/// previous cut cost more to add than the slots to copy ([`Layout::snapshot_pays`]),
/// by cut (`snap_of`, `NO_SNAP` elsewhere): the left pass forms its side there as the
/// whole set less the copy instead of adding the members.
#[derive(Default)]
struct Right {
    a: usize,
    cut_pos: Vec<usize>,
    right: Vec<(f64, Option<u32>)>,
    low: usize,
    orders: Vec<usize>,
    part: Vec<f64>,
    tot: Vec<f64>,
    snaps: Vec<f64>,
    snap_of: Vec<u32>,
}

/// A cut without a copy of its right side.
const NO_SNAP: u32 = u32::MAX;

impl Right {
    fn bytes(&self) -> usize {
        8 * (self.cut_pos.capacity() + self.orders.capacity() + self.part.capacity() + self.tot.capacity() + self.snaps.capacity()) + 16 * self.right.capacity() + 4 * self.snap_of.capacity()
    }
}

/// Reusable buffers of the value-sum kernel for one numeric dataset.
#[derive(Default)]
pub(crate) struct Table {
    lay: Layout,
    /// Per dataset group, its index among the current set's members.
    local: Vec<u32>,
    /// Per column (from `value_start[j]`) and distinct value, the position in the
    /// dataset's sorted order of the column of its first group (made on first use).
    value_pos: Vec<u32>,
    value_start: Vec<usize>,
    /// Per slot, the `w` sums of all members.
    all: Vec<f64>,
    /// Statistics and rows of the whole set.
    totals: Vec<f64>,
    /// The passes of the calling thread, and of the helper thread.
    main: Pass,
    helper: Pass,
    /// The calling thread's right pass, and spare ones for the helper.
    right: Right,
    spare: Vec<Right>,
    /// Threads a solve may use (1: the calling thread only), and the least members
    /// times columns for which it starts a helper.
    threads: usize,
    helper_min_work: usize,
    /// The dataset's ranks over its distinct values from which `prepare` reads columns
    /// value by value ([`VALUE_WALK`]; 0 in tests: always).
    value_walk: usize,
    work: usize,
    /// Solves not answered from `last`, and root thresholds read in them (either side).
    pub(crate) solves: u64,
    pub(crate) roots: u64,
    /// The last optimum solved, by set (the search's tree is rebuilt from the kernel).
    last: Option<(Vec<u64>, SmallTree)>,
    /// The root column of the last optimum, tried first next time.
    last_root: usize,
    /// Recent sets with, per root column `a`, a lower bound on `D_a`: the least cost of a
    /// tree of depth two rooted at `a` or of depth at most one (see [`Table::similarity`]).
    history: std::collections::VecDeque<(Vec<u64>, Vec<f64>)>,
}

/// Rows below which [`Layout::scan_counts`] holds a side's costs and positions in the
/// halves of one 64-bit key.
const COUNTS_BELOW: f64 = (1u64 << 31) as f64;

/// Recent sets kept for the similarity bound.
const HISTORY: usize = 4;

/// Ranks over distinct values (groups times columns over the values of all columns)
/// from which `prepare` reads each column value by value, from the positions of the
/// values in the dataset's order, instead of looking up each member's rank: the
/// positions take a `VALUE_WALK`-th of the ranks' memory at most (fico: 117).
const VALUE_WALK: usize = 16;

/// Members (groups) times columns from which a solve hands its right passes to a helper
/// thread: below, a solve takes well under a millisecond and a thread would not pay.
const HELPER_MIN_WORK: usize = 1 << 14;

impl Table {
    /// The kernel for `t`'s dataset, solving on the calling thread and, with `threads`
    /// above one, on one helper thread ([`Table::depth_two`]).
    pub fn new<O: Objective, S: SplitFamily>(t: &Task<O, S>, th: &Thresholds, threads: usize) -> Self {
        let c = t.obj.n_stats();
        let derived = (0..t.data.n_groups()).all(|g| {
            let st = t.obj.group_stats(g);
            st.iter().all(|&x| treeopt_core::dataset::is_whole(x) && x >= 0.0) && st.iter().sum::<f64>() == t.data.group_rows(g) as f64
        });
        let lay = Layout { c, m: th.numeric().n_columns(), w: if derived { c } else { c + 1 }, derived, ..Default::default() };
        Table { lay, last_root: usize::MAX, threads: threads.max(1), helper_min_work: HELPER_MIN_WORK, value_walk: VALUE_WALK, ..Default::default() }
    }

    /// Bytes held by the kernel's buffers.
    pub fn bytes(&self) -> usize {
        let l = &self.lay;
        let pass = |p: &Pass| 8 * (p.part.capacity() + p.side_tot.capacity() + p.col_lb.capacity() + p.col_order.capacity());
        4 * (self.local.capacity() + self.value_pos.capacity() + l.members.capacity() + l.cols.capacity() + l.slot.capacity() + l.slot_rank.capacity() + l.slot_pos.capacity())
            + 8 * (l.sums.capacity() + self.value_start.capacity() + self.all.capacity() + self.totals.capacity() + l.col_start.capacity())
            + pass(&self.main)
            + pass(&self.helper)
            + self.right.bytes()
            + self.spare.iter().map(Right::bytes).sum::<usize>()
            + self.last.as_ref().map_or(0, |l| 8 * l.0.capacity())
    }

    /// The per-set buffers shared with the sweep kernel ([`Shared`]).
    pub(crate) fn shared(&mut self) -> Shared<'_> {
        Shared { local: &mut self.local, members: &mut self.lay.members, cols: &mut self.lay.cols, slot: &mut self.lay.slot, sums: &mut self.lay.sums, slot_sums: &mut self.all }
    }

    /// Frees the per-set buffers.
    pub fn release(&mut self) {
        let (c, m, w, derived) = (self.lay.c, self.lay.m, self.lay.w, self.lay.derived);
        let (solves, roots, last_root, threads, helper_min_work, value_walk) = (self.solves, self.roots, self.last_root, self.threads, self.helper_min_work, self.value_walk);
        *self = Table { lay: Layout { c, m, w, derived, ..Default::default() }, solves, roots, last_root, threads, helper_min_work, value_walk, ..Default::default() };
    }

    #[inline]
    fn poll(&mut self, work: usize, stop: &mut dyn FnMut() -> Option<Halt>) -> Result<(), Halt> {
        poll_every(&mut self.work, work, POLL_WORK, stop)
    }

    /// The optimal subtree of depth at most two for the groups in `set`, with a proven
    /// lower bound on its cost, under the contract of the sweep kernel's `solve_above`:
    /// the tree's own cost, unless no tree costs less than `bound` (then the bound
    /// returned is at least `bound`); `known` is a bound the caller proved (a tree meeting
    /// it ends the search).
    #[allow(clippy::too_many_arguments)]
    pub fn solve_above<O: Objective, S: SplitFamily>(
        &mut self,
        t: &Task<O, S>,
        th: &Thresholds,
        set: &[u64],
        rules: &Rules,
        known: f64,
        bound: f64,
        budget_bytes: usize,
        stop: &mut dyn FnMut() -> Option<Halt>,
    ) -> Result<(SmallTree, f64), Halt> {
        if let Some((s, tree)) = &self.last {
            if s.as_slice() == set {
                return Ok((*tree, tree.cost));
            }
        }
        self.solves += 1;
        let (floor, rows) = self.prepare(t, th, set, budget_bytes, stop)?;
        let obj = &t.obj;
        let (c, m) = (self.lay.c, self.lay.m);
        let s = side(obj, &self.totals[..c], floor, None, rows, 2, rules);
        if s.terminal {
            return Ok((SmallTree { cost: s.leaf_cost, split: None }, s.leaf_cost));
        }
        let mut best = SmallTree { cost: s.leaf_cost, split: None };
        // The best stump, and each column's: root columns are tried from the best stump's.
        let mut order: Vec<(f64, usize)> = Vec::with_capacity(m);
        for j in 0..m {
            let (cost, split) = self.lay.scan(obj, &self.all, &self.totals, j, rules, th);
            if cost < best.cost {
                best = SmallTree { cost, split: split.map(|f| (f, None, None)) };
            }
            order.push((if j == self.last_root { f64::NEG_INFINITY } else { cost }, j));
        }
        let depth_one = best.cost;
        let mut col_bound = self.similarity(obj, set, rules);
        for o in order.iter_mut() {
            // Columns whose trees were best in a similar set first.
            if col_bound[o.1] > f64::NEG_INFINITY && o.0 > f64::NEG_INFINITY {
                o.0 = col_bound[o.1];
            }
        }
        order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let floor = s.proven.max(known);
        let mut proved = f64::INFINITY;
        let p = Solve { obj, th, rows, lb: floor, bound, order: &order, rules };
        // (Monomorphised on the sums per member.)
        let r = match self.lay.w {
            2 => self.depth_two::<O, 2>(&p, &mut best, &mut proved, &mut col_bound, stop),
            3 => self.depth_two::<O, 3>(&p, &mut best, &mut proved, &mut col_bound, stop),
            4 => self.depth_two::<O, 4>(&p, &mut best, &mut proved, &mut col_bound, stop),
            _ => self.depth_two::<O, 0>(&p, &mut best, &mut proved, &mut col_bound, stop),
        };
        r?;
        if rules.min_support <= 1.0 {
            // D_a = min(the best tree rooted at a, the best of depth one), for later sets.
            col_bound.iter_mut().for_each(|b| *b = b.min(depth_one));
            if self.history.len() == HISTORY {
                self.history.pop_back();
            }
            self.history.push_front((set.to_vec(), col_bound));
        }
        if best.cost >= bound {
            return Ok((best, proved.min(best.cost)));
        }
        debug_assert!(proved >= best.cost - 1e-9 * best.cost.abs().max(1.0));
        self.last = Some((set.to_vec(), best));
        Ok((best, best.cost))
    }

    /// Per root column `a`, a lower bound on `D_a` of `set` from the recent sets (STreeD's
    /// similarity bound, per root column): a tree of `set` restricted to a kept set's
    /// common groups is still a tree rooted at `a` or, when a side empties, a tree of
    /// depth at most one, costing no more (a minimum support of one: every part of a
    /// non-empty side is a leaf); and adding the kept set's other groups back raises it by
    /// at most their insertion costs ([`Objective::insertion_cost`]). So `D_a(set) >=
    /// D_a(kept) - insertion costs of (kept minus set)`. Minus infinity where nothing is
    /// known.
    fn similarity<O: Objective>(&self, obj: &O, set: &[u64], rules: &Rules) -> Vec<f64> {
        let mut out = vec![f64::NEG_INFINITY; self.lay.m];
        if rules.min_support > 1.0 {
            return out;
        }
        for (kept, bounds) in &self.history {
            let mut lost = 0.0;
            let mut known = true;
            for (i, (&k, &s)) in kept.iter().zip(set).enumerate() {
                let mut bits = k & !s;
                while bits != 0 {
                    let g = i * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    match obj.insertion_cost(g) {
                        Some(x) => lost += x,
                        None => known = false,
                    }
                }
                if !known {
                    break;
                }
            }
            if !known {
                return out;
            }
            let margin = 1e-9 * (lost + bounds.iter().filter(|b| b.is_finite()).fold(1.0f64, |a, b| a.max(b.abs())));
            for (o, b) in out.iter_mut().zip(bounds) {
                *o = o.max(b - lost - margin);
            }
        }
        out
    }

    /// Lists the members of `set` in every column's sorted order and sums them per value.
    /// Returns the equivalent-points floor and the rows of the set.
    fn prepare<O: Objective, S: SplitFamily>(&mut self, t: &Task<O, S>, th: &Thresholds, set: &[u64], budget: usize, stop: &mut dyn FnMut() -> Option<Halt>) -> Result<(f64, f64), Halt> {
        let data = th.numeric();
        let (m, w, derived) = (self.lay.m, self.lay.w, self.lay.derived);
        let n_all = data.n_groups();
        let n = set.iter().map(|w| w.count_ones() as usize).sum::<usize>();
        let slots_max: usize = (0..m).map(|j| (data.n_thresholds(j) + 1).min(n)).sum();
        // (A helper thread adds its side's sums and up to three right passes' column
        // orders and right sides; the calling thread's passes run ahead up to AHEAD more.)
        let helper = if self.threads > 1 { 8 * w * slots_max + (3 + AHEAD) * 8 * (m * n + if derived { w * slots_max } else { 0 }) } else { 0 };
        // (Each right pass in flight may hold copies of its side: at most `2 n m` sums
        // in all, see `Layout::snapshot_pays`.)
        let passes = 1 + if self.threads > 1 { 3 + AHEAD } else { 0 };
        let snaps = if derived { passes * 16 * m * n } else { 0 };
        let values: usize = (0..m).map(|j| data.n_thresholds(j) + 1).sum();
        // Columns are read value by value where the dataset's values are few (their
        // positions cost less than a sixteenth of its ranks).
        let by_value = n * 16 >= n_all && values * self.value_walk <= n_all * m;
        let need = 4 * n_all + 12 * m * n + 8 * w * n + 2 * 8 * w * slots_max + 16 * slots_max + 48 * n + helper + snaps + if by_value { 4 * values + 8 * (m + 1) } else { 0 };
        if self.bytes() + need > budget {
            self.release();
            if self.bytes() + need > budget {
                return Err(Halt::MemoryLimit);
            }
        }
        if self.local.len() != n_all {
            self.local = vec![0; n_all];
        }
        self.lay.members.clear();
        self.lay.sums.clear();
        self.totals.clear();
        self.totals.resize(w, 0.0);
        let (mut floor, mut rows) = (0.0, 0.0);
        {
            let (members, sums, totals, local) = (&mut self.lay.members, &mut self.lay.sums, &mut self.totals, &mut self.local);
            for_each_one(set, |g| {
                local[g] = members.len() as u32;
                members.push(g as u32);
                let st = t.obj.group_stats(g);
                let r = t.data.group_rows(g) as f64;
                for (s, v) in totals.iter_mut().zip(st.iter().chain([&r])) {
                    *s += v;
                }
                sums.extend_from_slice(st);
                if !derived {
                    sums.push(r);
                }
                floor += t.obj.group_floor(g);
                rows += r;
            });
        }
        self.lay.cols.resize(m * n, 0);
        self.lay.slot.resize(n * m, 0);
        self.lay.col_start.clear();
        self.lay.slot_rank.clear();
        self.lay.slot_pos.clear();
        self.all.clear();
        let filter = n * 16 >= n_all;
        if by_value && self.value_start.is_empty() {
            self.value_start.push(0);
            for j in 0..m {
                let mut prev = u32::MAX;
                for (k, &g) in data.sorted(j).iter().enumerate() {
                    let r = data.rank(g as usize, j);
                    if k == 0 || r != prev {
                        self.value_pos.push(k as u32);
                        prev = r;
                    }
                }
                self.value_start.push(self.value_pos.len());
            }
        }
        for j in 0..m {
            self.lay.col_start.push(self.lay.slot_rank.len());
            if by_value {
                // The dataset's order value by value: each member's slot is its value's,
                // opened at the value's first member (no rank looked up per member).
                let Layout { sums, cols, slot, slot_rank, slot_pos, .. } = &mut self.lay;
                let out = &mut cols[j * n..(j + 1) * n];
                let (sorted, pos) = (data.sorted(j), &self.value_pos[self.value_start[j]..self.value_start[j + 1]]);
                let mut k = 0;
                // (A value's sums are added up on the stack when they fit: through
                // memory, each addition waits for the store of the one before.)
                let mut acc = [0.0f64; 4];
                for (r, &lo) in pos.iter().enumerate() {
                    let hi = pos.get(r + 1).map_or(n_all, |&p| p as usize);
                    let mut v = usize::MAX;
                    for &g in &sorted[lo as usize..hi] {
                        if set[g as usize >> 6] >> (g & 63) & 1 == 1 {
                            let q = self.local[g as usize] as usize;
                            out[k] = q as u32;
                            if v == usize::MAX {
                                v = slot_rank.len();
                                slot_rank.push(r as u32);
                                slot_pos.push(k as u32);
                                self.all.extend(std::iter::repeat(0.0).take(w));
                            }
                            let s = &sums[q * w..(q + 1) * w];
                            if w <= acc.len() {
                                acc.iter_mut().zip(s).for_each(|(a, s)| *a += s);
                            } else {
                                self.all[v * w..(v + 1) * w].iter_mut().zip(s).for_each(|(a, s)| *a += s);
                            }
                            slot[q * m + j] = v as u32;
                            k += 1;
                        }
                    }
                    if v != usize::MAX && w <= acc.len() {
                        self.all[v * w..(v + 1) * w].copy_from_slice(&acc[..w]);
                        acc = [0.0; 4];
                    }
                }
                self.poll(n_all, stop)?;
                continue;
            }
            let out = &mut self.lay.cols[j * n..(j + 1) * n];
            if filter {
                let mut k = 0;
                for &g in data.sorted(j) {
                    if set[g as usize >> 6] >> (g & 63) & 1 == 1 {
                        out[k] = self.local[g as usize];
                        k += 1;
                    }
                }
            } else {
                let members = &self.lay.members;
                out.iter_mut().enumerate().for_each(|(q, o)| *o = q as u32);
                out.sort_unstable_by_key(|&q| data.rank(members[q as usize] as usize, j));
            }
            let mut prev = u32::MAX;
            for k in 0..n {
                let q = self.lay.cols[j * n + k] as usize;
                let r = data.rank(self.lay.members[q] as usize, j);
                if k == 0 || r != prev {
                    self.lay.slot_rank.push(r);
                    self.lay.slot_pos.push(k as u32);
                    self.all.extend(std::iter::repeat(0.0).take(w));
                    prev = r;
                }
                let v = self.lay.slot_rank.len() - 1;
                for (a, s) in self.all[v * w..(v + 1) * w].iter_mut().zip(&self.lay.sums[q * w..(q + 1) * w]) {
                    *a += s;
                }
                self.lay.slot[q * m + j] = v as u32;
            }
            self.poll(if filter { n_all } else { 4 * n }, stop)?;
        }
        self.lay.col_start.push(self.lay.slot_rank.len());
        Ok((floor, rows))
    }
}

impl Pass {
    /// Empties the side for a new pass over `lay`'s set (`slots` value slots), every
    /// column unread; the column order is kept.
    fn clear_side(&mut self, lay: &Layout, slots: usize) {
        self.part.clear();
        self.part.resize(slots, 0.0);
        self.side_tot.clear();
        self.side_tot.resize(lay.w, 0.0);
        self.col_lb.clear();
        self.col_lb.resize(lay.m, f64::NEG_INFINITY);
    }
}

/// Sorts `order` by `lb` ascending (`total_cmp`), ties kept in place: the stable sort's
/// permutation. By insertion, since between two reads of a side only the columns read
/// change their bound and the order is nearly sorted already (a general sort costed
/// more than the column reads on fico).
#[inline]
fn sort_by_bound(order: &mut [usize], lb: &[f64]) {
    for i in 1..order.len() {
        let x = order[i];
        let mut k = i;
        while k > 0 && lb[order[k - 1]].total_cmp(&lb[x]).is_gt() {
            order[k] = order[k - 1];
            k -= 1;
        }
        order[k] = x;
    }
}

impl Layout {
    /// The best split of a side on column `j` (cost with its two leaves' penalties, and
    /// the split), from the side's per-value sums `part` and totals `tot` (`w` each:
    /// statistics, rows unless derived); infinite cost when no split of the column parts
    /// the side with the support in both leaves.
    #[inline]
    fn scan<O: Objective>(&self, obj: &O, part: &[f64], tot: &[f64], j: usize, rules: &Rules, th: &Thresholds) -> (f64, Option<u32>) {
        match (self.c, self.derived) {
            (2, true) => self.scan_fixed::<O, 2, true>(obj, part, tot, j, rules, th),
            (2, false) => self.scan_fixed::<O, 2, false>(obj, part, tot, j, rules, th),
            (3, true) => self.scan_fixed::<O, 3, true>(obj, part, tot, j, rules, th),
            (3, false) => self.scan_fixed::<O, 3, false>(obj, part, tot, j, rules, th),
            (_, true) => self.scan_c::<O, 0, true>(obj, part, tot, j, rules, th),
            (_, false) => self.scan_c::<O, 0, false>(obj, part, tot, j, rules, th),
        }
    }

    /// The rows of sums `x` (`w` entries).
    #[inline(always)]
    fn rows_of(&self, x: &[f64]) -> f64 {
        if self.derived { x[..self.c].iter().sum() } else { x[self.c] }
    }
    /// [`Layout::scan`] for `C` statistics known at compile time (not 0), `D` whether
    /// rows are derived: the sums on the stack and the column's slots walked as one
    /// slice, the split's rank looked up once (the depth-two kernel's innermost loop;
    /// the same sums and comparisons as [`Layout::scan_c`]).
    #[inline(always)]
    fn scan_fixed<O: Objective, const C: usize, const D: bool>(&self, obj: &O, part: &[f64], tot: &[f64], j: usize, rules: &Rules, th: &Thresholds) -> (f64, Option<u32>) {
        let w = if D { C } else { C + 1 };
        let (lo, hi) = (self.col_start[j], self.col_start[j + 1]);
        let mut t = [0.0f64; C];
        t.copy_from_slice(&tot[..C]);
        let tot_rows = if D { t.iter().sum::<f64>() } else { tot[C] };
        if C == 2 && D && O::LOSS_IS_MINORITY && rules.min_support >= 1.0 && tot_rows < COUNTS_BELOW {
            return self.scan_counts(&part[lo * 2..hi * 2], [t[0], t[1]], j, lo, rules, th);
        }
        let (mut acc, mut rest, mut acc_rows) = ([0.0f64; C], [0.0f64; C], 0.0f64);
        let (mut best, mut at) = (f64::INFINITY, usize::MAX);
        let ms = rules.min_support;
        for (k, p) in part[lo * w..hi * w].chunks_exact(w).enumerate() {
            let p_rows = if D { p[..C].iter().sum::<f64>() } else { p[C] };
            if p_rows <= 0.0 {
                continue;
            }
            for i in 0..C {
                acc[i] += p[i];
            }
            acc_rows = if D { acc.iter().sum::<f64>() } else { acc_rows + p_rows };
            if tot_rows - acc_rows < ms {
                break;
            }
            if acc_rows < ms {
                continue;
            }
            for i in 0..C {
                rest[i] = t[i] - acc[i];
            }
            let cost = obj.leaf_loss(&acc) + obj.leaf_loss(&rest);
            if cost < best {
                best = cost;
                at = k;
            }
        }
        (best + 2.0 * rules.penalty, (at != usize::MAX).then(|| th.split_of(j, 0) + self.slot_rank[lo + at]))
    }

    /// [`Layout::scan_fixed`] for two classes of whole row counts (derived rows) where a
    /// leaf loses its minority, `slots` the column's `(class 0, class 1)` sums and `tot`
    /// the side's: the same split, found in integers without a branch per slot. An empty
    /// slot is scored like the slot before it (the same sums), never strictly better,
    /// so it is not skipped; a cut's key is its cost above its position, so the least
    /// key is the first cut of the least cost, as the strict comparison finds it.
    #[inline(always)]
    fn scan_counts(&self, slots: &[f64], tot: [f64; 2], j: usize, lo: usize, rules: &Rules, th: &Thresholds) -> (f64, Option<u32>) {
        let (t0, t1) = (tot[0] as i64, tot[1] as i64);
        let tot_rows = t0 + t1;
        // (Rows are whole numbers: below a support `ms` means below its ceiling.)
        let ms = rules.min_support.ceil() as i64;
        let (mut a0, mut a1) = (0i64, 0i64);
        let mut key = u64::MAX;
        // A whole number 0 <= x < 2^52 is the low bits of x + 2^52 (no saturating
        // conversion on the way).
        const SHIFT: f64 = (1u64 << 52) as f64;
        let whole = |x: f64| {
            debug_assert!(x >= 0.0 && x < COUNTS_BELOW && x.fract() == 0.0);
            ((x + SHIFT).to_bits() - SHIFT.to_bits()) as i64
        };
        for (k, p) in slots.chunks_exact(2).enumerate() {
            a0 += whole(p[0]);
            a1 += whole(p[1]);
            let rows = a0 + a1;
            if tot_rows - rows < ms {
                break;
            }
            let cost = (a0.min(a1) + (t0 - a0).min(t1 - a1)) as u64;
            key = key.min(if rows >= ms { cost << 32 | k as u64 } else { u64::MAX });
        }
        if key == u64::MAX {
            return (f64::INFINITY, None);
        }
        ((key >> 32) as f64 + 2.0 * rules.penalty, Some(th.split_of(j, 0) + self.slot_rank[lo + (key & 0xffff_ffff) as usize]))
    }

    #[inline(always)]
    fn scan_c<O: Objective, const C: usize, const D: bool>(&self, obj: &O, part: &[f64], tot: &[f64], j: usize, rules: &Rules, th: &Thresholds) -> (f64, Option<u32>) {
        let c = if C > 0 { C } else { self.c };
        let w = if D { c } else { c + 1 };
        let rows = |x: &[f64]| if D { x[..c].iter().sum::<f64>() } else { x[c] };
        let mut acc = [0.0f64; 8];
        let mut rest = [0.0f64; 8];
        let mut acc_v = vec![];
        let (acc, rest): (&mut [f64], &mut [f64]) = if w <= 8 {
            (&mut acc[..w], &mut rest[..w])
        } else {
            acc_v.resize(2 * w, 0.0);
            acc_v.split_at_mut(w)
        };
        let (mut best, mut split) = (f64::INFINITY, None);
        let base = th.split_of(j, 0);
        let ms = rules.min_support;
        for v in self.col_start[j]..self.col_start[j + 1] {
            let p = &part[v * w..(v + 1) * w];
            if rows(p) <= 0.0 {
                continue;
            }
            for (a, x) in acc.iter_mut().zip(p) {
                *a += x;
            }
            let acc_rows = rows(acc);
            if rows(tot) - acc_rows < ms {
                break;
            }
            if acc_rows < ms {
                continue;
            }
            for ((r, t), a) in rest.iter_mut().zip(tot).zip(acc.iter()) {
                *r = t - a;
            }
            let cost = obj.leaf_loss(&acc[..c]) + obj.leaf_loss(&rest[..c]);
            if cost < best {
                best = cost;
                split = Some(base + self.slot_rank[v]);
            }
        }
        (best + 2.0 * rules.penalty, split)
    }

    /// Adds the members at positions `lo..hi` of column `a`'s order to a side's per-value
    /// sums `part`.
    #[inline]
    fn add<const W: usize>(&self, part: &mut [f64], a: usize, lo: usize, hi: usize) {
        let (n, m) = (self.members.len(), self.m);
        if W > 0 {
            // Slots as arrays of `W`: one bounds check per slot, and the sums added as
            // one vector.
            let (slots, _) = part.as_chunks_mut::<W>();
            let (sums, _) = self.sums.as_chunks::<W>();
            for &q in &self.cols[a * n + lo..a * n + hi] {
                let q = q as usize;
                let s = sums[q];
                for &v in &self.slot[q * m..(q + 1) * m] {
                    let d = &mut slots[v as usize];
                    for i in 0..W {
                        d[i] += s[i];
                    }
                }
            }
            return;
        }
        let w = self.w;
        for &q in &self.cols[a * n + lo..a * n + hi] {
            let q = q as usize;
            let s = &self.sums[q * w..q * w + w];
            for &v in &self.slot[q * m..(q + 1) * m] {
                let v = v as usize;
                let d = &mut part[v * w..v * w + w];
                for i in 0..w {
                    d[i] += s[i];
                }
            }
        }
    }

    /// Adds the members at positions `lo..hi` of column `a`'s order to a pass's side
    /// (sums and totals).
    #[inline]
    fn grow<const W: usize>(&self, pass: &mut Pass, a: usize, lo: usize, hi: usize) {
        self.add::<W>(&mut pass.part, a, lo, hi);
        let (n, w) = (self.members.len(), self.w);
        if W > 0 {
            // The totals summed in registers (through memory, each addition waits for the
            // previous one's store).
            let (sums, _) = self.sums.as_chunks::<W>();
            let mut t = [0.0f64; W];
            for &q in &self.cols[a * n + lo..a * n + hi] {
                let s = sums[q as usize];
                for i in 0..W {
                    t[i] += s[i];
                }
            }
            pass.side_tot.iter_mut().zip(t).for_each(|(x, s)| *x += s);
            return;
        }
        for &q in &self.cols[a * n + lo..a * n + hi] {
            let q = q as usize;
            pass.side_tot.iter_mut().zip(&self.sums[q * w..(q + 1) * w]).for_each(|(t, s)| *t += s);
        }
    }

    /// Whether a copy of a right side's sums at a cut pays, `gap` members after the
    /// previous cut (`sums` the side's per-value sums, `w` per slot): adding those
    /// members costs `gap m` scattered additions of a slot's `w` sums (one vector when
    /// `w` is small), the copy and the subtraction that reads it about `sums` streamed
    /// ones twice. Bounds the sums copied in a pass by twice its members times columns.
    #[inline]
    fn snapshot_pays(&self, gap: usize, sums: usize) -> bool {
        2 * gap * self.m > sums + self.w
    }

    /// The root cuts of column `a` into `out`: the positions in its order after which
    /// the value changes, with both sides supported.
    /// (From the slots of the column: `all` holds every slot's sums. The rows are whole
    /// numbers, summed exactly in any order.)
    fn cuts(&self, all: &[f64], a: usize, rows: f64, rules: &Rules, out: &mut Vec<usize>) {
        let w = self.w;
        out.clear();
        let mut acc_rows = 0.0;
        for v in self.col_start[a]..self.col_start[a + 1] {
            if v > self.col_start[a] && acc_rows >= rules.min_support && rows - acc_rows >= rules.min_support {
                out.push(self.slot_pos[v] as usize);
            }
            acc_rows += self.rows_of(&all[v * w..(v + 1) * w]);
        }
    }

    /// The best tree of depth at most one of a pass's side, looking only for trees
    /// cheaper than `cap`: returns its cost and split (`cap` and no split when none is
    /// cheaper), and the slots read. With `monotone`, the columns whose bound in
    /// `col_lb` reaches the best found are not read, and the columns read get their
    /// exact optimum (leaf included) as new bound.
    fn best_side<O: Objective>(&self, obj: &O, pass: &mut Pass, cap: f64, monotone: bool, rules: &Rules, th: &Thresholds) -> (SideBest, usize) {
        let c = self.c;
        let tot = &pass.side_tot;
        let leaf = obj.leaf_loss(&tot[..c]) + rules.penalty;
        let mut best = SideBest { cost: cap, split: None };
        if leaf < cap {
            best.cost = leaf;
        }
        let splittable = self.rows_of(tot) >= 2.0 * rules.min_support;
        if !splittable {
            return (if leaf < cap { SideBest { cost: leaf, split: None } } else { best }, 0);
        }
        // Columns by their bound, least first: the best column is met early, and the
        // loop ends at the first bound that reaches the best.
        if monotone {
            sort_by_bound(&mut pass.col_order, &pass.col_lb);
        }
        let mut read = 0;
        for &j in &pass.col_order {
            if monotone && pass.col_lb[j] >= best.cost {
                break;
            }
            let (cost, split) = self.scan(obj, &pass.part, tot, j, rules, th);
            read += self.col_start[j + 1] - self.col_start[j];
            if monotone {
                pass.col_lb[j] = cost.min(leaf);
            }
            if cost < best.cost {
                best = SideBest { cost, split };
            }
        }
        (best, read)
    }

    /// The right pass of column `out.a` over its cuts `out.cut_pos`: right to left, the
    /// right side gains members and each cut's right optimum `R` is found exactly. With
    /// `monotone` (`R` never decreases leftwards) it ends after the first cut whose `R`
    /// reaches `target()`. `tick` is told the work done, and may stop the pass.
    #[allow(clippy::too_many_arguments)]
    fn right_pass<O: Objective, const W: usize>(
        &self,
        obj: &O,
        th: &Thresholds,
        rules: &Rules,
        monotone: bool,
        slots: usize,
        pass: &mut Pass,
        out: &mut Right,
        record: bool,
        target: &dyn Fn() -> f64,
        tick: &mut dyn FnMut(usize) -> Result<(), Halt>,
    ) -> Result<(), Halt> {
        let (n, m, a) = (self.members.len(), self.m, out.a);
        let n_cuts = out.cut_pos.len();
        out.right.clear();
        out.right.resize(n_cuts, (f64::INFINITY, None));
        out.snaps.clear();
        out.snap_of.clear();
        out.snap_of.resize(n_cuts, NO_SNAP);
        out.orders.clear();
        out.low = n_cuts;
        pass.clear_side(self, slots);
        pass.col_order.clear();
        pass.col_order.extend(0..m);
        let mut end = n;
        for i in (0..n_cuts).rev() {
            let pos = out.cut_pos[i];
            self.grow::<W>(pass, a, pos, end);
            tick((end - pos) * m)?;
            end = pos;
            pass.roots += 1;
            let (r, read) = self.best_side(obj, pass, f64::INFINITY, monotone, rules, th);
            tick(read)?;
            if self.derived && self.snapshot_pays(pos - if i > 0 { out.cut_pos[i - 1] } else { 0 }, slots) {
                out.snap_of[i] = (out.snaps.len() / (self.w + slots)) as u32;
                out.snaps.extend_from_slice(&pass.side_tot);
                out.snaps.extend_from_slice(&pass.part);
                tick(slots)?;
            }
            out.right[i] = (r.cost, r.split);
            out.low = i;
            if record {
                out.orders.extend_from_slice(&pass.col_order);
            }
            if monotone && r.cost >= target() {
                break;
            }
        }
        if record && self.derived {
            out.part.clear();
            out.part.extend_from_slice(&pass.part);
            out.tot.clear();
            out.tot.extend_from_slice(&pass.side_tot);
        }
        Ok(())
    }
}

impl Table {
    /// Searches the depth-two trees for one cheaper than `best` (and, for pruning, than
    /// `bound`), root column by root column in `order`; `lb` bounds every tree of the
    /// set. Lowers `proved` to the least bound by which a tree was pruned.
    ///
    /// With more than one thread and a set large enough, a helper thread runs the right
    /// passes ([`Layout::right_pass`]) of the columns ahead while this thread runs the
    /// left passes, in the same order; the two threads claim the right passes in order,
    /// and this thread, rather than wait for the helper's, runs the next ones unclaimed
    /// (right passes read about twice the columns that left passes read on fico). The answer is the one thread's, bit for bit: a
    /// right pass depends on the target only through where it ends (after the first cut
    /// whose right side reaches it), and the helper reads the target this thread last
    /// published, never below the one this thread holds when it reaches the column;
    /// right sides only grow dearer leftwards, so the helper ends no earlier than this
    /// thread would have, and this thread cuts its answer where it would have ended,
    /// taking the column order the helper recorded there.
    fn depth_two<O: Objective, const W: usize>(
        &mut self,
        p: &Solve<'_, O>,
        best: &mut SmallTree,
        proved: &mut f64,
        col_bound: &mut [f64],
        stop: &mut dyn FnMut() -> Option<Halt>,
    ) -> Result<(), Halt> {
        let Solve { obj, th, rows, lb, bound, order, rules } = *p;
        let slots = self.all.len();
        let min_work = self.helper_min_work;
        let Table { lay, all, totals, main, helper, right, spare, work, last_root, threads, roots, .. } = self;
        let (lay, all, totals) = (&*lay, &all[..], &totals[..]);
        // The calling thread's spare right passes (for those it runs ahead), kept apart
        // from the helper's.
        let mut mine = Vec::new();
        let mut main_ctx = Columns { lay, all, totals, pass: &mut *main, seq: right, spare: &mut mine, work, last_root, slots };
        let use_helper = *threads > 1 && order.len() > 1 && lay.members.len() * lay.m >= min_work;
        let out = if !use_helper {
            main_ctx.run::<O, W>(None, p, best, proved, col_bound, stop)
        } else {
            let monotone = rules.min_support <= 1.0;
            let target = AtomicU64::new(best.cost.min(bound).to_bits());
            let cancel = AtomicBool::new(false);
            let bounds0: Vec<f64> = col_bound.to_vec();
            let hpass = &mut *helper;
            let mut pool = std::mem::take(spare);
            let claim = AtomicUsize::new(0);
            let (out, pool_back) = std::thread::scope(|s| {
                let (tx, rx) = sync_channel::<(usize, Option<Right>)>(1);
                let (back_tx, back_rx) = channel::<Right>();
                let (target, cancel, bounds0, claim) = (&target, &cancel, &bounds0, &claim);
                let h = s.spawn(move || {
                    loop {
                        let k = claim.fetch_add(1, Relaxed);
                        let Some(&(_, a)) = order.get(k) else { break };
                        if cancel.load(Relaxed) {
                            break;
                        }
                        let t = f64::from_bits(target.load(Relaxed));
                        if t <= lb {
                            // The calling thread returns at this column at the latest.
                            break;
                        }
                        if bounds0[a] >= t {
                            // The calling thread skips this column too.
                            if tx.send((k, None)).is_err() {
                                break;
                            }
                            continue;
                        }
                        pool.extend(back_rx.try_iter());
                        let mut r = pool.pop().unwrap_or_default();
                        r.a = a;
                        lay.cuts(all, a, rows, rules, &mut r.cut_pos);
                        let now = || f64::from_bits(target.load(Relaxed));
                        let mut tick = |_: usize| if cancel.load(Relaxed) { Err(Halt::Interrupted) } else { Ok(()) };
                        if lay.right_pass::<O, W>(obj, th, rules, monotone, slots, hpass, &mut r, true, &now, &mut tick).is_err() {
                            pool.push(r);
                            break;
                        }
                        if let Err(e) = tx.send((k, Some(r))) {
                            pool.extend(e.0 .1);
                            break;
                        }
                    }
                    pool.extend(back_rx.try_iter());
                    pool
                });
                let out = main_ctx.run::<O, W>(Some((rx, back_tx, target, claim)), p, best, proved, col_bound, stop);
                cancel.store(true, Relaxed);
                let pool = h.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
                (out, pool)
            });
            *spare = pool_back;
            spare.append(&mut mine);
            // Enough for the passes one solve holds at once (the helper's in flight and
            // the calling thread's ahead), so that the spares do not pile up over solves.
            spare.truncate(SPARES);
            out
        };
        *roots += main.roots + helper.roots;
        main.roots = 0;
        helper.roots = 0;
        out
    }
}

/// The calling thread's share of [`Table::depth_two`].
struct Columns<'a> {
    lay: &'a Layout,
    /// Per slot, the sums of all members; and the set's totals.
    all: &'a [f64],
    totals: &'a [f64],
    pass: &'a mut Pass,
    /// Its own right pass, when no helper ran it.
    seq: &'a mut Right,
    /// Buffers for the right passes it runs ahead (at most [`AHEAD`] kept; the others
    /// go back to the helper).
    spare: &'a mut Vec<Right>,
    work: &'a mut usize,
    last_root: &'a mut usize,
    slots: usize,
}

/// The receiving end of a helper: its right passes with their index in the column order
/// (none for a column it skipped), the way back for their buffers, the target it reads,
/// and the next index whose right pass no thread has claimed.
type Helper<'h> = (Receiver<(usize, Option<Right>)>, Sender<Right>, &'h AtomicU64, &'h AtomicUsize);

/// Right passes the calling thread runs ahead of its left passes at most, while the
/// helper is still on the column it needs.
const AHEAD: usize = 4;

/// Spare right passes kept between solves: the helper's (its own, one in the channel,
/// one received) and the calling thread's ahead.
const SPARES: usize = 3 + AHEAD;

impl Columns<'_> {
    fn run<O: Objective, const W: usize>(
        &mut self,
        helper: Option<Helper<'_>>,
        p: &Solve<'_, O>,
        best: &mut SmallTree,
        proved: &mut f64,
        col_bound: &mut [f64],
        stop: &mut dyn FnMut() -> Option<Halt>,
    ) -> Result<(), Halt> {
        let Solve { obj, th, rows, lb, bound, order, rules } = *p;
        let lay = self.lay;
        let (n, m) = (lay.members.len(), lay.m);
        let monotone = rules.min_support <= 1.0;
        let data = th.numeric();
        let slots = self.slots;
        let work = &mut *self.work;
        let mut poll = |w: usize| poll_every(work, w, POLL_WORK, stop);
        // Right passes received or run ahead, by index in the column order.
        let mut got: Vec<Option<Option<Right>>> = if helper.is_some() { (0..order.len()).map(|_| None).collect() } else { vec![] };
        for (k, &(_, a)) in order.iter().enumerate() {
            // This column's right pass: from the helper, or run here (then below) when the
            // helper skipped it or is gone. While the helper is still on it, this thread
            // runs the next unclaimed column's ahead (at most AHEAD at a time), as the
            // helper would: against this thread's target now, never below the one it
            // holds when it reaches that column.
            let from_helper = match &helper {
                Some((rx, _, _, claim)) => loop {
                    if let Some(r) = got[k].take() {
                        break r;
                    }
                    match rx.try_recv() {
                        Ok((j, r)) => {
                            got[j] = Some(r);
                            continue;
                        }
                        Err(TryRecvError::Disconnected) => break None,
                        Err(TryRecvError::Empty) => {}
                    }
                    if got.iter().filter(|g| g.is_some()).count() < AHEAD {
                        let j = claim.fetch_add(1, Relaxed);
                        if j < order.len() {
                            let a = order[j].1;
                            let target = best.cost.min(bound);
                            got[j] = Some(if col_bound[a] >= target || target <= lb {
                                None
                            } else {
                                let mut r = self.spare.pop().unwrap_or_default();
                                r.a = a;
                                lay.cuts(self.all, a, rows, rules, &mut r.cut_pos);
                                lay.right_pass::<O, W>(obj, th, rules, monotone, slots, self.pass, &mut r, true, &|| target, &mut poll)?;
                                Some(r)
                            });
                            continue;
                        }
                    }
                    match rx.recv() {
                        Ok((j, r)) => got[j] = Some(r),
                        Err(_) => break None,
                    }
                }
                .filter(|r| r.a == a),
                None => None,
            };
            if best.cost.min(bound) <= lb {
                *proved = proved.min(lb);
                order[k..].iter().for_each(|&(_, j)| col_bound[j] = lb);
                return Ok(());
            }
            'col: {
                // What the trees rooted at column a were shown to cost at least.
                let mut col_min = f64::INFINITY;
                macro_rules! pruned {
                    ($x:expr) => {{
                        let x = $x;
                        *proved = proved.min(x);
                        col_min = col_min.min(x);
                    }};
                }
                if col_bound[a] >= best.cost.min(bound) {
                    // The similarity bound: no tree rooted here beats the target.
                    *proved = proved.min(col_bound[a]);
                    break 'col;
                }
                // Right to left: the right sides' optima, from the helper or run here.
                let target = best.cost.min(bound);
                let r: &Right = match &from_helper {
                    Some(r) => r,
                    None => {
                        self.seq.a = a;
                        lay.cuts(self.all, a, rows, rules, &mut self.seq.cut_pos);
                        lay.right_pass::<O, W>(obj, th, rules, monotone, slots, self.pass, self.seq, false, &|| target, &mut poll)?;
                        &*self.seq
                    }
                };
                let n_cuts = r.cut_pos.len();
                if n_cuts == 0 {
                    col_bound[a] = col_min;
                    break 'col;
                }
                // Where the pass ends at this target: every cut to the left of one whose
                // right side reaches it has a right side at least as dear.
                let (mut first, mut ended) = (0, r.low);
                if monotone {
                    if let Some(i) = (r.low..n_cuts).rev().find(|&i| r.right[i].0 >= target) {
                        pruned!(target);
                        (first, ended) = (i + 1, i);
                    }
                }
                debug_assert!(first > 0 || r.low == 0, "a right pass ended before its target");
                if first >= n_cuts {
                    col_bound[a] = col_min;
                    break 'col;
                }
                // Least right side from each cut on.
                let mut least_right = vec![f64::INFINITY; n_cuts + 1];
                for i in (first..n_cuts).rev() {
                    least_right[i] = least_right[i + 1].min(r.right[i].0);
                }
                // Left to right: the left sides, each searched below the target less its
                // right (summed afresh from the first member, so that their sums do not
                // depend on where the right pass stopped), columns first in the order
                // the right pass left.
                let pass = &mut *self.pass;
                if from_helper.is_some() {
                    let at = (n_cuts - 1 - ended) * m;
                    pass.col_order.clear();
                    pass.col_order.extend_from_slice(&r.orders[at..at + m]);
                }
                // Where the sums are whole numbers (exact in any order), the left side at
                // the right pass's last cut is the whole set less its right side, when
                // subtracting the value sums costs less than summing the members.
                let resume = lay.derived && r.low < n_cuts && r.cut_pos[r.low] * m * lay.w > slots;
                let mut start = 0;
                if resume {
                    let (rp, rt) = match &from_helper {
                        Some(r) => (&r.part[..], &r.tot[..]),
                        None => (&[][..], &[][..]),
                    };
                    if rp.is_empty() {
                        // This thread's own pass holds the right side.
                        pass.part.iter_mut().zip(self.all).for_each(|(p, a)| *p = a - *p);
                        pass.side_tot.iter_mut().zip(self.totals).for_each(|(p, a)| *p = a - *p);
                    } else {
                        pass.part.clear();
                        pass.part.extend(self.all.iter().zip(rp).map(|(a, p)| a - p));
                        pass.side_tot.clear();
                        pass.side_tot.extend(self.totals.iter().zip(rt).map(|(a, p)| a - p));
                    }
                    pass.col_lb.clear();
                    pass.col_lb.resize(m, f64::NEG_INFINITY);
                    start = r.cut_pos[r.low];
                    poll(slots)?;
                } else {
                    pass.clear_side(lay, slots);
                }
                let mut left_floor = 0.0f64;
                for i in first..n_cuts {
                    let pos = r.cut_pos[i];
                    let target = best.cost.min(bound);
                    if target <= lb {
                        pruned!(lb);
                        col_bound[a] = col_min;
                        order[k + 1..].iter().for_each(|&(_, j)| col_bound[j] = lb);
                        return Ok(());
                    }
                    if monotone && left_floor + least_right[i] >= target {
                        // Left sides only grow dearer: no cut from here on beats the target.
                        pruned!(target);
                        break;
                    }
                    let (rc, r_split) = r.right[i];
                    if rc >= target || (monotone && left_floor + rc >= target) {
                        // The left side here costs at least `left_floor` (left sides only
                        // grow dearer): no tree at this cut beats the target.
                        pruned!(target);
                        continue;
                    }
                    // The left side at this cut: the members since the last cut read
                    // added, or the whole set less the right side copied here.
                    let snap = r.snap_of.get(i).copied().unwrap_or(NO_SNAP);
                    if snap != NO_SNAP && lay.snapshot_pays(pos - start, slots) {
                        let len = lay.w + slots;
                        let copy = &r.snaps[snap as usize * len..(snap as usize + 1) * len];
                        let (tot, part) = copy.split_at(lay.w);
                        pass.side_tot.iter_mut().zip(self.totals).zip(tot).for_each(|((p, a), r)| *p = a - r);
                        pass.part.iter_mut().zip(self.all).zip(part).for_each(|((p, a), r)| *p = a - r);
                        poll(slots)?;
                    } else {
                        lay.grow::<W>(pass, a, start, pos);
                        poll((pos - start) * m)?;
                    }
                    start = pos;
                    pass.roots += 1;
                    let cap = target - rc;
                    let (l, read) = lay.best_side(obj, pass, cap, monotone, rules, th);
                    poll(read)?;
                    if monotone {
                        left_floor = left_floor.max(l.cost.min(cap));
                    }
                    let cost = l.cost + rc;
                    if l.cost < cap && cost < best.cost {
                        let root = th.split_of(a, data.rank(lay.members[lay.cols[a * n + pos - 1] as usize] as usize, a));
                        *best = SmallTree { cost, split: Some((root, l.split, r_split)) };
                        *self.last_root = a;
                        col_min = col_min.min(cost);
                        if let Some((_, _, t, _)) = &helper {
                            t.store(best.cost.min(bound).to_bits(), Relaxed);
                        }
                    } else {
                        pruned!(target);
                    }
                }
                col_bound[a] = col_min;
            }
            if let (Some(r), Some((_, back, _, _))) = (from_helper, &helper) {
                if self.spare.len() < AHEAD {
                    self.spare.push(r);
                } else {
                    let _ = back.send(r);
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::objective::{CostSensitive, Misclassification};
    use crate::sweep::Sweep;
    use crate::testing::{small_tree_cost, threshold_brute};
    use proptest::prelude::*;
    use treeopt_core::NumericDataset;

    fn set_of(data: &NumericDataset, groups: &[usize]) -> Vec<u64> {
        let mut set = vec![0u64; data.words()];
        groups.iter().for_each(|&g| set[g / 64] |= 1 << (g % 64));
        set
    }

    /// One kernel over a sequence of sets (its similarity history carries over): each
    /// answer against the sweep kernel and brute force, with and without a bound; and a
    /// kernel with a helper thread on every set (reading columns value by value) gives
    /// the same answers, bit for bit.
    fn check_sequence<O: Objective>(task: &Task<O, Thresholds>, data: &NumericDataset, sets: &[Vec<usize>], rules: &Rules, bounds: &[f64]) -> Result<(), TestCaseError> {
        let th = &task.splits;
        let mut table = Table::new(task, th, 1);
        let mut helped = Table::new(task, th, 2);
        helped.helper_min_work = 0;
        // (And columns read value by value in `prepare` wherever the set is large enough.)
        helped.value_walk = 0;
        let mut sweep = Sweep::new(task, th);
        let mut never = || None;
        for (k, groups) in sets.iter().enumerate() {
            // (The search never asks about a set below the support: its parent's split
            // would not have it.)
            if groups.iter().map(|&g| data.group_rows(g) as f64).sum::<f64>() < rules.min_support.max(1.0) {
                continue;
            }
            let set = set_of(data, groups);
            let want = threshold_brute(&task.obj, th, data, groups, 2, rules.penalty, rules.min_support);
            let (swept, _) = sweep.solve_above(task, th, &set, 2, rules, f64::NEG_INFINITY, f64::INFINITY, usize::MAX, &mut never).unwrap();
            prop_assert!((swept.cost - want).abs() < 1e-9);
            // A bound relative to the optimum: below, at, just above, far above.
            let bound = want + bounds[k % bounds.len()];
            table.last = None;
            let (got, proved) = table.solve_above(task, th, &set, rules, f64::NEG_INFINITY, bound, usize::MAX, &mut never).unwrap();
            helped.last = None;
            let (got2, proved2) = helped.solve_above(task, th, &set, rules, f64::NEG_INFINITY, bound, usize::MAX, &mut never).unwrap();
            prop_assert!(got2.cost.to_bits() == got.cost.to_bits() && got2.split == got.split && proved2.to_bits() == proved.to_bits(), "set {}: with a helper {:?} {}, alone {:?} {}", k, got2, proved2, got, proved);
            let again = small_tree_cost(&task.obj, groups, &got, rules.penalty, rules.min_support, |g| data.group_rows(g) as f64, |g, s| th.goes_right(g, s as usize));
            prop_assert!((again - got.cost).abs() < 1e-9, "set {}: tree costs {}, kernel said {}", k, again, got.cost);
            prop_assert!(proved <= got.cost + 1e-9 && proved <= want + 1e-9, "set {}: proved {} above the optimum {}", k, proved, want);
            if proved >= got.cost {
                prop_assert!((got.cost - want).abs() < 1e-9, "set {}: bound {}, table {} sweep {} brute force {}", k, bound, got.cost, swept.cost, want);
            } else {
                prop_assert!(proved >= bound - 1e-9 && got.cost >= bound - 1e-9, "set {}: bound {}, proved {}, table {}", k, bound, proved, got.cost);
            }
        }
        Ok(())
    }

    /// A numeric dataset from drawn cells: values from a few levels (many ties).
    fn dataset(rows: usize, m: usize, classes: usize, cells: &[u8], labels: &[u8], weights: &[u8], unit: bool) -> NumericDataset {
        let x: Vec<f64> = (0..rows * m).map(|i| cells[i % cells.len()] as f64 * 0.5 - 1.0).collect();
        let y: Vec<u32> = (0..rows).map(|i| labels[i % labels.len()] as u32 % classes as u32).collect();
        let w: Vec<f64> = (0..rows).map(|i| if unit { 1.0 } else { 0.5 + (weights[i % weights.len()] % 4) as f64 }).collect();
        NumericDataset::new(&x, rows, m, &y, classes, Some(&w)).unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]
        /// Depth two from value sums equals the sweep kernel and brute force on small
        /// instances with ties, weights, 2-3 classes, penalties, minimum supports and
        /// misclassification costs, over sequences of nested and overlapping sets (the
        /// similarity bound carries over between them), under bounds below and above the
        /// optimum.
        #[test]
        fn value_sums_match_the_sweep_and_brute_force(
            rows in 4usize..30,
            m in 1usize..5,
            classes in 2usize..4,
            levels in 2u8..7,
            cells in proptest::collection::vec(0u8..16, 1..120),
            labels in proptest::collection::vec(0u8..3, 1..30),
            weights in proptest::collection::vec(0u8..4, 1..30),
            unit in any::<bool>(),
            penalty in prop_oneof![Just(0.0), Just(0.5), Just(1.0), 0.0f64..3.0],
            min_support in prop_oneof![Just(1.0), Just(1.0), Just(2.0), Just(3.0)],
            costed in any::<bool>(),
            masks in proptest::collection::vec(any::<u32>(), 1..6),
        ) {
            let cells: Vec<u8> = cells.iter().map(|c| c % levels).collect();
            let data = dataset(rows, m, classes, &cells, &labels, &weights, unit);
            let rules = Rules { penalty, min_support };
            let n = data.n_groups();
            let mut sets = vec![(0..n).collect::<Vec<usize>>()];
            for &mask in &masks {
                sets.push((0..n).filter(|&g| mask >> (g % 32) & 1 == 1 || g % 7 == 0).collect());
            }
            let bounds = [f64::INFINITY, -1.0, 0.0, 1e-6, 2.0];
            if costed {
                let cost: Vec<f64> = (0..classes * classes).map(|i| if i / classes == i % classes { 0.0 } else { 0.5 + ((i * 7) % 5) as f64 * 0.75 }).collect();
                let task = Task { data: &data, obj: CostSensitive::new(&data, &cost).unwrap(), splits: Thresholds::new(&data) };
                check_sequence(&task, &data, &sets, &rules, &bounds)?;
            } else {
                let task = Task { data: &data, obj: Misclassification::new(&data), splits: Thresholds::new(&data) };
                check_sequence(&task, &data, &sets, &rules, &bounds)?;
            }
        }
    }

    #[test]
    fn pays_on_few_values_per_column_only() {
        // fico-like: 5,000 rows, columns of at most a few hundred values.
        assert!(pays(5000, [2, 20, 60, 526, 237].into_iter()));
        // Mostly distinct columns (raisin-like), and sets too small to gain.
        assert!(!pays(900, [900, 890, 880].into_iter()));
        assert!(!pays(40, [2, 3].into_iter()));
    }

    #[test]
    fn stops_when_asked_and_refuses_a_budget_too_small() {
        let rows = 20000;
        let mut s = 5u64;
        let mut next = || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (s >> 33) as usize
        };
        let x: Vec<f64> = (0..rows * 4).map(|_| (next() % 200) as f64).collect();
        let y: Vec<u32> = (0..rows).map(|_| (next() % 2) as u32).collect();
        let data = NumericDataset::new(&x, rows, 4, &y, 2, None).unwrap();
        let task = Task { data: &data, obj: Misclassification::new(&data), splits: Thresholds::new(&data) };
        let rules = Rules { penalty: 0.0, min_support: 1.0 };
        let mut table = Table::new(&task, &task.splits, 1);
        let all = data.all_groups();
        let mut stop = || Some(crate::Status::TimeLimit);
        assert_eq!(table.solve_above(&task, &task.splits, all.words(), &rules, f64::NEG_INFINITY, f64::INFINITY, usize::MAX, &mut stop).unwrap_err(), crate::Status::TimeLimit);
        let mut never = || None;
        assert_eq!(table.solve_above(&task, &task.splits, all.words(), &rules, f64::NEG_INFINITY, f64::INFINITY, 1000, &mut never).unwrap_err(), crate::Status::MemoryLimit);
    }
}
