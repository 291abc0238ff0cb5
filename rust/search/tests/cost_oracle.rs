//! Cost-sensitive misclassification (issue 20) against the exhaustive oracle of `common`:
//! GOSDT and DL8.5 with a class-by-class cost matrix prove optimal the oracle's objective,
//! their trees' labels realise it, and the matrix `1 - I` gives today's objective.

mod common;

use common::{check_guessed, check_proved, instance_with, oracle_cost, Instance};
use proptest::prelude::*;
use std::collections::HashMap;
use treeopt_core::BinaryDataset;
use treeopt_search::{solve_dl85, solve_gosdt, Dl85Config, GosdtConfig, NoMonitor, SearchResult, Status};

/// An instance with a random cost matrix over its classes (zero diagonal, some zero and
/// some large costs off it).
fn instance_and_cost() -> impl Strategy<Value = (Instance, Vec<f64>)> {
    instance_with(20, 5, 2..=4).prop_flat_map(|inst| {
        let c = inst.classes;
        let entry = prop_oneof![Just(0.0), Just(1.0), 0.0f64..5.0, 5.0f64..50.0];
        (Just(inst), proptest::collection::vec(entry, c * c)).prop_map(move |(inst, mut cost)| {
            for k in 0..c {
                cost[k * c + k] = 0.0;
            }
            (inst, cost)
        })
    })
}

/// The objective of the returned tree recomputed row by row from its labels.
fn tree_objective(inst: &Instance, res: &SearchResult, cost: &[f64], reg: f64) -> f64 {
    let total = inst.total();
    let mut loss = 0.0;
    for i in 0..inst.rows {
        let leaf = res.tree.leaf_of(|j| inst.x[i * inst.features + j]);
        loss += inst.w[i] * cost[inst.y[i] as usize * inst.classes + res.labels[leaf]];
    }
    loss / total + reg * res.tree.n_leaves() as f64
}

