//! OSDT on the shared benchmark datasets (`../shared/datasets` next to the repository;
//! the tests print a note and pass without checking when that folder is absent): the
//! same objective as GOSDT, proven optimal, and the anytime behaviour under a time limit.

use std::path::PathBuf;
use std::time::Duration;
use treeopt_core::io::read_binary_csv;
use treeopt_core::BinaryDataset;
use treeopt_search::{solve_gosdt, solve_osdt, GosdtConfig, Limits, NoMonitor, OsdtConfig, Status};

fn dataset(name: &str) -> Option<BinaryDataset> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/datasets");
    if !dir.is_dir() {
        eprintln!("shared datasets not found at {}; skipping", dir.display());
        return None;
    }
    Some(read_binary_csv(&dir.join(format!("{name}.csv"))).expect("readable dataset"))
}

#[test]
fn osdt_equals_gosdt_on_shared_datasets() {
    for (name, reg) in [("monk1", 0.02), ("monk3", 0.02), ("compas_binary", 0.005), ("tic-tac-toe", 0.05), ("car_evaluation", 0.02)] {
        let Some(data) = dataset(name) else { return };
        let config = OsdtConfig { regularization: reg, ..Default::default() };
        let o = solve_osdt(&data, &config, &mut NoMonitor).unwrap();
        let g = solve_gosdt(&data, &GosdtConfig { regularization: reg, ..Default::default() }, &mut NoMonitor).unwrap();
        eprintln!(
            "{name} λ={reg}: OSDT {:.9} ({:?}, {} trees, {:.3}s, {} leaves) GOSDT {:.9}",
            o.result.objective,
            o.result.status,
            o.stats.trees_evaluated,
            o.result.stats.seconds,
            o.result.tree.n_leaves(),
            g.objective
        );
        assert_eq!(o.result.status, Status::Optimal, "{name}");
        assert_eq!(g.status, Status::Optimal, "{name}");
        assert!((o.result.objective - g.objective).abs() < 1e-9, "{name}: OSDT {} GOSDT {}", o.result.objective, g.objective);
        assert_eq!(o.result.lower_bound, o.result.objective);
    }
}

#[test]
fn time_limit_returns_the_incumbent_with_a_bound() {
    let Some(data) = dataset("fico_binary") else { return };
    let config = OsdtConfig {
        regularization: 0.001,
        limits: Limits { time_limit: Some(Duration::from_millis(500)), memory_limit: None, threads: 1 },
        ..Default::default()
    };
    let start = std::time::Instant::now();
    let res = solve_osdt(&data, &config, &mut NoMonitor).unwrap();
    assert!(start.elapsed() < Duration::from_secs(3));
    assert_eq!(res.result.status, Status::TimeLimit);
    assert!(res.result.lower_bound <= res.result.objective);
    assert!((res.result.tree.objective(&data, 0.001) - res.result.objective).abs() < 1e-12);
    // The best tree of depth <= 3 is no better than the optimum, which the bound must not exceed.
    let g = solve_gosdt(&data, &GosdtConfig { regularization: 0.001, max_depth: Some(3), ..Default::default() }, &mut NoMonitor).unwrap();
    assert!(res.result.lower_bound <= g.objective + 1e-12);
}
