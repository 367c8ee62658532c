//! IOzone's result, typed: the plan a run was made of ([`Plan`], the
//! result's `config`), what it measured ([`Figures`], its `metrics`), and
//! IOzone's report rendered from the two ([`IoZone`]), so the text a run
//! prints and the text `iogauge show` prints from its saved JSON are the
//! same.

use std::collections::BTreeMap;
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::flags::{Config, Mode, Unit};
use super::report::{self, ChildResult, Column, Phase, PhaseResult, Resolutions, Row, Table};
use super::{details, grid, throughput};
use crate::engine::Choice;
use crate::measure::{LatencySummary, OpKind, WorkerStats};
use crate::report::RunResult;

/// IOzone, typed: its plan, its figures and its report.
pub struct IoZone;

impl crate::suites::Benchmark for IoZone {
    const NAME: &'static str = "iozone";
    type Plan = Plan;
    type Figures = Figures;
    fn classic(plan: &Plan, figures: &Figures, result: &RunResult) -> String {
        classic(plan, figures, result)
    }
}

/// What an IOzone result's `config` holds: IOzone's flags as validated,
/// and how iogauge ran them.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    /// The command line as the user gave it.
    pub command_line: String,
    pub mode: Mode,
    /// IOzone's flags, each a key of its own.
    #[serde(flatten)]
    pub config: Config,
    pub engine: Choice,
    /// `-H`/`-k`: the queued engine of the asynchronous passes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub async_engine: Option<Choice>,
    /// Throughput mode's pause after the sync between phases.
    pub settle_s: f64,
    /// `--plot`: where the heatmaps go.
    pub plot: Option<PathBuf>,
    /// `--verify`: the unit, and whether a mismatch stops the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<crate::session::generic::VerifyPlan>,
}

impl Plan {
    /// The plan of running `cfg` with `engine`, `settle` and `--plot`.
    pub fn new(
        cfg: &Config,
        command_line: &str,
        engine: Choice,
        async_engine: Option<Choice>,
        settle_s: f64,
        plot: Option<PathBuf>,
    ) -> Plan {
        Plan {
            command_line: command_line.to_string(),
            mode: cfg.mode(),
            config: cfg.clone(),
            engine,
            async_engine,
            settle_s,
            plot,
            verify: None,
        }
    }
}

