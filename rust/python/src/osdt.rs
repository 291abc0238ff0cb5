//! Binding of the OSDT solver (`treeopt_search::osdt`): its settings `OsdtSearch` (run by
//! `fit`, whose `FitResult` then carries OSDT's counters in its `osdt` field)
//! and the names of its bounds and policies. The warm-start tree arrives in the layout
//! of `treeopt.Tree` and is read here: the search crate takes a `Tree`.

use crate::errors::value_error;
use numpy::PyReadonlyArray1;
use pyo3::prelude::*;
use treeopt_core::{Node, Tree};
use treeopt_search::osdt::{Bounds, OsdtConfig, Policy};
use treeopt_search::Limits;

/// Node arrays `(children_left, children_right, feature)` of a `treeopt.Tree`.
type WarmStart<'py> = (PyReadonlyArray1<'py, i64>, PyReadonlyArray1<'py, i64>, PyReadonlyArray1<'py, i64>);

/// Builds a [`Tree`] from node arrays in the layout of `treeopt.Tree`: `left[i] == -1`
/// (and `right[i] == -1`) for a leaf, otherwise the children for feature value 0 (left)
/// and 1 (right) and the tested `feature[i]`. Node values are left empty; the solver
/// checks the structure against the data and fills them.
fn tree_from_arrays(left: &[i64], right: &[i64], feature: &[i64]) -> Result<Tree, String> {
    if left.len() != right.len() || left.len() != feature.len() {
        let lengths = (left.len(), right.len(), feature.len());
        return Err(format!("warm-start node arrays differ in length {lengths:?}"));
    }
    let mut nodes = Vec::with_capacity(left.len());
    for (i, ((&l, &r), &f)) in left.iter().zip(right).zip(feature).enumerate() {
        let node = match (l < 0, r < 0) {
            (true, true) => Node { feature: None, left: 0, right: 0, value: Vec::new() },
            (false, false) if f >= 0 => Node { feature: Some(f as usize), left: l as usize, right: r as usize, value: Vec::new() },
            (false, false) => return Err(format!("warm-start node {i} has children but no feature")),
            _ => return Err(format!("warm-start node {i} has exactly one child")),
        };
        nodes.push(node);
    }
    Ok(Tree { nodes })
}

fn warm_start_tree(warm_start: Option<WarmStart<'_>>) -> PyResult<Option<Tree>> {
    let Some((left, right, feature)) = warm_start else { return Ok(None) };
    let (l, r, f) = (left.as_array().to_vec(), right.as_array().to_vec(), feature.as_array().to_vec());
    tree_from_arrays(&l, &r, &f).map(Some).map_err(value_error)
}

/// OSDT (two classes): penalty per leaf `regularization`, the queue's `policy` (see
/// `osdt_policy_names()`), `disabled_bounds` to switch off (see `osdt_bound_names()`)
/// and `warm_start`, `(children_left, children_right, feature)` of an initial tree over
/// the same features. The result's `osdt` field holds OSDT's counters.
#[pyclass(name = "OsdtSearch", module = "treeopt._core", frozen)]
pub(crate) struct OsdtSearch(pub(crate) OsdtConfig);

#[pymethods]
impl OsdtSearch {
    #[new]
    #[pyo3(signature = (regularization, policy="curiosity", disabled_bounds=None, warm_start=None))]
    fn new(
        regularization: f64,
        policy: &str,
        disabled_bounds: Option<Vec<String>>,
        warm_start: Option<WarmStart<'_>>,
    ) -> PyResult<Self> {
        let bounds = disabled_bounds.unwrap_or_default().iter().try_fold(Bounds::ALL, |b, name| b.without(name));
        let bounds = bounds.map_err(value_error)?;
        let warm_start = warm_start_tree(warm_start)?;
        let policy = Policy::from_name(policy).map_err(value_error)?;
        Ok(OsdtSearch(OsdtConfig { regularization, policy, bounds, warm_start, limits: Limits::default() }))
    }
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
    m.add_class::<OsdtSearch>()?;
    m.add_function(wrap_pyfunction!(osdt_bound_names, m)?)?;
    m.add_function(wrap_pyfunction!(osdt_policy_names, m)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::tree_from_arrays;

    #[test]
    fn warm_start_arrays_become_a_tree_or_a_message() {
        let stump = tree_from_arrays(&[1, -1, -1], &[2, -1, -1], &[0, -2, -2]).unwrap();
        assert_eq!(stump.nodes.len(), 3);
        assert_eq!((stump.nodes[0].feature, stump.nodes[0].left, stump.nodes[0].right), (Some(0), 1, 2));
        assert!(stump.nodes[1].feature.is_none() && stump.nodes[2].feature.is_none());
        assert!(tree_from_arrays(&[1, -1], &[-1, -1], &[0, -2]).unwrap_err().contains("exactly one child"));
        assert!(tree_from_arrays(&[1, -1, -1], &[2, -1, -1], &[-2, -2, -2]).unwrap_err().contains("no feature"));
        assert!(tree_from_arrays(&[1, -1], &[2, -1, -1], &[0, -2, -2]).unwrap_err().contains("length"));
    }
}
