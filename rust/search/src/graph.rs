//! The dependency-graph search shared by treeopt's GOSDT and DL8.5 solvers.
//!
//! Objective, in weight units: the loss of an [`Objective`] policy (misclassified weight,
//! or its cost under a cost matrix) + a penalty per leaf, optionally
//! under a depth limit and a minimum number of rows per leaf. Every subproblem (capture
//! set of equivalence classes, remaining depth) is one record of the dependency graph
//! holding a proven lower bound and the cost of the best tree known; bounds flow from
//! children to parents until the root's bounds meet (GOSDT, Lin et al. 2020). The graph is
//! explored depth first with the parent's remaining budget passed down to each child
//! (the branch and bound of DL8.5 and MurTree), so every expansion prunes against the
//! best tree already known; subproblems with two levels left are solved exactly by a
//! depth-two kernel: from pairwise counts on 0/1 columns ([`crate::depth2`]), by sweeps
//! over sorted orders on numeric columns ([`crate::sweep`], which may instead prove that
//! nothing beats the budget). Bounds used:
//!
//! * equivalent points (OSDT Thm B.2): rows sharing a feature vector cannot be
//!   separated, so their minority weight is lost by every tree;
//! * one-step look-ahead (Lemma 3.2): a split costs at least its children's lower bounds,
//!   and a subproblem that can still split needs at least two leaves;
//! * an objective's own bound from a subproblem's groups ([`Objective::set_bound`]):
//!   under squared error, OSRT's k-means equivalent-points bound (on new subproblems
//!   without a depth limit; under one, on both children of a split about to be
//!   searched, against their budgets; an expansion stops once its best tree meets it);
//! * STreeD's similarity bound in the depth-two kernel: the optimum of a recently
//!   solved set, less what the groups it has and this set lacks can add to its leaves
//!   ([`Objective::insertion_cost`]);
//! * leaf support and incremental accuracy (Thms 3.3 and 3.4): a subproblem whose leaf
//!   misclassifies at most one penalty more than its equivalent-points bound can never
//!   gain from a split (for two classes this covers every node of support below 2λ),
//!   so it is closed as a leaf without being expanded.
//!
//! Lower-bound guessing (McTavish et al. 2022, §4.3 and appendix G): given the weight
//! each row loses under a reference model, a subproblem's search bound becomes the
//! reference's loss on it plus one leaf; a subproblem whose leaf is within one penalty of
//! that guess is closed as a leaf, and one whose best tree reaches its bound counts as
//! solved. The proven bound is kept beside it, so the certificate stays honest.
//!
//! The search is generic over what it minimises ([`Objective`]) and what a split is
//! ([`SplitFamily`]); both are monomorphised. GOSDT and DL8.5 use (cost-sensitive)
//! misclassification, or squared error ([`run_regression`]), over 0/1 columns or over
//! the (column, threshold) splits of numeric columns. The pairwise-count kernel serves 0/1 columns only (it needs each group's
//! list of right splits, and pairs of thresholds grow with their square); thresholds
//! go to the sweep kernel, except under lower-bound guessing, where the search solves
//! their subproblems of two levels too. Between the thresholds of one column the search
//! prunes by ConTree's neighbourhood argument (minimum leaf support one): moving mass
//! `w` across a split changes the best tree under it by at most `w` times the
//! objective's [`Objective::max_unit_loss`], so a threshold near one proven to cost
//! well above the bound is skipped; children of such thresholds are searched with a
//! slack past the bound so that these proofs have room to prune.
//!
//! Ties between equally good splits go to the split met first in a fixed order (lowest
//! two-leaf cost, then lowest feature index; with neighbourhood pruning, column by column
//! in order of their best split's impurity, each column's thresholds in the order of its
//! interval search), so results are reproducible bit for bit.

use crate::boxkey::BoxKeys;
use crate::budget::{Budget, Limits, Monitor, Progress};
use crate::store::{Store, LEAF};
use crate::depth2::{Depth2, SmallTree};
use crate::sweep::Sweep;
use crate::table::{self, Table};
use crate::objective::{stats_totals, CostSensitive, Misclassification, Objective, SquaredError};
use crate::rules::{side, Rules, Side};
use crate::split::{SplitFamily, Task, Thresholds, ZeroOneColumns};
use crate::{RecordedSplit, SearchResult, Stats, Status};
use treeopt_core::bitset::{add_column_counts, for_each_one, popcount, with_popcount};
use treeopt_core::{BinaryDataset, Error, Groups, Node, NumericDataset, Result, Tree};

/// Remaining depth of subproblems when no depth limit applies.
const UNLIMITED: u32 = u32::MAX;

/// Bytes of one entry of [`Solver::small_trees`] (key, tree and control byte, with the
/// table's spare room).
const SMALL_TREE_BYTES: usize = 24;

/// Parameters of the dependency-graph search: GOSDT's, and the form DL8.5's
/// [`crate::Dl85Config`] reduces to (a depth limit, no split log).
#[derive(Clone, Debug, Default)]
pub struct GosdtConfig {
    /// Penalty per leaf, as a fraction of the total weight (λ of the paper).
    pub regularization: f64,
    /// Maximum depth in scikit-learn's sense (a single leaf has depth 0).
    pub max_depth: Option<usize>,
    /// Minimum number of rows in every leaf (0 and 1: no minimum).
    pub min_samples_leaf: usize,
    /// Time and memory limits.
    pub limits: Limits,
    /// Lower-bound guessing: per input row, the weight the reference model misclassifies
    /// (the row's weight where the reference is wrong, else 0).
    pub reference_errors: Option<Vec<f64>>,
    /// Log every (subproblem, split) the search bounds, with its bounds, in the result
    /// (for a Rashomon set; off by default, and then free). Only subproblems the graph
    /// search expands log their splits: not those solved whole by the depth-two kernel
    /// (two levels left under a depth limit), nor those proved optimal before expansion.
    pub record_splits: bool,
    /// Cost-sensitive misclassification: the row-major `n_classes x n_classes` matrix
    /// whose entry `[y, k]` is the cost of predicting class `k` for a row of class `y`
    /// (zero diagonal). `None` counts every error as 1 (the matrix `1 - I`). With
    /// lower-bound guessing, `reference_errors` should then hold each row's cost under
    /// the reference model (its weight times the cost of the reference's prediction).
    pub misclassification_cost: Option<Vec<f64>>,
}

/// A non-trivial split of the subproblem being expanded.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    feature: u32,
    /// Both sides close as leaves without search (the split is solved by its leaves).
    exact: bool,
    /// Search bound on the cost of the best tree rooted at this split.
    lb: f64,
    /// Proven bound on it.
    proven: f64,
    /// Cost of the best tree known rooted at this split (at first, two leaves: the
    /// exploration order on 0/1 columns).
    ub: f64,
    /// Mass (summed statistics) it sends left.
    mass: f64,
    /// Search bounds on the best trees of its left and right children (at first their
    /// sides' bounds), raised by what the other thresholds of its run proved.
    llb: f64,
    rlb: f64,
}

// A level holds one candidate per split of the run it is searching (with runs of
// thresholds, the thresholds of one column; else every split): keep it small.
const _: () = assert!(std::mem::size_of::<Candidate>() == 56);

/// What a subproblem's splits of one run (the thresholds of one column; without runs,
/// every split) amount to before any is searched: enough to order the runs, to bound
/// the subproblem and to close it with an exact split, without holding a candidate per
/// split of the other runs.
#[derive(Clone, Copy, Debug)]
struct RunSummary {
    /// The splits of the run, `first..end`.
    first: u32,
    end: u32,
    /// With runs, the least impurity ([`Objective::impurity`]) of a split of the run:
    /// runs are searched in this order.
    impurity: f64,
    /// Least search and proven bounds of its candidates, and least search bound of
    /// those that are not exact (the run needs no search when it reaches the budget).
    min_lb: f64,
    min_proven: f64,
    min_open_lb: f64,
    /// The first of its exact candidates (in search order) of least cost, if any.
    exact: Option<(f64, u32)>,
    /// Its candidate of least two-leaf cost (ties: the lowest split), the greedy stump.
    stump: (f64, u32),
}

impl RunSummary {
    fn new(first: u32, end: u32) -> Self {
        let inf = f64::INFINITY;
        RunSummary { first, end, impurity: inf, min_lb: inf, min_proven: inf, min_open_lb: inf, exact: None, stump: (inf, u32::MAX) }
    }

    /// Takes candidate `c` (met in search order) into account.
    fn add(&mut self, c: &Candidate) {
        self.min_lb = self.min_lb.min(c.lb);
        self.min_proven = self.min_proven.min(c.proven);
        if c.exact {
            if self.exact.map_or(true, |(lb, _)| c.lb < lb) {
                self.exact = Some((c.lb, c.feature));
            }
        } else {
            self.min_open_lb = self.min_open_lb.min(c.lb);
        }
        if c.ub.total_cmp(&self.stump.0).then(c.feature.cmp(&self.stump.1)).is_lt() {
            self.stump = (c.ub, c.feature);
        }
    }
}

/// Scratch space for one level of the recursion, reused across expansions: the set
/// expanded and, per split of the run loaded (see [`Solver::load_run`]), the sums of
/// its right side (its left side is the rest), from which a candidate's sides are
/// computed when they are needed.
struct Level {
    set: Vec<u64>,
    child: Vec<u64>,
    /// With box keys ([`BoxKeys`]), the key of the record expanded and of the child
    /// last formed (empty otherwise: the sets are the keys).
    key: Vec<u64>,
    child_key: Vec<u64>,
    totals: Vec<f64>,
    /// The set's equivalent-points floor, rows and reference loss.
    minority: f64,
    rows: f64,
    reference_total: f64,
    left_totals: Vec<f64>,
    /// The first split of the run loaded (after [`Solver::bound_splits`], a run of the
    /// level's set): the per-split sums below are indexed from it.
    base: usize,
    right_weights: Vec<f64>,
    right_minority: Vec<f64>,
    /// Rows sent right (a count: a split parts the set when it is neither 0 nor all of
    /// the set's rows, as every group holds a row, and nested splits part it alike when
    /// they send as many rows right).
    right_rows: Vec<u32>,
    right_reference: Vec<f64>,
    /// The candidates of the run loaded, in search order.
    candidates: Vec<Candidate>,
    /// The runs of the set that have candidates, in search order.
    runs: Vec<RunSummary>,
    /// The set and depth whose totals and runs the level holds (`bounded_depth` 0:
    /// none): [`Solver::bound_splits`] on them again has nothing to recompute (the
    /// greedy tree bounds the root's splits just before the search asks for them).
    bounded: Vec<u64>,
    bounded_depth: u32,
}

impl Level {
    /// Bytes a level holds for this task, whose runs hold at most `run` splits (each
    /// level holds the sums and candidates of one run at a time).
    /// (The reference loss per split is kept only when `guessing`.)
    fn bytes_for<O: Objective, S: SplitFamily>(t: &Task<O, S>, run: usize, n_runs: usize, guessing: bool, key_words: usize) -> usize {
        let c = t.obj.n_stats();
        24 * t.data.words() + 16 * key_words + 16 * c + 8 * run * c + (12 + 8 * guessing as usize) * run + run * std::mem::size_of::<Candidate>() + n_runs * std::mem::size_of::<RunSummary>()
    }

    /// The left and right sides of split `f` (of the run loaded) of the set last
    /// passed over, whose children have `depth` levels left.
    fn sides<O: Objective>(&mut self, obj: &O, f: usize, depth: u32, rules: &Rules, guessing: bool) -> (Side, Side) {
        let c = self.totals.len();
        let i = f - self.base;
        let rw = &self.right_weights[i * c..(i + 1) * c];
        for ((l, t), r) in self.left_totals.iter_mut().zip(&self.totals).zip(rw) {
            *l = t - r;
        }
        let rr = if guessing { self.right_reference[i] } else { 0.0 };
        let (rm, rows) = (self.right_minority[i], self.right_rows[i] as f64);
        let right = side(obj, rw, rm, guessing.then_some(rr), rows, depth, rules);
        let left = side(obj, &self.left_totals, self.minority - rm, guessing.then(|| self.reference_total - rr), self.rows - rows, depth, rules);
        (left, right)
    }

    /// Sums the right sides of splits `first..first + len` of the set by a loop over its
    /// groups (`every`: the run is every split).
    #[allow(clippy::too_many_arguments)]
    fn sum_sides<O: Objective, S: SplitFamily>(&mut self, obj: &O, splits: &S, data: &Groups, reference: Option<&[f64]>, first: usize, len: usize, every: bool) {
        let c = obj.n_stats();
        let lv = self;
        for_each_one(&lv.set, |g| {
            let cw = obj.group_stats(g);
            let mn = obj.group_floor(g);
            let re = reference.map_or(0.0, |r| r[g]);
            let nr = data.group_rows(g);
            let mut add = |f: u32| {
                let i = f as usize - first;
                for (t, w) in lv.right_weights[i * c..(i + 1) * c].iter_mut().zip(cw) {
                    *t += w;
                }
                lv.right_minority[i] += mn;
                if reference.is_some() {
                    lv.right_reference[i] += re;
                }
                lv.right_rows[i] += nr;
            };
            if every {
                splits.for_each_last_right(g, add);
            } else if let Some(f) = splits.last_right_in(g, first) {
                add(f);
            }
        });
        for i in (1..len).rev() {
            if splits.nested_in_previous(first + i) {
                for k in 0..c {
                    lv.right_weights[(i - 1) * c + k] += lv.right_weights[i * c + k];
                }
                lv.right_minority[i - 1] += lv.right_minority[i];
                if reference.is_some() {
                    lv.right_reference[i - 1] += lv.right_reference[i];
                }
                lv.right_rows[i - 1] += lv.right_rows[i];
            }
        }
    }

    /// Rows split `f` (of the run loaded) sends right.
    #[inline]
    fn right_rows_of(&self, f: usize) -> u32 {
        self.right_rows[f - self.base]
    }

    fn new<O: Objective, S: SplitFamily>(t: &Task<O, S>, run: usize, guessing: bool, key_words: usize) -> Self {
        let (c, data) = (t.obj.n_stats(), t.data);
        Level {
            set: vec![0; data.words()],
            child: vec![0; data.words()],
            key: vec![0; key_words],
            child_key: vec![0; key_words],
            totals: vec![0.0; c],
            minority: 0.0,
            rows: 0.0,
            reference_total: 0.0,
            left_totals: vec![0.0; c],
            base: 0,
            right_weights: vec![0.0; run * c],
            right_minority: vec![0.0; run],
            right_rows: vec![0; run],
            right_reference: vec![0.0; if guessing { run } else { 0 }],
            candidates: Vec::with_capacity(run),
            runs: Vec::new(),
            bounded: vec![0; data.words()],
            bounded_depth: 0,
        }
    }
}

