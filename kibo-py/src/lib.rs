//! The `kibo._kibo` extension module: kibo's feature sets over Arrow record batches
//! passed through the Arrow C data interface (`__arrow_c_array__` capsules), so no row
//! is copied into Python objects, and [`game::Game`], a game being played on kibo's
//! rules engine with its network inputs (the GTP engine of `examples/gtp_policy.py`).
//! The Python package (`python/kibo/`) wraps it.

mod game;

use arrow_array::ffi::{from_ffi, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{RecordBatch, StructArray};
use pyo3::buffer::PyBuffer;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use kibo::coord::{symmetry_index, N, NN};
use kibo::features::{by_name, names, positions_of_batch, sets, Position};

/// The registered feature sets: (name, spatial channels, global values).
#[pyfunction]
fn feature_sets() -> Vec<(&'static str, usize, usize)> {
    sets().iter().map(|s| (s.name, s.spatial, s.global)).collect()
}

/// The record batch behind an Arrow C data interface capsule pair (the array is moved out).
fn batch_of(schema: &Bound<'_, PyCapsule>, array: &Bound<'_, PyCapsule>) -> PyResult<RecordBatch> {
    let bad = |e: arrow_schema::ArrowError| PyValueError::new_err(e.to_string());
    // The names the Arrow PyCapsule interface gives its capsules (checked here).
    let schema = schema.pointer_checked(Some(c"arrow_schema"))?;
    let array = array.pointer_checked(Some(c"arrow_array"))?;
    // SAFETY: the capsules are those of `__arrow_c_array__`: they point at valid FFI
    // structs; the array is moved out, leaving a released one.
    let data = unsafe {
        let schema = &*(schema.as_ptr() as *const FFI_ArrowSchema);
        let array = std::ptr::replace(array.as_ptr() as *mut FFI_ArrowArray, FFI_ArrowArray::empty());
        from_ffi(array, schema).map_err(bad)?
    };
    Ok(RecordBatch::from(StructArray::from(data)))
}

/// `b` as a mutable slice of its first `len` items: it must be writable, C-contiguous
/// and hold at least `len` items.
fn out_slice<'a, T: pyo3::buffer::Element>(b: &'a mut PyBuffer<T>, len: usize, what: &str) -> PyResult<&'a mut [T]> {
    if b.readonly() || !b.is_c_contiguous() || b.item_count() < len {
        return Err(PyValueError::new_err(format!(
            "{what}: a writable C-contiguous buffer of at least {len} items is needed (it has {}{}{})",
            b.item_count(),
            if b.readonly() { ", read-only" } else { "" },
            if b.is_c_contiguous() { "" } else { ", not contiguous" }
        )));
    }
    if len == 0 {
        return Ok(&mut []);
    }
    // SAFETY: the buffer is writable, contiguous and holds `len` items of `T` (checked
    // above, and `PyBuffer<T>` checked the item format); borrowing `b` mutably gives one
    // slice per buffer, and `disjoint` checks that the buffers of one call do not
    // overlap; the caller keeps them alive for the call.
    Ok(unsafe { std::slice::from_raw_parts_mut(b.buf_ptr() as *mut T, len) })
}

