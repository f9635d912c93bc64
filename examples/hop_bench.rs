//! Time of one propagation hop (F·h) at node-level sizes, forward and backward
//! (development aid): `hop_bench THREADS DATASET`.
use std::time::Instant;

use magcl::data::{self, DataConfig};
use magcl::graph::GraphTensors;
use tch::{Device, Kind, Tensor};

fn main() -> magcl::Result<()> {
    magcl::runtime::tune_allocator();
    let threads: i32 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    let name = std::env::args().nth(2).unwrap_or_else(|| "Cora".into());
    tch::set_num_threads(threads);
    let ds = data::load_node_dataset(&name, &DataConfig::from_env())?;
    let (mut src, mut dst) = (Vec::new(), Vec::new());
    for &(u, v) in &ds.edges {
        src.extend([u as i64, v as i64]);
        dst.extend([v as i64, u as i64]);
    }
    let g = GraphTensors::new(
        Tensor::zeros([0], (Kind::Float, Device::Cpu)),
        Tensor::from_slice(&src),
        Tensor::from_slice(&dst),
        Tensor::zeros([0], (Kind::Int64, Device::Cpu)),
        ds.num_nodes,
        1,
    );
    let f = g.filter_matrix(0.5);
    for d in [256i64, 512] {
        let h = Tensor::randn([ds.num_nodes as i64, d], (Kind::Float, Device::Cpu));
        let hg = h.set_requires_grad(true);
        let reps = 50;
        for _ in 0..5 {
            let _ = f.mm(&h);
        }
        let t = Instant::now();
        for _ in 0..reps {
            let _ = f.mm(&h);
        }
        let fwd = t.elapsed().as_secs_f64() / reps as f64;
        let t = Instant::now();
        for _ in 0..reps {
            f.mm(&hg).sum(Kind::Float).backward();
        }
        let both = t.elapsed().as_secs_f64() / reps as f64;
        let add = {
            let b = Tensor::randn([d], (Kind::Float, Device::Cpu));
            let t = Instant::now();
            for _ in 0..reps {
                let _ = &h + &b;
            }
            t.elapsed().as_secs_f64() / reps as f64
        };
        println!(
            "{name} n={} nnz={} d={d}: hop fwd {:.3} ms, fwd+bwd(+sum) {:.3} ms, bias add {:.3} ms",
            ds.num_nodes,
            src.len() + ds.num_nodes,
            fwd * 1e3,
            both * 1e3,
            add * 1e3
        );
    }
    Ok(())
}
