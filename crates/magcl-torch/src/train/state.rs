//! Training state at an epoch boundary, for checkpoints (docs/reliability.md,
//! "Checkpoints"): everything a method carries from one epoch to the next (weights and
//! batch-norm estimates of every variable store, the optimiser's moments and step
//! counts, kept models, learned distributions), as named CPU tensors.
//!
//! A method lists its state once, in [`crate::methods::Method::visit_state`], with a
//! [`StateVisitor`] that either saves what it is shown or loads into it in place: the same
//! list serves both ways, so a save and a load cannot disagree on what is state. Random
//! draws need no entry: every one comes from a stream keyed by (seed, epoch, step, item)
//! ([`crate::rng`]), never from a generator that advances across epochs.
use std::collections::{BTreeMap, BTreeSet};

use tch::{nn, Kind, Tensor};

use crate::error::{Error, Result};
use crate::train::TrainLog;

/// Named tensors on the CPU: a method's (and its run's) state at an epoch boundary.
#[derive(Debug, Default)]
pub struct TrainState {
    pub tensors: BTreeMap<String, Tensor>,
}

/// Saves what a method shows it into a [`TrainState`], or loads a state back into it.
pub enum StateVisitor<'a> {
    Save(&'a mut TrainState),
    Load {
        state: &'a TrainState,
        /// The entries read so far ([`StateVisitor::finish`] checks none is left over).
        read: BTreeSet<String>,
    },
}

impl<'a> StateVisitor<'a> {
    /// A visitor that loads `state`.
    pub fn load(state: &'a TrainState) -> StateVisitor<'a> {
        StateVisitor::Load {
            state,
            read: BTreeSet::new(),
        }
    }

    /// Whether this visitor saves (else it loads).
    pub fn saving(&self) -> bool {
        matches!(self, StateVisitor::Save(_))
    }

    /// The entry `name` of the state being loaded.
    fn entry(&mut self, name: &str) -> Result<&'a Tensor> {
        match self {
            StateVisitor::Save(_) => {
                Err(Error::Checkpoint("internal: reading while saving".into()))
            }
            StateVisitor::Load { state, read } => {
                let t = state.tensors.get(name).ok_or_else(|| {
                    Error::Checkpoint(format!(
                        "the checkpoint has no entry '{name}' (was it written by another \
                         version of magcl, or for another method?)"
                    ))
                })?;
                read.insert(name.to_string());
                Ok(t)
            }
        }
    }

    fn put(&mut self, name: &str, t: Tensor) -> Result<()> {
        if let StateVisitor::Save(s) = self {
            if s.tensors.insert(name.to_string(), t).is_some() {
                return Err(Error::Checkpoint(format!(
                    "internal: the state entry '{name}' is listed twice"
                )));
            }
        }
        Ok(())
    }

    /// A tensor: saved as a CPU copy, or overwritten in place by the saved one (same shape
    /// and kind), without recording a gradient.
    pub fn tensor(&mut self, name: &str, t: &Tensor) -> Result<()> {
        if self.saving() {
            let copy = tch::no_grad(|| t.detach().to_device(tch::Device::Cpu).copy());
            return self.put(name, copy);
        }
        let saved = self.entry(name)?;
        if saved.size() != t.size() || saved.kind() != t.kind() {
            return Err(Error::Checkpoint(format!(
                "the checkpoint's '{name}' is {:?} {:?}, the model's is {:?} {:?} (a checkpoint \
                 of another configuration?)",
                saved.kind(),
                saved.size(),
                t.kind(),
                t.size()
            )));
        }
        tch::no_grad(|| t.shallow_clone().copy_(saved));
        Ok(())
    }

    /// Every variable of `vs` (trainable or not: batch-norm estimates too), as
    /// `prefix/name`.
    pub fn var_store(&mut self, prefix: &str, vs: &nn::VarStore) -> Result<()> {
        let mut vars: Vec<(String, Tensor)> = vs.variables().into_iter().collect();
        vars.sort_by(|a, b| a.0.cmp(&b.0));
        for (k, t) in vars {
            self.tensor(&format!("{prefix}/{k}"), &t)?;
        }
        Ok(())
    }

