//! `iogauge fio [OPTIONS] [JOBFILE…] [--option=value …]`: fio's job files
//! and command-line jobs.
//!
//! clap takes iogauge's own flags and leaves everything else, job files
//! and fio's `--option=value` words alike, in one trailing list, which
//! [`split`] sorts as fio's getopt would (flags may come anywhere; words
//! without `--` are job files).

use super::common::Status;
use crate::error::{UsageError, shown, shown_path};
use crate::measure::{CpuTimes, Outcome, WorkerStats};
use crate::report::fio::{
    DiskUtil, FioJobReport, disk, exporter, json as fio_json, terse as fio_terse, text as fio_text,
};
use crate::report::{Collection, Entry, RunResult};
use crate::suites::fio::job::{self, Place};
use crate::suites::fio::jobfile::{self, Machine, Parsed, Settings};
use crate::suites::fio::plan::{self, Allow, JobPlan, Origin, Plan};
use crate::suites::fio::run::{self, Made, Span, StageOutcome};
use crate::verify::track::Section;
use anyhow::{Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

mod args;
mod eta;
use args::{Eta, Info, split};

/// fio's job files (and fio's --name=… --rw=… command-line form), read as fio reads them: sections, [global], include, ${ENV}, $ncpus, size and time suffixes, expressions, stonewall, new_group, wait_for, numjobs. Every fio option iogauge does not run is named with its file:line and refused (or listed, with --ignore-unsupported).
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Read the jobs, print each one resolved (every option, its value and where it came from) and stop. fio's --parse-only prints nothing; this one shows the parse.
    #[arg(long = "parse-only")]
    pub parse_only: bool,
    /// fio's output formats, comma-separated: normal, json, json+, terse.
    #[arg(long = "output-format", value_name = "FORMAT", default_value = "normal", value_parser = output_formats)]
    pub output_format: Vec<String>,
    /// Write the report to FILE instead of standard output (fio's --output).
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Run only the job NAME of the job files (repeat for more; global sections are always read).
    #[arg(long, value_name = "NAME")]
    pub section: Vec<String>,
    /// List the fio options iogauge does not support (with their file:line) and go on without them, instead of refusing the jobs.
    #[arg(long = "ignore-unsupported")]
    pub ignore_unsupported: bool,
    /// Let jobs write to regular files that exist already (a job's `filename=` of yours); without it such a job is refused. iogauge never extends, truncates or removes a file it did not create.
    #[arg(long = "allow-write")]
    pub allow_write: bool,
    /// Let jobs write to the block devices they name (`filename=/dev/…`), destroying what they hold.
    #[arg(long = "allow-destroy")]
    pub allow_destroy: bool,
    /// Write to a device even when it is mounted, in use or holds a file system or partition table.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub check: super::common::CheckArgs,
    /// Keep the files the jobs created (fio keeps them; iogauge removes them by default).
    #[arg(long = "keep-files")]
    pub keep_files: bool,
    /// Write iogauge's own result as JSON to PATH; with --parse-only, the resolved jobs.
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// Job files, then fio options as --option=value (each --name=NAME starts a job; the options before the first --name are global).
    #[arg(
        value_name = "JOBFILE|--option=value",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub rest: Vec<String>,
}

/// One of fio's `--output-format`s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum OutputFormat {
    #[serde(rename = "normal")]
    Normal,
    #[serde(rename = "json")]
    Json,
    #[serde(rename = "json+")]
    JsonPlus,
    #[serde(rename = "terse")]
    Terse,
}

/// `--output-format`'s list, checked; clap collects one value per flag,
/// and each value may hold several, comma-separated (`main` reads them).
fn output_formats(s: &str) -> Result<String, String> {
    for f in s.split(',') {
        args::output_format(f)?;
    }
    Ok(s.to_string())
}

impl super::Cmd for Args {
    fn main(self) -> Result<Status> {
        main(self)
    }
}

