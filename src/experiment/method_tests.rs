//! Unit tests of the methods that need configurations resolved from presets (the
//! experiment layer): they live here, above the methods, so that nothing under
//! `methods/` imports the experiment layer.

#[allow(unused_imports)]
mod graphcl {
    use crate::augment::{self, augment_views, Augmentor};
    use crate::error::Result;
    use crate::experiment::config::{MethodName, RunConfig, RunSpec};
    use crate::graph::Batch;
    use crate::loss::InfoNce;
    use crate::ma::{self, ScheduleSampler};
    use crate::methods::graphcl::*;
    use crate::methods::optim::Adam;
    use crate::methods::registry::MethodEntry;
    use crate::methods::{tests::toy_data, train_graph_method, LoopConfig};
    use crate::methods::{GraphData, GraphMethod, Tower};
    use crate::methods::{GraphRunner, MethodParams};
    use crate::params::Checked;
    use crate::params::Task;
    use tch::Device;

    fn config(ma: bool) -> RunConfig {
        config_with(serde_json::json!({"ma": {"enabled": ma}}))
    }

    /// Two epochs of batches of 16 with `overrides` on top.
    fn config_with(overrides: serde_json::Value) -> RunConfig {
        let mut spec = RunSpec {
            method: Some(MethodName::parse("graphcl").unwrap()),
            dataset: "toy".into(),
            seed: 3,
            ..Default::default()
        };
        let mut o: serde_json::Map<String, serde_json::Value> =
            serde_json::from_value(serde_json::json!({"epochs": 2, "batch_size": 16})).unwrap();
        o.extend(serde_json::from_value::<serde_json::Map<_, _>>(overrides).unwrap());
        spec.overrides = o;
        RunConfig::resolve(&spec).unwrap()
    }

    #[test]
    fn each_reading_places_k_and_sets_the_evaluation_encoder() {
        // The global torch RNG is shared by parallel tests: hold the lock while drawing.
        let _g = crate::rng::torch_lock();
        // (reading, original graph follows K, evaluation schedule)
        for (reading, k_first, eval) in [
            ("current", true, [1, 1, 1]),
            ("code", true, [2, 2, 2]),
            ("paper", false, [1, 1, 1]),
        ] {
            let cfg = config_with(serde_json::json!({"ma": {"enabled": true, "reading": reading}}));
            let m = GraphCl::new(&cfg.method_params().unwrap(), 1, Device::Cpu).unwrap();
            assert_eq!(m.k_first, k_first, "{reading}");
            assert_eq!(m.model.eval_schedule, eval, "{reading}");
        }
        let m = GraphCl::new(&config(false).method_params().unwrap(), 1, Device::Cpu).unwrap();
        assert_eq!(
            m.model.eval_schedule,
            [1, 1, 1],
            "the baseline evaluates plain GIN"
        );
    }

    /// One short training run. The caller holds [`crate::rng::torch_lock`]; the thread
    /// count is set first, as an earlier test (or run) may have left another.
    fn run(cfg: &RunConfig) -> (Vec<f64>, Vec<f32>) {
        tch::set_num_threads(1);
        tch::manual_seed(cfg.seed as i64);
        let data = toy_data(40);
        let mut m = GraphCl::new(&cfg.method_params().unwrap(), 1, Device::Cpu).unwrap();
        let lc = LoopConfig {
            epochs: cfg.epochs,
            batch_size: cfg.batch_size,
            seed: cfg.seed,
            progress: false,
        };
        let log = train_graph_method(&mut m, &data, &lc, |_, _| Ok(())).unwrap();
        let (emb, d) = m.embed(&data).unwrap();
        assert_eq!(d, 96);
        assert_eq!(emb.len(), 40 * 96);
        (log.epoch_losses, emb)
    }

    #[test]
    fn same_seed_same_losses_and_embeddings() {
        let _g = crate::rng::torch_lock();
        for ma in [
            serde_json::json!({"enabled": false}),
            serde_json::json!({"enabled": true}),
            serde_json::json!({"enabled": true, "reading": "code"}),
            serde_json::json!({"enabled": true, "reading": "paper"}),
        ] {
            let cfg = config_with(serde_json::json!({ "ma": ma }));
            let (l1, e1) = run(&cfg);
            let (l2, e2) = run(&cfg);
            assert_eq!(l1, l2);
            assert!(e1 == e2, "embeddings differ");
            assert!(l1.iter().all(|l| l.is_finite()));
        }
    }
}