/// The groups as bit vectors for [`Solver::load_run`], when every group's statistics,
/// equivalent-points floor and row count are small whole numbers: per split, the groups
/// it sends right; per *plane* (a value — statistic `k < c`, the floor `c` or the rows
/// `c + 1` — and a bit `p` of it, of weight 2^p), the groups whose value has that bit.
/// A value's sum over the groups of a set sent right by a split is then the sum over
/// its planes of 2^p x the population count of set & split & plane, exactly the sum the
/// per-group loop adds up (whole numbers below 2^53 add exactly in any order).
struct SideBits {
    words: usize,
    /// Per split (`splits x words`), the groups it sends right.
    columns: Vec<u64>,
    /// Per plane, its value and weight, and (`planes x words`) its groups.
    planes: Vec<(usize, u32)>,
    masks: Vec<u64>,
    /// Every group's rows are its statistics' sum (unweighted counts): the rows have no
    /// planes, and are summed with the statistics.
    rows_are_stats: bool,
    /// Scratch: the words of the set that hold groups; a plane's words met with the set,
    /// the live ones among them, and the splits' counts in it.
    live: Vec<u32>,
    met: Vec<u64>,
    plane_live: Vec<u32>,
    counts: Vec<u32>,
}

/// Word operations of [`SideBits::sums`] taken to cost as much as one addition of the
/// per-group loop.
const SIDE_UPDATE_WORDS: f64 = 2.0;

/// Bits of a value at most, for [`SideBits`].
const SIDE_PLANES: u32 = 16;

/// Bytes of [`SideBits`] at most (the splits' bits and every plane a value's kind can
/// have): beyond, building them takes longer than the loads they would serve, and a fit
/// whose search ends at once (300 classes on 100,000 rows: no split can pay) would hold
/// megabytes of bits it never reads.
const SIDE_BYTES: usize = 2 << 20;

impl SideBits {
    /// The bits of the task, or `None` when a value is negative, fractional or needs
    /// more than [`SIDE_PLANES`] bits, or the bits could take more than `room` bytes
    /// or [`SIDE_BYTES`], or the splits are thresholds of
    /// numeric columns: there a split's groups take a pass over the set's groups and
    /// the runs of a column's thresholds are summed at each group's last right split
    /// only, so the bits cost more than they save (segment, GOSDT d2: 24 ms without
    /// them, 109 ms with; magic d2: 0.5 s, 17.6 s with 450 MB of them uncapped).
    fn new<O: Objective, S: SplitFamily>(t: &Task<O, S>, room: usize) -> Option<SideBits> {
        let (n, m, c) = (t.data.n_groups(), t.splits.n_splits(), t.obj.n_stats());
        let words = n.div_ceil(64);
        let too_big = (m + (c + 2) * SIDE_PLANES as usize) * words * 8 > room.min(SIDE_BYTES);
        if n == 0 || m == 0 || too_big || t.splits.as_thresholds().is_some() {
            return None;
        }
        // Each group's values (its statistics, floor and rows) read once, as small whole
        // numbers (below 2^16: a 32-bit conversion), for the tops and then the planes.
        let kinds = c + 2;
        let mut values: Vec<u32> = Vec::with_capacity(n * kinds);
        let mut top = vec![0u32; kinds];
        let mut rows_are_stats = true;
        for g in 0..n {
            let (floor, rows) = (t.obj.group_floor(g), t.data.group_rows(g) as f64);
            let mut stats = 0u64;
            for (v, most) in t.obj.group_stats(g).iter().copied().chain([floor, rows]).zip(top.iter_mut()) {
                if !(v >= 0.0) || !treeopt_core::dataset::is_whole(v) || v >= (1u64 << SIDE_PLANES) as f64 {
                    return None;
                }
                let v = v as u32;
                *most = (*most).max(v);
                values.push(v);
                stats += v as u64;
            }
            // The sum above took the floor and the rows too.
            let (floor, rows) = (values[values.len() - 2] as u64, values[values.len() - 1] as u64);
            rows_are_stats &= stats - floor - rows == rows;
        }
        let kept = |k: usize| k != c + 1 || !rows_are_stats;
        let planes: Vec<(usize, u32)> = (0..c + 2).filter(|&k| kept(k)).flat_map(|k| (0..SIDE_PLANES).map(move |p| (k, p))).filter(|&(k, p)| top[k] >> p != 0).collect();
        // A value's bits are among its kind's top's: each has its plane.
        let mut plane_of = vec![usize::MAX; (c + 2) * SIDE_PLANES as usize];
        for (q, &(k, p)) in planes.iter().enumerate() {
            plane_of[k * SIDE_PLANES as usize + p as usize] = q;
        }
        let mut masks = vec![0u64; planes.len() * words];
        for (g, group) in values.chunks_exact(kinds).enumerate() {
            for (k, &v) in group.iter().enumerate().filter(|&(k, _)| kept(k)) {
                let mut v = v;
                while v != 0 {
                    let q = plane_of[k * SIDE_PLANES as usize + v.trailing_zeros() as usize];
                    masks[q * words + g / 64] |= 1 << (g % 64);
                    v &= v - 1;
                }
            }
        }
        let mut all = vec![0u64; words];
        for g in 0..n {
            all[g / 64] |= 1 << (g % 64);
        }
        let mut columns = vec![0u64; m * words];
        for f in 0..m {
            t.splits.partition(&all, f, true, &mut columns[f * words..(f + 1) * words]);
        }
        Some(SideBits { words, columns, planes, masks, rows_are_stats, live: Vec::new(), met: Vec::new(), plane_live: Vec::new(), counts: Vec::new() })
    }

    fn bytes(&self) -> usize {
        8 * (self.columns.capacity() + self.masks.capacity() + self.met.capacity() + self.planes.capacity()) + 4 * (self.live.capacity() + self.plane_live.capacity() + self.counts.capacity())
    }

    /// Notes the words of `set` that hold groups and returns the word operations
    /// summing `len` splits would take.
    fn work(&mut self, set: &[u64], len: usize) -> usize {
        self.live.clear();
        self.live.extend((0..self.words).filter(|&i| set[i] != 0).map(|i| i as u32));
        self.live.len() * self.planes.len() * len
    }

    /// Writes into `totals` the statistics summed over `set` (`totals.len()` of them) and
    /// returns its floor and rows: the per-group loop's whole-number sums, by counts.
    fn totals(&self, set: &[u64], totals: &mut [f64]) -> (f64, f64) {
        with_popcount(
            #[inline(always)]
            || {
                let (w, c) = (self.words, totals.len());
                let (mut minority, mut rows) = (0u64, 0u64);
                for (q, &(k, p)) in self.planes.iter().enumerate() {
                    let mask = &self.masks[q * w..(q + 1) * w];
                    let count = set.iter().zip(mask).map(|(s, x)| (s & x).count_ones() as u64).sum::<u64>() << p;
                    if k < c {
                        totals[k] += count as f64;
                        if self.rows_are_stats {
                            rows += count;
                        }
                    } else if k == c {
                        minority += count;
                    } else {
                        rows += count;
                    }
                }
                (minority as f64, rows as f64)
            },
        )
    }

    /// Writes the sums over the set [`SideBits::work`] noted of the right sides of
    /// splits `first..first + len` (statistics `c` per split, floors, rows). Plane by
    /// plane: where it meets the set in many of the set's words, over all the words in
    /// vectors ([`add_column_counts`]); else over those words only.
    #[allow(clippy::too_many_arguments)]
    fn sums(&mut self, set: &[u64], first: usize, len: usize, c: usize, weights: &mut [f64], minority: &mut [f64], rows: &mut [u32]) {
        let w = self.words;
        let columns = &self.columns[first * w..(first + len) * w];
        for (q, &(k, p)) in self.planes.iter().enumerate() {
            let mask = &self.masks[q * w..(q + 1) * w];
            self.met.clear();
            self.plane_live.clear();
            self.met.resize(w, 0);
            for &i in &self.live {
                let word = set[i as usize] & mask[i as usize];
                self.met[i as usize] = word;
                if word != 0 {
                    self.plane_live.push(i);
                }
            }
            if self.plane_live.is_empty() {
                continue;
            }
            self.counts.clear();
            self.counts.resize(len, 0);
            if 4 * self.plane_live.len() >= w {
                add_column_counts(columns, &self.met, &mut self.counts);
            } else {
                let (met, live) = (&self.met, &self.plane_live);
                with_popcount(
                    #[inline(always)]
                    || {
                        for (n, column) in self.counts.iter_mut().zip(columns.chunks_exact(w)) {
                            *n = live.iter().map(|&j| (column[j as usize] & met[j as usize]).count_ones()).sum();
                        }
                    },
                );
            }
            for (i, &count) in self.counts.iter().enumerate() {
                if k < c {
                    weights[i * c + k] += (count as u64 * (1 << p)) as f64;
                    if self.rows_are_stats {
                        rows[i] += count << p;
                    }
                } else if k == c {
                    minority[i] += (count as u64 * (1 << p)) as f64;
                } else {
                    rows[i] += count << p;
                }
            }
        }
    }
}

/// Whether a bound that may not pay for itself is worth asking, from how often it
/// pruned lately: while at least half of its recent asks pruned (a moving average over
/// about the last [`TrialRate::SPAN`] asks, starting optimistic), and otherwise once every
/// [`TrialRate::SPAN`] chances, so that the rate can recover when the search moves on to
/// subproblems where it prunes (typically once a good tree bounds the budgets).
#[derive(Clone, Copy, Debug)]
struct TrialRate {
    rate: f64,
    skipped: u32,
}

impl Default for TrialRate {
    fn default() -> Self {
        TrialRate { rate: 1.0, skipped: 0 }
    }
}

impl TrialRate {
    const SPAN: u32 = 8;

    fn ask(&mut self) -> bool {
        self.ask_while(0.5)
    }

    /// [`TrialRate::ask`] with another least rate than one half (for a trial that costs
    /// little against what it saves).
    fn ask_while(&mut self, least: f64) -> bool {
        if self.rate >= least || self.skipped + 1 >= Self::SPAN {
            self.skipped = 0;
            return true;
        }
        self.skipped += 1;
        false
    }

    fn record(&mut self, pruned: bool) {
        self.rate += (pruned as u32 as f64 - self.rate) / Self::SPAN as f64;
    }
}

/// The order in which the search evaluates the candidates of the run loaded. Without
/// runs (0/1 columns), as listed. On a run of thresholds (in ascending order), ConTree's
/// interval search: a queue of intervals of the run, each first shrunk past the
/// thresholds its ends already rule out (their bound has reached the search's), then
/// split at its middle threshold, which is evaluated; its two halves join the queue.
/// (The bounds of the thresholds are raised by what evaluated neighbours prove, see
/// [`Solver::search`].)
struct Bisection {
    runs: bool,
    /// The next candidate to hand out (without runs).
    next: usize,
    queue: std::collections::VecDeque<(usize, usize)>,
}

impl Bisection {
    /// The order over `n` candidates (one run of thresholds when `runs`).
    fn new(runs: bool, n: usize) -> Self {
        let mut queue = std::collections::VecDeque::new();
        if runs && n > 0 {
            queue.push_back((0, n - 1));
        }
        Bisection { runs, next: 0, queue }
    }

    /// The next candidate to evaluate under the search bound `bound`, with (runs) the
    /// mass from it to the farther end of its shrunk interval (0 without runs).
    fn next(&mut self, c: &[Candidate], bound: f64) -> Option<(usize, f64)> {
        if !self.runs {
            let k = self.next;
            self.next += 1;
            return (k < c.len()).then_some((k, 0.0));
        }
        let open = |x: &Candidate| !x.exact && x.lb < bound;
        while let Some((mut lo, mut hi)) = self.queue.pop_front() {
            while lo <= hi && !open(&c[lo]) {
                lo += 1;
            }
            while hi > lo && !open(&c[hi]) {
                hi -= 1;
            }
            if lo > hi {
                continue;
            }
            let mid = lo + (hi - lo) / 2;
            if mid > lo {
                self.queue.push_back((lo, mid - 1));
            }
            if mid < hi {
                self.queue.push_back((mid + 1, hi));
            }
            if open(&c[mid]) {
                return Some((mid, (c[mid].mass - c[lo].mass).max(c[hi].mass - c[mid].mass)));
            }
        }
        None
    }
}

/// A child of a candidate split: closed as a leaf, or a record of the store.
#[derive(Clone, Copy)]
enum Child {
    Leaf(Side),
    Record(u32),
}

/// Search bound, cost of the best known tree and proven bound of a child.
#[derive(Clone, Copy)]
struct Bounds {
    lb: f64,
    ub: f64,
    proven: f64,
}

impl Bounds {
    fn closed(&self) -> bool {
        self.lb >= self.ub
    }
}

/// The exact solver of subproblems with at most two levels left: pairwise counts for
/// 0/1 columns, sweeps over sorted orders for thresholds of numeric columns.
enum Kernel {
    Pairs(Depth2),
    Sweep(Sweep),
}

impl Kernel {
    fn bytes(&self) -> usize {
        match self {
            Kernel::Pairs(k) => k.bytes(),
            Kernel::Sweep(k) => k.bytes(),
        }
    }

    /// Gives back the room of the buffers that are only a cache.
    fn release(&mut self) {
        match self {
            Kernel::Pairs(k) => k.release_pairs(),
            Kernel::Sweep(k) => k.release(),
        }
    }
}

