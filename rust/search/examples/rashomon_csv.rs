//! Builds the Rashomon set of one 0/1 benchmark CSV (a header line, label last) and prints
//! its count, nodes and seconds (for profiling the build with perf or callgrind):
//! `cargo run --release -p treeopt-search --example rashomon_csv -- FILE REG BOUND MAX_DEPTH [REPEATS]`

use std::path::Path;
use std::time::Instant;
use treeopt_core::io::read_binary_csv;
use treeopt_search::{rashomon_set, Limits, NoMonitor, RashomonBound, RashomonConfig};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 5 {
        eprintln!("usage: rashomon_csv FILE REGULARIZATION BOUND MAX_DEPTH [REPEATS]");
        std::process::exit(2);
    }
    let data = read_binary_csv(Path::new(&args[1])).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let config = RashomonConfig {
        regularization: args[2].parse().expect("regularization must be a number"),
        bound: RashomonBound::Multiplicative(args[3].parse().expect("bound must be a number")),
        max_depth: Some(args[4].parse().expect("max_depth must be an integer")),
        min_samples_leaf: 1,
        limits: Limits::default(),
    };
    let repeats: usize = args.get(5).map_or(1, |r| r.parse().expect("repeats must be an integer"));
    for _ in 0..repeats {
        let start = Instant::now();
        let graph = rashomon_set(&data, &config, &mut NoMonitor).expect("valid configuration");
        let trees: u128 = graph.levels().iter().map(|l| l.1).sum();
        println!("trees={trees} nodes={} optimum={:.9} seconds={:.4}", graph.n_nodes(), graph.optimal_objective(), start.elapsed().as_secs_f64());
    }
}
