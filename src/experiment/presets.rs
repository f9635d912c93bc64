//! Method and dataset presets: the reference setups of REFERENCE.md written down as data.
use super::config::*;
use crate::error::{Error, Result};

/// Resolving a [`RunSpec`] lives beside the presets it starts from (the config module
/// defines the types only, so the two do not import each other).
impl RunConfig {
    /// The preset config for `spec`, with `spec.overrides` merged on top and validated.
    pub fn resolve(spec: &RunSpec) -> Result<RunConfig> {
        let method = spec.method.unwrap_or(MethodName::Graphcl);
        let mut base = preset(method, &spec.dataset, spec.seed, spec.preset.as_deref())?;
        // The untrained encoder starts from the preset of the method it is the encoder of.
        if let Some(of) = spec.overrides.get("untrained").and_then(|u| u.get("of")) {
            let of = of.as_str().ok_or_else(|| {
                Error::Config(format!("untrained.of: expected a method name, got {of}"))
            })?;
            base = untrained_preset(
                MethodName::parse(of)?,
                &spec.dataset,
                spec.seed,
                spec.preset.as_deref(),
            )?;
        }
        // A named reading sets its switches first; switches given beside it win.
        if let Some(r) = spec.overrides.get("ma").and_then(|m| m.get("reading")) {
            let name = r
                .as_str()
                .ok_or_else(|| Error::Config(format!("ma.reading: expected a name, got {r}")))?;
            Reading::find(name)?.apply(&mut base.ma);
        }
        let mut value = serde_json::to_value(&base)?;
        settable_defaults(&mut value);
        merge(
            &mut value,
            &serde_json::Value::Object(spec.overrides.clone()),
            "",
        )?;
        let mut cfg: RunConfig = serde_json::from_value(value)
            .map_err(|e| Error::Config(format!("invalid configuration: {e}")))?;
        cfg.normalise();
        cfg.validate()?;
        Ok(cfg)
    }
}

/// Graph-level methods share GraphCL's loss form except where noted.
fn graph_loss(symmetric: bool) -> InfoNceParams {
    InfoNceParams {
        temperature: 0.2,
        positive_in_denominator: false,
        symmetric,
        intra_view_negatives: false,
        inter_view_negatives: true,
        projector: true,
    }
}