fn main(a: Args) -> Result<Status> {
    // the words clap took as its own flags come first on the command line;
    // the trailing list's position is counted after them
    // argument 1 is `fio`
    let first = std::env::args().count().saturating_sub(a.rest.len()).max(2);
    let mut s = split(&a.rest, first).map_err(UsageError::new)?;
    if let Some(info) = &s.info {
        return show_info(info);
    }
    s.parse_only |= a.parse_only;
    s.ignore_unsupported |= a.ignore_unsupported;
    if a.section.iter().any(|x| x == "global") {
        crate::usage!(
            "--section: global cannot be the only section (fio refuses it too); name a job"
        );
    }
    s.sections.extend(a.section);
    // clap's --output-format came first; one here replaces it, as fio's
    // last one does, and --append-terse adds to either
    let formats: Vec<OutputFormat> = if s.formats_reset {
        s.output_format.clone()
    } else {
        let mut f = Vec::new();
        for list in &a.output_format {
            for one in list.split(',') {
                let one = args::output_format(one).map_err(UsageError::new)?;
                if !f.contains(&one) {
                    f.push(one);
                }
            }
        }
        for one in &s.output_format {
            if !f.contains(one) {
                f.push(*one);
            }
        }
        f
    };
    let output = s.output.clone().or(a.output);
    let json = s.json.clone().or(a.json);
    if s.files.is_empty() && s.options.is_empty() {
        crate::usage!("no jobs: name a job file or give fio options (--name=job --rw=read …)");
    }
    let mut notes: Vec<String> = Vec::new();
    if let Some(kib) = s.alloc_size {
        notes.push(format!(
            "--alloc-size={kib}: iogauge's workers are threads that keep their state on the heap; there is no shared-memory pool to size"
        ));
    }
    if let Some(p) = &s.aux_path {
        if !p.is_dir() {
            crate::usage!(
                "--aux-path: {} is not a directory",
                shown(&p.display().to_string())
            );
        }
        notes.push(format!(
            "--aux-path={}: iogauge writes no state files there (fio's verify state files; verify_state_save is not supported)",
            shown(&p.display().to_string())
        ));
    }
    let env = |k: &str| std::env::var(k).ok();
    let read = |p: &std::path::Path| std::fs::read(p);
    let settings = Settings {
        sections: s.sections.clone(),
        ignore_unsupported: s.ignore_unsupported,
        env: &env,
        machine: Machine::this(),
        read: &read,
    };
    let parsed = jobfile::parse(&s.options, &s.files, &settings).map_err(UsageError::new)?;
    if s.showcmd {
        print!("{}", showcmd(&parsed));
        return Ok(Status::Done);
    }
    if parsed.jobs.is_empty() {
        crate::usage!("no jobs to run: the job files define none (or --section chose none)");
    }
    if s.readonly {
        read_only(&parsed).map_err(UsageError::new)?;
    }
    if let Some(max) = s.max_jobs
        && parsed.jobs.len() as u64 > max
    {
        crate::usage!(
            "{} jobs (numjobs clones counted) are more than --max-jobs={max}",
            parsed.jobs.len()
        );
    }
    if !s.parse_only {
        let allow = Allow {
            write: s.allow_write || a.allow_write,
            destroy: s.allow_destroy || a.allow_destroy,
            force: s.force || a.force,
        };
        let how = How {
            formats: &formats,
            output: output.as_deref(),
            json: json.as_deref(),
            keep_files: s.keep_files || a.keep_files,
            check: s.check || a.check.check,
            terse_version: s.terse_version.unwrap_or(3),
            warnings_fatal: s.warnings_fatal,
            notes,
            eta: EtaHow {
                eta: s.eta,
                interval: s.eta_interval,
                newline: s.eta_newline,
            },
        };
        return run_jobs(&parsed, allow, &how);
    }
    for n in &notes {
        eprintln!("iogauge: note: {n}");
    }
    let text = crate::suites::fio::show::parse_report(&parsed);
    match &output {
        Some(p) => std::fs::write(p, &text)
            .map_err(|e| UsageError::new(format!("{}: {e}", shown(&p.display().to_string()))))?,
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())?;
            out.flush()?;
        }
    }
    if let Some(p) = &json {
        let doc = serde_json::json!({
            "schema": "iogauge/fio-parse/v1",
            "output_format": formats,
            "jobs": parsed.jobs,
            "ignored": parsed.ignored,
        });
        let body = serde_json::to_string_pretty(&doc)? + "\n";
        if p.as_os_str() == "-" {
            print!("{body}");
        } else {
            std::fs::write(p, body).map_err(|e| {
                UsageError::new(format!("{}: {e}", shown(&p.display().to_string())))
            })?;
        }
    }
    Ok(Status::Done)
}

