//! Solves one numeric CSV (a header row, numeric features, integer label last) with
//! DL8.5 on raw thresholds and prints the result and the search's work counters:
//! `cargo run --release -p treeopt-search --example solve_numeric_csv -- FILE MAX_DEPTH [TIME_LIMIT]`

use std::path::Path;
use std::time::Duration;
use treeopt_core::io::read_numeric_csv;
use treeopt_search::{solve_dl85_numeric, Dl85Config, Limits, NoMonitor};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: solve_numeric_csv FILE MAX_DEPTH [TIME_LIMIT_SECONDS]");
        std::process::exit(2);
    }
    let data = read_numeric_csv(Path::new(&args[1])).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let config = Dl85Config {
        max_depth: args[2].parse().expect("MAX_DEPTH must be an integer"),
        limits: Limits { time_limit: args.get(3).map(|t| Duration::from_secs_f64(t.parse().expect("seconds"))), memory_limit: None },
        ..Default::default()
    };
    let res = solve_dl85_numeric(&data, &config, &mut NoMonitor).expect("valid configuration");
    let w = data.total_weight();
    println!(
        "groups={} errors={:.0} lower_bound={:.0} status={} seconds={:.3} subproblems={} expansions={} MiB={:.1}",
        data.n_groups(),
        res.objective * w,
        res.lower_bound * w,
        res.status.as_str(),
        res.stats.seconds,
        res.stats.subproblems,
        res.stats.expansions,
        res.stats.memory_bytes as f64 / 1048576.0
    );
}
