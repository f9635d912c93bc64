//! A new method is one file and one registry line: this file defines a GRACE-style
//! graph-level variant (both views augmented, symmetric loss) with a hyper-parameter of its
//! own (`two_views.strength`, which scales every augmentation ratio), its own preset and
//! cost hint, registers it (the one line), and runs it by name like a built-in: from a
//! run spec with an override of its own setting, and from a sweep that grids over it. Its
//! declaration (display name, floor, feature rule) is all the reports need: its rows are
//! shown under its display name and compared with its untrained encoder and the graph
//! floors, with no line about it anywhere else.
use magcl_config::MethodDecl;
use magcl_report::results::ResultRow;
use magcl_torch::augment::{self, augment_views, AugParams, Augmentor};
use magcl_torch::experiment::sweep::Sweep;
use magcl_torch::experiment::{run, RunConfig, RunOptions, RunSpec};
use magcl_torch::graph::Batch;
use magcl_torch::loss::InfoNce;
use magcl_torch::methods::registry::{self, MethodEntry};
use magcl_torch::methods::{CheckedParts, MethodParams, Preset};
use magcl_torch::params::{section, Checked, ParamGuard, Section, SettingError, Task};
use magcl_torch::train::encoder::Tower;
use magcl_torch::train::graph::{GraphData, GraphMethod, GraphRunner};
use magcl_torch::train::optim::Adam;
use magcl_torch::Result;
use serde::{Deserialize, Serialize};
use tch::Device;

/// The method's own settings: the `two_views` section of a config.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct TwoViewsParams {
    /// Multiplies every augmentation ratio of the `augment` section.
    strength: f64,
}

impl Section for TwoViewsParams {
    const KEY: &'static str = "two_views";
}

impl ParamGuard for TwoViewsParams {
    fn check_ref(&self) -> std::result::Result<(), SettingError> {
        if !(self.strength > 0.0 && self.strength <= 5.0) {
            return Err(SettingError::new(
                "two_views.strength",
                format!("must lie in (0, 5], got {}", self.strength),
            ));
        }
        Ok(())
    }
}

/// Two independently augmented views of every graph.
struct TwoViews {
    model: Tower,
    opt: Adam,
    loss: InfoNce,
    policy: Box<dyn Augmentor>,
    seed: u64,
}

impl TwoViews {
    fn new(p: &Checked<MethodParams>, dim: usize, device: Device) -> Result<Self> {
        let model = Tower::new(&p.gin(), &p.ma(), dim, device);
        let mut loss = p.loss.clone();
        loss.symmetric = true;
        let strength = p.sections.require::<TwoViewsParams>("two-views")?.strength;
        let mut aug = p.sections.require::<AugParams>("two-views")?.into_inner();
        for ratio in [
            &mut aug.node_drop,
            &mut aug.edge_drop,
            &mut aug.mask,
            &mut aug.subgraph,
        ] {
            *ratio = (*ratio * strength).min(1.0);
        }
        let aug = aug.check()?;
        Ok(TwoViews {
            opt: Adam::new(&model.vs, p.train.lr, p.train.weight_decay)?,
            model,
            loss: InfoNce::new(loss.check()?, 0),
            policy: augment::from_params(&aug),
            seed: p.train.seed,
        })
    }
}

impl GraphMethod for TwoViews {
    fn step(&mut self, data: &GraphData, ids: &[usize], epoch: usize, _step: u64) -> Result<f64> {
        let device = self.model.vs.device();
        let plain = self.model.encoder.plain_schedule();
        let mut z = Vec::new();
        for view in 0..2u64 {
            // each view from its own random stream
            let seed = self.seed.wrapping_mul(2).wrapping_add(view);
            let graphs = augment_views(&data.views, ids, self.policy.as_ref(), seed, epoch);
            let b = Batch::collate(&graphs, data.dim).to_tensors(device);
            z.push(self.model.project(&b, &plain, true));
        }
        let loss = self.loss.loss(&z[0], &z[1]);
        self.opt.zero_grad();
        loss.backward();
        self.opt.step();
        Ok(loss.double_value(&[]))
    }
    fn embed(&self, data: &GraphData) -> Result<(Vec<f32>, usize)> {
        self.model.embed(data)
    }
}

/// Everything about the method that is not tensor code: how reports show it, its level,
/// that it is a method (so its floors are its untrained encoder and WL / the degree
/// histogram), and the node features it is fed (the one-hot degree).
static TWO_VIEWS_DECL: MethodDecl = MethodDecl::new("two-views", "Two views", &[Task::Graph])
    .features("degree:4", "degree:4")
    .colour((0, 0, 0));

static TWO_VIEWS: MethodEntry = MethodEntry::new(
    &TWO_VIEWS_DECL,
    "a GRACE-style graph-level variant: two augmented views, symmetric loss",
    // Its preset: GraphCL's, 10 epochs, its own features and section at strength 1.
    |req| {
        let mut p: Preset = req.of(registry::find("graphcl")?)?;
        p.epochs = 10;
        p.features = TWO_VIEWS.features();
        p.sections.set(&TwoViewsParams { strength: 1.0 })?;
        Ok(p)
    },
    |p, data, device, progress| {
        GraphRunner::boxed(&TWO_VIEWS, p, data, progress, |g| {
            TwoViews::new(p, g.dim, device)
        })
    },
)
.sections(&[section::<AugParams>(), section::<TwoViewsParams>()])
// Two augmented views per step: twice GraphCL's per-element cost.
.cost(|p, size| 5.0e-6 * p.epochs.max(1) as f64 * (size.nodes + size.edges));

