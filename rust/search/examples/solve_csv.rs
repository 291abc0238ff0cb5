//! Solves one benchmark CSV (label last) with GOSDT or DL8.5 and prints the result and
//! the search's work counters. `binary` (the default) reads 0/1 features without a
//! header; `numeric` reads a header row and numeric features, split at every midpoint:
//! `cargo run --release -p treeopt-search --example solve_csv -- FILE REG [MAX_DEPTH|none] [TIME_LIMIT] [gosdt|dl85] [binary|numeric]`

use std::path::Path;
use std::time::Duration;
use treeopt_core::io::{read_binary_csv, read_numeric_csv};
use treeopt_search::{
    solve_dl85, solve_dl85_numeric, solve_gosdt, solve_gosdt_numeric, Dl85Config, GosdtConfig, Limits, NoMonitor,
};

fn exit_with(e: impl std::fmt::Display) -> ! {
    eprintln!("{e}");
    std::process::exit(2)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        exit_with("usage: solve_csv FILE REGULARIZATION [MAX_DEPTH|none] [TIME_LIMIT_SECONDS] [gosdt|dl85] [binary|numeric]");
    }
    let config = GosdtConfig {
        regularization: args[2].parse().expect("regularization must be a number"),
        max_depth: args.get(3).and_then(|d| d.parse().ok()),
        limits: Limits {
            time_limit: args.get(4).map(|t| Duration::from_secs_f64(t.parse().expect("seconds"))),
            memory_limit: None,
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
    let (res, groups, weight) = if args.get(6).map(String::as_str) == Some("numeric") {
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
