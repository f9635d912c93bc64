//! Elementwise kernel speed (development aid).
use std::time::Instant;
use tch::{Device, Kind, Tensor};
fn main() {
    magcl::runtime::tune_allocator();
    tch::set_num_threads(
        std::env::args()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(1),
    );
    let s = Tensor::randn([2708, 2708], (Kind::Float, Device::Cpu));
    for (name, f) in [
        (
            "exp",
            Box::new(|| {
                let _ = s.exp();
            }) as Box<dyn Fn()>,
        ),
        (
            "exp_ (in place)",
            Box::new(|| {
                let mut t = s.copy();
                let _ = t.exp_();
            }),
        ),
        (
            "copy",
            Box::new(|| {
                let _ = s.copy();
            }),
        ),
        (
            "amax rows",
            Box::new(|| {
                let _ = s.amax(&[1i64][..], true);
            }),
        ),
        (
            "sum rows",
            Box::new(|| {
                let _ = s.sum_dim_intlist(&[1i64][..], true, Kind::Float);
            }),
        ),
        (
            "logsumexp rows",
            Box::new(|| {
                let _ = s.logsumexp([1], true);
            }),
        ),
        (
            "sub broadcast",
            Box::new(|| {
                let m = s.amax(&[1i64][..], true);
                let _ = &s - &m;
            }),
        ),
    ] {
        f();
        let t = Instant::now();
        for _ in 0..10 {
            f();
        }
        println!("{name:20} {:8.2} ms", t.elapsed().as_secs_f64() * 100.0);
    }
}