#[allow(unused_imports)]
mod simgrace {
    use crate::error::{Error, Result};
    use crate::experiment::config::{MethodName, RunConfig, RunSpec};
    use crate::graph::Batch;
    use crate::loss::InfoNce;
    use crate::ma::{self, ScheduleSampler};
    use crate::methods::optim::Adam;
    use crate::methods::registry::MethodEntry;
    use crate::methods::simgrace::*;
    use crate::methods::tests::toy_data;
    use crate::methods::{sorted_vars, GraphData, GraphMethod, Tower};
    use crate::methods::{GraphRunner, MethodParams};
    use crate::params::Checked;
    use crate::params::Task;
    use crate::rng::{self, streams};
    use serde::{Deserialize, Serialize};
    use tch::Kind;
    use tch::{Device, Tensor};

    fn config(eta: f64) -> RunConfig {
        let mut spec = RunSpec {
            method: Some(MethodName::parse("simgrace").unwrap()),
            dataset: "toy".into(),
            seed: 1,
            ..Default::default()
        };
        spec.overrides =
            serde_json::from_value(serde_json::json!({"simgrace": {"eta": eta}, "hidden": 64}))
                .unwrap();
        RunConfig::resolve(&spec).unwrap()
    }

    #[test]
    fn each_reading_places_k() {
        // The global torch RNG is shared by parallel tests: hold the lock while drawing.
        let _g = crate::rng::torch_lock();
        // (reading, clean branch follows K, evaluation schedule)
        for (reading, k_first, eval) in
            [("current", true, 1), ("code", false, 2), ("paper", true, 1)]
        {
            let mut spec = RunSpec {
                method: Some(MethodName::parse("simgrace").unwrap()),
                dataset: "toy".into(),
                ..Default::default()
            };
            spec.overrides = serde_json::from_value(
                serde_json::json!({"ma": {"enabled": true, "reading": reading}}),
            )
            .unwrap();
            let cfg = RunConfig::resolve(&spec).unwrap();
            let m = SimGrace::new(&cfg.method_params().unwrap(), 3, Device::Cpu).unwrap();
            assert_eq!(m.k_first, k_first, "{reading}");
            assert_eq!(m.model.eval_schedule, vec![eval; 5], "{reading}");
        }
    }

    #[test]
    fn noise_std_matches_eta_times_weight_std_and_projector_is_untouched() {
        let _g = rng::torch_lock();
        tch::manual_seed(0);
        let mut m = SimGrace::new(&config(2.0).method_params().unwrap(), 3, Device::Cpu).unwrap();
        m.perturb(0);
        let main: std::collections::HashMap<_, _> = m.model.vs.variables();
        for (name, vice) in m.vice_vars() {
            let p = &main[&name];
            let diff = &vice - p;
            if name.starts_with("projector") {
                assert_eq!(
                    diff.abs().max().double_value(&[]),
                    0.0,
                    "{name} copied unperturbed"
                );
            } else if p.numel() >= 1000 {
                let want = 2.0 * p.std(true).double_value(&[]);
                let got = diff.std(true).double_value(&[]);
                assert!(
                    (got / want - 1.0).abs() < 0.1,
                    "{name}: noise std {got} vs {want}"
                );
                assert!(diff.mean(Kind::Float).double_value(&[]).abs() < 0.1 * want);
            }
        }
        assert!(m
            .parameter_roles()
            .iter()
            .any(|(n, p)| *p && n.contains("encoder")));
    }

