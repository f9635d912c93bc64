//! Micro-benchmark of neighbour aggregation at graph-batch scale (development aid).
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

fn csr0(src: &Tensor, dst: &Tensor, n: i64) -> Tensor {
    let idx = Tensor::stack(&[dst.shallow_clone(), src.shallow_clone()], 0);
    let e = src.size()[0];
    Tensor::sparse_coo_tensor_indices_size(
        &idx,
        &Tensor::ones([e], (Kind::Float, Device::Cpu)),
        [n, n],
        (Kind::Float, Device::Cpu),
        false,
    )
}

fn main() {
    magcl::runtime::tune_allocator();
    magcl::runtime::quiet_libtorch();
    tch::set_num_threads(1);
    let args: Vec<i64> = std::env::args()
        .skip(1)
        .map(|s| s.parse().unwrap())
        .collect();
    let (n, e, d) = (args[0], args[1], args[2]);
    let src = Tensor::randint(n, [e], (Kind::Int64, Device::Cpu));
    let dst = Tensor::randint(n, [e], (Kind::Int64, Device::Cpu));
    let h = Tensor::randn([n, d], (Kind::Float, Device::Cpu)).set_requires_grad(true);
    let small = Tensor::randn([n, d], (Kind::Float, Device::Cpu));
    time("add (no grad)", 200, || {
        let _ = &small + &small;
    });
    time("zeros_like (no grad)", 200, || {
        let _ = small.zeros_like();
    });
    time("index_add (no grad)", 200, || {
        let _ = small
            .zeros_like()
            .index_add(0, &dst, &small.index_select(0, &src));
    });
    time("csr.mm (no grad)", 200, || {
        let _ = tch::no_grad(|| csr0(&src, &dst, n).mm(&small));
    });
    time("sum + backward of h", 200, || {
        h.sum(Kind::Float).backward();
    });
    time("index_select+index_add fwd+bwd", 50, || {
        let out = h.zeros_like().index_add(0, &dst, &h.index_select(0, &src));
        out.sum(Kind::Float).backward();
    });
    time("embedding+index_add fwd+bwd", 50, || {
        let m = Tensor::embedding(&h, &src, -1, false, false);
        let out = h.zeros_like().index_add(0, &dst, &m);
        out.sum(Kind::Float).backward();
    });
    let order = dst.argsort(0, false);
    let (ssrc, sdst) = (src.index_select(0, &order), dst.index_select(0, &order));
    time("sorted index_select+index_add fwd+bwd", 50, || {
        let out = h
            .zeros_like()
            .index_add(0, &sdst, &h.index_select(0, &ssrc));
        out.sum(Kind::Float).backward();
    });
    time("index_select fwd+bwd only", 50, || {
        h.index_select(0, &src).sum(Kind::Float).backward();
    });
    time("index_add fwd+bwd only (src grad)", 50, || {
        let m = Tensor::randn([e, d], (Kind::Float, Device::Cpu)).set_requires_grad(true);
        h.detach()
            .zeros_like()
            .index_add(0, &dst, &m)
            .sum(Kind::Float)
            .backward();
    });
    let idx = Tensor::stack(&[dst.shallow_clone(), src.shallow_clone()], 0);
    let coo = Tensor::sparse_coo_tensor_indices_size(
        &idx,
        &Tensor::ones([e], (Kind::Float, Device::Cpu)),
        [n, n],
        (Kind::Float, Device::Cpu),
        false,
    )
    .coalesce();
    let csr = coo.to_sparse_csr(None::<i64>);
    time("csr.mm fwd+bwd", 50, || {
        csr.mm(&h).sum(Kind::Float).backward();
    });
    time("coo.mm fwd+bwd", 50, || {
        coo.mm(&h).sum(Kind::Float).backward();
    });
    let crow = csr.crow_indices();
    let col = csr.col_indices();
    let vals = csr.values();
    time("embedding_bag fwd+bwd", 50, || {
        let (o, _, _, _) =
            Tensor::embedding_bag(&h, &col, &crow, false, 0, false, Some(&vals), true);
        o.sum(Kind::Float).backward();
    });
    time("embedding_bag (no weights) fwd+bwd", 50, || {
        let (o, _, _, _) =
            Tensor::embedding_bag(&h, &col, &crow, false, 0, false, None::<Tensor>, true);
        o.sum(Kind::Float).backward();
    });
}

#[allow(dead_code)]
fn unused() {}
