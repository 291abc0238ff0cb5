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
//! values of the group (Proposition 2). Values `v <= 0` can never be in a support when
//! `lam > 0` (the group value is `>= 0`), so only the values `v > 0` are kept. Each node's
//! values are sorted once, descending (`O(m log n)` for `m = n T` values). A group that is
//! never pooled finds `k*` by a walk down its sorted column. Pooled groups keep their
//! values in a treap ordered by value and augmented with subtree counts and sums: pooling
//! two groups is a treap union (`O(m log m)` in total over all unions), and `k*` is found
//! by one descent (`O(log m)`). Violations are taken largest first from a binary heap
//! (`O(T log T)` operations). Overall `O(m log m)` time and `O(m)` memory. All buffers
//! live in the [`TreePav`] value and are reused: after a first call of a given size,
//! `forward` and `backward` allocate nothing. There is no randomness (treap priorities
//! are a fixed hash of the element index) and no threading, so results are bit for bit
//! reproducible.
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
//! pav.backward(&[1.0, 0.0, 0.0], &[0.0; 6], &mut grad_q).unwrap();
//! ```

mod error;

pub use error::PavError;

/// Deepest tree the solver accepts (`2^(MAX_DEPTH+1) - 1` nodes).
pub const MAX_DEPTH: usize = 24;

const NIL: u32 = u32::MAX;

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

/// Solver state and reusable buffers for the forward and backward pass.
#[derive(Debug, Clone, Default)]
pub struct TreePav {
    n_rows: usize,
    n_nodes: usize,
    lam: f64,
    solved: bool,
    /// Copy of the last `q` (row-major), needed by the backward pass.
    q: Vec<f64>,
    /// Clipped node values of the last forward pass.
    a: Vec<f64>,

    // Sorted columns in CSR layout: node t owns elements col_start[t]..col_start[t+1]-1
    // (the last slot of each column is a spare used while bucketing),
    // sorted by value descending, then row ascending. Only values that can enter a
    // support are kept (v > 0 when lam > 0, every value when lam == 0).
    col_start: Vec<usize>,
    val: Vec<f64>,
    row: Vec<u32>,

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
    boundary: Vec<u32>,
    treap: Vec<u32>,
    built: Vec<bool>,
    stamp: Vec<u32>,

    /// Treap arena over the elements (one cache-friendly record per element).
    nodes: Vec<TreapNode>,

    heap: Vec<Entry>,
    stack: Vec<u32>,
    scratch: Vec<(u64, u32)>,
    grad_a_eff: Vec<f64>,
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

/// Fixed treap priority of an element (a 32-bit integer hash).
#[inline]
fn priority(e: u32) -> u32 {
    let mut x = e.wrapping_add(0x9e37_79b9);
    x = (x ^ (x >> 16)).wrapping_mul(0x21f0_aaad);
    x = (x ^ (x >> 15)).wrapping_mul(0x735a_2d97);
    x ^ (x >> 15)
}

#[inline]
fn parent(t: usize) -> usize {
    (t - 1) / 2
}

fn resize<T: Clone>(v: &mut Vec<T>, len: usize, fill: T) {
    v.clear();
    v.resize(len, fill);
}

impl TreePav {
    /// An empty solver; buffers grow on first use and are reused afterwards.
    pub fn new() -> Self {
        Self::default()
    }

