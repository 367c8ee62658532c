//! The reports IOzone 3.489 prints: the text table (written a row at a
//! time as the tests finish), the `-R` Excel-style text report, the
//! throughput-mode lines and `-R` table, and the `-b` workbook.
//!
//! It also prints what IOzone prints before its results ([`preamble`]),
//! and with `-+u` the CPU utilization sections of the `-R` and `-b`
//! reports ([`Row::cpu`]).
//!
//! Everything here is pure: the functions take results already measured
//! and return text, except the two workbook writers, which save a file,
//! and [`preamble`], [`Resolutions::of_this_system`], [`cpu_resolution`]
//! and [`ctime`], which read the system's clocks ([`preamble_with`] is
//! the pure form).
//!
//! Where IOzone 3.489 prints wrongly, iogauge prints what was meant:
//! - an unselected test leaves blanks as wide as its figures would be
//!   (3.489's blanks are one column short for fread, pwritev and preadv
//!   and one too long for pread, so the columns after them shift);
//! - each `-R`/`-b` section holds its own test's figures (with `-E`, a
//!   `-i` list without 8 stores two zeros for the random-mix test, and
//!   3.489 then prints them as the Pwrite and Re-Pwrite reports and each
//!   later test's figures under the next test's titles);
//! - "Min throughput per process" and "Min xfer" are the true minima
//!   (3.489 takes a child's 0 for "not set yet" and skips it).
//!
//! `-b`: IOzone 3.489 writes BIFF (`.xls`); iogauge writes Office Open
//! XML (`.xlsx`) with the same cells, to the exact path given. A script
//! written for IOzone that asks for `-b out.xls` finds `out.xls` where it
//! expects it; LibreOffice, Gnumeric, pandas and calamine look at the
//! content and open it, Excel opens it after a warning that the format
//! and the extension differ. Give `-b out.xlsx` to avoid that warning.

use std::collections::BTreeMap;
use std::path::Path;

use crate::report::sheet::Sheet;

use super::flags::{Config, Mode, Unit};
use super::run::{CACHE_BYTES, CACHE_LINE_BYTES};
use crate::measure::CpuTimes;
use crate::measure::clock::now_ns;

/// One figure of the text table, in IOzone 3.489's order: the 13 columns
/// of every run, then the 8 that `-E` adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Column {
    Write,
    Rewrite,
    Read,
    Reread,
    RandRead,
    RandWrite,
    BkwdRead,
    RecRewrite,
    StrideRead,
    Fwrite,
    Frewrite,
    Fread,
    Freread,
    Pwrite,
    Repwrite,
    Pread,
    Repread,
    Pwritev,
    Repwritev,
    Preadv,
    Repreadv,
}

impl Column {
    pub const ALL: [Column; 21] = [
        Column::Write,
        Column::Rewrite,
        Column::Read,
        Column::Reread,
        Column::RandRead,
        Column::RandWrite,
        Column::BkwdRead,
        Column::RecRewrite,
        Column::StrideRead,
        Column::Fwrite,
        Column::Frewrite,
        Column::Fread,
        Column::Freread,
        Column::Pwrite,
        Column::Repwrite,
        Column::Pread,
        Column::Repread,
        Column::Pwritev,
        Column::Repwritev,
        Column::Preadv,
        Column::Repreadv,
    ];

    /// The columns every run has; the others need `-E`.
    pub fn is_extended(self) -> bool {
        self >= Column::Pwrite
    }

    /// The `-i` test that produces this column.
    pub fn test(self) -> u8 {
        use Column::*;
        match self {
            Write | Rewrite => 0,
            Read | Reread => 1,
            RandRead | RandWrite => 2,
            BkwdRead => 3,
            RecRewrite => 4,
            StrideRead => 5,
            Fwrite | Frewrite => 6,
            Fread | Freread => 7,
            Pwrite | Repwrite => 9,
            Pread | Repread => 10,
            Pwritev | Repwritev => 11,
            Preadv | Repreadv => 12,
        }
    }

    /// The columns test `-i n` produces (none for 8, the random mix,
    /// which reports only in throughput mode, nor for unknown numbers).
    pub fn for_test(n: u8) -> Vec<Column> {
        Column::ALL.into_iter().filter(|c| c.test() == n).collect()
    }

    /// A stable snake-case name, for iogauge's JSON.
    pub fn name(self) -> &'static str {
        use Column::*;
        match self {
            Write => "write",
            Rewrite => "rewrite",
            Read => "read",
            Reread => "reread",
            RandRead => "random_read",
            RandWrite => "random_write",
            BkwdRead => "bkwd_read",
            RecRewrite => "record_rewrite",
            StrideRead => "stride_read",
            Fwrite => "fwrite",
            Frewrite => "frewrite",
            Fread => "fread",
            Freread => "freread",
            Pwrite => "pwrite",
            Repwrite => "repwrite",
            Pread => "pread",
            Repread => "repread",
            Pwritev => "pwritev",
            Repwritev => "repwritev",
            Preadv => "preadv",
            Repreadv => "repreadv",
        }
    }

    /// The section title of the `-R` text report (printed in quotes).
    pub fn title(self) -> &'static str {
        use Column::*;
        match self {
            Write => "Writer report",
            Rewrite => "Re-writer report",
            Read => "Reader report",
            Reread => "Re-Reader report",
            RandRead => "Random read report",
            RandWrite => "Random write report",
            BkwdRead => "Backward read report",
            RecRewrite => "Record rewrite report",
            StrideRead => "Stride read report",
            Fwrite => "Fwrite report",
            Frewrite => "Re-Fwrite report",
            Fread => "Fread report",
            Freread => "Re-Fread report",
            Pwrite => "Pwrite report",
            Repwrite => "Re-Pwrite report",
            Pread => "Pread report",
            Repread => "Re-Pread report",
            Pwritev => "Pwritev report",
            Repwritev => "Re-Pwritev report",
            Preadv => "Preadv report",
            Repreadv => "Re-Preadv report",
        }
    }

    /// The title of the `-+u` section of the `-R` text report:
    /// "Writer CPU utilization report (Zero values should be ignored)".
    pub fn cpu_title(self) -> String {
        cpu_title(self.title(), " report")
    }

    /// The title of the `-+u` section in the `-b` workbook (capitalised
    /// as the workbook's other titles are).
    pub fn cpu_workbook_title(self) -> String {
        cpu_title(self.workbook_title(), " Report")
    }

    /// The section title in the `-b` workbook: IOzone 3.489 capitalises
    /// these differently from the `-R` text.
    pub fn workbook_title(self) -> &'static str {
        use Column::*;
        match self {
            Write => "Writer Report",
            Rewrite => "Re-writer Report",
            Read => "Reader Report",
            Reread => "Re-reader Report",
            RandRead => "Random Read Report",
            RandWrite => "Random Write Report",
            BkwdRead => "Backward Read Report",
            RecRewrite => "Record Rewrite Report",
            StrideRead => "Stride Read Report",
            Fwrite => "Fwrite Report",
            Frewrite => "Re-fwrite Report",
            Fread => "Fread Report",
            Freread => "Re-fread Report",
            Pwrite => "Pwrite Report",
            Repwrite => "Re-pwrite Report",
            Pread => "Pread Report",
            Repread => "Re-pread Report",
            Pwritev => "Pwritev Report",
            Repwritev => "Re-pwritev Report",
            Preadv => "Preadv Report",
            Repreadv => "Re-preadv Report",
        }
    }
}

fn cpu_title(title: &str, suffix: &str) -> String {
    let name = title.strip_suffix(suffix).unwrap_or(title);
    format!("{name} CPU utilization report (Zero values should be ignored)")
}

/// The text table's figures, test by test, as IOzone 3.489 prints them
/// (the Linux build: `%9lld` for most, ` %9lld` for record rewrite and
/// stride read, and the uneven widths of the `-E` tests). Each entry is
/// (column, text before it, width).
const ROW_GROUPS: [&[(Column, &str, usize)]; 12] = [
    &[(Column::Write, "", 9), (Column::Rewrite, "", 9)],
    &[(Column::Read, "", 9), (Column::Reread, "", 9)],
    &[(Column::RandRead, "", 9), (Column::RandWrite, "", 9)],
    &[(Column::BkwdRead, "", 9)],
    &[(Column::RecRewrite, " ", 9)],
    &[(Column::StrideRead, " ", 9)],
    &[(Column::Fwrite, "", 9), (Column::Frewrite, "", 9)],
    &[(Column::Fread, "", 9), (Column::Freread, "", 9)],
    &[(Column::Pwrite, "", 9), (Column::Repwrite, "", 9)],
    &[(Column::Pread, "", 8), (Column::Repread, "", 9)],
    &[(Column::Pwritev, "", 9), (Column::Repwritev, "", 10)],
    &[(Column::Preadv, "", 10), (Column::Repreadv, "", 9)],
];

