//! # magcl-cli — the `magcl` command without tensors
//!
//! The `magcl` binary (`src/main.rs`) links this crate and the tensor-free crates only,
//! never libtorch: it serves `datasets`, `eval` and `report` itself and hands the tensor
//! commands (`train`, `bench`, `bench-speed`, `report --sweep`) to the `magcl-torch`
//! binary installed beside it. The library holds what both binaries share: the command
//! table ([`commands`]), the three commands' arguments and code, and the output helpers.
use std::io::Write;

/// `println!` for the commands: a write error on stdout (a full disk, a closed pipe)
/// returns a [`StdoutError`] from the enclosing function instead of panicking.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::write_stdout(format_args!("\n"))?
    };
    ($($arg:tt)*) => {
        $crate::write_stdout(format_args!("{}\n", format_args!($($arg)*)))?
    };
}

/// `print!` for the commands, as [`outln!`].
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::write_stdout(format_args!($($arg)*))?
    };
}

pub mod commands;
pub mod datasets;
pub mod eval;
pub mod report;

/// Writing to standard output failed. `magcl` ends with this message and status 1, or
/// quietly with status 141 (like a Unix tool killed by SIGPIPE) when the reader of a pipe
/// went away (`magcl datasets list | head -1`).
#[derive(Debug)]
pub struct StdoutError(pub std::io::Error);

impl std::fmt::Display for StdoutError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot write to standard output: {}", self.0)
    }
}

impl std::error::Error for StdoutError {}

impl StdoutError {
    /// The reader of the pipe went away: end quietly.
    pub fn is_broken_pipe(&self) -> bool {
        self.0.kind() == std::io::ErrorKind::BrokenPipe
    }
}

/// Writes to standard output and flushes, returning errors instead of panicking.
pub fn write_stdout(args: std::fmt::Arguments) -> Result<(), StdoutError> {
    let mut out = std::io::stdout().lock();
    out.write_fmt(args)
        .and_then(|_| out.flush())
        .map_err(StdoutError)
}

/// The exit status for an error that ended a command: 141 and no message for a closed
/// pipe on stdout, else 1 (and the caller prints the message).
pub fn exit_status(e: &anyhow::Error) -> i32 {
    let closed = e.chain().any(|c| {
        c.downcast_ref::<StdoutError>()
            .is_some_and(|s| s.is_broken_pipe())
    });
    if closed {
        141
    } else {
        1
    }
}
