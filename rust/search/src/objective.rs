//! What the search minimises, as a policy (in the spirit of STreeD's optimisation task):
//! the statistics each equivalence class ("group") contributes, the loss and the label
//! of a leaf from the summed statistics of its groups, the equivalent-points floor of a
//! group and, optionally, a tighter bound on any split tree. The dependency-graph search
//! and the depth-two kernel are generic over it (monomorphised: no virtual call in the
//! hot loops). The per-leaf penalty and the minimum support stay in the `rules` module.
//!
//! Losses are in weight units; the search adds the penalty per leaf. Statistics are
//! additive: a node's statistics are the sum of its groups' statistics.
//!
//! # How to add an objective
//!
//! 1. Choose the statistics a group contributes so that a leaf's loss and label are
//!    functions of their sum (class weights for misclassification; weight, Σwy and Σwy²
//!    for squared error), and implement [`Objective`] for a struct that holds them (or
//!    reads them from the dataset, as [`Misclassification`] does).
//! 2. `group_floor` must be a true lower bound on the loss of the group's rows in any
//!    leaf (they are never separated); `leaf_loss` must be the least loss over labels,
//!    and `leaf_label` the label reaching it. Override `split_bound` (from a node's
//!    totals) or `set_bound` (from its groups, as [`SquaredError`]'s k-means bound) only
//!    with a bound that holds for every tree of two leaves or more; the search trusts it
//!    to prune.
//! 3. Dispatch to it once in `graph::run` (a field of the solver configurations), so the
//!    search and the depth-two kernel are compiled for it.
//! 4. Test it against the exhaustive oracle: `rust/search/tests/common` for the public
//!    solvers (see `cost_oracle.rs`), `testing::brute` for unit tests (see the squared
//!    error test in `graph.rs`).

use treeopt_core::dataset::leaf_loss;
use treeopt_core::Groups;

/// A leaf objective over the groups of a dataset ([`Groups`]).
pub trait Objective: Sync {
    /// What a leaf predicts (a class index for classification).
    type Label: Copy;
    /// Number of statistics per group (channels summed by the search).
    fn n_stats(&self) -> usize;
    /// The statistics of group `g`.
    fn group_stats(&self, g: usize) -> &[f64];
    /// The least loss group `g` incurs in any leaf: rows with one feature vector are
    /// never separated (equivalent points), so these floors add up to a lower bound.
    fn group_floor(&self, g: usize) -> f64;
    /// Loss of a leaf whose groups sum to `stats`, with its best label.
    fn leaf_loss(&self, stats: &[f64]) -> f64;
    /// True when the loss of a leaf is its statistics' total less the largest (the
    /// misclassified weight): with two statistics whose sum is exact, the smaller one.
    const LOSS_IS_MINORITY: bool = false;
    /// The label such a leaf predicts (for classes, ties go to the lowest index).
    fn leaf_label(&self, stats: &[f64]) -> Self::Label;
    /// Loss of group `g` in a leaf predicting `label`.
    fn group_loss(&self, g: usize, label: Self::Label) -> f64;
    /// A lower bound on the cost (loss + `penalty` per leaf) of any tree with at least
    /// two leaves and at most `depth` levels over a node with these statistics and
    /// equivalent-points floor, when the objective knows one tighter than
    /// `floor + 2 * penalty`.
    #[inline]
    fn split_bound(&self, _stats: &[f64], _floor: f64, _penalty: f64, _depth: u32) -> Option<f64> {
        None
    }
    /// Like [`Objective::split_bound`], from the groups of the subproblem `set` itself
    /// (dearer: the search asks it per subproblem, not per candidate side). Only whether
    /// the bound reaches `target` matters: it may stop refining as soon as it does, or
    /// as soon as it is clear that it cannot (infinite `target`: the full bound).
    #[inline]
    fn set_bound(&self, _set: &[u64], _penalty: f64, _depth: u32, _target: f64) -> Option<f64> {
        None
    }
    /// False when [`Objective::set_bound`] is always `None` (the search then does not
    /// form the sets it would ask about).
    #[inline]
    fn has_set_bound(&self) -> bool {
        false
    }
    /// True when statistics `stats` hold some weight (the node is not empty). The
    /// depth-two kernel forms some sides by subtraction, so an empty side may carry
    /// rounding residues: an objective whose statistics are not class weights should
    /// compare its weight with a threshold below the lightest group.
    #[inline]
    fn has_weight(&self, stats: &[f64]) -> bool {
        stats.iter().any(|&w| w > 0.0)
    }
    /// True when rounding residues in summed statistics are harmless: [`Objective::has_weight`]
    /// compares the weight with a threshold (an empty side's residue is not a leaf) and
    /// the loss moves only by the residue's size. The depth-two kernel then updates
    /// sums of non-integral statistics up and down (MurTree's incremental counting)
    /// instead of summing them afresh; class weights are compared with zero, so the
    /// default is false (their sums are updated only while they stay exact).
    #[inline]
    fn tolerates_rounding(&self) -> bool {
        false
    }
    /// A constant `k` such that moving statistics `s` from one leaf to another changes
    /// neither leaf's loss by more than `k` times the sum of `s` (and adding statistics
    /// to a leaf never lowers its loss), when the objective knows one. The sweep kernel
    /// then skips thresholds that cannot beat the best one by that argument (ConTree's
    /// neighbourhood pruning); `None` turns that pruning off.
    #[inline]
    fn max_unit_loss(&self) -> Option<f64> {
        None
    }
    /// An upper bound on how much the rows of group `g` raise the loss of any leaf they
    /// join (empty or not), when removing rows from a leaf never raises its loss; `None`
    /// when the objective knows none. STreeD's similarity bound rests on it: a tree of a
    /// set of groups costs at least the optimum of a solved set less the insertion costs
    /// of the solved set's groups it lacks. Defaults to [`Objective::max_unit_loss`]
    /// times the group's summed statistics.
    #[inline]
    fn insertion_cost(&self, g: usize) -> Option<f64> {
        self.max_unit_loss().map(|k| k * self.group_stats(g).iter().sum::<f64>())
    }
    /// True when every group's statistics are known to be row counts (whole numbers
    /// below 2^32), so that the kernels need not check each value; false when unknown.
    #[inline]
    fn stats_are_counts(&self) -> bool {
        false
    }
    /// An impurity of a node with statistics `stats`, only to order candidate splits
    /// (good first, so the bounds bite early); any value is correct, the search stays
    /// exact. Defaults to the leaf loss.
    #[inline]
    fn impurity(&self, stats: &[f64]) -> f64 {
        self.leaf_loss(stats)
    }
}

