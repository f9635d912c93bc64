//! A new method is one file and one registry line: this file defines a GRACE-style
//! graph-level variant (both views augmented, symmetric loss) with the library's public
//! parts, registers it (the one line), and runs it end to end by name, like a built-in.
use magcl::augment::{self, augment_views, Augmentor};
use magcl::experiment::{run, RunConfig, RunOptions, RunSpec};
use magcl::graph::Batch;
use magcl::loss::InfoNce;
use magcl::methods::optim::Adam;
use magcl::methods::registry::{self, MethodEntry};
use magcl::methods::{GraphData, GraphMethod, GraphRunner, MethodParams, Tower};
use magcl::params::Checked;
use magcl::params::Task;
use magcl::Result;
use tch::Device;

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
        let model = Tower::new(&p.gin, &p.ma, dim, device);
        let mut loss = p.loss.clone();
        loss.symmetric = true;
        Ok(TwoViews {
            opt: Adam::new(&model.vs, p.train.lr, p.train.weight_decay)?,
            model,
            loss: InfoNce::new(loss, 0),
            policy: augment::from_params(&p.augment.clone().unwrap_or_default())?,
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

static TWO_VIEWS: MethodEntry = MethodEntry {
    name: "two-views",
    aliases: &[],
    tasks: &[Task::Graph],
    baseline: false,
    preset: "graphcl",
    about: "a GRACE-style graph-level variant: two augmented views, symmetric loss",
    build: |p, data, device, progress| {
        let g = data.graphs("two-views")?;
        Ok(Box::new(GraphRunner::new(
            TwoViews::new(p, g.dim, device)?,
            g,
            &p.train,
            progress,
        )))
    },
};

#[test]
fn a_registered_method_runs_by_name_like_a_built_in() {
    registry::register(&TWO_VIEWS).unwrap(); // the registry line
                                             // A name taken twice is refused.
    assert!(registry::register(&TWO_VIEWS).is_err());

    let mut overrides = serde_json::Map::new();
    overrides.insert("epochs".into(), serde_json::json!(5));
    let spec = RunSpec {
        method: Some(magcl::experiment::MethodName::parse("two-views").unwrap()),
        dataset: "synthetic".into(),
        seed: 0,
        preset: None,
        overrides,
    };
    let cfg = RunConfig::resolve(&spec).unwrap();
    assert_eq!(cfg.method.as_str(), "two-views");
    assert_eq!(cfg.task, Task::Graph);
    // The config names the method and reads back as the same config.
    let json = serde_json::to_string(&cfg).unwrap();
    assert!(json.contains("\"method\":\"two-views\""), "{json}");
    assert_eq!(serde_json::from_str::<RunConfig>(&json).unwrap(), cfg);

    let opts = RunOptions {
        device: "cpu".into(),
        ..Default::default()
    };
    let out = run(&cfg, &opts).unwrap();
    assert_eq!(out.epoch_losses.len(), 5);
    assert!(out.epoch_losses.iter().all(|l| l.is_finite()));
    // The synthetic set's two classes are separable: a trained encoder is far above chance.
    assert!(out.accuracy > 75.0, "accuracy {}", out.accuracy);
}
