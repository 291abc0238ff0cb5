//! Binding of the tree-structured isotonic solver (`treeopt-isotonic`): the forward and
//! backward pass of the latent-tree pruning problem, as a reusable `TreePAV` object that
//! keeps its buffers (and the forward state) between calls, and its typed `PavInfo`.
//! `backward_at` runs the backward pass only if that state belongs to the given scores,
//! so a backward pass at the point of the last forward pass needs no second solve.
//! The GIL is released while the solver runs; errors become `ValueError`.

use numpy::ndarray::{Array2, Dimension, Ix1};
use numpy::npyffi::{npy_intp, NpyTypes, NPY_ARRAY_CARRAY};
use numpy::{
    Element, IntoPyArray, PyArray, PyArray1, PyArray2, PyArrayDescrMethods, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2,
    PyUntypedArrayMethods, PY_ARRAY_API,
};
use std::mem::MaybeUninit;
use std::sync::Mutex;
use crate::errors::{guarded, run_released_if_large, value_error};
use pyo3::exceptions::{PyMemoryError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::PyFloat;
use treeopt_isotonic::{PavError, TreePav, UninitOutput};

/// A solver error as a Python exception: `MemoryError` when the working memory could not
/// be had, `ValueError` for bad input.
fn pav_error(e: PavError) -> PyErr {
    match e {
        PavError::OutOfMemory { .. } => PyMemoryError::new_err(e.to_string()),
        _ => value_error(e),
    }
}

/// A zeroed output buffer of `rows x cols` values, or `MemoryError` naming its shape.
fn zeros<T: Clone + Default>(rows: usize, cols: usize, what: &str) -> Result<Vec<T>, PyErr> {
    let fail = || {
        PyMemoryError::new_err(format!(
            "cannot allocate {what} of shape ({rows}, {cols}); pass fewer rows per call or use a shallower tree"
        ))
    };
    let len = rows.checked_mul(cols).ok_or_else(fail)?;
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| fail())?;
    v.resize(len, T::default());
    Ok(v)
}

/// `q` as a float64 matrix the solver can read as it is (C-contiguous), holding at most
/// `most_values` values, or `None` (then the caller converts it).
fn fast_matrix<'a, 'py>(q: &'a Bound<'py, PyAny>, most_values: usize) -> Option<&'a Bound<'py, PyArray2<f64>>> {
    q.downcast::<PyArray2<f64>>()
        .ok()
        .filter(|q| q.is_c_contiguous() && q.len() <= most_values)
}

fn matrix<'a>(x: &'a PyReadonlyArray2<'_, f64>, name: &str) -> PyResult<(&'a [f64], usize, usize)> {
    let shape = x.shape();
    let data = x
        .as_slice()
        .map_err(|_| value_error(format!("{name} must be a C-contiguous float64 array")))?;
    Ok((data, shape[0], shape[1]))
}

/// A new C-contiguous float64 array of shape `dims` (one per dimension of `D`) that holds
/// no values yet, from numpy's own allocator (as numpy's results are: for large arrays it
/// asks the kernel for huge pages, so the first writes take a quarter of the page faults
/// of vector memory), or `MemoryError` naming its shape.
fn empty_array<'py, D: Dimension>(py: Python<'py>, dims: &[usize], what: &str) -> PyResult<Bound<'py, PyArray<f64, D>>> {
    let fail = || {
        let shape: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
        PyMemoryError::new_err(format!(
            "cannot allocate {what} of shape ({}); pass fewer rows per call or use a shallower tree",
            shape.join(", ")
        ))
    };
    debug_assert_eq!(D::NDIM, Some(dims.len()));
    let dims: Vec<npy_intp> = dims.iter().map(|&d| npy_intp::try_from(d)).collect::<Result<_, _>>().map_err(|_| fail())?;
    if dims.iter().try_fold(8 as npy_intp, |m, &d| m.checked_mul(d)).is_none() {
        return Err(fail());
    }
    // SAFETY: the arguments describe a new float64 C-contiguous array of `dims.len()`
    // dimensions whose memory numpy allocates (no data pointer, no strides); a null
    // result sets a Python error, which `from_owned_ptr_or_err` takes.
    let array = unsafe {
        let ptr = PY_ARRAY_API.PyArray_NewFromDescr(
            py,
            PY_ARRAY_API.get_type_object(py, NpyTypes::PyArray_Type),
            f64::get_dtype(py).into_dtype_ptr(),
            dims.len() as std::os::raw::c_int,
            dims.as_ptr() as *mut npy_intp,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            0,
            std::ptr::null_mut(),
        );
        Bound::from_owned_ptr_or_err(py, ptr).map_err(|_| fail())?
    };
    // SAFETY: what PyArray_NewFromDescr made is a float64 array of D's dimensions.
    Ok(unsafe { array.downcast_into_unchecked() })
}

