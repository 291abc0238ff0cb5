//! Binding of Rashomon sets (issue 21): `rashomon_set` builds the and/or graph of every
//! tree within a bound of the optimum (in `treeopt-search`) without the GIL, and returns
//! it as a typed `RashomonGraph` whose queries (levels, the i-th tree, votes, feature
//! usage) run in Rust. Counts are Python ints (up to 2^128). Picklable.

use crate::errors::{guarded, run_released, value_error};
use crate::fit::{limits, Data, FitInput, Matrix, PyMonitor};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyMemoryError, PyTimeoutError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use treeopt_search::{rashomon_set as build, rashomon_set_numeric as build_numeric, RashomonBound, RashomonConfig, RashomonError, RashomonGraph, Status};

/// A build or query error as a Python exception: `TimeoutError` past the time limit,
/// `MemoryError` past the memory limit, `ValueError` otherwise.
fn rashomon_error(e: RashomonError) -> PyErr {
    match e {
        RashomonError::Stopped(Status::TimeLimit) => PyTimeoutError::new_err("time_limit"),
        RashomonError::Stopped(Status::MemoryLimit) => PyMemoryError::new_err("memory_limit"),
        RashomonError::Stopped(s) => value_error(format!("the Rashomon set's build stopped ({})", s.as_str())),
        RashomonError::Invalid(m) => value_error(m),
    }
}

/// Every tree within the bound of the optimum, as an and/or graph of subproblems.
/// Costs are in weight units (divide by `total_weight` for objectives).
#[pyclass(name = "RashomonGraph", module = "treeopt._core", frozen)]
pub(crate) struct PyRashomonGraph {
    graph: RashomonGraph,
    /// Total weight of the training rows.
    #[pyo3(get)]
    total_weight: f64,
    /// The optimal objective.
    #[pyo3(get)]
    optimal_objective: f64,
    /// The largest objective a member may have.
    #[pyo3(get)]
    objective_bound: f64,
    /// Subproblems kept in the graph.
    #[pyo3(get)]
    n_nodes: usize,
}

impl From<RashomonGraph> for PyRashomonGraph {
    fn from(graph: RashomonGraph) -> Self {
        let (total_weight, optimal_objective) = (graph.total_weight(), graph.optimal_objective());
        let (objective_bound, n_nodes) = (graph.objective_bound(), graph.n_nodes());
        PyRashomonGraph { graph, total_weight, optimal_objective, objective_bound, n_nodes }
    }
}

#[pymethods]
impl PyRashomonGraph {
    /// The members' distinct costs (weight units), ascending, with their numbers of trees.
    fn levels(&self) -> Vec<(f64, u128)> {
        self.graph.levels()
    }

    /// Tree `index` of level `level`, in preorder: per node `(column, threshold, left,
    /// right, label)`, column -1 on leaves.
    fn tree(&self, level: usize, index: u128) -> PyResult<Vec<(i64, f64, usize, usize, usize)>> {
        let records = self.graph.tree(level, index).map_err(rashomon_error)?;
        Ok(records.into_iter().map(|r| (r.column.map_or(-1, |c| c as i64), r.threshold, r.left, r.right, r.label)).collect())
    }

    /// Per row of `x` (float64, C order), how many members predict each class.
    fn votes<'py>(&self, py: Python<'py>, x: PyReadonlyArray2<'py, f64>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let rows = x.shape()[0];
        let data = x.as_slice().map_err(|_| value_error("X must be C-contiguous"))?;
        let graph = &self.graph;
        let votes = run_released(py, || graph.votes(data))?;
        let k = votes.len().checked_div(rows).unwrap_or(0);
        Ok(Array2::from_shape_vec((rows, k), votes).map_err(value_error)?.into_pyarray(py))
    }

    /// Per column, how many members never split on it.
    fn unused(&self) -> Vec<u128> {
        self.graph.unused()
    }

    /// The graph as bytes (`from_bytes` reads them back).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.graph.to_bytes())
    }

    /// A graph from `to_bytes`.
    #[staticmethod]
    fn from_bytes(bytes: &[u8]) -> PyResult<Self> {
        RashomonGraph::from_bytes(bytes).map(PyRashomonGraph::from).map_err(rashomon_error)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let from_bytes = py.get_type::<PyRashomonGraph>().getattr("from_bytes")?;
        Ok((from_bytes, (self.to_bytes(py),)))
    }
}

/// Builds the Rashomon set of the C-contiguous matrix `x` (uint8 0/1 columns or float64
/// numeric ones), class indices `y` and optional weights: every tree of depth at most
/// `max_depth` with at least `min_samples_leaf` rows per leaf whose objective
/// (misclassified weight / total weight + `regularization` x leaves) is at most
/// `(1 + rashomon_bound) x` optimum (`bound_type="multiplicative"`) or optimum +
/// `rashomon_bound` (`"additive"`). Raises `TimeoutError` / `MemoryError` past the limits.
#[pyfunction]
#[pyo3(signature = (x, y, n_classes, sample_weight, regularization, rashomon_bound, bound_type, max_depth=None, min_samples_leaf=1, time_limit=None, memory_limit=None))]
#[allow(clippy::too_many_arguments)]
fn rashomon_set<'py>(
    py: Python<'py>,
    x: Matrix<'py>,
    y: PyReadonlyArray1<'py, u32>,
    n_classes: usize,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    regularization: f64,
    rashomon_bound: f64,
    bound_type: &str,
    max_depth: Option<usize>,
    min_samples_leaf: usize,
    time_limit: Option<f64>,
    memory_limit: Option<usize>,
) -> PyResult<PyRashomonGraph> {
    guarded(|| {
        let bound = match bound_type {
            "multiplicative" => RashomonBound::Multiplicative(rashomon_bound),
            "additive" => RashomonBound::Additive(rashomon_bound),
            other => return Err(value_error(format!("bound_type must be 'multiplicative' or 'additive', got {other:?}"))),
        };
        let limits = limits(time_limit, memory_limit, 1)?;
        let config = RashomonConfig { regularization, max_depth, min_samples_leaf, bound, limits };
        let input = FitInput { x, y, n_classes, sample_weight, verbose: false, slow_fit_warning: None };
        let data = input.dataset()?;
        let mut monitor = PyMonitor::new(false, None);
        let graph = run_released(py, || match &data {
            Data::Binary(d) => build(d, &config, &mut monitor),
            Data::Numeric(d) => build_numeric(d, &config, &mut monitor),
        })?;
        if let Some(interrupt) = monitor.interrupt.take() {
            return Err(interrupt);
        }
        graph.map(PyRashomonGraph::from).map_err(rashomon_error)
    })
}

/// Adds the Rashomon-set class and builder to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyRashomonGraph>()?;
    m.add_function(wrap_pyfunction!(rashomon_set, m)?)?;
    Ok(())
}
