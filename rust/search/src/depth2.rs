//! Exact optimal subtrees of depth one or two from pairwise counts (the specialised
//! depth-two solver of MurTree, Demirović et al., JMLR 2022, §4.4): one pass over the
//! captured groups accumulates, for every pair of features, the objective's statistics
//! (class weights for misclassification; and, only when needed, the row count and the
//! reference loss) of the rows where both are 1;
//! every depth-two tree is then scored from those sums without touching the data again.
//! A feature equal to 1 in most groups is counted where it is 0 instead (as STreeD does):
//! the pairs a group adds grow with the square of its listed features.
//!
//! Children are closed by the same rules as in the graph search, except that the
//! equivalent-points weight is taken as zero: that only closes fewer nodes, and a node
//! the search closes can never gain from a split, so both agree on every optimum.

use crate::objective::Objective;
use crate::rules::{side, Rules, Side};
use crate::split::{SplitFamily, Task};
use treeopt_core::bitset::{add_pair_sums, add_row_counts, count_and_not, for_each_one, is_empty, popcount, vector_popcount, with_bit_extract, with_popcount};

/// A subtree of depth at most two: `None` children are leaves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SmallTree {
    /// Cost in weight units (misclassified weight + penalty x leaves).
    pub cost: f64,
    /// Root feature, with the features of its left and right children.
    pub split: Option<(u32, Option<u32>, Option<u32>)>,
}

/// Bytes the pair sums may take when no memory limit forces less: past this the
/// pairs are summed in blocks of root features, one pass over the groups per block.
pub(crate) const PAIR_CAP: usize = 128 << 20;

/// Below this many bytes of pair sums over all the dataset's features, a call skips the
/// selection of active features (its overhead dominates on narrow data).
const SMALL_TRIANGLE: usize = 1 << 20;

/// Splitting features from which [`Depth2::pair_stumps`] runs in vectors (below, the
/// set-up costs more than the lanes save).
const VECTOR_STUMPS: usize = 16;

/// Optima of recent sets kept for the similarity bound.
const SOLVED_KEPT: usize = 4;

/// Incremental updates of a triangle of sums that are not integers before it is summed
/// afresh (the rounding of each update adds up).
const UPDATES_BEFORE_REFRESH: u32 = 32;

/// Pair updates between two checks of the clock and the monitor.
const POLL_WORK: usize = 1 << 15;

const NONE: u32 = u32::MAX;

/// Sums of whole numbers below this are exact in floating point (2^53).
const EXACT_SUMS: f64 = 9_007_199_254_740_992.0;

/// A better stump at position `j` (out of line: after the first few positions the scan
/// seldom improves, and a branch over it costs less than selecting both values).
#[cold]
#[inline(never)]
fn improved(cost: f64, j: usize) -> (f64, Option<u32>) {
    (cost, Some(j as u32))
}


/// Why the kernel gave up on a subproblem.
pub(crate) type Halt = crate::Status;

/// Reusable buffers of the depth-two solver for one dataset.
///
/// A call works on the features that can split its subproblem only (both sides non-empty
/// and, with a minimum support, supported): on wide data most features are constant on a
/// small subproblem. Every buffer is counted by [`Depth2::bytes`]; the pair sums fit in
/// the byte budget the caller gives, in blocks of root features when the whole triangle
/// does not, and the caller's `stop` is polled every few thousand pair updates.
pub(crate) struct Depth2 {
    m: usize,
    c: usize,
    k: usize,
    /// Channel of the row count (only with a minimum leaf support above one).
    rows_at: Option<usize>,
    /// Channel of the reference loss (only with lower-bound guessing).
    reference_at: Option<usize>,
    /// Per group, its channel vector (class weights, then rows and reference loss) when
    /// there are extra channels; empty otherwise (the dataset's class weights are read).
    values: Vec<f64>,
    /// Per dataset feature, true when the kernel counts the groups where it is 0 instead
    /// of 1: those where it is 1 are the majority of the dataset's groups (STreeD flips
    /// such features too). Pair updates grow with the square of a group's listed
    /// features, and a tree is the same with a split's sides swapped.
    flipped: Vec<bool>,
    /// Per group (CSR), the features the kernel counts it in, ascending: those equal to
    /// 1, flipped ones equal to 0. Empty when the split family lists no splits per group
    /// (nothing is flipped then, and the family's splits are read).
    listed_start: Vec<u32>,
    listed: Vec<u32>,
    /// Whether `flipped` and the lists are built: at the first call of `solve`, so that a
    /// search the kernel never serves (a leaf proved at once) holds no copy of them.
    lists_built: bool,
    /// The groups as bits, to sum a whole triangle by population counts ([`PairBits`]):
    /// built at the first whole-triangle call when the groups' values allow it.
    bits: Option<PairBits>,
    bits_built: bool,
    bit_sums: BitSums,
    /// Over the dataset's groups, the mean pair updates one adds to a whole triangle (its
    /// nonzero channels x its listed pairs, diagonal included): the lists' cost per group.
    mean_group_pairs: f64,
    /// Likewise the mean updates one adds to the per-feature sums (its nonzero channels x
    /// its listed features): the lists' cost per group in [`Depth2::stump_pass`].
    mean_group_singles: f64,
    /// Per dataset feature: groups of the subproblem where it is 1 (zero between calls).
    count: Vec<u32>,
    /// Per dataset feature: rows of the subproblem where it is 1 (with a minimum support).
    feature_rows: Vec<f64>,
    /// Per dataset feature: its index among the active features, or `NONE`.
    slot: Vec<u32>,
    /// The active features of the current call, ascending.
    active: Vec<u32>,
    /// True when the current call works on all the features (`active` is `0..m`).
    identity: bool,
    /// Bytes of the whole triangle below which calls take all the features.
    narrow: usize,
    /// Per group of the subproblem (CSR), its active features equal to 1, as slots.
    local_start: Vec<u32>,
    local: Vec<u32>,
    local_group: Vec<u32>,
    /// `m' * k` sums over the rows where each active feature is 1.
    diag: Vec<f64>,
    /// Pair sums over the rows where both features are 1, channel by channel (a group
    /// of one class then adds to one channel only): the upper triangle when it fits,
    /// else a block of full rows.
    pairs: Vec<f64>,
    /// The set whose pair sums the whole triangle holds (empty when it holds none): the
    /// next call on all features updates them by the groups that differ (MurTree's
    /// incremental counting), when that is fewer than its own groups.
    held: Vec<u64>,
    /// A second triangle and its set, the one used before: the search alternates the
    /// two children of a split, and each resembles the same child of the split before.
    spare_pairs: Vec<f64>,
    spare_held: Vec<u64>,
    /// The union of the last two disjoint sets whose triangles were held together (the
    /// two children of a split) and its triangle, their sums added: the search then asks
    /// for the children of the node's other splits in pairs, and the second of each pair
    /// is the union less the first, one subtraction per pair where counting it would
    /// cost a pass over its groups. Only where sums stay exact ([`Depth2::exact_sums`]).
    union_pairs: Vec<f64>,
    union_held: Vec<u64>,
    /// Scratch: the union's groups outside the current set.
    complement: Vec<u64>,
    /// The absolute values of all groups, summed, are whole and below 2^53: any sum
    /// over a set, and any difference of two, is exact.
    exact_sums: bool,
    /// The current call's budget has room for the union's triangle.
    union_fits: bool,
    /// The optima of the last few sets solved at depth two, for STreeD's similarity
    /// bound (kept only where it holds: a minimum leaf support of one, and an objective
    /// bounding what a group adds to a leaf, [`Objective::insertion_cost`]).
    solved: std::collections::VecDeque<(Vec<u64>, f64)>,
    similarity: bool,
    /// With the similarity bound, the insertion cost every group shares when they all
    /// have the same one (rows of one weight, none merged): the groups missing from a
    /// set then cost that times their population count, not a sum group by group
    /// (car_evaluation d4: 61 bounds of 36 k instructions each).
    uniform_insertion: Option<f64>,
    /// With the groups' bits built, every group's insertion cost is its class channels'
    /// sum: the groups a set lacks are then weighed by population counts of the planes
    /// ([`PairBits::class_weight`]), not group by group.
    insertion_by_bits: bool,
    /// Every group's values are integers below 2^53, so sums updated up and down stay
    /// exact.
    integral: bool,
    /// [`Depth2::depth_one`] may leave out its support test: a side is unsupported only
    /// when it is empty (a minimum support of one), sums are exact (`integral`), and an
    /// empty leaf loses nothing. Then a stump with an empty side costs `(0 + penalty) +
    /// (leaf loss + penalty)`, which is never below the leaf it starts from (`leaf loss
    /// + penalty`, the other side holding exactly the node's sums), and only a stump
    /// strictly below the best so far is taken: the empty stumps never are.
    empty_stumps_lose: bool,
    /// Sums are updated up and down rather than summed afresh: when they stay exact, or
    /// when the objective takes the rounding this leaves ([`Objective::tolerates_rounding`]);
    /// then a triangle is summed afresh after [`UPDATES_BEFORE_REFRESH`] updates, which
    /// keeps the drift within a few dozen roundings.
    updatable: bool,
    /// Updates applied to `pairs` and to `spare_pairs` since they were summed afresh.
    updates: u32,
    spare_updates: u32,
    total: Vec<f64>,
    b: Vec<f64>,
    x: Vec<f64>,
    /// Per active feature (`n x k`), the sums of one root's right child with it equal
    /// to 1, and those of its left child.
    row: Vec<f64>,
    left: Vec<f64>,
    /// Per active feature `i`, [`triangle_start`] of `i` (filled by a call's triangle).
    starts: Vec<usize>,
    /// The active features splitting the current set (both sides supported), and their
    /// sums (`k` each): only these can split a child.
    splitting: Vec<u32>,
    splitting_sums: Vec<f64>,
    /// Per position in `splitting` as a root, the best leaf or stump of its right child
    /// and of its left child, with the stump's position ([`Depth2::pair_stumps`]).
    stumps: Vec<[(f64, u32); 2]>,
    /// Scratch of [`Depth2::pair_stumps`] in vectors: per position its two sums and its
    /// children's best costs, and their positions.
    stump_values: Vec<f64>,
    stump_positions: Vec<i32>,
    /// Per channel and dataset feature (`k x m`), the sums of the groups the feature is
    /// counted in, for [`Depth2::stump_pass`].
    single: Vec<f64>,
    /// While [`Depth2::split_bounds`] runs: per root feature of the depth-two pass, a lower
    /// bound on the cost of the best tree splitting on it first.
    split_bounds: Option<Vec<(u32, f64)>>,
}

/// Layout of the pair sums of one pass.
#[derive(Clone, Copy)]
enum Layout {
    /// Upper triangle of all active pairs.
    Triangle,
    /// Full rows of the root features `start..end`.
    Rows { start: usize, end: usize },
}

/// Counts pair updates and polls `stop` every [`POLL_WORK`] of them.
struct Poller<'s> {
    work: usize,
    stop: &'s mut dyn FnMut() -> Option<Halt>,
}

impl Poller<'_> {
    #[inline]
    fn add(&mut self, work: usize) -> Result<(), Halt> {
        self.work += work;
        if self.work >= POLL_WORK {
            self.work = 0;
            if let Some(s) = (self.stop)() {
                return Err(s);
            }
        }
        Ok(())
    }
}

/// The `k` values summed for group `g`: its statistics from the objective, or its row
/// of `values` when the kernel keeps extra sums per group.
#[inline]
fn group_values<'a, O: Objective>(values: &'a [f64], obj: &'a O, g: usize, k: usize) -> &'a [f64] {
    if values.is_empty() {
        obj.group_stats(g)
    } else {
        &values[g * k..g * k + k]
    }
}

impl Depth2 {
    pub fn new<O: Objective, S: SplitFamily>(t: &Task<O, S>, reference: Option<&[f64]>, min_support: f64) -> Self {
        let (m, c) = (t.splits.n_splits(), t.obj.n_stats());
        let rows_at = (min_support > 1.0).then_some(c);
        let reference_at = reference.map(|_| c + rows_at.is_some() as usize);
        let k = c + rows_at.is_some() as usize + reference_at.is_some() as usize;
        // The statistics are read from the objective; a copy is made only when each
        // group carries more (its rows, the reference's errors).
        let mut values = Vec::with_capacity(if k > c { t.data.n_groups() * k } else { 0 });
        for g in (0..t.data.n_groups()).filter(|_| k > c) {
            values.extend_from_slice(t.obj.group_stats(g));
            if rows_at.is_some() {
                values.push(t.data.group_rows(g) as f64);
            }
            if let Some(r) = reference {
                values.push(r[g]);
            }
        }
        // Row counts are whole: no check of each value (car_evaluation: 6,912 of them).
        let integral = (values.is_empty() && t.obj.stats_are_counts()) || (0..t.data.n_groups()).all(|g| group_values(&values, &t.obj, g, k).iter().all(|v| treeopt_core::dataset::is_whole(*v) && v.abs() < 9.0e15));
        let exact_sums = integral && (0..t.data.n_groups()).map(|g| group_values(&values, &t.obj, g, k).iter().map(|v| v.abs()).sum::<f64>()).sum::<f64>() < EXACT_SUMS;
        Depth2 {
            m,
            c,
            k,
            rows_at,
            reference_at,
            values,
            flipped: Vec::new(),
            listed_start: Vec::new(),
            listed: Vec::new(),
            lists_built: false,
            bits: None,
            bits_built: false,
            bit_sums: BitSums::Estimated,
            mean_group_pairs: 0.0,
            mean_group_singles: 0.0,
            count: Vec::new(),
            feature_rows: Vec::new(),
            slot: Vec::new(),
            active: Vec::new(),
            identity: false,
            narrow: SMALL_TRIANGLE,
            local_start: Vec::new(),
            local: Vec::new(),
            local_group: Vec::new(),
            diag: Vec::new(),
            pairs: Vec::new(),
            held: Vec::new(),
            spare_pairs: Vec::new(),
            spare_held: Vec::new(),
            union_pairs: Vec::new(),
            union_held: Vec::new(),
            complement: Vec::new(),
            exact_sums,
            union_fits: false,
            solved: std::collections::VecDeque::new(),
            similarity: min_support <= 1.0 && t.data.n_groups() > 0 && t.obj.insertion_cost(0).is_some(),
            uniform_insertion: uniform_insertion(&t.obj, t.data.n_groups()),
            insertion_by_bits: false,
            integral,
            empty_stumps_lose: rows_at.is_none() && integral && c > 0 && t.obj.leaf_loss(&vec![0.0; c]) == 0.0,
            updatable: integral || t.obj.tolerates_rounding(),
            updates: 0,
            spare_updates: 0,
            total: vec![0.0; k],
            b: vec![0.0; k],
            x: vec![0.0; k],
            row: Vec::new(),
            left: Vec::new(),
            starts: Vec::new(),
            splitting: Vec::new(),
            splitting_sums: Vec::new(),
            stumps: Vec::new(),
            stump_values: Vec::new(),
            stump_positions: Vec::new(),
            single: Vec::new(),
            split_bounds: None,
        }
    }

    /// Bytes held by the kernel's buffers.
    pub fn bytes(&self) -> usize {
        self.flipped.capacity()
            + 8 * (self.values.capacity() + self.feature_rows.capacity() + self.diag.capacity() + self.pairs.capacity() + self.held.capacity() + self.spare_pairs.capacity() + self.spare_held.capacity() + self.union_pairs.capacity() + self.union_held.capacity() + self.complement.capacity() + self.solved.iter().map(|s| s.0.capacity() + 1).sum::<usize>())
            + 4 * [&self.count, &self.listed_start, &self.listed, &self.slot, &self.active, &self.local_start, &self.local, &self.local_group]
                .iter()
                .map(|v| v.capacity())
                .sum::<usize>()
            + 8 * (3 * self.k + self.row.capacity() + self.left.capacity() + self.splitting_sums.capacity() + self.single.capacity())
            + 4 * self.splitting.capacity()
            + 32 * self.stumps.capacity()
            + 8 * self.stump_values.capacity()
            + 4 * self.stump_positions.capacity()
            + 8 * self.starts.capacity()
            + self.bits.as_ref().map_or(0, PairBits::bytes)
    }

    /// The feature polarity and per-group lists ([`listed_features`]), once built.
    pub fn lists(&self) -> Option<(&[bool], &[u32], &[u32])> {
        self.lists_built.then_some((&self.flipped[..], &self.listed_start[..], &self.listed[..]))
    }

    /// Frees the pair sums (the largest buffer) so that other structures may use the room.
    pub fn release_pairs(&mut self) {
        (self.pairs, self.held) = (Vec::new(), Vec::new());
        (self.spare_pairs, self.spare_held) = (Vec::new(), Vec::new());
        (self.union_pairs, self.union_held) = (Vec::new(), Vec::new());
    }

    /// Writes into `row` (by position in `splitting`, `k` values each) the sums of the
    /// rows with both active features `i` and `j` equal to 1, for every `j` of
    /// `splitting`, from the pair sums of `layout` (kept channel by channel; with rows,
    /// `i` must be a root of the block).
    fn gather_row<const K: usize>(&self, layout: Layout, i: usize, splitting: &[u32], row: &mut [f64]) {
        let (n, k) = (self.active.len(), channels::<K>(self.k));
        let per_channel = self.pairs.len() / k;
        let own = triangle_start(n, i);
        // One position per pair, read in every channel's triangle.
        for (cell, &j) in row.chunks_exact_mut(k).zip(splitting) {
            let j = j as usize;
            let at = match layout {
                Layout::Triangle if j < i => self.starts[j] + (i - j),
                Layout::Triangle => own + (j - i),
                Layout::Rows { start, .. } => (i - start) * n + j,
            };
            for (t, v) in cell.iter_mut().enumerate() {
                *v = self.pairs[t * per_channel + at];
            }
        }
    }

