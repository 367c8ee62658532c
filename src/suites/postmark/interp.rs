//! PostMark 1.53's interpreter: the banner, the start-up file, the `pm>`
//! loop, and what each command does, on top of the pure parser in
//! [`command`](super::command) and the executor in [`exec`](super::exec).
//!
//! As in 1.53 (`main`, `read_config_file`, `cli_read_line`,
//! `cli_parse_line`): the banner; then the file named on the command line,
//! or `.pmrc` when there is none (a missing `.pmrc` is silent); a `quit` in
//! it ends the program; otherwise commands are read from standard input
//! until `quit` or end of input. Each input line loses its final character
//! and is read in pieces of at most 254 bytes; at the prompt `?` means
//! `help` and `exit` means `quit`. `load FILE` runs a file like the
//! start-up one, but its `quit` ends only that file. `!COMMAND` runs
//! `/bin/sh -c COMMAND` (`!` alone: `$SHELL`), with Ctrl-C and Ctrl-\
//! ignored by iogauge meanwhile, as `system()` does.
//!
//! iogauge's changes, all outside PostMark's standard output: a complaint
//! about a line of a file names it (`FILE:LINE: Error: ...`); the `pm>`
//! prompt is printed only when standard input is a terminal; `run` works
//! in a directory of its own inside each location and refuses, with one
//! `Error:` line, locations that are missing or not writable; after each
//! run's report comes iogauge's block (exact times, latencies, CPU).

use std::fs::OpenOptions;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::time::Duration;

use anyhow::Result;

use crate::report::export::{self, Document, Exporter};
use crate::report::{Collection, Entry, RunResult};
use crate::runner::signals;
use crate::suites::postmark::command::{
    BANNER, Command, CommandError, DEFAULT_RC, PROMPT, chop_chunks, help_text, interactive_alias,
    parse_line, script_lines,
};
use crate::suites::postmark::config::Config;
use crate::suites::postmark::exec::{self, ExecOptions, Refused};

/// Where the interpreter's output goes. `out` is PostMark's standard output
/// (flushed at once, so that it interleaves with `err` as on a terminal);
/// `err` takes one line (without its newline) for standard error.
pub trait Sink: Sync {
    /// Text PostMark prints on stdout.
    fn out(&self, text: &str);
    /// One line PostMark (or iogauge) prints on stderr.
    fn err(&self, line: &str);
    /// The descriptor `out` writes to, for what a run prints as it goes
    /// (`Creating files...Done`, the dots): a stream writes it there
    /// itself, being built from plain data. `None` when nothing is shown.
    fn say_fd(&self) -> Option<RawFd>;
    /// Standard output for a `!` command.
    fn shell_stdout(&self) -> std::process::Stdio {
        std::process::Stdio::inherit()
    }
}

/// The real terminal: stdout, or stderr when stdout carries the JSON
/// (`--json -`); nothing with `--quiet` (errors still go to stderr).
#[derive(Clone, Copy, Debug, Default)]
pub struct StdSink {
    /// `--quiet`.
    pub quiet: bool,
    /// `--json -`: the transcript goes to stderr.
    pub json_on_stdout: bool,
}

impl Sink for StdSink {
    fn out(&self, text: &str) {
        if self.quiet || text.is_empty() {
            return;
        }
        // A closed stdout (`| head`) must not stop a run half-way: ignore.
        if self.json_on_stdout {
            let mut e = std::io::stderr().lock();
            let _ = e.write_all(text.as_bytes()).and_then(|_| e.flush());
        } else {
            let mut o = std::io::stdout().lock();
            let _ = o.write_all(text.as_bytes()).and_then(|_| o.flush());
        }
    }

    fn err(&self, line: &str) {
        let mut e = std::io::stderr().lock();
        let _ = writeln!(e, "{}", crate::error::shown(line));
    }

    fn say_fd(&self) -> Option<RawFd> {
        match (self.quiet, self.json_on_stdout) {
            (true, _) => None,
            (false, true) => Some(std::io::stderr().as_raw_fd()),
            (false, false) => Some(std::io::stdout().as_raw_fd()),
        }
    }

