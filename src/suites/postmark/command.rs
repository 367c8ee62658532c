//! PostMark 1.53's command language, as a pure parser and a pure `apply`.
//!
//! 1.53 matches a line against its command table **in table order, first
//! match wins**, by prefix: the line must start with the full command name
//! (`strncmp(name, line, strlen(name))`). The parameter is everything after
//! the name *plus one character* (whatever that character is), or none when
//! the line is exactly the name. Unknown lines print `Eh?` on stdout; all
//! other complaints go to stderr and leave the configuration unchanged
//! (except `set location` with a bad weight, which warns and goes on with
//! weight 1). There are no comments: a blank line or a `#` line is `Eh?`.
//!
//! Numbers are read with C's `atoi` ([`c_atoi`]): leading white space, a sign,
//! digits, anything after them ignored, no digits = 0.
//!
//! Lines come from `fgets(buffer, 255, ...)` and lose their final character
//! (meant to be the newline) — see [`script_lines`] and [`chop_chunks`].
//! `?` → `help` and `exit` → `quit` are aliases only at the interactive
//! prompt ([`interactive_alias`]), not in files.
//!
//! Executing `run`, `load`, `show`, `help`, `quit` and `!` is the caller's
//! job; [`Command::apply`] only changes the [`Config`] for `set` commands.

use thiserror::Error;

use crate::suites::postmark::config::{Config, Location, ReportFormat};

/// The interactive prompt (printed without a newline).
pub const PROMPT: &str = "pm>";
/// The banner 1.53 prints first (the 1.52/1.53 fixes did not bump it).
pub const BANNER: &str = "PostMark v1.51 : 8/14/01";
/// `fgets` buffer size PostMark uses (`MAX_LINE`): at most 254 bytes per read.
pub const MAX_LINE: usize = 255;
/// The configuration file read at start-up when no argument is given.
pub const DEFAULT_RC: &str = ".pmrc";

/// 1.53's command table, in its order (which is also `help`'s order):
/// name and help text.
pub const COMMANDS: [(&str, &str); 17] = [
    ("set size", "Sets low and high bounds of files"),
    ("set number", "Sets number of simultaneous files"),
    ("set seed", "Sets seed for random number generator"),
    ("set transactions", "Sets number of transactions"),
    ("set location", "Sets location of working files"),
    ("set subdirectories", "Sets number of subdirectories"),
    ("set read", "Sets read block size"),
    ("set write", "Sets write block size"),
    ("set buffering", "Sets usage of buffered I/O"),
    (
        "set bias read",
        "Sets the chance of choosing read over append",
    ),
    (
        "set bias create",
        "Sets the chance of choosing create over delete",
    ),
    ("set report", "Choose verbose or terse report format"),
    ("run", "Runs one iteration of benchmark"),
    ("load", "Read configuration file"),
    ("show", "Displays current configuration"),
    ("help", "Prints out available commands"),
    ("quit", "Exit program"),
];

/// A change to the location list (`set location`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LocationChange {
    /// `set location P [W]`: the list becomes just this location.
    Replace {
        /// Directory (the text before the last space, if any).
        path: String,
        /// Weight (1 when absent or invalid).
        weight: i32,
        /// The text after the last space when it was not a positive number:
        /// 1.53 prints `Error: ignoring invalid weight '<text>'` and uses 1.
        ignored_weight: Option<String>,
    },
    /// `set location +P [W]`: append to the list.
    Add {
        /// Directory.
        path: String,
        /// Weight.
        weight: i32,
        /// As for `Replace`.
        ignored_weight: Option<String>,
    },
    /// `set location -P`: remove the first location named exactly P.
    Remove {
        /// Directory, taken whole (no weight parsing).
        path: String,
    },
}

