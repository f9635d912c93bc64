//! Number and name formatting shared by the report's renderings (tables, verdicts).
use super::GroupKey;

/// Display name of a method.
pub fn method_name(m: &str) -> String {
    match m {
        "graphcl" => "GraphCL".into(),
        "simgrace" => "SimGRACE".into(),
        "adgcl" => "AD-GCL".into(),
        "adgcl-fixed" => "AD-GCL (fixed augmenter)".into(),
        "base" => "Base model".into(),
        "untrained-graphcl" => "GraphCL, untrained".into(),
        "untrained-simgrace" => "SimGRACE, untrained".into(),
        "untrained-adgcl" => "AD-GCL, untrained".into(),
        "untrained-base" => "Base model, untrained".into(),
        "wl" => "WL subtree kernel".into(),
        "degree" => "Degree histogram".into(),
        "features" => "Raw features".into(),
        other => match other.split_once(':') {
            Some(("base", preset)) => format!("Base model ({preset})"),
            Some(("untrained-base", preset)) => format!("Base model, untrained ({preset})"),
            _ => other.into(),
        },
    }
}

/// Display name of a group's method, with the node-level split when there is one:
/// `Base model (paper, public split)`.
pub fn method_label(k: &GroupKey) -> String {
    if k.split.is_empty() {
        return method_name(&k.method);
    }
    match k.method.split_once(':') {
        Some(("base", preset)) => format!("Base model ({preset}, {} split)", k.split),
        Some(("untrained-base", preset)) => {
            format!("Base model, untrained ({preset}, {} split)", k.split)
        }
        _ => format!("{} ({} split)", method_name(&k.method), k.split),
    }
}

pub fn fmt_num(x: f64, d: usize) -> String {
    if x.is_finite() {
        format!("{x:.d$}")
    } else {
        "–".into()
    }
}

pub fn fmt_opt(x: Option<f64>, d: usize) -> String {
    x.map(|v| fmt_num(v, d)).unwrap_or_else(|| "–".into())
}

/// An interval as `[lo, hi]`, or `–`.
pub fn fmt_ci(ci: Option<(f64, f64)>, d: usize) -> String {
    ci.map(|(lo, hi)| format!("[{}, {}]", fmt_num(lo, d), fmt_num(hi, d)))
        .unwrap_or_else(|| "–".into())
}

/// p-values: 4 decimals, scientific below 0.001.
pub fn fmt_p(p: Option<f64>) -> String {
    match p {
        None => "–".into(),
        Some(p) if p < 1e-3 => format!("{p:.1e}"),
        Some(p) => format!("{p:.4}"),
    }
}
