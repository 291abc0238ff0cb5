//! The numeric search on ConTree's UCI sets (`../shared/datasets/numeric` next to the
//! repository; the tests print a note and pass without checking when that folder is
//! absent): proven optimal, and equal to the 0/1 path on the same rows binarized at
//! every midpoint (on a prefix of the rows, where that route finishes quickly).

mod common;

use common::binarize_every_midpoint;
use std::path::PathBuf;
use treeopt_core::io::read_numeric_csv_values;
use treeopt_core::{BinaryDataset, NumericDataset};
use treeopt_search::{solve_dl85, solve_dl85_numeric, Dl85Config, NoMonitor, Status, Thresholds};

/// The first `rows` rows of a shared numeric set: values, labels, columns and classes.
fn rows_of(name: &str, rows: usize) -> Option<(Vec<f64>, Vec<u32>, usize, usize)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/datasets/numeric");
    if !dir.is_dir() {
        eprintln!("shared numeric datasets not found at {}; skipping", dir.display());
        return None;
    }
    let (x, y, n, m) = read_numeric_csv_values(&dir.join(format!("{name}.csv"))).expect("readable dataset");
    let n = n.min(rows);
    let classes = y.iter().max().map_or(1, |&c| c as usize + 1);
    Some((x[..n * m].to_vec(), y[..n].to_vec(), m, classes))
}


#[test]
fn numeric_dl85_equals_the_binarized_route_on_shared_sets() {
    for (name, rows, depth) in [("bank", 300, 2), ("raisin", 200, 2), ("wilt", 150, 2), ("segment", 120, 2), ("rice", 120, 3)] {
        let Some((x, y, m, classes)) = rows_of(name, rows) else { return };
        let n = y.len();
        let numeric = NumericDataset::new(&x, n, m, &y, classes, None).unwrap();
        let (bits, cuts) = binarize_every_midpoint(&x, n, m);
        let binary = BinaryDataset::new(&bits, n, cuts, &y, classes, None).unwrap();
        let config = Dl85Config { max_depth: depth, ..Default::default() };
        let t = std::time::Instant::now();
        let a = solve_dl85_numeric(&numeric, &config, &mut NoMonitor).unwrap();
        let ta = t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        let b = solve_dl85(&binary, &config, &mut NoMonitor).unwrap();
        let tb = t.elapsed().as_secs_f64();
        eprintln!(
            "{name} ({n} rows, {m} columns, {cuts} thresholds) depth {depth}: numeric {:.9} in {ta:.3}s, binarized {:.9} in {tb:.3}s",
            a.objective, b.objective
        );
        assert_eq!((a.status, b.status), (Status::Optimal, Status::Optimal), "{name}");
        assert!((a.objective - b.objective).abs() < 1e-9, "{name}: numeric {} binarized {}", a.objective, b.objective);
        // Read in original units, the tree's training error is the objective.
        let described = Thresholds::new(&numeric).describe_tree(&a.tree);
        let errors = (0..n)
            .filter(|&i| {
                let mut k = 0;
                while let Some(d) = described[k] {
                    let node = &a.tree.nodes[k];
                    k = if x[i * m + d.feature] <= d.threshold { node.left } else { node.right };
                }
                a.labels[k] != y[i] as usize
            })
            .count();
        assert!((errors as f64 / n as f64 - a.objective).abs() < 1e-9, "{name}: {errors} errors, objective {}", a.objective);
    }
}