/// The blanks IOzone 3.489 prints for a group of [`ROW_GROUPS`] whose test
/// did not run (its `test_output` strings). They are not always the
/// group's printed width: the fread group takes 17 where its figures take
/// 18, the pread group 18 where they take 17.
const SKIPPED: [usize; 12] = [18, 18, 18, 9, 10, 10, 18, 17, 18, 18, 18, 18];

/// What the figures count: `-O` makes them operations per second, `-N`
/// microseconds per operation (not allowed in throughput mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Units {
    #[default]
    KbPerSec,
    OpsPerSec,
    MicrosPerOp,
}

impl Units {
    /// The line IOzone 3.489 prints among its settings to say the units.
    pub fn banner(self) -> &'static str {
        match self {
            Units::KbPerSec => "\tOutput is in kBytes/sec\n",
            Units::OpsPerSec => "\tOPS Mode. Output is in operations per second.\n",
            Units::MicrosPerOp => {
                "\tMicroseconds/op Mode. Output is in microseconds per operation.\n"
            }
        }
    }

    /// The label of the throughput `-R` table's "Output is in" line.
    pub fn label(self) -> &'static str {
        match self {
            Units::KbPerSec => "kBytes/sec",
            Units::OpsPerSec => "ops/sec",
            Units::MicrosPerOp => "microseconds/op",
        }
    }

    /// The unit of the throughput lines: `kB` (rates in `kB/sec`) or `ops`.
    fn amount(self) -> &'static str {
        match self {
            Units::OpsPerSec => "ops",
            _ => "kB",
        }
    }
}

/// One line of the text table: a file size and a record size, with the
/// figures of the tests run on them. A row without figures stands for a
/// cell that auto mode skips past the crossover: it prints no text line
/// and reads 0 in the `-R` and `-b` reports, as IOzone 3.489 stores it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Row {
    pub kb: u64,
    pub reclen_kb: u64,
    /// kB/s, ops/s or µs/op (see [`Units`]), already rounded down as
    /// IOzone does.
    pub values: BTreeMap<Column, u64>,
    /// `-+u`: each pass's CPU utilization, % ([`cpu_util`]). Empty
    /// without `-+u`.
    pub cpu: BTreeMap<Column, f64>,
}

impl Row {
    pub fn new(kb: u64, reclen_kb: u64) -> Row {
        Row {
            kb,
            reclen_kb,
            values: BTreeMap::new(),
            cpu: BTreeMap::new(),
        }
    }

    /// The row with one more figure (builder style, for tests and callers).
    pub fn with(mut self, c: Column, v: u64) -> Row {
        self.values.insert(c, v);
        self
    }

    /// The row with one more CPU utilization (builder style).
    pub fn with_cpu(mut self, c: Column, pct: f64) -> Row {
        self.cpu.insert(c, pct);
        self
    }

    /// The cell the `-R` and `-b` reports show: the figure, 0 if none.
    pub fn cell(&self, c: Column) -> u64 {
        self.values.get(&c).copied().unwrap_or(0)
    }

    /// The CPU utilization the `-+u` sections show, 0 if none.
    pub fn cpu_cell(&self, c: Column) -> f64 {
        self.cpu.get(&c).copied().unwrap_or(0.0)
    }

    /// A crossover placeholder: no test ran on it.
    pub fn is_skipped(&self) -> bool {
        self.values.is_empty()
    }
}

/// Everything the auto/single-mode reports show.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    /// The record sizes of the `-R` header line, in kB: IOzone 3.489 lists
    /// every record size of the configured range, measured or not. Left
    /// empty, the record sizes of the rows are listed, smallest first.
    pub reclens_kb: Vec<u64>,
    /// In the order the tests ran: by file size, then by record size.
    pub rows: Vec<Row>,
    /// The columns of the tests selected with `-i` (all of them without
    /// `-i`); the reports show these, in [`Column::ALL`] order.
    pub selected: Vec<Column>,
    /// `-E`: the text table has the 8 extra columns.
    pub extended: bool,
    /// Not printed by the tables: IOzone says it once, among its
    /// settings ([`Units::banner`]).
    pub units: Units,
}

impl Table {
    /// The selected columns in report order, without the `-E` ones
    /// unless the table is extended.
    pub fn sections(&self) -> Vec<Column> {
        Column::ALL
            .into_iter()
            .filter(|c| self.selected.contains(c) && (self.extended || !c.is_extended()))
            .collect()
    }

    /// Whether the rows hold CPU utilizations (`-+u`): the `-R` and `-b`
    /// reports then add IOzone's CPU utilization sections.
    pub fn has_cpu(&self) -> bool {
        self.rows.iter().any(|r| !r.cpu.is_empty())
    }

    fn header_reclens(&self) -> Vec<u64> {
        if !self.reclens_kb.is_empty() {
            return self.reclens_kb.clone();
        }
        let mut r: Vec<u64> = self.rows.iter().map(|r| r.reclen_kb).collect();
        r.sort_unstable();
        r.dedup();
        r
    }
}

fn fields(spec: &[(&str, usize)], texts: &[&str]) -> String {
    let mut s = String::new();
    for ((lead, w), t) in spec.iter().zip(texts) {
        s += &format!("{lead}{t:>w$}");
    }
    s.push('\n');
    s
}

const HEADER_FIELDS: [(&str, usize); 23] = [
    ("", 16),
    ("", 8),
    ("", 9),
    ("", 9),
    ("", 8),
    ("", 10),
    ("", 8),
    (" ", 9),
    ("", 9),
    (" ", 9),
    (" ", 9),
    ("", 9),
    ("", 9),
    ("", 9),
    ("", 9),
    // -E
    ("", 8),
    ("", 9),
    ("", 8),
    ("", 10),
    ("", 10),
    ("", 10),
    ("", 9),
    ("", 9),
];

/// How many of [`ROW_GROUPS`] the text table shows: IOzone's 8; with `-E`
/// 10, pwrite and pread added, as IOzone 3.489 built for Linux shows them
/// (its makefile leaves HAVE_PREADV out there); 12, pwritev and preadv
/// too, when `-i 11` or `-i 12` asks for them, as IOzone built with
/// HAVE_PREADV (BSD, HP-UX) shows them.
fn groups(extended: bool, selected: &[Column]) -> usize {
    match (extended, selected.iter().any(|c| c.test() >= 11)) {
        (true, true) => 12,
        (true, false) => 10,
        (false, _) => 8,
    }
}

/// The two header lines of the text table: with `-E` the pwrite and pread
/// columns, and the pwritev and preadv ones when they are selected
/// ([`groups`]).
pub fn header(extended: bool, selected: &[Column]) -> String {
    let n = match groups(extended, selected) {
        12 => 23,
        10 => 19,
        _ => 15,
    };
    let mut top = vec![" "; 23];
    top[6..11].copy_from_slice(&["random", "random", "bkwd", "record", "stride"]);
    let names = [
        "kB",
        "reclen",
        "write",
        "rewrite",
        "read",
        "reread",
        "read",
        "write",
        "read",
        "rewrite",
        "read",
        "fwrite",
        "frewrite",
        "fread",
        "freread",
        "pwrite",
        "repwrite",
        "pread",
        "repread",
        "pwritev",
        "repwritev",
        "preadv",
        "repreadv",
    ];
    fields(&HEADER_FIELDS[..n], &top[..n]) + &fields(&HEADER_FIELDS[..n], &names[..n])
}

/// One line of the text table, newline included. A test that is not
/// selected leaves blanks as wide as its figures; a selected test
/// without a figure (the re-tests under `-+n`) prints 0.
pub fn row_line(row: &Row, selected: &[Column], extended: bool) -> String {
    let mut s = format!("{:16}{:8}", row.kb, row.reclen_kb);
    let groups = groups(extended, selected);
    for (g, skip) in ROW_GROUPS[..groups].iter().zip(SKIPPED) {
        if g.iter().any(|(c, _, _)| selected.contains(c)) {
            for (c, lead, w) in g.iter() {
                s += &format!("{lead}{:w$}", row.cell(*c));
            }
        } else {
            s += &" ".repeat(skip);
        }
    }
    s.push('\n');
    s
}

/// The whole text table: the header, then a line per row that ran
/// (crossover placeholders have none).
pub fn text_table(t: &Table) -> String {
    let mut s = header(t.extended, &t.selected);
    for r in t.rows.iter().filter(|r| !r.is_skipped()) {
        s += &row_line(r, &t.selected, t.extended);
    }
    s
}