    /// The best leaf or stump of each child of root `i` (active feature; its pairs in
    /// `layout`) over the features `splitting` (their sums `sums`, two each): the right
    /// child's sums are `right`, the left's `left`, their sides at depth one `right_side`
    /// and `left_side`. Two classes of exact sums whose empty stumps lose
    /// ([`Depth2::two_classes`], `empty_stumps_lose`) only: then it is
    /// [`Depth2::depth_one`] on the gathered row and on the left child's sums (the same
    /// costs, in the same order, with the same ties), in one pass that reads each pair
    /// once instead of gathering the row, scanning it and taking it from the sums.
    /// Returns (cost, position in `splitting`) for the right child, then the left.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn both_stumps(&self, layout: Layout, i: usize, splitting: &[u32], sums: &[f64], right: [f64; 2], left: [f64; 2], right_side: Side, left_side: Side, penalty: f64) -> ((f64, Option<u32>), (f64, Option<u32>)) {
        let n = self.active.len();
        let per_channel = self.pairs.len() / 2;
        let (zero, one) = self.pairs.split_at(per_channel);
        let lesser = |x: f64, y: f64| if y < x { y } else { x };
        // A closed child keeps its leaf: no cost is below minus infinity.
        let (mut rc, mut rq) = (if right_side.terminal { f64::NEG_INFINITY } else { right_side.leaf_cost }, NONE);
        let (mut lc, mut lq) = (if left_side.terminal { f64::NEG_INFINITY } else { left_side.leaf_cost }, NONE);
        let (p, [r0, r1], [l0, l1]) = (penalty, right, left);
        // Pair (i, j) sits in row j of the triangle before `i`, in row `i` from it on.
        let (own, row) = match layout {
            Layout::Triangle => (triangle_start(n, i) - i, 0),
            Layout::Rows { start, .. } => (0, (i - start) * n),
        };
        let triangle = matches!(layout, Layout::Triangle);
        for (q, (&j, d)) in splitting.iter().zip(sums.chunks_exact(2)).enumerate() {
            let j = j as usize;
            let at = if !triangle {
                row + j
            } else if j < i {
                self.starts[j] + (i - j)
            } else {
                own + j
            };
            let (a0, a1) = (zero[at], one[at]);
            // The first least cost wins (selected, not branched to: improvements are
            // frequent in the first positions).
            let cost = (lesser(a0, a1) + p) + (lesser(r0 - a0, r1 - a1) + p);
            let better = cost < rc;
            rc = if better { cost } else { rc };
            rq = if better { q as u32 } else { rq };
            // The left child's rows with feature j = 1: those of j less those of (i, j).
            let (b0, b1) = (d[0] - a0, d[1] - a1);
            let cost = (lesser(b0, b1) + p) + (lesser(l0 - b0, l1 - b1) + p);
            let better = cost < lc;
            lc = if better { cost } else { lc };
            lq = if better { q as u32 } else { lq };
        }
        let some = |q: u32| (q != NONE).then_some(q);
        let r = if right_side.terminal { (right_side.leaf_cost, None) } else { (rc, some(rq)) };
        let l = if left_side.terminal { (left_side.leaf_cost, None) } else { (lc, some(lq)) };
        (r, l)
    }

    /// [`Depth2::both_stumps`] of every root of `splitting` at once, from the whole
    /// triangle: per position `q` of `splitting`, the best leaf or stump of its right
    /// child and of its left child (cost, and the stump's position in `splitting` or
    /// `NONE`), into `self.stumps`; `total` holds the set's two class sums. The four
    /// leaves a stump of either child of root i on feature j can have are the four
    /// quadrants of i and j (i = j = 1, i = 1 and j = 0, i = 0 and j = 1, neither), the
    /// same for root j on feature i: each pair's leaves are costed once, not four times
    /// (once per root and child). The costs are the same sums of the same leaf costs: the
    /// class sums are exact integers ([`Depth2::two_classes`]), so a quadrant's sums are
    /// the same whichever sums they are taken from. Ties go to the first position as in
    /// [`Depth2::both_stumps`]: a root's partners come in ascending order, those before it
    /// in the earlier rows, then those after it in its own row; the root itself, which
    /// `both_stumps` scores too, never improves a child (its stump costs the child's leaf
    /// cost plus a penalty), so this needs `penalty >= 0`.
    fn pair_stumps(&mut self, splitting: &[u32], sums: &[f64], total: [f64; 2], penalty: f64) {
        #[cfg(target_arch = "x86_64")]
        if splitting.len() >= VECTOR_STUMPS && std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512vl") {
            // SAFETY: the CPU has AVX-512F and VL, checked just above.
            unsafe { self.pair_stumps_avx512(splitting, sums, total, penalty) };
            return;
        }
        self.pair_stumps_scalar(splitting, sums, total, penalty);
    }

    /// [`Depth2::pair_stumps`] pair by pair.
    fn pair_stumps_scalar(&mut self, splitting: &[u32], sums: &[f64], total: [f64; 2], penalty: f64) {
        let n = self.active.len();
        let per_channel = self.pairs.len() / 2;
        let (zero, one) = self.pairs.split_at(per_channel);
        let lesser = |x: f64, y: f64| if y < x { y } else { x };
        let p = penalty;
        let stumps = &mut self.stumps;
        stumps.clear();
        stumps.extend(sums.chunks_exact(2).map(|d| [(lesser(d[0], d[1]) + p, NONE), (lesser(total[0] - d[0], total[1] - d[1]) + p, NONE)]));
        for (qa, &i) in splitting.iter().enumerate() {
            let i = i as usize;
            let (di0, di1) = (sums[2 * qa], sums[2 * qa + 1]);
            let (xi0, xi1) = (total[0] - di0, total[1] - di1);
            // Pair (i, j), j > i, sits at `row + j` of each channel's triangle.
            let row = triangle_start(n, i) - i;
            let [(mut rc, mut rq), (mut lc, mut lq)] = stumps[qa];
            let later = &mut stumps[qa + 1..];
            for (qb, ((&j, d), e)) in splitting[qa + 1..].iter().zip(sums[2 * (qa + 1)..].chunks_exact(2)).zip(later.iter_mut()).enumerate() {
                let qb = (qa + 1 + qb) as u32;
                let at = row + j as usize;
                let (a0, a1) = (zero[at], one[at]);
                let (b0, b1) = (d[0] - a0, d[1] - a1);
                let both = lesser(a0, a1) + p;
                let only_i = lesser(di0 - a0, di1 - a1) + p;
                let only_j = lesser(b0, b1) + p;
                let neither = lesser(xi0 - b0, xi1 - b1) + p;
                // Root i: its right child split on j, then its left child (selected, not
                // branched to, as in `both_stumps`).
                let cost = both + only_i;
                let better = cost < rc;
                rc = if better { cost } else { rc };
                rq = if better { qb } else { rq };
                let cost = only_j + neither;
                let better = cost < lc;
                lc = if better { cost } else { lc };
                lq = if better { qb } else { lq };
                // Root j, split on i: its right child, then its left child.
                let q = qa as u32;
                let cost = both + only_j;
                e[0] = if cost < e[0].0 { (cost, q) } else { e[0] };
                let cost = only_i + neither;
                e[1] = if cost < e[1].0 { (cost, q) } else { e[1] };
            }
            stumps[qa] = [(rc, rq), (lc, lq)];
        }
    }

    /// [`Depth2::pair_stumps`] eight partners at a time: per root, its later partners'
    /// pairs read (gathered where `splitting` skips features) in vectors, the four
    /// quadrant leaves costed lane by lane with the same operations in the same order,
    /// the root's own children kept as a least cost per lane (the first one on ties) and
    /// reduced at the row's end to the least cost at the first position (what the scan
    /// keeps), the partners' children updated lane by lane where strictly cheaper. The
    /// same stumps, bit for bit.
    ///
    /// # Safety
    /// The CPU must have AVX-512F and AVX-512VL.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512vl")]
    unsafe fn pair_stumps_avx512(&mut self, splitting: &[u32], sums: &[f64], total: [f64; 2], penalty: f64) {
        use std::arch::x86_64::*;
        let n = self.active.len();
        let len = splitting.len();
        let per_channel = self.pairs.len() / 2;
        let (zero, one) = self.pairs.split_at(per_channel);
        let lesser = |x: f64, y: f64| if y < x { y } else { x };
        // Per position: its sums and its children's best (cost, position), by channel.
        let (mut values, mut positions) = (std::mem::take(&mut self.stump_values), std::mem::take(&mut self.stump_positions));
        values.clear();
        values.resize(4 * len, 0.0);
        positions.clear();
        positions.resize(2 * len, NONE as i32);
        let (d0, rest) = values.split_at_mut(len);
        let (d1, rest) = rest.split_at_mut(len);
        let (rc, lc) = rest.split_at_mut(len);
        let (rq, lq) = positions.split_at_mut(len);
        for (q, d) in sums.chunks_exact(2).enumerate() {
            (d0[q], d1[q]) = (d[0], d[1]);
            rc[q] = lesser(d[0], d[1]) + penalty;
            lc[q] = lesser(total[0] - d[0], total[1] - d[1]) + penalty;
        }
        let p = _mm512_set1_pd(penalty);
        // The lesser of two vectors lane by lane as `lesser` (y where y < x, else x).
        let vlesser = |x: __m512d, y: __m512d| _mm512_mask_blend_pd(_mm512_cmp_pd_mask::<_CMP_LT_OQ>(y, x), x, y);
        for qa in 0..len {
            let i = splitting[qa] as usize;
            let (di0, di1) = (d0[qa], d1[qa]);
            let (vdi0, vdi1) = (_mm512_set1_pd(di0), _mm512_set1_pd(di1));
            let (vxi0, vxi1) = (_mm512_set1_pd(total[0] - di0), _mm512_set1_pd(total[1] - di1));
            // Pair (i, j), j > i, sits at `row + j` of each channel's triangle.
            let row = (triangle_start(n, i) - i) as i32;
            let qa_v = _mm512_set1_epi32(qa as i32);
            let (mut best_r, mut best_rq) = (_mm512_set1_pd(f64::INFINITY), _mm256_set1_epi32(NONE as i32));
            let (mut best_l, mut best_lq) = (_mm512_set1_pd(f64::INFINITY), _mm256_set1_epi32(NONE as i32));
            let mut qb = qa + 1;
            while qb < len {
                let lanes = (len - qb).min(8);
                let k: __mmask8 = if lanes == 8 { 0xff } else { (1u8 << lanes) - 1 };
                // SAFETY (loads and stores below): lanes qb .. qb + lanes lie within the
                // per-position vectors and `splitting`; the masked-off lanes are neither
                // read nor written; the pairs' offsets lie within each channel's triangle.
                let (a0, a1) = unsafe {
                    let first = splitting[qb];
                    if lanes == 8 && splitting[qb + 7] == first + 7 {
                        let at = row as usize + first as usize;
                        (_mm512_loadu_pd(zero.as_ptr().add(at)), _mm512_loadu_pd(one.as_ptr().add(at)))
                    } else {
                        let idx = _mm256_add_epi32(_mm256_maskz_loadu_epi32(k, splitting.as_ptr().add(qb) as *const i32), _mm256_set1_epi32(row));
                        (_mm512_mask_i32gather_pd::<8>(_mm512_setzero_pd(), k, idx, zero.as_ptr()), _mm512_mask_i32gather_pd::<8>(_mm512_setzero_pd(), k, idx, one.as_ptr()))
                    }
                };
                let (e0, e1) = unsafe { (_mm512_maskz_loadu_pd(k, d0.as_ptr().add(qb)), _mm512_maskz_loadu_pd(k, d1.as_ptr().add(qb))) };
                let (b0, b1) = (_mm512_sub_pd(e0, a0), _mm512_sub_pd(e1, a1));
                let both = _mm512_add_pd(vlesser(a0, a1), p);
                let only_i = _mm512_add_pd(vlesser(_mm512_sub_pd(vdi0, a0), _mm512_sub_pd(vdi1, a1)), p);
                let only_j = _mm512_add_pd(vlesser(b0, b1), p);
                let neither = _mm512_add_pd(vlesser(_mm512_sub_pd(vxi0, b0), _mm512_sub_pd(vxi1, b1)), p);
                let positions = _mm256_add_epi32(_mm256_set1_epi32(qb as i32), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
                // Root i: its right child split on j, then its left child.
                let cost = _mm512_add_pd(both, only_i);
                let better = _mm512_mask_cmp_pd_mask::<_CMP_LT_OQ>(k, cost, best_r);
                best_r = _mm512_mask_blend_pd(better, best_r, cost);
                best_rq = _mm256_mask_blend_epi32(better, best_rq, positions);
                let cost = _mm512_add_pd(only_j, neither);
                let better = _mm512_mask_cmp_pd_mask::<_CMP_LT_OQ>(k, cost, best_l);
                best_l = _mm512_mask_blend_pd(better, best_l, cost);
                best_lq = _mm256_mask_blend_epi32(better, best_lq, positions);
                // Roots j, split on i: their right children, then their left children.
                unsafe {
                    let cost = _mm512_add_pd(both, only_j);
                    let old = _mm512_maskz_loadu_pd(k, rc.as_ptr().add(qb));
                    let better = _mm512_mask_cmp_pd_mask::<_CMP_LT_OQ>(k, cost, old);
                    _mm512_mask_storeu_pd(rc.as_mut_ptr().add(qb), better, cost);
                    _mm256_mask_storeu_epi32(rq.as_mut_ptr().add(qb), better, _mm512_castsi512_si256(qa_v));
                    let cost = _mm512_add_pd(only_i, neither);
                    let old = _mm512_maskz_loadu_pd(k, lc.as_ptr().add(qb));
                    let better = _mm512_mask_cmp_pd_mask::<_CMP_LT_OQ>(k, cost, old);
                    _mm512_mask_storeu_pd(lc.as_mut_ptr().add(qb), better, cost);
                    _mm256_mask_storeu_epi32(lq.as_mut_ptr().add(qb), better, _mm512_castsi512_si256(qa_v));
                }
                qb += 8;
            }
            // Each lane kept its first least cost; the row's is the least cost at the
            // first position (lanes of that cost, least position), taken only when below
            // what the earlier rows left.
            for (best, best_q, c, q) in [(best_r, best_rq, &mut rc[qa], &mut rq[qa]), (best_l, best_lq, &mut lc[qa], &mut lq[qa])] {
                let least = _mm512_reduce_min_pd(best);
                if least < *c {
                    let at_least = _mm512_cmp_pd_mask::<_CMP_EQ_OQ>(best, _mm512_set1_pd(least));
                    (*c, *q) = (least, _mm512_mask_reduce_min_epi32(at_least as u16, _mm512_castsi256_si512(best_q)));
                }
            }
        }
        self.stumps.clear();
        self.stumps.extend((0..len).map(|q| [(rc[q], rq[q] as u32), (lc[q], lq[q] as u32)]));
        (self.stump_values, self.stump_positions) = (values, positions);
    }

    /// Cost of a leaf on channel vector `v` (whose first `C` channels, or `self.c` when
    /// `C == 0`, are the objective's statistics).
    #[inline]
    fn leaf_cost<const C: usize, O: Objective>(&self, obj: &O, v: &[f64], rules: &Rules) -> f64 {
        obj.leaf_loss(&v[..channels::<C>(self.c)]) + rules.penalty
    }

    /// Rows of `v` as far as the support rule needs them: with a minimum support of one
    /// only emptiness matters, and every group has positive weight.
    #[inline]
    fn rows<const C: usize, O: Objective>(&self, obj: &O, v: &[f64]) -> f64 {
        match self.rows_at {
            Some(r) => v[r],
            None if obj.has_weight(&v[..channels::<C>(self.c)]) => f64::INFINITY,
            None => 0.0,
        }
    }

    /// The leaf-closing rules applied to channel vector `v` at `depth`.
    #[inline]
    fn side_of<O: Objective>(&self, obj: &O, v: &[f64], depth: u32, rules: &Rules) -> Side {
        side(obj, &v[..self.c], 0.0, self.reference_at.map(|r| v[r]), self.rows::<0, O>(obj, v), depth, rules)
    }

    /// [`Depth2::side_of`] in a few instructions when `two` holds ([`Depth2::two_classes`]):
    /// a leaf loses the smaller of the two classes (bit for bit the objective's total less
    /// the larger, the sums being exact integers), no split bound is known beyond two
    /// penalties (misclassification has none for two classes), and a side is closed when
    /// it has no depth left or its loss is at most a penalty (an empty side loses 0: with
    /// a minimum support of one or none, the rows test closes no other side).
    #[inline(always)]
    fn side_at<O: Objective>(&self, obj: &O, v: &[f64], depth: u32, rules: &Rules, two: bool) -> Side {
        if two {
            let loss = if v[1] < v[0] { v[1] } else { v[0] };
            let leaf_cost = loss + rules.penalty;
            let terminal = depth == 0 || loss <= rules.penalty;
            let lb = if terminal { leaf_cost } else { 2.0 * rules.penalty };
            return Side { leaf_cost, lb, proven: lb, terminal };
        }
        self.side_of(obj, v, depth, rules)
    }

    /// True when [`Depth2::side_at`] may take its short way on the sums of a set whose
    /// channel totals are `total`: two classes, misclassification, integral group values
    /// whose total stays exact, no row channel (a minimum support of at most one) and no
    /// reference.
    #[inline]
    fn two_classes<const K: usize, const C: usize, O: Objective>(&self, total: &[f64]) -> bool {
        K == 2 && C == 2 && O::LOSS_IS_MINORITY && self.integral && self.rows_at.is_none() && self.reference_at.is_none() && total[0] + total[1] < EXACT_SUMS
    }

    /// Best stump or leaf for the rows of channel vector `x`, where `ones` (`n x k`, by
    /// active feature) holds the channel vector of its rows with each active feature
    /// equal to 1. Returns (cost, active feature).
    #[inline]
    fn depth_one<const K: usize, const C: usize, O: Objective>(&self, obj: &O, x: &[f64], ones: &[f64], b: &mut [f64], rules: &Rules, two: bool) -> (f64, Option<u32>) {
        let k = channels::<K>(self.k);
        let s = self.side_at(obj, x, 1, rules, two);
        if s.terminal {
            return (s.leaf_cost, None);
        }
        let (x, b) = (&x[..k], &mut b[..k]);
        let (mut best, mut feature) = (s.leaf_cost, None);
        if K > 0 && self.empty_stumps_lose {
            // The same costs in the same order, without the support test (see
            // `empty_stumps_lose`) and with the other side in registers.
            let mut whole = [0.0; K];
            whole.copy_from_slice(x);
            if K == 2 && C == 2 && O::LOSS_IS_MINORITY && whole[0] + whole[1] < EXACT_SUMS {
                // Two classes of exact integer sums: a leaf's loss (total less the larger
                // class) is the smaller class, bit for bit, so the same costs in the same
                // order with two minima where the objective's fold has sums and tests.
                let (p, w0, w1) = (rules.penalty, whole[0], whole[1]);
                // The smaller of two sums (never NaN: no test for it).
                let lesser = |x: f64, y: f64| if y < x { y } else { x };
                for (j, a) in ones.chunks_exact(2).enumerate() {
                    let cost = (lesser(a[0], a[1]) + p) + (lesser(w0 - a[0], w1 - a[1]) + p);
                    if cost < best {
                        (best, feature) = improved(cost, j);
                    }
                }
                return (best, feature);
            }
            for (j, a) in ones.chunks_exact(K).enumerate() {
                let mut other = [0.0; K];
                for t in 0..K {
                    other[t] = whole[t] - a[t];
                }
                let cost = self.leaf_cost::<C, O>(obj, a, rules) + self.leaf_cost::<C, O>(obj, &other, rules);
                if cost < best {
                    best = cost;
                    feature = Some(j as u32);
                }
            }
            return (best, feature);
        }
        for (j, a) in ones.chunks_exact(k).enumerate() {
            for t in 0..k {
                b[t] = x[t] - a[t];
            }
            if self.rows::<C, O>(obj, a) < rules.min_support || self.rows::<C, O>(obj, b) < rules.min_support {
                continue;
            }
            let cost = self.leaf_cost::<C, O>(obj, a, rules) + self.leaf_cost::<C, O>(obj, b, rules);
            if cost < best {
                best = cost;
                feature = Some(j as u32);
            }
        }
        (best, feature)
    }

    /// The optimal subtree of depth `depth` (1 or 2) for the groups in `set`, under the
    /// same leaf-closing rules as the graph search. The kernel holds at most
    /// `budget_bytes` (refusing with [`Halt::MemoryLimit`] when even one block of pair
    /// sums does not fit) and gives up with `stop`'s status when `stop` asks it to.
    pub fn solve<O: Objective, S: SplitFamily>(
        &mut self,
        t: &Task<O, S>,
        set: &[u64],
        depth: u32,
        rules: &Rules,
        budget_bytes: usize,
        stop: &mut dyn FnMut() -> Option<Halt>,
    ) -> Result<SmallTree, Halt> {
        debug_assert!(depth == 1 || depth == 2);
        if !self.lists_built {
            (self.flipped, self.listed_start, self.listed) = listed_features(t);
            self.lists_built = true;
        }
        let out = self.select(t, set, depth, rules, budget_bytes).and_then(|layout| {
            let mut poller = Poller { work: 0, stop };
            // Fixed channel and statistics counts let the compiler unroll the inner loops.
            match (self.k, self.c) {
                (2, 2) => self.solve_k::<2, 2, O, S>(t, set, depth, rules, layout, &mut poller),
                (3, 2) => self.solve_k::<3, 2, O, S>(t, set, depth, rules, layout, &mut poller),
                (3, 3) => self.solve_k::<3, 3, O, S>(t, set, depth, rules, layout, &mut poller),
                (4, 4) => self.solve_k::<4, 4, O, S>(t, set, depth, rules, layout, &mut poller),
                _ => self.solve_k::<0, 0, O, S>(t, set, depth, rules, layout, &mut poller),
            }
        });
        if !self.identity {
            for &f in &self.active {
                self.slot[f as usize] = NONE;
            }
        }
        if let (Ok(tree), true, 2) = (&out, self.similarity, depth) {
            self.keep_solved(set, tree.cost);
        }
        out.map(|t| SmallTree {
            cost: t.cost,
            split: t.split.map(|(i, l, r)| {
                let f = |s: u32| self.active[s as usize];
                // The kernel's right side of a flipped root is the dataset's left side.
                match f(i) {
                    root if self.flipped[root as usize] => (root, r.map(f), l.map(f)),
                    root => (root, l.map(f), r.map(f)),
                }
            }),
        })
    }

    /// The depth-two pass of [`Depth2::solve`] over `set`, keeping per splitting feature
    /// (a dataset split sending rows each way, with the minimum support) a lower bound on
    /// the cost of the best tree of depth two that splits on it first: its exact cost
    /// (both children's best leaf or stump), or, where the pass skipped the second child
    /// because the first alone cost at least the best tree found, the first child's cost
    /// plus the leaf-closing rules' bound on the second. Features left out split nothing.
    pub fn split_bounds<O: Objective, S: SplitFamily>(&mut self, t: &Task<O, S>, set: &[u64], rules: &Rules, budget_bytes: usize, stop: &mut dyn FnMut() -> Option<Halt>) -> Result<Vec<(u32, f64)>, Halt> {
        let mut bounds = self.split_bounds.take().unwrap_or_default();
        bounds.clear();
        self.split_bounds = Some(bounds);
        let out = self.solve(t, set, 2, rules, budget_bytes, stop);
        let bounds = self.split_bounds.take().unwrap_or_default();
        out.map(|_| bounds)
    }

    /// Settles a subproblem of depth two from one pass of per-feature sums, before any
    /// pair is summed, when it can: every tree of depth two splitting first on `f` costs
    /// at least the sum of its two sides' bounds at depth one (each side a leaf or a
    /// stump: [`Rules`]' bound at depth one, which a stump's two penalties and, with
    /// three classes or more, its two largest classes give), and the stumps themselves
    /// are exact. So with `lower` the least of the leaf and those sums, and `upper` the
    /// best leaf or stump: when `lower` reaches `upper` that stump (or leaf) is optimal;
    /// when it reaches `bound` no tree costs less than `bound`. Returns the best tree
    /// found and the proven lower bound, or `None` when neither holds (the caller then
    /// solves it with [`Depth2::solve`]). Not under guessing, whose closing rules are not
    /// bounds. (Breast cancer q3 d4, λ = 0.02: 2,600 of the search's 3,100 depth-two
    /// proofs that a child costs at least its budget hold at this bound; each costs a
    /// group's listed features instead of their pairs.)
    pub fn stump_pass<O: Objective, S: SplitFamily>(&mut self, t: &Task<O, S>, set: &[u64], rules: &Rules, bound: f64, budget: usize) -> Option<(SmallTree, f64)> {
        if self.reference_at.is_some() {
            return None;
        }
        if !self.lists_built {
            (self.flipped, self.listed_start, self.listed) = listed_features(t);
            self.lists_built = true;
        }
        // The groups' bits, built here on data where the pair sums would build them: the
        // first passes (the root's) come before any pair sums, and counting the bits beats
        // the lists' scattered additions (car_evaluation d2: 10 k, 7 % of a fit).
        if !self.bits_built {
            if let Some(room) = self.narrow_room(t, budget) {
                self.build_bits(t, room);
            }
        }
        let (m, k) = (self.m, self.k);
        let mut single = std::mem::take(&mut self.single);
        let mut total = std::mem::take(&mut self.total);
        single.clear();
        single.resize(m * k, 0.0);
        total.fill(0.0);
        // By population counts where the groups' bits are built and that costs less than
        // the lists (the same integer sums).
        let list_work = set.iter().map(|w| w.count_ones()).sum::<u32>() as f64 * self.mean_group_singles;
        let by_bits = self.bits.as_mut().is_some_and(|bits| bits.singles(set, m, list_work, &mut single, &mut total));
        if !by_bits {
            let (values, listed_start, listed) = (&self.values, &self.listed_start, &self.listed);
            for_each_one(set, |g| {
                let v = group_values(values, &t.obj, g, k);
                for (s, x) in total.iter_mut().zip(v) {
                    *s += x;
                }
                // Channel by channel (a group of one class adds to one channel only).
                for (sums, &x) in single.chunks_exact_mut(m).zip(v).filter(|(_, &x)| x != 0.0) {
                    for_each_counted(listed_start, listed, &t.splits, g, |f| sums[f as usize] += x);
                }
            });
        }
        // Two classes of exact sums: each side in a few instructions (the same sides).
        let two = self.k == 2 && self.c == 2 && self.two_classes::<2, 2, O>(&total);
        let root = self.side_at(&t.obj, &total, 2, rules, two);
        let (mut upper, mut lower, mut best) = (root.leaf_cost, root.leaf_cost, None);
        if !root.terminal {
            let (mut one, mut other) = (vec![0.0; k], vec![0.0; k]);
            for f in 0..m {
                for t in 0..k {
                    one[t] = single[t * m + f];
                    other[t] = total[t] - one[t];
                }
                let one = &one[..];
                if self.rows::<0, O>(&t.obj, one) < rules.min_support || self.rows::<0, O>(&t.obj, &other) < rules.min_support {
                    continue;
                }
                let (a, b) = (self.side_at(&t.obj, one, 1, rules, two), self.side_at(&t.obj, &other, 1, rules, two));
                lower = lower.min(a.lb + b.lb);
                if a.leaf_cost + b.leaf_cost < upper {
                    upper = a.leaf_cost + b.leaf_cost;
                    best = Some(f as u32);
                }
            }
        }
        (self.single, self.total) = (single, total);
        if lower < upper && lower < bound {
            return None;
        }
        let proved = if lower >= upper { upper } else { lower };
        if self.similarity {
            self.keep_solved(set, proved);
        }
        Some((SmallTree { cost: upper, split: best.map(|f| (f, None, None)) }, proved))
    }

    /// Keeps `set` with `cost`, a lower bound on its trees of depth two, as the newest of
    /// the sets the similarity bound starts from; the oldest of [`SOLVED_KEPT`] is dropped
    /// and its buffer holds the newest (no allocation per call).
    fn keep_solved(&mut self, set: &[u64], cost: f64) {
        let mut kept = if self.solved.len() == SOLVED_KEPT { self.solved.pop_back().map(|(v, _)| v).unwrap_or_default() } else { Vec::with_capacity(set.len()) };
        kept.clear();
        kept.extend_from_slice(set);
        self.solved.push_front((kept, cost));
    }

    /// STreeD's similarity bound on the optimum of `set` at depth two from the optima of
    /// the last sets solved ([`similarity_bound`]). `f64::NEG_INFINITY` when it does not
    /// hold or none is known.
    pub fn similarity_bound<O: Objective>(&self, obj: &O, set: &[u64]) -> f64 {
        if !self.similarity {
            return f64::NEG_INFINITY;
        }
        let mut best = f64::NEG_INFINITY;
        for (s, opt) in &self.solved {
            let bound = match (self.uniform_insertion, &self.bits) {
                (Some(cost), _) => uniform_similarity_bound(s, *opt, set, cost, self.integral),
                (None, Some(bits)) if self.insertion_by_bits => {
                    let rounding = if self.integral { 0.0 } else { 1e-12 * opt.abs() };
                    opt - bits.class_weight(s, set, self.c) * (1.0 + 1e-9) - rounding
                }
                (None, _) => similarity_bound(obj, s, *opt, set, self.integral, best),
            };
            best = best.max(bound);
        }
        best
    }

    /// On narrow data (the whole triangle of pair sums within [`SMALL_TRIANGLE`] and the
    /// budget), the bytes the groups' bits may take; `None` otherwise. A budget of
    /// `usize::MAX` is no memory limit: the buffers are not counted (the count walks
    /// every one of them, 1 % of a Rashomon fit).
    fn narrow_room<O: Objective, S: SplitFamily>(&self, t: &Task<O, S>, budget: usize) -> Option<usize> {
        let (m, k) = (self.m, self.k);
        let full = 8 * k * (m * (m + 1) / 2);
        if full > self.narrow || self.listed_start.is_empty() {
            return None;
        }
        if budget == usize::MAX {
            return Some(usize::MAX / 4);
        }
        let held = self.bytes() + full;
        (held + 8 * m * k + 4 * (m + t.data.n_groups()) <= budget).then(|| (budget - held) / 4)
    }

    /// Builds the groups' bits ([`PairBits`], within `room` bytes) and the mean numbers
    /// of pairs and singles a group adds, once.
    fn build_bits<O: Objective, S: SplitFamily>(&mut self, t: &Task<O, S>, room: usize) {
        if self.bits_built {
            return;
        }
        let k = self.k;
        self.bits_built = true;
        self.bits = PairBits::new(t, &self.values, k, &self.flipped, &self.listed_start, &self.listed, room);
        let c = self.c;
        self.insertion_by_bits = self.bits.is_some()
            && self.uniform_insertion.is_none()
            && (0..t.data.n_groups()).all(|g| t.obj.insertion_cost(g).is_some_and(|cost| cost == group_values(&self.values, &t.obj, g, k)[..c].iter().sum::<f64>()));
        // Both means in one pass over the groups (whole counts, exact in any order).
        let (mut pairs, mut singles) = (0u64, 0u64);
        for g in 0..t.data.n_groups() {
            let l = (self.listed_start[g + 1] - self.listed_start[g]) as u64;
            let channels = group_values(&self.values, &t.obj, g, k).iter().filter(|&&v| v != 0.0).count() as u64;
            pairs += channels * l * (l + 1) / 2;
            singles += channels * l;
        }
        let groups = t.data.n_groups().max(1) as f64;
        (self.mean_group_pairs, self.mean_group_singles) = (pairs as f64 / groups, singles as f64 / groups);
    }

    /// Finds the active features of `set`, their sums and (depth two) every group's list
    /// of active features, and sizes the pair buffer within the budget. Returns the
    /// layout of the first pass of pair sums.
    fn select<O: Objective, S: SplitFamily>(&mut self, t: &Task<O, S>, set: &[u64], depth: u32, rules: &Rules, budget: usize) -> Result<Layout, Halt> {
        let (m, k) = (self.m, self.k);
        self.identity = false;
        // A budget of `usize::MAX` is no memory limit (see `narrow_room`).
        let unlimited = budget == usize::MAX;
        let narrow = if depth == 2 { self.narrow_room(t, budget) } else { None };
        if let Some(room) = narrow {
            // Narrow data: every feature, in the whole triangle, as MurTree does.
            self.identity = true;
            self.build_bits(t, room);
            if self.active.len() != m {
                self.active = (0..m as u32).collect();
            }
            // The feature sums come with the pairs (the triangle's diagonal).
            self.total.fill(0.0);
            if self.diag.len() != m * k {
                self.diag.clear();
                self.diag.resize(m * k, 0.0);
            }
            // By population counts where the groups' bits take fewer words than the set
            // has groups (the same integer sums).
            let size = set.iter().map(|w| w.count_ones() as usize).sum::<usize>();
            match self.bits.as_mut() {
                Some(bits) if self.bit_sums != BitSums::Never && bits.total_words() < size => bits.totals(set, &mut self.total),
                _ => {
                    let (values, total) = (&self.values, &mut self.total);
                    for_each_one(set, |g| {
                        for (t, w) in total.iter_mut().zip(group_values(values, &t.obj, g, k)) {
                            *t += w;
                        }
                    });
                }
            }
            let len = m * (m + 1) / 2 * k;
            if self.pairs.len() != len {
                self.pairs.clear();
                self.pairs.resize(len, 0.0);
                self.held.clear();
            }
            // The union's triangle takes at most a quarter of the budget.
            self.union_fits = unlimited || self.bytes() + 8 * len.saturating_sub(self.union_pairs.capacity()) <= budget / 4;
            return Ok(Layout::Triangle);
        }
        // The pair buffer is about to hold something else.
        self.held.clear();
        if self.count.len() != m {
            self.count = vec![0; m];
            self.slot = vec![NONE; m];
            if self.rows_at.is_some() {
                self.feature_rows = vec![0.0; m];
            }
        }
        self.total.fill(0.0);
        let (mut n_groups, mut rows) = (0u32, 0.0);
        {
            let (count, feature_rows, values, total) = (&mut self.count, &mut self.feature_rows, &self.values, &mut self.total);
            let (listed_start, listed) = (&self.listed_start, &self.listed);
            let with_rows = self.rows_at.is_some();
            for_each_one(set, |g| {
                n_groups += 1;
                let nr = t.data.group_rows(g) as f64;
                rows += nr;
                for (t, v) in total.iter_mut().zip(group_values(values, &t.obj, g, k)) {
                    *t += v;
                }
                for_each_counted(listed_start, listed, &t.splits, g, |f| {
                    count[f as usize] += 1;
                    if with_rows {
                        feature_rows[f as usize] += nr;
                    }
                });
            });
        }
        self.active.clear();
        let mut local_len = 0usize;
        for f in 0..m {
            let n = std::mem::take(&mut self.count[f]);
            let fr = if self.rows_at.is_some() { std::mem::take(&mut self.feature_rows[f]) } else { 0.0 };
            let splits = n > 0
                && n < n_groups
                && (self.rows_at.is_none() || (fr >= rules.min_support && rows - fr >= rules.min_support));
            if splits {
                self.slot[f] = self.active.len() as u32;
                self.active.push(f as u32);
                local_len += n as usize;
            }
        }
        let n = self.active.len();
        // What the call needs besides the pairs: the sums per feature and, for depth two,
        // the groups' lists of active features.
        let lists = if depth == 2 { 4 * (local_len + 2 * (n_groups as usize + 1)) } else { 0 };
        let base = if unlimited {
            0
        } else {
            self.bytes() - 8 * (self.pairs.capacity() + self.diag.capacity()) - 4 * (self.local.capacity() + self.local_start.capacity() + self.local_group.capacity()) + 8 * n * k + lists
        };
        let row = 8 * n * k;
        if depth == 2 && base + row > budget {
            return Err(Halt::MemoryLimit);
        }
        let reserve = |v: &mut Vec<f64>, len: usize| -> Result<(), Halt> {
            v.clear();
            if v.capacity() > len.max(64) * 2 {
                *v = Vec::new();
            }
            v.try_reserve_exact(len).map_err(|_| Halt::MemoryLimit)?;
            v.resize(len, 0.0);
            Ok(())
        };
        reserve(&mut self.diag, n * k)?;
        // At depth 1 only the diagonal (each feature's own sums) is needed; deeper, the
        // lists of active features per group too (ascending, as the dataset's lists are).
        let record_lists = depth > 1;
        let fill = |v: &mut Vec<u32>, cap: usize| -> Result<(), Halt> {
            v.clear();
            if v.capacity() > cap.max(64) * 2 {
                *v = Vec::new();
            }
            v.try_reserve_exact(if record_lists { cap } else { 0 }).map_err(|_| Halt::MemoryLimit)
        };
        fill(&mut self.local, local_len)?;
        fill(&mut self.local_start, n_groups as usize + 1)?;
        fill(&mut self.local_group, n_groups as usize)?;
        self.local_start.push(0);
        {
            let (slot, diag, values) = (&self.slot, &mut self.diag, &self.values);
            let (local, local_start, local_group) = (&mut self.local, &mut self.local_start, &mut self.local_group);
            let (listed_start, listed) = (&self.listed_start, &self.listed);
            for_each_one(set, |g| {
                let v = group_values(values, &t.obj, g, k);
                for_each_counted(listed_start, listed, &t.splits, g, |f| {
                    let s = slot[f as usize];
                    if s != NONE {
                        if record_lists {
                            local.push(s);
                        }
                        for (d, w) in diag[s as usize * k..s as usize * k + k].iter_mut().zip(v) {
                            *d += w;
                        }
                    }
                });
                if record_lists {
                    local_start.push(local.len() as u32);
                    local_group.push(g as u32);
                }
            });
        }
        if !record_lists {
            self.pairs = Vec::new();
            return Ok(Layout::Triangle);
        }
        // The pairs get half of the room left (the store needs the rest), at most PAIR_CAP.
        let room = (budget - base) / 2;
        let allowed = room.min(PAIR_CAP).max(row);
        let triangle = 8 * k * (n * (n + 1) / 2);
        let (layout, len) = if triangle <= allowed {
            (Layout::Triangle, n * (n + 1) / 2 * k)
        } else {
            let block = (allowed / row).clamp(1, n);
            (Layout::Rows { start: 0, end: block }, block * n * k)
        };
        if self.pairs.capacity() * 8 > allowed {
            self.pairs = Vec::new();
        }
        self.pairs.clear();
        self.pairs.try_reserve_exact(len).map_err(|_| Halt::MemoryLimit)?;
        self.pairs.resize(len, 0.0);
        Ok(layout)
    }

    /// One pass over the groups summing the pairs of `layout` (the buffer is zeroed).
    fn accumulate<const K: usize, O: Objective, S: SplitFamily>(&mut self, t: &Task<O, S>, set: &[u64], layout: Layout, poller: &mut Poller) -> Result<(), Halt> {
        let (n, k) = (self.active.len(), channels::<K>(self.k));
        if self.identity {
            if !self.from_union(set) {
                // Within the union, the smaller of the set and its complement is summed,
                // the set's sums the union's less the complement's.
                let mut complement = std::mem::take(&mut self.complement);
                if self.union_complement(set, &mut complement) {
                    let counted = self.sum_whole::<K, O, S>(t, &complement, poller);
                    self.complement = complement;
                    counted?;
                    self.minus_held(set);
                } else {
                    self.complement = complement;
                    self.sum_whole::<K, O, S>(t, set, poller)?;
                    self.note_union(set);
                }
            }
                let (n, per_channel) = (self.m, self.pairs.len() / k);
            for i in 0..n {
                for t in 0..k {
                    self.diag[i * k + t] = self.pairs[t * per_channel + triangle_start(n, i)];
                }
            }
            return Ok(());
        }
        let (values, pairs) = (&self.values, &mut self.pairs);
        pairs.fill(0.0);
        let per_channel = pairs.len() / k;
        for q in 0..self.local_group.len() {
            let g = self.local_group[q] as usize;
            let v = group_values(values, &t.obj, g, k);
            let ones = &self.local[self.local_start[q] as usize..self.local_start[q + 1] as usize];
            match layout {
                Layout::Triangle => {
                    for (sums, &v) in pairs.chunks_exact_mut(per_channel).zip(v) {
                        add_to_triangle(sums, n, ones, v, false);
                    }
                    poller.add(ones.len() * (ones.len() + 1) / 2)?;
                }
                Layout::Rows { start, end } => {
                    let lo = ones.partition_point(|&i| (i as usize) < start);
                    let hi = ones.partition_point(|&i| (i as usize) < end);
                    for (sums, &v) in pairs.chunks_exact_mut(per_channel).zip(v).filter(|(_, &v)| v != 0.0) {
                        for &i in &ones[lo..hi] {
                            let row = &mut sums[(i as usize - start) * n..(i as usize - start + 1) * n];
                            for &j in ones {
                                row[j as usize] += v;
                            }
                        }
                    }
                    poller.add(ones.len() * (hi - lo))?;
                }
            }
        }
        // The diagonal holds each feature's own sums.
        let (start, end) = match layout {
            Layout::Triangle => (0, n),
            Layout::Rows { start, end } => (start, end),
        };
        for i in start..end {
            let s = match layout {
                Layout::Triangle => triangle_start(n, i),
                Layout::Rows { start, .. } => (i - start) * n + i,
            };
            for t in 0..k {
                pairs[t * per_channel + s] = self.diag[i * k + t];
            }
        }
        Ok(())
    }

    /// When `set` and the set held are the two parts of the union kept
    /// ([`Depth2::note_union`]): the triangle of `set` as the union's less the held one
    /// (which becomes the spare), and true. When the spare holds `set` already, the two
    /// trade places.
    fn from_union(&mut self, set: &[u64]) -> bool {
        let len = self.pairs.len();
        if self.exact_sums && self.spare_held == set && self.spare_pairs.len() == len && !set.is_empty() {
            self.trade_with_spare();
            return true;
        }
        let parts = self.exact_sums
            && self.union_pairs.len() == len
            && self.union_held.len() == set.len()
            && self.held.len() == set.len()
            && set.iter().zip(&self.held).zip(&self.union_held).all(|((s, h), u)| s & h == 0 && s | h == *u);
        if !parts {
            return false;
        }
        self.minus_held(set);
        true
    }

    /// The spare triangle and its set become the held ones, and the held ones the spare.
    fn trade_with_spare(&mut self) {
        std::mem::swap(&mut self.pairs, &mut self.spare_pairs);
        std::mem::swap(&mut self.held, &mut self.spare_held);
        std::mem::swap(&mut self.updates, &mut self.spare_updates);
    }

    /// Writes into `complement` the union's groups outside `set` and returns true when
    /// `set` lies within the union kept and has more groups than that complement.
    fn union_complement(&self, set: &[u64], complement: &mut Vec<u64>) -> bool {
        let within = self.exact_sums
            && self.union_pairs.len() == self.pairs.len()
            && self.union_held.len() == set.len()
            && set.iter().zip(&self.union_held).all(|(s, u)| s & !u == 0);
        if !within {
            return false;
        }
        complement.clear();
        complement.extend(set.iter().zip(&self.union_held).map(|(s, u)| u & !s));
        popcount(complement) < popcount(set)
    }

    /// The triangle of `set` as the union's less the held one, which becomes the spare.
    fn minus_held(&mut self, set: &[u64]) {
        self.trade_with_spare();
        self.pairs.clear();
        self.pairs.extend(self.union_pairs.iter().zip(&self.spare_pairs).map(|(u, a)| u - a));
        self.held.clear();
        self.held.extend_from_slice(set);
        self.updates = 0;
    }

    /// After `set` is summed: when the spare triangle's set is disjoint from it (the
    /// sibling just before it), keeps their union and its triangle for [`Depth2::from_union`].
    fn note_union(&mut self, set: &[u64]) {
        let len = self.pairs.len();
        let disjoint = self.exact_sums
            && self.union_fits
            && self.spare_pairs.len() == len
            && self.spare_held.len() == set.len()
            && set.iter().zip(&self.spare_held).all(|(s, h)| s & h == 0)
            && !is_empty(set)
            && !is_empty(&self.spare_held);
        if !disjoint {
            return;
        }
        self.union_pairs.clear();
        self.union_pairs.extend(self.pairs.iter().zip(&self.spare_pairs).map(|(a, b)| a + b));
        self.union_held.clear();
        self.union_held.extend(set.iter().zip(&self.spare_held).map(|(a, b)| a | b));
    }

    /// The whole triangle of all features with its diagonal, straight from the data: from
    /// zero, or from the sums of the set held by adding the groups it lacks and taking
    /// away those it has in excess, when they are fewer; the set held before becomes the
    /// spare.
    fn sum_whole<const K: usize, O: Objective, S: SplitFamily>(&mut self, t: &Task<O, S>, set: &[u64], poller: &mut Poller) -> Result<(), Halt> {
        let (n, k) = (self.m, channels::<K>(self.k));
        let size = set.iter().map(|w| w.count_ones()).sum::<u32>();
        let len = self.pairs.len();
        let differ = |pairs: &[f64], held: &[u64], updates: u32| {
            let fresh_enough = self.integral || updates < UPDATES_BEFORE_REFRESH;
            if self.updatable && fresh_enough && held.len() == set.len() && pairs.len() == len {
                set.iter().zip(held).map(|(a, b)| (a ^ b).count_ones()).sum::<u32>()
            } else {
                u32::MAX
            }
        };
        let (mine, spare) = (differ(&self.pairs, &self.held, self.updates), differ(&self.spare_pairs, &self.spare_held, self.spare_updates));
        // Summed afresh by population counts when that costs less than the lists (from
        // zero or from the closer triangle); the older triangle is overwritten.
        let list_work = mine.min(spare).min(size) as f64 * self.mean_group_pairs;
        let mean_pairs = self.mean_group_pairs;
        let by_bits = self.bits.as_mut().is_some_and(|bits| bits.cheaper(set, n, list_work, mean_pairs));
        if self.bits.is_some() && (by_bits || self.bit_sums == BitSums::Always) && self.bit_sums != BitSums::Never {
            self.trade_with_spare();
            self.pairs.resize(len, 0.0);
            // Nothing is held until the sums are whole (a stop may interrupt them).
            self.held.clear();
            let bits = self.bits.as_mut().expect("checked just above");
            let lists = GroupLists { start: &self.listed_start, listed: &self.listed, mean_pairs: self.mean_group_pairs };
            // Within the union kept, its groups are packed once and the set's from them.
            let within = (self.union_held.len() == set.len() && set.iter().zip(&self.union_held).all(|(s, u)| s & !u == 0)).then_some(&self.union_held[..]);
            bits.sum_triangle(set, within, n, k, &mut self.pairs, lists, poller)?;
            self.updates = 0;
            self.held.clear();
            self.held.extend_from_slice(set);
            return Ok(());
        }
        // Update the closer triangle; when neither is close, overwrite the older one.
        let differ = if spare < mine || mine >= size {
            self.trade_with_spare();
            if self.pairs.len() != len {
                self.pairs.clear();
                self.pairs.resize(len, 0.0);
            }
            spare
        } else {
            mine
        };
        let held = std::mem::take(&mut self.held);
        let (values, pairs) = (&self.values, &mut self.pairs);
        let per_channel = len / k;
        if differ >= size {
            pairs.fill(0.0);
        }
        let update = differ < size;
        self.updates = if update { self.updates + 1 } else { 0 };
        for (wi, &word) in set.iter().enumerate() {
            let (add, remove) = if update { (word & !held[wi], held[wi] & !word) } else { (word, 0) };
            for (mut w, sign) in [(add, 1.0), (remove, -1.0)] {
                while w != 0 {
                    let g = wi * 64 + w.trailing_zeros() as usize;
                    w &= w - 1;
                    let v = group_values(values, &t.obj, g, k);
                    // Identity mode is chosen only when the kernel keeps its lists.
                    let ones = &self.listed[self.listed_start[g] as usize..self.listed_start[g + 1] as usize];
                    for (sums, &v) in pairs.chunks_exact_mut(per_channel).zip(v) {
                        add_to_triangle(sums, n, ones, sign * v, true);
                    }
                    poller.add(ones.len() * (ones.len() + 1) / 2)?;
                }
            }
        }
        let mut held = held;
        held.clear();
        held.extend_from_slice(set);
        self.held = held;
        Ok(())
    }

    fn solve_k<const K: usize, const C: usize, O: Objective, S: SplitFamily>(&mut self, t: &Task<O, S>, set: &[u64], depth: u32, rules: &Rules, layout: Layout, poller: &mut Poller) -> Result<SmallTree, Halt> {
        let k = channels::<K>(self.k);
        let (mut b, mut x) = (std::mem::take(&mut self.b), std::mem::take(&mut self.x));
        let (mut row, mut left) = (std::mem::take(&mut self.row), std::mem::take(&mut self.left));
        let total = std::mem::take(&mut self.total);
        let tree = if depth == 1 {
            let two = self.two_classes::<K, C, O>(&total);
            let (cost, f) = self.depth_one::<K, C, O>(&t.obj, &total, &self.diag, &mut b, rules, two);
            Ok(SmallTree { cost, split: f.map(|f| (f, None, None)) })
        } else {
            let two = self.two_classes::<K, C, O>(&total);
            let s = self.side_at(&t.obj, &total, 2, rules, two);
            let mut best = SmallTree { cost: s.leaf_cost, split: None };
            let n = self.active.len();
            let mut layout = layout;
            let mut outcome = Ok(());
            let (mut splitting, mut splitting_sums) = (std::mem::take(&mut self.splitting), std::mem::take(&mut self.splitting_sums));
            (splitting.clear(), splitting_sums.clear());
            // Two classes over the whole triangle: every root's stumps from one pass over
            // the pairs ([`Depth2::pair_stumps`]); by blocks of rows, root by root.
            let paired = K == 2 && two && self.empty_stumps_lose && matches!(layout, Layout::Triangle) && rules.penalty >= 0.0;
            if !s.terminal {
                'blocks: loop {
                    if let Err(h) = self.accumulate::<K, O, S>(t, set, layout, poller) {
                        outcome = Err(h);
                        break;
                    }
                    if splitting.is_empty() {
                        // The features splitting the set with both sides supported (the
                        // diagonal is known after the first pass): no other splits a child.
                        for (j, d) in self.diag.chunks_exact(k).enumerate() {
                            for t in 0..k {
                                x[t] = total[t] - d[t];
                            }
                            if self.rows::<C, O>(&t.obj, d) >= rules.min_support && self.rows::<C, O>(&t.obj, &x) >= rules.min_support {
                                splitting.push(j as u32);
                                splitting_sums.extend_from_slice(d);
                            }
                        }
                        let len = splitting.len() * k;
                        if matches!(layout, Layout::Triangle) {
                            self.starts.clear();
                            self.starts.extend((0..n).map(|i| triangle_start(n, i)));
                        }
                        row.resize(len, 0.0);
                        left.resize(len, 0.0);
                        if splitting.is_empty() {
                            break;
                        }
                        if paired {
                            self.pair_stumps(&splitting, &splitting_sums, [total[0], total[1]], rules.penalty);
                        }
                    }
                    let roots = match layout {
                        Layout::Triangle => 0..n,
                        Layout::Rows { start, end } => start..end,
                    };
                    let first = splitting.partition_point(|&i| (i as usize) < roots.start);
                    for q in first..splitting.partition_point(|&i| (i as usize) < roots.end) {
                        if let Err(h) = poller.add(2 * splitting.len()) {
                            outcome = Err(h);
                            break 'blocks;
                        }
                        let (i, right) = (splitting[q] as usize, &splitting_sums[q * k..(q + 1) * k]);
                        for t in 0..k {
                            x[t] = total[t] - right[t];
                        }
                        // A root split matters only while it may beat the best tree found:
                        // first by its children's bounds from the leaf-closing rules, then
                        // by its right child's best subtree with its left child's bound.
                        let target = best.cost;
                        let (left_side, right_side) = (self.side_at(&t.obj, &x, 1, rules, two), self.side_at(&t.obj, right, 1, rules, two));
                        let (left_lb, right_lb) = (left_side.lb, right_side.lb);
                        if left_lb + right_lb >= target {
                            if let Some(bounds) = self.split_bounds.as_mut() {
                                bounds.push((self.active[i], left_lb + right_lb));
                            }
                            continue;
                        }
                        if K == 2 && two && self.empty_stumps_lose {
                            // Both children's best stumps in one pass over the pairs.
                            let ((cr, fr), (cl, fl)) = if paired {
                                let some = |q: u32| (q != NONE).then_some(q);
                                let [(rc, rq), (lc, lq)] = self.stumps[q];
                                let r = if right_side.terminal { (right_side.leaf_cost, None) } else { (rc, some(rq)) };
                                let l = if left_side.terminal { (left_side.leaf_cost, None) } else { (lc, some(lq)) };
                                (r, l)
                            } else {
                                self.both_stumps(layout, i, &splitting, &splitting_sums, [right[0], right[1]], [x[0], x[1]], right_side, left_side, rules.penalty)
                            };
                            if cr + left_lb >= target {
                                if let Some(bounds) = self.split_bounds.as_mut() {
                                    bounds.push((self.active[i], cr + left_lb));
                                }
                                continue;
                            }
                            if let Some(bounds) = self.split_bounds.as_mut() {
                                bounds.push((self.active[i], cl + cr));
                            }
                            if cl + cr < best.cost {
                                let feature = |f: Option<u32>| f.map(|p| splitting[p as usize]);
                                best = SmallTree { cost: cl + cr, split: Some((i as u32, feature(fl), feature(fr))) };
                            }
                            continue;
                        }
                        self.gather_row::<K>(layout, i, &splitting, &mut row);
                        let (cr, fr) = self.depth_one::<K, C, O>(&t.obj, right, &row, &mut b, rules, two);
                        if cr + left_lb >= target {
                            if let Some(bounds) = self.split_bounds.as_mut() {
                                bounds.push((self.active[i], cr + left_lb));
                            }
                            continue;
                        }
                        // The left child's rows with feature j = 1: those of j less those of (i, j).
                        for ((l, d), p) in left.iter_mut().zip(&splitting_sums).zip(&row) {
                            *l = d - p;
                        }
                        let (cl, fl) = self.depth_one::<K, C, O>(&t.obj, &x, &left, &mut b, rules, two);
                        if let Some(bounds) = self.split_bounds.as_mut() {
                            bounds.push((self.active[i], cl + cr));
                        }
                        if cl + cr < best.cost {
                            let feature = |f: Option<u32>| f.map(|p| splitting[p as usize]);
                            best = SmallTree { cost: cl + cr, split: Some((i as u32, feature(fl), feature(fr))) };
                        }
                    }
                    match layout {
                        Layout::Rows { start, end } if end < n => {
                            layout = Layout::Rows { start: end, end: (2 * end - start).min(n) };
                        }
                        _ => break,
                    }
                }
            }
            (self.splitting, self.splitting_sums) = (splitting, splitting_sums);
            outcome.map(|_| best)
        };
        (self.b, self.x, self.row, self.left, self.total) = (b, x, row, left, total);
        tree
    }
}

