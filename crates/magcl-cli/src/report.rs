//! `magcl report`: summarise result CSVs.
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{Args, ValueEnum};

use magcl_core::only::Only;
use magcl_report::claims::{verdict_csv, verdict_markdown, ClaimsFile};
use magcl_report::{
    floor, plot, raster, render, write_file, BuildOptions, HolmScope, Metric, Report,
};

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Format {
    Md,
    Csv,
    Json,
}

/// The arguments of `magcl report`; its help text is in the command table
/// ([`crate::commands`]).
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Result CSVs written by `magcl bench`.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value = "md")]
    pub format: Format,
    /// Also draw a paired bar plot (one panel per method; each seed a dot) to this SVG
    /// file and a PNG beside it; a sweep with a grid over two keys also gets heat maps in
    /// FILE-heatmap.svg/.png. Rows of a method at two or more epoch counts (its untrained
    /// encoder counting as epoch 0) get training curves in FILE.svg/.png instead —
    /// accuracy against epochs with 95% CIs, one panel per dataset, the classical floors
    /// as bands — and the bar plot in FILE-bars.svg/.png. Rows pre-trained on subsets of
    /// the graphs (`pretrain.graphs`) get the pre-training size plot in FILE.svg/.png —
    /// accuracy against the number of graphs on a log2 axis with 95% CIs, the untrained
    /// encoders, WL and the degree histogram as bands — the training curves, if any, in
    /// FILE-curves.svg/.png and the bar plot in FILE-bars.svg/.png.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Draw a forest plot to this SVG file and a PNG beside it: one line per comparison
    /// (per claim and comparison with --claims), Δ with its 95% interval, the claimed Δ,
    /// a line at 0.
    #[arg(long, value_name = "FILE.svg")]
    pub forest: Option<PathBuf>,
    /// The metric to summarise: accuracy or nmi.
    #[arg(long, default_value = "accuracy")]
    pub metric: String,
    /// Family of Holm's correction: `family` (the default: over the datasets of one
    /// method, evaluator, split, MA setting and variant) or `table` (over every
    /// comparison of the report).
    #[arg(long, default_value = "family", value_name = "family|table")]
    pub holm: String,
    /// A claims file (e.g. configs/claims/ma_gcl_paper.toml): adds the verdict table
    /// (claim Δ | measured Δ [95% CI] | MDE | verdict) to the report.
    #[arg(long, value_name = "FILE.toml")]
    pub claims: Option<PathBuf>,
    /// The sweep the result files come from (e.g. the shards of one sweep): the cells it
    /// defines that no row covers are listed on stderr (dataset, method, MA, variant,
    /// seed), and how to run just those (`magcl bench FILE --resume` on one output).
    #[arg(long, value_name = "SWEEP.toml")]
    pub sweep: Option<PathBuf>,
    /// Also write the verdict table on its own as markdown (needs --claims).
    #[arg(long, value_name = "FILE.md", requires = "claims")]
    pub verdict_md: Option<PathBuf>,
    /// Also write the verdict table as CSV (needs --claims).
    #[arg(long, value_name = "FILE.csv", requires = "claims")]
    pub verdict_csv: Option<PathBuf>,
    /// The MA label a claim's summary reads first where several readings measure it.
    #[arg(long, default_value = magcl_report::claims::PRIMARY_MA, value_name = "LABEL")]
    pub primary_ma: String,
    /// Also write the floor lines (gain over the untrained encoder, gap to the classical
    /// floors) as CSV.
    #[arg(long, value_name = "FILE.csv")]
    pub floor_csv: Option<PathBuf>,
    /// Pool the rows of one configuration that come from different commits (listed in
    /// the report) instead of refusing them.
    #[arg(long)]
    pub allow_mixed_commits: bool,
    /// Report only the rows with these values, as `magcl bench --only` keeps cells, e.g.
    /// `--only ma=none,"ARS code"` (one MA reading beside the baseline) or `--only
    /// dataset=MUTAG,NCI1 --only method=graphcl`. Keys: dataset, method, seed, ma,
    /// variant, evaluator; `ma=ARS` also keeps `ARS gin+filter`. Holm's correction, the
    /// floor and the claims see only the rows kept; the report's first line names the
    /// filter and how many rows it left out.
    #[arg(long, value_name = "KEY=V[,V…]")]
    pub only: Vec<String>,
}

/// Writes an SVG and its PNG copy (same stem, `.png`).
fn write_svg_and_png(path: &Path, svg: &str) -> anyhow::Result<()> {
    write_file(path, svg)?;
    eprintln!("wrote {}", path.display());
    let png = path.with_extension("png");
    raster::write_png(&png, svg)?;
    eprintln!("wrote {}", png.display());
    Ok(())
}

