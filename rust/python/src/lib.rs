//! `treeopt._core`: the thin PyO3 binding of treeopt's Rust solvers. It converts numpy
//! arrays (no copy for C-contiguous input), maps errors to `ValueError`, releases the GIL
//! for every search and checks for Ctrl-C while it runs. No algorithm lives here.

mod isotonic;
mod osdt;

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};
use treeopt_core::{BinaryDataset, Tree};
use treeopt_search::{solve_dl85, solve_gosdt, Dl85Config, GosdtConfig, Limits, Monitor, Progress, SearchResult};

/// Checks Ctrl-C with the GIL held for a moment, and prints progress when verbose.
struct PyMonitor {
    verbose: bool,
    next_print: Instant,
    /// The exception a signal handler raised (KeyboardInterrupt for Ctrl-C): the search
    /// stops, and the caller re-raises it once the best tree is stored.
    interrupt: Option<PyErr>,
    /// A message the caller wants shown once through `warnings` when the search is still
    /// running at the given moment (a fit with no time limit that turns out long).
    slow_fit_warning: Option<(Instant, String)>,
}


impl Monitor for PyMonitor {
    fn report(&mut self, p: &Progress) -> bool {
        Python::with_gil(|py| {
            if let Err(e) = py.check_signals() {
                // Ctrl-C (or a signal handler that raised): stop and return the best tree,
                // with the exception to re-raise.
                self.interrupt = Some(e);
                return false;
            }
            if let Some((at, message)) = &self.slow_fit_warning {
                if Instant::now() >= *at {
                    if let Ok(text) = std::ffi::CString::new(message.as_str()) {
                        let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
                        // a warnings filter set to "error" must not stop the search
                        let _ = PyErr::warn(py, &category, &text, 1);
                    }
                    self.slow_fit_warning = None;
                }
            }
            if self.verbose && Instant::now() >= self.next_print {
                self.next_print = Instant::now() + Duration::from_millis(500);
                let gap = (p.objective - p.lower_bound).max(0.0);
                let line = format!(
                    "[treeopt] {:8.2}s  lower bound {:.6}  objective {:.6}  gap {:.6}  subproblems {}",
                    p.elapsed, p.lower_bound, p.objective, gap, p.subproblems
                );
                let _ = py.import("builtins").and_then(|b| b.getattr("print")?.call1((line,)));
            }
            true
        })
    }
}

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Packs a C-contiguous uint8 matrix, class indices and optional weights.
fn dataset(
    x: &PyReadonlyArray2<'_, u8>,
    y: &PyReadonlyArray1<'_, u32>,
    n_classes: usize,
    sample_weight: &Option<PyReadonlyArray1<'_, f64>>,
) -> PyResult<BinaryDataset> {
    let shape = x.shape();
    let features = x.as_slice().map_err(|_| value_error("X must be C-contiguous"))?;
    let labels = y.as_slice().map_err(|_| value_error("y must be contiguous"))?;
    let weights = match sample_weight {
        Some(w) => Some(w.as_slice().map_err(|_| value_error("sample_weight must be contiguous"))?),
        None => None,
    };
    BinaryDataset::new(features, shape[0], shape[1], labels, n_classes, weights).map_err(value_error)
}

/// Node arrays of a tree, in the layout of `treeopt.Tree` (threshold 0.5 on 0/1 tests).
fn tree_arrays<'py>(py: Python<'py>, tree: &Tree, n_classes: usize, out: &Bound<'py, PyDict>) -> PyResult<()> {
    let n = tree.nodes.len();
    let mut left = Vec::with_capacity(n);
    let mut right = Vec::with_capacity(n);
    let mut feature = Vec::with_capacity(n);
    let mut value = Vec::with_capacity(n * n_classes);
    for node in &tree.nodes {
        match node.feature {
            Some(f) => {
                left.push(node.left as i64);
                right.push(node.right as i64);
                feature.push(f as i64);
            }
            None => {
                left.push(-1);
                right.push(-1);
                feature.push(-2);
            }
        }
        value.extend_from_slice(&node.value);
    }
    let value = Array2::from_shape_vec((n, n_classes), value).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    out.set_item("children_left", left.into_pyarray(py))?;
    out.set_item("children_right", right.into_pyarray(py))?;
    out.set_item("feature", feature.into_pyarray(py))?;
    out.set_item("value", value.into_pyarray(py))?;
    Ok(())
}

/// Everything a Python estimator needs from a search, as a dict.
fn result_dict<'py>(py: Python<'py>, res: &SearchResult, n_classes: usize) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    tree_arrays(py, &res.tree, n_classes, &out)?;
    out.set_item("labels", res.labels.iter().map(|&l| l as i64).collect::<Vec<_>>().into_pyarray(py))?;
    out.set_item("objective", res.objective)?;
    out.set_item("lower_bound", res.lower_bound)?;
    out.set_item("guessed_lower_bound", res.guessed_lower_bound)?;
    out.set_item("status", res.status.as_str())?;
    out.set_item("subproblems", res.stats.subproblems)?;
    out.set_item("expansions", res.stats.expansions)?;
    out.set_item("seconds", res.stats.seconds)?;
    out.set_item("memory_bytes", res.stats.memory_bytes)?;
    Ok(out)
}

