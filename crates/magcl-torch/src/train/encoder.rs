//! What methods do with an encoder besides training it: embed every item with the
//! evaluation encoder (in chunks, no gradient), set batch-norm running estimates from the
//! data without a gradient step (what the `untrained` floor asks), and the GraphCL-style
//! GIN tower with its projection head that GraphCL and SimGRACE share. Framework shared by
//! the methods of both levels (BGRL sets its GCN's batch norms with [`calibrate_norms`]).
use tch::nn::{self, Module};
use tch::{Device, Tensor};

use crate::error::{Error, Result};
use crate::graph::{Batch, GraphTensors};
use crate::ma::MaParams;
use crate::nn::{GinEncoder, GinParams, GinStyle, Init, Mlp};
use crate::params::Checked;
use crate::train::graph::GraphData;

/// A GraphCL-style GIN encoder (per-layer sum-pool concat) and its projection head in one
/// variable store, as GraphCL and SimGRACE build them.
pub struct Tower {
    pub vs: nn::VarStore,
    pub encoder: GinEncoder,
    pub projector: Mlp,
    /// The evaluation encoder's schedule ([`crate::ma::eval_schedule`]).
    pub eval_schedule: Vec<usize>,
}

impl Tower {
    pub fn new(
        gin: &Checked<GinParams>,
        ma: &Checked<MaParams>,
        input_dim: usize,
        device: Device,
    ) -> Tower {
        let vs = nn::VarStore::new(device);
        let root = vs.root();
        let encoder = GinEncoder::new(
            &(&root / "encoder"),
            input_dim as i64,
            gin,
            GinStyle::GraphCl,
            Init::XavierZeroBias,
        );
        let e = encoder.embedding_dim();
        let projector = Mlp::new(&root / "projector", e, e, e, Init::XavierZeroBias);
        Tower {
            vs,
            encoder,
            projector,
            eval_schedule: crate::ma::eval_schedule(ma, gin.layers),
        }
    }

    /// Projected graph embeddings of batch `g` with `schedule[i]` propagations in layer i.
    pub fn project(&self, g: &GraphTensors, schedule: &[usize], train: bool) -> Tensor {
        self.projector
            .forward(&self.encoder.forward(g, schedule, train).graph)
    }

    /// Embeddings of all graphs from the evaluation encoder in evaluation mode.
    pub fn embed(&self, data: &GraphData) -> Result<(Vec<f32>, usize)> {
        embed_encoder(&self.encoder, &self.eval_schedule, data, self.vs.device())
    }

    /// The evaluation encoder's batch-norm estimates from `data` ([`calibrate_batch_norm`]).
    pub fn calibrate_batch_norm(&self, data: &GraphData) -> Result<()> {
        calibrate_batch_norm(&self.encoder, &self.eval_schedule, data, self.vs.device())
    }
}

/// Embeddings of all graphs from `encoder` with `schedule` (the plain one, or `eval_k`
/// per layer under MA: [`crate::ma::eval_schedule`]), in evaluation mode: what every
/// graph-level method evaluates.
pub fn embed_encoder(
    encoder: &GinEncoder,
    schedule: &[usize],
    data: &GraphData,
    device: Device,
) -> Result<(Vec<f32>, usize)> {
    embed_in_chunks(data, device, usize::MAX, |g, _| {
        encoder.forward(g, schedule, false).graph
    })
}

/// Sets the running estimates of every batch-norm layer of `encoder` to the statistics
/// of its input over all of `data`: one forward pass in training mode with `schedule`
/// (the evaluation encoder's), all graphs as one batch, unaugmented, no gradient. The
/// estimates are zeroed first, so after the pass they hold `momentum × (batch
/// statistic)`, which is divided out: the result is the mean and the unbiased variance
/// of each channel over every node of the dataset — what the running estimates of a
/// long training would approach if the weights stood still. Nothing but the running
/// estimates changes.
pub fn calibrate_batch_norm(
    encoder: &GinEncoder,
    schedule: &[usize],
    data: &GraphData,
    device: Device,
) -> Result<()> {
    calibrate_norms(&encoder.bns, crate::nn::BN_MOMENTUM, || {
        let all = Batch::collate(&data.views, data.dim).to_tensors(device);
        let _ = encoder.forward(&all, schedule, true);
    });
    Ok(())
}

