//! Resolving a run: the method's preset (its registry entry's, [`MethodEntry::preset`]),
//! then the overrides merged on top, checked.
use super::config::*;
use crate::error::{Error, Result};
use crate::methods::registry;
use crate::methods::{MethodEntry, PresetRequest};
use crate::params::bad;

/// Resolving a [`RunSpec`] lives beside the presets it starts from (the config module
/// defines the types only, so the two do not import each other).
impl RunConfig {
    /// The preset config for `spec`, with `spec.overrides` merged on top and validated.
    pub fn resolve(spec: &RunSpec) -> Result<RunConfig> {
        let task = super::sweep::known_dataset(&spec.dataset);
        let method = match spec.method {
            Some(m) => m,
            None => MethodName::of(registry::default_for(task.unwrap_or(Task::Graph))?),
        };
        let entry: &MethodEntry = method.entry()?;
        let request = PresetRequest {
            dataset: &spec.dataset,
            task,
            name: spec.preset.as_deref(),
            overrides: &spec.overrides,
        };
        let mut base =
            RunConfig::from_preset(method, &spec.dataset, spec.seed, (entry.preset)(&request)?);
        // A named reading sets its switches first; switches given beside it win.
        if let Some(r) = spec.overrides.get("ma").and_then(|m| m.get("reading")) {
            let name = r
                .as_str()
                .ok_or_else(|| bad("ma.reading", format!("expected a name, got {r}")))?;
            Reading::find(name)?.apply(&mut base.ma);
        }
        let mut value = serde_json::to_value(&base)?;
        settable_defaults(&mut value);
        merge(
            &mut value,
            &serde_json::Value::Object(spec.overrides.clone()),
            "",
            entry.name,
        )?;
        let mut cfg: RunConfig = serde_json::from_value(value)
            .map_err(|e| Error::Config(format!("invalid configuration: {e}")))?;
        cfg.normalise();
        cfg.validate()?;
        Ok(cfg)
    }
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
    if let Some(top) = value.as_object_mut() {
        top.entry("pretrain")
            .or_insert(json!({"graphs": null, "match_steps": false}));
    }
}

