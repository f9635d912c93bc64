//! Alpha seeding on real embeddings (development aid): runs the full svc-rbf protocol
//! (10 outer folds, seed 0, as `magcl eval --evaluator svc-rbf --seed 0`) once per seed
//! mode and prints the outcome (accuracy, chosen C and correct test predictions per outer
//! fold) and the process CPU time, so the warm-started grids can be compared with
//! libsvm's cold path (see `docs/evaluation.md`, "Warm starts").
//!
//!     cargo run --release --example svm_seeding -- X.npy y.npy [cold|warm|scaled ...]
use std::path::Path;
use std::time::Instant;

use magcl_eval::cv::{run_splits_seeded, Split};
use magcl_eval::linalg::Features;
use magcl_eval::svc::Seed;
use magcl_eval::{npy, stratified_kfold, Evaluator, OUTER_FOLDS};

/// CPU time of the whole process (all threads), seconds.
fn cpu() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid timespec pointer
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let usage = "usage: svm_seeding X.npy y.npy [cold|warm|scaled ...]";
    let mut args = std::env::args().skip(1);
    let xp = args.next().ok_or(usage)?;
    let yp = args.next().ok_or(usage)?;
    let mut seeds = Vec::new();
    for a in args {
        seeds.push(match a.as_str() {
            "cold" => Seed::Cold,
            "warm" => Seed::Warm,
            "scaled" => Seed::Scaled,
            _ => return Err(format!("unknown seed mode {a:?}; {usage}").into()),
        });
    }
    if seeds.is_empty() {
        seeds = vec![Seed::Cold, Seed::Warm, Seed::Scaled];
    }
    let (x, n, d) = npy::read_embeddings(Path::new(&xp))?;
    let y = npy::read_labels(Path::new(&yp))?;
    let f = Features::from_f32(&x, n, d);
    let folds = stratified_kfold(&y, OUTER_FOLDS, 0)?;
    let splits: Vec<Split> = (0..OUTER_FOLDS)
        .map(|k| Split {
            train: (0..n).filter(|&i| folds[i] != k).collect(),
            val: Vec::new(),
            test: (0..n).filter(|&i| folds[i] == k).collect(),
        })
        .collect();
    for seed in seeds {
        let (c0, w0) = (cpu(), Instant::now());
        let out = run_splits_seeded(Evaluator::SvcRbf, &f, &y, &splits, false, seed)?;
        let (cs, ws) = (cpu() - c0, w0.elapsed().as_secs_f64());
        let correct: usize = out.iter().map(|o| o.test_correct).sum();
        let acc: f64 = out
            .iter()
            .zip(&splits)
            .map(|(o, s)| 100.0 * o.test_correct as f64 / s.test.len() as f64)
            .sum::<f64>()
            / out.len() as f64;
        println!("{seed:?}: accuracy {acc:.4} ({correct} correct), CPU {cs:.2} s, wall {ws:.2} s");
        let best: Vec<String> = out.iter().map(|o| o.best_c.to_string()).collect();
        let fc: Vec<String> = out.iter().map(|o| o.test_correct.to_string()).collect();
        println!("  best C   {}", best.join(" "));
        println!("  correct  {}", fc.join(" "));
        for (k, o) in out.iter().enumerate() {
            let m: Vec<String> = o.inner_mean.iter().map(|v| format!("{v:.5}")).collect();
            println!("  fold {k} inner means {}", m.join(" "));
        }
    }
    Ok(())
}
