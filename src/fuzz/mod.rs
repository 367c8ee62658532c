//! Structure-aware fuzzing of every parser of iogauge's input, in process.
//!
//! Each parser has a generator module here that knows its grammar: the
//! keywords, sections, option letters and value shapes the parser reads,
//! numbers at and around each of its bounds, units, comments and quoting,
//! CR/LF, long lines, and misplaced, repeated or missing pieces. Most inputs
//! therefore get deep into the parser instead of being refused at the first
//! byte (the mutation fuzz of `bench/fuzz.sh` covers the bytes).
//!
//! Every input is checked for the same properties ([`run_one`]): the parser
//! does not panic and returns within [`HANG`]; what it accepts is within
//! the documented maxima (each module checks its own); what it refuses is
//! one line, without raw control characters, of at most [`MAX_MESSAGE`]
//! characters, and names where the mistake is (`file:line` for a file).
//! Where a parser's result can be written back (serde, or the file syntax),
//! it must read back the same.
//!
//! The same generators serve three runs:
//! - `cargo test`: a few hundred cases per parser, a fixed seed (`short_*`);
//! - `bench/fuzz.sh` with `MODE=structured`: [`long_run`], each parser for
//!   `IOGAUGE_FUZZ_SECS` seconds with a fresh seed per round, failures
//!   shrunk to a minimal input and kept in `tests/fuzz-corpus/<parser>/`;
//! - [`corpus_replays`]: every file in that corpus, on every `cargo test`.

pub mod ffsb;
pub mod fio;
pub mod iobench;
pub mod iozone;
pub mod laddis;
pub mod model;
pub mod postmark;
pub mod values;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestError, TestRng, TestRunner};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What a parser did with an input that broke no property.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Accepted,
    Refused,
}

/// A parser under fuzz: the name of its corpus directory (as in
/// `bench/fuzz.sh`), the extension of a saved input, its generator and its
/// check. The check returns `Err` when a property is broken; inputs given
/// as command-line arguments are a JSON list of strings (`.args.json`).
pub struct Target {
    pub name: &'static str,
    pub ext: &'static str,
    pub generate: fn() -> BoxedStrategy<Vec<u8>>,
    pub check: fn(&[u8]) -> Result<Verdict, String>,
}

/// Every parser, in `bench/fuzz.sh`'s order.
pub const TARGETS: &[Target] = &[
    postmark::TARGET,
    iobench::CONTROL,
    iobench::SPECTRUM,
    ffsb::TARGET,
    fio::TARGET,
    iozone::TARGET,
    laddis::TARGET,
    model::TARGET,
    values::SIZE,
    values::DURATION,
    values::RATE,
];

/// The time one input may take before it counts as a hang. A parser's
/// work is linear in its input (a few kB here): far below a millisecond.
pub const HANG: Duration = Duration::from_secs(5);

/// The longest refusal, in characters: a message quotes the text it
/// refuses, but a kilobyte of it helps nobody.
pub const MAX_MESSAGE: usize = 1024;

/// The file name the generated inputs are parsed under, as the messages
/// name it.
pub const FILE: &str = "fuzz/case.in";

/// Run `t`'s check on `input` in a thread of its own: a panic or a check
/// that takes longer than [`HANG`] is a broken property like the others.
pub fn run_one(t: &Target, input: &[u8]) -> Result<Verdict, String> {
    let (tx, rx) = std::sync::mpsc::channel();
    let data = input.to_vec();
    let check = t.check;
    std::thread::Builder::new()
        .name(format!("fuzz-{}", t.name))
        .spawn(move || {
            let r = std::panic::catch_unwind(|| check(&data));
            let _ = tx.send(r);
        })
        .map_err(|e| format!("cannot start a thread: {e}"))?;
    match rx.recv_timeout(HANG) {
        Ok(Ok(r)) => r,
        Ok(Err(p)) => {
            let what = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(format!("panics: {what}"))
        }
        Err(_) => Err(format!("hangs: no answer after {HANG:?}")),
    }
}

