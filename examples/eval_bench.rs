//! Time the evaluators on a fixture folder (x.npy, y.npy, folds.npy):
//!
//!     cargo run --release --example eval_bench -- tests/fixtures/eval/nci1_like svc-rbf 3
//!
//! Prints the accuracy, the best wall-clock time of `repeats` runs and the process CPU
//! time per run. Thread count: `RAYON_NUM_THREADS` (default: all cores).
use std::path::Path;
use std::time::Instant;

use magcl::eval::{evaluate, npy, Evaluator};

/// CPU time of the whole process so far (Linux; 0 elsewhere).
fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            let rest = s.rsplit(')').next()?.split_whitespace().collect::<Vec<_>>();
            // fields after the name: state is [0]; utime is field 14 → rest[11], stime rest[12]
            let ut: f64 = rest.get(11)?.parse().ok()?;
            let st: f64 = rest.get(12)?.parse().ok()?;
            Some((ut + st) / 100.0)
        })
        .unwrap_or(0.0)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = args
        .next()
        .ok_or("usage: eval_bench DIR [EVALUATOR] [REPEATS]")?;
    let ev: Evaluator = args.next().as_deref().unwrap_or("svc-rbf").parse()?;
    let repeats: usize = args.next().as_deref().unwrap_or("3").parse()?;
    let p = Path::new(&dir);
    let (x, n, d) = npy::read_embeddings(&p.join("x.npy"))?;
    let y = npy::read_labels(&p.join("y.npy"))?;
    let folds = npy::read_folds(&p.join("folds.npy"))?;
    let threads = rayon::current_num_threads();
    let mut best = f64::INFINITY;
    let mut cpu = Vec::new();
    let mut acc = 0.0;
    for _ in 0..repeats.max(1) {
        let (t, c) = (Instant::now(), cpu_seconds());
        let r = evaluate(ev, &x, n, d, &y, Some(&folds), 0)?;
        best = best.min(t.elapsed().as_secs_f64());
        cpu.push(cpu_seconds() - c);
        acc = r.accuracy;
    }
    println!(
        "{dir} {n}x{d} {ev} threads={threads}: accuracy {acc:.2} %, best wall {best:.3} s of {} runs, cpu per run {:?} s",
        repeats.max(1),
        cpu.iter().map(|c| (c * 100.0).round() / 100.0).collect::<Vec<_>>()
    );
    Ok(())
}
