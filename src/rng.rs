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

/// Tests that use libtorch's global generator hold this lock, so that tests running in
/// parallel threads do not interleave their draws.
#[cfg(test)]
pub fn torch_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}
