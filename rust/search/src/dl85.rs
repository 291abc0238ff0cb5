//! DL8.5: optimal decision trees under a depth limit and a minimum leaf support
//! (Aglin, Nijssen and Schaus, AAAI 2020; McTavish et al. 2022, appendix G), minimising
//! misclassified weight, optionally plus a penalty per leaf (then GOSDT's objective under
//! a depth limit). DL8.5's cached branch and bound with upper bounds passed down is the
//! search of [`crate::graph`], whose cache is keyed canonically by the captured rows, so
//! the same subproblem reached by any itemset is one entry; subproblems two levels from
//! the limit are solved by MurTree's pairwise-count kernel.

use crate::budget::{Limits, Monitor};
use crate::graph::{run, run_numeric, run_regression, GosdtConfig};
use crate::split::{Thresholds, ZeroOneColumns};
use crate::{RegressionResult, SearchResult};
use treeopt_core::{BinaryDataset, Error, NumericDataset, Result};

/// Parameters of a DL8.5 search.
#[derive(Clone, Debug)]
pub struct Dl85Config {
    /// Maximum depth in scikit-learn's sense (a single leaf has depth 0).
    pub max_depth: usize,
    /// Minimum number of rows in every leaf (DL8.5's `min_sup`).
    pub min_samples_leaf: usize,
    /// Penalty per leaf, as a fraction of the total weight (0: pure accuracy).
    pub regularization: f64,
    /// Time and memory limits.
    pub limits: Limits,
    /// Lower-bound guessing: per input row, the weight the reference model misclassifies.
    pub reference_errors: Option<Vec<f64>>,
    /// Cost-sensitive misclassification: the row-major `n_classes x n_classes` matrix
    /// whose entry `[y, k]` is the cost of predicting class `k` for a row of class `y`
    /// (zero diagonal). `None` counts every error as 1 (the matrix `1 - I`). With
    /// lower-bound guessing, `reference_errors` should then hold each row's cost under
    /// the reference model (its weight times the cost of the reference's prediction).
    pub misclassification_cost: Option<Vec<f64>>,
}

impl Default for Dl85Config {
    fn default() -> Self {
        Dl85Config { max_depth: 3, min_samples_leaf: 1, regularization: 0.0, limits: Limits::default(), reference_errors: None, misclassification_cost: None }
    }
}

/// Finds the best tree of depth at most `max_depth` whose leaves hold at least
/// `min_samples_leaf` rows. On a limit or a stop request the best tree found is returned
/// with its status and a proven lower bound.
pub fn solve<M: Monitor>(data: &BinaryDataset, config: &Dl85Config, monitor: &mut M) -> Result<SearchResult> {
    run(data, &problem(config)?, monitor)
}

/// [`solve`] on numeric columns, branching on (column, threshold) at every midpoint
/// between consecutive distinct values of the rows a node captures (see
/// [`crate::gosdt::solve_numeric`]).
pub fn solve_numeric<M: Monitor>(data: &NumericDataset, config: &Dl85Config, monitor: &mut M) -> Result<SearchResult> {
    run_numeric(data, &problem(config)?, monitor)
}

/// [`solve`] minimising the squared error of the targets `y` (one per row of `data`,
/// weighted by `weights` as `data` was built) over its variance, plus the penalty per
/// leaf (see [`crate::gosdt::solve_regression`]).
pub fn solve_regression<M: Monitor>(data: &BinaryDataset, y: &[f64], weights: Option<&[f64]>, config: &Dl85Config, monitor: &mut M) -> Result<RegressionResult> {
    run_regression(data, ZeroOneColumns::new(data), y, weights, &problem(config)?, monitor).map(RegressionResult::new)
}

/// [`solve_regression`] on numeric columns (see [`solve_numeric`]).
pub fn solve_regression_numeric<M: Monitor>(data: &NumericDataset, y: &[f64], weights: Option<&[f64]>, config: &Dl85Config, monitor: &mut M) -> Result<RegressionResult> {
    run_regression(data, Thresholds::new(data), y, weights, &problem(config)?, monitor).map(RegressionResult::new)
}

/// The graph search's form of a DL8.5 search: a depth limit and a minimum support.
fn problem(config: &Dl85Config) -> Result<GosdtConfig> {
    if config.min_samples_leaf == 0 {
        return Err(Error::new("min_samples_leaf must be at least 1"));
    }
    Ok(GosdtConfig {
        regularization: config.regularization,
        max_depth: Some(config.max_depth),
        min_samples_leaf: config.min_samples_leaf,
        limits: config.limits.clone(),
        reference_errors: config.reference_errors.clone(),
        misclassification_cost: config.misclassification_cost.clone(),
        record_splits: false,
    })
}
