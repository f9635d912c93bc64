//! `--shard I/N` and `--shard slurm`: one of N parts of a sweep, dealt by estimated cost so
//! that the parts take about the same time, and the same on every machine.
use super::cost::estimated_cost;
use super::Cell;
use crate::error::{Error, Result};

/// Parses `--shard I/N` (0-based I < N), or `--shard slurm`: the shard of this task of a
/// Slurm job array ([`slurm_shard`] with the process environment).
pub fn parse_shard(s: &str) -> Result<(usize, usize)> {
    if s.trim().eq_ignore_ascii_case("slurm") {
        return slurm_shard(|name| std::env::var(name).ok());
    }
    let bad = || {
        Error::Config(format!(
            "--shard {s}: expected I/N with 0 ≤ I < N, e.g. 0/4"
        ))
    };
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let i: usize = i.trim().parse().map_err(|_| bad())?;
    let n: usize = n.trim().parse().map_err(|_| bad())?;
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

/// The shard `(I, N)` of a Slurm job-array task, from `SLURM_ARRAY_TASK_ID`,
/// `SLURM_ARRAY_TASK_MIN` and `SLURM_ARRAY_TASK_COUNT` (read through `var`): I = ID − MIN,
/// N = COUNT, so `--array=0-7` and `--array=1-8` both make shards 0…7 of 8. Arrays with a
/// step or a list of ids (`--array=0-15:2`, `--array=1,4,9`) are refused, since their ids
/// do not number the shards 0…N−1.
pub fn slurm_shard(var: impl Fn(&str) -> Option<String>) -> Result<(usize, usize)> {
    let get = |name: &str| -> Result<usize> {
        let v = var(name).ok_or_else(|| {
            Error::Config(format!(
                "--shard slurm: {name} is not set (run inside a Slurm job array, \
                 e.g. sbatch --array=0-7, or give --shard I/N)"
            ))
        })?;
        v.trim().parse().map_err(|_| {
            Error::Config(format!("--shard slurm: {name}={v:?} is not a whole number"))
        })
    };
    let (id, min, count) = (
        get("SLURM_ARRAY_TASK_ID")?,
        get("SLURM_ARRAY_TASK_MIN")?,
        get("SLURM_ARRAY_TASK_COUNT")?,
    );
    let max = var("SLURM_ARRAY_TASK_MAX").and_then(|v| v.trim().parse::<usize>().ok());
    if count == 0
        || id < min
        || id - min >= count
        || max.is_some_and(|m| m < min || m - min + 1 != count)
    {
        return Err(Error::Config(format!(
            "--shard slurm: task {id} of an array from {min} with {count} tasks{} does not \
             number its shards 0…N−1 (use a contiguous array such as --array=0-{}, or --shard I/N)",
            max.map(|m| format!(" up to {m}")).unwrap_or_default(),
            count.max(1) - 1
        )));
    }
    Ok((id - min, count))
}

/// Cells of shard `i` of `n`, dealt by estimated cost ([`estimated_cost`]) so that the
/// shards take about the same time: cells in decreasing order of cost (sweep order among
/// equals) each go to the shard with the least total cost so far (the lowest-numbered
/// among equals). The deal depends only on the cells' configs, so every task of a job
/// array, on any machine, computes the same partition. Each shard keeps sweep order.
pub fn shard(cells: Vec<Cell>, i: usize, n: usize) -> Vec<Cell> {
    let owner = deal_by_cost(
        &cells
            .iter()
            .map(|c| estimated_cost(&c.config))
            .collect::<Vec<_>>(),
        n,
    );
    cells
        .into_iter()
        .zip(owner)
        .filter(|(_, o)| *o == i)
        .map(|(c, _)| c)
        .collect()
}

/// The shard of each item when items of the given costs are dealt greedily to `n` shards,
/// largest first, each to the least-loaded shard (longest-processing-time-first: the
/// largest shard is at most 4/3 of the best possible).
pub fn deal_by_cost(costs: &[f64], n: usize) -> Vec<usize> {
    let n = n.max(1);
    let mut order: Vec<usize> = (0..costs.len()).collect();
    // Stable sort: equal costs keep sweep order.
    order.sort_by(|&a, &b| costs[b].total_cmp(&costs[a]));
    let mut load = vec![0.0f64; n];
    let mut owner = vec![0usize; costs.len()];
    for k in order {
        let mut best = 0;
        for s in 1..n {
            if load[s] < load[best] {
                best = s;
            }
        }
        owner[k] = best;
        load[best] += costs[k];
    }
    owner
}

#[cfg(test)]
mod tests {
    use super::super::tests::parse;
    use super::*;

    #[test]
    fn every_cell_is_in_one_shard_in_sweep_order() {
        let s = parse("datasets = [\"MUTAG\", \"NCI1\"]\nmethods = \"graphcl\"\nseeds = 3\nma = [\"none\", \"ARS\"]\n").unwrap();
        let mut seen = Vec::new();
        for i in 0..5 {
            let part = shard(s.cells.clone(), i, 5);
            assert!(part.windows(2).all(|w| w[0].index < w[1].index));
            seen.extend(part.iter().map(|c| c.index));
        }
        seen.sort();
        assert_eq!(seen, (0..s.cells.len()).collect::<Vec<_>>());
        assert_eq!(parse_shard("1/3").unwrap(), (1, 3));
        assert!(parse_shard("3/3").is_err());
    }

    #[test]
    fn shards_are_dealt_by_cost() {
        // Hand-dealt: 5→A, 4→B, 3→B (7), 3→A (8), 2→B (9), 1→A (9).
        assert_eq!(
            deal_by_cost(&[5.0, 4.0, 3.0, 3.0, 2.0, 1.0], 2),
            vec![0, 1, 1, 0, 1, 0]
        );
        // Equal costs: round-robin in sweep order.
        assert_eq!(deal_by_cost(&[1.0; 5], 2), vec![0, 1, 0, 1, 0]);
        assert_eq!(deal_by_cost(&[1.0, 2.0], 4), vec![1, 0]);
        // A sweep of cheap and expensive cells: dealing by cost balances the shards far
        // better than taking every n-th cell, and both tasks compute the same deal.
        let s = parse(
            "datasets = [\"MUTAG\", \"NCI1\", \"PROTEINS\"]\nmethods = [\"graphcl\", \"adgcl\"]\nseeds = 4\nma = [\"none\", \"ARS\"]\n",
        )
        .unwrap();
        let load = |cells: &[Cell]| cells.iter().map(|c| estimated_cost(&c.config)).sum::<f64>();
        let n = 4;
        let dealt: Vec<f64> = (0..n)
            .map(|i| load(&shard(s.cells.clone(), i, n)))
            .collect();
        let modulo: Vec<f64> = (0..n)
            .map(|i| {
                let part: Vec<Cell> = s
                    .cells
                    .iter()
                    .filter(|c| c.index % n == i)
                    .cloned()
                    .collect();
                load(&part)
            })
            .collect();
        let spread = |v: &[f64]| {
            v.iter().cloned().fold(f64::MIN, f64::max) / v.iter().cloned().fold(f64::MAX, f64::min)
        };
        assert!(spread(&dealt) < 1.1, "{dealt:?}");
        assert!(spread(&dealt) < spread(&modulo), "{dealt:?} vs {modulo:?}");
    }

    /// A faked Slurm environment: `(name, value)` pairs.
    fn slurm(vars: &[(&str, &str)]) -> Result<(usize, usize)> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        slurm_shard(|name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
    }

    #[test]
    fn slurm_job_arrays_number_shards_from_zero() {
        let task = |id: &str, min: &str, max: &str, count: &str| {
            slurm(&[
                ("SLURM_ARRAY_TASK_ID", id),
                ("SLURM_ARRAY_TASK_MIN", min),
                ("SLURM_ARRAY_TASK_MAX", max),
                ("SLURM_ARRAY_TASK_COUNT", count),
            ])
        };
        // --array=0-7 and --array=1-8 give the same shards.
        assert_eq!(task("0", "0", "7", "8").unwrap(), (0, 8));
        assert_eq!(task("7", "0", "7", "8").unwrap(), (7, 8));
        assert_eq!(task("1", "1", "8", "8").unwrap(), (0, 8));
        assert_eq!(task("8", "1", "8", "8").unwrap(), (7, 8));
        // A step (--array=0-14:2: ids 0,2,…,14, 8 tasks) or a list leaves gaps: refused.
        assert!(task("2", "0", "14", "8").is_err());
        assert!(task("9", "1", "9", "3").is_err());
        // Outside a job array, or with a broken value: a clear error naming the variable.
        let e = slurm(&[]).unwrap_err().to_string();
        assert!(e.contains("SLURM_ARRAY_TASK_ID"), "{e}");
        let e = task("x", "0", "7", "8").unwrap_err().to_string();
        assert!(
            e.contains("SLURM_ARRAY_TASK_ID") && e.contains("whole number"),
            "{e}"
        );
    }
}