/// Outputs of at least this many values (256 KB) are lent from [`POOL`].
const POOLED_MIN_VALUES: usize = 1 << 15;

/// Outputs of at most this many values (16 MB, as `CACHED_MAX_VALUES` of the Python
/// module: 8192 x 255 is 2.09 M) are lent from [`POOL`], which then holds at most
/// [`POOLED_BUFFERS`] x 16 MB.
const POOLED_MAX_VALUES: usize = 1 << 21;

/// Buffers [`POOL`] keeps at most.
const POOLED_BUFFERS: usize = 4;

/// Memory of the large outputs (`z`, `dL/dq`) that Python has freed, for the next
/// outputs of the same size: flat float64 arrays from numpy's allocator. An output made
/// in fresh memory has its pages faulted in by its first writes, and the C allocator
/// gives memory back to the kernel when a freed block lies at the top of its heap, so
/// that, in a loop that draws new scores each time, about every other call paid for
/// all its pages again (2048 x 127: 476 page faults, about as long as the forward pass
/// itself on a virtual machine). Touched only with the GIL held.
static POOL: Mutex<Vec<Py<PyArray1<f64>>>> = Mutex::new(Vec::new());

/// The owner (numpy's base object) of a pooled output's memory: holds the flat buffer
/// while an array uses it, and gives it back to [`POOL`] when the last array that
/// uses it (the output, or a view of it) is freed.
#[pyclass(module = "treeopt._core", frozen)]
struct PooledBuffer {
    buffer: Mutex<Option<Py<PyArray1<f64>>>>,
}

impl Drop for PooledBuffer {
    fn drop(&mut self) {
        let buffer = self.buffer.get_mut().ok().and_then(|b| b.take());
        if let (Some(buffer), Ok(mut pool)) = (buffer, POOL.lock()) {
            if pool.len() < POOLED_BUFFERS {
                pool.push(buffer);
            }
            // (else the buffer is dropped here: freed once the GIL is next held)
        }
    }
}

/// A new C-contiguous float64 matrix of `rows x cols` values that holds no values yet:
/// in memory of [`POOL`] when the pool has a buffer of that size (outputs of
/// [`POOLED_MIN_VALUES`] to [`POOLED_MAX_VALUES`] values; the array's base is then a
/// `PooledBuffer`, which gives the memory back to the pool when the array is freed),
/// else from [`empty_array`].
fn empty_matrix<'py>(py: Python<'py>, rows: usize, cols: usize, what: &str) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let len = rows.saturating_mul(cols);
    if !(POOLED_MIN_VALUES..=POOLED_MAX_VALUES).contains(&len) {
        return empty_array(py, &[rows, cols], what);
    }
    let pooled = POOL.lock().ok().and_then(|mut pool| {
        let k = pool.iter().position(|b| b.bind(py).len() == len)?;
        Some(pool.swap_remove(k))
    });
    let buffer = match pooled {
        Some(buffer) => buffer,
        None => empty_array::<Ix1>(py, &[len], what)?.unbind(),
    };
    let data = buffer.bind(py).data();
    let owner = Bound::new(py, PooledBuffer { buffer: Mutex::new(Some(buffer)) })?;
    let dims = [rows as npy_intp, cols as npy_intp];
    // SAFETY: a float64 C-contiguous writeable array of `dims` over the `len` values at
    // `data` (the buffer's, which `owner` keeps alive: it becomes the array's base, the
    // reference passed being stolen by PyArray_SetBaseObject); a null result, or a
    // failure to set the base, sets a Python error.
    unsafe {
        let ptr = PY_ARRAY_API.PyArray_NewFromDescr(
            py,
            PY_ARRAY_API.get_type_object(py, NpyTypes::PyArray_Type),
            f64::get_dtype(py).into_dtype_ptr(),
            2,
            dims.as_ptr() as *mut npy_intp,
            std::ptr::null_mut(),
            data as *mut std::os::raw::c_void,
            NPY_ARRAY_CARRAY,
            std::ptr::null_mut(),
        );
        let array = Bound::from_owned_ptr_or_err(py, ptr)?;
        if PY_ARRAY_API.PyArray_SetBaseObject(py, array.as_ptr() as *mut _, owner.into_ptr()) < 0 {
            return Err(PyErr::fetch(py));
        }
        Ok(array.downcast_into_unchecked())
    }
}

