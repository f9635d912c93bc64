//! The `magcl` binary, for the tests that run its own commands (`datasets`, `eval`,
//! `report`) or its hand-over to `magcl-torch`. It is the magcl-cli package's, not this
//! one's, so cargo sets no `CARGO_BIN_EXE_magcl` here. `cargo test` at the top of the
//! workspace builds it into the folder of `magcl-torch` (magcl-cli has integration tests
//! of its own); `cargo test --test NAME` builds only this package's binaries, so a
//! missing or out-of-date `magcl` is reported instead of tested.
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The path of `magcl`, beside `magcl-torch`; panics, saying how to build it, when it is
/// missing or older than one of its sources.
pub fn path() -> &'static str {
    static PATH: OnceLock<String> = OnceLock::new();
    PATH.get_or_init(|| {
        let torch = Path::new(env!("CARGO_BIN_EXE_magcl-torch"));
        let light = torch.with_file_name(format!("magcl{}", std::env::consts::EXE_SUFFIX));
        let build = "build it with `cargo build -p magcl-cli` (with --release when the tests \
                     run with it), or run `cargo test` without --test";
        assert!(light.is_file(), "{} is missing: {build}", light.display());
        let stale = changed_sources(&light);
        assert!(
            stale.is_empty(),
            "{} is older than its sources {stale:?}: {build}",
            light.display()
        );
        light.to_str().expect("a UTF-8 target folder").to_owned()
    })
}

/// The sources of `bin` (those cargo's dep-info file `BIN.d` beside it lists) that are
/// newer than it or gone.
fn changed_sources(bin: &Path) -> Vec<PathBuf> {
    let built = std::fs::metadata(bin).and_then(|m| m.modified()).unwrap();
    let Ok(info) = std::fs::read_to_string(bin.with_extension("d")) else {
        return Vec::new();
    };
    // `TARGET: SOURCE SOURCE …`, a space inside a path escaped as `\ `.
    let rule = info.lines().next().unwrap_or_default();
    let list = rule.split_once(": ").map_or("", |(_, l)| l);
    let mut sources = Vec::new();
    let mut part = String::new();
    for token in list.split(' ') {
        if let Some(t) = token.strip_suffix('\\') {
            part.push_str(t);
            part.push(' ');
            continue;
        }
        part.push_str(token);
        if !part.is_empty() {
            sources.push(PathBuf::from(std::mem::take(&mut part)));
        }
    }
    sources
        .into_iter()
        .filter(|s| {
            std::fs::metadata(s)
                .and_then(|m| m.modified())
                .map_or(true, |t| t > built)
        })
        .collect()
}
