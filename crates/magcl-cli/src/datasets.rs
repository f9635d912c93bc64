//! `magcl datasets`: list, fetch and describe datasets.
use anyhow::Context;
use clap::{Args, Subcommand};
use magcl_data::load_node_dataset;
use magcl_data::registry::{self, DatasetKind};
use magcl_data::source::{self, DataConfig};
use magcl_data::stats::{graph_stats, node_stats, GraphStats, NodeStats};

const DATASETS_HELP: &str = "\
Where datasets come from:
  Datasets are cached in $MAGCL_DATA_DIR (default ./tudatasets). One that is not cached is
  fetched on first use: from $MAGCL_DATA_MIRROR if set (a local folder or an http(s) base
  URL laid out as tu/NAME/NAME_A.txt, planetoid/ind.cora.x, npz/FILE.npz or npz/FILE.zip;
  COLLAB, DD, REDDIT-BINARY, NCI1 and the IMDB sets also as dgcnn/NAME.zip, their GIN/DGCNN
  copies, where tu/NAME/ is absent), otherwise, or when the mirror lacks it, from the
  canonical public URLs. Files with a known sha256 are
  verified, every dataset is parsed before it enters the cache, and a failed fetch leaves
  nothing behind.

Names (case-insensitive):
  graph classification: MUTAG, NCI1, NCI109, PROTEINS, DD, PTC_MR, IMDB-BINARY,
    IMDB-MULTI, COLLAB, REDDIT-BINARY, REDDIT-MULTI-5K, and the embedded `synthetic`
    (BA-2Motifs style, no files needed; `synthetic:GRAPHS[:SEED]` for other sizes/seeds)
  node classification: Cora, CiteSeer, PubMed, Amazon-Computers, Amazon-Photo, Coauthor-CS
  any dataset of the TU collection (graphlearning.io), e.g. ENZYMES, DHFR, COX2, BZR:
    fetched from the collection like the built-in ones; its sha256 is recorded in the
    cache on first fetch and a later fetch of other bytes is reported
  your own graph sets: tu:PATH/NAME (a folder of TU-format files NAME_A.txt,
    NAME_graph_indicator.txt, NAME_graph_labels.txt, optional NAME_node_labels.txt, ...)
    or dgcnn:PATH (the GIN/DGCNN text format: a NAME.txt, a folder NAME holding NAME.txt,
    or a zip holding it; see docs/datasets.md)
  your own node-level graph: npz:PATH (arrays x, edge_index, y, optional masks; see
    docs/datasets.md)

Node features of graph sets (`feature_rule` in `datasets info`), from the data alone, never
  from the name (a copy of a set's files under another name gets the same features):
  one-hot node labels where the set has them, else its node attributes, else the constant
  feature (`auto`, the default); `constant`: the constant feature; `labels+attributes`:
  both (`--features RULE`). A method declares the rule it is fed, and older configs write
  it as the method's name (`graphcl` for `auto`, `adgcl` for `constant`).

Examples:
  magcl datasets list
  magcl datasets fetch MUTAG PROTEINS Cora
  magcl datasets info NCI1
  magcl datasets info CiteSeer --json
  magcl datasets info ENZYMES
  magcl datasets info tu:./mydata/MYSET
  magcl datasets info npz:./mygraph.npz
  MAGCL_DATA_MIRROR=../shared/datasets magcl datasets fetch IMDB-BINARY";

/// The arguments of `magcl datasets`; its help text is in the command table
/// ([`crate::commands`]).
#[derive(Args, Debug)]
#[command(after_help = DATASETS_HELP)]
pub struct DatasetsArgs {
    #[command(subcommand)]
    pub command: DatasetsCommand,
}

#[derive(Subcommand, Debug)]
pub enum DatasetsCommand {
    /// Show every known dataset: its kind, whether it is cached, and its size on disk.
    List(ListArgs),
    /// Download (or copy from the mirror) datasets into the cache, verified.
    ///
    /// Already cached datasets are left alone. Fails if any dataset cannot be fetched;
    /// the others are still fetched.
    Fetch(FetchArgs),
    /// Load a dataset (fetching it if needed) and print its statistics.
    ///
    /// Graph sets: graphs, nodes, edges (undirected, after deduplication), classes,
    /// avg_nodes, avg_edges, feature_dim (under the default `graphcl` features) and
    /// class_counts (graphs per class, classes in ascending order of their original label).
    /// Node sets: nodes, edges, features, classes and the public split sizes train, val,
    /// test (empty where the dataset has no public split). Beside each figure the set's
    /// published one where known (`--json`: `published`), and the copy read (path and
    /// sha256; `--json`: `source`).
    Info(InfoArgs),
}

#[derive(Args, Debug)]
pub struct ListArgs {
    /// Print one JSON array instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct FetchArgs {
    /// Dataset names (case-insensitive), e.g. MUTAG Cora.
    #[arg(required = true, value_name = "NAME")]
    pub names: Vec<String>,
}

#[derive(Args, Debug)]
pub struct InfoArgs {
    /// Dataset name (case-insensitive; built-in or any TU collection name),
    /// `synthetic[:GRAPHS[:SEED]]`, `tu:PATH/NAME`, `dgcnn:PATH` or `npz:PATH`.
    #[arg(value_name = "NAME")]
    pub name: String,
    /// Print one JSON object (keys: name, kind and the statistics) instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: DatasetsArgs) -> anyhow::Result<()> {
    let cfg = DataConfig::from_env();
    match args.command {
        DatasetsCommand::List(a) => list(&cfg, a.json),
        DatasetsCommand::Fetch(a) => fetch(&cfg, &a.names),
        DatasetsCommand::Info(a) => info(&cfg, &a.name, a.json),
    }
}

/// Bytes as a short human-readable size.
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// Prints rows as an aligned table (first row = header).
fn print_table(rows: &[Vec<String>]) -> anyhow::Result<()> {
    let cols = rows.iter().map(|r| r.len()).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for r in rows {
        let line: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(c, s)| format!("{s:<w$}", w = widths[c]))
            .collect();
        outln!("{}", line.join("  ").trim_end());
    }
    Ok(())
}

