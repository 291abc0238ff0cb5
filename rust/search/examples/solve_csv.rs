//! Solves one benchmark CSV (0/1 features, label last) with GOSDT and prints the result:
//! `cargo run --release -p treeopt-search --example solve_csv -- FILE REG [MAX_DEPTH|none] [TIME_LIMIT] [gosdt|dl85]`

use std::path::Path;
use std::time::Duration;
use treeopt_core::io::read_binary_csv;
use treeopt_search::{solve_dl85, solve_gosdt, Dl85Config, GosdtConfig, Limits, NoMonitor};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: solve_csv FILE REGULARIZATION [MAX_DEPTH|none] [TIME_LIMIT_SECONDS] [gosdt|dl85]");
        std::process::exit(2);
    }
    let data = read_binary_csv(Path::new(&args[1])).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let config = GosdtConfig {
        regularization: args[2].parse().expect("regularization must be a number"),
        max_depth: args.get(3).and_then(|d| d.parse().ok()),
        limits: Limits {
            time_limit: args.get(4).map(|t| Duration::from_secs_f64(t.parse().expect("seconds"))),
            memory_limit: None,
        },
        ..Default::default()
    };
    let res = if args.get(5).map(String::as_str) == Some("dl85") {
        let dl85 = Dl85Config {
            max_depth: config.max_depth.expect("dl85 needs a MAX_DEPTH"),
            regularization: config.regularization,
            limits: config.limits.clone(),
            ..Default::default()
        };
        solve_dl85(&data, &dl85, &mut NoMonitor)
    } else {
        solve_gosdt(&data, &config, &mut NoMonitor)
    }
    .expect("valid configuration");
    println!(
        "groups={} objective={:.9} lower_bound={:.9} status={} leaves={} depth={} seconds={:.3} subproblems={} expansions={} store_MiB={:.1}",
        data.n_groups(),
        res.objective,
        res.lower_bound,
        res.status.as_str(),
        res.tree.n_leaves(),
        res.tree.depth(),
        res.stats.seconds,
        res.stats.subproblems,
        res.stats.expansions,
        res.stats.memory_bytes as f64 / 1048576.0
    );
}
