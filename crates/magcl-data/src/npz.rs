//! `.npy` arrays and `.npz` archives (a zip of `.npy` files, stored or deflated), and the
//! gnn-benchmark graph layout inside them (Amazon-Computers, Amazon-Photo, Coauthor-CS).
//!
//! The `.npy` header (a Python dict literal) is parsed here by a small strict parser:
//! lengths are checked against the input before anything is allocated, so a corrupt file
//! is an error, never a panic or a huge allocation.
use super::array::{self, NdArray};
use super::{CsrMatrix, NodeDataset};
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

/// The largest uncompressed `.npy` entry accepted (guards against zip bombs).
pub const MAX_ENTRY_BYTES: u64 = 4 << 30;

/// The three fields of an `.npy` header.
#[derive(Clone, Debug, PartialEq)]
pub struct NpyHeader {
    pub descr: String,
    pub fortran_order: bool,
    pub shape: Vec<usize>,
}

/// A tiny parser for the header's dict literal: `{'descr': '<f4', 'fortran_order':
/// False, 'shape': (3, 4), }`.
struct Lit<'a> {
    s: &'a [u8],
    pos: usize,
}

enum LitValue {
    Str(String),
    Bool(bool),
    Tuple(Vec<usize>),
}

impl Lit<'_> {
    fn ws(&mut self) {
        while self
            .s
            .get(self.pos)
            .is_some_and(|b| b.is_ascii_whitespace())
        {
            self.pos += 1;
        }
    }
    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.s.get(self.pos) == Some(&c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn string(&mut self) -> Option<String> {
        self.ws();
        let q = *self.s.get(self.pos)?;
        if q != b'\'' && q != b'"' {
            return None;
        }
        let start = self.pos + 1;
        let len = self.s.get(start..)?.iter().position(|&b| b == q)?;
        self.pos = start + len + 1;
        String::from_utf8(self.s[start..start + len].to_vec()).ok()
    }
    fn int(&mut self) -> Option<usize> {
        self.ws();
        let start = self.pos;
        while self.s.get(self.pos).is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        let digits = std::str::from_utf8(&self.s[start..self.pos]).ok()?;
        // Python 2 numpy wrote shapes as `(3L, 4L)`.
        if self.s.get(self.pos) == Some(&b'L') {
            self.pos += 1;
        }
        digits.parse().ok()
    }
    fn value(&mut self) -> Option<LitValue> {
        self.ws();
        match self.s.get(self.pos)? {
            b'\'' | b'"' => self.string().map(LitValue::Str),
            b'T' if self.s[self.pos..].starts_with(b"True") => {
                self.pos += 4;
                Some(LitValue::Bool(true))
            }
            b'F' if self.s[self.pos..].starts_with(b"False") => {
                self.pos += 5;
                Some(LitValue::Bool(false))
            }
            b'(' => {
                self.pos += 1;
                let mut dims = Vec::new();
                loop {
                    if self.eat(b')') {
                        return Some(LitValue::Tuple(dims));
                    }
                    dims.push(self.int()?);
                    if !self.eat(b',') {
                        return self.eat(b')').then_some(LitValue::Tuple(dims));
                    }
                }
            }
            _ => None,
        }
    }
}

fn parse_header_dict(text: &[u8]) -> std::result::Result<NpyHeader, String> {
    let mut p = Lit { s: text, pos: 0 };
    let bad = || {
        format!(
            "unreadable header {:?}; expected a dict with 'descr' (a numeric type string), 'fortran_order' and 'shape'",
            String::from_utf8_lossy(&text[..text.len().min(120)])
        )
    };
    if !p.eat(b'{') {
        return Err(bad());
    }
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    loop {
        if p.eat(b'}') {
            break;
        }
        let key = p.string().ok_or_else(bad)?;
        if !p.eat(b':') {
            return Err(bad());
        }
        match (key.as_str(), p.value().ok_or_else(bad)?) {
            ("descr", LitValue::Str(s)) => descr = Some(s),
            ("fortran_order", LitValue::Bool(b)) => fortran = Some(b),
            ("shape", LitValue::Tuple(t)) => shape = Some(t),
            _ => return Err(bad()),
        }
        if !p.eat(b',') {
            if p.eat(b'}') {
                break;
            }
            return Err(bad());
        }
    }
    p.ws();
    if p.pos != text.len() {
        return Err(bad());
    }
    match (descr, fortran, shape) {
        (Some(descr), Some(fortran_order), Some(shape)) => Ok(NpyHeader {
            descr,
            fortran_order,
            shape,
        }),
        _ => Err(bad()),
    }
}

