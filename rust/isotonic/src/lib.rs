//! Tree-structured isotonic optimisation for latent decision trees.
//!
//! This crate solves problem (3) of Zantedeschi, Kusner and Niculae, *Learning Binary
//! Decision Trees by Argmin Differentiation* (ICML 2021), for a complete binary tree
//! with `T = 2^(D+1) - 1` nodes numbered breadth-first (node `t > 0` has parent
//! `(t - 1) / 2`) and a batch of `n` rows of node scores `q` (row-major, `n x T`):
//!
//! ```text
//! min_{z, a}  lam/2 ||a||^2 + 1/2 sum_i ||z_i - q_i - 1/2||^2
//! s.t.        a_t <= a_parent(t),  0 <= z_it <= a_t,  0 <= a_t <= 1.
//! ```
//!
//! By Proposition 1 of the paper, `z_it = clip(q_it + 1/2, 0, a_t)` and `a` solves the
//! tree-ordered isotonic problem (4)/(7), which [`TreePav::forward`] solves exactly with
//! the pool-adjacent-violators scheme of Algorithm 1 (largest violator first) and the
//! closed-form one-dimensional group solution of Proposition 2. [`TreePav::backward`]
//! maps `dL/da` and `dL/dz` to `dL/dq` with the Jacobian of section 3.2, from the groups
//! and support sets `S(k*)` kept by the forward pass.
//!
//! # Algorithm and cost
//!
//! With `v = q + 1/2`, the group objective `lam |G| a^2 / 2 + sum_{j in G} (v_j - a)_+^2 / 2`
//! is minimised at `a(k*) = sum_{S(k*)} v / (lam |G| + k*)`, `S(k)` being the `k` largest
//! values of the group and `k*` the smallest `k` with `a(k) > v_(k+1)` (Proposition 2);
//! equivalently `S(k*) = {v_j >= a(k*)}`. With `m = n T` values:
//!
//! * **Candidates.** Values `v <= 0` can never be in a support when `lam > 0` (the group
//!   value is `>= 0`). Moreover every group value, and every threshold the searches below
//!   evaluate, is at least the smallest single-node value, for which a lower bound comes
//!   from one pass over `q` (means of subsets of each node's values, all below
//!   `a_t(k*) = max_k a_t(k)`: the largest of each of 16 blocks of rows, and when
//!   `lam > 16` all positive values); values under it are dropped. Two passes, `O(m)`;
//!   on x86-64 the passes over all values use AVX2 where the CPU has it (same
//!   operations, same bits).
//! * **Sorted once.** One counting sort of all candidates on (node, leading key bits)
//!   writes each to its slot in its node's column, then an insertion pass per column
//!   orders the few values of each bucket, with a comparison sort for crowded buckets
//!   (`O(m log m)` worst case, close to linear on smooth scores); then each column's
//!   prefix sums. This costs less than a hundred sorts of a few dozen values each.
//!   Batches of at most 128 rows skip the buckets (about two per candidate, a cost
//!   that short columns do not repay): each candidate, taken in the order of `q`, is
//!   inserted into its node's column, and a column of more than 32 candidates is
//!   sorted by comparison instead (same columns, bit for bit).
//! * **Single nodes.** `k*` by a walk down the sorted column, `O(k*)`.
//! * **Pooled groups** keep their values as a few sorted *runs* (a run is one column, or
//!   the merge of several, with prefix sums), and `k*` is found by Newton's method on the
//!   concave piecewise-linear `f(a) = lam |G| a - sum_j (v_j - a)_+` from the absorbing
//!   group's value (a lower bound), each step `a <- sum_{v >= a} v / (lam |G| + #{v >= a})`
//!   costing one binary search per run; the steps increase, the candidate supports
//!   shrink, and the first repeated support is `S(k*)` exactly. Two runs are merged only
//!   if their lengths are within a factor 2 (a merged run is at least 3/2 as long as
//!   either part, so every value is merged `O(log m)` times, `O(m log m)` in all), and
//!   only when it pays: always while a group has more than 64 runs, never while it has
//!   at most 4, and otherwise when the merge copies at most twice as many values as the
//!   probes one run's binary searches took over the group's searches so far (ski rental:
//!   a merge saves one run's search per later step, and a group that was searched often
//!   will likely be searched again). A group thus has at most `max(64, log2 m + 1)` runs,
//!   and a Newton step costs `O(log m)` binary searches.
//! * **Worst-case guard.** Newton's step count has no useful bound on adversarial input,
//!   so the searches draw on a work account: each pooling deposits
//!   `4 (n + 64) (log2 m + 1)` binary-search probes, and a search that would overdraw it
//!   moves its group, for good, to a treap over all its values (ordered by value,
//!   augmented with subtree counts and sums; priorities are a fixed hash of the slot, so
//!   there is no randomness): pooling is then a treap union and `k*` one descent. With
//!   at most `T - 1` poolings the searches cost `O(n T log m) = O(m log m)` in all, and the
//!   treaps `O(m log m)` expected over the hash priorities (a union of sizes `a <= b`
//!   costs `O(a log(b / a + 1))`). Newton needs a handful of steps in practice and the
//!   account is not overdrawn on any input of `benches/isotonic.rs` (see
//!   [`TreePav::n_treap_groups`]); the treap path is 2 to 5 times slower on them.
//! * **Small batches** (at most [`BOTTOM_UP_ROWS`] rows, `lam > 0`) are pooled bottom up
//!   instead ([`Pooling`]): each node, once its subtrees are solved, pools the largest
//!   of the groups hanging below it (a leftist heap per group) while one exceeds its
//!   value, each pooled group's values kept as one merged sorted run on which `k*` is a
//!   binary search. No violator heap, no Newton steps: on 1 x 127 normal scores a
//!   forward and backward pass takes about 105 k instructions instead of 153 k, on
//!   1 x 1023 1.0 M instead of 1.5 M. Merges draw on a budget of `O(m + T)` copies;
//!   past it the violator heap pools the rest, from the groups pooled so far (exact:
//!   these groups never split).
//! * **Violators** are taken largest first from a binary heap. A node is absorbed at
//!   most `D` times, so there are `O(T D)` pushes of `O(log T)` each.
//!
//! In all, `O(m log m + T D log T)` time (`O(m log m)` expected for the treap part, and
//! deterministic otherwise), which is the `O(m log m)` of the issue whenever `n > D`; for
//! smaller batches the violator heap can add a factor of at most `(D + 1) / n`. Memory
//! is `O(m)` (the heap drops its stale entries when it fills up, so it never holds more
//! than `2 T`), at most [`TreePav::bytes_needed`] bytes, reserved fallibly before the
//! solve uses it (the buffers that hold candidates once these are listed, sized to
//! them): a shape the machine cannot hold is [`PavError::OutOfMemory`], never an
//! abort. All buffers live in the [`TreePav`] value and are reused: after a call on a
//! shape with at least as many candidates (at most `n T`: equal scores with `lam = 0`
//! make them all candidates), `forward` and `backward` allocate nothing (but the
//! vectors they fill, when given vectors as [`Output`]); a buffer that must grow gets
//! half as much room again. There is no randomness and no threading, so results are
//! bit for bit reproducible.
//!
//! # Example
//!
//! ```
//! use treeopt_isotonic::TreePav;
//!
//! // depth 1 (3 nodes), two rows
//! let q = [0.5, 0.4, -0.9, 0.5, -0.8, 0.3];
//! let mut pav = TreePav::new();
//! let (mut a, mut z) = (vec![0.0; 3], vec![0.0; 6]);
//! pav.forward(&q, 2, 3, 0.1, &mut a, &mut z).unwrap();
//! assert!(a[1] <= a[0] && a[2] <= a[0]);
//! let mut grad_q = vec![0.0; 6];
//! pav.backward(&q, &[1.0, 0.0, 0.0], &[0.0; 6], &mut grad_q).unwrap();
//! ```

mod error;

use std::collections::TryReserveError;
use std::mem::MaybeUninit;

pub use error::PavError;

/// Deepest tree the solver accepts (`2^(MAX_DEPTH+1) - 1` nodes).
pub const MAX_DEPTH: usize = 24;

const NIL: u32 = u32::MAX;

/// Slots of the violator heap per node: after a compaction at most one entry per group
/// is left, so a heap of `HEAP_SLACK T` slots always has room for `T` more pushes.
const HEAP_SLACK: usize = 2;

/// Number of nodes of a complete binary tree of depth `depth` (a single node has depth 0).
pub fn nodes_for_depth(depth: usize) -> Option<usize> {
    if depth > MAX_DEPTH {
        return None;
    }
    Some((1usize << (depth + 1)) - 1)
}

/// Depth of the complete binary tree with `n_nodes` nodes, if there is one.
pub fn depth_for_nodes(n_nodes: usize) -> Option<usize> {
    if n_nodes == 0 || (n_nodes + 1) & n_nodes != 0 {
        return None;
    }
    Some((n_nodes + 1).trailing_zeros() as usize - 1)
}

/// What the forward pass decided for one node: its group, the group's unclipped value,
/// the denominator `lam |G| + k*` of Proposition 2 and the rows of this node in `S(k*)`.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeInfo<'a> {
    /// Top node of the group (pooled set of nodes) the node belongs to.
    pub group: usize,
    /// Unclipped group value `a(k*)`; the node's `a_t` is this value clipped to `[0, 1]`.
    pub value: f64,
    /// `lam |G| + k*`; `da_t / dq_j = 1 / denominator` for `j` in the support when `0 < a_t < 1`.
    pub denominator: f64,
    /// Rows `i` such that `(i, t)` belongs to the support set `S(k*)` of the group.
    pub support_rows: &'a [u32],
}

/// Entry of the violator heap: a group and its value when pushed.
#[derive(Debug, Clone, Copy)]
struct Entry {
    value: f64,
    group: u32,
    stamp: u32,
}

impl Entry {
    /// Max-heap order: larger value first, then smaller group index.
    fn above(&self, other: &Entry) -> bool {
        self.value > other.value || (self.value == other.value && self.group < other.group)
    }
}

/// Treap record of one element: key value, subtree sum and count, children, priority.
#[derive(Debug, Clone, Copy)]
struct TreapNode {
    val: f64,
    sum: f64,
    left: u32,
    right: u32,
    cnt: u32,
    prio: u32,
}

impl Default for TreapNode {
    fn default() -> Self {
        TreapNode {
            val: 0.0,
            sum: 0.0,
            left: NIL,
            right: NIL,
            cnt: 0,
            prio: 0,
        }
    }
}

/// Fixed treap priority of an element slot (a 32-bit integer hash).
#[inline]
fn priority(e: u32) -> u32 {
    let mut x = e.wrapping_add(0x9e37_79b9);
    x = (x ^ (x >> 16)).wrapping_mul(0x21f0_aaad);
    x = (x ^ (x >> 15)).wrapping_mul(0x735a_2d97);
    x ^ (x >> 15)
}

/// Default work factor of the Newton searches: every pooling deposits
/// `WORK_FACTOR (n + 64) (log2(n T) + 1)` binary-search probes in the account they draw
/// on (see the crate documentation, "Pooled groups", and [`TreePav::set_work_factor`]).
pub const WORK_FACTOR: u64 = 4;

/// A group's runs are merged, if any two are within a factor 2 in length, whenever it has
/// more than this many.
const MAX_UNMERGED_RUNS: usize = 64;

/// A group's runs are not merged while it has at most this many.
const MIN_MERGED_RUNS: usize = 4;

/// Element copies of a run merge worth one binary-search probe (see `combine_runs`).
const COPIES_PER_PROBE: u64 = 2;

/// Working memory above which a first call checks that the whole amount can be had
/// before reserving its buffers (see `reserve_all`).
const PROBED_BYTES: usize = 64 << 20;

/// Most runs a group can keep: lengths are below 2^32, and when merging stops with more
/// than [`MAX_UNMERGED_RUNS`] runs, each is more than twice as long as the next.
const MAX_RUNS: usize = if MAX_UNMERGED_RUNS > 33 { MAX_UNMERGED_RUNS } else { 33 };

/// Batches of at most this many rows are pooled bottom up (see [`Pooling::Auto`]).
pub const BOTTOM_UP_ROWS: usize = 16;

/// Copies of values that the merges of bottom-up pooling may make per column slot (a
/// candidate or a node) before the violator heap takes over: normal scores on up to 16
/// rows take at most about 2, scores that pool bottom up over many levels 3 to 8, a
/// chain that one group absorbs node by node `O(T)`. Past the budget the violator heap
/// continues from the groups pooled so far, so the attempt's merges are not lost: a
/// 1 x 511 chain takes 8% more instructions than the violator heap alone (3.49 M
/// against 3.23 M; with a budget of 2 3.41 M, but scores that pool over many levels
/// take more or less, either way).
pub const MERGE_COPIES: u64 = 4;

/// How [`TreePav::forward`] pools nodes into groups when `lam > 0` (with `lam == 0` the
/// solution is not unique and the violator heap always pools). Both ways find the unique
/// solution (the groups agree except where adjacent groups have exactly equal values,
/// which either way may be left apart or pooled, two Clarke gradients); only the speed
/// differs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Pooling {
    /// Bottom up on batches of at most [`BOTTOM_UP_ROWS`] rows, else by the violator heap.
    #[default]
    Auto,
    /// Bottom up, each node's subtrees first, merging the pooled groups' sorted values
    /// (`O(T log T)` for the heaps of hanging groups plus the merges, which draw on a
    /// budget of `O(m + T)` copies; past it the violator heap takes over, from the
    /// groups pooled so far).
    BottomUp,
    /// Largest violator first from one heap (Algorithm 1), groups as sorted runs searched
    /// by Newton steps, with the treap guard: `O(m log m)` on any input.
    Violators,
}

/// Where a pass writes its row-major output matrix: a slice of exactly its size, a
/// vector that the pass clears and fills, or an [`UninitOutput`] over memory of exactly
/// its size that holds no values yet (with the last two, a caller that allocates the
/// output needs not zero it first).
pub trait Output {
    /// Checks a slice's length (`n_rows x n_cols` values), or reserves a vector's room.
    ///
    /// # Errors
    ///
    /// [`PavError::Length`] for a slice of another length, [`PavError::OutOfMemory`]
    /// when a vector's room cannot be had.
    fn begin(&mut self, what: &'static str, n_rows: usize, n_cols: usize) -> Result<(), PavError>;
    /// Writes row `i` (rows come in order, after [`Output::begin`]).
    fn put_row(&mut self, i: usize, row: impl ExactSizeIterator<Item = f64>);
    /// Writes the rows `first, first + 1, ..` of `n_cols` values each, whole rows in
    /// order, from the values `rows` (as [`Output::put_row`] does one at a time; one
    /// flat loop over short rows).
    #[inline(always)]
    fn put_rows(&mut self, first: usize, n_cols: usize, mut rows: impl ExactSizeIterator<Item = f64>) {
        assert_eq!(rows.len() % n_cols.max(1), 0, "put_rows: not whole rows");
        for k in 0..rows.len() / n_cols.max(1) {
            self.put_row(first + k, rows.by_ref().take(n_cols));
        }
    }
    /// The values written, for additions in place.
    fn values(&mut self) -> &mut [f64];
}

impl Output for [f64] {
    fn begin(&mut self, what: &'static str, n_rows: usize, n_cols: usize) -> Result<(), PavError> {
        check_len(what, n_rows * n_cols, self.len())
    }
    #[inline(always)]
    fn put_row(&mut self, i: usize, row: impl ExactSizeIterator<Item = f64>) {
        let width = row.len();
        for (x, v) in self[i * width..(i + 1) * width].iter_mut().zip(row) {
            *x = v;
        }
    }
    #[inline(always)]
    fn put_rows(&mut self, first: usize, n_cols: usize, rows: impl ExactSizeIterator<Item = f64>) {
        let start = first * n_cols;
        for (x, v) in self[start..start + rows.len()].iter_mut().zip(rows) {
            *x = v;
        }
    }
    fn values(&mut self) -> &mut [f64] {
        self
    }
}

impl<const N: usize> Output for [f64; N] {
    fn begin(&mut self, what: &'static str, n_rows: usize, n_cols: usize) -> Result<(), PavError> {
        self[..].begin(what, n_rows, n_cols)
    }
    #[inline(always)]
    fn put_row(&mut self, i: usize, row: impl ExactSizeIterator<Item = f64>) {
        self[..].put_row(i, row);
    }
    fn values(&mut self) -> &mut [f64] {
        self
    }
}

impl Output for Vec<f64> {
    fn begin(&mut self, _what: &'static str, n_rows: usize, n_cols: usize) -> Result<(), PavError> {
        self.clear();
        let len = n_rows * n_cols;
        self.try_reserve_exact(len).map_err(|_| PavError::OutOfMemory {
            bytes: len.saturating_mul(std::mem::size_of::<f64>()),
            n_rows,
            n_nodes: n_cols,
        })
    }
    #[inline(always)]
    fn put_row(&mut self, _i: usize, row: impl ExactSizeIterator<Item = f64>) {
        // into the room past the end, as into a slice (a loop that vectorises, which
        // `extend` is not)
        let width = row.len();
        self.reserve(width);
        let mut written = 0;
        for (x, v) in self.spare_capacity_mut()[..width].iter_mut().zip(row) {
            x.write(v);
            written += 1;
        }
        assert_eq!(written, width, "put_row: a row shorter than its length");
        // SAFETY: the `width` slots past the length were written just above.
        unsafe { self.set_len(self.len() + width) };
    }
    #[inline(always)]
    fn put_rows(&mut self, first: usize, _n_cols: usize, rows: impl ExactSizeIterator<Item = f64>) {
        // (rows come in order: the vector's end is row `first`)
        self.put_row(first, rows);
    }
    fn values(&mut self) -> &mut [f64] {
        self
    }
}

/// An output matrix in memory that holds no values yet, such as a freshly allocated
/// numpy array: a pass writes every row once, in order, so the caller needs not fill the
/// memory first (which would touch every page of it twice). [`Output::values`] is
/// available once every row has been written, and panics before.
#[derive(Debug)]
pub struct UninitOutput<'a> {
    buf: &'a mut [MaybeUninit<f64>],
    /// Values written so far, a prefix of `buf`.
    written: usize,
}