/// The `-R` report, from "Excel output is below:" on: for each selected
/// test a blank line, its quoted title, the record sizes and one line per
/// file size with the cells measured for it (shorter lines for small
/// files), as IOzone 3.489 prints them.
///
/// With `-+u` ([`Table::has_cpu`]) the CPU utilization sections follow
/// all the figures' sections, in the same order and layout, each value
/// printed `" %6.2f"` (IOzone's `dump_cputimes` and `dump_times`).
pub fn excel_text(t: &Table) -> String {
    let mut s = String::from("Excel output is below:\n");
    let reclens = t.header_reclens();
    let matrix = |s: &mut String, title: &str, cell: &dyn Fn(&Row) -> String| {
        *s += &format!("\n\"{title}\"\n      ");
        for r in &reclens {
            *s += &format!("  \"{r}\"");
        }
        s.push('\n');
        let mut current = None;
        for row in &t.rows {
            if current != Some(row.kb) {
                if current.is_some() {
                    s.push('\n');
                }
                current = Some(row.kb);
                *s += &format!("\"{}\"  ", row.kb);
            }
            *s += &cell(row);
        }
        s.push('\n');
    };
    for c in t.sections() {
        matrix(&mut s, c.title(), &|row| format!(" {} ", row.cell(c)));
    }
    if t.has_cpu() {
        for c in t.sections() {
            matrix(&mut s, &c.cpu_title(), &|row| {
                format!(" {:6.2}", row.cpu_cell(c))
            });
        }
    }
    s
}

/// The `-b` workbook of auto/single mode, one sheet laid out as IOzone
/// 3.489's: A1 the command line, A2 a blank, A3 "The top row is records
/// sizes, the left column is file sizes", then for each selected test,
/// with no blank row between them, a row with its title, a row with the
/// record sizes from column B, and a row per file size (the size in
/// column A, the cells from column B, kB/s; skipped crossover cells 0).
///
/// With `-+u` ([`Table::has_cpu`]) a blank row and then the CPU
/// utilization sections follow, laid out the same (percentages, not
/// rounded).
pub fn workbook(t: &Table, command_line: &str) -> Result<Sheet, String> {
    let mut sheet = Sheet::new();
    let ws = &mut sheet;
    ws.label(0, 0, command_line)?;
    ws.label(1, 0, " ")?;
    ws.label(
        2,
        0,
        "The top row is records sizes, the left column is file sizes",
    )?;
    let reclens = t.header_reclens();
    let mut row = 3;
    let matrix = |ws: &mut Sheet,
                  row: &mut usize,
                  title: &str,
                  cell: &dyn Fn(&Row) -> f64|
     -> Result<(), String> {
        ws.label(*row, 0, title)?;
        *row += 1;
        for (i, r) in reclens.iter().enumerate() {
            ws.number(*row, i + 1, *r as f64)?;
        }
        let mut current = None;
        let mut col = 1;
        for r in &t.rows {
            if current != Some(r.kb) {
                current = Some(r.kb);
                *row += 1;
                col = 1;
                ws.number(*row, 0, r.kb as f64)?;
            }
            ws.number(*row, col, cell(r))?;
            col += 1;
        }
        *row += 1;
        Ok(())
    };
    for c in t.sections() {
        matrix(ws, &mut row, c.workbook_title(), &|r| r.cell(c) as f64)?;
    }
    if t.has_cpu() {
        row += 1;
        for c in t.sections() {
            matrix(ws, &mut row, &c.cpu_workbook_title(), &|r| r.cpu_cell(c))?;
        }
    }
    Ok(sheet)
}

/// Writes [`workbook`] to `path` (XLSX content whatever the extension:
/// see the module notes).
pub fn write_workbook(path: &Path, t: &Table, command_line: &str) -> Result<(), String> {
    workbook(t, command_line)?.save_xlsx(path)
}

/// One phase of throughput mode, in the order IOzone 3.489 runs them;
/// iogauge's JSON names it by its label ([`Phase::label`]).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[schemars(rename = "iozonePhase")]
pub enum Phase {
    #[default]
    #[serde(rename = "Initial write")]
    InitialWrite,
    #[serde(rename = "Rewrite")]
    Rewrite,
    #[serde(rename = "Read")]
    Read,
    #[serde(rename = "Re-read")]
    Reread,
    #[serde(rename = "Reverse Read")]
    ReverseRead,
    #[serde(rename = "Stride read")]
    StrideRead,
    #[serde(rename = "Random read")]
    RandomRead,
    #[serde(rename = "Mixed workload")]
    Mixed,
    #[serde(rename = "Random write")]
    RandomWrite,
    #[serde(rename = "Pwrite")]
    Pwrite,
    #[serde(rename = "Pread")]
    Pread,
    #[serde(rename = "Fwrite")]
    Fwrite,
    #[serde(rename = "Fread")]
    Fread,
}

impl Phase {
    pub const ALL: [Phase; 13] = [
        Phase::InitialWrite,
        Phase::Rewrite,
        Phase::Read,
        Phase::Reread,
        Phase::ReverseRead,
        Phase::StrideRead,
        Phase::RandomRead,
        Phase::Mixed,
        Phase::RandomWrite,
        Phase::Pwrite,
        Phase::Pread,
        Phase::Fwrite,
        Phase::Fread,
    ];

    /// The row label of the throughput `-R` table.
    pub fn label(self) -> &'static str {
        use Phase::*;
        match self {
            InitialWrite => "Initial write",
            Rewrite => "Rewrite",
            Read => "Read",
            Reread => "Re-read",
            ReverseRead => "Reverse Read",
            StrideRead => "Stride read",
            RandomRead => "Random read",
            Mixed => "Mixed workload",
            RandomWrite => "Random write",
            Pwrite => "Pwrite",
            Pread => "Pread",
            Fwrite => "Fwrite",
            Fread => "Fread",
        }
    }

    /// The `-i` test this phase belongs to.
    pub fn test(self) -> u8 {
        use Phase::*;
        match self {
            InitialWrite | Rewrite => 0,
            Read | Reread => 1,
            RandomRead | RandomWrite => 2,
            ReverseRead => 3,
            StrideRead => 5,
            Fwrite => 6,
            Fread => 7,
            Mixed => 8,
            Pwrite => 9,
            Pread => 10,
        }
    }

    /// The "Children see" and "Parent sees" lines after "for": the child
    /// count, its format (`%2lld` or `%lld`) and the tabs differ from
    /// phase to phase in IOzone 3.489.
    fn who(self, n: usize) -> (String, String) {
        use Phase::*;
        let (wide, what, children_tabs, parent_tabs) = match self {
            InitialWrite => (true, "initial writers", "\t", "\t"),
            Rewrite => (true, "rewriters", "\t", "\t"),
            Read => (true, "readers", "\t\t", "\t\t"),
            Reread => (false, "re-readers", "\t", "\t"),
            ReverseRead => (false, "reverse readers", "\t", "\t"),
            StrideRead => (false, "stride readers", "\t", "\t"),
            RandomRead => (false, "random readers", "\t", "\t"),
            Mixed => (false, "mixed workload", "\t", "\t"),
            RandomWrite => (false, "random writers", "\t", "\t"),
            Pwrite => (false, "pwrite writers", "\t", "\t"),
            Pread => (false, "pread readers", "\t", "\t"),
            Fwrite => (true, "fwriters", "\t", "\t\t"),
            Fread => (true, "freaders", "\t", "\t\t"),
        };
        let count = if wide {
            format!("{n:2}")
        } else {
            n.to_string()
        };
        (
            format!("{count} {what} {children_tabs}"),
            format!("{count} {what} {parent_tabs}"),
        )
    }
}

/// What one child (process or thread) did in a phase. With stonewalling
/// these are the figures at the moment the first child finished.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ChildResult {
    /// kB/s (ops/s with `-O`).
    pub rate: f64,
    /// kB (operations with `-O`) moved while timed.
    pub actual: f64,
}

/// One phase of one throughput run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PhaseResult {
    pub phase: Phase,
    pub children: Vec<ChildResult>,
    /// The parent's clock, from releasing the children to the last join.
    pub parent_secs: f64,
}

impl PhaseResult {
    /// "Children see": the sum of the children's rates.
    pub fn children_rate(&self) -> f64 {
        self.children.iter().map(|c| c.rate).sum()
    }

    /// "Parent sees": everything moved over the parent's time (0 when
    /// that time is not positive).
    pub fn parent_rate(&self) -> f64 {
        let total: f64 = self.children.iter().map(|c| c.actual).sum();
        if self.parent_secs > 0.0 {
            total / self.parent_secs
        } else {
            0.0
        }
    }

    pub fn min_rate(&self) -> f64 {
        min_of(self.children.iter().map(|c| c.rate))
    }

    pub fn max_rate(&self) -> f64 {
        self.children.iter().map(|c| c.rate).fold(0.0, f64::max)
    }

    /// Children / N (0 without children).
    pub fn avg_rate(&self) -> f64 {
        if self.children.is_empty() {
            0.0
        } else {
            self.children_rate() / self.children.len() as f64
        }
    }

    /// "Min xfer": the least any child moved.
    pub fn min_xfer(&self) -> f64 {
        min_of(self.children.iter().map(|c| c.actual))
    }
}

fn min_of(it: impl Iterator<Item = f64>) -> f64 {
    it.fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.min(v))))
        .unwrap_or(0.0)
}

/// How the throughput lines read: `-T` says "thread", `-O` counts ops,
/// `-C` adds a line per child.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ThroughputStyle {
    pub threads: bool,
    pub units: Units,
    pub per_child: bool,
}

