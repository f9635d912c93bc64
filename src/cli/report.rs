//! `magcl report` (to be written).
use clap::Args;

#[derive(Args, Debug)]
pub struct ReportArgs {}

pub fn run(_args: ReportArgs) -> anyhow::Result<()> {
    anyhow::bail!("`magcl report` is not implemented yet")
}