fn check(inst: &Instance, cost: &[f64], res: &SearchResult, reg: f64, depth: Option<usize>, min_support: usize) -> Result<(), TestCaseError> {
    let total = inst.total();
    let mut memo = HashMap::new();
    let want = oracle_cost(inst, reg * total, (0..inst.rows).collect(), depth, min_support, Some(cost), &mut memo) / total;
    let realised = tree_objective(inst, res, cost, reg);
    prop_assert!((realised - res.objective).abs() < 1e-9, "labels give {} for objective {}", realised, res.objective);
    check_proved(res, want, depth)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]
    #[test]
    fn gosdt_with_costs_matches_the_oracle(
        (inst, cost) in instance_and_cost(),
        reg in prop_oneof![Just(0.0), Just(0.01), Just(0.05), 0.0f64..0.3],
        depth in prop_oneof![Just(None), (0usize..4).prop_map(Some)],
    ) {
        let data = inst.data();
        let config = GosdtConfig { regularization: reg, max_depth: depth, misclassification_cost: Some(cost.clone()), ..Default::default() };
        let res = solve_gosdt(&data, &config, &mut NoMonitor).unwrap();
        check(&inst, &cost, &res, reg, depth, 1)?;
    }

    #[test]
    fn dl85_with_costs_matches_the_oracle(
        (inst, cost) in instance_and_cost(),
        reg in prop_oneof![Just(0.0), Just(0.01), 0.0f64..0.1],
        depth in 0usize..4,
        min_support in prop_oneof![Just(1usize), 1usize..5],
    ) {
        let data = inst.data();
        let config = Dl85Config { max_depth: depth, min_samples_leaf: min_support, regularization: reg, misclassification_cost: Some(cost.clone()), ..Default::default() };
        let res = solve_dl85(&data, &config, &mut NoMonitor).unwrap();
        check(&inst, &cost, &res, reg, Some(depth), min_support)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// Lower-bound guessing under costs (the reference's cost per row): the proven bound
    /// stays below the optimum, and a tree called optimal is.
    #[test]
    fn guessing_with_costs_keeps_the_proven_bound(
        (inst, cost) in instance_and_cost(),
        reg in prop_oneof![Just(0.0), Just(0.01), 0.0f64..0.1],
        depth in prop_oneof![Just(None), (0usize..4).prop_map(Some)],
        guesses in proptest::collection::vec(0u32..4, 20),
    ) {
        let data = inst.data();
        let total = inst.total();
        let c = inst.classes;
        let errors: Vec<f64> = (0..inst.rows).map(|i| inst.w[i] * cost[inst.y[i] as usize * c + guesses[i] as usize % c]).collect();
        let config = GosdtConfig { regularization: reg, max_depth: depth, reference_errors: Some(errors), misclassification_cost: Some(cost.clone()), ..Default::default() };
        let res = solve_gosdt(&data, &config, &mut NoMonitor).unwrap();
        let mut memo = HashMap::new();
        let exact = oracle_cost(&inst, reg * total, (0..inst.rows).collect(), depth, 1, Some(&cost), &mut memo) / total;
        check_guessed(&res, exact)?;
        prop_assert!((tree_objective(&inst, &res, &cost, reg) - res.objective).abs() < 1e-9);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    /// `C = 1 - I` is plain misclassification: the same optimal objective.
    #[test]
    fn unit_costs_are_plain_misclassification(
        inst in instance_with(20, 5, 2..=4),
        reg in prop_oneof![Just(0.0), Just(0.02), 0.0f64..0.2],
        depth in prop_oneof![Just(None), (0usize..4).prop_map(Some)],
    ) {
        let data = inst.data();
        let c = inst.classes;
        let unit: Vec<f64> = (0..c * c).map(|i| if i / c == i % c { 0.0 } else { 1.0 }).collect();
        let plain = GosdtConfig { regularization: reg, max_depth: depth, ..Default::default() };
        let costed = GosdtConfig { misclassification_cost: Some(unit), ..plain.clone() };
        let a = solve_gosdt(&data, &plain, &mut NoMonitor).unwrap();
        let b = solve_gosdt(&data, &costed, &mut NoMonitor).unwrap();
        prop_assert!((a.objective - b.objective).abs() < 1e-9, "plain {} costed {}", a.objective, b.objective);
        prop_assert_eq!(b.status, Status::Optimal);
    }
}

#[test]
fn bad_cost_matrices_are_refused_with_the_reason() {
    let data = BinaryDataset::new(&[0, 1, 1, 0], 4, 1, &[0, 1, 1, 0], 2, None).unwrap();
    let fit = |cost: Vec<f64>| {
        let config = GosdtConfig { misclassification_cost: Some(cost), ..Default::default() };
        solve_gosdt(&data, &config, &mut NoMonitor).map(|r| r.objective).map_err(|e| e.to_string())
    };
    assert!(fit(vec![0.0, 1.0, 1.0]).unwrap_err().contains("square 2 x 2"));
    assert!(fit(vec![0.0, -1.0, 1.0, 0.0]).unwrap_err().contains("[0, 1] is -1"));
    assert!(fit(vec![0.0, f64::NAN, 1.0, 0.0]).unwrap_err().contains("finite"));
    assert!(fit(vec![0.0, 1.0, 1.0, 2.0]).unwrap_err().contains("[1, 1] is 2"));
    // A free error on class 1 predicted 0: the single leaf predicting 0 costs nothing.
    assert_eq!(fit(vec![0.0, 1.0, 0.0, 0.0]), Ok(0.0));
}

/// A leaf whose loss equals the guess (26.89 + 26.89 against 2 x 26.89) was a leaf for
/// the search and not for the tree's extraction, or the other way round, as the two sum
/// in different orders: the tree returned cost more than the search's account of it, and
/// was called optimal. Now both agree up to rounding, and a certificate judges the tree
/// returned.
#[test]
fn guessing_certifies_the_tree_it_returns() {
    let x = [0u8, 0, 0, 0, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1];
    let y = [1u32, 0, 0, 1, 1];
    let w = [1.0, 4.767478700943906, 1.0, 1.0, 4.722948359653731];
    let cost = vec![0.0, 22.066916308868507, 26.89024028650616, 0.0];
    let guesses = [0usize, 0, 1, 0, 1];
    let errors: Vec<f64> = (0..5).map(|i| w[i] * cost[y[i] as usize * 2 + guesses[i]]).collect();
    let data = BinaryDataset::new(&x, 5, 3, &y, 2, Some(&w)).unwrap();
    let config = GosdtConfig { reference_errors: Some(errors), misclassification_cost: Some(cost.clone()), ..Default::default() };
    let res = solve_gosdt(&data, &config, &mut NoMonitor).unwrap();
    let exact = GosdtConfig { misclassification_cost: Some(cost), ..Default::default() };
    let exact = solve_gosdt(&data, &exact, &mut NoMonitor).unwrap().objective;
    assert!(res.lower_bound <= exact + 1e-12, "proven bound {} above the optimum {exact}", res.lower_bound);
    assert!(res.status != Status::Optimal || (res.objective - exact).abs() < 1e-12, "called optimal at {} (optimum {exact})", res.objective);
}