#[test]
fn a_registered_method_runs_by_name_like_a_built_in() {
    registry::register(&TWO_VIEWS).unwrap(); // the registry line
                                             // A name taken twice is refused.
    assert!(registry::register(&TWO_VIEWS).is_err());

    // Its preset, with its own setting overridden like any other.
    let spec = |overrides: serde_json::Value| RunSpec {
        method: Some(magcl_torch::experiment::MethodName::parse("two-views").unwrap()),
        dataset: "synthetic".into(),
        seed: 0,
        preset: None,
        overrides: serde_json::from_value(overrides).unwrap(),
    };
    let cfg =
        RunConfig::resolve(&spec(serde_json::json!({"two_views": {"strength": 0.5}}))).unwrap();
    assert_eq!(cfg.method.as_str(), "two-views");
    assert_eq!(cfg.task, Task::Graph);
    assert_eq!(cfg.epochs, 10, "its own preset");
    assert_eq!(cfg.features.as_str(), "degree:4", "its declared features");
    let own = cfg.sections.get::<TwoViewsParams>().unwrap().unwrap();
    assert_eq!(own.strength, 0.5);
    // The config names the method, holds its section and reads back as the same config.
    let json = serde_json::to_string(&cfg).unwrap();
    assert!(json.contains("\"method\":\"two-views\""), "{json}");
    assert!(json.contains("\"two_views\":{\"strength\":0.5}"), "{json}");
    assert_eq!(serde_json::from_str::<RunConfig>(&json).unwrap(), cfg);
    // Its checks run where the config is resolved, naming the field.
    let e = RunConfig::resolve(&spec(serde_json::json!({"two_views": {"strength": 9.0}})))
        .unwrap_err()
        .to_string();
    assert!(e.contains("two_views.strength"), "{e}");
    // Its section belongs to it: another method's config refuses it.
    let mut other = spec(serde_json::json!({"two_views": {"strength": 1.0}}));
    other.method = Some(magcl_torch::experiment::MethodName::parse("graphcl").unwrap());
    let e = RunConfig::resolve(&other).unwrap_err().to_string();
    assert!(e.contains("two_views"), "{e}");

    // A sweep grids over its setting; the cost hint is its own.
    let sweep = Sweep::parse(
        r#"
name = "toy"
datasets = ["synthetic"]
methods = ["two-views"]
seeds = 1
ma = ["none"]
[overrides]
epochs = 5
[[sweep]]
[sweep.grid]
two_views.strength = [0.5, 2.0]
"#,
        std::path::Path::new("toy.toml"),
    )
    .unwrap();
    assert_eq!(sweep.cells.len(), 2);
    let strengths: Vec<f64> = sweep
        .cells
        .iter()
        .map(|c| {
            c.config
                .sections
                .get::<TwoViewsParams>()
                .unwrap()
                .unwrap()
                .strength
        })
        .collect();
    assert_eq!(strengths, [0.5, 2.0]);

    let opts = RunOptions {
        device: magcl_torch::experiment::device::DeviceSpec::Cpu,
        ..Default::default()
    };
    let out = run(&sweep.cells[0].config, &opts).unwrap();
    assert_eq!(out.epoch_losses.len(), 5);
    assert!(out.epoch_losses.iter().all(|l| l.is_finite()));
    // The synthetic set's two classes are separable: a trained encoder is far above chance.
    assert!(out.accuracy > 75.0, "accuracy {}", out.accuracy);

    // The reports know it through its declaration alone.
    assert_eq!(magcl_report::format::method_name("two-views"), "Two views");
    assert_eq!(
        magcl_report::format::method_name("untrained-two-views"),
        "Two views, untrained"
    );
    assert!(!magcl_report::floor::is_baseline("two-views"));
    assert_eq!(
        magcl_report::floor::untrained_of("two-views").as_deref(),
        Some("untrained-two-views")
    );
    let row = |method: &str, seed: u64, accuracy: f64| ResultRow {
        dataset: "synthetic".into(),
        method: method.into(),
        ma: "none".into(),
        variant: String::new(),
        seed,
        evaluator: "svc-rbf".into(),
        config_hash: format!("{method}{seed}"),
        accuracy,
        accuracy_std_folds: None,
        nmi: None,
        selected_epoch: None,
        epochs: 5,
        train_seconds: 1.0,
        eval_seconds: 1.0,
        peak_memory_mb: 1.0,
        device: "cpu".into(),
        threads: 1,
        git_commit: "0".into(),
        magcl_version: "0".into(),
        config: "{}".into(),
        warnings: String::new(),
        data_source: String::new(),
    };
    let mut rows = Vec::new();
    for seed in 0..5 {
        rows.push(row("two-views", seed, 90.0 + seed as f64));
        rows.push(row("untrained-two-views", seed, 80.0 + seed as f64 * 0.5));
        rows.push(row("wl", seed, 85.0));
    }
    let report = magcl_report::Report::build(rows, magcl_report::Metric::Accuracy).unwrap();
    let md = magcl_report::render::markdown(&report);
    assert!(md.contains("Two views"), "{md}");
    // Against its untrained encoder (paired) and WL (the declared graph floor).
    let floors: Vec<(&str, &str)> = report
        .floor
        .iter()
        .filter(|l| l.key.method == "two-views")
        .map(|l| (l.kind.as_str(), l.floor_method.as_str()))
        .collect();
    assert_eq!(
        floors,
        [("untrained", "untrained-two-views"), ("classical", "wl")]
    );
}