/// Splits an `.npy` file into its header and its raw data bytes.
pub fn parse_npy_header(bytes: &[u8]) -> std::result::Result<(NpyHeader, &[u8]), String> {
    let rest = bytes
        .strip_prefix(b"\x93NUMPY")
        .ok_or("not an .npy array (missing \\x93NUMPY magic)")?;
    let (major, rest) = rest.split_first().ok_or("truncated .npy header")?;
    let (_minor, rest) = rest.split_first().ok_or("truncated .npy header")?;
    let (len, rest) = match major {
        1 => {
            let b = rest.get(..2).ok_or("truncated .npy header")?;
            (usize::from(u16::from_le_bytes([b[0], b[1]])), &rest[2..])
        }
        2 | 3 => {
            let b = rest.get(..4).ok_or("truncated .npy header")?;
            (
                u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize,
                &rest[4..],
            )
        }
        v => return Err(format!("unsupported .npy version {v}")),
    };
    let text = rest.get(..len).ok_or("truncated .npy header")?;
    let header = parse_header_dict(text)?;
    Ok((header, &rest[len..]))
}

/// Parses a whole `.npy` file into a numeric array.
pub fn parse_npy(bytes: &[u8]) -> std::result::Result<NdArray, String> {
    let (h, data) = parse_npy_header(bytes)?;
    array::decode(&h.descr, &h.shape, h.fortran_order, data)
}

/// The raw `.npy` entries of an `.npz` archive, by array name (entry name without `.npy`).
pub fn read_npz_entries(path: &Path, bytes: &[u8]) -> Result<HashMap<String, Vec<u8>>> {
    let corrupt = |e: &dyn std::fmt::Display| {
        Error::file(path, format!("not a readable .npz (zip) archive: {e}"))
    };
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(|e| corrupt(&e))?;
    let mut out = HashMap::new();
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).map_err(|e| corrupt(&e))?;
        if entry.is_dir() {
            continue;
        }
        let name = entry.name().map_err(|e| corrupt(&e))?.to_string();
        let key = name.strip_suffix(".npy").unwrap_or(&name).to_string();
        // The declared size may lie; grow past 1 MiB only as data actually arrives.
        let mut buf = Vec::with_capacity(entry.size().min(1 << 20) as usize);
        (&mut entry)
            .take(MAX_ENTRY_BYTES + 1)
            .read_to_end(&mut buf)
            .map_err(|e| {
                Error::file(
                    path,
                    format!("entry {name}: {e} (truncated or corrupt archive?)"),
                )
            })?;
        if buf.len() as u64 > MAX_ENTRY_BYTES {
            return Err(Error::file(
                path,
                format!("entry {name} is larger than 4 GiB"),
            ));
        }
        out.insert(key, buf);
    }
    Ok(out)
}

/// Reads the named numeric arrays from an `.npz` archive (absent names are skipped).
pub fn read_npz_arrays(
    path: &Path,
    bytes: &[u8],
    wanted: &[&str],
) -> Result<HashMap<String, NdArray>> {
    let entries = read_npz_entries(path, bytes)?;
    let mut out = HashMap::new();
    for &name in wanted {
        if let Some(raw) = entries.get(name) {
            let arr =
                parse_npy(raw).map_err(|e| Error::file(path, format!("array {name}: {e}")))?;
            out.insert(name.to_string(), arr);
        }
    }
    Ok(out)
}

fn need<'a>(path: &Path, arrays: &'a HashMap<String, NdArray>, key: &str) -> Result<&'a NdArray> {
    arrays.get(key).ok_or_else(|| {
        Error::file(
            path,
            format!("missing array {key}; expected the gnn-benchmark layout (adj_*, attr_* or attr_matrix, labels)"),
        )
    })
}

fn ints(path: &Path, a: &NdArray, key: &str) -> Result<Vec<i64>> {
    a.to_i64()
        .map_err(|e| Error::file(path, format!("array {key}: {e}")))
}

