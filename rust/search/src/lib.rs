//! treeopt's optimal decision tree solvers over the shared core. One module per solver
//! (`gosdt`, `dl85`), both configurations of the dependency-graph search in `graph`;
//! each takes a [`treeopt_core::BinaryDataset`] (or, `solve_*_numeric`, a
//! [`treeopt_core::NumericDataset`]) and a config and returns a [`SearchResult`]; their
//! `solve_regression*` minimise squared error instead and return a
//! [`RegressionResult`]. No Python here.

pub mod budget;
mod boxkey;
mod depth2;
pub mod dl85;
pub mod gosdt;
mod graph;
pub mod objective;
mod rules;
pub mod osdt;
pub mod rashomon;
pub mod split;
mod store;
mod sweep;
mod table;
#[cfg(test)]
mod testing;

pub use budget::{Limits, Monitor, NoMonitor, Progress};
pub use dl85::{
    solve as solve_dl85, solve_numeric as solve_dl85_numeric, solve_regression as solve_dl85_regression,
    solve_regression_numeric as solve_dl85_regression_numeric, Dl85Config,
};
pub use gosdt::{
    solve as solve_gosdt, solve_numeric as solve_gosdt_numeric, solve_regression as solve_gosdt_regression,
    solve_regression_numeric as solve_gosdt_regression_numeric, GosdtConfig,
};
pub use rashomon::{rashomon_set, rashomon_set_numeric, RashomonBound, RashomonConfig, RashomonError, RashomonGraph, TreeRecord};
pub use split::{SplitDescription, Thresholds};
pub use osdt::{solve as solve_osdt, Bounds as OsdtBounds, OsdtConfig, OsdtResult, OsdtStats, Policy as OsdtPolicy};

use treeopt_core::Tree;

/// How a search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// The lower bound met the objective: the tree is provably optimal.
    Optimal,
    /// The time limit stopped the search; the tree is the best found.
    TimeLimit,
    /// The memory limit stopped the search; the tree is the best found.
    MemoryLimit,
    /// The caller (Ctrl-C) stopped the search; the tree is the best found.
    Interrupted,
    /// Lower-bound guessing closed the search: the tree matches the reference model's
    /// guessed bound (Theorem 4.3 of McTavish et al. bounds its distance to optimal).
    MatchedReference,
}

impl Status {
    /// The status name used by the Python API.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Optimal => "optimal",
            Status::TimeLimit => "time_limit",
            Status::MemoryLimit => "memory_limit",
            Status::Interrupted => "interrupted",
            Status::MatchedReference => "matched_reference",
        }
    }
}

/// Counters describing the work a search did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    /// Subproblems stored in the dependency graph.
    pub subproblems: u64,
    /// Subproblem expansions (a pass over the captured data to bound every split).
    pub expansions: u64,
    /// Wall-clock seconds of the search.
    pub seconds: f64,
    /// Bytes held by the subproblem store at the end.
    pub memory_bytes: u64,
    /// Subproblems of two levels handed to the numeric sweep kernel and not answered
    /// from its memo of the last one (0 on 0/1 columns).
    pub kernel_solves: u64,
    /// Root thresholds whose two sides the sweep kernel evaluated in those solves: the
    /// load-independent measure of its work.
    pub kernel_roots: u64,
}

/// One split of one subproblem as the search left it (objective units): every tree
/// rooted at this split of the subproblem costs at least `lower_bound`, and one costing
/// `upper_bound` is known. The raw material of a Rashomon set.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedSplit {
    /// The captured equivalence classes (groups of the dataset), as bitset words.
    pub capture: Vec<u64>,
    /// Levels left below the subproblem (`None` without a depth limit).
    pub depth: Option<usize>,
    /// The split (a 0/1 feature, or with numeric columns a split of [`Thresholds`]).
    pub feature: usize,
    /// Proven lower bound on the objective contribution of the best tree rooted here.
    pub lower_bound: f64,
    /// Contribution of the best tree known rooted here.
    pub upper_bound: f64,
}

/// What a solver returns: the best tree, its objective, a certified lower bound on the
/// optimal objective, how the search ended and its statistics.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// The best tree found; each node's value holds the summed statistics of the
    /// objective (for classification, the class weights of the rows it captures). Its
    /// split nodes name 0/1 features or, from a numeric search, splits of
    /// [`Thresholds`] (whose `describe_tree` reads them as column and threshold).
    pub tree: Tree,
    /// Per node of `tree`, the class the objective predicts there (the heaviest class
    /// under plain misclassification, as `Node::prediction`).
    pub labels: Vec<usize>,
    /// With `record_splits`, every (subproblem, split) the search bounded.
    pub splits: Option<Vec<RecordedSplit>>,
    /// Objective of `tree`, recomputed from the data.
    pub objective: f64,
    /// Proven lower bound on the optimal objective (equal to `objective` when optimal).
    pub lower_bound: f64,
    /// With lower-bound guessing, the guessed bound the search closed against.
    pub guessed_lower_bound: Option<f64>,
    /// How the search ended.
    pub status: Status,
    /// Work counters.
    pub stats: Stats,
}

/// What a regression search returns: the search result (objective: weighted mean
/// squared error / weighted variance of the target + λ x leaves; its tree's node values
/// are the standardised statistics of [`objective::SquaredError`], `labels` empty) and
/// per node of its tree the prediction there (the weighted mean target of its rows).
#[derive(Clone, Debug)]
pub struct RegressionResult {
    pub result: SearchResult,
    /// Per node of `result.tree`, the weighted mean target of the rows it captures.
    pub means: Vec<f64>,
}

impl RegressionResult {
    fn new((result, means): (SearchResult, Vec<f64>)) -> Self {
        RegressionResult { result, means }
    }
}
