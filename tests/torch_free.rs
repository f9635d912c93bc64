//! `magcl datasets`, `magcl eval` and `magcl report` do not load libtorch: the `magcl`
//! binary links the tensor-free crates only, and hands the tensor commands to
//! `magcl-torch` (docs/development.md). Checked with the dynamic loader's own list of what
//! it loads (`LD_TRACE_LOADED_OBJECTS`, what `ldd` prints) and by running commands.
#![cfg(all(target_os = "linux", target_env = "gnu"))]
mod light_magcl;

use std::process::Command;

const TORCH_BIN: &str = env!("CARGO_BIN_EXE_magcl-torch");

/// The shared libraries the loader maps for `bin` (it lists them and exits).
fn loaded_libraries(bin: &str) -> String {
    let out = Command::new(bin)
        .env("LD_TRACE_LOADED_OBJECTS", "1")
        .output()
        .expect("run the loader's trace");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn magcl_loads_no_libtorch_and_magcl_torch_does() {
    let light = loaded_libraries(light_magcl::path());
    assert!(light.contains("libc.so"), "not the loader's list:\n{light}");
    for lib in ["libtorch", "libc10", "libgomp", "libstdc++"] {
        assert!(!light.contains(lib), "magcl loads {lib}:\n{light}");
    }
    let torch = loaded_libraries(TORCH_BIN);
    assert!(torch.contains("libtorch_cpu"), "{torch}");
}

/// The tensor-free commands run without libgomp ever starting (libtorch's OpenMP prints
/// its settings at load under OMP_DISPLAY_ENV), and without the torch binary at all.
#[test]
fn datasets_eval_and_report_run_without_the_torch_binary() {
    let dir = tempfile::tempdir().unwrap();
    let report = concat!(env!("CARGO_MANIFEST_DIR"), "/results/graph_ma/graph_ma.csv");
    for args in [
        vec!["datasets", "list"],
        vec!["report", report],
        vec!["eval", "--help"],
    ] {
        let out = Command::new(light_magcl::path())
            .args(&args)
            .env("OMP_DISPLAY_ENV", "VERBOSE")
            .env("MAGCL_TORCH_BINARY", dir.path().join("absent"))
            .env("MAGCL_DATA_DIR", dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "magcl {args:?}: {out:?}");
        let text = String::from_utf8_lossy(&out.stderr);
        assert!(!text.contains("OPENMP DISPLAY"), "magcl {args:?}: {text}");
    }
}

/// A tensor command without `magcl-torch` beside `magcl` fails with a message that says
/// what is missing.
#[test]
fn a_tensor_command_without_the_torch_binary_says_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let absent = dir.path().join("magcl-torch");
    let out = Command::new(light_magcl::path())
        .args(["train", "--dataset", "synthetic"])
        .env("MAGCL_TORCH_BINARY", &absent)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("magcl-torch") && err.contains("same folder"),
        "{err}"
    );
    assert!(err.contains(&absent.display().to_string()), "{err}");
}

/// `magcl --help` lists every command; `magcl-torch --help` lists its own (the tensor
/// commands and `report`, for `--sweep`) with the same lines; `magcl train --help` is
/// train's full help from `magcl-torch`, the table's description included.
#[test]
fn help_lists_every_command_and_tensor_help_comes_from_magcl_torch() {
    let bin = light_magcl::path();
    let help = |bin: &str, args: &[&str]| {
        let out = Command::new(bin).args(args).output().unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let commands = |text: &str| -> Vec<String> {
        text.lines()
            .skip_while(|l| !l.starts_with("Commands:"))
            .skip(1)
            .take_while(|l| l.starts_with("  "))
            .map(|l| l.trim().to_string())
            .collect()
    };
    let names = |lines: &[String]| -> Vec<String> {
        lines
            .iter()
            .map(|l| l.split_whitespace().next().unwrap().to_string())
            .collect()
    };
    let light = commands(&help(bin, &["--help"]));
    let torch = commands(&help(TORCH_BIN, &["--help"]));
    assert_eq!(
        names(&light),
        [
            "datasets",
            "train",
            "eval",
            "bench",
            "report",
            "bench-speed",
            "help"
        ]
    );
    assert_eq!(
        names(&torch),
        ["train", "bench", "report", "bench-speed", "help"]
    );
    for line in &torch {
        assert!(light.contains(line), "{line:?} is not in {light:?}");
    }
    let train = help(bin, &["train", "--help"]);
    assert!(
        train.contains("Usage: magcl train")
            && train.contains("--dataset")
            && train.contains("Graph level (TU datasets"),
        "{train}"
    );
    assert_eq!(train, help(TORCH_BIN, &["train", "--help"]));
    assert_eq!(train, help(bin, &["help", "train"]));
}

/// `magcl-torch` runs the tensor commands only: `datasets`, `eval` and `report` without
/// `--sweep` are refused with a usage error that names `magcl`.
#[test]
fn magcl_torch_sends_the_other_commands_to_magcl() {
    let csv = concat!(env!("CARGO_MANIFEST_DIR"), "/results/graph_ma/graph_ma.csv");
    for (args, name) in [
        (vec!["datasets", "list"], "datasets"),
        (vec!["eval", "--help"], "eval"),
        (vec!["report", csv], "report"),
    ] {
        let out = Command::new(TORCH_BIN).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("run `magcl {name} …`")),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty(), "{args:?}: {out:?}");
    }
}

/// The rule of the workspace: no crate under `crates/` but the tensor library itself
/// (`crates/magcl-torch`) depends on tch, torch-sys, the tensor library or the root
/// package (which link them), in any dependency section. (Their other dependencies are
/// registry crates that know nothing of libtorch, or each other.)
#[test]
fn no_crate_under_crates_depends_on_the_tensor_side() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crates");
    let mut checked = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let manifest = entry.path().join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        let doc: toml::Table = text.parse().unwrap();
        let name = doc["package"]["name"].as_str().unwrap().to_string();
        if name == "magcl-torch" {
            continue;
        }
        for section in ["dependencies", "dev-dependencies", "build-dependencies"] {
            let Some(deps) = doc.get(section).and_then(|d| d.as_table()) else {
                continue;
            };
            for dep in deps.keys() {
                assert!(
                    !["tch", "torch-sys", "magcl", "magcl-torch"].contains(&dep.as_str()),
                    "{name} ({}) has {dep} in [{section}]",
                    manifest.display()
                );
            }
        }
        checked.push(name);
    }
    checked.sort();
    assert_eq!(
        checked,
        [
            "magcl-cli",
            "magcl-config",
            "magcl-core",
            "magcl-data",
            "magcl-eval",
            "magcl-py",
            "magcl-report"
        ]
    );
}