/// Sets the running estimates of `bns` (batch norms of momentum `momentum`) to the
/// statistics of their inputs in `pass`, one forward pass in training mode: the estimates
/// are zeroed first, so after the pass they hold `momentum × (batch statistic)`, which is
/// divided out. No gradient is recorded.
pub fn calibrate_norms(bns: &[tch::nn::BatchNorm], momentum: f64, pass: impl FnOnce()) {
    tch::no_grad(|| {
        for bn in bns {
            let _ = bn.running_mean.shallow_clone().zero_();
            let _ = bn.running_var.shallow_clone().zero_();
        }
        pass();
        for bn in bns {
            let _ = bn.running_mean.shallow_clone().g_div_scalar_(momentum);
            let _ = bn.running_var.shallow_clone().g_div_scalar_(momentum);
        }
    });
}

/// The most graphs [`embed_in_chunks`] batches at once.
pub const CHUNK_GRAPHS: usize = 1024;

/// Consecutive ranges of graph indices covering all of `sizes` (each graph's node count)
/// in order: each of at most [`CHUNK_GRAPHS`] graphs and at most `max_nodes` nodes, except
/// that a graph larger than `max_nodes` is a range of its own.
pub fn chunk_ranges(sizes: &[usize], max_nodes: usize) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let (mut start, mut nodes) = (0, 0usize);
    for (i, &n) in sizes.iter().enumerate() {
        if i > start && (i - start == CHUNK_GRAPHS || nodes.saturating_add(n) > max_nodes) {
            out.push(start..i);
            (start, nodes) = (i, 0);
        }
        nodes = nodes.saturating_add(n);
    }
    if start < sizes.len() {
        out.push(start..sizes.len());
    }
    out
}

/// Runs `forward` over all graphs in chunks ([`chunk_ranges`] with `max_nodes`; no
/// gradient; it gets each chunk batched and its range of graph indices) and gathers
/// `n × d` rows on the CPU.
pub fn embed_in_chunks(
    data: &GraphData,
    device: Device,
    max_nodes: usize,
    forward: impl Fn(&GraphTensors, std::ops::Range<usize>) -> Tensor,
) -> Result<(Vec<f32>, usize)> {
    let sizes: Vec<usize> = data.views.iter().map(|v| v.num_nodes).collect();
    let mut parts = Vec::new();
    tch::no_grad(|| -> Result<()> {
        for range in chunk_ranges(&sizes, max_nodes) {
            let b = Batch::collate(&data.views[range.clone()], data.dim);
            parts.push(forward(&b.to_tensors(device), range).to_device(Device::Cpu));
        }
        Ok(())
    })?;
    let all = Tensor::cat(&parts, 0)
        .to_kind(tch::Kind::Float)
        .contiguous();
    let d = all.size().get(1).copied().unwrap_or(0) as usize;
    let v = Vec::<f32>::try_from(all.flatten(0, -1))?;
    if let Some(i) = v.iter().position(|x| !x.is_finite()) {
        return Err(Error::Numeric(format!(
            "the embedding of graph {} is not finite",
            i / d.max(1)
        )));
    }
    Ok((v, d))
}

/// Trainable variables of `vs` whose names start with `prefix`, sorted by name (so that
/// random draws over them happen in a fixed order).
pub fn sorted_vars(vs: &nn::VarStore, prefix: &str) -> Vec<(String, Tensor)> {
    let mut v: Vec<(String, Tensor)> = vs
        .variables()
        .into_iter()
        .filter(|(k, t)| k.starts_with(prefix) && t.requires_grad())
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without a node bound the chunks are the 1,024-graph ones every method embedded in
    /// before the bound existed.
    #[test]
    fn chunks_without_a_node_bound_are_runs_of_1024_graphs() {
        let sizes = vec![7; 2 * CHUNK_GRAPHS + 5];
        let r = chunk_ranges(&sizes, usize::MAX);
        assert_eq!(r, [0..1024, 1024..2048, 2048..2053]);
        assert!(chunk_ranges(&[], usize::MAX).is_empty());
    }

    /// Ranges cover every graph once, in order; each holds at most `max_nodes` nodes
    /// unless it is one graph larger than that; a range ends only where the next graph
    /// would pass a bound.
    #[test]
    fn chunks_hold_at_most_max_nodes() {
        let sizes = [3, 4, 2, 10, 1, 1, 5, 5, 0, 6];
        let r = chunk_ranges(&sizes, 6);
        assert_eq!(r, [0..1, 1..3, 3..4, 4..6, 6..7, 7..9, 9..10]);
        let mut next = 0;
        for (k, range) in r.iter().enumerate() {
            assert_eq!(range.start, next);
            next = range.end;
            let nodes: usize = sizes[range.clone()].iter().sum();
            assert!(nodes <= 6 || range.len() == 1);
            if let Some(&after) = sizes.get(range.end) {
                assert!(nodes + after > 6, "range {k} could take the next graph");
            }
        }
        assert_eq!(next, sizes.len());
    }
}
