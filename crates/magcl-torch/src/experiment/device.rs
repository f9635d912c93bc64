//! Where a run goes: the `--device` values, the rule `auto` follows, and how `magcl bench`
//! places its workers on the GPUs (docs/performance.md, "CPU or GPU").
use super::config::{RunConfig, Task};
use crate::data::DataConfig;
use crate::error::{Error, Result};

/// A parsed `--device` value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DeviceSpec {
    /// Chosen per run by [`auto_pick`].
    #[default]
    Auto,
    Cpu,
    /// `cuda` (None: any GPU; `magcl bench` spreads its workers over all of them) or
    /// `cuda:N`.
    Cuda(Option<usize>),
}

/// Parses `auto` | `cpu` | `cuda` | `cuda:N` (surrounding blanks ignored); says nothing
/// about whether a GPU exists.
pub fn parse_device_spec(s: &str) -> Result<DeviceSpec> {
    let s = s.trim();
    let bad = || {
        Error::Config(format!(
            "bad device '{s}': expected auto, cpu, cuda or cuda:N"
        ))
    };
    match s {
        "" | "auto" => Ok(DeviceSpec::Auto),
        "cpu" => Ok(DeviceSpec::Cpu),
        "cuda" => Ok(DeviceSpec::Cuda(None)),
        _ => {
            let n = s
                .strip_prefix("cuda:")
                .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                .ok_or_else(bad)?;
            n.parse::<usize>()
                .map(|i| DeviceSpec::Cuda(Some(i)))
                .map_err(|_| bad())
        }
    }
}

impl std::str::FromStr for DeviceSpec {
    type Err = Error;
    /// [`parse_device_spec`]: how clap reads `--device` (a bad value is a usage error
    /// naming the accepted ones).
    fn from_str(s: &str) -> Result<DeviceSpec> {
        parse_device_spec(s)
    }
}

impl std::fmt::Display for DeviceSpec {
    /// The written form [`parse_device_spec`] reads back: `auto`, `cpu`, `cuda`, `cuda:N`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DeviceSpec::Auto => write!(f, "auto"),
            DeviceSpec::Cpu => write!(f, "cpu"),
            DeviceSpec::Cuda(None) => write!(f, "cuda"),
            DeviceSpec::Cuda(Some(i)) => write!(f, "cuda:{i}"),
        }
    }
}

/// What `auto` chose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    Cpu,
    Gpu,
}

/// Graph level: the GPU is chosen when a training batch holds at least this many nodes on
/// average (mean nodes per graph × graphs per batch). Below it a GraphCL or SimGRACE step
/// is a few hundred tiny kernels whose launch cost exceeds their work. Measured on an
/// H100 host (`benchmarks-history:benchmarks/history/multi_gpu/README.md`): at ≤ 5 000 nodes per batch (every TU set
/// at the presets' batch of 128) one or two CPU threads are faster than the GPU or even
/// with it; at ≥ 7 600 the GPU is faster for SimGRACE (2.5×) and than one CPU thread for
/// GraphCL (1.6×); at ≥ 10 000 for both.
pub const AUTO_GPU_MIN_BATCH_NODES: f64 = 6_000.0;

/// Nodes in a mean training batch: mean nodes per graph × graphs per batch (a batch never
/// holds more graphs than the data set has).
pub fn mean_batch_nodes(total_nodes: usize, graphs: usize, batch_size: usize) -> f64 {
    if graphs == 0 {
        return 0.0;
    }
    total_nodes as f64 / graphs as f64 * batch_size.clamp(1, graphs) as f64
}

/// The rule of `auto` where a GPU exists: node level always goes to the GPU (one N × N
/// similarity per epoch: Cora 0.005 s per epoch there against 0.16–0.28 s on 2 CPU cores);
/// graph level goes to the GPU only for batches of at least [`AUTO_GPU_MIN_BATCH_NODES`]
/// nodes.
pub fn auto_pick(task: Task, batch_nodes: f64) -> Pick {
    match task {
        Task::Node => Pick::Gpu,
        Task::Graph if batch_nodes >= AUTO_GPU_MIN_BATCH_NODES => Pick::Gpu,
        Task::Graph => Pick::Cpu,
    }
}

/// [`auto_pick`] for a config: a graph-level data set is loaded (from the cache) to count
/// its nodes.
pub fn auto_pick_for(cfg: &RunConfig, data_cfg: &DataConfig) -> Result<Pick> {
    let batch_nodes = match cfg.task {
        Task::Node => 0.0,
        Task::Graph => {
            let ds = crate::data::load_graph_dataset(&cfg.dataset, data_cfg)?;
            let total: usize = ds.graphs.iter().map(|g| g.num_nodes).sum();
            mean_batch_nodes(total, ds.graphs.len(), cfg.batch_size)
        }
    };
    Ok(auto_pick(cfg.task, batch_nodes))
}