    /// A list of plain values (any length), saved as a 1-d tensor of their kind: exact
    /// for every value, infinities and NaN included.
    pub fn values<T: tch::kind::Element + Copy>(
        &mut self,
        name: &str,
        v: &mut Vec<T>,
    ) -> Result<()> {
        if self.saving() {
            return self.put(name, Tensor::from_slice(v));
        }
        let saved = self.entry(name)?;
        if saved.kind() != T::KIND || saved.dim() != 1 {
            return Err(Error::Checkpoint(format!(
                "the checkpoint's '{name}' is {:?} {:?}, expected a list of {:?}",
                saved.kind(),
                saved.size(),
                T::KIND
            )));
        }
        *v = Vec::<T>::try_from(saved)?;
        Ok(())
    }

    /// One f64.
    pub fn f64(&mut self, name: &str, x: &mut f64) -> Result<()> {
        let mut v = vec![*x];
        self.values(name, &mut v)?;
        *x = one(name, &v)?;
        Ok(())
    }

    /// One count.
    pub fn u64(&mut self, name: &str, x: &mut u64) -> Result<()> {
        let mut v = vec![*x as i64];
        self.values(name, &mut v)?;
        *x = one(name, &v)? as u64;
        Ok(())
    }

    /// Counts (usize), saved as i64.
    pub fn usizes(&mut self, name: &str, x: &mut Vec<usize>) -> Result<()> {
        let mut v: Vec<i64> = x.iter().map(|&c| c as i64).collect();
        self.values(name, &mut v)?;
        *x = v.into_iter().map(|c| c as usize).collect();
        Ok(())
    }

    /// Whether an optional part is present: saves `present`, or returns the saved flag.
    pub fn present(&mut self, name: &str, present: bool) -> Result<bool> {
        let mut v = vec![present as i64];
        self.values(&format!("{name}?"), &mut v)?;
        Ok(one(name, &v)? != 0)
    }

    /// A training log (per-epoch losses and seconds).
    pub fn log(&mut self, name: &str, log: &mut TrainLog) -> Result<()> {
        self.values(&format!("{name}/losses"), &mut log.epoch_losses)?;
        self.values(&format!("{name}/seconds"), &mut log.epoch_seconds)
    }

