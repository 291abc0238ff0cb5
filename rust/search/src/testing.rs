//! Helpers of the unit tests: seeded random datasets and an exhaustive optimum over every
//! tree, for any objective.

use crate::objective::Objective;
use crate::split::{SplitFamily, Thresholds};
use treeopt_core::{BinaryDataset, NumericDataset};

/// A seeded random dataset: about a third of the cells 1, classes uniform, weights in
/// {0.5, 1.5, 2.5, 3.5}.
pub(crate) fn random(rows: usize, m: usize, classes: usize, seed: u64) -> BinaryDataset {
    let (x, y, w) = random_rows(rows, m, classes, seed);
    BinaryDataset::new(&x, rows, m, &y, classes, Some(&w)).unwrap()
}

/// The rows of [`random`]: features (row-major), classes and weights.
pub(crate) fn random_rows(rows: usize, m: usize, classes: usize, seed: u64) -> (Vec<u8>, Vec<u32>, Vec<f64>) {
    let mut s = seed;
    let mut next = || {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (s >> 33) as usize
    };
    let x: Vec<u8> = (0..rows * m).map(|_| (next() % 3 == 0) as u8).collect();
    let y: Vec<u32> = (0..rows).map(|_| (next() % classes) as u32).collect();
    let w: Vec<f64> = (0..rows).map(|_| 0.5 + (next() % 4) as f64).collect();
    (x, y, w)
}

/// Summed statistics of `groups`.
pub(crate) fn stats_of<O: Objective>(obj: &O, groups: &[usize]) -> Vec<f64> {
    let mut stats = vec![0.0; obj.n_stats()];
    for &g in groups {
        stats.iter_mut().zip(obj.group_stats(g)).for_each(|(s, w)| *s += w);
    }
    stats
}

/// Exhaustive optimum (loss + `penalty` per leaf) over the trees of depth at most `depth`
/// (`None`: any) on `groups`, every leaf non-empty with at least `min_support` rows.
pub(crate) fn brute<O: Objective>(obj: &O, data: &BinaryDataset, groups: &[usize], depth: Option<u32>, penalty: f64, min_support: f64) -> f64 {
    let mut best = obj.leaf_loss(&stats_of(obj, groups)) + penalty;
    if depth == Some(0) {
        return best;
    }
    let rows = |side: &[usize]| side.iter().map(|&g| data.group_rows(g) as f64).sum::<f64>();
    for f in 0..data.n_features() {
        let (l, r): (Vec<usize>, Vec<usize>) = groups.iter().partition(|&&g| data.feature_of(g, f) == 0);
        if l.is_empty() || r.is_empty() || rows(&l) < min_support || rows(&r) < min_support {
            continue;
        }
        let d = depth.map(|d| d - 1);
        best = best.min(brute(obj, data, &l, d, penalty, min_support) + brute(obj, data, &r, d, penalty, min_support));
    }
    best
}

/// Exhaustive optimum (loss + `penalty` per leaf) over every threshold tree of depth at
/// most `depth` on `groups` of a numeric dataset, every leaf with `min_support` rows.
pub(crate) fn threshold_brute<O: Objective>(obj: &O, th: &Thresholds, data: &NumericDataset, groups: &[usize], depth: u32, penalty: f64, min_support: f64) -> f64 {
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
        best = best.min(threshold_brute(obj, th, data, &l, depth - 1, penalty, min_support) + threshold_brute(obj, th, data, &r, depth - 1, penalty, min_support));
    }
    best
}

/// Cost (loss + `penalty` per leaf) of a kernel's subtree of depth at most two on
/// `groups`, recomputed from the groups each split sends right (`goes_right(g, split)`);
/// asserts that every split has two non-empty sides and every leaf `min_support` rows
/// (`rows(g)` per group).
pub(crate) fn small_tree_cost<O: Objective>(
    obj: &O,
    groups: &[usize],
    tree: &crate::depth2::SmallTree,
    penalty: f64,
    min_support: f64,
    rows: impl Fn(usize) -> f64,
    goes_right: impl Fn(usize, u32) -> bool,
) -> f64 {
    let leaf = |gs: &[usize]| {
        assert!(gs.iter().map(|&g| rows(g)).sum::<f64>() >= min_support, "a leaf below the support");
        obj.leaf_loss(&stats_of(obj, gs)) + penalty
    };
    let split = |gs: &[usize], s: u32| -> (Vec<usize>, Vec<usize>) {
        let parts: (Vec<usize>, Vec<usize>) = gs.iter().partition(|&&g| !goes_right(g, s));
        assert!(!parts.0.is_empty() && !parts.1.is_empty(), "a split with an empty side");
        parts
    };
    let side = |gs: &[usize], sub: Option<u32>| match sub {
        None => leaf(gs),
        Some(s) => {
            let (a, b) = split(gs, s);
            leaf(&a) + leaf(&b)
        }
    };
    match tree.split {
        None => leaf(groups),
        Some((f, fl, fr)) => {
            let (l, r) = split(groups, f);
            side(&l, fl) + side(&r, fr)
        }
    }
}