/// The lines IOzone 3.489 prints after a throughput phase, from the
/// blank line before "Children see throughput" on.
pub fn throughput_text(r: &PhaseResult, st: ThroughputStyle) -> String {
    let unit = st.units.amount();
    let port = if st.threads { "thread" } else { "process" };
    let (children, parent) = r.phase.who(r.children.len());
    let mut s = format!(
        "\n\tChildren see throughput for {children}= {:10.2} {unit}/sec\n",
        r.children_rate()
    );
    s += &format!(
        "\tParent sees throughput for {parent}= {:10.2} {unit}/sec\n",
        r.parent_rate()
    );
    // (IOzone's Min line ends in a space)
    for (what, rate, end) in [
        ("Min", r.min_rate(), " "),
        ("Max", r.max_rate(), ""),
        ("Avg", r.avg_rate(), ""),
    ] {
        s += &format!("\t{what} throughput per {port} \t\t\t= {rate:10.2} {unit}/sec{end}\n");
    }
    s += &format!("\tMin xfer \t\t\t\t\t= {:10.2} {unit}\n", r.min_xfer());
    if st.per_child {
        for (i, c) in r.children.iter().enumerate() {
            s += &format!(
                "\tChild[{i}] xfer count = {:10.2} {unit}, Throughput = {:10.2} {unit}/sec\n",
                c.actual, c.rate
            );
        }
    }
    s
}

/// The "Each process writes ..." line that opens a throughput run.
pub fn throughput_intro(threads: bool, file_kb: u64, reclen_kb: u64) -> String {
    let port = if threads { "thread" } else { "process" };
    format!("\tEach {port} writes a {file_kb} kByte file in {reclen_kb} kByte records\n")
}

/// One row of the throughput `-R` table: a phase's "Children see"
/// figure for each child count run (`-t`, or `-l` to `-u`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ThroughputRow {
    pub phase: Phase,
    pub values: Vec<f64>,
}

/// Everything the throughput `-R` and `-b` reports show.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ThroughputTable {
    pub reclen_kb: u64,
    pub threads: bool,
    pub units: Units,
    /// The phases that ran, in order.
    pub rows: Vec<ThroughputRow>,
    /// `-+u`: the same rows with each phase's CPU utilization, % (empty
    /// without `-+u`).
    pub cpu: Vec<ThroughputRow>,
}

impl ThroughputTable {
    fn port(&self) -> &'static str {
        if self.threads { "threads" } else { "processes" }
    }

    fn title(&self) -> String {
        format!(
            "Throughput report Y-axis is type of test X-axis is number of {}",
            self.port()
        )
    }

    fn cpu_title(&self) -> String {
        format!(
            "CPU utilization report Y-axis is type of test X-axis is number of {}",
            self.port()
        )
    }
}

/// The throughput `-R` report as IOzone 3.489 prints it after the run;
/// with `-+u` its CPU utilization report follows (`dump_throughput_cpu`).
pub fn throughput_excel_text(t: &ThroughputTable) -> String {
    let section = |title: &str, label: &str, rows: &[ThroughputRow]| {
        let mut s = format!(
            "\n\"{title}\"\n\"Record size = {} kBytes \"\n\"Output is in {label}\"\n\n",
            t.reclen_kb
        );
        for r in rows {
            s += &format!("\"{:>15} \"", r.phase.label());
            for v in &r.values {
                s += &format!(" {v:10.2} ");
            }
            s += "\n\n";
        }
        s
    };
    let mut s = section(&t.title(), t.units.label(), &t.rows);
    if !t.cpu.is_empty() {
        s += &section(&t.cpu_title(), "CPU%", &t.cpu);
    }
    s
}

/// The `-b` workbook of throughput mode, laid out as IOzone 3.489's: A1
/// the command line, A2 the report title, A3 "Record size = N kBytes",
/// A4 "Output is in kBytes/sec", then a row per phase with its label
/// (right-aligned in 15 characters and a space, as in the text) in
/// column A and the figures from column C on.
pub fn throughput_workbook(t: &ThroughputTable, command_line: &str) -> Result<Sheet, String> {
    let mut sheet = Sheet::new();
    let ws = &mut sheet;
    ws.label(0, 0, command_line)?;
    ws.label(1, 0, &t.title())?;
    ws.label(2, 0, &format!("Record size = {} kBytes", t.reclen_kb))?;
    ws.label(3, 0, &format!("Output is in {}", t.units.label()))?;
    for (i, r) in t.rows.iter().enumerate() {
        ws.label(4 + i, 0, &format!("{:>15} ", r.phase.label()))?;
        for (j, v) in r.values.iter().enumerate() {
            ws.number(4 + i, 2 + j, *v)?;
        }
    }
    if !t.cpu.is_empty() {
        // -+u: IOzone goes on below with its CPU utilization report
        let top = 4 + t.rows.len();
        ws.label(top, 0, &t.cpu_title())?;
        ws.label(top + 1, 0, &format!("Record size = {} kBytes", t.reclen_kb))?;
        ws.label(top + 2, 0, "Output is in CPU%")?;
        for (i, r) in t.cpu.iter().enumerate() {
            ws.label(top + 3 + i, 0, &format!("{:>15} ", r.phase.label()))?;
            for (j, v) in r.values.iter().enumerate() {
                ws.number(top + 3 + i, 2 + j, *v)?;
            }
        }
    }
    Ok(sheet)
}

/// Writes [`throughput_workbook`] to `path` (XLSX content whatever the
/// extension: see the module notes).
pub fn write_throughput_workbook(
    path: &Path,
    t: &ThroughputTable,
    command_line: &str,
) -> Result<(), String> {
    throughput_workbook(t, command_line)?.save_xlsx(path)
}

/// IOzone's `cpu_util`: CPU time over wall time, in %; 0 when the wall
/// time is not positive, a negative CPU time read as 0. (IOzone's callers
/// first raise the wall time to the CPU time, so a pass reads at most
/// 100 %.)
pub fn cpu_util(cpu_s: f64, wall_s: f64) -> f64 {
    if wall_s <= 0.0 {
        return 0.0;
    }
    100.0 * cpu_s.max(0.0) / wall_s
}

/// The step of the process's CPU time as getrusage(2) reports it, in
/// seconds, found as IOzone's `get_rusage_resolution` finds it: read it
/// until it changes. A few microseconds on a kernel that accounts CPU
/// time precisely, a clock tick on one that samples it. 0 if it does not
/// change within a second.
pub fn cpu_resolution() -> f64 {
    let read = || {
        let c = CpuTimes::now();
        (c.user + c.sys).as_secs_f64()
    };
    let start = read();
    let give_up = now_ns() + 1_000_000_000;
    loop {
        let t = read();
        if t != start {
            return t - start;
        }
        if now_ns() > give_up {
            return 0.0;
        }
    }
}

/// The resolutions the preamble states.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Resolutions {
    /// The clock that times the passes, seconds ("Time Resolution";
    /// IOzone's is gettimeofday's microsecond).
    pub time_s: f64,
    /// The process's CPU time, seconds ("CPU utilization Resolution",
    /// stated with `-+u` only).
    pub cpu_s: f64,
}

impl Resolutions {
    /// This system's: clock_getres(2) of CLOCK_MONOTONIC, iogauge's
    /// clock, and with `cpu` (`-+u`) [`cpu_resolution`] (else 0, not
    /// measured).
    pub fn of_this_system(cpu: bool) -> Resolutions {
        let t = rustix::time::clock_getres(rustix::time::ClockId::Monotonic);
        Resolutions {
            time_s: t.tv_sec as f64 + t.tv_nsec as f64 / 1e9,
            cpu_s: if cpu { cpu_resolution() } else { 0.0 },
        }
    }
}

/// ctime(3) of `secs` since the epoch, in local time and without the
/// newline: the text of IOzone's "Run began" ("Mon Nov 23 04:31:53 2026").
pub fn ctime(secs: i64) -> String {
    let t = secs as libc::time_t;
    let mut buf = [0 as libc::c_char; 64];
    // SAFETY: ctime_r writes at most 26 bytes, NUL included, into `buf`
    // (64 bytes) and reads only `t`.
    let p = unsafe { libc::ctime_r(&t, buf.as_mut_ptr()) };
    if p.is_null() {
        return secs.to_string();
    }
    // SAFETY: on success `buf` holds a NUL-terminated string.
    let text = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) };
    text.to_string_lossy().trim_end().to_string()
}

/// IOzone's version line, saying whose implementation this is.
const VERSION_LINE: &str = "        Version $Revision: 3.489 $ (iogauge)";

/// IOzone's contributors, as IOzone 3.489 credits them.
const CONTRIBUTORS: &str = concat!(
    "\tContributors:William Norcott, Don Capps, Isom Crawford, Kirby Collins\n",
    "\t             Al Slater, Scott Rhine, Mike Wisner, Ken Goss\n",
    "\t             Steve Landherr, Brad Smith, Mark Kelly, Dr. Alain CYR,\n",
    "\t             Randy Dunlap, Mark Montague, Dan Million, Gavin Brebner,\n",
    "\t             Jean-Marc Zucconi, Jeff Blomberg, Benny Halevy, Dave Boone,\n",
    "\t             Erik Habbinga, Kris Strecker, Walter Wong, Joshua Root,\n",
    "\t             Fabrice Bacchella, Zhenghua Xue, Qin Li, Darren Sawyer,\n",
    "\t             Vangel Bojaxhi, Ben England, Vikentsi Lapa,\n",
    "\t             Alexey Skidanov, Sudhir Kumar.\n\n",
);

