//! What the monitor is shown must be true: the objective in a progress report is the
//! objective of a tree the search could return at that moment (issue 19, I).

use std::time::Duration;
use treeopt_core::BinaryDataset;
use treeopt_search::{solve_dl85, solve_gosdt, Dl85Config, GosdtConfig, Monitor, Progress, SearchResult, Status};

/// Stops the search at its `stop_at`-th report and keeps the reports.
struct StopAt {
    stop_at: usize,
    seen: Vec<Progress>,
}

impl Monitor for StopAt {
    const INTERVAL: Duration = Duration::from_millis(2);
    fn report(&mut self, p: &Progress) -> bool {
        self.seen.push(*p);
        self.seen.len() < self.stop_at
    }
}

/// A noisy problem whose optimal tree takes the search a while to prove.
fn noisy(rows: usize, features: usize, seed: u64) -> BinaryDataset {
    let mut s = seed;
    let mut next = || {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (s >> 33) as u32
    };
    let x: Vec<u8> = (0..rows * features).map(|_| (next() % 2) as u8).collect();
    let y: Vec<u32> = (0..rows)
        .map(|i| {
            let r = &x[i * features..(i + 1) * features];
            let signal = (r[0] & r[1]) | (r[2] & !r[3] & 1) | (r[4] & r[5] & r[6]);
            (signal as u32) ^ u32::from(next() % 100 < 25)
        })
        .collect();
    BinaryDataset::new(&x, rows, features, &y, 2, None).unwrap()
}

/// Checks the report at which the search was stopped; false when it finished first.
fn check(stop_at: usize, run: &impl Fn(&mut StopAt) -> SearchResult) -> bool {
    let mut monitor = StopAt { stop_at, seen: Vec::new() };
    let res = run(&mut monitor);
    if res.status == Status::Optimal {
        return false; // finished before the stop: nothing to compare
    }
    assert_eq!(res.status, Status::Interrupted);
    let last = monitor.seen.last().unwrap();
    // The search stopped right after this report: the tree returned is the tree reported.
    assert!(
        (last.objective - res.objective).abs() < 1e-12,
        "report {stop_at} showed objective {} but the search returned a tree of objective {}",
        last.objective,
        res.objective
    );
    assert!(last.lower_bound <= res.objective + 1e-12);
    true
}

/// Stops `run` at its 3rd, 10th, 25th and 60th report; at least two of them must come
/// before it finishes, or the problem is too easy to test progress on.
fn check_stops(run: impl Fn(&mut StopAt) -> SearchResult) {
    let stopped = [3, 10, 25, 60].into_iter().filter(|&stop_at| check(stop_at, &run));
    assert!(stopped.count() >= 2, "the problem is too easy to test progress on");
}

#[test]
fn progress_shows_the_best_tree_gosdt() {
    let data = noisy(600, 24, 7);
    let config = GosdtConfig { regularization: 0.002, ..Default::default() };
    check_stops(|m| solve_gosdt(&data, &config, m).unwrap());
}

#[test]
fn progress_shows_the_best_tree_dl85() {
    let data = noisy(600, 40, 11);
    let config = Dl85Config { max_depth: 5, ..Default::default() };
    check_stops(|m| solve_dl85(&data, &config, m).unwrap());
}