/// The kernel's per-group lists of counted features (CSR: a group's in
/// `listed[start[g]..start[g + 1]]`) and the mean pairs a group adds to a triangle, for
/// the planes of few groups [`PairBits::sum_triangle`] adds group by group.
#[derive(Clone, Copy)]
struct GroupLists<'a> {
    start: &'a [u32],
    listed: &'a [u32],
    mean_pairs: f64,
}

/// Planes of one channel's values up to which [`PairBits`] are built.
const MAX_PLANES: usize = 16;

/// Word operations of [`PairBits::sum_triangle`] (an and, a population count and an
/// addition) that cost as much as one pair update from the lists (an index load and a
/// scattered float addition). Measured (callgrind, the Rashomon bench's 0/1 instances):
/// at 2, the fewest instructions on coupon_carryout d3 (595 M; 599 M at 1, 633 M at 4)
/// and on broward d3 (364 M; 415 M at 1).
const LIST_UPDATE_WORDS: f64 = 2.0;

/// When whole triangles are summed by population counts ([`PairBits`]).
#[derive(Clone, Copy, Debug, PartialEq)]
enum BitSums {
    /// Where [`PairBits::cheaper`] estimates it cheaper than the lists.
    Estimated,
    /// Whenever the bits are built (the tests compare the three).
    #[cfg_attr(not(test), allow(dead_code))]
    Always,
    /// Never.
    #[cfg_attr(not(test), allow(dead_code))]
    Never,
}

