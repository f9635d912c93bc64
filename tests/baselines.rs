//! The floor: the baselines run by name through the same runner as the methods, on the
//! embedded synthetic sets (offline), and refuse what does not apply to them.
use magcl_torch::experiment::{run, MethodName, RunConfig, RunOptions, RunSpec, Task};

fn resolve(
    method: &str,
    dataset: &str,
    overrides: serde_json::Value,
) -> magcl_torch::Result<RunConfig> {
    RunConfig::resolve(&RunSpec {
        method: Some(MethodName::parse(method)?),
        dataset: dataset.into(),
        seed: 1,
        preset: None,
        overrides: serde_json::from_value(overrides).unwrap(),
    })
}

/// `run` seeds libtorch's process-wide generator and draws the initial weights from it
/// (the crate's own tests hold `rng::torch_lock` for that reason), and it sets libtorch's
/// process-wide thread count for parts of a run (`crates/magcl-torch/src/eval_node.rs`).
/// The harness runs this file's tests side by side in one process, so one test's draws
/// could land between another's, whose two runs would then differ (seen once, under load:
/// `untrained-graphcl`'s fold accuracies). The tests that run take turns.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn cpu() -> RunOptions {
    RunOptions {
        device: magcl_torch::experiment::device::DeviceSpec::Cpu,
        ..Default::default()
    }
}

#[test]
fn graph_floors_run_by_name_far_above_chance_on_the_synthetic_set() {
    let _turn = one_at_a_time();
    // BA-2Motifs-style graphs: a house or a 5-cycle on a random base. WL counts see the
    // motif's subtrees; an untrained GIN's sum pool does too.
    for (method, overrides, label) in [
        ("wl", serde_json::json!({}), "wl"),
        ("untrained", serde_json::json!({}), "untrained-graphcl"),
        (
            "untrained",
            serde_json::json!({"untrained": {"of": "simgrace"}}),
            "untrained-simgrace",
        ),
    ] {
        let cfg = resolve(method, "synthetic", overrides).unwrap();
        assert_eq!(cfg.epochs, 0);
        assert_eq!(cfg.method_label(), label);
        let a = run(&cfg, &cpu()).unwrap();
        let b = run(&cfg, &cpu()).unwrap();
        assert!(a.epoch_losses.is_empty(), "{label}: no epoch runs");
        assert_eq!(
            a.fold_accuracies, b.fold_accuracies,
            "{label}: deterministic"
        );
        assert!(
            a.accuracy > 70.0,
            "{label}: {} on a two-class set",
            a.accuracy
        );
    }
    // degree histograms: a house adds degree-3 nodes a 5-cycle does not
    let cfg = resolve("degree", "synthetic", serde_json::json!({})).unwrap();
    let a = run(&cfg, &cpu()).unwrap();
    assert!(a.accuracy > 60.0, "degree: {}", a.accuracy);
}

#[test]
fn node_floors_run_by_name_on_the_planted_partition() {
    let _turn = one_at_a_time();
    let data = "synthetic-node:300:1200:40:3";
    for (method, label) in [("untrained", "untrained-base"), ("features", "features")] {
        let cfg = resolve(method, data, serde_json::json!({})).unwrap();
        assert_eq!(cfg.task, Task::Node);
        assert_eq!(cfg.method_label(), label);
        let out = run(&cfg, &cpu()).unwrap();
        assert!(out.epoch_losses.is_empty());
        assert!(
            out.accuracy > 100.0 / 3.0 + 10.0,
            "{label}: {}",
            out.accuracy
        );
    }
}

#[test]
fn baselines_refuse_what_does_not_apply() {
    let err = |method: &str, o: serde_json::Value| {
        resolve(method, "synthetic", o).unwrap_err().to_string()
    };
    let e = err("wl", serde_json::json!({"epochs": 5}));
    assert!(
        e.contains("epochs") && e.contains("no gradient step"),
        "{e}"
    );
    let e = err("wl", serde_json::json!({"ma": {"enabled": true}}));
    assert!(e.contains("no encoder"), "{e}");
    let e = err(
        "untrained",
        serde_json::json!({"untrained": {"of": "degree"}}),
    );
    assert!(e.contains("untrained.of"), "{e}");
    let e = err(
        "untrained",
        serde_json::json!({"untrained": {"of": "base"}}),
    );
    assert!(e.contains("untrained.of") && e.contains("Graph"), "{e}");
    let e = err("graphcl", serde_json::json!({"epochs": 0}));
    assert!(e.contains("untrained"), "{e}");
    // the count features go to the RBF SVM only
    let cfg = resolve(
        "wl",
        "synthetic",
        serde_json::json!({"evaluator": "linear-svc"}),
    )
    .unwrap();
    let e = run(&cfg, &cpu()).unwrap_err().to_string();
    assert!(e.contains("wl") && e.contains("svc-rbf"), "{e}");
}