pub(crate) struct Solver<'a, 'm, M: Monitor, O: Objective, S: SplitFamily> {
    t: Task<'a, O, S>,
    rules: Rules,
    depth2: Kernel,
    /// With the sweep kernel, the value-sum kernel for sets of depth two whose columns
    /// hold few distinct values ([`table::pays`]).
    table: Option<Table>,
    store: Store,
    /// The store's keys: capture sets by their box (thresholds under a depth limit, see
    /// [`Solver::key_by_boxes`]), else (`None`) the capture bit-vectors themselves.
    boxes: Option<BoxKeys>,
    /// A capture set decoded from a box key.
    scratch: Vec<u64>,
    levels: Vec<Level>,
    /// Bytes the store, the levels and the depth-two kernel may hold together.
    limit: usize,
    /// Per level of the running search, the record being expanded and the split whose
    /// children are searched: a better tree found below is passed up at once, so the
    /// root always holds the best complete tree known.
    path: Vec<(u32, u32, Child, Child)>,
    budget: Budget<'m, M>,
    stopped: Option<Status>,
    expansions: u64,
    root: u32,
    /// Per group, the weight the reference model misclassifies (lower-bound guessing).
    reference: Option<Vec<f64>>,
    /// Subproblems with two levels left go to the depth-two kernel (pairwise counts
    /// when the split family lists its splits per group, sweeps for thresholds without
    /// a reference model); otherwise the search solves them too.
    kernel_on: bool,
    /// How often the objective's bound ([`Objective::set_bound`]) pruned the records of
    /// two levels it was asked about.
    depth_two_bound: TrialRate,
    /// How often the depth-two kernel's stump pass ([`Depth2::stump_pass`]) settled the
    /// records of two levels it was asked about.
    stump_pass: TrialRate,
    /// How often STreeD's similarity bound ([`Depth2::similarity_bound`]) settled the
    /// records of two levels it was asked about.
    similarity: TrialRate,
    /// Neighbourhood pruning between thresholds of a column, with the objective's loss
    /// per unit of mass moved: on when that exists, the leaf support is one and there is
    /// no reference model.
    neighbourhood: Option<f64>,
    /// The runs of splits a level loads one at a time (`first..end`): with
    /// neighbourhood pruning the runs of nested splits (each column's thresholds),
    /// else one run of every split (ordered as a whole by two-leaf cost); and the
    /// length of the longest.
    runs: Vec<(u32, u32)>,
    longest_run: usize,
    /// Per record of two levels that the depth-two kernel solved exactly, its optimal
    /// tree (root split and the children's, [`LEAF`] for none): the best tree is rebuilt
    /// from it instead of solving the set again. A cache, given back under the memory
    /// limit (then the kernel solves again).
    small_trees: std::collections::HashMap<u32, [u32; 3]>,
    /// Without a reference model, the groups as bits for the sides' sums when their
    /// values are small whole numbers ([`SideBits`]), and the splits that send a group
    /// right on average (the per-group loop's work per group over every split).
    /// Built at the first pass over a set's splits ([`Solver::side_bits_due`]): a fit
    /// whose subproblems of two levels the depth-two kernel solves has none, and building
    /// them was 0.6 M of car_evaluation d2's 4.4 M instructions in the core.
    side_bits: Option<SideBits>,
    right_per_group: f64,
    /// The bits were built or cannot be (a reference model, thresholds).
    side_bits_tried: bool,
    /// Per split, the class sums and rows it sends right, of the last subproblem whose
    /// stumps [`Solver::stump_sides`] listed.
    stump_sums: Vec<f64>,
    stump_rows: Vec<u32>,
    stump_above: Vec<u32>,
    /// With the value-sum kernel, whether it (rather than the sweep) holds the per-set
    /// buffers the two share ([`crate::sweep::Shared`]).
    table_holds: bool,
}

#[inline]
fn child_depth(depth: u32) -> u32 {
    if depth == UNLIMITED {
        UNLIMITED
    } else {
        depth - 1
    }
}

impl<'a, 'm, M: Monitor, O: Objective, S: SplitFamily> Solver<'a, 'm, M, O, S> {
    /// Makes sure the scratch space of `level` exists; false (and the search stops) when
    /// the memory limit has no room for it.
    fn level(&mut self, level: usize) -> bool {
        while self.levels.len() <= level {
            let need = self.level_bytes();
            if self.store.bytes() + self.other_bytes() + need > self.limit {
                // The kernel's pair sums and the solved trees are caches: give their
                // room back first.
                self.depth2.release();
                self.small_trees = Default::default();
                if let Some(t) = &mut self.table {
                    t.release();
                }
                self.note_external();
                if self.store.bytes() + self.other_bytes() + need > self.limit {
                    self.stopped.get_or_insert(Status::MemoryLimit);
                    return false;
                }
            }
            self.levels.push(Level::new(&self.t, self.longest_run, self.reference.is_some(), self.boxes.map_or(0, |b| b.words())));
            self.note_external();
        }
        true
    }

    /// Bytes one level holds.
    fn level_bytes(&self) -> usize {
        Level::bytes_for(&self.t, self.longest_run, self.runs.len(), self.reference.is_some(), self.boxes.map_or(0, |b| b.words()))
    }

    /// Tells the store the bytes held besides it, which count against the memory limit;
    /// without a limit nothing is counted (the count walks every buffer of the kernel:
    /// 3 % of a small Rashomon fit).
    fn note_external(&mut self) {
        if self.limit != usize::MAX {
            self.store.set_external(self.other_bytes());
        }
    }

    /// The bytes the kernels may hold: what the memory limit leaves the store and the
    /// levels, or `usize::MAX` without a limit (the kernels then count nothing).
    fn kernel_budget(&self) -> usize {
        if self.limit == usize::MAX {
            return usize::MAX;
        }
        self.limit.saturating_sub(self.store.bytes() + self.levels.len() * self.level_bytes())
    }

    /// Bytes held besides the store: the levels and the depth-two kernel.
    fn other_bytes(&self) -> usize {
        self.levels.len() * self.level_bytes() + self.depth2.bytes() + self.table.as_ref().map_or(0, Table::bytes) + SMALL_TREE_BYTES * self.small_trees.capacity() + self.side_bits.as_ref().map_or(0, SideBits::bytes) + 8 * self.scratch.capacity() + 8 * self.stump_sums.capacity() + 4 * (self.stump_rows.capacity() + self.stump_above.capacity())
    }

    /// Runs the depth-two kernel on `set` within the memory left by the store and the
    /// levels, polling the clock and the monitor as it goes. An `Err` is why it gave up
    /// (after a stop it gives up at once). With the tree comes a proven lower bound on
    /// the subproblem: the tree's cost when it is optimal, less when the kernel only
    /// proved that no tree costs less than `bound` (at least `bound` then).
    fn kernel(&mut self, set: Option<&[u64]>, id: u32, depth: u32, bound: f64) -> std::result::Result<(SmallTree, f64), Status> {
        self.kernel_above(set, id, depth, f64::NEG_INFINITY, bound)
    }

