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

/// The one line that says why something failed: the error and its causes
/// joined by `: ` (anyhow's `{:#}`), line breaks as spaces, and without the
/// "(os error N)" Rust puts after an errno's text, which says it twice.
pub fn cause(e: &anyhow::Error) -> String {
    let mut s = format!("{e:#}").replace(['\n', '\r'], " ");
    while let Some(at) = s.find(" (os error ") {
        match s[at..].find(')') {
            Some(end) => s.replace_range(at..at + end + 1, ""),
            None => break,
        }
    }
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_cause_is_one_line_and_names_the_errno_once() {
        let io = std::io::Error::from_raw_os_error(28);
        let e = anyhow::Error::new(io).context("writing data.3 at 1.20 MiB");
        assert_eq!(
            super::cause(&e),
            "writing data.3 at 1.20 MiB: No space left on device"
        );
        let e = anyhow::anyhow!("two\nlines");
        assert_eq!(super::cause(&e), "two lines");
    }
}