/// The preset config of `method` on `dataset` (node level: `preset` = `code` | `paper`).
pub fn preset(
    method: MethodName,
    dataset: &str,
    seed: u64,
    preset: Option<&str>,
) -> Result<RunConfig> {
    let ma = MaParams::default();
    let cfg = match method {
        MethodName::Graphcl => RunConfig {
            task: Task::Graph,
            method,
            dataset: dataset.into(),
            seed,
            epochs: 20,
            lr: 0.01,
            weight_decay: 0.0,
            batch_size: 128,
            hidden: 32,
            layers: 3,
            features: "graphcl".into(),
            evaluator: "svc-rbf".into(),
            gin_eps: 0.0,
            loss: graph_loss(false),
            ma,
            augment: Some(AugParams::default()),
            node: None,
            simgrace: None,
            adgcl: None,
            untrained: None,
            wl: None,
            threads: 0,
            env: Default::default(),
        },
        MethodName::Simgrace => RunConfig {
            task: Task::Graph,
            method,
            dataset: dataset.into(),
            seed,
            epochs: 20,
            lr: 0.01,
            weight_decay: 0.0,
            batch_size: 128,
            hidden: 32,
            layers: 5,
            features: "graphcl".into(),
            evaluator: "svc-rbf".into(),
            // SimGRACE's data pipeline gives every node but the highest-indexed one of a
            // graph a self-loop, so its GIN counts a node's own features twice: ε = 1.
            gin_eps: 1.0,
            loss: graph_loss(false),
            ma,
            augment: None,
            node: None,
            simgrace: Some(SimgraceParams { eta: 1.0 }),
            adgcl: None,
            untrained: None,
            wl: None,
            threads: 0,
            env: Default::default(),
        },
        MethodName::Adgcl => RunConfig {
            task: Task::Graph,
            method,
            dataset: dataset.into(),
            seed,
            epochs: 150,
            lr: 1e-3,
            weight_decay: 0.0,
            batch_size: 32,
            hidden: 32,
            layers: 5,
            features: "adgcl".into(),
            evaluator: "linear-svc".into(),
            gin_eps: 0.0,
            loss: graph_loss(true),
            ma,
            augment: None,
            node: None,
            simgrace: None,
            // the official code's settings, which are AD-GCL's defaults
            adgcl: Some(AdgclParams::default()),
            untrained: None,
            wl: None,
            threads: 0,
            env: Default::default(),
        },
        MethodName::Base => node_preset(dataset, seed, preset.unwrap_or("code"))?,
        MethodName::Untrained => {
            let of = match super::sweep::known_dataset(dataset) {
                Some(Task::Node) => MethodName::Base,
                _ => MethodName::Graphcl,
            };
            untrained_preset(of, dataset, seed, preset)?
        }
        // The graph-kernel floors: GraphCL's features and SVM, nothing to train.
        MethodName::Wl | MethodName::Degree => {
            let mut cfg = self::preset(MethodName::Graphcl, dataset, seed, preset)?;
            cfg.method = method;
            cfg.epochs = 0;
            cfg.augment = None;
            cfg.wl = (method == MethodName::Wl).then(WlParams::default);
            cfg
        }
        // Raw node features: the base model's preset (features, splits, probe).
        MethodName::Features => {
            let mut cfg = node_preset(dataset, seed, preset.unwrap_or("code"))?;
            cfg.method = method;
            cfg.epochs = 0;
            cfg
        }
        // A registered method starts from the presets of the built-in one it names.
        other => {
            let family = other.preset_family();
            if family == other {
                return Err(Error::Config(format!(
                    "method {} has no presets of its own: register it with the preset of a \
                     built-in method",
                    other.as_str()
                )));
            }
            let mut cfg = self::preset(family, dataset, seed, preset)?;
            cfg.method = other;
            cfg
        }
    };
    Ok(cfg)
}

/// The untrained encoder of `of`: `of`'s preset with no epoch.
fn untrained_preset(
    of: MethodName,
    dataset: &str,
    seed: u64,
    preset: Option<&str>,
) -> Result<RunConfig> {
    if of.is_baseline() {
        return Err(Error::Config(format!(
            "untrained.of: '{}' is a baseline, not a method with an encoder",
            of.as_str()
        )));
    }
    if let Some(t) = super::sweep::known_dataset(dataset).filter(|&t| !of.supports(t)) {
        return Err(Error::Config(format!(
            "untrained.of: {} is not a {t:?}-level method, and {dataset} is a {t:?}-level dataset",
            of.as_str()
        )));
    }
    let mut cfg = self::preset(of, dataset, seed, preset)?;
    cfg.method = MethodName::Untrained;
    cfg.epochs = 0;
    cfg.untrained = Some(UntrainedParams::of(of.as_str()));
    Ok(cfg)
}

/// One row of REFERENCE.md §1.7.
struct NodeRow {
    epochs: usize,
    lr: f64,
    wd: f64,
    act: &'static str,
    hidden: usize,
    proj: usize,
    edge_drop: [f64; 2],
    feature_drop: [f64; 2],
    tau: f64,
    /// Paper ranges (inclusive), Table 7.
    k1: [usize; 2],
    k2: [usize; 2],
}

