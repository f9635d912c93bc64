//! A method is its files: no method name appears as a string literal in non-test code
//! outside the method's own files (the tensor library's `crates/magcl-torch/src/methods/`), its declaration and
//! the registry (this crate's `src/`). Reports, plots, feature rules and the CLI read the
//! declarations instead; a new method then needs no line anywhere else.
//!
//! The check reads every `.rs` file under `src/` and `crates/*/src/` but test modules
//! (a file declared `#[cfg(test)] mod x;`, and a file's trailing `#[cfg(test)] mod tests
//! { … }`), skipping comment lines, and looks for a quoted literal that is a declared name
//! or row label, `untrained-` + one, or one followed by `:` and a preset (`base:paper`).
//! Aliases are left out: they are ordinary words (`node`, `magcl`) used for other things.
use std::path::{Path, PathBuf};

/// Literals that spell a method's name but mean something else, with the reason. Every
/// entry must still occur (a stale entry fails the test).
const NOT_METHODS: &[(&str, &str, &str)] = &[
    (
        "src/train.rs",
        "features",
        "the config field `features` that --features sets",
    ),
    (
        "crates/magcl-torch/src/experiment/config.rs",
        "features",
        "the config field `features` that a level's check names",
    ),
    (
        "crates/magcl-data/src/registry.rs",
        "features",
        "a node set's published feature count",
    ),
    (
        "crates/magcl-cli/src/datasets.rs",
        "features",
        "the feature count `datasets info` prints",
    ),
    (
        "crates/magcl-data/src/features.rs",
        "degree",
        "the feature spec `degree` (one-hot node degree)",
    ),
    (
        "crates/magcl-data/src/features.rs",
        "degree:",
        "the feature spec `degree:N`",
    ),
    (
        "crates/magcl-data/src/features.rs",
        "degree:{cap}",
        "the feature spec `degree:N` as written",
    ),
    (
        "crates/magcl-report/src/floor.rs",
        "untrained",
        "the floor kind `untrained` of a floor line",
    ),
];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The quoted literals of a line (escaped quotes kept inside).
fn literals(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let bytes = line.as_bytes();
    let mut start = None;
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], start) {
            (b'\\', Some(_)) => i += 1,
            (b'"', None) => start = Some(i + 1),
            (b'"', Some(s)) => {
                out.push(&line[s..i]);
                start = None;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

fn names_a_method(lit: &str, words: &[&str]) -> bool {
    let lit = lit.strip_prefix("untrained-").unwrap_or(lit);
    let lit = lit.split_once(':').map_or(lit, |(m, _)| m);
    words.contains(&lit)
}

#[test]
fn no_method_name_is_a_literal_outside_the_methods_and_their_declarations() {
    let root = repo();
    let mut words: Vec<&str> = Vec::new();
    for d in magcl_config::registry::all() {
        words.push(d.name);
        words.extend(d.labels.iter().map(|l| l.label));
    }
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    if let Ok(crates) = std::fs::read_dir(root.join("crates")) {
        for c in crates.flatten() {
            rust_files(&c.path().join("src"), &mut files);
        }
    }
    assert!(files.len() > 50, "found only {} source files", files.len());
    let exempt = [
        root.join("crates/magcl-torch/src/methods"),
        root.join("crates/magcl-config/src"),
    ];
    // Files declared as test modules (`#[cfg(test)] mod x;`).
    let mut test_files: Vec<PathBuf> = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("a readable source file");
        let dir = f.parent().expect("a file in a folder");
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        for w in lines.windows(2) {
            if let ("#[cfg(test)]", Some(m)) = (w[0], w[1].strip_prefix("mod ")) {
                if let Some(name) = m.strip_suffix(';') {
                    test_files.push(dir.join(format!("{name}.rs")));
                    test_files.push(dir.join(name).join("mod.rs"));
                }
            }
        }
    }
    let mut found = Vec::new();
    let mut allowed_seen = vec![false; NOT_METHODS.len()];
    for f in &files {
        if exempt.iter().any(|e| f.starts_with(e)) || test_files.contains(f) {
            continue;
        }
        let rel = f
            .strip_prefix(&root)
            .unwrap_or(f)
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(f).expect("a readable source file");
        let lines: Vec<&str> = text.lines().collect();
        for (n, line) in lines.iter().enumerate() {
            let next = lines.get(n + 1).map_or("", |l| l.trim());
            if line.trim() == "#[cfg(test)]" && next.contains("mod ") && next.ends_with('{') {
                break;
            }
            if line.trim_start().starts_with("//") {
                continue;
            }
            for lit in literals(line) {
                if !names_a_method(lit, &words) {
                    continue;
                }
                match NOT_METHODS
                    .iter()
                    .position(|(file, word, _)| *file == rel && *word == lit)
                {
                    Some(i) => allowed_seen[i] = true,
                    None => found.push(format!("{rel}:{}: \"{lit}\"", n + 1)),
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "method names as literals outside the methods' files; read the declaration \
         (magcl_config::registry) instead:\n{}",
        found.join("\n")
    );
    for ((file, word, why), seen) in NOT_METHODS.iter().zip(allowed_seen) {
        assert!(seen, "stale exemption: \"{word}\" in {file} ({why})");
    }
}

#[test]
fn the_literal_reader_finds_quoted_words() {
    assert_eq!(literals(r#"f("a", "b\"c") // "d""#), ["a", "b\\\"c", "d"]);
    let words = ["graphcl", "base"];
    assert!(names_a_method("untrained-graphcl", &words));
    assert!(names_a_method("base:paper", &words));
    assert!(!names_a_method("graphcl2", &words));
}

/// docs/methods.md indexes every declared method: a table row starting with its name.
#[test]
fn docs_methods_lists_every_declared_method() {
    let text = std::fs::read_to_string(repo().join("docs/methods.md")).expect("docs/methods.md");
    for d in magcl_config::registry::BUILTIN {
        assert!(
            text.lines()
                .any(|l| l.starts_with(&format!("| `{}` |", d.name))),
            "docs/methods.md has no table row for `{}`",
            d.name
        );
    }
}
