//! PostMark 1.53 (Katcher, NetApp): the command language, the exact run
//! procedure and the reports, all free of I/O; the executor ([`exec`])
//! that performs a [`plan::Plan`] on disk, and the interpreter ([`interp`])
//! that runs PostMark's command language on top of both.

pub mod command;
pub mod config;
pub mod exec;
pub mod interp;
pub mod mt;
pub mod plan;
pub mod report;
pub mod survey;

use crate::engine::Choice;
use crate::report::RunResult;
use config::Config;
use plan::RunSummary;
use report::ReportTimes;
use serde::{Deserialize, Serialize};

/// PostMark, typed: its plan, its figures and its report.
pub struct PostMark;

/// What a PostMark result's `config` holds: the session's variables when
/// `run` was typed, and how iogauge ran it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    /// PostMark's variables (`set report` chooses the report's format).
    #[serde(flatten)]
    pub config: Config,
    /// Independent streams (`--threads`).
    pub threads: usize,
    pub engine: Choice,
    /// The work directories the run used (removed when it ended).
    pub work_dirs: Vec<String>,
}

/// PostMark's figures: its counters over all streams, exact, and rates from
/// the nanosecond clock.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "postmarkFigures")]
pub struct Figures {
    /// Files created, read, appended to and deleted; bytes read and written.
    #[serde(flatten)]
    pub counts: Counts,
    /// Transactions asked for (`set transactions`, times the streams).
    pub transactions: i32,
    /// Transactions completed.
    pub transactions_done: i32,
    /// The run stopped with "out of files!" (PostMark prints no report then).
    pub out_of_files: bool,
    /// Times and rates, once every stream reached its end.
    #[serde(flatten)]
    pub rates: Option<Rates>,
    /// Each stream, with `--threads` above 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streams: Option<Vec<StreamFigures>>,
    /// Opens, removes, reads and writes that failed.
    pub io_errors: u64,
    /// One of them was "No space left on device" (or "Disk quota exceeded").
    pub out_of_space: bool,
    /// The bytes PostMark meant to write (B); `bytes_written` is fewer
    /// after failed writes.
    pub planned_bytes_written: u64,
    /// What PostMark's own report divides by; absent when the run was
    /// stopped before its end (PostMark prints no report then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<ReportFigures>,
}

/// PostMark's file and byte counters, exact: a run's over all its streams,
/// or one stream's.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "postmarkCounts")]
pub struct Counts {
    /// Files created, initial and during the transactions (failed opens included).
    pub files_created: i32,
    /// Files created before the transactions (`set number` in each stream).
    pub files_created_alone: i32,
    /// Files created by transactions.
    pub files_created_mixed: i32,
    /// Files read by transactions.
    pub files_read: i32,
    /// Files appended to by transactions.
    pub files_appended: i32,
    /// Files deleted, by transactions and after them.
    pub files_deleted: i32,
    /// Files deleted after the transactions.
    pub files_deleted_alone: i32,
    /// Files deleted by transactions.
    pub files_deleted_mixed: i32,
    /// Bytes read, exactly (B).
    pub bytes_read: u64,
    /// Bytes written, exactly (B): fewer than planned after I/O errors.
    pub bytes_written: u64,
}

impl Counts {
    /// The counters of PostMark's summary `s`.
    pub fn of(s: &RunSummary) -> Counts {
        Counts {
            files_created: s.files_created,
            files_created_alone: s.base_files,
            files_created_mixed: s.files_created - s.base_files,
            files_read: s.files_read,
            files_appended: s.files_appended,
            files_deleted: s.files_deleted,
            files_deleted_alone: s.deleted_alone,
            files_deleted_mixed: s.files_deleted - s.deleted_alone,
            bytes_read: s.bytes_read_exact,
            bytes_written: s.bytes_written_exact,
        }
    }
}