impl<'a> UninitOutput<'a> {
    /// An output over `buf`, of which nothing is written yet.
    pub fn new(buf: &'a mut [MaybeUninit<f64>]) -> Self {
        UninitOutput { buf, written: 0 }
    }

    /// Whether every value of the buffer has been written.
    pub fn is_filled(&self) -> bool {
        self.written == self.buf.len()
    }
}

impl Output for UninitOutput<'_> {
    fn begin(&mut self, what: &'static str, n_rows: usize, n_cols: usize) -> Result<(), PavError> {
        self.written = 0;
        check_len(what, n_rows * n_cols, self.buf.len())
    }
    #[inline(always)]
    fn put_row(&mut self, i: usize, row: impl ExactSizeIterator<Item = f64>) {
        let (width, start) = (row.len(), self.written);
        assert_eq!(i * width, start, "put_row: rows out of order");
        let mut written = 0;
        for (x, v) in self.buf[start..start + width].iter_mut().zip(row) {
            x.write(v);
            written += 1;
        }
        assert_eq!(written, width, "put_row: a row shorter than its length");
        self.written = start + width;
    }
    #[inline(always)]
    fn put_rows(&mut self, first: usize, n_cols: usize, rows: impl ExactSizeIterator<Item = f64>) {
        let (len, start) = (rows.len(), self.written);
        assert_eq!(first * n_cols, start, "put_rows: rows out of order");
        assert_eq!(len % n_cols.max(1), 0, "put_rows: not whole rows");
        let mut written = 0;
        for (x, v) in self.buf[start..start + len].iter_mut().zip(rows) {
            x.write(v);
            written += 1;
        }
        assert_eq!(written, len, "put_rows: fewer values than their length");
        self.written = start + len;
    }
    fn values(&mut self) -> &mut [f64] {
        assert!(self.is_filled(), "values() before every row was written");
        // SAFETY: every slot was written (`written` counts a prefix written in order and
        // equals the length), and MaybeUninit<f64> has the layout of f64.
        unsafe { &mut *(&mut *self.buf as *mut [MaybeUninit<f64>] as *mut [f64]) }
    }
}

/// Solver state and reusable buffers for the forward and backward pass.
#[derive(Debug, Clone, Default)]
pub struct TreePav {
    n_rows: usize,
    n_nodes: usize,
    lam: f64,
    solved: bool,
    /// Work account factor of the Newton searches (`None`: [`WORK_FACTOR`]).
    work_factor: Option<u64>,
    /// How the nodes are pooled (see [`TreePav::set_pooling`]).
    pooling: Pooling,
    /// Merge budget of bottom-up pooling, in copies per column slot (`None`:
    /// [`MERGE_COPIES`]).
    merge_copies: Option<u64>,
    /// Held memory past which a forward pass frees its own buffers at its end (see
    /// [`TreePav::set_max_held_bytes`]).
    max_held_bytes: Option<usize>,
    /// The kept test of the candidates: `v = q + 1/2 >= kept_at` (see `kept_threshold`).
    kept_at: f64,
    /// Clipped node values of the last forward pass.
    a: Vec<f64>,

    // Sorted columns: node t owns the slots col_start[t] .. col_start[t+1], its
    // col_len[t] candidates and one spare slot after them (used while bucketing). A
    // column holds the node's candidates, the values that can enter a support (v > 0
    // when lam > 0, every value when lam == 0, and in both cases v >= the cut of
    // `gather_columns`), sorted by value descending, then row ascending.
    col_start: Vec<usize>,
    col_len: Vec<u32>,
    val: Vec<f64>,
    row: Vec<u32>,
    /// Prefix sums of each sorted column in the same layout: `pre[col_start[t] + k]` is
    /// the sum of the `k` largest candidates of node `t` (`k` up to the column length).
    pre: Vec<f64>,
    /// Per node: count and sum of its positive values (when they are made, see
    /// `gather_columns`), and (`top`, block-major) its largest score in each of
    /// [`BLOCKS`] blocks of rows (for the cut).
    kept_count: Vec<f64>,
    kept_sum: Vec<f64>,
    top: Vec<f64>,
    /// Per node: a lower bound of its single-node value `a_t(k*_t)`.
    bound: Vec<f64>,

    // Per node.
    /// Number of the node's elements in its group's support (a prefix of its column).
    count: Vec<u32>,
    /// Union-find parent; a group is identified by its top node, for which uf[t] == t.
    uf: Vec<u32>,
    /// Next node of the same group (linked list starting at the top node).
    next: Vec<u32>,

    // Per group, indexed by the group's top node.
    tail: Vec<u32>,
    size: Vec<u32>,
    support: Vec<u64>,
    value: Vec<f64>,
    stamp: Vec<u32>,
    /// Whether the group keeps its elements in one treap (`treap[g]`) instead of as the
    /// list of its members' columns; then `boundary[g]` is the first element (in treap
    /// order) outside its support, or NIL.
    in_treap: Vec<bool>,
    treap: Vec<u32>,
    boundary: Vec<u32>,

    /// Sorted runs of the column-list groups. A run is a sorted sequence of the values of
    /// one or more whole columns, named by one of those columns (its owner `u`): a single
    /// column's run is the column itself, a merged run lives in the run arena
    /// (`run_val`, `run_pre`, from `run_start[u]`; `run_len[u] + 1` slots). A group lists
    /// its runs from `run_head[g]` through `run_next`, longest first.
    run_head: Vec<u32>,
    run_next: Vec<u32>,
    run_len: Vec<u32>,
    run_start: Vec<usize>,
    run_in_arena: Vec<bool>,
    run_live: Vec<bool>,
    run_val: Vec<f64>,
    run_pre: Vec<f64>,
    /// First free slot and size in use of the run arena.
    run_bump: usize,
    run_cap: usize,
    /// Per column-list group: the threshold of its last evaluation (`S(k*)` = the values
    /// at or above it).
    threshold: Vec<f64>,
    /// Per column-list group: probes of one run's binary search, summed over the group's
    /// evaluations (what one run less would have saved).
    spent: Vec<u64>,
    live: Vec<u32>,

    /// Treap arena over the column slots (one record per slot, used by treap groups only).
    nodes: Vec<TreapNode>,
    stack: Vec<u32>,

    heap: Vec<Entry>,
    /// Bottom-up pooling (`pool_bottom_up`): per group, the root of the leftist heap of
    /// the groups hanging directly below it; per hanging group, its children and rank
    /// (the rank of its right child) in that heap.
    below: Vec<u32>,
    heap_left: Vec<u32>,
    heap_right: Vec<u32>,
    heap_rank: Vec<u32>,
    /// Candidates' places in q (row-major, ascending), their values of q, and where each
    /// row's start (`n_rows + 1` offsets): what identifies the problem that was solved
    /// (see `same_candidates`).
    kept: Vec<u32>,
    kept_q: Vec<f64>,
    row_kept: Vec<u32>,
    /// Sort entries of a crowded bucket: (key, row).
    sorted: Vec<(u64, u32)>,
    hist: Vec<u32>,
    grad_a_eff: Vec<f64>,
    /// A tile of whole rows (see [`tile_rows`]): the node values `a` repeated once per
    /// row, and (backward pass) the tile's values of `dL/dq` and contributions to the
    /// gradient of `a`, before they are written out and added up.
    a_tile: Vec<f64>,
    out_tile: Vec<f64>,
    ga_tile: Vec<f64>,
    /// `bytes_needed` of the largest shape the buffers were reserved for.
    reserved: usize,
    /// Tests: compact the violator heap before every push.
    #[cfg(test)]
    compact_always: bool,
    /// Tests: build the columns by `insert_into_columns` (`true`) or by the counting
    /// sort (`false`) whatever the batch.
    #[cfg(test)]
    force_direct: Option<bool>,
}

/// Least values in a tile of the passes that write an output matrix.
const TILE_VALUES: usize = 128;

/// Rows per tile of the passes that write an output matrix (`z`, `dL/dq`) for rows of
/// `t_count` values: whole rows, at least [`TILE_VALUES`] values, so that their loops
/// run over long flat slices of the matrix (with `a` repeated per row) however few
/// nodes a row has, instead of one short row at a time (31 values: seven vectors of
/// four and three single values).
fn tile_rows(t_count: usize) -> usize {
    TILE_VALUES.div_ceil(t_count.max(1))
}

/// Order-preserving map of a finite f64 to u64, reversed so that ascending order of the
/// result is descending order of the value.
#[inline]
fn descending_key(v: f64) -> u64 {
    let bits = v.to_bits();
    let ascending = if bits >> 63 == 1 { !bits } else { bits | (1 << 63) };
    !ascending
}

/// Inverse of [`descending_key`].
#[inline]
fn value_of_key(key: u64) -> f64 {
    let ascending = !key;
    let bits = if ascending >> 63 == 1 {
        ascending & !(1 << 63)
    } else {
        !ascending
    };
    f64::from_bits(bits)
}

/// Buckets of at most this many elements are left to the insertion pass of
/// `sort_into_columns` (larger ones are sorted by comparison).
const SMALL_BUCKET: usize = 16;

/// The most buckets `sort_into_columns` uses on `n_rows x n_nodes` scores.
fn most_buckets(n_rows: usize, n_nodes: usize) -> usize {
    n_nodes * buckets_per_node(n_rows * n_nodes, n_nodes)
}

/// Buckets per node of the counting sort of `n_kept` candidates over `t_count` columns
/// (see `sort_into_columns`): about two per candidate, a power of two, at most 2^16.
fn buckets_per_node(n_kept: usize, t_count: usize) -> usize {
    (2 * n_kept / t_count + 1).next_power_of_two().min(1 << 16)
}

/// Batches of at most this many rows have their columns built by insertion
/// (`insert_into_columns`) instead of the counting sort of `sort_into_columns`.
const DIRECT_ROWS: usize = 128;

/// Columns of at most this many candidates are sorted by insertion in
/// `insert_into_columns`, longer ones by comparison.
const DIRECT_COLUMN: usize = 32;

/// Row blocks of the cut's bounds: each node's largest value per block is one more
/// value of a subset whose mean bounds the node's value from below. Sixteen make the cut
/// that of the exact single-node values on i.i.d. normal scores with 512 rows (3% of
/// the values left against 4.7% with four blocks) at the same cost per value.
const BLOCKS: usize = 16;

/// Rows per block, at least, of the cut's bounds (see [`block_count`]).
const ROWS_PER_BLOCK: usize = 4;

/// Row blocks of the cut's bounds for a batch of `n` rows: [`BLOCKS`], or one per
/// [`ROWS_PER_BLOCK`] rows when there are fewer (at least one). Sorting a node's block
/// maxima costs about `blocks^2 / 2` compare-exchanges against the `n` values the pass
/// reads, so on small batches one block per row cost more than the candidates it
/// saved: 16 x 127 normal scores, lam = 1, forward + backward 389 k -> 343 k
/// instructions with four blocks instead of sixteen (16 x 255 771 k -> 696 k); 64
/// rows and more keep sixteen. Any blocks give a valid bound, so the solution, and
/// every output, is the same.
fn block_count(n: usize) -> usize {
    (n / ROWS_PER_BLOCK).clamp(1, BLOCKS)
}

/// Detects, once per process, the CPU features the vector passes choose between (the
/// first pass would otherwise; on a virtual machine the detection can cost a good part
/// of a millisecond, which a binding may rather pay at import).
pub fn detect_cpu_features() {
    #[cfg(target_arch = "x86_64")]
    let _ = std::arch::is_x86_feature_detected!("avx2");
}

/// Runs `f` compiled for AVX2 where the CPU has it (`f` is inlined into a function with
/// AVX2 enabled), else as is. Rust never fuses a multiply and an add nor reorders float
/// operations, so both give the same bits; AVX2 does four values per vector
/// instruction where the x86-64 baseline (SSE2) does two.
#[inline(always)]
fn wide<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        #[target_feature(enable = "avx2")]
        fn avx2<R>(f: impl FnOnce() -> R) -> R {
            f()
        }
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { avx2(f) };
    }
    f()
}

/// Per node of the row-major `q` (`n` rows, `cnt.len()` nodes): its largest score in
/// each of `top.len() / cnt.len()` blocks of rows (`top`, block-major) and, with `SUMS`, the count
/// and sum of its positive values `v = q + 1/2`. `false` (and meaningless results) when
/// a value of `q` is not finite: the pass adds [`zero_if_finite`] of each score to its
/// node's `cnt` (a small integer, or NaN).
fn column_stats<const SUMS: bool>(q: &[f64], n: usize, cnt: &mut [f64], sum: &mut [f64], top: &mut [f64]) -> bool {
    wide(
        #[inline(always)]
        || column_stats_body::<SUMS>(q, n, cnt, sum, top),
    )
}

#[inline(always)]
fn column_stats_body<const SUMS: bool>(q: &[f64], n: usize, cnt: &mut [f64], sum: &mut [f64], top: &mut [f64]) -> bool {
    let t_count = cnt.len();
    let blocks = top.len() / t_count;
    // four rows at a time (the block of a group of rows is its first row's; no block is
    // left without rows when there are at least four rows per block), else row by row
    const R: usize = 4;
    if n < R * blocks {
        for (i, row) in q.chunks_exact(t_count).enumerate() {
            let b = blocks * i / n;
            accumulate_rows::<1, SUMS>(row, cnt, sum, &mut top[b * t_count..(b + 1) * t_count]);
        }
        return cnt.iter().all(|c| c.is_finite());
    }
    let groups = q.chunks_exact(R * t_count);
    let rest = groups.remainder();
    for (g, rows) in groups.enumerate() {
        let b = blocks * (R * g) / n;
        accumulate_rows::<R, SUMS>(rows, cnt, sum, &mut top[b * t_count..(b + 1) * t_count]);
    }
    for row in rest.chunks_exact(t_count) {
        accumulate_rows::<1, SUMS>(row, cnt, sum, &mut top[(blocks - 1) * t_count..]);
    }
    cnt.iter().all(|c| c.is_finite())
}

/// Per node, a lower bound of its single-node value from (`top`, block-major, `-inf` for
/// a block without rows) its blocks' largest scores and, when given, the count and sum
/// of its positive values `v = q + 1/2`: the best of `0` (when `lam > 0`), of
/// `sum / (lam + count)` and of the means `(m_1 + .. + m_j) / (lam + j)` of its `j`
/// largest maxima `m = q + 1/2` (any `j` of a node's values sum to at most its `j`
/// largest, so each is at most `a_t(j) <= a_t(k*)`). The maxima are sorted in place,
/// for all nodes at once, by odd-even transposition (compare-exchanges that vectorise
/// across nodes).
fn block_bounds(lam: f64, sums: Option<(&[f64], &[f64])>, top: &mut [f64], bound: &mut [f64]) {
    let t_count = bound.len();
    let blocks = top.len() / t_count;
    wide(
        #[inline(always)]
        || {
            let max = |x: f64, y: f64| if x > y { x } else { y };
            let min = |x: f64, y: f64| if x < y { x } else { y };
            for round in 0..blocks {
                for b in (round % 2..blocks - 1).step_by(2) {
                    let (hi, lo) = top[b * t_count..(b + 2) * t_count].split_at_mut(t_count);
                    for (x, y) in hi.iter_mut().zip(lo.iter_mut()) {
                        let (u, v) = (*x, *y);
                        *x = max(u, v);
                        *y = min(u, v);
                    }
                }
            }
            // (a group's value is never negative when lam > 0: a(0) = 0)
            bound.fill(if lam > 0.0 { 0.0 } else { f64::NEG_INFINITY });
            if let Some((cnt, sum)) = sums {
                for t in 0..t_count {
                    if cnt[t] > 0.0 {
                        bound[t] = max(bound[t], sum[t] / (lam + cnt[t]));
                    }
                }
            }
            // prefix sums of v = q + 1/2 in place (max(q) + 1/2 = max(q + 1/2), exactly),
            // block j then holding the sum of the j + 1 largest; -inf (no row) makes every
            // later mean -inf
            for j in 0..blocks {
                let (done, rest) = top.split_at_mut(j * t_count);
                let s = &mut rest[..t_count];
                for s in s.iter_mut() {
                    *s += 0.5;
                }
                if j > 0 {
                    for (s, &p) in s.iter_mut().zip(&done[(j - 1) * t_count..]) {
                        *s += p;
                    }
                }
                let d = lam + (j + 1) as f64;
                for (b, &s) in bound.iter_mut().zip(s.iter()) {
                    *b = max(*b, s / d);
                }
            }
        },
    )
}