    #[test]
    fn no_gradient_reaches_the_model_through_the_perturbed_branch() {
        let _g = rng::torch_lock();
        tch::manual_seed(0);
        let data = toy_data(8);
        let mut m = SimGrace::new(&config(1.0).method_params().unwrap(), 1, Device::Cpu).unwrap();
        m.perturb(0);
        let g = Batch::collate(&data.views, 1).to_tensors(Device::Cpu);
        let plain = m.model.encoder.plain_schedule();
        let z = tch::no_grad(|| m.vice.project(&g, &plain, true));
        assert!(!z.requires_grad(), "the perturbed branch carries no graph");
        let vice_grad_free = m.vice_vars().iter().all(|(_, t)| {
            !t.grad().defined() || t.grad().abs().sum(Kind::Float).double_value(&[]) == 0.0
        });
        let clean = m.model.project(&g, &plain, true);
        m.loss.loss(&z, &clean).backward();
        assert!(vice_grad_free);
        for (_, t) in m.vice_vars() {
            assert!(
                !t.grad().defined() || t.grad().abs().sum(Kind::Float).double_value(&[]) == 0.0
            );
        }
    }
}

#[allow(unused_imports)]
mod adgcl {
    use crate::augment::{augment_views, AttrMask, Augmentor, Compose, EdgeDrop};
    use crate::error::Result;
    use crate::experiment::config::{MethodName, RunConfig, RunSpec};
    use crate::graph::{Batch, GraphTensors};
    use crate::loss::InfoNce;
    use crate::ma::{self, ScheduleSampler};
    use crate::methods::adgcl::SerialBlas;
    use crate::methods::adgcl::*;
    use crate::methods::optim::Adam;
    use crate::methods::registry::MethodEntry;
    use crate::methods::tests::toy_data;
    use crate::methods::{embed_encoder, GraphData, GraphMethod};
    use crate::methods::{train_graph_method, LoopConfig};
    use crate::methods::{GraphRunner, MethodParams, Selection};
    use crate::nn::{GinEncoder, GinStyle, Init, Mlp};
    use crate::params::Checked;
    use crate::params::Task;
    use crate::params::{check_ratio, check_size, ParamGuard, MAX_WIDTH};
    use crate::rng::{self, streams};
    use serde::{Deserialize, Serialize};
    use tch::nn::{self, Module};
    use tch::{Device, Kind, Tensor};

    fn config(ma: bool) -> RunConfig {
        config_with(serde_json::json!({"ma": {"enabled": ma}, "epochs": 2}))
    }

    fn config_with(overrides: serde_json::Value) -> RunConfig {
        let mut spec = RunSpec {
            method: Some(MethodName::parse("adgcl").unwrap()),
            dataset: "toy".into(),
            seed: 4,
            ..Default::default()
        };
        spec.overrides = serde_json::from_value(overrides).unwrap();
        RunConfig::resolve(&spec).unwrap()
    }

    #[test]
    fn the_fixed_augmenter_drops_the_view_learner_with_or_without_ma() {
        // The global torch RNG is shared by parallel tests: hold the lock while drawing.
        let _g = crate::rng::torch_lock();
        let learned = AdGcl::new(&config(false).method_params().unwrap(), 1, Device::Cpu).unwrap();
        assert!(learned.view.is_some(), "AD-GCL learns its view");
        let control = config_with(serde_json::json!({"adgcl": {"augmenter": "fixed"}}));
        let c = AdGcl::new(&control.method_params().unwrap(), 1, Device::Cpu).unwrap();
        assert!(c.view.is_none(), "the control has no view learner");
        assert_eq!(c.eval_schedule, vec![1; 5]);
        let ma = AdGcl::new(&config(true).method_params().unwrap(), 1, Device::Cpu).unwrap();
        assert!(ma.view.is_none(), "AD-GCL+MA has no view learner");
        // the loss is symmetric: every reading keeps K on the original graph
        for reading in ["current", "code", "paper"] {
            let cfg = config_with(serde_json::json!({"ma": {"enabled": true, "reading": reading}}));
            let m = AdGcl::new(&cfg.method_params().unwrap(), 1, Device::Cpu).unwrap();
            assert!(m.k_first, "{reading}");
        }
        // the control trains: one step on the toy set moves its loss off NaN and the weights
        tch::manual_seed(2);
        let data = toy_data(16);
        let mut c = AdGcl::new(&control.method_params().unwrap(), 1, Device::Cpu).unwrap();
        let before = c.embed(&data).unwrap().0;
        let ids: Vec<usize> = (0..16).collect();
        assert!(c.step(&data, &ids, 0, 0).unwrap().is_finite());
        assert!(c.embed(&data).unwrap().0 != before);
    }