/// The memory of an array made by `empty_array`, as values that are not yet written.
///
/// # Safety
///
/// No other reference to the array's memory may exist while the slice lives: call it
/// once per array, before the array is returned to Python or read.
unsafe fn uninit_values<'a, D: Dimension>(array: &'a mut Bound<'_, PyArray<f64, D>>) -> &'a mut [MaybeUninit<f64>] {
    // SAFETY: the array is C-contiguous with `len()` float64 values at `data()`; the
    // caller guarantees the slice is the only reference to them.
    unsafe { std::slice::from_raw_parts_mut(array.data() as *mut MaybeUninit<f64>, array.len()) }
}

/// Node values `a` and traversals `z` of a forward pass.
type Forward<'py> = (Bound<'py, PyArray1<f64>>, Bound<'py, PyArray2<f64>>);

/// Reusable solver of problem (3): `forward(q, lam) -> (a, z)`, then
/// `backward(grad_a, grad_z) -> grad_q` for the last forward pass, and `info()`.
#[pyclass(name = "TreePAV", module = "treeopt._core")]
pub struct PyTreePav {
    inner: TreePav,
    n_rows: usize,
    n_nodes: usize,
}

#[pymethods]
impl PyTreePav {
    #[new]
    fn new() -> Self {
        PyTreePav {
            inner: TreePav::new(),
            n_rows: 0,
            n_nodes: 0,
        }
    }

