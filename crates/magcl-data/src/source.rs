//! Where dataset files come from: the cache folder, a mirror, the canonical public URLs.
//!
//! * **Cache** (`$MAGCL_DATA_DIR`, default `./tudatasets`): `tu/NAME/NAME_*.txt`,
//!   `planetoid/PREFIX/ind.PREFIX.*`, `npz/FILE.npz`, `dgcnn/NAME.zip`. A dataset folder
//!   (or file) appears complete or not at all: files are gathered in a hidden temporary
//!   folder or file beside it, checked, and renamed into place in one step.
//! * **Mirror** (`$MAGCL_DATA_MIRROR`): a local folder or an `http(s)://` base URL laid out
//!   like the benchmark's dataset folder: `tu/NAME/NAME_A.txt`, ...,
//!   `planetoid/ind.cora.x`, ..., `npz/FILE.npz`. A local `tu/NAME/NAME.zip` is used when
//!   the unpacked files are absent, and `npz/STEM.zip` (holding `STEM.npz`) when
//!   `npz/STEM.npz` is; neither is required. For the sets of [`DGCNN_COPIES`] a mirror
//!   without `tu/NAME/` may hold `dgcnn/NAME.zip`, the same graphs in the GIN/DGCNN text
//!   format ([`super::dgcnn`]); it is cached as it is and read from the zip.
//! * **Canonical URLs**, for whatever the mirror lacks (or without a mirror): the TU
//!   collection's zips, the Planetoid repository's `data/` folder and gnn-benchmark's
//!   `data/npz/` folder.
//!
//! Every file with a known sha256 ([`super::checksums`]) is checked before it enters the
//! cache; a mismatch is an error and nothing is cached. Structure is always checked by
//! parsing the gathered files before the rename. A mirror that has a file but serves it
//! broken (bad checksum, dropped connection, server error) is an error: magcl does not
//! silently fall back to another source then.
use super::checksums;
use super::registry::{self, DatasetKind, KnownDataset, Origin};
use super::{dgcnn, npz, planetoid, synthetic, tu, GraphDataset, NodeDataset};
use crate::error::{Error, Result};
use sha2::Digest;
use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Environment variable naming the cache folder.
pub const ENV_DATA_DIR: &str = "MAGCL_DATA_DIR";
/// Environment variable naming the mirror (folder or http(s) base URL).
pub const ENV_MIRROR: &str = "MAGCL_DATA_MIRROR";
/// Cache folder used when `MAGCL_DATA_DIR` is unset (relative to the working directory).
pub const DEFAULT_CACHE_DIR: &str = "tudatasets";

/// TU collection zips: `TU_URL/NAME.zip`.
pub const TU_URL: &str = "https://www.chrsmrrs.com/graphkerneldatasets";
/// Planetoid raw files: `PLANETOID_URL/ind.PREFIX.SUFFIX`.
pub const PLANETOID_URL: &str = "https://github.com/kimiyoung/planetoid/raw/master/data";
/// gnn-benchmark raw files: `GNN_BENCHMARK_URL/FILE.npz`.
pub const GNN_BENCHMARK_URL: &str = "https://github.com/shchur/gnn-benchmark/raw/master/data/npz";

/// The largest download or unpacked file accepted (COLLAB's unpacked `A.txt` is ~360 MB).
pub const MAX_FILE_BYTES: u64 = 4 << 30;

/// Where datasets are cached and where missing ones come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataConfig {
    pub cache_dir: PathBuf,
    /// A local folder or an `http(s)://` base URL in the mirror layout.
    pub mirror: Option<String>,
}

impl DataConfig {
    /// `MAGCL_DATA_DIR` (default `tudatasets/`) and `MAGCL_DATA_MIRROR` (unset or empty:
    /// no mirror).
    pub fn from_env() -> DataConfig {
        let cache_dir = std::env::var_os(ENV_DATA_DIR)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(DEFAULT_CACHE_DIR));
        let mirror = std::env::var(ENV_MIRROR)
            .ok()
            .map(|m| m.trim().to_string())
            .filter(|m| !m.is_empty());
        DataConfig { cache_dir, mirror }
    }

    /// A cache folder without a mirror.
    pub fn new(cache_dir: impl Into<PathBuf>) -> DataConfig {
        DataConfig {
            cache_dir: cache_dir.into(),
            mirror: None,
        }
    }

    pub fn with_mirror(mut self, mirror: impl Into<String>) -> DataConfig {
        self.mirror = Some(mirror.into());
        self
    }
}

/// A place files can be fetched from.
#[derive(Clone, Debug)]
enum Place {
    Folder(PathBuf),
    Http(String),
}

impl Place {
    /// The mirror of `cfg`: `http://` and `https://` URLs (scheme in any case), `file://`
    /// URLs and plain paths (folders). Any other `SCHEME://` is refused, not taken for a
    /// relative folder.
    fn of_mirror(cfg: &DataConfig) -> Result<Option<Place>> {
        let Some(m) = cfg.mirror.as_deref() else {
            return Ok(None);
        };
        let Some((scheme, rest)) = m.split_once("://") else {
            return Ok(Some(Place::Folder(PathBuf::from(m))));
        };
        match scheme.to_ascii_lowercase().as_str() {
            "http" | "https" => Ok(Some(Place::Http(format!(
                "{}://{}",
                scheme.to_ascii_lowercase(),
                rest.trim_end_matches('/')
            )))),
            "file" if rest.starts_with('/') => Ok(Some(Place::Folder(PathBuf::from(rest)))),
            "file" => Err(Error::Data(format!(
                "{ENV_MIRROR}={m}: a file:// URL needs an absolute path (file:///data/mirror)"
            ))),
            _ => Err(Error::Data(format!(
                "{ENV_MIRROR}={m}: unsupported scheme '{scheme}'; expected a folder, file:///PATH, http:// or https:// URL"
            ))),
        }
    }
}

/// The outcome of asking one place for one file.
enum Got {
    Saved,
    /// The place does not have the file (no such file, HTTP 404/410).
    Absent(String),
}

// ---------------------------------------------------------------------------------------
// Public API

/// Loads a graph-classification dataset by name (case-insensitive), fetching it into the
/// cache first if needed. Also accepts `tu:PATH` (a folder of TU files named after the
/// folder, read in place), `dgcnn:PATH` (a GIN/DGCNN `NAME.txt`, a folder holding one, or
/// a zip holding one; read in place) and `synthetic[:GRAPHS[:SEED]]` (generated, no files).
pub fn load_graph_dataset(name: &str, cfg: &DataConfig) -> Result<GraphDataset> {
    load_graph(name, cfg, false).map(|(ds, _)| ds)
}

/// Which copy of a dataset's data was read: the file or folder, and the sha256 of what was
/// read there (a TU folder: [`tu_digest`]; a file, e.g. a DGCNN zip: the file's sha256).
/// Runs record it beside their results, outside the config hash: the same configuration
/// run on two copies of the same graphs is the same experiment.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DataSource {
    pub path: String,
    pub sha256: String,
}

impl DataSource {
    /// `PATH sha256:HEX`, as a result row's `data_source` column holds it.
    pub fn label(&self) -> String {
        format!("{} sha256:{}", self.path, self.sha256)
    }
}

/// [`load_graph_dataset`], also saying which copy was read (`None` for generated sets).
pub fn load_graph_dataset_traced(
    name: &str,
    cfg: &DataConfig,
) -> Result<(GraphDataset, Option<DataSource>)> {
    load_graph(name, cfg, true)
}