/// The device `magcl bench` hands the worker in pool slot `slot` (0 ≤ slot < jobs) when
/// `gpus` GPUs are in use: `cuda` places the slots round-robin (slot k on `cuda:k mod
/// gpus`, so each GPU gets ⌈jobs / gpus⌉ or ⌊jobs / gpus⌋ workers); `auto` does the same
/// for the cells `pick` sends to the GPU and gives the others the CPU; with no GPU, `auto`
/// is the CPU and `cuda` stays `cuda` (the worker then says there is none).
pub fn worker_device(
    spec: DeviceSpec,
    slot: usize,
    gpus: usize,
    pick: impl FnOnce() -> Pick,
) -> String {
    let round_robin = || format!("cuda:{}", slot % gpus);
    match spec {
        DeviceSpec::Cpu => "cpu".into(),
        DeviceSpec::Cuda(Some(i)) => format!("cuda:{i}"),
        DeviceSpec::Cuda(None) if gpus == 0 => "cuda".into(),
        DeviceSpec::Cuda(None) => round_robin(),
        DeviceSpec::Auto if gpus == 0 => "cpu".into(),
        DeviceSpec::Auto => match pick() {
            Pick::Gpu => round_robin(),
            Pick::Cpu => "cpu".into(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_spec_reads_back_what_it_writes() {
        for s in ["auto", "cpu", "cuda", "cuda:0", "cuda:12"] {
            let d: DeviceSpec = s.parse().unwrap();
            assert_eq!(d.to_string(), s);
        }
        assert_eq!(
            " cuda:3 ".parse::<DeviceSpec>().unwrap(),
            DeviceSpec::Cuda(Some(3))
        );
        for bad in ["gpu", "cuda:", "cuda:+1", "cuda:x", "CUDA0"] {
            let e = bad.parse::<DeviceSpec>().unwrap_err().to_string();
            assert!(
                e.contains("expected auto, cpu, cuda or cuda:N"),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn device_specs_parse() {
        assert_eq!(parse_device_spec("auto").unwrap(), DeviceSpec::Auto);
        assert_eq!(parse_device_spec(" ").unwrap(), DeviceSpec::Auto);
        assert_eq!(parse_device_spec("cpu").unwrap(), DeviceSpec::Cpu);
        assert_eq!(parse_device_spec("cuda").unwrap(), DeviceSpec::Cuda(None));
        assert_eq!(
            parse_device_spec(" cuda:12 ").unwrap(),
            DeviceSpec::Cuda(Some(12))
        );
        for bad in [
            "cuda:", "cuda:-1", "cuda:x", "cuda1", "gpu", "cuda:+1", "CPU",
        ] {
            let e = parse_device_spec(bad).unwrap_err().to_string();
            assert!(e.contains(bad.trim()) && e.contains("cuda:N"), "{bad}: {e}");
        }
    }

    #[test]
    fn cuda_workers_go_round_robin_over_the_gpus() {
        let never = || -> Pick { panic!("cuda never asks the rule") };
        let placed: Vec<String> = (0..7)
            .map(|s| worker_device(DeviceSpec::Cuda(None), s, 3, never))
            .collect();
        assert_eq!(
            placed,
            ["cuda:0", "cuda:1", "cuda:2", "cuda:0", "cuda:1", "cuda:2", "cuda:0"]
        );
        // several workers per GPU, balanced: 8 slots on 2 GPUs → 4 each
        let on_1 = (0..8)
            .filter(|&s| worker_device(DeviceSpec::Cuda(None), s, 2, never) == "cuda:1")
            .count();
        assert_eq!(on_1, 4);
        // one GPU: every slot on it
        assert!((0..5).all(|s| worker_device(DeviceSpec::Cuda(None), s, 1, never) == "cuda:0"));
        // a named GPU and the CPU are not spread
        assert_eq!(
            worker_device(DeviceSpec::Cuda(Some(1)), 4, 2, never),
            "cuda:1"
        );
        assert_eq!(worker_device(DeviceSpec::Cpu, 3, 2, never), "cpu");
        // no GPU: cuda is left for the worker to refuse
        assert_eq!(worker_device(DeviceSpec::Cuda(None), 3, 0, never), "cuda");
    }

    #[test]
    fn auto_workers_follow_the_rule() {
        assert_eq!(
            worker_device(DeviceSpec::Auto, 3, 2, || Pick::Gpu),
            "cuda:1"
        );
        assert_eq!(worker_device(DeviceSpec::Auto, 3, 2, || Pick::Cpu), "cpu");
        // without a GPU the rule is not even asked
        assert_eq!(
            worker_device(DeviceSpec::Auto, 3, 0, || panic!("asked")),
            "cpu"
        );
    }

    #[test]
    fn auto_rule_by_hand() {
        // node level: always the GPU
        assert_eq!(auto_pick(Task::Node, 0.0), Pick::Gpu);
        // MUTAG: 3371 nodes in 188 graphs, batch 128 → 2295 nodes per batch: CPU
        let mutag = mean_batch_nodes(3371, 188, 128);
        assert!((mutag - 3371.0 / 188.0 * 128.0).abs() < 1e-9);
        assert_eq!(auto_pick(Task::Graph, mutag), Pick::Cpu);
        // PROTEINS (43 471 nodes, 1113 graphs) at batch 128: 4999 nodes, CPU;
        // NCI1 (122 747 nodes, 4110 graphs) at batch 256: 7645 nodes, GPU
        let proteins = mean_batch_nodes(43_471, 1113, 128);
        assert!((proteins - 4999.4).abs() < 0.1, "{proteins}");
        assert_eq!(auto_pick(Task::Graph, proteins), Pick::Cpu);
        let nci1 = mean_batch_nodes(122_747, 4110, 256);
        assert!((nci1 - 7645.5).abs() < 0.1, "{nci1}");
        assert_eq!(auto_pick(Task::Graph, nci1), Pick::Gpu);
        // a batch larger than the data set counts the data set once
        assert_eq!(mean_batch_nodes(3371, 188, 1000), 3371.0);
        assert_eq!(mean_batch_nodes(0, 0, 128), 0.0);
        // the threshold itself goes to the GPU, just under it to the CPU
        assert_eq!(auto_pick(Task::Graph, AUTO_GPU_MIN_BATCH_NODES), Pick::Gpu);
        assert_eq!(
            auto_pick(Task::Graph, AUTO_GPU_MIN_BATCH_NODES - 1.0),
            Pick::Cpu
        );
    }
}
