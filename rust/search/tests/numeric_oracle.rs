//! The search on numeric columns (issue 12) against an exhaustive oracle over every
//! (column, threshold) tree — at every node, every column and every midpoint between
//! consecutive distinct values of the rows the node holds — and against the 0/1 path on
//! the same data binarized at every midpoint.

mod common;

use common::{binarize_every_midpoint, check_proved};
use proptest::prelude::*;
use std::collections::HashMap;
use treeopt_core::{BinaryDataset, NumericDataset};
use treeopt_search::{solve_dl85, solve_dl85_numeric, solve_gosdt, solve_gosdt_numeric, Dl85Config, GosdtConfig, NoMonitor, SearchResult, Thresholds};

/// A random numeric classification problem with many ties.
#[derive(Debug, Clone)]
struct Instance {
    x: Vec<f64>,
    y: Vec<u32>,
    w: Vec<f64>,
    rows: usize,
    columns: usize,
    classes: usize,
}

impl Instance {
    fn data(&self) -> NumericDataset {
        NumericDataset::new(&self.x, self.rows, self.columns, &self.y, self.classes, Some(&self.w)).unwrap()
    }

    /// The data with one 0/1 column per (column, midpoint of consecutive distinct
    /// values), 1 above the midpoint.
    fn binarized(&self) -> BinaryDataset {
        let (bits, n_cuts) = binarize_every_midpoint(&self.x, self.rows, self.columns);
        BinaryDataset::new(&bits, self.rows, n_cuts, &self.y, self.classes, Some(&self.w)).unwrap()
    }

    fn leaf_loss(&self, rows: &[usize]) -> f64 {
        let mut totals = vec![0.0; self.classes];
        for &r in rows {
            totals[self.y[r] as usize] += self.w[r];
        }
        totals.iter().sum::<f64>() - totals.iter().cloned().fold(0.0, f64::max)
    }
}

/// Up to `max_rows` rows, 1 to `max_columns` columns of values drawn from a few levels
/// (ties everywhere, some columns 0/1), 2 or 3 classes, unit or random weights.
fn instance(max_rows: usize, max_columns: usize) -> impl Strategy<Value = Instance> {
    (1usize..=max_rows, 1usize..=max_columns, 2usize..=3, 2u32..=6).prop_flat_map(|(rows, columns, classes, levels)| {
        (
            proptest::collection::vec((0..levels).prop_map(|v| v as f64 * 1.5 - 2.0), rows * columns),
            proptest::collection::vec(0u32..classes as u32, rows),
            proptest::collection::vec(prop_oneof![Just(1.0), 0.1f64..5.0], rows),
        )
            .prop_map(move |(x, y, w)| Instance { x, y, w, rows, columns, classes })
    })
}

/// Least cost (loss + `penalty` per leaf) over every (column, threshold) tree on `rows`
/// of depth at most `depth`, every leaf holding at least `min_support` rows.
fn oracle(inst: &Instance, penalty: f64, rows: Vec<usize>, depth: Option<usize>, min_support: usize, memo: &mut HashMap<(Vec<usize>, Option<usize>), f64>) -> f64 {
    if let Some(&v) = memo.get(&(rows.clone(), depth)) {
        return v;
    }
    let mut best = inst.leaf_loss(&rows) + penalty;
    if depth != Some(0) {
        for j in 0..inst.columns {
            let value = |i: usize| inst.x[i * inst.columns + j];
            let mut present: Vec<f64> = rows.iter().map(|&i| value(i)).collect();
            present.sort_by(f64::total_cmp);
            present.dedup();
            for p in present.windows(2) {
                let t = (p[0] + p[1]) / 2.0;
                let (l, r): (Vec<usize>, Vec<usize>) = rows.iter().partition(|&&i| value(i) <= t);
                if l.len() < min_support || r.len() < min_support {
                    continue;
                }
                let d = depth.map(|d| d - 1);
                best = best.min(oracle(inst, penalty, l, d, min_support, memo) + oracle(inst, penalty, r, d, min_support, memo));
            }
        }
    }
    memo.insert((rows, depth), best);
    best
}