    #[test]
    fn serial_blas_gives_mkl_one_thread_here_and_restores_the_setting() {
        let _g = crate::rng::torch_lock(); // the thread counts are process state
                                           // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only looks a symbol up.
        let sym = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"MKL_Get_Max_Threads".as_ptr()) };
        if sym.is_null() {
            assert!(
                SerialBlas::new(Device::Cpu).0.is_none(),
                "no MKL, no setting"
            );
            return;
        }
        // SAFETY: MKL's C entry point `int MKL_Get_Max_Threads(void)`.
        let max: unsafe extern "C" fn() -> libc::c_int = unsafe { std::mem::transmute(sym) };
        let threads = tch::get_num_threads();
        tch::set_num_threads(2);
        let before = unsafe { max() };
        {
            let _b = SerialBlas::new(Device::Cpu);
            assert_eq!(unsafe { max() }, 1, "MKL runs serially inside the step");
        }
        assert_eq!(unsafe { max() }, before, "the setting is restored");
        assert!(
            SerialBlas::new(Device::Cuda(0)).0.is_none(),
            "nothing to do off the CPU"
        );
        tch::set_num_threads(threads);
    }

    #[test]
    fn concrete_weights_are_bounded_and_differentiable() {
        let _g = crate::rng::torch_lock(); // libtorch state is shared by parallel tests
        let logits = Tensor::from_slice(&[-50.0f32, -1.0, 0.0, 1.0, 50.0]).set_requires_grad(true);
        let noise = Tensor::from_slice(&[1e-4f32, 0.3, 0.5, 0.7, 1.0 - 1e-4]);
        let w = concrete_weights(&logits, &noise, 1.0);
        let v: Vec<f32> = Vec::try_from(&w).unwrap();
        assert!(v.iter().all(|&x| (0.0..=1.0).contains(&x)));
        assert!((v[2] - 0.5).abs() < 1e-6, "u = 0.5 and logit 0 give 1/2");
        // sigmoid(log(u/(1-u)) + l): u = 0.3, l = -1
        let want = 1.0 / (1.0 + (-((0.3f64 / 0.7).ln() - 1.0)).exp());
        assert!((v[1] as f64 - want).abs() < 1e-6);
        w.sum(Kind::Float).backward();
        let g: Vec<f32> = Vec::try_from(logits.grad()).unwrap();
        assert!(
            g[1] > 0.0 && g[2] > 0.0 && g[3] > 0.0,
            "gradient flows into the logits"
        );
        let data = toy_data(300);
        let g = Batch::collate(&data.views, 1).to_tensors(Device::Cpu);
        let u: Vec<f32> = Vec::try_from(concrete_noise(&g, 0, 0, 0)).unwrap();
        assert!(u.len() > 1000 && u.iter().all(|&x| (1e-4..=1.0 - 1e-4).contains(&x)));
    }

    #[test]
    fn regulariser_averages_per_graph_and_skips_edgeless_graphs() {
        let _g = crate::rng::torch_lock(); // libtorch state is shared by parallel tests
        let w = Tensor::from_slice(&[1.0f32, 0.5, 0.0, 0.0]);
        let eg = Tensor::from_slice(&[0i64, 0, 2, 2]);
        // graph 0: mean(0, 0.5) = 0.25; graph 1: no edges; graph 2: mean(1, 1) = 1
        let r = drop_regulariser(&w, &eg, 3).double_value(&[]);
        assert!((r - 0.625).abs() < 1e-6);
    }

    #[test]
    fn the_view_step_ascends_its_objective() {
        let _g = rng::torch_lock();
        tch::manual_seed(0);
        let data = toy_data(16);
        let mut m = AdGcl::new(&config(false).method_params().unwrap(), 1, Device::Cpu).unwrap();
        if let Some(v) = m.view.as_mut() {
            v.opt.set_lr(0.01);
        }
        let g = Batch::collate(&data.views, 1).to_tensors(Device::Cpu);
        let noise = concrete_noise(&g, 0, 0, 0);
        let before = m.view_objective(&g, &noise).unwrap().double_value(&[]);
        for _ in 0..5 {
            m.view_step(&g, &noise);
        }
        let after = m.view_objective(&g, &noise).unwrap().double_value(&[]);
        assert!(after > before, "{before} → {after}");
    }

    #[test]
    fn both_variants_train_deterministically() {
        let _g = rng::torch_lock();
        for over in [
            serde_json::json!({"ma": {"enabled": false}, "epochs": 2}),
            serde_json::json!({"ma": {"enabled": true}, "epochs": 2}),
            serde_json::json!({"ma": {"enabled": false}, "adgcl": {"augmenter": "fixed"}, "epochs": 2}),
            serde_json::json!({"ma": {"enabled": true, "reading": "code"}, "epochs": 2}),
        ] {
            let cfg = config_with(over);
            let ma = cfg.method_label() + " " + &cfg.ma_label();
            let go = || {
                tch::set_num_threads(1);
                tch::manual_seed(1);
                let data = toy_data(40);
                let mut m = AdGcl::new(&cfg.method_params().unwrap(), 1, Device::Cpu).unwrap();
                let lc = LoopConfig {
                    epochs: 2,
                    batch_size: cfg.batch_size,
                    seed: cfg.seed,
                    progress: false,
                };
                let log = train_graph_method(&mut m, &data, &lc, |_, _| Ok(())).unwrap();
                let (e, d) = m.embed(&data).unwrap();
                assert_eq!(d, 32);
                (log.epoch_losses, e)
            };
            let (a, b) = (go(), go());
            assert!(a == b, "ma = {ma}: runs differ");
        }
    }
}

