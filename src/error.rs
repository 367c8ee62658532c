//! Errors every layer may raise and only `cli` turns into exit codes.
//!
//! A [`UsageError`] is bad usage or bad input (exit code 2): a flag out of
//! range, a missing directory, an input file's mistake with its file:line.
//! Anything else that stops a run is an I/O or internal failure (exit 1).

/// Bad usage or bad input: exit code 2. It shows as one line, the user's
/// text in it escaped ([`shown`]), however it was made.
#[derive(Debug, thiserror::Error)]
#[error("{}", shown(.0))]
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

/// User text (a value, a line of an input file, a file name) as a message
/// shows it: control characters, line and paragraph separators and the
/// marks that reorder text escaped (`\r`, `\x1b`, `\0`, `\u{2028}`), so
/// that a message stays on one line and shows what was typed rather than
/// doing it to the terminal. A word (a run without spaces) longer than
/// [`LONGEST_WORD`] characters is cut to its start and its length, so that
/// a message quoting a line of junk stays readable. Other text comes back
/// unchanged, and showing twice changes nothing more.
pub fn shown(text: &str) -> String {
    cut_long_words(escaped(text))
}

/// The longest word [`shown`] shows whole, in characters: longer than any
/// path a message names in practice, short enough that a message of a few
/// such words still fits a screen.
pub const LONGEST_WORD: usize = 200;

/// `text` with each word of more than [`LONGEST_WORD`] characters cut to
/// its first 160 and a count: `aaaa… (5000 characters)`.
fn cut_long_words(text: String) -> String {
    if text.len() <= LONGEST_WORD {
        return text;
    }
    let long = |w: &str| w.chars().count() > LONGEST_WORD;
    if !text.split(' ').any(long) {
        return text;
    }
    text.split(' ')
        .map(|w| {
            if long(w) {
                let head: String = w.chars().take(160).collect();
                format!("{head}… ({} characters)", w.chars().count())
            } else {
                w.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// [`shown`] of at most the first `most` characters of `text`, with `…`
/// when it goes on: for a message that quotes a whole line of input.
pub fn shown_start(text: &str, most: usize) -> String {
    if text.chars().count() <= most {
        return shown(text);
    }
    let head: String = text.chars().take(most).collect();
    format!("{}…", shown(&head))
}

/// [`shown`] without the cut: the escapes alone.
fn escaped(text: &str) -> String {
    if !text.chars().any(needs_escape) {
        return text.to_string();
    }
    let mut s = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => s.push_str("\\n"),
            '\r' => s.push_str("\\r"),
            '\t' => s.push_str("\\t"),
            '\0' => s.push_str("\\0"),
            c if needs_escape(c) && (c as u32) < 0x80 => {
                s.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if needs_escape(c) => s.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => s.push(c),
        }
    }
    s
}

/// A path as a message shows it: [`shown`] of its lossy text.
pub fn shown_path(p: &std::path::Path) -> String {
    shown(&p.to_string_lossy())
}

/// Whether `c` must not reach a terminal as it is: C0 and C1 controls
/// and DEL, the line and paragraph separators, and the bidirectional
/// formatting marks.
fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{061c}' | '\u{feff}'
        )
}

/// Whether `e` (or anything in its chain) is a [`UsageError`].
pub fn is_usage(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<UsageError>().is_some()
            || c.downcast_ref::<std::io::Error>()
                .and_then(std::io::Error::get_ref)
                .is_some_and(|inner| inner.downcast_ref::<UsageError>().is_some())
    })
}

/// An I/O error that is the user's to fix (a flag the file or its device
/// cannot honour), raised where only an `io::Error` fits: it still exits
/// as a usage error.
pub fn refused(msg: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::Unsupported, UsageError(msg))
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

/// An I/O error's text without Rust's "(os error N)".
pub fn io_reason(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(at) => s[..at].to_string(),
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_escapes_what_would_break_the_line() {
        assert_eq!(shown("plain 'text' é"), "plain 'text' é");
        assert_eq!(shown("a\rb\nc\td\0e"), "a\\rb\\nc\\td\\0e");
        assert_eq!(shown("\x1b[31mred"), "\\x1b[31mred");
        assert_eq!(
            shown("x\u{2028}y\u{202e}z\u{85}"),
            "x\\u{2028}y\\u{202e}z\\u{85}"
        );
        assert_eq!(shown("\x7f"), "\\x7f");
        for t in ["a\rb", "\x1b\u{2029}", "ok"] {
            assert_eq!(shown(&shown(t)), shown(t));
            assert!(!shown(t).chars().any(needs_escape));
        }
    }

    /// A line of junk quoted in a message is cut to its start and length;
    /// paths and ordinary words are left whole.
    #[test]
    fn shown_cuts_long_words() {
        let junk = "ab".repeat(1000);
        let s = shown(&format!("unknown option '{junk}' in [stats]"));
        assert_eq!(
            s,
            format!(
                "unknown option '{}… (2002 characters) in [stats]",
                &junk[..159]
            )
        );
        assert_eq!(shown(&s), s);
        let path = format!("/{}", "d/".repeat(99));
        assert_eq!(shown(&path), path);
        assert_eq!(
            shown(&"x".repeat(201)).chars().count(),
            160 + "… (201 characters)".chars().count()
        );
        assert_eq!(shown_start("a b\rc d", 5), "a b\\rc…");
        assert_eq!(shown_start("a b", 5), "a b");
    }

    #[test]
    fn a_cause_is_one_line_and_names_the_errno_once() {
        let io = std::io::Error::from_raw_os_error(28);
        let e = anyhow::Error::new(io).context("writing data.3 at 1.20 MiB");
        assert_eq!(
            cause(&e),
            "writing data.3 at 1.20 MiB: No space left on device"
        );
        let e = anyhow::anyhow!("two\nlines");
        assert_eq!(cause(&e), "two lines");
    }
}
