//! `magcl report`: summarise result CSVs.
use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, ValueEnum};

use crate::report::{plot, render, write_file, Metric, Report};

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Format {
    Md,
    Csv,
    Json,
}

/// Summarise result CSVs: mean ± std (ddof = 1), 95% t-intervals, and baseline vs +MA
/// comparisons paired by seed (paired t-test, Wilcoxon signed-rank, Cohen's d_z, Holm).
///
/// Several files (e.g. the shards of one sweep) are read as one; rows with the same
/// config hash count once, and a cell found in rows of two commits is listed with both.
/// The rows of one group must share their configuration (seed aside): a report never
/// averages different configurations, it refuses and names the differing keys.
/// Accuracies outside [0, 100], NMI outside [0, 1] and non-finite values are errors.
/// See docs/reliability.md.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Result CSVs written by `magcl bench`.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value = "md")]
    pub format: Format,
    /// Also draw a paired bar plot (one panel per method) to this SVG file; a sweep
    /// with a grid over two keys also gets heat maps in FILE-heatmap.svg.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// The metric to summarise: accuracy or nmi.
    #[arg(long, default_value = "accuracy")]
    pub metric: String,
}

pub fn run(args: ReportArgs) -> anyhow::Result<()> {
    let metric = Metric::parse(&args.metric)?;
    let report = Report::from_files(&args.files, metric)?;
    if !report.cross_commit_duplicates.is_empty() {
        eprintln!(
            "note: {} cell(s) appear in rows of two commits; the first row of each is used, both are listed in the report",
            report.cross_commit_duplicates.len()
        );
    }
    let text = match args.format {
        Format::Md => render::markdown(&report),
        Format::Csv => render::csv(&report)?,
        Format::Json => render::json(&report)?,
    };
    out!("{text}");
    if let Some(path) = &args.plot {
        let svg = plot::bars(&report)?;
        write_file(path, &svg)?;
        eprintln!("wrote {}", path.display());
        if let Some(heat) = plot::heatmap(&report)? {
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .context("--plot needs a file name")?;
            let hp = path.with_file_name(format!("{stem}-heatmap.svg"));
            write_file(&hp, &heat)?;
            eprintln!("wrote {}", hp.display());
        }
    }
    Ok(())
}