/// What IOzone 3.489 prints before its results, with this system's
/// resolutions ([`Resolutions::of_this_system`]); see [`preamble_with`].
/// `began` is the "Run began" text, as [`ctime`] makes it.
pub fn preamble(config: &Config, command_line: &str, began: &str) -> String {
    preamble_with(
        config,
        command_line,
        began,
        Resolutions::of_this_system(config.cpu_util),
    )
}

/// What IOzone 3.489 prints before its results: the banner (version,
/// build, contributors), "Run began", a line for each flag that IOzone
/// announces, "Command line used:", the units, the resolution of the
/// clock, the processor cache and the stride, and then the table's two
/// header lines ([`header`]) in single and auto mode, or in throughput
/// mode the children counts ("Min process = 2 ", "Max process = 3 ", with
/// `-l`/`-u`) and "Throughput test with N processes" (the run then goes
/// on with [`throughput_intro`]).
///
/// IOzone prints the flags' lines in the order the flags are given;
/// [`Config`] keeps no order, so they come in this fixed one, which is
/// IOzone's for the usual command lines (`-az`, `-s … -r … -i … -e -c
/// -I`, `-a -n … -g … -q … -+u -R`): `-a`, `-z`, each `-s`, each `-r`,
/// `-n`, `-g`, `-y`, `-q`, `-e`, `-c`, `-I`, `-o`, `-p`, `-w`, `-x`, `-O`
/// or `-N`, `-+n`, `-+p`, `-+u`, `-R`. What [`Config`] cannot tell apart
/// is printed as the common case: `-A` as `-az`; several `-s` or `-r`
/// without "Auto Mode" (they imply it in IOzone without its line, and an
/// `-a` beside them loses its line here); `-b` with "Excel chart
/// generation enabled" (IOzone prints it for `-R` only, which `-b` is
/// mostly given with); a `-t` list of consecutive counts as `-l`/`-u`.
pub fn preamble_with(config: &Config, command_line: &str, began: &str, res: Resolutions) -> String {
    let c = config;
    let units = units_of(c);
    let mut s = opening(began);
    s += &flag_lines(c, res, units);
    s += &format!("\tCommand line used: {command_line}\n");
    if units == Units::KbPerSec {
        s += units.banner();
    }
    s += &format!("\tTime Resolution = {:1.6} seconds.\n", res.time_s);
    s += &format!(
        "\tProcessor cache size set to {} kBytes.\n",
        CACHE_BYTES / 1024
    );
    s += &format!("\tProcessor cache line size set to {CACHE_LINE_BYTES} bytes.\n");
    s += &format!("\tFile stride size set to {} * record size.\n", c.stride);
    if c.mode() == Mode::Throughput {
        s += &children_lines(c);
    } else {
        let selected: Vec<Column> = c
            .tests
            .iter()
            .flat_map(|t| Column::for_test(t.number()))
            .collect();
        s += &header(c.extended, &selected);
    }
    s
}

/// IOzone's banner: version, build, contributors, when the run began.
fn opening(began: &str) -> String {
    let mode = if cfg!(target_pointer_width = "64") {
        "\tCompiled for 64 bit mode."
    } else {
        "\tCompiled for 32 bit mode."
    };
    let mut s = String::from("\tIozone: Performance Test of File I/O\n");
    s += &format!("\t{VERSION_LINE}\n\t{mode}\n");
    s += &format!(
        "\t\tBuild: {}-{} \n\n",
        std::env::consts::OS,
        std::env::consts::ARCH
    );
    s += CONTRIBUTORS;
    s += &format!("\tRun began: {}\n\n", began.trim_end_matches('\n'));
    s
}

/// The unit the results are printed in.
fn units_of(c: &Config) -> Units {
    match c.unit {
        Unit::KbPerSec => Units::KbPerSec,
        Unit::OpsPerSec => Units::OpsPerSec,
        Unit::UsPerOp => Units::MicrosPerOp,
    }
}

/// One line for each flag given, before the command line (see
/// [`preamble_with`] for their order).
fn flag_lines(c: &Config, res: Resolutions, units: Units) -> String {
    let mut s = String::new();
    let lists = c.file_kb.len() > 1 || c.record_kb.len() > 1;
    if c.auto && !lists {
        s += "\tAuto Mode\n";
    }
    if c.no_crossover {
        s += "\tCross over of record size disabled.\n";
    }
    for kb in &c.file_kb {
        s += &format!("\tFile size set to {kb} kB\n");
    }
    for kb in &c.record_kb {
        s += &format!("\tRecord Size {kb} kB\n");
    }
    if let Some(kb) = c.min_file_kb {
        s += &format!("\tUsing minimum file size of {kb} kilobytes.\n");
    }
    if let Some(kb) = c.max_file_kb {
        s += &format!("\tUsing maximum file size of {kb} kilobytes.\n");
    }
    if let Some(kb) = c.min_record_kb {
        s += &format!("\tUsing Minimum Record Size {kb} kB\n");
    }
    if let Some(kb) = c.max_record_kb {
        s += &format!("\tUsing Maximum Record Size {kb} kB\n");
    }
    let on = [
        (c.include_flush, "\tInclude fsync in write timing\n"),
        (c.include_close, "\tInclude close in write timing\n"),
        (c.direct, "\tO_DIRECT feature enabled\n"),
        (c.sync, "\tSYNC Mode. \n"),
        (c.purge, "\tPurge Mode On\n"),
        (c.keep_files, "\tSetting no_unlink\n"),
        (!c.stonewall, "\tStonewall disabled\n"),
    ];
    for (given, line) in on {
        if given {
            s += line;
        }
    }
    // IOzone's lines, copy or not (iogauge copies in neither)
    match c.async_io {
        Some(a) if a.no_copy => {
            s += &format!("\tPOSIX Async I/O (no bcopy). Depth {} \n", a.depth);
        }
        Some(a) => s += &format!("\tPOSIX async I/O (with bcopy). Depth {}\n", a.depth),
        None => {}
    }
    if units != Units::KbPerSec {
        s += units.banner();
    }
    if c.no_retest {
        s += "\tNo retest option selected\n";
    }
    if let Some(pct) = c.read_pct {
        s += &format!("\tPercent read in mix test is {pct}\n");
    }
    if c.cpu_util {
        s += &format!(
            "\tCPU utilization Resolution = {:5.3} seconds.\n",
            res.cpu_s
        );
        s += "\tCPU utilization Excel chart enabled\n";
    }
    if c.excel {
        s += "\tExcel chart generation enabled\n";
    }
    s
}

/// Throughput mode's lines: how many children, and the range of counts.
fn children_lines(c: &Config) -> String {
    let mut s = String::new();
    let ch = &c.children;
    let range = ch.len() > 1 && ch.windows(2).all(|w| w[1] == w[0] + 1);
    let one = if c.threads { "thread" } else { "process" };
    let n = if range {
        s += &format!("\tMin {one} = {} \n", ch[0]);
        s += &format!("\tMax {one} = {} \n", ch[ch.len() - 1]);
        ch[0]
    } else {
        ch.last().copied().unwrap_or(1)
    };
    let port = match (n > 1, c.threads) {
        (false, _) => one,
        (true, true) => "threads",
        (true, false) => "processes",
    };
    s += &format!("\tThroughput test with {n} {port}\n");
    s
}

#[cfg(test)]
mod tests {
    //! The expected texts were printed by a C program that calls printf
    //! with IOzone 3.489's own format strings.
    use super::*;
    use calamine::Data;

    #[test]
    fn header_has_iozone_widths() {
        assert_eq!(
            header(false, &Column::ALL),
            concat!(
                "                                                              random    random     bkwd    record    stride                                    \n",
                "              kB  reclen    write  rewrite    read    reread    read     write     read   rewrite      read   fwrite frewrite    fread  freread\n",
            )
        );
        // -E as IOzone 3.489 built for Linux prints it (its own output)
        let linux_e: Vec<Column> = Column::ALL.into_iter().filter(|c| c.test() <= 10).collect();
        assert_eq!(
            header(true, &linux_e),
            concat!(
                "                                                              random    random     bkwd    record    stride                                                                       \n",
                "              kB  reclen    write  rewrite    read    reread    read     write     read   rewrite      read   fwrite frewrite    fread  freread  pwrite repwrite   pread   repread\n",
            )
        );
        // -E -i 11 or -i 12: the vectored columns of its HAVE_PREADV builds
        assert_eq!(
            header(true, &Column::ALL),
            concat!(
                "                                                              random    random     bkwd    record    stride                                                                                                             \n",
                "              kB  reclen    write  rewrite    read    reread    read     write     read   rewrite      read   fwrite frewrite    fread  freread  pwrite repwrite   pread   repread   pwritev repwritev   preadv repreadv\n",
            )
        );
    }

