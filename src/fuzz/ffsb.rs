//! FFSB profiles: global options, `[filesystem]`, `[threadgroup]` and
//! `[stats]` sections (digits after the name, nested or not, closed by
//! `[end]` or left open), every option of [`GLOBAL_OPTIONS`] and the other
//! tables with a value of its kind (sizes with FFSB's suffixes around 4 GiB
//! and 1 EiB, 32-bit numbers around their limit, fractions around 0 and 1,
//! booleans, system calls, the spaced `size_weight` and `msec_range`),
//! options in the wrong section or given twice, `#` comments, white space
//! inside values.

use super::{Target, Verdict, file_refusal, gap, junk, number_near, real};
use crate::suites::ffsb::parse::{
    FILESYSTEM_OPTIONS, GLOBAL_OPTIONS, Kind, OptionSpec, STATS_OPTIONS, THREADGROUP_OPTIONS, parse,
};
use crate::suites::ffsb::profile::Syscall;
use crate::suites::ffsb::report;
use proptest::prelude::*;
use std::path::Path;

pub const TARGET: Target = Target {
    name: "ffsb",
    ext: "ffsb",
    generate,
    check,
};

fn size() -> BoxedStrategy<String> {
    prop_oneof![
        3 => prop::sample::select(vec!["4k", "4096", "64K", "1M", "16KB", "1g"]).prop_map(String::from),
        2 => any_size(),
    ]
    .boxed()
}

fn any_size() -> BoxedStrategy<String> {
    let suffix = prop::sample::select(vec![
        "", "", "k", "K", "KB", "m", "MB", "g", "GB", "x", "B", "kib", " k",
    ]);
    prop_oneof![
        (
            number_near(&[0, 1, 4, 4096, 4 << 20, 1 << 32, 1 << 50, 1 << 60]),
            suffix
        )
            .prop_map(|(n, s)| format!("{n}{s}")),
        real(),
    ]
    .boxed()
}

fn value(kind: Kind) -> BoxedStrategy<String> {
    let u32s = || number_near(&[0, 1, 100, u64::from(u32::MAX)]);
    match kind {
        Kind::U32 | Kind::Weight(_) => {
            prop_oneof![6 => (0u32..64).prop_map(|n| n.to_string()), 3 => u32s(), 1 => real()]
                .boxed()
        }
        Kind::Bool => prop::sample::select(vec!["0", "1", "0", "1", "0", "1", "2", "true", ""])
            .prop_map(String::from)
            .boxed(),
        Kind::Fraction => prop_oneof![
            (0u32..=100).prop_map(|n| format!("0.{n:02}")),
            real(),
            prop::sample::select(vec!["0", "1", "0.02", "1.0001", "-0.1"]).prop_map(String::from),
        ]
        .boxed(),
        Kind::Size32 | Kind::Size64 => size(),
        Kind::Path => prop_oneof![
            4 => (0u8..4).prop_map(|i| format!("/mnt/ffsb{i}")),
            1 => "[a-z/._ ]{1,12}",
            1 => junk(),
        ]
        .boxed(),
        Kind::Command => prop::sample::select(vec!["sync", "sync; date", "", "echo x # y"])
            .prop_map(String::from)
            .boxed(),
        Kind::SizeWeight => (size(), gap(), u32s(), prop::option::of(u32s()))
            .prop_map(|(s, g, w, extra)| match extra {
                Some(x) => format!("{s}{g}{w} {x}"),
                None => format!("{s} {w}"),
            })
            .boxed(),
        Kind::Range => (real(), real())
            .prop_map(|(a, b)| format!("{a} {b}"))
            .boxed(),
        Kind::Syscall => prop_oneof![
            4 => prop::sample::select(Syscall::ALL.iter().map(|s| s.name()).collect::<Vec<_>>())
                .prop_map(String::from),
            1 => Just("fsync".to_string()),
        ]
        .boxed(),
    }
}