/// One parsed command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `set size L [H]`.
    SetSize {
        /// Low bound.
        low: i32,
        /// High bound (= `low` when absent, ≤ 0 or < `low`).
        high: i32,
    },
    /// `set number N`.
    SetNumber(i32),
    /// `set seed N`.
    SetSeed(i32),
    /// `set transactions N`.
    SetTransactions(i32),
    /// `set location ...`.
    SetLocation(LocationChange),
    /// `set subdirectories N`.
    SetSubdirectories(i32),
    /// `set read N`.
    SetRead(i32),
    /// `set write N`.
    SetWrite(i32),
    /// `set buffering true|false`.
    SetBuffering(bool),
    /// `set bias read N` (-1..=10).
    SetBiasRead(i32),
    /// `set bias create N` (-1..=10).
    SetBiasCreate(i32),
    /// `set report verbose|terse`.
    SetReport(ReportFormat),
    /// `run [file]`: the report is appended to `output` if given (an empty
    /// name is possible, e.g. `run ` with a trailing space; 1.53 then fails to
    /// open it and reports to stdout).
    Run {
        /// Report file.
        output: Option<String>,
    },
    /// `load file`.
    Load {
        /// Configuration file to read (errors reported, `quit` inside ends only that file).
        file: String,
    },
    /// `show [file]`.
    Show {
        /// File to append to.
        output: Option<String>,
    },
    /// `help [prefix]`.
    Help {
        /// Prefix to match command names against.
        prefix: Option<String>,
    },
    /// `quit` (and `exit` at the prompt).
    Quit,
    /// `!command`: `system(command)`; `!` alone runs `$SHELL`.
    Shell {
        /// The command, or `None` for `$SHELL`.
        command: Option<String>,
    },
}

/// PostMark's complaints. `Display` gives the exact line 1.53 prints
/// (without the newline); [`CommandError::to_stdout`] tells the stream.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CommandError {
    /// Unknown command (stdout).
    #[error("Eh?")]
    Unknown,
    /// `set size` without a positive low bound.
    #[error("Error: no file size low or high bounds specified")]
    NoSizeBounds,
    /// `set number` ≤ 0 or missing.
    #[error("Error: invalid number of files")]
    InvalidNumber,
    /// `set seed` ≤ 0 or missing.
    #[error("Error: invalid seed for random numbers")]
    InvalidSeed,
    /// `set transactions` ≤ 0 or missing.
    #[error("Error: no transactions specified")]
    NoTransactions,
    /// `set location` with nothing after it.
    #[error("Error: no directory name specified")]
    NoDirectory,
    /// `set location -P` for a P not in the list (raised by `apply`).
    #[error("Error: cannot find location '{0}'")]
    CannotFindLocation(String),
    /// Warning for `set location P W` with W ≤ 0 or not a number.
    #[error("Error: ignoring invalid weight '{0}'")]
    IgnoringInvalidWeight(String),
    /// `set subdirectories` ≤ 0 or missing.
    #[error("Error: invalid number of subdirectories")]
    InvalidSubdirectories,
    /// `set read` ≤ 0 or missing.
    #[error("Error: invalid read block size")]
    InvalidReadBlock,
    /// `set write` ≤ 0 or missing.
    #[error("Error: invalid write block size")]
    InvalidWriteBlock,
    /// `set buffering` not followed by exactly `true` or `false`.
    #[error("Error: no buffering mode (true/false) specified")]
    NoBufferingMode,
    /// `set bias read|create` outside -1..=10 or missing.
    #[error("Error: no bias specified (0-10 for greater chance,-1 to disable)")]
    NoBias,
    /// `set report` not followed by exactly `verbose` or `terse`.
    #[error("Error: either 'verbose' or 'terse' required")]
    NoReportFormat,
    /// `load` without a file name.
    #[error("Error: no configuration file specified")]
    NoConfigFile,
    /// `load FILE` that cannot be opened (raised by the caller).
    #[error("Error: cannot read configuration file '{0}'")]
    CannotReadConfig(String),
    /// `run FILE` / `show FILE` that cannot be opened for appending (raised by
    /// the caller, which then writes to stdout).
    #[error("Error: Cannot direct output to file '{0}'")]
    CannotDirectOutput(String),
}

impl CommandError {
    /// True for the message 1.53 prints on stdout (`Eh?`); all others go to stderr.
    pub fn to_stdout(&self) -> bool {
        matches!(self, CommandError::Unknown)
    }
}