/// Encodes every row of one batch of sample rows with the set `name`, straight into the
/// caller's arrays (numpy, or any writable buffer): `spatial` u8 `C × 361` a row, `global`
/// f32 `G`, `policy` f32 `362` (the move distribution, normalised), `value` f32 `1` (+1
/// the side to move won, −1 lost, 0 no winner). Row `i` of the batch goes to row `i` of
/// the arrays (they hold at least `n` rows), or with `slots` (int64, `n` of them) to row
/// `slots[i]` (the arrays hold as many rows as `value` has items; each slot is checked
/// against it). Returns `n`.
#[pyfunction]
#[pyo3(signature = (name, schema, array, spatial, global, policy, value, slots=None))]
#[allow(clippy::too_many_arguments)]
fn encode_into(
    py: Python<'_>,
    name: &str,
    schema: &Bound<'_, PyCapsule>,
    array: &Bound<'_, PyCapsule>,
    mut spatial: PyBuffer<u8>,
    mut global: PyBuffer<f32>,
    mut policy: PyBuffer<f32>,
    mut value: PyBuffer<f32>,
    slots: Option<PyBuffer<i64>>,
) -> PyResult<usize> {
    let set = by_name(name)
        .ok_or_else(|| PyValueError::new_err(format!("no feature set {name:?}; known: {}", names().join(", "))))?;
    let batch = batch_of(schema, array)?;
    let n = batch.num_rows();
    let (s, g) = (set.spatial * NN, set.global);
    disjoint(&[range(&spatial), range(&global), range(&policy), range(&value)])?;
    let slots = slots.as_ref().map(|b| in_slice(b, n, "slots")).transpose()?;
    // The rows the arrays must hold: `n`, or all of `value`'s when the rows go to slots.
    let rows = if slots.is_some() { value.item_count() } else { n };
    if let Some(&bad) = slots.into_iter().flatten().find(|&&k| k < 0 || k as usize >= rows) {
        return Err(PyValueError::new_err(format!("slots: {bad} is not a row of arrays of {rows} rows")));
    }
    let spatial = out_slice(&mut spatial, rows * s, "spatial")?;
    let global = out_slice(&mut global, rows * g, "global")?;
    let policy = out_slice(&mut policy, rows * (NN + 1), "policy")?;
    let value = out_slice(&mut value, rows, "value")?;
    let mut i = 0;
    let mut pos = Position::default();
    py.detach(|| {
        positions_of_batch(&batch, &mut pos, |p| {
            let k = slots.map_or(i, |sl| sl[i] as usize);
            (set.encode)(p, &mut spatial[k * s..(k + 1) * s], &mut global[k * g..(k + 1) * g]);
            let policy = &mut policy[k * (NN + 1)..(k + 1) * (NN + 1)];
            policy.fill(0.0);
            let total: u32 = p.dist.iter().map(|d| d.1).sum();
            for &(m, c) in &p.dist {
                policy[m as usize] = c as f32 / total.max(1) as f32;
            }
            value[k] = match p.winner {
                Some(w) if w == p.to_play => 1.0,
                Some(_) => -1.0,
                None => 0.0,
            };
            i += 1;
            Ok(())
        })
    })
    .map_err(|e| PyValueError::new_err(format!("{e:#}")))?;
    Ok(n)
}

/// Fails when two of the byte ranges `(start, bytes)` overlap (one array passed twice).
fn disjoint(ranges: &[(usize, usize)]) -> PyResult<()> {
    for (i, a) in ranges.iter().enumerate() {
        for b in &ranges[i + 1..] {
            if a.1 > 0 && b.1 > 0 && a.0 < b.0 + b.1 && b.0 < a.0 + a.1 {
                return Err(PyValueError::new_err("the arrays passed overlap"));
            }
        }
    }
    Ok(())
}

/// The byte range of a buffer.
fn range<T: pyo3::buffer::Element>(b: &PyBuffer<T>) -> (usize, usize) {
    (b.buf_ptr() as usize, b.len_bytes())
}

/// `b` as a slice of its first `len` items: it must be C-contiguous and hold `len` items.
fn in_slice<'a, T: pyo3::buffer::Element>(b: &'a PyBuffer<T>, len: usize, what: &str) -> PyResult<&'a [T]> {
    if !b.is_c_contiguous() || b.item_count() != len {
        return Err(PyValueError::new_err(format!(
            "{what}: a C-contiguous buffer of {len} items is needed (it has {})",
            b.item_count()
        )));
    }
    if len == 0 {
        return Ok(&[]);
    }
    // SAFETY: contiguous and `len` items of `T` (checked above; `PyBuffer<T>` checked
    // the item format); read while the caller holds it.
    Ok(unsafe { std::slice::from_raw_parts(b.buf_ptr() as *const T, len) })
}

/// Plane `plane` (361 bytes) under symmetry `s` (`coord::symmetry`: bit 0 flips rows,
/// bit 1 flips columns, bit 2 transposes after the flips) into `out`, each value through
/// `conv`: row `j` of the result is a row of the plane (a column, transposed), maybe
/// reversed, read with iterators of constant stride (no index table, no bounds checks).
fn turn<T>(plane: &[u8], s: u8, out: &mut [T], conv: impl Fn(u8) -> T) {
    let line = |j: usize, flip: bool| if flip { N - 1 - j } else { j };
    for (j, to) in out.chunks_exact_mut(N).enumerate() {
        if s & 4 == 0 {
            // Row `j`: the plane's row `j` (or its mirror), maybe reversed.
            let from = &plane[line(j, s & 1 != 0) * N..][..N];
            if s & 2 == 0 {
                to.iter_mut().zip(from).for_each(|(t, &f)| *t = conv(f));
            } else {
                to.iter_mut().zip(from.iter().rev()).for_each(|(t, &f)| *t = conv(f));
            }
        } else {
            // Row `j`: the flipped plane's column `j`, that is the plane's column
            // `line(j, s & 2)`, from the bottom when the rows flip (written from the
            // end: a reversed `step_by` is slow).
            let column = plane[line(j, s & 2 != 0)..].iter().step_by(N);
            if s & 1 == 0 {
                to.iter_mut().zip(column).for_each(|(t, &f)| *t = conv(f));
            } else {
                to.iter_mut().rev().zip(column).for_each(|(t, &f)| *t = conv(f));
            }
        }
    }
}