fn load_graph(
    name: &str,
    cfg: &DataConfig,
    trace: bool,
) -> Result<(GraphDataset, Option<DataSource>)> {
    let name = name.trim();
    if let Some(path) = name.strip_prefix("tu:") {
        let dir = Path::new(path);
        let ds = load_tu_folder(dir)?;
        let src = match trace {
            true => Some(tu_source(dir, &ds.name)?),
            false => None,
        };
        return Ok((ds, src));
    }
    if let Some(path) = name.strip_prefix("dgcnn:") {
        return load_dgcnn_path(Path::new(path), trace);
    }
    if let Some((n, seed)) = synthetic_params(name)? {
        return Ok((synthetic::ba_2motifs(n, seed), None));
    }
    let d = registry::lookup(name)?;
    match d.origin {
        Origin::Tu => match ensure_tu(d.name, cfg)? {
            GraphCopy::Tu(dir) => {
                let ds = tu::load_tu_dir(&dir, d.name)?;
                let src = match trace {
                    true => Some(tu_source(&dir, d.name)?),
                    false => None,
                };
                Ok((ds, src))
            }
            GraphCopy::Dgcnn(zip) => {
                let stem = dgcnn_zip_stem(d.name).unwrap_or(d.name);
                let (_, bytes) = read_dgcnn_zip(&zip, Some(stem))?;
                let ds = dgcnn::parse_dgcnn(d.name, &zip, &bytes)?;
                let src = match trace {
                    true => Some(file_source(&zip)?),
                    false => None,
                };
                Ok((ds, src))
            }
        },
        Origin::Synthetic => Ok((
            synthetic::ba_2motifs(synthetic::DEFAULT_GRAPHS, synthetic::DEFAULT_SEED),
            None,
        )),
        Origin::Planetoid { .. } | Origin::GnnBenchmark { .. } => Err(Error::Data(format!(
            "{} is a node-classification dataset, not a graph-classification one; use it with a node-level method",
            d.name
        ))),
    }
}

/// Loads a node-classification dataset by name (case-insensitive), fetching it into the
/// cache first if needed. Features are raw; see [`super::CsrMatrix::row_normalized`].
pub fn load_node_dataset(name: &str, cfg: &DataConfig) -> Result<NodeDataset> {
    if let Some(path) = name.trim().strip_prefix("npz:") {
        return load_user_npz(Path::new(path));
    }
    if let Some((n, e, f, c, seed)) = synthetic_node_params(name)? {
        return Ok(synthetic::planted_partition(n, e, f, c, seed));
    }
    let d = registry::lookup(name.trim())?;
    match d.origin {
        Origin::Planetoid { prefix } => {
            let dir = ensure_planetoid(prefix, cfg)?;
            planetoid::load_planetoid_dir(&dir, d.name, prefix)
        }
        Origin::GnnBenchmark { file } => {
            let path = ensure_npz(file, cfg)?;
            let bytes = fs::read(&path).map_err(|e| Error::file(&path, format!("cannot read: {e}")))?;
            npz::parse_gnn_benchmark(d.name, &path, &bytes)
        }
        Origin::Tu | Origin::Synthetic => Err(Error::Data(format!(
            "{} is a graph-classification dataset, not a node-classification one; use it with a graph-level method",
            d.name
        ))),
    }
}

/// Which copy of a known dataset a run reads (fetching it into the cache if needed): the
/// cached TU folder or DGCNN zip, the cached Planetoid folder, or the cached `.npz`;
/// `None` for generated sets.
pub fn known_source(d: &KnownDataset, cfg: &DataConfig) -> Result<Option<DataSource>> {
    match d.origin {
        Origin::Tu => match ensure_tu(d.name, cfg)? {
            GraphCopy::Tu(dir) => tu_source(&dir, d.name).map(Some),
            GraphCopy::Dgcnn(zip) => file_source(&zip).map(Some),
        },
        Origin::Planetoid { prefix } => {
            planetoid_source(&ensure_planetoid(prefix, cfg)?, prefix).map(Some)
        }
        Origin::GnnBenchmark { file } => file_source(&ensure_npz(file, cfg)?).map(Some),
        Origin::Synthetic => Ok(None),
    }
}

/// Which copy a node set is read from (fetched into the cache if needed): the Planetoid
/// folder, gnn-benchmark's `.npz`, or `npz:PATH`; `None` for generated sets.
pub fn node_source(name: &str, cfg: &DataConfig) -> Result<Option<DataSource>> {
    let name = name.trim();
    if let Some(path) = name.strip_prefix("npz:") {
        return file_source(Path::new(path)).map(Some);
    }
    match registry::find(name) {
        Some(d)
            if matches!(
                d.origin,
                Origin::Planetoid { .. } | Origin::GnnBenchmark { .. }
            ) =>
        {
            known_source(&d, cfg)
        }
        _ => Ok(None),
    }
}

/// Makes sure a known dataset is in the cache (fetching it if needed) and returns its
/// cache path; `None` for the generated `synthetic` set.
pub fn fetch(d: &KnownDataset, cfg: &DataConfig) -> Result<Option<PathBuf>> {
    match d.origin {
        Origin::Tu => ensure_tu(d.name, cfg).map(|c| Some(c.path().to_path_buf())),
        Origin::Planetoid { prefix } => ensure_planetoid(prefix, cfg).map(Some),
        Origin::GnnBenchmark { file } => ensure_npz(file, cfg).map(Some),
        Origin::Synthetic => Ok(None),
    }
}

/// The cache path of a known dataset (folder, `.npz` or DGCNN `.zip` file); `None` for
/// `synthetic`. A TU set cached only as its DGCNN copy has that zip's path.
pub fn cache_path(d: &KnownDataset, cfg: &DataConfig) -> Option<PathBuf> {
    match d.origin {
        Origin::Tu => Some(match cached_tu(d.name, cfg) {
            Some(c) => c.path().to_path_buf(),
            None => cfg.cache_dir.join("tu").join(d.name),
        }),
        Origin::Planetoid { prefix } => Some(cfg.cache_dir.join("planetoid").join(prefix)),
        Origin::GnnBenchmark { file } => Some(cfg.cache_dir.join("npz").join(file)),
        Origin::Synthetic => None,
    }
}

/// Whether a known dataset is complete in the cache (`synthetic` always is).
pub fn is_cached(d: &KnownDataset, cfg: &DataConfig) -> bool {
    match (d.origin, cache_path(d, cfg)) {
        (Origin::Tu, _) => cached_tu(d.name, cfg).is_some(),
        (Origin::Planetoid { prefix }, Some(p)) => planetoid_complete(&p, prefix),
        (Origin::GnnBenchmark { .. }, Some(p)) => p.is_file(),
        _ => true,
    }
}

/// Bytes on disk of a file or of all files below a folder (0 if absent).
pub fn disk_size(path: &Path) -> u64 {
    match fs::metadata(path) {
        Ok(m) if m.is_file() => m.len(),
        Ok(m) if m.is_dir() => fs::read_dir(path)
            .map(|rd| rd.flatten().map(|e| disk_size(&e.path())).sum())
            .unwrap_or(0),
        _ => 0,
    }
}

