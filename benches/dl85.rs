//! Criterion benchmark of the DL8.5 solver (accuracy objective, minimum leaf support 1)
//! on shared benchmark datasets (`cargo bench --bench dl85`; data from ../shared/datasets).

use criterion::{criterion_group, criterion_main, Criterion};
use std::path::PathBuf;
use treeopt_core::io::read_binary_csv;
use treeopt_search::{solve_dl85, Dl85Config, NoMonitor, Status};

fn dataset_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/datasets").join(format!("{name}.csv"))
}

fn bench_dl85(c: &mut Criterion) {
    let cases: [(&str, usize); 4] = [("compas_binary", 5), ("tic-tac-toe", 4), ("car_evaluation", 5), ("fico_binary", 4)];
    let mut group = c.benchmark_group("dl85");
    group.sample_size(10);
    for (name, depth) in cases {
        let path = dataset_path(name);
        let Ok(data) = read_binary_csv(&path) else {
            eprintln!("skipping {name}: {} not found", path.display());
            continue;
        };
        let config = Dl85Config { max_depth: depth, ..Default::default() };
        group.bench_function(format!("{name}/depth={depth}"), |b| {
            b.iter(|| {
                let res = solve_dl85(&data, &config, &mut NoMonitor).unwrap();
                assert_eq!(res.status, Status::Optimal);
                res.objective
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_dl85);
criterion_main!(benches);
