//! Deterministic random streams ([`magcl_core::rng`], re-exported here) and the tensors
//! drawn from them.
pub use magcl_core::rng::*;

/// A tensor of i.i.d. N(0, 1) draws from the stream `(seed, keys)`, made on the CPU and
/// moved to `device`: the same numbers on every device and whatever else uses libtorch's
/// global generator.
pub fn normal_tensor(seed: u64, keys: &[u64], shape: &[i64], device: tch::Device) -> tch::Tensor {
    let v = normal_vec(seed, keys, shape.iter().product::<i64>() as usize);
    tch::Tensor::from_slice(&v).view(shape).to_device(device)
}

/// [`normal_tensor`]'s draws as a vector of `n` values (the same values for the same
/// stream).
pub fn normal_vec(seed: u64, keys: &[u64], n: usize) -> Vec<f32> {
    use rand_distr::{Distribution, StandardNormal};
    let mut r = stream(seed, keys);
    (0..n).map(|_| StandardNormal.sample(&mut r)).collect()
}

/// A tensor of i.i.d. U(lo, hi) draws from the stream `(seed, keys)` (see [`normal_tensor`]).
pub fn uniform_tensor(
    seed: u64,
    keys: &[u64],
    shape: &[i64],
    lo: f64,
    hi: f64,
    device: tch::Device,
) -> tch::Tensor {
    use rand::Rng as _;
    let n: i64 = shape.iter().product();
    let mut r = stream(seed, keys);
    let v: Vec<f32> = (0..n).map(|_| r.gen_range(lo..hi) as f32).collect();
    tch::Tensor::from_slice(&v).view(shape).to_device(device)
}

/// Seeds libtorch's global generator (weight initialisation) from the run seed.
pub fn seed_torch(seed: u64) {
    tch::manual_seed((derive(seed, &[streams::TORCH]) >> 1) as i64);
}

extern "C" {
    /// `crates/magcl-torch/csrc/kernels.cpp` (7.): the default CPU generator's state into `out` (at most
    /// `cap` bytes); its length, or -1.
    fn magcl_cpu_rng_state(out: *mut u8, cap: i64) -> i64;
    /// Sets the default CPU generator's state; 0, or -1 for a state it refuses.
    fn magcl_set_cpu_rng_state(data: *const u8, len: i64) -> std::os::raw::c_int;
}

/// The state of libtorch's global CPU generator (a few kilobytes), for checkpoints: RReLU
/// in training mode draws from it across epochs.
pub fn torch_cpu_state() -> crate::Result<Vec<u8>> {
    let mut buf = vec![0u8; 1 << 16];
    // SAFETY: the buffer is writable for its length, which is passed as the capacity.
    let n = unsafe { magcl_cpu_rng_state(buf.as_mut_ptr(), buf.len() as i64) };
    if n < 0 {
        return Err(crate::Error::Numeric(
            "cannot read libtorch's CPU generator state".into(),
        ));
    }
    buf.truncate(n as usize);
    Ok(buf)
}

/// Restores a state [`torch_cpu_state`] read.
pub fn set_torch_cpu_state(state: &[u8]) -> crate::Result<()> {
    // SAFETY: the slice is readable for its length, which is passed with it.
    let r = unsafe { magcl_set_cpu_rng_state(state.as_ptr(), state.len() as i64) };
    if r != 0 {
        return Err(crate::Error::Config(format!(
            "libtorch refuses the saved CPU generator state ({} bytes): a checkpoint of \
             another libtorch version?",
            state.len()
        )));
    }
    Ok(())
}

/// Tests that use libtorch's global generator hold this lock, so that tests running in
/// parallel threads do not interleave their draws.
#[cfg(test)]
pub fn torch_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    /// The generator continues from a restored state with the draws it made from there.
    #[test]
    fn a_restored_generator_state_repeats_its_draws() {
        let _g = super::torch_lock();
        tch::manual_seed(5);
        let state = super::torch_cpu_state().unwrap();
        let opts = (tch::Kind::Float, tch::Device::Cpu);
        let a = tch::Tensor::rand([16], opts);
        let _ = tch::Tensor::rand([7], opts);
        super::set_torch_cpu_state(&state).unwrap();
        let b = tch::Tensor::rand([16], opts);
        assert!(a.equal(&b));
        assert!(super::set_torch_cpu_state(&[1, 2, 3]).is_err());
    }
}