/// C's `atoi` as glibc implements it: `(int) strtol(s, NULL, 10)` — leading
/// white space, optional sign, decimal digits; out-of-range values saturate
/// at the 64-bit `long` limits and are then truncated to 32 bits.
pub fn c_atoi(s: &str) -> i32 {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
        i += 1;
    }
    let mut negative = false;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        negative = b[i] == b'-';
        i += 1;
    }
    // Accumulate as a negative number so that i64::MIN is reachable.
    let mut acc: i64 = 0;
    let mut overflow = false;
    while i < b.len() && b[i].is_ascii_digit() {
        let d = i64::from(b[i] - b'0');
        match acc.checked_mul(10).and_then(|v| v.checked_sub(d)) {
            Some(v) if !overflow => acc = v,
            _ => overflow = true,
        }
        i += 1;
    }
    let long = if overflow {
        if negative { i64::MIN } else { i64::MAX }
    } else if negative {
        acc
    } else {
        acc.checked_neg().unwrap_or(i64::MAX)
    };
    long as i32
}

/// `parse_weight`: splits `param` at its last space. Returns the path, the
/// weight, and the rejected weight text if it was not a positive number.
fn parse_weight(param: &str) -> (String, i32, Option<String>) {
    match param.rfind(' ') {
        None => (param.to_string(), 1, None),
        Some(at) => {
            let text = &param[at + 1..];
            let w = c_atoi(text);
            if w <= 0 {
                (param[..at].to_string(), 1, Some(text.to_string()))
            } else {
                (param[..at].to_string(), w, None)
            }
        }
    }
}

fn positive(param: Option<&str>, err: CommandError) -> Result<i32, CommandError> {
    match param.map(c_atoi) {
        Some(v) if v > 0 => Ok(v),
        _ => Err(err),
    }
}

fn bias(param: Option<&str>) -> Result<i32, CommandError> {
    match param.map(c_atoi) {
        Some(v) if (-1..=10).contains(&v) => Ok(v),
        _ => Err(CommandError::NoBias),
    }
}

/// Finds the table entry a line selects and its parameter, exactly as
/// `cli_parse_line` does. Returns `None` for `Eh?`. (Not for `!` lines.)
pub fn match_command(line: &str) -> Option<(usize, Option<String>)> {
    let bytes = line.as_bytes();
    COMMANDS.iter().enumerate().find_map(|(i, (name, _))| {
        if bytes.starts_with(name.as_bytes()) {
            let param = (bytes.len() > name.len())
                .then(|| String::from_utf8_lossy(&bytes[name.len() + 1..]).into_owned());
            Some((i, param))
        } else {
            None
        }
    })
}

/// Parses one line as 1.53's `cli_parse_line` would (after the final
/// character has been chopped, see [`chop_chunks`]). Value errors are
/// reported here; the configuration is not touched.
pub fn parse_line(line: &str) -> Result<Command, CommandError> {
    if let Some(rest) = line.strip_prefix('!') {
        return Ok(Command::Shell {
            command: (!rest.is_empty()).then(|| rest.to_string()),
        });
    }
    let (index, param) = match_command(line).ok_or(CommandError::Unknown)?;
    let p = param.as_deref();
    Ok(match COMMANDS[index].0 {
        "set size" => {
            let low = positive(p, CommandError::NoSizeBounds)?;
            let p = p.unwrap_or_default();
            let high = match p.find(' ').map(|at| c_atoi(&p[at..])) {
                Some(h) if h > 0 && h >= low => h,
                _ => low,
            };
            Command::SetSize { low, high }
        }
        "set number" => Command::SetNumber(positive(p, CommandError::InvalidNumber)?),
        "set seed" => Command::SetSeed(positive(p, CommandError::InvalidSeed)?),
        "set transactions" => Command::SetTransactions(positive(p, CommandError::NoTransactions)?),
        "set location" => {
            let p = p.ok_or(CommandError::NoDirectory)?;
            Command::SetLocation(if let Some(rest) = p.strip_prefix('+') {
                let (path, weight, ignored_weight) = parse_weight(rest);
                LocationChange::Add {
                    path,
                    weight,
                    ignored_weight,
                }
            } else if let Some(rest) = p.strip_prefix('-') {
                LocationChange::Remove {
                    path: rest.to_string(),
                }
            } else {
                let (path, weight, ignored_weight) = parse_weight(p);
                LocationChange::Replace {
                    path,
                    weight,
                    ignored_weight,
                }
            })
        }
        "set subdirectories" => {
            Command::SetSubdirectories(positive(p, CommandError::InvalidSubdirectories)?)
        }
        "set read" => Command::SetRead(positive(p, CommandError::InvalidReadBlock)?),
        "set write" => Command::SetWrite(positive(p, CommandError::InvalidWriteBlock)?),
        "set buffering" => match p {
            Some("true") => Command::SetBuffering(true),
            Some("false") => Command::SetBuffering(false),
            _ => return Err(CommandError::NoBufferingMode),
        },
        "set bias read" => Command::SetBiasRead(bias(p)?),
        "set bias create" => Command::SetBiasCreate(bias(p)?),
        "set report" => match p {
            Some("verbose") => Command::SetReport(ReportFormat::Verbose),
            Some("terse") => Command::SetReport(ReportFormat::Terse),
            _ => return Err(CommandError::NoReportFormat),
        },
        "run" => Command::Run { output: param },
        "load" => Command::Load {
            file: param.ok_or(CommandError::NoConfigFile)?,
        },
        "show" => Command::Show { output: param },
        "help" => Command::Help { prefix: param },
        "quit" => Command::Quit,
        other => unreachable!("command table entry {other:?} has no parser"),
    })
}