/// The kind of a dataset name as [`load_graph_dataset`]/[`load_node_dataset`] accept it.
pub fn kind_of(name: &str) -> Result<DatasetKind> {
    let name = name.trim();
    if name.starts_with("npz:") {
        return Ok(DatasetKind::Node);
    }
    if name.starts_with("tu:") || name.starts_with("dgcnn:") || synthetic_params(name)?.is_some() {
        return Ok(DatasetKind::Graph);
    }
    Ok(registry::lookup(name)?.kind)
}

// ---------------------------------------------------------------------------------------
// Names with parameters

pub use super::registry::{synthetic_node_params, SyntheticNodeSize};

/// `synthetic`, `BA-2Motifs`, `synthetic:GRAPHS`, `synthetic:GRAPHS:SEED`.
fn synthetic_params(name: &str) -> Result<Option<(usize, u64)>> {
    let mut parts = name.split(':');
    let head = parts.next().unwrap_or_default();
    if !registry::find(head).is_some_and(|d| d.origin == Origin::Synthetic) {
        return Ok(None);
    }
    let bad = || {
        Error::Data(format!(
            "dataset {name:?}: expected synthetic, synthetic:GRAPHS or synthetic:GRAPHS:SEED with whole numbers (GRAPHS >= 2)"
        ))
    };
    let graphs = match parts.next() {
        Some(g) => g.trim().parse::<usize>().map_err(|_| bad())?,
        None => synthetic::DEFAULT_GRAPHS,
    };
    let seed = match parts.next() {
        Some(s) => s.trim().parse::<u64>().map_err(|_| bad())?,
        None => synthetic::DEFAULT_SEED,
    };
    if parts.next().is_some() || !(2..=10_000_000).contains(&graphs) {
        return Err(bad());
    }
    Ok(Some((graphs, seed)))
}

/// The largest `npz:PATH` file read (it is read whole).
pub const MAX_USER_NPZ_BYTES: u64 = 4 << 30;

/// `npz:PATH`: one attributed graph in magcl's own layout ([`npz::parse_user_graph`]),
/// named after the file (without `.npz`).
fn load_user_npz(path: &Path) -> Result<NodeDataset> {
    let meta = fs::metadata(path).map_err(|e| io_err(path, "cannot read", e))?;
    if !meta.is_file() {
        return Err(Error::file(
            path,
            "not a regular file; expected an .npz archive",
        ));
    }
    if meta.len() > MAX_USER_NPZ_BYTES {
        return Err(Error::file(
            path,
            format!(
                "{} bytes is larger than the {MAX_USER_NPZ_BYTES} bytes accepted",
                meta.len()
            ),
        ));
    }
    let bytes = fs::read(path).map_err(|e| io_err(path, "cannot read", e))?;
    let name = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("npz")
        .to_string();
    npz::parse_user_graph(&name, path, &bytes)
}

/// The largest `dgcnn:PATH` text file read (it is read whole).
pub const MAX_USER_DGCNN_BYTES: u64 = 4 << 30;

/// Whether a zip entry is one of the stray files archivers add (`__MACOSX/`, `.DS_Store`,
/// `._NAME`) or the split files beside a DGCNN copy (`10fold_idx/`).
fn stray_entry(full: &str) -> bool {
    full.split(['/', '\\'])
        .any(|part| part == "__MACOSX" || part == "10fold_idx" || part.starts_with('.'))
}

/// Reads the DGCNN text file out of a zip: the one entry `STEM.txt` (in any folder) when
/// `stem` is given, else the one `.txt` entry; stray entries (`stray_entry`) are
/// ignored. The entry is capped at [`MAX_ZIP_RATIO`] × the archive's size (at least
/// [`MIN_ZIP_ALLOWANCE`], at most [`MAX_FILE_BYTES`]). Returns the entry's name and bytes.
pub fn read_dgcnn_zip(zip_path: &Path, stem: Option<&str>) -> Result<(String, Vec<u8>)> {
    let file = File::open(zip_path).map_err(|e| io_err(zip_path, "cannot read", e))?;
    let packed = file.metadata().map(|m| m.len()).unwrap_or(0);
    let corrupt = |e: &dyn std::fmt::Display| {
        Error::file(zip_path, format!("not a readable zip archive: {e}"))
    };
    let mut zip = zip::ZipArchive::new(file).map_err(|e| corrupt(&e))?;
    let want = stem.map(|s| format!("{s}.txt"));
    let mut found: Vec<(usize, String)> = Vec::new();
    for i in 0..zip.len() {
        let entry = zip.by_index(i).map_err(|e| corrupt(&e))?;
        if entry.is_dir() {
            continue;
        }
        let full = entry.name().map_err(|e| corrupt(&e))?.to_string();
        if stray_entry(&full) {
            continue;
        }
        let base = full.rsplit(['/', '\\']).next().unwrap_or_default();
        let wanted = match &want {
            Some(w) => base == w,
            None => base.ends_with(".txt"),
        };
        if wanted {
            found.push((i, full));
        }
    }
    let what = want.as_deref().unwrap_or("NAME.txt");
    let (index, full) = match found.len() {
        1 => found.remove(0),
        0 => {
            return Err(Error::file(
                zip_path,
                format!(
                    "no entry {what} in the archive; expected the DGCNN text file (NAME/NAME.txt)"
                ),
            ))
        }
        _ => {
            let names: Vec<&str> = found.iter().map(|(_, n)| n.as_str()).collect();
            return Err(Error::file(
                zip_path,
                format!(
                    "{} candidate entries ({}); expected one DGCNN text file {what}",
                    found.len(),
                    names.join(", ")
                ),
            ));
        }
    };
    let budget = packed
        .saturating_mul(MAX_ZIP_RATIO)
        .clamp(MIN_ZIP_ALLOWANCE, MAX_FILE_BYTES);
    let entry = zip.by_index(index).map_err(|e| corrupt(&e))?;
    let declared = entry.size();
    let mut bytes = Vec::with_capacity(declared.min(budget) as usize);
    entry
        .take(budget + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::file(zip_path, format!("entry {full}: cannot unpack: {e}")))?;
    if bytes.len() as u64 > budget {
        return Err(Error::file(
            zip_path,
            format!(
                "entry {full} unpacks to more than {budget} bytes (the archive is {packed} bytes; an entry may be at most {MAX_ZIP_RATIO}× that, or {MIN_ZIP_ALLOWANCE} bytes)"
            ),
        ));
    }
    Ok((full, bytes))
}

