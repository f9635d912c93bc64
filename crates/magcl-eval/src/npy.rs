//! Reading embeddings, labels and fold indices from NumPy `.npy` files. Errors name the
//! file and what was expected.
use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use npyz::{NpyFile, Order};

use crate::error::{Error, Result};

/// Opens a `.npy` file: a regular file (a FIFO or device is refused, not waited on or read
/// without end) whose size covers the data its header announces, so that a crafted
/// header cannot make the reader allocate more than the file holds.
fn open(path: &Path) -> Result<NpyFile<BufReader<File>>> {
    let f =
        crate::files::open_regular(path, std::fs::OpenOptions::new().read(true), "a .npy file")?;
    let file_len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let npy = NpyFile::new(BufReader::new(f))
        .map_err(|e| Error::file(path, format!("not a readable .npy file: {e}")))?;
    let ty = descr(&npy);
    let item: u64 = ty
        .trim_start_matches(['<', '>', '=', '|'])
        .get(1..)
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    let needed = npy
        .shape()
        .iter()
        .try_fold(item, |acc, &d| acc.checked_mul(d));
    match needed {
        Some(bytes) if bytes <= file_len => Ok(npy),
        _ => Err(Error::file(
            path,
            format!(
                "truncated or corrupt: the header announces shape {:?} of {ty}, more data than the file's {file_len} bytes",
                npy.shape()
            ),
        )),
    }
}

fn descr(npy: &NpyFile<BufReader<File>>) -> String {
    npy.header().dtype().descr().trim_matches('\'').to_string()
}

/// A 2-D float32 or float64 array (C or Fortran order) as row-major f32 with its shape.
pub fn read_embeddings(path: &Path) -> Result<(Vec<f32>, usize, usize)> {
    let npy = open(path)?;
    let shape = npy.shape().to_vec();
    if shape.len() != 2 {
        return Err(Error::file(
            path,
            format!("expected a 2-D array (samples × dims), got shape {shape:?}"),
        ));
    }
    let (n, d) = (to_usize(path, shape[0])?, to_usize(path, shape[1])?);
    let order = npy.order();
    let ty = descr(&npy);
    let flat: Vec<f32> = match ty.trim_start_matches(['<', '>', '=', '|']) {
        "f4" => npy
            .into_vec::<f32>()
            .map_err(|e| Error::file(path, format!("reading float32 data: {e}")))?,
        "f8" => npy
            .into_vec::<f64>()
            .map_err(|e| Error::file(path, format!("reading float64 data: {e}")))?
            .into_iter()
            .map(|v| v as f32)
            .collect(),
        _ => {
            return Err(Error::file(
                path,
                format!("expected float32 or float64 embeddings, got dtype {ty}"),
            ))
        }
    };
    if flat.len() != n * d {
        return Err(Error::file(
            path,
            format!("truncated: {} values for shape [{n}, {d}]", flat.len()),
        ));
    }
    let data = match order {
        Order::C => flat,
        Order::Fortran => {
            let mut out = vec![0f32; n * d];
            for j in 0..d {
                for i in 0..n {
                    out[i * d + j] = flat[j * n + i];
                }
            }
            out
        }
    };
    Ok((data, n, d))
}

/// A 1-D integer array (int8…int64, uint8…uint64, or a float array holding whole
/// numbers) as i64. `what` names the content in error messages ("labels", "folds").
pub fn read_ints(path: &Path, what: &str) -> Result<Vec<i64>> {
    let (v, shape) = read_int_array(path, what)?;
    match shape.as_slice() {
        [_] | [_, 1] => Ok(v),
        _ => Err(Error::file(
            path,
            format!("expected a 1-D array of {what}, got shape {shape:?}"),
        )),
    }
}