    /// A row with `values` in `cols`, in order.
    fn row_of(kb: u64, reclen: u64, cols: &[Column], values: &[u64]) -> Row {
        let mut r = Row::new(kb, reclen);
        for (c, v) in cols.iter().zip(values) {
            r = r.with(*c, *v);
        }
        r
    }

    fn full_row(kb: u64, reclen: u64, values: &[u64]) -> Row {
        row_of(kb, reclen, &Column::ALL, values)
    }

    #[test]
    fn rows_have_iozone_widths() {
        let r = full_row(
            1024,
            4,
            &[
                1795847, 3151052, 5409000, 5765089, 4987301, 3006301, 4563224, 5925927, 4657817,
                2883211, 3040305, 4897290, 5039030,
            ],
        );
        assert_eq!(
            row_line(&r, &Column::ALL, false),
            "            1024       4  1795847  3151052  5409000  5765089  4987301  3006301  4563224   5925927   4657817  2883211  3040305  4897290  5039030\n"
        );
        let v: Vec<u64> = (1..=21).collect();
        assert_eq!(
            row_line(&full_row(512, 16, &v), &Column::ALL, true),
            "             512      16        1        2        3        4        5        6        7         8         9       10       11       12       13       14       15      16       17       18        19        20       21\n"
        );
    }

    #[test]
    fn unselected_tests_leave_blanks_and_missing_retests_print_0() {
        // -i 0 -i 2 -+n: the rewrite figure is missing.
        let r = row_of(
            65536,
            64,
            &[Column::Write, Column::RandRead, Column::RandWrite],
            &[12, 7, 8],
        );
        let sel = [
            Column::Write,
            Column::Rewrite,
            Column::RandRead,
            Column::RandWrite,
        ];
        assert_eq!(
            row_line(&r, &sel, false),
            "           65536      64       12        0                          7        8                                                                \n"
        );
    }

    /// IOzone 3.489's own row of `-s 1m -r 64k -i 0 -i 2 -i 6`, with its
    /// figures: the blanks of the tests that did not run are its own (17
    /// after fwrite, where the fread group's figures take 18).
    #[test]
    fn skipped_groups_take_iozones_blanks() {
        let sel = [
            Column::Write,
            Column::Rewrite,
            Column::RandRead,
            Column::RandWrite,
            Column::Fwrite,
            Column::Frewrite,
        ];
        let r = row_of(
            1024,
            64,
            &sel,
            &[4379019, 10230845, 16789959, 12983353, 7644933, 10878686],
        );
        assert_eq!(
            row_line(&r, &sel, false),
            "            1024      64  4379019 10230845                   16789959 12983353                               7644933 10878686                 \n"
        );
    }

    fn small_table() -> Table {
        // 8 kB: records 4 and 8; 32 kB past the crossover: 4 skipped.
        Table {
            reclens_kb: vec![4, 8, 16],
            rows: vec![
                Row::new(8, 4)
                    .with(Column::Write, 100)
                    .with(Column::Rewrite, 110),
                Row::new(8, 8)
                    .with(Column::Write, 200)
                    .with(Column::Rewrite, 210),
                Row::new(32, 4),
                Row::new(32, 8)
                    .with(Column::Write, 300)
                    .with(Column::Rewrite, 310),
                Row::new(32, 16)
                    .with(Column::Write, 400)
                    .with(Column::Rewrite, 410),
            ],
            selected: Column::for_test(0),
            extended: false,
            units: Units::KbPerSec,
        }
    }

    #[test]
    fn excel_text_matches_iozone() {
        assert_eq!(
            excel_text(&small_table()),
            concat!(
                "Excel output is below:\n",
                "\n",
                "\"Writer report\"\n",
                "        \"4\"  \"8\"  \"16\"\n",
                "\"8\"   100  200 \n",
                "\"32\"   0  300  400 \n",
                "\n",
                "\"Re-writer report\"\n",
                "        \"4\"  \"8\"  \"16\"\n",
                "\"8\"   110  210 \n",
                "\"32\"   0  310  410 \n",
            )
        );
    }

    fn cpu_table() -> Table {
        let mut t = small_table();
        let w = [4.333333, 99.995, 0.0, 12.5, 100.0];
        let rw = [0.004, 7.0, 0.0, 33.3333, 0.125];
        for (i, r) in t.rows.iter_mut().enumerate() {
            if !r.is_skipped() {
                r.cpu.insert(Column::Write, w[i]);
                r.cpu.insert(Column::Rewrite, rw[i]);
            }
        }
        t
    }

    #[test]
    fn cpu_sections_follow_the_figures_as_iozone_prints_them() {
        let t = cpu_table();
        assert!(t.has_cpu() && !small_table().has_cpu());
        let text = excel_text(&t);
        let (figures, cpu) = text.split_at(excel_text(&small_table()).len());
        assert_eq!(figures, excel_text(&small_table()));
        // printed by IOzone 3.489's dump_times() format strings in C
        assert_eq!(
            cpu,
            concat!(
                "\n",
                "\"Writer CPU utilization report (Zero values should be ignored)\"\n",
                "        \"4\"  \"8\"  \"16\"\n",
                "\"8\"     4.33 100.00\n",
                "\"32\"     0.00  12.50 100.00\n",
                "\n",
                "\"Re-writer CPU utilization report (Zero values should be ignored)\"\n",
                "        \"4\"  \"8\"  \"16\"\n",
                "\"8\"     0.00   7.00\n",
                "\"32\"     0.00  33.33   0.12\n",
            )
        );
        assert_eq!(
            Column::RandRead.cpu_title(),
            "Random read CPU utilization report (Zero values should be ignored)"
        );
        assert_eq!(
            Column::Reread.cpu_workbook_title(),
            "Re-reader CPU utilization report (Zero values should be ignored)"
        );
        assert_eq!(
            Column::Frewrite.cpu_workbook_title(),
            "Re-fwrite CPU utilization report (Zero values should be ignored)"
        );
    }

    #[test]
    fn workbook_cpu_sections_come_after_a_blank_row() {
        let wb = workbook(&cpu_table(), "iozone -a -+u -b x.xls").unwrap();
        let r = cells(&wb);
        let at = |row: u32, col: u32| r.get_value((row, col)).cloned();
        // figures in rows 3..=10 as without -+u; row 11 blank
        assert_eq!(at(7, 0), Some(s("Re-writer Report")));
        assert_eq!(at(11, 0), Some(Data::Empty));
        assert_eq!(
            at(12, 0),
            Some(s(
                "Writer CPU utilization report (Zero values should be ignored)"
            ))
        );
        assert_eq!(at(13, 1), Some(f(4.0)));
        assert_eq!(at(14, 0), Some(f(8.0)));
        assert_eq!(at(14, 1), Some(f(4.333333)));
        assert_eq!(at(15, 1), Some(f(0.0)));
        assert_eq!(at(15, 3), Some(f(100.0)));
        assert_eq!(
            at(16, 0),
            Some(s(
                "Re-writer CPU utilization report (Zero values should be ignored)"
            ))
        );
        assert_eq!(at(19, 3), Some(f(0.125)));
        assert_eq!(r.end(), Some((19, 3)));
    }

    #[test]
    fn cpu_util_is_iozones() {
        assert_eq!(cpu_util(0.5, 2.0), 25.0);
        assert_eq!(cpu_util(1.0, 0.0), 0.0);
        assert_eq!(cpu_util(-1.0, 2.0), 0.0);
        assert_eq!(
            cpu_util(3.0, 2.0),
            150.0,
            "no cap: IOzone's callers raise the wall time"
        );
    }

    /// The banner down to "Run began", as IOzone 3.489 prints it with
    /// iogauge's version and build lines.
    fn banner() -> String {
        format!(
            concat!(
                "\tIozone: Performance Test of File I/O\n",
                "\t        Version $Revision: 3.489 $ (iogauge)\n",
                "\t\tCompiled for 64 bit mode.\n",
                "\t\tBuild: {}-{} \n",
                "\n",
                "\tContributors:William Norcott, Don Capps, Isom Crawford, Kirby Collins\n",
                "\t             Al Slater, Scott Rhine, Mike Wisner, Ken Goss\n",
                "\t             Steve Landherr, Brad Smith, Mark Kelly, Dr. Alain CYR,\n",
                "\t             Randy Dunlap, Mark Montague, Dan Million, Gavin Brebner,\n",
                "\t             Jean-Marc Zucconi, Jeff Blomberg, Benny Halevy, Dave Boone,\n",
                "\t             Erik Habbinga, Kris Strecker, Walter Wong, Joshua Root,\n",
                "\t             Fabrice Bacchella, Zhenghua Xue, Qin Li, Darren Sawyer,\n",
                "\t             Vangel Bojaxhi, Ben England, Vikentsi Lapa,\n",
                "\t             Alexey Skidanov, Sudhir Kumar.\n",
                "\n",
                "\tRun began: Mon Nov 23 04:31:57 2026\n",
                "\n",
            ),
            std::env::consts::OS,
            std::env::consts::ARCH
        )
    }