    /// The fast path of the public `tree_pav`: `forward(q, lam)` when `q` is a C-contiguous
    /// float64 matrix of at most `most_values` values and `lam` a float (the solver then
    /// checks the shape, the finiteness and `lam`, with the same errors), else `None`, and
    /// the caller converts and checks its arguments itself.
    fn forward_checked<'py>(
        &mut self,
        py: Python<'py>,
        q: &Bound<'py, PyAny>,
        lam: &Bound<'py, PyAny>,
        most_values: usize,
    ) -> PyResult<Option<Forward<'py>>> {
        match (fast_matrix(q, most_values), lam.downcast::<PyFloat>()) {
            (Some(q), Ok(lam)) => self.forward(py, q.readonly(), lam.value()).map(Some),
            _ => Ok(None),
        }
    }

    /// The fast path of the public `tree_pav_backward`: `backward_at(q, lam, grad_a,
    /// grad_z)` when `q` and `lam` pass [`forward_checked`]'s test and each gradient is
    /// `None` (zeros) or a contiguous float64 array (of the dimension it should have),
    /// else `None`; `None` also when the last forward pass did not solve this problem.
    fn backward_checked<'py>(
        &mut self,
        py: Python<'py>,
        q: &Bound<'py, PyAny>,
        lam: &Bound<'py, PyAny>,
        grad_a: &Bound<'py, PyAny>,
        grad_z: &Bound<'py, PyAny>,
        most_values: usize,
    ) -> PyResult<Option<Bound<'py, PyArray2<f64>>>> {
        let (Some(q), Ok(lam)) = (fast_matrix(q, most_values), lam.downcast::<PyFloat>()) else {
            return Ok(None);
        };
        let (n, t) = (self.n_rows, self.n_nodes);
        if q.dims() != [n, t] || !self.is_solved() {
            return Ok(None);
        }
        let zeros_a;
        let grad_a = if grad_a.is_none() {
            zeros_a = PyArray1::zeros(py, t, false);
            zeros_a.readonly()
        } else {
            match grad_a.downcast::<PyArray1<f64>>() {
                Ok(g) if g.is_contiguous() => g.readonly(),
                _ => return Ok(None),
            }
        };
        let zeros_z;
        let grad_z = if grad_z.is_none() {
            zeros_z = PyArray2::zeros(py, [n, t], false);
            zeros_z.readonly()
        } else {
            match grad_z.downcast::<PyArray2<f64>>() {
                Ok(g) if g.is_c_contiguous() => g.readonly(),
                _ => return Ok(None),
            }
        };
        self.backward_at(py, q.readonly(), lam.value(), grad_a, grad_z)
    }

    /// Held memory (bytes) past which each later forward pass frees the buffers only
    /// it uses, keeping its state for the backward pass (see
    /// `TreePav::set_max_held_bytes`).
    fn set_max_held_bytes(&mut self, bytes: usize) {
        self.inner.set_max_held_bytes(bytes);
    }

    /// Bytes the solver's buffers hold now.
    fn held_bytes(&self) -> usize {
        self.inner.held_bytes()
    }

    /// `(n_rows, n_nodes)` of the last forward pass if it succeeded, else `None`.
    fn solved_shape(&self) -> Option<(usize, usize)> {
        self.is_solved().then_some((self.n_rows, self.n_nodes))
    }

    /// Node values `a` (n_nodes,) and traversals `z` (n_rows, n_nodes) for scores `q`.
    fn forward<'py>(
        &mut self,
        py: Python<'py>,
        q: PyReadonlyArray2<'py, f64>,
        lam: f64,
    ) -> PyResult<Forward<'py>> {
        guarded(|| {
            let (data, n, t) = matrix(&q, "q")?;
            // both written by the solver straight into numpy's memory (z row by row)
            let mut a = empty_array::<Ix1>(py, &[t], "a")?;
            let mut z = empty_matrix(py, n, t, "z")?;
            // SAFETY (here and for grad_q below): the arrays were just made; each slice is
            // its array's memory's only reference and is last used before the array is
            // returned.
            let a_values = unsafe { uninit_values(&mut a) };
            for v in a_values.iter_mut() {
                v.write(0.0);
            }
            // SAFETY: every value was just written.
            let a_values = unsafe { &mut *(a_values as *mut [MaybeUninit<f64>] as *mut [f64]) };
            let (inner, z_values) = (&mut self.inner, unsafe { uninit_values(&mut z) });
            run_released_if_large(py, data.len(), || inner.forward(data, n, t, lam, a_values, &mut UninitOutput::new(z_values)))?
                .map_err(pav_error)?;
            self.n_rows = n;
            self.n_nodes = t;
            Ok((a, z))
        })
    }

    /// `dL/dq` (n_rows, n_nodes) at the scores `q` of the last forward pass, from `dL/da`
    /// (n_nodes,) and `dL/dz` (n_rows, n_nodes).
    fn backward<'py>(
        &mut self,
        py: Python<'py>,
        q: PyReadonlyArray2<'py, f64>,
        grad_a: PyReadonlyArray1<'py, f64>,
        grad_z: PyReadonlyArray2<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        guarded(|| {
            let (data, _, _) = matrix(&q, "q")?;
            let (ga, gz, n, t) = self.gradients(&grad_a, &grad_z)?;
            let mut gq = empty_matrix(py, n, t, "grad_q")?;
            let (inner, gq_values) = (&mut self.inner, unsafe { uninit_values(&mut gq) });
            run_released_if_large(py, data.len(), || inner.backward(data, ga, gz, &mut UninitOutput::new(gq_values)))?.map_err(pav_error)?;
            Ok(gq)
        })
    }

    /// `backward(q, grad_a, grad_z)` if the last forward pass solved the problem of `q`
    /// and `lam` (the same candidates, bit for bit), else `None`; checked within the pass.
    fn backward_at<'py>(
        &mut self,
        py: Python<'py>,
        q: PyReadonlyArray2<'py, f64>,
        lam: f64,
        grad_a: PyReadonlyArray1<'py, f64>,
        grad_z: PyReadonlyArray2<'py, f64>,
    ) -> PyResult<Option<Bound<'py, PyArray2<f64>>>> {
        guarded(|| {
            let (data, qn, qt) = matrix(&q, "q")?;
            if (qn, qt) != (self.n_rows, self.n_nodes) {
                return Ok(None);
            }
            let (ga, gz, n, t) = self.gradients(&grad_a, &grad_z)?;
            let mut gq = empty_matrix(py, n, t, "grad_q")?;
            let (inner, gq_values) = (&mut self.inner, unsafe { uninit_values(&mut gq) });
            let mut gq_out = UninitOutput::new(gq_values);
            let same = run_released_if_large(py, data.len(), || inner.backward_at(data, n, t, lam, ga, gz, &mut gq_out))?.map_err(pav_error)?;
            // `Ok(true)` means every row was written
            Ok((same && gq_out.is_filled()).then_some(gq))
        })
    }

    /// Groups and support sets of the last forward pass, as a `PavInfo`.
    fn info(&self, py: Python<'_>) -> PyResult<PavInfo> {
        guarded(|| self.pav_info(py))
    }
}

