//! Helpers shared by the `data_*` integration tests.
#![allow(dead_code)]
use magcl_torch::data::DataConfig;
use std::path::{Path, PathBuf};

/// Where the real datasets come from in tests: `$MAGCL_DATA_MIRROR`, else `../shared/datasets`
/// beside the crate (it may not exist: a user's fresh clone has neither).
fn configured_mirror() -> PathBuf {
    std::env::var_os("MAGCL_DATA_MIRROR")
        .filter(|m| !m.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/datasets"))
}

/// A mirror folder filled from the network by earlier test runs (see [`obtain`]).
fn network_mirror() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("magcl-test-mirror")
}

/// The file every test run appends its skip lines to; `make test` prints it at the end.
pub fn skip_log() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("skipped-tests.log")
}

/// Whether a mirror folder holds the files of a known dataset.
fn mirror_has(mirror: &Path, name: &str) -> bool {
    let d = magcl_torch::data::registry::lookup(name).expect("a known dataset name");
    match d.origin {
        magcl_torch::data::registry::Origin::Tu => {
            let dir = mirror.join("tu").join(d.name);
            dir.join(format!("{}_A.txt", d.name)).is_file()
                || dir.join(format!("{}.zip", d.name)).is_file()
                || magcl_torch::data::source::dgcnn_zip_stem(d.name)
                    .is_some_and(|s| mirror.join(format!("dgcnn/{s}.zip")).is_file())
        }
        magcl_torch::data::registry::Origin::Planetoid { prefix } => {
            magcl_torch::data::planetoid::SUFFIXES
                .iter()
                .all(|s| mirror.join(format!("planetoid/ind.{prefix}.{s}")).is_file())
        }
        magcl_torch::data::registry::Origin::GnnBenchmark { file } => {
            let npz = mirror.join("npz").join(file);
            npz.is_file() || npz.with_extension("zip").is_file()
        }
        magcl_torch::data::registry::Origin::Synthetic => true,
    }
}

/// Tries once per test process to download `name` (no mirror) and lays it out as a mirror
/// under [`network_mirror`]. Offline this fails at once (the name does not resolve).
fn fetch_into_network_mirror(name: &str) -> bool {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static TRIED: OnceLock<Mutex<HashMap<String, bool>>> = OnceLock::new();
    let tried = TRIED.get_or_init(Default::default);
    let mut tried = tried.lock().unwrap();
    if let Some(&ok) = tried.get(name) {
        return ok;
    }
    let root = network_mirror();
    let cfg = DataConfig::new(root.join(".cache"));
    let d = magcl_torch::data::registry::lookup(name).expect("a known dataset name");
    let ok = match magcl_torch::data::source::fetch(&d, &cfg) {
        Ok(Some(path)) => lay_out_as_mirror(&d, &path, &root).is_ok(),
        Ok(None) => true,
        Err(_) => false,
    };
    tried.insert(name.to_string(), ok);
    ok
}

/// Copies a cached dataset into the mirror layout (which differs from the cache's only for
/// Planetoid: `planetoid/ind.PREFIX.*` instead of `planetoid/PREFIX/ind.PREFIX.*`).
fn lay_out_as_mirror(
    d: &magcl_torch::data::registry::KnownDataset,
    cached: &Path,
    root: &Path,
) -> std::io::Result<()> {
    use magcl_torch::data::registry::Origin;
    let dest = match d.origin {
        Origin::Tu => root.join("tu").join(d.name),
        Origin::Planetoid { .. } => root.join("planetoid"),
        Origin::GnnBenchmark { .. } => root.join("npz"),
        Origin::Synthetic => return Ok(()),
    };
    std::fs::create_dir_all(&dest)?;
    if cached.is_file() {
        std::fs::copy(cached, dest.join(cached.file_name().unwrap()))?;
        return Ok(());
    }
    for e in std::fs::read_dir(cached)? {
        let p = e?.path();
        std::fs::copy(&p, dest.join(p.file_name().unwrap()))?;
    }
    Ok(())
}

/// A mirror folder that holds every dataset in `names`, or `None` after one loud line per
/// missing dataset: the test is then skipped (it returns early). Sources, in order: the
/// configured mirror (`$MAGCL_DATA_MIRROR`, else `../shared/datasets`), a mirror filled
/// from the network by an earlier test run, the network. With `MAGCL_REQUIRE_DATA=1` a
/// missing dataset fails the test instead.
///
/// Use: `let Some(mirror) = data_support::obtain("test_name", &["MUTAG"]) else { return };`
pub fn obtain(test: &str, names: &[&str]) -> Option<PathBuf> {
    match available(names) {
        Ok(mirror) => Some(mirror),
        Err(missing) => {
            skip(
                test,
                &format!(
                    "needs the dataset(s) {} — not in the mirror {} and not downloadable (offline?)",
                    missing.join(", "),
                    configured_mirror().display()
                ),
            );
            None
        }
    }
}

/// Like [`obtain`] without reporting anything: the mirror folder, or the missing names.
pub fn available(names: &[&str]) -> Result<PathBuf, Vec<String>> {
    let configured = configured_mirror();
    if names.iter().all(|n| mirror_has(&configured, n)) {
        return Ok(configured);
    }
    let net = network_mirror();
    let missing: Vec<String> = names
        .iter()
        .filter(|n| !mirror_has(&net, n) && !fetch_into_network_mirror(n))
        .map(|n| n.to_string())
        .collect();
    if missing.is_empty() {
        Ok(net)
    } else {
        Err(missing)
    }
}