    /// Solves problem (3) for the `n_rows x n_nodes` row-major scores `q` and writes the
    /// node values `a` (length `n_nodes`) and the relaxed traversals `z` (row-major,
    /// `n_rows x n_nodes`, `z_it = clip(q_it + 1/2, 0, a_t)`).
    ///
    /// # Errors
    ///
    /// [`PavError`] when `q` is empty, not finite, has a column count that is not a
    /// complete tree's node count, when `lam` is negative or not finite, or when an
    /// output slice has the wrong length. Nothing is panicked.
    pub fn forward(
        &mut self,
        q: &[f64],
        n_rows: usize,
        n_nodes: usize,
        lam: f64,
        a_out: &mut [f64],
        z_out: &mut [f64],
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
        if q.len() != m {
            return Err(PavError::Length {
                what: "q",
                expected: m,
                got: q.len(),
            });
        }
        if a_out.len() != n_nodes {
            return Err(PavError::Length {
                what: "a",
                expected: n_nodes,
                got: a_out.len(),
            });
        }
        if z_out.len() != m {
            return Err(PavError::Length {
                what: "z",
                expected: m,
                got: z_out.len(),
            });
        }
        if !(lam.is_finite() && lam >= 0.0) {
            return Err(PavError::BadLambda { lam });
        }
        if let Some(bad) = q.iter().position(|x| !x.is_finite()) {
            return Err(PavError::NonFinite {
                what: "q",
                row: bad / n_nodes,
                node: bad % n_nodes,
            });
        }

        self.n_rows = n_rows;
        self.n_nodes = n_nodes;
        self.lam = lam;
        self.q.clear();
        self.q.extend_from_slice(q);

        self.sort_columns();
        self.pool(depth);

        // Outputs: a = clip(group value, 0, 1), z = clip(q + 1/2, 0, a).
        resize(&mut self.a, n_nodes, 0.0);
        for t in 0..n_nodes {
            let g = self.uf[t] as usize;
            self.a[t] = self.value[g].clamp(0.0, 1.0);
        }
        a_out.copy_from_slice(&self.a);
        for (zrow, qrow) in z_out.chunks_exact_mut(n_nodes).zip(q.chunks_exact(n_nodes)) {
            for ((z, &qv), &a) in zrow.iter_mut().zip(qrow).zip(&self.a) {
                // clip(v, 0, a) for a >= 0, branch-free
                *z = (qv + 0.5).min(a).max(0.0);
            }
        }
        self.solved = true;
        Ok(())
    }

