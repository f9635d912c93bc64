//! Times the parts of GraphCL training steps (development aid).
use std::time::Instant;

use magcl::augment::{augment_views, AugPolicy};
use magcl::data::DataConfig;
use magcl::experiment::config::{MethodName, RunConfig, RunSpec};
use magcl::experiment::run::graph_data;
use magcl::graph::Batch;
use magcl::methods::{epoch_batches, GraphMethod};

fn main() -> magcl::Result<()> {
    magcl::runtime::tune_allocator();
    magcl::runtime::quiet_libtorch();
    let threads: i32 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    let name = std::env::args().nth(2).unwrap_or_else(|| "MUTAG".into());
    let method = std::env::args().nth(3).unwrap_or_else(|| "graphcl".into());
    tch::set_num_threads(threads);
    let spec = RunSpec {
        method: Some(MethodName::parse(&method)?),
        dataset: name,
        seed: 0,
        ..Default::default()
    };
    let cfg = RunConfig::resolve(&spec)?;
    let data = graph_data(&cfg, &DataConfig::from_env())?;
    let mut m: Box<dyn GraphMethod> = match cfg.method {
        MethodName::Simgrace => Box::new(magcl::methods::simgrace::SimGrace::new(
            &cfg.method_params()?,
            data.dim,
            tch::Device::Cpu,
        )?),
        _ => Box::new(magcl::methods::graphcl::GraphCl::new(
            &cfg.method_params()?,
            data.dim,
            tch::Device::Cpu,
        )?),
    };
    let mut step = 0;
    let epochs: usize = std::env::args()
        .nth(4)
        .and_then(|s| s.parse().ok())
        .unwrap_or(4);
    for epoch in 0..epochs {
        let t = Instant::now();
        let mut steps = Vec::new();
        for ids in epoch_batches(data.views.len(), cfg.batch_size, 0, epoch) {
            let t1 = Instant::now();
            m.step(&data, &ids, epoch, step)?;
            steps.push(format!("{:.1}", t1.elapsed().as_secs_f64() * 1e3));
            step += 1;
        }
        println!(
            "epoch {epoch}: {:.4} s (steps, ms: {})",
            t.elapsed().as_secs_f64(),
            steps.join(" ")
        );
    }
    if cfg.method == MethodName::Graphcl {
        let mut g = magcl::methods::graphcl::GraphCl::new(
            &cfg.method_params()?,
            data.dim,
            tch::Device::Cpu,
        )?;
        let ids = &epoch_batches(data.views.len(), cfg.batch_size, 0, 0)[0];
        println!("one step of {} graphs:", ids.len());
        g.profile_step(&data, ids, 0, 0);
    }
    // pieces of the data pipeline alone
    let policy = AugPolicy::from_config(&cfg.augment.clone().unwrap_or_default())?;
    let t = Instant::now();
    let mut total_aug = 0.0;
    let mut total_collate = 0.0;
    let mut total_tensor = 0.0;
    for ids in epoch_batches(data.views.len(), cfg.batch_size, 0, 9) {
        let t0 = Instant::now();
        let aug = augment_views(&data.views, &ids, &policy, 0, 9);
        total_aug += t0.elapsed().as_secs_f64();
        let t0 = Instant::now();
        let b = Batch::collate(&aug, data.dim);
        let b2 = Batch::collate(ids.iter().map(|&i| &data.views[i]), data.dim);
        total_collate += t0.elapsed().as_secs_f64();
        let t0 = Instant::now();
        let g = b.to_tensors(tch::Device::Cpu);
        let g2 = b2.to_tensors(tch::Device::Cpu);
        let _ = (g.adjacency(), g2.adjacency());
        total_tensor += t0.elapsed().as_secs_f64();
    }
    println!("data pipeline per epoch: augment {:.4} s, collate {:.4} s, tensors+adjacency {:.4} s (total {:.4})", total_aug, total_collate, total_tensor, t.elapsed().as_secs_f64());
    Ok(())
}
