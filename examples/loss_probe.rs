//! Cost of the InfoNCE loss and its gradient at GraphCL's batch size (development aid).
use magcl::experiment::config::InfoNceParams;
use magcl::loss::InfoNce;
use std::time::Instant;
use tch::{Device, Kind, Tensor};

fn main() {
    tch::set_num_threads(1);
    let n: i64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(128);
    let cfg = InfoNceParams {
        temperature: 0.2,
        positive_in_denominator: false,
        symmetric: false,
        intra_view_negatives: false,
        inter_view_negatives: true,
        projector: true,
    };
    let loss = InfoNce::new(cfg, 0);
    let a = Tensor::randn([n, 96], (Kind::Float, Device::Cpu));
    let b = Tensor::randn([n, 96], (Kind::Float, Device::Cpu));
    let reps = 500;
    for _ in 0..50 {
        let z1 = a.copy().set_requires_grad(true);
        let z2 = b.copy().set_requires_grad(true);
        let (_v, s1, s2) = loss.loss_per_view(&z1, &z2);
        let _ = Tensor::run_backward(&[&s1, &s2], &[&z1, &z2], false, false);
    }
    let t = Instant::now();
    for _ in 0..reps {
        let z1 = a.copy().set_requires_grad(true);
        let z2 = b.copy().set_requires_grad(true);
        let (_v, _s1, _s2) = loss.loss_per_view(&z1, &z2);
    }
    println!(
        "forward          {:.3} ms",
        t.elapsed().as_secs_f64() * 1e3 / reps as f64
    );
    let t = Instant::now();
    for _ in 0..reps {
        let z1 = a.copy().set_requires_grad(true);
        let z2 = b.copy().set_requires_grad(true);
        let (v, s1, s2) = loss.loss_per_view(&z1, &z2);
        let _ = Tensor::run_backward(&[&s1, &s2], &[&z1, &z2], false, false);
        let _ = v.double_value(&[]);
    }
    println!(
        "forward+backward {:.3} ms",
        t.elapsed().as_secs_f64() * 1e3 / reps as f64
    );
    let t = Instant::now();
    for _ in 0..reps {
        let _ = magcl::kernels::info_nce(&a, &b, &loss.cfg);
    }
    println!(
        "plain code       {:.3} ms",
        t.elapsed().as_secs_f64() * 1e3 / reps as f64
    );
    let t = Instant::now();
    for _ in 0..reps {
        let _ = a.mm(&b.tr());
    }
    println!(
        "one mm           {:.3} ms",
        t.elapsed().as_secs_f64() * 1e3 / reps as f64
    );
}