fn list(cfg: &DataConfig, json: bool) -> anyhow::Result<()> {
    let mut items = Vec::new();
    let mut rows = vec![vec![
        "NAME".to_string(),
        "KIND".into(),
        "CACHED".into(),
        "SIZE".into(),
    ]];
    for d in registry::known_datasets() {
        let path = source::cache_path(d, cfg);
        let cached = source::is_cached(d, cfg);
        let size = match (&path, cached) {
            (Some(p), true) => source::disk_size(p),
            _ => 0,
        };
        let cached_text = match path {
            None => "embedded".to_string(),
            Some(_) if cached => "yes".into(),
            Some(_) => "no".into(),
        };
        rows.push(vec![
            d.name.to_string(),
            d.kind.to_string(),
            cached_text,
            if cached && path.is_some() {
                human_size(size)
            } else {
                "-".into()
            },
        ]);
        items.push(serde_json::json!({
            "name": d.name,
            "kind": d.kind,
            "cached": cached,
            "bytes": size,
            "path": path.map(|p| p.display().to_string()),
        }));
    }
    if json {
        outln!("{}", serde_json::to_string_pretty(&items)?);
    } else {
        outln!("cache: {}", cfg.cache_dir.display());
        if let Some(m) = &cfg.mirror {
            outln!("mirror: {m}");
        }
        outln!();
        print_table(&rows)?;
        outln!(
            "\nAlso accepted: any dataset of the TU collection by name (e.g. ENZYMES, DHFR), tu:PATH/NAME for a folder of TU-format files, npz:PATH for one node-level graph (see `magcl datasets --help`)."
        );
    }
    Ok(())
}

fn fetch(cfg: &DataConfig, names: &[String]) -> anyhow::Result<()> {
    let mut failures = Vec::new();
    for name in names {
        let result = registry::lookup(name)
            .map_err(anyhow::Error::from)
            .and_then(|d| {
                let cached = source::is_cached(&d, cfg);
                let path = source::fetch(&d, cfg)?;
                Ok((d, cached, path))
            });
        match result {
            Ok((d, _, None)) => outln!("{}: embedded (generated, nothing to fetch)", d.name),
            Ok((d, true, Some(p))) => outln!("{}: already cached in {}", d.name, p.display()),
            Ok((d, false, Some(p))) => outln!(
                "{}: fetched into {} ({})",
                d.name,
                p.display(),
                human_size(source::disk_size(&p))
            ),
            Err(e) => {
                eprintln!("{name}: {e:#}");
                failures.push(name.clone());
            }
        }
    }
    if !failures.is_empty() {
        anyhow::bail!("could not fetch: {}", failures.join(", "));
    }
    Ok(())
}

/// Statistics of one dataset, graph- or node-level.
#[derive(Debug, Clone, PartialEq)]
pub enum Info {
    Graph(GraphStats),
    Node(NodeStats),
}

