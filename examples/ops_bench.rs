//! Micro-benchmark of propagation kernels (development aid).
use std::time::Instant;
use tch::{Device, Kind, Tensor};

fn time<F: FnMut()>(name: &str, reps: usize, mut f: F) {
    f();
    let t = Instant::now();
    for _ in 0..reps {
        f();
    }
    println!(
        "{name:40} {:8.3} ms",
        t.elapsed().as_secs_f64() * 1e3 / reps as f64
    );
}

fn main() {
    tch::manual_seed(0);
    let threads: i32 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    tch::set_num_threads(threads);
    let n = 2708i64;
    let e = 10556i64;
    let d = 512i64;
    let src = Tensor::randint(n, [e], (Kind::Int64, Device::Cpu));
    let dst = Tensor::randint(n, [e], (Kind::Int64, Device::Cpu));
    let w = Tensor::rand([e], (Kind::Float, Device::Cpu));
    let h = Tensor::randn([n, d], (Kind::Float, Device::Cpu)).set_requires_grad(true);
    time("index_select+index_add fwd", 20, || {
        let _ = tch::no_grad(|| {
            (h.index_select(0, &src) * w.unsqueeze(-1))
                .zeros_like()
                .index_add(0, &dst, &(h.index_select(0, &src) * w.unsqueeze(-1)))
        });
    });
    time("index_select+index_add fwd+bwd", 20, || {
        let m = h.index_select(0, &src) * w.unsqueeze(-1);
        let out = h.zeros_like().index_add(0, &dst, &m);
        out.sum(Kind::Float).backward();
    });
    let idx = Tensor::stack(&[dst.shallow_clone(), src.shallow_clone()], 0);
    let coo =
        Tensor::sparse_coo_tensor_indices_size(&idx, &w, [n, n], (Kind::Float, Device::Cpu), false)
            .coalesce();
    time("coo.mm fwd", 20, || {
        let _ = tch::no_grad(|| coo.mm(&h));
    });
    time("coo.mm fwd+bwd", 20, || {
        coo.mm(&h).sum(Kind::Float).backward();
    });
    let csr = coo.to_sparse_csr(None::<i64>);
    time("csr.mm fwd", 20, || {
        let _ = tch::no_grad(|| csr.mm(&h));
    });
    time("csr.mm fwd+bwd", 20, || {
        csr.mm(&h).sum(Kind::Float).backward();
    });
    let csr_t = coo.transpose(0, 1).coalesce().to_sparse_csr(None::<i64>);
    let _ = csr_t;
    // loss-like matmul N×d · d×N
    let z = Tensor::randn([n, d], (Kind::Float, Device::Cpu));
    time("z zT (N×N)", 10, || {
        let _ = z.matmul(&z.transpose(0, 1));
    });
    time("z zT + logsumexp + exp", 10, || {
        let s = z.matmul(&z.transpose(0, 1)) * 2.5;
        let l = s.logsumexp([1], true);
        let _ = (s - l).exp();
    });
    // sparse features
    let f = 1433i64;
    let nnz = 49216i64;
    let rows = Tensor::randint(n, [nnz], (Kind::Int64, Device::Cpu));
    let cols = Tensor::randint(f, [nnz], (Kind::Int64, Device::Cpu));
    let vals = Tensor::rand([nnz], (Kind::Float, Device::Cpu));
    let xcoo = Tensor::sparse_coo_tensor_indices_size(
        &Tensor::stack(&[rows, cols], 0),
        &vals,
        [n, f],
        (Kind::Float, Device::Cpu),
        false,
    )
    .coalesce();
    let wt = Tensor::randn([f, d], (Kind::Float, Device::Cpu)).set_requires_grad(true);
    time("X(coo) W fwd+bwd", 10, || {
        xcoo.mm(&wt).sum(Kind::Float).backward();
    });
    let xcsr = xcoo.to_sparse_csr(None::<i64>);
    time("X(csr) W fwd+bwd", 10, || {
        xcsr.mm(&wt).sum(Kind::Float).backward();
    });
    // embedding_bag: rows of X as bags of (column, value)
    let xc = xcoo.shallow_clone();
    let ind = xc.indices();
    let r = ind.get(0);
    let c = ind.get(1);
    let v = xc.values();
    let counts = Tensor::zeros([n], (Kind::Int64, Device::Cpu)).index_add(0, &r, &r.ones_like());
    let offsets = Tensor::cat(
        &[
            Tensor::zeros([1], (Kind::Int64, Device::Cpu)),
            counts.cumsum(0, Kind::Int64),
        ],
        0,
    );
    time("X W embedding_bag fwd+bwd", 10, || {
        let (o, _, _, _) =
            Tensor::embedding_bag(&wt, &c, &offsets, false, 0, false, Some(&v), true);
        o.sum(Kind::Float).backward();
    });
    time("X W embedding_bag fwd", 10, || {
        let _ = tch::no_grad(|| {
            Tensor::embedding_bag(&wt, &c, &offsets, false, 0, false, Some(&v), true)
        });
    });
    let xd = xcoo.to_dense(None, false);
    time("X(dense) W fwd+bwd", 10, || {
        xd.mm(&wt).sum(Kind::Float).backward();
    });
}
