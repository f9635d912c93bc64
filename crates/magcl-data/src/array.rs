//! Dense numeric arrays as numpy stores them: a dtype string (`<f4`, `<i8`, `|u1`, ...),
//! a shape, C or Fortran order, and raw bytes. Shared by the `.npy` reader (inside `.npz`
//! archives) and the pickle interpreter (numpy arrays inside Planetoid pickles).
//!
//! Values are widened to `f64` (floats) or `i64` (integers, booleans); the byte count is
//! checked against the shape before anything is allocated.

/// Array values, widened.
#[derive(Clone, Debug, PartialEq)]
pub enum NdData {
    Float(Vec<f64>),
    Int(Vec<i64>),
}

/// A dense array in C (row-major) order.
#[derive(Clone, Debug, PartialEq)]
pub struct NdArray {
    pub shape: Vec<usize>,
    pub data: NdData,
}

impl NdArray {
    pub fn len(&self) -> usize {
        match &self.data {
            NdData::Float(v) => v.len(),
            NdData::Int(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The values as `f64`.
    pub fn to_f64(&self) -> Vec<f64> {
        match &self.data {
            NdData::Float(v) => v.clone(),
            NdData::Int(v) => v.iter().map(|&x| x as f64).collect(),
        }
    }
    /// The values as integers; floats must be whole numbers.
    pub fn to_i64(&self) -> Result<Vec<i64>, String> {
        match &self.data {
            NdData::Int(v) => Ok(v.clone()),
            NdData::Float(v) => v
                .iter()
                .map(|&x| {
                    if x.fract() == 0.0 && x.abs() < 9.0e15 {
                        Ok(x as i64)
                    } else {
                        Err(format!("expected integer values, found {x}"))
                    }
                })
                .collect(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Float,
    Signed,
    Unsigned,
    Bool,
}

/// Decodes raw array bytes. `descr` is a numpy type string such as `<f4`.
pub fn decode(
    descr: &str,
    shape: &[usize],
    fortran: bool,
    bytes: &[u8],
) -> Result<NdArray, String> {
    let d = descr.as_bytes();
    if d.len() < 3 {
        return Err(format!("unsupported dtype {descr:?}"));
    }
    let big = match d[0] {
        b'<' | b'|' | b'=' => false,
        b'>' => true,
        _ => return Err(format!("unsupported dtype {descr:?}")),
    };
    let kind = match d[1] {
        b'f' => Kind::Float,
        b'i' => Kind::Signed,
        b'u' => Kind::Unsigned,
        b'b' => Kind::Bool,
        _ => {
            return Err(format!(
                "unsupported dtype {descr:?} (expected a numeric type such as <f4 or <i8)"
            ))
        }
    };
    let size: usize = std::str::from_utf8(&d[2..])
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("unsupported dtype {descr:?}"))?;
    let ok = match kind {
        Kind::Float => matches!(size, 4 | 8),
        Kind::Signed | Kind::Unsigned => matches!(size, 1 | 2 | 4 | 8),
        Kind::Bool => size == 1,
    };
    if !ok {
        return Err(format!("unsupported dtype {descr:?}"));
    }
    let count = shape
        .iter()
        .try_fold(1usize, |acc, &s| acc.checked_mul(s))
        .ok_or_else(|| format!("shape {shape:?} is too large"))?;
    let expected = count
        .checked_mul(size)
        .ok_or_else(|| format!("shape {shape:?} is too large"))?;
    if bytes.len() != expected {
        return Err(format!(
            "data holds {} bytes; shape {shape:?} of {descr} needs {expected}",
            bytes.len()
        ));
    }
    let word = |chunk: &[u8]| -> u64 {
        let mut buf = [0u8; 8];
        if big {
            buf[8 - size..].copy_from_slice(chunk);
            u64::from_be_bytes(buf)
        } else {
            buf[..size].copy_from_slice(chunk);
            u64::from_le_bytes(buf)
        }
    };
    let chunks = bytes.chunks_exact(size);
    let data = match kind {
        Kind::Float => NdData::Float(
            chunks
                .map(|c| {
                    let w = word(c);
                    if size == 4 {
                        f64::from(f32::from_bits(w as u32))
                    } else {
                        f64::from_bits(w)
                    }
                })
                .collect(),
        ),
        Kind::Signed => NdData::Int(
            chunks
                .map(|c| {
                    let w = word(c);
                    let shift = 64 - 8 * size as u32;
                    ((w << shift) as i64) >> shift
                })
                .collect(),
        ),
        Kind::Unsigned => NdData::Int(
            chunks
                .map(|c| word(c) as i64) // u64 values above i64::MAX wrap; never in data files
                .collect(),
        ),
        Kind::Bool => NdData::Int(chunks.map(|c| i64::from(c[0] != 0)).collect()),
    };
    let mut arr = NdArray {
        shape: shape.to_vec(),
        data,
    };
    if fortran && shape.len() > 1 {
        arr = to_c_order(arr);
    }
    Ok(arr)
}

/// Reorders a Fortran-ordered array (first axis fastest) into C order.
fn to_c_order(a: NdArray) -> NdArray {
    let shape = a.shape.clone();
    let n = a.len();
    // For each C-order position, the Fortran-order source index.
    let mut src = Vec::with_capacity(n);
    let mut idx = vec![0usize; shape.len()];
    for _ in 0..n {
        let mut off = 0usize;
        let mut stride = 1usize;
        for (k, &i) in idx.iter().enumerate() {
            off += i * stride;
            stride *= shape[k];
        }
        src.push(off);
        for k in (0..shape.len()).rev() {
            idx[k] += 1;
            if idx[k] < shape[k] {
                break;
            }
            idx[k] = 0;
        }
    }
    let data = match a.data {
        NdData::Float(v) => NdData::Float(src.iter().map(|&i| v[i]).collect()),
        NdData::Int(v) => NdData::Int(src.iter().map(|&i| v[i]).collect()),
    };
    NdArray { shape, data }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_types() {
        let a = decode("<i4", &[2], false, &[1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]).unwrap();
        assert_eq!(a.data, NdData::Int(vec![1, -1]));
        let a = decode(">i2", &[1], false, &[0x01, 0x02]).unwrap();
        assert_eq!(a.data, NdData::Int(vec![258]));
        let a = decode("<f4", &[1], false, &1.5f32.to_le_bytes()).unwrap();
        assert_eq!(a.data, NdData::Float(vec![1.5]));
        let a = decode("|b1", &[3], false, &[0, 1, 2]).unwrap();
        assert_eq!(a.data, NdData::Int(vec![0, 1, 1]));
        assert!(decode("<f4", &[2], false, &[0; 7]).is_err());
        assert!(decode("<U3", &[1], false, &[0; 12]).is_err());
        assert!(decode("<i8", &[usize::MAX, 2], false, &[]).is_err());
    }

    #[test]
    fn fortran_order() {
        // [[1, 2, 3], [4, 5, 6]] stored column-major: 1 4 2 5 3 6
        let bytes: Vec<u8> = [1u8, 4, 2, 5, 3, 6].to_vec();
        let a = decode("|u1", &[2, 3], true, &bytes).unwrap();
        assert_eq!(a.data, NdData::Int(vec![1, 2, 3, 4, 5, 6]));
    }
}