/// `--version`, `--help`, `--cmdhelp`, `--enghelp`: print and stop.
fn show_info(info: &Info) -> Result<Status> {
    let text = match info {
        Info::Version => format!(
            "{} (commit {})\n",
            exporter::version(),
            crate::report::COMMIT
        ),
        Info::Help => {
            let mut c = super::command();
            match c.find_subcommand_mut("fio") {
                Some(f) => f.render_long_help().to_string(),
                None => String::new(),
            }
        }
        Info::CmdHelp(name) => cmdhelp(name.as_deref()).map_err(UsageError::new)?,
        Info::EngHelp(name) => enghelp(name.as_deref()).map_err(UsageError::new)?,
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(Status::Done)
}

/// fio's `--cmdhelp`: without a name (or `all`), the job options iogauge
/// runs; with one, whether iogauge runs it.
fn cmdhelp(name: Option<&str>) -> Result<String, String> {
    match name.map(str::trim).filter(|n| !n.is_empty() && *n != "all") {
        None => {
            let mut out =
                String::from("The fio job options iogauge runs (docs/fio.md says how):\n");
            for o in job::SUPPORTED {
                out.push_str(&format!("  {o}\n"));
            }
            Ok(out)
        }
        Some(n) => match job::classify(n) {
            Ok(c) if c == n => Ok(format!("{n}: a fio job option iogauge runs\n")),
            Ok(c) => Ok(format!(
                "{n}: a fio job option iogauge runs (another name of {c})\n"
            )),
            Err(job::NotTaken::Unsupported) => Err(format!(
                "{}: a fio job option iogauge does not run (docs/fio.md lists why)",
                shown(n)
            )),
            Err(job::NotTaken::Unknown) => {
                Err(format!("{}: no fio job option of that name", shown(n)))
            }
        },
    }
}

/// fio's `--enghelp`: without a name, the engines iogauge runs; with one,
/// whether iogauge runs it and the engine options it takes for it.
fn enghelp(name: Option<&str>) -> Result<String, String> {
    let Some(n) = name.map(str::trim).filter(|n| !n.is_empty()) else {
        let mut out = String::from("The fio engines iogauge runs:\n");
        for (e, _) in job::IoEngine::ALL {
            out.push_str(&format!("  {e}\n"));
        }
        return Ok(out);
    };
    // fio's `--enghelp=ENGINE,OPTION`: the engine is before the comma
    let engine = n.split(',').next().unwrap_or(n);
    match job::IoEngine::ALL.iter().find(|(e, _)| *e == engine) {
        Some((_, e)) => {
            let own: Vec<&str> = job::ENGINE_OWN
                .iter()
                .filter(|(_, x)| x == e)
                .map(|(o, _)| *o)
                .collect();
            Ok(if own.is_empty() {
                format!("{engine}: an engine iogauge runs; it takes no options of its own\n")
            } else {
                format!(
                    "{engine}: an engine iogauge runs; its own options iogauge takes: {}\n",
                    own.join(", ")
                )
            })
        }
        None if crate::suites::fio::names::ENGINES.contains(&engine) => Err(format!(
            "{}: a fio engine iogauge does not run (it runs {})",
            shown(engine),
            job::IoEngine::ALL.map(|(e, _)| e).join(", ")
        )),
        None => Err(format!("{}: no fio engine of that name", shown(engine))),
    }
}

/// fio's `--showcmd`: each job file as one command line (`fio`, then each
/// section's `--name=` and options as written; a global section's options
/// without a name). Jobs given on the command line are one already, and
/// fio prints nothing for them.
fn showcmd(parsed: &Parsed) -> String {
    let mut out = String::new();
    for (_, sections) in &parsed.files {
        let mut first = true;
        for (name, opts) in sections {
            if first {
                out.push_str("fio ");
                first = false;
            }
            if let Some(n) = name {
                out.push_str(&format!("--name={n} "));
            }
            for o in opts {
                match o.split_once('=') {
                    Some((k, v)) if k.trim() == "description" => {
                        out.push_str(&format!("--{}=\"{}\" ", k.trim(), v.trim()))
                    }
                    Some((k, v)) => out.push_str(&format!("--{}={} ", k.trim(), v.trim())),
                    None => out.push_str(&format!("--{} ", o.trim())),
                }
            }
        }
        out.push('\n');
    }
    out
}

/// fio's `--readonly`: a job that writes or trims is refused, as fio
/// refuses it while it reads the job.
fn read_only(parsed: &Parsed) -> Result<(), String> {
    use crate::suites::fio::job::RwKind;
    for j in &parsed.jobs {
        if !matches!(j.rw.kind, RwKind::Read | RwKind::RandRead) {
            let at = j.origin.get("rw").map_or(&j.at, |o| &o.0);
            return Err(format!(
                "{at}: job <{}> has write or trim bit set (rw={}), but --readonly is given (fio refuses it too)",
                j.name,
                j.rw.kind.name()
            ));
        }
    }
    Ok(())
}

/// Where and how the run's reports go.
struct How<'a> {
    formats: &'a [OutputFormat],
    output: Option<&'a Path>,
    json: Option<&'a Path>,
    keep_files: bool,
    /// Only plan the jobs (`--check`).
    check: bool,
    /// fio's `--terse-version`.
    terse_version: u8,
    /// Notes stop the run (`--warnings-fatal`).
    warnings_fatal: bool,
    /// Notes from the command line, printed with the plan's.
    notes: Vec<String>,
    eta: EtaHow,
}