#[allow(unused_imports)]
pub(crate) mod node {
    use crate::augment::{drop_directed_edges, feature_column_mask};
    use crate::data::CsrMatrix;
    use crate::data::{NodeDataset, Split};
    use crate::error::{Error, Result};
    use crate::eval::evaluator::HostMatrix;
    use crate::eval::protocol::{random_split, RandomSplit};
    use crate::eval::{self, run_protocol};
    use crate::eval_node::{node_protocol, NodeLogReg};
    use crate::experiment::config::{MethodName, RunConfig, RunSpec};
    use crate::graph::GraphTensors;
    use crate::kernels::PendingScalar;
    use crate::loss::InfoNce;
    use crate::ma::{self, ScheduleSampler};
    use crate::methods::node::*;
    use crate::methods::optim::Adam;
    use crate::methods::registry::MethodEntry;
    use crate::methods::{check_loss, progress_bar, TrainLog};
    use crate::methods::{Embed, Embeddings, Method, MethodParams, Selection};
    use crate::nn::gcn::{Features, GcnEncoder, NodeProjector, Propagation};
    use crate::params::Checked;
    use crate::params::Task;
    use crate::params::{
        bad, check_ratio, check_size, ParamGuard, MAX_DEPTH, MAX_EPOCHS, MAX_RESTARTS, MAX_WIDTH,
    };
    use crate::rng::{self, streams};
    use serde::{Deserialize, Serialize};
    use std::time::Instant;
    use tch::nn;
    use tch::{Device, Kind, Tensor};

    /// Two noisy communities with informative features.
    pub fn toy_dataset(n: usize) -> NodeDataset {
        let mut r = rng::stream(9, &[]);
        use rand::Rng as _;
        let mut edges = Vec::new();
        for u in 0..n as u32 {
            for v in (u + 1)..n as u32 {
                let same = (u % 2) == (v % 2);
                if r.gen::<f64>() < if same { 0.08 } else { 0.01 } {
                    edges.push((u, v));
                }
            }
        }
        let (mut indptr, mut indices, mut data) = (vec![0], Vec::new(), Vec::new());
        for u in 0..n {
            for f in 0..20u32 {
                let p = if (f as usize % 2) == u % 2 { 0.3 } else { 0.1 };
                if r.gen::<f64>() < p {
                    indices.push(f);
                    data.push(1.0);
                }
            }
            indptr.push(indices.len());
        }
        NodeDataset {
            name: "toy".into(),
            num_nodes: n,
            edges,
            features: CsrMatrix {
                rows: n,
                cols: 20,
                indptr,
                indices,
                data,
            },
            labels: (0..n as u32).map(|u| u % 2).collect(),
            num_classes: 2,
            public_split: None,
        }
    }

