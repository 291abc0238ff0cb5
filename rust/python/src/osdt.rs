//! Binding of the OSDT solver (`treeopt_search::osdt`): `osdt_fit` returns the same
//! result dict as `gosdt_fit` plus OSDT's counters. The GIL is released during the search
//! and Ctrl-C is polled, through the shared `fit_with`.

use super::{fit_with, guarded, limits, value_error};
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use treeopt_search::osdt::{solve, tree_from_arrays, Bounds, OsdtConfig, OsdtStats, Policy};

/// OSDT on a 0/1 matrix with two classes: the tree's node arrays, objective, lower bound,
/// status and statistics, plus `trees_evaluated`, `trees_queued`, `trees_to_optimum`,
/// `time_to_optimum`, `peak_bytes`, `peak_queue`, `leaves` and `warm_start_objective`.
/// `disabled_bounds` names bounds to switch off (see `bound_names()`); `warm_start` is
/// `(children_left, children_right, feature)` of an initial tree over the same features.
#[pyfunction]
#[pyo3(signature = (x, y, n_classes, sample_weight, regularization, policy="curiosity", disabled_bounds=None, warm_start=None, time_limit=None, memory_limit=None, verbose=false, slow_fit_warning=None))]
#[allow(clippy::too_many_arguments)]
fn osdt_fit<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, u8>,
    y: PyReadonlyArray1<'py, u32>,
    n_classes: usize,
    sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    regularization: f64,
    policy: &str,
    disabled_bounds: Option<Vec<String>>,
    warm_start: Option<(PyReadonlyArray1<'py, i64>, PyReadonlyArray1<'py, i64>, PyReadonlyArray1<'py, i64>)>,
    time_limit: Option<f64>,
    memory_limit: Option<usize>,
    verbose: bool,
    slow_fit_warning: Option<(f64, String)>,
) -> PyResult<Bound<'py, PyDict>> {
    guarded(|| {
        let mut bounds = Bounds::ALL;
        for name in disabled_bounds.unwrap_or_default() {
            bounds = bounds.without(&name).map_err(value_error)?;
        }
        let warm_start = match warm_start {
            Some((left, right, feature)) => {
                let (l, r, f) = (left.as_array().to_vec(), right.as_array().to_vec(), feature.as_array().to_vec());
                Some(tree_from_arrays(&l, &r, &f).map_err(value_error)?)
            }
            None => None,
        };
        let config = OsdtConfig {
            regularization,
            policy: Policy::from_name(policy).map_err(value_error)?,
            bounds,
            warm_start,
            limits: limits(time_limit, memory_limit)?,
        };
        let mut extra: Option<(OsdtStats, Option<f64>)> = None;
        let slot = &mut extra;
        let out = fit_with(py, x, y, n_classes, sample_weight, verbose, slow_fit_warning, move |d, m| {
            let res = solve(d, &config, m)?;
            *slot = Some((res.stats, res.warm_start_objective));
            Ok(res.result)
        })?;
        if let Some((stats, warm)) = extra {
            out.set_item("trees_evaluated", stats.trees_evaluated)?;
            out.set_item("trees_queued", stats.trees_queued)?;
            out.set_item("trees_to_optimum", stats.trees_to_optimum)?;
            out.set_item("time_to_optimum", stats.time_to_optimum)?;
            out.set_item("leaf_sets", stats.leaf_sets)?;
            out.set_item("leaves", stats.leaves)?;
            out.set_item("peak_queue", stats.peak_queue)?;
            out.set_item("peak_bytes", stats.peak_bytes)?;
            out.set_item("warm_start_objective", warm)?;
        }
        Ok(out)
    })
}

/// The names of OSDT's bounds, in the order of the paper's presentation.
#[pyfunction]
fn osdt_bound_names() -> Vec<&'static str> {
    Bounds::NAMES.to_vec()
}

/// The names of OSDT's scheduling policies.
#[pyfunction]
fn osdt_policy_names() -> Vec<&'static str> {
    Policy::NAMES.to_vec()
}

/// Adds the OSDT functions to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(osdt_fit, m)?)?;
    m.add_function(wrap_pyfunction!(osdt_bound_names, m)?)?;
    m.add_function(wrap_pyfunction!(osdt_policy_names, m)?)?;
    Ok(())
}
