//! fio job files: `[global]` and job sections (or options before any),
//! every option iogauge takes with a value of its kind (sizes with fio's
//! suffixes and `KiB` forms, per-direction lists and ranges, `bssplit`,
//! times with their units, percentages, booleans, `(…)` and `$((…))`
//! expressions, `${ENV}` and `$ncpus` with arithmetic), fio options iogauge
//! does not take and names fio does not know, `include` lines (of the file
//! itself, or of one that is not there), `;` and `#` comments, options
//! alone, junk.

use super::{Target, Verdict, file_refusal, junk, lines_of, number_near};
use crate::suites::fio::job::{self, SUPPORTED};
use crate::suites::fio::jobfile::{self, MAX_JOBS, Machine, Settings};
use crate::suites::fio::show::parse_report as fio_parse_report;
use proptest::prelude::*;
use std::path::{Path, PathBuf};

pub const TARGET: Target = Target {
    name: "fio-job",
    ext: "fio",
    generate,
    check,
};

fn size() -> BoxedStrategy<String> {
    let suffix = prop::sample::select(vec![
        "", "k", "K", "kb", "KiB", "m", "MiB", "g", "t", "p", "b", "%", "x", ".5k", "kx",
    ]);
    prop_oneof![
        4 => prop::sample::select(vec!["4k", "8k", "64k", "1m", "128m", "1g", "4096", "512"])
            .prop_map(String::from),
        2 => (number_near(&[0, 1, 100, 4096, 1 << 31, 1 << 32, 1 << 50, 1 << 60]), suffix)
            .prop_map(|(n, s)| format!("{n}{s}")),
        1 => prop::sample::select(vec![
            "(2*1024)m", "$((2*1024))m", "(1+1k)", "(4kib)", "(1/0)", "(2^40)", "(3*1024*1024*1024)",
            "(1.5*1024)", "(-4)", "(((1)", "(10%3)", "0x1000", "$ncpus", "$pagesize*2",
            "$mb_memory/1024", "${SIZE}", "$ncpus*2k",
        ])
        .prop_map(String::from),
    ]
    .boxed()
}

fn time() -> BoxedStrategy<String> {
    let unit = prop::sample::select(vec!["", "s", "ms", "us", "m", "h", "d", "sec", "msec", "M"]);
    prop_oneof![
        3 => (0u64..1000, unit).prop_map(|(n, u)| format!("{n}{u}")),
        1 => (number_near(&[1 << 31, 2_592_000, 2_592_001]), prop::sample::select(vec!["", "s", "us"]))
            .prop_map(|(n, u)| format!("{n}{u}")),
        1 => prop::sample::select(vec!["(10)", "(1m)", "(1500ms)", "(2*1ms)", "1.5s", "-1"])
            .prop_map(String::from),
    ]
    .boxed()
}

fn count() -> BoxedStrategy<String> {
    prop_oneof![
        6 => (0u32..8).prop_map(|n| n.to_string()),
        1 => number_near(&[64, 4096, 4097, u64::from(u32::MAX)]),
        1 => Just("$ncpus".to_string()),
    ]
    .boxed()
}

fn list(one: BoxedStrategy<String>) -> BoxedStrategy<String> {
    (
        prop::collection::vec(one, 1..4),
        prop::sample::select(vec![",", ":", "-", ",,"]),
    )
        .prop_map(|(v, sep)| v.join(sep))
        .boxed()
}

