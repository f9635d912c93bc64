//! Helpers shared by the `data_*` integration tests.
#![allow(dead_code)]
use magcl::data::DataConfig;
use std::path::{Path, PathBuf};

/// The dataset mirror: `$MAGCL_DATA_MIRROR`, else `../shared/datasets` beside the crate.
pub fn mirror() -> PathBuf {
    let p = std::env::var_os("MAGCL_DATA_MIRROR")
        .filter(|m| !m.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/datasets"));
    assert!(
        p.join("tu/MUTAG/MUTAG_A.txt").is_file(),
        "dataset mirror not found at {}; set MAGCL_DATA_MIRROR to a folder laid out like shared/datasets",
        p.display()
    );
    p
}

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/data")
}

/// A fresh temporary cache with the shared mirror.
pub fn cache_with_mirror() -> (tempfile::TempDir, DataConfig) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let cfg = DataConfig {
        cache_dir: tmp.path().to_path_buf(),
        mirror: Some(mirror().display().to_string()),
    };
    (tmp, cfg)
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