    /// Vector-Jacobian product of the last forward pass: given `dL/da` (length `n_nodes`)
    /// and `dL/dz` (row-major `n_rows x n_nodes`), writes `dL/dq` (same shape as `q`).
    ///
    /// `dz_it/dq_it = 1` when `0 < q_it + 1/2 < a_t`; `dz_it/da_t = 1` when
    /// `q_it + 1/2 >= a_t`; and `da_t/dq_jt' = 1 / (lam |G| + k*)` when `0 < a_t < 1`
    /// and `(j, t')` is in the support `S(k*)` of the group `G` of `t` (section 3.2).
    ///
    /// # Errors
    ///
    /// [`PavError::NotSolved`] before a successful forward pass; length or finiteness
    /// errors for the gradients.
    pub fn backward(&mut self, grad_a: &[f64], grad_z: &[f64], grad_q: &mut [f64]) -> Result<(), PavError> {
        if !self.solved {
            return Err(PavError::NotSolved);
        }
        let (n, t_count) = (self.n_rows, self.n_nodes);
        let m = n * t_count;
        if grad_a.len() != t_count {
            return Err(PavError::Length {
                what: "grad_a",
                expected: t_count,
                got: grad_a.len(),
            });
        }
        if grad_z.len() != m {
            return Err(PavError::Length {
                what: "grad_z",
                expected: m,
                got: grad_z.len(),
            });
        }
        if grad_q.len() != m {
            return Err(PavError::Length {
                what: "grad_q",
                expected: m,
                got: grad_q.len(),
            });
        }
        if let Some(bad) = grad_a.iter().position(|x| !x.is_finite()) {
            return Err(PavError::NonFinite {
                what: "grad_a",
                row: 0,
                node: bad,
            });
        }
        if let Some(bad) = grad_z.iter().position(|x| !x.is_finite()) {
            return Err(PavError::NonFinite {
                what: "grad_z",
                row: bad / t_count,
                node: bad % t_count,
            });
        }

        // z-branch: gradient to q where z = q + 1/2, to a where z = a.
        self.grad_a_eff.clear();
        self.grad_a_eff.extend_from_slice(grad_a);
        for ((gq_row, gz_row), q_row) in grad_q
            .chunks_exact_mut(t_count)
            .zip(grad_z.chunks_exact(t_count))
            .zip(self.q.chunks_exact(t_count))
        {
            for t in 0..t_count {
                let v = q_row[t] + 0.5;
                let a = self.a[t];
                let (to_a, to_q) = ((v >= a) as u8 as f64, (v > 0.0 && v < a) as u8 as f64);
                self.grad_a_eff[t] += to_a * gz_row[t];
                gq_row[t] = to_q * gz_row[t];
            }
        }

        // a-branch: every group with 0 < a < 1 spreads its gradient over its support.
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
        Ok(())
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

    fn denominator(&self, g: usize) -> f64 {
        self.lam * self.size[g] as f64 + self.support[g] as f64
    }

    // ------------------------------------------------------------------ forward parts

    /// Buckets the values that can enter a support by node and sorts every column.
    ///
    /// Branch-free bucketing: every value is written to its column's cursor and the
    /// cursor only advances when the value is kept; each column has one spare slot at its
    /// end that absorbs the writes of rejected values.
    fn sort_columns(&mut self) {
        let t_count = self.n_nodes;
        // lam == 0 keeps every value: v > -inf
        let floor = if self.lam == 0.0 { f64::NEG_INFINITY } else { 0.0 };
        resize(&mut self.count, t_count, 0);
        for q_row in self.q.chunks_exact(t_count) {
            for (c, &qv) in self.count.iter_mut().zip(q_row) {
                *c += (qv + 0.5 > floor) as u32;
            }
        }
        resize(&mut self.col_start, t_count + 1, 0);
        for t in 0..t_count {
            self.col_start[t + 1] = self.col_start[t] + self.count[t] as usize + 1;
        }
        let slots = self.col_start[t_count];
        resize(&mut self.scratch, slots, (0, 0));
        // cursor of each column, starting at its first slot
        for t in 0..t_count {
            self.count[t] = 0;
        }
        for (i, q_row) in self.q.chunks_exact(t_count).enumerate() {
            for (t, (c, &qv)) in self.count.iter_mut().zip(q_row).enumerate() {
                let v = qv + 0.5;
                // cursor <= len(t): at worst the write lands in the spare slot
                self.scratch[self.col_start[t] + *c as usize] = (descending_key(v), i as u32);
                *c += (v > floor) as u32;
            }
        }
        resize(&mut self.val, slots, 0.0);
        resize(&mut self.row, slots, 0);
        for t in 0..t_count {
            let (lo, hi) = self.column(t);
            let col = &mut self.scratch[lo..hi];
            col.sort_unstable();
            for (e, &(key, i)) in (lo..hi).zip(col.iter()) {
                self.val[e] = value_of_key(key);
                self.row[e] = i;
            }
        }
    }

    /// Element range of node `t`'s sorted column (without the spare slot).
    #[inline]
    fn column(&self, t: usize) -> (usize, usize) {
        (self.col_start[t], self.col_start[t + 1] - 1)
    }

    /// Algorithm 1: solve every node alone, then pool the largest violator with its
    /// parent's group until no constraint `a_t <= a_parent(t)` is violated.
    fn pool(&mut self, depth: usize) {
        let t_count = self.n_nodes;
        let total = self.val.len();
        resize(&mut self.uf, t_count, 0);
        resize(&mut self.next, t_count, NIL);
        resize(&mut self.tail, t_count, 0);
        resize(&mut self.size, t_count, 1);
        resize(&mut self.support, t_count, 0);
        resize(&mut self.value, t_count, 0.0);
        resize(&mut self.boundary, t_count, NIL);
        resize(&mut self.treap, t_count, NIL);
        resize(&mut self.built, t_count, false);
        resize(&mut self.stamp, t_count, 0);
        if self.nodes.len() < total {
            self.nodes.resize(total, TreapNode::default());
        }
        self.heap.clear();
        // Pushes: T initial, then per pooling one for the group and at most two per node
        // of the absorbed child group; a node is absorbed at most `depth` times.
        self.heap.reserve(t_count * (2 * depth + 3) + 8);

        for t in 0..t_count {
            self.uf[t] = t as u32;
            self.tail[t] = t as u32;
            let (k, s, b) = self.walk_column(t);
            self.support[t] = k;
            self.boundary[t] = b;
            self.value[t] = self.group_value(s, k, 1);
            self.count[t] = k as u32;
        }
        for t in 1..t_count {
            if self.value[t] > self.value[parent(t)] {
                self.push(t);
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
            self.ensure_treap(g);
            self.ensure_treap(p);
            let root = self.union(self.treap[p], self.treap[g]);
            self.treap[p] = root;
            self.treap[g] = NIL;
            self.uf[g] = p as u32;
            self.size[p] += self.size[g];
            let c = self.lam * self.size[p] as f64;
            let (k, s, b) = self.descend(root, c);
            self.support[p] = k;
            self.boundary[p] = b;
            self.value[p] = self.group_value(s, k, self.size[p]);
            self.stamp[p] = self.stamp[p].wrapping_add(1);
            let new_value = self.value[p];
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
            let tail_p = self.tail[p] as usize;
            self.next[tail_p] = g as u32;
            self.tail[p] = self.tail[g];
        }

        // Final groups: compress the union-find and count each node's support prefix.
        for t in 0..t_count {
            let g = self.find(t);
            self.uf[t] = g as u32;
        }
        for t in 0..t_count {
            let g = self.uf[t] as usize;
            if !self.built[g] {
                continue; // a node never pooled keeps the count of its own walk
            }
            let b = self.boundary[g];
            let (lo, hi) = self.column(t);
            self.count[t] = if b == NIL {
                (hi - lo) as u32
            } else {
                let bv = self.val[b as usize];
                let col = &self.val[lo..hi];
                // elements before b in (value desc, index asc) order form a prefix
                let mut k = col.partition_point(|&v| v > bv);
                while k < col.len() && col[k] == bv && ((lo + k) as u32) < b {
                    k += 1;
                }
                k as u32
            };
        }
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
    /// Returns `(k*, sum of the support, first element outside the support or NIL)`.
    fn walk_column(&self, t: usize) -> (u64, f64, u32) {
        let c = self.lam;
        let (lo, hi) = self.column(t);
        let mut s = 0.0;
        for e in lo..hi {
            let k = (e - lo) as f64;
            // NaN (lam == 0, k == 0) compares false: the largest value is always taken.
            if s / (c + k) > self.val[e] {
                return ((e - lo) as u64, s, e as u32);
            }
            s += self.val[e];
        }
        ((hi - lo) as u64, s, NIL)
    }

    /// Proposition 2 on a group's treap: the same search as `walk_column`, by descent.
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

    fn pop(&mut self) -> Option<Entry> {
        let last = self.heap.pop()?;
        if self.heap.is_empty() {
            return Some(last);
        }
        let top = std::mem::replace(&mut self.heap[0], last);
        let len = self.heap.len();
        let mut i = 0;
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
        Some(top)
    }

    // ------------------------------------------------------------------ treaps

    /// Strict order of elements: value descending, then element index ascending.
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

    /// Builds the treap of a group that is still a single node, from its sorted column
    /// (Cartesian tree by priority, linear time).
    fn ensure_treap(&mut self, g: usize) {
        if self.built[g] {
            return;
        }
        self.built[g] = true;
        let (lo, hi) = self.column(g);
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let mut g = [0.0; 3];
        assert_eq!(pav.backward(&[0.0; 3], &[0.0; 3], &mut g), Err(PavError::NotSolved));
        pav.forward(&[0.0; 3], 1, 3, 1.0, &mut a, &mut z).unwrap();
        assert!(matches!(
            pav.backward(&[0.0; 2], &[0.0; 3], &mut g),
            Err(PavError::Length { what: "grad_a", .. })
        ));
        assert!(matches!(
            pav.backward(&[0.0; 3], &[f64::INFINITY, 0.0, 0.0], &mut g),
            Err(PavError::NonFinite { .. })
        ));
        assert!(pav.forward(&[0.0; 3], 1, 3, 1.0, &mut a, &mut z).is_ok());
        assert!(pav.backward(&[0.0; 3], &[0.0; 3], &mut g).is_ok());
    }
}