    fn config(preset: &str, ma: bool) -> RunConfig {
        let mut spec = RunSpec {
            method: Some(MethodName::parse("base").unwrap()),
            dataset: "toy".into(),
            seed: 2,
            preset: Some(preset.into()),
            ..Default::default()
        };
        spec.overrides = serde_json::from_value(serde_json::json!({"ma": {"enabled": ma}, "hidden": 16, "epochs": 30, "lr": 0.01, "node": {"proj_hidden": 16, "loss_block_rows": 7}})).unwrap();
        RunConfig::resolve(&spec).unwrap()
    }

    #[test]
    fn trains_deterministically_and_learns_the_communities() {
        let _g = crate::rng::torch_lock();
        let ds = toy_dataset(120);
        for (preset, ma) in [("code", true), ("paper", false), ("paper", true)] {
            let cfg = config(preset, ma);
            let go = || {
                tch::set_num_threads(1);
                tch::manual_seed(5);
                let mut m =
                    NodeModel::new(&cfg.method_params().unwrap(), &ds, Device::Cpu).unwrap();
                let log = m.train(cfg.epochs, false).unwrap();
                (
                    log.epoch_losses,
                    Vec::<f32>::try_from(m.embed().flatten(0, -1)).unwrap(),
                )
            };
            let (l1, e1) = go();
            let (l2, e2) = go();
            assert_eq!(l1, l2, "{preset} {ma}");
            assert_eq!(e1, e2);
            assert!(
                l1.last().unwrap() < l1.first().unwrap(),
                "loss decreases: {l1:?}"
            );
        }
        let cfg = config("code", true);
        tch::manual_seed(5);
        let mut m = NodeModel::new(&cfg.method_params().unwrap(), &ds, Device::Cpu).unwrap();
        m.train(cfg.epochs, false).unwrap();
        let e = Embed::embed(&m).unwrap();
        let probe = NodeLogReg {
            num_classes: 2,
            steps: 300,
            seed: 0,
            device: Device::Cpu,
        };
        let r = run_protocol(
            &RandomSplit,
            &probe,
            HostMatrix::new(&e.x, e.rows, e.dim),
            &ds.labels,
            0,
        )
        .unwrap();
        let (test, val) = (r.accuracy, r.val_accuracy.unwrap());
        assert!(test > 80.0 && val > 70.0, "{test} {val}");
    }

    /// A CiteSeer-sized node set (3327 nodes) with a Planetoid-shaped public split:
    /// train 0..120, val 120..620 (500), test 620..1620 (1000).
    fn with_public_split() -> NodeDataset {
        let mut ds = toy_dataset(4);
        ds.num_nodes = 3327;
        ds.public_split = Some(Split {
            train: (0..120).collect(),
            val: (120..620).collect(),
            test: (620..1620).collect(),
        });
        ds
    }

    /// The one split of `node.split = name` for `ds`, drawn from `seed`.
    fn node_split(name: &str, ds: &NodeDataset, seed: u64) -> Result<eval::Split> {
        let mut s = node_protocol(name, ds)?.splits(&ds.labels, ds.num_nodes, seed)?;
        assert_eq!(s.len(), 1, "{name}");
        Ok(s.remove(0))
    }

    #[test]
    fn public_swapped_split_reads_the_public_split_as_the_released_eval_does() {
        let ds = with_public_split();
        let public = node_split("public", &ds, 3).unwrap();
        assert_eq!(
            (public.train.len(), public.val.len(), public.test.len()),
            (120, 500, 1000)
        );
        let swapped = node_split("public-swapped", &ds, 3).unwrap();
        // the 500 validation nodes are tested, the 1000 test nodes pick the step
        assert_eq!(
            (swapped.train.len(), swapped.val.len(), swapped.test.len()),
            (120, 1000, 500)
        );
        assert_eq!(swapped.train, public.train);
        assert_eq!(swapped.test, (120..620).collect::<Vec<usize>>());
        assert_eq!(swapped.val, (620..1620).collect::<Vec<usize>>());
        // the random split ignores the public one and follows the seed
        assert_eq!(node_split("random", &ds, 3).unwrap(), random_split(3327, 3));
        // without a public split both public readings fail with advice
        let plain = toy_dataset(30);
        for name in ["public", "public-swapped"] {
            let e = node_split(name, &plain, 0).unwrap_err().to_string();
            assert!(e.contains("no public split") && e.contains("random"), "{e}");
        }
        assert!(node_split("publik", &ds, 0).is_err());
    }