impl Info {
    /// Loads the dataset (fetching it if needed) and computes its statistics.
    pub fn load(cfg: &DataConfig, name: &str) -> anyhow::Result<Info> {
        Ok(match source::kind_of(name)? {
            DatasetKind::Graph => {
                let (ds, src) = source::load_graph_dataset_traced(name, cfg)
                    .with_context(|| format!("loading {name}"))?;
                let mut stats = graph_stats(&ds)?;
                if let Some(d) = registry::find(name).filter(|d| !registry::is_builtin(d.name)) {
                    stats.source_sha256 = source::tu_source_record(cfg, d.name).map(|(sha, _)| sha);
                }
                stats.source = src;
                stats.published = published_of(name);
                Info::Graph(stats)
            }
            DatasetKind::Node => {
                let ds = load_node_dataset(name, cfg).with_context(|| format!("loading {name}"))?;
                let mut stats = node_stats(&ds);
                stats.source = source::node_source(name, cfg)?;
                stats.published = published_of(name);
                Info::Node(stats)
            }
        })
    }

    /// One JSON object: `name`, `kind` and the statistics, in this order.
    pub fn to_json(&self) -> serde_json::Result<String> {
        match self {
            Info::Graph(s) => serde_json::to_string_pretty(s),
            Info::Node(s) => serde_json::to_string_pretty(s),
        }
    }

    /// `(key, value)` rows for the human-readable table; a value with a published figure
    /// shows it beside (`5000  (published 5000)`).
    pub fn rows(&self) -> Vec<Vec<String>> {
        let opt = |v: Option<usize>| v.map_or("-".to_string(), |v| v.to_string());
        let published = match self {
            Info::Graph(s) => s.published,
            Info::Node(s) => s.published,
        };
        let kv = |k: &str, v: String| {
            let figure = published.and_then(|p| p.figures.iter().find(|(key, _)| *key == k));
            match figure {
                Some((_, f)) => vec![k.to_string(), format!("{v}  (published {f})")],
                None => vec![k.to_string(), v],
            }
        };
        match self {
            Info::Graph(s) => vec![
                kv("name", s.name.clone()),
                kv("kind", s.kind.to_string()),
                kv("graphs", s.graphs.to_string()),
                kv("nodes", s.nodes.to_string()),
                kv("edges", s.edges.to_string()),
                kv("classes", s.classes.to_string()),
                kv("avg_nodes", format!("{:.2}", s.avg_nodes)),
                kv("avg_edges", format!("{:.2}", s.avg_edges)),
                kv("feature_dim", s.feature_dim.to_string()),
                kv("feature_rule", s.feature_rule.clone()),
                kv(
                    "class_counts",
                    s.class_counts
                        .iter()
                        .map(|c| c.to_string())
                        .collect::<Vec<_>>()
                        .join(" / "),
                ),
            ]
            .into_iter()
            .chain(
                s.source_sha256
                    .as_ref()
                    .map(|sha| kv("source_sha256", sha.clone())),
            )
            .collect(),
            Info::Node(s) => vec![
                kv("name", s.name.clone()),
                kv("kind", s.kind.to_string()),
                kv("nodes", s.nodes.to_string()),
                kv("edges", s.edges.to_string()),
                kv("features", s.features.to_string()),
                kv("classes", s.classes.to_string()),
                kv("train", opt(s.train)),
                kv("val", opt(s.val)),
                kv("test", opt(s.test)),
            ],
        }
    }
}

/// The published statistics of a built-in name (not of `tu:PATH` and the like).
fn published_of(name: &str) -> Option<&'static registry::Published> {
    let n = name.trim();
    if n.contains(':') {
        return None;
    }
    registry::find(n).and_then(|d| registry::published(d.name))
}

fn info(cfg: &DataConfig, name: &str, json: bool) -> anyhow::Result<()> {
    let info = Info::load(cfg, name)?;
    if json {
        outln!("{}", info.to_json()?);
    } else {
        print_table(&info.rows())?;
        let (src, published) = match &info {
            Info::Graph(s) => (&s.source, s.published),
            Info::Node(s) => (&s.source, s.published),
        };
        if let Some(p) = published {
            outln!("\npublished figures: {}", p.source);
            if !p.note.is_empty() {
                outln!("note: {}", p.note);
            }
        }
        if let Some(s) = src {
            outln!("read from: {} (sha256 {})", s.path, s.sha256);
        }
    }
    Ok(())
}
