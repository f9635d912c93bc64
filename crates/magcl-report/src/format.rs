//! Number and name formatting shared by the report's renderings (tables, verdicts).
use super::GroupKey;

/// Display name of a method, a row label or a floor as its declaration gives it (as the
/// papers write it); an undeclared name is shown as it is.
fn display(m: &str) -> Option<&'static str> {
    magcl_config::registry::row_method(m).display()
}

/// Display name of a method: `graphcl` → `GraphCL`, `untrained-graphcl` → `GraphCL,
/// untrained`, `base:paper` → `Base model (paper)`.
pub fn method_name(m: &str) -> String {
    name_with(m, None)
}

/// The display name with the node-level preset and `split` in one parenthesis.
fn name_with(m: &str, split: Option<&str>) -> String {
    let (family, preset) = match m.split_once(':') {
        Some((f, p)) => (f, Some(p)),
        None => (m, None),
    };
    let (method, untrained) = match family.strip_prefix("untrained-") {
        Some(of) => (of, true),
        None => (family, false),
    };
    let mut s = display(method).map_or_else(|| method.to_string(), str::to_string);
    if untrained {
        s.push_str(", untrained");
    }
    let split = split.map(|x| format!("{x} split"));
    let notes: Vec<&str> = preset.into_iter().chain(split.as_deref()).collect();
    if !notes.is_empty() {
        s.push_str(&format!(" ({})", notes.join(", ")));
    }
    s
}

/// Display name of a group's method, with the node-level split when there is one:
/// `Base model (paper, public split)`.
pub fn method_label(k: &GroupKey) -> String {
    name_with(&k.method, (!k.split.is_empty()).then_some(k.split.as_str()))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn key(method: &str, split: &str) -> GroupKey {
        GroupKey {
            dataset: "Cora".into(),
            method: method.into(),
            evaluator: "logreg".into(),
            ma: "none".into(),
            variant: String::new(),
            split: split.into(),
        }
    }

    #[test]
    fn names_are_built_from_the_method_key() {
        assert_eq!(method_name("graphcl"), "GraphCL");
        assert_eq!(method_name("untrained-adgcl"), "AD-GCL, untrained");
        assert_eq!(method_name("base:paper"), "Base model (paper)");
        assert_eq!(
            method_name("untrained-base:code"),
            "Base model, untrained (code)"
        );
        assert_eq!(method_name("somenewmethod"), "somenewmethod");
        assert_eq!(
            method_name("untrained-somenewmethod"),
            "somenewmethod, untrained"
        );
        assert_eq!(
            method_label(&key("base:paper", "public")),
            "Base model (paper, public split)"
        );
        assert_eq!(
            method_label(&key("untrained-bgrl", "random")),
            "BGRL, untrained (random split)"
        );
        assert_eq!(
            method_label(&key("features", "public")),
            "Raw features (public split)"
        );
        assert_eq!(method_label(&key("graphcl", "")), "GraphCL");
    }
}
