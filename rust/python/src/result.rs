//! What a search returns to Python: typed, read-only objects instead of a dict, so that a
//! misspelt field is an `AttributeError` at the reader, not a silent `KeyError` later.

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::exceptions::{PyBaseException, PyRuntimeError};
use pyo3::prelude::*;
use crate::fit::Splits;
use treeopt_core::Tree;
use treeopt_search::osdt::OsdtStats;
use treeopt_search::{SearchResult, Stats};

/// Work counters of a search.
#[pyclass(name = "SearchStats", module = "treeopt._core", frozen, get_all)]
pub struct PySearchStats {
    /// Subproblems stored (OSDT: distinct child trees evaluated).
    subproblems: u64,
    /// Subproblem expansions.
    expansions: u64,
    /// Wall-clock seconds of the search.
    seconds: f64,
    /// Bytes held by the solver's store at the end.
    memory_bytes: u64,
}

/// OSDT's counters (see `treeopt_search::osdt::OsdtStats`) and the warm start's objective.
#[pyclass(name = "OsdtStats", module = "treeopt._core", frozen, get_all)]
pub struct PyOsdtStats {
    trees_evaluated: u64,
    trees_queued: u64,
    trees_to_optimum: u64,
    time_to_optimum: f64,
    leaf_sets: u64,
    leaves: u64,
    peak_queue: u64,
    peak_bytes: u64,
    /// Objective of the warm-start tree, when one was given.
    warm_start_objective: Option<f64>,
}

impl PyOsdtStats {
    pub(crate) fn new(s: &OsdtStats, warm_start_objective: Option<f64>) -> Self {
        PyOsdtStats {
            trees_evaluated: s.trees_evaluated,
            trees_queued: s.trees_queued,
            trees_to_optimum: s.trees_to_optimum,
            time_to_optimum: s.time_to_optimum,
            leaf_sets: s.leaf_sets,
            leaves: s.leaves,
            peak_queue: s.peak_queue,
            peak_bytes: s.peak_bytes,
            warm_start_objective,
        }
    }
}

/// A fitted tree and its certificate. Node arrays are in the layout of `treeopt.Tree`
/// (`children_left`/`children_right` -1, `feature` -2 and `threshold` -2.0 on leaves; a
/// split sends a row left when `x[feature] <= threshold`: 0.5 for a 0/1 column, the
/// midpoint between the values it parts within its node's rows for a numeric one),
/// `value` is (n_nodes, n_classes) class weights and `labels` the class each node
/// predicts under the objective (from `fit` on real targets: `value` is (n_nodes, 2), each
/// node's weight and mean target, and `labels` is empty).
#[pyclass(name = "FitResult", module = "treeopt._core", frozen, get_all)]
pub struct FitResult {
    children_left: Py<PyArray1<i64>>,
    children_right: Py<PyArray1<i64>>,
    feature: Py<PyArray1<i64>>,
    threshold: Py<PyArray1<f64>>,
    value: Py<PyArray2<f64>>,
    labels: Py<PyArray1<i64>>,
    /// True when `labels` is every node's heaviest class in `value` (lowest index on
    /// ties, as numpy's `argmax`): the tree then needs no labels of its own.
    labels_are_argmax: bool,
    /// Depth of each node (the root 0).
    node_depth: Py<PyArray1<i64>>,
    objective: f64,
    /// Proven lower bound on the optimal objective.
    lower_bound: f64,
    /// With lower-bound guessing, the guessed bound the search closed against.
    guessed_lower_bound: Option<f64>,
    /// How the search ended ("optimal", "time_limit", "memory_limit", "interrupted", ...).
    status: &'static str,
    stats: Py<PySearchStats>,
    /// OSDT's counters (None for the other solvers).
    osdt: Option<Py<PyOsdtStats>>,
    /// The exception (KeyboardInterrupt for Ctrl-C) that stopped the search: the caller
    /// stores the best tree, then raises it.
    interrupt: Option<Py<PyBaseException>>,
}

#[pymethods]
impl FitResult {
    fn __repr__(&self) -> String {
        format!(
            "FitResult(status={:?}, objective={}, lower_bound={})",
            self.status, self.objective, self.lower_bound
        )
    }
}

/// Node arrays of a tree: (children_left, children_right, value).
type NodeArrays<'py> = (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>, Bound<'py, PyArray2<f64>>);

fn node_arrays<'py>(py: Python<'py>, tree: &Tree, n_classes: usize) -> PyResult<NodeArrays<'py>> {
    let n = tree.nodes.len();
    let (mut left, mut right) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let mut value = Vec::with_capacity(n * n_classes);
    for node in &tree.nodes {
        let (l, r) = if node.feature.is_some() { (node.left as i64, node.right as i64) } else { (-1, -1) };
        left.push(l);
        right.push(r);
        value.extend_from_slice(&node.value);
    }
    let value = Array2::from_shape_vec((n, n_classes), value).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    Ok((left.into_pyarray(py), right.into_pyarray(py), value.into_pyarray(py)))
}

/// Depth of each node of `tree` (the root 0), from the parents down.
fn node_depths(tree: &Tree) -> Vec<i64> {
    let mut depth = vec![0i64; tree.nodes.len()];
    let mut stack = if tree.nodes.is_empty() { vec![] } else { vec![0usize] };
    while let Some(i) = stack.pop() {
        let node = &tree.nodes[i];
        if node.feature.is_some() {
            for c in [node.left, node.right] {
                depth[c] = depth[i] + 1;
                stack.push(c);
            }
        }
    }
    depth
}

/// Whether every node's label is its heaviest class (lowest index on ties).
fn labels_are_argmax(tree: &Tree, labels: &[usize]) -> bool {
    labels.len() == tree.nodes.len() && tree.nodes.iter().zip(labels).all(|(n, &l)| !n.value.is_empty() && n.prediction() == l)
}

impl FitResult {
    pub(crate) fn new(
        py: Python<'_>,
        res: &SearchResult,
        splits: &Splits,
        n_classes: usize,
        osdt: Option<PyOsdtStats>,
        interrupt: Option<PyErr>,
    ) -> PyResult<Self> {
        let (left, right, value) = node_arrays(py, &res.tree, n_classes)?;
        let (feature, threshold): (Vec<i64>, Vec<f64>) = splits.iter().copied().unzip();
        let labels: Vec<i64> = res.labels.iter().map(|&l| l as i64).collect();
        let Stats { subproblems, expansions, seconds, memory_bytes, .. } = res.stats;
        Ok(FitResult {
            children_left: left.unbind(),
            children_right: right.unbind(),
            feature: feature.into_pyarray(py).unbind(),
            threshold: threshold.into_pyarray(py).unbind(),
            value: value.unbind(),
            labels: labels.into_pyarray(py).unbind(),
            labels_are_argmax: labels_are_argmax(&res.tree, &res.labels),
            node_depth: node_depths(&res.tree).into_pyarray(py).unbind(),
            objective: res.objective,
            lower_bound: res.lower_bound,
            guessed_lower_bound: res.guessed_lower_bound,
            status: res.status.as_str(),
            stats: Py::new(py, PySearchStats { subproblems, expansions, seconds, memory_bytes })?,
            osdt: osdt.map(|o| Py::new(py, o)).transpose()?,
            interrupt: interrupt.map(|e| e.into_value(py)),
        })
    }
}

/// Adds the result classes to the module (for `isinstance` and documentation).
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<FitResult>()?;
    m.add_class::<PySearchStats>()?;
    m.add_class::<PyOsdtStats>()?;
    Ok(())
}
