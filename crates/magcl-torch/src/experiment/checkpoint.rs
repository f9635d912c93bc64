//! Checkpoints of a run's training (docs/reliability.md, "Checkpoints"): the state a run
//! carries across epochs ([`crate::train::state`]) written atomically at epoch
//! boundaries, so that a killed run continues from its last saved epoch and ends with the
//! numbers of an uninterrupted one.
//!
//! The file (`magcl train --checkpoint FILE`; `magcl bench` keeps one per running cell):
//!
//! ```text
//! MAGCLCK1                 8 bytes
//! H                        u64, little-endian: the header's length in bytes
//! header                   H bytes of JSON: format, config_hash, device, git_commit,
//!                          epochs_done, step, and `entries`: [{name, kind, shape}, …]
//! data                     each entry's values in that order, row-major, little-endian
//!                          (kinds f32, f64, i64, i32, u8, bool)
//! checksum                 u64, little-endian: FNV-1a 64 of every byte before it
//! ```
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use tch::{Device, Kind, Tensor};

use crate::error::{Error, Result};
use crate::train::state::{EpochHook, StateVisitor, TrainState, KINDS};
use crate::train::TrainLog;

const MAGIC: &[u8; 8] = b"MAGCLCK1";
/// The header's `format`.
const FORMAT: u32 = 1;
/// The largest checkpoint read (far above any model's state; a bound, not a budget).
const MAX_FILE: u64 = 1 << 40;
/// The largest header a checkpoint may have (entries of the largest models fit easily).
const MAX_HEADER: u64 = 64 << 20;

/// How a run checkpoints (`--checkpoint` and the options beside it).
#[derive(Clone, Debug, PartialEq)]
pub struct CheckpointOptions {
    /// The checkpoint file: read at the start when it exists, written during training,
    /// removed when the run has its outcome.
    pub path: PathBuf,
    /// Save after every this many epochs (0: not by count).
    pub every_epochs: usize,
    /// Save when this many seconds have passed since the last save or the start (0: not
    /// by time).
    pub every_secs: f64,
    /// Stop (with [`Error::Stopped`]) once this many epochs have run in this process,
    /// after saving: to split a long run over several calls, and for tests.
    pub stop_after: Option<usize>,
}

impl CheckpointOptions {
    /// Saves every 60 seconds at `path`.
    pub fn new(path: PathBuf) -> CheckpointOptions {
        CheckpointOptions {
            path,
            every_epochs: 0,
            every_secs: DEFAULT_EVERY_SECS,
            stop_after: None,
        }
    }
}

/// The default interval of timed saves: small beside a cell worth resuming, large beside
/// the time a save takes.
pub const DEFAULT_EVERY_SECS: f64 = 60.0;

#[derive(Serialize, Deserialize, Debug)]
struct Header {
    format: u32,
    config_hash: String,
    device: String,
    git_commit: String,
    epochs_done: usize,
    step: u64,
    entries: Vec<Entry>,
}

#[derive(Serialize, Deserialize, Debug)]
struct Entry {
    name: String,
    kind: String,
    shape: Vec<i64>,
}

/// A checkpoint read back: where training stands and its state.
pub struct Saved {
    pub epochs_done: usize,
    pub step: u64,
    pub state: TrainState,
}

/// What identifies the run a checkpoint belongs to.
#[derive(Clone, Debug)]
pub struct Identity {
    pub config_hash: String,
    /// The run's device: a checkpoint resumes on a device of the same kind (the CPU, or
    /// any GPU index: a sweep's cell may land on another GPU of the host when resumed).
    pub device: Device,
}

/// The kind of a device name as headers record it (`cuda:1` → `cuda`).
fn device_kind(name: &str) -> &str {
    name.split(':').next().unwrap_or(name)
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn kind_code(k: Kind) -> Option<&'static str> {
    KINDS.iter().find(|(kk, _)| *kk == k).map(|(_, c)| *c)
}

fn kind_of(code: &str) -> Option<Kind> {
    KINDS.iter().find(|(_, c)| *c == code).map(|(k, _)| *k)
}