/// Whether `c` is a character a message must not carry raw: controls, the
/// line and paragraph separators and the marks that reorder text.
fn raw_control(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{061c}' | '\u{feff}'
        )
}

/// A refusal as the user reads it: one line, no raw control characters,
/// at most [`MAX_MESSAGE`] characters, and `place` in it when given.
pub fn refusal(msg: &str, place: Option<&str>) -> Result<Verdict, String> {
    if msg.trim().is_empty() {
        return Err("refuses with an empty message".into());
    }
    if let Some(c) = msg.chars().find(|&c| raw_control(c)) {
        return Err(format!("a raw {c:?} in the refusal {msg:?}"));
    }
    let n = msg.chars().count();
    if n > MAX_MESSAGE {
        return Err(format!(
            "a refusal of {n} characters: {:?}…",
            msg.chars().take(120).collect::<String>()
        ));
    }
    if let Some(p) = place
        && !msg.contains(p)
    {
        return Err(format!("the refusal does not name {p:?}: {msg:?}"));
    }
    Ok(Verdict::Refused)
}

/// A refusal from an input file: as [`refusal`], naming `FILE:LINE` with
/// a line of the file (or the one after its last).
pub fn file_refusal(msg: &str, text: &str) -> Result<Verdict, String> {
    refusal(msg, Some(FILE))?;
    let after = msg
        .split(&format!("{FILE}:"))
        .nth(1)
        .ok_or_else(|| format!("the refusal names no line of the file: {msg:?}"))?;
    let line: usize = after
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|d| d.parse().ok())
        .ok_or_else(|| format!("the refusal names no line of the file: {msg:?}"))?;
    let lines = text.split('\n').count();
    if line == 0 || line > lines + 1 {
        return Err(format!(
            "the refusal names line {line} of a file of {lines} lines: {msg:?}"
        ));
    }
    Ok(Verdict::Refused)
}

/// Arguments saved as a JSON list of strings (`.args.json`).
pub fn args_bytes(args: &[String]) -> Vec<u8> {
    serde_json::to_vec(args).expect("strings serialise")
}

/// The arguments of an `.args.json` input (a file that is not one: none).
pub fn args_of(input: &[u8]) -> Vec<String> {
    serde_json::from_slice(input).unwrap_or_default()
}

// ------------------------------------------------------------- pieces
// The value shapes every generator draws from.

/// A whole number near one of `bounds` (each bound, one below, one above),
/// or one of the numbers that break naive parsers: 0, -1, the 32- and
/// 64-bit limits, 2^63, more digits than any integer type holds.
pub fn number_near(bounds: &[u64]) -> BoxedStrategy<String> {
    let near: Vec<String> = bounds
        .iter()
        .flat_map(|&b| [b.saturating_sub(1), b, b.saturating_add(1)])
        .map(|n| n.to_string())
        .collect();
    let classic: Vec<String> = [
        "0",
        "-1",
        "-0",
        "1",
        "2147483647",
        "2147483648",
        "4294967295",
        "4294967296",
        "9223372036854775807",
        "9223372036854775808",
        "18446744073709551615",
        "18446744073709551616",
        "99999999999999999999999999999",
        "0004",
        "+5",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    prop_oneof![
        4 => prop::sample::select(near),
        2 => prop::sample::select(classic),
        2 => (0u64..100_000).prop_map(|n| n.to_string()),
        1 => any::<u64>().prop_map(|n| n.to_string()),
    ]
    .boxed()
}

/// A number as a float parser sees it: fractions, exponents, the values
/// with no finite meaning.
pub fn real() -> BoxedStrategy<String> {
    prop_oneof![
        prop::sample::select(vec![
            "0.5", "1.5", "0.02", "1e3", "1e-308", "1e308", "1e400", "-0.0", "NaN", "inf", "-inf",
            ".", "1.", ".5", "1e", "0x10", "1_000", "-1", "-1.0", "-0.5",
        ])
        .prop_map(String::from),
        (0u32..100_000, 0u32..1000).prop_map(|(a, b)| format!("{a}.{b}")),
    ]
    .boxed()
}

/// Text a user could not mean: control characters, separators, marks
/// that reorder text, quotes, a piece repeated into a long run.
pub fn junk() -> BoxedStrategy<String> {
    prop_oneof![
        prop::sample::select(vec![
            "\r", "\t", "\x1b[2J", "\0", "\x7f", "\x0b", "\u{2028}", "\u{202e}", "\u{85}",
            "\u{feff}", "\"", "'", "`", "\\", "=", ";", "#", "[", "]", "%", ",", "@", "é", "∞",
        ])
        .prop_map(String::from),
        ("[a-z0-9]{1,4}", 50usize..1500).prop_map(|(s, n)| s.repeat(n)),
        any::<char>().prop_map(String::from),
    ]
    .boxed()
}

/// White space between two tokens: usually one space, sometimes none, a
/// tab or several.
pub fn gap() -> BoxedStrategy<&'static str> {
    prop_oneof![
        6 => Just(" "),
        1 => Just(""),
        1 => Just("\t"),
        1 => Just("   "),
    ]
    .boxed()
}