impl Command {
    /// The warning 1.53 prints (stderr) while parsing this command, before
    /// applying it: only `set location` with an invalid weight has one.
    pub fn warning(&self) -> Option<CommandError> {
        match self {
            Command::SetLocation(
                LocationChange::Replace {
                    ignored_weight: Some(w),
                    ..
                }
                | LocationChange::Add {
                    ignored_weight: Some(w),
                    ..
                },
            ) => Some(CommandError::IgnoringInvalidWeight(w.clone())),
            _ => None,
        }
    }

    /// Applies a `set` command to `cfg`. Other commands leave it unchanged
    /// (running them is the caller's job). The only error raised here is
    /// `cannot find location` for `set location -P`.
    pub fn apply(&self, cfg: &mut Config) -> Result<(), CommandError> {
        match self {
            Command::SetSize { low, high } => {
                cfg.size_low = *low;
                cfg.size_high = *high;
            }
            Command::SetNumber(v) => cfg.number = *v,
            Command::SetSeed(v) => cfg.seed = *v,
            Command::SetTransactions(v) => cfg.transactions = *v,
            Command::SetLocation(change) => match change {
                LocationChange::Replace { path, weight, .. } => {
                    cfg.locations.clear();
                    cfg.locations.push(Location {
                        path: path.clone(),
                        weight: *weight,
                    });
                }
                LocationChange::Add { path, weight, .. } => cfg.locations.push(Location {
                    path: path.clone(),
                    weight: *weight,
                }),
                LocationChange::Remove { path } => {
                    let at = cfg
                        .locations
                        .iter()
                        .position(|l| &l.path == path)
                        .ok_or_else(|| CommandError::CannotFindLocation(path.clone()))?;
                    cfg.locations.remove(at);
                }
            },
            Command::SetSubdirectories(v) => cfg.subdirectories = *v,
            Command::SetRead(v) => cfg.read_block = *v,
            Command::SetWrite(v) => cfg.write_block = *v,
            Command::SetBuffering(b) => cfg.buffered = *b,
            Command::SetBiasRead(v) => cfg.bias_read = *v,
            Command::SetBiasCreate(v) => cfg.bias_create = *v,
            Command::SetReport(r) => cfg.report = *r,
            Command::Run { .. }
            | Command::Load { .. }
            | Command::Show { .. }
            | Command::Help { .. }
            | Command::Quit
            | Command::Shell { .. } => {}
        }
        Ok(())
    }
}

/// The output of `help [prefix]`: the table lines whose name starts with
/// `prefix`, or the whole table if the prefix is absent, empty or matches
/// nothing.
pub fn help_text(prefix: Option<&str>) -> String {
    let line = |(name, help): &(&str, &str)| format!("{name} - {help}\n");
    let matching: String = match prefix {
        Some(p) if !p.is_empty() => COMMANDS
            .iter()
            .filter(|(name, _)| name.as_bytes().starts_with(p.as_bytes()))
            .map(line)
            .collect(),
        _ => String::new(),
    };
    if matching.is_empty() {
        COMMANDS.iter().map(line).collect()
    } else {
        matching
    }
}

/// The aliases `cli_read_line` applies to a whole interactive line:
/// `?` → `help`, `exit` → `quit`. (Not applied to file lines.)
pub fn interactive_alias(line: &str) -> &str {
    match line {
        "?" => "help",
        "exit" => "quit",
        other => other,
    }
}