    fn shell_stdout(&self) -> std::process::Stdio {
        if self.json_on_stdout {
            std::io::stderr()
                .as_fd()
                .try_clone_to_owned()
                .map_or_else(|_| std::process::Stdio::null(), std::process::Stdio::from)
        } else {
            std::process::Stdio::inherit()
        }
    }
}

use std::os::fd::{AsFd, AsRawFd, RawFd};

/// What to do after a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Read the next command.
    Go,
    /// `quit`.
    Quit,
    /// A signal: end the session now.
    Stop,
}

/// Where a command line came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin<'s> {
    /// Standard input (the prompt, or commands piped in).
    Typed,
    /// Line `line` (1-based) of configuration file `name`.
    File {
        /// The file as named.
        name: &'s str,
        /// Physical line number.
        line: usize,
    },
}

impl Origin<'_> {
    /// `message`, prefixed with `FILE:LINE: ` for a file line.
    pub fn locate(&self, message: &str) -> String {
        match self {
            Origin::Typed => message.to_string(),
            Origin::File { name, line } => format!("{name}:{line}: {message}"),
        }
    }
}

/// `load` inside `load` deeper than this is refused (1.53 recurses until it
/// runs out of file descriptors or stack).
pub const MAX_LOAD_DEPTH: usize = 32;

/// One PostMark session: the configuration, what the runs produced, and
/// how the session went.
pub struct Session<'a> {
    /// PostMark's variables.
    pub cfg: Config,
    sink: &'a dyn Sink,
    exec: ExecOptions,
    outputs: Outputs,
    /// Every run's result, in order.
    pub results: Vec<RunResult>,
    /// Commands refused (unknown, bad value, unusable location, ...).
    pub rejected: usize,
    /// The unknown commands among them (answered `Eh?` on stdout, which
    /// `--quiet` hides), as [`unknown_command`] names them.
    pub unknown: Vec<String>,
    /// A run failed (I/O errors, out of files) or could not be performed.
    pub failed: bool,
    /// A signal ended the session.
    pub interrupted: bool,
    depth: usize,
    /// The configuration files read so far (the session's, `load`'s).
    read: Vec<PathBuf>,
}

impl<'a> Session<'a> {
    /// A session with 1.53's defaults.
    pub fn new(sink: &'a dyn Sink, exec: ExecOptions, outputs: Outputs) -> Self {
        Session {
            cfg: Config::default(),
            sink,
            exec,
            outputs,
            results: Vec::new(),
            rejected: 0,
            unknown: Vec::new(),
            failed: false,
            interrupted: false,
            depth: 0,
            read: Vec::new(),
        }
    }

    /// Why `run FILE` or `show FILE` may not append to FILE: it is a
    /// configuration file of the session, or where --json or --csv goes.
    fn output_clash(&self, name: &str) -> Option<String> {
        let mut paths = crate::runner::names::Paths::new();
        for f in &self.read {
            paths.input(format!("the configuration file '{}'", f.display()), f);
        }
        for (e, p) in &self.outputs {
            paths.output(format!("--{} {}", e.name(), p.display()), p);
        }
        paths.output(format!("'{name}'"), Path::new(name));
        paths.check().err()
    }

    /// Refuse an output FILE that [`Session::output_clash`] finds: the
    /// command does nothing. Returns whether it was refused.
    fn refuse_clash(&mut self, command: &str, output: Option<&str>, origin: Origin) -> bool {
        let Some(why) = output.and_then(|name| self.output_clash(name)) else {
            return false;
        };
        self.rejected += 1;
        self.sink
            .err(&origin.locate(&format!("iogauge: {command} {why}")));
        true
    }

    fn complain(&mut self, origin: Origin, e: &CommandError) {
        self.rejected += 1;
        let text = origin.locate(&e.to_string());
        if e.to_stdout() {
            self.sink.out(&format!("{text}\n"));
        } else {
            self.sink.err(&text);
        }
    }