/// One figure per column of IOzone's table, named as the columns are in
/// the JSON; each is there only where its test ran.
macro_rules! by_column {
    ($(#[$meta:meta])* $name:ident, $t:ty, $unit:literal, $($field:ident $col:ident $what:literal,)*) => {
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
        $(#[$meta])*
        pub struct $name {
            $(
                #[doc = concat!($what, ", ", $unit)]
                #[serde(default, skip_serializing_if = "Option::is_none")]
                pub $field: Option<$t>,
            )*
        }

        impl $name {
            /// The figure of column `c`, if its test ran.
            pub fn get(&self, c: Column) -> Option<$t> {
                match c {
                    $(Column::$col => self.$field,)*
                }
            }

            /// Column `c`'s figure set to `v`.
            pub fn set(&mut self, c: Column, v: $t) {
                match c {
                    $(Column::$col => self.$field = Some(v),)*
                }
            }
        }
    };
}

/// Calls `$m!` with its arguments followed by every column of IOzone's
/// table: the field, the [`Column`], what it is.
macro_rules! with_columns {
    ($m:ident!($($args:tt)*)) => {
        $m!(
            $($args)*
            write Write "Write (-i 0)",
            rewrite Rewrite "Re-write (-i 0)",
            read Read "Read (-i 1)",
            reread Reread "Re-read (-i 1)",
            random_read RandRead "Random read (-i 2)",
            random_write RandWrite "Random write (-i 2)",
            bkwd_read BkwdRead "Backward read (-i 3)",
            record_rewrite RecRewrite "Record rewrite (-i 4)",
            stride_read StrideRead "Stride read (-i 5)",
            fwrite Fwrite "Fwrite (-i 6)",
            frewrite Frewrite "Re-fwrite (-i 6)",
            fread Fread "Fread (-i 7)",
            freread Freread "Re-fread (-i 7)",
            pwrite Pwrite "Pwrite (-i 9)",
            repwrite Repwrite "Re-pwrite (-i 9)",
            pread Pread "Pread (-i 10)",
            repread Repread "Re-pread (-i 10)",
            pwritev Pwritev "Pwritev (-i 11)",
            repwritev Repwritev "Re-pwritev (-i 11)",
            preadv Preadv "Preadv (-i 12)",
            repreadv Repreadv "Re-preadv (-i 12)",
        );
    };
}

with_columns!(by_column!(
    /// IOzone's figures of one cell, by column.
    #[schemars(rename = "iozoneColumns")]
    Columns, u64, "in the run's units (`units`), rounded down as IOzone does",
));

with_columns!(by_column!(
    /// `-+u`: the CPU utilization of each pass of one cell, by column.
    #[schemars(rename = "iozoneColumnsCpu")]
    ColumnsCpu, f64, "CPU time over wall time of its pass, %",
));

/// What an IOzone result's `metrics` hold.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "iozoneFigures")]
pub struct Figures {
    pub mode: Mode,
    /// What the figures count: kB/s (KiB per second), ops/s (`-O`) or
    /// us/op (`-N`).
    pub units: Unit,
    /// Single and auto mode: every cell measured, in the order they ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cells: Option<Vec<Cell>>,
    /// Single and auto mode: how many cells auto mode's crossover skipped
    /// (IOzone's zeros in the `-R` and `-b` reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped_cells: Option<usize>,
    /// Single and auto mode: each column that ran, by its name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tests: Option<BTreeMap<String, TestFigures>>,
    /// Single mode: each column's figure.
    #[serde(flatten)]
    pub single: Columns,
    /// Throughput mode: each child count that ran a phase, in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throughput: Option<Vec<ThroughputRun>>,
    /// Throughput mode: how many child counts began, in the order given
    /// (one stopped before any of its phases ended has no entry in
    /// `throughput`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counts_begun: Option<usize>,
    /// "Run began" as IOzone prints it: ctime(3) in the local time of the
    /// machine that ran.
    pub began: String,
    /// The clock that times the passes, seconds (IOzone's "Time
    /// Resolution").
    pub time_resolution_s: f64,
    /// `-+u`: the step of the process's CPU time, seconds (IOzone's "CPU
    /// utilization Resolution").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_resolution_s: Option<f64>,
    /// `-w`: the directory where the test files were kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept: Option<PathBuf>,
}

/// One cell of single or auto mode.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "iozoneCell")]
pub struct Cell {
    /// File size, kB.
    pub file_kb: u64,
    /// Record size, kB.
    pub reclen_kb: u64,
    #[serde(flatten)]
    pub figures: Columns,
    /// `-+u`: each pass's CPU utilization.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_pct: Option<ColumnsCpu>,
}

/// One column of single or auto mode over the cells it ran in.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "iozoneTest")]
pub struct TestFigures {
    /// Its `-R` section title, e.g. "Writer report".
    pub title: String,
    /// The cells it was measured in.
    pub cells: usize,
    /// Its operations, by kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<BTreeMap<String, OpFigures>>")]
    pub ops: Option<BTreeMap<OpKind, OpFigures>>,
}

/// The operations of one kind.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "iozoneOps")]
pub struct OpFigures {
    /// How many.
    pub count: u64,
    /// Bytes they moved.
    pub bytes: u64,
    /// Their latency, nanoseconds.
    #[schemars(with = "serde_json::Value")]
    pub latency_ns: LatencySummary,
}

/// Throughput mode: the phases of one child count.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "iozoneThroughputRun")]
pub struct ThroughputRun {
    /// How many children ran at once.
    pub children: u32,
    /// Its phases, in the order they ran.
    pub phases: Vec<ThroughputPhase>,
}

/// Throughput mode: one phase with N children, IOzone's figures (rates
/// in `units` per second, transfers in kB or operations with `-O`).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "iozoneThroughputPhase")]
pub struct ThroughputPhase {
    pub phase: Phase,
    /// "Children see": the sum of the children's rates.
    pub children_rate: f64,
    /// "Parent sees": all moved over the parent's time.
    pub parent_rate: f64,
    /// The least a child's rate.
    pub min_rate: f64,
    /// The most a child's rate.
    pub max_rate: f64,
    /// The children's rates over their number.
    pub avg_rate: f64,
    /// "Min xfer": the least any child moved.
    pub min_xfer: f64,
    /// The parent's time, seconds, from releasing the children to the last join.
    pub parent_s: f64,
    /// Each child, in child order.
    pub children: Vec<ThroughputChild>,
    /// The children's operations, by kind.
    #[schemars(with = "BTreeMap<String, OpFigures>")]
    pub ops: BTreeMap<OpKind, OpFigures>,
    /// `-+u`: the longest child wall time, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_s: Option<f64>,
}

/// Throughput mode: one child in a phase.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "iozoneThroughputChild")]
pub struct ThroughputChild {
    /// Its rate, kB/s (ops/s with `-O`).
    pub rate: f64,
    /// What it moved while timed, kB (operations with `-O`).
    pub xfer: f64,
    /// `-+u`: from its release to the end of its timed work, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_s: Option<f64>,
    /// `-+u`: its user and system CPU time, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_s: Option<f64>,
}

/// Each op kind that ran: count, bytes and latency percentiles.
pub fn ops_of(st: &WorkerStats) -> BTreeMap<OpKind, OpFigures> {
    st.kinds()
        .filter(|(_, k)| k.count > 0)
        .map(|(kind, k)| {
            (
                kind,
                OpFigures {
                    count: k.count,
                    bytes: k.bytes,
                    latency_ns: k.summary(),
                },
            )
        })
        .collect()
}

impl Cell {
    /// The cell of a row of the table.
    pub fn of(r: &Row) -> Cell {
        let mut figures = Columns::default();
        for (c, v) in &r.values {
            figures.set(*c, *v);
        }
        let cpu_pct = (!r.cpu.is_empty()).then(|| {
            let mut cpu = ColumnsCpu::default();
            for (c, v) in &r.cpu {
                cpu.set(*c, *v);
            }
            cpu
        });
        Cell {
            file_kb: r.kb,
            reclen_kb: r.reclen_kb,
            figures,
            cpu_pct,
        }
    }

    /// The row of the table it was.
    pub fn row(&self) -> Row {
        let mut r = Row::new(self.file_kb, self.reclen_kb);
        for c in Column::ALL {
            if let Some(v) = self.figures.get(c) {
                r.values.insert(c, v);
            }
            if let Some(v) = self.cpu_pct.as_ref().and_then(|p| p.get(c)) {
                r.cpu.insert(c, v);
            }
        }
        r
    }
}

impl ThroughputRun {
    /// Throughput mode's figures: per child count, per phase, IOzone's
    /// figures, each child's, and the latency percentiles of the
    /// children's operations; with `cpu` (`-+u`) their times too.
    pub fn all(o: &throughput::Outcome, cpu: bool) -> Vec<ThroughputRun> {
        o.runs
            .iter()
            .map(|run| ThroughputRun {
                children: run.children,
                phases: run
                    .phases
                    .iter()
                    .map(|p| ThroughputPhase::of(p, cpu))
                    .collect(),
            })
            .collect()
    }
}

impl ThroughputPhase {
    /// The figures of a phase that ran; with `cpu` (`-+u`) its times too.
    pub fn of(p: &throughput::PhaseRun, cpu: bool) -> ThroughputPhase {
        let res = &p.result;
        ThroughputPhase {
            phase: res.phase,
            children_rate: res.children_rate(),
            parent_rate: res.parent_rate(),
            min_rate: res.min_rate(),
            max_rate: res.max_rate(),
            avg_rate: res.avg_rate(),
            min_xfer: res.min_xfer(),
            parent_s: res.parent_secs,
            children: res
                .children
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let t = p.child_times.get(i).filter(|_| cpu);
                    ThroughputChild {
                        rate: c.rate,
                        xfer: c.actual,
                        wall_s: t.map(|t| t.wall_s),
                        cpu_s: t.map(throughput::ChildTimes::cpu_s),
                    }
                })
                .collect(),
            ops: ops_of(&p.stats),
            wall_s: cpu.then_some(p.wall_s),
        }
    }

    /// IOzone's figures of the phase, as its reports take them.
    pub fn result(&self) -> PhaseResult {
        PhaseResult {
            phase: self.phase,
            children: self
                .children
                .iter()
                .map(|c| ChildResult {
                    rate: c.rate,
                    actual: c.xfer,
                })
                .collect(),
            parent_secs: self.parent_s,
        }
    }

    /// `-+u`: the children's CPU time, summed, seconds.
    pub fn cpu_s(&self) -> f64 {
        self.children.iter().filter_map(|c| c.cpu_s).sum()
    }
}

