//! `magcl datasets` (to be written).
use clap::Args;

#[derive(Args, Debug)]
pub struct DatasetsArgs {}

pub fn run(_args: DatasetsArgs) -> anyhow::Result<()> {
    anyhow::bail!("`magcl datasets` is not implemented yet")
}