/// Deep-merges `over` into `base`; a key `base` does not have is an error naming its path
/// and `method`.
fn merge(
    base: &mut serde_json::Value,
    over: &serde_json::Value,
    path: &str,
    method: &str,
) -> Result<()> {
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
                    Some(slot) if slot.is_object() && v.is_object() => merge(slot, v, &p, method)?,
                    Some(slot) => *slot = v.clone(),
                    None => {
                        return Err(Error::UnknownSetting {
                            key: p,
                            method: method.into(),
                        })
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

    /// The preset config of `method` on `dataset`, no overrides, not validated.
    fn preset(
        method: MethodName,
        dataset: &str,
        seed: u64,
        name: Option<&str>,
    ) -> Result<RunConfig> {
        let request = PresetRequest {
            dataset,
            task: crate::experiment::sweep::known_dataset(dataset),
            name,
            overrides: &Default::default(),
        };
        let p = (method.entry()?.preset)(&request)?;
        Ok(RunConfig::from_preset(method, dataset, seed, p))
    }

    #[test]
    fn every_method_has_a_valid_preset() {
        for m in [
            MethodName::parse("graphcl").unwrap(),
            MethodName::parse("simgrace").unwrap(),
            MethodName::parse("adgcl").unwrap(),
        ] {
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
                preset(MethodName::parse("base").unwrap(), d, 0, Some(p))
                    .unwrap()
                    .validate()
                    .unwrap();
            }
        }
    }

    #[test]
    fn overrides_merge_and_unknown_keys_fail() {
        let mut spec = RunSpec {
            method: Some(MethodName::parse("graphcl").unwrap()),
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
        spec.overrides = serde_json::from_str(r#"{"loss": {"temp": 0.5}}"#).unwrap();
        match RunConfig::resolve(&spec).unwrap_err() {
            Error::UnknownSetting { key, method } => {
                assert_eq!((key.as_str(), method.as_str()), ("loss.temp", "graphcl"))
            }
            e => panic!("expected UnknownSetting, got {e:?}"),
        }
        spec.overrides = serde_json::from_str(r#"{"epoch": 3}"#).unwrap();
        let err = RunConfig::resolve(&spec).unwrap_err().to_string();
        assert!(err.contains("'epoch'"), "{err}");
        spec.overrides = serde_json::from_str(r#"{"ma": {"view1": [3, 1]}}"#).unwrap();
        let err = RunConfig::resolve(&spec).unwrap_err().to_string();
        assert!(err.contains("ma.view1"), "{err}");
    }

    /// `features` keeps its text (the hash is over it), stands for the rule the text names
    /// (a method's word for the rule it declares), and is checked when read and against
    /// the level.
    #[test]
    fn features_are_read_typed_and_written_as_given() {
        use magcl_data::features::{FeatureKind, FeatureSpec};
        for e in registry::all() {
            // Every declared rule parses (`FeatureSetting::declared` would panic).
            let f = e.features();
            let back: FeatureSetting =
                serde_json::from_value(serde_json::json!(f.as_str())).unwrap();
            assert_eq!(back, f, "{}", e.name);
            assert_eq!(
                serde_json::to_value(&f).unwrap(),
                serde_json::json!(f.as_str())
            );
        }
        let graphcl = MethodName::parse("graphcl").unwrap();
        let cfg = resolve(graphcl, "MUTAG", serde_json::json!({})).unwrap();
        assert_eq!(
            (cfg.features.as_str(), cfg.features.spec()),
            ("graphcl", FeatureSpec::Auto)
        );
        let cfg = resolve(
            graphcl,
            "MUTAG",
            serde_json::json!({"features": "Degree:5"}),
        )
        .unwrap();
        assert_eq!(
            cfg.features.spec(),
            FeatureSpec::Kind(FeatureKind::Degree { cap: 5 })
        );
        assert!(serde_json::to_string(&cfg)
            .unwrap()
            .contains(r#""features":"Degree:5""#));
        let adgcl: FeatureSetting = "adgcl".parse().unwrap();
        assert_eq!(adgcl.spec(), FeatureSpec::Kind(FeatureKind::Constant));
        for (method, dataset, bad) in [
            ("graphcl", "MUTAG", "bogus"),
            ("graphcl", "MUTAG", "degree:0"),
            ("graphcl", "MUTAG", "row-normalised"),
            ("base", "Cora", "labels"),
        ] {
            let m = MethodName::parse(method).unwrap();
            let err = resolve(m, dataset, serde_json::json!({ "features": bad }))
                .unwrap_err()
                .to_string();
            assert!(err.contains("feature"), "{method} {bad}: {err}");
        }
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
            MethodName::parse("graphcl").unwrap(),
            "MUTAG",
            serde_json::json!({"ma": {"enabled": true}}),
        )
        .unwrap();
        assert_eq!(cur.ma.reading, ReadingName::Current);
        assert_eq!(
            cur.ma_label(),
            "ARS gin+filter",
            "the default label is unchanged"
        );
        let code = resolve(
            MethodName::parse("graphcl").unwrap(),
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
            MethodName::parse("simgrace").unwrap(),
            "MUTAG",
            serde_json::json!({"ma": {"enabled": true, "reading": "code", "k_branch": "negatives", "gin_mode": "gin-sum"}}),
        )
        .unwrap();
        assert_eq!(negk.ma.k_branch, KBranch::Negatives);
        assert_eq!(negk.ma.redraw, Redraw::Epoch);
        assert_eq!(negk.ma_label(), "ARS code gin-sum k_branch=negatives");
        let cons = resolve(
            MethodName::parse("graphcl").unwrap(),
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
                MethodName::parse("graphcl").unwrap(),
                "MUTAG",
                serde_json::json!({"ma": {"enabled": true, "reading": "paper"}})
            )
            .unwrap()
            .ma_label(),
            "ARS paper"
        );
        let err = resolve(
            MethodName::parse("graphcl").unwrap(),
            "MUTAG",
            serde_json::json!({"ma": {"reading": "codes"}}),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("unknown MA reading 'codes'"), "{err}");
        // exclusive ranges need room below the upper bound
        let err = resolve(
            MethodName::parse("graphcl").unwrap(),
            "MUTAG",
            serde_json::json!({"ma": {"reading": "code", "view1": [1, 1]}}),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("ma.view1") && err.contains("empty"), "{err}");
        // graph-level switches are refused at node level
        let err = resolve(
            MethodName::parse("base").unwrap(),
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
        let learned = resolve(
            MethodName::parse("adgcl").unwrap(),
            "MUTAG",
            serde_json::json!({}),
        )
        .unwrap();
        assert_eq!(
            learned
                .sections
                .get::<AdgclParams>()
                .unwrap()
                .unwrap()
                .augmenter,
            Some(Augmenter::Learned)
        );
        assert_eq!(learned.method_label(), "adgcl");
        let control = resolve(
            MethodName::parse("adgcl").unwrap(),
            "MUTAG",
            serde_json::json!({"adgcl": {"augmenter": "fixed"}}),
        )
        .unwrap();
        assert_eq!(control.method_label(), "adgcl-fixed");
        assert_eq!(control.ma_label(), "none");
        let ma = resolve(
            MethodName::parse("adgcl").unwrap(),
            "MUTAG",
            serde_json::json!({"ma": {"enabled": true}}),
        )
        .unwrap();
        assert_eq!(
            ma.sections.get::<AdgclParams>().unwrap().unwrap().augmenter,
            Some(Augmenter::Fixed)
        );
        assert_eq!(
            ma.method_label(),
            "adgcl-fixed",
            "AD-GCL+MA pairs with its control"
        );
        let err = resolve(
            MethodName::parse("adgcl").unwrap(),
            "MUTAG",
            serde_json::json!({"ma": {"enabled": true}, "adgcl": {"augmenter": "learned"}}),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("adgcl.augmenter"), "{err}");
        assert_eq!(
            resolve(
                MethodName::parse("graphcl").unwrap(),
                "MUTAG",
                serde_json::json!({})
            )
            .unwrap()
            .method_label(),
            "graphcl"
        );
    }

    #[test]
    fn numeric_environment_is_recorded_and_checked() {
        let base = preset(MethodName::parse("graphcl").unwrap(), "MUTAG", 0, None).unwrap();
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
        let a = preset(MethodName::parse("graphcl").unwrap(), "MUTAG", 0, None).unwrap();
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
        let base = preset(
            MethodName::parse("base").unwrap(),
            "CiteSeer",
            0,
            Some("paper"),
        )
        .unwrap();
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
                method: Some(MethodName::parse("base").unwrap()),
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

    /// `pretrain` is written into a config, and so into its hash, only when set: a config
    /// without it keeps the hash it always had; a subset, or matched steps beside it,
    /// makes another config. Floors and node-level methods refuse it with the field named.
    #[test]
    fn pretrain_is_recorded_only_when_set_and_refused_where_nothing_trains_on_graphs() {
        let graphcl = MethodName::parse("graphcl").unwrap();
        let base = preset(graphcl, "NCI1", 0, None).unwrap();
        let plain = resolve(graphcl, "NCI1", serde_json::json!({})).unwrap();
        assert_eq!(plain, base);
        assert_eq!(plain.hash(), base.hash());
        assert!(!serde_json::to_string(&plain).unwrap().contains("pretrain"));
        let sub = resolve(
            graphcl,
            "NCI1",
            serde_json::json!({"pretrain": {"graphs": 256}}),
        )
        .unwrap();
        let json = serde_json::to_value(&sub).unwrap();
        assert_eq!(json["pretrain"], serde_json::json!({"graphs": 256}));
        assert_ne!(sub.hash(), base.hash());
        assert_eq!(serde_json::from_value::<RunConfig>(json).unwrap(), sub);
        let matched = resolve(
            graphcl,
            "NCI1",
            serde_json::json!({"pretrain": {"graphs": 256, "match_steps": true}}),
        )
        .unwrap();
        assert_eq!(
            serde_json::to_value(&matched).unwrap()["pretrain"],
            serde_json::json!({"graphs": 256, "match_steps": true})
        );
        assert_ne!(matched.hash(), sub.hash());
        // only the settings; nothing else of the config moves
        let mut back = sub.clone();
        back.pretrain = Default::default();
        assert_eq!(back, base);
        for (method, dataset, over, says) in [
            ("graphcl", "NCI1", serde_json::json!({"graphs": 0}), "got 0"),
            ("graphcl", "NCI1", serde_json::json!({"graphs": 1}), "got 1"),
            (
                "graphcl",
                "NCI1",
                serde_json::json!({"match_steps": true}),
                "pretrain.match_steps",
            ),
            (
                "graphcl",
                "NCI1",
                serde_json::json!({"graph": 5}),
                "pretrain.graph",
            ),
            (
                "untrained",
                "NCI1",
                serde_json::json!({"graphs": 64}),
                "floor",
            ),
            ("wl", "NCI1", serde_json::json!({"graphs": 64}), "floor"),
            ("degree", "NCI1", serde_json::json!({"graphs": 64}), "floor"),
            (
                "base",
                "Cora",
                serde_json::json!({"graphs": 64}),
                "graph-level",
            ),
        ] {
            let e = resolve(
                MethodName::parse(method).unwrap(),
                dataset,
                serde_json::json!({ "pretrain": over }),
            )
            .unwrap_err()
            .to_string();
            assert!(e.contains("pretrain") && e.contains(says), "{method}: {e}");
        }
        // every method that trains on graphs takes it
        for m in ["simgrace", "adgcl", "infograph", "joaov2", "mvgrl"] {
            resolve(
                MethodName::parse(m).unwrap(),
                "NCI1",
                serde_json::json!({"pretrain": {"graphs": 64}, "ma": {"enabled": true}}),
            )
            .unwrap_or_else(|e| panic!("{m}: {e}"));
        }
    }

    fn untrained(overrides: serde_json::Value) -> RunConfig {
        RunConfig::resolve(&RunSpec {
            method: Some(MethodName::parse("untrained").unwrap()),
            dataset: "toy".into(),
            seed: 5,
            overrides: serde_json::from_value(overrides).unwrap(),
            ..Default::default()
        })
        .unwrap()
    }

    #[test]
    fn the_untrained_preset_is_the_methods_own_with_no_epoch() {
        let cfg = untrained(serde_json::json!({}));
        assert_eq!(cfg.epochs, 0);
        assert_eq!(cfg.method_label(), "untrained-graphcl");
        assert_eq!(cfg.layers, 3, "GraphCL's encoder");
        let cfg = untrained(serde_json::json!({"untrained": {"of": "simgrace"}}));
        assert_eq!(cfg.method_label(), "untrained-simgrace");
        assert_eq!((cfg.layers, cfg.gin_eps), (5, 1.0), "SimGRACE's encoder");
        let cfg = untrained(serde_json::json!({"untrained": {"of": "adgcl"}}));
        // The wrapped method's own normalisation applies: AD-GCL's augmenter follows MA.
        let aug = |c: &RunConfig| c.sections.get::<AdgclParams>().unwrap().unwrap().augmenter;
        assert_eq!(aug(&cfg), Some(Augmenter::Learned));
        let with_ma =
            untrained(serde_json::json!({"untrained": {"of": "adgcl"}, "ma": {"enabled": true}}));
        assert_eq!(aug(&with_ma), Some(Augmenter::Fixed));
        assert_eq!(cfg.evaluator.name(), "linear-svc", "AD-GCL's protocol");
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
}