fn node_row(dataset: &str, paper: bool) -> Result<NodeRow> {
    let d = dataset.to_ascii_lowercase();
    #[rustfmt::skip]
    let row = match (d.as_str(), paper) {
        ("cora", false) => NodeRow { epochs: 500, lr: 5e-4, wd: 1e-5, act: "relu", hidden: 512, proj: 512, edge_drop: [0.4, 0.4], feature_drop: [0.5, 0.5], tau: 0.4, k1: [0, 4], k2: [1, 4] },
        ("cora", true) => NodeRow { epochs: 500, lr: 2e-4, wd: 1e-6, act: "relu", hidden: 512, proj: 512, edge_drop: [0.3, 0.3], feature_drop: [0.3, 0.3], tau: 0.4, k1: [0, 4], k2: [1, 4] },
        ("citeseer", false) => NodeRow { epochs: 600, lr: 1e-4, wd: 1e-5, act: "relu", hidden: 512, proj: 512, edge_drop: [0.4, 0.4], feature_drop: [0.3, 0.3], tau: 0.8, k1: [2, 4], k2: [1, 3] },
        ("citeseer", true) => NodeRow { epochs: 400, lr: 1e-5, wd: 1e-6, act: "relu", hidden: 512, proj: 512, edge_drop: [0.3, 0.2], feature_drop: [0.3, 0.2], tau: 0.9, k1: [2, 4], k2: [1, 3] },
        ("pubmed", _) => NodeRow { epochs: 900, lr: 2e-3, wd: 1e-5, act: "relu", hidden: 512, proj: 128, edge_drop: [0.5, 0.4], feature_drop: [0.3, 0.5], tau: 0.4, k1: [0, 3], k2: [0, 3] },
        ("coauthor-cs", _) => NodeRow { epochs: 1000, lr: 5e-4, wd: 1e-5, act: "rrelu", hidden: 256, proj: 256, edge_drop: [0.3, 0.2], feature_drop: [0.3, 0.4], tau: 0.4, k1: [0, 3], k2: [1, 3] },
        ("amazon-photo", _) => NodeRow { epochs: 1500, lr: 1e-3, wd: 0.0, act: "prelu", hidden: 256, proj: 256, edge_drop: [0.3, 0.4], feature_drop: [0.2, 0.3], tau: 0.3, k1: [3, 5], k2: [1, 3] },
        ("amazon-computers", false) => NodeRow { epochs: 2000, lr: 8e-4, wd: 1e-5, act: "rrelu", hidden: 256, proj: 256, edge_drop: [0.7, 0.2], feature_drop: [0.2, 0.2], tau: 0.3, k1: [1, 4], k2: [0, 3] },
        ("amazon-computers", true) => NodeRow { epochs: 2000, lr: 1e-3, wd: 1e-5, act: "rrelu", hidden: 256, proj: 256, edge_drop: [0.7, 0.2], feature_drop: [0.2, 0.2], tau: 0.3, k1: [1, 4], k2: [0, 3] },
        // Any other node set (e.g. a synthetic one) gets Cora's code settings.
        (_, false) => NodeRow { epochs: 500, lr: 5e-4, wd: 1e-5, act: "relu", hidden: 512, proj: 512, edge_drop: [0.4, 0.4], feature_drop: [0.5, 0.5], tau: 0.4, k1: [0, 4], k2: [1, 4] },
        (_, true) => NodeRow { epochs: 500, lr: 2e-4, wd: 1e-6, act: "relu", hidden: 512, proj: 512, edge_drop: [0.3, 0.3], feature_drop: [0.3, 0.3], tau: 0.4, k1: [0, 4], k2: [1, 4] },
    };
    Ok(row)
}

