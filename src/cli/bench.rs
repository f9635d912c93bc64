//! `magcl bench` (to be written).
use clap::Args;

#[derive(Args, Debug)]
pub struct BenchArgs {}

pub fn run(_args: BenchArgs) -> anyhow::Result<()> {
    anyhow::bail!("`magcl bench` is not implemented yet")
}