    /// [`Solver::kernel`] knowing that no tree of the subproblem costs less than `known`.
    fn kernel_above(&mut self, set: Option<&[u64]>, id: u32, depth: u32, known: f64, bound: f64) -> std::result::Result<(SmallTree, f64), Status> {
        let budget = self.kernel_budget();
        let (store, root, w, stopped) = (&self.store, self.root, self.t.data.total_weight(), self.stopped);
        let budget_clock = &mut self.budget;
        // On numeric columns a subtree of depth one is one pass over the set: finished
        // even after a stop, so that the tree of a stopped search is rebuilt as the
        // search accounted it. (The pairwise kernel sums pairs of columns even at depth
        // one, which on wide data takes long: it keeps answering stops.)
        let finish = depth == 1 && matches!(self.depth2, Kernel::Sweep(_));
        let mut stop = || {
            if finish {
                return None;
            }
            stopped.or_else(|| budget_clock.poll(|elapsed| progress(store, root, w, elapsed)))
        };
        if let Some(s) = stopped {
            if depth == 2 {
                return Err(s);
            }
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        let set = match set {
            Some(set) => set,
            None if self.boxes.is_none() => store.key(id),
            None => {
                Self::decode(&self.t, self.boxes, store, id, &mut scratch);
                &scratch[..]
            }
        };
        let out = match &mut self.depth2 {
            Kernel::Pairs(k) => {
                // STreeD's similarity bound: when a recent set's optimum shows that no tree
                // of this one costs less than the bound, no tree is built (infinite cost).
                // Asked while it settles more of the records it is asked about than one
                // ask costs against one kernel call: a scan of the few sets kept (words)
                // against pair sums over the set (groups x features^2, by an eighth for
                // the features a group has at 1).
                let asked = depth == 2 && bound.is_finite() && {
                    let n = self.t.splits.n_splits() as f64;
                    let size = set.iter().map(|w| w.count_ones()).sum::<u32>() as f64;
                    self.similarity.ask_while((16.0 * set.len() as f64 / (size * n * n / 8.0).max(1.0)).min(0.5))
                };
                let similar = if asked { k.similarity_bound(&self.t.obj, set) } else { f64::NEG_INFINITY };
                if asked {
                    self.similarity.record(similar >= bound);
                }
                if similar >= bound {
                    Ok((SmallTree { cost: f64::INFINITY, split: None }, similar))
                } else if let Some(out) = {
                    // The stump pass costs one pass over the groups' listed features, where
                    // the kernel sums their pairs: asked while it settles at least a quarter
                    // of the records it is asked about (breast cancer q3 d4: 3/4 of them,
                    // 4.55 G -> 2.36 G instructions; where it settles few, 1-3 % more).
                    let asked = depth == 2 && self.stump_pass.ask_while(0.25);
                    let out = if asked { k.stump_pass(&self.t, set, &self.rules, bound, budget) } else { None };
                    if asked {
                        self.stump_pass.record(out.is_some());
                    }
                    out
                } {
                    Ok(out)
                } else {
                    k.solve(&self.t, set, depth, &self.rules, budget, &mut stop).map(|small| (small, small.cost))
                }
            }
            Kernel::Sweep(k) => {
                let th = self.t.splits.as_thresholds().expect("the sweep kernel serves thresholds");
                let n = set.iter().map(|w| w.count_ones() as usize).sum::<usize>();
                let data = th.numeric();
                let on_table = self.table.is_some() && depth == 2 && table::pays(n, (0..data.n_columns()).map(|j| data.n_thresholds(j) + 1));
                // The two kernels never run at once: the one about to run takes the
                // per-set buffers both lay out from the other, so that they are held
                // once (occupancy d3: the value-sum kernel held 3.9 MB while the sweep
                // grew its own).
                if let Some(tk) = &mut self.table {
                    if on_table != self.table_holds {
                        k.shared().swap(tk.shared());
                        self.table_holds = on_table;
                    }
                }
                match &mut self.table {
                    Some(tk) if on_table => {
                        tk.solve_above(&self.t, th, set, &self.rules, known, bound, budget.saturating_sub(k.bytes()), &mut stop)
                    }
                    tk => {
                        let held = tk.as_ref().map_or(0, |tk| tk.bytes());
                        k.solve_above(&self.t, th, set, depth, &self.rules, known, bound, budget.saturating_sub(held), &mut stop)
                    }
                }
            }
        };
        self.scratch = scratch;
        self.note_external();
        out
    }

    /// Writes the capture set of record `id` into `out` (words of the groups): the
    /// groups inside its box, or its key itself.
    fn decode(t: &Task<'a, O, S>, boxes: Option<BoxKeys>, store: &Store, id: u32, out: &mut Vec<u64>) {
        out.resize(t.data.words(), 0);
        match (boxes, t.splits.as_thresholds()) {
            (Some(b), Some(th)) => b.set_of(th.numeric(), store.key(id), out),
            _ => out.copy_from_slice(store.key(id)),
        }
    }

    /// Loads record `id` into `level` to be expanded: its key and capture set.
    fn enter(&mut self, level: usize, id: u32) {
        let lv = &mut self.levels[level];
        match (self.boxes, self.t.splits.as_thresholds()) {
            (Some(b), Some(th)) => {
                lv.key.copy_from_slice(self.store.key(id));
                b.set_of(th.numeric(), &lv.key, &mut lv.set);
            }
            _ => lv.set.copy_from_slice(self.store.key(id)),
        }
    }

    /// The key of the child of the subproblem keyed `key` on side `right` of `split`,
    /// whose capture set is `set`.
    fn child_key(&self, key: &[u64], split: u32, right: bool, set: &[u64]) -> Vec<u64> {
        match (self.boxes, self.t.splits.as_thresholds()) {
            (Some(b), Some(th)) => {
                let (j, t) = th.locate(split as usize);
                let mut out = vec![0; b.words()];
                b.child(th.numeric(), key, j, t, right, set, &mut out);
                out
            }
            _ => set.to_vec(),
        }
    }

    /// The key of the root (every group, `all`).
    fn root_key(&self, all: &[u64]) -> Vec<u64> {
        match self.boxes {
            Some(b) => vec![0; b.words()],
            None => all.to_vec(),
        }
    }

    /// Keys the store by boxes ([`BoxKeys`]) when the splits are thresholds of numeric
    /// columns, the root has `depth < UNLIMITED` levels and a box is narrower than a
    /// capture bit-vector. Only before anything is stored, and only for a search that
    /// looks its subproblems up from the root down (not the Rashomon builder's lookups
    /// by capture set, nor the split log, which reports capture sets).
    fn key_by_boxes(&mut self, depth: u32) {
        debug_assert_eq!(self.store.len(), 0);
        let Some(th) = self.t.splits.as_thresholds() else { return };
        if depth == UNLIMITED || self.store.logs_splits() {
            return;
        }
        if let Some(b) = BoxKeys::new(th.numeric(), depth) {
            self.boxes = Some(b);
            self.store = Store::new(b.words(), Some(self.limit));
            self.scratch = vec![0; self.t.data.words()];
        }
    }

    /// Passes an improved best tree of the record searched at `level` up the path.
    fn propagate(&mut self, level: usize) {
        for l in (0..level.min(self.path.len())).rev() {
            let (pid, feature, left, right) = self.path[l];
            let cost = self.bounds(left).ub + self.bounds(right).ub;
            let rec = self.store.get_mut(pid);
            if cost < rec.ub {
                rec.ub = cost;
                rec.best = feature;
            } else {
                break;
            }
        }
    }

    /// One pass over the groups of `levels[level].set` for its totals, then the summary
    /// of every run of splits that parts it ([`RunSummary`]), in search order: runs by
    /// the least impurity of their splits, as ConTree orders its columns; without runs
    /// the one run of every split, left loaded (one pass over the groups in all). Each
    /// run is loaded in turn to be summarised, so a level holds the candidates of one
    /// run at a time (magic's root: 147k thresholds in ten columns, the longest 18k).
    fn bound_splits(&mut self, level: usize, depth: u32) {
        self.side_bits_due();
        let (data, obj) = (self.t.data, &self.t.obj);
        let reference = self.reference.as_deref();
        let lv = &mut self.levels[level];
        if lv.bounded_depth == depth && lv.bounded == lv.set {
            return;
        }
        lv.totals.fill(0.0);
        let (mut rows, mut minority, mut reference_total) = (0.0, 0.0, 0.0);
        // By population counts where the bits take fewer word operations than the loop
        // takes additions (the same whole-number sums; car_evaluation d4: 37 passes of
        // about 1,000 groups each, 1.1 M of the fit's 27 M instructions by the loop).
        let c = obj.n_stats();
        let by_bits = match &self.side_bits {
            Some(bits) if reference.is_none() => {
                let (planes, words) = (bits.planes.len(), lv.set.iter().filter(|&&w| w != 0).count());
                (planes * words) as f64 * 2.0 < popcount(&lv.set) as f64 * (c + 2) as f64
            }
            _ => false,
        };
        if by_bits {
            let bits = self.side_bits.as_ref().expect("checked just above");
            (minority, rows) = bits.totals(&lv.set, &mut lv.totals);
        } else {
            for_each_one(&lv.set, |g| {
                for (t, w) in lv.totals.iter_mut().zip(obj.group_stats(g)) {
                    *t += w;
                }
                minority += obj.group_floor(g);
                reference_total += reference.map_or(0.0, |r| r[g]);
                rows += data.group_rows(g) as f64;
            });
        }
        (lv.minority, lv.rows, lv.reference_total) = (minority, rows, reference_total);
        lv.runs.clear();
        for r in 0..self.runs.len() {
            let (first, end) = self.runs[r];
            let summary = self.load_run(level, first, end, depth);
            if summary.min_lb < f64::INFINITY {
                self.levels[level].runs.push(summary);
            }
        }
        // Column by column, as ConTree: the column with the best split (by impurity,
        // which tells good splits apart where misclassification ties) first, each run in
        // ascending order for its interval search ([`Bisection`]), so that a good tree
        // is found early (on near-perfect trees, which end the search). (Root thresholds
        // of depth-two subproblems evaluated, with the interval search: breast cancer d4
        // 150k -> 19.6k, bank d4 4.0k -> 2.1k, fico's first 1,000 rows d3 184k -> 175k,
        // raisin d3 51k -> 49k.)
        let lv = &mut self.levels[level];
        lv.runs.sort_unstable_by(|a, b| a.impurity.total_cmp(&b.impurity).then(a.first.cmp(&b.first)));
        lv.bounded.copy_from_slice(&lv.set);
        lv.bounded_depth = depth;
    }

    /// Builds the [`SideBits`] at the first pass over a set's splits (where they can be).
    fn side_bits_due(&mut self) {
        if self.side_bits_tried {
            return;
        }
        self.side_bits_tried = true;
        self.side_bits = SideBits::new(&self.t, self.limit / 16);
        if let Some(b) = &self.side_bits {
            self.right_per_group = popcount(&b.columns) as f64 / self.t.data.n_groups() as f64;
        }
    }

    /// Loads the run of splits `first..end` of `levels[level].set` (whose totals
    /// [`Solver::bound_splits`] summed; children with `depth - 1` levels left): the sums
    /// of the sides of its splits, and its candidates in search order (without runs,
    /// by two-leaf cost; a run of thresholds ascending); returns their summary.
    fn load_run(&mut self, level: usize, first: u32, end: u32, depth: u32) -> RunSummary {
        let (obj, splits, data) = (&self.t.obj, &self.t.splits, self.t.data);
        let rules = self.rules;
        let runs = self.neighbourhood.is_some();
        let c = obj.n_stats();
        let reference = self.reference.as_deref();
        let lv = &mut self.levels[level];
        let (first, end) = (first as usize, end as usize);
        let len = end - first;
        lv.base = first;
        lv.right_weights[..len * c].fill(0.0);
        lv.right_minority[..len].fill(0.0);
        lv.right_rows[..len].fill(0);
        if reference.is_some() {
            lv.right_reference[..len].fill(0.0);
        }
        // Runs of nested splits (thresholds of a column) are summed at each group's last
        // right split only, then every run from its end.
        let every = first == 0 && end == splits.n_splits();
        // By population counts where that takes fewer word operations than the loop
        // takes additions (a word operation taken as half an addition).
        let by_bits = match &mut self.side_bits {
            Some(bits) if reference.is_none() => {
                let list = popcount(&lv.set) as f64 * (c + 2) as f64 * if every { self.right_per_group } else { 1.0 };
                let cheaper = (bits.work(&lv.set, len) as f64) < SIDE_UPDATE_WORDS * list;
                if cheaper {
                    bits.sums(&lv.set, first, len, c, &mut lv.right_weights, &mut lv.right_minority, &mut lv.right_rows);
                }
                cheaper
            }
            _ => false,
        };
        if !by_bits {
            lv.sum_sides(obj, splits, data, reference, first, len, every);
        }
        lv.candidates.clear();
        let d = child_depth(depth);
        let rows = lv.rows;
        let mut summary = RunSummary::new(first as u32, end as u32);
        for f in first..end {
            let i = f - first;
            let right_rows = lv.right_rows[i];
            let rr_rows = right_rows as f64;
            if right_rows == 0 || rr_rows == rows || rr_rows < rules.min_support || rows - rr_rows < rules.min_support {
                continue;
            }
            if splits.nested_in_previous(f) && lv.right_rows[i - 1] == right_rows {
                continue; // the same partition as split f - 1
            }
            let (left, right) = lv.sides(obj, f, d, &rules, reference.is_some());
            if runs {
                summary.impurity = summary.impurity.min(obj.impurity(&lv.left_totals) + obj.impurity(&lv.right_weights[i * c..(i + 1) * c]));
            }
            lv.candidates.push(Candidate {
                feature: f as u32,
                exact: left.terminal && right.terminal,
                lb: left.lb + right.lb,
                proven: left.proven + right.proven,
                ub: left.leaf_cost + right.leaf_cost,
                mass: if runs { lv.left_totals.iter().sum() } else { 0.0 },
                llb: left.lb,
                rlb: right.lb,
            });
        }
        if !runs {
            lv.candidates.sort_unstable_by(|a, b| a.ub.total_cmp(&b.ub).then(a.feature.cmp(&b.feature)));
        }
        for cand in &lv.candidates {
            summary.add(cand);
        }
        summary
    }

    /// Makes the run of `summary` the one loaded at `level` (after [`Solver::bound_splits`]
    /// on the level's set, the run loaded is the one `base` starts).
    fn ensure_loaded(&mut self, level: usize, summary: &RunSummary, depth: u32) {
        if self.levels[level].base != summary.first as usize {
            self.load_run(level, summary.first, summary.end, depth);
        }
    }

    /// The child of split `feature` on one side, created in the store when it is new.
    /// `None` when the memory limit refused it (the search then stops).
    fn child(&mut self, level: usize, feature: u32, right: bool, side: Side, depth: u32) -> Option<Child> {
        if side.terminal {
            return Some(Child::Leaf(side));
        }
        let lv = &mut self.levels[level];
        self.t.splits.partition(&lv.set, feature as usize, right, &mut lv.child);
        if let (Some(b), Some(th)) = (self.boxes, self.t.splits.as_thresholds()) {
            let (j, t) = th.locate(feature as usize);
            b.child(th.numeric(), &lv.key, j, t, right, &lv.child, &mut lv.child_key);
        }
        let lv = &self.levels[level];
        let key = if self.boxes.is_some() { &lv.child_key } else { &lv.child };
        if let Some(id) = self.store.find(key, depth) {
            return Some(Child::Record(id));
        }
        let side = self.set_bound(&lv.child, side, depth);
        if side.terminal {
            return Some(Child::Leaf(side));
        }
        let lv = &self.levels[level];
        let key = if self.boxes.is_some() { &lv.child_key } else { &lv.child };
        match self.store.insert(key, depth, side.lb, side.proven, side.leaf_cost) {
            Some(id) => Some(Child::Record(id)),
            None => {
                self.stopped = Some(Status::MemoryLimit);
                None
            }
        }
    }

    /// Raises the search bound of a child's record to `lb`, a proven lower bound on its
    /// optimum (never past the best tree known: then the record is solved). Only
    /// without a reference model, where the search bound is the proven one.
    fn raise_lb(&mut self, child: Child, lb: f64) {
        debug_assert!(self.reference.is_none());
        if let Child::Record(id) = child {
            let r = self.store.get_mut(id);
            if lb > r.lb {
                r.lb = lb.min(r.ub);
                r.proven = r.lb;
            }
        }
    }

    #[inline]
    fn bounds(&self, child: Child) -> Bounds {
        match child {
            Child::Leaf(s) => Bounds { lb: s.leaf_cost, ub: s.leaf_cost, proven: s.proven },
            Child::Record(id) => {
                let r = self.store.get(id);
                Bounds { lb: r.lb, ub: r.ub, proven: r.proven }
            }
        }
    }

    /// The proven bound of a record from its search bound and the candidates' proven
    /// bounds: identical to the search bound unless guessing.
    fn proven_bound(&self, r: &crate::store::Record, min_proven: f64) -> f64 {
        if self.reference.is_some() {
            r.proven.max(r.ub.min(min_proven))
        } else {
            r.lb
        }
    }

    /// Stops the search when a limit is reached or the monitor asks to.
    fn poll(&mut self) -> bool {
        if self.stopped.is_some() {
            return true;
        }
        let (store, root, w) = (&self.store, self.root, self.t.data.total_weight());
        let stop = self.budget.poll(|elapsed| progress(store, root, w, elapsed));
        if stop.is_some() {
            self.stopped = stop;
        }
        self.stopped.is_some()
    }

    /// A quick first tree for record `id`: always split on the best stump while a split
    /// can pay off, keep the split where it beats a leaf. Gives the search a good
    /// initial budget and the anytime result a good tree from the start.
    fn greedy(&mut self, id: u32, level: usize) -> f64 {
        let depth = self.store.get(id).depth;
        if depth == 2 && self.kernel_on && self.solve_small(id, level, f64::INFINITY) {
            return self.store.get(id).ub;
        }
        let first = self.store.get(id).ub;
        self.greedy_stump(id, level, depth);
        self.look_ahead(id, depth, first);
        self.store.get(id).ub
    }

    /// The greedy tree of [`Solver::greedy`] without the look-ahead at its root.
    fn greedy_stump(&mut self, id: u32, level: usize, depth: u32) -> f64 {
        // After a stop the greedy tree is still completed (it costs one pass per node),
        // except on the unlimited-depth path, which may be long.
        if !self.level(level) || (depth == UNLIMITED && self.poll()) {
            return self.store.get(id).ub;
        }
        self.enter(level, id);
        self.bound_splits(level, depth);
        // The best stump: least two-leaf cost, then lowest split.
        let best_run = self.levels[level].runs.iter().min_by(|a, b| a.stump.0.total_cmp(&b.stump.0).then(a.stump.1.cmp(&b.stump.1)));
        let Some(&run) = best_run else {
            return self.store.get(id).ub;
        };
        let feature = run.stump.1;
        self.ensure_loaded(level, &run, depth);
        let d = child_depth(depth);
        let mut cost = 0.0;
        let (rules, guessing) = (self.rules, self.reference.is_some());
        let (left, right) = self.levels[level].sides(&self.t.obj, feature as usize, d, &rules, guessing);
        for (right, side) in [(false, left), (true, right)] {
            cost += match self.child(level, feature, right, side, d) {
                Some(Child::Leaf(s)) => s.leaf_cost,
                Some(Child::Record(cid)) if d == 1 && self.kernel_on => {
                    // A stump or leaf, solved exactly from the feature sums.
                    let set = self.levels[level].child.clone();
                    match self.kernel(Some(&set), cid, 1, f64::INFINITY) {
                        Ok((small, _)) => small.cost.min(self.store.get(cid).ub),
                        Err(status) => {
                            // Keep the stop (a time limit, Ctrl-C) for the search above.
                            self.stopped.get_or_insert(status);
                            self.store.get(cid).ub
                        }
                    }
                }
                Some(Child::Record(cid)) => self.greedy(cid, level + 1),
                None => return self.store.get(id).ub,
            };
        }
        let rec = self.store.get_mut(id);
        if cost < rec.ub {
            rec.ub = cost;
            rec.best = feature;
        }
        rec.ub
    }

    /// The best tree of depth two as a bound of record `id` of depth three (a sweep finds
    /// it quickly; it is often far better than the greedy stump's), unless the bound
    /// already meets the record's lower bound: the first tree is only a bound, and no
    /// tree beats that one. (On easy sets, e.g. those a few splits classify perfectly,
    /// the greedy tree meets it and this sweep would be most of the fit.) With a
    /// reference model the lower bound is a guess, not a proof: the sweep always runs.
    /// (`first`: the record's bound before the greedy tree.)
    fn look_ahead(&mut self, id: u32, depth: u32, first: f64) {
        let rec = self.store.get(id);
        let met = self.reference.is_none() && rec.ub <= rec.lb;
        if depth != 3 || !self.kernel_on || !matches!(self.depth2, Kernel::Sweep(_)) || met {
            return;
        }
        if let Ok((small, _)) = self.kernel(None, id, 2, f64::INFINITY) {
            // Ties go to the look-ahead (it ran first before it could be skipped: the
            // same tree as then whenever it runs).
            let rec = self.store.get_mut(id);
            if let (Some((root, _, _)), true) = (small.split, small.cost < first && small.cost <= rec.ub) {
                rec.ub = small.cost;
                rec.best = root;
            }
        }
    }

    /// Tightens record `id` until it is solved or its search bound reaches `budget`
    /// (or the search stops). Children get the budget left by their sibling's bound.
    fn search(&mut self, id: u32, level: usize, budget: f64) {
        let rec = *self.store.get(id);
        if rec.solved() || rec.lb >= budget || self.poll() || self.budget_bound(id, budget) {
            return;
        }
        self.expansions += 1;
        if rec.depth == 2 && self.kernel_on {
            self.solve_small(id, level, budget);
            return;
        }
        if !self.level(level) {
            return;
        }
        self.enter(level, id);
        self.bound_splits(level, rec.depth);
        let d = child_depth(rec.depth);

        // Splits into two closed leaves are exact; the others give the look-ahead bound.
        let (mut ub, mut best) = (rec.ub, rec.best);
        let (mut min_lb, mut min_proven) = (f64::INFINITY, f64::INFINITY);
        for run in &self.levels[level].runs {
            if let Some((lb, feature)) = run.exact.filter(|&(lb, _)| lb < ub) {
                ub = lb;
                best = feature;
            }
            min_lb = min_lb.min(run.min_lb);
            min_proven = min_proven.min(run.min_proven);
        }
        {
            let mut r = rec;
            r.ub = ub;
            r.best = best;
            r.lb = r.lb.max(ub.min(min_lb));
            r.proven = self.proven_bound(&r, min_proven);
            *self.store.get_mut(id) = r;
            if ub < rec.ub {
                self.propagate(level);
            }
            if r.lb >= ub.min(budget) {
                self.log_splits(id, level, rec.depth);
                return;
            }
        }

        // Run by run (one loaded at a time), each searched unless all its open splits
        // reached the bound; after a stop the others keep the bounds they started with.
        let logging = self.store.logs_splits();
        let (mut min_lb, mut min_proven) = (f64::INFINITY, f64::INFINITY);
        let mut stop = false;
        for k in 0..self.levels[level].runs.len() {
            let run = self.levels[level].runs[k];
            let searched = !stop && run.min_open_lb < self.store.get(id).ub.min(budget);
            if searched || logging {
                self.ensure_loaded(level, &run, rec.depth);
            }
            if searched {
                stop = self.search_run(id, level, d, budget);
                let cands = &self.levels[level].candidates;
                min_lb = cands.iter().fold(min_lb, |m, c| m.min(c.lb));
                min_proven = cands.iter().fold(min_proven, |m, c| m.min(c.proven));
            } else {
                min_lb = min_lb.min(run.min_lb);
                min_proven = min_proven.min(run.min_proven);
            }
            if logging && !self.log_loaded(id, level) {
                break;
            }
        }
        let mut r = *self.store.get(id);
        r.lb = r.lb.max(r.ub.min(min_lb));
        r.proven = self.proven_bound(&r, min_proven);
        *self.store.get_mut(id) = r;
    }

    /// Searches the candidates of the run loaded at `level` (of record `id`, whose
    /// children have `d` levels left) in [`Bisection`] order against `budget`; true when
    /// the search of the record must end (it is solved, or the search stopped).
    fn search_run(&mut self, id: u32, level: usize, d: u32, budget: f64) -> bool {
        // The search raises its candidates' bounds: the level's bounds are no longer
        // those of a fresh pass.
        self.levels[level].bounded_depth = 0;
        let mut order = Bisection::new(self.neighbourhood.is_some(), self.levels[level].candidates.len());
        while let Some((k, reach)) = order.next(&self.levels[level].candidates, self.store.get(id).ub.min(budget)) {
            let cand = self.levels[level].candidates[k];
            if self.store.get(id).solved() {
                return true; // the best tree met the record's bound (the objective's, say)
            }
            let bound = self.store.get(id).ub.min(budget);
            if cand.exact || cand.lb >= bound {
                continue;
            }
            // With neighbourhood pruning (thresholds of numeric columns), the larger child
            // is searched first against the bound, the other one past it by a slack, as
            // ConTree does: a bound above the target by `slack` prunes the thresholds within
            // mass slack / unit. The slack is the unit times the mass from the threshold to
            // the farther end of its interval in the run's bisection (ConTree's interval
            // half-width: past it there is nothing left to prune), and at most the bound
            // itself: proving a child far past a small bound (near-perfect trees) costs
            // more than the few neighbours it prunes.
            let slack = self.neighbourhood.map_or(0.0, |unit| (unit * reach).min(bound.max(0.0)));
            let target = bound + slack;
            // The first child too is searched past the bound, by half the slack, where the
            // slack is the interval's whole reach (below the bound): a child proved above
            // the bound, or solved there, proves its threshold that much above it, which
            // prunes the neighbours within half the reach instead of none. (Where the slack
            // is cut to the bound, the neighbours so pruned are too few to pay for the child
            // solved instead of pruned.) Root thresholds of depth-two subproblems
            // evaluated: raisin d3 48.6k -> 40.8k (ConTree 41.7k), held-out rice@0,1,2,3
            // d3 97.9k -> 87.3k, compas d4 333k -> 290k.
            let first_slack = if slack < bound { slack / 2.0 } else { 0.0 };
            let (rules, guessing) = (self.rules, self.reference.is_some());
            let (left_side, right_side) = self.levels[level].sides(&self.t.obj, cand.feature as usize, d, &rules, guessing);
            let right_first = self.neighbourhood.is_some() && {
                let lv = &self.levels[level];
                2.0 * lv.right_rows_of(cand.feature as usize) as f64 > lv.rows
            };
            let Some(left) = self.child(level, cand.feature, false, left_side, d) else { return true };
            let Some(right) = self.child(level, cand.feature, true, right_side, d) else { return true };
            if self.neighbourhood.is_some() {
                // What the run's evaluated thresholds proved of each side (sub-interval
                // and neighbourhood bounds) holds for the child itself: its record starts
                // there, so the sibling's budget is tighter and a sweep meeting it stops.
                self.raise_lb(left, cand.llb);
                self.raise_lb(right, cand.rlb);
            }
            self.path.truncate(level);
            self.path.push((id, cand.feature, left, right));
            let (first, second, first_side_lb) = if right_first { (right, left, right_side.lb) } else { (left, right, left_side.lb) };
            let (mut a, mut b) = (self.bounds(first), self.bounds(second));
            if a.lb + b.lb < bound {
                // Both children's bounds before either is searched (STreeD bounds both
                // sides of a split first): the second's leaves the first a smaller budget.
                if let Child::Record(bid) = second {
                    self.budget_bound(bid, bound - a.lb);
                    b = self.bounds(second);
                }
            }
            if a.lb + b.lb < bound {
                if let Child::Record(aid) = first {
                    self.search(aid, level + 1, bound + first_slack - b.lb);
                    a = self.bounds(first);
                }
            }
            if a.closed() {
                if a.lb + b.lb < target && self.stopped.is_none() {
                    if let Child::Record(bid) = second {
                        self.search(bid, level + 1, target - a.ub);
                        b = self.bounds(second);
                    }
                }
            } else if self.neighbourhood.is_some() && self.stopped.is_none() {
                // The first child was pruned: the split is too. Its side only gets dearer
                // towards its growing end, which prunes every threshold of the run that way
                // (sub-interval pruning below). The other child searched against the bound,
                // less the least cost of the first side, prunes the other way as well: on a
                // column with no good threshold two searches then rule out the whole run
                // instead of one half per bisection level. Only when its best tree known
                // reaches that budget (else its search could not prune them all).
                let budget_b = bound - first_side_lb;
                if let (Child::Record(bid), true) = (second, b.lb < budget_b && b.ub >= budget_b) {
                    self.search(bid, level + 1, budget_b);
                    b = self.bounds(second);
                }
            }
            let (l, r) = if right_first { (b, a) } else { (a, b) };
            // A split whose children did not both close was pruned against `bound`: that
            // is what it proved, even where rounding left l.lb + r.lb a hair below it.
            let pruned = self.stopped.is_none() && !(l.closed() && r.closed());
            let lb = if pruned { (l.lb + r.lb).max(bound) } else { l.lb + r.lb };
            let c = &mut self.levels[level].candidates[k];
            c.lb = lb;
            c.proven = if self.reference.is_some() { l.proven + r.proven } else { lb };
            c.ub = c.ub.min(l.ub + r.ub);
            if let Some(unit) = self.neighbourhood {
                // ConTree's neighbourhood pruning at every depth: another threshold of the
                // column moves mass w across the split, and the best tree under it costs
                // at least lb - w x unit (the side gaining rows gets no cheaper with a
                // minimum support of one, the side losing them loses at most w x unit).
                // Per side too (ConTree's sub-interval pruning): the left child only gains
                // rows as the threshold grows, so its best tree gets no cheaper (a tree of
                // the larger side restricted to the smaller is a tree of it, with a minimum
                // support of one), and the right child's none cheaper as it shrinks; the
                // side losing mass w gets cheaper by at most w x unit.
                let mass = cand.mass;
                for o in self.levels[level].candidates.iter_mut() {
                    let moved = (o.mass - mass).abs() * unit * (1.0 + 1e-9);
                    let mut reach = lb - moved;
                    if o.mass > mass {
                        o.llb = o.llb.max(l.lb);
                        o.rlb = o.rlb.max(r.lb - moved);
                    } else {
                        o.llb = o.llb.max(l.lb - moved);
                        o.rlb = o.rlb.max(r.lb);
                    }
                    reach = reach.max(o.llb + o.rlb);
                    if reach > o.lb {
                        o.lb = reach;
                        o.proven = reach;
                    }
                }
            }
            let rec = self.store.get_mut(id);
            if l.ub + r.ub < rec.ub {
                rec.ub = l.ub + r.ub;
                rec.best = cand.feature;
                self.propagate(level);
            }
            if self.stopped.is_some() {
                return true;
            }
        }
        false
    }

    /// With the split log on, records the bounds of every candidate split of record `id`
    /// (with `depth` levels left), loading its runs in turn.
    fn log_splits(&mut self, id: u32, level: usize, depth: u32) {
        if !self.store.logs_splits() {
            return;
        }
        for k in 0..self.levels[level].runs.len() {
            let run = self.levels[level].runs[k];
            self.ensure_loaded(level, &run, depth);
            if !self.log_loaded(id, level) {
                return;
            }
        }
    }

    /// Records the bounds of the candidates of the run loaded at `level` in the split
    /// log; false (and the search stops) when the memory limit has no room for them.
    fn log_loaded(&mut self, id: u32, level: usize) -> bool {
        for c in &self.levels[level].candidates {
            if !self.store.record_split(id, c.feature, c.proven, c.ub) {
                self.stopped.get_or_insert(Status::MemoryLimit);
                return false;
            }
        }
        true
    }

    /// Solves a record with two levels left exactly with the depth-two kernel, or (the
    /// sweep kernel) proves that no tree of it costs less than `budget`; false (the
    /// record unchanged, the search stopped) when a limit or a stop request interrupted it.
    fn solve_small(&mut self, id: u32, level: usize, budget: f64) -> bool {
        let bound = budget.min(self.store.get(id).ub);
        // The record's bound (from neighbouring thresholds, say) lets the sweeps stop
        // at a tree meeting it; it is a search bound only without a reference model.
        let known = if self.reference.is_none() { self.store.get(id).lb } else { f64::NEG_INFINITY };
        let (small, proved) = match self.kernel_above(None, id, 2, known, bound) {
            Ok(out) => out,
            Err(status) => {
                self.stopped.get_or_insert(status);
                return false;
            }
        };
        let guessing = self.reference.is_some();
        let r = self.store.get_mut(id);
        let improved = small.cost < r.ub;
        if improved {
            r.ub = small.cost;
            r.best = small.split.map_or(LEAF, |s| s.0);
        }
        // Exact: the kernel's tree is optimal (the leaf-closing rules it shares are
        // sound). Otherwise no tree costs less than the bound (at most the record's ub).
        let exact = proved >= small.cost;
        r.lb = if exact { r.ub } else { r.lb.max(proved).min(r.ub) };
        if !guessing {
            r.proven = r.lb;
        }
        if exact && small.cost <= r.ub && !guessing {
            // The record's optimal tree, for the rebuild of the best tree.
            let (f, fl, fr) = small.split.map_or((LEAF, None, None), |s| s);
            self.small_trees.insert(id, [f, fl.unwrap_or(LEAF), fr.unwrap_or(LEAF)]);
            self.note_external();
        }
        if improved {
            self.propagate(level);
        }
        true
    }

    /// Bounds of the subproblem `set` with `depth` levels left, from its groups.
    pub(crate) fn set_side(&self, set: &[u64], depth: u32) -> Side {
        let data = self.t.data;
        let mut totals = vec![0.0; self.t.obj.n_stats()];
        stats_totals(&self.t.obj, set, &mut totals);
        let (mut minority, mut rows, mut reference) = (0.0, 0.0, 0.0);
        for_each_one(set, |g| {
            minority += self.t.obj.group_floor(g);
            rows += data.group_rows(g) as f64;
            reference += self.reference.as_ref().map_or(0.0, |r| r[g]);
        });
        let side = side(&self.t.obj, &totals, minority, self.reference.as_ref().map(|_| reference), rows, depth, &self.rules);
        self.set_bound(set, side, depth)
    }

    /// Under a depth limit served by the depth-two kernel, the objective's bound from
    /// the groups of record `id` ([`Objective::set_bound`]) asked only when the record
    /// or its sibling is about to be searched, against its `budget`; true means it
    /// pruned the record. On records of two levels the bound stops as soon as it
    /// reaches the budget or cannot; above, it is computed in full, so that an
    /// expansion ends once its best tree meets it (raisin, column 6 as the target,
    /// depth 5, λ = 0.01: 1,292 expansions before bounding both children and asking
    /// the full bound, 301 after; search instructions 281 M to 154 M). Not at
    /// insertion: on OSRT's sets at depths 3-7 bounding every new record cost more time
    /// than its pruning saved (see [`Solver::set_bound`] for the unlimited depth). On
    /// records of two levels the kernel's pairwise sums often cost little more than the
    /// bound, so there it is asked only while it prunes most of the records it is asked
    /// about ([`TrialRate`]).
    fn budget_bound(&mut self, id: u32, budget: f64) -> bool {
        let rec = *self.store.get(id);
        if self.reference.is_some() || !self.kernel_on || rec.depth == UNLIMITED || rec.depth < 2 || !self.t.obj.has_set_bound() {
            return false;
        }
        if rec.depth == 2 && !self.depth_two_bound.ask() {
            return false;
        }
        let target = budget.min(rec.ub);
        // Above two levels the full bound (no early stop at the target): if it does not
        // prune, the record is expanded and its bound may end that expansion early.
        let ask = if rec.depth >= 3 { f64::INFINITY } else { target };
        let mut scratch = std::mem::take(&mut self.scratch);
        Self::decode(&self.t, self.boxes, &self.store, id, &mut scratch);
        let b = self.t.obj.set_bound(&scratch, self.rules.penalty, rec.depth, ask);
        self.scratch = scratch;
        let pruned = b.is_some_and(|b| b >= target);
        if rec.depth == 2 {
            self.depth_two_bound.record(pruned);
        }
        let Some(b) = b else { return false };
        let r = self.store.get_mut(id);
        if b > r.lb {
            r.lb = b.min(r.ub);
            r.proven = r.lb;
        }
        pruned
    }

    /// `side` (the bounds of the subproblem `set` from its totals) raised by the
    /// objective's bound from its groups ([`Objective::set_bound`]); closed as a leaf
    /// when that shows no split can beat one. Only without a depth limit (or without the
    /// depth-two kernel) and not under guessing (it has its own): there it is the main
    /// bound of deep subproblems, asked once for every new one.
    fn set_bound(&self, set: &[u64], side: Side, depth: u32) -> Side {
        if side.terminal || self.reference.is_some() || (self.kernel_on && depth != UNLIMITED) {
            return side;
        }
        match self.t.obj.set_bound(set, self.rules.penalty, depth, f64::INFINITY) {
            Some(b) if b >= side.leaf_cost => Side { lb: side.leaf_cost, proven: side.leaf_cost, terminal: true, ..side },
            Some(b) if b > side.lb => Side { lb: b, proven: b, ..side },
            _ => side,
        }
    }

    /// Appends a leaf for `set` to `tree` and returns its index.
    fn push_leaf(&self, set: &[u64], tree: &mut Tree) -> usize {
        let mut value = vec![0.0; self.t.obj.n_stats()];
        stats_totals(&self.t.obj, set, &mut value);
        tree.nodes.push(Node { feature: None, left: 0, right: 0, value });
        tree.nodes.len() - 1
    }

    /// The two halves of `set` split on `feature` (left, right).
    fn halves(&self, set: &[u64], feature: u32) -> (Vec<u64>, Vec<u64>) {
        let (mut left, mut right) = (vec![0u64; set.len()], vec![0u64; set.len()]);
        self.t.splits.partition(set, feature as usize, false, &mut left);
        self.t.splits.partition(set, feature as usize, true, &mut right);
        (left, right)
    }

    /// Appends a node splitting `set` on `feature`, with children built by `child`.
    /// (`child` gets each half and whether it is the right one.)
    fn push_split(&mut self, set: &[u64], feature: u32, tree: &mut Tree, mut child: impl FnMut(&mut Self, &[u64], bool, &mut Tree) -> usize) -> usize {
        let idx = self.push_leaf(set, tree);
        let (l, r) = self.halves(set, feature);
        let left = child(self, &l, false, tree);
        let right = child(self, &r, true, tree);
        let node = &mut tree.nodes[idx];
        node.feature = Some(feature as usize);
        node.left = left;
        node.right = right;
        idx
    }

    /// Appends the subtree of depth at most two found by the kernel.
    fn push_small(&mut self, set: &[u64], split: Option<(u32, Option<u32>, Option<u32>)>, tree: &mut Tree) -> usize {
        match split {
            None => self.push_leaf(set, tree),
            Some((f, fl, fr)) => {
                let mut sides = [fl, fr].into_iter();
                self.push_split(set, f, tree, |s, half, _, t| {
                    let sub = sides.next().flatten();
                    s.push_small(half, sub.map(|g| (g, None, None)), t)
                })
            }
        }
    }

    /// Rebuilds the best known tree of a subproblem: closed subproblems are leaves,
    /// those with at most two levels left are re-solved by the kernel (so the tree is
    /// never worse than the cost the search accounted for), the others follow `best`.
    /// (`key`: the set's key in the store.)
    fn extract(&mut self, set: &[u64], key: &[u64], depth: u32, tree: &mut Tree) -> usize {
        let side = self.set_side(set, depth);
        if side.terminal {
            return self.push_leaf(set, tree);
        }
        if depth == 2 && self.kernel_on {
            // A set the kernel solved exactly in the search: its tree, without a solve.
            if let Some(&[f, fl, fr]) = self.store.find(key, depth).and_then(|id| self.small_trees.get(&id)) {
                let some = |g: u32| (g != LEAF).then_some(g);
                return self.push_small(set, some(f).map(|f| (f, some(fl), some(fr))), tree);
            }
        }
        if depth <= 2 && self.kernel_on {
            // Once stopped, a subproblem with two levels left follows its record (its
            // children re-solved from the feature sums) instead of the pairwise kernel.
            if let Ok((small, _)) = self.kernel(Some(set), 0, depth, f64::INFINITY) {
                return self.push_small(set, small.split, tree);
            }
            if depth == 1 {
                return self.push_leaf(set, tree);
            }
            if matches!(self.depth2, Kernel::Sweep(_)) && self.store.find(key, depth).map_or(true, |id| self.store.get(id).best == LEAF) {
                // No record to follow (a tree of depth two found by a sweep, say): the
                // best stump, which a stopped search still computes in one pass.
                if let Ok((small, _)) = self.kernel(Some(set), 0, 1, f64::INFINITY) {
                    return self.push_small(set, small.split, tree);
                }
            }
        }
        match self.store.find(key, depth).map_or(LEAF, |id| self.store.get(id).best) {
            LEAF => self.push_leaf(set, tree),
            best => self.push_split(set, best, tree, |s, half, right, t| {
                // A child with no level left is a leaf (and has no record, nor a key).
                let d = child_depth(depth);
                let k = if d == 0 { Vec::new() } else { s.child_key(key, best, right, half) };
                s.extract(half, &k, d, t)
            }),
        }
    }
}

impl<'a, 'm, M: Monitor, O: Objective, S: SplitFamily> Solver<'a, 'm, M, O, S> {
    /// A search of `obj` over the splits `splits` of the groups `data` under `config`
    /// (with `reference`, lower-bound guessing), nothing searched yet.
    pub(crate) fn new(data: &'a Groups, obj: O, splits: S, config: &GosdtConfig, reference: Option<Vec<f64>>, monitor: &'m mut M) -> Self {
        // Thresholds go to the sweep kernel, except under lower-bound guessing (its
        // reference losses are left to the generic search).
        let sweep = splits.as_thresholds().is_some() && reference.is_none();
        let kernel_on = data.n_groups() > 0 && (sweep || splits.right_list(0).is_some());
        let task_unit = if (1..splits.n_splits()).any(|s| splits.nested_in_previous(s)) { obj.max_unit_loss() } else { None };
        let task = Task { data, obj, splits };
        let rules = Rules { penalty: config.regularization * data.total_weight(), min_support: config.min_samples_leaf.max(1) as f64 };
        let mut solver = Solver {
            depth2: match task.splits.as_thresholds() {
                Some(th) if sweep => Kernel::Sweep(Sweep::new(&task, th)),
                _ => Kernel::Pairs(Depth2::new(&task, reference.as_deref(), rules.min_support)),
            },
            table: match task.splits.as_thresholds() {
                Some(th) if sweep => Some(Table::new(&task, th, config.limits.threads)),
                _ => None,
            },
            t: task,
            rules,
            store: Store::new(data.words(), config.limits.memory_limit),
            boxes: None,
            scratch: Vec::new(),
            levels: Vec::new(),
            limit: config.limits.memory_limit.unwrap_or(usize::MAX),
            path: Vec::new(),
            budget: Budget::new(&config.limits, monitor),
            stopped: None,
            expansions: 0,
            root: 0,
            depth_two_bound: TrialRate::default(),
            stump_pass: TrialRate::default(),
            similarity: TrialRate::default(),
            neighbourhood: task_unit.filter(|_| rules.min_support <= 1.0 && reference.is_none()),
            reference,
            kernel_on,
            runs: Vec::new(),
            longest_run: 0,
            small_trees: Default::default(),
            side_bits: None,
            right_per_group: 0.0,
            side_bits_tried: false,
            stump_sums: Vec::new(),
            stump_rows: Vec::new(),
            stump_above: Vec::new(),
            table_holds: false,
        };
        solver.side_bits_tried = solver.reference.is_some() || solver.t.splits.as_thresholds().is_some() || data.n_groups() == 0;
        let m = solver.t.splits.n_splits() as u32;
        solver.runs = if solver.neighbourhood.is_some() {
            let starts: Vec<u32> = (0..m).filter(|&f| !solver.t.splits.nested_in_previous(f as usize)).collect();
            starts.iter().zip(starts.iter().skip(1).chain([&m])).map(|(&a, &b)| (a, b)).collect()
        } else if m > 0 {
            vec![(0, m)]
        } else {
            Vec::new()
        };
        solver.longest_run = solver.runs.iter().map(|&(first, end)| (end - first) as usize).max().unwrap_or(0);
        if config.record_splits {
            solver.store.log_splits();
        }
        solver
    }
}

/// One split of a subproblem with the bounds of its two sides (see [`Solver::split_sides`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SplitSides {
    pub split: u32,
    pub left: Side,
    pub right: Side,
    /// The summed statistics the split sends right (for misclassification, the weight).
    pub right_weight: f64,
}