/// Gini impurity of class weights `stats`, scaled by their total: `W - sum(w_k^2) / W`.
/// Smoother than the misclassified weight, it tells good splits apart where every
/// stump still predicts the majority (ConTree orders features by it).
#[inline]
pub fn gini(stats: &[f64]) -> f64 {
    let total: f64 = stats.iter().sum();
    if total <= 0.0 {
        return 0.0;
    }
    total - stats.iter().map(|w| w * w).sum::<f64>() / total
}

/// Weighted misclassification: statistics are the class weights, a leaf predicts its
/// heaviest class and loses the rest.
pub struct Misclassification<'a> {
    data: &'a Groups,
}

impl<'a> Misclassification<'a> {
    pub fn new(data: &'a Groups) -> Self {
        Misclassification { data }
    }
}

/// The statistics of an objective over classes, for its `impl Objective` block: a
/// leaf predicts a class index and each group contributes its class weights, read from
/// the struct's `data: &Groups`.
macro_rules! class_weight_statistics {
    () => {
        type Label = usize;
        #[inline]
        fn n_stats(&self) -> usize {
            self.data.n_classes()
        }
        #[inline]
        fn group_stats(&self, g: usize) -> &[f64] {
            self.data.class_weights(g)
        }
    };
}

impl Objective for Misclassification<'_> {
    class_weight_statistics!();
    const LOSS_IS_MINORITY: bool = true;
    #[inline]
    fn group_floor(&self, g: usize) -> f64 {
        self.data.group_minority(g)
    }
    #[inline]
    fn leaf_loss(&self, stats: &[f64]) -> f64 {
        leaf_loss(stats).0
    }
    #[inline]
    fn leaf_label(&self, stats: &[f64]) -> usize {
        leaf_loss(stats).1
    }
    #[inline]
    fn group_loss(&self, g: usize, label: usize) -> f64 {
        self.data.group_weight(g) - self.data.class_weights(g)[label]
    }
    /// Moving weight `w` between leaves changes each one's misclassified weight by at most `w`.
    #[inline]
    fn max_unit_loss(&self) -> Option<f64> {
        Some(1.0)
    }
    /// The group's weight, as stored: the sum of its class weights (what the default
    /// adds up again, times one).
    #[inline]
    fn insertion_cost(&self, g: usize) -> Option<f64> {
        Some(self.data.group_weight(g))
    }
    #[inline]
    fn stats_are_counts(&self) -> bool {
        self.data.counts_only()
    }
    #[inline]
    fn impurity(&self, stats: &[f64]) -> f64 {
        gini(stats)
    }
    /// With three or more classes, each leaf serving one class bounds a split tree too.
    #[inline]
    fn split_bound(&self, stats: &[f64], floor: f64, penalty: f64, depth: u32) -> Option<f64> {
        (stats.len() > 2).then(|| largest_classes_bound(stats, floor, penalty, depth))
    }
}

