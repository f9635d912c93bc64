//! The `untrained` baseline: a method's encoder at its seeded random initialisation,
//! evaluated with that method's protocol, with no gradient step. It is the floor a
//! method's training has to clear: on TU datasets a random GIN already gives features an
//! SVM can use (Kipf & Welling 2017, §5; Veličković et al. 2019, Table 2, "Random-Init").
//!
//! The encoder is built by the method's own constructor from the same seed, so its
//! weights are exactly those the trained method starts from. Batch-norm layers
//! (GraphCL, SimGRACE, AD-GCL) need running estimates for evaluation; `batch_norm`
//! says where they come from:
//! - `dataset` (default): one forward pass in training mode over all graphs as one
//!   batch, unaugmented, no gradient; the estimates become each channel's mean and
//!   unbiased variance over every node of the dataset
//!   ([`crate::train::encoder::calibrate_batch_norm`]);
//! - `init`: left as initialised (mean 0, variance 1), i.e. batch norm is the identity.
//!
//! With MA the encoder is evaluated with MA's evaluation schedule (`ma.eval_k`), so an MA
//! reading that changes the evaluation encoder has its own untrained floor. The
//! node-level base model has no batch norm: `batch_norm` changes nothing there.
use serde::{Deserialize, Serialize};

use super::registry;
use super::{Embed, Embeddings, Method, MethodEntry, Preset, PresetRequest, Selection};
use crate::error::Result;
use crate::params::{bad, section, ParamGuard, Section, SettingError, Task};
use crate::train::TrainLog;

/// The `untrained` settings (a config's `untrained` section).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct UntrainedParams {
    /// The method whose encoder, preset and evaluation protocol are used.
    pub of: String,
    /// Where the batch-norm running estimates come from.
    pub batch_norm: BatchNormSource,
}

crate::params::word_setting! {
    /// Where an untrained encoder's batch-norm running estimates come from
    /// (`untrained.batch_norm`).
    pub enum BatchNormSource in "untrained.batch_norm" {
        /// One pass over the dataset in training mode, no gradient step.
        Dataset = "dataset",
        /// The initial estimates (mean 0, variance 1).
        Init = "init",
    }
}

impl UntrainedParams {
    /// The encoder of `of` with the default batch-norm source.
    pub fn of(method: &str) -> UntrainedParams {
        UntrainedParams {
            of: method.into(),
            batch_norm: BatchNormSource::Dataset,
        }
    }
}

impl Section for UntrainedParams {
    const KEY: &'static str = "untrained";
}

impl ParamGuard for UntrainedParams {
    fn check_ref(&self) -> Result<(), SettingError> {
        let entry = registry::find(&self.of).map_err(|e| SettingError::new("untrained.of", e))?;
        if entry.baseline {
            return Err(SettingError::new(
                "untrained.of",
                format!(
                    "'{}' is a baseline, not a method with an encoder to leave untrained",
                    entry.name
                ),
            ));
        }
        Ok(())
    }
}

/// The registry's entry.
pub static ENTRY: MethodEntry = MethodEntry::new(
    &magcl_config::methods::untrained::DECL,
    "a method's encoder at its seeded initialisation, no training (the floor; \
     untrained.of names the method, graphcl or base by default)",
    preset,
    |p, data, device, progress| {
        let u = p.sections.require::<UntrainedParams>("untrained")?;
        let inner = (registry::find(&u.of)?.build)(p, data, device, progress)?;
        Ok(Box::new(Untrained {
            inner,
            calibrate: u.batch_norm == BatchNormSource::Dataset,
        }))
    },
)
.sections(&[section::<UntrainedParams>()])
// The encoder's method: its sections belong in the configuration too.
.wraps(|table| match table.get::<UntrainedParams>()? {
    Some(u) => Ok(Some(
        registry::find(&u.of).map_err(|e| bad("untrained.of", e))?,
    )),
    None => Ok(None),
})
.check(|p| {
    let u = p.sections.require::<UntrainedParams>("untrained")?;
    if !registry::find(&u.of)?.supports(p.task) {
        return Err(bad(
            "untrained.of",
            format!("{} is not a {:?}-level method", u.of, p.task),
        ));
    }
    Ok(())
})
// Rows name the floor of method M `untrained-M`, which the report pairs with M.
.label(|entry, p| match p.sections.get::<UntrainedParams>() {
    Ok(Some(u)) => format!("{}-{}", entry.name, u.of),
    _ => entry.name.into(),
});

/// The encoder's method's preset (`untrained.of`, else GraphCL at graph level and the
/// base model at node level) with no epoch.
fn preset(req: &PresetRequest) -> Result<Preset> {
    let of = match req.override_str("untrained", "of")? {
        Some(name) => name,
        None if req.task == Some(Task::Node) => "base",
        None => "graphcl",
    };
    let entry = registry::find(of).map_err(|e| bad("untrained.of", e))?;
    if entry.baseline {
        return Err(bad(
            "untrained.of",
            format!(
                "'{}' is a baseline, not a method with an encoder",
                entry.name
            ),
        ));
    }
    if let Some(t) = req.task.filter(|&t| !entry.supports(t)) {
        return Err(bad(
            "untrained.of",
            format!(
                "{} is not a {t:?}-level method, and {} is a {t:?}-level dataset",
                entry.name, req.dataset
            ),
        ));
    }
    let mut p = req.of(entry)?;
    p.epochs = 0;
    p.sections.set(&UntrainedParams::of(entry.name))?;
    Ok(p)
}