/// One option line of `table`: `name=value` (spaced options `name a b`),
/// with spaces around `=`, a comment after it, or no value.
fn option(table: &'static [OptionSpec]) -> BoxedStrategy<String> {
    prop::sample::select(table)
        .prop_flat_map(|spec| (Just(spec), value(spec.kind), gap(), 0u8..24))
        .prop_map(|(spec, v, g, form)| {
            let spaced = matches!(spec.kind, Kind::SizeWeight | Kind::Range);
            match (spaced, form) {
                (true, 0) => format!("{}={v}", spec.name),
                (true, _) => format!("{}{g}{v}", spec.name),
                (false, 0) => format!("{}{g}={g}{v}", spec.name),
                (false, 1) => format!("{}={v} # note", spec.name),
                (false, 2) => format!("{}=", spec.name),
                (false, 3) => format!("{} {v}", spec.name),
                (false, 4) => format!("{}={v}", spec.name.to_uppercase()),
                _ => format!("{}={v}", spec.name),
            }
        })
        .boxed()
}

/// A section: its header, its options (now and then one of another
/// section), maybe a nested section, and its `[end]` (now and then missing
/// or doubled).
fn section(
    name: &'static str,
    table: &'static [OptionSpec],
    nested: Option<BoxedStrategy<Vec<String>>>,
) -> BoxedStrategy<Vec<String>> {
    let misplaced = prop_oneof![
        option(GLOBAL_OPTIONS),
        option(STATS_OPTIONS),
        option(FILESYSTEM_OPTIONS)
    ];
    let body = prop::collection::vec(prop_oneof![12 => option(table), 1 => misplaced], 0..10);
    let inner = match nested {
        Some(n) => prop::option::weighted(0.4, n).boxed(),
        None => Just(None).boxed(),
    };
    (
        body,
        inner,
        0u8..3,
        0u8..12,
        prop::sample::select(vec!["", "0", "1", "12", " of it"]),
    )
        .prop_map(move |(body, inner, digits, end, suffix)| {
            let mut lines = vec![format!("[{name}{}]", if digits == 0 { "" } else { suffix })];
            lines.extend(body);
            if let Some(inner) = inner {
                lines.extend(inner);
            }
            match end {
                0 => {}
                1 => lines.extend(["[end]".to_string(), "[end]".to_string()]),
                2 => lines.push("[END]".to_string()),
                _ => lines.push(format!("[end{}]", if digits == 0 { "" } else { "0" })),
            }
            lines
        })
        .boxed()
}

/// A profile FFSB would run: file systems with their locations, thread
/// groups with their threads and the sizes their weights need, then a few
/// options drawn from each section's table (which may break it).
fn runnable() -> BoxedStrategy<Vec<u8>> {
    let fs = (
        0u8..4,
        1u32..100,
        prop::collection::vec(option(FILESYSTEM_OPTIONS), 0..2),
    )
        .prop_map(|(i, n, extra)| {
            let mut l = vec![
                format!("[filesystem{i}]"),
                format!("location=/mnt/ffsb{i}"),
                format!("num_files={n}"),
                "min_filesize=4k".to_string(),
                "max_filesize=64K".to_string(),
            ];
            l.extend(extra);
            l.push(format!("[end{i}]"));
            l
        });
    let stats = prop::collection::vec(option(STATS_OPTIONS), 0..3).prop_map(|o| {
        let mut l = vec!["[stats]".to_string(), "enable_stats=1".to_string()];
        l.extend(o);
        l.push("[end]".to_string());
        l
    });
    let tg = (
        1u32..8,
        prop::collection::vec(option(THREADGROUP_OPTIONS), 0..2),
        prop::option::of(stats),
    )
        .prop_map(|(n, extra, stats)| {
            let mut l = vec![
                "[threadgroup0]".to_string(),
                format!("num_threads={n}"),
                "read_weight=1".to_string(),
                "read_size=64k".to_string(),
                "read_blocksize=4k".to_string(),
                "write_weight=1".to_string(),
                "write_size=64k".to_string(),
                "write_blocksize=4k".to_string(),
            ];
            l.extend(extra);
            l.extend(stats.unwrap_or_default());
            l.push("[end0]".to_string());
            l
        });
    (
        prop::collection::vec(option(GLOBAL_OPTIONS), 0..2),
        prop::collection::vec(fs, 1..3),
        prop::collection::vec(tg, 1..3),
    )
        .prop_flat_map(|(g, fs, tg)| {
            let mut lines = vec!["time=1".to_string()];
            lines.extend(g);
            lines.extend(fs.concat());
            lines.extend(tg.concat());
            super::join_lines(lines)
        })
        .boxed()
}