/// The tree read in original units (the thresholds of `describe_tree`): every row routed
/// by `value <= threshold` lands in the leaf the search put it in, every threshold is a
/// midpoint of consecutive distinct values of the rows its node holds, and the leaves'
/// loss plus penalties is the reported objective.
fn check_described(inst: &Instance, data: &NumericDataset, res: &SearchResult, reg: f64) -> Result<(), TestCaseError> {
    let described = Thresholds::new(data).describe_tree(&res.tree);
    let mut at_leaf: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut at_node: HashMap<usize, Vec<usize>> = HashMap::new();
    for i in 0..inst.rows {
        let mut n = 0;
        loop {
            at_node.entry(n).or_default().push(i);
            match described[n] {
                None => break,
                Some(d) => {
                    let node = &res.tree.nodes[n];
                    n = if inst.x[i * inst.columns + d.feature] <= d.threshold { node.left } else { node.right };
                }
            }
        }
        at_leaf.entry(n).or_default().push(i);
    }
    for (n, d) in described.iter().enumerate() {
        if let Some(d) = d {
            let rows = &at_node[&n];
            let below = rows.iter().map(|&i| inst.x[i * inst.columns + d.feature]).filter(|&v| v <= d.threshold).fold(f64::NEG_INFINITY, f64::max);
            let above = rows.iter().map(|&i| inst.x[i * inst.columns + d.feature]).filter(|&v| v > d.threshold).fold(f64::INFINITY, f64::min);
            prop_assert!(below.is_finite() && above.is_finite(), "node {} does not part its rows", n);
            prop_assert_eq!(d.threshold, (below + above) / 2.0, "node {} threshold is not the midpoint of {} and {}", n, below, above);
        }
    }
    let total: f64 = inst.w.iter().sum();
    let loss: f64 = at_leaf.values().map(|rows| inst.leaf_loss(rows)).sum();
    let objective = loss / total + reg * res.tree.n_leaves() as f64;
    prop_assert!((objective - res.objective).abs() < 1e-9, "routed objective {} reported {}", objective, res.objective);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]
    /// GOSDT on numeric columns: the oracle's objective, proven, at every depth limit
    /// (none included) and penalty.
    #[test]
    fn gosdt_numeric_matches_the_oracle(
        inst in instance(10, 3),
        reg in prop_oneof![Just(0.0), Just(0.01), Just(0.05), 0.0f64..0.2],
        depth in prop_oneof![Just(None), (0usize..4).prop_map(Some)],
    ) {
        let data = inst.data();
        let total: f64 = inst.w.iter().sum();
        let config = GosdtConfig { regularization: reg, max_depth: depth, ..Default::default() };
        let res = solve_gosdt_numeric(&data, &config, &mut NoMonitor).unwrap();
        let want = oracle(&inst, reg * total, (0..inst.rows).collect(), depth, 1, &mut HashMap::new()) / total;
        check_proved(&res, want, depth)?;
        check_described(&inst, &data, &res, reg)?;
        // The 0/1 path on the data binarized at every midpoint finds the same optimum.
        let binary = solve_gosdt(&inst.binarized(), &config, &mut NoMonitor).unwrap();
        prop_assert!((binary.objective - res.objective).abs() < 1e-9, "binarized {} numeric {}", binary.objective, res.objective);
    }
}

/// DL8.5 on numeric columns against the oracle (and, with `against_binary`, against the
/// 0/1 path on the data binarized at every midpoint).
fn check_dl85(inst: &Instance, reg: f64, depth: usize, min_samples_leaf: usize, against_binary: bool) -> Result<(), TestCaseError> {
    let data = inst.data();
    let total: f64 = inst.w.iter().sum();
    let config = Dl85Config { max_depth: depth, min_samples_leaf, regularization: reg, ..Default::default() };
    let res = solve_dl85_numeric(&data, &config, &mut NoMonitor).unwrap();
    let want = oracle(inst, reg * total, (0..inst.rows).collect(), Some(depth), min_samples_leaf, &mut HashMap::new()) / total;
    check_proved(&res, want, Some(depth))?;
    check_described(inst, &data, &res, reg)?;
    if against_binary {
        let binary = solve_dl85(&inst.binarized(), &config, &mut NoMonitor).unwrap();
        prop_assert!((binary.objective - res.objective).abs() < 1e-9, "binarized {} numeric {}", binary.objective, res.objective);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(700))]
    /// DL8.5 on numeric columns with and without a minimum leaf support, on small
    /// instances (up to 12 rows, 3 columns: also against the 0/1 path) and larger ones
    /// (up to 30 rows, 4 columns), depth 1 to 3.
    #[test]
    fn dl85_numeric_matches_the_oracle(
        inst in prop_oneof![5 => instance(12, 3), 2 => instance(30, 4)],
        reg in prop_oneof![Just(0.0), Just(0.01), Just(0.02), 0.0f64..0.1],
        depth in 1usize..=3,
        min_samples_leaf in 1usize..=3,
    ) {
        check_dl85(&inst, reg, depth, min_samples_leaf, inst.rows <= 12 && inst.columns <= 3)?;
    }
}