fn limits(time_limit: Option<f64>, memory_limit: Option<usize>) -> PyResult<Limits> {
    let time_limit = match time_limit {
        Some(t) if !(t.is_finite() && t > 0.0) => {
            return Err(value_error(format!("time_limit must be a positive number of seconds, got {t}")))
        }
        // More seconds than a Duration holds means no limit in practice.
        Some(t) => Some(Duration::try_from_secs_f64(t).unwrap_or(Duration::MAX)),
        None => None,
    };
    Ok(Limits { time_limit, memory_limit })
}

fn internal_error() -> PyErr {
    PyRuntimeError::new_err("internal error in the treeopt solver; please report it with the data that triggered it")
}

/// Runs a search without the GIL; a panic becomes a RuntimeError instead of a crash.
fn run_released<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    py.allow_threads(|| catch_unwind(AssertUnwindSafe(f))).map_err(|_| internal_error())
}

/// Runs the body of a Python-facing function: a panic anywhere in it (argument packing,
/// result conversion) becomes a RuntimeError, an `Exception`, instead of PyO3's
/// `PanicException`, which derives from `BaseException` and escapes `except Exception`.
pub(crate) fn guarded<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| Err(internal_error()))
}

/// Packs the data, runs `solve` without the GIL and returns the result dict.
#[allow(clippy::too_many_arguments)]
fn fit_with<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, u8>,
    y: PyReadonlyArray1<'py, u32>,
    n_classes: usize,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    verbose: bool,
    slow_fit_warning: Option<(f64, String)>,
    solve: impl FnOnce(&BinaryDataset, &mut PyMonitor) -> treeopt_core::Result<SearchResult> + Send,
) -> PyResult<Bound<'py, PyDict>> {
    let data = dataset(&x, &y, n_classes, &sample_weight)?;
    // (seconds, message): shown once if the search still runs after that many seconds
    let slow_fit_warning = match slow_fit_warning {
        Some((seconds, m)) if seconds.is_finite() && seconds >= 0.0 && seconds < 1e9 => {
            Some((Instant::now() + Duration::from_secs_f64(seconds), m))
        }
        _ => None,
    };
    let mut monitor = PyMonitor { verbose, next_print: Instant::now(), interrupt: None, slow_fit_warning };
    let res = run_released(py, || solve(&data, &mut monitor));
    let interrupt = monitor.interrupt.take();
    let res = match res.and_then(|r| r.map_err(value_error)) {
        Ok(r) => r,
        // an error of the search is reported, but a Ctrl-C is never lost
        Err(e) => return Err(interrupt.unwrap_or(e)),
    };
    let out = result_dict(py, &res, n_classes)?;
    if let Some(e) = interrupt {
        // the estimator stores the best tree, then raises this
        out.set_item("interrupt", e.into_value(py))?;
    }
    Ok(out)
}

/// GOSDT on a 0/1 matrix: returns the tree's node arrays, objective, lower bound,
/// status and search statistics. `reference_errors` (per row, the weight a reference
/// model misclassifies) turns on lower-bound guessing. `misclassification_cost` (the
/// row-major n_classes x n_classes cost matrix, rows the true class, columns the
/// predicted one) turns on cost-sensitive misclassification; the result's `labels` give
/// the class each node predicts.
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
) -> PyResult<Bound<'py, PyDict>> {
    guarded(|| {
        let config = GosdtConfig {
            regularization,
            max_depth,
            limits: limits(time_limit, memory_limit)?,
            reference_errors: reference_errors.map(|r| r.as_array().to_vec()),
            misclassification_cost: misclassification_cost.map(|c| c.as_array().to_vec()),
            record_splits: false,
        };
        fit_with(py, x, y, n_classes, sample_weight, verbose, slow_fit_warning, |d, m| solve_gosdt(d, &config, m))
    })
}

/// DL8.5 on a 0/1 matrix: depth-limited optimal tree with a minimum number of rows per
/// leaf and an optional penalty per leaf; same result dict as `gosdt_fit`.
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
) -> PyResult<Bound<'py, PyDict>> {
    guarded(|| {
        let config = Dl85Config {
            max_depth,
            min_samples_leaf,
            regularization,
            limits: limits(time_limit, memory_limit)?,
            reference_errors: reference_errors.map(|r| r.as_array().to_vec()),
            misclassification_cost: misclassification_cost.map(|c| c.as_array().to_vec()),
        };
        fit_with(py, x, y, n_classes, sample_weight, verbose, slow_fit_warning, |d, m| solve_dl85(d, &config, m))
    })
}

/// The compiled core of treeopt.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    isotonic::register(m)?;
    osdt::register(m)?;
    m.add_function(wrap_pyfunction!(gosdt_fit, m)?)?;
    m.add_function(wrap_pyfunction!(dl85_fit, m)?)?;
    Ok(())
}
