//! The TU graph-kernel text format (`NAME_A.txt`, `NAME_graph_indicator.txt`,
//! `NAME_graph_labels.txt` and the optional `node_labels`, `node_attributes`,
//! `edge_labels`, `edge_attributes`).
//!
//! What the loader does with the quirks of the real files:
//! * node ids are 1-based over the whole dataset; `graph_indicator` line `i` names the
//!   (1-based) graph of node `i`. Nodes keep their order inside their graph;
//! * `A.txt` lines are directed pairs; both directions and repeated lines (the IMDB files
//!   hold every directed pair twice) collapse into one undirected edge `(u, v)`, `u < v`;
//!   self-loops are dropped, and an edge joining two graphs is an error;
//! * graph labels (e.g. `{-1, 1}` or `{1, 2}`) map to `0..C` in ascending order of value;
//!   node and edge labels likewise map to indices of their sorted distinct values;
//! * an edge label (or attribute row) belongs to the first `A.txt` line of its undirected
//!   edge; the two directions of an edge must carry the same label.
use super::text::{self, Line};
use super::{Graph, GraphDataset};
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The files of the format, as suffixes after `NAME_`.
pub const REQUIRED_FILES: [&str; 3] = ["A.txt", "graph_indicator.txt", "graph_labels.txt"];
pub const OPTIONAL_FILES: [&str; 4] = [
    "node_labels.txt",
    "node_attributes.txt",
    "edge_labels.txt",
    "edge_attributes.txt",
];

/// The content of one file, with the path used in error messages.
#[derive(Clone, Copy, Debug)]
pub struct TuFile<'a> {
    pub path: &'a Path,
    pub bytes: &'a [u8],
}

/// All files of one TU dataset, already read into memory.
#[derive(Clone, Copy, Debug)]
pub struct TuSources<'a> {
    pub a: TuFile<'a>,
    pub graph_indicator: TuFile<'a>,
    pub graph_labels: TuFile<'a>,
    pub node_labels: Option<TuFile<'a>>,
    pub node_attributes: Option<TuFile<'a>>,
    pub edge_labels: Option<TuFile<'a>>,
    pub edge_attributes: Option<TuFile<'a>>,
}

/// Reads `DIR/NAME_*.txt` and parses them. `name` is the file prefix (e.g. `MUTAG`).
pub fn load_tu_dir(dir: &Path, name: &str) -> Result<GraphDataset> {
    let path_of = |suffix: &str| dir.join(format!("{name}_{suffix}"));
    let read_required = |suffix: &str| -> Result<(PathBuf, Vec<u8>)> {
        let p = path_of(suffix);
        match std::fs::read(&p) {
            Ok(b) => Ok((p, b)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Error::file(
                &p,
                format!("missing: every TU dataset needs NAME_{suffix}"),
            )),
            Err(e) => Err(Error::file(&p, format!("cannot read: {e}"))),
        }
    };
    let read_optional = |suffix: &str| -> Result<Option<(PathBuf, Vec<u8>)>> {
        let p = path_of(suffix);
        match std::fs::read(&p) {
            Ok(b) => Ok(Some((p, b))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::file(&p, format!("cannot read: {e}"))),
        }
    };
    let a = read_required(REQUIRED_FILES[0])?;
    let gi = read_required(REQUIRED_FILES[1])?;
    let gl = read_required(REQUIRED_FILES[2])?;
    let nl = read_optional(OPTIONAL_FILES[0])?;
    let na = read_optional(OPTIONAL_FILES[1])?;
    let el = read_optional(OPTIONAL_FILES[2])?;
    let ea = read_optional(OPTIONAL_FILES[3])?;
    let sources = TuSources {
        a: file(&a),
        graph_indicator: file(&gi),
        graph_labels: file(&gl),
        node_labels: nl.as_ref().map(file),
        node_attributes: na.as_ref().map(file),
        edge_labels: el.as_ref().map(file),
        edge_attributes: ea.as_ref().map(file),
    };
    parse_tu(name, &sources)
}

fn file(f: &(PathBuf, Vec<u8>)) -> TuFile<'_> {
    TuFile {
        path: &f.0,
        bytes: &f.1,
    }
}

fn non_empty<'a>(f: &TuFile<'a>, expected: &str) -> Result<Vec<Line<'a>>> {
    let lines = text::lines(f.path, f.bytes)?;
    if lines.is_empty() {
        return Err(Error::parse(
            f.path,
            1,
            format!("file is empty; expected {expected}"),
        ));
    }
    Ok(lines)
}