/// Least cost of any split tree of a node with these class totals (three or more
/// classes): a tree with `L >= 2` leaves misclassifies at least the equivalent-points
/// weight `minority`, and at least all but the `L` largest class totals (each leaf
/// predicts one class), and pays `L` penalties; `L <= 2^depth`. With many classes and a
/// penalty above a class's share this proves a leaf optimal at once.
fn largest_classes_bound(totals: &[f64], minority: f64, penalty: f64, depth: u32) -> f64 {
    let max_leaves = if depth >= 63 { usize::MAX } else { 1usize << depth };
    if penalty == 0.0 && max_leaves >= totals.len() {
        // A leaf per class misclassifies none beyond the floor, at no cost: the bound is
        // the floor itself (what the loop below ends at). The search's common case
        // (accuracy with depth two or more left), asked for every candidate's sides.
        return minority;
    }
    // Sorted descending on the stack when the classes are few (no allocation per call).
    let mut small = [0.0f64; 16];
    let mut large = Vec::new();
    let sorted: &mut [f64] = if totals.len() <= small.len() {
        small[..totals.len()].copy_from_slice(totals);
        &mut small[..totals.len()]
    } else {
        large.extend_from_slice(totals);
        &mut large
    };
    sorted.sort_unstable_by(|a, b| b.total_cmp(a));
    let total: f64 = sorted.iter().sum();
    let mut covered = sorted[0];
    let mut best = f64::INFINITY;
    for (l, &t) in sorted.iter().enumerate().skip(1) {
        let leaves = l + 1;
        if leaves > max_leaves {
            break;
        }
        covered += t;
        let missed = (total - covered).max(0.0);
        best = best.min(missed.max(minority) + penalty * leaves as f64);
        if missed <= minority {
            break; // more leaves only add penalties
        }
    }
    if best.is_finite() { best } else { minority + 2.0 * penalty }
}

/// Sums the statistics of the groups in `set` into `out` (length `n_stats`).
pub(crate) fn stats_totals<O: Objective>(obj: &O, set: &[u64], out: &mut [f64]) {
    out.fill(0.0);
    treeopt_core::bitset::for_each_one(set, |g| {
        for (o, w) in out.iter_mut().zip(obj.group_stats(g)) {
            *o += w;
        }
    });
}

/// Cost-sensitive misclassification: a row of class `y` in a leaf predicting `k` costs
/// its weight times `C[y, k]`; a leaf predicts the class of least total cost. With
/// `C = 1 - I` this is [`Misclassification`]. The many-class bound of plain
/// misclassification does not hold under costs, so only the equivalent-points floor
/// (each group at its cheapest label) bounds a split tree.
pub struct CostSensitive<'a> {
    data: &'a Groups,
    /// Row-major `n_classes x n_classes`: rows the true class, columns the predicted one.
    cost: Vec<f64>,
    floor: Vec<f64>,
}

impl<'a> CostSensitive<'a> {
    /// Checks that `cost` is a square matrix over the dataset's classes, finite,
    /// non-negative, with a zero diagonal.
    pub fn new(data: &'a Groups, cost: &[f64]) -> treeopt_core::Result<Self> {
        let c = data.n_classes();
        let fail = |m: String| Err(treeopt_core::Error::new(format!("misclassification_cost {m}")));
        if cost.len() != c * c {
            return fail(format!("holds {} values; it must be a square {c} x {c} matrix, one row and one column per class", cost.len()));
        }
        if let Some(i) = cost.iter().position(|v| !v.is_finite() || *v < 0.0) {
            return fail(format!("[{}, {}] is {}; costs must be finite and >= 0", i / c, i % c, cost[i]));
        }
        if let Some(k) = (0..c).find(|&k| cost[k * c + k] != 0.0) {
            return fail(format!("[{k}, {k}] is {}; predicting the true class must cost 0", cost[k * c + k]));
        }
        let mut obj = CostSensitive { data, cost: cost.to_vec(), floor: Vec::new() };
        obj.floor = (0..data.n_groups()).map(|g| obj.leaf_loss(data.class_weights(g))).collect();
        Ok(obj)
    }

    /// Cost of predicting `label` for rows whose class weights are `stats`.
    #[inline]
    fn cost_of(&self, stats: &[f64], label: usize) -> f64 {
        let c = stats.len();
        stats.iter().enumerate().map(|(y, w)| w * self.cost[y * c + label]).sum()
    }

    /// The cheapest label (lowest on ties) and its cost.
    #[inline]
    fn best(&self, stats: &[f64]) -> (f64, usize) {
        (0..stats.len()).fold((f64::INFINITY, 0), |(best, at), k| {
            let cost = self.cost_of(stats, k);
            if cost < best { (cost, k) } else { (best, at) }
        })
    }
}

impl Objective for CostSensitive<'_> {
    class_weight_statistics!();
    #[inline]
    fn group_floor(&self, g: usize) -> f64 {
        self.floor[g]
    }
    #[inline]
    fn leaf_loss(&self, stats: &[f64]) -> f64 {
        self.best(stats).0
    }
    #[inline]
    fn leaf_label(&self, stats: &[f64]) -> usize {
        self.best(stats).1
    }
    #[inline]
    fn group_loss(&self, g: usize, label: usize) -> f64 {
        self.cost_of(self.data.class_weights(g), label)
    }
    /// A row of weight `w` costs at most `w` times the largest entry at any label.
    #[inline]
    fn max_unit_loss(&self) -> Option<f64> {
        Some(self.cost.iter().cloned().fold(0.0, f64::max))
    }
    #[inline]
    fn impurity(&self, stats: &[f64]) -> f64 {
        gini(stats)
    }
}

