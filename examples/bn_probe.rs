//! Looks for SimGRACE's exploding embedding dimension (development aid):
//! `bn_probe THREADS DATASET SEED...` trains SimGRACE with each seed (no evaluation) and
//! prints the embedding's largest per-dimension standard deviation beside the running
//! variance of the batch-norm channel that produces that dimension.
use magcl::data::DataConfig;
use magcl::experiment::config::{MethodName, RunConfig, RunSpec};
use magcl::experiment::run::{dimension_stds, graph_data};
use magcl::methods::simgrace::SimGrace;
use magcl::methods::{train_graph_method, GraphMethod, LoopConfig};

fn main() -> magcl::Result<()> {
    magcl::runtime::tune_allocator();
    magcl::runtime::quiet_libtorch();
    let args: Vec<String> = std::env::args().collect();
    let threads: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let dataset = args.get(2).cloned().unwrap_or_else(|| "NCI1".into());
    let seeds: Vec<u64> = args[3.min(args.len())..]
        .iter()
        .filter_map(|s| s.parse().ok())
        .collect();
    tch::set_num_threads(threads as i32);
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global();
    for seed in seeds {
        let spec = RunSpec {
            method: Some(MethodName::Simgrace),
            dataset: dataset.clone(),
            seed,
            ..Default::default()
        };
        let cfg = RunConfig::resolve(&spec)?;
        let data = graph_data(&cfg, &DataConfig::from_env())?;
        tch::manual_seed(seed as i64);
        let mut m = SimGrace::new(&cfg.method_params()?, data.dim, tch::Device::Cpu)?;
        let lc = LoopConfig {
            epochs: cfg.epochs,
            batch_size: cfg.batch_size,
            seed,
            progress: false,
        };
        train_graph_method(&mut m, &data, &lc, |_, _| Ok(()))?;
        let (emb, d) = m.embed(&data)?;
        let std = dimension_stds(&emb, emb.len() / d, d);
        let (jmax, smax) = std
            .iter()
            .enumerate()
            .fold((0, 0.0), |a, (j, &s)| if s > a.1 { (j, s) } else { a });
        let mut sorted = std.clone();
        sorted.sort_by(|a, b| a.total_cmp(b));
        let hidden = m.model.encoder.hidden as usize;
        let (layer, ch) = (jmax / hidden, jmax % hidden);
        let bn = &m.model.encoder.bns[layer];
        let rv = Vec::<f32>::try_from(&bn.running_var)?;
        let rm = Vec::<f32>::try_from(&bn.running_mean)?;
        let gamma = Vec::<f32>::try_from(bn.ws.as_ref().unwrap())?;
        let min_rv = rv.iter().cloned().fold(f32::INFINITY, f32::min);
        println!(
            "seed {seed}: max std {smax:.1} (dim {jmax} = layer {layer} channel {ch}; median \
             {:.1}); that channel's running var {:.3e}, mean {:.3e}, gamma {:.3}; smallest \
             running var in the layer {min_rv:.3e}",
            sorted[d / 2],
            rv[ch],
            rm[ch],
            gamma[ch]
        );
    }
    Ok(())
}
