//! PostMark command files: the seventeen commands of 1.53's table with
//! their parameters (C `atoi` numbers at every bound `Plan::check` has,
//! the bias range -1..=10, `true`/`false`, `verbose`/`terse`, locations
//! with `+`, `-` and weights), the prefix matching that makes `set sizes`
//! a `set size`, unknown and empty lines, `!` shell lines, lines longer
//! than `fgets`'s 254 bytes, and bytes that are not UTF-8.

use super::{Target, Verdict, file_refusal, gap, junk, lines_of, number_near, refusal};
use crate::suites::postmark::command::{Command, LocationChange, parse_line, script_lines};
use crate::suites::postmark::config::Config;
use crate::suites::postmark::plan::Plan;
use proptest::prelude::*;

pub const TARGET: Target = Target {
    name: "postmark",
    ext: "pmrc",
    generate,
    check,
};

/// The bounds the command parser and the plan check: positive numbers,
/// 2^30 − 1 files and bytes, C's `int`.
const BOUNDS: &[u64] = &[1, 500, 4096, (i32::MAX / 2) as u64, i32::MAX as u64];

fn command() -> BoxedStrategy<String> {
    let n = || number_near(BOUNDS);
    let named = |name: &'static str| (gap(), n()).prop_map(move |(g, v)| format!("{name}{g}{v}"));
    let bias = prop_oneof![(-3i32..13).prop_map(|v| v.to_string()), number_near(&[10]),];
    let path = prop_oneof![
        Just("a".to_string()),
        Just("dir with space".to_string()),
        Just("/nonexistent/x".to_string()),
        "[a-z/._]{1,12}",
        junk(),
    ];
    let weight = prop_oneof![
        Just(String::new()),
        n().prop_map(|w| format!(" {w}")),
        Just(" x".to_string()),
        Just(" -3".to_string()),
    ];
    prop_oneof![
        3 => (gap(), n(), prop::option::of((gap(), n())))
            .prop_map(|(g, l, h)| match h {
                Some((g2, h)) => format!("set size{g}{l}{g2}{h}"),
                None => format!("set size{g}{l}"),
            }),
        2 => named("set number"),
        1 => named("set seed"),
        2 => named("set transactions"),
        1 => named("set subdirectories"),
        1 => named("set read"),
        1 => named("set write"),
        3 => (prop::sample::select(vec!["", "+", "-"]), path, weight)
            .prop_map(|(sign, p, w)| format!("set location {sign}{p}{w}")),
        1 => prop::sample::select(vec!["true", "false", "True", "", "1"])
            .prop_map(|b| format!("set buffering {b}")),
        2 => (prop::sample::select(vec!["read", "create"]), gap(), bias)
            .prop_map(|(k, g, v)| format!("set bias {k}{g}{v}")),
        1 => prop::sample::select(vec!["verbose", "terse", "Terse", ""])
            .prop_map(|r| format!("set report {r}")),
        1 => prop::sample::select(vec![
            "run", "show", "help", "help set", "help zz", "quit", "load", "!", "!true",
            "set", "Set size 5", "set sizes 10", "set number", "#comment", "  set size 5",
            "set location", "set location ", "exit", "?",
        ])
        .prop_map(String::from),
        1 => ("[ -~]{0,8}", 250usize..600).prop_map(|(s, n)| format!("set size {s}{}", "9".repeat(n))),
    ]
    .boxed()
}

fn generate() -> BoxedStrategy<Vec<u8>> {
    (
        lines_of(command(), 24),
        any::<prop::sample::Index>(),
        0u8..8,
    )
        .prop_map(|(mut bytes, at, k)| {
            // now and then a byte that is not UTF-8, or a NUL
            if k == 0 && !bytes.is_empty() {
                let i = at.index(bytes.len());
                bytes.insert(i, 0xff);
            } else if k == 1 {
                let i = at.index(bytes.len() + 1);
                bytes.insert(i, 0);
            }
            bytes
        })
        .boxed()
}

/// The session of `--check` over the file, in process: each line parsed
/// and applied as `Session::execute` does, each complaint located as the
/// terminal shows it; then the plan's checks on the final configuration,
/// and the configuration written back as commands must read back the same.
fn check(input: &[u8]) -> Result<Verdict, String> {
    let text = String::from_utf8_lossy(input);
    let mut cfg = Config::default();
    let mut refused = false;
    let mut complain = |line: usize, e: &dyn std::fmt::Display| -> Result<(), String> {
        refused = true;
        let shown = crate::error::shown(&format!("{}:{line}: {e}", super::FILE));
        file_refusal(&shown, &text).map(|_| ())
    };
    for l in script_lines(input) {
        let cmd = match parse_line(&l.text) {
            Ok(c) => c,
            Err(e) => {
                complain(l.number, &e)?;
                continue;
            }
        };
        if let Some(w) = cmd.warning() {
            complain(l.number, &w)?;
        }
        if let Err(e) = cmd.apply(&mut cfg) {
            complain(l.number, &e)?;
        }
        if cmd == Command::Quit {
            break;
        }
    }
    round_trip(&cfg)?;
    match Plan::check(&cfg) {
        Err(e) => refusal(&crate::error::shown(&format!("Error: {e}")), None),
        Ok(()) => {
            let max = (i32::MAX / 2) as i64;
            if !(1..=max).contains(&i64::from(cfg.number))
                || !(1..=max).contains(&i64::from(cfg.size_high))
                || cfg.size_low > cfg.size_high
            {
                return Err(format!("accepted out of bounds: {cfg:?}"));
            }
            // building the plan allocates its tables: only small ones here
            if Plan::memory(&cfg) <= 16 << 20 {
                Plan::new(&cfg).map_err(|e| format!("checked, then not built: {e}"))?;
            }
            Ok(if refused {
                Verdict::Refused
            } else {
                Verdict::Accepted
            })
        }
    }
}

/// `cfg` as the commands that set it, read back from the defaults.
fn round_trip(cfg: &Config) -> Result<(), String> {
    let mut lines = vec![
        format!("set size {} {}", cfg.size_low, cfg.size_high),
        format!("set number {}", cfg.number),
        format!("set seed {}", cfg.seed),
        format!("set transactions {}", cfg.transactions),
        format!("set read {}", cfg.read_block),
        format!("set write {}", cfg.write_block),
        format!("set buffering {}", cfg.buffered),
        format!("set bias read {}", cfg.bias_read),
        format!("set bias create {}", cfg.bias_create),
        format!("set report {}", cfg.report.as_str()),
    ];
    if cfg.subdirectories > 0 {
        lines.push(format!("set subdirectories {}", cfg.subdirectories));
    }
    for l in &cfg.locations {
        lines.push(format!("set location +{} {}", l.path, l.weight));
    }
    // a line that fgets would cut, or a path with a line end: not writable
    if lines
        .iter()
        .any(|l| l.len() > 250 || l.contains(['\n', '\0']))
    {
        return Ok(());
    }
    let mut back = Config::default();
    for l in &lines {
        let cmd = parse_line(l).map_err(|e| format!("written back as {l:?}, refused: {e}"))?;
        if let Command::SetLocation(LocationChange::Remove { .. }) = cmd {
            return Err(format!("written back as {l:?}, read as a removal"));
        }
        cmd.apply(&mut back)
            .map_err(|e| format!("written back as {l:?}, refused: {e}"))?;
    }
    if &back != cfg {
        return Err(format!("written back and read as {back:?}, not {cfg:?}"));
    }
    Ok(())
}