/// The dataset's groups as bit vectors, for datasets whose groups' channel values are
/// small whole numbers (row counts per class, unweighted): per feature, the groups the
/// kernel counts in it; per channel and bit `p` of the values (a *plane*, of weight
/// 2^p), the groups whose value has that bit. A channel's sum over the groups of a set
/// counted in features i and j is then the sum over its planes of 2^p x the population
/// count of set & plane & i & j: a few word operations per 64 groups, pair and plane,
/// where the lists cost an addition per group and pair (car_evaluation d4: 1,728 groups
/// of one row, 15 features, 4 to 5 listed each). The sums are exact, as the lists'.
struct PairBits {
    words: usize,
    /// Word by word (`words x m`), the groups counted in each feature: the words of all
    /// the features at one offset are contiguous, as the packing and the per-feature
    /// sums read them (word-major: a pass over one offset's features reads one run).
    columns: Vec<u64>,
    /// Per plane, its channel and weight, and (`planes x words`) its groups.
    planes: Vec<(usize, f64)>,
    masks: Vec<u64>,
    /// Per plane, the words its groups are in when they are few (a high bit of rare
    /// counts): the passes over a set's words visit those only.
    sparse: Vec<Option<Vec<u32>>>,
    /// Scratch: per plane, the words where it meets the current set and the set's groups
    /// in it; those words of the set and plane; those words of every column, word by
    /// word (or packed); and one feature's counts with the others.
    live: Vec<Vec<u32>>,
    live_groups: Vec<usize>,
    set_words: Vec<u64>,
    compact: Vec<u64>,
    counts: Vec<u32>,
    /// The set the sets summed lie within (the union of a node's two children, see
    /// [`Depth2::note_union`]) and, per plane, its groups packed once
    /// ([`ParentPlane`]): a child is then packed from those dense words rather than from
    /// the columns' sparse ones. `None` for a plane not packed yet.
    parent: Vec<u64>,
    parent_planes: Vec<Option<ParentPlane>>,
    /// Scratch: a set's groups among the parent's packed ones, and the rows that hold some.
    child_mask: Vec<u64>,
    child_rows: Vec<u32>,
}

/// One plane of the parent set of [`PairBits`]: the words where the parent meets the
/// plane (dataset indices) and its groups there, and those groups' bits of every column
/// packed into `rows` whole words (word-major, as [`pack`] writes them); or, when the
/// packed rows would not be fewer than half the words a child spans, nothing (`rows` 0).
struct ParentPlane {
    live: Vec<u32>,
    words: Vec<u64>,
    rows: usize,
    packed: Vec<u64>,
}