/// What the Rashomon-set builder ([`crate::rashomon`]) asks of the search: the optimum
/// of any subproblem within a budget (searched, and memoised, by this search's store),
/// the bounds a subproblem's store record already proves, and the splits of a
/// subproblem with their sides' bounds.
impl<'a, 'm, M: Monitor, O: Objective, S: SplitFamily> Solver<'a, 'm, M, O, S> {
    /// The task searched.
    pub(crate) fn task(&self) -> &Task<'a, O, S> {
        &self.t
    }

    /// The leaf-closing rules (penalty, minimum support).
    pub(crate) fn rules(&self) -> Rules {
        self.rules
    }

    /// The proven lower bound the store holds for `(set, depth)`, if it has a record.
    pub(crate) fn known_lower_bound(&self, set: &[u64], depth: u32) -> Option<f64> {
        debug_assert!(self.boxes.is_none(), "looked up by capture set");
        self.store.find(set, depth).map(|id| self.store.get(id).proven)
    }

    /// The optimal cost of the subproblem `set` with `depth` levels left when it is at
    /// most `budget`, else `None` (searched as far as `budget` needs, memoised in the
    /// store); `Err` when a limit or the monitor stopped the search.
    pub(crate) fn optimum_within(&mut self, set: &[u64], depth: u32, budget: f64) -> std::result::Result<Option<f64>, Status> {
        debug_assert!(self.boxes.is_none(), "looked up by capture set");
        let within = |cost: f64| (cost <= budget).then_some(cost);
        if depth == 1 && self.reference.is_none() && self.t.splits.as_thresholds().is_some() {
            // One level left: the cheaper of the leaf and the best stump, from one pass
            // over the thresholds ([`Solver::stump_sides`]) rather than a search.
            let side = self.set_side(set, depth);
            let best = if side.terminal { side.leaf_cost } else { side.leaf_cost.min(self.best_stump(set)) };
            return Ok(within(best));
        }
        let id = match self.store.find(set, depth) {
            Some(id) => id,
            None => {
                let side = self.set_side(set, depth);
                if side.terminal {
                    return Ok(within(side.leaf_cost));
                }
                if side.lb > budget {
                    return Ok(None);
                }
                let Some(id) = self.store.insert(set, depth, side.lb, side.proven, side.leaf_cost) else {
                    return Err(*self.stopped.get_or_insert(Status::MemoryLimit));
                };
                if budget == f64::INFINITY {
                    // Nothing bounds this search yet: start from a quick tree.
                    self.greedy(id, 0);
                }
                id
            }
        };
        let rec = *self.store.get(id);
        if !rec.solved() && rec.lb <= budget {
            // The search stops once a bound reaches its budget: a hair above `budget`
            // lets an optimum equal to it be proved.
            self.path.clear();
            self.search(id, 0, budget + budget.abs() * 1e-15 + f64::MIN_POSITIVE);
            if let Some(s) = self.stopped {
                return Err(s);
            }
        }
        let rec = self.store.get(id);
        Ok(if rec.solved() { within(rec.ub) } else { None })
    }

    /// Every split of the subproblem `set` with `depth >= 1` levels left that sends at
    /// least the minimum support each way (one per distinct partition), ascending, with
    /// the bounds of its two sides (whose children have `depth - 1` levels left).
    pub(crate) fn split_sides(&mut self, set: &[u64], depth: u32) -> std::result::Result<Vec<SplitSides>, Status> {
        if depth == 1 && self.reference.is_none() && self.t.splits.as_thresholds().is_some() {
            return Ok(self.stump_sides(set));
        }
        if !self.level(0) {
            return Err(self.stopped.unwrap_or(Status::MemoryLimit));
        }
        self.levels[0].set.copy_from_slice(set);
        self.bound_splits(0, depth);
        let (d, rules) = (child_depth(depth), self.rules);
        let mut out: Vec<SplitSides> = Vec::new();
        // Runs of thresholds list their candidates ascending: taken in the order of their
        // first splits, the splits come out ascending with no sort (raisin's 6,293
        // thresholds sorted at every node were a tenth of a numeric fit).
        let runs = self.neighbourhood.is_some();
        let mut order: Vec<usize> = (0..self.levels[0].runs.len()).collect();
        if runs {
            order.sort_unstable_by_key(|&r| self.levels[0].runs[r].first);
        }
        for r in order {
            let run = self.levels[0].runs[r];
            self.ensure_loaded(0, &run, depth);
            for k in 0..self.levels[0].candidates.len() {
                let split = self.levels[0].candidates[k].feature;
                let (left, right) = self.levels[0].sides(&self.t.obj, split as usize, d, &rules, false);
                let lv = &self.levels[0];
                let c = lv.totals.len();
                let i = split as usize - lv.base;
                let right_weight = lv.right_weights[i * c..(i + 1) * c].iter().sum();
                out.push(SplitSides { split, left, right, right_weight });
            }
        }
        if !runs {
            out.sort_unstable_by_key(|s| s.split);
        }
        debug_assert!(out.windows(2).all(|p| p[0].split < p[1].split));
        Ok(out)
    }

    /// [`Solver::split_sides`] with one level left (the children are leaves), from one
    /// pass over the groups ([`Solver::stump_sums`]) with no bound but the leaves' costs.
    /// (The search's pass loads one run at a time with the bounds a deeper subproblem
    /// needs: on raisin's 6,293 raw thresholds a Rashomon set asks for thousands of
    /// such stumps.)
    fn stump_sides(&mut self, set: &[u64]) -> Vec<SplitSides> {
        let mut out = Vec::new();
        let rules = self.rules;
        self.stump_sums(set, |obj, split, left, left_rows, right, right_rows, _| {
            out.push(SplitSides {
                split,
                left: side(obj, left, 0.0, None, left_rows, 0, &rules),
                right: side(obj, right, 0.0, None, right_rows, 0, &rules),
                right_weight: right.iter().sum(),
            });
        });
        out
    }

    /// The cost of the best stump of `set` (infinite when no split parts it with the
    /// minimum support each way), from one pass ([`Solver::stump_sums`]); with two or
    /// three classes and no minimum leaf size, in fixed-size sums and without the rows
    /// (a split with an empty side costs more than the leaf, so it never wins).
    fn best_stump(&mut self, set: &[u64]) -> f64 {
        if self.rules.min_support <= 1.0 {
            match self.t.obj.n_stats() {
                2 => return self.best_stump_of::<2>(set),
                3 => return self.best_stump_of::<3>(set),
                _ => {}
            }
        }
        let penalty = self.rules.penalty;
        let mut best = f64::INFINITY;
        self.stump_sums(set, |obj, _, left, _, right, _, _| {
            best = best.min((obj.leaf_loss(left) + penalty) + (obj.leaf_loss(right) + penalty));
        });
        best
    }

    /// [`Solver::best_stump`] with `C` classes and no minimum leaf size.
    fn best_stump_of<const C: usize>(&mut self, set: &[u64]) -> f64 {
        let (obj, splits, penalty) = (&self.t.obj, &self.t.splits, self.rules.penalty);
        let n = splits.n_splits();
        let sums = &mut self.stump_sums;
        sums.clear();
        sums.resize(n * C, 0.0);
        let mut totals = [0.0; C];
        for_each_one(set, |g| {
            let stats: &[f64; C] = obj.group_stats(g).try_into().expect("C statistics a group");
            for k in 0..C {
                totals[k] += stats[k];
            }
            splits.for_each_last_right(g, |s| {
                let at = &mut sums[s as usize * C..s as usize * C + C];
                for k in 0..C {
                    at[k] += stats[k];
                }
            });
        });
        // Each run summed from its end in registers (the same sums as adding each split's
        // into the one before it, without a store and load per split), each split scored
        // as its sum is complete.
        let (mut best, mut right, mut left) = (f64::INFINITY, [0.0; C], [0.0; C]);
        for s in (0..n).rev() {
            if s + 1 == n || !splits.nested_in_previous(s + 1) {
                right = [0.0; C];
            }
            for k in 0..C {
                right[k] += sums[s * C + k];
                left[k] = totals[k] - right[k];
            }
            let cost = (obj.leaf_loss(&left) + penalty) + (obj.leaf_loss(&right) + penalty);
            if cost < best {
                best = cost; // sums of finite weights: never NaN, no test for it
            }
        }
        best
    }

    /// Calls `f(objective, split, left sums, left rows, right sums, right rows, above)` for every split of
    /// `set` that sends the minimum support each way (one per distinct partition),
    /// ascending. One pass over the groups serves every split at once: each group is
    /// added at its last right split of each run of nested splits, and the runs are then
    /// summed from their ends; the same sums in the same order as the search's pass, so
    /// the same costs. `above` is the first split of the run from `split` on after which
    /// the set holds a row ([`Thresholds::threshold_between`]).
    pub(crate) fn stump_sums(&mut self, set: &[u64], mut f: impl FnMut(&O, u32, &[f64], f64, &[f64], f64, u32)) {
        let (obj, splits, data, rules) = (&self.t.obj, &self.t.splits, self.t.data, self.rules);
        let (n, c) = (splits.n_splits(), obj.n_stats());
        let (sums, rows, above) = (&mut self.stump_sums, &mut self.stump_rows, &mut self.stump_above);
        sums.clear();
        sums.resize(n * c, 0.0);
        rows.clear();
        rows.resize(n, 0);
        above.clear();
        above.resize(n, 0);
        let mut totals = vec![0.0; c];
        let mut total_rows = 0u32;
        for_each_one(set, |g| {
            let stats = obj.group_stats(g);
            for (t, w) in totals.iter_mut().zip(stats) {
                *t += w;
            }
            let nr = data.group_rows(g);
            total_rows += nr;
            splits.for_each_last_right(g, |s| {
                let s = s as usize;
                for (t, w) in sums[s * c..(s + 1) * c].iter_mut().zip(stats) {
                    *t += w;
                }
                rows[s] += nr;
            });
        });
        // Each run summed from its end, its running sums in a register row.
        let mut run = vec![0.0; c];
        let (mut run_rows, mut next) = (0u32, 0u32);
        for s in (0..n).rev() {
            if s + 1 == n || !splits.nested_in_previous(s + 1) {
                run.fill(0.0);
                run_rows = 0;
            }
            if rows[s] > 0 {
                next = s as u32; // rows sent right here and no further: the next value up
            }
            above[s] = next;
            for (r, x) in run.iter_mut().zip(&mut sums[s * c..(s + 1) * c]) {
                *r += *x;
                *x = *r;
            }
            run_rows += rows[s];
            rows[s] = run_rows;
        }
        let mut left = vec![0.0; c];
        for s in 0..n {
            let (right_rows, left_rows) = (rows[s], total_rows - rows[s]);
            if right_rows == 0 || left_rows == 0 || (right_rows as f64) < rules.min_support || (left_rows as f64) < rules.min_support {
                continue;
            }
            if splits.nested_in_previous(s) && rows[s - 1] == right_rows {
                continue; // the same partition as split s - 1
            }
            let right = &sums[s * c..(s + 1) * c];
            for ((l, t), r) in left.iter_mut().zip(&totals).zip(right) {
                *l = t - r;
            }
            f(obj, s as u32, &left, left_rows as f64, right, right_rows as f64, above[s]);
        }
    }

    /// The pairwise kernel's feature polarity and per-group lists ([`listed_features`]),
    /// when it has built them: the Rashomon builder's pair table counts the same way.
    pub(crate) fn kernel_lists(&self) -> Option<(&[bool], &[u32], &[u32])> {
        match &self.depth2 {
            Kernel::Pairs(k) => k.lists(),
            Kernel::Sweep(_) => None,
        }
    }

    /// Per split of the subproblem `set` with two levels left, a lower bound on the cost
    /// of its best tree splitting on it first, from one pass of the pairwise depth-two
    /// kernel ([`Depth2::split_bounds`]; splits left out split nothing); `None` where the
    /// search is served by another kernel.
    pub(crate) fn depth_two_split_bounds(&mut self, set: &[u64]) -> std::result::Result<Option<Vec<(u32, f64)>>, Status> {
        if !self.kernel_on {
            return Ok(None);
        }
        let budget = self.kernel_budget();
        let (store, root, w, stopped) = (&self.store, self.root, self.t.data.total_weight(), self.stopped);
        let budget_clock = &mut self.budget;
        let mut stop = || stopped.or_else(|| budget_clock.poll(|elapsed| progress(store, root, w, elapsed)));
        let out = match &mut self.depth2 {
            Kernel::Pairs(k) => k.split_bounds(&self.t, set, &self.rules, budget, &mut stop).map(Some),
            Kernel::Sweep(_) => Ok(None),
        };
        self.note_external();
        out
    }

    /// Polls the clock and the monitor: the status that stopped the search, if any.
    pub(crate) fn check_stop(&mut self) -> Option<Status> {
        self.poll();
        self.stopped
    }

    /// Bytes the search holds (its store, levels and kernel).
    pub(crate) fn bytes(&self) -> usize {
        self.store.bytes() + self.other_bytes()
    }
}

