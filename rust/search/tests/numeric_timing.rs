//! Timing of the numeric search on ConTree's UCI sets and fico (`../shared/datasets` next
//! to the repository). Ignored by default; run in release:
//! `cargo test --release -p treeopt-search --test numeric_timing -- --ignored --nocapture`
//! (`TREEOPT_DEPTHS=2,3`, `TREEOPT_SETS=fico,bank`, `TREEOPT_TIME_LIMIT=seconds` select; an
//! absolute path in `TREEOPT_SETS` names any CSV of numeric columns and a last label column).

use std::path::PathBuf;
use std::time::{Duration, Instant};
use treeopt_core::io::read_numeric_csv_values;
use treeopt_core::NumericDataset;
use treeopt_search::{solve_dl85_numeric, Dl85Config, Limits, NoMonitor};

#[test]
#[ignore]
fn time_numeric_dl85_on_shared_sets() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/datasets");
    if !root.is_dir() {
        eprintln!("shared datasets not found at {}; skipping", root.display());
        return;
    }
    let var = |k: &str, d: &str| std::env::var(k).unwrap_or_else(|_| d.to_string());
    let depths: Vec<usize> = var("TREEOPT_DEPTHS", "2").split(',').map(|d| d.parse().unwrap()).collect();
    let limit: f64 = var("TREEOPT_TIME_LIMIT", "30").parse().unwrap();
    let all = "bank,bidding,magic,occupancy,raisin,rice,segment,wilt,fico";
    for name in var("TREEOPT_SETS", all).split(',') {
        let path = if name.starts_with('/') { PathBuf::from(name) } else if name == "fico" { root.join("fico.csv") } else { root.join("numeric").join(format!("{name}.csv")) };
        let (x, y, n, m) = read_numeric_csv_values(&path).expect("readable dataset");
        let classes = y.iter().max().map_or(1, |&c| c as usize + 1);
        let data = NumericDataset::new(&x, n, m, &y, classes, None).unwrap();
        for &depth in &depths {
            let config = Dl85Config { max_depth: depth, limits: Limits { time_limit: Some(Duration::from_secs_f64(limit)), memory_limit: None, threads: 1 }, ..Default::default() };
            let t = Instant::now();
            let r = solve_dl85_numeric(&data, &config, &mut NoMonitor).unwrap();
            eprintln!(
                "{name:10} ({n} rows, {m} cols, {} groups) depth {depth}: {:?} errors {:.0} in {:.3}s ({} subproblems)",
                data.n_groups(),
                r.status,
                r.objective * n as f64,
                t.elapsed().as_secs_f64(),
                r.stats.subproblems
            );
        }
    }
}
