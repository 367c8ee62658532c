//! The reports the two programs print: Bonnie's table (and its HTML row),
//! bonnie++'s two text tables and its CSV line of 50 fields, which
//! bon_csv2html and bon_csv2txt read.
//!
//! Where bonnie++ 2.00a prints wrongly, iogauge prints what was meant:
//! the file-test rates of the text table are the real rates (2.00a passes
//! a double to `%d`), the CSV's chunk-size fields (6 and 25) hold the
//! chunk sizes (2.00a leaves them empty and writes the directory count
//! where the file chunk size belongs), and the `-x` header names all 50
//! fields (2.00a's lacks the seek columns).

use super::{Figures, Flavor, MIB, Options, Test, TestFigures};
use std::time::Duration;

/// A test shorter than this prints `+++++`: too short to time (bonnie++).
pub const MIN_TIME: f64 = 0.5;
pub const VERSION: &str = "2.00a";
pub const CSV_VERSION: &str = "1.98";

/// bonnie++'s print_size: `n` with the largest unit of `units` that
/// divides it (`"MG"`: 1024M prints as 1G; `" km"`: 8192 as 8k).
pub fn print_size(n: u64, units: &str) -> String {
    let units: Vec<char> = units.chars().collect();
    let (n, i) = crate::units::whole_units(n, units.len().saturating_sub(1));
    format!("{n}{}", units.get(i).copied().unwrap_or(' '))
        .trim_end()
        .to_string()
}

fn chunk_text(bytes: u32) -> String {
    print_size(u64::from(bytes), " km")
}

/// Bonnie's table: two header lines, the column line, one data line.
pub fn classic_text(o: &Options, r: &Figures) -> String {
    let pad = " ".repeat(14);
    let mut s = format!(
        "{pad}-------Sequential Output-------- ---Sequential Input-- --Random--\n\
         {pad}-Per Char- --Block--- -Rewrite-- -Per Char- --Block--- --Seeks---\n\
         Machine    MB K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU K/sec %CPU  /sec %CPU\n"
    );
    s += &format!("{:<8.8} {:>4} ", o.machine, o.file_bytes() / MIB);
    s += &columns(r, |m, seeks| match (m, seeks) {
        (Some(m), false) => format!("{:>5} {:>4.1} ", m.rate as i64, m.cpu_percent),
        (Some(m), true) => format!("{:>5.1} {:>4.1}", m.rate, m.cpu_percent),
        (None, false) => " ".repeat(11),
        (None, true) => " ".repeat(10),
    });
    s.push('\n');
    s
}

/// Bonnie's six columns, each test's (the figures if it ran) through
/// `cell`, which is told whether it is the seeks (a rate with a decimal).
fn columns(r: &Figures, cell: impl Fn(Option<&TestFigures>, bool) -> String) -> String {
    Test::ALL[..6]
        .iter()
        .map(|&t| cell(r.test(t), t == Test::Seeks))
        .collect()
}