/// Squared error of a real target, variance-normalised: rows are scored on the
/// standardised target `z = (y - mean) / scale` (`mean` and `scale²` the weighted mean
/// and variance of `y`; `scale = 1` when `y` is constant), so that a leaf's loss is its
/// weighted sum of squared deviations divided by the variance, and the search's
/// `loss / total weight` is the weighted mean squared error over the variance of `y`.
/// Statistics per group: weight, Σwz, Σwz²; a leaf predicts the weighted mean.
pub struct SquaredError {
    /// Per group, (weight, Σwz, Σwz²).
    stats: Vec<f64>,
    /// Per group, the weighted squared deviation of its rows from their own mean.
    floor: Vec<f64>,
    /// Per group, the most its rows add to any leaf's loss ([`Objective::insertion_cost`]).
    insertion: Vec<f64>,
    /// Half the least weight of a group: statistics lighter than this are empty.
    empty_below: f64,
    mean: f64,
    scale: f64,
    /// Per group, its rank in the order of the group means: a set's groups come out
    /// sorted by mean from a bitset over ranks, without a comparison sort.
    rank: Vec<u32>,
    /// Per rank, its group.
    by_rank: Vec<u32>,
    /// Scratch of the k-means bound: the bitset over ranks and the programme's buffers.
    scratch: std::sync::Mutex<(Vec<u64>, KMeans)>,
}

/// Weighted sum of squared deviations from the mean of statistics (weight, Σwz, Σwz²).
#[inline]
fn squared_deviation(s: &[f64]) -> f64 {
    if s[0] > 0.0 { (s[2] - s[1] * s[1] / s[0]).max(0.0) } else { 0.0 }
}

impl SquaredError {
    /// From the target `y` and the weights (`None`: all 1) of the rows `data` was built
    /// from (rows of zero weight take no part). Refuses a target of the wrong length or
    /// with values that are not finite.
    pub fn new(data: &Groups, y: &[f64], weights: Option<&[f64]>) -> treeopt_core::Result<Self> {
        if y.len() != data.n_rows() {
            return Err(treeopt_core::Error::new(format!("{} targets for {} rows; pass one target per row", y.len(), data.n_rows())));
        }
        if let Some(i) = y.iter().position(|v| !v.is_finite()) {
            return Err(treeopt_core::Error::new(format!("target {} of row {i} is not finite; targets must be finite numbers", y[i])));
        }
        let w = |i: usize| weights.map_or(1.0, |w| w[i]);
        let total = data.total_weight();
        // Centred in two steps: the rounded mean, then the weighted mean of the deviations
        // from it (the rounded mean of a nearly constant target, 16 and 16 + 1 ulp say, is
        // off by as much as its spread; uncorrected, the variance would count that offset
        // and the standardised target would not have mean 0 and variance 1).
        let rough_mean = (0..y.len()).map(|i| w(i) * y[i]).sum::<f64>() / total;
        let deviation: Vec<f64> = y.iter().map(|v| v - rough_mean).collect();
        let correction = (0..y.len()).map(|i| w(i) * deviation[i]).sum::<f64>() / total;
        let mean = rough_mean + correction;
        let var = (0..y.len()).map(|i| w(i) * (deviation[i] - correction).powi(2)).sum::<f64>() / total;
        let kept = || (0..y.len()).filter(|&i| w(i) > 0.0).map(|i| y[i]);
        let constant = kept().fold(f64::INFINITY, f64::min) == kept().fold(f64::NEG_INFINITY, f64::max);
        let scale = if constant || !var.is_finite() || var <= 0.0 { 1.0 } else { var.sqrt() };
        let z: Vec<f64> = deviation.iter().map(|d| (d - correction) / scale).collect();
        let moment = |p: i32| data.sum_by_group(&(0..y.len()).map(|i| w(i) * z[i].powi(p)).collect::<Vec<_>>());
        let (m0, m1, m2) = (moment(0)?, moment(1)?, moment(2)?);
        let stats: Vec<f64> = (0..data.n_groups()).flat_map(|g| [m0[g], m1[g], m2[g]]).collect();
        let floor: Vec<f64> = stats.chunks(3).map(squared_deviation).collect();
        // A leaf's mean lies within the range of the standardised targets, so a group of
        // weight w and mean m joining it adds at most its own squared deviation plus
        // w (m - mean)^2 <= w x (m's distance to the farther end)^2.
        let kept_z = || (0..y.len()).filter(|&i| w(i) > 0.0).map(|i| z[i]);
        let (z_lo, z_hi) = (kept_z().fold(f64::INFINITY, f64::min), kept_z().fold(f64::NEG_INFINITY, f64::max));
        let insertion = (0..data.n_groups())
            .map(|g| {
                let m = m1[g] / m0[g];
                floor[g] + m0[g] * (m - z_lo).max(z_hi - m).powi(2)
            })
            .collect();
        let empty_below = m0.iter().cloned().fold(f64::INFINITY, f64::min) / 2.0;
        let mut by_rank: Vec<u32> = (0..data.n_groups() as u32).collect();
        by_rank.sort_by(|&a, &b| (m1[a as usize] / m0[a as usize]).total_cmp(&(m1[b as usize] / m0[b as usize])));
        let mut rank = vec![0u32; data.n_groups()];
        for (r, &g) in by_rank.iter().enumerate() {
            rank[g as usize] = r as u32;
        }
        let scratch = std::sync::Mutex::new((vec![0u64; data.words()], KMeans::default()));
        Ok(SquaredError { stats, floor, insertion, empty_below, mean, scale, rank, by_rank, scratch })
    }

