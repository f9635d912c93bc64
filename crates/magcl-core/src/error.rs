//! The error type of the tensor-free crates (the root crate's `magcl::Error` adds
//! libtorch's errors and converts from this one). Every error a user can cause names what
//! went wrong and where (file, line, field); library code never panics on user input.
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A malformed line in a text file.
    #[error("{}:{line}: {msg}", path.display())]
    Parse {
        path: PathBuf,
        line: usize,
        msg: String,
    },
    /// A file that is missing, unreadable, truncated or inconsistent as a whole.
    #[error("{}: {msg}", path.display())]
    File { path: PathBuf, msg: String },
    /// An invalid configuration or command-line value.
    #[error("{0}")]
    Config(String),
    /// A dataset name, download or cache problem.
    #[error("{0}")]
    Data(String),
    /// Inputs that do not fit together or cannot be evaluated as given: embeddings and
    /// labels of different counts, a class smaller than the folds, fold indices with gaps,
    /// a training part of one class.
    #[error("{0}")]
    Input(String),
    /// Training diverged or a numerical routine failed.
    #[error("{0}")]
    Numeric(String),
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    #[error("JSON: {0}")]
    Json(#[from] serde_json::Error),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn parse(path: impl Into<PathBuf>, line: usize, msg: impl Into<String>) -> Self {
        Error::Parse {
            path: path.into(),
            line,
            msg: msg.into(),
        }
    }
    pub fn file(path: impl Into<PathBuf>, msg: impl Into<String>) -> Self {
        Error::File {
            path: path.into(),
            msg: msg.into(),
        }
    }
}
