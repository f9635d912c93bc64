//! GEMM throughput at GraphCL's shapes (development aid).
use std::time::Instant;
use tch::{Device, Kind, Tensor};

fn time<F: FnMut()>(name: &str, flops: f64, reps: usize, mut f: F) {
    f();
    let t = Instant::now();
    for _ in 0..reps {
        f();
    }
    let s = t.elapsed().as_secs_f64() / reps as f64;
    println!(
        "{name:40} {:8.1} us {:6.1} GFLOP/s",
        s * 1e6,
        flops / s / 1e9
    );
}

fn main() {
    let threads: i32 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let n: i64 = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2300);
    tch::set_num_threads(threads);
    let o = (Kind::Float, Device::Cpu);
    let x = Tensor::randn([n, 32], o);
    let w = Tensor::randn([32, 32], o);
    let b = Tensor::randn([32], o);
    let g = Tensor::randn([n, 32], o);
    let f = (2 * n * 32 * 32) as f64;
    time("linear x W^T + b", f, 2000, || {
        let _ = x.linear(&w, Some(&b));
    });
    time("mm x W^T", f, 2000, || {
        let _ = x.mm(&w.tr());
    });
    time("mm g W (dX)", f, 2000, || {
        let _ = g.mm(&w);
    });
    time("mm x^T g (dW)", f, 2000, || {
        let _ = x.tr().mm(&g);
    });
    time("sum(0)", (n * 32) as f64, 2000, || {
        let _ = g.sum_dim_intlist(&[0i64][..], false, Kind::Float);
    });
    time("relu", (n * 32) as f64, 2000, || {
        let _ = g.relu();
    });
    time("add", (n * 32) as f64, 2000, || {
        let _ = &g + &x;
    });
    let s = Tensor::randn([2, 2], o);
    time("tiny add (overhead)", 4.0, 20000, || {
        let _ = &s + &s;
    });
}
