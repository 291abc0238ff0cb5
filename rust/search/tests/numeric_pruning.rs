//! The interval prunings of the numeric search (ConTree's neighbourhood pruning and the
//! slack it searches children with, the sweep kernel's interval bisection) only act on
//! columns with many thresholds, beyond the small instances of `numeric_oracle.rs`: here
//! the numeric search is checked against the 0/1 search on the same rows binarized at
//! every midpoint (which prunes no interval), on random instances with many distinct
//! values, weights, 2-3 classes, a penalty, a cost matrix and depths 2-4.

mod common;

use common::binarize_every_midpoint;
use treeopt_core::{BinaryDataset, NumericDataset};
use treeopt_search::{solve_dl85, solve_dl85_numeric, solve_gosdt, solve_gosdt_numeric, Dl85Config, GosdtConfig, NoMonitor, Status};

fn instance(seed: u64, rows: usize, m: usize, classes: usize, levels: usize) -> (Vec<f64>, Vec<u32>, Vec<f64>) {
    let mut s = seed;
    let mut next = || {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (s >> 33) as usize
    };
    // A noisy threshold concept, so that good trees exist and bounds bite.
    let x: Vec<f64> = (0..rows * m).map(|_| (next() % levels) as f64 * 0.25).collect();
    let y: Vec<u32> = (0..rows)
        .map(|i| {
            let v = x[i * m] + if m > 1 { x[i * m + 1] } else { 0.0 };
            let c = ((v / (levels as f64 * 0.25)) * classes as f64) as usize % classes;
            if next() % 5 == 0 { (next() % classes) as u32 } else { c as u32 }
        })
        .collect();
    let w: Vec<f64> = (0..rows).map(|_| if seed % 2 == 0 { 1.0 } else { 0.5 + (next() % 7) as f64 * 0.5 }).collect();
    (x, y, w)
}


#[test]
fn numeric_search_equals_the_binarized_search_with_many_thresholds() {
    for seed in 0..48u64 {
        let (rows, m, classes) = (40 + (seed % 5) as usize * 15, 1 + (seed % 3) as usize, 2 + (seed % 2) as usize);
        let levels = 12 + (seed % 4) as usize * 8;
        let (x, y, w) = instance(seed, rows, m, classes, levels);
        let numeric = NumericDataset::new(&x, rows, m, &y, classes, Some(&w)).unwrap();
        let (bits, n_cuts) = binarize_every_midpoint(&x, rows, m);
        let binary = BinaryDataset::new(&bits, rows, n_cuts, &y, classes, Some(&w)).unwrap();
        let depth = 2 + (seed % 3) as usize;
        let regularization = [0.0, 0.0, 0.01, 0.03][(seed / 3 % 4) as usize];
        let cost = (seed % 4 == 1).then(|| (0..classes * classes).map(|i| if i / classes == i % classes { 0.0 } else { 1.0 + (i % 3) as f64 * 0.5 }).collect::<Vec<f64>>());
        let config = Dl85Config { max_depth: depth, regularization, misclassification_cost: cost.clone(), ..Default::default() };
        let a = solve_dl85_numeric(&numeric, &config, &mut NoMonitor).unwrap();
        let b = solve_dl85(&binary, &config, &mut NoMonitor).unwrap();
        assert_eq!((a.status, b.status), (Status::Optimal, Status::Optimal), "seed {seed}");
        assert!((a.objective - b.objective).abs() < 1e-9, "seed {seed}, depth {depth}: numeric {} binarized {}", a.objective, b.objective);
        if seed % 4 == 0 {
            // GOSDT without a depth limit and a penalty.
            let config = GosdtConfig { regularization: 0.02, max_depth: None, ..Default::default() };
            let a = solve_gosdt_numeric(&numeric, &config, &mut NoMonitor).unwrap();
            let b = solve_gosdt(&binary, &config, &mut NoMonitor).unwrap();
            assert!((a.objective - b.objective).abs() < 1e-9, "seed {seed}, GOSDT: numeric {} binarized {}", a.objective, b.objective);
        }
    }
}

