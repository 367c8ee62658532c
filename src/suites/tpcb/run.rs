//! One TPC-B load point: N terminals issue debit-credit transactions back
//! to back (closed loop, no think time) for a set time on a database made
//! before timing, then the database is checked.
//!
//! ```text
//!   Setup (space for the records and the history's growth)
//!     └─ create (untimed): branches, tellers, accounts, empty history
//!   runner: N terminals × { next_txn; Terminal::execute } until the time is up
//!   check_consistency (untimed): the four sums must agree
//!   the work directory is removed
//! ```
//!
//! The figures: tps (transactions over the measured seconds), the
//! response-time distribution of [`OpKind::Transaction`] (TPC-B's
//! histogram in 0.1 s buckets, and percentiles), and whether 90 % of the
//! transactions finished within 2 s (TPC-B's response-time constraint).
//! TPC-B's *maximum* tps is the largest figure over a load curve that
//! meets the constraint; this module measures one point of that curve.

use super::db::{self, Db, Scale, Sums, Terminal};
use crate::engine::{Choice, EngineSpec};
use crate::error::UsageError;
use crate::measure::{KindStats, OpKind};
use crate::report::RunResult;
use crate::runner::{self, Ctx, Io, NoWatch, Pace, Placement, Progress, StopRule, Worker};
use crate::session::Setup;
use crate::units::fmt_bytes;
use crate::workload::{Prng, worker_rng};
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// TPC-B's response-time constraint: 90 % of transactions within 2 s.
pub const CONSTRAINT_S: f64 = 2.0;
/// The share of transactions the constraint covers.
pub const CONSTRAINT_SHARE: f64 = 0.9;
/// Width of a bucket of TPC-B's response-time histogram.
pub const BUCKET_S: f64 = 0.1;
/// History records a terminal is assumed to append per second at most,
/// for the space check (a transaction is seven system calls).
const MAX_TPS_PER_TERMINAL: u64 = 100_000;
/// Most terminals (threads).
pub const MAX_TERMINALS: usize = 4096;

/// One run as asked.
#[derive(Clone, Debug)]
pub struct Options {
    /// The tps the database is sized for: one branch per tps.
    pub tps_scale: u32,
    /// Concurrent terminals, one thread each.
    pub terminals: usize,
    pub duration: Duration,
    /// fsync the history at each commit.
    pub commit_sync: bool,
    pub seed: u64,
    pub engine: Choice,
    /// Parent of the work directory.
    pub dir: PathBuf,
    /// Back to back (TPC-B's rule), with think time, or at a rate: then
    /// response times run from each transaction's intended start.
    pub pace: Pace,
}

impl Options {
    /// A database for 1 tps, 4 terminals, 10 s, synced commits, psync.
    pub fn new(dir: &Path) -> Options {
        Options {
            tps_scale: 1,
            terminals: 4,
            duration: Duration::from_secs(10),
            commit_sync: true,
            seed: 1,
            engine: Choice::PSYNC,
            dir: dir.to_path_buf(),
            pace: Pace::default(),
        }
    }

    /// Refuse what cannot run, naming the flag to change.
    pub fn check(&self) -> Result<(), String> {
        if self.tps_scale == 0 || self.tps_scale > Scale::MAX_BRANCHES {
            return Err(format!(
                "--tps-scale {}: the database is sized for 1 to {} tps (one branch each)",
                self.tps_scale,
                Scale::MAX_BRANCHES
            ));
        }
        if self.terminals == 0 || self.terminals > MAX_TERMINALS {
            return Err(format!(
                "--terminals {}: 1 to {MAX_TERMINALS} terminals",
                self.terminals
            ));
        }
        self.engine.check_grows(
            "TPC-B's history file grows with every transaction",
            "psync or io_uring",
        )?;
        if self.duration.is_zero() {
            return Err("--duration must be longer than 0".into());
        }
        self.pace.check()?;
        let caps = self.engine.caps();
        if caps.buffered {
            return Err(format!(
                "--engine {}: it keeps writes in its own buffer, where the other terminals cannot see them; use psync or sync",
                self.engine
            ));
        }
        if caps.fake {
            return Err(format!(
                "--engine {}: it does no I/O, and TPC-B's database must be on the disk; use psync or sync",
                self.engine
            ));
        }
        Ok(())
    }