    /// Converts a label (a standardised mean) to the units of the target.
    pub fn to_target_units(&self) -> impl Fn(f64) -> f64 {
        let (mean, scale) = (self.mean, self.scale);
        move |z| mean + scale * z
    }
}

impl Objective for SquaredError {
    /// The standardised mean (see [`SquaredError::to_target_units`]).
    type Label = f64;
    #[inline]
    fn n_stats(&self) -> usize {
        3
    }
    #[inline]
    fn group_stats(&self, g: usize) -> &[f64] {
        &self.stats[3 * g..3 * g + 3]
    }
    #[inline]
    fn group_floor(&self, g: usize) -> f64 {
        self.floor[g]
    }
    #[inline]
    fn leaf_loss(&self, stats: &[f64]) -> f64 {
        squared_deviation(stats)
    }
    #[inline]
    fn leaf_label(&self, stats: &[f64]) -> f64 {
        if stats[0] > 0.0 { stats[1] / stats[0] } else { 0.0 }
    }
    #[inline]
    fn group_loss(&self, g: usize, mean: f64) -> f64 {
        let s = self.group_stats(g);
        (s[2] - 2.0 * mean * s[1] + mean * mean * s[0]).max(0.0)
    }
    #[inline]
    fn has_weight(&self, stats: &[f64]) -> bool {
        stats[0] > self.empty_below
    }
    /// Emptiness is told by a threshold, and the loss is clamped at zero.
    #[inline]
    fn tolerates_rounding(&self) -> bool {
        true
    }
    /// A leaf's squared error never falls when it gains rows, nor rises when it loses
    /// them; a group joining it adds at most `floor + w x (distance of its mean to the
    /// farther end of the target's range)^2`.
    #[inline]
    fn insertion_cost(&self, g: usize) -> Option<f64> {
        Some(self.insertion[g])
    }
    #[inline]
    fn has_set_bound(&self) -> bool {
        true
    }
    /// OSRT's k-means equivalent-points bound (Zhang et al. 2023, §4).
    fn set_bound(&self, set: &[u64], penalty: f64, depth: u32, target: f64) -> Option<f64> {
        let mut scratch = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
        let (ranks, kmeans) = &mut *scratch;
        let mut floor = 0.0;
        treeopt_core::bitset::for_each_one(set, |g| {
            let r = self.rank[g] as usize;
            ranks[r / 64] |= 1 << (r % 64);
            floor += self.floor[g];
        });
        kmeans.clear();
        for (wi, word) in ranks.iter_mut().enumerate() {
            let mut w = std::mem::take(word);
            while w != 0 {
                // Ranks ascending: the groups in the order of their means.
                let g = self.by_rank[wi * 64 + w.trailing_zeros() as usize];
                w &= w - 1;
                let s = self.group_stats(g as usize);
                kmeans.push(s[1] / s[0], s[0], s[1]);
            }
        }
        kmeans.bound(floor, penalty, depth, target)
    }
}

/// Layers of the k-means dynamic programme computed at most (a tree with more leaves
/// is bounded by its penalties alone).
const KMEANS_LAYERS: usize = 64;

