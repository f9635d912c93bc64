//! The `features` baseline (node level): the raw node features, row-normalised as the
//! base model reads them, scored by the same logistic-regression probe on the same
//! splits. What the graph adds over the features alone (Veličković et al. 2019, Table 2,
//! "Raw features").
use super::{Embeddings, MethodEntry};
use crate::params::section;
use crate::train::FixedEmbeddings;

/// The registry's entry.
pub static ENTRY: MethodEntry = MethodEntry::new(
    &magcl_config::methods::features::DECL,
    "raw node features + the logistic-regression probe (the node-level floor)",
    // The base model's features, splits and probe; nothing to train.
    |req| {
        let mut p = req.of(&super::base::ENTRY)?;
        p.epochs = 0;
        Ok(p)
    },
    |_p, data, _device, _progress| {
        let ds = data.nodes("features")?;
        let m = ds.features.row_normalized();
        let mut x = vec![0f32; m.rows * m.cols];
        for r in 0..m.rows {
            for k in m.indptr[r]..m.indptr[r + 1] {
                x[r * m.cols + m.indices[k] as usize] = m.data[k];
            }
        }
        Ok(Box::new(FixedEmbeddings(Embeddings::dense(
            x, m.rows, m.cols,
        ))))
    },
)
// The split and probe settings are the base model's.
.sections(&[section::<crate::train::node::NodeParams>()])
.preset_names(&["code", "paper"]);
