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
    DiskUtil, FioJobReport, disk, exporter, json as fio_json, text as fio_text,
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

/// fio's job files (and fio's --name=… --rw=… command-line form), read as fio reads them: sections, [global], include, ${ENV}, $ncpus, size and time suffixes, expressions, stonewall, new_group, wait_for, numjobs. Every fio option iogauge does not run is named with its file:line and refused (or listed, with --ignore-unsupported).
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Read the jobs, print each one resolved (every option, its value and where it came from) and stop. fio's --parse-only prints nothing; this one shows the parse.
    #[arg(long = "parse-only")]
    pub parse_only: bool,
    /// fio's output formats, comma-separated: normal, json, json+, terse.
    #[arg(long = "output-format", value_name = "FORMAT", default_value = "normal", value_parser = output_formats)]
    pub output_format: Vec<OutputFormat>,
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

fn output_format(s: &str) -> Result<OutputFormat, String> {
    match s.trim() {
        "normal" => Ok(OutputFormat::Normal),
        "json" => Ok(OutputFormat::Json),
        "json+" => Ok(OutputFormat::JsonPlus),
        "terse" => Ok(OutputFormat::Terse),
        t => Err(format!(
            "'{}' is not an output format (normal, json, json+, terse)",
            shown(t)
        )),
    }
}

/// `--output-format`'s list; clap collects one value per flag, and each
/// value may hold several, comma-separated.
fn output_formats(s: &str) -> Result<OutputFormat, String> {
    // the first of the list here; `split` reads the others again
    let mut it = s.split(',');
    let first = output_format(it.next().unwrap_or(""))?;
    for f in it {
        output_format(f)?;
    }
    Ok(first)
}

/// The trailing arguments sorted: iogauge's flags, the job files, fio's
/// options (each with its position, `--opt value` joined as `--opt=value`
/// for options iogauge takes).
#[derive(Debug, Default, PartialEq)]
pub struct Split {
    pub files: Vec<PathBuf>,
    pub options: Vec<(usize, String)>,
    pub parse_only: bool,
    pub ignore_unsupported: bool,
    pub output_format: Vec<OutputFormat>,
    pub output: Option<PathBuf>,
    pub sections: Vec<String>,
    pub json: Option<PathBuf>,
    pub allow_write: bool,
    pub allow_destroy: bool,
    pub force: bool,
    pub keep_files: bool,
    pub check: bool,
}