    pub fn scale(&self) -> Scale {
        Scale::new(self.tps_scale)
    }

    /// The most the history may grow to: every terminal at
    /// 100 000 transactions per second for the whole run.
    pub fn history_estimate(&self) -> u64 {
        let secs = self.duration.as_secs_f64().ceil() as u64;
        let most = self.terminals as u64 * MAX_TPS_PER_TERMINAL * secs.max(1);
        self.scale().history_bytes(most)
    }
}

/// The op kinds a terminal records.
const KINDS: &[OpKind] = &[
    OpKind::Lock,
    OpKind::Read,
    OpKind::Write,
    OpKind::Append,
    OpKind::Fsync,
    OpKind::Transaction,
];

/// One terminal on a runner thread: transactions back to back.
pub struct Driver {
    term: Terminal,
    rng: Prng,
    scale: Scale,
    commit_sync: bool,
}

impl Worker for Driver {
    fn kinds(&self) -> &[OpKind] {
        KINDS
    }

    fn engine_mode(&self) -> Option<String> {
        self.term.engine_mode()
    }

    fn run(&mut self, ctx: &mut Ctx) -> Result<()> {
        let Driver {
            term,
            rng,
            scale,
            commit_sync,
        } = self;
        term.run(ctx, *commit_sync, || db::next_txn(rng, scale))
    }
}

/// What every terminal of a load point is built from: the database made
/// before timing ([`prepare`]), the engine, the commit rule and the seed.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Terminals {
    pub files: db::Files,
    pub engine: EngineSpec,
    /// fsync the history at each commit.
    pub commit_sync: bool,
    pub seed: u64,
}

/// The terminals of one `workers` call share one [`Db`]: its record
/// locks and the history's next slot. A terminal built alone would lock
/// and append apart from the others and break the database, so TPC-B's
/// terminals run as threads of one process.
impl runner::Workers for Tpcb {
    const KIND: &'static str = "tpcb";
    type Payload = Terminals;
    type Worker = Driver;
    fn workers(p: &Terminals, range: Range<usize>) -> Result<Vec<Driver>> {
        let db = Arc::new(Db::new(p.files.clone())?);
        range
            .map(|i| {
                let engine = Io::new(&p.engine, 1, 4096, p.seed)?;
                Ok(Driver {
                    term: Terminal::open(Arc::clone(&db), engine)?,
                    rng: worker_rng(p.seed, i),
                    scale: p.files.scale,
                    commit_sync: p.commit_sync,
                })
            })
            .collect()
    }
}

/// One bucket of the response-time histogram: transactions that took
/// `lo_s ≤ t < hi_s` (`hi_s` is `None` for the last, open bucket).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "tpcbBucket")]
pub struct Bucket {
    /// Its lower bound, in seconds.
    pub lo_s: f64,
    /// Its upper bound, in seconds (null for the open bucket of 2 s and more).
    pub hi_s: Option<f64>,
    /// Transactions in it.
    pub count: u64,
}

/// TPC-B's histogram: 0.1 s buckets from 0 to 2 s, then one of 2 s and
/// more; trailing empty buckets below 2 s are left out (at least one
/// bucket is kept).
pub fn histogram(k: &KindStats) -> Vec<Bucket> {
    let ns = |s: f64| (s * 1e9).round() as u64;
    let n = (CONSTRAINT_S / BUCKET_S).round() as u64;
    let mut v: Vec<Bucket> = (0..n)
        .map(|i| {
            let (lo, hi) = (i as f64 * BUCKET_S, (i + 1) as f64 * BUCKET_S);
            Bucket {
                lo_s: lo,
                hi_s: Some(hi),
                // count_between is inclusive: stop one ns short of hi
                count: k.hist.count_between(ns(lo), ns(hi) - 1),
            }
        })
        .collect();
    let over = k.hist.count_between(ns(CONSTRAINT_S), u64::MAX);
    while v.len() > 1 && v.last().is_some_and(|b| b.count == 0) {
        v.pop();
    }
    if over > 0 {
        v.push(Bucket {
            lo_s: CONSTRAINT_S,
            hi_s: None,
            count: over,
        });
    }
    v
}