/// An integer array of any shape, flattened in C order, with its shape.
pub fn read_int_array(path: &Path, what: &str) -> Result<(Vec<i64>, Vec<usize>)> {
    let npy = open(path)?;
    let shape: Vec<usize> = npy
        .shape()
        .iter()
        .map(|&v| to_usize(path, v))
        .collect::<Result<_>>()?;
    if shape.len() > 1 && npy.order() == Order::Fortran {
        return Err(Error::file(
            path,
            format!("expected a C-order array of {what}, got Fortran order"),
        ));
    }
    let len: usize = shape.iter().product();
    let ty = descr(&npy);
    let rd = |e: std::io::Error| Error::file(path, format!("reading {what}: {e}"));
    let v: Vec<i64> = match ty.trim_start_matches(['<', '>', '=', '|']) {
        "i1" => conv(npy.into_vec::<i8>().map_err(rd)?),
        "i2" => conv(npy.into_vec::<i16>().map_err(rd)?),
        "i4" => conv(npy.into_vec::<i32>().map_err(rd)?),
        "i8" => npy.into_vec::<i64>().map_err(rd)?,
        "u1" => conv(npy.into_vec::<u8>().map_err(rd)?),
        "u2" => conv(npy.into_vec::<u16>().map_err(rd)?),
        "u4" => conv(npy.into_vec::<u32>().map_err(rd)?),
        "u8" => npy
            .into_vec::<u64>()
            .map_err(rd)?
            .into_iter()
            .map(|v| i64::try_from(v).unwrap_or(i64::MAX))
            .collect(),
        "f4" | "f8" => {
            let f: Vec<f64> = if ty.ends_with('4') {
                conv_f(npy.into_vec::<f32>().map_err(rd)?)
            } else {
                npy.into_vec::<f64>().map_err(rd)?
            };
            let mut out = Vec::with_capacity(f.len());
            for (i, x) in f.into_iter().enumerate() {
                if x.fract() != 0.0 || !x.is_finite() {
                    return Err(Error::file(
                        path,
                        format!("expected integer {what}, entry {i} is {x}"),
                    ));
                }
                out.push(x as i64);
            }
            out
        }
        _ => {
            return Err(Error::file(
                path,
                format!("expected an integer array of {what} (int32/int64), got dtype {ty}"),
            ))
        }
    };
    if v.len() != len {
        return Err(Error::file(
            path,
            format!("truncated: {} values for {len} {what}", v.len()),
        ));
    }
    Ok((v, shape))
}

fn conv<T: Into<i64>>(v: Vec<T>) -> Vec<i64> {
    v.into_iter().map(Into::into).collect()
}

fn conv_f(v: Vec<f32>) -> Vec<f64> {
    v.into_iter().map(f64::from).collect()
}

fn to_usize(path: &Path, v: u64) -> Result<usize> {
    usize::try_from(v).map_err(|_| Error::file(path, format!("dimension {v} too large")))
}

/// Labels as u32: any integer values; negative ones are rejected.
pub fn read_labels(path: &Path) -> Result<Vec<u32>> {
    read_ints(path, "labels")?
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            u32::try_from(v).map_err(|_| {
                Error::file(
                    path,
                    format!("label {i} is {v}; expected a value in 0..2^32"),
                )
            })
        })
        .collect()
}

/// Fold indices as usize (each ≥ 0).
pub fn read_folds(path: &Path) -> Result<Vec<usize>> {
    read_ints(path, "fold indices")?
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            usize::try_from(v)
                .map_err(|_| Error::file(path, format!("fold index {i} is {v}; expected ≥ 0")))
        })
        .collect()
}

/// The `.npy` (version 1.0) bytes of a little-endian array with `descr` and `shape`.
fn npy_bytes(descr: &str, shape: &[usize], data: &[u8]) -> Vec<u8> {
    let dims = match shape {
        [n] => format!("({n},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {dims}, }}");
    // magic (6) + version (2) + length (2) + header + '\n' is a multiple of 64
    let unpadded = 10 + header.len() + 1;
    header.push_str(&" ".repeat((64 - unpadded % 64) % 64));
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + data.len());
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

/// The `.npy` bytes of a row-major `n × d` float32 matrix.
pub fn f32_matrix_bytes(x: &[f32], n: usize, d: usize) -> Result<Vec<u8>> {
    if x.len() != n * d {
        return Err(Error::Input(format!(
            "{} values for a {n} × {d} matrix",
            x.len()
        )));
    }
    let data: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    Ok(npy_bytes("<f4", &[n, d], &data))
}

/// The `.npy` bytes of an int64 vector.
pub fn i64_vector_bytes(v: &[i64]) -> Vec<u8> {
    let data: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    npy_bytes("<i8", &[v.len()], &data)
}

/// Writes a row-major `n × d` float32 matrix as `.npy` (atomically).
pub fn write_f32_matrix(path: &Path, x: &[f32], n: usize, d: usize) -> Result<()> {
    let bytes = f32_matrix_bytes(x, n, d).map_err(|e| Error::file(path, e.to_string()))?;
    crate::files::write_atomic(path, &bytes)
}

/// Writes an int64 vector as `.npy` (atomically).
pub fn write_i64_vector(path: &Path, v: &[i64]) -> Result<()> {
    crate::files::write_atomic(path, &i64_vector_bytes(v))
}

#[cfg(test)]
mod write_tests {
    use super::*;

    #[test]
    fn written_files_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.npy");
        let x: Vec<f32> = (0..12).map(|i| i as f32 * 0.5).collect();
        write_f32_matrix(&p, &x, 3, 4).unwrap();
        assert_eq!(read_embeddings(&p).unwrap(), (x, 3, 4));
        let bytes = std::fs::read(&p).unwrap();
        assert_eq!((bytes.len() - 48) % 16, 0);
        assert_eq!(&bytes[..6], b"\x93NUMPY");
        let q = dir.path().join("y.npy");
        write_i64_vector(&q, &[3, 1, 2]).unwrap();
        assert_eq!(read_labels(&q).unwrap(), vec![3, 1, 2]);
    }
}