/// `--eta`, `--eta-interval`, `--eta-newline`.
struct EtaHow {
    eta: Eta,
    interval: Option<std::time::Duration>,
    newline: Option<std::time::Duration>,
}

/// Run the jobs stage by stage and report as fio does.
fn run_jobs(parsed: &Parsed, allow: Allow, how: &How) -> Result<Status> {
    let plan = plan::plan(&parsed.jobs, allow).map_err(UsageError::new)?;
    if how.check {
        let jobs: usize = plan.stages.iter().map(Vec::len).sum();
        return Ok(super::common::checked(&format!(
            "{jobs} job{} in {} stage{}",
            if jobs == 1 { "" } else { "s" },
            plan.stages.len(),
            if plan.stages.len() == 1 { "" } else { "s" }
        )));
    }
    let notes: Vec<String> = how
        .notes
        .iter()
        .cloned()
        .chain(plan.notes.iter().cloned())
        .chain(parsed.ignored.iter().map(|ig| {
            format!(
                "{}: {} is not supported by iogauge; the job runs without it (--ignore-unsupported)",
                ig.at, ig.option
            )
        }))
        .collect();
    if how.warnings_fatal
        && let Some(n) = notes.first()
    {
        crate::usage!("{n} (--warnings-fatal: a note stops the run)");
    }
    for n in &notes {
        eprintln!("iogauge: note: {n}");
    }
    let normal = how.formats.contains(&OutputFormat::Normal);
    let mut text = String::new();
    if normal {
        let heads: Vec<FioJobReport> = plan
            .stages
            .iter()
            .flatten()
            .filter(|p| p.job.clone == 0)
            .map(|p| {
                let mut r = head_of(p);
                r.members = p.job.numjobs.max(1);
                r
            })
            .collect();
        text.push_str(&fio_text::header(&heads, &exporter::version()));
        text.push_str(&layout_lines(&plan));
        if how.output.is_none() {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())?;
            out.flush()?;
            text.clear();
        }
    }
    let started = crate::report::now_rfc3339();
    let mut made = Made {
        paths: Vec::new(),
        keep: how.keep_files,
    };
    let shows = eta::Shows::of(how.eta.eta, how.eta.interval, how.eta.newline);
    let (bar, lines) = match shows {
        eta::Shows::Bar => (super::progress::Bar::new("fio", None, None, true), None),
        eta::Shows::Lines(l) => (None, Some(l)),
        eta::Shows::Nothing => (None, None),
    };
    let progress: &dyn crate::runner::Progress = match &lines {
        Some(l) => l,
        None => super::progress::sink(&bar),
    };
    let mut done: Vec<(Vec<JobPlan>, StageOutcome)> = Vec::new();
    let mut failure: Option<anyhow::Error> = None;
    let mut watched = None;
    match run::make_files(&plan, &mut made, progress) {
        Err(e) => failure = Some(e),
        Ok(()) => {
            // the device's counts from after the layout, as fio's; the
            // null engine does no disk I/O (fio's FIO_DISKLESSIO): none
            let diskless = plan
                .stages
                .iter()
                .flatten()
                .all(|p| p.job.ioengine == job::IoEngine::Null);
            watched = plan
                .files
                .first()
                .filter(|_| !diskless)
                .and_then(|f| match &f.origin {
                    Origin::Device(d) => disk::Watch::start(&d.path),
                    _ => disk::Watch::start(crate::runner::names::dir_of(&f.path)),
                });
            for stage in &plan.stages {
                if crate::runner::signals::interrupted() {
                    break;
                }
                match run::run_stage(&plan, stage, progress) {
                    Ok(so) => {
                        let stop =
                            so.outcome.error.is_some() || so.outcome.interrupted || so.ended_all;
                        done.push((stage.clone(), so));
                        if stop {
                            break;
                        }
                    }
                    Err(e) => {
                        failure = Some(e);
                        break;
                    }
                }
            }
        }
    }
    drop(bar);
    drop(lines);
    let disks: Vec<DiskUtil> = watched.and_then(|w| w.finish()).into_iter().collect();
    let reports = reports_of(&done);
    let logs: Vec<crate::runner::iolog::IoLog> = done
        .iter_mut()
        .flat_map(|(_, so)| std::mem::take(&mut so.logs))
        .collect();
    let written = crate::runner::iolog::write(&logs)?;
    let verified = verify_text(&done);
    for (_, so) in &done {
        for v in so.verify.iter().flatten() {
            for l in &v.lines {
                eprintln!("{l}");
            }
        }
    }
    // fio writes the terse lines before its other formats
    if how.formats.contains(&OutputFormat::Terse) {
        text.push_str(&fio_terse::render(
            &reports,
            &disks,
            &exporter::version(),
            how.terse_version,
        ));
    }
    for f in how.formats {
        match f {
            OutputFormat::Normal => {
                text.push_str(&fio_text::render(&reports, &disks));
                if let Some((v, _)) = &verified {
                    text.push_str(v);
                }
            }
            OutputFormat::Json | OutputFormat::JsonPlus => {
                let v = exporter::version();
                let doc = fio_json::Doc {
                    version: &v,
                    plus: *f == OutputFormat::JsonPlus,
                    disks: &disks,
                    ..Default::default()
                };
                text.push_str(&fio_json::render(&reports, &doc));
            }
            OutputFormat::Terse => {}
        }
    }
    match how.output {
        Some(p) => {
            std::fs::write(p, &text).with_context(|| format!("cannot write {}", shown_path(p)))?
        }
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())?;
            out.flush()?;
        }
    }
    if let Some(p) = how.json {
        let mut doc = collection(&plan, &done, &started, failure.as_ref());
        if !written.is_empty() {
            doc.set("io_logs", &written);
        }
        crate::report::write_json(p, &doc)?;
    }
    drop(made);
    // wrong data outranks every other ending
    if let Some((_, v)) = &verified
        && v.mismatches > 0
    {
        eprintln!(
            "iogauge: verify found {} unit(s) that do not hold what was written{}",
            v.mismatches,
            if v.stopped_at_first {
                " (stopped at the first, verify_fatal)"
            } else {
                ""
            }
        );
        return Ok(Status::Mismatch);
    }
    if let Some(e) = failure {
        return Err(e);
    }
    let interrupted =
        done.iter().any(|(_, so)| so.outcome.interrupted) || crate::runner::signals::interrupted();
    if interrupted {
        return Ok(Status::Interrupted);
    }
    if let Some(e) = done.iter().find_map(|(_, so)| so.outcome.error.as_ref()) {
        eprintln!("iogauge: {}", crate::error::cause(e));
        return Ok(Status::Failed);
    }
    Ok(Status::Done)
}