fn value_of(name: &'static str) -> BoxedStrategy<String> {
    let words = |w: &[&'static str]| {
        prop::sample::select(w.to_vec())
            .prop_map(String::from)
            .boxed()
    };
    match name {
        "rw" => (
            words(&[
                "read",
                "write",
                "randread",
                "randwrite",
                "rw",
                "readwrite",
                "randrw",
                "trim",
                "randtrim",
                "trimwrite",
                "randtrimwrite",
                "rand",
            ]),
            prop::option::of(count()),
        )
            .prop_map(|(w, n)| match n {
                Some(n) => format!("{w}:{n}"),
                None => w,
            })
            .boxed(),
        "ioengine" => words(&[
            "psync",
            "sync",
            "pvsync",
            "pvsync2",
            "io_uring",
            "libaio",
            "mmap",
            "null",
            "posixaio",
            "splice",
            "nope",
            "external:/x.so",
        ]),
        "bs" | "rate" | "rate_iops" | "filesize" => list(size()),
        "bsrange" => list(
            (size(), size())
                .prop_map(|(a, b)| format!("{a}-{b}"))
                .boxed(),
        ),
        "bssplit" => list(
            prop::collection::vec(
                (size(), prop::option::of(0u32..120)).prop_map(|(s, p)| match p {
                    Some(p) => format!("{s}/{p}"),
                    None => s,
                }),
                1..4,
            )
            .prop_map(|v| v.join(":"))
            .boxed(),
        ),
        "size" | "offset" | "offset_increment" | "randseed" => size(),
        "runtime" | "ramp_time" | "thinktime" | "thinktime_spin" => time(),
        "direct" | "buffered" | "thread" | "time_based" | "end_fsync" | "norandommap"
        | "randrepeat" | "group_reporting" | "stonewall" | "new_group" | "invalidate"
        | "overwrite" | "create_fsync" => words(&["0", "1", "1", "2", "yes", ""]),
        "fallocate" => words(&["native", "none", "posix", "1", "2", "x"]),
        "fadvise_hint" => words(&["0", "1", "random", "noreuse", "x"]),
        "kb_base" => words(&["1024", "1000", "1001"]),
        "rate_process" => words(&["linear", "poisson", "x"]),
        "verify" => words(&["0", "md5", "crc32c", "crc99"]),
        "rwmixread" | "rwmixwrite" => (0u32..120).prop_map(|n| n.to_string()).boxed(),
        "random_distribution" => words(&["random", "zipf:1.2", "pareto:0.3", "normal:5"]),
        "wait_for" => words(&["a", "b", "job", "global"]),
        "filename" | "directory" | "description" => prop_oneof![
            4 => "[a-z/._]{1,12}",
            1 => Just("/tmp/${HOME}x\\:y:z".to_string()),
            1 => junk(),
        ]
        .boxed(),
        _ => count(),
    }
}

/// A value fio and iogauge read for option `name`: most lines of a
/// generated file are good, so that whole files get through.
fn good_value(name: &'static str) -> BoxedStrategy<String> {
    let w: &[&'static str] = match name {
        "rw" => &[
            "read",
            "randwrite",
            "randrw:8",
            "write:4k",
            "rw",
            "trimwrite",
        ],
        "ioengine" => &["psync", "io_uring", "libaio", "null", "mmap", "pvsync2"],
        "bs" => &["4k", "8k,16k", ",64k", "(2*64)k", "4KiB", "0x1000"],
        "bsrange" => &["4k-16k", "16k:4k", "1k-4k,2k-8k"],
        "bssplit" => &["4k/10:64k/50:32k/40", "4k:8k", "512/50:4k,8k/100"],
        "size" | "filesize" => &["1m", "64m", "50%", "(2*1024)m", "$((4*1024))k", "1m-4m"],
        "offset" | "offset_increment" => &["0", "4k", "10%"],
        "randseed" => &["42", "0x89", "1k"],
        "rate" => &["1m", "1m,512k", "0"],
        "rate_iops" => &["100", "100,50", "1k"],
        "runtime" | "ramp_time" => &["10", "2s", "500ms", "1m", "(1m)", "1h"],
        "thinktime" | "thinktime_spin" => &["0", "50", "1ms", "(2*1ms)"],
        "kb_base" => &["1024", "1000"],
        "rate_process" => &["linear", "poisson"],
        "fallocate" => &["native", "none", "posix", "keep", "truncate", "0", "1"],
        "fadvise_hint" => &["0", "1", "random", "sequential"],
        "verify" => &["0", "md5", "crc32c"],
        "rwmixread" | "rwmixwrite" => &["0", "30", "70", "100"],
        "random_distribution" => &["random", "zipf:1.2"],
        "wait_for" => &["a"],
        "filename" => &["/tmp/f", "a\\:b:c", "${UNSET}f"],
        "directory" => &["/tmp", "d"],
        "description" => &["a job", "x"],
        "numjobs" => &["1", "2", "$ncpus", "$ncpus*2"],
        "iodepth" => &["1", "16", "1k", "$ncpus"],
        "direct" | "buffered" | "thread" | "time_based" | "end_fsync" | "norandommap"
        | "randrepeat" | "group_reporting" | "stonewall" | "new_group" | "invalidate"
        | "overwrite" | "create_fsync" => &["0", "1"],
        _ => &["1", "2", "4"],
    };
    prop::sample::select(w.to_vec())
        .prop_map(String::from)
        .boxed()
}

