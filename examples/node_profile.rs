//! Times the parts of one node-level training step (development aid):
//! `node_profile THREADS DATASET [cuda]`.
use std::time::Instant;

use magcl::data::{self, DataConfig};
use magcl::experiment::config::{MethodName, RunConfig, RunSpec};
use magcl::methods::node::NodeModel;

fn main() -> magcl::Result<()> {
    magcl::runtime::tune_allocator();
    magcl::runtime::quiet_libtorch();
    let threads: i32 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    let name = std::env::args().nth(2).unwrap_or_else(|| "Cora".into());
    tch::set_num_threads(threads);
    let ds = data::load_node_dataset(&name, &DataConfig::from_env())?;
    let mut spec = RunSpec {
        method: Some(MethodName::Base),
        dataset: name,
        seed: 0,
        ..Default::default()
    };
    spec.overrides = serde_json::from_str(r#"{"ma": {"enabled": true}}"#).unwrap();
    let cfg = RunConfig::resolve(&spec)?;
    let device = match std::env::args().nth(3).as_deref() {
        Some("cuda") => tch::Device::Cuda(0),
        _ => tch::Device::Cpu,
    };
    let mut m = NodeModel::new(&cfg.method_params()?, &ds, device)?;
    let sync = || {
        if device.is_cuda() {
            tch::Cuda::synchronize(0);
        }
    };
    for epoch in 0..8 {
        let t = Instant::now();
        let _ = m.step(epoch)?;
        sync();
        println!("epoch {epoch}: {:.4} s", t.elapsed().as_secs_f64());
    }
    let t = Instant::now();
    for epoch in 8..58 {
        let _ = m.step(epoch)?;
    }
    sync();
    println!("50 epochs: {:.4} s/epoch", t.elapsed().as_secs_f64() / 50.0);
    let log = m.train(30, false)?;
    let mut t: Vec<f64> = log.epoch_seconds[1..].to_vec();
    t.sort_by(f64::total_cmp);
    println!(
        "train(30): median {:.4} s/epoch, mean {:.4} (read-back timing)",
        t[t.len() / 2],
        t.iter().sum::<f64>() / t.len() as f64
    );
    for e in 58..61 {
        m.profile_step(e, true);
    }
    if device.is_cuda() {
        println!("host time to queue each part (no synchronisation):");
        for e in 61..63 {
            m.profile_step(e, false);
        }
    }
    Ok(())
}