impl PairBits {
    /// The bits of the dataset of `t` (channel values `values`, `k` per group, or the
    /// objective's when empty; per group the `listed` features, CSR, those of
    /// [`listed_features`] with its polarity `flipped`), or `None` when a value is
    /// negative, fractional or needs more than [`MAX_PLANES`] bits, or the bits would
    /// take more than `room` bytes.
    fn new<O: Objective, S: SplitFamily>(t: &Task<O, S>, values: &[f64], k: usize, flipped: &[bool], listed_start: &[u32], listed: &[u32], room: usize) -> Option<PairBits> {
        let (n, m) = (t.data.n_groups(), t.splits.n_splits());
        if n == 0 || listed_start.is_empty() {
            return None;
        }
        // Every value converted once to a whole number below 2^MAX_PLANES (a round trip
        // through u32 is exact just for those); a channel's planes are the bits up to its
        // largest value's highest, the bits its values' union has up to there.
        let mut whole = Vec::with_capacity(n * k);
        let mut union = vec![0u32; k];
        for g in 0..n {
            for (any, &v) in union.iter_mut().zip(group_values(values, &t.obj, g, k)) {
                let u = v as u32;
                if !(v >= 0.0 && v < (1u64 << MAX_PLANES) as f64) || u as f64 != v {
                    return None;
                }
                *any |= u;
                whole.push(u);
            }
        }
        // Channel c's planes, one per bit below its values' highest, ascending.
        let bits = |c: usize| (32 - union[c].leading_zeros()) as usize;
        let planes: Vec<(usize, f64)> = (0..k).flat_map(|c| (0..bits(c)).map(move |p| (c, (1u64 << p) as f64))).collect();
        let words = n.div_ceil(64);
        if (m + planes.len() + 1) * words * 8 * 2 > room {
            return None;
        }
        let mut plane_start = vec![0usize; k + 1];
        for c in 0..k {
            plane_start[c + 1] = plane_start[c] + bits(c);
        }
        let mut columns = vec![0u64; m * words];
        // Where the family keeps each split's groups as bits, a feature's column is its
        // bits (complemented within the groups when flipped), word by word: a copy per
        // word, not an update per listed group (car_evaluation: 405 words, 7,344 entries).
        let by_words = flipped.len() == m && (0..m).all(|f| t.splits.right_words(f).is_some_and(|w| w.len() == words));
        if by_words {
            for (f, &flip) in flipped.iter().enumerate() {
                let right = t.splits.right_words(f).expect("checked");
                for (i, &x) in right.iter().enumerate() {
                    let valid = if (i + 1) * 64 <= n { u64::MAX } else { u64::MAX >> (64 - n % 64) };
                    columns[i * m + f] = if flip { !x & valid } else { x };
                }
            }
        }
        let mut masks = vec![0u64; planes.len() * words];
        for (g, group) in whole.chunks_exact(k).enumerate() {
            let bit = 1u64 << (g % 64);
            if !by_words {
                let row = &mut columns[(g / 64) * m..(g / 64 + 1) * m];
                for &f in &listed[listed_start[g] as usize..listed_start[g + 1] as usize] {
                    row[f as usize] |= bit;
                }
            }
            // A value's set bits, each in its plane (a zero, most channels of a group,
            // those of the classes it has no rows of, has none).
            for (c, &v) in group.iter().enumerate() {
                let mut v = v;
                while v != 0 {
                    let q = plane_start[c] + v.trailing_zeros() as usize;
                    masks[q * words + g / 64] |= bit;
                    v &= v - 1;
                }
            }
        }
        let live = vec![Vec::new(); planes.len()];
        let sparse = (0..planes.len())
            .map(|q| {
                let held: Vec<u32> = (0..words).filter(|&i| masks[q * words + i] != 0).map(|i| i as u32).collect();
                (4 * held.len() < words).then_some(held)
            })
            .collect();
        Some(PairBits { words, columns, planes, masks, sparse, live, live_groups: Vec::new(), set_words: Vec::new(), compact: Vec::new(), counts: Vec::new(), parent: Vec::new(), parent_planes: Vec::new(), child_mask: Vec::new(), child_rows: Vec::new() })
    }

    /// The class channels' sum over the groups of `solved` missing from `set` (the first
    /// `c` channels' planes).
    fn class_weight(&self, solved: &[u64], set: &[u64], c: usize) -> f64 {
        let w = self.words;
        let mut weight = 0.0;
        for (q, &(_, plane)) in self.planes.iter().enumerate().filter(|(_, p)| p.0 < c) {
            let mask = &self.masks[q * w..(q + 1) * w];
            let n = match &self.sparse[q] {
                Some(held) => held.iter().map(|&i| (solved[i as usize] & !set[i as usize] & mask[i as usize]).count_ones() as u64).sum(),
                None => count_and_not(solved, set, mask),
            };
            weight += plane * n as f64;
        }
        weight
    }

    /// Words [`PairBits::totals`] reads: every plane's, the sparse ones' own only.
    fn total_words(&self) -> usize {
        self.sparse.iter().map(|held| held.as_ref().map_or(self.words, Vec::len)).sum()
    }

    /// Adds to `total` (per channel) the sums over `set`.
    fn totals(&self, set: &[u64], total: &mut [f64]) {
        with_popcount(
            #[inline(always)]
            || {
                let w = self.words;
                for (q, &(c, weight)) in self.planes.iter().enumerate() {
                    let mask = &self.masks[q * w..(q + 1) * w];
                    let n: u32 = match &self.sparse[q] {
                        Some(held) => held.iter().map(|&i| (set[i as usize] & mask[i as usize]).count_ones()).sum(),
                        None => set.iter().zip(mask).map(|(s, x)| (s & x).count_ones()).sum(),
                    };
                    total[c] += weight * n as f64;
                }
            },
        )
    }

    /// When summing per feature over `set` by population counts costs less than
    /// `list_work` updates from the lists: writes those sums (channel by channel, `m`
    /// each) into `single` and the set's own into `total`, as the lists would, and
    /// returns true. Leaves the live words noted as [`PairBits::cheaper`] does.
    fn singles(&mut self, set: &[u64], m: usize, list_work: f64, single: &mut [f64], total: &mut [f64]) -> bool {
        with_popcount(
            #[inline(always)]
            || self.singles_body(set, m, list_work, single, total),
        )
    }

    #[inline(always)]
    fn singles_body(&mut self, set: &[u64], m: usize, list_work: f64, single: &mut [f64], total: &mut [f64]) -> bool {
        let w = self.words;
        let live_words = self.note_live(set);
        if (live_words * (m + 1)) as f64 >= LIST_UPDATE_WORDS * list_work {
            return false;
        }
        single.fill(0.0);
        total.fill(0.0);
        for (q, &(c, weight)) in self.planes.iter().enumerate() {
            let live = &self.live[q];
            if live.is_empty() {
                continue;
            }
            let mask = &self.masks[q * w..(q + 1) * w];
            self.set_words.clear();
            self.set_words.extend(live.iter().map(|&i| set[i as usize] & mask[i as usize]));
            total[c] += weight * self.set_words.iter().map(|x| x.count_ones()).sum::<u32>() as f64;
            self.counts.clear();
            self.counts.resize(m, 0);
            add_row_counts(&self.columns, m, live, &self.set_words, &mut self.counts);
            for (sum, &n) in single[c * m..(c + 1) * m].iter_mut().zip(&self.counts) {
                *sum += weight * n as f64;
            }
        }
        true
    }

    fn bytes(&self) -> usize {
        let parent: usize = self.parent_planes.iter().flatten().map(|p| 4 * p.live.capacity() + 8 * (p.words.capacity() + p.packed.capacity()) + 48).sum();
        parent + 8 * (self.parent.capacity() + self.child_mask.capacity()) + 4 * self.child_rows.capacity()
            + 8 * (self.columns.capacity() + self.masks.capacity() + self.set_words.capacity() + self.compact.capacity() + 2 * self.planes.capacity()) + 4 * (self.counts.capacity() + self.live.iter().chain(self.sparse.iter().flatten()).map(|l| l.capacity()).sum::<usize>())
            + 8 * self.live_groups.capacity()
    }

    /// Notes, per plane, the words where it meets `set`; returns how many there are.
    fn note_live(&mut self, set: &[u64]) -> usize {
        let w = self.words;
        let mut live_words = 0usize;
        self.live_groups.clear();
        for (q, live) in self.live.iter_mut().enumerate() {
            live.clear();
            let mask = &self.masks[q * w..(q + 1) * w];
            let mut groups = 0;
            let mut note = |i: usize, word: u64| {
                if word != 0 {
                    live.push(i as u32);
                    groups += word.count_ones() as usize;
                }
            };
            match &self.sparse[q] {
                Some(held) => held.iter().for_each(|&i| note(i as usize, set[i as usize] & mask[i as usize])),
                None => set.iter().zip(mask).enumerate().for_each(|(i, (s, x))| note(i, s & x)),
            }
            self.live_groups.push(groups);
            live_words += live.len();
        }
        live_words
    }

    /// True when summing the triangle of `m` features over `set` by population counts
    /// costs less than `list_work` pair updates from the lists; notes the words where
    /// each plane meets the set, for [`PairBits::sum_triangle`]. A word operation is
    /// taken to cost [`LIST_UPDATE_WORDS`] times less than a pair update.
    fn cheaper(&mut self, set: &[u64], m: usize, list_work: f64, mean_pairs: f64) -> bool {
        self.note_live(set);
        let work: f64 = (0..self.planes.len()).map(|q| {
            let (bits, lists) = self.plane_work(q, m, mean_pairs);
            bits.min(lists)
        }).sum();
        work < LIST_UPDATE_WORDS * list_work
    }

    /// Word operations of plane `q`'s pair sums over the set [`PairBits::note_live`] noted:
    /// by population counts (packed as [`PairBits::sum_triangle`] packs them), and by its
    /// groups' listed pairs (`mean_pairs` a group, each [`LIST_UPDATE_WORDS`]).
    fn plane_work(&self, q: usize, m: usize, mean_pairs: f64) -> (f64, f64) {
        // With AVX-512's vector population count the pairs are counted eight at a time
        // ([`add_pair_sums`]), at a cost per plane that the rows do not share (each
        // block's conversion and store, each root's set-up): coupon_carryout q2 d4,
        // λ 0.02: 176 -> 155 ms, the lists' scattered updates of the triangle mostly
        // replaced; bank q3 d4 (12 features, 118 groups) as before with the fixed cost,
        // 20 % slower without it.
        let vector = vector_popcount();
        let pairs = (m * (m + 1) / 2).div_ceil(if vector { 8 } else { 1 });
        let (l, packed) = (self.live[q].len(), self.live_groups[q].div_ceil(64));
        let bits = if with_bit_extract(|extract| extract.is_some()) {
            let fixed = if vector { 6 * pairs + 10 * m } else { 0 };
            fixed + if packed * pairs + l * m < l * pairs { packed * (pairs + m) + l * m } else { l * (pairs + m) }
        } else {
            l * (pairs + m)
        };
        (bits as f64, self.live_groups[q] as f64 * mean_pairs * LIST_UPDATE_WORDS)
    }

    /// True when plane `q`'s groups in the set are cheaper added pair by pair from their
    /// lists than counted ([`PairBits::plane_work`]): a high bit of rare counts.
    fn plane_by_lists(&self, q: usize, m: usize, lists: &GroupLists) -> bool {
        let (bits, by_lists) = self.plane_work(q, m, lists.mean_pairs);
        by_lists < bits
    }

    /// Writes into `pairs` (channel by channel, each the upper triangle with its
    /// diagonal of `m` features) the sums over `set`, whose live words
    /// [`PairBits::cheaper`] noted.
    /// With `within`, a set holding `set` (the union of a node's children): its groups
    /// are packed once per plane, and the set's from them.
    #[allow(clippy::too_many_arguments)]
    fn sum_triangle(&mut self, set: &[u64], within: Option<&[u64]>, m: usize, k: usize, pairs: &mut [f64], lists: GroupLists, poller: &mut Poller) -> Result<(), Halt> {
        with_bit_extract(
            #[inline(always)]
            |extract| match extract {
                Some(e) => self.sum_triangle_body(set, within, m, k, pairs, lists, poller, Some(move |x, mask| e.extract(x, mask))),
                None => self.sum_triangle_body(set, within, m, k, pairs, lists, poller, None::<fn(u64, u64) -> u64>),
            },
        )
    }

    /// Plane `q` of the parent set `parent`, packed (`extract` as [`pack`]'s) when its
    /// packed rows are at most half of `live` (the words a child of it spans in the
    /// plane); kept until the parent changes. Returns it when packed.
    fn parent_plane(&mut self, parent: &[u64], q: usize, m: usize, live: usize, extract: impl Fn(u64, u64) -> u64) -> Option<&ParentPlane> {
        if self.parent != parent {
            self.parent.clear();
            self.parent.extend_from_slice(parent);
            self.parent_planes.clear();
        }
        self.parent_planes.resize_with(self.planes.len(), || None);
        if self.parent_planes[q].is_none() {
            let w = self.words;
            let mask = &self.masks[q * w..(q + 1) * w];
            let (mut held, mut words) = (Vec::new(), Vec::new());
            for (i, (p, x)) in parent.iter().zip(mask).enumerate() {
                if p & x != 0 {
                    held.push(i as u32);
                    words.push(p & x);
                }
            }
            let rows = words.iter().map(|x| x.count_ones() as usize).sum::<usize>().div_ceil(64);
            let mut packed = Vec::new();
            // Packed only where it pays against the children: a child spanning `live`
            // words of the plane is then packed from `rows` words, not from `live`.
            let rows = if 2 * rows <= live {
                pack(&self.columns, &held, &words, m, rows, extract, &mut packed);
                rows
            } else {
                0
            };
            self.parent_planes[q] = Some(ParentPlane { live: held, words, rows, packed });
        }
        self.parent_planes[q].as_ref().filter(|p| p.rows > 0)
    }

    /// [`PairBits::sum_triangle`], packing sparse sets with `extract` (the bits of a word
    /// at a mask's positions, packed: [`treeopt_core::bitset::BitExtract::extract`]) when given.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn sum_triangle_body<E: Fn(u64, u64) -> u64 + Copy>(&mut self, set: &[u64], within: Option<&[u64]>, m: usize, k: usize, pairs: &mut [f64], lists: GroupLists, poller: &mut Poller, extract: Option<E>) -> Result<(), Halt> {
        let w = self.words;
        let per_channel = pairs.len() / k;
        pairs.fill(0.0);
        for q in 0..self.planes.len() {
            let (c, weight) = self.planes[q];
            let l = self.live[q].len();
            if l == 0 {
                continue;
            }
            let sums = &mut pairs[c * per_channel..(c + 1) * per_channel];
            if self.plane_by_lists(q, m, &lists) {
                let (live, mask) = (&self.live[q], &self.masks[q * w..(q + 1) * w]);
                // A plane of a few groups (a high bit of rare counts): their listed pairs
                // one by one, where a pass over the triangle would cost its every block.
                for &i in live {
                    let mut word = set[i as usize] & mask[i as usize];
                    while word != 0 {
                        let g = i as usize * 64 + word.trailing_zeros() as usize;
                        word &= word - 1;
                        let ones = &lists.listed[lists.start[g] as usize..lists.start[g + 1] as usize];
                        add_to_triangle(sums, m, ones, weight, true);
                        poller.add(ones.len() * (ones.len() + 1) / 2)?;
                    }
                }
                continue;
            }
            // The live words of the set within the plane, then those words of every column
            // within them, word by word (`l x m`): the pairs of feature i are then counted
            // along contiguous rows, one word of i at a time (words where i has no group
            // skipped), into a count per pair.
            let (live, mask) = (&self.live[q], &self.masks[q * w..(q + 1) * w]);
            self.set_words.clear();
            self.set_words.extend(live.iter().map(|&i| set[i as usize] & mask[i as usize]));
            self.compact.clear();
            let packed = self.live_groups[q].div_ceil(64);
            match extract.filter(|_| packed * (m + 1) * m / 2 + l * m < l * (m + 1) * m / 2) {
                // The set's groups in the plane packed into `packed` whole words (their bits
                // of every column extracted word by word, at the same offsets for all
                // columns), where the extractions (a few word operations per live word and
                // column) cost less than the pair counts the packing saves: a subproblem two
                // levels down holds a few groups of every word (car_evaluation d4: on
                // average 581 groups in 34 live words of its two planes, 10 packed).
                Some(extract) => {
                    let (mut child_mask, mut child_rows, mut compact) = (std::mem::take(&mut self.child_mask), std::mem::take(&mut self.child_rows), std::mem::take(&mut self.compact));
                    match within.and_then(|parent| self.parent_plane(parent, q, m, l, extract)) {
                        // The set's groups among the parent's packed ones (the same
                        // groups in the same order), then packed from those rows.
                        Some(parent) => {
                            child_mask.clear();
                            child_mask.resize(parent.rows, 0);
                            let mut at = 0usize;
                            for (&i, &p) in parent.live.iter().zip(&parent.words) {
                                let (word, shift) = (at / 64, at % 64);
                                let bits = extract(set[i as usize] & p, p);
                                child_mask[word] |= bits << shift;
                                let n = p.count_ones() as usize;
                                if shift + n > 64 {
                                    child_mask[word + 1] |= bits >> (64 - shift);
                                }
                                at += n;
                            }
                            child_rows.clear();
                            child_rows.extend((0..parent.rows as u32).filter(|&r| child_mask[r as usize] != 0));
                            child_mask.retain(|&x| x != 0);
                            pack(&parent.packed, &child_rows, &child_mask, m, packed, extract, &mut compact);
                        }
                        None => pack(&self.columns, &self.live[q], &self.set_words, m, packed, extract, &mut compact),
                    }
                    (self.child_mask, self.child_rows, self.compact) = (child_mask, child_rows, compact);
                }
                None => {
                    for (&i, s) in live.iter().zip(&self.set_words) {
                        self.compact.extend(self.columns[i as usize * m..(i as usize + 1) * m].iter().map(|x| x & s));
                    }
                }
            }
            add_pair_sums(&self.compact, m, weight, sums, &mut self.counts);
            poller.add(m * (m + 1) / 2 * l)?;
        }
        Ok(())
    }
}

/// Writes into `out` (`packed` rows of `m` words, a word per column, as the unpacked rows
/// of [`PairBits::sum_triangle`]) the groups of the live words `live` of a set (their
/// groups `set_words`) in each of the `m` columns (`columns`, word-major: `m` words per
/// offset), packed
/// (`extract`: [`treeopt_core::bitset::BitExtract::extract`]): the groups of one live word at the same offset
/// in every column, one after another.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn pack(columns: &[u64], live: &[u32], set_words: &[u64], m: usize, packed: usize, extract: impl Fn(u64, u64) -> u64, out: &mut Vec<u64>) {
    out.clear();
    out.resize(packed * m, 0);
    let out = &mut out[..];
    let mut at = 0usize;
    for (&i, &s) in live.iter().zip(set_words) {
        let (word, shift, n) = (at / 64, at % 64, s.count_ones() as usize);
        let source = &columns[i as usize * m..(i as usize + 1) * m];
        if shift + n > 64 {
            let (low, high) = out[word * m..(word + 2) * m].split_at_mut(m);
            for ((lo, hi), &x) in low.iter_mut().zip(high.iter_mut()).zip(source) {
                let bits = extract(x, s);
                *lo |= bits << shift;
                *hi |= bits >> (64 - shift);
            }
        } else {
            for (lo, &x) in out[word * m..(word + 1) * m].iter_mut().zip(source) {
                *lo |= extract(x, s) << shift;
            }
        }
        at += n;
    }
}