impl Figures {
    /// The table of single and auto mode, crossover placeholders in their
    /// places, as the run built it: auto mode's grid walked in order, each
    /// file size's skipped cells first (while the run made any), then its
    /// cells as they were measured, up to where the run stopped.
    pub fn table(&self, cfg: &Config) -> Table {
        let mut t = super::run::table_of(cfg);
        let cells = self.cells.as_deref().unwrap_or_default();
        let mut skipped = self.skipped_cells.unwrap_or(0);
        let mut next = cells.iter().peekable();
        let header = grid::record_sizes(cfg);
        for row in grid::runs(cfg) {
            for i in 0..row.skipped_cells {
                if skipped == 0 {
                    break;
                }
                skipped -= 1;
                let reclen = header.get(i).copied().unwrap_or(0);
                t.rows.push(Row::new(row.file_kb, reclen));
            }
            for &rec_kb in &row.records_kb {
                match next.next_if(|c| c.file_kb == row.file_kb && c.reclen_kb == rec_kb) {
                    Some(c) => t.rows.push(c.row()),
                    None => return t,
                }
            }
        }
        t
    }

    /// The heatmaps `--plot` drew (single and auto mode): how many, where.
    fn heatmaps(&self, plan: &Plan, table: &Table) -> Option<(usize, PathBuf)> {
        let dir = plan.plot.as_ref()?;
        self.cells.as_ref()?;
        Some((super::heatmaps::drawn(table).len(), dir.clone()))
    }
}