/// `(rows, cols)` from a `*_shape` array.
fn shape2(path: &Path, a: &NdArray, key: &str) -> Result<(usize, usize)> {
    let v = ints(path, a, key)?;
    match v.as_slice() {
        [r, c] if *r >= 0 && *c >= 0 && *r <= u32::MAX as i64 && *c <= u32::MAX as i64 => {
            Ok((*r as usize, *c as usize))
        }
        _ => Err(Error::file(
            path,
            format!("array {key}: expected two non-negative sizes, found {v:?}"),
        )),
    }
}

/// A CSR matrix from `{prefix}_data`, `_indices`, `_indptr`, `_shape`.
fn csr(path: &Path, arrays: &HashMap<String, NdArray>, prefix: &str) -> Result<CsrMatrix> {
    let key = |s: &str| format!("{prefix}_{s}");
    let (rows, cols) = shape2(path, need(path, arrays, &key("shape"))?, &key("shape"))?;
    let data: Vec<f32> = need(path, arrays, &key("data"))?
        .to_f64()
        .into_iter()
        .map(|x| x as f32)
        .collect();
    let indices = ints(path, need(path, arrays, &key("indices"))?, &key("indices"))?;
    let indptr = ints(path, need(path, arrays, &key("indptr"))?, &key("indptr"))?;
    CsrMatrix::from_parts(rows, cols, &indptr, &indices, data)
        .map_err(|e| Error::file(path, format!("{prefix} matrix: {e}")))
}

/// One class id per node from a 1-dimensional integer array `key`: the ids as `u32` and
/// the number of classes (largest id + 1).
fn class_ids(path: &Path, a: &NdArray, key: &str) -> Result<(Vec<u32>, usize)> {
    if a.shape.len() != 1 {
        return Err(Error::file(
            path,
            format!(
                "array {key}: expected one class id per node (1 dimension), found shape {:?}",
                a.shape
            ),
        ));
    }
    let mut labels = Vec::with_capacity(a.len());
    for (i, l) in ints(path, a, key)?.into_iter().enumerate() {
        if !(0..=i64::from(u32::MAX - 1)).contains(&l) {
            return Err(Error::file(
                path,
                format!("array {key}: entry {i} is {l}; expected a class id >= 0"),
            ));
        }
        labels.push(l as u32);
    }
    let num_classes = labels.iter().max().map_or(0, |&m| m as usize + 1);
    Ok((labels, num_classes))
}

/// Builds a node dataset from a gnn-benchmark `.npz` file: edges made undirected,
/// deduplicated, self-loops removed; raw (unnormalised) features; no public split.
pub fn parse_gnn_benchmark(name: &str, path: &Path, bytes: &[u8]) -> Result<NodeDataset> {
    let wanted = [
        "adj_data",
        "adj_indices",
        "adj_indptr",
        "adj_shape",
        "attr_data",
        "attr_indices",
        "attr_indptr",
        "attr_shape",
        "attr_matrix",
        "labels",
    ];
    let arrays = read_npz_arrays(path, bytes, &wanted)?;
    let adj = csr(path, &arrays, "adj")?;
    if adj.rows != adj.cols {
        return Err(Error::file(
            path,
            format!(
                "adj matrix is {}x{}; expected a square adjacency matrix",
                adj.rows, adj.cols
            ),
        ));
    }
    let n = adj.rows;
    let features = if arrays.contains_key("attr_data") {
        csr(path, &arrays, "attr")?
    } else {
        let m = need(path, &arrays, "attr_matrix")?;
        if m.shape.len() != 2 {
            return Err(Error::file(
                path,
                format!(
                    "array attr_matrix: expected 2 dimensions, found shape {:?}",
                    m.shape
                ),
            ));
        }
        CsrMatrix::from_dense(m.shape[0], m.shape[1], &m.to_f64())
    };
    if features.rows != n {
        return Err(Error::file(
            path,
            format!(
                "attribute matrix has {} rows; expected one per node ({n})",
                features.rows
            ),
        ));
    }
    let (labels, num_classes) = class_ids(path, need(path, &arrays, "labels")?, "labels")?;
    if labels.len() != n {
        return Err(Error::file(
            path,
            format!(
                "array labels has {} entries; expected one per node ({n})",
                labels.len()
            ),
        ));
    }
    let mut edges = Vec::with_capacity(adj.indices.len());
    for r in 0..n {
        let (cols, _) = adj.row(r);
        for &c in cols {
            let (u, v) = (r as u32, c);
            if u != v {
                edges.push((u.min(v), u.max(v)));
            }
        }
    }
    edges.sort_unstable();
    edges.dedup();
    Ok(NodeDataset {
        name: name.to_string(),
        num_nodes: n,
        edges,
        features,
        labels,
        num_classes,
        public_split: None,
    })
}

