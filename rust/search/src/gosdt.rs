//! GOSDT: provably optimal sparse decision trees (Lin et al. 2020; McTavish et al. 2022,
//! Algorithm 1): minimise misclassified weight (or, with a cost matrix, its cost) / total
//! weight + λ x leaves, optionally under a depth limit, by the dependency-graph search of [`crate::graph`].

use crate::budget::Monitor;
pub use crate::graph::GosdtConfig;
use crate::graph::{run, run_numeric, run_regression};
use crate::split::{Thresholds, ZeroOneColumns};
use crate::{RegressionResult, SearchResult};
use treeopt_core::{BinaryDataset, NumericDataset, Result};


/// Finds the tree minimising the GOSDT objective. On a limit or a stop request the best
/// tree found is returned with its status and a proven lower bound.
pub fn solve<M: Monitor>(data: &BinaryDataset, config: &GosdtConfig, monitor: &mut M) -> Result<SearchResult> {
    run(data, config, monitor)
}

/// [`solve`] on numeric columns, branching on (column, threshold) at every midpoint
/// between consecutive distinct values of the rows a node captures. The tree's split
/// nodes hold numbers of [`crate::split::Thresholds`] splits; its `describe_tree` gives
/// their columns and thresholds.
pub fn solve_numeric<M: Monitor>(data: &NumericDataset, config: &GosdtConfig, monitor: &mut M) -> Result<SearchResult> {
    run_numeric(data, config, monitor)
}

/// The optimal sparse regression tree (OSRT's objective, Zhang et al. 2023): [`solve`]
/// minimising the squared error of the targets `y` (one per row of `data`, weighted by
/// `weights` as `data` was built) over its variance, plus λ x leaves.
/// `reference_errors` and `misclassification_cost` must be `None`.
pub fn solve_regression<M: Monitor>(data: &BinaryDataset, y: &[f64], weights: Option<&[f64]>, config: &GosdtConfig, monitor: &mut M) -> Result<RegressionResult> {
    run_regression(data, ZeroOneColumns::new(data), y, weights, config, monitor).map(RegressionResult::new)
}

/// [`solve_regression`] on numeric columns (see [`solve_numeric`]).
pub fn solve_regression_numeric<M: Monitor>(data: &NumericDataset, y: &[f64], weights: Option<&[f64]>, config: &GosdtConfig, monitor: &mut M) -> Result<RegressionResult> {
    run_regression(data, Thresholds::new(data), y, weights, config, monitor).map(RegressionResult::new)
}
