//! Planetoid citation graphs (Cora, CiteSeer, PubMed) read directly from the original
//! files `ind.NAME.{x,tx,allx,y,ty,ally,graph,test.index}`: Python 2 pickles of scipy CSR
//! matrices, numpy one-hot label arrays and a `collections.defaultdict` of neighbour
//! lists, plus a text file of test node ids.
//!
//! Assembly follows the standard (PyG / GCN) reading:
//! * nodes `0..allx.rows` take their features and labels from `allx` / `ally`;
//! * node `test_index[i]` takes row `i` of `tx` / `ty`;
//! * ids between the smallest and largest test id that `test.index` does not list (the 15
//!   isolated CiteSeer nodes) get an all-zero feature row and label 0, and belong to no split;
//! * public split: train = the first `y.rows` nodes, validation = the next 500, test = the
//!   listed test ids (ascending);
//! * labels are the arg-max of each one-hot row (an all-zero row gives 0);
//! * edges come from the neighbour lists, made undirected, deduplicated, without self-loops.
use super::array::NdArray;
use super::pickle::{self, Obj, Pickle, Value};
use super::{text, CsrMatrix, NodeDataset, Split};
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// File suffixes after `ind.NAME.`, in the order [`PlanetoidFiles`] holds them.
pub const SUFFIXES: [&str; 8] = ["x", "tx", "allx", "y", "ty", "ally", "graph", "test.index"];

/// Number of validation nodes in the public split.
pub const NUM_VAL: usize = 500;

/// The eight files of one Planetoid dataset, in memory.
#[derive(Clone, Copy, Debug)]
pub struct PlanetoidFiles<'a> {
    /// `(path, bytes)` in the order of [`SUFFIXES`].
    pub files: [(&'a Path, &'a [u8]); 8],
}

/// Reads `DIR/ind.PREFIX.*` and assembles the dataset.
pub fn load_planetoid_dir(dir: &Path, name: &str, prefix: &str) -> Result<NodeDataset> {
    let mut owned: Vec<(PathBuf, Vec<u8>)> = Vec::with_capacity(8);
    for s in SUFFIXES {
        let p = dir.join(format!("ind.{prefix}.{s}"));
        let b = std::fs::read(&p).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::file(
                    &p,
                    "missing: a Planetoid dataset needs all 8 ind.NAME.* files",
                )
            } else {
                Error::file(&p, format!("cannot read: {e}"))
            }
        })?;
        owned.push((p, b));
    }
    let f = |i: usize| (owned[i].0.as_path(), owned[i].1.as_slice());
    let files = PlanetoidFiles {
        files: [f(0), f(1), f(2), f(3), f(4), f(5), f(6), f(7)],
    };
    parse_planetoid(name, &files)
}

fn bad(path: &Path, msg: impl Into<String>) -> Error {
    Error::file(path, msg)
}

/// Bytes of a numpy array's data field: Python 2 `str`, or the Python 3 forms (`bytes`,
/// a latin-1 `str`, or `_codecs.encode(str, 'latin1')`).
fn raw_bytes(pk: &Pickle, v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::Bytes(b) => Some(b.to_vec()),
        Value::Str(s) => s.chars().map(|c| u8::try_from(u32::from(c)).ok()).collect(),
        Value::Ref(_) if pk.class_name(v).as_deref() == Some("_codecs.encode") => {
            match pk.args(v).first()? {
                Value::Str(s) => s.chars().map(|c| u8::try_from(u32::from(c)).ok()).collect(),
                Value::Bytes(b) => Some(b.to_vec()),
                _ => None,
            }
        }
        _ => None,
    }
}

fn int_of(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::Bool(b) => Some(i64::from(*b)),
        _ => None,
    }
}

/// The numpy type string (`<f4`) of a pickled `numpy.dtype` object.
fn dtype_descr(pk: &Pickle, v: &Value) -> std::result::Result<String, String> {
    let Some(Obj::Object {
        callable, state, ..
    }) = pk.obj(v)
    else {
        return Err("array dtype is not a numpy.dtype object".into());
    };
    let args = pk.args(v);
    if !pk
        .class_name(callable)
        .is_some_and(|c| c.ends_with(".dtype"))
    {
        return Err("array dtype is not a numpy.dtype object".into());
    }
    let ty = args
        .first()
        .and_then(|a| pk.text(a))
        .ok_or("numpy.dtype without a type string")?;
    if ty.starts_with(['<', '>', '|', '=']) {
        return Ok(ty.to_string());
    }
    let endian = state
        .as_ref()
        .and_then(|s| pk.seq(s))
        .and_then(|s| s.get(1))
        .and_then(|e| pk.text(e))
        .unwrap_or("<");
    Ok(format!("{endian}{ty}"))
}