fn node_preset(dataset: &str, seed: u64, preset: &str) -> Result<RunConfig> {
    let paper = match preset {
        "code" => false,
        "paper" => true,
        other => {
            return Err(Error::Config(format!(
                "unknown node preset '{other}': expected code or paper"
            )))
        }
    };
    let row = node_row(dataset, paper)?;
    let d = dataset.to_ascii_lowercase();
    let citation = matches!(d.as_str(), "cora" | "citeseer" | "pubmed");
    let eval_k = if !paper || matches!(d.as_str(), "cora" | "citeseer") {
        2
    } else {
        1
    };
    let ma = if paper {
        MaParams {
            view1: row.k1,
            view2: row.k2,
            constraints: Constraints::Both,
            ..MaParams::default()
        }
    } else {
        // The released code draws K from [0, 2) and K' from [0, 8) for every dataset.
        MaParams {
            view1: [0, 1],
            view2: [0, 7],
            constraints: Constraints::None,
            ..MaParams::default()
        }
    };
    Ok(RunConfig {
        task: Task::Node,
        method: MethodName::Base,
        dataset: dataset.into(),
        seed,
        epochs: row.epochs,
        lr: row.lr,
        weight_decay: row.wd,
        batch_size: 1,
        hidden: row.hidden,
        layers: 2,
        features: "row-normalised".into(),
        evaluator: "logreg".into(),
        gin_eps: 0.0,
        loss: InfoNceParams {
            temperature: row.tau,
            positive_in_denominator: true,
            symmetric: false,
            intra_view_negatives: false,
            inter_view_negatives: true,
            projector: paper,
        },
        ma,
        augment: None,
        node: Some(NodeParams {
            preset: preset.into(),
            edge_drop: row.edge_drop,
            feature_drop: row.feature_drop,
            activation: row.act.into(),
            proj_hidden: row.proj,
            base_k: eval_k,
            eval_k,
            split: if paper && citation {
                "public".into()
            } else {
                "random".into()
            },
            loss_block_rows: 4096,
            kmeans_restarts: 20,
            best_test_every: 0,
            kmeans_l2: false,
        }),
        simgrace: None,
        adgcl: None,
        untrained: None,
        wl: None,
        threads: 0,
        env: Default::default(),
    })
}

/// Puts the settings that a config leaves out while they hold their default (so that
/// earlier configs and hashes stay as they were) back into its JSON form, so that
/// overrides may set them.
fn settable_defaults(value: &mut serde_json::Value) {
    use serde_json::json;
    let mut put = |section: &str, key: &str, v: serde_json::Value| {
        if let Some(obj) = value.get_mut(section).and_then(|s| s.as_object_mut()) {
            obj.entry(key.to_string()).or_insert(v);
        }
    };
    put("loss", "inter_view_negatives", json!(true));
    put("node", "best_test_every", json!(0));
    put("node", "kmeans_l2", json!(false));
}

