//! The GIN/DGCNN graph text format (`NAME.txt`), as the GIN and DGCNN code reads it:
//!
//! ```text
//! G                      number of graphs
//! n l                    per graph: number of nodes, graph label
//! t m j1 .. jm [a1 ..]   per node: tag, number of neighbours, the m neighbours (0-based,
//!                        within the graph), then optional continuous attributes
//! ```
//!
//! Fields are separated by spaces or tabs. The loader builds exactly the
//! [`GraphDataset`] the TU parser ([`super::tu`]) builds from the same graphs:
//! * nodes keep their line order inside their graph;
//! * every listed neighbour `(i, j)` is one direction of the undirected edge
//!   `(min, max)`; both directions and repeats collapse into one, self-loops are dropped
//!   (COLLAB's copy lists 2,837, which the TU loader drops too);
//! * graph labels map to `0..C` in ascending order of value, node tags to the indices of
//!   their sorted distinct values; so a copy whose labels were renamed by an
//!   order-preserving map (the converted TU sets write `{-1, 1}` as `{0, 2}` or `{0, 1}`)
//!   gives the same classes;
//! * a tag column holding one value for every node of the dataset carries no information:
//!   the conversion from the TU files writes tag 0 for sets without node labels (COLLAB,
//!   IMDB, REDDIT), so such a file has no node labels, like its TU original;
//! * attributes, where present, have one width over the whole file.
//!
//! Strict and bounded: a malformed file is an error naming the line and what was expected;
//! the counts a file announces never size an allocation beyond what its bytes can hold.
//! See docs/datasets.md.
use super::text::{parse_f32, parse_i64, show};
use super::tu::index_values;
use super::{Graph, GraphDataset};
use crate::error::{Error, Result};
use std::path::Path;

/// Lines of a file, numbered from 1, without line endings; a leading UTF-8 BOM is dropped.
/// Blank lines are allowed only at the end of the file (checked by the caller).
struct Lines<'a> {
    rest: &'a [u8],
    number: usize,
}

impl<'a> Lines<'a> {
    fn new(bytes: &'a [u8]) -> Lines<'a> {
        Lines {
            rest: bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes),
            number: 0,
        }
    }

    /// The next line (`None` at the end of the file).
    fn next_line(&mut self) -> Option<(usize, &'a [u8])> {
        if self.rest.is_empty() {
            return None;
        }
        let (line, rest) = match self.rest.iter().position(|&b| b == b'\n') {
            Some(p) => (&self.rest[..p], &self.rest[p + 1..]),
            None => (self.rest, &self.rest[self.rest.len()..]),
        };
        self.rest = rest;
        self.number += 1;
        Some((self.number, line.strip_suffix(b"\r").unwrap_or(line)))
    }

    /// Bytes not yet read: an upper bound on the lines (and records) still to come.
    fn remaining(&self) -> usize {
        self.rest.len()
    }
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|b| b.is_ascii_whitespace())
}

fn fields(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|&b| b == b' ' || b == b'\t')
        .filter(|f| !f.is_empty())
}

/// The next record line; a blank line or the end of the file is an error saying what was
/// expected there.
fn record<'a>(path: &Path, lines: &mut Lines<'a>, expected: &str) -> Result<(usize, &'a [u8])> {
    match lines.next_line() {
        Some((n, l)) if is_blank(l) => Err(Error::parse(
            path,
            n,
            format!("blank line; expected {expected}"),
        )),
        Some(x) => Ok(x),
        None => Err(Error::parse(
            path,
            lines.number + 1,
            format!("file ends here; expected {expected}"),
        )),
    }
}

fn int(path: &Path, line: usize, field: Option<&[u8]>, what: &str) -> Result<i64> {
    match field {
        Some(f) => parse_i64(f).ok_or_else(|| {
            Error::parse(
                path,
                line,
                format!("expected an integer ({what}), found {}", show(f)),
            )
        }),
        None => Err(Error::parse(
            path,
            line,
            format!("line ends early; expected an integer ({what})"),
        )),
    }
}