/// Groups and support sets of a forward pass: `group` (top node of each node's group),
/// `value` (unclipped group value per node), `denominator` (`lam |G| + k*` per node) and
/// `support` (bool (n_rows, n_nodes): `(i, t)` in `S(k*)`).
#[pyclass(module = "treeopt._core", frozen, get_all)]
pub struct PavInfo {
    group: Py<PyArray1<i64>>,
    value: Py<PyArray1<f64>>,
    denominator: Py<PyArray1<f64>>,
    support: Py<PyArray2<bool>>,
}

impl PyTreePav {
    /// Whether the last forward pass succeeded (its state is there for `backward`).
    fn is_solved(&self) -> bool {
        self.inner.node_info(0).is_some()
    }

    /// The gradients' values and shape, checked against the last forward pass.
    fn gradients<'a>(
        &self,
        grad_a: &'a PyReadonlyArray1<'_, f64>,
        grad_z: &'a PyReadonlyArray2<'_, f64>,
    ) -> PyResult<(&'a [f64], &'a [f64], usize, usize)> {
        let ga = grad_a
            .as_slice()
            .map_err(|_| value_error("grad_a must be a contiguous float64 array"))?;
        let (gz, n, t) = matrix(grad_z, "grad_z")?;
        if (n, t) != (self.n_rows, self.n_nodes) {
            return Err(value_error(format!(
                "grad_z has shape ({n}, {t}) but the last forward pass had q of shape ({}, {})",
                self.n_rows, self.n_nodes
            )));
        }
        Ok((ga, gz, n, t))
    }

    fn pav_info(&self, py: Python<'_>) -> PyResult<PavInfo> {
        let t_count = self.n_nodes;
        if self.inner.node_info(0).is_none() {
            return Err(value_error("info() needs a successful forward pass first"));
        }
        let mut group = Vec::with_capacity(t_count);
        let mut value = Vec::with_capacity(t_count);
        let mut denom = Vec::with_capacity(t_count);
        let support = zeros::<bool>(self.n_rows, t_count, "support")?;
        let mut support = Array2::from_shape_vec((self.n_rows, t_count), support)
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        for t in 0..t_count {
            let info = self
                .inner
                .node_info(t)
                .ok_or_else(|| PyRuntimeError::new_err("missing node info"))?;
            group.push(info.group as i64);
            value.push(info.value);
            denom.push(info.denominator);
            for &i in info.support_rows {
                support[[i as usize, t]] = true;
            }
        }
        Ok(PavInfo {
            group: group.into_pyarray(py).unbind(),
            value: value.into_pyarray(py).unbind(),
            denominator: denom.into_pyarray(py).unbind(),
            support: support.into_pyarray(py).unbind(),
        })
    }
}

/// Adds the isotonic solver to the `_core` module, and does at import what the first
/// call would otherwise pay once per process (about 0.1 ms of a first call): numpy's C
/// API, the borrow checking and the owner type of arrays made from vectors (as a C
/// extension's `import_array()` at module initialisation), and the CPU feature
/// detection of the solver's vector passes.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyTreePav>()?;
    m.add_class::<PavInfo>()?;
    let empty = Vec::<f64>::new().into_pyarray(m.py());
    drop(empty.readonly());
    treeopt_isotonic::detect_cpu_features();
    Ok(())
}
