//! Reading and writing the files a user names, safely.
//!
//! - Reads: a file that is read whole must be a regular file (a FIFO would block forever,
//!   `/dev/zero` never ends) and at most a stated number of bytes; it is opened without
//!   blocking so that a FIFO is refused, not waited on.
//! - Writes: every output file is written to a temporary file in the same folder, synced
//!   and renamed over the target, so a full disk or a kill leaves the old file or the new
//!   one, never a truncated mix. [`write_pair_atomic`] writes two files that belong
//!   together (embeddings and their labels) so that a failure never leaves a new one
//!   beside an old one.
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::Path;

use crate::error::{Error, Result};

/// The largest JSON or TOML config magcl reads (run configs, sweep files).
pub const MAX_CONFIG_BYTES: u64 = 16 << 20;

/// The largest result CSV magcl reads (about 400 000 rows of 2.5 KB).
pub const MAX_RESULTS_BYTES: u64 = 1 << 30;

fn human(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

/// Opens `path` with `opts` (non-blocking, so that a FIFO does not hang the open) and
/// refuses anything but a regular file.
pub fn open_regular(path: &Path, opts: &mut OpenOptions, what: &str) -> Result<File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NONBLOCK);
    }
    // An existing non-regular file is refused before opening it at all.
    if let Ok(meta) = std::fs::metadata(path) {
        check_regular(path, &meta, what)?;
    }
    let file = opts
        .open(path)
        .map_err(|e| Error::file(path, format!("cannot open {what}: {e}")))?;
    let meta = file
        .metadata()
        .map_err(|e| Error::file(path, format!("cannot inspect {what}: {e}")))?;
    check_regular(path, &meta, what)?;
    Ok(file)
}

fn check_regular(path: &Path, meta: &std::fs::Metadata, what: &str) -> Result<()> {
    if meta.is_file() {
        return Ok(());
    }
    let kind = if meta.is_dir() {
        "a folder"
    } else {
        "not a regular file (a device, FIFO or socket)"
    };
    Err(Error::file(
        path,
        format!("{kind}; magcl reads and writes {what} only as a regular file"),
    ))
}

/// Reads all of an open regular file, refusing more than `limit` bytes.
pub fn read_bounded(file: &mut File, path: &Path, limit: u64, what: &str) -> Result<Vec<u8>> {
    let too_big = |n: u64| {
        Error::file(
            path,
            format!(
                "{what} is {}, more than the {} magcl reads from such a file",
                human(n),
                human(limit)
            ),
        )
    };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    if len > limit {
        return Err(too_big(len));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::file(path, format!("cannot read {what}: {e}")))?;
    if bytes.len() as u64 > limit {
        return Err(too_big(bytes.len() as u64));
    }
    Ok(bytes)
}

/// Reads the regular file `path` whole, at most `limit` bytes.
pub fn read_regular(path: &Path, limit: u64, what: &str) -> Result<Vec<u8>> {
    let mut file = open_regular(path, OpenOptions::new().read(true), what)?;
    read_bounded(&mut file, path, limit, what)
}

/// Reads the regular UTF-8 text file `path` whole, at most `limit` bytes.
pub fn read_regular_text(path: &Path, limit: u64, what: &str) -> Result<String> {
    String::from_utf8(read_regular(path, limit, what)?)
        .map_err(|e| Error::file(path, format!("{what} is not UTF-8 text: {e}")))
}

fn folder_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Writes `bytes` to a synced temporary file beside `path` (creating the folder), ready
/// to be renamed over it.
fn temp_beside(path: &Path, bytes: &[u8]) -> Result<tempfile::NamedTempFile> {
    let dir = folder_of(path);
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::file(dir, format!("cannot create folder: {e}")))?;
    if let Ok(meta) = std::fs::metadata(path) {
        if !meta.is_file() {
            return Err(Error::file(
                path,
                "exists and is not a regular file; magcl replaces only regular files",
            ));
        }
    }
    let mut tmp = tempfile::Builder::new()
        .prefix(".magcl-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| Error::file(path, format!("cannot create a file beside it: {e}")))?;
    tmp.write_all(bytes)
        .and_then(|_| tmp.as_file().sync_all())
        .map_err(|e| {
            Error::file(
                path,
                format!("write failed ({e}); the previous file, if any, is unchanged"),
            )
        })?;
    Ok(tmp)
}

fn sync_folder(dir: &Path) {
    // Makes the rename itself durable; not every file system allows it, so best effort.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder, synced, then
/// renamed over `path`. On any failure `path` is unchanged and no temporary file remains.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = temp_beside(path, bytes)?;
    tmp.persist(path)
        .map_err(|e| Error::file(path, format!("cannot move into place: {}", e.error)))?;
    sync_folder(folder_of(path));
    Ok(())
}

/// Writes two files that belong together (e.g. embeddings and their labels). Both are
/// written to temporary files first (a failure there changes nothing); then the old
/// `first` is removed, `second` renamed into place, and `first` renamed into place last.
/// So whatever fails, `first` never sits beside a `second` it does not belong to: either
/// both are new, or both are old, or `first` is missing (and the error says so).
pub fn write_pair_atomic(first: (&Path, &[u8]), second: (&Path, &[u8])) -> Result<()> {
    let t1 = temp_beside(first.0, first.1)?;
    let t2 = temp_beside(second.0, second.1)?;
    let missing = |e: std::io::Error| {
        Error::file(
            first.0,
            format!(
                "cannot replace the pair ({e}); it was removed so that it does not sit beside a {} it does not belong to",
                second.0.display()
            ),
        )
    };
    match std::fs::remove_file(first.0) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            return Err(Error::file(
                first.0,
                format!("cannot replace the old file ({e}); both files are unchanged"),
            ))
        }
    }
    t2.persist(second.0).map_err(|e| missing(e.error))?;
    t1.persist(first.0).map_err(|e| missing(e.error))?;
    sync_folder(folder_of(first.0));
    sync_folder(folder_of(second.0));
    Ok(())
}

/// Peak resident set size of this process (`VmHWM` of `/proc/self/status`), in bytes; 0
/// where the system does not say.
pub fn peak_rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map(|kb| kb * 1024)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub/out.txt");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(p.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("out.txt")]);
    }

    #[test]
    fn reads_refuse_devices_and_oversized_files() {
        let e = read_regular(Path::new("/dev/zero"), 10, "a test file").unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big");
        std::fs::write(&p, [b'x'; 11]).unwrap();
        let e = read_regular(&p, 10, "a test file").unwrap_err();
        assert!(e.to_string().contains("more than the 10 bytes"), "{e}");
        assert_eq!(read_regular(&p, 11, "a test file").unwrap().len(), 11);
        let e = read_regular(dir.path(), 10, "a test file").unwrap_err();
        assert!(e.to_string().contains("a folder"), "{e}");
    }
}
