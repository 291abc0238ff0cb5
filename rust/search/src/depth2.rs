//! Exact optimal subtrees of depth one or two from pairwise counts (the specialised
//! depth-two solver of MurTree, Demirović et al., JMLR 2022, §4.4): one pass over the
//! captured groups accumulates, for every pair of features, the class weights (and, only
//! when needed, the row count and the reference loss) of the rows where both are 1;
//! every depth-two tree is then scored from those sums without touching the data again.
//!
//! Children are closed by the same rules as in the graph search, except that the
//! equivalent-points weight is taken as zero: that only closes fewer nodes, and a node
//! the search closes can never gain from a split, so both agree on every optimum.

use crate::graph::{side, Rules};
use treeopt_core::bitset::for_each_one;
use treeopt_core::BinaryDataset;

/// A subtree of depth at most two: `None` children are leaves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SmallTree {
    /// Cost in weight units (misclassified weight + penalty x leaves).
    pub cost: f64,
    /// Root feature, with the features of its left and right children.
    pub split: Option<(u32, Option<u32>, Option<u32>)>,
}

/// Reusable buffers of the depth-two solver for one dataset.
pub(crate) struct Depth2 {
    m: usize,
    c: usize,
    k: usize,
    /// Channel of the row count (only with a minimum leaf support above one).
    rows_at: Option<usize>,
    /// Channel of the reference loss (only with lower-bound guessing).
    reference_at: Option<usize>,
    /// Per group, its channel vector: class weights, then rows and reference loss.
    values: Vec<f64>,
    /// `m * m * k` sums over the rows where both features are 1 (upper triangle used).
    pairs: Vec<f64>,
    total: Vec<f64>,
    a: Vec<f64>,
    b: Vec<f64>,
    x: Vec<f64>,
    right: Vec<f64>,
}

impl Depth2 {
    pub fn new(data: &BinaryDataset, reference: Option<&[f64]>, min_support: f64) -> Self {
        let (m, c) = (data.n_features(), data.n_classes());
        let rows_at = (min_support > 1.0).then_some(c);
        let reference_at = reference.map(|_| c + rows_at.is_some() as usize);
        let k = c + rows_at.is_some() as usize + reference_at.is_some() as usize;
        let mut values = Vec::with_capacity(data.n_groups() * k);
        for g in 0..data.n_groups() {
            values.extend_from_slice(data.class_weights(g));
            if rows_at.is_some() {
                values.push(data.group_rows(g) as f64);
            }
            if let Some(r) = reference {
                values.push(r[g]);
            }
        }
        Depth2 {
            m,
            c,
            k,
            rows_at,
            reference_at,
            values,
            pairs: Vec::new(),
            total: vec![0.0; k],
            a: vec![0.0; k],
            b: vec![0.0; k],
            x: vec![0.0; k],
            right: vec![0.0; k],
        }
    }

    #[inline]
    fn pair(&self, i: usize, j: usize) -> &[f64] {
        let (i, j) = if i <= j { (i, j) } else { (j, i) };
        let s = (i * self.m + j) * self.k;
        &self.pairs[s..s + self.k]
    }

    fn accumulate<const K: usize>(&mut self, data: &BinaryDataset, set: &[u64]) {
        let (m, k) = (self.m, channels::<K>(self.k));
        if self.pairs.is_empty() {
            self.pairs = vec![0.0; m * m * k];
        } else {
            self.pairs.fill(0.0);
        }
        self.total.fill(0.0);
        let (values, pairs, total) = (&self.values, &mut self.pairs, &mut self.total);
        for_each_one(set, |g| {
            let v = &values[g * k..g * k + k];
            for t in 0..k {
                total[t] += v[t];
            }
            let ones = data.ones_of(g);
            for (a, &i) in ones.iter().enumerate() {
                let row = i as usize * m;
                for &j in &ones[a..] {
                    let s = (row + j as usize) * k;
                    let p = &mut pairs[s..s + k];
                    for t in 0..k {
                        p[t] += v[t];
                    }
                }
            }
        });
    }

    /// Cost of a leaf on channel vector `v`.
    #[inline]
    fn leaf_cost(&self, v: &[f64], rules: &Rules) -> f64 {
        treeopt_core::dataset::leaf_loss(&v[..self.c]).0 + rules.penalty
    }