/// The file's bytes for `state` after `epochs_done` epochs and `step` steps.
pub fn encode(id: &Identity, epochs_done: usize, step: u64, state: &TrainState) -> Result<Vec<u8>> {
    let mut entries = Vec::new();
    let mut data = Vec::new();
    for (name, t) in &state.tensors {
        let kind = kind_code(t.kind()).ok_or_else(|| {
            Error::Checkpoint(format!(
                "internal: state entry '{name}' has kind {:?}, which checkpoints do not store",
                t.kind()
            ))
        })?;
        let t = t.contiguous();
        let numel = t.numel();
        let start = data.len();
        data.resize(start + numel * t.kind().elt_size_in_bytes(), 0);
        t.f_copy_data_u8(&mut data[start..], numel)?;
        entries.push(Entry {
            name: name.clone(),
            kind: kind.to_string(),
            shape: t.size(),
        });
    }
    let header = serde_json::to_vec(&Header {
        format: FORMAT,
        config_hash: id.config_hash.clone(),
        device: super::run::device_name(id.device),
        git_commit: env!("MAGCL_GIT_COMMIT").to_string(),
        epochs_done,
        step,
        entries,
    })?;
    let mut out = Vec::with_capacity(16 + header.len() + data.len() + 8);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(header.len() as u64).to_le_bytes());
    out.extend_from_slice(&header);
    out.extend_from_slice(&data);
    let sum = fnv1a(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    Ok(out)
}

/// Reads a checkpoint's bytes: an error naming `path` and what is wrong for a damaged
/// file, and for one of another configuration or device (`id`).
pub fn decode(path: &Path, bytes: &[u8], id: &Identity) -> Result<Saved> {
    let bad = |what: String| -> Error {
        Error::Core(magcl_core::Error::file(
            path,
            format!(
                "not a usable checkpoint: {what} (delete it to start the run from the first epoch)"
            ),
        ))
    };
    if bytes.len() < 24 || &bytes[..8] != MAGIC {
        return Err(bad(
            "it does not start with a magcl checkpoint's mark".into()
        ));
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    let sum = u64::from_le_bytes(sum.try_into().unwrap_or_default());
    if fnv1a(body) != sum {
        return Err(bad(
            "its checksum does not match (a damaged or cut-off file)".into(),
        ));
    }
    let hlen = u64::from_le_bytes(body[8..16].try_into().unwrap_or_default());
    if hlen > MAX_HEADER || 16 + hlen > body.len() as u64 {
        return Err(bad(format!(
            "its header length {hlen} does not fit the file"
        )));
    }
    let hend = 16 + hlen as usize;
    let header: Header = serde_json::from_slice(&body[16..hend])
        .map_err(|e| bad(format!("its header is not valid: {e}")))?;
    if header.format != FORMAT {
        return Err(bad(format!(
            "format {} (this magcl reads format {FORMAT})",
            header.format
        )));
    }
    if header.config_hash != id.config_hash {
        return Err(Error::Checkpoint(format!(
            "{}: this checkpoint belongs to the config with hash {}, not to this run's {}: \
             use another checkpoint file, or delete this one",
            path.display(),
            header.config_hash,
            id.config_hash
        )));
    }
    let device = super::run::device_name(id.device);
    if device_kind(&header.device) != device_kind(&device) {
        return Err(Error::Checkpoint(format!(
            "{}: this checkpoint was written by a run on {}; this run is on {device} and would \
             not give the numbers of either: run on {} or delete the checkpoint",
            path.display(),
            header.device,
            header.device
        )));
    }
    let commit = env!("MAGCL_GIT_COMMIT");
    if header.git_commit != commit {
        eprintln!(
            "warning: {}: written by magcl {}, resumed by {commit}: the numbers may differ from \
             an uninterrupted run of either",
            path.display(),
            header.git_commit
        );
    }
    let mut state = TrainState::default();
    let mut at = hend;
    let data_end = body.len();
    for e in header.entries {
        let kind = kind_of(&e.kind)
            .ok_or_else(|| bad(format!("entry '{}' has unknown kind '{}'", e.name, e.kind)))?;
        let numel = e
            .shape
            .iter()
            .try_fold(1usize, |acc, &d| {
                usize::try_from(d).ok().and_then(|d| acc.checked_mul(d))
            })
            .ok_or_else(|| bad(format!("entry '{}' has shape {:?}", e.name, e.shape)))?;
        let len = numel
            .checked_mul(kind.elt_size_in_bytes())
            .filter(|&l| l <= data_end - at)
            .ok_or_else(|| bad(format!("entry '{}' runs past the end of the file", e.name)))?;
        let t = Tensor::from_data_size(&bytes[at..at + len], &e.shape, kind);
        at += len;
        if state.tensors.insert(e.name.clone(), t).is_some() {
            return Err(bad(format!("entry '{}' appears twice", e.name)));
        }
    }
    if at != data_end {
        return Err(bad(format!("{} bytes after the last entry", data_end - at)));
    }
    Ok(Saved {
        epochs_done: header.epochs_done,
        step: header.step,
        state,
    })
}

/// The checkpoint at `path` for the run `id`, if one exists.
pub fn load(path: &Path, id: &Identity) -> Result<Option<Saved>> {
    if !path.exists() {
        return Ok(None);
    }
    let bytes = crate::files::read_regular(path, MAX_FILE, "a checkpoint")?;
    decode(path, &bytes, id).map(Some)
}

/// Removes the checkpoint at `path` (a run that has its outcome); none there is fine.
pub fn remove(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::Core(
            magcl_core::Error::file(path, format!("cannot remove the checkpoint: {e}")),
        )),
        _ => Ok(()),
    }
}