/// What PostMark sees of one physical input line: `fgets(buf, 255, fp)` reads
/// it in pieces of at most 254 bytes, and each piece loses its final byte
/// (`buffer[strlen(buffer)-1] = '\0'`, meant to drop the newline). So a
/// last line without a newline loses its last character, and an over-long
/// line becomes several commands. A NUL byte ends a piece's C string.
/// `line` must hold at most one `\n`, at its end.
pub fn chop_chunks(line: &[u8]) -> Vec<String> {
    line.chunks(MAX_LINE - 1)
        .map(|piece| {
            let c_str = match piece.iter().position(|&b| b == 0) {
                Some(nul) => &piece[..nul],
                None => piece,
            };
            // strlen == 0 (a piece starting with NUL) is undefined behaviour in
            // C (it writes buffer[-1]); the command seen is the empty string.
            let kept = &c_str[..c_str.len().saturating_sub(1)];
            String::from_utf8_lossy(kept).into_owned()
        })
        .collect()
}

/// One command line of a configuration file, with the 1-based number of the
/// physical line it came from (for iogauge's `FILE:LINE:` diagnostics; 1.53
/// itself prints no location).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptLine {
    /// Physical line number (1-based).
    pub number: usize,
    /// The text `cli_parse_line` receives.
    pub text: String,
}

impl ScriptLine {
    /// `FILE:LINE: message`, iogauge's located form of a PostMark message.
    pub fn locate(&self, file: &str, message: &CommandError) -> String {
        format!("{file}:{}: {message}", self.number)
    }
}

/// Splits a whole configuration file into the lines `read_config_file`
/// processes (see [`chop_chunks`]).
pub fn script_lines(data: &[u8]) -> Vec<ScriptLine> {
    data.split_inclusive(|&b| b == b'\n')
        .enumerate()
        .flat_map(|(i, line)| {
            chop_chunks(line).into_iter().map(move |text| ScriptLine {
                number: i + 1,
                text,
            })
        })
        .collect()
}

