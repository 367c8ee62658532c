//! Errors every layer may raise and only `cli` turns into exit codes.
//!
//! A [`UsageError`] is bad usage or bad input (exit code 2): a flag out of
//! range, a missing directory, an input file's mistake with its file:line.
//! Anything else that stops a run is an I/O or internal failure (exit 1).

/// Bad usage or bad input: exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

impl UsageError {
    pub fn new(msg: impl Into<String>) -> Self {
        UsageError(msg.into())
    }
}

impl From<String> for UsageError {
    fn from(s: String) -> Self {
        UsageError(s)
    }
}

/// Return early with a [`UsageError`].
#[macro_export]
macro_rules! usage {
    ($($t:tt)*) => { return Err($crate::error::UsageError::new(format!($($t)*)).into()) };
}

/// Whether `e` (or anything in its chain) is a [`UsageError`].
pub fn is_usage(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<UsageError>().is_some())
}
