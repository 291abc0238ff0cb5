//! Criterion benchmarks of the optimal solvers on shared benchmark datasets:
//! GOSDT (penalty per leaf, optional depth) and DL8.5 (accuracy under a depth limit,
//! minimum leaf support 1). `cargo bench --bench optimal`; the datasets are read from
//! ../shared/datasets (a missing one is skipped).

use criterion::{criterion_group, criterion_main, Criterion};
use std::path::PathBuf;
use treeopt_core::io::read_binary_csv;
use treeopt_core::BinaryDataset;
use treeopt_search::{solve_dl85, solve_gosdt, Dl85Config, GosdtConfig, NoMonitor, SearchResult, Status};

/// Times `solve` on each `(dataset, label, config)` case in the group `name`; every run
/// must prove its tree optimal.
fn bench_cases<C>(c: &mut Criterion, name: &str, cases: Vec<(&str, String, C)>, solve: fn(&BinaryDataset, &C) -> SearchResult) {
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    for (dataset, label, config) in cases {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/datasets").join(format!("{dataset}.csv"));
        let Ok(data) = read_binary_csv(&path) else {
            eprintln!("skipping {dataset}: {} not found", path.display());
            continue;
        };
        group.bench_function(format!("{dataset}/{label}"), |b| {
            b.iter(|| {
                let res = solve(&data, &config);
                assert_eq!(res.status, Status::Optimal);
                res.objective
            })
        });
    }
    group.finish();
}

fn bench_gosdt(c: &mut Criterion) {
    let cases = [("monk2", 0.005, None), ("compas_binary", 0.005, None), ("compas_binary", 0.001, Some(5)), ("fico_binary", 0.001, Some(4))]
        .into_iter()
        .map(|(name, reg, depth): (&str, f64, Option<usize>)| {
            let label = format!("reg={reg}/depth={}", depth.map_or("none".into(), |d| d.to_string()));
            (name, label, GosdtConfig { regularization: reg, max_depth: depth, ..Default::default() })
        })
        .collect();
    bench_cases(c, "gosdt", cases, |data, config| solve_gosdt(data, config, &mut NoMonitor).unwrap());
}

fn bench_dl85(c: &mut Criterion) {
    let cases = [("compas_binary", 5), ("tic-tac-toe", 4), ("car_evaluation", 5), ("fico_binary", 4)]
        .into_iter()
        .map(|(name, depth)| (name, format!("depth={depth}"), Dl85Config { max_depth: depth, ..Default::default() }))
        .collect();
    bench_cases(c, "dl85", cases, |data, config| solve_dl85(data, config, &mut NoMonitor).unwrap());
}

criterion_group!(benches, bench_gosdt, bench_dl85);
criterion_main!(benches);