/// `dgcnn:PATH`: a DGCNN text file (named after the file), a folder holding `DIR.txt` or
/// exactly one `.txt` file, or a zip holding one (as the mirror's `dgcnn/NAME.zip`).
fn load_dgcnn_path(path: &Path, trace: bool) -> Result<(GraphDataset, Option<DataSource>)> {
    let meta = fs::metadata(path).map_err(|e| {
        io_err(
            path,
            "cannot read (expected a DGCNN NAME.txt, a folder holding one, or a zip holding one)",
            e,
        )
    })?;
    let file = if meta.is_dir() {
        let own = path
            .file_name()
            .and_then(|n| n.to_str())
            .map(|n| path.join(format!("{n}.txt")));
        match own.filter(|p| p.is_file()) {
            Some(p) => p,
            None => {
                let mut txt: Vec<PathBuf> = fs::read_dir(path)
                    .map_err(|e| io_err(path, "cannot list", e))?
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "txt"))
                    .collect();
                if txt.len() != 1 {
                    return Err(Error::file(
                        path,
                        format!(
                            "{} .txt files and none named after the folder; expected the folder NAME to hold NAME.txt (the DGCNN text file)",
                            txt.len()
                        ),
                    ));
                }
                txt.remove(0)
            }
        }
    } else {
        path.to_path_buf()
    };
    let stem = |p: &Path| {
        p.file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("dgcnn")
            .to_string()
    };
    let is_zip = file
        .extension()
        .is_some_and(|x| x.eq_ignore_ascii_case("zip"));
    let (name, bytes) = if is_zip {
        let (entry, bytes) = read_dgcnn_zip(&file, None)?;
        (stem(Path::new(&entry)), bytes)
    } else {
        let len = fs::metadata(&file)
            .map_err(|e| io_err(&file, "cannot read", e))?
            .len();
        if len > MAX_USER_DGCNN_BYTES {
            return Err(Error::file(
                &file,
                format!("{len} bytes is larger than the {MAX_USER_DGCNN_BYTES} bytes accepted"),
            ));
        }
        let bytes = fs::read(&file).map_err(|e| io_err(&file, "cannot read", e))?;
        (stem(&file), bytes)
    };
    let ds = dgcnn::parse_dgcnn(&name, &file, &bytes)?;
    let src = match trace {
        true => Some(file_source(&file)?),
        false => None,
    };
    Ok((ds, src))
}

/// A file read whole: its path and sha256.
fn file_source(path: &Path) -> Result<DataSource> {
    let mut h = sha2::Sha256::new();
    let mut f = File::open(path).map_err(|e| io_err(path, "cannot read", e))?;
    std::io::copy(&mut f, &mut h).map_err(|e| io_err(path, "cannot read", e))?;
    Ok(DataSource {
        path: path.display().to_string(),
        sha256: checksums::hex(&h.finalize()),
    })
}

/// A TU folder: its path and [`tu_digest`].
fn tu_source(dir: &Path, name: &str) -> Result<DataSource> {
    Ok(DataSource {
        path: dir.display().to_string(),
        sha256: tu_digest(dir, name)?,
    })
}

/// A Planetoid folder: its path and the sha256 over the lines `FILE_NAME SHA256_OF_FILE`
/// of its eight `ind.PREFIX.*` files in name order (as [`tu_digest`] for TU files).
fn planetoid_source(dir: &Path, prefix: &str) -> Result<DataSource> {
    let mut files: Vec<String> = planetoid::SUFFIXES
        .iter()
        .map(|s| format!("ind.{prefix}.{s}"))
        .collect();
    files.sort();
    Ok(DataSource {
        path: dir.display().to_string(),
        sha256: files_digest(dir, &files)?,
    })
}

/// `tu:PATH`: the folder's name is the file prefix.
fn load_tu_folder(dir: &Path) -> Result<GraphDataset> {
    let name = dir.file_name().and_then(|n| n.to_str()).ok_or_else(|| {
        Error::file(
            dir,
            "expected a folder named after its TU files (NAME/NAME_A.txt)",
        )
    })?;
    if !dir.is_dir() {
        return Err(Error::file(
            dir,
            "no such folder; expected NAME/NAME_A.txt, ...",
        ));
    }
    tu::load_tu_dir(dir, name)
}

// ---------------------------------------------------------------------------------------
// Cache completeness

fn tu_complete(dir: &Path, name: &str) -> bool {
    tu::REQUIRED_FILES
        .iter()
        .all(|s| dir.join(format!("{name}_{s}")).is_file())
}

fn planetoid_complete(dir: &Path, prefix: &str) -> bool {
    planetoid::SUFFIXES
        .iter()
        .all(|s| dir.join(format!("ind.{prefix}.{s}")).is_file())
}

fn io_err(path: &Path, what: &str, e: std::io::Error) -> Error {
    Error::file(path, format!("{what}: {e}"))
}

fn temp_dir_in(parent: &Path, label: &str) -> Result<tempfile::TempDir> {
    fs::create_dir_all(parent).map_err(|e| io_err(parent, "cannot create cache folder", e))?;
    tempfile::Builder::new()
        .prefix(&format!(".{label}.partial-"))
        .tempdir_in(parent)
        .map_err(|e| io_err(parent, "cannot create a temporary folder", e))
}

/// Renames a checked temporary folder into place. If another process finished first,
/// its copy is kept and ours dropped.
fn commit_dir(
    tmp: tempfile::TempDir,
    target: &Path,
    complete: impl Fn(&Path) -> bool,
) -> Result<()> {
    match fs::rename(tmp.path(), target) {
        Ok(()) => {
            // The folder now lives at `target`; nothing is left to clean up.
            let _ = tmp.keep();
            Ok(())
        }
        Err(_) if complete(target) => Ok(()),
        Err(_) if target.is_dir() => {
            // An incomplete folder from an older version or a hand-made copy: magcl's own
            // cache entry, so it is repaired, not left for the user to find.
            let parent = target.parent().unwrap_or(Path::new("."));
            let aside = tempfile::Builder::new()
                .prefix(".incomplete-")
                .tempdir_in(parent)
                .map_err(|e| io_err(parent, "cannot create a temporary folder", e))?;
            let old = aside.path().join("old");
            fs::rename(target, &old).map_err(|e| {
                io_err(
                    target,
                    "the cached folder is incomplete and cannot be moved aside; delete it and retry",
                    e,
                )
            })?;
            fs::rename(tmp.path(), target)
                .map_err(|e| io_err(target, "cannot move the fetched dataset into the cache", e))?;
            let _ = tmp.keep();
            eprintln!(
                "note: {} was incomplete (a required file was missing); replaced it with a complete copy",
                target.display()
            );
            Ok(())
        }
        Err(e) => Err(io_err(
            target,
            "cannot move the fetched dataset into the cache",
            e,
        )),
    }
}

// ---------------------------------------------------------------------------------------
// Copying and downloading with verification

/// Streams `reader` into `dest`, checking size and sha256 against the table entry of `rel`
/// (if any). `origin` names the source in messages; `network` says whether it is a
/// download (a read failure then is a dropped connection) or a local file. With a known
/// size, reading stops as soon as the source gives more: a mirror that serves 150 MB for
/// a 77 KB file costs 77 KB. `limit` caps the bytes accepted when no size is known;
/// `limit_note` (empty, or text starting with a space) says where that cap comes from.
fn copy_verified(
    reader: &mut dyn Read,
    dest: &Path,
    rel: &str,
    origin: &str,
    network: bool,
    limit: u64,
    limit_note: &str,
) -> Result<u64> {
    let known = checksums::lookup(rel);
    let cap = known.map_or(limit, |c| c.size);
    let mut out = File::create(dest).map_err(|e| io_err(dest, "cannot create", e))?;
    let mut hasher = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut n: u64 = 0;
    loop {
        let k = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(k) => k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                let why = if network {
                    "connection dropped or file truncated"
                } else {
                    "the file could not be read to its end"
                };
                return Err(Error::Data(format!(
                    "{origin}: reading failed after {n} bytes: {e} ({why}); nothing was cached"
                )));
            }
        };
        n += k as u64;
        if n > cap {
            return Err(Error::Data(match known {
                Some(c) => format!(
                    "{origin}: more than the known {} bytes of {rel}; stopped reading, the file is not the known version, so nothing was cached",
                    c.size
                ),
                None => format!(
                    "{origin}: larger than {cap} bytes; refusing it, nothing was cached{limit_note}"
                ),
            }));
        }
        hasher.update(&buf[..k]);
        out.write_all(&buf[..k])
            .map_err(|e| io_err(dest, "cannot write", e))?;
    }
    out.sync_all()
        .map_err(|e| io_err(dest, "cannot write", e))?;
    if let Some(c) = known {
        let got = checksums::hex(&hasher.finalize());
        if n != c.size || got != c.sha256 {
            return Err(Error::Data(format!(
                "{origin}: checksum mismatch for {rel}: got {n} bytes with sha256 {got}, expected {} bytes with sha256 {}; the file is corrupt or not the known version, so nothing was cached (to use it anyway, put it into the cache folder yourself)",
                c.size, c.sha256
            )));
        }
    }
    Ok(n)
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_connect(Some(Duration::from_secs(20)))
        .timeout_recv_response(Some(Duration::from_secs(60)))
        .timeout_per_read(Some(Duration::from_secs(60)))
        .user_agent(concat!("magcl/", env!("CARGO_PKG_VERSION")))
        .build()
        .into()
}