fn generate() -> BoxedStrategy<Vec<u8>> {
    prop_oneof![4 => runnable(), 1 => chaotic()].boxed()
}

/// Sections in any order and nesting, any option anywhere.
fn chaotic() -> BoxedStrategy<Vec<u8>> {
    let stats = section("stats", STATS_OPTIONS, None);
    let group = || section("threadgroup", THREADGROUP_OPTIONS, Some(stats.clone()));
    let fs = section("filesystem", FILESYSTEM_OPTIONS, Some(group()));
    let piece = prop_oneof![
        3 => option(GLOBAL_OPTIONS).prop_map(|l| vec![l]),
        3 => fs,
        3 => group(),
        1 => Just(vec!["# a comment".to_string(), String::new()]),
        1 => junk().prop_map(|j| vec![j]),
    ];
    prop::collection::vec(piece, 0..8)
        .prop_flat_map(|pieces| super::join_lines(pieces.concat()))
        .boxed()
}

fn check(input: &[u8]) -> Result<Verdict, String> {
    let Ok(text) = std::str::from_utf8(input) else {
        return Ok(Verdict::Refused);
    };
    let p = match parse(text, Path::new(super::FILE)) {
        Err(e) => return file_refusal(&e.to_string(), text),
        Ok(p) => p,
    };
    let month = crate::units::MAX_DURATION.as_secs();
    if u64::from(p.time) > month {
        return Err(format!("accepted time={} s, more than 30 days", p.time));
    }
    for g in p
        .threadgroups
        .iter()
        .chain(p.filesystems.iter().filter_map(|f| f.age_group.as_ref()))
    {
        if u64::from(g.op_delay_ms) > month * 1000 {
            return Err(format!(
                "accepted op_delay={} ms, more than 30 days",
                g.op_delay_ms
            ));
        }
    }
    for f in &p.filesystems {
        let sizes = [f.min_filesize, f.max_filesize, f.init_size];
        if sizes.iter().any(|&s| s > crate::units::MAX_SIZE)
            || f.size_weights
                .iter()
                .any(|&(s, _)| s > crate::units::MAX_SIZE)
        {
            return Err(format!("accepted a size above 1 EiB: {f:?}"));
        }
        if !(0.0..=1.0).contains(&f.desired_util) || !(0.0..=1.0).contains(&f.init_util) {
            return Err(format!("accepted a fraction outside 0..=1: {f:?}"));
        }
    }
    // the reports render every profile accepted
    let _ = (
        report::opening(&p),
        report::groups_config(&p),
        report::settings(&p),
    );
    let json = serde_json::to_string(&p).map_err(|e| e.to_string())?;
    let back: crate::suites::ffsb::profile::Profile =
        serde_json::from_str(&json).map_err(|e| format!("{e}: {json}"))?;
    // run_makes_location is not written
    let strip = |p: &crate::suites::ffsb::profile::Profile| {
        let mut p = p.clone();
        for f in &mut p.filesystems {
            f.run_makes_location = false;
        }
        p
    };
    if strip(&back) != strip(&p) {
        return Err(format!("JSON read back as {back:?}, not {p:?}"));
    }
    Ok(Verdict::Accepted)
}