    const GETTIMEOFDAY: Resolutions = Resolutions {
        time_s: 0.000001,
        cpu_s: 0.0,
    };

    /// IOzone's lines after the command line in kB/s, with the
    /// resolution of gettimeofday.
    const KB_LINES: &str = concat!(
        "\tOutput is in kBytes/sec\n",
        "\tTime Resolution = 0.000001 seconds.\n",
        "\tProcessor cache size set to 1024 kBytes.\n",
        "\tProcessor cache line size set to 32 bytes.\n",
        "\tFile stride size set to 17 * record size.\n",
    );

    fn preamble_of(line: &str) -> String {
        let args: Vec<String> = line.split_whitespace().map(String::from).collect();
        let cfg = crate::suites::iozone::flags::parse_with_page_size(&args, 4096)
            .unwrap()
            .config;
        // ctime's text comes with its newline, as IOzone prints it
        preamble_with(
            &cfg,
            &format!("iozone {line}"),
            "Mon Nov 23 04:31:57 2026\n",
            GETTIMEOFDAY,
        )
    }

    // The lines after the banner were printed by IOzone 3.489 (built
    // with `make linux-AMD64`) for the same command lines.
    #[test]
    fn preamble_of_auto_mode() {
        assert_eq!(
            preamble_of("-a"),
            banner()
                + "\tAuto Mode\n"
                + "\tCommand line used: iozone -a\n"
                + KB_LINES
                + &header(false, &Column::ALL)
        );
    }

    #[test]
    fn preamble_of_single_mode_with_flags() {
        assert_eq!(
            preamble_of("-s 64m -r 64k -i 0 -e -c -I"),
            banner()
                + concat!(
                    "\tFile size set to 65536 kB\n",
                    "\tRecord Size 64 kB\n",
                    "\tInclude fsync in write timing\n",
                    "\tInclude close in write timing\n",
                    "\tO_DIRECT feature enabled\n",
                    "\tCommand line used: iozone -s 64m -r 64k -i 0 -e -c -I\n",
                )
                + KB_LINES
                + &header(false, &Column::ALL)
        );
    }

    #[test]
    fn preamble_of_throughput_mode() {
        assert_eq!(
            preamble_of("-t 3 -T"),
            banner()
                + "\tCommand line used: iozone -t 3 -T\n"
                + KB_LINES
                + "\tThroughput test with 3 threads\n"
        );
        let tail = |line: &str| {
            let p = preamble_of(line);
            p[p.find("\tFile stride").unwrap()..].to_string()
        };
        assert_eq!(
            tail("-l 2 -u 3 -i 0"),
            concat!(
                "\tFile stride size set to 17 * record size.\n",
                "\tMin process = 2 \n",
                "\tMax process = 3 \n",
                "\tThroughput test with 2 processes\n",
            )
        );
        assert!(tail("-t 1").ends_with("\tThroughput test with 1 process\n"));
    }

    #[test]
    fn preamble_flag_lines() {
        let p = preamble_of("-a -n 64k -g 128k -q 16k -i 0 -+u -R");
        // IOzone 3.489's lines for this command line, in its order
        assert!(
            p.contains(concat!(
                "\tAuto Mode\n",
                "\tUsing minimum file size of 64 kilobytes.\n",
                "\tUsing maximum file size of 128 kilobytes.\n",
                "\tUsing Maximum Record Size 16 kB\n",
                "\tCPU utilization Resolution = 0.000 seconds.\n",
                "\tCPU utilization Excel chart enabled\n",
                "\tExcel chart generation enabled\n",
                "\tCommand line used: iozone -a -n 64k -g 128k -q 16k -i 0 -+u -R\n",
            )),
            "{p}"
        );
        let p = preamble_of("-p -w -x -t 2 -+n -+p 30 -O -o -j 5 -E");
        for line in [
            "\tPurge Mode On\n",
            "\tSetting no_unlink\n",
            "\tStonewall disabled\n",
            "\tNo retest option selected\n",
            "\tPercent read in mix test is 30\n",
            "\tOPS Mode. Output is in operations per second.\n",
            "\tSYNC Mode. \n",
            "\tFile stride size set to 5 * record size.\n",
        ] {
            assert!(p.contains(line), "{line:?} in {p}");
        }
        assert!(!p.contains("Output is in kBytes/sec"));
        let p = preamble_of("-az -y 8k -N -E");
        assert!(p.contains("\tAuto Mode\n\tCross over of record size disabled.\n"));
        assert!(p.contains("\tUsing Minimum Record Size 8 kB\n"));
        assert!(p.contains("\tMicroseconds/op Mode. Output is in microseconds per operation.\n"));
        // -E's columns as IOzone built for Linux prints them: up to pread
        let linux_e: Vec<Column> = Column::ALL.into_iter().filter(|c| c.test() <= 10).collect();
        assert!(p.ends_with(&header(true, &linux_e)));
        // several -s imply auto mode without IOzone's "Auto Mode" line
        let p = preamble_of("-s 1m -s 2m");
        assert!(!p.contains("Auto Mode"));
        assert!(p.contains("\tFile size set to 1024 kB\n\tFile size set to 2048 kB\n"));
        // this system's resolutions
        let cfg = Config::default();
        let p = preamble(&cfg, "iogauge iozone", &ctime(0));
        assert!(p.contains("\tTime Resolution = 0.0000"), "{p}");
        assert_eq!(ctime(0).len(), 24, "{}", ctime(0));
        assert!(!Resolutions::of_this_system(true).cpu_s.is_nan());
    }

    #[test]
    fn text_table_skips_crossover_rows() {
        let t = text_table(&small_table());
        assert_eq!(t.lines().count(), 2 + 4);
        // read..freread unselected: IOzone's 18+18+9+10+10+18+17 blanks
        // (its -i 0 row ends in 100 spaces)
        let last = format!(
            "              32      16      400      410{}\n",
            " ".repeat(100)
        );
        assert!(t.ends_with(&last), "{t:?}");
    }

    #[test]
    fn sections_follow_selection_and_e_flag() {
        let mut t = small_table();
        t.selected = Column::ALL.to_vec();
        assert_eq!(t.sections().len(), 13);
        t.extended = true;
        assert_eq!(t.sections().len(), 21);
        t.reclens_kb.clear();
        assert_eq!(t.header_reclens(), vec![4, 8, 16]);
        assert!(Column::for_test(8).is_empty());
        assert_eq!(Column::for_test(12), vec![Column::Preadv, Column::Repreadv]);
    }

    /// The sheet as calamine reads a worksheet back: empty cells inside
    /// its extent, nothing outside.
    fn cells(sheet: &Sheet) -> calamine::Range<Data> {
        use crate::report::sheet::Cell;
        let Some(end) = sheet.end() else {
            return calamine::Range::empty();
        };
        let mut r = calamine::Range::new((0, 0), (end.0, u32::from(end.1)));
        for (row, col, c) in sheet.cells() {
            let v = match c {
                Cell::Text(t) => Data::String(t.clone()),
                Cell::Number(n) => Data::Float(*n),
            };
            r.set_value((row, u32::from(col)), v);
        }
        r
    }

    fn s(x: &str) -> Data {
        Data::String(x.to_string())
    }

    fn f(x: f64) -> Data {
        Data::Float(x)
    }

    /// The four lines that open a throughput report at `row`: its title,
    /// the record size, the units and the first phase's name.
    fn assert_throughput_head(r: &calamine::Range<Data>, row: u32, title: &str, units: &str) {
        let at = |row: u32| r.get_value((row, 0)).cloned();
        assert_eq!(at(row), Some(s(title)));
        assert_eq!(at(row + 1), Some(s("Record size = 4 kBytes")));
        assert_eq!(at(row + 2), Some(s(&format!("Output is in {units}"))));
        assert_eq!(at(row + 3), Some(s("  Initial write ")));
    }

    #[test]
    fn workbook_holds_iozone_layout() {
        let cmd = "iozone -a -i 0 -b out.xls";
        let wb = workbook(&small_table(), cmd).unwrap();
        let r = cells(&wb);
        let at = |row: u32, col: u32| r.get_value((row, col)).cloned();
        assert_eq!(at(0, 0), Some(s(cmd)));
        assert_eq!(at(1, 0), Some(s(" ")));
        assert_eq!(
            at(2, 0),
            Some(s(
                "The top row is records sizes, the left column is file sizes"
            ))
        );
        let section = |top: u32, title: &str, v8: [f64; 2], v32: [f64; 3]| {
            assert_eq!(at(top, 0), Some(s(title)));
            assert_eq!(at(top + 1, 0), Some(Data::Empty));
            assert_eq!(at(top + 1, 1), Some(f(4.0)));
            assert_eq!(at(top + 1, 2), Some(f(8.0)));
            assert_eq!(at(top + 1, 3), Some(f(16.0)));
            assert_eq!(at(top + 2, 0), Some(f(8.0)));
            assert_eq!(at(top + 2, 1), Some(f(v8[0])));
            assert_eq!(at(top + 2, 2), Some(f(v8[1])));
            assert_eq!(at(top + 2, 3), Some(Data::Empty));
            assert_eq!(at(top + 3, 0), Some(f(32.0)));
            for (i, v) in v32.iter().enumerate() {
                assert_eq!(at(top + 3, 1 + i as u32), Some(f(*v)));
            }
        };
        section(3, "Writer Report", [100.0, 200.0], [0.0, 300.0, 400.0]);
        section(7, "Re-writer Report", [110.0, 210.0], [0.0, 310.0, 410.0]);
        assert_eq!(r.end(), Some((10, 3)));
    }

