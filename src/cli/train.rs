//! `magcl train` (to be written).
use clap::Args;

#[derive(Args, Debug)]
pub struct TrainArgs {}

pub fn run(_args: TrainArgs) -> anyhow::Result<()> {
    anyhow::bail!("`magcl train` is not implemented yet")
}