/// fio's line for each job whose files the run makes first (as fio
/// extends files that are missing or short): `NAME: Laying out IO file (1
/// file / 64MiB)`.
fn layout_lines(plan: &Plan) -> String {
    let mut seen = std::collections::HashSet::new();
    let mut out = String::new();
    for p in plan.stages.iter().flatten() {
        let (mut n, mut bytes) = (0u32, 0u64);
        for r in &p.regions {
            let f = &plan.files[r.file];
            if matches!(f.origin, Origin::Create) && seen.insert(r.file) {
                n += 1;
                bytes += f.size;
            }
        }
        if n > 0 {
            let many = n > 1;
            out.push_str(&format!(
                "{}: Laying out IO file{} ({n} file{} / {}{}MiB)\n",
                p.job.name,
                if many { "s" } else { "" },
                if many { "s" } else { "" },
                if many { "total " } else { "" },
                bytes >> 20
            ));
        }
    }
    out
}

/// A job's report before figures: its name, group, pattern, engine, depth
/// and block sizes.
fn head_of(p: &JobPlan) -> FioJobReport {
    let j = &p.job;
    let mut r = FioJobReport::new(
        &j.name,
        j.group,
        &plan::rw_text(j),
        j.ioengine.name(),
        j.iodepth,
    );
    r.bs = plan::bs_pairs(p);
    r.description = j.description.clone();
    r.opts = j.report_opts();
    let mut opts: Vec<(&Place, &str, &String)> =
        j.origin.iter().map(|(k, (at, v))| (at, *k, v)).collect();
    opts.sort_by(|a, b| (&a.0.file, a.0.line).cmp(&(&b.0.file, b.0.line)));
    // each option as given, by the name it was given under (an option set
    // by another, as rwmixwrite by rwmixread, is not listed again)
    r.options = opts
        .into_iter()
        .filter_map(|(_, k, text)| {
            let (name, value) = text.split_once('=').unwrap_or((text.as_str(), ""));
            (job::canonical(name.trim()) == Some(k))
                .then(|| (name.trim().to_string(), value.trim().to_string()))
        })
        .collect();
    r
}