/// Lists the cells of a sweep (its file) that no row of the result files covers; it
/// expands the sweep with the experiment layer, so `magcl-torch` supplies it
/// (`magcl report --sweep` runs there).
pub type MissingCells = fn(&Path, &[PathBuf]) -> anyhow::Result<()>;

pub fn run(args: ReportArgs, missing_cells: Option<MissingCells>) -> anyhow::Result<()> {
    let metric = Metric::parse(&args.metric)?;
    let options = BuildOptions {
        allow_mixed_commits: args.allow_mixed_commits,
    };
    let only = Only::parse_all(&args.only)?;
    let mut report = Report::from_files_only(&args.files, metric, options, &only)?;
    if !report.cross_commit_duplicates.is_empty() {
        eprintln!(
            "note: {} cell(s) appear in rows of two commits; the first row of each is used, both are listed in the report",
            report.cross_commit_duplicates.len()
        );
    }
    if !report.mixed_copies.is_empty() {
        eprintln!(
            "note: the rows of {} dataset(s) read more than one copy of the data (different sha256); the copies are listed in the report",
            report.mixed_copies.len()
        );
    }
    if let Some(sweep) = &args.sweep {
        let missing_cells = missing_cells.context(
            "--sweep needs the experiment layer: run it with magcl (which hands it to \
             magcl-torch) or magcl-torch",
        )?;
        missing_cells(sweep, &args.files)?;
    }
    report.set_holm_scope(HolmScope::parse(&args.holm)?);
    if let Some(path) = &args.claims {
        let claims = ClaimsFile::read(path)?;
        report.add_claims_with(path, &claims, &args.primary_ma);
    }
    let text = match args.format {
        Format::Md => render::markdown(&report),
        Format::Csv => render::csv(&report)?,
        Format::Json => render::json(&report)?,
    };
    out!("{text}");
    if let Some(v) = &report.verdicts {
        if let Some(p) = &args.verdict_md {
            let md = format!(
                "# MA-GCL's claims against magcl's measurements: {}\n\nFrom {}.\n\n{}",
                metric.as_str(),
                args.files
                    .iter()
                    .map(|f| format!("`{}`", f.display()))
                    .collect::<Vec<_>>()
                    .join(", "),
                verdict_markdown(v, metric)
            );
            write_file(p, &md)?;
            eprintln!("wrote {}", p.display());
        }
        if let Some(p) = &args.verdict_csv {
            write_file(p, &verdict_csv(v, metric)?)?;
            eprintln!("wrote {}", p.display());
        }
    }
    if let Some(p) = &args.floor_csv {
        if report.floor.is_empty() {
            eprintln!(
                "note: no floor lines (no untrained-*, wl, degree or features rows beside a method's rows); {} has the header only",
                p.display()
            );
        }
        write_file(p, &floor::csv(&report.floor, metric)?)?;
        eprintln!("wrote {}", p.display());
    }
    if let Some(path) = &args.plot {
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .context("--plot needs a file name")?;
        let bars = plot::bars(&report)?;
        let beside = |what: &str| path.with_file_name(format!("{stem}-{what}.svg"));
        match (plot::pretrain_sizes(&report)?, plot::curves(&report)?) {
            // The pre-training size plot takes the plot's name; the others move beside it.
            (Some(sizes), curves) => {
                write_svg_and_png(path, &sizes)?;
                if let Some(curves) = curves {
                    write_svg_and_png(&beside("curves"), &curves)?;
                }
                write_svg_and_png(&beside("bars"), &bars)?;
            }
            // Training curves take the plot's name; the bars move beside them.
            (None, Some(curves)) => {
                write_svg_and_png(path, &curves)?;
                write_svg_and_png(&beside("bars"), &bars)?;
            }
            (None, None) => write_svg_and_png(path, &bars)?,
        }
        if let Some(heat) = plot::heatmap(&report)? {
            let hp = path.with_file_name(format!("{stem}-heatmap.svg"));
            write_svg_and_png(&hp, &heat)?;
        }
    }
    if let Some(path) = &args.forest {
        match plot::forest(&report)? {
            Some(svg) => write_svg_and_png(path, &svg)?,
            None => eprintln!(
                "no forest plot: the report has no baseline-vs-MA comparison{}",
                if report.verdicts.is_some() {
                    " that matches a claim"
                } else {
                    ""
                }
            ),
        }
    }
    Ok(())
}
