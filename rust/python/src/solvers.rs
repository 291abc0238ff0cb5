//! The searches a classifier fit can run, as typed settings objects built in Python
//! (`GosdtSearch`, `Dl85Search`, and `OsdtSearch` in `osdt.rs`) and handed to the one entry
//! `fit`, which dispatches on them once, at the boundary. Each holds its
//! solver's configuration; the time and memory limits are set per fit.

use crate::errors::value_error;
use crate::fit::{Data, FitInput};
use crate::osdt::OsdtSearch;
use crate::result::{FitResult, PyOsdtStats};
use numpy::PyReadonlyArray1;
use pyo3::prelude::*;
use treeopt_core::Error;
use treeopt_search::{
    solve_dl85, solve_dl85_numeric, solve_dl85_regression, solve_dl85_regression_numeric, solve_gosdt, solve_gosdt_numeric,
    solve_gosdt_regression, solve_gosdt_regression_numeric, solve_osdt, Dl85Config, GosdtConfig, Limits, OsdtConfig,
    RegressionResult, SearchResult,
};

/// A per-row or per-cell vector handed to the search (reference errors, cost matrix).
fn owned(a: Option<PyReadonlyArray1<'_, f64>>) -> Option<Vec<f64>> {
    a.map(|a| a.as_array().to_vec())
}

/// GOSDT: penalty per leaf `regularization`, optional `max_depth`, at least
/// `min_samples_leaf` rows per leaf (1: no minimum). `reference_errors`
/// (per row, the weight a reference model misclassifies) turns on lower-bound guessing;
/// `misclassification_cost` (the row-major n_classes x n_classes cost matrix, rows the
/// true class, columns the predicted one) turns on cost-sensitive misclassification.
#[pyclass(name = "GosdtSearch", module = "treeopt._core", frozen)]
pub(crate) struct GosdtSearch(GosdtConfig);

#[pymethods]
impl GosdtSearch {
    #[new]
    #[pyo3(signature = (regularization, max_depth=None, reference_errors=None, misclassification_cost=None, min_samples_leaf=1))]
    fn new(
        regularization: f64,
        max_depth: Option<usize>,
        reference_errors: Option<PyReadonlyArray1<'_, f64>>,
        misclassification_cost: Option<PyReadonlyArray1<'_, f64>>,
        min_samples_leaf: usize,
    ) -> Self {
        let (reference_errors, misclassification_cost) = (owned(reference_errors), owned(misclassification_cost));
        GosdtSearch(GosdtConfig { regularization, max_depth, min_samples_leaf, reference_errors, misclassification_cost, ..Default::default() })
    }
}

/// DL8.5: a depth-limited optimal tree with at least `min_samples_leaf` rows per leaf
/// and a penalty `regularization` per leaf; `reference_errors` and
/// `misclassification_cost` as for `GosdtSearch`.
#[pyclass(name = "Dl85Search", module = "treeopt._core", frozen)]
pub(crate) struct Dl85Search(Dl85Config);

#[pymethods]
impl Dl85Search {
    #[new]
    #[pyo3(signature = (max_depth, min_samples_leaf, regularization, reference_errors=None, misclassification_cost=None))]
    fn new(
        max_depth: usize,
        min_samples_leaf: usize,
        regularization: f64,
        reference_errors: Option<PyReadonlyArray1<'_, f64>>,
        misclassification_cost: Option<PyReadonlyArray1<'_, f64>>,
    ) -> Self {
        let (reference_errors, misclassification_cost) = (owned(reference_errors), owned(misclassification_cost));
        let limits = Limits::default();
        Dl85Search(Dl85Config { max_depth, min_samples_leaf, regularization, limits, reference_errors, misclassification_cost })
    }
}

/// One of the searches, as `fit` receives it.
#[derive(FromPyObject)]
pub(crate) enum Search<'py> {
    Gosdt(Bound<'py, GosdtSearch>),
    Dl85(Bound<'py, Dl85Search>),
    Osdt(Bound<'py, OsdtSearch>),
}

impl Search<'_> {
    /// Runs the search on `input` under `limits`: the one dispatch of the binding, on the
    /// search and the kind of dataset (0/1 or numeric columns).
    pub(crate) fn fit(&self, py: Python<'_>, input: FitInput<'_>, limits: Limits) -> PyResult<FitResult> {
        match self {
            Search::Gosdt(s) => {
                let config = GosdtConfig { limits, ..s.get().0.clone() };
                input.fit(py, |d, m| match d {
                    Data::Binary(d) => Ok((solve_gosdt(d, &config, m)?, None)),
                    Data::Numeric(d) => Ok((solve_gosdt_numeric(d, &config, m)?, None)),
                })
            }
            Search::Dl85(s) => {
                let config = Dl85Config { limits, ..s.get().0.clone() };
                input.fit(py, |d, m| match d {
                    Data::Binary(d) => Ok((solve_dl85(d, &config, m)?, None)),
                    Data::Numeric(d) => Ok((solve_dl85_numeric(d, &config, m)?, None)),
                })
            }
            Search::Osdt(s) => {
                let config = OsdtConfig { limits, ..s.get().0.clone() };
                input.fit(py, |d, m| {
                    let Data::Binary(d) = d else { return Err(Error::new("OSDT needs 0/1 columns (a uint8 matrix)")) };
                    let res = solve_osdt(d, &config, m)?;
                    Ok((res.result, Some(PyOsdtStats::new(&res.stats, res.warm_start_objective))))
                })
            }
        }
    }
}

/// A regression result as `FitResult` takes it: each node's value becomes (weight, mean).
fn with_means(r: RegressionResult) -> (SearchResult, Option<PyOsdtStats>) {
    let mut res = r.result;
    for (node, &mean) in res.tree.nodes.iter_mut().zip(&r.means) {
        node.value = vec![node.value[0], mean];
    }
    (res, None)
}

impl Search<'_> {
    /// Runs the search as a regression on the targets `y` (weighted by `w`, the
    /// input's weights) under `limits`: GOSDT or DL8.5, on 0/1 or numeric columns.
    pub(crate) fn fit_regression(&self, py: Python<'_>, input: FitInput<'_>, y: &[f64], w: Option<&[f64]>, limits: Limits) -> PyResult<FitResult> {
        match self {
            Search::Gosdt(s) => {
                let config = GosdtConfig { limits, ..s.get().0.clone() };
                input.fit(py, |d, m| match d {
                    Data::Binary(d) => solve_gosdt_regression(d, y, w, &config, m).map(with_means),
                    Data::Numeric(d) => solve_gosdt_regression_numeric(d, y, w, &config, m).map(with_means),
                })
            }
            Search::Dl85(s) => {
                let config = Dl85Config { limits, ..s.get().0.clone() };
                input.fit(py, |d, m| match d {
                    Data::Binary(d) => solve_dl85_regression(d, y, w, &config, m).map(with_means),
                    Data::Numeric(d) => solve_dl85_regression_numeric(d, y, w, &config, m).map(with_means),
                })
            }
            Search::Osdt(_) => Err(value_error("OSDT fits classification trees only; use GosdtSearch or Dl85Search")),
        }
    }
}

/// Adds the search classes to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<GosdtSearch>()?;
    m.add_class::<Dl85Search>()?;
    Ok(())
}
