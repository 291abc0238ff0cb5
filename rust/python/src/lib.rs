//! `treeopt._core`: the thin PyO3 binding of treeopt's Rust solvers. It converts numpy
//! arrays (no copy for C-contiguous input), maps errors to `ValueError`, releases the GIL
//! for every search, checks for Ctrl-C while it runs and returns a typed `FitResult`.
//! No algorithm lives here.
//!
//! One fit entry, `fit`: it takes the search to run as a typed settings object
//! (`GosdtSearch`, `Dl85Search`, `OsdtSearch`) and dispatches once, on the kind of
//! target (class indices, or real values for squared error), the search and the matrix
//! kind (0/1 or numeric columns). Layout: `errors` (the one error and
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

use errors::{guarded, value_error};
use fit::{limits, FitInput, Matrix};
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use result::FitResult;
use solvers::Search;

/// What a fit predicts: class indices `0..n_classes` (uint32), or real values (float64,
/// squared error).
#[derive(FromPyObject)]
enum Targets<'py> {
    Classes(PyReadonlyArray1<'py, u32>),
    Values(PyReadonlyArray1<'py, f64>),
}

/// Fits a tree on a C-contiguous matrix `x` (uint8 0/1 columns, or float64 numeric
/// columns for GOSDT and DL8.5, split at every midpoint) with optional non-negative
/// `sample_weight`, running `search` (a `GosdtSearch`, `Dl85Search` or `OsdtSearch`)
/// under the time limit (seconds) and memory limit (bytes). `y` decides the objective:
/// class indices (uint32, with `n_classes`) for classification; finite float64 targets
/// for regression (squared error over the weighted variance of `y` plus the search's
/// penalty per leaf, each leaf predicting the weighted mean; GOSDT or DL8.5, no
/// reference errors or cost matrix), whose `FitResult.value` is (n_nodes, 2): each
/// node's weight and mean target, with `labels` empty. A Ctrl-C during the search stops
/// it and is handed back in the result's `interrupt` with the best tree found.
/// `slow_fit_warning` is `(seconds, message)`, warned once if the search is still running
/// after that many seconds; `verbose` logs progress on the `treeopt` logger; `threads`
/// is how many threads the search may use (the answer does not depend on it).
#[pyfunction]
#[pyo3(name = "fit", signature = (x, y, sample_weight, search, n_classes=None, time_limit=None, memory_limit=None, verbose=false, slow_fit_warning=None, threads=1))]
#[allow(clippy::too_many_arguments)]
fn fit_tree<'py>(
    py: Python<'py>,
    x: Matrix<'py>,
    y: Targets<'py>,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    search: Search<'py>,
    n_classes: Option<usize>,
    time_limit: Option<f64>,
    memory_limit: Option<usize>,
    verbose: bool,
    slow_fit_warning: Option<(f64, String)>,
    threads: usize,
) -> PyResult<FitResult> {
    guarded(|| {
        let limits = limits(time_limit, memory_limit, threads)?;
        match (y, n_classes) {
            (Targets::Classes(y), Some(n_classes)) => {
                let input = FitInput { x, y, n_classes, sample_weight, verbose, slow_fit_warning };
                search.fit(py, input, limits)
            }
            (Targets::Values(y), None) => {
                let targets = y.as_slice().map_err(|_| value_error("y must be contiguous"))?;
                let weights: Option<Vec<f64>> = sample_weight.as_ref().map(|w| w.as_array().to_vec());
                // One class: the rows group by their features alone.
                let classes = PyArray1::<u32>::zeros(py, targets.len(), false).readonly();
                let input = FitInput { x, y: classes, n_classes: 1, sample_weight, verbose, slow_fit_warning };
                search.fit_regression(py, input, targets, weights.as_deref(), limits)
            }
            (Targets::Classes(_), None) => Err(value_error("class indices (uint32 y) need n_classes")),
            (Targets::Values(_), Some(_)) => Err(value_error("real targets (float64 y) take no n_classes")),
        }
    })
}

/// `(classes, codes)` of C-contiguous int64 class labels `y` spanning at most
/// `4 x len(y)` values: the distinct labels ascending and each label's index among them
/// (`treeopt_core::labels::dense_codes`); `None` for an empty `y` or a wider span.
#[pyfunction]
fn class_codes<'py>(py: Python<'py>, y: PyReadonlyArray1<'py, i64>) -> PyResult<Option<(Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>)>> {
    let y = y.as_slice().map_err(|_| value_error("y must be C-contiguous"))?;
    Ok(treeopt_core::labels::dense_codes(y).map(|(classes, codes)| (PyArray1::from_vec(py, classes), PyArray1::from_vec(py, codes))))
}

/// The checks of the common call in one step: `(classes, codes)` of the labels `y` (as
/// [`class_codes`], the codes as uint32) when every value of the uint8 matrix `x` is 0
/// or 1; `None` when one is not, when either array is not C-contiguous, or when `y` is
/// empty or spans too many values (the caller then takes the general way).
#[pyfunction]
fn zero_one_problem<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, u8>,
    y: PyReadonlyArray1<'py, i64>,
) -> Option<(Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<u32>>)> {
    let (x, y) = (x.as_slice().ok()?, y.as_slice().ok()?);
    if !treeopt_core::dataset::zero_one(x) {
        return None;
    }
    let (classes, codes) = treeopt_core::labels::dense_codes(y)?;
    // Ranks are below y's length, which numpy keeps below 2^63; a class count over
    // 2^32 cannot occur with at most 4 x len(y) values spanned and rows under 2^32.
    let codes: Option<Vec<u32>> = codes.into_iter().map(|c| u32::try_from(c).ok()).collect();
    Some((PyArray1::from_vec(py, classes), PyArray1::from_vec(py, codes?)))
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
    m.add_function(wrap_pyfunction!(fit_tree, m)?)?;
    m.add_function(wrap_pyfunction!(class_codes, m)?)?;
    m.add_function(wrap_pyfunction!(zero_one_problem, m)?)?;
    Ok(())
}