/// Downloads `url` into `dest`, verified as `rel`.
fn download(url: &str, dest: &Path, rel: &str) -> Result<Got> {
    let resp = agent()
        .get(url)
        .call()
        .map_err(|e| {
            Error::Data(format!(
                "{url}: download failed: {e} (offline? set {ENV_MIRROR} to a local folder or http(s) URL laid out like the dataset mirror: tu/NAME/NAME_A.txt, planetoid/ind.cora.x, npz/FILE.npz or npz/FILE.zip, dgcnn/NAME.zip)"
            ))
        })?;
    let status = resp.status().as_u16();
    if status == 404 || status == 410 {
        return Ok(Got::Absent(format!("{url}: not found (HTTP {status})")));
    }
    if !(200..300).contains(&status) {
        return Err(Error::Data(format!(
            "{url}: download failed: HTTP {status}; nothing was cached"
        )));
    }
    let body = resp.into_body();
    let len = body.content_length();
    let bar =
        indicatif::ProgressBar::with_draw_target(len, indicatif::ProgressDrawTarget::stderr());
    bar.set_message(url.to_string());
    let mut reader = bar.wrap_read(body.into_with_config().limit(MAX_FILE_BYTES).reader());
    let n = copy_verified(&mut reader, dest, rel, url, true, MAX_FILE_BYTES, "")?;
    bar.finish_and_clear();
    if let Some(len) = len {
        if n != len {
            return Err(Error::Data(format!(
                "{url}: received {n} of {len} bytes (connection dropped); nothing was cached"
            )));
        }
    }
    Ok(Got::Saved)
}

/// Fetches the file at mirror-layout path `rel` from `place` into `dest`.
fn fetch_from(place: &Place, rel: &str, dest: &Path) -> Result<Got> {
    match place {
        Place::Folder(base) => {
            let src = base.join(rel);
            match File::open(&src) {
                Ok(mut f) => {
                    copy_verified(
                        &mut f,
                        dest,
                        rel,
                        &src.display().to_string(),
                        false,
                        MAX_FILE_BYTES,
                        "",
                    )?;
                    Ok(Got::Saved)
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    Ok(Got::Absent(format!("{}: no such file", src.display())))
                }
                Err(e) => Err(io_err(&src, "cannot read", e)),
            }
        }
        Place::Http(base) => download(&format!("{base}/{rel}"), dest, rel),
    }
}

/// Fetches `rel` from the mirror, else from `canonical_url`; notes every miss.
fn fetch_one(cfg: &DataConfig, rel: &str, canonical_url: &str, dest: &Path) -> Result<()> {
    let mut misses = Vec::new();
    if let Some(m) = Place::of_mirror(cfg)? {
        match fetch_from(&m, rel, dest)? {
            Got::Saved => return Ok(()),
            Got::Absent(why) => misses.push(format!("mirror: {why}")),
        }
    }
    fetch_canonical(rel, canonical_url, dest, misses)
}

/// Downloads `rel` from `canonical_url`; an error names the earlier `misses` too.
fn fetch_canonical(
    rel: &str,
    canonical_url: &str,
    dest: &Path,
    mut misses: Vec<String>,
) -> Result<()> {
    match download(canonical_url, dest, rel) {
        Ok(Got::Saved) => Ok(()),
        Ok(Got::Absent(why)) => {
            misses.push(why);
            Err(Error::Data(format!(
                "cannot fetch {rel}: {}",
                misses.join("; ")
            )))
        }
        Err(e) if !misses.is_empty() => Err(Error::Data(format!(
            "cannot fetch {rel}: {}; {e}",
            misses.join("; ")
        ))),
        Err(e) => Err(e),
    }
}

// ---------------------------------------------------------------------------------------
// TU

/// Unpacked bytes accepted per compressed byte of a TU zip, for files without a known
/// size (TU text files compress about 5-10×; a zip bomb by orders of magnitude more).
pub const MAX_ZIP_RATIO: u64 = 100;
/// Unpacked bytes always accepted from a TU zip, whatever its size.
pub const MIN_ZIP_ALLOWANCE: u64 = 64 << 20;

/// Unpacks the entries of a TU zip that the format needs (`NAME_A.txt`,
/// `NAME_graph_indicator.txt`, ... as [`tu::REQUIRED_FILES`] and [`tu::OPTIONAL_FILES`]
/// list them; directory parts stripped, anything else ignored) into `dir`. Each file is
/// capped at its known size where the checksum table has it, and all of them together at
/// [`MAX_ZIP_RATIO`] × the archive's size (at least [`MIN_ZIP_ALLOWANCE`]), so a small
/// archive cannot unpack into gigabytes. `shown` names the archive in messages (its URL or
/// mirror path).
fn unpack_tu_zip(zip_path: &Path, shown: &str, name: &str, dir: &Path) -> Result<usize> {
    let file = File::open(zip_path).map_err(|e| io_err(zip_path, "cannot read", e))?;
    let packed = file.metadata().map(|m| m.len()).unwrap_or(0);
    let corrupt = |e: &dyn std::fmt::Display| {
        Error::Data(format!(
            "{shown}: not a readable zip archive: {e}; nothing was cached"
        ))
    };
    let mut zip = zip::ZipArchive::new(file).map_err(|e| corrupt(&e))?;
    let wanted: Vec<String> = tu::REQUIRED_FILES
        .iter()
        .chain(tu::OPTIONAL_FILES.iter())
        .map(|s| format!("{name}_{s}"))
        .collect();
    let mut budget = packed
        .saturating_mul(MAX_ZIP_RATIO)
        .clamp(MIN_ZIP_ALLOWANCE, MAX_FILE_BYTES);
    let mut count = 0usize;
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).map_err(|e| corrupt(&e))?;
        if entry.is_dir() {
            continue;
        }
        let full = entry.name().map_err(|e| corrupt(&e))?.to_string();
        let base = full
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or_default()
            .to_string();
        if !wanted.contains(&base) {
            continue;
        }
        let dest = dir.join(&base);
        if dest.exists() {
            return Err(Error::Data(format!(
                "{shown}: entry {full}: {base} appears twice in the archive; nothing was cached"
            )));
        }
        let origin = format!("{shown}:{full}");
        let n = copy_verified(
            &mut (&mut entry).take(budget + 1),
            &dest,
            &format!("tu/{name}/{base}"),
            &origin,
            false,
            budget,
            &format!(
                " (the archive is {packed} bytes; files unpacked from a TU zip may total at most {MAX_ZIP_RATIO}× that, or {MIN_ZIP_ALLOWANCE} bytes)"
            ),
        )?;
        budget -= n;
        count += 1;
    }
    Ok(count)
}

