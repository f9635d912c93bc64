//! The `magcl-torch` binary (which serves `magcl`'s tensor commands) starts libtorch's
//! OpenMP (libgomp) with threads that poll only briefly before they sleep when they wait
//! (`GOMP_SPINCOUNT=10000`, libgomp's default being 300 000) unless the user chose a wait
//! policy, so that a busy machine does not turn a run of seconds into
//! minutes (`runtime::OPENMP_SPIN_COUNT`). libgomp prints the settings it
//! started with under `OMP_DISPLAY_ENV=VERBOSE`.
#![cfg(all(target_os = "linux", target_env = "gnu"))]
mod light_magcl;

use std::process::Command;

const TORCH_BIN: &str = env!("CARGO_BIN_EXE_magcl-torch");

/// libgomp's `GOMP_SPINCOUNT = '...'` and `OMP_WAIT_POLICY = '...'` lines for `magcl-torch
/// --version` started with `env` (the two variables removed first).
fn libgomp_settings(env: &[(&str, &str)]) -> (String, String) {
    libgomp_settings_of(TORCH_BIN, &["--version"], "magcl ", env)
}

/// As [`libgomp_settings`] for `bin args`, whose stdout starts with `stdout_start`.
fn libgomp_settings_of(
    bin: &str,
    args: &[&str],
    stdout_start: &str,
    env: &[(&str, &str)],
) -> (String, String) {
    let mut cmd = Command::new(bin);
    cmd.args(args)
        .env_remove("GOMP_SPINCOUNT")
        .env_remove("OMP_WAIT_POLICY")
        .env("OMP_DISPLAY_ENV", "VERBOSE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run magcl --version");
    assert!(out.status.success(), "{out:?}");
    let text =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("OPENMP DISPLAY ENVIRONMENT BEGIN"),
        "libgomp printed no settings (is libtorch built with another OpenMP?):\n{text}"
    );
    let line = |name: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} =")))
            .unwrap_or_else(|| panic!("no {name} line in:\n{text}"))
            .trim()
            .to_string()
    };
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with(stdout_start),
        "the restarted process kept its arguments: {out:?}"
    );
    (line("GOMP_SPINCOUNT"), line("OMP_WAIT_POLICY"))
}

#[test]
fn libgomp_starts_with_a_short_spin() {
    let (spin, _) = libgomp_settings(&[]);
    assert_eq!(spin, "GOMP_SPINCOUNT = '10000'");
}

#[test]
fn a_users_spin_count_or_wait_policy_is_kept() {
    let (spin, _) = libgomp_settings(&[("GOMP_SPINCOUNT", "12345")]);
    assert_eq!(spin, "GOMP_SPINCOUNT = '12345'");
    let (spin, policy) = libgomp_settings(&[("OMP_WAIT_POLICY", "ACTIVE")]);
    assert_eq!(policy, "OMP_WAIT_POLICY = 'ACTIVE'");
    assert!(
        !spin.ends_with("'10000'") && !spin.ends_with("'0'"),
        "{spin}"
    );
}

/// `magcl` hands a tensor command to `magcl-torch`, which restarts itself with the
/// settings as when started directly.
#[test]
fn a_tensor_command_through_magcl_gets_the_settings() {
    let (spin, _) = libgomp_settings_of(
        light_magcl::path(),
        &["train", "--version"],
        "magcl-train ",
        &[],
    );
    assert_eq!(spin, "GOMP_SPINCOUNT = '10000'");
}

/// The restarted process keeps its name (`magcl-torch`, not the kernel's `exe` for a start
/// through `/proc/self/exe`), so that `ps`, `top` and `pkill -x magcl-torch` find it. The
/// process: a training run long enough to look at, killed once looked at.
#[test]
fn the_restarted_process_keeps_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(TORCH_BIN)
        .args(["train", "--method", "graphcl", "--dataset", "synthetic"])
        .args(["--epochs", "100000", "--no-eval", "--threads", "1"])
        .current_dir(dir.path())
        .env_remove("GOMP_SPINCOUNT")
        .env_remove("OMP_WAIT_POLICY")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start magcl-torch");
    let proc_dir = format!("/proc/{}", child.id());
    let read = |what: &str| std::fs::read(format!("{proc_dir}/{what}")).unwrap_or_default();
    // The restart has happened once the environment holds the setting it adds; the loader
    // then loads the libraries and names the process before any library initialiser runs.
    // Until then it is `exe`; it must not stay so.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let mut restarted = false;
    let mut name = String::new();
    while std::time::Instant::now() < deadline && child.try_wait().unwrap().is_none() {
        restarted = restarted
            || read("environ")
                .split(|&b| b == 0)
                .any(|e| e.starts_with(b"GOMP_SPINCOUNT="));
        name = String::from_utf8_lossy(&read("comm"))
            .trim_end()
            .to_string();
        if restarted && name == "magcl-torch" {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let ended = child.try_wait().unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(ended.is_none(), "magcl-torch ended early: {ended:?}");
    assert!(
        restarted,
        "magcl-torch did not restart with GOMP_SPINCOUNT set"
    );
    assert_eq!(name, "magcl-torch");
}