/// Index of pair (i, i) in the upper triangle (with its diagonal) of `n` features kept
/// row by row: row `i` holds the pairs (i, j) for j = i..n.
#[inline]
fn triangle_start(n: usize, i: usize) -> usize {
    i * (2 * n - i + 1) / 2
}

/// STreeD's similarity bound: no tree of `set` costs less than `known`, a lower bound on
/// the trees of the same depth of the set `solved`, less the insertion costs of the groups
/// of `solved` missing from `set` ([`Objective::insertion_cost`]). For a tree of `set` is
/// a tree of `solved` once those groups are added, which costs at most their insertion
/// costs, and the groups of `set` outside `solved` only make it dearer (with a minimum leaf
/// support of one). With statistics that are not all `integral`, the bound is kept below
/// `known`'s rounding. Only a bound above `floor` is of use: `f64::NEG_INFINITY` as soon
/// as it cannot exceed `floor` (the groups missing are not all visited then), or when a
/// missing group has no insertion cost.
pub(crate) fn similarity_bound<O: Objective>(obj: &O, solved: &[u64], known: f64, set: &[u64], integral: bool, floor: f64) -> f64 {
    let rounding = if integral { 0.0 } else { 1e-12 * known.abs() };
    let bound = |missing: f64| known - missing * (1.0 + 1e-9) - rounding;
    if solved.len() != set.len() || bound(0.0) <= floor {
        return f64::NEG_INFINITY;
    }
    let mut missing = 0.0;
    for (wi, (&a, &b)) in solved.iter().zip(set).enumerate() {
        let mut w = a & !b;
        while w != 0 {
            let g = wi * 64 + w.trailing_zeros() as usize;
            w &= w - 1;
            missing += obj.insertion_cost(g).unwrap_or(f64::INFINITY);
        }
        if w != a & !b && bound(missing) <= floor {
            return f64::NEG_INFINITY;
        }
    }
    bound(missing)
}

/// [`similarity_bound`] when every group's insertion cost is `cost`: the groups of
/// `solved` missing from `set` cost `cost` times their number (a population count per
/// word instead of a sum per group). The same bound: with whole-number costs the sum
/// group by group is this product exactly; otherwise the product is the more exact of
/// the two, and the bound keeps the same relative margin below it.
pub(crate) fn uniform_similarity_bound(solved: &[u64], known: f64, set: &[u64], cost: f64, integral: bool) -> f64 {
    if solved.len() != set.len() {
        return f64::NEG_INFINITY;
    }
    let rounding = if integral { 0.0 } else { 1e-12 * known.abs() };
    let missing: u64 = with_popcount(
        #[inline(always)]
        || solved.iter().zip(set).map(|(&a, &b)| (a & !b).count_ones() as u64).sum(),
    );
    known - missing as f64 * cost * (1.0 + 1e-9) - rounding
}

/// The insertion cost ([`Objective::insertion_cost`]) all `n_groups` groups share, if
/// they share one.
fn uniform_insertion<O: Objective>(obj: &O, n_groups: usize) -> Option<f64> {
    if n_groups == 0 {
        return None;
    }
    let first = obj.insertion_cost(0).filter(|c| c.is_finite() && *c >= 0.0)?;
    (1..n_groups).all(|g| obj.insertion_cost(g).is_some_and(|c| c.to_bits() == first.to_bits())).then_some(first)
}

/// Adds `v` to the triangle's sum of every pair (i, j), i < j (and i = j when
/// `diagonal`), of the ascending features `ones`: the kernel's innermost loop. Groups
/// of one class add nothing to the other classes' triangles (`v == 0`).
#[inline]
fn add_to_triangle(sums: &mut [f64], n: usize, ones: &[u32], v: f64, diagonal: bool) {
    if v == 0.0 {
        return;
    }
    for (a, &i) in ones.iter().enumerate() {
        let i = i as usize;
        let row = &mut sums[triangle_start(n, i)..triangle_start(n, i) + n - i];
        for &j in &ones[a + !diagonal as usize..] {
            row[j as usize - i] += v;
        }
    }
}

/// The kernel's feature polarity and its per-group lists (see [`Depth2::flipped`]):
/// `(flipped, listed_start, listed)`; nothing flipped and no lists when the family lists
/// no splits per group.
pub(crate) fn listed_features<O: Objective, S: SplitFamily>(t: &Task<O, S>) -> (Vec<bool>, Vec<u32>, Vec<u32>) {
    let (m, n_groups) = (t.splits.n_splits(), t.data.n_groups());
    if n_groups == 0 || t.splits.right_list(0).is_none() {
        return (vec![false; m], Vec::new(), Vec::new());
    }
    // The family lists every group's splits or none: the lists are read from it twice
    // (counting, then listing), not gathered into a vector of slices.
    let list = |g: usize| t.splits.right_list(g).unwrap_or(&[]);
    let mut ones = vec![0usize; m];
    if (0..m).all(|f| t.splits.right_words(f).is_some()) {
        // A split's groups as bits: a population count per word, not a count per listed
        // group (car_evaluation: 405 words against 7,344 entries).
        for (f, n) in ones.iter_mut().enumerate() {
            *n = t.splits.right_words(f).map_or(0, |w| w.iter().map(|x| x.count_ones() as usize).sum());
        }
    } else {
        for g in 0..n_groups {
            for &f in list(g) {
                ones[f as usize] += 1;
            }
        }
    }
    let flipped: Vec<bool> = ones.iter().map(|&n| 2 * n > n_groups).collect();
    if !flipped.contains(&true) {
        // Nothing flipped: the lists are the family's own, copied whole when it stores
        // them so (one-hot columns, each 1 in at most half the groups: car_evaluation).
        if let Some((start, listed)) = t.splits.right_lists() {
            return (flipped, start.to_vec(), listed.to_vec());
        }
    }
    // The lists' length is known: a flipped feature is listed in the groups where it is
    // 0 (allocated once, where growing by doubling and shrinking copied them again).
    let listed_len: usize = ones.iter().zip(&flipped).map(|(&n, &f)| if f { n_groups - n } else { n }).sum();
    let mut start = Vec::with_capacity(n_groups + 1);
    let mut listed = Vec::with_capacity(listed_len);
    start.push(0);
    // A group's counted features are those where its value differs from the flip: its
    // features at 1 as bits, exclusive-or the flipped ones, read off in ascending order
    // (a word operation per 64 features where a test per feature cost 4 % of car d4).
    let words = m.div_ceil(64);
    let mut flips = vec![0u64; words];
    for f in (0..m).filter(|&f| flipped[f]) {
        flips[f / 64] |= 1 << (f % 64);
    }
    let read_off = |listed: &mut Vec<u32>, wi: usize, mut w: u64| {
        while w != 0 {
            listed.push((wi * 64) as u32 + w.trailing_zeros());
            w &= w - 1;
        }
    };
    if words == 1 {
        // Up to 64 features a group's bits are one word, in a register (car_evaluation:
        // 1,728 groups; clearing a buffer per group was a call to memset each).
        for g in 0..n_groups {
            let bits = list(g).iter().fold(0u64, |b, &f| b | 1 << f);
            read_off(&mut listed, 0, bits ^ flips[0]);
            start.push(listed.len() as u32);
        }
    } else {
        let mut bits = vec![0u64; words];
        for g in 0..n_groups {
            for &f in list(g) {
                bits[f as usize / 64] |= 1 << (f % 64);
            }
            for (wi, (b, &x)) in bits.iter_mut().zip(&flips).enumerate() {
                read_off(&mut listed, wi, *b ^ x);
                *b = 0;
            }
            start.push(listed.len() as u32);
        }
    }
    debug_assert_eq!(listed.len(), listed_len);
    (flipped, start, listed)
}

/// Calls `f` with every feature the kernel counts group `g` in: from its own lists when
/// it keeps them, else the family's splits sending `g` right.
#[inline]
fn for_each_counted<S: SplitFamily>(listed_start: &[u32], listed: &[u32], splits: &S, g: usize, mut f: impl FnMut(u32)) {
    if listed_start.is_empty() {
        splits.for_each_right(g, f);
    } else {
        listed[listed_start[g] as usize..listed_start[g + 1] as usize].iter().for_each(|&s| f(s));
    }
}