    /// `cli_parse_line`: execute one command line (already chopped).
    pub fn execute(&mut self, line: &str, origin: Origin) -> Flow {
        let cmd = match parse_line(line) {
            Ok(cmd) => cmd,
            Err(e) => {
                if matches!(e, CommandError::Unknown) {
                    self.unknown.push(unknown_command(line, &origin));
                }
                self.complain(origin, &e);
                return Flow::Go;
            }
        };
        if let Some(w) = cmd.warning() {
            self.complain(origin, &w);
        }
        if let Err(e) = cmd.apply(&mut self.cfg) {
            self.complain(origin, &e);
        }
        match cmd {
            Command::Run { output } => self.run(output.as_deref(), origin),
            Command::Load { file } => self.load(&file, origin),
            Command::Show { output } => {
                self.show(output.as_deref(), origin);
                Flow::Go
            }
            Command::Help { prefix } => {
                self.sink.out(&help_text(prefix.as_deref()));
                Flow::Go
            }
            Command::Quit => Flow::Quit,
            Command::Shell { .. } if self.exec.check_only => Flow::Go,
            Command::Shell { command } => {
                self.shell(command.as_deref());
                if signals::interrupted() {
                    self.interrupted = true;
                    return Flow::Stop;
                }
                Flow::Go
            }
            _ => Flow::Go,
        }
    }

    /// `read_config_file` for a file already read: prints `Reading
    /// configuration from file 'NAME'` and executes its lines until `quit`.
    pub fn script(&mut self, name: &str, data: &[u8]) -> Flow {
        self.sink
            .out(&format!("Reading configuration from file '{name}'\n"));
        self.read.push(PathBuf::from(name));
        for l in script_lines(data) {
            let flow = self.execute(
                &l.text,
                Origin::File {
                    name,
                    line: l.number,
                },
            );
            if flow != Flow::Go {
                return flow;
            }
        }
        Flow::Go
    }

    /// `load FILE`: a `quit` inside ends only that file.
    fn load(&mut self, file: &str, origin: Origin) -> Flow {
        let data = match std::fs::read(file) {
            Ok(d) if self.depth < MAX_LOAD_DEPTH => d,
            Ok(_) => {
                self.rejected += 1;
                let msg = format!(
                    "{} (loads nested more than {MAX_LOAD_DEPTH} deep)",
                    CommandError::CannotReadConfig(file.into())
                );
                self.sink.err(&origin.locate(&msg));
                return Flow::Go;
            }
            Err(_) => {
                self.complain(origin, &CommandError::CannotReadConfig(file.into()));
                return Flow::Go;
            }
        };
        self.depth += 1;
        let flow = self.script(file, &data);
        self.depth -= 1;
        match flow {
            Flow::Stop => Flow::Stop,
            Flow::Go | Flow::Quit => Flow::Go,
        }
    }

    /// `show [FILE]`: appended to FILE, but the location lines always go to
    /// stdout (1.53 prints them with `printf`).
    fn show(&mut self, output: Option<&str>, origin: Origin) {
        if self.refuse_clash("show", output, origin) {
            return;
        }
        let cwd = std::env::current_dir()
            .map(|d| d.display().to_string())
            .unwrap_or_default();
        let text = self.cfg.show(&cwd);
        if let Some(name) = output.filter(|_| !self.exec.check_only) {
            match append_to(name, &text.to_target) {
                Ok(()) => {
                    self.sink.out(&text.locations);
                    return;
                }
                Err(_) => self.complain(origin, &CommandError::CannotDirectOutput(name.into())),
            }
        }
        self.sink.out(&text.combined());
    }