/// Takes `R` consecutive rows of scores (row-major, `R` rows of `cnt.len()` values)
/// into their nodes' running maxima `top`, and finiteness sums in `cnt`; with `SUMS`, the
/// count (in `cnt`) and sum of their positive values `v = q + 1/2`, added in row order.
/// Each node's accumulators are loaded and stored once for the `R` rows.
#[inline(always)]
fn accumulate_rows<const R: usize, const SUMS: bool>(rows: &[f64], cnt: &mut [f64], sum: &mut [f64], top: &mut [f64]) {
    let len = cnt.len();
    let (sum, top) = (&mut sum[..len], &mut top[..len]);
    let rows: [&[f64]; R] = std::array::from_fn(|r| &rows[r * len..(r + 1) * len]);
    // a plain comparison, which vectorises to max
    let max = |x: f64, y: f64| if x > y { x } else { y };
    for t in 0..len {
        let (mut c, mut s, mut m) = (cnt[t], sum[t], top[t]);
        for row in &rows {
            let x = row[t];
            c += zero_if_finite(x);
            m = max(m, x);
            if SUMS {
                let v = x + 0.5;
                let keep = v > 0.0;
                c += if keep { 1.0 } else { 0.0 };
                s += if keep { v } else { 0.0 };
            }
        }
        cnt[t] = c;
        sum[t] = s;
        top[t] = m;
    }
}

/// The kept test `v > floor` and `v >= cut` as one comparison `v >= threshold`: the
/// larger of `cut` and the float just above `floor` (`v > floor` is `v >= next_up(floor)`).
fn kept_threshold(floor: f64, cut: f64) -> f64 {
    cut.max(floor.next_up())
}

/// The kept test of a score `x`: `x + 1/2 >= threshold` (the vector code of
/// [`list_candidates`] makes the same comparison).
#[inline(always)]
fn is_candidate(x: f64, threshold: f64) -> bool {
    x + 0.5 >= threshold
}

/// The z-branch of the backward pass on a tile of scores `q` (and `dL/dz`, `g`), with
/// the node values `a` of their places: `dL/dq` where `0 < q + 1/2 < a` (in `out`) and
/// the gradient to `a` where `q + 1/2 >= a`, plus [`zero_if_finite`] of `q` and `g`
/// (added to `ga` when `ADD`, else written there). Returns how many of the scores pass
/// the kept test `q + 1/2 >= threshold`.
#[inline(always)]
fn row_gradients<const ADD: bool>(q: &[f64], g: &[f64], a: &[f64], threshold: f64, ga: &mut [f64], out: &mut [f64]) -> usize {
    let len = q.len();
    let (g, a, ga, out) = (&g[..len], &a[..len], &mut ga[..len], &mut out[..len]);
    let mut n_kept = 0usize;
    for k in 0..len {
        let (x, a, g) = (q[k], a[k], g[k]);
        let v = x + 0.5;
        n_kept += is_candidate(x, threshold) as usize;
        let to_a = (if v >= a { g } else { 0.0 }) + (zero_if_finite(x) + zero_if_finite(g));
        ga[k] = if ADD { ga[k] + to_a } else { to_a };
        out[k] = if v > 0.0 && v < a { g } else { 0.0 };
    }
    n_kept
}

/// Row and column of the place `e` of a row-major matrix with `t_count` columns
/// (`inv = 1 / t_count`): the float quotient, off by at most one for `e < 2^32`, then
/// corrected (no division instruction, no unpredictable branch).
#[inline(always)]
fn row_and_node(e: u32, t_count: usize, inv: f64) -> (usize, usize) {
    let e = e as usize;
    let mut i = (e as f64 * inv) as usize;
    i -= (i * t_count > e) as usize;
    i += ((i + 1) * t_count <= e) as usize;
    (i, e - i * t_count)
}