/// Sort `rest` (its first word at position `first`) as fio's getopt does.
pub fn split(rest: &[String], first: usize) -> Result<Split, String> {
    let mut s = Split::default();
    let mut i = 0;
    while i < rest.len() {
        let pos = first + i;
        let a = &rest[i];
        i += 1;
        let Some(body) = a.strip_prefix("--") else {
            if a.is_empty() {
                return Err(format!("argument {pos} is empty; a job file is needed"));
            }
            s.files.push(PathBuf::from(a));
            continue;
        };
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        let mut value = |what: &str| -> Result<String, String> {
            match &inline {
                Some(v) => Ok(v.clone()),
                None if i < rest.len() => {
                    i += 1;
                    Ok(rest[i - 1].clone())
                }
                None => Err(format!("--{name} needs {what}")),
            }
        };
        match name {
            "parse-only" | "ignore-unsupported" | "allow-write" | "allow-destroy" | "force"
            | "keep-files" | "check"
                if inline.is_some() =>
            {
                return Err(format!("--{name} takes no value"));
            }
            "parse-only" => s.parse_only = true,
            "ignore-unsupported" => s.ignore_unsupported = true,
            "allow-write" => s.allow_write = true,
            "allow-destroy" => s.allow_destroy = true,
            "force" => s.force = true,
            "keep-files" => s.keep_files = true,
            "check" => s.check = true,
            "output-format" => {
                for f in value("a format (normal, json, json+, terse)")?.split(',') {
                    s.output_format.push(output_format(f)?);
                }
            }
            "output" => s.output = Some(PathBuf::from(value("a file")?)),
            "section" => s.sections.push(value("a job name")?),
            "json" => s.json = Some(PathBuf::from(value("a path")?)),
            _ => {
                // `--opt value`: only for options iogauge takes, that are
                // no flags; others need `--opt=value`
                let joined = match inline {
                    None if job::canonical(name).is_some()
                        && !job::is_flag(name)
                        && i < rest.len()
                        && !rest[i].starts_with("--") =>
                    {
                        i += 1;
                        format!("--{name}={}", rest[i - 1])
                    }
                    _ => a.clone(),
                };
                s.options.push((pos, joined));
            }
        }
    }
    Ok(s)
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
    s.parse_only |= a.parse_only;
    s.ignore_unsupported |= a.ignore_unsupported;
    s.sections.extend(a.section);
    let formats: Vec<OutputFormat> = if s.output_format.is_empty() {
        a.output_format
    } else {
        s.output_format.clone()
    };
    let output = s.output.clone().or(a.output);
    let json = s.json.clone().or(a.json);
    if s.files.is_empty() && s.options.is_empty() {
        crate::usage!("no jobs: name a job file or give fio options (--name=job --rw=read …)");
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
    if parsed.jobs.is_empty() {
        crate::usage!("no jobs to run: the job files define none (or --section chose none)");
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
        };
        return run_jobs(&parsed, allow, &how);
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

/// Where and how the run's reports go.
struct How<'a> {
    formats: &'a [OutputFormat],
    output: Option<&'a Path>,
    json: Option<&'a Path>,
    keep_files: bool,
    /// Only plan the jobs (`--check`).
    check: bool,
}

/// Run the jobs stage by stage and report as fio does.
fn run_jobs(parsed: &Parsed, allow: Allow, how: &How) -> Result<Status> {
    if how.formats.contains(&OutputFormat::Terse) {
        crate::usage!(
            "--output-format=terse is not supported: give normal, json or json+ (iogauge's own result: --json)"
        );
    }
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
    for n in &plan.notes {
        eprintln!("iogauge: note: {n}");
    }
    for ig in &parsed.ignored {
        eprintln!(
            "iogauge: note: {}: {} is not supported by iogauge; the job runs without it (--ignore-unsupported)",
            ig.at, ig.option
        );
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
    let bar = super::progress::Bar::new(
        "fio",
        None,
        None,
        std::io::IsTerminal::is_terminal(&std::io::stderr()),
    );
    let progress = super::progress::sink(&bar);
    let mut done: Vec<(Vec<JobPlan>, StageOutcome)> = Vec::new();
    let mut failure: Option<anyhow::Error> = None;
    let mut watched = None;
    match run::make_files(&plan, &mut made, progress) {
        Err(e) => failure = Some(e),
        Ok(()) => {
            // the device's counts from after the layout, as fio's
            watched = plan.files.first().and_then(|f| match &f.origin {
                Origin::Device(d) => disk::Watch::start(&d.path),
                _ => disk::Watch::start(crate::runner::names::dir_of(&f.path)),
            });
            for stage in &plan.stages {
                if crate::runner::signals::interrupted() {
                    break;
                }
                match run::run_stage(&plan, stage, progress) {
                    Ok(so) => {
                        let stop = so.outcome.error.is_some() || so.outcome.interrupted;
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
                        out.push(head_of(p));
                        merged.push((p.job.group, out.len() - 1, vec![(stats, span)]));
                    }
                }
                continue;
            }
            let mut r = head_of(p).from_stats(&stats, 1, dur(span.runtime_ns), &cpu_of(&[span]));
            phase_runtimes(&mut r, &[span]);
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
            c.push(Entry::new(name, r));
        }
    }
    if let Some(e) = failure {
        c.complete = false;
        c.error = Some(crate::error::cause(e));
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_trailing_words_are_sorted_as_getopt_would() {
        let s = split(
            &v(&[
                "a.fio",
                "--rw",
                "randread",
                "--parse-only",
                "--output-format=json,normal",
                "--section",
                "x",
                "--time_based",
                "b.fio",
                "--hipri",
                "c.fio",
                "--json=-",
            ]),
            2,
        )
        .unwrap();
        assert_eq!(
            s.files,
            vec![PathBuf::from("a.fio"), "b.fio".into(), "c.fio".into()]
        );
        assert_eq!(
            s.options,
            vec![
                (3, "--rw=randread".to_string()),
                (9, "--time_based".to_string()),
                (11, "--hipri".to_string())
            ]
        );
        assert!(s.parse_only);
        assert_eq!(
            s.output_format,
            vec![OutputFormat::Json, OutputFormat::Normal]
        );
        assert_eq!(s.sections, vec!["x"]);
        assert_eq!(s.json, Some(PathBuf::from("-")));
        assert!(split(&v(&["--output-format=xml"]), 1).is_err());
        assert!(split(&v(&["--section"]), 1).is_err());
        assert!(split(&v(&["--parse-only=1"]), 1).is_err());
    }
}
