//! Per-operation forward+backward costs at GIN batch sizes, libtorch vs the kernels of
//! csrc/kernels.cpp, and a whole GraphCL-style encoder (development aid).
use std::time::Instant;
use tch::{nn, nn::Module, nn::ModuleT, Device, Kind, Tensor};
fn time<F: FnMut()>(name: &str, reps: usize, mut f: F) {
    for _ in 0..5 {
        f();
    }
    let t = Instant::now();
    for _ in 0..reps {
        f();
    }
    println!(
        "{name:40} {:8.1} us",
        t.elapsed().as_secs_f64() * 1e6 / reps as f64
    );
}
fn main() {
    magcl::runtime::tune_allocator();
    tch::set_num_threads(1);
    let vs = nn::VarStore::new(Device::Cpu);
    let lin = nn::linear(vs.root() / "l", 32, 32, Default::default());
    let bn = nn::batch_norm1d(vs.root() / "bn", 32, Default::default());
    let n = 2300;
    let x = Tensor::randn([n, 32], (Kind::Float, Device::Cpu)).set_requires_grad(true);
    let batch = Tensor::arange(n, (Kind::Int64, Device::Cpu)).divide_scalar_mode(18, "floor");
    let g = 128;
    time("linear fwd+bwd", 500, || {
        lin.forward(&x).sum(Kind::Float).backward();
    });
    time("relu fwd+bwd", 500, || {
        x.relu().sum(Kind::Float).backward();
    });
    time("sum fwd+bwd", 500, || {
        x.sum(Kind::Float).backward();
    });
    time("bn fwd+bwd", 500, || {
        bn.forward_t(&x, true).sum(Kind::Float).backward();
    });
    time("pool index_add fwd+bwd", 500, || {
        Tensor::zeros([g + 10, 32], (Kind::Float, Device::Cpu))
            .index_add(0, &batch, &x)
            .sum(Kind::Float)
            .backward();
    });
    time("add fwd+bwd", 500, || {
        (&x + &x).sum(Kind::Float).backward();
    });
    time("cat3 fwd+bwd", 500, || {
        Tensor::cat(&[&x, &x, &x], 1).sum(Kind::Float).backward();
    });
    let bn2 = magcl::nn::mlp::batch_norm(vs.root() / "bn2", 32);
    time("bn kernel fwd+bwd", 500, || {
        magcl::nn::mlp::apply_batch_norm(&bn2, &x, true)
            .sum(Kind::Float)
            .backward();
    });
    let nodes = Tensor::arange(n, (Kind::Int64, Device::Cpu));
    let ones = Tensor::ones([n], (Kind::Float, Device::Cpu));
    let p = magcl::graph::SparseMatrix::from_triplets(&batch, &nodes, &ones, g + 10, n);
    time("pool kernel fwd+bwd", 500, || {
        p.mm(&x).sum(Kind::Float).backward();
    });
    let xd = x.detach();
    time("bn kernel fwd only (no grad input)", 500, || {
        let _ = magcl::nn::mlp::apply_batch_norm(&bn2, &xd, true);
    });
    time("bn torch fwd only (no grad input)", 500, || {
        let _ = bn.forward_t(&xd, true);
    });
    time("randn same size", 500, || {
        let _ = xd.relu();
    });
    // a whole GIN encoder on a random block-diagonal batch of 128 graphs of 18 nodes
    {
        use magcl::graph::GraphTensors;
        use magcl::nn::gin::{GinEncoder, GinStyle};
        let gnodes = 18i64;
        let mut src = Vec::new();
        let mut dst = Vec::new();
        for gi in 0..128i64 {
            for k in 0..20i64 {
                let a = gi * gnodes + (k * 7) % gnodes;
                let b = gi * gnodes + (k * 5 + 1) % gnodes;
                if a != b {
                    src.push(a);
                    dst.push(b);
                    src.push(b);
                    dst.push(a);
                }
            }
        }
        let nn_ = 128 * gnodes;
        let xg = Tensor::randn([nn_, 7], (Kind::Float, Device::Cpu));
        let bt =
            Tensor::arange(nn_, (Kind::Int64, Device::Cpu)).divide_scalar_mode(gnodes, "floor");
        let g = GraphTensors::new(
            xg,
            Tensor::from_slice(&src),
            Tensor::from_slice(&dst),
            bt,
            nn_ as usize,
            128,
        );
        let enc = GinEncoder::new(
            &(vs.root() / "enc"),
            7,
            32,
            3,
            GinStyle::GraphCl,
            magcl::nn::mlp::Init::XavierZeroBias,
            magcl::experiment::config::GinMode::GinFilter,
            0.5,
        );
        let sched = enc.plain_schedule();
        time("encoder fwd (no grad)", 200, || {
            let _ = tch::no_grad(|| enc.forward(&g, &sched, true).graph);
        });
        time("encoder fwd", 200, || {
            let _ = enc.forward(&g, &sched, true).graph;
        });
        time("encoder fwd+bwd", 200, || {
            enc.forward(&g, &sched, true)
                .graph
                .sum(Kind::Float)
                .backward();
        });
    }
    time("zero_grad", 500, || {
        let mut x2 = x.grad();
        let _ = x2.zero_();
    });
}
