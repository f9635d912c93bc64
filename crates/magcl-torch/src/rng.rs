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
    /// `crates/magcl-torch/csrc/kernels.cpp` (7b.): an accelerator's default generator state into `out`;
    /// its length, or -1 with the message in `err`.
    fn magcl_device_rng_state(
        device_type: i8,
        index: i8,
        out: *mut u8,
        cap: i64,
        err: *mut std::os::raw::c_char,
        err_len: usize,
    ) -> i64;
    /// Sets an accelerator's default generator state; 0, or -1 with the message in `err`.
    fn magcl_set_device_rng_state(
        device_type: i8,
        index: i8,
        data: *const u8,
        len: i64,
        err: *mut std::os::raw::c_char,
        err_len: usize,
    ) -> std::os::raw::c_int;
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
        return Err(crate::Error::Checkpoint(format!(
            "libtorch refuses the saved CPU generator state ({} bytes): a checkpoint of \
             another libtorch version?",
            state.len()
        )));
    }
    Ok(())
}

/// libtorch's code (`c10::DeviceType`) and index of `device`.
fn device_code(device: tch::Device) -> (i8, i8) {
    match device {
        tch::Device::Cpu => (0, -1),
        tch::Device::Cuda(i) => (1, i as i8),
        tch::Device::Vulkan => (10, 0),
        tch::Device::Mps => (13, 0),
    }
}

/// The state of the default generator of `device` when it is not the CPU (that one is
/// [`torch_cpu_state`]), for checkpoints: on a GPU, RReLU in training mode draws its
/// slopes from the GPU's generator across epochs. `None` on the CPU.
pub fn torch_device_state(device: tch::Device) -> crate::Result<Option<Vec<u8>>> {
    if device == tch::Device::Cpu {
        return Ok(None);
    }
    generator_state(device_code(device)).map(Some).map_err(|e| {
        crate::Error::Numeric(format!(
            "cannot read the random generator state of {device:?}: {e}"
        ))
    })
}

/// Restores a state [`torch_device_state`] read for `device`.
pub fn set_torch_device_state(device: tch::Device, state: &[u8]) -> crate::Result<()> {
    set_generator_state(device_code(device), state).map_err(|e| {
        crate::Error::Checkpoint(format!(
            "libtorch refuses the saved random generator state of {device:?} ({} bytes; a \
             checkpoint of another libtorch version?): {e}",
            state.len()
        ))
    })
}

/// The default generator's state of the device with libtorch's code `(type, index)`.
fn generator_state((ty, index): (i8, i8)) -> std::result::Result<Vec<u8>, String> {
    let mut buf = vec![0u8; 1 << 16];
    let mut err = [0 as std::os::raw::c_char; 512];
    // SAFETY: the buffers are writable for their lengths, which are passed with them.
    let n = unsafe {
        magcl_device_rng_state(
            ty,
            index,
            buf.as_mut_ptr(),
            buf.len() as i64,
            err.as_mut_ptr(),
            err.len(),
        )
    };
    if n < 0 {
        return Err(c_message(&err));
    }
    buf.truncate(n as usize);
    Ok(buf)
}

/// Sets the default generator's state of the device with libtorch's code `(type, index)`.
fn set_generator_state((ty, index): (i8, i8), state: &[u8]) -> std::result::Result<(), String> {
    let mut err = [0 as std::os::raw::c_char; 512];
    // SAFETY: the slice is readable and the message buffer writable for the lengths passed.
    let r = unsafe {
        magcl_set_device_rng_state(
            ty,
            index,
            state.as_ptr(),
            state.len() as i64,
            err.as_mut_ptr(),
            err.len(),
        )
    };
    if r != 0 {
        return Err(c_message(&err));
    }
    Ok(())
}

/// The NUL-terminated message a C++ function wrote into `err`.
fn c_message(err: &[std::os::raw::c_char]) -> String {
    // SAFETY: the buffer was zeroed before the call, so it ends in a NUL either way.
    unsafe { std::ffi::CStr::from_ptr(err.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

/// Tests that use libtorch's global generator hold this lock, so that tests running in
/// parallel threads do not interleave their draws. The first to take it settles MKL's
/// vector-math kernels ([`crate::kernels::resolve_vector_math`]) for the test process.
#[cfg(test)]
pub fn torch_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    crate::kernels::resolve_vector_math();
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

    /// The device-generic reader (an accelerator's generator, for GPU checkpoints) reads
    /// and restores the generator it names: checked on the CPU's, the one device here.
    #[test]
    fn the_device_generic_generator_state_reads_and_restores() {
        let _g = super::torch_lock();
        tch::manual_seed(6);
        let cpu = super::device_code(tch::Device::Cpu);
        let state = super::generator_state(cpu).unwrap();
        assert_eq!(state, super::torch_cpu_state().unwrap());
        let opts = (tch::Kind::Float, tch::Device::Cpu);
        let a = tch::Tensor::rand([16], opts);
        super::set_generator_state(cpu, &state).unwrap();
        assert!(a.equal(&tch::Tensor::rand([16], opts)));
        let e = super::set_generator_state(cpu, &[1, 2, 3]).unwrap_err();
        assert!(!e.is_empty());
        assert_eq!(super::torch_device_state(tch::Device::Cpu).unwrap(), None);
        // a GPU that is not there is an error, not a crash; one that is, restores
        let gpu = tch::Device::Cuda(0);
        if !tch::Cuda::is_available() {
            let e = super::torch_device_state(gpu).unwrap_err();
            assert!(e.to_string().contains("Cuda(0)"), "{e}");
        } else {
            let state = super::torch_device_state(gpu).unwrap().unwrap();
            let a = tch::Tensor::rand([16], (tch::Kind::Float, gpu));
            super::set_torch_device_state(gpu, &state).unwrap();
            assert!(a.equal(&tch::Tensor::rand([16], (tch::Kind::Float, gpu))));
        }
    }
}