/// The [`EpochHook`] of a run: decides when to save, adds the run's own carried values
/// (`run_state`: selected epochs, evaluation time) and writes the file atomically.
pub struct Checkpointer<'r> {
    pub opts: CheckpointOptions,
    pub id: Identity,
    /// The run's epochs.
    pub epochs: usize,
    /// Epochs done before this process started.
    pub start: usize,
    last_save: Instant,
    /// Seconds the run spent before this process (from the checkpoint) and when this
    /// process started, for the run's total time.
    pub seconds_before: f64,
    pub started: Instant,
    pub run_state: &'r mut dyn FnMut(&mut StateVisitor) -> Result<()>,
}

impl<'r> Checkpointer<'r> {
    pub fn new(
        opts: CheckpointOptions,
        id: Identity,
        epochs: usize,
        start: usize,
        seconds_before: f64,
        started: Instant,
        run_state: &'r mut dyn FnMut(&mut StateVisitor) -> Result<()>,
    ) -> Checkpointer<'r> {
        Checkpointer {
            opts,
            id,
            epochs,
            start,
            last_save: Instant::now(),
            seconds_before,
            started,
            run_state,
        }
    }

    fn stop_now(&self, epoch: usize) -> bool {
        self.opts
            .stop_after
            .is_some_and(|k| epoch + 1 - self.start >= k && epoch + 1 < self.epochs)
    }
}

impl EpochHook for Checkpointer<'_> {
    fn due(&mut self, epoch: usize) -> bool {
        let n = self.opts.every_epochs;
        let s = self.opts.every_secs;
        (n > 0 && (epoch + 1).is_multiple_of(n))
            || (s > 0.0 && self.last_save.elapsed().as_secs_f64() >= s)
            || self.stop_now(epoch)
    }

    fn save(
        &mut self,
        epoch: usize,
        log: &TrainLog,
        step: u64,
        state: &mut dyn FnMut(&mut StateVisitor) -> Result<()>,
    ) -> Result<()> {
        let mut saved = TrainState::default();
        {
            let mut v = StateVisitor::Save(&mut saved);
            state(&mut v)?;
            (self.run_state)(&mut v)?;
            let mut log = log.clone();
            v.log("run/log", &mut log)?;
            let mut secs = self.seconds_before + self.started.elapsed().as_secs_f64();
            v.f64("run/seconds", &mut secs)?;
            let mut gen = crate::rng::torch_cpu_state()?;
            v.values("run/torch_cpu_generator", &mut gen)?;
            if let Some(mut gen) = crate::rng::torch_device_state(self.id.device)? {
                v.values("run/torch_device_generator", &mut gen)?;
            }
        }
        let bytes = encode(&self.id, epoch + 1, step, &saved)?;
        if let Some(dir) = self
            .opts
            .path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
        {
            std::fs::create_dir_all(dir).map_err(|e| {
                Error::Core(magcl_core::Error::file(
                    dir,
                    format!("cannot create the checkpoint's folder: {e}"),
                ))
            })?;
        }
        crate::files::write_atomic(&self.opts.path, &bytes)?;
        self.last_save = Instant::now();
        if self.stop_now(epoch) {
            return Err(Error::Stopped {
                epochs: epoch + 1,
                of: self.epochs,
                path: self.opts.path.clone(),
            });
        }
        Ok(())
    }
}