    /// `run [FILE]`: one run; PostMark's report is appended to FILE if
    /// given (stdout if it cannot be opened), iogauge's block follows on
    /// stdout.
    fn run(&mut self, output: Option<&str>, origin: Origin) -> Flow {
        if self.refuse_clash("run", output, origin) {
            return Flow::Go;
        }
        if self.exec.check_only {
            if let Err(e) = exec::check(&self.cfg, &self.exec) {
                self.rejected += 1;
                let text = match e.downcast_ref::<Refused>() {
                    Some(r) => r.0.clone(),
                    None => format!("iogauge: {e:#}"),
                };
                self.sink.err(&origin.locate(&text));
            }
            return Flow::Go;
        }
        let out = match exec::run(&self.cfg, &self.exec, self.sink.say_fd()) {
            Ok(out) => out,
            Err(e) => {
                match e.downcast_ref::<Refused>() {
                    Some(r) => {
                        self.rejected += 1;
                        self.sink.err(&origin.locate(&r.0));
                    }
                    None => {
                        self.failed = true;
                        self.sink.err(&origin.locate(&format!(
                            "iogauge: the run failed: {}",
                            crate::error::cause(&e)
                        )));
                        // its result all the same: what it began with, and why it failed
                        let mut r = crate::session::take_unfinished()
                            .filter(|r| r.benchmark == "postmark")
                            .unwrap_or_else(|| {
                                RunResult::new(
                                    "postmark",
                                    serde_json::json!({}),
                                    crate::env::detect(Path::new(".")),
                                    crate::report::now_rfc3339(),
                                )
                            });
                        r.complete = false;
                        r.error = Some(crate::error::cause(&e));
                        self.results.push(r);
                        if let Err(e) = self.write_json(false) {
                            self.sink
                                .err(&format!("iogauge: {}", crate::error::cause(&e)));
                        }
                    }
                }
                return Flow::Go;
            }
        };
        // the report is rendered from the result, as `iogauge show` renders it
        let (report, additions) = match crate::suites::postmark::reports(&out.result) {
            Ok(parts) => parts,
            Err(e) => {
                self.failed = true;
                self.sink
                    .err(&format!("iogauge: rendering the report: {e}"));
                Default::default()
            }
        };
        if !out.interrupted {
            let mut to_stdout = true;
            if let Some(name) = output {
                match append_to(name, &report) {
                    Ok(()) => to_stdout = false,
                    Err(_) => self.complain(origin, &CommandError::CannotDirectOutput(name.into())),
                }
            }
            if to_stdout {
                self.sink.out(&report);
            }
        }
        self.sink.out(&additions);
        self.sink.out(&crate::report::warn::render(&out.result));
        let complete = out.result.complete;
        let error = out.result.error.clone();
        self.results.push(out.result);
        if let Err(e) = self.write_json(false) {
            self.failed = true;
            self.sink
                .err(&format!("iogauge: {}", crate::error::cause(&e)));
        }
        if out.interrupted {
            self.interrupted = true;
            return Flow::Stop;
        }
        if !complete {
            self.failed = true;
            let why = error.unwrap_or_else(|| "incomplete".into());
            self.sink
                .err(&origin.locate(&format!("iogauge: the run did not complete: {why}")));
        }
        Flow::Go
    }

    /// `!COMMAND` / `!`: `system()`.
    fn shell(&mut self, command: Option<&str>) {
        let line = match command {
            Some(c) => c.to_string(),
            None => match std::env::var("SHELL") {
                Ok(s) => s,
                // system(NULL) runs nothing
                Err(_) => return,
            },
        };
        let mut cmd = std::process::Command::new("/bin/sh");
        cmd.arg("-c").arg(line).stdout(self.sink.shell_stdout());
        ignoring_interrupts(|| {
            let _ = cmd.status();
        });
    }

    /// The pm> loop: read lines from `input` until `quit`, end of input or a
    /// signal.
    pub fn interact(&mut self, input: &mut dyn Input) {
        loop {
            if input.is_terminal() {
                self.sink.out(PROMPT);
            }
            match input.next_line() {
                LineEvent::Eof => return,
                LineEvent::Interrupted => {
                    self.interrupted = true;
                    if input.is_terminal() {
                        self.sink.out("\n");
                    }
                    return;
                }
                LineEvent::Line(bytes) => {
                    for piece in chop_chunks(&bytes) {
                        match self.execute(interactive_alias(&piece), Origin::Typed) {
                            Flow::Go => {}
                            Flow::Quit => return,
                            Flow::Stop => return,
                        }
                    }
                }
            }
            if signals::interrupted() {
                self.interrupted = true;
                return;
            }
        }
    }