/// The end of a line: LF, sometimes CR LF or a lone CR.
pub fn eol() -> BoxedStrategy<&'static str> {
    prop_oneof![60 => Just("\n"), 6 => Just("\r\n"), 1 => Just("\r")].boxed()
}

/// Lines joined with generated ends, the last one sometimes without.
pub fn join_lines(lines: Vec<String>) -> BoxedStrategy<Vec<u8>> {
    let n = lines.len();
    (prop::collection::vec(eol(), n), any::<bool>())
        .prop_map(move |(ends, last)| {
            let mut s = String::new();
            for (i, (l, e)) in lines.iter().zip(&ends).enumerate() {
                s.push_str(l);
                if i + 1 < n || last {
                    s.push_str(e);
                }
            }
            s.into_bytes()
        })
        .boxed()
}

/// Lines drawn from `line`, with now and then a line duplicated or one
/// of junk: the lines of a file for [`join_lines`].
pub fn lines_of(line: BoxedStrategy<String>, most: usize) -> BoxedStrategy<Vec<u8>> {
    let piece = prop_oneof![
        12 => line,
        1 => junk(),
        1 => Just(String::new()),
    ];
    (
        prop::collection::vec(piece, 0..most),
        any::<prop::sample::Index>(),
        0usize..3,
    )
        .prop_flat_map(|(mut lines, at, dup)| {
            if !lines.is_empty() {
                let i = at.index(lines.len());
                for _ in 0..dup {
                    lines.insert(i, lines[i].clone());
                }
            }
            join_lines(lines)
        })
        .boxed()
}

// ------------------------------------------------------------- runs

/// The corpus of failures: `tests/fuzz-corpus/` of the repository.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-corpus")
}

/// The counts of one parser's run.
#[derive(Default, Debug)]
pub struct Counts {
    pub inputs: u64,
    pub accepted: u64,
    pub refused: u64,
    /// Broken properties, each the minimal input (and why).
    pub failures: Vec<(Vec<u8>, String)>,
}

/// `cases` inputs of `t` from `seed`; a failure is shrunk to a minimal
/// input and recorded, and the round ends there.
pub fn round(t: &Target, seed: u64, cases: u32, counts: &mut Counts) {
    let config = Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 2000,
        max_shrink_time: 60_000,
        ..Config::default()
    };
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &bytes));
    let seen = std::cell::Cell::new((0u64, 0u64, 0u64));
    let result = runner.run(&(t.generate)(), |input| {
        let (n, a, r) = seen.get();
        match run_one(t, &input) {
            Ok(Verdict::Accepted) => seen.set((n + 1, a + 1, r)),
            Ok(Verdict::Refused) => seen.set((n + 1, a, r + 1)),
            Err(why) => {
                seen.set((n + 1, a, r));
                return Err(TestCaseError::fail(why));
            }
        }
        Ok(())
    });
    let (n, a, r) = seen.get();
    counts.inputs += n;
    counts.accepted += a;
    counts.refused += r;
    if let Err(TestError::Fail(why, input)) = result {
        counts.failures.push((input, why.to_string()));
    }
}