/// Integer sizes of a shape tuple.
fn shape_of(pk: &Pickle, v: &Value) -> std::result::Result<Vec<usize>, String> {
    pk.seq(v)
        .ok_or("numpy array shape is not a tuple")?
        .iter()
        .map(|d| int_of(d).and_then(|d| usize::try_from(d).ok()))
        .collect::<Option<Vec<usize>>>()
        .ok_or_else(|| "numpy array shape holds a non-integer".to_string())
}

/// Interprets a pickled numpy array: `numpy.core.multiarray._reconstruct` + `BUILD`
/// (protocols 0–4), or `numpy._core.numeric._frombuffer(buffer, dtype, shape, order)`
/// (protocol 5).
pub fn ndarray(pk: &Pickle, v: &Value) -> std::result::Result<NdArray, String> {
    let Some(Obj::Object {
        callable, state, ..
    }) = pk.obj(v)
    else {
        return Err("expected a numpy array".into());
    };
    let args = pk.args(v);
    if pk
        .class_name(callable)
        .is_some_and(|c| c.ends_with("._frombuffer"))
    {
        let [buf, dtype, shape, order] = args else {
            return Err("numpy _frombuffer call without (buffer, dtype, shape, order)".into());
        };
        let data = raw_bytes(pk, buf).ok_or("numpy array data is not a byte string")?;
        let fortran = pk.text(order) == Some("F");
        return super::array::decode(
            &dtype_descr(pk, dtype)?,
            &shape_of(pk, shape)?,
            fortran,
            &data,
        );
    }
    if !pk
        .class_name(callable)
        .is_some_and(|c| c.ends_with("._reconstruct"))
    {
        return Err(format!(
            "expected a numpy array, found {}",
            pk.class_name(callable)
                .unwrap_or_else(|| "another object".into())
        ));
    }
    let state = state
        .as_ref()
        .and_then(|s| pk.seq(s))
        .ok_or("numpy array without state")?;
    // (version, shape, dtype, is_fortran, data), or the same without the version.
    let s = match state.len() {
        5 => &state[1..],
        4 => state,
        n => return Err(format!("numpy array state has {n} fields; expected 4 or 5")),
    };
    let shape = shape_of(pk, &s[0])?;
    let descr = dtype_descr(pk, &s[1])?;
    let fortran = int_of(&s[2]).ok_or("numpy array order flag is not a bool")? != 0;
    let data = raw_bytes(pk, &s[3]).ok_or("numpy array data is not a byte string")?;
    super::array::decode(&descr, &shape, fortran, &data)
}

/// Interprets a pickled `scipy.sparse.csr_matrix`.
pub fn csr_matrix(pk: &Pickle, v: &Value) -> std::result::Result<CsrMatrix, String> {
    let class = pk.class_name(v).unwrap_or_default();
    if !class.ends_with("csr_matrix") {
        return Err(format!(
            "expected a scipy.sparse.csr_matrix, found {}",
            if class.is_empty() {
                "another value"
            } else {
                &class
            }
        ));
    }
    let Some(Obj::Object {
        state: Some(state), ..
    }) = pk.obj(v)
    else {
        return Err("csr_matrix without state".into());
    };
    let field = |k: &str| {
        pk.get(state, k)
            .ok_or_else(|| format!("csr_matrix state has no '{k}'"))
    };
    let shape_v = pk.get(state, "_shape").or_else(|| pk.get(state, "shape"));
    let shape: Vec<i64> = shape_v
        .and_then(|s| pk.seq(s))
        .and_then(|s| s.iter().map(int_of).collect::<Option<Vec<_>>>())
        .ok_or("csr_matrix state has no '_shape' tuple")?;
    let (rows, cols) = match shape.as_slice() {
        [r, c]
            if (0..=i64::from(u32::MAX)).contains(r) && (0..=i64::from(u32::MAX)).contains(c) =>
        {
            (*r as usize, *c as usize)
        }
        _ => return Err(format!("csr_matrix shape {shape:?} is not two sizes")),
    };
    let indptr = ndarray(pk, field("indptr")?)
        .map_err(|e| format!("indptr: {e}"))?
        .to_i64()?;
    let indices = ndarray(pk, field("indices")?)
        .map_err(|e| format!("indices: {e}"))?
        .to_i64()?;
    let data: Vec<f32> = ndarray(pk, field("data")?)
        .map_err(|e| format!("data: {e}"))?
        .to_f64()
        .into_iter()
        .map(|x| x as f32)
        .collect();
    CsrMatrix::from_parts(rows, cols, &indptr, &indices, data)
}