/// A run's exact times and rates: t0..t3 are the start, the first and the
/// last transaction and the end (over all streams, the first stream to
/// enter a phase and the last to leave it).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "postmarkRates")]
pub struct Rates {
    /// t3 − t0: creation, transactions and deletion (s).
    pub elapsed_s: f64,
    /// t1 − t0: the initial creations (s).
    pub creation_s: f64,
    /// t2 − t1: the transactions (s).
    pub transactions_s: f64,
    /// t3 − t2: the final deletions (s).
    pub deletion_s: f64,
    /// Transactions done per second of transactions (1/s).
    pub transactions_per_s: f64,
    /// Files created per second of the whole run (1/s).
    pub files_created_per_s: f64,
    /// Initial files created per second of creation (1/s).
    pub creation_files_per_s: f64,
    /// Files created by transactions per second of transactions (1/s).
    pub mixed_creation_files_per_s: f64,
    /// Files read per second of transactions (1/s).
    pub files_read_per_s: f64,
    /// Files appended to per second of transactions (1/s).
    pub files_appended_per_s: f64,
    /// Files deleted per second of the whole run (1/s).
    pub files_deleted_per_s: f64,
    /// Files deleted after the transactions per second of deletion (1/s).
    pub deletion_files_per_s: f64,
    /// Files deleted by transactions per second of transactions (1/s).
    pub mixed_deletion_files_per_s: f64,
    /// Bytes read per second of the whole run (B/s).
    pub read_bytes_per_s: f64,
    /// Bytes written per second of the whole run (B/s).
    pub write_bytes_per_s: f64,
}

/// One stream of a run with `--threads`.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "postmarkStream")]
pub struct StreamFigures {
    /// Stream number, from 0.
    pub stream: usize,
    /// Its seed: the configured one plus its number.
    pub seed: i32,
    /// It ran to its end without an I/O error or running out of files.
    pub complete: bool,
    /// Its failed opens, removes, reads and writes.
    pub io_errors: u64,
    /// One of them was "No space left on device" (or "Disk quota exceeded").
    pub out_of_space: bool,
    /// It stopped with "out of files!".
    pub out_of_files: bool,
    /// Transactions completed.
    pub transactions_done: i32,
    /// Its files created, read, appended to and deleted; its bytes read
    /// and written.
    #[serde(flatten)]
    pub counts: Counts,
    /// Its t3 − t0 (s); null when it did not reach its end.
    pub elapsed_s: Option<f64>,
    /// Its t1 − t0 (s).
    pub creation_s: Option<f64>,
    /// Its t2 − t1 (s).
    pub transactions_s: Option<f64>,
    /// Its t3 − t2 (s).
    pub deletion_s: Option<f64>,
    /// Transactions done per second of its transactions (1/s).
    pub transactions_per_s: Option<f64>,
    /// Initial files created per second of its creation (1/s).
    pub creation_files_per_s: Option<f64>,
    /// Files deleted after its transactions per second of its deletion (1/s).
    pub deletion_files_per_s: Option<f64>,
}

/// What PostMark's report divides, beyond the counters: its byte counts as
/// it keeps them and its whole-second times.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "postmarkReport")]
pub struct ReportFigures {
    /// Bytes read as PostMark sums them, in single precision (B; rounds
    /// once the total passes 2^24).
    pub bytes_read: f32,
    /// Bytes written, likewise (B).
    pub bytes_written: f32,
    /// The intervals, in `time()`'s whole seconds, each 1 when it read 0.
    pub times: ReportTimes,
}

impl Figures {
    /// PostMark's counters, as its report reads them.
    pub fn summary(&self) -> RunSummary {
        let c = &self.counts;
        RunSummary {
            base_files: c.files_created_alone,
            transactions: self.transactions,
            files_created: c.files_created,
            files_read: c.files_read,
            files_appended: c.files_appended,
            files_deleted: c.files_deleted,
            deleted_alone: c.files_deleted_alone,
            bytes_read: self.report.map_or(c.bytes_read as f32, |r| r.bytes_read),
            bytes_written: self
                .report
                .map_or(c.bytes_written as f32, |r| r.bytes_written),
            bytes_read_exact: c.bytes_read,
            bytes_written_exact: c.bytes_written,
            transactions_done: self.transactions_done,
            out_of_files: self.out_of_files,
        }
    }
}

impl crate::suites::Benchmark for PostMark {
    const NAME: &'static str = "postmark";
    type Plan = Plan;
    type Figures = Figures;
    /// PostMark's report in the session's format (none when the run
    /// stopped early or ran out of files), then iogauge's additions.
    fn classic(plan: &Plan, figures: &Figures, result: &RunResult) -> String {
        report::postmark_report(plan, figures) + &report::additions(plan, figures, result)
    }
}

/// The two parts of a run's report, from its result: PostMark's own (empty
/// when it prints none), which `run FILE` appends to FILE, and iogauge's
/// additions, always on stdout.
pub fn reports(r: &RunResult) -> anyhow::Result<(String, String)> {
    let plan: Plan = serde_json::from_value(r.config.clone())?;
    let figures: Figures = r.figures()?;
    Ok((
        report::postmark_report(&plan, &figures),
        report::additions(&plan, &figures, r),
    ))
}