    /// Rows of `v` as far as the support rule needs them: with a minimum support of one
    /// only emptiness matters, and every group has positive weight.
    #[inline]
    fn rows(&self, v: &[f64]) -> f64 {
        match self.rows_at {
            Some(r) => v[r],
            None if v[..self.c].iter().any(|&w| w > 0.0) => f64::INFINITY,
            None => 0.0,
        }
    }

    /// The leaf-closing rules applied to channel vector `v` at `depth`.
    #[inline]
    fn side_of(&self, v: &[f64], depth: u32, rules: &Rules) -> crate::graph::Side {
        side(&v[..self.c], 0.0, self.reference_at.map(|r| v[r]), self.rows(v), depth, rules)
    }

    /// Best stump or leaf for the rows of channel vector `x`, where `one_of(j, out)`
    /// writes the channel vector of its rows with feature j = 1. Returns (cost, feature).
    #[inline]
    fn depth_one<const K: usize>(
        &self,
        x: &[f64],
        one_of: impl Fn(usize, &mut [f64]),
        a: &mut [f64],
        b: &mut [f64],
        rules: &Rules,
    ) -> (f64, Option<u32>) {
        let k = channels::<K>(self.k);
        let s = self.side_of(x, 1, rules);
        if s.terminal {
            return (s.leaf_cost, None);
        }
        let (x, a, b) = (&x[..k], &mut a[..k], &mut b[..k]);
        let (mut best, mut feature) = (s.leaf_cost, None);
        for j in 0..self.m {
            one_of(j, a);
            for t in 0..k {
                b[t] = x[t] - a[t];
            }
            if self.rows(a) < rules.min_support || self.rows(b) < rules.min_support {
                continue;
            }
            let cost = self.leaf_cost(a, rules) + self.leaf_cost(b, rules);
            if cost < best {
                best = cost;
                feature = Some(j as u32);
            }
        }
        (best, feature)
    }

    /// The optimal subtree of depth `depth` (1 or 2) for the groups in `set`, under the
    /// same leaf-closing rules as the graph search.
    pub fn solve(&mut self, data: &BinaryDataset, set: &[u64], depth: u32, rules: &Rules) -> SmallTree {
        debug_assert!(depth == 1 || depth == 2);
        // Fixed channel counts let the compiler unroll the inner loops.
        match self.k {
            2 => self.solve_k::<2>(data, set, depth, rules),
            3 => self.solve_k::<3>(data, set, depth, rules),
            4 => self.solve_k::<4>(data, set, depth, rules),
            _ => self.solve_k::<0>(data, set, depth, rules),
        }
    }

    fn solve_k<const K: usize>(&mut self, data: &BinaryDataset, set: &[u64], depth: u32, rules: &Rules) -> SmallTree {
        let k = channels::<K>(self.k);
        self.accumulate::<K>(data, set);
        let (mut a, mut b, mut x) = (std::mem::take(&mut self.a), std::mem::take(&mut self.b), std::mem::take(&mut self.x));
        let mut right = std::mem::take(&mut self.right);
        let total = std::mem::take(&mut self.total);
        let tree = if depth == 1 {
            let (cost, f) = self.depth_one::<K>(&total, |j, out| out.copy_from_slice(self.pair(j, j)), &mut a, &mut b, rules);
            SmallTree { cost, split: f.map(|f| (f, None, None)) }
        } else {
            let s = self.side_of(&total, 2, rules);
            let mut best = SmallTree { cost: s.leaf_cost, split: None };
            if !s.terminal {
                for i in 0..self.m {
                    right.copy_from_slice(self.pair(i, i));
                    for t in 0..k {
                        x[t] = total[t] - right[t];
                    }
                    if self.rows(&right) < rules.min_support || self.rows(&x) < rules.min_support {
                        continue;
                    }
                    let (cr, fr) = self.depth_one::<K>(&right, |j, out| out.copy_from_slice(self.pair(i, j)), &mut a, &mut b, rules);
                    if cr >= best.cost {
                        continue;
                    }
                    let left_one = |j: usize, out: &mut [f64]| {
                        let (sj, pij) = (self.pair(j, j), self.pair(i, j));
                        for t in 0..k {
                            out[t] = sj[t] - pij[t];
                        }
                    };
                    let (cl, fl) = self.depth_one::<K>(&x, left_one, &mut a, &mut b, rules);
                    if cl + cr < best.cost {
                        best = SmallTree { cost: cl + cr, split: Some((i as u32, fl, fr)) };
                    }
                }
            }
            best
        };
        (self.a, self.b, self.x, self.right, self.total) = (a, b, x, right, total);
        tree
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