    /// Write the results to each output: one run gives its result, none or
    /// several a collection (`iogauge/postmark-session/v1`, one entry per
    /// run). A file is rewritten after each run; `-` (stdout) is written
    /// once, at the end (`last`), even when no run was made.
    pub fn write_json(&self, last: bool) -> Result<()> {
        // a run of a series (--repeat): the series keeps the document
        if export::capturing() && !self.results.is_empty() {
            return match self.results.len() {
                1 => export::capture(&Document::from(&self.results[0])).map(drop),
                _ => export::capture(&Document::from(&self.collection())).map(drop),
            };
        }
        for (e, path) in &self.outputs {
            let stdout = path == Path::new("-");
            if !last && (stdout || self.results.is_empty()) {
                continue;
            }
            if self.results.len() == 1 {
                export::write(*e, &Document::from(&self.results[0]), path)?;
            } else {
                export::write(*e, &Document::from(&self.collection()), path)?;
            }
        }
        Ok(())
    }

    /// The session's runs as one collection, one entry per run.
    fn collection(&self) -> Collection {
        let entries = self
            .results
            .iter()
            .enumerate()
            .map(|(i, r)| Entry::new(format!("run {}", i + 1), r.clone()))
            .collect();
        Collection::new("iogauge/postmark-session/v1", entries)
    }
}

/// Where a session writes its results: each exporter with its path.
pub type Outputs = Vec<(&'static dyn Exporter, PathBuf)>;

/// Append `text` to file `name` (created if missing), as `fopen(name, "a")`.
fn append_to(name: &str, text: &str) -> std::io::Result<()> {
    let mut f = OpenOptions::new().append(true).create(true).open(name)?;
    f.write_all(text.as_bytes())
}

/// What reading standard input gave.
#[derive(Debug, PartialEq, Eq)]
pub enum LineEvent {
    /// One physical line, with its newline if it had one.
    Line(Vec<u8>),
    /// End of input.
    Eof,
    /// Ctrl-C or SIGTERM while waiting.
    Interrupted,
}

/// A source of command lines for the pm> loop.
pub trait Input {
    /// Whether to print the `pm>` prompt.
    fn is_terminal(&self) -> bool;
    /// The next line.
    fn next_line(&mut self) -> LineEvent;
}

/// Lines given in advance (for tests).
pub struct Lines(pub std::collections::VecDeque<Vec<u8>>);

impl Input for Lines {
    fn is_terminal(&self) -> bool {
        false
    }
    fn next_line(&mut self) -> LineEvent {
        self.0.pop_front().map_or(LineEvent::Eof, LineEvent::Line)
    }
}

/// Standard input, read by a helper thread one line at a time on request,
/// so that the main thread notices Ctrl-C while it waits, and so that
/// nothing reads the terminal while a `!` command has it.
pub struct StdinInput {
    tty: bool,
    ask: SyncSender<()>,
    answer: Receiver<Option<Vec<u8>>>,
    asked: bool,
}

impl StdinInput {
    /// Start the reader thread (with Ctrl-C blocked in it: the main thread
    /// takes the signals).
    pub fn new() -> StdinInput {
        use std::io::IsTerminal;
        let (ask, asks) = sync_channel::<()>(1);
        let (answers, answer) = sync_channel::<Option<Vec<u8>>>(1);
        let old = block_interrupts();
        std::thread::spawn(move || {
            let stdin = std::io::stdin();
            let mut input = stdin.lock();
            while asks.recv().is_ok() {
                let mut line = Vec::new();
                let got = match input.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => None,
                    Ok(_) => Some(line),
                };
                let eof = got.is_none();
                if answers.send(got).is_err() || eof {
                    break;
                }
            }
        });
        restore_mask(&old);
        StdinInput {
            tty: std::io::stdin().is_terminal(),
            ask,
            answer,
            asked: false,
        }
    }
}

