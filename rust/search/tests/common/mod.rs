//! Shared helpers of the solver tests: random small instances and an exhaustive oracle
//! (a memoised recursion over row subsets that tries every split at every node, with no
//! bound at all). Used by `gosdt_oracle.rs` and `osdt_oracle.rs`.

#![allow(dead_code)]

use proptest::prelude::*;
use std::collections::HashMap;
use treeopt_core::BinaryDataset;
use treeopt_search::{SearchResult, Status};

/// A random classification problem over 0/1 features, with positive weights.
#[derive(Debug, Clone)]
pub struct Instance {
    pub x: Vec<u8>,
    pub y: Vec<u32>,
    pub w: Vec<f64>,
    pub rows: usize,
    pub features: usize,
    pub classes: usize,
}

impl Instance {
    /// The instance as the solvers' packed 0/1 dataset.
    pub fn data(&self) -> BinaryDataset {
        BinaryDataset::new(&self.x, self.rows, self.features, &self.y, self.classes, Some(&self.w)).unwrap()
    }

    /// The sum of the row weights (objectives are per unit of it).
    pub fn total(&self) -> f64 {
        self.w.iter().sum()
    }
}

/// A search run without guessing against the oracle's optimum `want`: proved optimal,
/// the same objective, a bound below it, within the depth limit.
pub fn check_proved(res: &SearchResult, want: f64, depth: Option<usize>) -> Result<(), TestCaseError> {
    prop_assert_eq!(res.status, Status::Optimal);
    prop_assert!((res.objective - want).abs() < 1e-9, "objective {} oracle {}", res.objective, want);
    prop_assert!(res.lower_bound <= res.objective + 1e-12);
    if let Some(d) = depth {
        prop_assert!(res.tree.depth() <= d, "depth {} above {}", res.tree.depth(), d);
    }
    Ok(())
}

/// A search run with lower-bound guessing against the exact optimum `exact`: the proven
/// bound stays below it, and the search either proves it or says that it stopped on the
/// reference's guess.
pub fn check_guessed(res: &SearchResult, exact: f64) -> Result<(), TestCaseError> {
    prop_assert!(res.lower_bound <= exact + 1e-9, "proven bound {} above the optimum {}", res.lower_bound, exact);
    prop_assert!(res.objective >= exact - 1e-9);
    if res.status == Status::Optimal {
        prop_assert!((res.objective - exact).abs() < 1e-9);
    } else {
        prop_assert_eq!(res.status, Status::MatchedReference);
    }
    Ok(())
}

/// The optimal cost (weight units) of the rows `rows` with `depth` levels left.
pub fn oracle(inst: &Instance, penalty: f64, rows: Vec<usize>, depth: Option<usize>, memo: &mut HashMap<(Vec<usize>, Option<usize>), f64>) -> f64 {
    oracle_min_support(inst, penalty, rows, depth, 1, memo)
}

/// The optimum over every tree whose leaves each hold at least `min_support` rows.
pub fn oracle_min_support(inst: &Instance, penalty: f64, rows: Vec<usize>, depth: Option<usize>, min_support: usize, memo: &mut HashMap<(Vec<usize>, Option<usize>), f64>) -> f64 {
    oracle_cost(inst, penalty, rows, depth, min_support, None, memo)
}

/// Loss of one leaf over `rows`: misclassified weight, or with a row-major cost matrix
/// (rows the true class, columns the predicted one) the cost of the cheapest class.
pub fn leaf_loss(inst: &Instance, rows: &[usize], cost: Option<&[f64]>) -> f64 {
    let mut totals = vec![0.0; inst.classes];
    for &r in rows {
        totals[inst.y[r] as usize] += inst.w[r];
    }
    match cost {
        None => {
            let sum: f64 = totals.iter().sum();
            sum - totals.iter().cloned().fold(0.0, f64::max)
        }
        Some(c) => (0..inst.classes)
            .map(|k| (0..inst.classes).map(|y| totals[y] * c[y * inst.classes + k]).sum::<f64>())
            .fold(f64::INFINITY, f64::min),
    }
}

/// The optimum over every tree whose leaves each hold at least `min_support` rows, under
/// plain or cost-sensitive misclassification.
pub fn oracle_cost(inst: &Instance, penalty: f64, rows: Vec<usize>, depth: Option<usize>, min_support: usize, cost: Option<&[f64]>, memo: &mut HashMap<(Vec<usize>, Option<usize>), f64>) -> f64 {
    if let Some(v) = memo.get(&(rows.clone(), depth)) {
        return *v;
    }
    let mut best = leaf_loss(inst, &rows, cost) + penalty;
    if depth != Some(0) {
        for j in 0..inst.features {
            let (l, r): (Vec<usize>, Vec<usize>) = rows.iter().partition(|&&i| inst.x[i * inst.features + j] == 0);
            if l.len() < min_support.max(1) || r.len() < min_support.max(1) {
                continue;
            }
            let d = depth.map(|d| d - 1);
            let cost = oracle_cost(inst, penalty, l, d, min_support, cost, memo)
                + oracle_cost(inst, penalty, r, d, min_support, cost, memo);
            best = best.min(cost);
        }
    }
    memo.insert((rows, depth), best);
    best
}

/// Up to 24 rows, 6 features and 3 classes, unit or random weights.
pub fn instance() -> impl Strategy<Value = Instance> {
    instance_with(24, 6, 2..=3)
}

/// Up to `max_rows` rows and `max_features` features, a class count in `classes`, unit
/// or random weights.
pub fn instance_with(max_rows: usize, max_features: usize, classes: std::ops::RangeInclusive<usize>) -> impl Strategy<Value = Instance> {
    (1usize..=max_rows, 1usize..=max_features, classes).prop_flat_map(|(rows, features, classes)| {
        (
            proptest::collection::vec(0u8..=1, rows * features),
            proptest::collection::vec(0u32..classes as u32, rows),
            proptest::collection::vec(prop_oneof![Just(1.0), 0.1f64..5.0], rows),
        )
            .prop_map(move |(x, y, w)| Instance { x, y, w, rows, features, classes })
    })
}

/// The 0/1 matrix of a row-major numeric matrix (`rows x m`) with one column per
/// (column, midpoint between consecutive distinct values), 1 when the value is above
/// it; and its number of columns. The search on it must equal the numeric search.
pub fn binarize_every_midpoint(x: &[f64], rows: usize, m: usize) -> (Vec<u8>, usize) {
    let mut cuts = Vec::new();
    for j in 0..m {
        let mut v: Vec<f64> = (0..rows).map(|i| x[i * m + j]).collect();
        v.sort_by(f64::total_cmp);
        v.dedup();
        cuts.extend(v.windows(2).map(|p| (j, (p[0] + p[1]) / 2.0)));
    }
    let bits = (0..rows).flat_map(|i| cuts.iter().map(move |&(j, t)| (x[i * m + j] > t) as u8)).collect();
    (bits, cuts.len())
}
