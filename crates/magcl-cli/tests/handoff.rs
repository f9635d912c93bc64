//! `magcl` hands the tensor commands to `magcl-torch` with their arguments untouched and
//! runs the others itself. `$MAGCL_TORCH_BINARY` points at a script standing in for
//! `magcl-torch`, which writes the arguments it got to a file.
#![cfg(unix)]
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_magcl");

/// A stand-in for `magcl-torch` in `dir`: writes its arguments, one a line, to
/// `dir/args` and exits with status 7.
fn stub(dir: &Path) -> PathBuf {
    let path = dir.join("magcl-torch");
    let script = format!(
        "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'\nexit 7\n",
        dir.join("args").display()
    );
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn magcl(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env("MAGCL_TORCH_BINARY", stub(dir))
        .env("MAGCL_DATA_DIR", dir)
        .output()
        .unwrap()
}

/// The arguments the stand-in got, or None when it did not run.
fn handed(dir: &Path) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(dir.join("args")).ok()?;
    Some(text.lines().map(str::to_owned).collect())
}

#[test]
fn tensor_commands_go_to_magcl_torch_with_their_arguments() {
    for args in [
        &["train", "--method", "graphcl", "--help", "--no-such-flag"][..],
        &["bench", "sweep.toml", "--dry-run"],
        &["bench-speed", "graphcl:MUTAG", "-V"],
        &["help", "train"],
        &["report", "rows.csv", "--sweep", "sweep.toml"],
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = magcl(dir.path(), args);
        assert_eq!(out.status.code(), Some(7), "{args:?}: {out:?}");
        assert_eq!(handed(dir.path()).unwrap(), args, "{out:?}");
    }
}

#[test]
fn the_other_commands_run_in_magcl() {
    for args in [
        &["datasets", "list"][..],
        &["eval", "--help"],
        &["report", "--help"],
        &["help", "report"],
        &["--help"],
        &["--version"],
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = magcl(dir.path(), args);
        assert!(out.status.success(), "{args:?}: {out:?}");
        assert_eq!(handed(dir.path()), None, "{args:?} went to magcl-torch");
    }
}

/// `magcl --help` lists the table's commands with their lines, in its order.
#[test]
fn help_lists_the_command_table() {
    let dir = tempfile::tempdir().unwrap();
    let out = magcl(dir.path(), &["--help"]);
    let text = String::from_utf8(out.stdout).unwrap();
    let listed: Vec<(String, String)> = text
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| {
            let (name, about) = l.trim().split_once(' ').unwrap();
            (name.to_owned(), about.trim().to_owned())
        })
        .collect();
    let mut table: Vec<(String, String)> = magcl_cli::commands::COMMANDS
        .iter()
        .map(|c| (c.name.to_owned(), c.about.to_owned()))
        .collect();
    table.push((
        "help".into(),
        "Print this message or the help of the given subcommand(s)".into(),
    ));
    assert_eq!(listed, table, "{text}");
}
