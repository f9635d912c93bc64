//! The `degree` baseline: each graph as the histogram of its node labels (where the set
//! has labels) and of its node degrees, with the same SVM as `wl` — the trivial floor,
//! what a classifier gets from the labels and degree distribution alone
//! ([`crate::data::wl::degree_histogram`]).
use super::wl::{count_baseline, kernel_preset};
use super::MethodEntry;

/// The registry's entry.
pub static ENTRY: MethodEntry = MethodEntry::new(
    &magcl_config::methods::degree::DECL,
    "node-label and degree histograms + the SVM (the trivial graph-level floor)",
    kernel_preset,
    |_p, data, _device, _progress| {
        let g = data.graphs("degree")?;
        Ok(Box::new(count_baseline(
            g,
            crate::data::wl::degree_histogram,
        )?))
    },
);