/// Gathers a TU dataset from a mirror into `dir`; `Ok(false)` if the mirror lacks it.
fn tu_from_mirror(place: &Place, name: &str, dir: &Path) -> Result<Option<String>> {
    let rel = |s: &str| format!("tu/{name}/{name}_{s}");
    match place {
        Place::Folder(base) => {
            let src = base.join("tu").join(name);
            if !src.is_dir() {
                return Ok(Some(format!("mirror: {}: no such folder", src.display())));
            }
            if src.join(format!("{name}_A.txt")).is_file() {
                for s in tu::REQUIRED_FILES.iter().chain(tu::OPTIONAL_FILES.iter()) {
                    let f = format!("{name}_{s}");
                    if let Got::Absent(why) = fetch_from(place, &rel(s), &dir.join(&f))? {
                        if tu::REQUIRED_FILES.contains(s) {
                            return Err(Error::Data(format!("mirror is incomplete: {why}")));
                        }
                    }
                }
                return Ok(None);
            }
            let zip = src.join(format!("{name}.zip"));
            if zip.is_file() {
                unpack_tu_zip(&zip, &zip.display().to_string(), name, dir)?;
                return Ok(None);
            }
            Ok(Some(format!(
                "mirror: {}: neither {name}_A.txt nor {name}.zip",
                src.display()
            )))
        }
        Place::Http(_) => {
            for s in tu::REQUIRED_FILES.iter().chain(tu::OPTIONAL_FILES.iter()) {
                let f = format!("{name}_{s}");
                match fetch_from(place, &rel(s), &dir.join(&f))? {
                    Got::Saved => {}
                    Got::Absent(why) if *s == tu::REQUIRED_FILES[0] => {
                        return Ok(Some(format!("mirror: {why}")))
                    }
                    Got::Absent(why) if tu::REQUIRED_FILES.contains(s) => {
                        return Err(Error::Data(format!("mirror is incomplete: {why}")))
                    }
                    Got::Absent(_) => {
                        // Optional files may be missing; do not leave an empty file.
                        let _ = fs::remove_file(dir.join(&f));
                    }
                }
            }
            Ok(None)
        }
    }
}

/// The sets of the TU collection whose GIN/DGCNN copy holds the same information as the
/// TU files, as (TU name, the copy's name in a mirror's `dgcnn/NAME.zip`): magcl builds the
/// same [`GraphDataset`] from either (tested on NCI1, IMDB-BINARY and IMDB-MULTI; COLLAB,
/// DD and REDDIT-BINARY have no TU files in the mirror). MUTAG's copy renames its node
/// labels and orders its graphs differently, and PROTEINS' lacks the node attribute, so
/// those two are never taken from their DGCNN copies by name (`dgcnn:PATH` reads them).
pub const DGCNN_COPIES: &[(&str, &str)] = &[
    ("COLLAB", "COLLAB"),
    ("DD", "DD"),
    ("REDDIT-BINARY", "REDDIT-BINARY"),
    ("NCI1", "NCI1"),
    ("IMDB-BINARY", "IMDBBINARY"),
    ("IMDB-MULTI", "IMDBMULTI"),
];

/// The name of a TU set's DGCNN copy (`dgcnn/NAME.zip`), where it has an equivalent one.
pub fn dgcnn_zip_stem(name: &str) -> Option<&'static str> {
    DGCNN_COPIES
        .iter()
        .find(|(tu_name, _)| *tu_name == name)
        .map(|&(_, stem)| stem)
}

/// The copy of a TU-collection set in the cache: its TU files, or its DGCNN zip.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GraphCopy {
    /// `cache/tu/NAME/` with the TU files.
    Tu(PathBuf),
    /// `cache/dgcnn/STEM.zip`, the mirror's DGCNN copy as it was.
    Dgcnn(PathBuf),
}

impl GraphCopy {
    pub fn path(&self) -> &Path {
        match self {
            GraphCopy::Tu(p) | GraphCopy::Dgcnn(p) => p,
        }
    }
}

/// The cached copy of a TU-collection set: its TU files if complete, else its DGCNN zip.
fn cached_tu(name: &str, cfg: &DataConfig) -> Option<GraphCopy> {
    let dir = cfg.cache_dir.join("tu").join(name);
    if tu_complete(&dir, name) {
        return Some(GraphCopy::Tu(dir));
    }
    let zip = cfg
        .cache_dir
        .join("dgcnn")
        .join(format!("{}.zip", dgcnn_zip_stem(name)?));
    zip.is_file().then_some(GraphCopy::Dgcnn(zip))
}

/// Makes sure a copy of a TU-collection set is in the cache and returns it: the cached
/// one, else fetched from the mirror's `tu/NAME/`, else the mirror's `dgcnn/NAME.zip`
/// (sets of [`DGCNN_COPIES`]), else the TU collection's URL.
fn ensure_tu(name: &str, cfg: &DataConfig) -> Result<GraphCopy> {
    if let Some(c) = cached_tu(name, cfg) {
        return Ok(c);
    }
    let parent = cfg.cache_dir.join("tu");
    let target = parent.join(name);
    let created = Created::before(&parent);
    let dgcnn_created = Created::before(&cfg.cache_dir.join("dgcnn"));
    fetch_tu(name, cfg, &parent, &target).inspect_err(|_| {
        dgcnn_created.undo();
        created.undo();
    })
}

/// Copies the mirror's `dgcnn/STEM.zip` into `cache/dgcnn/`, verified against its known
/// sha256 and parsed before it enters the cache; `Ok(Err(reason))` if the mirror lacks it.
fn dgcnn_from_mirror(
    place: &Place,
    name: &str,
    stem: &str,
    cfg: &DataConfig,
) -> Result<std::result::Result<PathBuf, String>> {
    let dir = cfg.cache_dir.join("dgcnn");
    fs::create_dir_all(&dir).map_err(|e| io_err(&dir, "cannot create cache folder", e))?;
    let rel = format!("dgcnn/{stem}.zip");
    let tmp = tempfile::Builder::new()
        .prefix(&format!(".{stem}.zip.partial-"))
        .tempfile_in(&dir)
        .map_err(|e| io_err(&dir, "cannot create a temporary file", e))?;
    if let Got::Absent(why) = fetch_from(place, &rel, tmp.path())? {
        drop(tmp);
        // Leave no empty folder behind when the mirror has no DGCNN copy.
        let _ = fs::remove_dir(&dir);
        return Ok(Err(format!("mirror: {why}")));
    }
    let shown = match place {
        Place::Folder(base) => base.join(&rel).display().to_string(),
        Place::Http(base) => format!("{base}/{rel}"),
    };
    let (_, bytes) = read_dgcnn_zip(tmp.path(), Some(stem)).map_err(|e| {
        Error::Data(
            e.to_string()
                .replace(&tmp.path().display().to_string(), &shown),
        )
    })?;
    dgcnn::parse_dgcnn(name, Path::new(&shown), &bytes)?;
    let target = dir.join(format!("{stem}.zip"));
    match tmp.persist(&target) {
        Ok(_) => Ok(Ok(target)),
        Err(_) if target.is_file() => Ok(Ok(target)),
        Err(e) => Err(io_err(
            &target,
            "cannot move the fetched file into the cache",
            e.error,
        )),
    }
}