/// A fixture's line parsed, or its error printed to `out` as 1.53 prints
/// it: the tests' replays of PostMark's transcripts.
#[cfg(test)]
pub(crate) fn parse_or_print(line: &str, out: &mut String) -> Option<Command> {
    parse_line(line)
        .map_err(|e| out.push_str(&format!("{e}\n")))
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(cfg: &mut Config, line: &str) -> Result<Command, CommandError> {
        let cmd = parse_line(line)?;
        cmd.apply(cfg)?;
        Ok(cmd)
    }

    #[test]
    fn atoi_like_glibc() {
        assert_eq!(c_atoi("42"), 42);
        assert_eq!(c_atoi("  \t-17abc"), -17);
        assert_eq!(c_atoi("+5"), 5);
        assert_eq!(c_atoi("abc"), 0);
        assert_eq!(c_atoi(""), 0);
        assert_eq!(c_atoi("- 5"), 0);
        assert_eq!(c_atoi("12 34"), 12);
        assert_eq!(c_atoi("3.9"), 3);
        // strtol's 64-bit result truncated to int.
        assert_eq!(c_atoi("4294967297"), 1);
        assert_eq!(c_atoi("99999999999"), 1215752191);
        assert_eq!(c_atoi("2147483648"), i32::MIN);
        // Saturation at LONG_MAX / LONG_MIN, then truncation.
        assert_eq!(c_atoi("99999999999999999999999"), -1);
        assert_eq!(c_atoi("-99999999999999999999999"), 0);
        assert_eq!(c_atoi("-9223372036854775808"), 0);
    }

    #[test]
    fn prefix_matching_and_parameter_offset() {
        assert_eq!(match_command("run"), Some((12, None)));
        assert_eq!(match_command("run "), Some((12, Some(String::new()))));
        assert_eq!(match_command("run out"), Some((12, Some("out".into()))));
        // The parameter starts after name + one character, whatever it is.
        assert_eq!(match_command("runXout"), Some((12, Some("out".into()))));
        assert_eq!(match_command("quitting"), Some((16, Some("ing".into()))));
        assert_eq!(
            match_command("set readahead 5"),
            Some((6, Some("head 5".into())))
        );
        assert_eq!(match_command("set r 5"), None);
        assert_eq!(match_command("Run"), None);
        assert_eq!(match_command(" run"), None);
        assert_eq!(match_command(""), None);
        assert_eq!(
            parse_line("set report terse"),
            Ok(Command::SetReport(ReportFormat::Terse))
        );
        assert_eq!(parse_line("# comment"), Err(CommandError::Unknown));
        assert_eq!(parse_line(""), Err(CommandError::Unknown));
        assert_eq!(parse_line("exit"), Err(CommandError::Unknown));
        assert_eq!(parse_line("?"), Err(CommandError::Unknown));
        assert_eq!(parse_line(interactive_alias("exit")), Ok(Command::Quit));
        assert_eq!(
            parse_line(interactive_alias("?")),
            Ok(Command::Help { prefix: None })
        );
        assert_eq!(interactive_alias("? "), "? ");
    }

    #[test]
    fn set_size_rules() {
        let mut c = Config::default();
        for (line, bounds) in [
            ("set size 1000 2000", (1000, 2000)),
            ("set size 3000", (3000, 3000)),
            ("set size 3000 100", (3000, 3000)),
            ("set size 10 -5", (10, 10)),
            ("set size 10 x", (10, 10)),
            // H is atoi() from the first space on; atoi skips the extra blanks.
            ("set size 20  500", (20, 500)),
            // A leading space makes strchr find it first: H = atoi(" 30 40") = 30.
            ("set size  30 40", (30, 30)),
        ] {
            run(&mut c, line).unwrap();
            assert_eq!((c.size_low, c.size_high), bounds, "{line}");
        }
        for bad in [
            "set size",
            "set size ",
            "set size 0 100",
            "set size -1",
            "set size x",
        ] {
            assert_eq!(run(&mut c, bad), Err(CommandError::NoSizeBounds), "{bad}");
        }
        assert_eq!((c.size_low, c.size_high), (30, 30));
        assert_eq!(
            CommandError::NoSizeBounds.to_string(),
            "Error: no file size low or high bounds specified"
        );
    }

    #[test]
    fn generic_integers() {
        let mut c = Config::default();
        run(&mut c, "set number 20").unwrap();
        run(&mut c, "set seed 7").unwrap();
        run(&mut c, "set transactions 5").unwrap();
        run(&mut c, "set subdirectories 3").unwrap();
        run(&mut c, "set read 64").unwrap();
        run(&mut c, "set write 100x").unwrap();
        assert_eq!(
            (
                c.number,
                c.seed,
                c.transactions,
                c.subdirectories,
                c.read_block,
                c.write_block
            ),
            (20, 7, 5, 3, 64, 100)
        );
        let cases = [
            (
                "set number 0",
                CommandError::InvalidNumber,
                "Error: invalid number of files",
            ),
            (
                "set seed -3",
                CommandError::InvalidSeed,
                "Error: invalid seed for random numbers",
            ),
            (
                "set transactions",
                CommandError::NoTransactions,
                "Error: no transactions specified",
            ),
            (
                "set subdirectories 0",
                CommandError::InvalidSubdirectories,
                "Error: invalid number of subdirectories",
            ),
            (
                "set read abc",
                CommandError::InvalidReadBlock,
                "Error: invalid read block size",
            ),
            (
                "set write ",
                CommandError::InvalidWriteBlock,
                "Error: invalid write block size",
            ),
        ];
        for (line, err, text) in cases {
            assert_eq!(run(&mut c, line), Err(err.clone()), "{line}");
            assert_eq!(err.to_string(), text);
            assert!(!err.to_stdout());
        }
        assert_eq!(c.number, 20);
    }

    #[test]
    fn buffering_bias_report_words() {
        let mut c = Config::default();
        run(&mut c, "set buffering false").unwrap();
        assert!(!c.buffered);
        assert_eq!(
            run(&mut c, "set buffering False"),
            Err(CommandError::NoBufferingMode)
        );
        assert_eq!(
            run(&mut c, "set buffering true "),
            Err(CommandError::NoBufferingMode)
        );
        assert_eq!(
            run(&mut c, "set buffering"),
            Err(CommandError::NoBufferingMode)
        );
        run(&mut c, "set buffering true").unwrap();
        assert!(c.buffered);
        run(&mut c, "set bias read -1").unwrap();
        run(&mut c, "set bias create 10").unwrap();
        assert_eq!((c.bias_read, c.bias_create), (-1, 10));
        // atoi("x") = 0 is a valid bias.
        run(&mut c, "set bias read x").unwrap();
        assert_eq!(c.bias_read, 0);
        for bad in ["set bias read 11", "set bias create -2", "set bias read"] {
            assert_eq!(run(&mut c, bad), Err(CommandError::NoBias));
        }
        // "set bias" alone is not a command.
        assert_eq!(run(&mut c, "set bias 3"), Err(CommandError::Unknown));
        run(&mut c, "set report terse").unwrap();
        assert_eq!(c.report, ReportFormat::Terse);
        assert_eq!(run(&mut c, "set report"), Err(CommandError::NoReportFormat));
        assert_eq!(
            run(&mut c, "set report Terse"),
            Err(CommandError::NoReportFormat)
        );
        assert_eq!(c.report, ReportFormat::Terse);
    }

    #[test]
    fn locations() {
        let mut c = Config::default();
        let loc = |p: &str, w| Location {
            path: p.into(),
            weight: w,
        };
        run(&mut c, "set location /a").unwrap();
        assert_eq!(c.locations, vec![loc("/a", 1)]);
        run(&mut c, "set location +/b 3").unwrap();
        run(&mut c, "set location +/c").unwrap();
        assert_eq!(c.locations, vec![loc("/a", 1), loc("/b", 3), loc("/c", 1)]);
        run(&mut c, "set location -/b").unwrap();
        assert_eq!(c.locations, vec![loc("/a", 1), loc("/c", 1)]);
        assert_eq!(
            run(&mut c, "set location -/c 1"),
            Err(CommandError::CannotFindLocation("/c 1".into()))
        );
        assert_eq!(
            CommandError::CannotFindLocation("/x".into()).to_string(),
            "Error: cannot find location '/x'"
        );
        // Replace; an invalid weight warns, truncates the path and uses 1.
        let cmd = run(&mut c, "set location /my dir").unwrap();
        assert_eq!(
            cmd.warning().map(|w| w.to_string()),
            Some("Error: ignoring invalid weight 'dir'".into())
        );
        assert_eq!(c.locations, vec![loc("/my", 1)]);
        let cmd = run(&mut c, "set location +/d 0").unwrap();
        assert_eq!(
            cmd.warning(),
            Some(CommandError::IgnoringInvalidWeight("0".into()))
        );
        let cmd = run(&mut c, "set location +/e ").unwrap();
        assert_eq!(
            cmd.warning(),
            Some(CommandError::IgnoringInvalidWeight(String::new()))
        );
        assert_eq!(c.locations, vec![loc("/my", 1), loc("/d", 1), loc("/e", 1)]);
        // Duplicates: removal takes the first.
        run(&mut c, "set location +/d 5").unwrap();
        run(&mut c, "set location -/d").unwrap();
        assert_eq!(c.locations, vec![loc("/my", 1), loc("/e", 1), loc("/d", 5)]);
        assert_eq!(run(&mut c, "set location"), Err(CommandError::NoDirectory));
        // "set location " gives an empty path, weight 1.
        run(&mut c, "set location ").unwrap();
        assert_eq!(c.locations, vec![loc("", 1)]);
        run(&mut c, "set location -").unwrap();
        assert!(c.locations.is_empty());
    }

    #[test]
    fn non_set_commands() {
        assert_eq!(parse_line("run"), Ok(Command::Run { output: None }));
        assert_eq!(
            parse_line("run report.txt"),
            Ok(Command::Run {
                output: Some("report.txt".into())
            })
        );
        assert_eq!(parse_line("show"), Ok(Command::Show { output: None }));
        assert_eq!(parse_line("load"), Err(CommandError::NoConfigFile));
        assert_eq!(
            parse_line("load x.pmrc"),
            Ok(Command::Load {
                file: "x.pmrc".into()
            })
        );
        assert_eq!(parse_line("quit now"), Ok(Command::Quit));
        assert_eq!(parse_line("!"), Ok(Command::Shell { command: None }));
        assert_eq!(
            parse_line("!ls -l"),
            Ok(Command::Shell {
                command: Some("ls -l".into())
            })
        );
        let mut c = Config::default();
        parse_line("run").unwrap().apply(&mut c).unwrap();
        assert_eq!(c, Config::default());
    }

    #[test]
    fn help_prefixes() {
        let all = help_text(None);
        assert_eq!(all.lines().count(), 17);
        assert!(all.starts_with("set size - Sets low and high bounds of files\n"));
        assert!(all.ends_with("quit - Exit program\n"));
        assert_eq!(help_text(Some("")), all);
        assert_eq!(help_text(Some("xyz")), all);
        assert_eq!(
            help_text(Some("set b")),
            "set buffering - Sets usage of buffered I/O\n\
             set bias read - Sets the chance of choosing read over append\n\
             set bias create - Sets the chance of choosing create over delete\n"
        );
        assert_eq!(
            help_text(Some("run")),
            "run - Runs one iteration of benchmark\n"
        );
        assert_eq!(help_text(Some("run now")), all);
    }

    #[test]
    fn fgets_chopping() {
        assert_eq!(chop_chunks(b"run\n"), vec!["run"]);
        assert_eq!(chop_chunks(b"quit"), vec!["qui"]);
        assert_eq!(chop_chunks(b"\n"), vec![""]);
        assert_eq!(
            chop_chunks(b"set report terse\r\n"),
            vec!["set report terse\r"]
        );
        assert_eq!(chop_chunks(b"ru\0n\n"), vec!["r"]);
        assert_eq!(chop_chunks(b"\0run\n"), vec![""]);
        let mut long = vec![b'a'; 300];
        long.push(b'\n');
        let pieces = chop_chunks(&long);
        assert_eq!(pieces.len(), 2);
        assert_eq!(pieces[0].len(), 253);
        assert_eq!(pieces[1].len(), 46);
        let lines = script_lines(b"set number 5\n\nrun\nquit");
        let texts: Vec<_> = lines.iter().map(|l| (l.number, l.text.as_str())).collect();
        assert_eq!(
            texts,
            vec![(1, "set number 5"), (2, ""), (3, "run"), (4, "qui")]
        );
        assert_eq!(
            lines[1].locate("x.pmrc", &CommandError::Unknown),
            "x.pmrc:2: Eh?"
        );
    }

    // tests/fixtures/postmark/commands.pmrc exercises the command language;
    // commands.expected is Debian postmark 1.53's stdout+stderr for it (see
    // the README there).
    const COMMANDS_PMRC: &str = include_str!("../../../tests/fixtures/postmark/commands.pmrc");
    const COMMANDS_LOADED: &str =
        include_str!("../../../tests/fixtures/postmark/commands-loaded.pmrc");
    const COMMANDS_EXPECTED: &str =
        include_str!("../../../tests/fixtures/postmark/commands.expected");

    /// `read_config_file` + `cli_parse_line` for a file, without `run`/`!`.
    /// Returns false when the file said `quit`.
    fn replay_file(name: &str, cfg: &mut Config, out: &mut String) -> bool {
        let data = match name {
            "commands.pmrc" => COMMANDS_PMRC,
            "commands-loaded.pmrc" => COMMANDS_LOADED,
            _ => {
                out.push_str(&format!(
                    "{}\n",
                    CommandError::CannotReadConfig(name.into())
                ));
                return true;
            }
        };
        out.push_str(&format!("Reading configuration from file '{name}'\n"));
        for line in script_lines(data.as_bytes()) {
            let Some(cmd) = parse_or_print(&line.text, out) else {
                continue;
            };
            if let Some(w) = cmd.warning() {
                out.push_str(&format!("{w}\n"));
            }
            if let Err(e) = cmd.apply(cfg) {
                out.push_str(&format!("{e}\n"));
            }
            match cmd {
                Command::Show { output: None } => {
                    out.push_str(&cfg.show("/tmp/pm-fixtures/commands").combined())
                }
                Command::Help { prefix } => out.push_str(&help_text(prefix.as_deref())),
                Command::Load { file } => {
                    // cli_load ignores the loaded file's `quit`.
                    replay_file(&file, cfg, out);
                }
                Command::Quit => return false,
                Command::Run { .. } | Command::Show { .. } | Command::Shell { .. } => {
                    panic!("not used by the fixture: {cmd:?}")
                }
                _ => {}
            }
        }
        true
    }

    #[test]
    fn commands_fixture_equals_postmark_1_53() {
        let mut out = format!("{BANNER}\n");
        let mut cfg = Config::default();
        let went_on = replay_file("commands.pmrc", &mut cfg, &mut out);
        assert!(!went_on, "the fixture ends with quit");
        assert_eq!(out, COMMANDS_EXPECTED);
    }
}