/// The remaining depth of the root of a search under `max_depth` over `n_splits` splits.
pub(crate) fn search_depth(max_depth: Option<usize>, n_splits: usize) -> u32 {
    match max_depth {
        // A path never gains from the same split twice.
        Some(d) if d < n_splits => d as u32,
        _ => UNLIMITED,
    }
}

/// A progress snapshot: the root's proven bound and the best complete tree known.
fn progress(store: &Store, root: u32, w: f64, elapsed: f64) -> Progress {
    let r = store.get(root);
    Progress { elapsed, lower_bound: r.proven / w, objective: r.ub / w, subproblems: store.len() as u64 }
}

/// Finds a tree minimising the objective's loss / total weight + λ x leaves under the
/// problem's depth and support limits. On a limit or a stop request the best tree found
/// is returned with its status and a proven lower bound.
pub(crate) fn run<M: Monitor>(data: &BinaryDataset, config: &GosdtConfig, monitor: &mut M) -> Result<SearchResult> {
    run_family(data, ZeroOneColumns::new(data), config, monitor)
}

/// [`run`] over the (column, threshold) splits of a numeric dataset.
pub(crate) fn run_numeric<M: Monitor>(data: &NumericDataset, config: &GosdtConfig, monitor: &mut M) -> Result<SearchResult> {
    run_family(data, Thresholds::new(data), config, monitor)
}