    #[cfg(feature = "xlsx")]
    #[test]
    fn workbook_file_keeps_the_name_given() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["out.xls", "out.xlsx"] {
            let p = dir.path().join(name);
            write_workbook(&p, &small_table(), "iozone").unwrap();
            use calamine::{Reader, Xlsx, open_workbook};
            let mut wb: Xlsx<_> = open_workbook(&p).unwrap();
            let r = wb.worksheet_range("Sheet1").unwrap();
            assert_eq!(r.get_value((3, 0)), Some(&s("Writer Report")));
        }
        let err =
            write_workbook(&dir.path().join("no/such/dir.xlsx"), &small_table(), "").unwrap_err();
        assert!(err.starts_with("cannot write the workbook "), "{err}");
        assert!(!err.contains('\n'));
    }

    fn three() -> PhaseResult {
        PhaseResult {
            phase: Phase::InitialWrite,
            children: vec![
                ChildResult {
                    rate: 1000.5,
                    actual: 512.0,
                },
                ChildResult {
                    rate: 2000.25,
                    actual: 300.0,
                },
                ChildResult {
                    rate: 3000.0,
                    actual: 512.0,
                },
            ],
            parent_secs: 0.5,
        }
    }

    #[test]
    fn throughput_lines_match_iozone() {
        let r = three();
        assert_eq!(r.children_rate(), 6000.75);
        assert_eq!(r.avg_rate(), 6000.75 / 3.0);
        assert_eq!((r.min_rate(), r.max_rate()), (1000.5, 3000.0));
        assert_eq!(r.min_xfer(), 300.0);
        assert_eq!(r.parent_rate(), 1324.0 / 0.5);
        let st = ThroughputStyle {
            per_child: true,
            ..Default::default()
        };
        assert_eq!(
            throughput_text(&r, st),
            concat!(
                "\n",
                "\tChildren see throughput for  3 initial writers \t=    6000.75 kB/sec\n",
                "\tParent sees throughput for  3 initial writers \t=    2648.00 kB/sec\n",
                "\tMin throughput per process \t\t\t=    1000.50 kB/sec \n",
                "\tMax throughput per process \t\t\t=    3000.00 kB/sec\n",
                "\tAvg throughput per process \t\t\t=    2000.25 kB/sec\n",
                "\tMin xfer \t\t\t\t\t=     300.00 kB\n",
                "\tChild[0] xfer count =     512.00 kB, Throughput =    1000.50 kB/sec\n",
                "\tChild[1] xfer count =     300.00 kB, Throughput =    2000.25 kB/sec\n",
                "\tChild[2] xfer count =     512.00 kB, Throughput =    3000.00 kB/sec\n",
            )
        );
    }

    fn two_lines(phase: Phase, n: usize, st: ThroughputStyle) -> String {
        let r = PhaseResult {
            phase,
            children: vec![
                ChildResult {
                    rate: 10.0 / n as f64,
                    actual: 5.0 / n as f64,
                };
                n
            ],
            parent_secs: 0.5,
        };
        throughput_text(&r, st)
            .lines()
            .skip(1)
            .take(2)
            .collect::<Vec<_>>()
            .join("\n")
            + "\n"
    }

    #[test]
    fn each_phase_keeps_its_own_tabs_and_count_width() {
        let ops_threads = ThroughputStyle {
            threads: true,
            units: Units::OpsPerSec,
            per_child: false,
        };
        assert_eq!(
            two_lines(Phase::Reread, 12, ops_threads),
            concat!(
                "\tChildren see throughput for 12 re-readers \t=      10.00 ops/sec\n",
                "\tParent sees throughput for 12 re-readers \t=      10.00 ops/sec\n",
            )
        );
        let kb = ThroughputStyle::default();
        assert_eq!(
            two_lines(Phase::Read, 2, kb) + &two_lines(Phase::Fwrite, 2, kb),
            concat!(
                "\tChildren see throughput for  2 readers \t\t=      10.00 kB/sec\n",
                "\tParent sees throughput for  2 readers \t\t=      10.00 kB/sec\n",
                "\tChildren see throughput for  2 fwriters \t=      10.00 kB/sec\n",
                "\tParent sees throughput for  2 fwriters \t\t=      10.00 kB/sec\n",
            )
        );
        let t = throughput_text(
            &PhaseResult {
                phase: Phase::Mixed,
                children: vec![ChildResult::default(); 2],
                parent_secs: 0.0,
            },
            ops_threads,
        );
        assert!(t.contains("\tMin throughput per thread \t\t\t=       0.00 ops/sec \n"));
        assert!(t.contains("\tMin xfer \t\t\t\t\t=       0.00 ops\n"));
        // No children, no time: zeros, no NaN.
        assert!(!throughput_text(&PhaseResult::default(), kb).contains("NaN"));
    }

    fn tp_table() -> ThroughputTable {
        ThroughputTable {
            reclen_kb: 4,
            threads: false,
            units: Units::KbPerSec,
            rows: vec![
                ThroughputRow {
                    phase: Phase::InitialWrite,
                    values: vec![1234.5, 2345.678],
                },
                ThroughputRow {
                    phase: Phase::Rewrite,
                    values: vec![0.0, 12345678.9],
                },
            ],
            cpu: Vec::new(),
        }
    }

    #[test]
    fn throughput_excel_text_matches_iozone() {
        assert_eq!(
            throughput_excel_text(&tp_table()),
            concat!(
                "\n",
                "\"Throughput report Y-axis is type of test X-axis is number of processes\"\n",
                "\"Record size = 4 kBytes \"\n",
                "\"Output is in kBytes/sec\"\n",
                "\n",
                "\"  Initial write \"    1234.50     2345.68 \n",
                "\n",
                "\"        Rewrite \"       0.00  12345678.90 \n",
                "\n",
            )
        );
    }

    #[test]
    fn throughput_workbook_holds_iozone_layout() {
        let mut t = tp_table();
        t.threads = true;
        t.units = Units::OpsPerSec;
        let wb = throughput_workbook(&t, "iozone -t 1 -t 2 -O -T -b t.xlsx").unwrap();
        let r = cells(&wb);
        let at = |row: u32, col: u32| r.get_value((row, col)).cloned();
        assert_eq!(at(0, 0), Some(s("iozone -t 1 -t 2 -O -T -b t.xlsx")));
        assert_throughput_head(
            &r,
            1,
            "Throughput report Y-axis is type of test X-axis is number of threads",
            "ops/sec",
        );
        assert_eq!(at(4, 1), Some(Data::Empty));
        assert_eq!(at(4, 2), Some(f(1234.5)));
        assert_eq!(at(4, 3), Some(f(2345.678)));
        assert_eq!(at(5, 0), Some(s("        Rewrite ")));
        assert_eq!(at(5, 3), Some(f(12345678.9)));
        assert_eq!(r.end(), Some((5, 3)));
        // -+u: IOzone's CPU utilization report goes on below
        let mut t = tp_table();
        t.cpu = vec![ThroughputRow {
            phase: Phase::InitialWrite,
            values: vec![12.5, 25.0],
        }];
        let r = cells(&throughput_workbook(&t, "iozone -t 2 -+u -b t.xls").unwrap());
        let at = |row: u32, col: u32| r.get_value((row, col)).cloned();
        assert_throughput_head(
            &r,
            6,
            "CPU utilization report Y-axis is type of test X-axis is number of processes",
            "CPU%",
        );
        assert_eq!(at(9, 3), Some(f(25.0)));
        let text = throughput_excel_text(&t);
        assert!(
            text.ends_with(
                "\n\"CPU utilization report Y-axis is type of test X-axis is number of processes\"\n\"Record size = 4 kBytes \"\n\"Output is in CPU%\"\n\n\"  Initial write \"      12.50       25.00 \n\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn intro_and_banner_lines() {
        assert_eq!(
            throughput_intro(false, 512, 4),
            "\tEach process writes a 512 kByte file in 4 kByte records\n"
        );
        assert_eq!(Units::KbPerSec.banner(), "\tOutput is in kBytes/sec\n");
        let names: std::collections::BTreeSet<_> = Column::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(names.len(), Column::ALL.len());
        assert_eq!(Phase::ALL.len(), 13);
    }
}