/// Interprets a pickled `dict` / `defaultdict` of `int -> list[int]` (the graph).
pub fn adjacency_lists(
    pk: &Pickle,
    v: &Value,
) -> std::result::Result<Vec<(i64, Vec<i64>)>, String> {
    let items = pk
        .dict_items(v)
        .ok_or("expected a dict of neighbour lists")?;
    items
        .iter()
        .map(|(k, nbrs)| {
            let k = int_of(k).ok_or("graph dict key is not an integer")?;
            let list = pk
                .seq(nbrs)
                .ok_or_else(|| format!("neighbours of node {k} are not a list"))?;
            let list = list
                .iter()
                .map(int_of)
                .collect::<Option<Vec<i64>>>()
                .ok_or_else(|| format!("neighbours of node {k} hold a non-integer"))?;
            Ok((k, list))
        })
        .collect()
}

/// Arg-max of each row of a 2-D label array (first maximum; an all-zero row gives 0).
fn argmax_rows(a: &NdArray) -> std::result::Result<(Vec<u32>, usize), String> {
    let [rows, cols] = a.shape[..] else {
        return Err(format!(
            "expected a 2-D one-hot label array, found shape {:?}",
            a.shape
        ));
    };
    let v = a.to_f64();
    let mut out = Vec::with_capacity(rows);
    for r in 0..rows {
        let row = &v[r * cols..(r + 1) * cols];
        let mut best = 0usize;
        for (j, &x) in row.iter().enumerate() {
            if x > row[best] {
                best = j;
            }
        }
        out.push(best as u32);
    }
    Ok((out, cols))
}