/// The channel count: the const parameter when set, else the runtime one (`K == 0`).
#[inline(always)]
fn channels<const K: usize>(k: usize) -> usize {
    if K == 0 {
        k
    } else {
        K
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::objective::Misclassification;
    use crate::split::ZeroOneColumns;
    use crate::testing::{brute, random, random_rows, small_tree_cost};
    use treeopt_core::BinaryDataset;
    use crate::Status;

    /// Cost of the kernel's tree, recomputed from the groups it routes to each leaf.
    fn cost_of<O: Objective>(obj: &O, data: &BinaryDataset, groups: &[usize], tree: &SmallTree, penalty: f64) -> f64 {
        small_tree_cost(obj, groups, tree, penalty, 0.0, |g| data.group_rows(g) as f64, |g, f| data.feature_of(g, f as usize) != 0)
    }

    #[test]
    fn matches_brute_force_under_both_objectives() {
        use crate::objective::CostSensitive;
        for seed in 0..120u64 {
            let classes = 2 + (seed % 3) as usize;
            let data = random(12 + (seed % 20) as usize, 2 + (seed % 6) as usize, classes, seed + 7);
            let rules = Rules { penalty: [0.0, 0.3, 1.0][(seed % 3) as usize], min_support: 1.0 + (seed / 3 % 3) as f64 };
            let cost: Vec<f64> = (0..classes * classes).map(|i| if i / classes == i % classes { 0.0 } else { ((i * 7 + seed as usize) % 5) as f64 * 0.75 }).collect();
            let costed = Task { data: &data, obj: CostSensitive::new(&data, &cost).unwrap(), splits: ZeroOneColumns::new(&data) };
            let plain = Task { data: &data, obj: Misclassification::new(&data), splits: ZeroOneColumns::new(&data) };
            let groups: Vec<usize> = (0..data.n_groups()).filter(|g| (g + seed as usize) % 4 != 0).collect();
            let mut set = vec![0u64; data.words()];
            groups.iter().for_each(|&g| set[g / 64] |= 1 << (g % 64));
            let mut never = || None;
            for depth in [1, 2] {
                let mut kernel = Depth2::new(&plain, None, rules.min_support);
                let got = kernel.solve(&plain, &set, depth, &rules, usize::MAX, &mut never).unwrap();
                let want = brute(&plain.obj, &data, &groups, Some(depth), rules.penalty, rules.min_support);
                assert!((got.cost - want).abs() < 1e-9, "seed {seed}, depth {depth}: kernel {} brute force {want}", got.cost);
                assert!((cost_of(&plain.obj, &data, &groups, &got, rules.penalty) - got.cost).abs() < 1e-9);
                let mut kernel = Depth2::new(&costed, None, rules.min_support);
                let got = kernel.solve(&costed, &set, depth, &rules, usize::MAX, &mut never).unwrap();
                let want = brute(&costed.obj, &data, &groups, Some(depth), rules.penalty, rules.min_support);
                assert!((got.cost - want).abs() < 1e-9, "seed {seed}, depth {depth}, costs: kernel {} brute force {want}", got.cost);
                assert!((cost_of(&costed.obj, &data, &groups, &got, rules.penalty) - got.cost).abs() < 1e-9);
            }
        }
    }

    /// The short way of [`Depth2::side_at`] (two classes, misclassification, exact
    /// sums) gives the same sides as the rules ([`Depth2::side_of`]): the same leaf
    /// cost, bounds and closing, bit for bit, on empty sides, sides within a penalty of
    /// pure, ties and large counts, at every depth the kernel asks.
    #[test]
    fn two_class_sides_are_the_rules_sides() {
        let (x, y, _) = random_rows(40, 4, 2, 11);
        let data = BinaryDataset::new(&x, 40, 4, &y, 2, None).unwrap();
        let task = Task { data: &data, obj: Misclassification::new(&data), splits: ZeroOneColumns::new(&data) };
        let mut checked = 0;
        for min_support in [0.0, 1.0] {
            let kernel = Depth2::new(&task, None, min_support);
            for penalty in [0.0, 0.5, 1.0, 3.0, 7.0] {
                let rules = Rules { penalty, min_support };
                for a in [0.0, 1.0, 2.0, 3.0, 5.0, 8.0, 1e6] {
                    for b in [0.0, 1.0, 2.0, 3.0, 6.0, 8.0, 4e6 + 1.0] {
                        let v = [a, b];
                        assert!(kernel.two_classes::<2, 2, Misclassification>(&v));
                        for depth in [0, 1, 2] {
                            let (fast, rules_side) = (kernel.side_at(&task.obj, &v, depth, &rules, true), kernel.side_of(&task.obj, &v, depth, &rules));
                            let same = fast.leaf_cost.to_bits() == rules_side.leaf_cost.to_bits() && fast.lb.to_bits() == rules_side.lb.to_bits() && fast.proven.to_bits() == rules_side.proven.to_bits() && fast.terminal == rules_side.terminal;
                            assert!(same, "sums {v:?}, depth {depth}, {rules:?}: {fast:?} against {rules_side:?}");
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(checked, 2 * 5 * 7 * 7 * 3);
        // Not with a row channel (a minimum support above one), nor three classes.
        assert!(!Depth2::new(&task, None, 2.0).two_classes::<3, 2, Misclassification>(&[1.0, 1.0, 1.0]));
        let (x, y, _) = random_rows(40, 4, 3, 12);
        let three = BinaryDataset::new(&x, 40, 4, &y, 3, None).unwrap();
        let task3 = Task { data: &three, obj: Misclassification::new(&three), splits: ZeroOneColumns::new(&three) };
        assert!(!Depth2::new(&task3, None, 1.0).two_classes::<3, 3, Misclassification>(&[1.0, 1.0, 1.0]));
    }

    /// The stump pass's per-feature sums by population counts ([`PairBits::singles`])
    /// are the lists' sums: the same sums and the same outcome, on every subset tried
    /// (with rows per group above one, so that values take several planes).
    #[test]
    fn stump_pass_sums_by_population_counts_agree_with_the_lists() {
        let mut by_bits = 0;
        for seed in 0..200u64 {
            let classes = 2 + (seed % 3) as usize;
            let (rows, m) = (20 + (seed % 90) as usize, 2 + (seed % 9) as usize);
            let (x, y, w) = random_rows(rows, m, classes, seed + 5);
            let whole: Vec<f64> = w.iter().map(|v| 2.0 * v).collect();
            let data = BinaryDataset::new(&x, rows, m, &y, classes, if seed % 2 == 0 { Some(&whole) } else { None }).unwrap();
            let rules = Rules { penalty: [0.0, 1.0, 4.0][(seed % 3) as usize], min_support: 1.0 + (seed / 3 % 2) as f64 };
            let task = Task { data: &data, obj: Misclassification::new(&data), splits: ZeroOneColumns::new(&data) };
            let mut never = || None;
            let all = data.all_groups();
            let mut bits = Depth2::new(&task, None, rules.min_support);
            bits.solve(&task, all.words(), 2, &rules, usize::MAX, &mut never).unwrap();
            assert!(bits.bits.is_some(), "seed {seed}: no bits built");
            // Counting always pays here; the lists' kernel never builds bits.
            bits.mean_group_singles = f64::INFINITY;
            let mut lists = Depth2::new(&task, None, rules.min_support);
            lists.narrow = 0;
            for keep in [1usize, 2, 3, 7] {
                let mut set = vec![0u64; data.words()];
                (0..data.n_groups()).filter(|g| (g + seed as usize) % keep != keep / 2 || keep == 1).for_each(|g| set[g / 64] |= 1 << (g % 64));
                for bound in [0.0, 5.0, f64::INFINITY] {
                    let got = bits.stump_pass(&task, &set, &rules, bound, usize::MAX);
                    let want = lists.stump_pass(&task, &set, &rules, bound, usize::MAX);
                    assert_eq!(got, want, "seed {seed}, keep {keep}, bound {bound}");
                    assert_eq!((&bits.single, &bits.total), (&lists.single, &lists.total), "seed {seed}, keep {keep}");
                    by_bits += 1;
                }
            }
            assert!(lists.bits.is_none());
        }
        assert!(by_bits > 2000);
    }

    /// The counted features of each group ([`listed_features`]) are, in ascending order,
    /// those whose value differs from the column's flip, and a column is flipped where
    /// more than half the groups have it at 1: on random problems of one to three words
    /// of columns, a third of them mostly at 1.
    /// Random unweighted 0/1 rows of two classes with every third column complemented
    /// (so that many columns are mostly 1: features the lists flip).
    fn rows_with_flips(rows: usize, m: usize, seed: u64) -> BinaryDataset {
        let (mut x, y, _) = random_rows(rows, m, 2, seed);
        for (i, v) in x.iter_mut().enumerate() {
            if i % m % 3 == 0 {
                *v = 1 - *v;
            }
        }
        BinaryDataset::new(&x, rows, m, &y, 2, None).unwrap()
    }

    #[test]
    fn listed_features_are_the_values_unlike_the_flip() {
        let mut flips = 0;
        for seed in 0..40u64 {
            let (rows, m) = (5 + (seed % 50) as usize, 1 + (seed * 37 % 150) as usize);
            let data = rows_with_flips(rows, m, seed + 17);
            let task = Task { data: &data, obj: Misclassification::new(&data), splits: ZeroOneColumns::new(&data) };
            let (flipped, start, listed) = listed_features(&task);
            let n = data.n_groups();
            for f in 0..m {
                let at_one = (0..n).filter(|&g| data.feature_of(g, f) == 1).count();
                assert_eq!(flipped[f], 2 * at_one > n, "seed {seed}, column {f}");
                flips += flipped[f] as usize;
            }
            assert_eq!(start.len(), n + 1);
            for g in 0..n {
                let want: Vec<u32> = (0..m as u32).filter(|&f| (data.feature_of(g, f as usize) == 1) != flipped[f as usize]).collect();
                assert_eq!(&listed[start[g] as usize..start[g + 1] as usize], &want[..], "seed {seed}, group {g}");
            }
        }
        assert!(flips > 100, "{flips}");
    }

    /// The pair bits' columns, copied from the dataset's bits per feature (complemented
    /// where flipped), hold a group in a feature exactly when the kernel's lists count
    /// it there; on groups of several words and features flipped or not.
    #[test]
    fn pair_bit_columns_are_the_listed_features() {
        for seed in 0..30u64 {
            let (rows, m) = (5 + (seed * 13 % 200) as usize, 1 + (seed * 7 % 40) as usize);
            let data = rows_with_flips(rows, m, seed + 23);
            let task = Task { data: &data, obj: Misclassification::new(&data), splits: ZeroOneColumns::new(&data) };
            let (flipped, start, listed) = listed_features(&task);
            let bits = PairBits::new(&task, &[], 2, &flipped, &start, &listed, usize::MAX).expect("row counts");
            for g in 0..data.n_groups() {
                let counted = &listed[start[g] as usize..start[g + 1] as usize];
                for f in 0..m {
                    let has = bits.columns[(g / 64) * m + f] >> (g % 64) & 1 == 1;
                    assert_eq!(has, counted.contains(&(f as u32)), "seed {seed}, group {g}, feature {f}");
                }
            }
            let n = data.n_groups();
            for f in 0..m {
                let (last, used) = (bits.columns[(bits.words - 1) * m + f], n - (bits.words - 1) * 64);
                assert!(used == 64 || last >> used == 0, "seed {seed}: bits beyond the groups");
            }
        }
    }

    /// The stumps scored without the support test ([`Depth2::depth_one`] where
    /// `empty_stumps_lose`) are the stumps scored with it: the same trees, cost and
    /// features, including with no penalty (an empty stump then ties its leaf); with two
    /// classes, where the scan takes a leaf's loss as its smaller class, the same costs
    /// bit for bit under a fractional penalty too.
    #[test]
    fn stumps_without_the_support_test_are_the_same_trees() {
        for seed in 0..150u64 {
            let classes = 2 + (seed % 3) as usize;
            // Whole weights (the shortcut needs exact sums; half weights turn it off).
            let (rows, m) = (8 + (seed % 24) as usize, 2 + (seed % 7) as usize);
            let (x, y, w) = random_rows(rows, m, classes, seed + 31);
            let halves = BinaryDataset::new(&x, rows, m, &y, classes, Some(&w)).unwrap();
            let halves = Task { data: &halves, obj: Misclassification::new(&halves), splits: ZeroOneColumns::new(&halves) };
            assert!(!Depth2::new(&halves, None, 1.0).empty_stumps_lose);
            let whole: Vec<f64> = w.iter().map(|v| 2.0 * v).collect();
            let data = BinaryDataset::new(&x, rows, m, &y, classes, Some(&whole)).unwrap();
            let rules = Rules { penalty: [0.0, 1.0, 4.0, 0.37][(seed / 3 % 4) as usize], min_support: 1.0 };
            let task = Task { data: &data, obj: Misclassification::new(&data), splits: ZeroOneColumns::new(&data) };
            let mut never = || None;
            for keep in [2usize, 3, 5] {
                let groups: Vec<usize> = (0..data.n_groups()).filter(|g| (g + seed as usize) % keep != 0).collect();
                let mut set = vec![0u64; data.words()];
                groups.iter().for_each(|&g| set[g / 64] |= 1 << (g % 64));
                for depth in [1, 2] {
                    let mut fast = Depth2::new(&task, None, rules.min_support);
                    assert!(fast.empty_stumps_lose);
                    let mut tested = Depth2::new(&task, None, rules.min_support);
                    tested.empty_stumps_lose = false;
                    let got = fast.solve(&task, &set, depth, &rules, usize::MAX, &mut never).unwrap();
                    let want = tested.solve(&task, &set, depth, &rules, usize::MAX, &mut never).unwrap();
                    assert_eq!(got, want, "seed {seed}, keep {keep}, depth {depth}");
                }
            }
        }
    }

    /// The vector pass over the pairs ([`Depth2::pair_stumps`]) keeps the scan's stumps,
    /// bit for bit and with its ties: whole-number sums with many equal costs, splitting
    /// features with and without gaps (loads and gathers), rows of every length. (Where
    /// the CPU has no AVX-512, nothing to compare.)
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn pair_stumps_in_vectors_are_the_scan() {
        let mut next = {
            let mut state = 0x9e37_79b9_7f4a_7c15u64;
            move || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            }
        };
        for n in [1usize, 2, 7, 8, 9, 17, 30, 41] {
            let (x, y, _) = random_rows(4, n, 2, n as u64);
            let data = BinaryDataset::new(&x, 4, n, &y, 2, None).unwrap();
            let task = Task { data: &data, obj: Misclassification::new(&data), splits: ZeroOneColumns::new(&data) };
            for gaps in [0u64, 3, 7] {
                let mut kernel = Depth2::new(&task, None, 1.0);
                kernel.active = (0..n as u32).collect();
                let splitting: Vec<u32> = (0..n as u32).filter(|_| gaps == 0 || next() % 10 >= gaps).collect();
                let triangle = n * (n + 1) / 2;
                kernel.pairs = (0..2 * triangle).map(|_| (next() % 6) as f64).collect();
                let sums: Vec<f64> = splitting.iter().flat_map(|_| [(6 + next() % 6) as f64, (6 + next() % 6) as f64]).collect();
                let total = [(12 + next() % 6) as f64, (12 + next() % 6) as f64];
                #[cfg(target_arch = "x86_64")]
                if !(std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512vl")) {
                    return;
                }
                for penalty in [0.0, 1.0, 2.5] {
                    // SAFETY: the CPU has AVX-512F and VL, checked above.
                    unsafe { kernel.pair_stumps_avx512(&splitting, &sums, total, penalty) };
                    let got = kernel.stumps.clone();
                    kernel.pair_stumps_scalar(&splitting, &sums, total, penalty);
                    let want = kernel.stumps.clone();
                    let bits = |v: &[[(f64, u32); 2]]| v.iter().map(|s| [(s[0].0.to_bits(), s[0].1), (s[1].0.to_bits(), s[1].1)]).collect::<Vec<_>>();
                    assert_eq!(bits(&got), bits(&want), "n {n}, gaps {gaps}, penalty {penalty}");
                }
            }
        }
    }

    /// Every bound the depth-two pass keeps for a root split is at most the cost of the
    /// best depth-two tree splitting on it first (brute force), and is that cost or at
    /// least the optimum (a split skipped only once the best tree found cost no more).
    #[test]
    fn split_bounds_are_exact_or_above_the_optimum_and_never_above_the_split() {
        let mut checked = (0usize, 0usize);
        for seed in 0..400u64 {
            let classes = 2 + (seed % 3) as usize;
            let data = random(10 + (seed % 25) as usize, 2 + (seed % 7) as usize, classes, seed + 11);
            let rules = Rules { penalty: [0.0, 0.3, 1.0, 0.1][(seed % 4) as usize], min_support: 1.0 + (seed / 4 % 3) as f64 };
            let task = Task { data: &data, obj: Misclassification::new(&data), splits: ZeroOneColumns::new(&data) };
            let groups: Vec<usize> = (0..data.n_groups()).filter(|g| (g + seed as usize) % 5 != 0).collect();
            let mut set = vec![0u64; data.words()];
            groups.iter().for_each(|&g| set[g / 64] |= 1 << (g % 64));
            let optimum = brute(&task.obj, &data, &groups, Some(2), rules.penalty, rules.min_support);
            let mut kernel = Depth2::new(&task, None, rules.min_support);
            let mut never = || None;
            for (f, lb) in kernel.split_bounds(&task, &set, &rules, usize::MAX, &mut never).unwrap() {
                let (l, r): (Vec<usize>, Vec<usize>) = groups.iter().partition(|&&g| data.feature_of(g, f as usize) == 0);
                let split = brute(&task.obj, &data, &l, Some(1), rules.penalty, rules.min_support) + brute(&task.obj, &data, &r, Some(1), rules.penalty, rules.min_support);
                assert!(lb <= split + 1e-9, "seed {seed}, split {f}: bound {lb} above the split's best tree {split}");
                let exact = (lb - split).abs() < 1e-9;
                assert!(exact || lb >= optimum - 1e-9, "seed {seed}, split {f}: bound {lb} neither the split's cost {split} nor at least the optimum {optimum}");
                checked.0 += 1;
                checked.1 += !exact as usize;
            }
            // The pass keeps nothing once it is over: a plain solve records no bounds.
            assert!(kernel.split_bounds.is_none());
        }
        assert!(checked.0 > 1000 && checked.1 >= 10, "too few splits checked: {checked:?}");
    }

    /// The stump pass never proves more than brute force finds: its bound is at most the
    /// optimum at depth two, its tree costs what it says, and it settles a subproblem
    /// only with an optimal tree (bound at the tree's cost) or a bound at least `bound`.
    /// On unit and random weights, two to four classes, penalties that make stumps and
    /// deeper trees optimal by turns, minimum supports, and bounds below, at and above
    /// the optimum.
    #[test]
    fn the_stump_pass_settles_only_what_brute_force_confirms() {
        let (mut exact, mut above, mut open) = (0usize, 0usize, 0usize);
        for seed in 0..600u64 {
            let classes = 2 + (seed % 3) as usize;
            let data = if seed % 2 == 0 {
                random(10 + (seed % 30) as usize, 2 + (seed % 6) as usize, classes, seed + 31)
            } else {
                let rows = 10 + (seed % 30) as usize;
                let (x, y, _) = random_rows(rows, 2 + (seed % 6) as usize, classes, seed + 31);
                BinaryDataset::new(&x, rows, 2 + (seed % 6) as usize, &y, classes, None).unwrap()
            };
            let rules = Rules { penalty: [0.0, 0.5, 1.0, 2.0, 3.5][(seed / 2 % 5) as usize], min_support: 1.0 + (seed / 10 % 2) as f64 };
            let task = Task { data: &data, obj: Misclassification::new(&data), splits: ZeroOneColumns::new(&data) };
            let groups: Vec<usize> = (0..data.n_groups()).filter(|g| (g + seed as usize) % 6 != 0).collect();
            if groups.is_empty() {
                continue;
            }
            let mut set = vec![0u64; data.words()];
            groups.iter().for_each(|&g| set[g / 64] |= 1 << (g % 64));
            let optimum = brute(&task.obj, &data, &groups, Some(2), rules.penalty, rules.min_support);
            for bound in [optimum - 1.0, optimum, optimum + 0.5, f64::INFINITY] {
                let mut kernel = Depth2::new(&task, None, rules.min_support);
                let Some((tree, proved)) = kernel.stump_pass(&task, &set, &rules, bound, usize::MAX) else {
                    open += 1;
                    continue;
                };
                assert!(proved <= optimum + 1e-9, "seed {seed}, bound {bound}: proved {proved} above the optimum {optimum}");
                assert!(tree.split.map_or(true, |(_, l, r)| l.is_none() && r.is_none()), "seed {seed}: not a leaf or a stump");
                let recomputed = small_tree_cost(&task.obj, &groups, &tree, rules.penalty, rules.min_support, |g| data.group_rows(g) as f64, |g, f| data.feature_of(g, f as usize) != 0);
                assert!((recomputed - tree.cost).abs() < 1e-9, "seed {seed}: the tree costs {recomputed}, not {}", tree.cost);
                if proved >= tree.cost {
                    assert!((tree.cost - optimum).abs() < 1e-9, "seed {seed}, bound {bound}: settled at {} but the optimum is {optimum}", tree.cost);
                    exact += 1;
                } else {
                    assert!(proved >= bound, "seed {seed}: settled with {proved} below the bound {bound}");
                    above += 1;
                }
            }
        }
        assert!(exact > 150 && above > 40 && open > 100, "settled exactly {exact}, above the bound {above}, left open {open}");
    }

    #[test]
    fn packed_sparse_sets_give_the_same_pair_sums() {
        // Sets holding a few groups of many words: the triangle summed over the groups
        // packed into whole words (by the software extraction, and by the CPU's where it
        // has one; from the columns, and from a parent's groups packed once) is the one
        // summed over the live words as they are, and the trees the kernel finds from it
        // are those the lists give.
        let (mut packed_sets, mut parent_packed) = (0, 0);
        for seed in 0..12u64 {
            let classes = 2 + (seed % 2) as usize;
            let (rows, m) = (1200 + 100 * seed as usize, 12 + (seed % 6) as usize);
            let (x, y, w) = random_rows(rows, m, classes, seed + 900);
            let weights: Option<Vec<f64>> = (seed % 3 == 2).then(|| w.iter().map(|v| (v + 0.5) * 2.0).collect());
            let data = BinaryDataset::new(&x, rows, m, &y, classes, weights.as_deref()).unwrap();
            let task = Task { data: &data, obj: Misclassification::new(&data), splits: ZeroOneColumns::new(&data) };
            let rules = Rules { penalty: 0.5, min_support: 1.0 };
            let mut kernel = Depth2::new(&task, None, rules.min_support);
            kernel.bit_sums = BitSums::Always;
            let mut lists = Depth2::new(&task, None, rules.min_support);
            lists.bit_sums = BitSums::Never;
            let mut never = || None;
            let all = data.all_groups();
            kernel.solve(&task, all.words(), 2, &rules, usize::MAX, &mut never).unwrap();
            assert!(data.words() >= 8, "seed {seed}: {} words", data.words());
            let mut state = seed;
            for step in 0..8 {
                // One group in 2 to 16, at random.
                let every = 2 << (step % 4);
                let set: Vec<u64> = (0..data.words())
                    .map(|i| {
                        (0..64).fold(0u64, |word, b| {
                            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                            let g = i * 64 + b;
                            word | (((g < data.n_groups() && (state >> 40) as usize % every == 0) as u64) << b)
                        })
                    })
                    .collect();
                let (n, k) = (kernel.active.len(), kernel.k);
                let len = n * (n + 1) / 2 * k;
                let bits = kernel.bits.as_mut().expect("whole weights build bits");
                // Every plane by population counts, or (a mean of no pairs a group) every
                // plane group by group from the lists.
                let counted = GroupLists { start: &kernel.listed_start, listed: &kernel.listed, mean_pairs: f64::INFINITY };
                let listed = GroupLists { mean_pairs: 0.0, ..counted };
                let mut poller = Poller { work: 0, stop: &mut never };
                let mut as_is = vec![0.0; len];
                bits.note_live(&set);
                let live: usize = bits.live.iter().map(|l| l.len()).sum();
                let packed: usize = (0..bits.planes.len())
                    .map(|q| bits.live[q].iter().map(|&i| (set[i as usize] & bits.masks[q * bits.words + i as usize]).count_ones() as usize).sum::<usize>().div_ceil(64))
                    .sum();
                packed_sets += (packed * 2 < live) as usize;
                bits.sum_triangle_body(&set, None, n, k, &mut as_is, counted, &mut poller, None::<fn(u64, u64) -> u64>).unwrap();
                let mut by_software = vec![0.0; len];
                bits.sum_triangle_body(&set, None, n, k, &mut by_software, counted, &mut poller, Some(treeopt_core::bitset::extract_bits)).unwrap();
                assert_eq!(by_software, as_is, "seed {seed}, step {step}");
                let mut by_cpu = vec![0.0; len];
                bits.sum_triangle(&set, None, n, k, &mut by_cpu, counted, &mut poller).unwrap();
                assert_eq!(by_cpu, as_is, "seed {seed}, step {step}");
                let mut by_lists = vec![0.0; len];
                bits.sum_triangle(&set, None, n, k, &mut by_lists, listed, &mut poller).unwrap();
                assert_eq!(by_lists, as_is, "seed {seed}, step {step}");
                // Packed from a parent holding the set (the set and about as many groups
                // more), then a second set of the same parent from its packing kept.
                let parent: Vec<u64> = set.iter().zip(data.all_groups().words()).map(|(&x, &valid)| {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    (x | (state >> 7 & state >> 29)) & valid
                }).collect();
                let other: Vec<u64> = parent.iter().map(|&x| {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    x & (state >> 11)
                }).collect();
                for (set, name) in [(&set, "set"), (&other, "second set")] {
                    let mut fresh = vec![0.0; len];
                    bits.note_live(set);
                    bits.sum_triangle_body(set, None, n, k, &mut fresh, counted, &mut poller, None::<fn(u64, u64) -> u64>).unwrap();
                    let mut from_parent = vec![0.0; len];
                    bits.sum_triangle_body(set, Some(&parent), n, k, &mut from_parent, counted, &mut poller, Some(treeopt_core::bitset::extract_bits)).unwrap();
                    assert_eq!(from_parent, fresh, "{name}, software: seed {seed}, step {step}");
                    bits.sum_triangle(set, Some(&parent), n, k, &mut from_parent, counted, &mut poller).unwrap();
                    assert_eq!(from_parent, fresh, "{name}: seed {seed}, step {step}");
                }
                bits.note_live(&set);
                parent_packed += bits.parent_planes.iter().flatten().filter(|p| p.rows > 0).count();
                if set.iter().all(|&w| w == 0) {
                    continue;
                }
                let got = kernel.solve(&task, &set, 2, &rules, usize::MAX, &mut never).unwrap();
                let want = lists.solve(&task, &set, 2, &rules, usize::MAX, &mut never).unwrap();
                assert_eq!(got, want, "seed {seed}, step {step}");
            }
        }
        assert!(packed_sets > 40 && parent_packed > 40, "{packed_sets} sets packed, {parent_packed} parents");
    }

    #[test]
    fn blocks_of_rows_agree_with_the_triangle() {
        for (seed, classes, min_support) in [(1, 2, 1.0), (2, 3, 1.0), (3, 2, 3.0), (4, 5, 2.0)] {
            let data = random(60, 12, classes, seed);
            let task = Task { data: &data, obj: Misclassification::new(&data), splits: ZeroOneColumns::new(&data) };
            let rules = Rules { penalty: 0.3, min_support };
            let mut kernel = Depth2::new(&task, None, min_support);
            let all = data.all_groups();
            let mut never = || None;
            let narrow = kernel.solve(&task, all.words(), 2, &rules, usize::MAX, &mut never).unwrap();
            assert!(kernel.identity);
            kernel.narrow = 0;
            let whole = kernel.solve(&task, all.words(), 2, &rules, usize::MAX, &mut never).unwrap();
            assert!(!kernel.identity);
            assert_eq!(whole, narrow, "seed {seed}: all features and the active ones disagree");
            let one = kernel.solve(&task, all.words(), 1, &rules, usize::MAX, &mut never).unwrap();
            assert!(whole.cost <= one.cost);
            // Budgets that leave room for one to a few rows of pair sums at a time.
            let base = kernel.bytes() - 8 * kernel.pairs.capacity();
            for rows in [1, 2, 5] {
                let n = kernel.active.len();
                let budget = base + 2 * 8 * kernel.k * n * rows + 64;
                let blocked = kernel.solve(&task, all.words(), 2, &rules, budget, &mut never).unwrap();
                assert_eq!(kernel.pairs.len(), rows * n * kernel.k, "not summed in blocks");
                assert_eq!(blocked, whole, "seed {seed}, {rows} rows per block");
                assert!(kernel.bytes() <= budget, "{} bytes over a budget of {budget}", kernel.bytes());
            }
        }
    }

    #[test]
    fn sums_updated_from_the_last_set_agree_with_fresh_sums() {
        // One kernel over chains of overlapping sets (each differs from one called before
        // by a few groups, as neighbouring splits' children do): the pair sums it updates
        // give what a fresh kernel finds, unweighted (updated) and weighted (summed anew).
        for seed in 0..30u64 {
            let classes = 2 + (seed % 3) as usize;
            let rows = 40 + (seed % 9) as usize;
            let (x, y, w) = random_rows(rows, 9, classes, seed + 500);
            // Integer weights on even seeds (sums updated), halves on odd ones (summed anew).
            let w: Vec<f64> = w.iter().map(|v| if seed % 2 == 0 { v + 0.5 } else { *v }).collect();
            let data = BinaryDataset::new(&x, rows, 9, &y, classes, Some(&w)).unwrap();
            let task = Task { data: &data, obj: Misclassification::new(&data), splits: ZeroOneColumns::new(&data) };
            let rules = Rules { penalty: [0.0, 0.5][(seed / 2 % 2) as usize], min_support: 1.0 + (seed % 3 / 2) as f64 };
            let mut kernel = Depth2::new(&task, None, rules.min_support);
            assert_eq!(kernel.integral, seed % 2 == 0);
            let mut never = || None;
            // Two chains of sets called in turn (like the two children of each split):
            // each call resembles the call before the last, the spare triangle's set.
            let mut sets = vec![vec![0u64; data.words()]; 2];
            let mut state = seed;
            for step in 0..16 {
                let set = &mut sets[step % 2];
                for g in 0..data.n_groups() {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    let flip = if step < 2 { (state >> 40) % 3 != 0 } else { (state >> 40) % 7 == 0 };
                    if flip {
                        set[g / 64] ^= 1 << (g % 64);
                    }
                }
                let set = &sets[step % 2];
                if set.iter().all(|&w| w == 0) {
                    continue;
                }
                let got = kernel.solve(&task, set, 2, &rules, usize::MAX, &mut never).unwrap();
                let want = Depth2::new(&task, None, rules.min_support).solve(&task, set, 2, &rules, usize::MAX, &mut never).unwrap();
                assert_eq!(got, want, "seed {seed}, step {step}");
            }
        }
    }

    #[test]
    fn children_from_their_union_agree_with_fresh_sums() {
        // Sets asked in a random order, mostly as the search asks them (a node's children
        // and their siblings), at times the node, a part of it or a set near the last:
        // the triangles kept from the union of two siblings (a sibling as the union less
        // the other, a child as the union less its smaller complement) are the ones a
        // fresh kernel sums, to the bit, by the lists and by population counts; weighted
        // sums are never taken from the union.
        let (mut from_union, mut by_complement) = (0, 0);
        for seed in 0..24u64 {
            let classes = 2 + (seed % 3) as usize;
            let (rows, m) = (60 + 7 * seed as usize, 7 + (seed % 5) as usize);
            let (x, y, w) = random_rows(rows, m, classes, seed + 1700);
            let weights: Option<Vec<f64>> = match seed % 3 {
                0 => None,
                1 => Some(w.iter().map(|v| (v + 0.5) * 2.0).collect()),
                _ => Some(w.iter().map(|v| v + 0.25).collect()),
            };
            let data = BinaryDataset::new(&x, rows, m, &y, classes, weights.as_deref()).unwrap();
            let task = Task { data: &data, obj: Misclassification::new(&data), splits: ZeroOneColumns::new(&data) };
            let rules = Rules { penalty: 0.25, min_support: 1.0 };
            let mut kernel = Depth2::new(&task, None, rules.min_support);
            kernel.bit_sums = [BitSums::Estimated, BitSums::Always, BitSums::Never][(seed / 3 % 3) as usize];
            assert_eq!(kernel.exact_sums, seed % 3 != 2);
            let mut never = || None;
            let mut state = seed;
            let mut next = || {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                state >> 33
            };
            // Two nodes, each a random half of the groups, then sets asked in a random
            // order: mostly children of the node and their siblings, at times the node,
            // a random part of it or a set overlapping the last.
            for _node in 0..2 {
                let node: Vec<u64> = (0..data.words()).map(|i| (0..64).fold(0u64, |word, b| word | (((i * 64 + b < data.n_groups() && next() % 2 == 0) as u64) << b))).collect();
                let mut last = node.clone();
                for step in 0..60 {
                    let set: Vec<u64> = match next() % 10 {
                        0..=3 => node.iter().zip(&last).map(|(a, b)| a & !b).collect(),
                        4..=6 => {
                            let (f, right) = ((next() % m as u64) as usize, next() % 2 == 0);
                            node.iter().zip(data.feature_words(f)).map(|(a, b)| if right { a & b } else { a & !b }).collect()
                        }
                        7 => node.clone(),
                        8 => node.iter().map(|a| a & (next() | next() << 31)).collect(),
                        _ => {
                            let (mut set, g) = (last.clone(), next() as usize % data.n_groups());
                            set[g / 64] ^= 1 << (g % 64);
                            set
                        }
                    };
                    if is_empty(&set) {
                        continue;
                    }
                    let (held, before) = (kernel.held.clone(), kernel.union_held.clone());
                    let got = kernel.solve(&task, &set, 2, &rules, usize::MAX, &mut never).unwrap();
                    let mut fresh = Depth2::new(&task, None, rules.min_support);
                    fresh.bit_sums = BitSums::Never;
                    let want = fresh.solve(&task, &set, 2, &rules, usize::MAX, &mut never).unwrap();
                    assert_eq!(got, want, "seed {seed}, step {step}");
                    assert!(kernel.identity && fresh.identity);
                    // The pairs, where the call summed them (a pure set is a leaf at once).
                    if fresh.held == set {
                        assert_eq!(kernel.held, set);
                        if kernel.exact_sums {
                            assert_eq!(kernel.pairs, fresh.pairs, "seed {seed}, step {step}");
                        }
                    }
                    assert!(kernel.exact_sums || kernel.union_held.is_empty());
                    let within = before.len() == set.len() && set.iter().zip(&before).all(|(s, u)| s & !u == 0);
                    if within && before == kernel.union_held {
                        let sibling = held.len() == set.len() && set.iter().zip(&held).zip(&before).all(|((s, h), u)| s & h == 0 && s | h == *u);
                        if sibling {
                            from_union += 1;
                        } else if popcount(&set) * 2 > popcount(&before) {
                            by_complement += 1;
                        }
                    }
                    last = set;
                }
            }
        }
        assert!(from_union > 50 && by_complement > 20, "{from_union} siblings from the union, {by_complement} by the complement");
    }

    #[test]
    fn sums_by_population_counts_agree_with_the_lists() {
        // Pair sums by population counts ([`PairBits`]: unit weights, whole weights of
        // several bits, duplicate rows, a row channel with a minimum support) give the
        // trees the lists give, on chains of overlapping sets where the kernel alternates
        // the two ways (so a triangle summed by bits is later updated from the lists),
        // and the brute-force optimum; fractional weights build no bits.
        let mut by_bits = 0;
        for seed in 0..60u64 {
            let classes = 2 + (seed % 3) as usize;
            let (rows, m) = (50 + (seed % 80) as usize, 3 + (seed % 7) as usize);
            let (mut x, y, w) = random_rows(rows, m, classes, seed + 700);
            // Repeated rows make groups of several rows (values of several bits).
            if seed % 3 == 1 {
                for r in 0..rows / 2 {
                    let (a, b) = (r * m, (rows - 1 - r) * m);
                    x.copy_within(a..a + m, b);
                }
            }
            let weights: Option<Vec<f64>> = match seed % 4 {
                0 | 1 => None,
                2 => Some(w.iter().map(|v| (v + 0.5) * 3.0).collect()),
                _ => Some(w.clone()),
            };
            let data = BinaryDataset::new(&x, rows, m, &y, classes, weights.as_deref()).unwrap();
            let task = Task { data: &data, obj: Misclassification::new(&data), splits: ZeroOneColumns::new(&data) };
            let rules = Rules { penalty: [0.0, 0.5][(seed / 2 % 2) as usize], min_support: 1.0 + (seed / 4 % 3) as f64 };
            let mut kernel = Depth2::new(&task, None, rules.min_support);
            let mut lists = Depth2::new(&task, None, rules.min_support);
            lists.bit_sums = BitSums::Never;
            let mut never = || None;
            let mut sets = vec![vec![0u64; data.words()]; 2];
            let mut state = seed;
            for step in 0..12 {
                let set = &mut sets[step % 2];
                for g in 0..data.n_groups() {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    let flip = if step < 2 { (state >> 40) % 3 != 0 } else { (state >> 40) % 6 == 0 };
                    if flip {
                        set[g / 64] ^= 1 << (g % 64);
                    }
                }
                let set = &sets[step % 2];
                if set.iter().all(|&w| w == 0) {
                    continue;
                }
                kernel.bit_sums = if step % 3 == 2 { BitSums::Never } else { BitSums::Always };
                let got = kernel.solve(&task, set, 2, &rules, usize::MAX, &mut never).unwrap();
                assert!(kernel.identity, "seed {seed}");
                assert_eq!(kernel.bits.is_some(), seed % 4 != 3, "seed {seed}: bits built for fractional weights, or not for whole ones");
                by_bits += (kernel.bits.is_some() && step % 3 != 2) as usize;
                let want = lists.solve(&task, set, 2, &rules, usize::MAX, &mut never).unwrap();
                assert_eq!(kernel.total, lists.total, "seed {seed}, step {step}: the set's sums");
                assert_eq!(got, want, "seed {seed}, step {step}");
                if step % 4 == 0 {
                    let groups: Vec<usize> = (0..data.n_groups()).filter(|&g| set[g / 64] >> (g % 64) & 1 == 1).collect();
                    let best = brute(&task.obj, &data, &groups, Some(2), rules.penalty, rules.min_support);
                    assert!((got.cost - best).abs() <= 1e-9 * (1.0 + best), "seed {seed}, step {step}: {} against {best}", got.cost);
                }
            }
        }
        assert!(by_bits > 300, "{by_bits}");
    }

    #[test]
    fn squared_error_sums_updated_up_and_down_agree_with_fresh_sums() {
        // Real targets: the statistics are not integers, and the kernel updates them
        // anyway (squared error tolerates the rounding), refreshing every so often.
        use crate::objective::SquaredError;
        for seed in 0..20u64 {
            let rows = 50 + (seed % 7) as usize;
            let (x, classes, w) = random_rows(rows, 8, 3, seed + 900);
            let y: Vec<f64> = classes.iter().enumerate().map(|(i, &c)| c as f64 * 1.3 - (i % 5) as f64 * 0.41).collect();
            let data = BinaryDataset::new(&x, rows, 8, &vec![0; rows], 1, Some(&w)).unwrap();
            let task = Task { data: &data, obj: SquaredError::new(&data, &y, Some(&w)).unwrap(), splits: ZeroOneColumns::new(&data) };
            let rules = Rules { penalty: [0.0, 0.2][(seed % 2) as usize], min_support: 1.0 };
            let mut kernel = Depth2::new(&task, None, rules.min_support);
            assert!(!kernel.integral && kernel.updatable);
            let mut never = || None;
            let mut set = vec![0u64; data.words()];
            let mut state = seed;
            let mut updated = 0;
            for step in 0..3 * UPDATES_BEFORE_REFRESH {
                for g in 0..data.n_groups() {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    if (state >> 40) % if step == 0 { 2 } else { 9 } == 0 {
                        set[g / 64] ^= 1 << (g % 64);
                    }
                }
                if set.iter().all(|&w| w == 0) {
                    continue;
                }
                let got = kernel.solve(&task, &set, 2, &rules, usize::MAX, &mut never).unwrap();
                updated += (kernel.updates > 0) as u32;
                let want = Depth2::new(&task, None, rules.min_support).solve(&task, &set, 2, &rules, usize::MAX, &mut never).unwrap();
                assert!((got.cost - want.cost).abs() <= 1e-9 * (1.0 + want.cost.abs()), "seed {seed}, step {step}: updated {} fresh {}", got.cost, want.cost);
            }
            assert!(updated > UPDATES_BEFORE_REFRESH, "seed {seed}: the sums were updated only {updated} times");
        }
    }

    #[test]
    fn active_features_agree_with_all_features_on_subsets() {
        for seed in 0..60u64 {
            let classes = 2 + (seed % 3) as usize;
            let min_support = 1.0 + (seed % 4 / 2) as f64;
            let data = random(30 + (seed % 7) as usize, 8, classes, seed + 100);
            let task = Task { data: &data, obj: Misclassification::new(&data), splits: ZeroOneColumns::new(&data) };
            let rules = Rules { penalty: [0.0, 0.4, 1.5][(seed % 3) as usize], min_support };
            // Every other group, shifted by the seed: many features become constant.
            let mut set = vec![0u64; data.words()];
            for g in (0..data.n_groups()).filter(|g| (g + seed as usize) % 3 != 0) {
                set[g / 64] |= 1 << (g % 64);
            }
            let mut kernel = Depth2::new(&task, None, min_support);
            let mut never = || None;
            for depth in [1, 2] {
                kernel.narrow = SMALL_TRIANGLE;
                let narrow = kernel.solve(&task, &set, depth, &rules, usize::MAX, &mut never).unwrap();
                kernel.narrow = 0;
                let active = kernel.solve(&task, &set, depth, &rules, usize::MAX, &mut never).unwrap();
                assert_eq!(active, narrow, "seed {seed}, depth {depth}");
            }
        }
    }

    #[test]
    fn the_similarity_bound_never_exceeds_the_optimum() {
        // STreeD's bound from the optimum of one random set of groups on another's, at
        // depths 1-3, with and without a leaf penalty: never above the other's optimum
        // (brute force), and equal to the optimum on the set itself.
        use crate::objective::CostSensitive;
        for seed in 0..80u64 {
            let classes = 2 + (seed % 2) as usize;
            let data = random(12 + (seed % 5) as usize, 4, classes, seed + 900);
            let cost: Vec<f64> = (0..classes * classes).map(|i| if i / classes == i % classes { 0.0 } else { 1.0 + (i % 3) as f64 }).collect();
            let costed = CostSensitive::new(&data, &cost).unwrap();
            let plain = Misclassification::new(&data);
            let (depth, penalty) = (1 + (seed % 3) as u32, [0.0, 0.7][(seed / 3 % 2) as usize]);
            let pick = |salt: u64| -> Vec<usize> { (0..data.n_groups()).filter(|&g| (g as u64 * 7 + seed * 3 + salt) % 5 < 3).collect() };
            let (a, b) = (pick(0), pick(2));
            let set = |groups: &[usize]| {
                let mut s = vec![0u64; data.words()];
                groups.iter().for_each(|&g| s[g / 64] |= 1 << (g % 64));
                s
            };
            for integral in [false, true] {
                let opt_a = brute(&plain, &data, &a, Some(depth), penalty, 1.0);
                let opt_b = brute(&plain, &data, &b, Some(depth), penalty, 1.0);
                let bound = similarity_bound(&plain, &set(&a), opt_a, &set(&b), integral, f64::NEG_INFINITY);
                assert!(bound <= opt_b + 1e-9, "seed {seed}: bound {bound} above the optimum {opt_b}");
                assert!((similarity_bound(&plain, &set(&a), opt_a, &set(&a), true, f64::NEG_INFINITY) - opt_a).abs() < 1e-9);
                // Below the floor it reports nothing.
                assert_eq!(similarity_bound(&plain, &set(&a), opt_a, &set(&b), integral, bound.max(opt_a)), f64::NEG_INFINITY);
                let opt_a = brute(&costed, &data, &a, Some(depth), penalty, 1.0);
                let opt_b = brute(&costed, &data, &b, Some(depth), penalty, 1.0);
                let bound = similarity_bound(&costed, &set(&a), opt_a, &set(&b), integral, f64::NEG_INFINITY);
                assert!(bound <= opt_b + 1e-9, "seed {seed}, costs: bound {bound} above the optimum {opt_b}");
            }
        }
    }

    /// On rows of one weight with no two alike (every group's insertion cost is that
    /// weight), the kernel's similarity bound by population counts is the bound summed
    /// group by group ([`similarity_bound`]), and never above the optimum (brute force);
    /// with two rows alike (one group of twice the weight) it is not taken.
    #[test]
    fn the_similarity_bound_of_uniform_groups_is_the_summed_one() {
        let mut checked = 0;
        for seed in 0..60u64 {
            let (m, classes) = (6, 2 + (seed % 2) as usize);
            let rows = 20 + (seed % 30) as usize;
            let (_, y, _) = random_rows(rows, m, classes, seed + 40);
            // Distinct rows: the binary expansions of distinct numbers below 2^m.
            let x: Vec<u8> = (0..rows).flat_map(|i| (0..m).map(move |j| ((i * 37 + seed as usize) % 64 >> j & 1) as u8)).collect();
            let weight = [1.0, 0.5, 3.0][(seed % 3) as usize];
            let data = BinaryDataset::new(&x, rows, m, &y, classes, Some(&vec![weight; rows])).unwrap();
            assert_eq!(data.n_groups(), rows);
            let task = Task { data: &data, obj: Misclassification::new(&data), splits: ZeroOneColumns::new(&data) };
            let mut kernel = Depth2::new(&task, None, 1.0);
            assert_eq!(kernel.uniform_insertion, Some(weight), "seed {seed}");
            let penalty = [0.0, 0.7, 2.0][(seed / 3 % 3) as usize];
            let pick = |salt: u64| -> Vec<usize> { (0..rows).filter(|&g| (g as u64 * 7 + seed * 3 + salt) % 5 < 3).collect() };
            let set = |groups: &[usize]| {
                let mut s = vec![0u64; data.words()];
                groups.iter().for_each(|&g| s[g / 64] |= 1 << (g % 64));
                s
            };
            let (a, b, c) = (pick(0), pick(2), pick(4));
            let (opt_a, opt_c) = (brute(&task.obj, &data, &a, Some(2), penalty, 1.0), brute(&task.obj, &data, &c, Some(2), penalty, 1.0));
            let opt_b = brute(&task.obj, &data, &b, Some(2), penalty, 1.0);
            kernel.solved = [(set(&a), opt_a), (set(&c), opt_c)].into_iter().collect();
            for integral in [false, true] {
                kernel.integral = integral;
                let summed = [(&a, opt_a), (&c, opt_c)].iter().map(|(s, opt)| similarity_bound(&task.obj, &set(s), *opt, &set(&b), integral, f64::NEG_INFINITY)).fold(f64::NEG_INFINITY, f64::max);
                let counted = kernel.similarity_bound(&task.obj, &set(&b));
                assert!((counted - summed).abs() <= 1e-12 * (1.0 + summed.abs()), "seed {seed}: {counted} against {summed}");
                assert!(counted <= opt_b + 1e-9, "seed {seed}: bound {counted} above the optimum {opt_b}");
                checked += (counted > f64::NEG_INFINITY) as usize;
            }
            // Two rows alike make one group of twice the weight: no shared cost.
            let mut x2 = x.clone();
            x2[m..2 * m].copy_from_slice(&x[..m].to_vec());
            let merged = BinaryDataset::new(&x2, rows, m, &y, classes, Some(&vec![weight; rows])).unwrap();
            let task2 = Task { data: &merged, obj: Misclassification::new(&merged), splits: ZeroOneColumns::new(&merged) };
            assert_eq!(Depth2::new(&task2, None, 1.0).uniform_insertion, None, "seed {seed}");
        }
        assert!(checked > 60, "{checked}");
    }

    #[test]
    fn stops_when_asked_and_refuses_a_budget_too_small() {
        let data = random(300, 200, 2, 9);
        let task = Task { data: &data, obj: Misclassification::new(&data), splits: ZeroOneColumns::new(&data) };
        let rules = Rules { penalty: 0.0, min_support: 1.0 };
        let mut kernel = Depth2::new(&task, None, 1.0);
        let all = data.all_groups();
        let mut asked = 0;
        let mut stop = || {
            asked += 1;
            Some(Status::TimeLimit)
        };
        assert_eq!(kernel.solve(&task, all.words(), 2, &rules, usize::MAX, &mut stop), Err(Status::TimeLimit));
        assert_eq!(asked, 1);
        let mut never = || None;
        assert_eq!(kernel.solve(&task, all.words(), 2, &rules, 1000, &mut never), Err(Status::MemoryLimit));
    }
}