/// A reporting group merged: its id, its report's index, its members.
type Merged = (u32, usize, Vec<(WorkerStats, Span)>);

/// One report per job, or per reporting group where a job of the group
/// asked for `group_reporting`.
fn reports_of(done: &[(Vec<JobPlan>, StageOutcome)]) -> Vec<FioJobReport> {
    let mut out: Vec<FioJobReport> = Vec::new();
    // (group, report index, members so far) of merged groups
    let mut merged: Vec<Merged> = Vec::new();
    let grouped: std::collections::BTreeSet<u32> = done
        .iter()
        .flat_map(|(s, _)| s.iter())
        .filter(|p| p.job.group_reporting)
        .map(|p| p.job.group)
        .collect();
    for (stage, so) in done {
        let o = &so.outcome;
        for (i, p) in stage.iter().enumerate() {
            let (stats, span) = job_of(so, i);
            if grouped.contains(&p.job.group) {
                match merged.iter_mut().find(|m| m.0 == p.job.group) {
                    Some(m) => m.2.push((stats, span)),
                    None => {
                        let mut head = head_of(p);
                        head.steadystate = so.steady.clone();
                        out.push(head);
                        merged.push((p.job.group, out.len() - 1, vec![(stats, span)]));
                    }
                }
                continue;
            }
            let mut r = head_of(p).from_stats(&stats, 1, dur(span.runtime_ns), &cpu_of(&[span]));
            phase_runtimes(&mut r, &[span]);
            r.steadystate = so.steady.clone();
            if let Some(Some(why)) = o.failures.get(i) {
                r.error = o
                    .error
                    .as_ref()
                    .map_or(libc::EIO, crate::report::fio::errno_of);
                r.error_text = Some(why.clone());
            }
            out.push(r);
        }
    }
    for (_, at, members) in merged {
        let mut st = WorkerStats::default();
        for (s, _) in &members {
            st.merge(s);
        }
        let spans: Vec<Span> = members.iter().map(|m| m.1).collect();
        let runtime = spans.iter().map(|s| s.runtime_ns).max().unwrap_or(0);
        let head = out[at].clone();
        out[at] = head.from_stats(&st, members.len(), dur(runtime), &cpu_of(&spans));
        phase_runtimes(&mut out[at], &spans);
    }
    out
}

/// A verified job's runtimes per direction, as fio keeps them: writes
/// over its write passes, reads over its verify phases (and its write
/// passes too when it also reads there: [`Span::phases`]).
fn phase_runtimes(r: &mut FioJobReport, spans: &[Span]) {
    let Some(w) = spans.iter().filter_map(|s| s.phases).map(|p| p.0).max() else {
        return;
    };
    let v = spans
        .iter()
        .filter_map(|s| s.phases)
        .map(|p| p.1)
        .max()
        .unwrap_or(0);
    if let Some(d) = r.write.as_mut() {
        d.runtime_ms = (w / 1000).div_ceil(1000).max(1);
    }
    if let Some(d) = r.read.as_mut() {
        d.runtime_ms = (v / 1000).div_ceil(1000).max(1);
    }
}

