//! `magcl eval` (to be written).
use clap::Args;

#[derive(Args, Debug)]
pub struct EvalArgs {}

pub fn run(_args: EvalArgs) -> anyhow::Result<()> {
    anyhow::bail!("`magcl eval` is not implemented yet")
}
