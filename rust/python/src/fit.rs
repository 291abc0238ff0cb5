//! The one fit path every search of `treeopt._core` takes: pack the numpy arrays into a
//! dataset (a uint8 0/1 matrix into a [`BinaryDataset`], a float64 one into a
//! [`NumericDataset`]: the one dispatch on the matrix kind), run the search without the
//! GIL while a monitor polls Ctrl-C, logs progress and shows the slow-fit warning, then
//! build the typed [`FitResult`], whose split nodes carry their column and threshold.

use crate::errors::{run_released, value_error};
use crate::result::{FitResult, PyOsdtStats};
use numpy::{PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use std::time::{Duration, Instant};
use treeopt_core::{BinaryDataset, NumericDataset};
use treeopt_search::split::Thresholds;
use treeopt_search::{Limits, Monitor, Progress, SearchResult};

/// Checks Ctrl-C with the GIL held for a moment, and logs progress when verbose.
pub(crate) struct PyMonitor {
    verbose: bool,
    next_print: Instant,
    /// The exception a signal handler raised (KeyboardInterrupt for Ctrl-C): the search
    /// stops, and the caller re-raises it once the best tree is stored.
    pub(crate) interrupt: Option<PyErr>,
    /// A message the caller wants shown once through `warnings` when the search is still
    /// running at the given moment (a fit with no time limit that turns out long).
    slow_fit_warning: Option<(Instant, String)>,
}

impl PyMonitor {
    /// `slow_fit_warning` is `(seconds, message)`: shown once if the search still runs
    /// after that many seconds (ignored unless finite, non-negative and below 1e9).
    pub(crate) fn new(verbose: bool, slow_fit_warning: Option<(f64, String)>) -> Self {
        let slow_fit_warning = match slow_fit_warning {
            Some((seconds, m)) if (0.0..1e9).contains(&seconds) => {
                Some((Instant::now() + Duration::from_secs_f64(seconds), m))
            }
            _ => None,
        };
        PyMonitor { verbose, next_print: Instant::now(), interrupt: None, slow_fit_warning }
    }

    fn warn_if_slow(&mut self, py: Python<'_>) {
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
    }

    /// Hands the search's state to `treeopt._progress.search_progress` (which logs it on
    /// the `treeopt` logger) at most twice a second, and only when verbose: a quiet search
    /// makes no Python call beyond the Ctrl-C check.
    fn report_progress(&mut self, py: Python<'_>, p: &Progress) {
        if self.verbose && Instant::now() >= self.next_print {
            self.next_print = Instant::now() + Duration::from_millis(500);
            let args = (p.elapsed, p.lower_bound, p.objective, p.subproblems);
            let logged = py.import("treeopt._progress").and_then(|m| m.getattr("search_progress")?.call1(args).map(|_| ()));
            // A failing logging handler must not stop the search; Python shows why.
            if let Err(e) = logged {
                e.write_unraisable(py, None);
            }
        }
    }
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
            self.warn_if_slow(py);
            self.report_progress(py, p);
            true
        })
    }
}

/// The feature matrix of a fit, as numpy handed it: uint8 0/1 columns, or float64
/// numeric columns (every midpoint between consecutive distinct values a candidate split).
#[derive(FromPyObject)]
pub(crate) enum Matrix<'py> {
    Binary(PyReadonlyArray2<'py, u8>),
    Numeric(PyReadonlyArray2<'py, f64>),
}

/// The packed dataset a search runs on.
pub(crate) enum Data {
    Binary(BinaryDataset),
    Numeric(NumericDataset),
}

/// Per node of a tree, the tested column and threshold (`x[column] <= threshold` goes
/// left); `(-2, -2.0)` on leaves.
pub(crate) type Splits = Vec<(i64, f64)>;

impl Data {
    /// The column and threshold of every node of `res.tree` (a 0/1 feature's threshold
    /// is 0.5; a numeric split's is the midpoint within the rows its node captures).
    fn splits(&self, res: &SearchResult) -> Splits {
        match self {
            Data::Binary(_) => res.tree.nodes.iter().map(|n| n.feature.map_or((-2, -2.0), |f| (f as i64, 0.5))).collect(),
            Data::Numeric(d) => Thresholds::new(d)
                .describe_tree(&res.tree)
                .into_iter()
                .map(|s| s.map_or((-2, -2.0), |s| (s.feature as i64, s.threshold)))
                .collect(),
        }
    }
}

/// The arguments every fit entry takes: a C-contiguous feature matrix, class indices,
/// optional weights, and the monitor's settings.
pub(crate) struct FitInput<'py> {
    pub x: Matrix<'py>,
    pub y: PyReadonlyArray1<'py, u32>,
    pub n_classes: usize,
    pub sample_weight: Option<PyReadonlyArray1<'py, f64>>,
    pub verbose: bool,
    pub slow_fit_warning: Option<(f64, String)>,
}

