//! The `kibo._kibo` extension module: kibo's feature sets over Arrow record batches
//! passed through the Arrow C data interface (`__arrow_c_array__` capsules), so no row
//! is copied into Python objects. The Python package (`python/kibo/`) wraps it.

use arrow_array::ffi::{from_ffi, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{RecordBatch, StructArray};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule};

use kibo::coord::NN;
use kibo::features::{by_name, names, positions_of_batch, sets, Position};

/// The registered feature sets: (name, spatial channels, global values).
#[pyfunction]
fn feature_sets() -> Vec<(&'static str, usize, usize)> {
    sets().iter().map(|s| (s.name, s.spatial, s.global)).collect()
}

/// The record batch behind an Arrow C data interface capsule pair (the array is moved out).
fn batch_of(schema: &Bound<'_, PyCapsule>, array: &Bound<'_, PyCapsule>) -> PyResult<RecordBatch> {
    let bad = |e: arrow_schema::ArrowError| PyValueError::new_err(e.to_string());
    // SAFETY: the capsules are those of `__arrow_c_array__` ("arrow_schema", "arrow_array"):
    // they point at valid FFI structs; the array is moved out, leaving a released one.
    let data = unsafe {
        let schema = &*(schema.pointer() as *const FFI_ArrowSchema);
        let array = std::ptr::replace(array.pointer() as *mut FFI_ArrowArray, FFI_ArrowArray::empty());
        from_ffi(array, schema).map_err(bad)?
    };
    Ok(RecordBatch::from(StructArray::from(data)))
}

/// Encodes every row of one batch of sample rows with the set `name`. Returns
/// (spatial u8 bytes `n × C × 361`, global f32 bytes `n × G`, policy f32 bytes `n × 362`
/// (the move distribution, normalised), value f32 bytes `n` (+1 the side to move won,
/// −1 lost, 0 no winner), n).
#[pyfunction]
#[allow(clippy::type_complexity)]
fn encode<'py>(
    py: Python<'py>,
    name: &str,
    schema: &Bound<'py, PyCapsule>,
    array: &Bound<'py, PyCapsule>,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>, usize)> {
    let set = by_name(name)
        .ok_or_else(|| PyValueError::new_err(format!("no feature set {name:?}; known: {}", names().join(", "))))?;
    let batch = batch_of(schema, array)?;
    let n = batch.num_rows();
    let (mut spatial, mut global) = (vec![0u8; n * set.spatial * NN], vec![0f32; n * set.global]);
    let (mut policy, mut value) = (vec![0f32; n * (NN + 1)], vec![0f32; n]);
    let mut i = 0;
    let mut pos = Position::default();
    py.detach(|| {
        positions_of_batch(&batch, &mut pos, |p| {
            let (s, g) = (set.spatial * NN, set.global);
            (set.encode)(p, &mut spatial[i * s..(i + 1) * s], &mut global[i * g..(i + 1) * g]);
            let total: u32 = p.dist.iter().map(|d| d.1).sum();
            for &(m, c) in &p.dist {
                policy[i * (NN + 1) + m as usize] = c as f32 / total.max(1) as f32;
            }
            value[i] = match p.winner {
                Some(w) if w == p.to_play => 1.0,
                Some(_) => -1.0,
                None => 0.0,
            };
            i += 1;
            Ok(())
        })
    })
    .map_err(|e| PyValueError::new_err(format!("{e:#}")))?;
    let f32s = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    Ok((
        PyBytes::new(py, &spatial),
        PyBytes::new(py, &f32s(&global)),
        PyBytes::new(py, &f32s(&policy)),
        PyBytes::new(py, &f32s(&value)),
        n,
    ))
}

#[pymodule]
fn _kibo(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(feature_sets, m)?)?;
    m.add_function(wrap_pyfunction!(encode, m)?)?;
    Ok(())
}