/// The arrays of magcl's own node-level format (`npz:PATH`), documented in
/// `docs/datasets.md`:
///
/// | array | dtype, shape | meaning |
/// |---|---|---|
/// | `x` | float, `(n, f)` | node features, dense; or the four CSR arrays below |
/// | `x_data`, `x_indices`, `x_indptr`, `x_shape` | float `(nnz,)`, int `(nnz,)`, int `(n+1,)`, int `(2,)` | node features as CSR (scipy's `csr_matrix` `.data`, `.indices`, `.indptr`, `.shape`) |
/// | `edge_index` | int, `(2, m)` | edges as source/target rows (PyG's layout); or `edges` |
/// | `edges` | int, `(m, 2)` | edges as one pair per row |
/// | `y` | int, `(n,)` | class id of every node, `0..C` |
/// | `train_mask`, `val_mask`, `test_mask` | bool, `(n,)` | optional, all three or none: a fixed split, disjoint |
///
/// Edges are read as undirected: direction, duplicates and self-loops are dropped.
pub const USER_ARRAYS: [&str; 11] = [
    "x",
    "x_data",
    "x_indices",
    "x_indptr",
    "x_shape",
    "edge_index",
    "edges",
    "y",
    "train_mask",
    "val_mask",
    "test_mask",
];