impl FitInput<'_> {
    pub(crate) fn dataset(&self) -> PyResult<Data> {
        let labels = self.y.as_slice().map_err(|_| value_error("y must be contiguous"))?;
        let weights = match &self.sample_weight {
            Some(w) => Some(w.as_slice().map_err(|_| value_error("sample_weight must be contiguous"))?),
            None => None,
        };
        let contiguous = |_| value_error("X must be C-contiguous");
        let k = self.n_classes;
        match &self.x {
            Matrix::Binary(x) => {
                let (s, f) = (x.shape(), x.as_slice().map_err(contiguous)?);
                BinaryDataset::new(f, s[0], s[1], labels, k, weights).map(Data::Binary)
            }
            Matrix::Numeric(x) => {
                let (s, f) = (x.shape(), x.as_slice().map_err(contiguous)?);
                NumericDataset::new(f, s[0], s[1], labels, k, weights).map(Data::Numeric)
            }
        }
        .map_err(value_error)
    }

    /// Packs the data and runs `solve` (which returns the search result and, for OSDT,
    /// its counters) without the GIL. An error of the search is raised, but a Ctrl-C is
    /// never lost: it is raised instead, or handed over in the result's `interrupt`.
    pub(crate) fn fit(
        self,
        py: Python<'_>,
        solve: impl FnOnce(&Data, &mut PyMonitor) -> treeopt_core::Result<(SearchResult, Option<PyOsdtStats>)> + Send,
    ) -> PyResult<FitResult> {
        let data = self.dataset()?;
        let mut monitor = PyMonitor::new(self.verbose, self.slow_fit_warning.clone());
        let res = run_released(py, || solve(&data, &mut monitor).map(|(r, o)| (data.splits(&r), r, o)));
        let interrupt = monitor.interrupt.take();
        match res.and_then(|r| r.map_err(value_error)) {
            Ok((splits, res, osdt)) => {
                // Columns of the node values: the classes, or what a regression stores.
                let width = res.tree.nodes.first().map_or(self.n_classes, |n| n.value.len());
                FitResult::new(py, &res, &splits, width, osdt, interrupt)
            }
            Err(e) => Err(interrupt.unwrap_or(e)),
        }
    }
}

/// The search limits from the seconds left (positive, or None), the bytes allowed and
/// the threads (at least one).
pub(crate) fn limits(time_limit: Option<f64>, memory_limit: Option<usize>, threads: usize) -> PyResult<Limits> {
    if threads == 0 {
        return Err(value_error("threads must be at least 1"));
    }
    let time_limit = match time_limit {
        Some(t) if !(t.is_finite() && t > 0.0) => {
            return Err(value_error(format!("time_limit must be a positive number of seconds, got {t}")))
        }
        // More seconds than a Duration holds means no limit in practice.
        Some(t) => Some(Duration::try_from_secs_f64(t).unwrap_or(Duration::MAX)),
        None => None,
    };
    Ok(Limits { time_limit, memory_limit, threads })
}

#[cfg(test)]
mod tests {
    use super::Data;
    use treeopt_core::{BinaryDataset, NumericDataset};
    use treeopt_search::{solve_dl85, solve_dl85_numeric, Dl85Config, NoMonitor};

    fn config(max_depth: usize) -> Dl85Config {
        Dl85Config { max_depth, min_samples_leaf: 1, regularization: 0.0, ..Default::default() }
    }

    #[test]
    fn numeric_split_nodes_carry_their_column_and_a_midpoint_threshold() {
        // Column 1 decides: the label is 1 exactly when it exceeds 2.5 (values 1..4);
        // column 0 is noise. Rows are (column 0, column 1).
        let x = [7.0, 1.0, 3.0, 2.0, 7.0, 3.0, 3.0, 4.0, 5.0, 4.0];
        let labels = [0, 0, 1, 1, 1];
        let data = NumericDataset::new(&x, 5, 2, &labels, 2, None).unwrap();
        let res = solve_dl85_numeric(&data, &config(1), &mut NoMonitor).unwrap();
        let splits = Data::Numeric(data).splits(&res);
        assert_eq!(splits.len(), res.tree.nodes.len());
        assert_eq!(splits[0], (1, 2.5));
        assert!(splits[1..].iter().all(|&s| s == (-2, -2.0)));
    }

    #[test]
    fn binary_split_nodes_test_their_feature_at_one_half() {
        // Column 0 equals the label; rows are (column 0, column 1).
        let x = [0u8, 1, 1, 0, 0, 1, 1, 1];
        let labels = [0, 1, 0, 1];
        let data = BinaryDataset::new(&x, 4, 2, &labels, 2, None).unwrap();
        let res = solve_dl85(&data, &config(1), &mut NoMonitor).unwrap();
        let splits = Data::Binary(data).splits(&res);
        assert_eq!(splits[0], (0, 0.5));
        assert!(splits[1..].iter().all(|&s| s == (-2, -2.0)));
    }
}