/// Assembles a Planetoid dataset from its eight files.
pub fn parse_planetoid(name: &str, f: &PlanetoidFiles) -> Result<NodeDataset> {
    let load = |i: usize| -> Result<Pickle> { pickle::parse(f.files[i].0, f.files[i].1) };
    let path = |i: usize| f.files[i].0;
    let csr_at = |i: usize| -> Result<CsrMatrix> {
        let pk = load(i)?;
        csr_matrix(&pk, pk.root()).map_err(|e| bad(path(i), e))
    };
    let labels_at = |i: usize| -> Result<(Vec<u32>, usize)> {
        let pk = load(i)?;
        let a = ndarray(&pk, pk.root()).map_err(|e| bad(path(i), e))?;
        argmax_rows(&a).map_err(|e| bad(path(i), e))
    };
    let x = csr_at(0)?;
    let tx = csr_at(1)?;
    let allx = csr_at(2)?;
    let (y, classes_y) = labels_at(3)?;
    let (ty, classes_ty) = labels_at(4)?;
    let (ally, classes) = labels_at(5)?;
    let graph = {
        let pk = load(6)?;
        adjacency_lists(&pk, pk.root()).map_err(|e| bad(path(6), e))?
    };
    let (ti_path, ti_bytes) = f.files[7];
    let ti_lines = text::lines(ti_path, ti_bytes)?;
    if ti_lines.is_empty() {
        return Err(Error::parse(
            ti_path,
            1,
            "file is empty; expected one test node id per line",
        ));
    }
    let test_index = ti_lines
        .iter()
        .map(|l| text::one_int(ti_path, l, "test node id"))
        .collect::<Result<Vec<i64>>>()?;

    // Shapes must agree.
    let dims = |m: &CsrMatrix, i: usize| -> Result<()> {
        if m.cols != allx.cols {
            return Err(bad(
                path(i),
                format!(
                    "has {} feature columns; ind.{name}.allx has {}",
                    m.cols, allx.cols
                ),
            ));
        }
        Ok(())
    };
    dims(&x, 0)?;
    dims(&tx, 1)?;
    if classes_y != classes || classes_ty != classes {
        return Err(bad(
            path(3),
            format!("label arrays disagree on the number of classes (y {classes_y}, ty {classes_ty}, ally {classes})"),
        ));
    }
    let rows = |what: &str, got: usize, i: usize, want: usize, of: &str| -> Result<()> {
        if got != want {
            return Err(bad(
                path(i),
                format!("has {got} rows ({what}); expected {want}, as many as {of}"),
            ));
        }
        Ok(())
    };
    rows("training labels", y.len(), 3, x.rows, "x")?;
    rows("labels", ally.len(), 5, allx.rows, "allx")?;
    rows("test labels", ty.len(), 4, tx.rows, "tx")?;
    if tx.rows != test_index.len() {
        return Err(Error::parse(
            ti_path,
            ti_lines.last().map_or(1, |l| l.number),
            format!(
                "lists {} test ids; expected one per row of tx ({})",
                test_index.len(),
                tx.rows
            ),
        ));
    }
    if allx.rows < x.rows + NUM_VAL {
        return Err(bad(
            path(2),
            format!(
                "has {} rows; expected at least {} (training nodes + {NUM_VAL} validation nodes)",
                allx.rows,
                x.rows + NUM_VAL
            ),
        ));
    }

    // Test ids: unique, after the allx nodes.
    let n_all = allx.rows;
    let mut max_id = n_all.saturating_sub(1);
    for (l, &t) in ti_lines.iter().zip(&test_index) {
        if t < n_all as i64 || t > i64::from(u32::MAX - 1) {
            return Err(Error::parse(
                ti_path,
                l.number,
                format!("test node id {t} out of range; expected an id >= {n_all} (the allx rows come first)"),
            ));
        }
        max_id = max_id.max(t as usize);
    }
    let num_nodes = max_id + 1;
    // Unlisted ids inside the test range (CiteSeer has 15) must stay a minority: a huge
    // span means a corrupt file, not thousands of isolated nodes.
    if num_nodes - n_all > 2 * test_index.len() {
        return Err(Error::parse(
            ti_path,
            1,
            format!(
                "test ids span {} ids ({n_all}..={max_id}) for {} listed test nodes; expected nearly consecutive ids",
                num_nodes - n_all,
                test_index.len()
            ),
        ));
    }
    // Position of each node's tx row, if it is a test node.
    let mut tx_row: Vec<Option<u32>> = vec![None; num_nodes - n_all];
    for (i, (l, &t)) in ti_lines.iter().zip(&test_index).enumerate() {
        let slot = &mut tx_row[t as usize - n_all];
        if slot.is_some() {
            return Err(Error::parse(
                ti_path,
                l.number,
                format!("test node id {t} is listed twice; expected distinct ids"),
            ));
        }
        *slot = Some(i as u32);
    }

    // Features and labels in node order.
    let mut indptr = Vec::with_capacity(num_nodes + 1);
    let mut indices = Vec::with_capacity(allx.indices.len() + tx.indices.len());
    let mut data = Vec::with_capacity(indices.capacity());
    let mut labels = Vec::with_capacity(num_nodes);
    indptr.push(0usize);
    for n in 0..num_nodes {
        let (cols, vals, label) = if n < n_all {
            let (c, v) = allx.row(n);
            (c, v, ally[n])
        } else if let Some(i) = tx_row[n - n_all] {
            let (c, v) = tx.row(i as usize);
            (c, v, ty[i as usize])
        } else {
            (&[][..], &[][..], 0)
        };
        indices.extend_from_slice(cols);
        data.extend_from_slice(vals);
        indptr.push(indices.len());
        labels.push(label);
    }
    let features = CsrMatrix {
        rows: num_nodes,
        cols: allx.cols,
        indptr,
        indices,
        data,
    };

    // Edges.
    let mut edges = Vec::new();
    for (k, nbrs) in &graph {
        for &j in std::iter::once(k).chain(nbrs) {
            if j < 0 || j as u64 >= num_nodes as u64 {
                return Err(bad(
                    path(6),
                    format!("node id {j} out of range; expected ids 0..{num_nodes}"),
                ));
            }
        }
        for &j in nbrs {
            let (u, v) = (*k as u32, j as u32);
            if u != v {
                edges.push((u.min(v), u.max(v)));
            }
        }
    }
    edges.sort_unstable();
    edges.dedup();

    let mut test: Vec<u32> = test_index.iter().map(|&t| t as u32).collect();
    test.sort_unstable();
    let split = Split {
        train: (0..x.rows as u32).collect(),
        val: (x.rows as u32..(x.rows + NUM_VAL) as u32).collect(),
        test,
    };
    Ok(NodeDataset {
        name: name.to_string(),
        num_nodes,
        edges,
        features,
        labels,
        num_classes: classes,
        public_split: Some(split),
    })
}