/// OSRT's k-means bound on any tree of two or more leaves (and at most `2^depth`) over
/// groups pushed as (mean, weight, Σwz) in ascending order of their means: a leaf's
/// squared error is its groups' floors plus the weighted squared deviation of their
/// means from the leaf's mean, and a tree of `k` leaves partitions the groups into `k`
/// sets, so it loses at least the floor plus the optimal weighted 1-D k-means cost of
/// the group means, `KM_k` (whose optimal clusters are intervals of the sorted means:
/// a dynamic programme, here with the divide-and-conquer speed-up of its monotone
/// split points). The bound is `floor + min over k of (KM_k + k penalty)`; past the
/// layers computed, `KM_k >= 0` leaves `k penalty`. `KM_k` is convex in `k` (the cost
/// of an interval of sorted means satisfies the quadrangle inequality, and minimum
/// `k`-link paths under it are convex in `k`: Aggarwal, Schieber and Tokuyama 1994), so
/// the programme stops at the first layer whose cluster more saves at most one penalty
/// (as STreeD's does). The buffers are kept across calls.
#[derive(Debug, Default)]
pub struct KMeans {
    /// Prefix sums over the distinct means: weight, Σwz and Σ (Σwz)² / w (per group).
    pw: Vec<f64>,
    ps: Vec<f64>,
    pq: Vec<f64>,
    last_mean: f64,
    prev: Vec<f64>,
    cur: Vec<f64>,
    stack: Vec<(usize, usize, usize, usize)>,
    /// Scratch of [`KMeans::penalised`]: clusters per prefix, the deque of candidates.
    clusters: Vec<usize>,
    candidates: std::collections::VecDeque<(usize, usize)>,
}

impl KMeans {
    /// Starts a new set of points.
    pub fn clear(&mut self) {
        for p in [&mut self.pw, &mut self.ps, &mut self.pq] {
            p.clear();
            p.push(0.0);
        }
        self.last_mean = f64::NAN;
    }

    /// Adds a group (not below the previous one's mean); one of the same mean joins it.
    pub fn push(&mut self, mean: f64, w: f64, s: f64) {
        let n = self.pw.len() - 1;
        if mean == self.last_mean {
            self.pw[n] += w;
            self.ps[n] += s;
            self.pq[n] += s * s / w;
        } else {
            self.pw.push(self.pw[n] + w);
            self.ps.push(self.ps[n] + s);
            self.pq.push(self.pq[n] + s * s / w);
            self.last_mean = mean;
        }
    }

    /// The least `KM_k + k penalty` over every `k >= 1` and a `k` reaching it, in one
    /// pass instead of a layer per `k` (the Lagrangian form of the programme): the best
    /// last split point of a prefix is non-decreasing in its length (the quadrangle
    /// inequality), so a later candidate that beats an earlier one on some prefix beats
    /// it on every longer one, and the candidates live on a deque, each the best over
    /// an interval of prefixes found by bisection.
    /// `best`, `clusters` and `candidates` are scratch (per prefix: its least cost and
    /// its clusters).
    fn penalised(
        best: &mut Vec<f64>,
        clusters: &mut Vec<usize>,
        candidates: &mut std::collections::VecDeque<(usize, usize)>,
        n: usize,
        penalty: f64,
        cost: &impl Fn(usize, usize) -> f64,
    ) -> (f64, usize) {
        best.clear();
        best.resize(n + 1, 0.0);
        clusters.clear();
        clusters.resize(n + 1, 0);
        // (candidate split point, first prefix length it is the best for).
        candidates.clear();
        candidates.push_back((0, 1));
        for j in 1..=n {
            while candidates.len() > 1 && candidates[1].1 <= j {
                candidates.pop_front();
            }
            let i = candidates[0].0;
            best[j] = best[i] + cost(i, j) + penalty;
            clusters[j] = clusters[i] + 1;
            if j == n {
                break;
            }
            let beats = |c: usize, x: usize| best[j] + cost(j, x) <= best[c] + cost(c, x);
            loop {
                let Some(&(c, start)) = candidates.back() else {
                    candidates.push_back((j, j + 1));
                    break;
                };
                let start = start.max(j + 1);
                if beats(c, start) {
                    candidates.pop_back();
                    continue;
                }
                if beats(c, n) {
                    // The first prefix length in (start, n] where j beats c.
                    let (mut lo, mut hi) = (start, n);
                    while hi - lo > 1 {
                        let mid = lo + (hi - lo) / 2;
                        if beats(c, mid) { hi = mid } else { lo = mid }
                    }
                    candidates.push_back((j, hi));
                }
                break;
            }
        }
        (best[n], clusters[n])
    }

