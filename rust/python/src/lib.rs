//! `treeopt._core`: the thin PyO3 binding of treeopt's Rust solvers. It converts numpy
//! arrays (no copy for C-contiguous input), maps errors to `ValueError`, releases the GIL
//! for every search, checks for Ctrl-C while it runs and returns a typed `FitResult`.
//! No algorithm lives here.
//!
//! One fit entry per objective kind: `fit_classifier` (0/1 or numeric columns, class
//! labels) takes the search to run as a typed settings object (`GosdtSearch`,
//! `Dl85Search`, `OsdtSearch`) and dispatches on it and on the matrix kind once;
//! `fit_regression` (real targets, squared error) takes `GosdtSearch` or `Dl85Search`
//! the same way. Layout: `errors` (the one error and
//! GIL-release helpers), `fit` (data packing, monitor, limits), `result` (the typed
//! result classes), `solvers` (the settings objects and the dispatch), `osdt` (OSDT's
//! settings and warm-start reading), `isotonic` (the tree-structured isotonic solver), `rashomon` (Rashomon sets).

mod errors;
mod fit;
mod isotonic;
mod osdt;
mod rashomon;
mod result;
mod solvers;

use errors::guarded;
use fit::{limits, FitInput, Matrix};
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;
use result::FitResult;
use solvers::Search;

/// Fits a classification tree on a C-contiguous matrix `x` (uint8 0/1 columns, or float64
/// numeric columns for GOSDT and DL8.5, split at every midpoint), class indices `y`
/// (`0..n_classes`) and optional non-negative `sample_weight` with `search` (a
/// `GosdtSearch`, `Dl85Search` or `OsdtSearch`) under the time limit (seconds) and
/// memory limit (bytes). Returns a `FitResult`; a Ctrl-C during the search stops it and
/// is handed back in the result's `interrupt` with the best tree found.
/// `slow_fit_warning` is `(seconds, message)`, warned once if the search is still running
/// after that many seconds; `verbose` prints progress.
#[pyfunction]
#[pyo3(signature = (x, y, n_classes, sample_weight, search, time_limit=None, memory_limit=None, verbose=false, slow_fit_warning=None))]
#[allow(clippy::too_many_arguments)]
fn fit_classifier<'py>(
    py: Python<'py>,
    x: Matrix<'py>,
    y: PyReadonlyArray1<'py, u32>,
    n_classes: usize,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    search: Search<'py>,
    time_limit: Option<f64>,
    memory_limit: Option<usize>,
    verbose: bool,
    slow_fit_warning: Option<(f64, String)>,
) -> PyResult<FitResult> {
    guarded(|| {
        let limits = limits(time_limit, memory_limit)?;
        let input = FitInput { x, y, n_classes, sample_weight, verbose, slow_fit_warning };
        search.fit(py, input, limits)
    })
}

/// Fits a regression tree (squared error over the weighted variance of `y`, plus the
/// search's penalty per leaf; each leaf predicts the weighted mean) on `x` as for
/// `fit_classifier`, finite float64 targets `y` and optional non-negative
/// `sample_weight`, with `search` a `GosdtSearch` or `Dl85Search` (no reference errors,
/// no cost matrix). The `FitResult`'s `value` is (n_nodes, 2): each node's weight and
/// its mean target; `labels` is empty.
#[pyfunction]
#[pyo3(signature = (x, y, sample_weight, search, time_limit=None, memory_limit=None, verbose=false, slow_fit_warning=None))]
#[allow(clippy::too_many_arguments)]
fn fit_regression<'py>(
    py: Python<'py>,
    x: Matrix<'py>,
    y: PyReadonlyArray1<'py, f64>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    search: Search<'py>,
    time_limit: Option<f64>,
    memory_limit: Option<usize>,
    verbose: bool,
    slow_fit_warning: Option<(f64, String)>,
) -> PyResult<FitResult> {
    guarded(|| {
        let limits = limits(time_limit, memory_limit)?;
        let targets = y.as_slice().map_err(|_| errors::value_error("y must be contiguous"))?;
        let weights: Option<Vec<f64>> = sample_weight.as_ref().map(|w| w.as_array().to_vec());
        // One class: the rows group by their features alone.
        let classes = PyArray1::<u32>::zeros(py, targets.len(), false).readonly();
        let input = FitInput { x, y: classes, n_classes: 1, sample_weight, verbose, slow_fit_warning };
        search.fit_regression(py, input, targets, weights.as_deref(), limits)
    })
}

/// The compiled core of treeopt.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    result::register(m)?;
    solvers::register(m)?;
    osdt::register(m)?;
    isotonic::register(m)?;
    rashomon::register(m)?;
    m.add_function(wrap_pyfunction!(fit_classifier, m)?)?;
    m.add_function(wrap_pyfunction!(fit_regression, m)?)?;
    Ok(())
}