/// Appends the places in `q` (less than 2^32) of its candidates, the values with
/// `v = q + 1/2 >= threshold`, to `kept`, in order. Each block of 64 values gives a bit
/// mask of its kept values (branch-free, by vector compare and move-mask on x86-64: four
/// values per instruction with AVX2, two with the baseline SSE2), whose set bits are
/// then listed.
fn list_candidates(q: &[f64], threshold: f64, kept: &mut Vec<u32>) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        #[target_feature(enable = "avx2")]
        fn avx2(q: &[f64], threshold: f64, kept: &mut Vec<u32>) {
            let (half, c) = (_mm256_set1_pd(0.5), _mm256_set1_pd(threshold));
            let quad = |x: &[f64]| {
                let v = _mm256_add_pd(_mm256_set_pd(x[3], x[2], x[1], x[0]), half);
                _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_GE_OQ>(v, c)) as u64
            };
            list_with(q, threshold, kept, 4, quad);
        }
        #[target_feature(enable = "sse2")]
        fn sse2(q: &[f64], threshold: f64, kept: &mut Vec<u32>) {
            let (half, c) = (_mm_set1_pd(0.5), _mm_set1_pd(threshold));
            let pair = |x: &[f64]| {
                let v = _mm_add_pd(_mm_set_pd(x[1], x[0]), half);
                _mm_movemask_pd(_mm_cmpge_pd(v, c)) as u64
            };
            list_with(q, threshold, kept, 2, pair);
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            unsafe { avx2(q, threshold, kept) };
        } else {
            // SAFETY: SSE2 is part of every x86-64 CPU (the target's baseline).
            unsafe { sse2(q, threshold, kept) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    list_with(q, threshold, kept, 1, |x| is_candidate(x[0], threshold) as u64);
}

/// Most set bits of a block's mask written without a branch on their number.
const UNROLLED_BITS: usize = 8;

/// [`list_candidates`] with `group(x)`, the kept bits of the `width` values `x`. The
/// places of a block's set bits are written to the room past the end of `kept`: the
/// first [`UNROLLED_BITS`] slots always (what lies past the count is left out), the rest
/// in a loop, so a block costs no mispredicted branch unless it has more candidates.
#[inline(always)]
fn list_with(q: &[f64], threshold: f64, kept: &mut Vec<u32>, width: usize, group: impl Fn(&[f64]) -> u64) {
    let full = q.len() / 64;
    for (b, block) in q.chunks(64).enumerate() {
        let mut mask = 0u64;
        if b < full {
            // a whole block: a fixed number of groups at fixed shifts (unrolled)
            let block: &[f64; 64] = block.try_into().expect("a block of 64 values");
            for k in 0..64 / width {
                mask |= group(&block[width * k..width * (k + 1)]) << (width * k);
            }
        } else {
            for (j, &x) in block.iter().enumerate() {
                mask |= (is_candidate(x, threshold) as u64) << j;
            }
        }
        let count = mask.count_ones() as usize;
        // room for this block's places and the unrolled writes (none is allocated when
        // the capacity is the length of q plus 64 + UNROLLED_BITS, as `reserve_all` makes it)
        kept.reserve(64 + UNROLLED_BITS);
        let base = 64 * b as u32;
        let room = &mut kept.spare_capacity_mut()[..count.max(UNROLLED_BITS)];
        for slot in &mut room[..UNROLLED_BITS] {
            // (a mask run out writes base + 64, past the count: a value never read)
            slot.write(base.wrapping_add(mask.trailing_zeros()));
            mask &= mask.wrapping_sub(1);
        }
        for slot in &mut room[UNROLLED_BITS..] {
            slot.write(base + mask.trailing_zeros());
            mask &= mask - 1;
        }
        // SAFETY: the `count` slots past the length were written just above: the first
        // `min(count, UNROLLED_BITS)` by the first loop, the others by the second.
        unsafe { kept.set_len(kept.len() + count) };
    }
}

#[inline]
fn parent(t: usize) -> usize {
    (t - 1) / 2
}

fn resize<T: Clone>(v: &mut Vec<T>, len: usize, fill: T) {
    v.clear();
    v.resize(len, fill);
}

/// `0` when `x` is finite, else NaN (`x - x`): added to a sum, it voids the sum exactly
/// when a value is not finite, at the cost of two additions (which vectorise).
#[inline(always)]
#[allow(clippy::eq_op)]
fn zero_if_finite(x: f64) -> f64 {
    x - x
}

/// Index of the first value of `x` that is not finite. A vectorisable pass first
/// (`0 x` is NaN exactly for infinities and NaN), then the search only on failure.
fn first_non_finite(x: &[f64]) -> Option<usize> {
    let mut acc = [0.0f64; 8];
    let mut chunks = x.chunks_exact(8);
    for c in &mut chunks {
        for j in 0..8 {
            acc[j] += c[j] * 0.0;
        }
    }
    let tail: f64 = chunks.remainder().iter().map(|&v| v * 0.0).sum();
    if acc.iter().sum::<f64>() + tail == 0.0 {
        return None;
    }
    x.iter().position(|v| !v.is_finite())
}

/// `Err(Length)` unless the buffer `what` holds `expected` values.
fn check_len(what: &'static str, expected: usize, got: usize) -> Result<(), PavError> {
    if got == expected {
        Ok(())
    } else {
        Err(PavError::Length { what, expected, got })
    }
}

/// `Err(NonFinite)` at the first NaN or infinity of the row-major matrix `what` with
/// `n_cols` columns (a vector is its single row).
fn check_finite(what: &'static str, values: &[f64], n_cols: usize) -> Result<(), PavError> {
    match first_non_finite(values) {
        Some(bad) => Err(PavError::NonFinite { what, row: bad / n_cols, node: bad % n_cols }),
        None => Ok(()),
    }
}

/// Makes room for `len` elements in `v` (emptied when it must grow), fallibly.
fn grow<T>(v: &mut Vec<T>, len: usize) -> Result<(), TryReserveError> {
    if v.capacity() < len {
        v.clear();
        v.shrink_to_fit();
        v.try_reserve_exact(len)?;
    }
    Ok(())
}

/// [`grow`] with half as much room again when `v` must grow, up to `most` elements.
fn grow_by_half<T>(v: &mut Vec<T>, len: usize, most: usize) -> Result<(), TryReserveError> {
    if v.capacity() < len {
        grow(v, len.saturating_add(len / 2).min(most).max(len))?;
    }
    Ok(())
}

/// Gives `v` length `len`, keeping its contents when it already has that length (for
/// buffers whose every read slot is written first).
fn ensure_len<T: Clone>(v: &mut Vec<T>, len: usize, fill: T) {
    if v.len() != len {
        resize(v, len, fill);
    }
}

impl TreePav {
    /// An empty solver; buffers grow on first use and are reused afterwards.
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes of working memory a forward (and backward) pass on `n_rows x n_nodes` scores
    /// can allocate (the inputs and outputs aside), at most: about `(128 n_rows + 420) n_nodes`.
    /// Buffers that hold candidates are sized to the candidates of the call (see
    /// `reserve_candidates`), usually a few percent of this. `None` when it overflows
    /// `usize`.
    pub fn bytes_needed(n_rows: usize, n_nodes: usize) -> Option<usize> {
        use std::mem::size_of;
        let t = n_nodes;
        let slots = t.checked_mul(n_rows.checked_add(1)?)?;
        let m = n_rows.checked_mul(n_nodes)?;
        // Per node: a, kept_count, kept_sum, top (BLOCKS), bound, value, threshold,
        // grad_a_eff (f64); col_len, count, uf, next, tail, size, stamp, treap, boundary,
        // run_head, run_next, run_len, live, below, heap_left, heap_right, heap_rank (u32); col_start, run_start (usize); support,
        // spent (u64); in_treap, run_in_arena, run_live (bool); two heap entries.
        let per_node = (7 + BLOCKS) * size_of::<f64>()
            + 18 * size_of::<u32>()
            + 2 * size_of::<usize>()
            + 2 * size_of::<u64>()
            + 3 * size_of::<bool>()
            + 2 * size_of::<Entry>();
        // Per column slot: val, row, pre, a treap record and three run-arena slots of
        // run_val and run_pre.
        let per_slot = 2 * size_of::<f64>()
            + size_of::<u32>()
            + size_of::<TreapNode>()
            + 6 * size_of::<f64>();
        // Per row: stack, row_kept; the sort's bucket counters.
        let per_row = 2 * size_of::<u32>();
        // the three tiles of at most TILE_VALUES + T values each
        let tiles = 3 * (TILE_VALUES + t) * size_of::<f64>();
        let fixed = (most_buckets(n_rows, n_nodes) + 16) * size_of::<u32>() + 8 * size_of::<Entry>() + size_of::<usize>() + tiles;
        per_node
            .checked_mul(t)?
            .checked_add(per_slot.checked_mul(slots)?)?
            // per value: a candidate's place and value and a sort entry
            .checked_add(m.checked_mul(size_of::<f64>() + size_of::<u32>() + size_of::<(u64, u32)>())?)?
            .checked_add(per_row.checked_mul(n_rows)?)?
            .checked_add(fixed)
    }

    /// Reserves the buffers of a pass on `n_rows x n_nodes` scores whose size depends on
    /// the shape only (per node, per row, and the candidates' places), after checking
    /// that `bytes` ([`TreePav::bytes_needed`]) can be had at all; those sized by the
    /// candidates are reserved by `reserve_candidates` once they are listed.
    fn reserve_all(&mut self, n_rows: usize, n_nodes: usize, bytes: usize) -> Result<(), TryReserveError> {
        // One probe of the whole amount first (unless buffers of that size were had
        // before): a shape far beyond the machine's memory is refused before anything is
        // reserved. Below PROBED_BYTES the reservations, each fallible and none touched
        // before all are had, suffice, and a probe would only cost a first call the
        // mapping and unmapping of its memory (about 30 us on a virtual machine). `grow`
        // is free when a buffer is large enough already.
        if bytes > self.reserved.max(PROBED_BYTES) {
            let mut probe: Vec<u8> = Vec::new();
            probe.try_reserve_exact(bytes)?;
        }
        let t = n_nodes;
        for v in [&mut self.a, &mut self.kept_count, &mut self.kept_sum, &mut self.bound] {
            grow(v, t)?;
        }
        for v in [&mut self.value, &mut self.threshold, &mut self.grad_a_eff] {
            grow(v, t)?;
        }
        for v in [&mut self.a_tile, &mut self.out_tile, &mut self.ga_tile] {
            grow(v, tile_rows(t) * t)?;
        }
        grow(&mut self.top, BLOCKS * t)?;
        grow(&mut self.col_start, t + 1)?;
        grow(&mut self.run_start, t)?;
        for v in [
            &mut self.col_len,
            &mut self.count,
            &mut self.uf,
            &mut self.next,
            &mut self.tail,
            &mut self.size,
            &mut self.stamp,
            &mut self.treap,
            &mut self.boundary,
            &mut self.run_head,
            &mut self.run_next,
            &mut self.run_len,
            &mut self.live,
            &mut self.below,
            &mut self.heap_left,
            &mut self.heap_right,
            &mut self.heap_rank,
        ] {
            grow(v, t)?;
        }
        grow(&mut self.support, t)?;
        grow(&mut self.spent, t)?;
        for v in [&mut self.in_treap, &mut self.run_in_arena, &mut self.run_live] {
            grow(v, t)?;
        }
        grow(&mut self.heap, HEAP_SLACK * t + 8)?;
        grow(&mut self.kept, n_rows * n_nodes + 64 + UNROLLED_BITS)?;
        grow(&mut self.row_kept, n_rows + 1)?;
        grow(&mut self.stack, n_rows + 1)?;
        self.reserved = self.reserved.max(bytes);
        Ok(())
    }

    /// Reserves the buffers sized by the candidates just listed in `kept`: their scores,
    /// the sort's buckets, the columns and prefix sums, and the arenas of merged runs and
    /// treaps (these two are touched only as far as merges and treaps need). A buffer
    /// that grows gets half as much room again (never more than the shape can use), so
    /// calls on scores like the last ones allocate nothing. Sized to the candidates (a
    /// few percent of the values on smooth scores) rather than to the shape, they fit in
    /// memory the process has already used, and a first call faults in about what it
    /// writes: in a fresh Python process the first forward pass on 512 x 127 normal
    /// scores faults in 132 pages, 127 of them for `z`, against 184 with room for `n T`
    /// candidates (whose untouched ends still cost the allocator's bookkeeping a page
    /// each) and a sort entry kept per candidate.
    fn reserve_candidates(&mut self) -> Result<(), TryReserveError> {
        let (n_rows, t) = (self.n_rows, self.n_nodes);
        let (n_kept, m) = (self.kept.len(), n_rows * t);
        let (slots, most_slots) = (n_kept + t, m + t);
        // written first, then the ones that only some calls touch
        grow_by_half(&mut self.kept_q, n_kept, m)?;
        grow_by_half(&mut self.hist, t * buckets_per_node(n_kept, t) + 1, most_buckets(n_rows, t) + 1)?;
        grow_by_half(&mut self.val, slots, most_slots)?;
        grow_by_half(&mut self.row, slots, most_slots)?;
        grow_by_half(&mut self.pre, slots, most_slots)?;
        grow_by_half(&mut self.run_val, 3 * slots, 3 * most_slots)?;
        grow_by_half(&mut self.run_pre, 3 * slots, 3 * most_slots)?;
        grow_by_half(&mut self.sorted, n_kept, m)?;
        grow_by_half(&mut self.nodes, slots, most_slots)
    }

    /// Sets the work factor of the Newton searches of pooled groups (default
    /// [`WORK_FACTOR`]): each pooling adds `factor (n + 64) (log2(n T) + 1)` binary-search
    /// probes to the account those searches draw on, and a group whose search would
    /// overdraw it continues as a treap. Only the speed depends on it (the results agree
    /// to rounding); `0` sends every pooled group to the treap path, which tests use.
    pub fn set_work_factor(&mut self, factor: u64) {
        self.work_factor = Some(factor);
    }

    /// Bytes the solver's buffers hold now (their capacities): what it keeps between
    /// calls. At most [`TreePav::bytes_needed`] of the largest shape it has solved, and
    /// on scores with few candidates (a few percent of the values on normal scores) a
    /// small part of it.
    pub fn held_bytes(&self) -> usize {
        fn held<T>(v: &Vec<T>) -> usize {
            v.capacity() * std::mem::size_of::<T>()
        }
        held(&self.a)
            + held(&self.col_start)
            + held(&self.col_len)
            + held(&self.val)
            + held(&self.row)
            + held(&self.pre)
            + held(&self.kept_count)
            + held(&self.kept_sum)
            + held(&self.top)
            + held(&self.bound)
            + held(&self.count)
            + held(&self.uf)
            + held(&self.next)
            + held(&self.tail)
            + held(&self.size)
            + held(&self.support)
            + held(&self.value)
            + held(&self.stamp)
            + held(&self.in_treap)
            + held(&self.treap)
            + held(&self.boundary)
            + held(&self.run_head)
            + held(&self.run_next)
            + held(&self.run_len)
            + held(&self.run_start)
            + held(&self.run_in_arena)
            + held(&self.run_live)
            + held(&self.run_val)
            + held(&self.run_pre)
            + held(&self.threshold)
            + held(&self.spent)
            + held(&self.live)
            + held(&self.nodes)
            + held(&self.stack)
            + held(&self.heap)
            + held(&self.below)
            + held(&self.heap_left)
            + held(&self.heap_right)
            + held(&self.heap_rank)
            + held(&self.kept)
            + held(&self.kept_q)
            + held(&self.row_kept)
            + held(&self.sorted)
            + held(&self.hist)
            + held(&self.grad_a_eff)
            + held(&self.a_tile)
            + held(&self.out_tile)
            + held(&self.ga_tile)
    }

    /// Frees the buffers that only a forward pass uses (the candidates' columns and
    /// their prefix sums, the sort's entries and buckets, the arenas of merged runs and
    /// treaps), keeping the state of the last forward pass for [`TreePav::backward`],
    /// [`TreePav::backward_at`] and [`TreePav::node_info`]. What stays is at most about
    /// 16 bytes a value (the candidates' places, scores and rows) and a few hundred
    /// bytes a node, of the largest shape solved so far; the next forward pass reserves
    /// the freed buffers again.
    pub fn release_forward_buffers(&mut self) {
        fn free<T>(v: &mut Vec<T>) {
            *v = Vec::new();
        }
        free(&mut self.val);
        free(&mut self.pre);
        free(&mut self.sorted);
        free(&mut self.hist);
        free(&mut self.run_val);
        free(&mut self.run_pre);
        free(&mut self.nodes);
    }

    /// Sets the held memory (see [`TreePav::held_bytes`]) past which each later forward
    /// pass ends with [`TreePav::release_forward_buffers`]: a solver kept between calls
    /// then holds at most the larger of `bytes` and about 16 bytes a value plus a few
    /// hundred a node (of the largest shape it solved), whatever the scores, and reuses
    /// all its buffers on scores with few candidates.
    pub fn set_max_held_bytes(&mut self, bytes: usize) {
        self.max_held_bytes = Some(bytes);
    }

    /// Sets the merge budget of bottom-up pooling (default [`MERGE_COPIES`]): its merges
    /// may copy `copies` values per column slot, and past that the violator heap pools
    /// the nodes left. Only the speed depends on it (the results agree to rounding);
    /// tests use small budgets to hand over at any point.
    pub fn set_merge_copies(&mut self, copies: u64) {
        self.merge_copies = Some(copies);
    }

    /// Sets how later forward passes pool the nodes (default [`Pooling::Auto`]); the
    /// results agree to rounding, and tests compare the ways.
    pub fn set_pooling(&mut self, pooling: Pooling) {
        self.pooling = pooling;
    }

    /// Solves problem (3) for the `n_rows x n_nodes` row-major scores `q` and writes the
    /// node values `a` (length `n_nodes`) and the relaxed traversals `z` (row-major,
    /// `n_rows x n_nodes`, `z_it = clip(q_it + 1/2, 0, a_t)`; a slice of that size, or a
    /// vector that is filled, see [`Output`]).
    ///
    /// # Errors
    ///
    /// [`PavError`] when `q` is empty, not finite, has a column count that is not a
    /// complete tree's node count, when `lam` is negative or not finite, when an output
    /// slice has the wrong length or an output vector's room cannot be had. Nothing is
    /// panicked.
    pub fn forward<Z: Output + ?Sized>(
        &mut self,
        q: &[f64],
        n_rows: usize,
        n_nodes: usize,
        lam: f64,
        a_out: &mut [f64],
        z_out: &mut Z,
    ) -> Result<(), PavError> {
        self.solved = false;
        let depth = depth_for_nodes(n_nodes).ok_or(PavError::NotACompleteTree { n_nodes })?;
        if depth > MAX_DEPTH {
            return Err(PavError::TooDeep { depth });
        }
        if n_rows == 0 {
            return Err(PavError::EmptyBatch);
        }
        let m = n_rows
            .checked_mul(n_nodes)
            .ok_or(PavError::TooLarge { n_values: usize::MAX })?;
        if m.saturating_add(n_nodes) >= (u32::MAX - 1) as usize {
            return Err(PavError::TooLarge { n_values: m });
        }
        check_len("q", m, q.len())?;
        check_len("a", n_nodes, a_out.len())?;
        if !(lam.is_finite() && lam >= 0.0) {
            return Err(PavError::BadLambda { lam });
        }
        z_out.begin("z", n_rows, n_nodes)?;

        // Every buffer of the solve is allocated here, fallibly, so that a shape too large
        // for the machine is an error and never an abort in the middle of the solve.
        let bytes = Self::bytes_needed(n_rows, n_nodes).unwrap_or(usize::MAX);
        self.reserve_all(n_rows, n_nodes, bytes)
            .map_err(|_| PavError::OutOfMemory { bytes, n_rows, n_nodes })?;

        self.n_rows = n_rows;
        self.n_nodes = n_nodes;
        self.lam = lam;
        self.gather_columns(q)?;
        self.pool();

        // Outputs: a = clip(group value, 0, 1), z = clip(q + 1/2, 0, a).
        resize(&mut self.a, n_nodes, 0.0);
        for t in 0..n_nodes {
            let g = self.uf[t] as usize;
            self.a[t] = self.value[g].clamp(0.0, 1.0);
        }
        a_out.copy_from_slice(&self.a);
        // z tile by tile of whole rows (see `tile_rows`)
        let tile = self.fill_a_tile();
        let a_tile = &self.a_tile[..tile];
        wide(
            #[inline(always)]
            || {
                for (c, q_tile) in q.chunks(tile).enumerate() {
                    let z = q_tile.iter().zip(a_tile).map(|(&qv, &a)| {
                        // clip(v, 0, a) for a >= 0, branch-free (no NaN here)
                        let v = qv + 0.5;
                        let v = if v < a { v } else { a };
                        if v > 0.0 {
                            v
                        } else {
                            0.0
                        }
                    });
                    z_out.put_rows(c * (tile / n_nodes), n_nodes, z);
                }
            },
        );
        self.solved = true;
        if self.max_held_bytes.is_some_and(|most| self.held_bytes() > most) {
            self.release_forward_buffers();
        }
        Ok(())
    }

    /// Repeats the node values `a` once per row of a tile (see [`tile_rows`]; no more
    /// rows than the batch has) in `a_tile`; returns the tile's length in values.
    fn fill_a_tile(&mut self) -> usize {
        let t_count = self.n_nodes;
        let tile = tile_rows(t_count).min(self.n_rows) * t_count;
        self.a_tile.clear();
        for _ in 0..tile / t_count {
            self.a_tile.extend_from_slice(&self.a[..t_count]);
        }
        tile
    }

    /// Whether the candidates of the last forward pass are those of `q` (as many as
    /// `n_kept`, the values of `q` that pass the kept test, and each with the same bits
    /// at its place): then the two make the same problem. A candidate that moved would
    /// leave a value that fails the test at its old place, or the new place would add
    /// one that passes it, so equal counts and equal values at the old places suffice.
    fn same_candidates(&self, q: &[f64], n_kept: usize) -> bool {
        n_kept == self.kept.len()
            && n_kept == self.kept_q.len()
            && self.kept.iter().zip(&self.kept_q).all(|(&e, x)| q[e as usize].to_bits() == x.to_bits())
    }

    /// Whether the last forward pass succeeded on scores that make the same problem as
    /// `q` and `lam`: the same shape and `lam`, finite values, and the same candidates
    /// (the values at or above the pass's cut, which is below every group value), bit
    /// for bit and at the same places. The solution (groups, values, supports) depends on
    /// nothing else, so it is the solution for `q` too. Costs one pass over `q`.
    pub fn is_solved_for(&self, q: &[f64], n_rows: usize, n_nodes: usize, lam: f64) -> bool {
        self.solved_for_shape(q, n_rows, n_nodes, lam)
            && q.iter().all(|x| x.is_finite())
            && self.same_candidates(q, q.iter().filter(|&&x| is_candidate(x, self.kept_at)).count())
    }

    /// Whether the last forward pass succeeded on this shape and `lam` (and `q` has its
    /// length): all of [`TreePav::is_solved_for`] but the look at the values.
    fn solved_for_shape(&self, q: &[f64], n_rows: usize, n_nodes: usize, lam: f64) -> bool {
        self.solved
            && (self.n_rows, self.n_nodes) == (n_rows, n_nodes)
            && self.lam.to_bits() == lam.to_bits()
            && q.len() == n_rows * n_nodes
    }

    /// Vector-Jacobian product at the scores `q` of the last forward pass: given `dL/da`
    /// (length `n_nodes`) and `dL/dz` (row-major `n_rows x n_nodes`), writes `dL/dq`
    /// (same shape as `q`, to a slice or a vector, see [`Output`]).
    ///
    /// `dz_it/dq_it = 1` when `0 < q_it + 1/2 < a_t`; `dz_it/da_t = 1` when
    /// `q_it + 1/2 >= a_t`; and `da_t/dq_jt' = 1 / (lam |G| + k*)` when `0 < a_t < 1`
    /// and `(j, t')` is in the support `S(k*)` of the group `G` of `t` (section 3.2).
    ///
    /// # Errors
    ///
    /// [`PavError::NotSolved`] unless the last forward pass succeeded on `q` (or on
    /// scores that make the same problem, see [`TreePav::is_solved_for`]); length or
    /// finiteness errors for the gradients.
    pub fn backward<G: Output + ?Sized>(
        &mut self,
        q: &[f64],
        grad_a: &[f64],
        grad_z: &[f64],
        grad_q: &mut G,
    ) -> Result<(), PavError> {
        let (n, t, lam) = (self.n_rows, self.n_nodes, self.lam);
        match self.backward_at(q, n, t, lam, grad_a, grad_z, grad_q)? {
            true => Ok(()),
            false => Err(PavError::NotSolved),
        }
    }

    /// [`TreePav::backward`] at the scores `q` and `lam`, when the last forward pass
    /// solved the same problem ([`TreePav::is_solved_for`], checked within the pass that
    /// reads `q`, so it costs no pass of its own); `Ok(false)`, `grad_q` unspecified,
    /// when it did not.
    ///
    /// # Errors
    ///
    /// As [`TreePav::backward`], for the gradients.
    #[allow(clippy::too_many_arguments)]
    pub fn backward_at<G: Output + ?Sized>(
        &mut self,
        q: &[f64],
        n_rows: usize,
        n_nodes: usize,
        lam: f64,
        grad_a: &[f64],
        grad_z: &[f64],
        grad_q: &mut G,
    ) -> Result<bool, PavError> {
        if !self.solved_for_shape(q, n_rows, n_nodes, lam) {
            return Ok(false);
        }
        let (n, t_count) = (self.n_rows, self.n_nodes);
        let m = n * t_count;
        check_len("grad_a", t_count, grad_a.len())?;
        check_len("grad_z", m, grad_z.len())?;
        check_finite("grad_a", grad_a, t_count)?;
        grad_q.begin("grad_q", n, t_count)?;

        // z-branch: gradient to q where z = q + 1/2, to a where z = a. The same pass checks
        // that q has the candidates of the forward pass, and adds `zero_if_finite` of q and
        // grad_z to the gradient of a: a gradient of a that is not finite then names a
        // value of q or grad_z that is not finite, or else an overflow.
        self.grad_a_eff.clear();
        self.grad_a_eff.extend_from_slice(grad_a);
        // The pass goes tile by tile of whole rows (see `tile_rows`): each value's
        // gradient to q and to a in one flat loop, then the tile's gradients to a added
        // to `grad_a_eff` row by row (in the order of the rows, as one row at a time).
        let tile = self.fill_a_tile();
        ensure_len(&mut self.out_tile, tile, 0.0);
        ensure_len(&mut self.ga_tile, tile, 0.0);
        let (a_tile, ga_row) = (&self.a_tile[..tile], &mut self.grad_a_eff[..t_count]);
        let (out, ga_tile) = (&mut self.out_tile[..tile], &mut self.ga_tile[..tile]);
        let threshold = self.kept_at;
        let n_kept = wide(
            #[inline(always)]
            || {
                let mut n_kept = 0usize;
                for (c, (gz_tile, q_tile)) in grad_z.chunks(tile).zip(q.chunks(tile)).enumerate() {
                    let len = q_tile.len();
                    let (out, ga_tile, a_tile) = (&mut out[..len], &mut ga_tile[..len], &a_tile[..len]);
                    let gz_tile = &gz_tile[..len];
                    if tile == t_count {
                        // one row per tile: its gradients to a go to `grad_a_eff` at once
                        n_kept += row_gradients::<true>(q_tile, gz_tile, a_tile, threshold, ga_row, out);
                    } else {
                        n_kept += row_gradients::<false>(q_tile, gz_tile, a_tile, threshold, ga_tile, out);
                        for ga_part in ga_tile.chunks_exact(t_count) {
                            for (s, &g) in ga_row.iter_mut().zip(ga_part) {
                                *s += g;
                            }
                        }
                    }
                    grad_q.put_rows(c * (tile / t_count), t_count, out.iter().copied());
                }
                n_kept
            },
        );
        if !self.same_candidates(q, n_kept) {
            return Ok(false);
        }
        if !self.grad_a_eff.iter().all(|g| g.is_finite()) {
            if first_non_finite(q).is_some() {
                return Ok(false);
            }
            check_finite("grad_z", grad_z, t_count)?;
        }

        // a-branch: every group with 0 < a < 1 spreads its gradient over its support.
        let grad_q = grad_q.values();
        for g in 0..t_count {
            if self.uf[g] as usize != g {
                continue;
            }
            let r = self.value[g];
            if !(r > 0.0 && r < 1.0) {
                continue;
            }
            let mut total = 0.0;
            let mut u = g as u32;
            while u != NIL {
                total += self.grad_a_eff[u as usize];
                u = self.next[u as usize];
            }
            let coef = total / self.denominator(g);
            let mut u = g as u32;
            while u != NIL {
                let t = u as usize;
                let start = self.col_start[t];
                for &i in &self.row[start..start + self.count[t] as usize] {
                    grad_q[i as usize * t_count + t] += coef;
                }
                u = self.next[t];
            }
        }
        Ok(true)
    }

    /// The group, unclipped value, denominator and support rows of node `t` after the last
    /// forward pass (`None` before one, or when `t` is out of range).
    pub fn node_info(&self, t: usize) -> Option<NodeInfo<'_>> {
        if !self.solved || t >= self.n_nodes {
            return None;
        }
        let g = self.uf[t] as usize;
        let start = self.col_start[t];
        Some(NodeInfo {
            group: g,
            value: self.value[g],
            denominator: self.denominator(g),
            support_rows: &self.row[start..start + self.count[t] as usize],
        })
    }

    /// Number of groups (pooled node sets) of the last forward pass.
    pub fn n_groups(&self) -> usize {
        if !self.solved {
            return 0;
        }
        (0..self.n_nodes).filter(|&t| self.uf[t] as usize == t).count()
    }

    /// Number of groups of the last forward pass that ended on the treap path (the
    /// worst-case guard of the crate documentation, "Pooled groups"); a diagnostic.
    pub fn n_treap_groups(&self) -> usize {
        if !self.solved {
            return 0;
        }
        (0..self.n_nodes).filter(|&t| self.uf[t] as usize == t && self.in_treap[t]).count()
    }

    fn denominator(&self, g: usize) -> f64 {
        self.lam * self.size[g] as f64 + self.support[g] as f64
    }

    // ------------------------------------------------------------------ forward parts

    /// Gathers each node's candidates (the values that can enter a support) into its
    /// column, sorted (see `sort_into_columns`).
    ///
    /// Every group value the algorithm ever computes, and every threshold its searches
    /// evaluate, is at least the smallest single-node value `min_t a_t(k*_t)` (pooling
    /// two groups gives a value between theirs). A lower bound of it is cheap: for each
    /// node `a_t(k*) = max_k a_t(k)`, and `a_t(k)` (the `k` largest values) is at least
    /// `sum(S) / (lam + k)` for any `k` kept values `S`; one pass gives such sums for all
    /// kept values and for the largest of each of [`BLOCKS`] blocks of rows (one running
    /// maximum per value). Values under the smallest bound (less a relative `1e-9`
    /// against rounding) can never be in a support nor change a count, so they are
    /// dropped before sorting (on i.i.d. normal scores, n = 512, lam = 1, about 3% of
    /// the values are left).
    ///
    /// # Errors
    ///
    /// [`PavError::NonFinite`] when a score is NaN or infinite (checked in the first pass).
    fn gather_columns(&mut self, q: &[f64]) -> Result<(), PavError> {
        let t_count = self.n_nodes;
        let n = self.n_rows;
        let lam = self.lam;
        // lam == 0 keeps every value: v > -inf
        let floor = if lam == 0.0 { f64::NEG_INFINITY } else { 0.0 };

        // The largest score of each node in each of BLOCKS blocks of rows (-inf for
        // none) and, when lam > BLOCKS, the count and sum of its positive values; q is
        // checked for finiteness in the same pass. The means of j <= BLOCKS maxima have
        // denominators lam + j: once lam exceeds BLOCKS they weaken, and the mean of all
        // positive values (denominator lam + count) takes over; below, it is the weaker
        // bound (on i.i.d. normal scores with n = 512 and lam = 1, under the maxima's)
        // and the pass is twice as fast without it.
        resize(&mut self.kept_count, t_count, 0.0);
        resize(&mut self.kept_sum, t_count, 0.0);
        resize(&mut self.top, block_count(n) * t_count, f64::NEG_INFINITY);
        let sums = lam > BLOCKS as f64;
        let finite = if sums {
            column_stats::<true>(q, n, &mut self.kept_count, &mut self.kept_sum, &mut self.top)
        } else {
            column_stats::<false>(q, n, &mut self.kept_count, &mut self.kept_sum, &mut self.top)
        };
        if !finite {
            return check_finite("q", q, t_count);
        }
        resize(&mut self.bound, t_count, 0.0);
        let sums = sums.then_some((&self.kept_count[..], &self.kept_sum[..]));
        block_bounds(lam, sums, &mut self.top, &mut self.bound);
        let cut = self.bound.iter().fold(f64::INFINITY, |c, &b| c.min(b));
        let cut = cut - 1e-9 * cut.abs();

        // Candidates to packed columns: node t gets its candidate count plus one spare
        // slot, so a solve writes (and, on a first call, faults in) memory in proportion
        // to the candidates, not to `n T` (about 4% of the values on the example above).
        // One pass lists their places in q (`list_candidates`); a counting sort then
        // lays them out in their columns, sorted.
        self.kept.clear();
        self.kept_at = kept_threshold(floor, cut);
        list_candidates(q, self.kept_at, &mut self.kept);
        let (n_rows, n_nodes) = (self.n_rows, self.n_nodes);
        self.reserve_candidates().map_err(|_| PavError::OutOfMemory {
            bytes: Self::bytes_needed(n_rows, n_nodes).unwrap_or(usize::MAX),
            n_rows,
            n_nodes,
        })?;
        self.sort_into_columns(q);
        for t in 0..t_count {
            let (lo, hi) = self.column(t);
            let mut s = 0.0;
            for e in lo..hi {
                self.pre[e] = s;
                s += self.val[e];
            }
            self.pre[hi] = s;
        }
        Ok(())
    }

    /// Lays the candidates (`kept`, places in q) out in their nodes' columns, sorted by
    /// value descending, then row ascending, and notes each one's score and row
    /// (`kept_q`, `row_kept`).
    ///
    /// One counting sort on (node, leading bits of the value's key) writes every
    /// candidate to its final slot: a node's `per_node` buckets split the key range of
    /// all candidates (from the largest score to the kept threshold), so within a column
    /// the buckets come in order, each holding a few values in the order of q (rows
    /// ascending); one insertion pass per column then orders each bucket, whose elements
    /// never leave it, and buckets of more than [`SMALL_BUCKET`] elements (skewed
    /// scores) are sorted by comparison instead, so a column costs `O(len log len)` at
    /// worst and about `O(len)` on smooth scores.
    fn sort_into_columns(&mut self, q: &[f64]) {
        if self.direct_columns() {
            return self.insert_into_columns(q);
        }
        let (n, t_count) = (self.n_rows, self.n_nodes);
        let inv = 1.0 / t_count as f64;
        // every candidate lies between the threshold and the largest score (block 0 of
        // `top` holds each node's largest v = q + 1/2 after `block_bounds`)
        let largest = self.top[..t_count].iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v));
        let (lo, hi) = (descending_key(largest), descending_key(self.kept_at));
        let per_node = buckets_per_node(self.kept.len(), t_count);
        let bits = per_node.trailing_zeros();
        let range = hi.saturating_sub(lo);
        let shift = (64 - range.leading_zeros()).saturating_sub(bits);
        resize(&mut self.hist, t_count * per_node + 1, 0);
        resize(&mut self.row_kept, n + 1, 0);
        self.kept_q.clear();
        let bucket = |t: usize, key: u64| t * per_node + ((key - lo) >> shift) as usize;
        for &e in &self.kept {
            let (i, t) = row_and_node(e, t_count, inv);
            let x = q[e as usize];
            self.kept_q.push(x);
            self.row_kept[i + 1] += 1;
            self.hist[bucket(t, descending_key(x + 0.5)) + 1] += 1;
        }
        for i in 0..n {
            self.row_kept[i + 1] += self.row_kept[i];
        }
        // hist[b] = first slot of bucket b among all candidates; node t's slots are
        // shifted by t (one spare slot per column)
        let mut crowded = false;
        for b in 1..self.hist.len() {
            crowded |= self.hist[b] > SMALL_BUCKET as u32;
            self.hist[b] += self.hist[b - 1];
        }
        resize(&mut self.col_start, t_count + 1, 0);
        resize(&mut self.col_len, t_count, 0);
        for t in 0..t_count {
            let (first, end) = (self.hist[t * per_node] as usize, self.hist[(t + 1) * per_node] as usize);
            self.col_start[t] = first + t;
            self.col_len[t] = (end - first) as u32;
        }
        self.col_start[t_count] = self.kept.len() + t_count;
        let slots = self.col_start[t_count];
        ensure_len(&mut self.val, slots, 0.0);
        ensure_len(&mut self.row, slots, 0);
        ensure_len(&mut self.pre, slots, 0.0);
        // the same buckets again, from the candidates' scores (no sort entries are kept
        // between the passes: on a first call that is memory to fault in); `kept` is in
        // the order of q, so each row's candidates are the range `row_kept[i..i + 1]`
        for i in 0..n {
            let (from, to) = (self.row_kept[i] as usize, self.row_kept[i + 1] as usize);
            for (&e, &x) in self.kept[from..to].iter().zip(&self.kept_q[from..to]) {
                let t = e as usize - i * t_count;
                let v = x + 0.5;
                let b = bucket(t, descending_key(v));
                let slot = self.hist[b] as usize + t;
                self.hist[b] += 1;
                self.val[slot] = v;
                self.row[slot] = i as u32;
            }
        }
        if crowded {
            // (hist[b] is now the end of bucket b, and the start of bucket b + 1)
            let mut start = 0;
            for b in 0..t_count * per_node {
                let end = self.hist[b] as usize;
                if end - start > SMALL_BUCKET {
                    let t = b / per_node;
                    let slots = start + t..end + t;
                    self.sorted.clear();
                    let entries = self.val[slots.clone()].iter().zip(&self.row[slots.clone()]);
                    self.sorted.extend(entries.map(|(&v, &i)| (descending_key(v), i)));
                    self.sorted.sort_unstable();
                    for (e, &(key, i)) in slots.zip(&self.sorted) {
                        self.val[e] = value_of_key(key);
                        self.row[e] = i;
                    }
                }
                start = end;
            }
        }
        for t in 0..t_count {
            let (lo, hi) = self.column(t);
            let (val, row) = (&mut self.val[lo..hi], &mut self.row[lo..hi]);
            // insertion sort by key, stable (rows stay ascending among equal values)
            for j in 1..val.len() {
                let (v, r, key) = (val[j], row[j], descending_key(val[j]));
                let mut k = j;
                while k > 0 && descending_key(val[k - 1]) > key {
                    val[k] = val[k - 1];
                    row[k] = row[k - 1];
                    k -= 1;
                }
                val[k] = v;
                row[k] = r;
            }
        }
    }

    /// Whether `sort_into_columns` builds the columns directly (`insert_into_columns`)
    /// rather than by its counting sort: on batches of at most [`DIRECT_ROWS`] rows
    /// (tests can force either way).
    fn direct_columns(&self) -> bool {
        #[cfg(test)]
        if let Some(direct) = self.force_direct {
            return direct;
        }
        self.n_rows <= DIRECT_ROWS
    }

    /// `sort_into_columns` for small batches: the same columns (sorted by value
    /// descending, then row ascending), `kept_q`, without the buckets. One pass counts
    /// each node's candidates (`kept` is in the order of q, so a row's places follow
    /// each other and the node is the place less the row's first), a second takes them
    /// in that order, rows ascending, each inserted into its node's column by an
    /// insertion step (moving the smaller values of the column one slot down; equal
    /// values stay in row order). A column of more than [`DIRECT_COLUMN`] candidates is
    /// filled in row order and sorted by comparison instead, so a column costs
    /// `O(len^2)` only while it is short and `O(len log len)` otherwise.
    ///
    /// The counting sort spends about two buckets per candidate (a histogram over
    /// `n T` buckets' worth of its candidates, cleared, counted, summed and scanned
    /// twice), about 175 instructions per candidate on 64 x 127 normal scores; the
    /// insertion costs a few per candidate plus a quarter of the column's length in
    /// moves, less as long as columns are short, which they are on small batches (a
    /// column holds at most `n` candidates).
    fn insert_into_columns(&mut self, q: &[f64]) {
        let t_count = self.n_nodes;
        self.kept_q.clear();
        self.kept_q.extend(self.kept.iter().map(|&e| q[e as usize]));
        resize(&mut self.col_len, t_count, 0);
        let mut first = 0usize;
        for &e in &self.kept {
            let e = e as usize;
            while e >= first + t_count {
                first += t_count;
            }
            self.col_len[e - first] += 1;
        }
        resize(&mut self.col_start, t_count + 1, 0);
        let mut slots = 0;
        for t in 0..t_count {
            self.col_start[t] = slots;
            slots += self.col_len[t] as usize + 1;
        }
        self.col_start[t_count] = slots;
        ensure_len(&mut self.val, slots, 0.0);
        ensure_len(&mut self.row, slots, 0);
        ensure_len(&mut self.pre, slots, 0.0);
        // per node, the candidates taken so far
        resize(&mut self.hist, t_count, 0);
        let (val, row, fill) = (&mut self.val[..], &mut self.row[..], &mut self.hist[..]);
        let (col_start, col_len) = (&self.col_start[..], &self.col_len[..]);
        let (mut first, mut i) = (0usize, 0u32);
        for (&e, &x) in self.kept.iter().zip(&self.kept_q) {
            let e = e as usize;
            while e >= first + t_count {
                first += t_count;
                i += 1;
            }
            let t = e - first;
            let lo = col_start[t];
            let mut k = lo + fill[t] as usize;
            fill[t] += 1;
            // (v is never -0.0, the sum of x and 0.5, so on candidates the order of
            // values is that of their keys)
            let v = x + 0.5;
            assert!(k < val.len() && k < row.len());
            if col_len[t] as usize <= DIRECT_COLUMN {
                // SAFETY: lo <= k - 1 < k, and k is in bounds of both (asserted above).
                unsafe {
                    while k > lo && *val.get_unchecked(k - 1) < v {
                        *val.get_unchecked_mut(k) = *val.get_unchecked(k - 1);
                        *row.get_unchecked_mut(k) = *row.get_unchecked(k - 1);
                        k -= 1;
                    }
                }
            }
            val[k] = v;
            row[k] = i;
        }
        for t in 0..t_count {
            if self.col_len[t] as usize > DIRECT_COLUMN {
                let (lo, hi) = self.column(t);
                self.sorted.clear();
                let entries = self.val[lo..hi].iter().zip(&self.row[lo..hi]);
                self.sorted.extend(entries.map(|(&v, &i)| (descending_key(v), i)));
                self.sorted.sort_unstable();
                for (e, &(key, i)) in (lo..hi).zip(&self.sorted) {
                    self.val[e] = value_of_key(key);
                    self.row[e] = i;
                }
            }
        }
    }

    /// Element range of node `t`'s sorted column (without the spare slot).
    #[inline]
    fn column(&self, t: usize) -> (usize, usize) {
        let lo = self.col_start[t];
        (lo, lo + self.col_len[t] as usize)
    }

    /// Pools the nodes into groups: bottom up ([`TreePav::pool_bottom_up`]) on batches
    /// of at most [`BOTTOM_UP_ROWS`] rows with `lam > 0` while its merges stay within
    /// their budget,
    /// else (and on every batch when [`Pooling::Violators`] is set) by the violator heap
    /// of Algorithm 1 ([`TreePav::pool_violators`]). Both find the unique solution; the
    /// groups agree except where adjacent groups tie exactly.
    fn pool(&mut self) {
        let bottom_up = self.lam > 0.0
            && match self.pooling {
                Pooling::Auto => self.n_rows <= BOTTOM_UP_ROWS,
                Pooling::BottomUp => true,
                Pooling::Violators => false,
            };
        let unsolved = if bottom_up {
            self.pool_bottom_up()
        } else {
            self.reset_groups();
            Some(self.n_nodes)
        };
        if let Some(unsolved) = unsolved {
            self.pool_violators(unsolved);
        }
        self.finish_groups();
    }

    /// Empties the per-node and per-group state of the pooling and the run arena.
    fn reset_groups(&mut self) {
        let t_count = self.n_nodes;
        let slots = self.col_start[t_count];
        resize(&mut self.count, t_count, 0);
        resize(&mut self.uf, t_count, 0);
        resize(&mut self.next, t_count, NIL);
        resize(&mut self.tail, t_count, 0);
        resize(&mut self.size, t_count, 1);
        resize(&mut self.support, t_count, 0);
        resize(&mut self.value, t_count, 0.0);
        resize(&mut self.stamp, t_count, 0);
        resize(&mut self.in_treap, t_count, false);
        resize(&mut self.treap, t_count, NIL);
        resize(&mut self.boundary, t_count, NIL);
        resize(&mut self.run_head, t_count, NIL);
        resize(&mut self.run_next, t_count, NIL);
        resize(&mut self.run_len, t_count, 0);
        resize(&mut self.run_start, t_count, 0);
        resize(&mut self.run_in_arena, t_count, false);
        resize(&mut self.run_live, t_count, false);
        resize(&mut self.threshold, t_count, 0.0);
        resize(&mut self.spent, t_count, 0);
        // live runs hold at most `slots` slots and one merge needs at most `slots`: a
        // compaction leaves room for `slots` more writes
        // (only grown: a smaller batch after a larger one touches no memory here)
        // The arena grows as merges need it (see `merge_runs`), within the capacity
        // `reserve_all` reserved, so that memory no merge uses is never touched.
        self.run_cap = 3 * slots;
        self.run_bump = 0;
        self.live.clear();
        self.live.reserve(t_count);
        self.stack.clear();
        self.stack.reserve(self.n_rows + 1);
        self.heap.clear();
        // Stale entries are dropped when the heap fills up (see `push`), so at most one
        // entry per group is ever kept over a compaction: `HEAP_SLACK T` slots suffice.
        self.heap.reserve(HEAP_SLACK * t_count + 8);
    }

    /// Algorithm 1: solve every node alone, then pool the largest violator with its
    /// parent's group until no constraint `a_t <= a_parent(t)` is violated.
    ///
    /// Nodes `unsolved..T` may come already pooled, by a bottom-up pass that stopped
    /// (see [`TreePav::pool_bottom_up`]): each of their groups is then solved and has
    /// one run, and is contained in a group of the solution (bottom-up pooling only
    /// ever joins groups, and ends at the solution), so the problem with each such group
    /// contracted to one node has the same solution. That problem is again tree
    /// ordered (a group's parent is the group of its top's parent) with group
    /// objectives of the same form, and Algorithm 1 solves it from its single nodes:
    /// the nodes `0..unsolved` alone and the groups as they come. With `unsolved = T`
    /// (after `reset_groups`) this is Algorithm 1 from the start.
    fn pool_violators(&mut self, unsolved: usize) {
        let t_count = self.n_nodes;

        // Work account of the Newton searches, in probes (one step of a binary search in
        // a run): every pooling deposits `factor (n + 64) (log2(n T) + 1)`, and a search
        // that would overdraw it hands its group over to a treap for good.
        let n = self.n_rows as u64;
        let log_m = (64 - (n * t_count as u64).leading_zeros()) as u64;
        let factor = self.work_factor.unwrap_or(WORK_FACTOR);
        let deposit = factor * (n + MAX_RUNS as u64) * (log_m + 1);
        let mut credit = 0u64;

        for t in 0..unsolved {
            self.solve_alone(t);
        }
        for g in unsolved..t_count {
            // a bottom-up group's one run, as the run list of a group (the bottom-up
            // pass keeps the run, owned by the top, but not the list)
            if self.uf[g] as usize == g {
                self.run_head[g] = if self.run_len[g] > 0 { g as u32 } else { NIL };
                self.run_next[g] = NIL;
            }
        }
        for t in 1..t_count {
            if self.uf[t] as usize == t {
                let p = self.find(parent(t));
                if self.value[t] > self.value[p] {
                    self.push(t);
                }
            }
        }

        while let Some(entry) = self.pop() {
            let g = entry.group as usize;
            if self.uf[g] as usize != g || self.stamp[g] != entry.stamp {
                continue; // stale: pooled away or value changed since the push
            }
            let p = self.find(parent(g));
            if self.value[g] <= self.value[p] {
                continue; // no longer violating; re-pushed if its parent's value falls
            }
            credit += deposit;
            // Every member's column becomes a run the first time its group pools (p's
            // other members and the members of a pooled g already are).
            for h in [p, g] {
                if self.size[h] == 1 {
                    self.column_run(h);
                }
            }
            let list = !self.in_treap[p] && !self.in_treap[g];
            if !list {
                // Both groups to treaps (if not yet), then one union.
                self.move_to_treap(p);
                self.move_to_treap(g);
                let root = self.union(self.treap[p], self.treap[g]);
                self.treap[p] = root;
                self.treap[g] = NIL;
            }
            self.join_members(p, g);
            let start = self.value[p];
            let solved = if list {
                let cost = self.combine_runs(p, g);
                self.solve_group(p, start, cost, &mut credit)
            } else {
                None
            };
            let (k, new_value) = match solved {
                Some(found) => found,
                None => {
                    // The list search ran out of budget: the whole group goes to a treap.
                    self.move_to_treap(p);
                    let c = self.lam * self.size[p] as f64;
                    let (k, s, b) = self.descend(self.treap[p], c);
                    self.boundary[p] = b;
                    (k, self.group_value(s, k, self.size[p]))
                }
            };
            self.support[p] = k;
            self.value[p] = new_value;
            self.stamp[p] = self.stamp[p].wrapping_add(1);
            if p != 0 {
                let pp = self.find(parent(p));
                if new_value > self.value[pp] {
                    self.push(p);
                }
            }
            // Groups hanging below the absorbed part saw their parent's value fall.
            let mut u = g as u32;
            while u != NIL {
                let uu = u as usize;
                for child in [2 * uu + 1, 2 * uu + 2] {
                    if child < t_count && self.uf[child] as usize == child && self.value[child] > new_value {
                        self.push(child);
                    }
                }
                u = self.next[uu];
            }
        }

    }

    /// Final groups: compresses the union-find and sets each node's part of its group's
    /// support (`count`).
    fn finish_groups(&mut self) {
        let t_count = self.n_nodes;
        // A node of a column-list group already
        // holds its part of the support in `count` (from its own walk if it was never
        // pooled, else from the last evaluation of its group); a node of a treap group
        // finds it from the group's boundary element, by binary search in its column.
        for t in 0..t_count {
            let g = self.find(t);
            self.uf[t] = g as u32;
        }
        for t in 0..t_count {
            let g = self.uf[t] as usize;
            let (lo, hi) = self.column(t);
            if !self.in_treap[g] {
                if self.size[g] > 1 {
                    let a = self.threshold[g];
                    self.count[t] = self.val[lo..hi].partition_point(|&v| v >= a) as u32;
                }
                continue;
            }
            let b = self.boundary[g];
            self.count[t] = if b == NIL {
                (hi - lo) as u32
            } else {
                let bv = self.nodes[b as usize].val;
                let col = &self.val[lo..hi];
                // the elements before b in (value desc, slot asc) order form a prefix
                let mut k = col.partition_point(|&v| v > bv);
                while k < col.len() && col[k] == bv && ((lo + k) as u32) < b {
                    k += 1;
                }
                k as u32
            };
        }
    }

    /// Pools bottom up: nodes are taken from the last to the root, and node `t` (whose
    /// subtrees are solved by then) pools into its group, largest value first, the
    /// groups hanging below it whose value exceeds its group's, with those hanging
    /// below each pooled group, until none does. The groups hanging below a group are a
    /// leftist max-heap on (value, smaller top first), melded when groups pool, and a
    /// pooled group's values are one sorted run (its parts merged), on which `k*` is one
    /// binary search (`a(k) > v_(k+1)` holds exactly from `k*` on). This is the solution
    /// of Algorithm 1 (each subtree's problem is solved before its root's), without a
    /// violator heap or Newton steps, and on small batches it is several times cheaper.
    ///
    /// A merge copies both runs, so a chain of poolings can copy `O(m T)` values; the
    /// merges draw on a budget of [`MERGE_COPIES`] copies per column slot. When one
    /// would overdraw it, at node `t`, the pass stops and returns `Some(t)`: nodes
    /// `0..t` are not solved yet, the others are in solved groups (`t`'s possibly not
    /// done pooling), from which the violator heap continues
    /// ([`TreePav::pool_violators`]). `None` when every node is pooled.
    fn pool_bottom_up(&mut self) -> Option<usize> {
        self.reset_groups();
        let t_count = self.n_nodes;
        let slots = self.col_start[t_count] as u64;
        resize(&mut self.below, t_count, NIL);
        resize(&mut self.heap_left, t_count, NIL);
        resize(&mut self.heap_right, t_count, NIL);
        resize(&mut self.heap_rank, t_count, 0);
        let mut budget = self.merge_copies.unwrap_or(MERGE_COPIES) * (slots + t_count as u64);
        let c1 = self.lam;
        for t in (0..t_count).rev() {
            self.solve_alone(t);
            self.column_run(t);
            let mut below = NIL;
            for child in [2 * t + 1, 2 * t + 2] {
                if child < t_count {
                    below = self.meld(below, child as u32);
                }
            }
            while below != NIL && self.value[below as usize] > self.value[t] {
                let h = below as usize;
                below = self.meld(self.heap_left[h], self.heap_right[h]);
                below = self.meld(below, self.below[h]);
                let (lt, lh) = (self.run_len[t] as u64, self.run_len[h] as u64);
                if lt > 0 && lh > 0 {
                    if budget < lt + lh {
                        // (h stays a group of its own, hanging below t's)
                        return Some(t);
                    }
                    budget -= lt + lh;
                    self.merge_runs(t, h);
                } else if lh > 0 {
                    // t's run is empty: h's run becomes t's
                    self.run_start[t] = self.run_start[h];
                    self.run_len[t] = self.run_len[h];
                    self.run_in_arena[t] = self.run_in_arena[h];
                    self.run_live[t] = true;
                    self.run_live[h] = false;
                }
                self.join_members(t, h);
                let (k, s) = self.run_support(t, c1 * self.size[t] as f64);
                self.support[t] = k;
                self.value[t] = self.group_value(s, k, self.size[t]);
            }
            self.below[t] = below;
        }
        None
    }

    /// `k*` and the sum of the support of the pooled group `g`, whose values are the
    /// one sorted run owned by `g` (`c = lam |G|`), and the threshold that defines the
    /// support (its smallest value) in `threshold`. `a(k) > v_(k+1)` is false below `k*`
    /// and true from `k*` on (`a(k)` then averages `a(k*)` with values in
    /// `[v_(k+1), a(k*))`), so `k*` is a binary search.
    fn run_support(&mut self, g: usize, c: f64) -> (u64, f64) {
        let (lo, len) = (self.run_start[g], self.run_len[g] as usize);
        let (vals, pre) = if self.run_in_arena[g] {
            (&self.run_val[lo..lo + len + 1], &self.run_pre[lo..lo + len + 1])
        } else {
            (&self.val[lo..lo + len + 1], &self.pre[lo..lo + len + 1])
        };
        // (NaN for lam == 0 and k == 0 compares false, as in `walk_column`)
        let (mut k, mut above) = (0, len);
        while k < above {
            let mid = (k + above) / 2;
            if pre[mid] / (c + mid as f64) > vals[mid] {
                above = mid;
            } else {
                k = mid + 1;
            }
        }
        self.threshold[g] = if k > 0 { vals[k - 1] } else { f64::INFINITY };
        (k as u64, pre[k])
    }

    /// Whether the group of top `x` is taken before that of top `y` from a heap of
    /// groups hanging below: larger value first, then the smaller top (the order of the
    /// violator heap).
    #[inline]
    fn hangs_above(&self, x: u32, y: u32) -> bool {
        let (vx, vy) = (self.value[x as usize], self.value[y as usize]);
        vx > vy || (vx == vy && x < y)
    }

    /// Melds the leftist heaps of hanging groups rooted at `x` and `y` (`NIL`: empty);
    /// returns the new root. Recursion along right spines, `O(log T)` deep.
    fn meld(&mut self, x: u32, y: u32) -> u32 {
        if x == NIL {
            return y;
        }
        if y == NIL {
            return x;
        }
        let (x, y) = if self.hangs_above(x, y) { (x, y) } else { (y, x) };
        let xi = x as usize;
        let right = self.meld(self.heap_right[xi], y);
        let left = self.heap_left[xi];
        let rank = |h: &Self, u: u32| if u == NIL { 0 } else { h.heap_rank[u as usize] + 1 };
        if rank(self, left) < rank(self, right) {
            self.heap_left[xi] = right;
            self.heap_right[xi] = left;
        } else {
            self.heap_right[xi] = right;
        }
        self.heap_rank[xi] = rank(self, self.heap_right[xi]);
        x
    }

    /// Makes node `t` a group of its own, solved by Proposition 2 on its column.
    fn solve_alone(&mut self, t: usize) {
        self.uf[t] = t as u32;
        self.tail[t] = t as u32;
        let (k, s) = self.walk_column(t);
        self.support[t] = k;
        self.value[t] = self.group_value(s, k, 1);
        self.count[t] = k as u32;
    }

    /// Pools group `g` into group `p`: `g`'s member list goes after `p`'s, and its top
    /// and size to `p`.
    fn join_members(&mut self, p: usize, g: usize) {
        let tail_p = self.tail[p] as usize;
        self.next[tail_p] = g as u32;
        self.tail[p] = self.tail[g];
        self.uf[g] = p as u32;
        self.size[p] += self.size[g];
    }

    fn group_value(&self, s: f64, k: u64, size: u32) -> f64 {
        let d = self.lam * size as f64 + k as f64;
        if d > 0.0 {
            s / d
        } else {
            0.0
        }
    }

    /// Proposition 2 on one sorted column: the smallest `k` with `a(k) > v_(k+1)`.
    /// Returns `(k*, sum of the support)`.
    fn walk_column(&self, t: usize) -> (u64, f64) {
        let c = self.lam;
        let (lo, hi) = self.column(t);
        let mut s = 0.0;
        for e in lo..hi {
            let k = (e - lo) as f64;
            // NaN (lam == 0, k == 0) compares false: the largest value is always taken.
            if s / (c + k) > self.val[e] {
                return ((e - lo) as u64, s);
            }
            s += self.val[e];
        }
        ((hi - lo) as u64, s)
    }

    /// Count and sum of the values `>= a` of the column-list group whose top node is `top`
    /// (one binary search per run).
    fn evaluate(&self, top: usize, a: f64) -> (u64, f64) {
        let (mut k_total, mut s) = (0u64, 0.0f64);
        let mut u = self.run_head[top];
        while u != NIL {
            let r = u as usize;
            let (vals, pre) = if self.run_in_arena[r] {
                (&self.run_val, &self.run_pre)
            } else {
                (&self.val, &self.pre)
            };
            let lo = self.run_start[r];
            let k = vals[lo..lo + self.run_len[r] as usize].partition_point(|&v| v >= a);
            k_total += k as u64;
            s += pre[lo + k];
            u = self.run_next[r];
        }
        (k_total, s)
    }

    /// Proposition 2 for a pooled column-list group, from its runs: returns `k*` and
    /// `a(k*)` and keeps the threshold that defines `S(k*)` in `threshold`; `None`, with
    /// nothing decided, when the work account cannot pay for the next evaluation (`cost`
    /// probes each).
    ///
    /// With `c = lam |G|`, `a*` is the root of the increasing concave piecewise-linear
    /// `f(a) = c a - sum_j (v_j - a)_+`, and `S(k*) = {v_j >= a*}`. Newton's step on `f`
    /// from `a` is `a' = sum_{v >= a} v / (c + #{v >= a})`, the value of the candidate
    /// support `{v >= a}`. Started at a lower bound of `a*` (`start`: the absorbing
    /// group's value, as the pooled value lies between the two groups' values), the
    /// iterates increase towards `a*` (Newton from the left on a concave function; and
    /// any candidate's value is at most `a*`, as `a(k)` peaks at `k*`) and the candidate
    /// supports shrink; the search stops when the support no longer changes, which is
    /// exactly the fixed point `S = {v >= a(|S|)}` that characterises `k*` (the smallest
    /// `k` with `a(k) > v_(k+1)`).
    fn solve_group(&mut self, top: usize, start: f64, (cost, saving): (u64, u64), credit: &mut u64) -> Option<(u64, f64)> {
        let c = self.lam * self.size[top] as f64;
        if *credit < cost {
            return None;
        }
        *credit -= cost;
        self.spent[top] += saving;
        if c == 0.0 {
            // lam == 0: a* is the largest value and S(k*) its ties (every column keeps at
            // least its largest value, so no group is empty).
            let mut largest = f64::NEG_INFINITY;
            let mut u = self.run_head[top];
            while u != NIL {
                let r = u as usize;
                let first = if self.run_in_arena[r] { self.run_val[self.run_start[r]] } else { self.val[self.run_start[r]] };
                largest = largest.max(first);
                u = self.run_next[r];
            }
            let (k, s) = self.evaluate(top, largest);
            self.threshold[top] = largest;
            return Some((k, if k > 0 { s / k as f64 } else { 0.0 }));
        }
        let (mut k, mut s) = self.evaluate(top, start);
        let mut a = start;
        loop {
            if *credit < cost {
                return None;
            }
            *credit -= cost;
            self.spent[top] += saving;
            // In exact arithmetic `step >= a`; keeping the iterates non-decreasing makes
            // the supports nested and the loop finite under rounding.
            let step = (s / (c + k as f64)).max(a);
            let (k_next, s_next) = self.evaluate(top, step);
            if k_next == k {
                // same count of nested sets: same support, fixed point reached
                self.threshold[top] = step;
                return Some((k, s / (c + k as f64)));
            }
            a = step;
            k = k_next;
            s = s_next;
        }
    }

    // ------------------------------------------------------------------ runs

    /// Makes node `u`'s completed column its group's only run (none if it is empty).
    fn column_run(&mut self, u: usize) {
        let len = self.col_len[u];
        self.run_head[u] = if len > 0 { u as u32 } else { NIL };
        self.run_next[u] = NIL;
        self.run_len[u] = len;
        self.run_start[u] = self.col_start[u];
        self.run_in_arena[u] = false;
        self.run_live[u] = len > 0;
    }

    /// Puts the runs of group `g` into the list of group `p` (longest first), then merges
    /// adjacent runs whose lengths are within a factor 2, smallest first, while the group
    /// has more than [`MAX_UNMERGED_RUNS`] runs, or more than [`MIN_MERGED_RUNS`] and its
    /// searches so far would pay for the copies (`spent`). A merged run is at least 3/2 as
    /// long as either part, so an element is merged `O(log m)` times in all. Returns the
    /// cost of one evaluation of the group and the probes of one run's search, both in
    /// probes.
    fn combine_runs(&mut self, p: usize, g: usize) -> (u64, u64) {
        // A group keeps at most max(MAX_UNMERGED_RUNS, 33) runs (lengths below 2^32, each
        // more than twice the next once merging stops), two groups twice that.
        let mut runs = [(0u32, 0u32); 2 * MAX_RUNS];
        let mut len = 0;
        let (mut x, mut y) = (self.run_head[p], self.run_head[g]);
        while x != NIL || y != NIL {
            let take_x = y == NIL || (x != NIL && self.run_len[x as usize] >= self.run_len[y as usize]);
            let u = if take_x { x } else { y };
            runs[len] = (self.run_len[u as usize], u);
            len += 1;
            if take_x {
                x = self.run_next[x as usize];
            } else {
                y = self.run_next[y as usize];
            }
        }
        // Ski rental: merging two runs costs their length in copies and saves one run's
        // search per later evaluation; past evaluations predict the later ones.
        let spent = self.spent[p];
        'merge: while len > MIN_MERGED_RUNS {
            for i in (0..len - 1).rev() {
                if runs[i].0 as u64 <= 2 * runs[i + 1].0 as u64 {
                    let copies = (runs[i].0 + runs[i + 1].0) as u64;
                    if len <= MAX_UNMERGED_RUNS && spent * COPIES_PER_PROBE < copies {
                        break 'merge;
                    }
                    let owner = self.merge_runs(runs[i].1 as usize, runs[i + 1].1 as usize);
                    runs[i] = (self.run_len[owner], owner as u32);
                    runs.copy_within(i + 2..len, i + 1);
                    len -= 1;
                    let mut j = i;
                    while j > 0 && runs[j - 1].0 < runs[j].0 {
                        runs.swap(j - 1, j);
                        j -= 1;
                    }
                    continue 'merge;
                }
            }
            break;
        }
        let mut cost = 0u64;
        let mut head = NIL;
        for &(l, u) in runs[..len].iter().rev() {
            self.run_next[u as usize] = head;
            head = u;
            cost += (32 - l.leading_zeros()) as u64 + 1;
        }
        self.run_head[p] = head;
        self.run_head[g] = NIL;
        // one run less saves about one binary search per later evaluation
        (cost, cost / len.max(1) as u64)
    }

    /// Merges runs `x` and `y` into a new arena run owned by `x`; returns `x`.
    fn merge_runs(&mut self, x: usize, y: usize) -> usize {
        let (lx, ly) = (self.run_len[x] as usize, self.run_len[y] as usize);
        let need = lx + ly + 1;
        if self.run_bump + need > self.run_cap {
            self.compact_runs();
        }
        let out = self.run_bump;
        self.run_bump += need;
        if self.run_val.len() < self.run_bump {
            self.run_val.resize(self.run_bump, 0.0);
            self.run_pre.resize(self.run_bump, 0.0);
        }
        {
            let (head, tail) = self.run_val.split_at_mut(out);
            let (xs, ys) = (self.run_start[x], self.run_start[y]);
            let xv: &[f64] = if self.run_in_arena[x] { &head[xs..xs + lx] } else { &self.val[xs..xs + lx] };
            let yv: &[f64] = if self.run_in_arena[y] { &head[ys..ys + ly] } else { &self.val[ys..ys + ly] };
            let dst = &mut tail[..lx + ly];
            let pre = &mut self.run_pre[out..out + need];
            // branch-free two-way merge (value descending) with the prefix sums
            let (mut i, mut j, mut o, mut s) = (0, 0, 0, 0.0);
            while i < lx && j < ly {
                let (a, b) = (xv[i], yv[j]);
                let take_x = a >= b;
                let v = if take_x { a } else { b };
                dst[o] = v;
                pre[o] = s;
                s += v;
                i += take_x as usize;
                j += (!take_x) as usize;
                o += 1;
            }
            for &v in xv[i..].iter().chain(&yv[j..]) {
                dst[o] = v;
                pre[o] = s;
                s += v;
                o += 1;
            }
            pre[o] = s;
        }
        self.run_start[x] = out;
        self.run_len[x] = (lx + ly) as u32;
        self.run_in_arena[x] = true;
        self.run_live[y] = false;
        x
    }

    /// Slides the live arena runs down to the start of the arena, in place.
    fn compact_runs(&mut self) {
        self.live.clear();
        for u in 0..self.n_nodes {
            if self.run_live[u] && self.run_in_arena[u] {
                self.live.push(u as u32);
            }
        }
        let starts = &self.run_start;
        self.live.sort_unstable_by_key(|&u| starts[u as usize]);
        let mut w = 0;
        for &u in &self.live {
            let u = u as usize;
            let (from, len) = (self.run_start[u], self.run_len[u] as usize + 1);
            self.run_val.copy_within(from..from + len, w);
            self.run_pre.copy_within(from..from + len, w);
            self.run_start[u] = w;
            w += len;
        }
        self.run_bump = w;
    }

    fn find(&mut self, t: usize) -> usize {
        let mut r = t;
        while self.uf[r] as usize != r {
            r = self.uf[r] as usize;
        }
        let mut x = t;
        while self.uf[x] as usize != r {
            let nx = self.uf[x] as usize;
            self.uf[x] = r as u32;
            x = nx;
        }
        r
    }

    // ------------------------------------------------------------------ violator heap

    fn push(&mut self, g: usize) {
        #[cfg(test)]
        if self.compact_always {
            self.compact_heap();
        }
        if self.heap.len() == self.heap.capacity() {
            self.compact_heap();
        }
        let entry = Entry {
            value: self.value[g],
            group: g as u32,
            stamp: self.stamp[g],
        };
        self.heap.push(entry);
        let mut i = self.heap.len() - 1;
        while i > 0 {
            let up = (i - 1) / 2;
            if self.heap[i].above(&self.heap[up]) {
                self.heap.swap(i, up);
                i = up;
            } else {
                break;
            }
        }
    }

    /// Drops the entries `pop` would skip as stale (group pooled away or re-stamped) and
    /// the duplicates of a group (equal entries, which pop one after the other and of
    /// which only the first can act), then restores the heap order. The order of the
    /// remaining entries' pops is unchanged: it is a total order on (value, group).
    fn compact_heap(&mut self) {
        let (uf, stamp) = (&self.uf, &self.stamp);
        self.heap
            .retain(|e| uf[e.group as usize] == e.group && stamp[e.group as usize] == e.stamp);
        self.heap.sort_unstable_by_key(|e| e.group);
        self.heap.dedup_by_key(|e| e.group);
        for i in (0..self.heap.len() / 2).rev() {
            self.sift_down(i);
        }
    }

    fn pop(&mut self) -> Option<Entry> {
        let last = self.heap.pop()?;
        if self.heap.is_empty() {
            return Some(last);
        }
        let top = std::mem::replace(&mut self.heap[0], last);
        self.sift_down(0);
        Some(top)
    }

    fn sift_down(&mut self, mut i: usize) {
        let len = self.heap.len();
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut best = i;
            if l < len && self.heap[l].above(&self.heap[best]) {
                best = l;
            }
            if r < len && self.heap[r].above(&self.heap[best]) {
                best = r;
            }
            if best == i {
                break;
            }
            self.heap.swap(i, best);
            i = best;
        }
    }

    // ------------------------------------------------------------------ treaps

    /// Strict order of elements: value descending, then slot ascending (within a column
    /// this is the column's order).
    #[inline]
    fn before(&self, x: u32, y: u32) -> bool {
        let (vx, vy) = (self.nodes[x as usize].val, self.nodes[y as usize].val);
        vx > vy || (vx == vy && x < y)
    }

    #[inline]
    fn higher_priority(&self, x: u32, y: u32) -> bool {
        let (px, py) = (self.nodes[x as usize].prio, self.nodes[y as usize].prio);
        px > py || (px == py && x > y)
    }

    #[inline]
    fn pull(&mut self, x: u32) {
        let node = self.nodes[x as usize];
        let mut c = 1u32;
        let mut s = node.val;
        if node.left != NIL {
            let l = &self.nodes[node.left as usize];
            c += l.cnt;
            s += l.sum;
        }
        if node.right != NIL {
            let r = &self.nodes[node.right as usize];
            c += r.cnt;
            s += r.sum;
        }
        let x = &mut self.nodes[x as usize];
        x.cnt = c;
        x.sum = s;
    }

    /// Treap of node `t`'s (completed) column: Cartesian tree by priority, linear time.
    fn column_treap(&mut self, t: usize) -> u32 {
        let (lo, hi) = self.column(t);
        self.stack.clear();
        for e in lo..hi {
            self.nodes[e] = TreapNode {
                val: self.val[e],
                sum: self.val[e],
                left: NIL,
                right: NIL,
                cnt: 1,
                prio: priority(e as u32),
            };
            let e = e as u32;
            let mut last = NIL;
            while let Some(&top) = self.stack.last() {
                if !self.higher_priority(e, top) {
                    break;
                }
                self.stack.pop();
                self.pull(top);
                last = top;
            }
            self.nodes[e as usize].left = last;
            if let Some(&top) = self.stack.last() {
                self.nodes[top as usize].right = e;
            }
            self.stack.push(e);
        }
        let mut root = NIL;
        while let Some(top) = self.stack.pop() {
            self.pull(top);
            root = top;
        }
        root
    }

    /// Moves a column-list group (top node `g`, columns completed) into one treap.
    fn move_to_treap(&mut self, g: usize) {
        if self.in_treap[g] {
            return;
        }
        self.in_treap[g] = true;
        // the treap arena (one record per column slot) is first touched here
        let slots = self.col_start[self.n_nodes];
        if self.nodes.len() < slots {
            self.nodes.resize(slots, TreapNode::default());
        }
        let mut r = self.run_head[g];
        while r != NIL {
            self.run_live[r as usize] = false;
            r = self.run_next[r as usize];
        }
        self.run_head[g] = NIL;
        let mut root = NIL;
        let mut u = g as u32;
        while u != NIL {
            let column = self.column_treap(u as usize);
            root = self.union(root, column);
            u = self.next[u as usize];
        }
        self.treap[g] = root;
    }

    /// Splits treap `t` into the elements before `key` and those after it.
    fn split(&mut self, t: u32, key: u32) -> (u32, u32) {
        if t == NIL {
            return (NIL, NIL);
        }
        let ti = t as usize;
        if self.before(t, key) {
            let (l, r) = self.split(self.nodes[ti].right, key);
            self.nodes[ti].right = l;
            self.pull(t);
            (t, r)
        } else {
            let (l, r) = self.split(self.nodes[ti].left, key);
            self.nodes[ti].left = r;
            self.pull(t);
            (l, t)
        }
    }

    /// Union of two treaps over disjoint element sets.
    fn union(&mut self, a: u32, b: u32) -> u32 {
        if a == NIL {
            return b;
        }
        if b == NIL {
            return a;
        }
        let (a, b) = if self.higher_priority(a, b) { (a, b) } else { (b, a) };
        let (bl, br) = self.split(b, a);
        let ai = a as usize;
        let l = self.union(self.nodes[ai].left, bl);
        let r = self.union(self.nodes[ai].right, br);
        self.nodes[ai].left = l;
        self.nodes[ai].right = r;
        self.pull(a);
        a
    }

    /// Proposition 2 on a group's treap: the same search as `walk_column` (the smallest
    /// `k` with `a(k) > v_(k+1)`, a monotone condition in `k`), by one descent. Returns
    /// `(k*, sum of the support, first element outside the support or NIL)`.
    fn descend(&self, root: u32, c: f64) -> (u64, f64, u32) {
        let (mut k0, mut s0, mut x, mut bnd) = (0u64, 0.0f64, root, NIL);
        while x != NIL {
            let node = self.nodes[x as usize];
            let l = node.left;
            let (cl, sl) = if l == NIL {
                (0, 0.0)
            } else {
                (self.nodes[l as usize].cnt as u64, self.nodes[l as usize].sum)
            };
            let (kk, ss) = (k0 + cl, s0 + sl);
            // NaN (lam == 0, kk == 0) compares false: the largest value is always taken.
            if ss / (c + kk as f64) > node.val {
                bnd = x;
                x = l;
            } else {
                k0 = kk + 1;
                s0 = ss + node.val;
                x = node.right;
            }
        }
        (k0, s0, bnd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heap_compaction_changes_nothing() {
        // Deep trees with small batches pool heavily and push many stale entries; a heap
        // compacted before every push must give bit-identical results.
        let mut state = 99u64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        for (n, depth) in [(1, 6), (2, 8), (4, 9), (16, 5)] {
            let t = nodes_for_depth(depth).unwrap();
            for round in 0..6 {
                let q: Vec<f64> = (0..n * t)
                    .map(|k| {
                        let level = ((k % t + 1) as f64).log2().floor();
                        next() - 0.5 + 0.3 * level * (round % 2) as f64
                    })
                    .collect();
                let lam = [0.0, 0.1, 1.0][round % 3];
                let mut outs = Vec::new();
                for always in [false, true] {
                    let mut pav = TreePav::new();
                    pav.compact_always = always;
                    let (mut a, mut z) = (vec![0.0; t], vec![0.0; n * t]);
                    pav.forward(&q, n, t, lam, &mut a, &mut z).unwrap();
                    assert!(pav.heap.capacity() <= HEAP_SLACK * t + 8 + 64);
                    outs.push((a, z));
                }
                assert_eq!(outs[0], outs[1], "n {n} depth {depth} round {round}");
            }
        }
    }

    #[test]
    fn too_large_a_shape_is_an_error() {
        // depth 24 with 2^40 rows: far beyond any machine, refused before allocating
        let (n, t) = (1usize << 40, nodes_for_depth(MAX_DEPTH).unwrap());
        assert!(TreePav::bytes_needed(n, t).is_none_or(|b| b > 1 << 50));
        let q = [0.0];
        let mut pav = TreePav::new();
        assert!(pav.reserve_all(n, t, usize::MAX).is_err());
        assert!(pav.buffers_empty());
        let (mut a, mut z) = ([0.0], [0.0]);
        assert!(pav.forward(&q, 1, 1, 1.0, &mut a, &mut z).is_ok());
        let e = PavError::OutOfMemory { bytes: 15_800_000_000, n_rows: 1, n_nodes: t };
        assert!(e.to_string().contains("about 15.8 GB"), "{e}");
    }

    impl TreePav {
        fn buffers_empty(&self) -> bool {
            self.kept.capacity() == 0 && self.heap.capacity() == 0 && self.nodes.capacity() == 0
        }
    }

    #[test]
    fn candidate_buffers_are_sized_to_the_candidates() {
        // 512 x 127 scores of which few can enter a support (lam = 1): the buffers that
        // hold candidates have room for those (and half as many again), not for n T
        let (n, t) = (512, nodes_for_depth(6).unwrap());
        let mut state = 5u64;
        let q: Vec<f64> = (0..n * t)
            .map(|_| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.5
            })
            .collect();
        let mut pav = TreePav::new();
        let (mut a, mut z) = (vec![0.0; t], Vec::new());
        pav.forward(&q, n, t, 1.0, &mut a, &mut z).unwrap();
        let (n_kept, slots) = (pav.kept.len(), pav.col_start[t]);
        assert!(n_kept < n * t / 8, "{n_kept} candidates: too many to test");
        assert!(pav.kept_q.capacity() <= n_kept + n_kept / 2);
        assert!(pav.sorted.capacity() <= n_kept + n_kept / 2);
        for v in [&pav.val, &pav.pre] {
            assert!(v.capacity() <= slots + slots / 2);
        }
        assert!(pav.row.capacity() <= slots + slots / 2);
        assert!(pav.nodes.capacity() <= slots + slots / 2);
        assert!(pav.run_val.capacity() <= 3 * (slots + slots / 2));
        assert!(pav.hist.capacity() <= 3 * (t * buckets_per_node(n_kept, t) + 1) / 2);
        // and they grow when a problem has more candidates (every value at lam = 0)
        let equal = vec![0.25; n * t];
        pav.forward(&equal, n, t, 0.0, &mut a, &mut z).unwrap();
        assert_eq!(pav.kept.len(), n * t);
        assert!(pav.val.capacity() >= n * t + t);
    }

    #[test]
    fn uninit_output_gives_what_a_slice_gets() {
        // forward and backward into memory that holds no values yet write every value,
        // the same bits as into a zeroed slice (backward also adds in place through
        // `values`, which needs every row written first)
        let q = [0.5, 0.1, -0.3, 0.2, 0.4, -0.1, 0.9, 0.3, 0.2, 0.8, -0.6, 0.05];
        let (ga, gz) = ([0.3, -0.2, 0.7], [0.1, 0.2, -0.3, 0.4, -0.5, 0.6, 0.7, -0.8, 0.9, -0.2, 0.3, 0.5]);
        let mut pav = TreePav::new();
        let (mut a, mut z, mut gq) = ([0.0; 3], [0.0; 12], [0.0; 12]);
        pav.forward(&q, 4, 3, 0.1, &mut a, &mut z).unwrap();
        pav.backward(&q, &ga, &gz, &mut gq).unwrap();
        let (mut z_mem, mut gq_mem) = ([MaybeUninit::<f64>::uninit(); 12], [MaybeUninit::<f64>::uninit(); 12]);
        let mut z_out = UninitOutput::new(&mut z_mem);
        pav.forward(&q, 4, 3, 0.1, &mut a, &mut z_out).unwrap();
        assert!(z_out.is_filled());
        assert_eq!(z_out.values(), &z);
        let mut gq_out = UninitOutput::new(&mut gq_mem);
        pav.backward(&q, &ga, &gz, &mut gq_out).unwrap();
        assert_eq!(gq_out.values(), &gq);
        // a buffer of another size is refused before anything is written
        let mut short = [MaybeUninit::<f64>::uninit(); 11];
        let mut short_out = UninitOutput::new(&mut short);
        assert!(matches!(pav.forward(&q, 4, 3, 0.1, &mut a, &mut short_out), Err(PavError::Length { .. })));
        assert!(!short_out.is_filled());
    }

    #[test]
    #[should_panic(expected = "before every row was written")]
    fn uninit_output_values_before_every_row_panics() {
        let mut mem = [MaybeUninit::<f64>::uninit(); 6];
        let mut out = UninitOutput::new(&mut mem);
        out.begin("z", 2, 3).unwrap();
        out.put_row(0, [1.0, 2.0, 3.0].into_iter());
        out.values();
    }

    #[test]
    fn is_solved_for_names_exactly_the_last_problem() {
        let q = [0.5, 0.1, -0.3, 0.2, 0.4, -0.1];
        let mut pav = TreePav::new();
        let (mut a, mut z) = ([0.0; 3], [0.0; 6]);
        assert!(!pav.is_solved_for(&q, 2, 3, 1.0));
        pav.forward(&q, 2, 3, 1.0, &mut a, &mut z).unwrap();
        assert!(pav.is_solved_for(&q, 2, 3, 1.0));
        assert!(!pav.is_solved_for(&q, 2, 3, 0.5));
        assert!(!pav.is_solved_for(&q[..3], 1, 3, 1.0));
        let mut other = q;
        other[5] = -0.0999999;
        assert!(!pav.is_solved_for(&other, 2, 3, 1.0));
        // a failed forward pass leaves nothing to reuse
        assert!(pav.forward(&[f64::NAN; 6], 2, 3, 1.0, &mut a, &mut z).is_err());
        assert!(!pav.is_solved_for(&q, 2, 3, 1.0));
    }

    #[test]
    fn backward_at_is_backward_at_the_last_problem() {
        let q = [0.5, 0.1, -0.3, 0.2, 0.4, -0.1, 0.9, 0.3, 0.2, 0.8, -0.6, 0.05];
        let ga = [0.3, -0.2, 0.7];
        let gz = [0.1, 0.2, -0.3, 0.4, -0.5, 0.6, 0.7, -0.8, 0.9, -0.2, 0.3, 0.5];
        let mut pav = TreePav::new();
        let (mut a, mut z) = ([0.0; 3], [0.0; 12]);
        let mut gq: Vec<f64> = Vec::new();
        assert_eq!(pav.backward_at(&q, 4, 3, 0.1, &ga, &gz, &mut gq), Ok(false));
        pav.forward(&q, 4, 3, 0.1, &mut a, &mut z).unwrap();
        let mut expected = [0.0; 12];
        pav.backward(&q, &ga, &gz, &mut expected).unwrap();
        assert_eq!(pav.backward_at(&q, 4, 3, 0.1, &ga, &gz, &mut gq), Ok(true));
        assert_eq!(gq, expected);
        assert_eq!(pav.backward_at(&q, 4, 3, 0.2, &ga, &gz, &mut gq), Ok(false));
        assert_eq!(pav.backward_at(&q[..9], 3, 3, 0.1, &ga, &gz, &mut gq), Ok(false));
        // Any change of a value either makes another problem (Ok(false)) or leaves the
        // solution as it was, and then the gradient is the one at the new scores.
        let (mut refused, mut accepted) = (0, 0);
        for e in 0..12 {
            for change in [f64::from_bits(q[e].to_bits() ^ 1), q[e] - 0.3, q[e] + 0.3, -5.0, f64::NAN] {
                let mut other = q;
                other[e] = change;
                match pav.backward_at(&other, 4, 3, 0.1, &ga, &gz, &mut gq) {
                    Ok(false) => refused += 1,
                    Ok(true) => {
                        accepted += 1;
                        let (mut fresh, mut g) = (TreePav::new(), [0.0; 12]);
                        fresh.forward(&other, 4, 3, 0.1, &mut [0.0; 3], &mut [0.0; 12]).unwrap();
                        fresh.backward(&other, &ga, &gz, &mut g).unwrap();
                        assert!(gq.iter().zip(&g).all(|(x, y)| (x - y).abs() <= 1e-12), "{e} {change}");
                    }
                    Err(err) => panic!("{err}"),
                }
            }
        }
        assert!(refused > 0 && accepted > 0, "{refused} refused, {accepted} accepted");
        // -0.0 against 0.0 is another problem where 0.0 was a candidate (lam = 0 keeps all)
        let zero = [0.0, 0.5, 0.5];
        pav.forward(&zero, 1, 3, 0.0, &mut a, &mut z[..3]).unwrap();
        assert_eq!(pav.backward_at(&[-0.0, 0.5, 0.5], 1, 3, 0.0, &ga, &gz[..3], &mut gq), Ok(false));
        // the gradients are checked as by backward
        assert!(matches!(
            pav.backward_at(&zero, 1, 3, 0.0, &ga, &[f64::NAN; 3], &mut gq),
            Err(PavError::NonFinite { .. })
        ));
    }

    #[test]
    fn depth_and_node_counts() {
        assert_eq!(depth_for_nodes(1), Some(0));
        assert_eq!(depth_for_nodes(3), Some(1));
        assert_eq!(depth_for_nodes(127), Some(6));
        assert_eq!(depth_for_nodes(0), None);
        assert_eq!(depth_for_nodes(4), None);
        assert_eq!(nodes_for_depth(6), Some(127));
        assert_eq!(nodes_for_depth(MAX_DEPTH + 1), None);
    }

    #[test]
    fn descending_key_orders_values() {
        let vals = [-3.5, -0.0, 0.0, 1e-300, 0.25, 7.0, -1e300];
        for &x in &vals {
            assert_eq!(value_of_key(descending_key(x)).to_bits(), x.to_bits());
            for &y in &vals {
                if x > y {
                    assert!(descending_key(x) < descending_key(y), "{x} {y}");
                }
            }
        }
    }

    #[test]
    fn columns_hold_their_candidates_sorted() {
        // smooth, skewed (crowded buckets), clustered, tied, signed-zero and tiny inputs,
        // as the scores of 1, 3 and 7 nodes, at lam = 0 (every value a candidate) and 1
        let mut state = 7u64;
        let mut uniform = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut inputs: Vec<Vec<f64>> = vec![
            (0..504).map(|_| uniform() * 4.0 - 1.0).collect(),
            (0..504).map(|k| if k % 50 == 0 { 1e6 } else { uniform() * 1e-3 }).collect(),
            (0..294).map(|_| (uniform() * 3.0).floor() + uniform() * 1e-12).collect(),
            (0..210).map(|_| ((uniform() * 5.0).floor() - 2.0) * 0.25).collect(),
            vec![0.0, -0.0, 0.0, 1.0, -0.0, -1.0, 0.0, 0.0, -0.0, 2.0, 0.0, 0.0, -0.0, 0.0, 5.0, 0.0, 0.0, -0.0, 0.0, -0.0, 0.0],
            vec![3.0; 42],
            vec![1.5, 0.5, 2.5],
        ];
        inputs.push((0..1008).map(|_| (uniform() - 0.5).powi(9)).collect());
        inputs.push((0..70_000).map(|_| uniform()).collect());
        let mut pav = TreePav::new();
        for values in &inputs {
            for t_count in [1, 3, 7].into_iter().filter(|&t| t <= values.len()) {
                let n = values.len() / t_count;
                let q: Vec<f64> = values[..n * t_count].iter().map(|v| v - 0.5).collect();
                for lam in [0.0, 1.0] {
                    let (mut a, mut z) = (vec![0.0; t_count], Vec::new());
                    pav.forward(&q, n, t_count, lam, &mut a, &mut z).unwrap();
                    for t in 0..t_count {
                        let (lo, hi) = pav.column(t);
                        let got: Vec<(u64, u32)> =
                            (lo..hi).map(|e| (descending_key(pav.val[e]), pav.row[e])).collect();
                        let mut expected: Vec<(u64, u32)> = (0..n)
                            .filter(|&i| is_candidate(q[i * t_count + t], pav.kept_at))
                            .map(|i| (descending_key(q[i * t_count + t] + 0.5), i as u32))
                            .collect();
                        expected.sort_unstable();
                        assert_eq!(got, expected, "node {t} of {t_count}, lam {lam}");
                    }
                }
            }
        }
    }

    #[test]
    fn single_node_matches_proposition_2() {
        // one node, values v = q + 1/2 = [1.0, 0.6, 0.2]; lam = 1
        // k=1: a = 1/2 = 0.5 <= 0.6 -> k=2: a = 1.6/3 = 0.533 > 0.2 -> k* = 2
        let q = [0.5, 0.1, -0.3];
        let mut pav = TreePav::new();
        let (mut a, mut z) = ([0.0], [0.0; 3]);
        pav.forward(&q, 3, 1, 1.0, &mut a, &mut z).unwrap();
        assert!((a[0] - 1.6 / 3.0).abs() < 1e-15);
        assert_eq!(z, [a[0], a[0], -0.3 + 0.5]);
        let info = pav.node_info(0).unwrap();
        assert_eq!(info.support_rows, &[0, 1]);
        assert!((info.denominator - 3.0).abs() < 1e-15);
    }

    #[test]
    fn a_violation_is_pooled() {
        // root has no mass, its child has a lot: they must share one value.
        let q = [-0.4, 0.5, -2.0];
        let mut pav = TreePav::new();
        let (mut a, mut z) = ([0.0; 3], [0.0; 3]);
        pav.forward(&q, 1, 3, 0.5, &mut a, &mut z).unwrap();
        assert_eq!(a[0], a[1]);
        assert_eq!(a[2], 0.0);
        // group {0, 1}: values 0.1 and 1.0, lam |G| = 1: k=1: 1/2 > 0.1 -> a = 0.5
        assert!((a[0] - 0.5).abs() < 1e-15);
        assert_eq!(pav.n_groups(), 2);
    }

    #[test]
    fn bad_input_is_an_error() {
        let mut pav = TreePav::new();
        let (mut a, mut z) = ([0.0; 3], [0.0; 3]);
        assert_eq!(
            pav.forward(&[0.0; 2], 1, 2, 1.0, &mut a[..2], &mut z[..2]),
            Err(PavError::NotACompleteTree { n_nodes: 2 })
        );
        assert_eq!(
            pav.forward(&[], 0, 3, 1.0, &mut a, &mut z[..0]),
            Err(PavError::EmptyBatch)
        );
        assert!(matches!(
            pav.forward(&[0.0, f64::NAN, 0.0], 1, 3, 1.0, &mut a, &mut z),
            Err(PavError::NonFinite { row: 0, node: 1, .. })
        ));
        assert!(matches!(
            pav.forward(&[0.0; 3], 1, 3, -1.0, &mut a, &mut z),
            Err(PavError::BadLambda { .. })
        ));
        assert!(matches!(
            pav.forward(&[0.0; 3], 1, 3, f64::NAN, &mut a, &mut z),
            Err(PavError::BadLambda { .. })
        ));
        assert!(matches!(
            pav.forward(&[0.0; 4], 1, 3, 1.0, &mut a, &mut z),
            Err(PavError::Length { what: "q", .. })
        ));
        let (mut g, q) = ([0.0; 3], [0.0; 3]);
        assert_eq!(pav.backward(&q, &[0.0; 3], &[0.0; 3], &mut g), Err(PavError::NotSolved));
        pav.forward(&q, 1, 3, 1.0, &mut a, &mut z).unwrap();
        assert!(matches!(
            pav.backward(&q, &[0.0; 2], &[0.0; 3], &mut g),
            Err(PavError::Length { what: "grad_a", .. })
        ));
        assert!(matches!(
            pav.backward(&q, &[0.0; 3], &[f64::INFINITY, 0.0, 0.0], &mut g),
            Err(PavError::NonFinite { .. })
        ));
        // scores of another problem
        assert_eq!(pav.backward(&[0.9, 0.0, 0.0], &[0.0; 3], &[0.0; 3], &mut g), Err(PavError::NotSolved));
        assert!(pav.forward(&q, 1, 3, 1.0, &mut a, &mut z).is_ok());
        assert!(pav.backward(&q, &[0.0; 3], &[0.0; 3], &mut g).is_ok());
    }

    #[test]
    fn values_that_are_not_finite_are_found_wherever_they_are() {
        let (mut pav, mut a) = (TreePav::new(), [0.0; 7]);
        let rows = 9;
        let q: Vec<f64> = (0..rows * 7).map(|k| ((k * 37) % 11) as f64 / 5.0 - 1.0).collect();
        let mut z = vec![0.0; q.len()];
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            for place in [0, 8, q.len() - 1] {
                let mut q = q.clone();
                q[place] = bad;
                let found = pav.forward(&q, rows, 7, 1.0, &mut a, &mut z[..]);
                assert_eq!(
                    found,
                    Err(PavError::NonFinite { what: "q", row: place / 7, node: place % 7 }),
                    "{bad} at {place}"
                );
            }
        }
        pav.forward(&q, rows, 7, 1.0, &mut a, &mut z[..]).unwrap();
        let mut g = vec![0.0; q.len()];
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            // in grad_z: an error; in q: scores of another problem
            let mut gz = vec![0.0; q.len()];
            gz[10] = bad;
            assert!(matches!(
                pav.backward(&q, &[0.0; 7], &gz, &mut g[..]),
                Err(PavError::NonFinite { what: "grad_z", row: 1, node: 3 })
            ));
            let mut other = q.clone();
            other[10] = bad;
            assert_eq!(pav.backward_at(&other, rows, 7, 1.0, &[0.0; 7], &[0.0; 63], &mut g[..]), Ok(false));
        }
        // finite gradients whose sums overflow are no error
        let gz = vec![f64::MAX; q.len()];
        assert_eq!(pav.backward_at(&q, rows, 7, 1.0, &[0.0; 7], &gz, &mut g[..]), Ok(true));
    }

    /// Everything the forward pass derives from its columns, and its outputs, as bits.
    fn column_state(pav: &TreePav, q: &[f64], n: usize, t: usize, lam: f64) -> Vec<u64> {
        let (mut a, mut z) = (vec![0.0; t], vec![0.0; n * t]);
        let mut pav = pav.clone();
        pav.forward(q, n, t, lam, &mut a, &mut z).unwrap();
        let slots = pav.col_start[t];
        let mut g = vec![0.0; n * t];
        let ga: Vec<f64> = (0..t).map(|k| (k % 3) as f64 - 1.0).collect();
        let gz: Vec<f64> = (0..n * t).map(|k| (k % 5) as f64 - 2.0).collect();
        pav.backward(q, &ga, &gz, &mut g[..]).unwrap();
        let mut out: Vec<u64> = pav.col_start.iter().map(|&x| x as u64).collect();
        out.extend(pav.col_len.iter().map(|&x| x as u64));
        out.extend(pav.val[..slots].iter().chain(&pav.pre[..slots]).map(|x| x.to_bits()));
        // (spare slots: the row of a value, or whatever the slot held)
        for tt in 0..t {
            let (lo, hi) = pav.column(tt);
            out.extend(pav.row[lo..hi].iter().map(|&r| r as u64));
        }
        out.extend(pav.kept_q.iter().chain(&a).chain(&z).chain(&g).map(|x| x.to_bits()));
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        /// Columns built by insertion (`insert_into_columns`) are those of the counting
        /// sort, bit for bit, with every output: on normal scores, on scores rounded to a
        /// few levels (ties within columns, sorted by row), and with lam = 0 (every
        /// value a candidate: columns longer than DIRECT_COLUMN, sorted by comparison).
        #[test]
        fn direct_columns_match_the_counting_sort(
            n in 1usize..200,
            depth in 0usize..7,
            levels in proptest::prelude::prop_oneof![proptest::prelude::Just(0u32), 1u32..6],
            lam in proptest::prelude::prop_oneof![
                proptest::prelude::Just(0.0), proptest::prelude::Just(0.1),
                proptest::prelude::Just(1.0), proptest::prelude::Just(30.0)
            ],
            seed in proptest::prelude::any::<u64>(),
        ) {
            let t = nodes_for_depth(depth).unwrap();
            let mut state = seed | 1;
            let q: Vec<f64> = (0..n * t)
                .map(|_| {
                    state ^= state >> 12;
                    state ^= state << 25;
                    state ^= state >> 27;
                    let u = (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64;
                    // a rough normal: a sum of uniforms
                    let x = (u - 0.5) * 3.0 + ((state >> 7) % 1000) as f64 / 1000.0 - 0.5;
                    if levels == 0 { x } else { (x * levels as f64).round() / levels as f64 }
                })
                .collect();
            let mut states = Vec::new();
            for direct in [true, false] {
                let mut pav = TreePav::new();
                pav.force_direct = Some(direct);
                states.push(column_state(&pav, &q, n, t, lam));
            }
            proptest::prop_assert!(states[0] == states[1], "n {} depth {} levels {} lam {}", n, depth, levels, lam);
        }
    }
}
