//! `iogauge bonnie`: the original Bonnie (default) or bonnie++ 2.00a
//! (`--flavor bonnie++`), with their options, tables and CSV line.

use super::common::{self, OutputArgs, Status};
use crate::engine::Choice;
use crate::report::{Collection, Entry, RunResult};
use crate::runner::{NoProgress, Progress};
use crate::suites::bonnie::{self, Figures, Flavor, Options, Seed, details, report};
use anyhow::{Context, Result};
use std::path::PathBuf;

/// Bonnie: a file written a character at a time and in blocks, rewritten,
/// read both ways, then read and updated at random by several seekers;
/// bonnie++ adds small-file create, stat and delete tests.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Which program: bonnie (the original, 1996, as Chen & Patterson ran it) or bonnie++ (2.00a).
    #[arg(long, value_enum, default_value = "bonnie")]
    pub flavor: Flavor,
    /// Directory to test in (a work directory is made in it and removed at the end).
    #[arg(short = 'd', default_value = ".", value_name = "DIR")]
    pub dir: PathBuf,
    /// File size in MiB (suffix g or t); bonnie++: SIZE[:CHUNK[:SEEKS[:SEEKERS]]]. Default: twice RAM, at least 300 MiB (bonnie++'s rule); 100 is Chen & Patterson's setting. 0 (bonnie++): no big-file tests.
    #[arg(short = 's', value_name = "SIZE", allow_hyphen_values = true)]
    pub size: Option<String>,
    /// bonnie++: the small-file tests, NUM[:MAX[:MIN[:DIRS[:CHUNK]]]] (NUM × 1024 files; MAX -1 hard links, -2 symbolic links).
    #[arg(short = 'n', value_name = "NUM", allow_hyphen_values = true)]
    pub files: Option<String>,
    /// Machine name in the report (default: none for Bonnie, this machine's name for bonnie++).
    #[arg(short = 'm', value_name = "NAME")]
    pub machine: Option<String>,
    /// RAM in MiB for the file-size rule (0: no check). Default: this machine's RAM.
    #[arg(short = 'r', value_name = "MiB")]
    pub ram: Option<u64>,
    /// bonnie++: copies run at once, each on its own file and directory (1 to 200); rates are their sum.
    #[arg(short = 'c', value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=200))]
    pub concurrency: u32,
    /// Run N times and print only CSV lines (a header line first when N > 1).
    #[arg(short = 'x', value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10000))]
    pub runs: Option<u32>,
    /// bonnie++'s quiet mode: no progress lines; the text report goes to stderr, the CSV line alone to stdout.
    #[arg(short = 'q')]
    pub quiet: bool,
    /// bonnie++: fsync after every write, and the directory after every create and delete.
    #[arg(short = 'b')]
    pub sync_writes: bool,
    /// O_DIRECT for the block write, as bonnie++ 2.00a's -D (the rewrite, the reads and the seeks go through the page cache).
    #[arg(short = 'D', long = "direct")]
    pub direct: bool,
    /// bonnie++: MiB for the per-char tests (default 3); -f alone skips them. Attach the number: -f3.
    #[arg(short = 'f', value_name = "MiB", num_args = 0..=1, require_equals = false, default_missing_value = "0")]
    pub byte_io: Option<u64>,
    /// Seed of the random numbers (glibc's srand/rand). Default: pid XOR time, printed in the CSV and JSON.
    #[arg(short = 'z', value_name = "SEED")]
    pub seed: Option<u32>,
    /// Take the random numbers from FILE instead (4-byte big-endian integers, used in turn).
    #[arg(short = 'Z', value_name = "FILE", conflicts_with = "seed")]
    pub seed_file: Option<PathBuf>,
    /// Run as USER[:GROUP] (root only; bonnie++'s -u). The directory must be writable by that user.
    #[arg(short = 'u', value_name = "USER[:GROUP]")]
    pub user: Option<String>,
    /// Bonnie: print the result as an HTML table row (Bonnie's -html) instead of the table.
    #[arg(long)]
    pub html: bool,
    /// I/O engine ('iogauge engines' describes each).
    #[arg(long, value_name = "NAME", value_parser = Choice::parse)]
    pub engine: Option<Choice>,
    /// Write the result as JSON to PATH ('-' for stdout; the reports then go to stderr).
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// Write iogauge's CSV to PATH (one row per op kind; bonnie++'s own CSV line is printed on stdout).
    #[arg(long, value_name = "PATH")]
    pub csv: Option<PathBuf>,
    #[command(flatten)]
    pub repeat: super::common::RepeatArgs,
    #[command(flatten)]
    pub hist: common::LogHistArgs,
}