impl Default for StdinInput {
    fn default() -> Self {
        Self::new()
    }
}

impl Input for StdinInput {
    fn is_terminal(&self) -> bool {
        self.tty
    }

    fn next_line(&mut self) -> LineEvent {
        if !self.asked {
            if self.ask.send(()).is_err() {
                return LineEvent::Eof;
            }
            self.asked = true;
        }
        loop {
            match self.answer.recv_timeout(Duration::from_millis(50)) {
                Ok(Some(line)) => {
                    self.asked = false;
                    return LineEvent::Line(line);
                }
                Ok(None) | Err(RecvTimeoutError::Disconnected) => {
                    self.asked = false;
                    return LineEvent::Eof;
                }
                Err(RecvTimeoutError::Timeout) => {
                    if signals::interrupted() {
                        return LineEvent::Interrupted;
                    }
                }
            }
        }
    }
}

fn interrupt_set() -> libc::sigset_t {
    // SAFETY: sigemptyset/sigaddset initialise and fill a sigset_t we own.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::sigaddset(&mut set, libc::SIGQUIT);
        set
    }
}

/// Block SIGINT and SIGQUIT in this thread; returns the previous mask.
fn block_interrupts() -> libc::sigset_t {
    let set = interrupt_set();
    // SAFETY: valid sigset_t pointers; pthread_sigmask only changes this thread's mask.
    unsafe {
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old);
        old
    }
}

fn restore_mask(old: &libc::sigset_t) {
    // SAFETY: `old` came from pthread_sigmask.
    unsafe {
        libc::pthread_sigmask(libc::SIG_SETMASK, old, std::ptr::null_mut());
    }
}

/// Run `f` (which waits for a child) with SIGINT and SIGQUIT ignored, as
/// `system()` does: they are blocked meanwhile (the child starts with an
/// empty mask) and discarded afterwards.
fn ignoring_interrupts(f: impl FnOnce()) {
    let old = block_interrupts();
    f();
    let set = interrupt_set();
    let zero = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: valid pointers; sigtimedwait with a zero timeout only takes
    // signals of `set` that are pending, and returns -1 when none is.
    while unsafe { libc::sigtimedwait(&set, std::ptr::null_mut(), &zero) } > 0 {}
    restore_mask(&old);
}

/// How a whole session went, for the exit code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionEnd {
    /// Commands refused.
    pub rejected: usize,
    /// The unknown commands among them ([`unknown_command`]).
    pub unknown: Vec<String>,
    /// A run failed or did not complete.
    pub failed: bool,
    /// A signal ended it.
    pub interrupted: bool,
    /// Runs performed.
    pub runs: usize,
}

/// An unknown command as the closing line names it: `'frob'`, `'frob'
/// (t.pmrc:6)`, `an empty line (t.pmrc:4)`; long lines are cut.
pub fn unknown_command(line: &str, origin: &Origin) -> String {
    let text = line.trim();
    let what = if text.is_empty() {
        "an empty line".to_string()
    } else if text.chars().count() > 40 {
        format!("'{}…'", text.chars().take(39).collect::<String>())
    } else {
        format!("'{text}'")
    };
    match origin {
        Origin::Typed => what,
        Origin::File { name, line } => format!("{what} ({name}:{line})"),
    }
}

