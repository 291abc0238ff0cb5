//! The one place where Rust failures become Python exceptions and where the GIL is
//! released: every entry of `treeopt._core` goes through these helpers.

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Bad input, as `ValueError` with the solver's message.
pub(crate) fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A panic (a bug of ours) as a `RuntimeError`.
pub(crate) fn internal_error() -> PyErr {
    PyRuntimeError::new_err("internal error in the treeopt solver; please report it with the data that triggered it")
}

/// Runs a solver without the GIL; a panic becomes a RuntimeError instead of a crash.
pub(crate) fn run_released<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    py.allow_threads(|| catch_unwind(AssertUnwindSafe(f))).map_err(|_| internal_error())
}

/// Fewest input values for which [`run_released_if_large`] releases the GIL: below it
/// a solve takes a few microseconds, less than giving the GIL up and getting it back can
/// (up to Python's switch interval, 5 ms, when another thread runs meanwhile).
pub(crate) const RELEASE_GIL_VALUES: usize = 1 << 14;

/// [`run_released`] for work on `n_values` input values, keeping the GIL when there are
/// fewer than [`RELEASE_GIL_VALUES`].
pub(crate) fn run_released_if_large<T: Send>(py: Python<'_>, n_values: usize, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    if n_values >= RELEASE_GIL_VALUES {
        return run_released(py, f);
    }
    catch_unwind(AssertUnwindSafe(f)).map_err(|_| internal_error())
}

/// Runs the body of a Python-facing function: a panic anywhere in it (argument packing,
/// result conversion) becomes a RuntimeError, an `Exception`, instead of PyO3's
/// `PanicException`, which derives from `BaseException` and escapes `except Exception`.
pub(crate) fn guarded<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| Err(internal_error()))
}