/// Reports a skipped test: one loud line on stderr and in [`skip_log`], or, with
/// `MAGCL_REQUIRE_DATA=1`, a failure.
pub fn skip(test: &str, why: &str) {
    let line = format!(
        "SKIPPED {test}: {why}; set MAGCL_DATA_MIRROR to a folder laid out like shared/datasets, or run with network access"
    );
    if std::env::var("MAGCL_REQUIRE_DATA").is_ok_and(|v| v == "1") {
        panic!(
            "MAGCL_REQUIRE_DATA=1 and {}",
            line.trim_start_matches("SKIPPED ")
        );
    }
    eprintln!("{line}");
    use std::io::Write;
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(skip_log())
    {
        let _ = f.write_all(format!("{line}\n").as_bytes());
    }
}

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/data")
}

/// A fresh temporary cache with a mirror that holds `names` (see [`obtain`]); `None`: skip.
pub fn cache_with_mirror(test: &str, names: &[&str]) -> Option<(tempfile::TempDir, DataConfig)> {
    let mirror = obtain(test, names)?;
    Some(cache_with(&mirror.display().to_string()))
}

/// A fresh temporary cache with the given mirror (folder or URL).
pub fn cache_with(mirror: &str) -> (tempfile::TempDir, DataConfig) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let cfg = DataConfig {
        cache_dir: tmp.path().to_path_buf(),
        mirror: Some(mirror.to_string()),
    };
    (tmp, cfg)
}

/// Every file below `dir`, relative, sorted (hidden temporary entries included).
pub fn tree(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        if let Ok(rd) = std::fs::read_dir(dir) {
            for e in rd.flatten() {
                let p = e.path();
                out.push(p.strip_prefix(base).unwrap_or(&p).display().to_string());
                if p.is_dir() {
                    walk(base, &p, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// What the test server does wrong for one path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Serve the file with one byte changed.
    Corrupt,
    /// Announce the full length, send half, close the connection.
    Truncate,
    /// Answer with this HTTP status and no body.
    Status(u16),
}

/// A tiny HTTP/1.1 file server on 127.0.0.1 for the download tests. It serves files
/// below `root` (404 for anything else), applies per-path faults, records every path
/// requested, and stops by itself after `MAX_CONNECTIONS` connections or `LIFETIME`.
pub struct TestServer {
    pub base_url: String,
    pub requests: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

const MAX_CONNECTIONS: usize = 200;
const LIFETIME: std::time::Duration = std::time::Duration::from_secs(120);

impl TestServer {
    pub fn start(root: PathBuf, faults: Vec<(&'static str, Fault)>) -> TestServer {
        use std::io::{BufRead, BufReader, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        listener.set_nonblocking(true).expect("nonblocking");
        let addr = listener.local_addr().expect("addr");
        let requests = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = requests.clone();
        std::thread::spawn(move || {
            let started = std::time::Instant::now();
            let mut served = 0usize;
            while served < MAX_CONNECTIONS && started.elapsed() < LIFETIME {
                let (stream, _) = match listener.accept() {
                    Ok(s) => s,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        std::thread::sleep(std::time::Duration::from_millis(5));
                        continue;
                    }
                    Err(_) => break,
                };
                served += 1;
                let _ = stream.set_nonblocking(false);
                let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(10)));
                let mut reader = BufReader::new(match stream.try_clone() {
                    Ok(s) => s,
                    Err(_) => continue,
                });
                let mut request_line = String::new();
                if reader.read_line(&mut request_line).is_err() {
                    continue;
                }
                loop {
                    let mut h = String::new();
                    match reader.read_line(&mut h) {
                        Ok(0) | Err(_) => break,
                        Ok(_) if h == "\r\n" || h == "\n" => break,
                        Ok(_) => {}
                    }
                }
                let path = request_line
                    .split_whitespace()
                    .nth(1)
                    .unwrap_or("/")
                    .to_string();
                log.lock().unwrap().push(path.clone());
                let mut stream = stream;
                let fault = faults.iter().find(|(p, _)| *p == path).map(|(_, f)| *f);
                let rel = path.trim_start_matches('/');
                let file = if rel.contains("..") {
                    None
                } else {
                    std::fs::read(root.join(rel)).ok()
                };
                let reply = |stream: &mut std::net::TcpStream,
                             status: &str,
                             body: &[u8],
                             len: usize| {
                    let head = format!(
                        "HTTP/1.1 {status}\r\nContent-Length: {len}\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n"
                    );
                    let _ = stream.write_all(head.as_bytes());
                    let _ = stream.write_all(body);
                    let _ = stream.flush();
                };
                match (fault, file) {
                    (Some(Fault::Status(code)), _) => {
                        reply(&mut stream, &format!("{code} Test Fault"), b"", 0)
                    }
                    (_, None) => reply(&mut stream, "404 Not Found", b"", 0),
                    (Some(Fault::Corrupt), Some(mut body)) => {
                        let mid = body.len() / 2;
                        body[mid] ^= 0x01;
                        reply(&mut stream, "200 OK", &body, body.len())
                    }
                    (Some(Fault::Truncate), Some(body)) => {
                        reply(&mut stream, "200 OK", &body[..body.len() / 2], body.len())
                    }
                    (None, Some(body)) => reply(&mut stream, "200 OK", &body, body.len()),
                }
                let _ = stream.shutdown(std::net::Shutdown::Both);
            }
        });
        TestServer {
            base_url: format!("http://{addr}"),
            requests,
        }
    }

    pub fn requested(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}