    #[test]
    fn best_test_keeps_the_highest_test_accuracy_earliest_on_ties() {
        let mut b = BestTest::default();
        // (epoch, test, val): 100 → 70.0, 200 → 72.5, 300 → 72.5, 400 (final) → 71.0
        assert!(b.offer(100, 70.0, 69.0, "e100"));
        assert!(b.offer(200, 72.5, 68.0, "e200"));
        assert!(!b.offer(300, 72.5, 71.0, "e300"));
        assert!(!b.offer(400, 71.0, 72.0, "e400"));
        assert_eq!(b.best, Some((200, 72.5, 68.0, "e200")));
        // the best validation accuracy (epoch 400) plays no part: this is test selection
        let mut only = BestTest::default();
        only.offer(400, 71.0, 72.0, ());
        assert_eq!(only.best.map(|b| b.0), Some(400));
    }

    #[test]
    fn l2_normalised_rows_by_hand() {
        // rows (3, 4), (0, 0), (−2, 0), (1e-20, 0): unit rows, the zero row untouched
        let mut x = vec![3.0f32, 4.0, 0.0, 0.0, -2.0, 0.0, 1e-20, 0.0];
        l2_normalize_rows(&mut x, 2);
        assert_eq!(x, vec![0.6, 0.8, 0.0, 0.0, -1.0, 0.0, 1.0, 0.0]);
    }
}

#[allow(unused_imports)]
mod untrained {
    use crate::experiment::config::{MethodName, RunConfig, RunSpec};
    use crate::methods::graphcl::GraphCl;
    use crate::methods::tests::toy_data;
    use crate::methods::{registry, sorted_vars, GraphMethod, TrainData};
    use tch::{Device, Tensor};

    fn config(overrides: serde_json::Value) -> RunConfig {
        RunConfig::resolve(&RunSpec {
            method: Some(MethodName::parse("untrained").unwrap()),
            dataset: "toy".into(),
            seed: 5,
            overrides: serde_json::from_value(overrides).unwrap(),
            ..Default::default()
        })
        .unwrap()
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
    fn the_preset_is_the_methods_own_with_no_epoch() {
        let cfg = config(serde_json::json!({}));
        assert_eq!(cfg.epochs, 0);
        assert_eq!(cfg.method_label(), "untrained-graphcl");
        assert_eq!(cfg.layers, 3, "GraphCL's encoder");
        let cfg = config(serde_json::json!({"untrained": {"of": "simgrace"}}));
        assert_eq!(cfg.method_label(), "untrained-simgrace");
        assert_eq!((cfg.layers, cfg.gin_eps), (5, 1.0), "SimGRACE's encoder");
        let cfg = config(serde_json::json!({"untrained": {"of": "adgcl"}}));
        assert_eq!(cfg.evaluator, "linear-svc", "AD-GCL's protocol");
        // refused: training epochs, an unknown source, a baseline as the encoder
        for (o, field) in [
            (serde_json::json!({"epochs": 3}), "epochs"),
            (
                serde_json::json!({"untrained": {"batch_norm": "mean"}}),
                "untrained.batch_norm",
            ),
            (
                serde_json::json!({"untrained": {"of": "wl"}}),
                "untrained.of",
            ),
        ] {
            let e = RunConfig::resolve(&RunSpec {
                method: Some(MethodName::parse("untrained").unwrap()),
                dataset: "toy".into(),
                overrides: serde_json::from_value(o).unwrap(),
                ..Default::default()
            })
            .unwrap_err()
            .to_string();
            assert!(e.contains(field), "{e}");
        }
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
        let embed_untrained = |cfg: &RunConfig| {
            tch::manual_seed(cfg.seed as i64);
            let entry = cfg.method.entry().unwrap();
            let mut m = (entry.build)(
                &cfg.method_params().unwrap(),
                TrainData::Graphs(&data),
                Device::Cpu,
                false,
            )
            .unwrap();
            let mut calls = 0;
            let log = m
                .train(cfg.epochs, &mut |_, _| {
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
