//! Criterion benchmark of the GOSDT solver on shared benchmark datasets
//! (`cargo bench --bench gosdt`; the datasets are read from ../shared/datasets).

use criterion::{criterion_group, criterion_main, Criterion};
use std::path::PathBuf;
use treeopt_core::io::read_binary_csv;
use treeopt_search::{solve_gosdt, GosdtConfig, NoMonitor, Status};

fn dataset_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/datasets").join(format!("{name}.csv"))
}

fn bench_gosdt(c: &mut Criterion) {
    let cases: [(&str, f64, Option<usize>); 4] = [
        ("monk2", 0.005, None),
        ("compas_binary", 0.005, None),
        ("compas_binary", 0.001, Some(5)),
        ("fico_binary", 0.001, Some(4)),
    ];
    let mut group = c.benchmark_group("gosdt");
    group.sample_size(10);
    for (name, reg, depth) in cases {
        let path = dataset_path(name);
        let Ok(data) = read_binary_csv(&path) else {
            eprintln!("skipping {name}: {} not found", path.display());
            continue;
        };
        let config = GosdtConfig { regularization: reg, max_depth: depth, ..Default::default() };
        let label = format!("{name}/reg={reg}/depth={}", depth.map_or("none".into(), |d| d.to_string()));
        group.bench_function(label, |b| {
            b.iter(|| {
                let res = solve_gosdt(&data, &config, &mut NoMonitor).unwrap();
                assert_eq!(res.status, Status::Optimal);
                res.objective
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_gosdt);
criterion_main!(benches);