    /// The bound for the points pushed, with equivalent-points floor `floor`; `None` when
    /// it cannot beat `floor + 2 penalty`. Stops refining once it reaches `target` or
    /// some number of leaves costs less than it (the bound can then only fall short).
    pub fn bound(&mut self, floor: f64, penalty: f64, depth: u32, target: f64) -> Option<f64> {
        let n = self.pw.len() - 1;
        let max_leaves = if depth >= 63 { usize::MAX } else { 1usize << depth };
        // Fewer points than leaves allowed: every mean its own cluster, KM = 0.
        if n <= 2 || max_leaves < 2 {
            return None;
        }
        let (pw, ps, pq) = (&self.pw, &self.ps, &self.pq);
        let cost = |i: usize, j: usize| {
            let (w, s) = (pw[j] - pw[i], ps[j] - ps[i]);
            (pq[j] - pq[i] - s * s / w).max(0.0)
        };
        let base = floor + 2.0 * penalty;
        // Rounding in the prefix sums may lift a cost a hair: keep the bound below it.
        let slack = 1e-12 * (pq[n] + floor.abs());
        // Trees of more than `k` leaves: at least their penalties (KM >= 0).
        let beyond = |k: usize| if k < max_leaves { floor + (k + 1) as f64 * penalty } else { f64::INFINITY };
        let last = max_leaves.min(n - 1).min(KMEANS_LAYERS);
        let two = || floor + (1..n).map(|i| cost(0, i) + cost(i, n)).fold(f64::INFINITY, f64::min) + 2.0 * penalty;
        if target.is_finite() {
            // Two leaves first, in one pass: when they already cost less than the
            // target, so does the bound, and the programme is not worth running.
            let two = two();
            if two < target {
                let bound = two.min(beyond(2)) - slack;
                return (bound > base).then_some(bound);
            }
        }
        if max_leaves > 4 {
            // Many leaves allowed: the least over every k in one pass. When it takes
            // two clusters or more (and no more than the leaves allowed), it is the
            // bound; when one, KM_k + k penalty grows from k = 1 on (convexity), so the
            // least over k >= 2 is at k = 2.
            let (least, k) = Self::penalised(&mut self.prev, &mut self.clusters, &mut self.candidates, n, penalty, &cost);
            if k <= max_leaves {
                let bound = if k >= 2 { floor + least } else { two() } - slack;
                return (bound > base).then_some(bound);
            }
        }
        self.prev.clear();
        self.prev.extend((0..=n).map(|j| if j == 0 { 0.0 } else { cost(0, j) }));
        self.cur.clear();
        self.cur.resize(n + 1, f64::INFINITY);
        let mut best = f64::INFINITY;
        for k in 2..=last {
            // cur[j] = min over i in [k-1, j) of prev[i] + cost(i, j), for j in [k, n].
            layer(&self.prev, &mut self.cur, &mut self.stack, k, n, &cost);
            best = best.min(floor + self.cur[n] + k as f64 * penalty);
            // KM_k is convex in k (see the type's documentation): once a cluster more
            // gains at most one penalty, no larger k costs less than the best found.
            let levelled = self.prev[n] - self.cur[n] <= penalty;
            std::mem::swap(&mut self.prev, &mut self.cur);
            let bound = if levelled { best } else { best.min(beyond(k)) };
            // Done when more leaves cost more (convexity, or penalties alone) than the
            // best found, when the bound is known to reach the target or to fall short
            // of it, or at the last layer.
            if levelled || beyond(k) >= best || bound >= target || (best < target && target.is_finite()) || k == last {
                let bound = bound - slack;
                return (bound > base).then_some(bound);
            }
        }
        None
    }
}

/// One layer of the k-means programme by divide and conquer: the best split point of
/// `j` is non-decreasing in `j`. `stack` is scratch.
fn layer(prev: &[f64], cur: &mut [f64], stack: &mut Vec<(usize, usize, usize, usize)>, k: usize, n: usize, cost: &impl Fn(usize, usize) -> f64) {
    cur.fill(f64::INFINITY);
    // (j range, split range) left to solve.
    stack.clear();
    stack.push((k, n, k - 1, n - 1));
    while let Some((jlo, jhi, ilo, ihi)) = stack.pop() {
        if jlo > jhi {
            continue;
        }
        let j = (jlo + jhi) / 2;
        let (mut best, mut at) = (f64::INFINITY, ilo);
        for (i, &p) in prev.iter().enumerate().take(ihi.min(j - 1) + 1).skip(ilo) {
            let v = p + cost(i, j);
            if v < best {
                best = v;
                at = i;
            }
        }
        cur[j] = best;
        if j > jlo {
            stack.push((jlo, j - 1, ilo, at));
        }
        stack.push((j + 1, jhi, at, ihi));
    }
}

#[cfg(test)]
mod tests {
    use super::KMeans;

    /// The bound of [`KMeans`] on groups in any order.
    fn kmeans_bound(groups: &mut [(f64, f64, f64)], floor: f64, penalty: f64, depth: u32, target: f64) -> Option<f64> {
        groups.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut k = KMeans::default();
        k.clear();
        for &(m, w, s) in groups.iter() {
            k.push(m, w, s);
        }
        k.bound(floor, penalty, depth, target)
    }