/// TPC-B, typed: its plan, its figures and its report.
pub struct Tpcb;

/// What a TPC-B result's `config` holds.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    /// The tps the database is sized for.
    pub tps_scale: u32,
    pub branches: u32,
    pub tellers: u32,
    pub accounts: u32,
    pub terminals: usize,
    /// How long the terminals ran, in seconds.
    pub duration_s: f64,
    /// fsync of the history at each commit.
    pub commit_sync: bool,
    pub seed: u64,
    pub engine: Choice,
    /// Back to back, with think time, or at a rate.
    pub pace: Pace,
}

impl Plan {
    fn of(o: &Options) -> Plan {
        let scale = o.scale();
        Plan {
            tps_scale: o.tps_scale,
            branches: scale.branches,
            tellers: scale.tellers(),
            accounts: scale.accounts(),
            terminals: o.terminals,
            duration_s: o.duration.as_secs_f64(),
            commit_sync: o.commit_sync,
            seed: o.seed,
            engine: o.engine,
            pace: o.pace,
        }
    }
}

/// The figures of a load point: the result's `metrics`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "tpcbFigures")]
pub struct Figures {
    /// Transactions per second over the measured time.
    pub tps: f64,
    /// Transactions completed.
    pub transactions: u64,
    /// Mean response time, in seconds (open loop: from each transaction's
    /// intended start).
    pub mean_response_s: f64,
    /// Median response time, in seconds.
    pub p50_response_s: f64,
    /// 90th percentile of the response time, in seconds: TPC-B's constraint.
    pub p90_response_s: f64,
    /// 99th percentile of the response time, in seconds.
    pub p99_response_s: f64,
    /// Longest response time, in seconds.
    pub max_response_s: f64,
    /// 90 % of the transactions within 2 s (false when none ran).
    pub constraint_met: bool,
    /// TPC-B's histogram: 0.1 s buckets below 2 s, then one open bucket.
    pub response_histogram: Vec<Bucket>,
    /// Branches of the database.
    pub scale: u32,
    /// The most tps the database may report (one per branch).
    pub max_tps_of_scale: u32,
    /// Terminals that ran.
    pub terminals: usize,
    /// fsync of the history at each commit.
    pub commit_sync: bool,
    /// Bytes of the branch, teller and account records.
    pub database_bytes: u64,
    /// Bytes of the history file after the run.
    pub history_bytes: u64,
    /// The balances and the history agree (absent when not checked: the
    /// run failed or did not start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consistent: Option<bool>,
    /// The sums the check compared (absent when not checked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consistency: Option<Sums>,
}

impl Figures {
    /// The figures of a run of `o` whose transactions took `times` over
    /// `elapsed_s` seconds, with the check (if made) and the history's size.
    fn of(
        o: &Options,
        times: Option<&KindStats>,
        elapsed_s: f64,
        sums: Option<Sums>,
        history_bytes: u64,
    ) -> Figures {
        let scale = o.scale();
        let mut f = Figures {
            tps: 0.0,
            transactions: 0,
            mean_response_s: 0.0,
            p50_response_s: 0.0,
            p90_response_s: 0.0,
            p99_response_s: 0.0,
            max_response_s: 0.0,
            constraint_met: false,
            response_histogram: Vec::new(),
            scale: scale.branches,
            max_tps_of_scale: scale.max_tps(),
            terminals: o.terminals,
            commit_sync: o.commit_sync,
            database_bytes: scale.bytes(),
            history_bytes,
            consistent: sums.map(|s| s.consistent()),
            consistency: sums,
        };
        let Some(k) = times.filter(|k| k.count > 0) else {
            return f;
        };
        let s = |ns: u64| ns as f64 / 1e9;
        let p90 = s(k.percentile_ns(90.0));
        f.transactions = k.count;
        if elapsed_s > 0.0 {
            f.tps = k.count as f64 / elapsed_s;
        }
        f.mean_response_s = k.mean_ns() / 1e9;
        f.p50_response_s = s(k.percentile_ns(50.0));
        f.p90_response_s = p90;
        f.p99_response_s = s(k.percentile_ns(99.0));
        f.max_response_s = s(k.max_ns);
        f.constraint_met = p90 <= CONSTRAINT_S;
        f.response_histogram = histogram(k);
        f
    }
}

