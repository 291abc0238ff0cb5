//! Optimal regression trees (issue 14) against an exhaustive oracle over rows: GOSDT
//! and DL8.5 under squared error, on 0/1 and numeric columns, with weights, tied
//! targets, depth limits and a minimum leaf support, prove optimal the oracle's
//! objective (weighted MSE / weighted variance of y + λ x leaves), their leaves predict
//! the weighted mean of their rows, and the certified bound never exceeds the objective.

mod common;

use common::binarize_every_midpoint;
use proptest::prelude::*;
use std::collections::HashMap;
use treeopt_core::{BinaryDataset, NumericDataset};
use treeopt_search::{
    solve_dl85_regression, solve_dl85_regression_numeric, solve_gosdt_regression, solve_gosdt_regression_numeric, Dl85Config,
    GosdtConfig, NoMonitor, RegressionResult, Status,
};

/// A random instance: 0/1 (or small numeric) features, targets from a few values (ties)
/// or spread out, weights 1 or in [0.1, 5).
#[derive(Clone, Debug)]
struct Instance {
    x: Vec<f64>,
    y: Vec<f64>,
    w: Vec<f64>,
    rows: usize,
    features: usize,
}

fn instance(max_rows: usize, max_features: usize, levels: u32) -> impl Strategy<Value = Instance> {
    (1usize..=max_rows, 1usize..=max_features).prop_flat_map(move |(rows, features)| {
        let target = prop_oneof![(0i32..4).prop_map(|v| v as f64), -50.0f64..50.0];
        (
            proptest::collection::vec(0..levels, rows * features),
            proptest::collection::vec(target, rows),
            proptest::collection::vec(prop_oneof![Just(1.0), 0.1f64..5.0], rows),
        )
            .prop_map(move |(x, y, w)| Instance { x: x.into_iter().map(f64::from).collect(), y, w, rows, features })
    })
}

/// Weighted sum of squared deviations of the rows from their weighted mean.
fn sse(inst: &Instance, rows: &[usize]) -> f64 {
    let w: f64 = rows.iter().map(|&i| inst.w[i]).sum();
    let mean = rows.iter().map(|&i| inst.w[i] * inst.y[i]).sum::<f64>() / w;
    rows.iter().map(|&i| inst.w[i] * (inst.y[i] - mean).powi(2)).sum()
}

/// Least squared error + `penalty` per leaf over every tree on the 0/1 matrix `bits`
/// (`m` columns) of depth at most `depth` whose leaves hold `min_support` rows or more.
fn oracle(inst: &Instance, bits: &[u8], m: usize, rows: Vec<usize>, depth: Option<usize>, penalty: f64, min_support: usize, memo: &mut HashMap<(Vec<usize>, Option<usize>), f64>) -> f64 {
    if let Some(&v) = memo.get(&(rows.clone(), depth)) {
        return v;
    }
    let mut best = sse(inst, &rows) + penalty;
    if depth != Some(0) {
        for j in 0..m {
            let (l, r): (Vec<usize>, Vec<usize>) = rows.iter().partition(|&&i| bits[i * m + j] == 0);
            if l.len() < min_support.max(1) || r.len() < min_support.max(1) {
                continue;
            }
            let d = depth.map(|d| d - 1);
            let cost = oracle(inst, bits, m, l, d, penalty, min_support, memo) + oracle(inst, bits, m, r, d, penalty, min_support, memo);
            best = best.min(cost);
        }
    }
    memo.insert((rows, depth), best);
    best
}

/// The variance-normalised total: weight x variance of y (1 x weight for a constant y).
fn normaliser(inst: &Instance) -> f64 {
    let all: Vec<usize> = (0..inst.rows).collect();
    let w: f64 = inst.w.iter().sum();
    let s = sse(inst, &all);
    let constant = inst.y.iter().all(|&v| v == inst.y[0]);
    if constant || s <= 0.0 { w } else { s }
}

/// Checks a result against the oracle; `leaf_of(i)` is the leaf row `i` reaches.
fn check(inst: &Instance, bits: &[u8], m: usize, res: &RegressionResult, reg: f64, depth: Option<usize>, min_support: usize, leaf_of: impl Fn(usize) -> usize) -> Result<(), TestCaseError> {
    let norm = normaliser(inst);
    let mut memo = HashMap::new();
    let want = oracle(inst, bits, m, (0..inst.rows).collect(), depth, reg * norm, min_support, &mut memo) / norm;
    let r = &res.result;
    prop_assert_eq!(r.status, Status::Optimal);
    prop_assert!((r.objective - want).abs() < 1e-9, "objective {} oracle {}", r.objective, want);
    prop_assert!(r.lower_bound <= r.objective, "lower bound {} above objective {}", r.lower_bound, r.objective);
    prop_assert_eq!(res.means.len(), r.tree.nodes.len());
    // Leaves predict their rows' weighted mean, and those predictions realise the objective.
    let mut by_leaf: HashMap<usize, Vec<usize>> = HashMap::new();
    for i in 0..inst.rows {
        by_leaf.entry(leaf_of(i)).or_default().push(i);
    }
    let mut loss = 0.0;
    for (&leaf, rows) in &by_leaf {
        let w: f64 = rows.iter().map(|&i| inst.w[i]).sum();
        let mean = rows.iter().map(|&i| inst.w[i] * inst.y[i]).sum::<f64>() / w;
        prop_assert!((res.means[leaf] - mean).abs() <= 1e-9 * (1.0 + mean.abs()), "leaf {} predicts {} for mean {}", leaf, res.means[leaf], mean);
        loss += rows.iter().map(|&i| inst.w[i] * (inst.y[i] - res.means[leaf]).powi(2)).sum::<f64>();
    }
    let realised = loss / norm + reg * r.tree.n_leaves() as f64;
    prop_assert!((realised - r.objective).abs() < 1e-9, "the leaf means give {} for objective {}", realised, r.objective);
    if let Some(d) = depth {
        prop_assert!(r.tree.depth() <= d);
    }
    Ok(())
}