/// Refuses a penalty per leaf that is negative or not finite.
fn check_regularization(reg: f64) -> Result<()> {
    if !reg.is_finite() || reg < 0.0 {
        return Err(Error::new(format!(
            "regularization must be a finite number >= 0, got {reg}"
        )));
    }
    Ok(())
}

/// [`run`] over any split family of the groups `data`.
fn run_family<M: Monitor, S: SplitFamily>(data: &Groups, splits: S, config: &GosdtConfig, monitor: &mut M) -> Result<SearchResult> {
    check_regularization(config.regularization)?;
    let reference = match &config.reference_errors {
        Some(per_row) => {
            if per_row.iter().any(|&e| !e.is_finite() || e < 0.0) {
                return Err(Error::new("reference errors must be finite and >= 0"));
            }
            Some(data.sum_by_group(per_row)?)
        }
        None => None,
    };
    match &config.misclassification_cost {
        None => run_with(data, Misclassification::new(data), splits, config, reference, monitor),
        Some(cost) => run_with(data, CostSensitive::new(data, cost)?, splits, config, reference, monitor),
    }
    .map(|(mut result, labels)| {
        result.labels = labels;
        result
    })
}

/// The search of [`run`] over the splits `splits` of the groups `data` minimising the
/// variance-normalised squared error of the per-row targets `y` (rows weighted by
/// `weights`, as `data` was built; see [`SquaredError`]): the result, whose tree's node
/// values are the standardised statistics (weight, Σwz, Σwz²), and the prediction of
/// every node of it (the weighted mean target of its rows, in the units of `y`).
pub(crate) fn run_regression<M: Monitor, S: SplitFamily>(data: &Groups, splits: S, y: &[f64], weights: Option<&[f64]>, config: &GosdtConfig, monitor: &mut M) -> Result<(SearchResult, Vec<f64>)> {
    check_regularization(config.regularization)?;
    if config.reference_errors.is_some() || config.misclassification_cost.is_some() {
        return Err(Error::new("regression takes neither reference errors nor a misclassification cost"));
    }
    let obj = SquaredError::new(data, y, weights)?;
    let in_units = obj.to_target_units();
    let (result, labels) = run_with(data, obj, splits, config, None, monitor)?;
    Ok((result, labels.into_iter().map(in_units).collect()))
}

/// Loss of `tree` (whose nodes test splits of the task's family) on the data: every
/// group is charged the objective's loss at the label of the leaf it reaches.
fn tree_loss<O: Objective, S: SplitFamily>(t: &Task<O, S>, tree: &Tree) -> f64 {
    let mut loss = 0.0;
    for g in 0..t.data.n_groups() {
        let leaf = tree.leaf_of(|s| t.splits.goes_right(g, s) as u8);
        loss += t.obj.group_loss(g, t.obj.leaf_label(&tree.nodes[leaf].value));
    }
    loss
}

/// The search of [`run`] for one objective: the result (its `labels` left empty) and the
/// label of every node of its tree.
fn run_with<M: Monitor, O: Objective, S: SplitFamily>(data: &Groups, obj: O, splits: S, config: &GosdtConfig, reference: Option<Vec<f64>>, monitor: &mut M) -> Result<(SearchResult, Vec<O::Label>)> {
    let depth = search_depth(config.max_depth, splits.n_splits());
    let mut solver = Solver::new(data, obj, splits, config, reference, monitor);
    solver.key_by_boxes(depth);
    let (reg, w) = (config.regularization, data.total_weight());
    let all = data.all_groups();
    let root_key = solver.root_key(all.words());
    let root_side = solver.set_side(all.words(), depth);
    let (mut root_lb, mut root_ub, mut root_proven) = (root_side.lb, root_side.leaf_cost, root_side.proven);
    if !root_side.terminal {
        match solver.store.insert(&root_key, depth, root_side.lb, root_side.proven, root_side.leaf_cost) {
            Some(root) => {
                solver.root = root;
                // Under a depth limit on numeric columns the search is depth first with
                // the sweep kernel at two levels, as ConTree: its first descent already
                // ends in a complete tree, which bounds the rest as well as the greedy
                // first tree did, and the greedy tree's stumps, sweeps and depth-two
                // solves were mostly work the search did not reuse (wine at depth 4: 8.5
                // of 14 M instructions; bank d4 358 -> 335 M, compas d3 577 -> 552 M,
                // wilt d3 4.81 -> 4.65 G, the other held-out sets equal or lower). The
                // greedy tree is still built when the search stops early, as the anytime
                // tree if it beats the one found.
                let first_tree = depth == UNLIMITED || !solver.kernel_on || !matches!(solver.depth2, Kernel::Sweep(_));
                if first_tree {
                    solver.greedy(root, 0);
                }
                solver.search(root, 0, f64::INFINITY);
                if !first_tree && solver.stopped.is_some() {
                    solver.greedy(root, 0);
                }
                let r = solver.store.get(root);
                (root_lb, root_ub, root_proven) = (r.lb, r.ub, r.proven);
            }
            None => solver.stopped = Some(Status::MemoryLimit),
        }
    }
    let mut tree = Tree::default();
    solver.extract(all.words(), &root_key, depth, &mut tree);
    let objective = tree_loss(&solver.t, &tree) / w + reg * tree.n_leaves() as f64;
    let labels = tree.nodes.iter().map(|n| solver.t.obj.leaf_label(&n.value)).collect();
    let guessing = solver.reference.is_some();
    // Proven optimal when the proven bound meets the best tree (up to rounding when the
    // proven bound was summed apart from the search bound).
    // The tree returned is the one judged: with guessing, its cost (not only the
    // search's account of it) must meet the proven bound.
    let proven_optimal = if guessing {
        root_proven >= root_ub.max(objective * w) - 1e-12 * w
    } else {
        root_lb >= root_ub
    };
    let (status, lower_bound) = if proven_optimal {
        (Status::Optimal, objective)
    } else {
        let status = match solver.stopped {
            Some(s) => s,
            None if guessing && root_lb >= root_ub => Status::MatchedReference,
            None => Status::Interrupted,
        };
        (status, (root_proven / w).min(objective))
    };
    if status != Status::Optimal {
        let elapsed = solver.budget.elapsed();
        let subproblems = solver.store.len() as u64;
        solver.budget.report_final(&Progress { elapsed, lower_bound, objective, subproblems });
    }
    let splits = config.record_splits.then(|| {
        let s = &solver.store;
        s.splits()
            .iter()
            .map(|b| RecordedSplit {
                capture: s.key(b.record).to_vec(),
                depth: (s.get(b.record).depth != UNLIMITED).then_some(s.get(b.record).depth as usize),
                feature: b.split as usize,
                lower_bound: b.lb / w,
                upper_bound: b.ub / w,
            })
            .collect()
    });
    let result = SearchResult {
        tree,
        labels: Vec::new(),
        splits,
        objective,
        lower_bound,
        guessed_lower_bound: guessing.then_some(root_lb / w),
        status,
        stats: Stats {
            subproblems: solver.store.len() as u64,
            expansions: solver.expansions,
            seconds: solver.budget.elapsed(),
            memory_bytes: (solver.store.bytes() + solver.other_bytes()) as u64,
            kernel_solves: match &solver.depth2 {
                Kernel::Sweep(k) => k.solves,
                Kernel::Pairs(_) => 0,
            } + solver.table.as_ref().map_or(0, |t| t.solves),
            kernel_roots: match &solver.depth2 {
                Kernel::Sweep(k) => k.roots,
                Kernel::Pairs(_) => 0,
            } + solver.table.as_ref().map_or(0, |t| t.roots),
        },
    };
    Ok((result, labels))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::NoMonitor;
    use crate::testing::{brute, random_rows};

    #[test]
    fn the_search_is_exact_under_squared_error() {
        for seed in 0..400u64 {
            let (rows, m) = (8 + (seed % 17) as usize, 2 + (seed % 5) as usize);
            let (x, classes, w) = random_rows(rows, m, 2 + (seed % 3) as usize, seed + 11);
            // A real target, a noisy function of a class.
            let y: Vec<f64> = classes.iter().enumerate().map(|(i, &c)| c as f64 * 0.7 + (i % 3) as f64 * 0.25).collect();
            let data = BinaryDataset::new(&x, rows, m, &vec![0; rows], 1, Some(&w)).unwrap();
            let depth = [None, Some(1), Some(2), Some(3), Some(4)][(seed % 5) as usize];
            let min_support = 1 + (seed / 5 % 3) as usize;
            let problem = GosdtConfig {
                regularization: [0.0, 0.01, 0.05][(seed / 15 % 3) as usize],
                max_depth: depth,
                min_samples_leaf: if depth.is_some() { min_support } else { 1 },
                ..Default::default()
            };
            let (res, labels) = run_with(&data, SquaredError::new(&data, &y, Some(&w)).unwrap(), ZeroOneColumns::new(&data), &problem, None, &mut NoMonitor).unwrap();
            let total = data.total_weight();
            let groups: Vec<usize> = (0..data.n_groups()).collect();
            let obj = SquaredError::new(&data, &y, Some(&w)).unwrap();
            let want = brute(&obj, &data, &groups, depth.map(|d| d as u32), problem.regularization * total, problem.min_samples_leaf as f64) / total;
            assert_eq!(res.status, Status::Optimal, "seed {seed}");
            assert!((res.objective - want).abs() < 1e-9, "seed {seed}: objective {} brute force {want}", res.objective);
            assert!(res.lower_bound <= res.objective + 1e-12);
            // Every leaf predicts the mean of the rows it captures.
            for (node, &label) in res.tree.nodes.iter().zip(&labels) {
                assert!((label - node.value[1] / node.value[0]).abs() < 1e-12, "seed {seed}: label {label} value {:?}", node.value);
            }
            assert!(depth.map_or(true, |d| res.tree.depth() <= d));
        }
    }
}

#[cfg(test)]
mod run_tests {
    use super::*;
    use crate::budget::NoMonitor;