/// IOzone's report of a run: what it prints before the run, each row
/// (single and auto mode) or each child count's phases (throughput mode)
/// as the run went, then what it prints after, with iogauge's details.
pub fn classic(plan: &Plan, f: &Figures, r: &RunResult) -> String {
    let cfg = &plan.config;
    let res = Resolutions {
        time_s: f.time_resolution_s,
        cpu_s: f.cpu_resolution_s.unwrap_or(0.0),
    };
    let mut s = report::preamble_with(cfg, &plan.command_line, &f.began, res);
    let table = f.cells.as_ref().map(|_| f.table(cfg));
    if let Some(t) = &table {
        for row in t.rows.iter().filter(|r| !r.is_skipped()) {
            s += &report::row_line(row, &t.selected, t.extended);
        }
    }
    if let Some(runs) = &f.throughput {
        let mut runs = runs.iter().peekable();
        for &n in cfg.children.iter().take(f.counts_begun.unwrap_or(0)) {
            s += &report::throughput_intro(
                cfg.threads,
                cfg.single_file_kb(),
                cfg.single_record_kb(),
            );
            if let Some(run) = runs.next_if(|r| r.children == n) {
                for p in &run.phases {
                    s += &throughput::phase_text(cfg, p);
                }
            }
            s += "\n\n";
        }
    }
    let heatmaps = table.as_ref().and_then(|t| f.heatmaps(plan, t));
    s += &details::closing(cfg, plan, f, table.as_ref(), heatmaps.as_ref(), r);
    if let Some(c) = &r.cluster {
        s += &c.render();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_named_as_the_json_names_them() {
        for (i, c) in Column::ALL.into_iter().enumerate() {
            let mut f = Columns::default();
            f.set(c, i as u64);
            assert_eq!(f.get(c), Some(i as u64));
            let v = serde_json::to_value(&f).unwrap();
            assert_eq!(v, serde_json::json!({ c.name(): i }), "{c:?}");
            let mut cpu = ColumnsCpu::default();
            cpu.set(c, 1.5);
            assert_eq!(
                serde_json::to_value(&cpu).unwrap(),
                serde_json::json!({ c.name(): 1.5 })
            );
        }
    }

    #[test]
    fn phases_are_named_by_their_labels() {
        for p in Phase::ALL {
            assert_eq!(serde_json::to_value(p).unwrap(), p.label());
        }
    }

    /// A plan gives back the configuration it was made of, whatever the
    /// flags.
    #[test]
    fn the_plan_gives_back_its_configuration() {
        for line in [
            "-a",
            "-az -n 64k -g 1m -y 4k -q 64k -+u -R -b x.xlsx",
            "-s 1m -r 64k -i 0 -i 1 -e -c -I -o -p -w -O",
            "-E -i 0 -i 9 -i 10 -N -+n",
            "-t 2 -T -C -x -d 10 -+p 50 -i 0 -i 8 -F a b -j 3",
            "-l 1 -u 3 -s 4m -+x 4",
        ] {
            let args: Vec<String> = line.split(' ').map(String::from).collect();
            let cfg = super::super::flags::parse(&args).unwrap().config;
            let plan = Plan::new(&cfg, line, Choice::SYNC, None, 2.0, None);
            let back: Plan = serde_json::from_value(serde_json::to_value(&plan).unwrap()).unwrap();
            assert_eq!(back.config, cfg, "{line}");
        }
    }

    /// A result's `config` keeps its keys, IOzone's flags one by one.
    #[test]
    fn the_plan_is_one_object_of_iozones_flags() {
        let line = "-a -i 0 -i 1";
        let args: Vec<String> = line.split(' ').map(String::from).collect();
        let cfg = super::super::flags::parse(&args).unwrap().config;
        let plan = Plan::new(&cfg, line, Choice::SYNC, None, 2.0, None);
        let v = serde_json::to_value(&plan).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        let want = "auto child_files children command_line cpu_util crossover direct \
                    engine excel extended file file_kb include_close include_flush \
                    keep_files max_file_kb max_record_kb min_file_kb min_record_kb mode \
                    multiplier no_retest o_sync per_child plot purge read_pct record_kb \
                    remount settle_s stagger_us stonewall stride tests tests_given threads \
                    units workbook";
        assert_eq!(keys, want.split_whitespace().collect::<Vec<_>>());
        assert_eq!(v["crossover"], true);
        assert_eq!(v["tests"], serde_json::json!([0, 1]));
    }

    /// The table read back from the cells holds the crossover's
    /// placeholders where the run put them, and stops where it stopped.
    #[test]
    fn the_table_comes_back_with_its_placeholders() {
        let args: Vec<String> = "-a -n 16m -g 32m -i 0"
            .split(' ')
            .map(String::from)
            .collect();
        let cfg = super::super::flags::parse(&args).unwrap().config;
        let grid = grid::runs(&cfg);
        let header = grid::record_sizes(&cfg);
        let mut want = super::super::run::table_of(&cfg);
        let mut v = 1;
        for row in &grid {
            for &reclen in &header[..row.skipped_cells] {
                want.rows.push(Row::new(row.file_kb, reclen));
            }
            for &rec in &row.records_kb {
                want.rows
                    .push(Row::new(row.file_kb, rec).with(Column::Write, v));
                v += 1;
            }
        }
        let figures = |rows: &[Row]| Figures {
            mode: Mode::Auto,
            units: Unit::KbPerSec,
            cells: Some(
                rows.iter()
                    .filter(|r| !r.is_skipped())
                    .map(Cell::of)
                    .collect(),
            ),
            skipped_cells: Some(rows.iter().filter(|r| r.is_skipped()).count()),
            tests: None,
            single: Columns::default(),
            throughput: None,
            counts_begun: None,
            began: String::new(),
            time_resolution_s: 0.0,
            cpu_resolution_s: None,
            kept: None,
        };
        assert!(
            want.rows.iter().any(Row::is_skipped),
            "the grid crosses over"
        );
        assert_eq!(figures(&want.rows).table(&cfg), want);
        // stopped at each place in turn
        for n in 0..want.rows.len() {
            let mut part = want.clone();
            part.rows.truncate(n);
            assert_eq!(figures(&part.rows).table(&cfg), part, "{n} rows");
        }
    }
}
