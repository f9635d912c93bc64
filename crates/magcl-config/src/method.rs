//! One method's declaration: everything about it that is not tensor code.
use serde::{Deserialize, Serialize};

/// Graph- or node-level task.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum Level {
    Graph,
    Node,
}

/// What a method is to the reports: a method that learns, or a floor under the methods
/// (docs/results.md, "Floors").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A contrastive method: it trains, and reports compare it with MA and its floors.
    Method,
    /// The encoder of a method, left untrained (rows `untrained-<method>`); paired with
    /// that method by seed.
    Untrained,
    /// A classical floor of the given level (WL, degree histogram, raw features), unpaired;
    /// `dashed` draws its band's mean as a dashed line in plots (WL's is solid).
    Classical { level: Level, dashed: bool },
}

/// The node features a graph-level method feeds its encoder (magcl-data's feature specs,
/// named by what they do).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeatureRule {
    /// The spec the data layer resolves (`auto`, `constant`, `attributes-else-degree`, …).
    pub spec: &'static str,
    /// How the method's configs write it: the word they have carried since result rows
    /// were first hashed (hash version 1), kept so that a run's config hash does not change.
    /// Reading a config maps it to [`Self::spec`].
    pub written: &'static str,
}

/// A label other than its name that a method's rows carry (a variant of the method, e.g.
/// AD-GCL with its fixed augmenter), with how reports show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowLabel {
    pub label: &'static str,
    /// Other spellings `magcl train --method` accepts for it.
    pub aliases: &'static [&'static str],
    pub display: &'static str,
    /// The settings the label stands for, as `section.field = value` overrides
    /// (`--method adgcl-fixed` is `--method adgcl` with these).
    pub sets: &'static [(&'static str, &'static str)],
    /// The untrained encoder it is compared with, where not `untrained-<label>`.
    pub untrained: Option<&'static str>,
    /// Its plot colour (RGB).
    pub colour: (u8, u8, u8),
}

/// A command-line shorthand for one of a method's settings: `magcl train --eta 0.5` is
/// `--set simgrace.eta=0.5`. `magcl train` adds a flag for every declared shorthand, so a
/// method's flags live in its declaration, not in the binary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shorthand {
    /// The long flag, without `--`.
    pub flag: &'static str,
    /// The setting it sets, as `--set` spells it (`section.field`).
    pub setting: &'static str,
    /// What its value is.
    pub value: ShorthandValue,
    /// Its line in `magcl train --help`.
    pub help: &'static str,
}

/// The kind of value a [`Shorthand`] takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShorthandValue {
    /// A finite number.
    Number,
    /// A word, checked by the setting it sets.
    Word,
}

/// A method's declaration. Built with [`MethodDecl::new`] and the setters after it, as a
/// `const` in the method's own file under [`crate::methods`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MethodDecl {
    /// The name configs and result rows use.
    pub name: &'static str,
    /// Other accepted spellings (matched case-insensitively, like the name).
    pub aliases: &'static [&'static str],
    /// How reports, tables and plots show it ("GraphCL").
    pub display: &'static str,
    /// The levels it runs at.
    pub levels: &'static [Level],
    pub role: Role,
    /// Graph level: the node features it is fed (`None`: the run's own choice).
    pub features: Option<FeatureRule>,
    /// Its variants' row labels.
    pub labels: &'static [RowLabel],
    /// Node level: its rows name the preset (`base:paper`), because its encoder depends
    /// on it.
    pub keyed_by_preset: bool,
    /// Node level: rows written before node-level rows recorded their split
    /// (`node.split`) exist for it, so reports place its rows at the node level by its
    /// name; rows of every later method place themselves.
    pub node_rows_without_split: bool,
    /// Plot colour of its curves (RGB); `None`: the colour every undeclared curve gets.
    pub colour: Option<(u8, u8, u8)>,
    /// Its `magcl train` flags.
    pub shorthands: &'static [Shorthand],
}

impl MethodDecl {
    /// A contrastive method's declaration with nothing but its name, display name and levels.
    pub const fn new(
        name: &'static str,
        display: &'static str,
        levels: &'static [Level],
    ) -> MethodDecl {
        MethodDecl {
            name,
            aliases: &[],
            display,
            levels,
            role: Role::Method,
            features: None,
            labels: &[],
            keyed_by_preset: false,
            node_rows_without_split: false,
            colour: None,
            shorthands: &[],
        }
    }
    pub const fn aliases(mut self, aliases: &'static [&'static str]) -> Self {
        self.aliases = aliases;
        self
    }
    pub const fn role(mut self, role: Role) -> Self {
        self.role = role;
        self
    }
    /// The features it is fed: `spec`, written in configs as `written`.
    pub const fn features(mut self, spec: &'static str, written: &'static str) -> Self {
        self.features = Some(FeatureRule { spec, written });
        self
    }
    pub const fn labels(mut self, labels: &'static [RowLabel]) -> Self {
        self.labels = labels;
        self
    }
    pub const fn keyed_by_preset(mut self) -> Self {
        self.keyed_by_preset = true;
        self
    }
    pub const fn node_rows_without_split(mut self) -> Self {
        self.node_rows_without_split = true;
        self
    }
    pub const fn shorthands(mut self, shorthands: &'static [Shorthand]) -> Self {
        self.shorthands = shorthands;
        self
    }
    pub const fn colour(mut self, rgb: (u8, u8, u8)) -> Self {
        self.colour = Some(rgb);
        self
    }
    /// Whether it is a floor rather than a method that learns.
    pub const fn is_floor(&self) -> bool {
        !matches!(self.role, Role::Method)
    }
    /// Whether it runs at `level`.
    pub fn supports(&self, level: Level) -> bool {
        self.levels.contains(&level)
    }
}