/// A whole `postmark [FILE]` session: banner, FILE (or `.pmrc`), then
/// standard input unless the file said `quit`. A FILE that cannot be read
/// is bad usage (1.53 ignores it silently) and is reported before any output.
pub fn session(
    file: Option<&Path>,
    sink: &dyn Sink,
    exec: ExecOptions,
    outputs: Outputs,
    input: &mut dyn FnMut() -> Box<dyn Input>,
) -> Result<SessionEnd> {
    let startup = match file {
        Some(p) => match std::fs::read(p) {
            Ok(d) => Some((p.to_string_lossy().into_owned(), d)),
            Err(e) => crate::usage!(
                "cannot read configuration file '{}': {}",
                p.display(),
                crate::runner::workdir::io_reason(&e)
            ),
        },
        None => std::fs::read(DEFAULT_RC)
            .ok()
            .map(|d| (DEFAULT_RC.to_string(), d)),
    };
    sink.out(&format!("{BANNER}\n"));
    let mut s = Session::new(sink, exec, outputs);
    let flow = match &startup {
        Some((name, data)) => s.script(name, data),
        None => Flow::Go,
    };
    if flow == Flow::Go && !s.exec.check_only {
        let mut source = input();
        s.interact(source.as_mut());
    }
    s.write_json(true)?;
    Ok(SessionEnd {
        rejected: s.rejected,
        unknown: s.unknown,
        failed: s.failed,
        interrupted: s.interrupted || signals::interrupted(),
        runs: s.results.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileExt;

    /// Captures stdout and stderr in one transcript, as a terminal shows
    /// them: a file, which a run's streams write to as well.
    struct Capture(std::fs::File);

    impl Default for Capture {
        fn default() -> Self {
            Capture(tempfile::tempfile().unwrap())
        }
    }

    impl Sink for Capture {
        fn out(&self, text: &str) {
            (&self.0).write_all(text.as_bytes()).unwrap();
        }
        fn err(&self, line: &str) {
            (&self.0).write_all(format!("{line}\n").as_bytes()).unwrap();
        }
        fn say_fd(&self) -> Option<RawFd> {
            Some(self.0.as_raw_fd())
        }
    }

    impl Capture {
        /// A session with the default options that writes here.
        fn session(&self) -> Session<'_> {
            Session::new(self, ExecOptions::default(), Vec::new())
        }

        /// The transcript so far.
        fn text(&self) -> String {
            let mut buf = vec![0; self.0.metadata().unwrap().len() as usize];
            self.0.read_exact_at(&mut buf, 0).unwrap();
            String::from_utf8(buf).unwrap()
        }
    }

    fn lines(text: &str) -> Lines {
        Lines(
            text.split_inclusive('\n')
                .map(|l| l.as_bytes().to_vec())
                .collect(),
        )
    }

    fn typed(text: &str) -> (String, Config, usize) {
        let cap = Capture::default();
        let mut s = cap.session();
        s.interact(&mut lines(text));
        let rejected = s.rejected;
        let cfg = s.cfg.clone();
        (cap.text(), cfg, rejected)
    }

    #[test]
    fn typed_commands_and_aliases() {
        let (out, cfg, rejected) =
            typed("set number 20\nset size 10 5\n?\nfrob\nexit\nset number 3\n");
        assert_eq!(cfg.number, 20);
        // 1.53: a high bound below the low bound is no error, H = L
        assert_eq!((cfg.size_low, cfg.size_high), (10, 10));
        assert!(out.starts_with("set size - Sets low and high bounds of files\n"));
        assert!(out.ends_with("quit - Exit program\nEh?\n"), "{out}");
        assert_eq!(rejected, 1);
    }

    #[test]
    fn every_bad_value_is_reported_and_the_session_goes_on() {
        let (out, cfg, rejected) = typed(
            "set number 0\nset size 0 5\nset seed x\nset transactions -1\nset location\n\
             set subdirectories 0\nset read 0\nset write x\nset buffering maybe\n\
             set bias read 11\nset bias create -2\nset report short\nload\nset number 7\n",
        );
        let want = [
            "Error: invalid number of files",
            "Error: no file size low or high bounds specified",
            "Error: invalid seed for random numbers",
            "Error: no transactions specified",
            "Error: no directory name specified",
            "Error: invalid number of subdirectories",
            "Error: invalid read block size",
            "Error: invalid write block size",
            "Error: no buffering mode (true/false) specified",
            "Error: no bias specified (0-10 for greater chance,-1 to disable)",
            "Error: no bias specified (0-10 for greater chance,-1 to disable)",
            "Error: either 'verbose' or 'terse' required",
            "Error: no configuration file specified",
        ];
        assert_eq!(out.lines().collect::<Vec<_>>(), want);
        assert_eq!(rejected, want.len());
        assert_eq!(cfg.number, 7);
        assert_eq!(cfg.size_low, 500);
    }

    #[test]
    fn file_lines_are_located_and_quit_in_a_loaded_file_ends_only_it() {
        let dir = tempfile::tempdir().unwrap();
        let inner = dir.path().join("inner.pmrc");
        std::fs::write(&inner, "set number 9\nquit\nset number 10\n").unwrap();
        let cap = Capture::default();
        let mut s = cap.session();
        let script = format!(
            "# comment\n\nset seed 0\nload {}\nload /nonexistent/x.pmrc\nset seed 5\nquit\nset seed 6\n",
            inner.display()
        );
        let flow = s.script("outer.pmrc", script.as_bytes());
        assert_eq!(flow, Flow::Quit);
        assert_eq!((s.cfg.number, s.cfg.seed), (9, 5));
        let out = cap.text();
        let want = format!(
            "Reading configuration from file 'outer.pmrc'\n\
             outer.pmrc:1: Eh?\n\
             outer.pmrc:2: Eh?\n\
             outer.pmrc:3: Error: invalid seed for random numbers\n\
             Reading configuration from file '{}'\n\
             outer.pmrc:5: Error: cannot read configuration file '/nonexistent/x.pmrc'\n",
            inner.display()
        );
        assert_eq!(out, want);
    }

    #[test]
    fn a_file_that_loads_itself_stops() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("self.pmrc");
        std::fs::write(&f, format!("load {}\n", f.display())).unwrap();
        let (out, _, _) = typed(&format!("load {}\n", f.display()));
        assert_eq!(out.matches("Reading configuration").count(), MAX_LOAD_DEPTH);
        assert!(out.contains("nested more than 32 deep"));
    }

    #[test]
    fn show_to_a_file_keeps_locations_on_stdout() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("show.txt");
        let (out, _, _) = typed(&format!(
            "set location /x 2\nshow {}\nshow /nonexistent/dir/show.txt\n",
            target.display()
        ));
        let file = std::fs::read_to_string(&target).unwrap();
        assert!(file.starts_with("Current configuration is:\n"));
        assert!(!file.contains("weight"));
        assert!(out.starts_with(
            "\t/x (weight=2)\nError: Cannot direct output to file '/nonexistent/dir/show.txt'\nCurrent configuration is:\n"
        ), "{out}");
    }

    #[test]
    fn run_to_a_file_and_a_refused_location() {
        let dir = tempfile::tempdir().unwrap();
        let report = dir.path().join("report.txt");
        let cap = Capture::default();
        let mut s = cap.session();
        let loc = dir.path().join("loc");
        std::fs::create_dir(&loc).unwrap();
        for l in [
            format!("set location {}", loc.display()),
            "set number 10".into(),
            "set transactions 20".into(),
            "set report terse".into(),
            format!("run {}", report.display()),
            format!("set location {}", dir.path().join("missing").display()),
            "run".into(),
        ] {
            assert_eq!(
                s.execute(
                    &l,
                    Origin::File {
                        name: "t.pmrc",
                        line: 1
                    }
                ),
                Flow::Go
            );
        }
        let terse = std::fs::read_to_string(&report).unwrap();
        assert_eq!(terse.split(' ').count(), 13, "{terse}");
        let out = cap.text();
        assert!(out.starts_with("Creating files...Done\nPerforming transactions..........Done\nDeleting files...Done\n\niogauge: "), "{out}");
        assert!(
            out.contains("t.pmrc:1: Error: cannot use location '"),
            "{out}"
        );
        assert_eq!(s.results.len(), 1);
        assert_eq!(s.rejected, 1);
        assert!(!s.failed);
        assert_eq!(std::fs::read_dir(&loc).unwrap().count(), 0);
    }
}