/// Save a failing input under the corpus (its name from its bytes, so that
/// a failure found twice is kept once); returns the path.
pub fn save(t: &Target, input: &[u8]) -> std::io::Result<PathBuf> {
    let dir = corpus_dir().join(t.name);
    std::fs::create_dir_all(&dir)?;
    // FNV-1a, 64 bits: a stable name without a hashing dependency
    let h = input.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let path = dir.join(format!("s{:012x}.{}", h >> 16, t.ext));
    std::fs::write(&path, input)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One parser's short run: a fixed seed, so that `cargo test` is
    /// repeatable; the failure, if any, shows its minimal input.
    fn short(name: &str, cases: u32) {
        let t = TARGETS.iter().find(|t| t.name == name).unwrap();
        let mut counts = Counts::default();
        round(t, 38, cases, &mut counts);
        if let Some((input, why)) = counts.failures.first() {
            panic!("{name}: {why}\ninput: {:?}", String::from_utf8_lossy(input));
        }
        assert_eq!(counts.inputs, u64::from(cases));
        // structure-aware: a fair share of the inputs gets all the way through
        assert!(
            counts.accepted * 20 >= counts.inputs,
            "{name}: only {} of {} inputs accepted",
            counts.accepted,
            counts.inputs
        );
    }

    #[test]
    fn short_postmark() {
        short("postmark", 300);
    }
    #[test]
    fn short_iobench_control() {
        short("iobench-control", 300);
    }
    #[test]
    fn short_iobench_spectrum() {
        short("iobench-spectrum", 300);
    }
    #[test]
    fn short_ffsb() {
        short("ffsb", 300);
    }
    #[test]
    fn short_fio_job() {
        short("fio-job", 300);
    }
    #[test]
    fn short_iozone() {
        short("iozone", 300);
    }
    #[test]
    fn short_laddis_mix() {
        short("laddis-mix", 300);
    }
    #[test]
    fn short_model() {
        short("model", 200);
    }
    #[test]
    fn short_size() {
        short("size", 500);
    }
    #[test]
    fn short_duration() {
        short("duration", 500);
    }
    #[test]
    fn short_rate() {
        short("rate", 500);
    }

    /// The properties themselves, on known messages.
    #[test]
    fn refusals_are_checked() {
        assert_eq!(refusal("x: bad", None), Ok(Verdict::Refused));
        assert!(refusal("", None).is_err());
        assert!(refusal("a\nb", None).is_err());
        assert!(refusal("a\x1b[2J", None).is_err());
        assert!(refusal("a\u{2028}", None).is_err());
        assert!(refusal(&"x".repeat(MAX_MESSAGE + 1), None).is_err());
        assert!(refusal("bad", Some("f:1")).is_err());
        let text = "a\nb\n";
        assert_eq!(
            file_refusal(&format!("{FILE}:2: no"), text),
            Ok(Verdict::Refused)
        );
        assert_eq!(
            file_refusal(&format!("{FILE}:4: no"), text),
            Ok(Verdict::Refused)
        );
        assert!(file_refusal(&format!("{FILE}:5: no"), text).is_err());
        assert!(file_refusal(&format!("{FILE}: no"), text).is_err());
        assert!(file_refusal("elsewhere:1: no", text).is_err());
    }

    #[test]
    fn hangs_and_panics_are_caught() {
        fn slow(_: &[u8]) -> Result<Verdict, String> {
            std::thread::sleep(HANG + Duration::from_secs(1));
            Ok(Verdict::Accepted)
        }
        fn boom(_: &[u8]) -> Result<Verdict, String> {
            panic!("boom")
        }
        let t = |check| Target {
            name: "t",
            ext: "x",
            generate: || Just(Vec::new()).boxed(),
            check,
        };
        let e = run_one(&t(boom), b"").unwrap_err();
        assert!(e.starts_with("panics: boom"), "{e}");
        if std::env::var_os("IOGAUGE_FUZZ_SLOW_TESTS").is_some() {
            assert!(run_one(&t(slow), b"").unwrap_err().starts_with("hangs"));
        }
    }

    /// Every input kept in the corpus (the mutation fuzz's and this one's)
    /// passes its parser's check in process.
    #[test]
    fn corpus_replays() {
        let mut ran = 0;
        for t in TARGETS {
            let Ok(dir) = std::fs::read_dir(corpus_dir().join(t.name)) else {
                continue;
            };
            let mut files: Vec<PathBuf> = dir.map(|e| e.unwrap().path()).collect();
            files.sort();
            for f in files {
                let input = std::fs::read(&f).unwrap();
                if let Err(why) = run_one(t, &input) {
                    panic!("{}: {why}", f.display());
                }
                ran += 1;
            }
        }
        assert!(ran > 100, "only {ran} corpus inputs");
    }

    /// The long run of `bench/fuzz.sh` (MODE=structured): each parser in
    /// `IOGAUGE_FUZZ_PARSERS` (all when unset) for `IOGAUGE_FUZZ_SECS`
    /// seconds (600), rounds of 256 inputs from a fresh seed each; every
    /// failure is shrunk, saved in the corpus (unless IOGAUGE_FUZZ_SAVE=0)
    /// and listed. Counts are printed per parser.
    #[test]
    #[ignore = "long: run by bench/fuzz.sh MODE=structured"]
    fn long_run() {
        let secs: u64 = std::env::var("IOGAUGE_FUZZ_SECS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(600);
        let chosen: Vec<String> = std::env::var("IOGAUGE_FUZZ_PARSERS")
            .unwrap_or_default()
            .split_whitespace()
            .map(String::from)
            .collect();
        let save_failures = std::env::var("IOGAUGE_FUZZ_SAVE").map_or(true, |v| v != "0");
        let base: u64 = std::env::var("IOGAUGE_FUZZ_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(1, |d| d.as_nanos() as u64)
            });
        for name in &chosen {
            assert!(
                TARGETS.iter().any(|t| t.name == name),
                "unknown parser {name}; the parsers are {:?}",
                TARGETS.iter().map(|t| t.name).collect::<Vec<_>>()
            );
        }
        println!("structured fuzz: {secs} s per parser, seeds from {base}");
        println!(
            "{:<17}{:>9}{:>9}{:>9}{:>7}{:>9}{:>8}",
            "parser", "inputs", "accepted", "refused", "rounds", "failures", "secs"
        );
        let mut all = Vec::new();
        for t in TARGETS {
            if !chosen.is_empty() && !chosen.iter().any(|c| c == t.name) {
                continue;
            }
            let start = Instant::now();
            let mut counts = Counts::default();
            let mut rounds = 0u64;
            while start.elapsed() < Duration::from_secs(secs) {
                round(t, base.wrapping_add(rounds), 256, &mut counts);
                rounds += 1;
            }
            println!(
                "{:<17}{:>9}{:>9}{:>9}{:>7}{:>9}{:>8.0}",
                t.name,
                counts.inputs,
                counts.accepted,
                counts.refused,
                rounds,
                counts.failures.len(),
                start.elapsed().as_secs_f64()
            );
            for (input, why) in counts.failures {
                let kept = if save_failures {
                    save(t, &input)
                        .map_or_else(|e| format!("not saved: {e}"), |p| p.display().to_string())
                } else {
                    "-".into()
                };
                all.push(format!("  {} {kept}: {why}", t.name));
            }
        }
        println!("\nfailures: {}", all.len());
        for f in &all {
            println!("{f}");
        }
    }
}