impl crate::suites::Benchmark for Tpcb {
    const NAME: &'static str = "tpcb";
    type Plan = Plan;
    type Figures = Figures;
    fn classic(plan: &Plan, figures: &Figures, result: &RunResult) -> String {
        super::report::render(plan, figures, result)
    }
}

/// What a run gives.
pub struct Report {
    /// The document `--json` writes.
    pub result: RunResult,
    pub figures: Figures,
    /// The check after the run; `None` when it was not made (the run
    /// failed, or stopped before the terminals ran).
    pub sums: Option<Sums>,
}

/// Check a load point as [`run`] does before it makes anything: the
/// options, the engine, the directory, its space and the limits.
pub fn check(o: &Options) -> Result<()> {
    o.check().map_err(UsageError)?;
    EngineSpec::new(o.engine).check().map_err(UsageError)?;
    setup_of(o).check()
}

/// The run's set-up: the database and the history at its largest.
fn setup_of(o: &Options) -> Setup {
    Setup::new("tpcb", &o.dir)
        .data(o.scale().bytes() + o.history_estimate())
        .workers(o.terminals, 4, false)
}

/// The untimed prepare: the database of `o`'s scale made in `dir` through
/// `engine` (one with a large buffer), and what the terminals are built
/// from.
pub fn prepare(o: &Options, spec: EngineSpec, dir: &Path, engine: &mut Io) -> Result<Terminals> {
    let files = db::create(dir, &o.scale(), engine)?;
    Ok(Terminals {
        files,
        engine: spec,
        commit_sync: o.commit_sync,
        seed: o.seed,
    })
}

