//! OSDT against the exhaustive oracle of `common` and against GOSDT: the default
//! configuration, every bound switched off one at a time, all bounds off, every policy,
//! warm starts, limits and errors.

mod common;

use common::{instance_with, oracle, Instance};
use proptest::prelude::*;
use std::collections::HashMap;
use std::time::Duration;
use treeopt_core::{BinaryDataset, Node, Tree};
use treeopt_search::{
    solve_gosdt, solve_osdt, GosdtConfig, Limits, Monitor, NoMonitor, OsdtBounds, OsdtConfig, OsdtPolicy, Progress, Status,
};

fn data(inst: &Instance) -> BinaryDataset {
    inst.data()
}

/// The optimal objective by exhaustive search.
fn optimum(inst: &Instance, reg: f64) -> f64 {
    let total = inst.total();
    let mut memo = HashMap::new();
    oracle(inst, reg * total, (0..inst.rows).collect(), None, &mut memo) / total
}

fn lambdas() -> impl Strategy<Value = f64> {
    prop_oneof![Just(0.0), Just(0.01), Just(0.02), Just(0.05), 0.0f64..0.2]
}

fn positive_lambdas() -> impl Strategy<Value = f64> {
    prop_oneof![Just(0.005), Just(0.01), Just(0.02), Just(0.05), 0.005f64..0.2]
}

/// Every test solve stops at this many bytes or seconds (and then fails for not being
/// optimal) rather than exhaust the machine.
const TEST_MEMORY: usize = 400 << 20;
const TEST_SECONDS: u64 = 60;