    /// After a load: an error if the state holds entries nobody read (a checkpoint of
    /// another method or configuration).
    pub fn finish(self) -> Result<()> {
        if let StateVisitor::Load { state, read } = self {
            let unread: Vec<&String> = state
                .tensors
                .keys()
                .filter(|k| !read.contains(*k))
                .collect();
            if !unread.is_empty() {
                return Err(Error::Checkpoint(format!(
                    "the checkpoint holds state this run does not have: {}",
                    unread
                        .iter()
                        .take(5)
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
        }
        Ok(())
    }
}

fn one<T: Copy>(name: &str, v: &[T]) -> Result<T> {
    match v {
        [x] => Ok(*x),
        _ => Err(Error::Checkpoint(format!(
            "the checkpoint's '{name}' holds {} values, expected one",
            v.len()
        ))),
    }
}

/// Where a training loop starts and what it does when an epoch has fully ended.
pub struct Resume<'h> {
    /// Epochs finished before (the loop's first epoch), with their log.
    pub start: usize,
    pub log: TrainLog,
    /// Optimisation steps taken before (graph level: the global step count).
    pub step: u64,
    pub hook: Option<&'h mut dyn EpochHook>,
}

impl Resume<'_> {
    /// From the first epoch, with no hook.
    pub fn none() -> Resume<'static> {
        Resume {
            start: 0,
            log: TrainLog::default(),
            step: 0,
            hook: None,
        }
    }
}

/// Called by the training loops when an epoch has fully ended (its steps, the run's
/// after-epoch evaluation and the method's own end of epoch).
pub trait EpochHook {
    /// Whether to save after epoch `epoch` (0-based). Asked first, so that a loop that
    /// reads its losses late (node level on CUDA) waits for one only when it saves.
    fn due(&mut self, epoch: usize) -> bool;
    /// Saves: `log` holds epochs `0..=epoch`, `step` counts the steps taken, and `state`
    /// shows a visitor the method's state. An error stops training (also the requested
    /// stop after a number of epochs).
    fn save(
        &mut self,
        epoch: usize,
        log: &TrainLog,
        step: u64,
        state: &mut dyn FnMut(&mut StateVisitor) -> Result<()>,
    ) -> Result<()>;
}

/// Runs `hook` (a [`Resume`]'s) for epoch `epoch` when it is due.
pub fn epoch_ended(
    hook: &mut Option<&mut dyn EpochHook>,
    epoch: usize,
    log: &TrainLog,
    step: u64,
    state: &mut dyn FnMut(&mut StateVisitor) -> Result<()>,
) -> Result<()> {
    match hook {
        Some(h) => {
            if h.due(epoch) {
                h.save(epoch, log, step, state)
            } else {
                Ok(())
            }
        }
        None => Ok(()),
    }
}

/// What no state can be saved of: an error naming the method.
pub fn not_resumable(what: &str) -> Error {
    Error::Config(format!(
        "{what} cannot save its training state: run it without a checkpoint"
    ))
}

/// Kinds a checkpoint file stores, with their codes in the file.
pub const KINDS: &[(Kind, &str)] = &[
    (Kind::Float, "f32"),
    (Kind::Double, "f64"),
    (Kind::Int64, "i64"),
    (Kind::Int, "i32"),
    (Kind::Uint8, "u8"),
    (Kind::Bool, "bool"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_state_loads_back_exactly_and_refuses_a_mismatch() {
        let vs = nn::VarStore::new(tch::Device::Cpu);
        let w = vs.root().var("w", &[2, 3], nn::Init::Const(0.25));
        let mut state = TrainState::default();
        let mut x = f64::INFINITY;
        let mut xs = vec![1.0f64 / 3.0, f64::NAN];
        let mut n = 7u64;
        {
            let mut v = StateVisitor::Save(&mut state);
            v.var_store("m", &vs).unwrap();
            v.f64("x", &mut x).unwrap();
            v.values("xs", &mut xs).unwrap();
            v.u64("n", &mut n).unwrap();
        }
        assert_eq!(state.tensors.len(), 4);
        // change everything, then load
        let _ = tch::no_grad(|| w.shallow_clone().fill_(9.0));
        let (mut x2, mut xs2, mut n2) = (0.0, Vec::<f64>::new(), 0u64);
        let mut v = StateVisitor::load(&state);
        v.var_store("m", &vs).unwrap();
        v.f64("x", &mut x2).unwrap();
        v.values("xs", &mut xs2).unwrap();
        v.u64("n", &mut n2).unwrap();
        v.finish().unwrap();
        assert!(w.equal(&Tensor::full([2, 3], 0.25, (Kind::Float, tch::Device::Cpu))));
        assert_eq!(x2, f64::INFINITY);
        assert_eq!(xs2[0].to_bits(), (1.0f64 / 3.0).to_bits());
        assert!(xs2[1].is_nan());
        assert_eq!(n2, 7);
        assert!(w.requires_grad(), "a loaded variable still trains");

        // an entry left unread, a missing one, a shape that differs
        let mut v = StateVisitor::load(&state);
        v.var_store("m", &vs).unwrap();
        let e = v.finish().unwrap_err().to_string();
        assert!(e.contains("does not have") && e.contains('x'), "{e}");
        let mut v = StateVisitor::load(&state);
        let e = v.f64("y", &mut x2).unwrap_err().to_string();
        assert!(e.contains("no entry 'y'"), "{e}");
        let other = nn::VarStore::new(tch::Device::Cpu);
        let _ = other.root().var("w", &[3, 2], nn::Init::Const(0.0));
        let mut v = StateVisitor::load(&state);
        let e = v.var_store("m", &other).unwrap_err().to_string();
        assert!(e.contains("'m/w'"), "{e}");
    }
}
