//! The tensor side's error type. It wraps the tensor-free crates' [`magcl_core::Error`]
//! (files, lines, datasets, evaluation) and adds what only this layer can get wrong:
//! settings, names, divergence and libtorch. Every error a user can cause names what went
//! wrong and where (file, line, field); library code never panics on user input.
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An error of the tensor-free layers: a malformed line, a file, a dataset, an
    /// evaluation, I/O, JSON.
    #[error(transparent)]
    Core(#[from] magcl_core::Error),
    /// A setting with a value it cannot take; `field` as a configuration spells it
    /// (`ma.pi`, `augment.name`).
    #[error("{field}: {msg}")]
    Setting { field: String, msg: String },
    /// A name that is none of those known (a method, an augmentation, an MA mode, reading
    /// or constraint set); its `expected` lists them.
    #[error(transparent)]
    UnknownName(#[from] magcl_config::settings::UnknownName),
    /// A setting (`key`, its path as a config spells it) that the method does not use.
    #[error("unknown setting '{key}' (not used by method {method})")]
    UnknownSetting { key: String, method: String },
    /// Settings that are each valid but do not go together, or a run the data or device
    /// cannot serve.
    #[error("{0}")]
    Config(String),
    /// A training checkpoint this run cannot resume from: another configuration, device
    /// or format, or a damaged file (the message names the file where one was read).
    #[error("{0}")]
    Checkpoint(String),
    /// The loss stopped being finite (epoch and step counted from 1).
    #[error(
        "training diverged: the loss became {loss} at epoch {epoch} step {step} (lower the \
         learning rate or the temperature; nothing was written)"
    )]
    Diverged {
        loss: f64,
        epoch: usize,
        step: usize,
    },
    /// A numerical routine failed.
    #[error("{0}")]
    Numeric(String),
    /// Training stopped as asked after `epochs` of `of` epochs (`--stop-after-epochs`),
    /// its state saved at `path`.
    #[error(
        "stopped after epoch {epochs} of {of} as asked; the training state is in {}: run the \
         same command again to continue",
        path.display()
    )]
    Stopped {
        epochs: usize,
        of: usize,
        path: PathBuf,
    },
    #[error("libtorch: {0}")]
    Torch(#[from] tch::TchError),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A word setting's error (magcl-config's `word_setting!`): the same field and message.
impl From<magcl_config::settings::SettingError> for Error {
    fn from(e: magcl_config::settings::SettingError) -> Self {
        Error::Setting {
            field: e.field,
            msg: e.msg,
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Core(e.into())
    }
}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Self {
        Error::Core(e.into())
    }
}

/// Back into the tensor-free crates' error, for tensor code behind their traits (the
/// node-level probe is a `magcl_eval` evaluator): this layer's own variants become
/// [`magcl_core::Error::Config`] or [`magcl_core::Error::Numeric`] with the same message.
impl From<Error> for magcl_core::Error {
    fn from(e: Error) -> Self {
        use magcl_core::Error as E;
        match e {
            Error::Core(e) => e,
            e @ (Error::Setting { .. }
            | Error::UnknownName(_)
            | Error::UnknownSetting { .. }
            | Error::Config(_)
            | Error::Checkpoint(_)) => E::Config(e.to_string()),
            e @ (Error::Diverged { .. }
            | Error::Numeric(_)
            | Error::Torch(_)
            | Error::Stopped { .. }) => E::Numeric(e.to_string()),
        }
    }
}

impl Error {
    /// A malformed line `line` of the file at `path`.
    pub fn parse(path: impl Into<PathBuf>, line: usize, msg: impl Into<String>) -> Self {
        Error::Core(magcl_core::Error::parse(path, line, msg))
    }
    /// A problem with the file at `path` as a whole.
    pub fn file(path: impl Into<PathBuf>, msg: impl Into<String>) -> Self {
        Error::Core(magcl_core::Error::file(path, msg))
    }
    /// A dataset name, download or cache problem.
    pub fn data(msg: impl Into<String>) -> Self {
        Error::Core(magcl_core::Error::Data(msg.into()))
    }
    /// The line of a file this error points at, if it points at one.
    pub fn line(&self) -> Option<usize> {
        match self {
            Error::Core(magcl_core::Error::Parse { line, .. }) => Some(*line),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::augment::AugName;

    #[test]
    fn errors_say_what_kind_they_are() {
        // A misspelt augmentation is refused where the settings are read, naming the field.
        match "edge-dorp".parse::<AugName>() {
            Err(Error::Setting { field, msg }) => {
                assert_eq!(field, "augment.name");
                assert!(msg.contains("unknown augmentation 'edge-dorp'"), "{msg}");
            }
            other => panic!("expected a setting error, got {other:?}"),
        }
        match crate::methods::registry::find("graphlc") {
            Err(Error::UnknownName(u)) => {
                assert_eq!((u.what, u.name.as_str()), ("method", "graphlc"))
            }
            Err(e) => panic!("expected an unknown name, got {e:?}"),
            Ok(_) => panic!("graphlc is no method"),
        }
        let e = crate::train::check_loss(f64::NAN, 2, 0).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Diverged {
                    epoch: 3,
                    step: 1,
                    ..
                }
            ),
            "{e:?}"
        );
        // A file's line survives the trip through the tensor-free layers' error.
        let e = Error::parse("a.toml", 7, "bad");
        assert_eq!(e.line(), Some(7));
        let core: magcl_core::Error = e.into();
        assert!(matches!(core, magcl_core::Error::Parse { line: 7, .. }));
        assert_eq!(Error::from(core).to_string(), "a.toml:7: bad");
    }
}