    /// Least Σ (between-group squared error of each part) + `penalty` x parts over every
    /// partition of the groups (mean, weight, Σwz) into 2..=max_parts parts.
    fn brute(groups: &[(f64, f64, f64)], penalty: f64, max_parts: usize) -> f64 {
        let n = groups.len();
        let mut label = vec![0usize; n];
        let mut best = f64::INFINITY;
        // Restricted growth strings enumerate the set partitions.
        loop {
            let parts = label.iter().max().unwrap() + 1;
            if (2..=max_parts).contains(&parts) {
                let mut cost = parts as f64 * penalty;
                for p in 0..parts {
                    let (mut w, mut s, mut q) = (0.0, 0.0, 0.0);
                    for (_, &(m, gw, gs)) in groups.iter().enumerate().filter(|(g, _)| label[*g] == p) {
                        w += gw;
                        s += gs;
                        q += gw * m * m;
                    }
                    cost += q - s * s / w;
                }
                best = best.min(cost);
            }
            // Next restricted growth string.
            let mut i = n - 1;
            loop {
                if i == 0 {
                    return best;
                }
                let cap = label[..i].iter().max().unwrap() + 1;
                if label[i] < cap {
                    label[i] += 1;
                    label[i + 1..].iter_mut().for_each(|l| *l = 0);
                    break;
                }
                i -= 1;
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        /// Groups as (mean, weight, weighted sum); means on four levels, tied or spread.
        #[test]
        fn the_kmeans_bound_is_the_least_cost_over_every_partition(
            draws in proptest::collection::vec((0u8..4, 0.0f64..1.0, 0.5f64..3.5), 3..8),
            spread in proptest::bool::ANY,
            penalty in proptest::sample::select(vec![0.0, 0.05, 0.3, 2.0]),
            depth in 1u32..4,
            floor in 0.0f64..1.0,
        ) {
            let groups: Vec<(f64, f64, f64)> = draws
                .iter()
                .map(|&(level, jitter, w)| {
                    let m = level as f64 + if spread { jitter } else { 0.0 };
                    (m, w, m * w)
                })
                .collect();
            let want = floor + brute(&groups, penalty, 1 << depth);
            let got = kmeans_bound(&mut groups.clone(), floor, penalty, depth, f64::INFINITY).unwrap_or(floor + 2.0 * penalty);
            proptest::prop_assert!(got <= want + 1e-12, "bound {} above the least partition cost {}", got, want);
            proptest::prop_assert!(got >= want - 1e-9 || got == floor + 2.0 * penalty, "bound {} below the least cost {}", got, want);
        }

        /// The convexity of `KM_k` in `k` that lets [`KMeans::bound`] stop early, on up to
        /// 24 weighted points (each `KM_k` by the plain quadratic programme over the
        /// sorted points): each cluster more saves no more than the one before.
        #[test]
        fn the_optimal_kmeans_cost_is_convex_in_the_number_of_clusters(
            mut points in proptest::collection::vec((-3.0f64..3.0, 0.1f64..4.0), 3..24),
        ) {
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            let n = points.len();
            let cost = |i: usize, j: usize| {
                let part = &points[i..j];
                let (w, s) = part.iter().fold((0.0, 0.0), |(w, s), &(m, pw)| (w + pw, s + m * pw));
                part.iter().map(|&(m, pw)| pw * (m - s / w).powi(2)).sum::<f64>()
            };
            // km[j]: the least cost of the first j points in k clusters.
            let mut km: Vec<f64> = (0..=n).map(|j| if j == 0 { 0.0 } else { cost(0, j) }).collect();
            let mut by_k = vec![km[n]];
            for k in 2..=n {
                km = (0..=n).map(|j| if j < k { f64::INFINITY } else { (k - 1..j).map(|i| km[i] + cost(i, j)).fold(f64::INFINITY, f64::min) }).collect();
                by_k.push(km[n]);
            }
            for k in 1..by_k.len() - 1 {
                let (gain, next) = (by_k[k - 1] - by_k[k], by_k[k] - by_k[k + 1]);
                proptest::prop_assert!(next <= gain + 1e-9 * (1.0 + by_k[0]), "KM gains {} then {} at k = {}", gain, next, k + 1);
            }
        }

        /// The many-class bound, fast paths included (no penalty with a leaf per class;
        /// the classes sorted on the stack or, past sixteen, on the heap), against its
        /// definition: the least over `L` in `2..=min(2^depth, k)` leaves of the weight
        /// outside the `L` largest classes (at least the floor) plus `L` penalties.
        #[test]
        fn the_largest_classes_bound_is_its_definition(
            totals in proptest::collection::vec(0.0f64..5.0, 3..20),
            floor_share in 0.0f64..1.0,
            penalty in proptest::prop_oneof![proptest::strategy::Just(0.0), 0.0f64..2.0],
            depth in 1u32..6,
        ) {
            let mut sorted = totals.clone();
            sorted.sort_by(|a, b| b.total_cmp(a));
            let total: f64 = totals.iter().sum();
            let floor = floor_share * (total - sorted[0]);
            let max_leaves = (1usize << depth).min(totals.len());
            let want = (2..=max_leaves)
                .map(|l| (total - sorted[..l].iter().sum::<f64>()).max(0.0).max(floor) + penalty * l as f64)
                .fold(f64::INFINITY, f64::min);
            let got = super::largest_classes_bound(&totals, floor, penalty, depth);
            proptest::prop_assert!((got - want).abs() <= 1e-9 * (1.0 + total), "bound {} against {}", got, want);
        }
    }
}
