//! `treeopt._core`: the thin PyO3 binding of treeopt's Rust solvers. It converts numpy
//! arrays (no copy for C-contiguous input), maps errors to `ValueError`, releases the GIL
//! for every search, checks for Ctrl-C while it runs and returns a typed `FitResult`.
//! No algorithm lives here.
//!
//! Layout: `errors` (the one error and GIL-release helpers), `fit` (the one fit path:
//! data packing, monitor, result), `result` (the typed result classes), one module per
//! solver family's entry points (`lib.rs` for GOSDT and DL8.5, `osdt`, `isotonic`).

mod errors;
mod fit;
mod isotonic;
mod osdt;
mod result;

use errors::guarded;
use fit::{limits, FitInput};
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use result::FitResult;
use treeopt_search::{solve_dl85, solve_gosdt, Dl85Config, GosdtConfig};

/// A per-row or per-cell vector handed to the search (reference errors, cost matrix).
fn owned(a: Option<PyReadonlyArray1<'_, f64>>) -> Option<Vec<f64>> {
    a.map(|a| a.as_array().to_vec())
}

/// GOSDT on a 0/1 matrix: returns a `FitResult` (the tree's node arrays, labels,
/// objective, lower bound, status and search statistics). `reference_errors` (per row,
/// the weight a reference model misclassifies) turns on lower-bound guessing.
/// `misclassification_cost` (the row-major n_classes x n_classes cost matrix, rows the
/// true class, columns the predicted one) turns on cost-sensitive misclassification;
/// the result's `labels` give the class each node predicts.
#[pyfunction]
#[pyo3(signature = (x, y, n_classes, sample_weight, regularization, max_depth=None, time_limit=None, memory_limit=None, verbose=false, reference_errors=None, slow_fit_warning=None, misclassification_cost=None))]
#[allow(clippy::too_many_arguments)]
fn gosdt_fit<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, u8>,
    y: PyReadonlyArray1<'py, u32>,
    n_classes: usize,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    regularization: f64,
    max_depth: Option<usize>,
    time_limit: Option<f64>,
    memory_limit: Option<usize>,
    verbose: bool,
    reference_errors: Option<PyReadonlyArray1<'py, f64>>,
    slow_fit_warning: Option<(f64, String)>,
    misclassification_cost: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<FitResult> {
    guarded(|| {
        let config = GosdtConfig {
            regularization,
            max_depth,
            limits: limits(time_limit, memory_limit)?,
            reference_errors: owned(reference_errors),
            misclassification_cost: owned(misclassification_cost),
            record_splits: false,
        };
        let input = FitInput { x, y, n_classes, sample_weight, verbose, slow_fit_warning };
        input.fit(py, |d, m| Ok((solve_gosdt(d, &config, m)?, None)))
    })
}

/// DL8.5 on a 0/1 matrix: depth-limited optimal tree with a minimum number of rows per
/// leaf and an optional penalty per leaf; the same `FitResult` as `gosdt_fit`.
#[pyfunction]
#[pyo3(signature = (x, y, n_classes, sample_weight, max_depth, min_samples_leaf, regularization, time_limit=None, memory_limit=None, verbose=false, reference_errors=None, slow_fit_warning=None, misclassification_cost=None))]
#[allow(clippy::too_many_arguments)]
fn dl85_fit<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, u8>,
    y: PyReadonlyArray1<'py, u32>,
    n_classes: usize,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    max_depth: usize,
    min_samples_leaf: usize,
    regularization: f64,
    time_limit: Option<f64>,
    memory_limit: Option<usize>,
    verbose: bool,
    reference_errors: Option<PyReadonlyArray1<'py, f64>>,
    slow_fit_warning: Option<(f64, String)>,
    misclassification_cost: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<FitResult> {
    guarded(|| {
        let config = Dl85Config {
            max_depth,
            min_samples_leaf,
            regularization,
            limits: limits(time_limit, memory_limit)?,
            reference_errors: owned(reference_errors),
            misclassification_cost: owned(misclassification_cost),
        };
        let input = FitInput { x, y, n_classes, sample_weight, verbose, slow_fit_warning };
        input.fit(py, |d, m| Ok((solve_dl85(d, &config, m)?, None)))
    })
}

/// The compiled core of treeopt.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    result::register(m)?;
    isotonic::register(m)?;
    osdt::register(m)?;
    m.add_function(wrap_pyfunction!(gosdt_fit, m)?)?;
    m.add_function(wrap_pyfunction!(dl85_fit, m)?)?;
    Ok(())
}
