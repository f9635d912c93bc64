//! Where one svc-rbf evaluation spends its time (development aid): for the first
//! `FOLDS` outer folds of the default protocol (seed 0), the CPU time to build each inner
//! fit's kernel and, per C, the SMO iterations and CPU seconds (thread CPU time, so the
//! numbers mean something on a busy machine).
//!
//!     cargo run --release --example svm_profile -- X.npy y.npy [FOLDS] [cold|warm|scaled]
//!
//! The last argument seeds each C after the first (`svc::Seed`; cold = libsvm's path).
use std::path::Path;

/// CPU time of this thread, seconds (wall clocks are useless on a busy machine).
fn cpu() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid timespec pointer
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

struct Instant(f64);
impl Instant {
    fn now() -> Self {
        Instant(cpu())
    }
    fn elapsed(&self) -> std::time::Duration {
        std::time::Duration::from_secs_f64(cpu() - self.0)
    }
}

use magcl_eval::linalg::{squared_distances, Features};
use magcl_eval::svc::{gamma_scale, RbfPath, Seed, SqDist};
use magcl_eval::{npy, sklearn_stratified_kfold, stratified_kfold, C_GRID, INNER_FOLDS};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let xp = args
        .next()
        .ok_or("usage: svm_profile X.npy y.npy [FOLDS]")?;
    let yp = args
        .next()
        .ok_or("usage: svm_profile X.npy y.npy [FOLDS]")?;
    let nfolds: usize = args.next().as_deref().unwrap_or("1").parse()?;
    let seed = match args.next().as_deref().unwrap_or("cold") {
        "cold" => Seed::Cold,
        "warm" => Seed::Warm,
        "scaled" => Seed::Scaled,
        s => return Err(format!("unknown seed mode {s:?} (cold, warm or scaled)").into()),
    };
    let (x, n, d) = npy::read_embeddings(Path::new(&xp))?;
    let y = npy::read_labels(Path::new(&yp))?;
    let f = Features::from_f32(&x, n, d);
    let t = Instant::now();
    let data = squared_distances(&f);
    let d2 = SqDist::new(n, &data);
    println!("distances {:.3} s", t.elapsed().as_secs_f64());
    let outer = stratified_kfold(&y, 10, 0)?;
    let (mut t_kernel, mut t_test, mut t_pred) = (0.0, 0.0, 0.0);
    let mut t_c = vec![0.0; C_GRID.len()];
    let mut it_c = vec![0usize; C_GRID.len()];
    for fold in 0..nfolds {
        let train: Vec<usize> = (0..n).filter(|&i| outer[i] != fold).collect();
        let ytr: Vec<u32> = train.iter().map(|&i| y[i]).collect();
        let inner = sklearn_stratified_kfold(&ytr, INNER_FOLDS)?;
        for g in 0..INNER_FOLDS {
            let fit: Vec<usize> = train
                .iter()
                .zip(&inner)
                .filter(|(_, &h)| h != g)
                .map(|(&i, _)| i)
                .collect();
            let held: Vec<usize> = train
                .iter()
                .zip(&inner)
                .filter(|(_, &h)| h == g)
                .map(|(&i, _)| i)
                .collect();
            let gamma = gamma_scale(f.variance_of_rows(&fit), d);
            let t = Instant::now();
            let mut p = RbfPath::new(&d2, &y, &fit, gamma).ok_or("one class")?;
            t_kernel += t.elapsed().as_secs_f64();
            let t = Instant::now();
            let kt = p.test_kernel(&d2, &held);
            t_test += t.elapsed().as_secs_f64();
            for (ci, &c) in C_GRID.iter().enumerate() {
                let before = p.iterations();
                let t = Instant::now();
                p.solve_seeded(c, seed);
                t_c[ci] += t.elapsed().as_secs_f64();
                it_c[ci] += p.iterations() - before;
                let t = Instant::now();
                let pred = p.predict(&kt);
                let ok = pred.iter().zip(&held).filter(|(a, &i)| **a == y[i]).count();
                print!("{ok:>5}");
                t_pred += t.elapsed().as_secs_f64();
            }
            println!("  correct per C (outer fold {fold}, inner fold {g})");
        }
    }
    println!("kernel {t_kernel:.3} s, test kernel {t_test:.3} s, predict {t_pred:.3} s");
    for (ci, &c) in C_GRID.iter().enumerate() {
        println!(
            "C={c:>7}: {:>9} iterations, {:.3} s ({:.2} µs/iter)",
            it_c[ci],
            t_c[ci],
            1e6 * t_c[ci] / it_c[ci].max(1) as f64
        );
    }
    Ok(())
}
