//! Sizes, durations and rates as flags and files give them: a number
//! (whole, fraction, exponent) at and around each maximum expressed in
//! each unit (1 EiB as 2^60, 2^50 K, 2^40 M, 2^30 G, 2^20 T; 30 days as
//! 2592000 s, 43200 m, 720 h, 30 d; 1e9 requests a second), a unit from
//! the grammar in any case with or without a space, humantime's compound
//! forms (`1h 2m`, `1m30s`), signs, white space around, and junk.

use super::{Target, Verdict, args_bytes, args_of, gap, junk, number_near, real, refusal};
use crate::units::{MAX_DURATION, MAX_RATE, MAX_SIZE, parse_duration, parse_rate, parse_size};
use proptest::prelude::*;

pub const SIZE: Target = Target {
    name: "size",
    ext: "args.json",
    generate: sizes,
    check: check_size,
};

pub const DURATION: Target = Target {
    name: "duration",
    ext: "args.json",
    generate: durations,
    check: check_duration,
};

pub const RATE: Target = Target {
    name: "rate",
    ext: "args.json",
    generate: rates,
    check: check_rate,
};

/// A number and a unit from `units`, each bound near its maximum in
/// that unit among the numbers.
fn value(bounds: &'static [u64], units: &'static [&'static str]) -> BoxedStrategy<String> {
    let sign = prop::sample::select(vec!["", "", "", "", "-", "+", " "]);
    (
        sign,
        prop_oneof![3 => number_near(bounds), 1 => real()],
        gap(),
        prop::sample::select(units),
        0u8..8,
    )
        .prop_map(|(sign, n, g, u, case)| {
            let u = if case == 0 {
                u.to_uppercase()
            } else {
                u.to_string()
            };
            let g = if case < 5 { "" } else { g };
            format!("{sign}{n}{g}{u}")
        })
        .boxed()
}

/// One argument: a value, two of them run together, or junk inside one.
fn argument(one: BoxedStrategy<String>) -> BoxedStrategy<Vec<u8>> {
    prop_oneof![
        8 => one.clone(),
        2 => (one.clone(), gap(), one.clone()).prop_map(|(a, g, b)| format!("{a}{g}{b}")),
        1 => (one, junk(), any::<bool>()).prop_map(|(a, j, front)| if front { format!("{j}{a}") } else { format!("{a}{j}") }),
    ]
    .prop_map(|a| args_bytes(&[a]))
    .boxed()
}

const SIZE_BOUNDS: &[u64] = &[0, 1, 1 << 20, 1 << 30, 1 << 40, 1 << 50, 1 << 60, 1 << 63];
const SIZE_UNITS: &[&str] = &[
    "", "", "b", "k", "kb", "kib", "m", "mb", "mib", "g", "gib", "t", "tib", "p", "e", "kB ",
];

fn sizes() -> BoxedStrategy<Vec<u8>> {
    argument(value(SIZE_BOUNDS, SIZE_UNITS))
}

const DURATION_BOUNDS: &[u64] = &[
    0,
    1,
    30,
    720,
    43_200,
    2_592_000,
    2_592_000_000,
    2_592_000_000_000,
];
const DURATION_UNITS: &[&str] = &[
    "", "", "s", "sec", "ms", "us", "ns", "m", "min", "h", "hr", "d", "days", "w", "M", "y",
];

fn durations() -> BoxedStrategy<Vec<u8>> {
    argument(value(DURATION_BOUNDS, DURATION_UNITS))
}

const RATE_BOUNDS: &[u64] = &[0, 1, 1_000_000_000];
const RATE_UNITS: &[&str] = &["", "", "", "e9", "e-9", "e10", "/s", ".0"];

fn rates() -> BoxedStrategy<Vec<u8>> {
    argument(value(RATE_BOUNDS, RATE_UNITS))
}

/// Each argument through `parse`; `ok` checks an accepted value.
fn each<T>(
    input: &[u8],
    parse: fn(&str) -> Result<T, String>,
    ok: impl Fn(&T) -> bool,
    what: &str,
) -> Result<Verdict, String> {
    let mut verdict = Verdict::Accepted;
    for a in args_of(input) {
        match parse(&a) {
            Ok(v) if ok(&v) => {}
            Ok(_) => return Err(format!("{a:?} accepted as a {what} out of bounds")),
            Err(e) => {
                // the value is named in the refusal, as typed (escaped)
                let shown = crate::error::shown_start(&a, 100);
                refusal(&e, Some(&shown))?;
                verdict = Verdict::Refused;
            }
        }
    }
    Ok(verdict)
}

fn check_size(input: &[u8]) -> Result<Verdict, String> {
    each(input, parse_size, |n| *n <= MAX_SIZE, "size")
}

fn check_duration(input: &[u8]) -> Result<Verdict, String> {
    each(input, parse_duration, |d| *d <= MAX_DURATION, "duration")
}

fn check_rate(input: &[u8]) -> Result<Verdict, String> {
    each(input, parse_rate, |r| *r > 0.0 && *r <= MAX_RATE, "rate")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value that reads back: sizes printed in bytes, durations in
    /// nanoseconds, rates with Rust's shortest exact form.
    #[test]
    fn values_round_trip() {
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        runner
            .run(&any::<u64>(), |n| {
                let n = n % (MAX_SIZE + 1);
                prop_assert_eq!(parse_size(&n.to_string()), Ok(n));
                let d = std::time::Duration::from_nanos(n % MAX_DURATION.as_nanos() as u64);
                prop_assert_eq!(parse_duration(&format!("{}ns", d.as_nanos())), Ok(d));
                let r = (n as f64 / MAX_SIZE as f64) * MAX_RATE;
                if r > 0.0 {
                    prop_assert_eq!(parse_rate(&r.to_string()), Ok(r));
                }
                Ok(())
            })
            .unwrap();
    }
}