/// Run one load point as `o` says. Nothing is left behind. An
/// inconsistent database is the result's error.
pub fn run(o: &Options, progress: &dyn Progress) -> Result<Report> {
    o.check().map_err(UsageError)?;
    let scale = o.scale();
    // one request at a time: a transaction reads and writes its records in
    // order, under their locks, as the benchmark's specification says
    let spec = EngineSpec::new(o.engine);
    spec.check().map_err(UsageError)?;
    let session = setup_of(o).config(Plan::of(o)).begin()?;
    progress.status(&format!(
        "creating the database: {} of records (untimed)",
        fmt_bytes(scale.bytes())
    ));
    let mut engine = Io::new(&spec, 1, 1 << 20, o.seed)?;
    let terminals = prepare(o, spec, session.dir(), &mut engine)?;
    if runner::signals::interrupted() {
        let mut result = session.interrupted();
        let figures = Figures::of(o, None, result.elapsed_s, None, 0);
        result.set_figures(&figures);
        return Ok(Report {
            result,
            figures,
            sums: None,
        });
    }
    progress.status(&format!("{} terminals", o.terminals));
    let rule = StopRule {
        duration: Some(o.duration),
        pace: o.pace,
        ..Default::default()
    };
    let outcome = runner::run_workers::<Tpcb>(
        rule,
        &terminals,
        o.terminals,
        Placement::Threads,
        progress,
        &NoWatch,
    )?;
    let files = &terminals.files;
    // the check reads what the terminals left; a failed transaction may
    // be half applied, so a failed run is not checked
    let sums = if outcome.error.is_none() {
        progress.status("checking the database (untimed)");
        Some(db::check_consistency(files, &mut engine)?)
    } else {
        None
    };
    let history_bytes = std::fs::metadata(&files.history).map_or(0, |m| m.len());
    let mut result = session.finish(&outcome);
    // an open loop's response times run from the intended start
    let tx = OpKind::Transaction;
    let times = outcome.stats.response(tx).or(outcome.stats.kind(tx));
    let figures = Figures::of(o, times, result.elapsed_s, sums, history_bytes);
    result.set_figures(&figures);
    if let Some(s) = sums.filter(|s| !s.consistent())
        && result.error.is_none()
    {
        result.error = Some(format!(
            "the database is inconsistent after the run: the balances sum to {} (accounts), {} (tellers), {} (branches), the history's deltas to {}",
            s.accounts, s.tellers, s.branches, s.history
        ));
    }
    Ok(Report {
        result,
        figures,
        sums,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::KindStats;

    #[test]
    fn the_histogram_has_tenth_of_a_second_buckets_and_one_open_bucket() {
        let mut k = KindStats::new();
        for _ in 0..90 {
            k.record(5_000_000, 0); // 5 ms
        }
        for _ in 0..7 {
            k.record(150_000_000, 0); // 0.15 s
        }
        for _ in 0..3 {
            k.record(2_500_000_000, 0); // 2.5 s
        }
        let h = histogram(&k);
        assert_eq!(h.len(), 3, "{h:?}");
        assert_eq!((h[0].lo_s, h[0].hi_s, h[0].count), (0.0, Some(0.1), 90));
        assert_eq!(h[1].count, 7);
        assert!((h[1].lo_s - 0.1).abs() < 1e-12);
        assert_eq!((h[2].lo_s, h[2].hi_s, h[2].count), (2.0, None, 3));
        let o = Options::new(Path::new("."));
        let f = Figures::of(&o, Some(&k), 2.0, None, 0);
        assert_eq!(f.transactions, 100);
        assert_eq!(f.tps, 50.0);
        assert!(f.constraint_met, "{f:?}");
        assert!(f.p90_response_s < 0.01, "{f:?}");
        // nothing ran: no figures, the constraint is not met
        let none = Figures::of(&o, None, 1.0, None, 0);
        assert!(!none.constraint_met && none.tps == 0.0);
    }

    /// Terminals built from a payload read back, as a group, run the
    /// transactions that the threaded path runs and leave the database
    /// consistent.
    #[test]
    fn terminals_built_from_the_payload_measure_what_threads_measure() {
        use crate::runner::{NoProgress, Outcome, Workers};
        let d = tempfile::tempdir().unwrap();
        let mut psync = Io::test(Choice::PSYNC, 64 << 10);
        let files = db::create(d.path(), &db::Scale::tiny(2, 100), &mut psync).unwrap();
        let p = Terminals {
            files,
            engine: EngineSpec::new(Choice::PSYNC),
            commit_sync: true,
            seed: 3,
        };
        let back: Terminals = serde_json::from_slice(&serde_json::to_vec(&p).unwrap()).unwrap();
        assert_eq!(back.files, p.files);
        let rule = StopRule {
            ops: Some(400),
            ..Default::default()
        };
        let threads =
            runner::run_workers::<Tpcb>(rule, &p, 2, Placement::Threads, &NoProgress, &NoWatch)
                .unwrap();
        let built = runner::run(rule, Tpcb::workers(&back, 0..2).unwrap(), &NoProgress);
        let count = |o: &Outcome, k: OpKind| o.stats.kind(k).map_or(0, |s| s.count);
        for &k in KINDS {
            assert_eq!(count(&threads, k), count(&built, k), "{k:?}");
        }
        let tx = count(&built, OpKind::Transaction);
        assert!(tx > 0 && built.error.is_none(), "{:?}", built.error);
        assert_eq!(count(&built, OpKind::Read), 3 * tx);
        assert_eq!(count(&built, OpKind::Fsync), tx);
        let sums = db::check_consistency(&p.files, &mut psync).unwrap();
        assert!(
            sums.consistent() && sums.history_count == 2 * tx,
            "{sums:?}"
        );
    }

    #[test]
    fn bad_options_are_refused() {
        let o = Options::new(Path::new("."));
        o.check().unwrap();
        let bad = [
            Options {
                tps_scale: 0,
                ..o.clone()
            },
            Options {
                terminals: 0,
                ..o.clone()
            },
            Options {
                duration: Duration::ZERO,
                ..o.clone()
            },
            Options {
                engine: Choice::BUFFERED,
                ..o.clone()
            },
            Options {
                engine: Choice::NULL,
                ..o.clone()
            },
        ];
        for b in bad {
            assert!(b.check().is_err(), "{b:?}");
        }
    }
}