impl super::Cmd for Args {
    const DEFAULT_ENGINE: Option<&'static str> = Some("sync");
    fn main(self) -> Result<Status> {
        main(self)
    }
    fn output(&self) -> Option<OutputArgs> {
        Some(self.out())
    }
}

/// Flags of bonnie++ that the original Bonnie does not have.
fn pp_only(a: &Args) -> Option<&'static str> {
    [
        (a.files.is_some(), "-n"),
        (a.concurrency != 1, "-c"),
        (a.quiet, "-q"),
        (a.sync_writes, "-b"),
        (a.byte_io.is_some(), "-f"),
        (a.seed_file.is_some(), "-Z"),
        (a.user.is_some(), "-u"),
    ]
    .into_iter()
    .find(|(given, _)| *given)
    .map(|(_, f)| f)
}

impl Args {
    fn options(&self) -> Result<Options> {
        let pp = self.flavor.is_pp();
        if !pp && let Some(f) = pp_only(self) {
            crate::usage!("{f} is bonnie++'s: add --flavor bonnie++");
        }
        if pp && self.html {
            crate::usage!(
                "--html is the original Bonnie's (bonnie++ users render its CSV with bon_csv2html)"
            );
        }
        let ram = self.ram.unwrap_or(crate::env::mem_total() / bonnie::MIB);
        let mut o = Options::new(self.flavor, &self.dir, ram);
        if !pp {
            o.machine = String::new();
        }
        if let Some(s) = &self.size {
            let bonnie::SizeSpec {
                size,
                chunk,
                seeks,
                seekers,
            } = bonnie::parse_size_spec(s).map_err(crate::error::UsageError)?;
            if !pp && (chunk.is_some() || seeks.is_some() || seekers.is_some()) {
                crate::usage!(
                    "-s {s}: Bonnie's -s is a size in MiB; chunk, seeks and seekers are bonnie++'s (--flavor bonnie++)"
                );
            }
            o.size_mib = size;
            o.chunk = chunk.unwrap_or(o.chunk);
            o.seeks = seeks.unwrap_or(o.seeks);
            o.seekers = seekers.unwrap_or(o.seekers);
            if !pp {
                o.byte_io_mib = size;
            }
        }
        if let Some(n) = &self.files {
            o.files = bonnie::parse_file_tests(n).map_err(crate::error::UsageError)?;
        }
        if let Some(m) = &self.machine {
            o.machine = m.clone();
        }
        if let Some(f) = self.byte_io {
            o.byte_io_mib = f;
        }
        o.concurrency = self.concurrency;
        o.html = self.html;
        o.runs = self.runs;
        o.sync_writes = self.sync_writes;
        o.direct = self.direct;
        o.engine = self.engine.unwrap_or(Choice::SYNC);
        if let Some(z) = self.seed {
            o.seed = Seed::Num(z);
        }
        if let Some(p) = &self.seed_file {
            o.seed = Seed::from_file(p).map_err(crate::error::UsageError)?;
        }
        o.check().map_err(crate::error::UsageError)?;
        crate::engine::EngineSpec::new(o.engine)
            .direct(o.direct)
            .check()
            .map_err(crate::error::UsageError)?;
        Ok(o)
    }

    fn out(&self) -> OutputArgs {
        OutputArgs {
            json: self.json.clone(),
            csv: self.csv.clone(),
            fio: None,
            fio_json: None,
            quiet: false,
            repeat: self.repeat.clone(),
            live: Default::default(),
            hist: self.hist.clone(),
        }
    }
}

/// Progress lines on stderr, as the programs print them.
struct Stderr;
impl Progress for Stderr {
    fn say(&self, text: &str) {
        eprint!("{text}");
    }
}