/// A file with one line per node (or per edge line): the counts must agree.
fn check_count(f: &TuFile, lines: &[Line], expected: usize, per: &str) -> Result<()> {
    if lines.len() < expected {
        let last = lines.last().map_or(0, |l| l.number);
        return Err(Error::parse(
            f.path,
            last + 1,
            format!(
                "file ends after {} lines; expected {expected} (one per {per})",
                lines.len()
            ),
        ));
    }
    if lines.len() > expected {
        return Err(Error::parse(
            f.path,
            lines[expected].number,
            format!("extra line; expected {expected} lines (one per {per})"),
        ));
    }
    Ok(())
}

/// Maps values to indices of their sorted distinct values.
pub(crate) fn index_values(values: &[i64]) -> (Vec<i64>, Vec<u32>) {
    let mut distinct = values.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    let index: HashMap<i64, u32> = distinct
        .iter()
        .enumerate()
        .map(|(i, &v)| (v, i as u32))
        .collect();
    let mapped = values.iter().map(|v| index[v]).collect();
    (distinct, mapped)
}

/// Reads a file of continuous rows (all of one width) with `expected` lines.
fn read_rows(f: &TuFile, expected: usize, per: &str) -> Result<(Vec<f32>, usize)> {
    let lines = non_empty(f, &format!("{expected} lines of comma-separated numbers"))?;
    check_count(f, &lines, expected, per)?;
    let mut values = Vec::with_capacity(expected * 2);
    let mut dim = 0usize;
    for (i, line) in lines.iter().enumerate() {
        let n = text::float_fields(f.path, line, &mut values)?;
        if i == 0 {
            dim = n;
        } else if n != dim {
            return Err(Error::parse(
                f.path,
                line.number,
                format!(
                    "expected {dim} comma-separated values (as on line {}), found {n}",
                    lines[0].number
                ),
            ));
        }
    }
    Ok((values, dim))
}