fn fetch_tu(name: &str, cfg: &DataConfig, parent: &Path, target: &Path) -> Result<GraphCopy> {
    let tmp = temp_dir_in(parent, name)?;
    let mut misses = Vec::new();
    let mut source = None;
    let mirror = Place::of_mirror(cfg)?;
    if let Some(m) = &mirror {
        match tu_from_mirror(m, name, tmp.path())? {
            None => source = cfg.mirror.clone(),
            Some(why) => misses.push(why),
        }
        if source.is_none() {
            if let Some(stem) = dgcnn_zip_stem(name) {
                match dgcnn_from_mirror(m, name, stem, cfg)? {
                    Ok(zip) => return Ok(GraphCopy::Dgcnn(zip)),
                    Err(why) => misses.push(why),
                }
            }
        }
    }
    if source.is_none() {
        let url = format!("{TU_URL}/{name}.zip");
        let zip_tmp = tempfile::Builder::new()
            .prefix(&format!(".{name}.zip.partial-"))
            .tempfile_in(parent)
            .map_err(|e| io_err(parent, "cannot create a temporary file", e))?;
        let got =
            download(&url, zip_tmp.path(), &format!("tu/{name}/{name}.zip")).map_err(|e| {
                if misses.is_empty() {
                    e
                } else {
                    Error::Data(format!("cannot fetch {name}: {}; {e}", misses.join("; ")))
                }
            })?;
        if let Got::Absent(why) = got {
            misses.push(why);
            return Err(Error::Data(format!(
                "cannot fetch {name}: {}",
                misses.join("; ")
            )));
        }
        unpack_tu_zip(zip_tmp.path(), &url, name, tmp.path())?;
        source = Some(url);
    }
    // Structure check before anything enters the cache. Its messages name where the bytes
    // came from, not the temporary folder (which is gone by the time they are read).
    let shown = match (&source, mirror) {
        (Some(s), _) if s.ends_with(".zip") => format!("{s} (unpacked)"),
        (_, Some(Place::Folder(base))) => {
            let dir = base.join("tu").join(name);
            if dir.join(format!("{name}_A.txt")).is_file() {
                dir.display().to_string()
            } else {
                format!("{} (unpacked)", dir.join(format!("{name}.zip")).display())
            }
        }
        (_, Some(Place::Http(base))) => format!("{base}/tu/{name}"),
        (_, None) => name.to_string(),
    };
    tu::load_tu_dir(tmp.path(), name).map_err(|e| {
        Error::Data(
            e.to_string()
                .replace(&tmp.path().display().to_string(), &shown),
        )
    })?;
    if !registry::is_builtin(name) {
        let digest = tu_digest(tmp.path(), name)?;
        record_tu_source(parent, name, &digest, source.as_deref().unwrap_or("?"))?;
    }
    commit_dir(tmp, target, |p| tu_complete(p, name))?;
    Ok(GraphCopy::Tu(target.to_path_buf()))
}

/// The folders a fetch may create (the cache folder and one below it), to be removed again
/// if the fetch fails and they are still empty: a failed fetch leaves nothing behind.
struct Created(Vec<PathBuf>);

impl Created {
    fn before(dir: &Path) -> Created {
        let missing = dir
            .ancestors()
            .take_while(|p| !p.as_os_str().is_empty() && !p.exists())
            .map(Path::to_path_buf)
            .collect();
        Created(missing)
    }

    /// Removes the folders that did not exist before, deepest first, where empty.
    fn undo(&self) {
        for d in &self.0 {
            let _ = fs::remove_dir(d);
        }
    }
}

/// The sha256 of a TU dataset's files as fetched: sha256 over the lines
/// `FILE_NAME SHA256_OF_FILE` of its `NAME_*.txt` files in name order. It does not depend
/// on whether the files came unpacked from a mirror or in a zip.
pub fn tu_digest(dir: &Path, name: &str) -> Result<String> {
    let mut files: Vec<String> = fs::read_dir(dir)
        .map_err(|e| io_err(dir, "cannot list", e))?
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|f| f.starts_with(&format!("{name}_")) && f.ends_with(".txt"))
        .collect();
    files.sort();
    files_digest(dir, &files)
}

/// The sha256 over the lines `FILE_NAME SHA256_OF_FILE` of `files` (in `dir`), in the
/// order given.
fn files_digest(dir: &Path, files: &[String]) -> Result<String> {
    let mut all = sha2::Sha256::new();
    for f in files {
        let path = dir.join(f);
        let mut h = sha2::Sha256::new();
        let mut file = File::open(&path).map_err(|e| io_err(&path, "cannot read", e))?;
        std::io::copy(&mut file, &mut h).map_err(|e| io_err(&path, "cannot read", e))?;
        all.update(format!("{f} {}\n", checksums::hex(&h.finalize())).as_bytes());
    }
    Ok(checksums::hex(&all.finalize()))
}

/// Where the record of a TU dataset without known checksums lives: beside its folder, so
/// it outlives a deleted folder and a later fetch can be compared with the first.
fn tu_record_path(parent: &Path, name: &str) -> PathBuf {
    parent.join(format!(".{name}.sha256"))
}

/// The recorded `(sha256, source)` of a TU dataset without known checksums, if fetched.
pub fn tu_source_record(cfg: &DataConfig, name: &str) -> Option<(String, String)> {
    let text = fs::read_to_string(tu_record_path(&cfg.cache_dir.join("tu"), name)).ok()?;
    let (sha, source) = text.trim().split_once(' ')?;
    Some((sha.to_string(), source.to_string()))
}

/// Records what was fetched; if an earlier fetch recorded other bytes, says so on stderr.
fn record_tu_source(parent: &Path, name: &str, digest: &str, source: &str) -> Result<()> {
    let path = tu_record_path(parent, name);
    if let Ok(old) = fs::read_to_string(&path) {
        if let Some((old_sha, old_source)) = old.trim().split_once(' ') {
            if old_sha != digest {
                eprintln!(
                    "warning: {name}: the files fetched now from {source} (sha256 {digest}) differ from those fetched earlier from {old_source} (sha256 {old_sha}); results may not be comparable with earlier runs"
                );
            }
        }
    }
    let tmp = path.with_extension("sha256.partial");
    fs::write(&tmp, format!("{digest} {source}\n"))
        .and_then(|()| fs::rename(&tmp, &path))
        .map_err(|e| io_err(&path, "cannot record the fetched dataset's sha256", e))
}

// ---------------------------------------------------------------------------------------
// Planetoid and npz

fn ensure_planetoid(prefix: &str, cfg: &DataConfig) -> Result<PathBuf> {
    let parent = cfg.cache_dir.join("planetoid");
    let target = parent.join(prefix);
    if planetoid_complete(&target, prefix) {
        return Ok(target);
    }
    let created = Created::before(&parent);
    fetch_planetoid(prefix, cfg, &parent, target).inspect_err(|_| created.undo())
}

fn fetch_planetoid(
    prefix: &str,
    cfg: &DataConfig,
    parent: &Path,
    target: PathBuf,
) -> Result<PathBuf> {
    let tmp = temp_dir_in(parent, prefix)?;
    for s in planetoid::SUFFIXES {
        let file = format!("ind.{prefix}.{s}");
        fetch_one(
            cfg,
            &format!("planetoid/{file}"),
            &format!("{PLANETOID_URL}/{file}"),
            &tmp.path().join(&file),
        )?;
    }
    planetoid::load_planetoid_dir(tmp.path(), prefix, prefix)?;
    commit_dir(tmp, &target, |p| planetoid_complete(p, prefix))?;
    Ok(target)
}