pub fn main(a: Args) -> Result<Status> {
    let out = a.out();
    let mut paths = super::common::Paths::new();
    if let Some(z) = &a.seed_file {
        paths.input(format!("-Z {}", z.display()), z);
    }
    out.check_with(&mut paths)?;
    let o = a.options()?;
    if let Some(u) = &a.user {
        switch_user(u)?;
    }
    let tell: &dyn Progress = if a.quiet { &NoProgress } else { &Stderr };
    // with a result on stdout, every report goes to stderr
    let to_stdout = !out.result_on_stdout();
    let text = |s: &str, quiet_goes_to_stderr: bool| {
        if to_stdout && !(quiet_goes_to_stderr && a.quiet) {
            print!("{s}");
        } else {
            eprint!("{s}");
        }
    };
    let runs = a.runs.unwrap_or(1);
    if a.runs.is_some_and(|n| n > 1) && o.flavor.is_pp() {
        text(&format!("{}\n", report::csv_header()), false);
    }
    let mut entries = Vec::new();
    let mut last: Option<RunResult> = None;
    for i in 0..runs {
        let (r, _) = bonnie::run(&o, tell)?;
        let complete = r.complete;
        let (report, csv) = match printed(&r) {
            Ok(p) => p,
            Err(e) => {
                out.write(&r)?;
                return Err(e.context("rendering the report"));
            }
        };
        text(&report, true);
        text(&csv, false);
        text(&crate::report::warn::render(&r), true);
        if a.runs.is_some() {
            entries.push(Entry {
                name: format!("run {}", i + 1),
                figure: None,
                unit: None,
                note: None,
                result: r.clone(),
            });
        }
        last = Some(r);
        if runs > 1 {
            // rewritten after each run: an interrupted series keeps its runs
            out.write_files(&runs_doc(&entries))?;
        }
        if !complete {
            break;
        }
    }
    let last = last.expect("at least one run");
    if runs > 1 {
        out.write(&runs_doc(&entries))?;
    } else {
        out.write(&last)?;
    }
    common::status_of(&out, &last)
}

/// What the command prints of a run, rendered from its result as `iogauge
/// show` renders it: the text report and bonnie++'s CSV line.
fn printed(r: &RunResult) -> Result<(String, String)> {
    let o: Options = serde_json::from_value(r.config.clone())
        .context("its config is not a bonnie configuration")?;
    let f: Figures = r
        .figures()
        .context("its metrics are not bonnie's figures")?;
    Ok(details::printed(&o, &f, r))
}

/// The runs of `-x N` as one document.
fn runs_doc(entries: &[Entry]) -> Collection {
    let mut c = Collection::new("iogauge/bonnie-runs/v1", entries.to_vec());
    if let Some(first) = entries.first() {
        c.started_at = first.result.started_at.clone();
    }
    c
}

/// bonnie++'s -u: as root, become USER (and GROUP); as anyone else, only
/// oneself is accepted.
fn switch_user(spec: &str) -> Result<()> {
    let (user, group) = match spec.split_once(':') {
        Some((u, g)) => (u, Some(g)),
        None => (spec, None),
    };
    let lookup_user = |u: &str| -> Result<(u32, u32)> {
        if let Ok(n) = u.parse::<u32>() {
            return Ok((n, n));
        }
        let name = std::ffi::CString::new(u)
            .map_err(|_| crate::error::UsageError::new(format!("-u {spec}: a bad user name")))?;
        // SAFETY: getpwnam reads a NUL-terminated name and returns a
        // pointer into static storage (or null), read at once.
        let pw = unsafe { libc::getpwnam(name.as_ptr()) };
        if pw.is_null() {
            crate::usage!("-u {spec}: there is no user '{u}'");
        }
        // SAFETY: pw is a valid passwd entry (checked non-null above).
        Ok(unsafe { ((*pw).pw_uid, (*pw).pw_gid) })
    };
    let (uid, mut gid) = lookup_user(user)?;
    if let Some(g) = group {
        gid = match g.parse::<u32>() {
            Ok(n) => n,
            Err(_) => {
                let name = std::ffi::CString::new(g).map_err(|_| {
                    crate::error::UsageError::new(format!("-u {spec}: a bad group name"))
                })?;
                // SAFETY: as getpwnam above.
                let gr = unsafe { libc::getgrnam(name.as_ptr()) };
                if gr.is_null() {
                    crate::usage!("-u {spec}: there is no group '{g}'");
                }
                // SAFETY: gr is a valid group entry (checked non-null above).
                unsafe { (*gr).gr_gid }
            }
        };
    }
    // SAFETY: geteuid has no preconditions.
    let euid = unsafe { libc::geteuid() };
    if euid != 0 {
        if uid != euid {
            crate::usage!("-u {spec}: only root can run as another user");
        }
        return Ok(());
    }
    // SAFETY: plain system calls; glibc applies them to every thread.
    let ok = unsafe {
        libc::setgroups(0, std::ptr::null()) == 0
            && libc::setgid(gid) == 0
            && libc::setuid(uid) == 0
    };
    if !ok {
        anyhow::bail!(
            "-u {spec}: cannot become uid {uid}, gid {gid}: {}",
            std::io::Error::last_os_error()
        );
    }
    eprintln!("Using uid:{uid}, gid:{gid}.");
    Ok(())
}