/// Parses one TU dataset from in-memory files. Never panics on any input.
pub fn parse_tu(name: &str, src: &TuSources) -> Result<GraphDataset> {
    // Graph labels: one per graph.
    let gl = src.graph_labels;
    let gl_lines = non_empty(&gl, "one integer class label per graph")?;
    let raw_labels = gl_lines
        .iter()
        .map(|l| text::one_int(gl.path, l, "graph class label"))
        .collect::<Result<Vec<i64>>>()?;
    let num_graphs = raw_labels.len();
    let (class_values, labels) = index_values(&raw_labels);

    // Graph indicator: one line per node.
    let gi = src.graph_indicator;
    let gi_lines = non_empty(&gi, "one graph id per node")?;
    if gi_lines.len() > u32::MAX as usize {
        return Err(Error::file(gi.path, "too many nodes"));
    }
    let num_nodes = gi_lines.len();
    let mut node_graph = Vec::with_capacity(num_nodes);
    let mut node_local = Vec::with_capacity(num_nodes);
    let mut graph_sizes = vec![0u32; num_graphs];
    for line in &gi_lines {
        let g = text::one_int(gi.path, line, "graph id of this node")?;
        if g < 1 || g as u64 > num_graphs as u64 {
            return Err(Error::parse(
                gi.path,
                line.number,
                format!(
                    "graph id {g} out of range: expected 1..={num_graphs} ({} has {num_graphs} lines)",
                    gl.path.display()
                ),
            ));
        }
        let g = (g - 1) as usize;
        node_graph.push(g as u32);
        node_local.push(graph_sizes[g]);
        graph_sizes[g] += 1;
    }
    if let Some(empty) = graph_sizes.iter().position(|&s| s == 0) {
        return Err(Error::parse(
            gl.path,
            gl_lines[empty].number,
            format!(
                "graph {} has no nodes: no line of {} names it",
                empty + 1,
                gi.path.display()
            ),
        ));
    }

    // Node labels.
    let (node_label_values, node_labels) = match src.node_labels {
        Some(f) => {
            let lines = non_empty(&f, &format!("{num_nodes} node labels (one per node)"))?;
            check_count(&f, &lines, num_nodes, "node")?;
            let raw = lines
                .iter()
                .map(|l| text::one_int(f.path, l, "node label"))
                .collect::<Result<Vec<i64>>>()?;
            let (values, mapped) = index_values(&raw);
            (values, Some(mapped))
        }
        None => (Vec::new(), None),
    };

    // Node attributes.
    let (node_attributes, node_attr_dim) = match src.node_attributes {
        Some(f) => {
            let (v, d) = read_rows(&f, num_nodes, "node")?;
            (Some(v), d)
        }
        None => (None, 0),
    };

    // Edges.
    let a = src.a;
    let a_lines = non_empty(&a, "one edge per line as `source, target` node ids")?;
    // Per graph: (u, v, index of the first A.txt line of this undirected edge).
    let mut raw_edges: Vec<Vec<(u32, u32, u32)>> = vec![Vec::new(); num_graphs];
    for (i, line) in a_lines.iter().enumerate() {
        let [s, t] = text::int_fields::<2>(a.path, line, "source, target node ids")?;
        let node = |id: i64| -> Result<usize> {
            if id < 1 || id as u64 > num_nodes as u64 {
                Err(Error::parse(
                    a.path,
                    line.number,
                    format!(
                        "node id {id} out of range: expected 1..={num_nodes} ({} lists {num_nodes} nodes)",
                        gi.path.display()
                    ),
                ))
            } else {
                Ok((id - 1) as usize)
            }
        };
        let (s, t) = (node(s)?, node(t)?);
        let (gs, gt) = (node_graph[s], node_graph[t]);
        if gs != gt {
            return Err(Error::parse(
                a.path,
                line.number,
                format!(
                    "edge {} -- {} joins graph {} and graph {}; expected both ends in one graph",
                    s + 1,
                    t + 1,
                    gs + 1,
                    gt + 1
                ),
            ));
        }
        let (u, v) = (node_local[s], node_local[t]);
        if u != v {
            raw_edges[gs as usize].push((u.min(v), u.max(v), i as u32));
        }
    }

    // Edge labels and attributes: one line per A.txt line.
    let edge_label_raw = match src.edge_labels {
        Some(f) => {
            let lines = non_empty(&f, "one edge label per line of A.txt")?;
            check_count(&f, &lines, a_lines.len(), "line of A.txt")?;
            Some(
                lines
                    .iter()
                    .map(|l| text::one_int(f.path, l, "edge label"))
                    .collect::<Result<Vec<i64>>>()?,
            )
        }
        None => None,
    };
    let (edge_label_values, edge_label_idx) = match &edge_label_raw {
        Some(raw) => {
            let (v, m) = index_values(raw);
            (v, Some(m))
        }
        None => (Vec::new(), None),
    };
    let (edge_attr_rows, edge_attr_dim) = match src.edge_attributes {
        Some(f) => {
            let (v, d) = read_rows(&f, a_lines.len(), "line of A.txt")?;
            (Some(v), d)
        }
        None => (None, 0),
    };

    // Assemble graphs: sort, deduplicate, align edge data with the first line of each edge.
    let mut graphs = Vec::with_capacity(num_graphs);
    let mut node_start = vec![0usize; num_graphs];
    {
        // Nodes of graph g in file order (usually contiguous, but not required).
        let mut seen = vec![false; num_graphs];
        for (n, &g) in node_graph.iter().enumerate() {
            if !seen[g as usize] {
                seen[g as usize] = true;
                node_start[g as usize] = n;
            }
        }
    }
    let contiguous = node_graph.windows(2).all(|w| w[0] <= w[1]);
    let mut members: Vec<Vec<usize>> = Vec::new();
    if !contiguous {
        members = vec![Vec::new(); num_graphs];
        for (n, &g) in node_graph.iter().enumerate() {
            members[g as usize].push(n);
        }
    }
    for (g, mut edges) in raw_edges.into_iter().enumerate() {
        edges.sort_unstable();
        let mut kept: Vec<(u32, u32, u32)> = Vec::with_capacity(edges.len());
        for e in edges {
            match kept.last() {
                Some(last) if last.0 == e.0 && last.1 == e.1 => {
                    if let (Some(lab), Some(raw)) = (&edge_label_idx, &edge_label_raw) {
                        let (first, this) = (last.2 as usize, e.2 as usize);
                        if lab[first] != lab[this] {
                            let f = src.edge_labels.map_or(a.path, |f| f.path);
                            return Err(Error::parse(
                                f,
                                a_lines[this].number,
                                format!(
                                    "edge label {} differs from label {} on line {} for the same undirected edge; expected equal labels",
                                    raw[this],
                                    raw[first],
                                    a_lines[first].number
                                ),
                            ));
                        }
                    }
                }
                _ => kept.push(e),
            }
        }
        let n = graph_sizes[g] as usize;
        let node_ids: Vec<usize> = if contiguous {
            (node_start[g]..node_start[g] + n).collect()
        } else {
            std::mem::take(&mut members[g])
        };
        let graph = Graph {
            num_nodes: n,
            edges: kept.iter().map(|e| (e.0, e.1)).collect(),
            node_labels: node_labels
                .as_ref()
                .map(|l| node_ids.iter().map(|&i| l[i]).collect()),
            node_attributes: node_attributes.as_ref().map(|v| {
                let d = node_attr_dim;
                node_ids
                    .iter()
                    .flat_map(|&i| v[i * d..(i + 1) * d].iter().copied())
                    .collect()
            }),
            edge_labels: edge_label_idx
                .as_ref()
                .map(|l| kept.iter().map(|e| l[e.2 as usize]).collect()),
            edge_attributes: edge_attr_rows.as_ref().map(|v| {
                let d = edge_attr_dim;
                kept.iter()
                    .flat_map(|e| {
                        let i = e.2 as usize;
                        v[i * d..(i + 1) * d].iter().copied()
                    })
                    .collect()
            }),
            label: labels[g],
        };
        graphs.push(graph);
    }

    Ok(GraphDataset {
        name: name.to_string(),
        graphs,
        class_values,
        node_label_values,
        node_attr_dim,
        edge_label_values,
        edge_attr_dim,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f<'a>(name: &'a str, s: &'a str) -> TuFile<'a> {
        TuFile {
            path: Path::new(name),
            bytes: s.as_bytes(),
        }
    }

    fn tiny<'a>(a: &'a str, gi: &'a str, gl: &'a str) -> TuSources<'a> {
        TuSources {
            a: f("T_A.txt", a),
            graph_indicator: f("T_graph_indicator.txt", gi),
            graph_labels: f("T_graph_labels.txt", gl),
            node_labels: None,
            node_attributes: None,
            edge_labels: None,
            edge_attributes: None,
        }
    }

    #[test]
    fn two_graphs_by_hand() {
        // Graph 1: nodes 1,2,3 (triangle given in both directions, one pair repeated,
        // plus a self-loop). Graph 2: nodes 4,5 (one edge, one direction only).
        let a = "1, 2\n2, 1\n2,3\n3,2\n3, 1\n1,3\n1, 2\n3,3\n4,5\n";
        let mut s = tiny(a, "1\n1\n1\n2\n2\n", " 1\n-1\n");
        s.node_labels = Some(f("T_node_labels.txt", "5\n3\n5\n0\n3\n"));
        s.edge_labels = Some(f("T_edge_labels.txt", "7\n7\n8\n8\n9\n9\n7\n1\n2\n"));
        s.node_attributes = Some(f(
            "T_node_attributes.txt",
            " 0.5, 1\n2, 3\n4,5\n6,7\n8,  9\n",
        ));
        let ds = parse_tu("T", &s).unwrap();
        assert_eq!(ds.class_values, vec![-1, 1]);
        assert_eq!(ds.labels(), vec![1, 0]);
        assert_eq!(ds.node_label_values, vec![0, 3, 5]);
        assert_eq!(ds.edge_label_values, vec![1, 2, 7, 8, 9]);
        let g = &ds.graphs[0];
        assert_eq!(g.num_nodes, 3);
        assert_eq!(g.edges, vec![(0, 1), (0, 2), (1, 2)]);
        assert_eq!(g.node_labels, Some(vec![2, 1, 2]));
        // (0,1) first on line 1 → 7; (0,2) first on line 5 → 9; (1,2) line 3 → 8.
        assert_eq!(g.edge_labels, Some(vec![2, 4, 3]));
        assert_eq!(g.node_attributes, Some(vec![0.5, 1.0, 2.0, 3.0, 4.0, 5.0]));
        let h = &ds.graphs[1];
        assert_eq!(h.edges, vec![(0, 1)]);
        assert_eq!(h.node_labels, Some(vec![0, 1]));
        assert_eq!(h.edge_labels, Some(vec![1]));
        assert_eq!(h.node_attributes, Some(vec![6.0, 7.0, 8.0, 9.0]));
        assert_eq!(ds.node_attr_dim, 2);
    }

    #[test]
    fn interleaved_nodes_keep_their_order() {
        let ds = parse_tu("T", &tiny("1,3\n2,4\n", "1\n2\n1\n2\n", "0\n1\n")).unwrap();
        assert_eq!(ds.graphs[0].num_nodes, 2);
        assert_eq!(ds.graphs[0].edges, vec![(0, 1)]);
        assert_eq!(ds.graphs[1].edges, vec![(0, 1)]);
    }

    #[test]
    fn errors_name_file_and_line() {
        let e = parse_tu("T", &tiny("1,2\n1,9\n", "1\n1\n", "0\n"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("T_A.txt:2: node id 9 out of range"), "{e}");
        let e = parse_tu("T", &tiny("1,2\n", "1\n2\n", "0\n1\n"))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("T_A.txt:1: edge 1 -- 2 joins graph 1 and graph 2"),
            "{e}"
        );
        let e = parse_tu("T", &tiny("1,2\n", "1\n1\n", "0\n1\n"))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("T_graph_labels.txt:2: graph 2 has no nodes"),
            "{e}"
        );
        let mut s = tiny("1,2\n2,1\n", "1\n1\n", "0\n");
        s.edge_labels = Some(f("T_edge_labels.txt", "1\n2\n"));
        let e = parse_tu("T", &s).unwrap_err().to_string();
        assert!(
            e.starts_with("T_edge_labels.txt:2: edge label 2 differs"),
            "{e}"
        );
    }
}