/// Reads `FILE.npz` out of the mirror's `npz/STEM.zip` (the zip holding the byte-exact
/// file under its own name, in any folder) into `dest`, checked against the npz's known
/// sha256 as `npz/FILE.npz`. An http mirror's zip is downloaded beside the cache first.
fn npz_from_mirror_zip(place: &Place, file: &str, dest: &Path, parent: &Path) -> Result<Got> {
    let stem = file.strip_suffix(".npz").unwrap_or(file);
    let rel_zip = format!("npz/{stem}.zip");
    let downloaded;
    let (zip_path, shown) = match place {
        Place::Folder(base) => {
            let p = base.join(&rel_zip);
            if !p.is_file() {
                return Ok(Got::Absent(format!("{}: no such file", p.display())));
            }
            let shown = p.display().to_string();
            (p, shown)
        }
        Place::Http(base) => {
            downloaded = tempfile::Builder::new()
                .prefix(&format!(".{stem}.zip.partial-"))
                .tempfile_in(parent)
                .map_err(|e| io_err(parent, "cannot create a temporary file", e))?;
            let url = format!("{base}/{rel_zip}");
            if let Got::Absent(why) = download(&url, downloaded.path(), &rel_zip)? {
                return Ok(Got::Absent(why));
            }
            (downloaded.path().to_path_buf(), url)
        }
    };
    let corrupt = |e: &dyn std::fmt::Display| {
        Error::Data(format!(
            "{shown}: not a readable zip archive: {e}; nothing was cached"
        ))
    };
    let f = File::open(&zip_path).map_err(|e| io_err(&zip_path, "cannot read", e))?;
    let mut zip = zip::ZipArchive::new(f).map_err(|e| corrupt(&e))?;
    let mut found = Vec::new();
    for i in 0..zip.len() {
        let entry = zip.by_index(i).map_err(|e| corrupt(&e))?;
        let full = entry.name().map_err(|e| corrupt(&e))?.to_string();
        if !entry.is_dir() && !stray_entry(&full) && full.rsplit(['/', '\\']).next() == Some(file) {
            found.push((i, full));
        }
    }
    if found.len() != 1 {
        return Err(Error::Data(format!(
            "{shown}: {} entries named {file}; expected exactly one; nothing was cached",
            found.len()
        )));
    }
    let (i, full) = found.remove(0);
    let mut entry = zip.by_index(i).map_err(|e| corrupt(&e))?;
    copy_verified(
        &mut (&mut entry).take(MAX_FILE_BYTES + 1),
        dest,
        &format!("npz/{file}"),
        &format!("{shown}:{full}"),
        false,
        MAX_FILE_BYTES,
        "",
    )?;
    Ok(Got::Saved)
}

fn ensure_npz(file: &str, cfg: &DataConfig) -> Result<PathBuf> {
    let parent = cfg.cache_dir.join("npz");
    let target = parent.join(file);
    if target.is_file() {
        return Ok(target);
    }
    let created = Created::before(&parent);
    fetch_npz(file, cfg, &parent, target).inspect_err(|_| created.undo())
}

fn fetch_npz(file: &str, cfg: &DataConfig, parent: &Path, target: PathBuf) -> Result<PathBuf> {
    let parent = parent.to_path_buf();
    fs::create_dir_all(&parent).map_err(|e| io_err(&parent, "cannot create cache folder", e))?;
    let tmp = tempfile::Builder::new()
        .prefix(&format!(".{file}.partial-"))
        .tempfile_in(&parent)
        .map_err(|e| io_err(&parent, "cannot create a temporary file", e))?;
    let rel = format!("npz/{file}");
    let mut misses = Vec::new();
    let mut saved = false;
    if let Some(m) = Place::of_mirror(cfg)? {
        match fetch_from(&m, &rel, tmp.path())? {
            Got::Saved => saved = true,
            Got::Absent(why) => match npz_from_mirror_zip(&m, file, tmp.path(), &parent)? {
                Got::Saved => saved = true,
                Got::Absent(why_zip) => {
                    misses.push(format!("mirror: {why}"));
                    misses.push(format!("mirror: {why_zip}"));
                }
            },
        }
    }
    if !saved {
        fetch_canonical(
            &rel,
            &format!("{GNN_BENCHMARK_URL}/{file}"),
            tmp.path(),
            misses,
        )?;
    }
    let bytes = fs::read(tmp.path()).map_err(|e| io_err(tmp.path(), "cannot read", e))?;
    npz::parse_gnn_benchmark(file, &target, &bytes)?;
    match tmp.persist(&target) {
        Ok(_) => Ok(target),
        Err(_) if target.is_file() => Ok(target),
        Err(e) => Err(io_err(
            &target,
            "cannot move the fetched file into the cache",
            e.error,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_names() {
        assert_eq!(synthetic_params("synthetic").unwrap(), Some((200, 0)));
        assert_eq!(synthetic_params("BA-2Motifs:50").unwrap(), Some((50, 0)));
        assert_eq!(synthetic_params("synthetic:10:7").unwrap(), Some((10, 7)));
        assert!(synthetic_params("synthetic:x").is_err());
        assert!(synthetic_params("synthetic:1").is_err());
        assert_eq!(synthetic_params("MUTAG").unwrap(), None);
    }

    /// A cached Planetoid folder is a copy with a digest (so node runs on Cora and
    /// CiteSeer record what they read), the digest of its eight files as `sha256sum`
    /// gives it: `for f in ind.tiny.*; do echo "$f $(sha256sum $f | cut -d' ' -f1)";
    /// done | sha256sum` on tests/fixtures/data/planetoid/tiny. Generated sets have none.
    #[test]
    fn planetoid_folders_are_copies_with_a_digest() {
        let fixture =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/data/planetoid/tiny");
        let digest = "1211e6996aca0df8cd28703ccb5fb75a4aa5e565eff6c32c831357fa29dafc04";
        assert_eq!(planetoid_source(&fixture, "tiny").unwrap().sha256, digest);
        // The same files cached as Cora's: known_source and node_source read the cache
        // (complete, so nothing is fetched).
        let cache = tempfile::tempdir().unwrap();
        let dir = cache.path().join("planetoid/cora");
        fs::create_dir_all(&dir).unwrap();
        for s in planetoid::SUFFIXES {
            fs::copy(
                fixture.join(format!("ind.tiny.{s}")),
                dir.join(format!("ind.cora.{s}")),
            )
            .unwrap();
        }
        let cfg = DataConfig {
            cache_dir: cache.path().to_path_buf(),
            mirror: None,
        };
        let src = node_source("Cora", &cfg).unwrap().unwrap();
        assert_eq!(src.path, dir.display().to_string());
        // other file names, other digest: the names are part of it, as for TU folders
        assert_ne!(src.sha256, digest);
        assert_eq!(src.sha256.len(), 64);
        let d = registry::lookup("Cora").unwrap();
        assert_eq!(known_source(&d, &cfg).unwrap(), Some(src));
        assert_eq!(node_source("synthetic-node", &cfg).unwrap(), None);
        let d = registry::lookup("synthetic").unwrap();
        assert_eq!(known_source(&d, &cfg).unwrap(), None);
    }
}
