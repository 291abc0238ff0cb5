//! Solves one benchmark CSV (label last) with GOSDT or DL8.5 and prints the result and
//! the search's work counters. `binary` (the default) reads 0/1 features without a
//! header; `numeric` reads a header row and numeric features, split at every midpoint;
//! `regression` reads a header row, 0/1 features and a real target last, and minimises
//! squared error; `numeric-regression` the same with numeric features:
//! `cargo run --release -p treeopt-search --example solve_csv -- FILE REG [MAX_DEPTH|none] [TIME_LIMIT] [gosdt|dl85] [binary|numeric|regression|numeric-regression] [THREADS]`

use std::path::Path;
use std::time::Duration;
use treeopt_core::io::{read_binary_csv, read_numeric_csv};
use treeopt_core::{BinaryDataset, NumericDataset};
use treeopt_search::{
    solve_dl85, solve_dl85_numeric, solve_dl85_regression, solve_dl85_regression_numeric, solve_gosdt, solve_gosdt_numeric,
    solve_gosdt_regression, solve_gosdt_regression_numeric,
    Dl85Config, GosdtConfig, Limits, NoMonitor,
};

fn exit_with(e: impl std::fmt::Display) -> ! {
    eprintln!("{e}");
    std::process::exit(2)
}

/// A header row, then rows of 0/1 features and a real target last: the features (one
/// class for all rows) and the targets.
fn read_regression_csv(path: &Path) -> (BinaryDataset, Vec<f64>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| exit_with(e));
    let (mut x, mut y, mut columns) = (Vec::new(), Vec::new(), 0);
    for line in text.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        columns = cells.len() - 1;
        x.extend(cells[..columns].iter().map(|c| c.parse::<f64>().unwrap_or_else(|e| exit_with(e)) as u8));
        y.push(cells[columns].parse::<f64>().unwrap_or_else(|e| exit_with(e)));
    }
    let data = BinaryDataset::new(&x, y.len(), columns, &vec![0; y.len()], 1, None).unwrap_or_else(|e| exit_with(e));
    (data, y)
}

/// A header row, then rows of numeric features and a real target last: the features
/// (one class for all rows, split at every midpoint) and the targets.
fn read_numeric_regression_csv(path: &Path) -> (NumericDataset, Vec<f64>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| exit_with(e));
    let (mut x, mut y, mut columns) = (Vec::new(), Vec::new(), 0);
    for line in text.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let cells: Vec<f64> = line.split(',').map(|c| c.trim().parse::<f64>().unwrap_or_else(|e| exit_with(e))).collect();
        columns = cells.len() - 1;
        x.extend_from_slice(&cells[..columns]);
        y.push(cells[columns]);
    }
    let data = NumericDataset::new(&x, y.len(), columns, &vec![0; y.len()], 1, None).unwrap_or_else(|e| exit_with(e));
    (data, y)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        exit_with("usage: solve_csv FILE REGULARIZATION [MAX_DEPTH|none] [TIME_LIMIT_SECONDS] [gosdt|dl85] [binary|numeric] [THREADS]");
    }
    let config = GosdtConfig {
        regularization: args[2].parse().expect("regularization must be a number"),
        max_depth: args.get(3).and_then(|d| d.parse().ok()),
        limits: Limits {
            time_limit: args.get(4).map(|t| Duration::from_secs_f64(t.parse().expect("seconds"))),
            memory_limit: None,
            threads: args.get(7).map_or(1, |t| t.parse().expect("threads must be a count")),
        },
        ..Default::default()
    };
    let dl85 = (args.get(5).map(String::as_str) == Some("dl85")).then(|| Dl85Config {
        max_depth: config.max_depth.expect("dl85 needs a MAX_DEPTH"),
        regularization: config.regularization,
        limits: config.limits.clone(),
        ..Default::default()
    });
    let path = Path::new(&args[1]);
    let mode = args.get(6).map(String::as_str);
    let (res, groups, weight) = if mode == Some("regression") {
        let (data, y) = read_regression_csv(path);
        let res = match &dl85 {
            Some(c) => solve_dl85_regression(&data, &y, None, c, &mut NoMonitor),
            None => solve_gosdt_regression(&data, &y, None, &config, &mut NoMonitor),
        };
        (res.map(|r| r.result), data.n_groups(), data.total_weight())
    } else if mode == Some("numeric-regression") {
        let (data, y) = read_numeric_regression_csv(path);
        let res = match &dl85 {
            Some(c) => solve_dl85_regression_numeric(&data, &y, None, c, &mut NoMonitor),
            None => solve_gosdt_regression_numeric(&data, &y, None, &config, &mut NoMonitor),
        };
        (res.map(|r| r.result), data.n_groups(), data.total_weight())
    } else if mode == Some("numeric") {
        let data = read_numeric_csv(path).unwrap_or_else(|e| exit_with(e));
        let res = match &dl85 {
            Some(c) => solve_dl85_numeric(&data, c, &mut NoMonitor),
            None => solve_gosdt_numeric(&data, &config, &mut NoMonitor),
        };
        (res, data.n_groups(), data.total_weight())
    } else {
        let data = read_binary_csv(path).unwrap_or_else(|e| exit_with(e));
        let res = match &dl85 {
            Some(c) => solve_dl85(&data, c, &mut NoMonitor),
            None => solve_gosdt(&data, &config, &mut NoMonitor),
        };
        (res, data.n_groups(), data.total_weight())
    };
    let res = res.expect("valid configuration");
    println!(
        "groups={} objective={:.9} lower_bound={:.9} total_weight={} status={} leaves={} depth={} seconds={:.3} subproblems={} expansions={} kernel_solves={} kernel_roots={} store_MiB={:.1}",
        groups,
        res.objective,
        res.lower_bound,
        weight,
        res.status.as_str(),
        res.tree.n_leaves(),
        res.tree.depth(),
        res.stats.seconds,
        res.stats.subproblems,
        res.stats.expansions,
        res.stats.kernel_solves,
        res.stats.kernel_roots,
        res.stats.memory_bytes as f64 / 1048576.0
    );
}
