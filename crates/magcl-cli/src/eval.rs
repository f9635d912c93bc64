//! `magcl eval`: score embeddings made anywhere with the papers' evaluation protocols.
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use clap::Args;

use magcl_eval::{npy, Evaluator};

/// What `magcl eval --help` explains below the options.
const PROTOCOL: &str = "\
Input: --embeddings X.npy (float32 or float64, shape samples x dims), --labels y.npy
(integers, one per sample; any values, classes are ordered by value), optionally
--folds folds.npy (integer outer-fold index per sample, 0..k).

Protocol (default; GraphCL / SimGRACE): outer stratified 10-fold CV shuffled with --seed
(or the folds you give). In each outer fold, C in {0.001, 0.01, 0.1, 1, 10, 100, 1000} is
chosen by an inner stratified 5-fold CV on the training part (exactly scikit-learn's
GridSearchCV(cv=5) split; ties go to the smaller C); the classifier is refit on the whole
training part with that C and scored on the held-out fold. The score is the mean of the
fold accuracies; the +/- is the sample std (ddof = 1) over folds.

Evaluators:
  svc-rbf     scikit-learn SVC(): RBF kernel, gamma = 1 / (dims * Var(X_train)),
              tol 1e-3, one-vs-one; no feature scaling (GraphCL, SimGRACE)
  linear-svc  features standardised on the training part, then LinearSVC(dual=False):
              squared hinge, L2, intercept regularised (AD-GCL)
  logreg      standardised, then L2 logistic regression (multinomial for > 2 classes)

--validation switches to AD-GCL's protocol: KFold(10), shuffled, not stratified; the
training folds are split 80/20 into train/validation; features are standardised on the
train part for every evaluator; the grid search and the fit use the train part; both
validation and test accuracy are reported (select epochs by validation only).

Example:
  magcl eval --embeddings emb.npy --labels y.npy --evaluator svc-rbf --seed 0 --json";

/// The arguments of `magcl eval`; its help text is in the command table
/// ([`crate::commands`]).
#[derive(Args, Debug)]
#[command(after_help = PROTOCOL)]
pub struct EvalArgs {
    /// Embeddings, .npy float32/float64 of shape (samples, dims).
    #[arg(long, value_name = "X.npy")]
    pub embeddings: PathBuf,
    /// Class labels, .npy integer array with one entry per sample.
    #[arg(long, value_name = "y.npy")]
    pub labels: PathBuf,
    /// Outer-fold index per sample (.npy integers 0..k); default: folds drawn from --seed.
    #[arg(long, value_name = "folds.npy")]
    pub folds: Option<PathBuf>,
    /// Classifier: svc-rbf | linear-svc | logreg.
    #[arg(long, default_value = "svc-rbf", value_parser = parse_evaluator)]
    pub evaluator: Evaluator,
    /// Seed for the outer folds (and the validation split).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// AD-GCL protocol: KFold(10) + 80/20 train/validation split, validation reported.
    #[arg(long)]
    pub validation: bool,
    /// Also cluster with k-means (k = number of classes, 20 restarts) and report the
    /// median NMI.
    #[arg(long)]
    pub nmi: bool,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
}

fn parse_evaluator(s: &str) -> Result<Evaluator, String> {
    s.parse().map_err(|e: magcl_eval::Error| e.to_string())
}

pub fn run(args: EvalArgs) -> anyhow::Result<()> {
    let (x, n, d) = npy::read_embeddings(&args.embeddings)?;
    let raw = npy::read_ints(&args.labels, "labels")?;
    if raw.len() != n {
        anyhow::bail!(
            "{}: {} labels, but {} has {n} embeddings",
            args.labels.display(),
            raw.len(),
            args.embeddings.display()
        );
    }
    let y = magcl_eval::dense_labels(&raw);
    let n_classes = y.iter().copied().max().map_or(0, |m| m as usize + 1);
    let folds = match &args.folds {
        Some(p) => {
            let f = npy::read_folds(p)?;
            if f.len() != n {
                anyhow::bail!(
                    "{}: {} fold indices, but {} has {n} embeddings",
                    p.display(),
                    f.len(),
                    args.embeddings.display()
                );
            }
            Some(f)
        }
        None => None,
    };
    let t0 = Instant::now();
    let res = if args.validation {
        magcl_eval::evaluate_with_validation(
            args.evaluator,
            &x,
            n,
            d,
            &y,
            folds.as_deref(),
            args.seed,
        )
    } else {
        magcl_eval::evaluate(args.evaluator, &x, n, d, &y, folds.as_deref(), args.seed)
    }
    .with_context(|| format!("evaluating {}", args.embeddings.display()))?;
    let seconds = t0.elapsed().as_secs_f64();
    let nmi = if args.nmi {
        let t = Instant::now();
        let v = magcl_eval::kmeans_nmi(&x, n, d, &y, n_classes, 20, args.seed)?;
        let med = magcl_eval::stats::median(&v).context("k-means gave no NMI")?;
        Some((med, t.elapsed().as_secs_f64()))
    } else {
        None
    };
    let protocol = if args.validation {
        "adgcl-validation"
    } else {
        "nested-cv"
    };
    let fold_source = match (&args.folds, args.validation) {
        (Some(p), _) => format!("from {}", p.display()),
        (None, false) => format!("stratified, shuffled with seed {}", args.seed),
        (None, true) => format!("KFold, shuffled with seed {}", args.seed),
    };
    if args.json {
        let obj = serde_json::json!({
            "evaluator": args.evaluator.name(),
            "protocol": protocol,
            "n": n,
            "d": d,
            "classes": n_classes,
            "folds": res.fold_accuracies.len(),
            "seed": args.seed,
            "accuracy": res.accuracy,
            "accuracy_std_folds": res.std,
            "std_ddof": 1,
            "fold_accuracies": res.fold_accuracies,
            "fold_correct": res.fold_correct,
            "fold_sizes": res.fold_sizes,
            "best_c": res.best_c,
            "val_accuracy": res.val_accuracy,
            "fold_val_accuracies": res.fold_val_accuracies,
            "nmi_median": nmi.map(|v| v.0),
            "seconds": seconds,
        });
        outln!("{obj}");
        return Ok(());
    }
    outln!(
        "{} embeddings {n} × {d}, {n_classes} classes; evaluator {} ({protocol}); folds {fold_source}",
        args.embeddings.display(),
        args.evaluator
    );
    outln!();
    if res.fold_val_accuracies.is_some() {
        outln!("fold  test n  correct  test acc %  val acc %  best C");
    } else {
        outln!("fold  test n  correct  test acc %  best C");
    }
    for i in 0..res.fold_accuracies.len() {
        let val = res
            .fold_val_accuracies
            .as_ref()
            .map(|v| format!("  {:>9.2}", v[i]))
            .unwrap_or_default();
        outln!(
            "{i:>4}  {:>6}  {:>7}  {:>10.2}{val}  {}",
            res.fold_sizes[i],
            res.fold_correct[i],
            res.fold_accuracies[i],
            res.best_c[i]
        );
    }
    outln!();
    outln!(
        "accuracy {:.2} ± {:.2} % (mean ± sample std over {} folds)",
        res.accuracy,
        res.std,
        res.fold_accuracies.len()
    );
    if let Some(v) = res.val_accuracy {
        outln!("validation accuracy {v:.2} % (mean over folds)");
    }
    if let Some((m, _)) = nmi {
        outln!("k-means NMI {m:.4} (median of 20 restarts, k = {n_classes})");
    }
    outln!("time {seconds:.2} s");
    Ok(())
}