/// Builds a node dataset from magcl's own `.npz` layout ([`USER_ARRAYS`]).
pub fn parse_user_graph(name: &str, path: &Path, bytes: &[u8]) -> Result<NodeDataset> {
    let arrays = read_npz_arrays(path, bytes, &USER_ARRAYS)?;
    let bad = |msg: String| Error::file(path, msg);
    // Labels first: they fix the number of nodes.
    let y = arrays.get("y").ok_or_else(|| {
        bad("missing array y (one class id per node); expected the arrays x (or x_data, x_indices, x_indptr, x_shape), edge_index (or edges), y and optionally train_mask, val_mask, test_mask".into())
    })?;
    let (labels, num_classes) = class_ids(path, y, "y")?;
    let n = labels.len();
    if n == 0 || n > u32::MAX as usize {
        return Err(bad(format!(
            "array y has {n} entries; expected 1 to {} nodes",
            u32::MAX
        )));
    }

    let features = match (arrays.get("x"), arrays.contains_key("x_data")) {
        (Some(_), true) => {
            return Err(bad(
                "both x and x_data are present; give the features once, dense (x) or as CSR (x_data, x_indices, x_indptr, x_shape)".into(),
            ))
        }
        (Some(x), false) => {
            if x.shape.len() != 2 {
                return Err(bad(format!(
                    "array x: expected 2 dimensions (nodes, features), found shape {:?}",
                    x.shape
                )));
            }
            CsrMatrix::from_dense(x.shape[0], x.shape[1], &x.to_f64())
        }
        (None, true) => csr(path, &arrays, "x")?,
        (None, false) => {
            return Err(bad(
                "missing node features: expected array x (nodes × features) or x_data, x_indices, x_indptr, x_shape".into(),
            ))
        }
    };
    if features.rows != n {
        return Err(bad(format!(
            "the features have {} rows; expected one per node ({n}, the length of y)",
            features.rows
        )));
    }
    if let Some(k) = features.data.iter().position(|v| !v.is_finite()) {
        let row = features.indptr.partition_point(|&p| p <= k) - 1;
        return Err(bad(format!(
            "the features of node {row} contain a non-finite value ({}); expected finite numbers",
            features.data[k]
        )));
    }

    let (pairs, key) = match (arrays.get("edge_index"), arrays.get("edges")) {
        (Some(_), Some(_)) => {
            return Err(bad(
                "both edge_index and edges are present; give the edges once".into(),
            ))
        }
        (Some(e), None) => {
            if e.shape.len() != 2 || e.shape[0] != 2 {
                return Err(bad(format!(
                    "array edge_index: expected shape (2, edges), found {:?}",
                    e.shape
                )));
            }
            let v = ints(path, e, "edge_index")?;
            let m = e.shape[1];
            (
                (0..m).map(|j| (v[j], v[m + j])).collect::<Vec<_>>(),
                "edge_index",
            )
        }
        (None, Some(e)) => {
            if e.shape.len() != 2 || e.shape[1] != 2 {
                return Err(bad(format!(
                    "array edges: expected shape (edges, 2), found {:?}",
                    e.shape
                )));
            }
            let v = ints(path, e, "edges")?;
            (v.chunks(2).map(|p| (p[0], p[1])).collect(), "edges")
        }
        (None, None) => {
            return Err(bad(
                "missing edges: expected array edge_index (2 × edges) or edges (edges × 2)".into(),
            ))
        }
    };
    let mut edges = Vec::with_capacity(pairs.len());
    for (j, &(u, v)) in pairs.iter().enumerate() {
        for w in [u, v] {
            if !(0..n as i64).contains(&w) {
                return Err(bad(format!(
                    "array {key}: edge {j} ({u}, {v}) names node {w}; nodes are 0..{}",
                    n - 1
                )));
            }
        }
        if u != v {
            edges.push((u.min(v) as u32, u.max(v) as u32));
        }
    }
    edges.sort_unstable();
    edges.dedup();

    let masks: Vec<Option<&NdArray>> = ["train_mask", "val_mask", "test_mask"]
        .iter()
        .map(|k| arrays.get(*k))
        .collect();
    let public_split = match masks.iter().filter(|m| m.is_some()).count() {
        0 => None,
        3 => {
            let mut owner: Vec<Option<&str>> = vec![None; n];
            let mut sets: Vec<Vec<u32>> = Vec::new();
            for (key, m) in ["train_mask", "val_mask", "test_mask"].iter().zip(&masks) {
                let m = m.expect("all three present");
                if m.shape != [n] {
                    return Err(bad(format!(
                        "array {key}: expected shape ({n},) (one flag per node), found {:?}",
                        m.shape
                    )));
                }
                let flags = ints(path, m, key)?;
                let mut set = Vec::new();
                for (i, &f) in flags.iter().enumerate() {
                    match f {
                        0 => {}
                        1 => {
                            if let Some(other) = owner[i] {
                                return Err(bad(format!(
                                    "masks overlap: node {i} is in both {other} and {key}; the split must be disjoint"
                                )));
                            }
                            owner[i] = Some(key);
                            set.push(i as u32);
                        }
                        _ => {
                            return Err(bad(format!(
                                "array {key}: entry {i} is {f}; expected booleans (0 or 1)"
                            )))
                        }
                    }
                }
                if set.is_empty() {
                    return Err(bad(format!("array {key} selects no node")));
                }
                sets.push(set);
            }
            let test = sets.pop().expect("three sets");
            let val = sets.pop().expect("three sets");
            let train = sets.pop().expect("three sets");
            Some(super::Split { train, val, test })
        }
        _ => {
            return Err(bad(
                "give all three of train_mask, val_mask, test_mask or none (then the random split of the preset is used)".into(),
            ))
        }
    };
    Ok(NodeDataset {
        name: name.to_string(),
        num_nodes: n,
        edges,
        features,
        labels,
        num_classes,
        public_split,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npy(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
        let mut h = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
        while (10 + h.len() + 1) % 64 != 0 {
            h.push(' ');
        }
        h.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(h.len() as u16).to_le_bytes());
        out.extend_from_slice(h.as_bytes());
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn npy_roundtrip() {
        let a = parse_npy(&npy(
            "<i8",
            "(2,)",
            &[3, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0],
        ))
        .unwrap();
        assert_eq!(a.shape, vec![2]);
        assert_eq!(a.to_i64().unwrap(), vec![3, 4]);
        let a = parse_npy(&npy("<f8", "()", &2.5f64.to_le_bytes())).unwrap();
        assert_eq!(a.to_f64(), vec![2.5]);
        assert!(parse_npy(&npy("<f8", "(2,)", &[0; 8])).is_err());
        assert!(parse_npy(&npy("|O", "(1,)", &[0; 8])).is_err());
        assert!(parse_npy(b"\x93NUMPY\x01\x00\xff\xff{").is_err());
        assert!(parse_header_dict(b"{'descr': '<f4', 'shape': (1,2)}").is_err());
        let h =
            parse_header_dict(b"{'descr':'<f4','fortran_order':True,'shape':(1L, 2L)}").unwrap();
        assert_eq!(h.shape, vec![1, 2]);
        assert!(h.fortran_order);
    }
}