fn zero_one(inst: &Instance) -> (BinaryDataset, Vec<u8>) {
    let bits: Vec<u8> = inst.x.iter().map(|&v| v as u8).collect();
    let data = BinaryDataset::new(&bits, inst.rows, inst.features, &vec![0; inst.rows], 1, Some(&inst.w)).unwrap();
    (data, bits)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(800))]
    /// GOSDT (optional depth limit) or DL8.5 (a depth limit: none becomes 4) on 0/1
    /// columns, with a penalty and a minimum leaf support.
    #[test]
    fn zero_one_regression_matches_the_oracle(
        inst in instance(16, 5, 2),
        reg in prop_oneof![Just(0.0), Just(0.01), Just(0.05), 0.0f64..0.3],
        depth in prop_oneof![Just(None), (0usize..5).prop_map(Some)],
        min_support in prop_oneof![Just(1usize), 1usize..5],
        gosdt in any::<bool>(),
    ) {
        let (data, bits) = zero_one(&inst);
        let (res, depth) = if gosdt {
            let config = GosdtConfig { regularization: reg, max_depth: depth, min_samples_leaf: min_support, ..Default::default() };
            (solve_gosdt_regression(&data, &inst.y, Some(&inst.w), &config, &mut NoMonitor).unwrap(), depth)
        } else {
            let depth = depth.unwrap_or(4);
            let config = Dl85Config { max_depth: depth, min_samples_leaf: min_support, regularization: reg, ..Default::default() };
            (solve_dl85_regression(&data, &inst.y, Some(&inst.w), &config, &mut NoMonitor).unwrap(), Some(depth))
        };
        let leaf_of = |i: usize| res.result.tree.leaf_of(|j| bits[i * inst.features + j]);
        check(&inst, &bits, inst.features, &res, reg, depth, min_support, leaf_of)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn numeric_regression_matches_the_oracle(
        inst in instance(12, 3, 5),
        reg in prop_oneof![Just(0.0), Just(0.02), 0.0f64..0.2],
        depth in 0usize..4,
        min_support in prop_oneof![Just(1usize), 1usize..4],
        gosdt in any::<bool>(),
    ) {
        let (bits, m) = binarize_every_midpoint(&inst.x, inst.rows, inst.features);
        let data = NumericDataset::new(&inst.x, inst.rows, inst.features, &vec![0; inst.rows], 1, Some(&inst.w)).unwrap();
        let res = if gosdt {
            let config = GosdtConfig { regularization: reg, max_depth: Some(depth), min_samples_leaf: min_support, ..Default::default() };
            solve_gosdt_regression_numeric(&data, &inst.y, Some(&inst.w), &config, &mut NoMonitor).unwrap()
        } else {
            let config = Dl85Config { max_depth: depth, min_samples_leaf: min_support, regularization: reg, ..Default::default() };
            solve_dl85_regression_numeric(&data, &inst.y, Some(&inst.w), &config, &mut NoMonitor).unwrap()
        };
        let th = treeopt_search::Thresholds::new(&data);
        let splits = th.describe_tree(&res.result.tree);
        let leaf_of = |i: usize| {
            let mut n = 0;
            while let Some(s) = splits[n] {
                let node = &res.result.tree.nodes[n];
                n = if inst.x[i * inst.features + s.feature] <= s.threshold { node.left } else { node.right };
            }
            n
        };
        check(&inst, &bits, m, &res, reg, Some(depth), min_support, leaf_of)?;
    }
}

#[test]
fn a_constant_target_is_one_leaf_and_bad_targets_are_refused() {
    let x = [0u8, 1, 1, 0, 0, 0, 1, 1];
    let data = BinaryDataset::new(&x, 4, 2, &[0; 4], 1, None).unwrap();
    let config = GosdtConfig { regularization: 0.01, ..Default::default() };
    let res = solve_gosdt_regression(&data, &[3.0; 4], None, &config, &mut NoMonitor).unwrap();
    assert_eq!(res.result.tree.n_leaves(), 1);
    assert_eq!(res.means, vec![3.0]);
    assert!((res.result.objective - 0.01).abs() < 1e-15);
    let nan = solve_gosdt_regression(&data, &[1.0, f64::NAN, 0.0, 1.0], None, &config, &mut NoMonitor);
    assert!(nan.unwrap_err().to_string().contains("not finite"));
    let short = solve_gosdt_regression(&data, &[1.0, 2.0], None, &config, &mut NoMonitor);
    assert!(short.unwrap_err().to_string().contains("one target per row"));
}
