//! The command table: the name, one-line help and description of every `magcl` command,
//! written once here for both binaries.
//!
//! `magcl` (this crate's binary) and `magcl-torch` (the root package's) each declare the
//! commands they parse as a clap `Subcommand` enum whose variants carry no help text;
//! [`parser`] builds the command line from such an enum and gives the top level and every
//! subcommand its text from this table. An argument's own help stays on its field, in the
//! one crate that defines it.

/// One command of `magcl`.
#[derive(Debug)]
pub struct CommandSpec {
    /// `magcl NAME`.
    pub name: &'static str,
    /// One line, no final period: what `magcl --help` lists and `magcl NAME -h` shows.
    pub about: &'static str,
    /// What `magcl NAME --help` shows below that line, if anything.
    pub description: Option<&'static str>,
    /// Whether `magcl-torch` runs it: `magcl` hands it over unparsed. (`report` runs in
    /// `magcl`, except `report --sweep`, whose sweep is expanded by the experiment layer.)
    pub tensor: bool,
}

impl CommandSpec {
    /// The `--help` text: the line, then the description.
    pub fn long_about(&self) -> Option<String> {
        self.description.map(|d| format!("{}.\n\n{d}", self.about))
    }
}

/// The top level's one line.
pub const ABOUT: &str =
    "magcl — graph contrastive learning with and without model augmentation (MA)";

/// `magcl --help`'s text.
pub const LONG_ABOUT: &str = "\
magcl — graph contrastive learning with and without model augmentation (MA).

Train GraphCL, SimGRACE, AD-GCL, InfoGraph, JOAOv2 (graph classification) and the MA-GCL base \
model, GRACE, GCA, BGRL (node classification), each with and without MA; evaluate embeddings exactly as the papers do; \
run sweeps over seeds and report mean ± std, confidence intervals and paired tests.

Data: datasets are cached in $MAGCL_DATA_DIR (default ./tudatasets) and fetched on demand \
from $MAGCL_DATA_MIRROR (a folder or http(s) base URL) or the canonical URLs.";

/// Every command, in the order `magcl --help` lists them.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "datasets",
        about: "List, fetch and describe datasets",
        description: None,
        tensor: false,
    },
    CommandSpec {
        name: "train",
        about: "Train one method on one dataset with one seed, then evaluate the embeddings",
        description: Some(TRAIN),
        tensor: true,
    },
    CommandSpec {
        name: "eval",
        about: "Evaluate embeddings made anywhere with the papers' protocols",
        description: None,
        tensor: false,
    },
    CommandSpec {
        name: "bench",
        about: "Run a sweep described by a TOML config; append one CSV row per finished run",
        description: Some(BENCH),
        tensor: true,
    },
    CommandSpec {
        name: "report",
        about: "Summarise result CSVs: mean ± std, intervals, paired tests, tables and plots",
        description: Some(REPORT),
        tensor: false,
    },
    CommandSpec {
        name: "bench-speed",
        about: "Time training epochs, one evaluation and peak memory per method × dataset",
        description: Some(BENCH_SPEED),
        tensor: true,
    },
];

