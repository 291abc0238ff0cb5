//! GOSDT against an exhaustive oracle: a memoised recursion over row subsets that tries
//! every split at every node with no bound at all.

mod common;

use common::{check_guessed, check_proved, instance, instance_with, oracle, oracle_min_support};
use proptest::prelude::*;
use std::collections::HashMap;
use treeopt_search::{solve_dl85, solve_gosdt, Dl85Config, GosdtConfig, NoMonitor, Status};

/// GOSDT proves optimal the oracle's objective, within the depth limit.
fn check_gosdt(inst: &common::Instance, reg: f64, depth: Option<usize>) -> Result<(), TestCaseError> {
    let data = inst.data();
    let total = inst.total();
    let config = GosdtConfig { regularization: reg, max_depth: depth, ..Default::default() };
    let res = solve_gosdt(&data, &config, &mut NoMonitor).unwrap();
    let mut memo = HashMap::new();
    let want = oracle(inst, reg * total, (0..inst.rows).collect(), depth, &mut memo) / total;
    check_proved(&res, want, depth)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(700))]
    /// Two classes, and many (3 to 8): the bound that each leaf serves one class
    /// (issue 19, G) stays exact.
    #[test]
    fn gosdt_matches_the_oracle(
        inst in prop_oneof![4 => instance(), 3 => instance_with(24, 5, 3..=8)],
        reg in prop_oneof![Just(0.0), Just(0.01), Just(0.05), Just(0.1), 0.0f64..0.3],
        depth in prop_oneof![Just(None), (0usize..4).prop_map(Some)],
    ) {
        check_gosdt(&inst, reg, depth)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// Theorem 4.3 of McTavish et al.: with lower-bound guessing the tree's objective is
    /// at most the reference's errors plus the best tree's errors on the rows the reference
    /// gets right (plus its leaves' penalty); the proven bound stays a bound.
    #[test]
    fn guessing_keeps_theorem_4_3(
        inst in instance(),
        reg in prop_oneof![Just(0.0), Just(0.01), Just(0.05), 0.0f64..0.2],
        depth in prop_oneof![Just(None), (0usize..4).prop_map(Some)],
        flips in proptest::collection::vec(any::<bool>(), 24),
        same in any::<bool>(),
    ) {
        let data = inst.data();
        let total = inst.total();
        // The reference is wrong on the flipped rows (or right everywhere when `same`).
        let wrong: Vec<bool> = (0..inst.rows).map(|i| !same && flips[i]).collect();
        let errors: Vec<f64> = (0..inst.rows).map(|i| if wrong[i] { inst.w[i] } else { 0.0 }).collect();
        let config = GosdtConfig { regularization: reg, max_depth: depth, reference_errors: Some(errors.clone()), ..Default::default() };
        let res = solve_gosdt(&data, &config, &mut NoMonitor).unwrap();
        let mut memo = HashMap::new();
        let exact = oracle(&inst, reg * total, (0..inst.rows).collect(), depth, &mut memo) / total;
        let correct: Vec<usize> = (0..inst.rows).filter(|&i| !wrong[i]).collect();
        let mut memo = HashMap::new();
        let on_correct = if correct.is_empty() { reg * total } else { oracle(&inst, reg * total, correct, depth, &mut memo) };
        let bound = (errors.iter().sum::<f64>() + on_correct) / total;
        prop_assert!(res.objective <= bound + 1e-9, "objective {} above the Theorem 4.3 bound {}", res.objective, bound);
        check_guessed(&res, exact)?;
        if same {
            prop_assert!((res.objective - exact).abs() < 1e-9);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    /// DL8.5 (depth limit, minimum rows per leaf, optional penalty) against the oracle,
    /// and against GOSDT where their objectives coincide.
    #[test]
    fn dl85_matches_the_oracle(
        inst in instance(),
        reg in prop_oneof![Just(0.0), Just(0.0), Just(0.01), 0.0f64..0.1],
        depth in 0usize..5,
        min_support in prop_oneof![Just(1usize), 1usize..6],
    ) {
        let data = inst.data();
        let total = inst.total();
        let config = Dl85Config { max_depth: depth, min_samples_leaf: min_support, regularization: reg, ..Default::default() };
        let res = solve_dl85(&data, &config, &mut NoMonitor).unwrap();
        let mut memo = HashMap::new();
        let want = oracle_min_support(&inst, reg * total, (0..inst.rows).collect(), Some(depth), min_support, &mut memo) / total;
        prop_assert_eq!(res.status, Status::Optimal);
        prop_assert!((res.objective - want).abs() < 1e-9, "objective {} oracle {}", res.objective, want);
        prop_assert!(res.tree.depth() <= depth);
        if min_support == 1 {
            let gosdt = GosdtConfig { regularization: reg, max_depth: Some(depth), ..Default::default() };
            let g = solve_gosdt(&data, &gosdt, &mut NoMonitor).unwrap();
            prop_assert!((g.objective - res.objective).abs() < 1e-9);
        }
    }
}