/// Bonnie's `-html` row, the same figures as the table's.
pub fn classic_html(o: &Options, r: &Figures) -> String {
    let mut s = format!(
        "<TR><TD>{}</TD><TD>{}</TD>",
        html_escape(&o.machine),
        o.file_bytes() / MIB
    );
    s += &columns(r, |m, seeks| match (m, seeks) {
        (Some(m), false) => format!("<TD>{}</TD><TD>{:.1}</TD>", m.rate as i64, m.cpu_percent),
        (Some(m), true) => format!("<TD>{:.1}</TD><TD>{:.1}</TD>", m.rate, m.cpu_percent),
        (None, _) => "<TD></TD><TD></TD>".into(),
    });
    s += "</TR>\n";
    s
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// How bonnie++ prints one test's rate and CPU: text or CSV.
fn stat(t: Test, m: Option<&TestFigures>, csv: bool) -> String {
    let Some(m) = m else {
        return if csv { ",,".into() } else { " ".repeat(10) };
    };
    if m.elapsed_s < MIN_TIME {
        return if csv {
            ",+++++,+++".into()
        } else {
            " +++++ +++".into()
        };
    }
    let rate = m.rate;
    let cpu = m.cpu_percent as i64;
    let r = match (t, csv) {
        (Test::Seeks, false) if rate >= 1000.0 => format!(" {rate:>5.0}"),
        (Test::Seeks, false) => format!(" {rate:>5.1}"),
        (Test::Seeks, true) if rate >= 1000.0 => format!(",{rate:.0}"),
        (Test::Seeks, true) => format!(",{rate:.1}"),
        (_, true) => format!(",{}", rate as i64),
        (t, false) if t < Test::Seeks => {
            if rate < 10000.0 {
                format!(" {:>4}k", rate as i64)
            } else if rate / 1024.0 < 1000.0 {
                let mb = rate / 1024.0;
                if mb < 100.0 {
                    format!(" {mb:>4.1}m")
                } else {
                    format!(" {:>4}m", (mb + 0.5) as i64)
                }
            } else {
                format!(" {:>4.1}g", rate / 1024.0 / 1024.0)
            }
        }
        (_, false) => format!(" {:>5}", rate as i64),
    };
    if csv {
        format!("{r},{cpu}")
    } else {
        format!("{r} {cpu:>3}")
    }
}

/// bonnie++'s latency: `us` below 0.1 s, `ms` below 100 s, then `s`.
pub fn latency_text(m: Option<&TestFigures>) -> String {
    let Some(m) = m else {
        return String::new();
    };
    let l = Duration::from_nanos(m.latency_max_ns).as_secs_f64();
    if l == 0.0 {
        String::new()
    } else if l > 99.999999 {
        format!("{}s", l as i64)
    } else if l > 0.099999 {
        format!("{}ms", (l * 1000.0) as i64)
    } else {
        format!("{}us", (l * 1e6) as i64)
    }
}

/// The size part of bonnie++'s name field: `64M`, then `:chunk:copies:
/// seeks:seekers` where they differ from the defaults.
fn size_field(o: &Options) -> String {
    let unless = |default: bool, text: String| if default { String::new() } else { text };
    [
        print_size(o.size_mib, "MG"),
        unless(o.chunk == 8192, chunk_text(o.chunk)),
        unless(o.concurrency == 1, o.concurrency.to_string()),
        unless(o.seeks == 8192, o.seeks.to_string()),
        unless(o.seekers == 5, o.seekers.to_string()),
    ]
    .join(":")
    .trim_end_matches(':')
    .to_string()
}

/// bonnie++'s two text tables (each only when its tests ran).
pub fn pp_text(o: &Options, r: &Figures) -> String {
    let mut s = String::new();
    if o.size_mib > 0 {
        s += &format!(
            "Version {VERSION:>5}       ------Sequential Output------ --Sequential Input- --Random-\n\
             {:20}-Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--\n\
             Name:Size etc        /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP\n",
            ""
        );
        let size = size_field(o);
        let mut name: String = format!("{:<18}", o.machine).chars().take(18).collect();
        let offset = 18i64 - size.len() as i64;
        if offset < 0 {
            name = size;
        } else {
            name.truncate(offset as usize);
            name += " ";
            name += &size;
        }
        s += &name;
        for t in &Test::ALL[..6] {
            s += &stat(*t, r.test(*t), false);
        }
        s += "\nLatency          ";
        for t in &Test::ALL[..6] {
            s += &format!(" {:>9}", latency_text(r.test(*t)));
        }
        s.push('\n');
    }
    if let Some(f) = o.files {
        let mut what = f.num.to_string();
        match f.max {
            -1 => what += ":link",
            -2 => what += ":symlink",
            0 => {}
            max => what += &format!(":{max}:{}", f.min),
        }
        if f.dirs > 1 {
            what += &format!("/{}", f.dirs);
        }
        let label = if f.min > 0 {
            "files:max:min       "
        } else if f.max > 0 {
            "files:max           "
        } else {
            "              files "
        };
        let machine: String = o.machine.chars().take(19).collect();
        s += &format!(
            "Version {VERSION:>5}       ------Sequential Create------ --------Random Create--------\n\
             {machine:<19} -Create-- --Read--- -Delete-- -Create-- --Read--- -Delete--\n\
             {label} /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP\n\
             {what:>19}"
        );
        for t in &Test::ALL[6..] {
            s += &stat(*t, r.test(*t), false);
        }
        s += "\nLatency          ";
        for t in &Test::ALL[6..] {
            s += &format!(" {:>9}", latency_text(r.test(*t)));
        }
        s.push('\n');
    }
    s
}

/// The 50 names of the CSV's fields, in order (`-x` prints them first).
pub const CSV_FIELDS: [&str; 50] = [
    "format_version",
    "bonnie_version",
    "name",
    "concurrency",
    "seed",
    "file_size",
    "io_chunk_size",
    "num_seeks",
    "seek_proc_count",
    "putc",
    "putc_cpu",
    "put_block",
    "put_block_cpu",
    "rewrite",
    "rewrite_cpu",
    "getc",
    "getc_cpu",
    "get_block",
    "get_block_cpu",
    "seeks",
    "seeks_cpu",
    "num_files",
    "max_size",
    "min_size",
    "num_dirs",
    "file_chunk_size",
    "seq_create",
    "seq_create_cpu",
    "seq_stat",
    "seq_stat_cpu",
    "seq_del",
    "seq_del_cpu",
    "ran_create",
    "ran_create_cpu",
    "ran_stat",
    "ran_stat_cpu",
    "ran_del",
    "ran_del_cpu",
    "putc_latency",
    "put_block_latency",
    "rewrite_latency",
    "getc_latency",
    "get_block_latency",
    "seeks_latency",
    "seq_create_latency",
    "seq_stat_latency",
    "seq_del_latency",
    "ran_create_latency",
    "ran_stat_latency",
    "ran_del_latency",
];

/// The header line `-x` prints before its CSV lines.
pub fn csv_header() -> String {
    CSV_FIELDS.join(",")
}

/// bonnie++'s CSV line (no newline).
pub fn csv_line(o: &Options, r: &Figures) -> String {
    let mut s = format!(
        "{CSV_VERSION},{VERSION},{},{},{}",
        o.machine.replace(',', " "),
        o.concurrency,
        o.seed.label().replace(',', " ")
    );
    if o.size_mib > 0 {
        s += &format!(
            ",{},{},{},{}",
            print_size(o.size_mib, "MG"),
            chunk_text(o.chunk),
            o.seeks,
            o.seekers
        );
        for t in &Test::ALL[..6] {
            s += &stat(*t, r.test(*t), true);
        }
    } else {
        s += &",".repeat(16);
    }
    match o.files {
        Some(f) => {
            s += &format!(",{}", f.num);
            s += &match f.max {
                -1 => ",link,".to_string(),
                -2 => ",symlink,".to_string(),
                0 => ",,".to_string(),
                max if f.min > 0 => format!(",{max},{}", f.min),
                max => format!(",{max},"),
            };
            s += &if f.dirs > 1 {
                format!(",{}", f.dirs)
            } else {
                ",".to_string()
            };
            s += &format!(",{}", chunk_text(f.chunk));
            for t in &Test::ALL[6..] {
                s += &stat(*t, r.test(*t), true);
            }
        }
        None => s += &",".repeat(17),
    }
    for t in Test::ALL {
        s += &format!(",{}", latency_text(r.test(t)));
    }
    s
}

/// The one-line heading of iogauge's details below the classic report.
pub fn flavor_name(f: Flavor) -> &'static str {
    match f {
        Flavor::Bonnie => "Bonnie (1996)",
        Flavor::BonniePlusPlus => "bonnie++ 2.00a",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_print_as_bonnie_pp_does() {
        assert_eq!(print_size(64, "MG"), "64M");
        assert_eq!(print_size(1024, "MG"), "1G");
        assert_eq!(print_size(1536, "MG"), "1536M");
        assert_eq!(print_size(8192, " km"), "8k");
        assert_eq!(print_size(512, " km"), "512");
        assert_eq!(print_size(1 << 20, " km"), "1m");
    }

    /// Test `t`'s figures as measured: `work` in `elapsed` seconds.
    fn m(t: Test, elapsed: f64, work: u64, cpu: f64, lat_us: u64) -> TestFigures {
        let m = crate::suites::bonnie::Measured {
            elapsed: Duration::from_secs_f64(elapsed),
            cpu: crate::measure::CpuTimes {
                user: Duration::from_secs_f64(cpu),
                ..Default::default()
            },
            latency: Duration::from_micros(lat_us),
            work,
            ..Default::default()
        };
        TestFigures::of(t, &m, false)
    }

    #[test]
    fn rates_take_bonnie_pp_units() {
        // 2806 KiB/s
        assert_eq!(
            stat(
                Test::Putc,
                Some(&m(Test::Putc, 1.0, 2806 * 1024, 0.99, 1)),
                false
            ),
            " 2806k  99"
        );
        // 50 MiB/s: m with one decimal
        assert_eq!(
            stat(
                Test::PutBlock,
                Some(&m(Test::PutBlock, 2.0, 100 * MIB, 0.5, 1)),
                false
            ),
            " 50.0m  25"
        );
        // 500 MiB/s: whole m
        assert_eq!(
            stat(
                Test::PutBlock,
                Some(&m(Test::PutBlock, 1.0, 500 * MIB, 0.5, 1)),
                false
            ),
            "  500m  50"
        );
        // 2 GiB/s: g
        assert_eq!(
            stat(
                Test::GetBlock,
                Some(&m(Test::GetBlock, 1.0, 2048 * MIB, 1.0, 1)),
                false
            ),
            "  2.0g 100"
        );
        assert_eq!(
            stat(Test::Seeks, Some(&m(Test::Seeks, 1.0, 812, 0.1, 1)), false),
            " 812.0  10"
        );
        assert_eq!(
            stat(Test::Seeks, Some(&m(Test::Seeks, 1.0, 7418, 0.1, 1)), true),
            ",7418,10"
        );
        assert_eq!(
            stat(
                Test::SeqCreate,
                Some(&m(Test::SeqCreate, 1.0, 621, 0.03, 1)),
                false
            ),
            "   621   3"
        );
        assert_eq!(
            stat(
                Test::SeqCreate,
                Some(&m(Test::SeqCreate, 0.4, 621, 0.03, 1)),
                true
            ),
            ",+++++,+++"
        );
        assert_eq!(stat(Test::RanDel, None, true), ",,");
    }

    #[test]
    fn latency_units_switch_as_bonnie_pp_does() {
        assert_eq!(
            latency_text(Some(&m(Test::Putc, 1.0, 1, 0.0, 5584))),
            "5584us"
        );
        assert_eq!(
            latency_text(Some(&m(Test::Putc, 1.0, 1, 0.0, 150_000))),
            "150ms"
        );
        assert_eq!(
            latency_text(Some(&m(Test::Putc, 1.0, 1, 0.0, 120_000_000))),
            "120s"
        );
        assert_eq!(latency_text(None), "");
    }
}
