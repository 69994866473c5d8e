//! A minimal `.npz` writer: a zip archive (deflate, level 1: the export's largest cost at
//! numpy's level 6, for files about 10% larger) of `.npy` members, each a version 1.0
//! header (magic, version, little-endian header length, the header dict padded with
//! spaces to a multiple of 64 bytes and ended by a newline) then the C-order data.
//! Every member gets the same fixed timestamp, so equal arrays give identical bytes.

use std::io::{Seek, Write};

/// The dtypes the KataGo arrays use, by numpy's `descr`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtype {
    /// `|u1`
    U8,
    /// `|i1`
    I8,
    /// `<i2`
    I16,
    /// `<f4`
    F32,
}

impl Dtype {
    fn descr(self) -> &'static str {
        match self {
            Dtype::U8 => "|u1",
            Dtype::I8 => "|i1",
            Dtype::I16 => "<i2",
            Dtype::F32 => "<f4",
        }
    }
    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Dtype::U8 | Dtype::I8 => 1,
            Dtype::I16 => 2,
            Dtype::F32 => 4,
        }
    }
}

/// The `.npy` header for an array of `dtype` and `shape`.
pub fn npy_header(dtype: Dtype, shape: &[usize]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape_text = if dims.len() == 1 { format!("({},)", dims[0]) } else { format!("({})", dims.join(", ")) };
    let mut dict = format!("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", dtype.descr(), shape_text);
    let total = 10 + dict.len() + 1;
    dict.push_str(&" ".repeat((64 - total % 64) % 64));
    dict.push('\n');
    let mut out = Vec::with_capacity(10 + dict.len());
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out
}

/// Writes arrays into an `.npz`.
pub struct NpzWriter<W: Write + Seek> {
    zip: zip::ZipWriter<W>,
}

impl<W: Write + Seek> NpzWriter<W> {
    pub fn new(w: W) -> NpzWriter<W> {
        NpzWriter { zip: zip::ZipWriter::new(w) }
    }

    /// Adds member `name.npy`: `data` is the array's bytes in C order, little-endian.
    pub fn add(&mut self, name: &str, dtype: Dtype, shape: &[usize], data: &[u8]) -> std::io::Result<()> {
        let n: usize = shape.iter().product();
        assert_eq!(n * dtype.size(), data.len(), "{name}: data does not match its shape");
        let o = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .compression_level(Some(1))
            .last_modified_time(zip::DateTime::default())
            .large_file(data.len() > u32::MAX as usize / 2);
        self.zip.start_file(format!("{name}.npy"), o).map_err(std::io::Error::other)?;
        self.zip.write_all(&npy_header(dtype, shape))?;
        self.zip.write_all(data)?;
        Ok(())
    }

    /// Finishes the archive.
    pub fn finish(self) -> std::io::Result<W> {
        self.zip.finish().map_err(std::io::Error::other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_is_padded_to_64_and_ends_in_newline() {
        for shape in [&[3usize][..], &[2, 22, 46], &[100000, 5, 19, 19]] {
            let h = npy_header(Dtype::I16, shape);
            assert_eq!(h.len() % 64, 0);
            assert_eq!(*h.last().unwrap(), b'\n');
            assert_eq!(u16::from_le_bytes([h[8], h[9]]) as usize, h.len() - 10);
        }
        let h = npy_header(Dtype::F32, &[7]);
        assert!(String::from_utf8_lossy(&h).contains("'shape': (7,)"));
    }
}