/// The verify blocks of the run's verified jobs, and the section of all.
fn verify_text(done: &[(Vec<JobPlan>, StageOutcome)]) -> Option<(String, Section)> {
    let mut text = String::new();
    let mut all: Option<Section> = None;
    for (stage, so) in done {
        for (p, v) in stage.iter().zip(&so.verify) {
            let Some(v) = v else { continue };
            let name = if p.job.clone == 0 {
                p.job.name.clone()
            } else {
                format!("{}.{}", p.job.name, p.job.clone)
            };
            text.push_str(&v.section.render().replacen(
                "\nVerify\n",
                &format!("\nVerify ({name})\n"),
                1,
            ));
            match all.as_mut() {
                None => all = Some(v.section.clone()),
                Some(a) => a.merge(&v.section),
            }
        }
    }
    all.map(|a| (text, a))
}

/// A stage's figures of its `i`th job: its stats (the run's own when it
/// was the only worker) and its span.
fn job_of(so: &StageOutcome, i: usize) -> (WorkerStats, Span) {
    let o = &so.outcome;
    let stats = if o.per_worker.is_empty() {
        o.stats.clone()
    } else {
        o.per_worker.get(i).cloned().unwrap_or_default()
    };
    (stats, so.spans.get(i).copied().unwrap_or_default())
}

fn dur(ns: u64) -> std::time::Duration {
    std::time::Duration::from_nanos(ns)
}

fn cpu_of(spans: &[Span]) -> CpuTimes {
    CpuTimes {
        user: dur(spans.iter().map(|s| s.user_ns).sum()),
        sys: dur(spans.iter().map(|s| s.sys_ns).sum()),
        max_rss_kib: 0,
        ctx_switches: spans.iter().map(|s| s.ctx).sum(),
        major_faults: spans.iter().map(|s| s.majf).sum(),
        minor_faults: spans.iter().map(|s| s.minf).sum(),
    }
}

/// iogauge's own result: one entry per job, each a result as `run` writes.
fn collection(
    plan: &Plan,
    done: &[(Vec<JobPlan>, StageOutcome)],
    started: &str,
    failure: Option<&anyhow::Error>,
) -> Collection {
    let env = match plan.files.first().map(|f| &f.origin) {
        Some(Origin::Device(d)) => crate::env::detect_device(d),
        _ => crate::env::detect(
            plan.files
                .first()
                .and_then(|f| f.path.parent())
                .unwrap_or(Path::new(".")),
        ),
    };
    let mut c = Collection::new("iogauge/fio/v1", Vec::new());
    c.started_at = started.to_string();
    for (stage, so) in done {
        let o = &so.outcome;
        for (i, p) in stage.iter().enumerate() {
            let (stats, span) = job_of(so, i);
            let failed = o.failures.get(i).cloned().flatten();
            let one = Outcome {
                stats,
                per_worker: Vec::new(),
                workers: 1,
                worker_ns: 0,
                elapsed: dur(span.runtime_ns),
                cpu: cpu_of(&[span]),
                complete: o.complete && failed.is_none(),
                interrupted: o.interrupted,
                error: failed.as_ref().map(|w| anyhow::anyhow!("{w}")),
                extras: Vec::new(),
                failures: vec![failed],
                engine_modes: o.engine_modes.get(i).cloned().into_iter().collect(),
                pinned: o.pinned.iter().filter(|x| x.worker == i).cloned().collect(),
                machine: o.machine.clone(),
            };
            let config = serde_json::json!({
                "job": p.job,
                "engine": p.engine,
                "stage": plan.stages.iter().position(|s| s.iter().any(|q| q.index == p.index)),
                "files": p.regions.iter().map(|r| serde_json::json!({
                    "path": plan.files[r.file].path,
                    "offset": r.start,
                    "bytes": r.len,
                })).collect::<Vec<_>>(),
                "budget_bytes": p.budget,
            });
            let name = if p.job.clone == 0 {
                p.job.name.clone()
            } else {
                format!("{}.{}", p.job.name, p.job.clone)
            };
            let mut r =
                RunResult::new("fio", config, env.clone(), started.to_string()).with_outcome(&one);
            r.verify = so.verify.get(i).cloned().flatten().map(|v| v.section);
            // fio's steady-state verdict, the stage's (docs/fio.md)
            if let Some(ss) = &so.steady {
                r.metrics.insert(
                    "steadystate".into(),
                    serde_json::to_value(ss).unwrap_or_default(),
                );
            }
            c.push(Entry::new(name, r));
        }
    }
    if let Some(e) = failure {
        c.complete = false;
        c.error = Some(crate::error::cause(e));
    }
    c
}