    /// Columns with 40, 10, 25 and 3 distinct values over 40 rows (73 thresholds).
    fn four_columns() -> NumericDataset {
        let rows = 40;
        let mut x = Vec::with_capacity(rows * 4);
        let mut y = Vec::with_capacity(rows);
        for i in 0..rows {
            let (a, b, c, d) = ((i * 7 % 40) as f64, (i % 10) as f64, (i * 3 % 25) as f64, (i % 3) as f64);
            x.extend([a, b, c, d]);
            y.push(((a > 20.0) as u32 + (b > 4.0) as u32 + (c as usize % 2) as u32) % 2);
        }
        NumericDataset::new(&x, rows, 4, &y, 2, None).unwrap()
    }

    /// The levels of a search over thresholds hold the sums and candidates of one column
    /// at a time (the longest: 39 thresholds), not one per threshold of the table; every
    /// split still has its sides when asked for, as when all are loaded at once.
    #[test]
    fn a_level_holds_one_column_of_thresholds_at_a_time() {
        let data = four_columns();
        let config = GosdtConfig { max_depth: Some(3), ..Default::default() };
        let mut monitor = NoMonitor;
        let mut solver = Solver::new(&data, Misclassification::new(&data), Thresholds::new(&data), &config, None, &mut monitor);
        assert_eq!(solver.runs, vec![(0, 39), (39, 48), (48, 72), (72, 74)]);
        assert!(solver.level(0));
        assert_eq!(solver.levels[0].right_rows.len(), 39);
        assert_eq!(solver.levels[0].right_weights.len(), 39 * 2);
        let all = data.all_groups().words().to_vec();
        let sides = solver.split_sides(&all, 3).unwrap();
        assert_eq!(sides.iter().map(|s| s.split).collect::<Vec<_>>(), (0..74).collect::<Vec<u32>>());
        // Each split's sides from its own pass over the groups.
        let obj = Misclassification::new(&data);
        let rules = solver.rules();
        for s in &sides {
            let (mut l, mut r) = (vec![0.0; 2], vec![0.0; 2]);
            let (mut lrows, mut rrows, mut lfloor, mut rfloor) = (0.0, 0.0, 0.0, 0.0);
            for g in 0..data.n_groups() {
                let (t, rows, floor) = if solver.task().splits.goes_right(g, s.split as usize) { (&mut r, &mut rrows, &mut rfloor) } else { (&mut l, &mut lrows, &mut lfloor) };
                for (a, b) in t.iter_mut().zip(obj.group_stats(g)) {
                    *a += b;
                }
                *rows += data.group_rows(g) as f64;
                *floor += obj.group_floor(g);
            }
            let want_left = side(&obj, &l, lfloor, None, lrows, 2, &rules);
            let want_right = side(&obj, &r, rfloor, None, rrows, 2, &rules);
            assert_eq!((s.left.lb, s.left.leaf_cost, s.right.lb, s.right.leaf_cost), (want_left.lb, want_left.leaf_cost, want_right.lb, want_right.leaf_cost), "split {}", s.split);
        }
    }

    /// Asks to stop at its first report (as Ctrl-C at once).
    struct StopAtOnce;

    impl Monitor for StopAtOnce {
        const INTERVAL: std::time::Duration = std::time::Duration::ZERO;
        fn report(&mut self, _: &Progress) -> bool {
            false
        }
    }

    /// A depth-limited search over thresholds starts without the greedy first tree (its
    /// depth-first search finds a complete tree first), so a search stopped at once
    /// builds it then: the tree returned is never worse than the best stump (a greedy
    /// tree grows from it), with a proven bound below it; not stopped, the search
    /// reaches the optimum.
    #[test]
    fn a_search_stopped_at_once_still_returns_the_greedy_tree() {
        let data = four_columns();
        let stump = run_numeric(&data, &GosdtConfig { max_depth: Some(1), ..Default::default() }, &mut NoMonitor).unwrap();
        assert!(stump.objective < 0.5 && stump.status == Status::Optimal);
        for depth in 2..=4 {
            let config = GosdtConfig { max_depth: Some(depth), ..Default::default() };
            let stopped = run_numeric(&data, &config, &mut StopAtOnce).unwrap();
            assert_eq!(stopped.status, Status::Interrupted, "depth {depth}");
            assert!(stopped.objective <= stump.objective + 1e-12 && stopped.tree.n_leaves() >= 2, "depth {depth}: {}", stopped.objective);
            assert!(stopped.lower_bound <= stopped.objective);
            let res = run_numeric(&data, &config, &mut NoMonitor).unwrap();
            assert_eq!(res.status, Status::Optimal);
            assert!(res.objective <= stopped.objective);
        }
    }

    /// Searched run by run, the search over thresholds finds the optimum of the search
    /// over the same table binarized (a 0/1 column per threshold, every split one
    /// candidate list), at depths 1 to 4.
    #[test]
    fn run_by_run_the_search_finds_the_binarized_optimum() {
        let data = four_columns();
        let th = Thresholds::new(&data);
        let m = th.n_splits();
        let rows = 40;
        let (mut x, mut y) = (Vec::with_capacity(rows * m), Vec::with_capacity(rows));
        for i in 0..rows {
            let g = data.group_of_row(i).unwrap();
            x.extend((0..m).map(|s| th.goes_right(g, s) as u8));
            y.push(if data.class_weights(g)[1] > 0.0 { 1 } else { 0 });
        }
        let binary = BinaryDataset::new(&x, rows, m, &y, 2, None).unwrap();
        for depth in 1..=4 {
            let config = GosdtConfig { max_depth: Some(depth), ..Default::default() };
            let res = run_numeric(&data, &config, &mut NoMonitor).unwrap();
            let want = run(&binary, &config, &mut NoMonitor).unwrap();
            assert_eq!((res.status, want.status), (Status::Optimal, Status::Optimal));
            assert!((res.objective - want.objective).abs() < 1e-12, "depth {depth}: {} against {}", res.objective, want.objective);
        }
    }

    /// The two numeric kernels never run at once: the one about to run takes the per-set
    /// buffers both lay out from the other (held once, not twice), and each answers as a
    /// kernel that kept its own buffers does.
    #[test]
    fn the_numeric_kernels_hold_their_shared_buffers_once() {
        // 300 random rows, columns of 8, 5 and 12 values: the value-sum kernel takes
        // depth two.
        let rows = 300;
        let mut x = Vec::with_capacity(rows * 3);
        let mut y = Vec::with_capacity(rows);
        let mut s = 7u64;
        let mut next = |k: u64| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 33) % k) as f64
        };
        for i in 0..rows {
            let (a, b, c) = (next(8), next(5), next(12));
            x.extend([a, b, c]);
            y.push(((a > 3.0) as u32 + (b > 1.0) as u32 + (c as usize % 3 == 0) as u32 + (i % 7 == 0) as u32) % 2);
        }
        let data = NumericDataset::new(&x, rows, 3, &y, 2, None).unwrap();
        let set_of = |keep: &dyn Fn(usize) -> bool| {
            let mut set = vec![0u64; data.words()];
            (0..data.n_groups()).filter(|&g| keep(g)).for_each(|g| set[g / 64] |= 1 << (g % 64));
            set
        };
        let (all, half) = (set_of(&|_| true), set_of(&|g| g % 2 == 0));
        assert!(data.n_groups() / 3 >= 64, "{} groups", data.n_groups());
        let config = GosdtConfig { max_depth: Some(3), ..Default::default() };
        let fresh = |set: &[u64], depth: u32| {
            let mut monitor = NoMonitor;
            let mut solver = Solver::new(&data, Misclassification::new(&data), Thresholds::new(&data), &config, None, &mut monitor);
            solver.kernel(Some(set), 0, depth, f64::INFINITY).unwrap().0.cost
        };
        let mut monitor = NoMonitor;
        let mut solver = Solver::new(&data, Misclassification::new(&data), Thresholds::new(&data), &config, None, &mut monitor);
        let sweep_bytes = |s: &Solver<'_, '_, NoMonitor, Misclassification, Thresholds>| match &s.depth2 {
            Kernel::Sweep(k) => k.bytes(),
            Kernel::Pairs(_) => unreachable!("thresholds go to the sweep kernel"),
        };
        let table_bytes = |s: &Solver<'_, '_, NoMonitor, Misclassification, Thresholds>| s.table.as_ref().map_or(0, Table::bytes);
        // The value-sum kernel at depth two, then the sweep at depth one on the same set:
        // the sweep takes the buffers and the value-sum kernel keeps less than half.
        let cost = solver.kernel(Some(&all), 0, 2, f64::INFINITY).unwrap().0.cost;
        assert_eq!(cost, fresh(&all, 2));
        let held = table_bytes(&solver);
        assert!(held > 8 * 3 * data.n_groups(), "{held} bytes");
        let cost = solver.kernel(Some(&all), 0, 1, f64::INFINITY).unwrap().0.cost;
        assert_eq!(cost, fresh(&all, 1));
        assert!(table_bytes(&solver) < held / 2, "{} of {held} bytes", table_bytes(&solver));
        // Back to the value-sum kernel: the sweep keeps less than half of its buffers.
        let held = sweep_bytes(&solver);
        let cost = solver.kernel(Some(&half), 0, 2, f64::INFINITY).unwrap().0.cost;
        assert_eq!(cost, fresh(&half, 2));
        assert!(sweep_bytes(&solver) < held / 2, "{} of {held} bytes", sweep_bytes(&solver));
        // The same kernel again on a smaller set: nothing moves, nothing grows.
        let (held, idle) = (table_bytes(&solver), sweep_bytes(&solver));
        let third = set_of(&|g| g % 3 == 0);
        let cost = solver.kernel(Some(&third), 0, 2, f64::INFINITY).unwrap().0.cost;
        assert_eq!(cost, fresh(&third, 2));
        assert_eq!((table_bytes(&solver), sweep_bytes(&solver)), (held, idle));
        // Every depth-one and depth-two answer on sets of either kernel after many moves.
        for (i, set) in [&all, &half, &third].into_iter().cycle().take(12).enumerate() {
            let depth = 1 + i as u32 % 2;
            let _ = solver.kernel(Some(set), 0, 1, f64::INFINITY);
            let cost = solver.kernel(Some(set), 0, depth, f64::INFINITY).unwrap().0.cost;
            assert_eq!(cost, fresh(set, depth));
        }
    }
}

#[cfg(test)]
mod side_bits_tests {
    use super::*;
    use crate::budget::NoMonitor;
    use crate::testing::random_rows;

    /// The sides' sums of every run over `set`, by the per-group loop and by population
    /// counts (`None` for the latter without [`SideBits`]).
    fn both_ways<M: Monitor, O: Objective, S: SplitFamily>(solver: &mut Solver<M, O, S>, set: &[u64]) -> Vec<(Vec<f64>, Vec<f64>, Vec<u32>, Option<(Vec<f64>, Vec<f64>, Vec<u32>)>)> {
        assert!(solver.level(0));
        let c = solver.t.obj.n_stats();
        let mut out = Vec::new();
        for &(first, end) in &solver.runs.clone() {
            let (first, len) = (first as usize, (end - first) as usize);
            let every = first == 0 && len == solver.t.splits.n_splits();
            let lv = &mut solver.levels[0];
            lv.set.copy_from_slice(set);
            let clear = |lv: &mut Level| {
                lv.right_weights[..len * c].fill(0.0);
                lv.right_minority[..len].fill(0.0);
                lv.right_rows[..len].fill(0);
            };
            clear(lv);
            lv.sum_sides(&solver.t.obj, &solver.t.splits, solver.t.data, None, first, len, every);
            let loop_sums = (lv.right_weights[..len * c].to_vec(), lv.right_minority[..len].to_vec(), lv.right_rows[..len].to_vec());
            let bit_sums = solver.side_bits.as_mut().map(|bits| {
                clear(lv);
                bits.work(set, len);
                bits.sums(set, first, len, c, &mut lv.right_weights, &mut lv.right_minority, &mut lv.right_rows);
                (lv.right_weights[..len * c].to_vec(), lv.right_minority[..len].to_vec(), lv.right_rows[..len].to_vec())
            });
            out.push((loop_sums.0, loop_sums.1, loop_sums.2, bit_sums));
        }
        out
    }

    /// A random subset of the groups (about two thirds), as words.
    fn subset(n: usize, seed: u64) -> Vec<u64> {
        let mut s = seed;
        let mut words = vec![0u64; n.div_ceil(64)];
        for g in 0..n {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            if (s >> 33) % 3 != 0 {
                words[g / 64] |= 1 << (g % 64);
            }
        }
        words
    }

    /// The sides' sums by population counts are exactly the per-group loop's, on zero-one
    /// columns with unit weights, whole weights of several bits (and groups of several
    /// rows); fractional weights and thresholds of numeric columns keep the loop only.
    #[test]
    fn side_sums_by_population_counts_are_the_loops() {
        for seed in 0..120u64 {
            let (rows, m, k) = (30 + (seed % 150) as usize, 2 + (seed % 9) as usize, 2 + (seed % 3) as usize);
            let (x, y, w) = random_rows(rows, m, k, seed + 3);
            let kind = seed % 3;
            let weights: Option<Vec<f64>> = match kind {
                0 => None,
                1 => Some(w.iter().map(|v| (v * 2.0 + (seed % 5) as f64 * 3.0).floor()).collect()),
                _ => Some(w),
            };
            let config = GosdtConfig { max_depth: Some(3), ..Default::default() };
            let mut monitor = NoMonitor;
            // Bits for whole weights on 0/1 columns only.
            let check = |sums: Vec<(Vec<f64>, Vec<f64>, Vec<u32>, Option<(Vec<f64>, Vec<f64>, Vec<u32>)>)>, zero_one: bool| {
                for (a, b, r, bits) in sums {
                    match bits {
                        Some((a2, b2, r2)) => {
                            assert!(kind != 2 && zero_one, "seed {seed}: bits for fractional weights or thresholds");
                            assert_eq!(a.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), a2.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), "seed {seed}: class sums");
                            assert_eq!(b.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), b2.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), "seed {seed}: floors");
                            assert_eq!(r, r2, "seed {seed}: rows");
                        }
                        None => assert!(kind == 2 || !zero_one, "seed {seed}: no bits for whole weights on 0/1 columns"),
                    }
                }
            };
            if seed % 2 == 0 {
                let data = BinaryDataset::new(&x, rows, m, &y, k, weights.as_deref()).unwrap();
                let set = subset(data.n_groups(), seed);
                let mut solver = Solver::new(&data, Misclassification::new(&data), ZeroOneColumns::new(&data), &config, None, &mut monitor);
                // The bits as the first pass over splits builds them.
                solver.side_bits_due();
                check(both_ways(&mut solver, &set), true);
            } else {
                let xf: Vec<f64> = x.iter().enumerate().map(|(i, &v)| v as f64 * (1 + i % 4) as f64).collect();
                let data = NumericDataset::new(&xf, rows, m, &y, k, weights.as_deref()).unwrap();
                let set = subset(data.n_groups(), seed);
                let mut solver = Solver::new(&data, Misclassification::new(&data), Thresholds::new(&data), &config, None, &mut monitor);
                solver.side_bits_due();
                check(both_ways(&mut solver, &set), false);
            }
        }
    }
}