/// Symmetry `s` (KataGo's numbering, `coord::symmetry`) on rows of planes (u8, `C × 361`
/// a row) and policies (f32, `362` a row, the pass stays), written to `planes_out` (f32,
/// widened in the same pass, or u8) and to `policy_out`, `n` rows: rows `0..n` of the
/// inputs (which hold `n` rows), or with `rows` (int64, `n` of them) rows `rows[i]` of
/// the inputs (as many rows as `policy` holds; each row is checked against it): the
/// gather of a batch from a shuffle buffer, in the same pass.
#[pyfunction]
#[pyo3(signature = (s, n, planes, policy, planes_out, policy_out, rows=None))]
#[allow(clippy::too_many_arguments)]
fn orient_into(
    py: Python<'_>,
    s: u8,
    n: usize,
    planes: PyBuffer<u8>,
    policy: PyBuffer<f32>,
    planes_out: &Bound<'_, PyAny>,
    mut policy_out: PyBuffer<f32>,
    rows: Option<PyBuffer<i64>>,
) -> PyResult<()> {
    let have = policy.item_count() / (NN + 1);
    let bad = || PyValueError::new_err(format!("orient_into: symmetry {s} of {n} rows of planes"));
    if s >= 8 || n == 0 || have == 0 || !planes.item_count().is_multiple_of(have * NN) {
        return Err(bad());
    }
    if rows.is_none() && have != n {
        return Err(bad());
    }
    let plane_row = planes.item_count() / have;
    let src = in_slice(&planes, planes.item_count(), "planes")?;
    let pol = in_slice(&policy, have * (NN + 1), "policy")?;
    let rows = rows.as_ref().map(|b| in_slice(b, n, "rows")).transpose()?;
    if let Some(&r) = rows.into_iter().flatten().find(|&&r| r < 0 || r as usize >= have) {
        return Err(PyValueError::new_err(format!("rows: {r} is not a row of inputs of {have} rows")));
    }
    let (mut wide, mut narrow) = match PyBuffer::<f32>::get(planes_out) {
        Ok(b) => (Some(b), None),
        Err(_) => (None, Some(PyBuffer::<u8>::get(planes_out)?)),
    };
    let out_range = wide.as_ref().map_or_else(|| range(narrow.as_ref().expect("invariant: one of the two")), range);
    disjoint(&[range(&planes), range(&policy), range(&policy_out), out_range])?;
    let pol_out = out_slice(&mut policy_out, n * (NN + 1), "policy_out")?;
    let len = n * plane_row;
    let mut dst_f32 = wide.as_mut().map(|b| out_slice(b, len, "planes_out")).transpose()?;
    let mut dst_u8 = narrow.as_mut().map(|b| out_slice(b, len, "planes_out")).transpose()?;
    // Point `q` of the turned board is point `from[q]` of the board.
    let mut from = [0usize; NN];
    for i in 0..NN {
        from[symmetry_index(i as u16, s) as usize] = i;
    }
    py.detach(|| {
        for i in 0..n {
            let r = rows.map_or(i, |rows| rows[i] as usize);
            let row = &src[r * plane_row..(r + 1) * plane_row];
            // The rows of a gather lie anywhere in a buffer far larger than the caches.
            if let Some(&next) = rows.and_then(|rows| rows.get(i + 1)) {
                let next = next as usize;
                kibo::cpu::prefetch(&src[next * plane_row..(next + 1) * plane_row]);
                kibo::cpu::prefetch(&pol[next * (NN + 1)..(next + 1) * (NN + 1)]);
            }
            for (c, plane) in row.chunks_exact(NN).enumerate() {
                let k = i * plane_row + c * NN;
                if let Some(d) = dst_f32.as_deref_mut() {
                    turn(plane, s, &mut d[k..k + NN], f32::from);
                } else if let Some(d) = dst_u8.as_deref_mut() {
                    turn(plane, s, &mut d[k..k + NN], |v| v);
                }
            }
            let p = &pol[r * (NN + 1)..(r + 1) * (NN + 1)];
            let to = &mut pol_out[i * (NN + 1)..(i + 1) * (NN + 1)];
            for (t, &f) in to.iter_mut().zip(&from) {
                *t = p[f];
            }
            to[NN] = p[NN];
        }
    });
    Ok(())
}

#[pymodule]
fn _kibo(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(feature_sets, m)?)?;
    m.add_function(wrap_pyfunction!(encode_into, m)?)?;
    m.add_function(wrap_pyfunction!(orient_into, m)?)?;
    m.add_function(wrap_pyfunction!(game::gtp_text, m)?)?;
    m.add_function(wrap_pyfunction!(game::gtp_index, m)?)?;
    m.add_function(wrap_pyfunction!(game::sgf_text, m)?)?;
    m.add_class::<game::Game>()?;
    Ok(())
}