/// Loads a run's own carried values, log and libtorch's generators (the CPU's, and that
/// of `device` where it is another) from `v` (the method's state is loaded by the caller
/// with the same visitor): returns the log and the seconds spent before.
pub fn load_run_state(
    v: &mut StateVisitor,
    device: Device,
    run_state: &mut dyn FnMut(&mut StateVisitor) -> Result<()>,
) -> Result<(TrainLog, f64)> {
    run_state(v)?;
    let mut log = TrainLog::default();
    v.log("run/log", &mut log)?;
    let mut secs = 0.0;
    v.f64("run/seconds", &mut secs)?;
    let mut gen = Vec::<u8>::new();
    v.values("run/torch_cpu_generator", &mut gen)?;
    crate::rng::set_torch_cpu_state(&gen)?;
    if device != Device::Cpu {
        let mut gen = Vec::<u8>::new();
        v.values("run/torch_device_generator", &mut gen)?;
        crate::rng::set_torch_device_state(device, &gen)?;
    }
    Ok((log, secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id() -> Identity {
        Identity {
            config_hash: "00000000deadbeef".into(),
            device: Device::Cpu,
        }
    }

    fn state() -> TrainState {
        let mut s = TrainState::default();
        s.tensors.insert(
            "a/w".into(),
            Tensor::from_slice(&[1.5f32, -2.0, 3.25, 0.0, 1e-30, 7.0]).view([2, 3]),
        );
        s.tensors
            .insert("b".into(), Tensor::from_slice(&[f64::INFINITY, 0.1]));
        s.tensors.insert("c".into(), Tensor::from_slice(&[3i64]));
        s.tensors.insert("d".into(), Tensor::from_slice(&[4i32, 5]));
        s
    }

    #[test]
    fn a_checkpoint_reads_back_bit_for_bit() {
        let bytes = encode(&id(), 3, 12, &state()).unwrap();
        let back = decode(Path::new("x.ckpt"), &bytes, &id()).unwrap();
        assert_eq!((back.epochs_done, back.step), (3, 12));
        let want = state();
        assert_eq!(back.state.tensors.len(), want.tensors.len());
        for (k, t) in &want.tensors {
            let b = &back.state.tensors[k];
            assert_eq!((b.kind(), b.size()), (t.kind(), t.size()), "{k}");
            assert!(b.equal(t), "{k}");
        }
    }

    #[test]
    fn damaged_and_foreign_checkpoints_are_refused_with_the_reason() {
        let p = Path::new("run.ckpt");
        let bytes = encode(&id(), 3, 12, &state()).unwrap();
        let err = |b: &[u8], id: &Identity| match decode(p, b, id) {
            Ok(_) => panic!("accepted"),
            Err(e) => e.to_string(),
        };
        // cut off, one byte changed, not a checkpoint at all
        let e = err(&bytes[..bytes.len() - 3], &id());
        assert!(e.contains("run.ckpt") && e.contains("checksum"), "{e}");
        let mut flipped = bytes.clone();
        flipped[40] ^= 1;
        assert!(err(&flipped, &id()).contains("checksum"));
        let e = err(b"a,b,c\n1,2,3\n0123456789abcdef", &id());
        assert!(e.contains("mark"), "{e}");
        // another config, another device
        let other = Identity {
            config_hash: "1111111111111111".into(),
            ..id()
        };
        let e = err(&bytes, &other);
        assert!(
            e.contains("00000000deadbeef") && e.contains("1111111111111111"),
            "{e}"
        );
        let gpu = Identity {
            device: Device::Cuda(0),
            ..id()
        };
        let e = err(&bytes, &gpu);
        assert!(e.contains("on cpu") && e.contains("cuda:0"), "{e}");
        // a sound checkpoint of another run is a checkpoint error, not a config one
        for foreign in [&other, &gpu] {
            assert!(matches!(
                decode(p, &bytes, foreign),
                Err(Error::Checkpoint(_))
            ));
        }
        // a GPU's checkpoint resumes on another GPU of the kind, not on the CPU
        let gpu_bytes = encode(&gpu, 3, 12, &state()).unwrap();
        let other_gpu = Identity {
            device: Device::Cuda(1),
            ..id()
        };
        assert_eq!(decode(p, &gpu_bytes, &other_gpu).unwrap().epochs_done, 3);
        let e = err(&gpu_bytes, &id());
        assert!(e.contains("on cuda:0") && e.contains("on cpu"), "{e}");
    }
}