/// `cases` cases from a fixed seed (set `OSDT_PROPTEST_SEED` to explore others), so the
/// run time of the suite is the same on every run.
fn config(cases: u32) -> ProptestConfig {
    let seed = std::env::var("OSDT_PROPTEST_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0x05D7);
    ProptestConfig { cases, rng_seed: proptest::test_runner::RngSeed::Fixed(seed), ..ProptestConfig::default() }
}

fn policies() -> impl Strategy<Value = OsdtPolicy> {
    (0usize..5).prop_map(|i| OsdtPolicy::from_name(OsdtPolicy::NAMES[i]).unwrap())
}

/// Checks a finished run: proven optimal, the oracle's objective, a consistent tree.
fn check_optimal(inst: &Instance, reg: f64, config: &OsdtConfig, want: f64) -> std::result::Result<(), TestCaseError> {
    let d = data(inst);
    let mut config = config.clone();
    config.limits.memory_limit = Some(TEST_MEMORY);
    config.limits.time_limit = Some(Duration::from_secs(TEST_SECONDS));
    let res = solve_osdt(&d, &config, &mut NoMonitor).unwrap();
    let r = &res.result;
    prop_assert_eq!(r.status, Status::Optimal, "bounds {:?}", config.bounds);
    prop_assert!((r.objective - want).abs() < 1e-9, "objective {} oracle {} bounds {:?} policy {:?}", r.objective, want, config.bounds, config.policy);
    prop_assert_eq!(r.lower_bound, r.objective);
    prop_assert!((r.tree.objective(&d, reg) - r.objective).abs() < 1e-12);
    prop_assert_eq!(r.tree.nodes.len(), 2 * r.tree.n_leaves() - 1);
    prop_assert!(res.stats.trees_queued <= res.stats.trees_evaluated);
    prop_assert!(res.stats.trees_to_optimum <= res.stats.trees_evaluated);
    Ok(())
}

proptest! {
    #![proptest_config(config(600))]
    /// The default configuration (every bound), any policy, equals the oracle and GOSDT.
    #[test]
    fn osdt_matches_the_oracle_and_gosdt(inst in instance_with(24, 6, 2..=2), reg in lambdas(), policy in policies()) {
        let want = optimum(&inst, reg);
        let config = OsdtConfig { regularization: reg, policy, ..Default::default() };
        check_optimal(&inst, reg, &config, want)?;
        let g = solve_gosdt(&data(&inst), &GosdtConfig { regularization: reg, ..Default::default() }, &mut NoMonitor).unwrap();
        let o = solve_osdt(&data(&inst), &config, &mut NoMonitor).unwrap();
        prop_assert!((g.objective - o.result.objective).abs() < 1e-9);
    }
}

proptest! {
    #![proptest_config(config(500))]
    /// Every bound is sound: switching any one of them off leaves the objective unchanged.
    /// (Up to 5 features: without the hierarchical bound, b0 and λ|d_split| are the only
    /// pruning terms left and 6-feature instances can need hundreds of MB.)
    #[test]
    fn each_bound_off_keeps_the_optimum(inst in instance_with(24, 5, 2..=2), reg in positive_lambdas(), policy in policies()) {
        let want = optimum(&inst, reg);
        for name in OsdtBounds::NAMES {
            let bounds = OsdtBounds::ALL.without(name).unwrap();
            prop_assert_eq!(bounds.is_on(name), Some(false));
            let config = OsdtConfig { regularization: reg, policy, bounds, ..Default::default() };
            check_optimal(&inst, reg, &config, want)?;
        }
    }
}

proptest! {
    #![proptest_config(config(300))]
    /// The same without a penalty (λ = 0, where the leaf-count and look-ahead terms
    /// vanish and the search is largest), on smaller instances.
    #[test]
    fn each_bound_off_keeps_the_optimum_without_penalty(inst in instance_with(16, 5, 2..=2), policy in policies()) {
        let want = optimum(&inst, 0.0);
        for name in OsdtBounds::NAMES {
            let bounds = OsdtBounds::ALL.without(name).unwrap();
            let config = OsdtConfig { regularization: 0.0, policy, bounds, ..Default::default() };
            check_optimal(&inst, 0.0, &config, want)?;
        }
    }
}

proptest! {
    #![proptest_config(config(500))]
    /// With every bound off the search enumerates every tree; the optimum is unchanged.
    /// (Small instances: nothing is pruned.)
    #[test]
    fn all_bounds_off_keeps_the_optimum(inst in instance_with(14, 4, 2..=2), reg in lambdas(), policy in policies()) {
        let want = optimum(&inst, reg);
        let config = OsdtConfig { regularization: reg, policy, bounds: OsdtBounds::NONE, ..Default::default() };
        check_optimal(&inst, reg, &config, want)?;
    }
}

/// A warm-start tree from `(feature, left, right)` per node, `None` for a leaf.
fn tree_of(nodes: &[Option<(usize, usize, usize)>]) -> Tree {
    let node = |n: &Option<(usize, usize, usize)>| match *n {
        Some((feature, left, right)) => Node { feature: Some(feature), left, right, value: vec![] },
        None => Node { feature: None, left: 0, right: 0, value: vec![] },
    };
    Tree { nodes: nodes.iter().map(node).collect() }
}

/// A random tree over the instance's features, as node arrays.
fn random_tree(features: usize, choices: &[usize]) -> Tree {
    let mut nodes = Vec::new();
    fn grow(nodes: &mut Vec<Node>, features: usize, choices: &[usize], k: &mut usize, depth: usize) -> usize {
        let idx = nodes.len();
        let c = choices[*k % choices.len()];
        *k += 1;
        nodes.push(Node { feature: None, left: 0, right: 0, value: vec![] });
        if depth < 3 && matches!(c % 3, 1 | 2) {
            let l = grow(nodes, features, choices, k, depth + 1);
            let r = grow(nodes, features, choices, k, depth + 1);
            nodes[idx] = Node { feature: Some(c % features), left: l, right: r, value: vec![] };
        }
        idx
    }
    let mut k = 0;
    grow(&mut nodes, features, choices, &mut k, 0);
    Tree { nodes }
}

proptest! {
    #![proptest_config(config(300))]
    /// A warm start never changes the optimum and is reported with its objective; its
    /// objective bounds the result.
    #[test]
    fn warm_start_keeps_the_optimum(inst in instance_with(24, 6, 2..=2), reg in lambdas(), choices in proptest::collection::vec(0usize..100, 1..20)) {
        let d = data(&inst);
        let warm = random_tree(inst.features, &choices);
        let mut filled = warm.clone();
        // The objective of the warm start with majority labels, computed independently.
        let total = inst.total();
        let mut per_leaf: HashMap<usize, [f64; 2]> = HashMap::new();
        for i in 0..inst.rows {
            let leaf = warm.leaf_of(|j| inst.x[i * inst.features + j]);
            per_leaf.entry(leaf).or_default()[inst.y[i] as usize] += inst.w[i];
        }
        let loss: f64 = per_leaf.values().map(|c| c[0].min(c[1])).sum();
        let warm_obj = loss / total + reg * warm.n_leaves() as f64;
        filled.nodes.iter_mut().for_each(|n| n.value.clear());
        let config = OsdtConfig { regularization: reg, warm_start: Some(filled), ..Default::default() };
        let res = solve_osdt(&d, &config, &mut NoMonitor).unwrap();
        let want = optimum(&inst, reg);
        prop_assert_eq!(res.result.status, Status::Optimal);
        prop_assert!((res.result.objective - want).abs() < 1e-9);
        prop_assert!((res.warm_start_objective.unwrap() - warm_obj).abs() < 1e-9);
        prop_assert!(res.result.objective <= warm_obj + 1e-12);
    }
}

/// A random problem with noisy labels (400 rows and 14 features are too many to finish
/// at once).
fn noisy_instance(rows: usize, features: usize) -> Instance {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let x: Vec<u8> = (0..rows * features).map(|_| (next() % 2) as u8).collect();
    let y: Vec<u32> = (0..rows)
        .map(|i| {
            let f = (x[i * features] ^ x[i * features + 1]) | (x[i * features + 2] & x[i * features + 3]);
            if next() % 5 == 0 { 1 - f as u32 } else { f as u32 }
        })
        .collect();
    let w: Vec<f64> = (0..rows).map(|_| 0.5 + (next() % 100) as f64 / 50.0).collect();
    Instance { x, y, w, rows, features, classes: 2 }
}

#[test]
fn limits_return_the_incumbent_with_a_sound_bound() {
    let inst = noisy_instance(400, 14);
    let d = data(&inst);
    let reg = 0.002;
    let exact = solve_gosdt(&d, &GosdtConfig { regularization: reg, ..Default::default() }, &mut NoMonitor).unwrap();
    assert_eq!(exact.status, Status::Optimal);
    let stump = tree_of(&[Some((0, 1, 2)), None, None]);
    let limited = [
        (Limits { time_limit: Some(Duration::from_millis(50)), memory_limit: None, threads: 1 }, Status::TimeLimit),
        (Limits { time_limit: Some(Duration::from_secs(60)), memory_limit: Some(300_000), threads: 1 }, Status::MemoryLimit),
    ];
    for (limits, status) in limited {
        let config = OsdtConfig { regularization: reg, limits, warm_start: Some(stump.clone()), ..Default::default() };
        let res = solve_osdt(&d, &config, &mut NoMonitor).unwrap();
        let r = &res.result;
        assert_eq!(r.status, status);
        assert!(r.lower_bound <= exact.objective + 1e-12, "bound {} above the optimum {}", r.lower_bound, exact.objective);
        assert!(r.objective >= exact.objective - 1e-12);
        assert!(r.objective <= res.warm_start_objective.unwrap() + 1e-12);
        assert!((r.tree.objective(&d, reg) - r.objective).abs() < 1e-12);
        if status == Status::MemoryLimit {
            assert!(res.stats.peak_bytes <= 300_000, "peak {} bytes over the limit", res.stats.peak_bytes);
        }
    }
}

/// Stops the search at its first report.
struct StopAtOnce(u32);

impl Monitor for StopAtOnce {
    const INTERVAL: Duration = Duration::from_millis(1);
    fn report(&mut self, p: &Progress) -> bool {
        assert!(p.lower_bound <= p.objective);
        self.0 += 1;
        false
    }
}

#[test]
fn monitor_interrupts_the_search() {
    let inst = noisy_instance(400, 14);
    let d = data(&inst);
    let mut monitor = StopAtOnce(0);
    let res = solve_osdt(&d, &OsdtConfig { regularization: 0.002, ..Default::default() }, &mut monitor).unwrap();
    assert_eq!(monitor.0, 1);
    assert_eq!(res.result.status, Status::Interrupted);
    assert!(res.result.lower_bound <= res.result.objective);
}

#[test]
fn runs_are_deterministic() {
    let inst = noisy_instance(400, 7);
    let d = data(&inst);
    let config = OsdtConfig { regularization: 0.005, ..Default::default() };
    let a = solve_osdt(&d, &config, &mut NoMonitor).unwrap();
    let b = solve_osdt(&d, &config, &mut NoMonitor).unwrap();
    assert_eq!(a.result.status, Status::Optimal);
    assert!(a.stats.trees_evaluated > 1000, "a real search: {:?}", a.stats);
    assert_eq!(a.result.tree, b.result.tree);
    assert_eq!(a.result.objective, b.result.objective);
    let (mut sa, mut sb) = (a.stats.clone(), b.stats.clone());
    sa.time_to_optimum = 0.0;
    sb.time_to_optimum = 0.0;
    assert_eq!(sa, sb);
}

#[test]
fn errors_name_what_to_do() {
    let x = [0u8, 1, 1, 0, 1, 1];
    let d3 = BinaryDataset::new(&x, 3, 2, &[0, 1, 2], 3, None).unwrap();
    let err = solve_osdt(&d3, &OsdtConfig::default(), &mut NoMonitor).unwrap_err();
    assert!(err.0.contains("GOSDTClassifier"), "{err}");
    let d2 = BinaryDataset::new(&x, 3, 2, &[0, 1, 1], 2, None).unwrap();
    for reg in [-0.1, f64::NAN, f64::INFINITY] {
        assert!(solve_osdt(&d2, &OsdtConfig { regularization: reg, ..Default::default() }, &mut NoMonitor).is_err());
    }
    assert!(OsdtBounds::ALL.without("lookahed").unwrap_err().0.contains("lookahead"));
    assert!(OsdtPolicy::from_name("random").unwrap_err().0.contains("curiosity"));
    for p in OsdtPolicy::NAMES {
        assert_eq!(OsdtPolicy::from_name(p).unwrap().as_str(), p);
    }
    // Bad warm starts: a feature out of range, a cycle, a node no parent reaches (a node
    // with one child is refused where the arrays are read, in the binding).
    let bad = [
        tree_of(&[Some((5, 1, 2)), None, None]),
        tree_of(&[Some((0, 1, 2)), Some((1, 0, 2)), None]),
        tree_of(&[Some((0, 1, 2)), None, None, None]),
    ];
    for t in bad {
        let config = OsdtConfig { warm_start: Some(t), ..Default::default() };
        assert!(solve_osdt(&d2, &config, &mut NoMonitor).is_err());
    }
}