/// Parses one file of the format. `path` names it in messages. Never panics on any input.
pub fn parse_dgcnn(name: &str, path: &Path, bytes: &[u8]) -> Result<GraphDataset> {
    let mut lines = Lines::new(bytes);
    let (first, text) = record(path, &mut lines, "the number of graphs")?;
    let mut f = fields(text);
    let num_graphs = int(path, first, f.next(), "the number of graphs")?;
    if let Some(extra) = f.next() {
        return Err(Error::parse(
            path,
            first,
            format!(
                "expected one integer (the number of graphs), found more: {}",
                show(extra)
            ),
        ));
    }
    if num_graphs < 1 {
        return Err(Error::parse(
            path,
            first,
            format!("{num_graphs} graphs; expected at least 1"),
        ));
    }
    let num_graphs = num_graphs as u64;
    // Each graph takes at least two lines of at least four bytes: bounded by the file.
    let cap = |n: u64, left: usize| n.min(left as u64 / 4) as usize;
    let mut graphs: Vec<Graph> = Vec::with_capacity(cap(num_graphs, lines.remaining()));
    let mut raw_labels: Vec<i64> = Vec::with_capacity(cap(num_graphs, lines.remaining()));
    let mut tags: Vec<i64> = Vec::new();
    let mut attrs: Vec<f32> = Vec::new();
    // Attribute width and the line that fixed it.
    let mut attr_dim: Option<(usize, usize)> = None;
    let mut edges: Vec<(u32, u32)> = Vec::new();
    for g in 0..num_graphs {
        let what = format!("graph {} of {num_graphs}: `nodes label`", g + 1);
        let (ln, text) = record(path, &mut lines, &what)?;
        let mut f = fields(text);
        let n = int(path, ln, f.next(), "the graph's number of nodes")?;
        let label = int(path, ln, f.next(), "the graph's label")?;
        if let Some(extra) = f.next() {
            return Err(Error::parse(
                path,
                ln,
                format!(
                    "expected 2 integers (nodes, graph label) for graph {}, found more: {}",
                    g + 1,
                    show(extra)
                ),
            ));
        }
        if n < 1 || n > i64::from(u32::MAX) {
            return Err(Error::parse(
                path,
                ln,
                format!("graph {} has {n} nodes; expected 1..={}", g + 1, u32::MAX),
            ));
        }
        let n = n as u64;
        raw_labels.push(label);
        edges.clear();
        tags.reserve(cap(n, lines.remaining()));
        for i in 0..n {
            let what = format!(
                "node {i} of graph {} ({n} nodes): `tag neighbours j1 .. jm [attributes]`",
                g + 1
            );
            let (ln, text) = record(path, &mut lines, &what)?;
            let mut f = fields(text);
            tags.push(int(path, ln, f.next(), "node tag")?);
            let m = int(path, ln, f.next(), "number of neighbours")?;
            if m < 0 {
                return Err(Error::parse(
                    path,
                    ln,
                    format!("{m} neighbours; expected a count >= 0"),
                ));
            }
            for k in 0..m {
                let j = int(
                    path,
                    ln,
                    f.next(),
                    &format!("neighbour {} of the {m} the line announces", k + 1),
                )?;
                if j < 0 || j as u64 >= n {
                    return Err(Error::parse(
                        path,
                        ln,
                        format!(
                            "neighbour {j} out of range; expected 0..{n} (graph {} has {n} nodes)",
                            g + 1
                        ),
                    ));
                }
                let (a, b) = (i as u32, j as u32);
                if a != b {
                    edges.push((a.min(b), a.max(b)));
                }
            }
            let mut d = 0usize;
            for a in f {
                let v = parse_f32(a).ok_or_else(|| {
                    Error::parse(
                        path,
                        ln,
                        format!(
                            "expected a finite number (attribute {} after the {m} neighbours), found {}",
                            d + 1,
                            show(a)
                        ),
                    )
                })?;
                attrs.push(v);
                d += 1;
            }
            match attr_dim {
                None => attr_dim = Some((d, ln)),
                Some((want, at)) if want != d => {
                    return Err(Error::parse(
                        path,
                        ln,
                        format!(
                            "{d} attributes after the neighbours; expected {want} (as on line {at})"
                        ),
                    ))
                }
                Some(_) => {}
            }
        }
        edges.sort_unstable();
        edges.dedup();
        graphs.push(Graph {
            num_nodes: n as usize,
            edges: edges.as_slice().to_vec(),
            node_labels: None,
            node_attributes: None,
            edge_labels: None,
            edge_attributes: None,
            label: 0,
        });
    }
    while let Some((ln, text)) = lines.next_line() {
        if !is_blank(text) {
            return Err(Error::parse(
                path,
                ln,
                format!(
                    "extra line after the {num_graphs} graphs the first line announces; expected the end of the file"
                ),
            ));
        }
    }

    let (class_values, labels) = index_values(&raw_labels);
    let (tag_values, tag_idx) = index_values(&tags);
    let with_tags = tag_values.len() > 1;
    let dim = attr_dim.map_or(0, |(d, _)| d);
    let mut start = 0usize;
    for (g, label) in graphs.iter_mut().zip(labels) {
        let n = g.num_nodes;
        g.label = label;
        if with_tags {
            g.node_labels = Some(tag_idx[start..start + n].to_vec());
        }
        if dim > 0 {
            g.node_attributes = Some(attrs[start * dim..(start + n) * dim].to_vec());
        }
        start += n;
    }
    Ok(GraphDataset {
        name: name.to_string(),
        graphs,
        class_values,
        node_label_values: if with_tags { tag_values } else { Vec::new() },
        node_attr_dim: dim,
        edge_label_values: Vec::new(),
        edge_attr_dim: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<GraphDataset> {
        parse_dgcnn("T", Path::new("T.txt"), s.as_bytes())
    }

    fn err(s: &str) -> String {
        parse(s).unwrap_err().to_string()
    }

    #[test]
    fn two_graphs_by_hand() {
        // Graph 1: a triangle 0-1-2 listed in both directions, plus a self-loop on 1 and
        // a repeated neighbour; tags 5, 3, 5. Graph 2: one edge listed in one direction
        // only; tags 0, 3. Labels 2 and 0 map to classes 1 and 0.
        let s = "2\n3 2\n5 2 1 2\n3 4 0 2 1 0\n5\t2 0 1\n2 0\n0 1 1\n3 0\n";
        let ds = parse(s).unwrap();
        assert_eq!(ds.class_values, vec![0, 2]);
        assert_eq!(ds.labels(), vec![1, 0]);
        assert_eq!(ds.node_label_values, vec![0, 3, 5]);
        assert_eq!(ds.graphs[0].num_nodes, 3);
        assert_eq!(ds.graphs[0].edges, vec![(0, 1), (0, 2), (1, 2)]);
        assert_eq!(ds.graphs[0].node_labels, Some(vec![2, 1, 2]));
        assert_eq!(ds.graphs[1].edges, vec![(0, 1)]);
        assert_eq!(ds.graphs[1].node_labels, Some(vec![0, 1]));
        assert_eq!(ds.node_attr_dim, 0);
        assert!(ds.graphs[0].node_attributes.is_none());
    }

    #[test]
    fn attributes_and_a_constant_tag() {
        // Every tag is 0: no node labels. Two attributes per node, after the neighbours.
        let s = "1\n2 7\n0 1 1 0.5 -1\n0 1 0 2e1 3\n\n";
        let ds = parse(s).unwrap();
        assert!(ds.node_label_values.is_empty());
        assert!(ds.graphs[0].node_labels.is_none());
        assert_eq!(ds.node_attr_dim, 2);
        assert_eq!(
            ds.graphs[0].node_attributes,
            Some(vec![0.5, -1.0, 20.0, 3.0])
        );
        assert_eq!(ds.class_values, vec![7]);
    }

    #[test]
    fn a_self_loop_alone_gives_no_edge() {
        let ds = parse("1\n2 0\n1 1 0\n2 0\n").unwrap();
        assert!(ds.graphs[0].edges.is_empty());
        assert_eq!(ds.num_nodes(), 2);
    }

    #[test]
    fn errors_name_the_line_and_what_was_expected() {
        let cases: &[(&str, &str)] = &[
            ("", "T.txt:1: file ends here; expected the number of graphs"),
            ("x\n", "T.txt:1: expected an integer (the number of graphs)"),
            ("0\n", "T.txt:1: 0 graphs; expected at least 1"),
            ("1 2\n", "T.txt:1: expected one integer"),
            ("1\n", "T.txt:2: file ends here; expected graph 1 of 1"),
            (
                "1\n2\n",
                "T.txt:2: line ends early; expected an integer (the graph's label)",
            ),
            ("1\n0 1\n", "T.txt:2: graph 1 has 0 nodes"),
            ("1\n1 1 1\n", "T.txt:2: expected 2 integers"),
            (
                "1\n2 1\n0 1 1\n",
                "T.txt:4: file ends here; expected node 1 of graph 1",
            ),
            (
                "1\n2 1\n0 1 1\n\n0 1 0\n",
                "T.txt:4: blank line; expected node 1",
            ),
            (
                "1\n2 1\n0 2 1\n0 1 0\n",
                "T.txt:3: line ends early; expected an integer (neighbour 2 of the 2",
            ),
            (
                "1\n2 1\n0 1 2\n0 1 0\n",
                "T.txt:3: neighbour 2 out of range; expected 0..2",
            ),
            (
                "1\n2 1\n0 1 -1\n0 1 0\n",
                "T.txt:3: neighbour -1 out of range",
            ),
            ("1\n2 1\n0 -1\n0 1 0\n", "T.txt:3: -1 neighbours"),
            (
                "1\n2 1\nz 1 1\n0 1 0\n",
                "T.txt:3: expected an integer (node tag), found \"z\"",
            ),
            (
                "1\n2 1\n0 1 1 0.5\n0 1 0\n",
                "T.txt:4: 0 attributes after the neighbours; expected 1 (as on line 3)",
            ),
            (
                "1\n2 1\n0 1 1 nan\n0 1 0 1\n",
                "T.txt:3: expected a finite number (attribute 1",
            ),
            (
                "1\n2 1\n0 1 1\n0 1 0\n2 1\n",
                "T.txt:5: extra line after the 1 graphs",
            ),
        ];
        for (input, want) in cases {
            let e = err(input);
            assert!(e.starts_with(want), "{input:?}: {e}");
        }
    }

    /// A header announcing billions of graphs or nodes allocates by what the bytes can
    /// hold, and fails at the end of the file.
    #[test]
    fn absurd_counts_fail_without_allocating_them() {
        let e = err("4000000000000000000\n1 0\n0 0\n");
        assert!(
            e.starts_with("T.txt:4: file ends here; expected graph 2"),
            "{e}"
        );
        let e = err("1\n4294967295 0\n0 0\n");
        assert!(
            e.starts_with("T.txt:4: file ends here; expected node 1 of graph 1"),
            "{e}"
        );
        let e = err("1\n4294967296 0\n");
        assert!(e.contains("graph 1 has 4294967296 nodes"), "{e}");
    }

    #[test]
    fn crlf_bom_and_runs_of_spaces() {
        let ds = parse("\u{feff}1\r\n2  1\r\n 4\t1  1 \r\n4 1 0\r\n").unwrap();
        assert_eq!(ds.graphs[0].edges, vec![(0, 1)]);
        assert!(ds.graphs[0].node_labels.is_none());
    }
}