/// Deep-merges `over` into `base`; a key `base` does not have is an error naming its path.
fn merge(base: &mut serde_json::Value, over: &serde_json::Value, path: &str) -> Result<()> {
    use serde_json::Value;
    match (base, over) {
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match b.get_mut(k) {
                    Some(slot) if slot.is_object() && v.is_object() => merge(slot, v, &p)?,
                    Some(slot) => *slot = v.clone(),
                    None => {
                        return Err(Error::Config(format!(
                            "unknown setting '{p}' (not used by this method)"
                        )))
                    }
                }
            }
            Ok(())
        }
        (b, o) => {
            *b = o.clone();
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_has_a_valid_preset() {
        for m in [MethodName::Graphcl, MethodName::Simgrace, MethodName::Adgcl] {
            preset(m, "MUTAG", 0, None).unwrap().validate().unwrap();
        }
        for d in [
            "Cora",
            "CiteSeer",
            "PubMed",
            "Coauthor-CS",
            "Amazon-Photo",
            "Amazon-Computers",
        ] {
            for p in ["code", "paper"] {
                preset(MethodName::Base, d, 0, Some(p))
                    .unwrap()
                    .validate()
                    .unwrap();
            }
        }
    }

    #[test]
    fn overrides_merge_and_unknown_keys_fail() {
        let mut spec = RunSpec {
            method: Some(MethodName::Graphcl),
            dataset: "MUTAG".into(),
            ..Default::default()
        };
        spec.overrides = serde_json::from_str(
            r#"{"epochs": 3, "ma": {"enabled": true, "gin_mode": "gin-sum"}}"#,
        )
        .unwrap();
        let cfg = RunConfig::resolve(&spec).unwrap();
        assert_eq!(cfg.epochs, 3);
        assert!(cfg.ma.enabled);
        assert_eq!(cfg.ma.gin_mode, GinMode::GinSum);
        assert_eq!(cfg.ma.view2, [0, 4]);
        assert_eq!(cfg.ma_label(), "ARS gin-sum");
        spec.overrides = serde_json::from_str(r#"{"epoch": 3}"#).unwrap();
        let err = RunConfig::resolve(&spec).unwrap_err().to_string();
        assert!(err.contains("'epoch'"), "{err}");
        spec.overrides = serde_json::from_str(r#"{"ma": {"view1": [3, 1]}}"#).unwrap();
        let err = RunConfig::resolve(&spec).unwrap_err().to_string();
        assert!(err.contains("ma.view1"), "{err}");
    }

    fn resolve(
        method: MethodName,
        dataset: &str,
        overrides: serde_json::Value,
    ) -> Result<RunConfig> {
        RunConfig::resolve(&RunSpec {
            method: Some(method),
            dataset: dataset.into(),
            overrides: serde_json::from_value(overrides).unwrap(),
            ..Default::default()
        })
    }

    #[test]
    fn a_reading_sets_its_switches_and_switches_beside_it_win() {
        let cur = resolve(
            MethodName::Graphcl,
            "MUTAG",
            serde_json::json!({"ma": {"enabled": true}}),
        )
        .unwrap();
        assert_eq!(cur.ma.reading, "current");
        assert_eq!(
            cur.ma_label(),
            "ARS gin+filter",
            "the default label is unchanged"
        );
        let code = resolve(
            MethodName::Graphcl,
            "MUTAG",
            serde_json::json!({"ma": {"enabled": true, "reading": "code"}}),
        )
        .unwrap();
        assert_eq!(code.ma.zero_k, ZeroK::Plain);
        assert_eq!(code.ma.ranges, RangeBound::Exclusive);
        assert_eq!(code.ma.k_branch, KBranch::Anchor);
        assert_eq!(code.ma.redraw, Redraw::Epoch);
        assert_eq!(code.ma.constraints, Constraints::None);
        assert_eq!(code.ma.eval_k, 2);
        assert_eq!(
            code.ma.view1,
            [0, 2],
            "the ranges themselves stay the paper's"
        );
        assert_eq!(code.ma_label(), "ARS code");
        assert_ne!(code.hash(), cur.hash());
        let row: serde_json::Value = serde_json::to_value(&code).unwrap();
        assert_eq!(
            row["ma"]["reading"], "code",
            "the reading is in the recorded config"
        );
        // a switch given beside the reading wins and shows in the label
        let negk = resolve(
            MethodName::Simgrace,
            "MUTAG",
            serde_json::json!({"ma": {"enabled": true, "reading": "code", "k_branch": "negatives", "gin_mode": "gin-sum"}}),
        )
        .unwrap();
        assert_eq!(negk.ma.k_branch, KBranch::Negatives);
        assert_eq!(negk.ma.redraw, Redraw::Epoch);
        assert_eq!(negk.ma_label(), "ARS code gin-sum k_branch=negatives");
        let cons = resolve(
            MethodName::Graphcl,
            "MUTAG",
            serde_json::json!({"ma": {"enabled": true, "constraints": "sum", "redraw": "epoch"}}),
        )
        .unwrap();
        assert_eq!(
            cons.ma_label(),
            "ARS gin+filter redraw=epoch constraints=sum"
        );
        assert_eq!(
            resolve(
                MethodName::Graphcl,
                "MUTAG",
                serde_json::json!({"ma": {"enabled": true, "reading": "paper"}})
            )
            .unwrap()
            .ma_label(),
            "ARS paper"
        );
        let err = resolve(
            MethodName::Graphcl,
            "MUTAG",
            serde_json::json!({"ma": {"reading": "codes"}}),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("unknown MA reading 'codes'"), "{err}");
        // exclusive ranges need room below the upper bound
        let err = resolve(
            MethodName::Graphcl,
            "MUTAG",
            serde_json::json!({"ma": {"reading": "code", "view1": [1, 1]}}),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("ma.view1") && err.contains("empty"), "{err}");
        // graph-level switches are refused at node level
        let err = resolve(
            MethodName::Base,
            "Cora",
            serde_json::json!({"ma": {"reading": "code"}}),
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("ma.reading") && err.contains("graph-level"),
            "{err}"
        );
    }

    #[test]
    fn constraints_read_old_booleans() {
        let mut v = serde_json::to_value(MaParams::default()).unwrap();
        assert_eq!(v["constraints"], "none");
        v["constraints"] = true.into();
        let c: MaParams = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(c.constraints, Constraints::Both);
        v["constraints"] = "layers".into();
        let c: MaParams = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(c.constraints, Constraints::Layers);
        v["constraints"] = "all".into();
        assert!(serde_json::from_value::<MaParams>(v).is_err());
        // a config written before the readings existed reads as the current reading
        let old = serde_json::json!({"enabled": true, "gin_mode": "gin+filter", "view1": [0, 2],
            "view2": [0, 4], "asymmetric": true, "random": true, "shuffle": true,
            "constraints": false, "pi": 0.5});
        let c: MaParams = serde_json::from_value(old).unwrap();
        assert_eq!(
            c,
            MaParams {
                enabled: true,
                ..MaParams::default()
            }
        );
    }

    #[test]
    fn the_adgcl_augmenter_follows_ma_unless_given() {
        let learned = resolve(MethodName::Adgcl, "MUTAG", serde_json::json!({})).unwrap();
        assert_eq!(
            learned.adgcl.as_ref().unwrap().augmenter,
            Some(Augmenter::Learned)
        );
        assert_eq!(learned.method_label(), "adgcl");
        let control = resolve(
            MethodName::Adgcl,
            "MUTAG",
            serde_json::json!({"adgcl": {"augmenter": "fixed"}}),
        )
        .unwrap();
        assert_eq!(control.method_label(), "adgcl-fixed");
        assert_eq!(control.ma_label(), "none");
        let ma = resolve(
            MethodName::Adgcl,
            "MUTAG",
            serde_json::json!({"ma": {"enabled": true}}),
        )
        .unwrap();
        assert_eq!(ma.adgcl.as_ref().unwrap().augmenter, Some(Augmenter::Fixed));
        assert_eq!(
            ma.method_label(),
            "adgcl-fixed",
            "AD-GCL+MA pairs with its control"
        );
        let err = resolve(
            MethodName::Adgcl,
            "MUTAG",
            serde_json::json!({"ma": {"enabled": true}, "adgcl": {"augmenter": "learned"}}),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("adgcl.augmenter"), "{err}");
        assert_eq!(
            resolve(MethodName::Graphcl, "MUTAG", serde_json::json!({}))
                .unwrap()
                .method_label(),
            "graphcl"
        );
    }

    #[test]
    fn numeric_environment_is_recorded_and_checked() {
        let base = preset(MethodName::Graphcl, "MUTAG", 0, None).unwrap();
        // Nothing set: nothing recorded, config and hash as before.
        let mut a = base.clone();
        a.fill_env_from(|_| None).unwrap();
        assert_eq!(a.hash(), base.hash());
        assert!(!serde_json::to_string(&a).unwrap().contains("\"env\""));
        // A variable that changes numbers is recorded, and changes the hash.
        let vendor = |k: &str| (k == "MAGCL_MKL_VENDOR_CHECK").then(|| "1".to_string());
        let mut b = base.clone();
        b.fill_env_from(vendor).unwrap();
        assert_eq!(
            b.env.get("MAGCL_MKL_VENDOR_CHECK").map(String::as_str),
            Some("1")
        );
        assert_ne!(b.hash(), base.hash());
        let json = serde_json::to_string(&b).unwrap();
        assert!(
            json.contains("\"env\":{\"MAGCL_MKL_VENDOR_CHECK\":\"1\"}"),
            "{json}"
        );
        assert_eq!(serde_json::from_str::<RunConfig>(&json).unwrap(), b);
        // Variables that do not change numbers are not recorded.
        let mut c = base.clone();
        c.fill_env_from(|k| (k == "GOMP_SPINCOUNT").then(|| "0".to_string()))
            .unwrap();
        assert!(c.env.is_empty());
        // A recorded config runs only where the environment matches.
        b.fill_env_from(vendor).unwrap();
        let e = b.clone().fill_env_from(|_| None).unwrap_err().to_string();
        assert!(
            e.contains("MAGCL_MKL_VENDOR_CHECK=1") && e.contains("none set"),
            "{e}"
        );
    }

    #[test]
    fn hash_depends_on_every_field() {
        let a = preset(MethodName::Graphcl, "MUTAG", 0, None).unwrap();
        let mut b = a.clone();
        assert_eq!(a.hash(), b.hash());
        b.seed = 1;
        assert_ne!(a.hash(), b.hash());
    }

    /// The CiteSeer readings (docs/citeseer.md) are written into a config, and so into
    /// its hash, only when they leave the default: configs and hashes of earlier rows
    /// stay valid, and a row that names none of them ran the default.
    #[test]
    fn citeseer_readings_are_recorded_only_when_set() {
        let base = preset(MethodName::Base, "CiteSeer", 0, Some("paper")).unwrap();
        let json = serde_json::to_value(&base).unwrap();
        for key in ["best_test_every", "kmeans_l2"] {
            assert!(json["node"].get(key).is_none(), "{key}");
        }
        assert!(json["loss"].get("inter_view_negatives").is_none());
        // a config written before the switches existed reads back as the default
        let back: RunConfig = serde_json::from_value(json).unwrap();
        assert_eq!(back, base);
        let resolve = |over: serde_json::Value| {
            let spec = crate::experiment::config::RunSpec {
                method: Some(MethodName::Base),
                dataset: "CiteSeer".into(),
                seed: 0,
                preset: Some("paper".into()),
                overrides: serde_json::from_value(over).unwrap(),
            };
            RunConfig::resolve(&spec)
        };
        for (over, path) in [
            (
                serde_json::json!({"node": {"split": "public-swapped"}}),
                ["node", "split"],
            ),
            (
                serde_json::json!({"node": {"best_test_every": 100}}),
                ["node", "best_test_every"],
            ),
            (
                serde_json::json!({"node": {"kmeans_l2": true}}),
                ["node", "kmeans_l2"],
            ),
            (
                serde_json::json!({"loss": {"inter_view_negatives": false, "intra_view_negatives": true}}),
                ["loss", "inter_view_negatives"],
            ),
        ] {
            let cfg = resolve(over.clone()).unwrap();
            let v = serde_json::to_value(&cfg).unwrap();
            assert_eq!(v[path[0]][path[1]], over[path[0]][path[1]], "{over}");
            assert_ne!(cfg.hash(), base.hash(), "{over}");
        }
        // refused with the field named
        for (over, field) in [
            (
                serde_json::json!({"node": {"split": "swapped"}}),
                "node.split",
            ),
            (
                serde_json::json!({"loss": {"inter_view_negatives": false}}),
                "loss.inter_view_negatives",
            ),
        ] {
            let e = resolve(over).unwrap_err().to_string();
            assert!(e.contains(field), "{e}");
        }
    }
}