#[test]
fn near_perfect_trees_prune_both_sides_of_a_threshold_soundly() {
    // Little noise: the best trees make few errors, so the search's bounds are small
    // and a threshold's first child is often pruned against them, after which its other
    // child is searched to rule out the thresholds on the other side as well.
    for seed in 0..40u64 {
        let (rows, m, classes) = (50 + (seed % 4) as usize * 10, 2 + (seed % 2) as usize, 2 + (seed % 3 == 0) as usize);
        let levels = 16 + (seed % 3) as usize * 10;
        let (x, mut y, w) = instance(seed + 500, rows, m, classes, levels);
        // Keep one row in eight of the instance's noise-free concept flipped at most.
        for (i, label) in y.iter_mut().enumerate() {
            let v = x[i * m] + x[i * m + 1];
            let clean = ((v / (levels as f64 * 0.25)) * classes as f64) as u32 % classes as u32;
            if (i + seed as usize) % 8 != 0 {
                *label = clean;
            }
        }
        let numeric = NumericDataset::new(&x, rows, m, &y, classes, Some(&w)).unwrap();
        let (bits, n_cuts) = binarize_every_midpoint(&x, rows, m);
        let binary = BinaryDataset::new(&bits, rows, n_cuts, &y, classes, Some(&w)).unwrap();
        let depth = 3 + (seed % 2) as usize;
        let config = Dl85Config { max_depth: depth, ..Default::default() };
        let a = solve_dl85_numeric(&numeric, &config, &mut NoMonitor).unwrap();
        let b = solve_dl85(&binary, &config, &mut NoMonitor).unwrap();
        assert_eq!((a.status, b.status), (Status::Optimal, Status::Optimal), "seed {seed}");
        assert!((a.objective - b.objective).abs() < 1e-9, "seed {seed}, depth {depth}: numeric {} binarized {}", a.objective, b.objective);
    }
}

#[test]
fn children_start_from_the_bounds_their_run_proved() {
    // Noisy labels over long runs of thresholds at depth 3: most thresholds cost a few
    // errors above the best, so their children's records start from the bounds that
    // evaluated neighbours proved of each side (the left side from thresholds below,
    // the right side from thresholds above, each less the mass moved); a bound given to
    // the wrong side, or not lowered by the mass moved, prunes the optimum here.
    for seed in 0..60u64 {
        let (rows, m, classes) = (60 + (seed % 4) as usize * 20, 1 + (seed % 2) as usize, 2 + (seed % 5 == 0) as usize);
        let levels = 30 + (seed % 3) as usize * 15;
        let (x, y, w) = instance(seed + 900, rows, m, classes, levels);
        let numeric = NumericDataset::new(&x, rows, m, &y, classes, Some(&w)).unwrap();
        let (bits, n_cuts) = binarize_every_midpoint(&x, rows, m);
        let binary = BinaryDataset::new(&bits, rows, n_cuts, &y, classes, Some(&w)).unwrap();
        let depth = 3 + (seed % 3 == 0) as usize;
        let config = Dl85Config { max_depth: depth, ..Default::default() };
        let a = solve_dl85_numeric(&numeric, &config, &mut NoMonitor).unwrap();
        let b = solve_dl85(&binary, &config, &mut NoMonitor).unwrap();
        assert_eq!((a.status, b.status), (Status::Optimal, Status::Optimal), "seed {seed}");
        assert!((a.objective - b.objective).abs() < 1e-9, "seed {seed}, depth {depth}: numeric {} binarized {}", a.objective, b.objective);
    }
}

#[test]
fn a_first_child_searched_past_the_bound_proves_only_what_it_searched() {
    // Labels with a third of them noise over long runs of thresholds at depths 3 and 4:
    // the best trees make many errors, so the search's bound exceeds the mass to the far
    // end of most intervals of a run's bisection, and a threshold's first child is then
    // searched past the bound (by half that slack). What that child proves (solved, or
    // pruned at its larger budget) bounds its threshold and, through the neighbourhood
    // and sub-interval bounds, the thresholds around it; a budget below the bound (the
    // slack taken off instead of added), taken as a proof that the split reaches the
    // bound, prunes the optimum here.
    for seed in 0..40u64 {
        let (rows, m, classes) = (70 + (seed % 4) as usize * 20, 1 + (seed % 3 == 1) as usize, 2 + (seed % 4 == 3) as usize);
        let levels = 40 + (seed % 3) as usize * 20;
        let (x, mut y, w) = instance(seed + 1300, rows, m, classes, levels);
        let mut s = seed.wrapping_add(77);
        for label in y.iter_mut() {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            if (s >> 33) % 3 == 0 {
                *label = ((s >> 40) % classes as u64) as u32;
            }
        }
        let numeric = NumericDataset::new(&x, rows, m, &y, classes, Some(&w)).unwrap();
        let (bits, n_cuts) = binarize_every_midpoint(&x, rows, m);
        let binary = BinaryDataset::new(&bits, rows, n_cuts, &y, classes, Some(&w)).unwrap();
        let depth = 3 + (seed % 4 == 0) as usize;
        let regularization = if seed % 5 == 2 { 0.01 } else { 0.0 };
        let config = Dl85Config { max_depth: depth, regularization, ..Default::default() };
        let a = solve_dl85_numeric(&numeric, &config, &mut NoMonitor).unwrap();
        let b = solve_dl85(&binary, &config, &mut NoMonitor).unwrap();
        assert_eq!((a.status, b.status), (Status::Optimal, Status::Optimal), "seed {seed}");
        assert!((a.objective - b.objective).abs() < 1e-9, "seed {seed}, depth {depth}: numeric {} binarized {}", a.objective, b.objective);
    }
}