/// A built method that is never trained.
struct Untrained<'a> {
    inner: Box<dyn Method + 'a>,
    calibrate: bool,
}

impl Embed for Untrained<'_> {
    fn embed(&self) -> Result<Embeddings> {
        self.inner.embed()
    }
}

impl Method for Untrained<'_> {
    /// No epoch runs (a config's `epochs` is 0): only the batch-norm estimates are set.
    fn train_from(
        &mut self,
        _epochs: usize,
        _after_epoch: &mut dyn FnMut(usize, &dyn Embed) -> Result<()>,
        _resume: crate::train::state::Resume<'_>,
    ) -> Result<TrainLog> {
        if self.calibrate {
            self.inner.calibrate_batch_norm()?;
        }
        Ok(TrainLog::default())
    }
    /// The method's own, so that its evaluation protocol applies (AD-GCL's validation
    /// protocol; with nothing to choose between, the one encoder is scored).
    fn selection(&self) -> Selection {
        self.inner.selection()
    }
    fn calibrate_batch_norm(&mut self) -> Result<()> {
        self.inner.calibrate_batch_norm()
    }
}

/// Tests that start from the method's preset (`TestConfig`).
#[cfg(test)]
mod tests {
    use crate::methods::graphcl::GraphCl;
    use crate::methods::tests::TestConfig;
    use crate::methods::TrainData;
    use crate::train::graph::tests::toy_data;
    use crate::train::graph::GraphMethod;
    use tch::{Device, Tensor};

    fn config(overrides: serde_json::Value) -> TestConfig {
        TestConfig::new("untrained", "toy", None, 5, overrides).unwrap()
    }

    /// Every variable of the GraphCL model (trainable or not), by name.
    fn snapshot(m: &GraphCl) -> Vec<(String, Tensor)> {
        let mut v: Vec<(String, Tensor)> = m
            .model
            .vs
            .variables()
            .into_iter()
            .map(|(k, t)| (k, t.copy()))
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }

    #[test]
    fn calibration_moves_only_the_running_estimates_to_the_data_statistics() {
        let _g = crate::rng::torch_lock();
        tch::set_num_threads(1);
        let cfg = config(serde_json::json!({}));
        let data = toy_data(30);
        tch::manual_seed(5);
        let mut m = GraphCl::new(&cfg.method_params().unwrap(), 1, Device::Cpu).unwrap();
        let before = snapshot(&m);
        m.calibrate_batch_norm(&data).unwrap();
        let after = snapshot(&m);
        for ((name, a), (_, b)) in before.iter().zip(&after) {
            let same = a.equal(b);
            if name.contains("running_") {
                assert!(!same, "{name} should hold the data's statistics now");
            } else {
                assert!(
                    same,
                    "{name} changed: a gradient step or an update happened"
                );
            }
        }
        // The first batch norm's estimates are the mean and unbiased variance of its
        // input (the first GIN layer's MLP output after ReLU) over every node.
        let enc = &m.model.encoder;
        let all = crate::graph::Batch::collate(&data.views, data.dim).to_tensors(Device::Cpu);
        let p = crate::nn::ops::gin_propagate(&all, &all.x, 1, enc.mode, enc.eps, enc.pi);
        let h = tch::nn::Module::forward(&enc.convs[0], &p).relu();
        let mean = h.mean_dim(0, false, tch::Kind::Float);
        let var = h.var_dim(0, true, false);
        let bn = &enc.bns[0];
        assert!(bn.running_mean.allclose(&mean, 1e-4, 1e-5, false));
        assert!(bn.running_var.allclose(&var, 1e-4, 1e-5, false));
    }

    #[test]
    fn the_untrained_run_is_the_methods_initial_encoder_and_deterministic() {
        let _g = crate::rng::torch_lock();
        tch::set_num_threads(1);
        let data = toy_data(30);
        let embed_untrained = |cfg: &TestConfig| {
            tch::manual_seed(cfg.seed as i64);
            let entry = cfg.entry;
            let mut m = (entry.build)(
                &cfg.method_params().unwrap(),
                TrainData::Graphs(&data),
                Device::Cpu,
                false,
            )
            .unwrap();
            let mut calls = 0;
            let log = m
                .train(cfg.preset.epochs, &mut |_, _| {
                    calls += 1;
                    Ok(())
                })
                .unwrap();
            assert!(log.epoch_losses.is_empty() && calls == 0, "no epoch runs");
            m.embed().unwrap().x
        };
        let cfg = config(serde_json::json!({}));
        let a = embed_untrained(&cfg);
        assert_eq!(a, embed_untrained(&cfg), "deterministic per seed");
        // the same as GraphCL's own encoder at the same seed, calibrated
        tch::manual_seed(cfg.seed as i64);
        let mut m = GraphCl::new(&cfg.method_params().unwrap(), 1, Device::Cpu).unwrap();
        m.calibrate_batch_norm(&data).unwrap();
        assert_eq!(a, m.embed(&data).unwrap().0);
        // `init` leaves the estimates alone: another embedding
        let init = config(serde_json::json!({"untrained": {"batch_norm": "init"}}));
        assert_ne!(a, embed_untrained(&init));
        // another seed: other weights
        let mut other = cfg.clone();
        other.seed = 6;
        assert_ne!(a, embed_untrained(&other));
    }
}