const TRAIN: &str = "\
Graph level (TU datasets, evaluated by 10-fold cross-validated SVMs):
  magcl train --method graphcl --dataset MUTAG --seed 0
  magcl train --method graphcl --dataset MUTAG --ma --ma-mode gin-sum
  magcl train --method simgrace --dataset NCI1 --eta 1.0
  magcl train --method adgcl --dataset IMDB-BINARY --epochs 20
  magcl train --method adgcl-fixed --dataset MUTAG     (AD-GCL's control: no learned view)
  magcl train --method infograph --dataset MUTAG --ma  (InfoGraph: one view, which follows K')
  magcl train --method joaov2 --dataset MUTAG --set joao.gamma=0.01   (JOAOv2)
  magcl train --method mvgrl --dataset MUTAG --ma     (MVGRL: the diffusion view follows K')
  magcl train --method mvgrl --dataset PROTEINS --preset paper   (encoders trained too)

MA readings (docs/ma.md): `--reading code` (the default of `--ma` at graph level:
the released code's choices), `current` or `paper` set the switches the paper leaves
open; single switches via flags or `--set ma.KEY=VALUE`:
  magcl train --method graphcl --dataset NCI1 --reading code
  magcl train --method simgrace --dataset MUTAG --reading code --set ma.k_branch=negatives
  (ma.zero_k = mlp|plain, ma.ranges = inclusive|exclusive, ma.k_branch =
  unaugmented|anchor|negatives, ma.redraw = step|epoch, ma.constraints =
  none|sum|layers|both, ma.eval_k = N)

Node level (the MA-GCL base model; `--ma` turns it into MA-GCL):
  magcl train --method base --dataset Cora --preset code --ma
  magcl train --method base --dataset CiteSeer --preset paper --tricks AR
  magcl train --method grace --dataset Cora --seed 0      (GRACE; `--ma` adds MA)
  magcl train --method gca --dataset Cora --set gca.scheme=pr   (GCA, PageRank weights)
  magcl train --method bgrl --dataset Cora --seed 0       (BGRL: no negatives; `--ma` adds MA)

The floor (baselines: no gradient step, the same evaluation as the methods;
docs/methods.md):
  magcl train --method untrained --dataset MUTAG            (GraphCL's encoder, untrained)
  magcl train --method untrained --of simgrace --dataset NCI1 --reading code
  magcl train --method untrained --dataset Cora             (the base model's encoder)
  magcl train --method wl --dataset NCI1 --set wl.iterations=3   (WL subtree + SVM)
  magcl train --method degree --dataset PROTEINS            (label/degree histograms + SVM)
  magcl train --method features --dataset Cora              (raw features + the probe)

Every run starts from the method's preset (the reference setup), then applies the
flags below, then `--set KEY=VALUE` overrides of any config field (`--print-config`
shows them all). `--config FILE.json` runs a complete resolved config instead (what
`magcl bench` does for each cell).

Long runs (CPU or GPU): `--checkpoint FILE` saves the training state every 60 s (or every
`--checkpoint-every-epochs N`) and continues from FILE when it exists, ending with the
numbers of an uninterrupted run; `--stop-after-epochs N` ends a call after N epochs with
exit status 75, so a run can span several calls of bounded length (docs/reliability.md):
  magcl train --method base --dataset PubMed --checkpoint pubmed.ckpt --stop-after-epochs 300";

const BENCH: &str = "\
Every cell runs in its own child process (`magcl train --config FILE.json --json`, or the \
program named by $MAGCL_BENCH_WORKER), so a crash loses one cell and each row records the \
true peak memory of its run. Rows are appended crash-safely: after a kill, `--resume` \
continues where the sweep stopped without duplicating a row, and each cell killed \
mid-training continues from its checkpoint (OUT.checkpoints/, saved every \
--checkpoint-every-secs) with the numbers of an uninterrupted run.";

const REPORT: &str = "\
Mean ± std (ddof = 1), 95% t-intervals, and baseline vs +MA comparisons paired by seed (Δ \
with its 95% interval, the minimum detectable effect at 80% power, paired t-test, Wilcoxon \
signed-rank, Cohen's d_z, Holm).

Several files (e.g. the shards of one sweep) are read as one; rows with the same config \
hash count once, and a cell found in rows of two commits is listed with both. The rows of \
one group must share their configuration (seed aside): a report never averages different \
configurations, it refuses and names the differing keys; nor does it pool one \
configuration's rows from different commits (see --allow-mixed-commits). Accuracies \
outside [0, 100], NMI outside [0, 1] and non-finite values are errors \
(docs/reliability.md). With --claims, the paper's claims are set beside the measurements \
with a verdict each (confirmed / opposite sign / not reproduced / cannot tell / not \
measured; definitions in the output and in docs/report.md). Rows of the baselines \
(untrained-*, wl, degree, features) add the floor section: each method's paired gain over \
its untrained encoder and its gap to the classical floors. Rows pre-trained on a subset of \
the graphs (`pretrain.graphs` in their config) add the pre-training size section: accuracy \
per size, and per method the smallest size above its untrained encoder (paired, Holm over \
the section) and above the classical floors, or \"not reached up to N\"; --plot draws it. \
--only keeps the rows it names (as bench --only keeps cells), before any of this is \
computed.";

const BENCH_SPEED: &str = "\
Epoch times are the median of the timed epochs, after a warm-up. Each CASE is
METHOD:DATASET (e.g. graphcl:NCI1, simgrace:MUTAG, base:Cora, base:synthetic-node). Every
case runs in its own process (`magcl train --config …`), so peak memory is the case's
own. One row per case is appended to the CSV (created with a header when new), with the
machine, device, thread count and commit.

  magcl bench-speed graphcl:MUTAG graphcl:NCI1 --eval
  magcl bench-speed base:Cora base:CiteSeer --ma --epochs 20 --device cuda
  magcl bench-speed grace:Cora gca:Cora bgrl:Cora --eval
  magcl bench-speed infograph:MUTAG joaov2:MUTAG mvgrl:MUTAG --eval";

/// The command of that name.
pub fn find(name: &str) -> Option<&'static CommandSpec> {
    COMMANDS.iter().find(|c| c.name == name)
}

/// The names of the commands `magcl-torch` runs (not counting `report --sweep`).
pub fn tensor_commands() -> impl Iterator<Item = &'static str> {
    COMMANDS.iter().filter(|c| c.tensor).map(|c| c.name)
}

/// The `magcl` command line for the commands of `S` (every command of the table, or some
/// of them): the top level's name, version and help, and each subcommand's help from
/// the table, in the table's order. Panics when `S` has a command the table lacks.
pub fn parser<S: clap::Subcommand>() -> clap::Command {
    // After the enum's own methods, which would set its doc comment as the about.
    let mut cli = S::augment_subcommands(clap::Command::new("magcl"))
        .bin_name("magcl")
        .version(env!("CARGO_PKG_VERSION"))
        .about(ABOUT)
        .long_about(LONG_ABOUT)
        .propagate_version(true)
        .subcommand_required(true)
        .arg_required_else_help(true);
    let names: Vec<String> = cli
        .get_subcommands()
        .map(|c| c.get_name().to_owned())
        .collect();
    for name in names {
        let Some((order, spec)) = COMMANDS.iter().enumerate().find(|(_, c)| c.name == name) else {
            panic!("`magcl {name}` is not in the command table (magcl_cli::commands::COMMANDS)");
        };
        cli = cli.mut_subcommand(&name, |sub| {
            let sub = sub.about(spec.about).display_order(order);
            match spec.long_about() {
                Some(long) => sub.long_about(long),
                None => sub.long_about(None),
            }
        });
    }
    cli
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A parser's subcommands, in the order `--help` lists them.
    fn listed(cli: &clap::Command) -> Vec<String> {
        let mut subs: Vec<&clap::Command> = cli.get_subcommands().collect();
        subs.sort_by_key(|s| s.get_display_order());
        subs.iter().map(|s| s.get_name().to_owned()).collect()
    }

    /// Not help text: the table's top level replaces it.
    #[derive(clap::Subcommand, Debug)]
    enum Some2 {
        BenchSpeed,
        Datasets,
    }

    /// `magcl train --help` shows every declared method (and row label) with an example,
    /// so a new method's declaration without its line here fails.
    #[test]
    fn train_help_shows_every_declared_method() {
        for d in magcl_config::registry::BUILTIN {
            let names = std::iter::once(d.name).chain(d.labels.iter().map(|l| l.label));
            for name in names {
                assert!(
                    TRAIN.contains(&format!("--method {name} ")),
                    "magcl train --help has no example of --method {name}"
                );
            }
        }
    }

    #[test]
    fn a_parser_takes_names_order_and_text_from_the_table() {
        let cli = parser::<Some2>();
        cli.clone().debug_assert();
        assert_eq!(listed(&cli), ["datasets", "bench-speed"]);
        let speed = cli.find_subcommand("bench-speed").unwrap();
        assert_eq!(
            speed.get_about().unwrap().to_string(),
            find("bench-speed").unwrap().about
        );
        let long = speed.get_long_about().unwrap().to_string();
        assert!(long.starts_with("Time training epochs, one evaluation and peak memory per method × dataset.\n\nEpoch times"), "{long}");
        assert!(cli
            .find_subcommand("datasets")
            .unwrap()
            .get_long_about()
            .is_none());
        assert_eq!(cli.get_about().unwrap().to_string(), ABOUT);
        assert_eq!(cli.get_long_about().unwrap().to_string(), LONG_ABOUT);
    }

    #[derive(clap::Subcommand, Debug)]
    enum Unknown {
        Datasets,
        Frobnicate,
    }

    #[test]
    #[should_panic(expected = "`magcl frobnicate` is not in the command table")]
    fn a_command_missing_from_the_table_is_refused() {
        parser::<Unknown>();
    }

    #[test]
    fn names_are_unique_and_lines_have_no_final_period() {
        for (i, c) in COMMANDS.iter().enumerate() {
            assert!(COMMANDS[..i].iter().all(|d| d.name != c.name), "{}", c.name);
            assert!(!c.about.ends_with('.'), "{}", c.name);
        }
        assert_eq!(
            tensor_commands().collect::<Vec<_>>(),
            ["train", "bench", "bench-speed"]
        );
    }
}
