//! The crate's error type: the tensor-free crates' [`magcl_core::Error`] plus libtorch's
//! errors. Every error a user can cause names what went wrong and where (file, line,
//! field); library code never panics on user input.
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
    /// Training diverged or a numerical routine failed.
    #[error("{0}")]
    Numeric(String),
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    #[error("libtorch: {0}")]
    Torch(#[from] tch::TchError),
    #[error("JSON: {0}")]
    Json(#[from] serde_json::Error),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The tensor-free crates' errors, variant for variant.
impl From<magcl_core::Error> for Error {
    fn from(e: magcl_core::Error) -> Self {
        use magcl_core::Error as E;
        match e {
            E::Parse { path, line, msg } => Error::Parse { path, line, msg },
            E::File { path, msg } => Error::File { path, msg },
            E::Config(m) => Error::Config(m),
            E::Data(m) => Error::Data(m),
            E::Numeric(m) => Error::Numeric(m),
            E::Io(e) => Error::Io(e),
            E::Json(e) => Error::Json(e),
        }
    }
}

/// Back into the tensor-free crates' error, for tensor code behind their traits (the
/// node-level probe is a `magcl_eval` evaluator): libtorch's errors become
/// [`magcl_core::Error::Numeric`] with the same message.
impl From<Error> for magcl_core::Error {
    fn from(e: Error) -> Self {
        use magcl_core::Error as E;
        match e {
            Error::Parse { path, line, msg } => E::Parse { path, line, msg },
            Error::File { path, msg } => E::File { path, msg },
            Error::Config(m) => E::Config(m),
            Error::Data(m) => E::Data(m),
            Error::Numeric(m) => E::Numeric(m),
            Error::Io(e) => E::Io(e),
            Error::Json(e) => E::Json(e),
            e @ Error::Torch(_) => E::Numeric(e.to_string()),
        }
    }
}

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