fn option_line() -> BoxedStrategy<String> {
    let supported = prop::sample::select(SUPPORTED.to_vec())
        .prop_flat_map(|n| {
            (
                Just(n),
                prop_oneof![8 => good_value(n), 1 => value_of(n)],
                prop::sample::select(vec!["=", "=", "=", "=", "=", "=", " = ", "= ", ""]),
                prop::sample::select(vec!["", "", "", "", " ; c", " # c", "\t"]),
            )
        })
        .prop_map(|(n, v, eq, tail)| {
            if eq.is_empty() {
                format!("{n}{tail}")
            } else {
                format!("{n}{eq}{v}{tail}")
            }
        });
    prop_oneof![
        60 => supported,
        2 => prop::sample::select(vec![
            "cpus_allowed=0-3", "hipri", "log_hist_msec=10", "blocksize=8k", "readwrite=randrw",
            "nr_files=2", "timeout=10", "iodepth_batch_submit=4", "wait_for_previous",
            "name=renamed", "numjobs=5000", "numjobs=3", "time_based",
        ])
        .prop_map(String::from),
        1 => prop::sample::select(vec!["blocksz=4k", "xyzzy", "=5", "bs"]).prop_map(String::from),
        1 => prop::sample::select(vec![
            "include case.in", "include missing.inc", "include", "include  /nonexistent/x",
        ])
        .prop_map(String::from),
        6 => prop::sample::select(vec![
            "[global]", "[a]", "[b]", "[job]", "[global-extra]", "[a b]", "; comment",
            "# comment", "   ",
        ])
        .prop_map(String::from),
        1 => prop::sample::select(vec!["[", "[]", "[a", "a]"])
        .prop_map(String::from),
    ]
    .boxed()
}

fn generate() -> BoxedStrategy<Vec<u8>> {
    (
        prop::sample::select(vec!["[global]", "[a]", "[job]", ""]),
        lines_of(option_line(), 10),
    )
        .prop_map(|(head, body)| {
            let mut v = if head.is_empty() {
                Vec::new()
            } else {
                format!("{head}\n").into_bytes()
            };
            v.extend(body);
            v
        })
        .boxed()
}

fn parse(input: &[u8]) -> Result<jobfile::Parsed, String> {
    let file = PathBuf::from(super::FILE);
    let data = input.to_vec();
    let read = move |p: &Path| {
        if p == Path::new(super::FILE) {
            Ok(data.clone())
        } else {
            Err(std::io::Error::from(std::io::ErrorKind::NotFound))
        }
    };
    let env = |k: &str| (k == "SIZE").then(|| "64m".to_string());
    let s = Settings {
        sections: Vec::new(),
        ignore_unsupported: false,
        env: &env,
        machine: Machine {
            ncpus: 2,
            pagesize: 4096,
            mb_memory: 2048,
        },
        read: &read,
    };
    jobfile::parse(&[], &[file], &s)
}

fn check(input: &[u8]) -> Result<Verdict, String> {
    let text = String::from_utf8_lossy(input);
    let parsed = match parse(input) {
        Err(e) => return file_refusal(&e, &text),
        Ok(p) => p,
    };
    if parsed.jobs.len() > MAX_JOBS {
        return Err(format!("accepted {} jobs", parsed.jobs.len()));
    }
    for j in &parsed.jobs {
        if j.iodepth == 0 || j.numjobs == 0 || j.nrfiles == 0 || j.loops == 0 {
            return Err(format!("accepted a count of 0 in job {}", j.name));
        }
        if [j.bs.read, j.bs.write, j.bs.trim].contains(&0) {
            return Err(format!("accepted a block size of 0 in job {}", j.name));
        }
        if j.rwmixread > 100 {
            return Err(format!("accepted rwmixread={}", j.rwmixread));
        }
        if let Some(s) = &j.bssplit {
            for d in [&s.read, &s.write, &s.trim] {
                let sum: u32 = d.iter().map(|x| x.percent).sum();
                if sum > 100 {
                    return Err(format!("accepted a bssplit of {sum} %"));
                }
            }
        }
        for (name, (at, _)) in &j.origin {
            if job::canonical(name).is_none() {
                return Err(format!("an origin for '{name}', not an option"));
            }
            if at.line == 0 || at.line > text.split('\n').count() {
                return Err(format!("{name} from line {}", at.line));
            }
        }
    }
    // the report renders on one line per option, with no raw controls
    let report = fio_parse_report(&parsed);
    if report.chars().any(|c| c.is_control() && c != '\n') {
        return Err("a raw control character in the --parse-only report".into());
    }
    // the same input reads the same again
    let again = parse(input).map_err(|e| format!("read again, refused: {e}"))?;
    let a = serde_json::to_string(&parsed).map_err(|e| e.to_string())?;
    let b = serde_json::to_string(&again).map_err(|e| e.to_string())?;
    if a != b {
        return Err("read twice, two different results".into());
    }
    Ok(Verdict::Accepted)
}
