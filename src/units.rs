//! Sizes and durations as people type them.
//!
//! Sizes: a number with an optional binary suffix. `K`, `KB` and `KiB` all
//! mean 1024 (as in fio, whose users expect `4k` = 4096); likewise `M`, `G`
//! and `T`. Case does not matter; a fraction is allowed where the result is a
//! whole number of bytes (`1.5K` = 1536).
//!
//! Durations: a plain number is seconds (`30`, `0.5`); otherwise a suffixed
//! form such as `30s`, `500ms`, `5m`, `1h`, `1m30s` (humantime's syntax).
//!
//! Rates: requests per second, a plain number (`100`, `2.5`, `1e4`).
//!
//! Each kind of value has one parser here and a documented maximum
//! ([`MAX_SIZE`], [`MAX_DURATION`], [`MAX_RATE`]), so that no value a user
//! types can overflow a computation or start a run that never ends; flags
//! and input files alike go through them.

use std::time::Duration;

/// Append `n` in decimal to a file name being built in a hot loop (no
/// allocation once the buffer has room).
#[inline]
pub fn push_decimal(buf: &mut Vec<u8>, mut n: u32) {
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    buf.extend_from_slice(&digits[i..]);
}

/// The largest size a flag or an input file may give: 1 EiB (2^60 bytes),
/// beyond any file system a benchmark can run on, and far enough below
/// 2^64 that sums and products of sizes cannot wrap.
pub const MAX_SIZE: u64 = 1 << 60;

/// The longest time a flag or an input file may give: 30 days. A longer
/// value is a typing mistake (`99999999999h`), not a run anyone waits for.
pub const MAX_DURATION: Duration = Duration::from_secs(30 * 24 * 3600);

/// The highest request rate: 10^9 per second, one a nanosecond, the
/// resolution of the clock that schedules them.
pub const MAX_RATE: f64 = 1e9;

/// How one input format writes a size. iogauge's own flags and files take
/// [`SIZES`]; a classic benchmark's input keeps that benchmark's syntax
/// (FFSB's `4KB`, IOzone's `64m` in kB, bonnie++'s `2g` in MiB), and each
/// says what is wrong in its own words from the [`SizeError`].
pub struct SizeSyntax<'a> {
    /// What a number is multiplied by, each with the suffixes (in any
    /// case) that say so; the empty suffix gives a bare number's unit.
    pub suffixes: &'a [(&'a [&'a str], u64)],
    /// Whether a fraction may come before the suffix (`1.5K`) and spaces
    /// between them (`64 KiB`).
    pub fractions: bool,
    /// The largest value, in the format's unit.
    pub max: u64,
}

/// What is wrong with a size, checked in this order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SizeError {
    /// No number before the suffix.
    NoNumber,
    /// A suffix the format does not take (the text after the number).
    Suffix(String),
    /// The number alone does not fit in 64 bits.
    Overflow,
    /// More than the format's largest value.
    TooLarge,
    /// A fraction that does not come to a whole number of units.
    NotWhole,
}

/// iogauge's own sizes: bytes, or a binary suffix with a fraction before
/// it (see the module doc), at most [`MAX_SIZE`].
pub const SIZES: SizeSyntax<'static> = SizeSyntax {
    suffixes: &[
        (&["", "b"], 1),
        (&["k", "kb", "kib"], 1 << 10),
        (&["m", "mb", "mib"], 1 << 20),
        (&["g", "gb", "gib"], 1 << 30),
        (&["t", "tb", "tib"], 1 << 40),
    ],
    fractions: true,
    max: MAX_SIZE,
};

impl SizeSyntax<'_> {
    /// `s` (not trimmed: a format that allows spaces around it trims first)
    /// in the format's unit.
    pub fn parse(&self, s: &str) -> Result<u64, SizeError> {
        let split = s
            .find(|c: char| !(c.is_ascii_digit() || (self.fractions && c == '.')))
            .unwrap_or(s.len());
        let (num, suffix) = s.split_at(split);
        if num.is_empty() || num == "." {
            return Err(SizeError::NoNumber);
        }
        let suffix = if self.fractions {
            suffix.trim_start()
        } else {
            suffix
        };
        let mult = self
            .suffixes
            .iter()
            .find(|(names, _)| names.iter().any(|n| n.eq_ignore_ascii_case(suffix)))
            .map(|&(_, mult)| mult)
            .ok_or_else(|| SizeError::Suffix(suffix.to_string()))?;
        if num.contains('.') {
            // a fraction: exact in binary for the sizes people write (1.5K)
            let value: f64 = num.parse().map_err(|_| SizeError::NoNumber)?;
            let n = value * mult as f64;
            if n > self.max as f64 {
                return Err(SizeError::TooLarge);
            }
            if n.fract() != 0.0 {
                return Err(SizeError::NotWhole);
            }
            return Ok(n as u64);
        }
        // digits only: exact, however many
        let n: u64 = num.parse().map_err(|_| SizeError::Overflow)?;
        n.checked_mul(mult)
            .filter(|n| *n <= self.max)
            .ok_or(SizeError::TooLarge)
    }
}

/// A size: bytes, or a number with a binary suffix (see the module doc),
/// at most [`MAX_SIZE`].
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let shown = crate::error::shown_start(s, 100);
    if t.starts_with('-') {
        return Err(format!("'{shown}' is negative: a size must be positive"));
    }
    SIZES.parse(t).map_err(|e| match e {
        SizeError::NoNumber | SizeError::Suffix(_) => format!(
            "'{shown}' is not a size: use bytes or a number with K, M, G or T (KiB, MiB, … also accepted)"
        ),
        SizeError::Overflow | SizeError::TooLarge => {
            format!("'{shown}' is larger than the largest size iogauge takes, 1 EiB")
        }
        SizeError::NotWhole => format!("'{shown}' is not a whole number of bytes"),
    })
}

/// A duration: seconds, or a suffixed form (see the module doc), at most
/// [`MAX_DURATION`].
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let shown = crate::error::shown_start(s, 100);
    if t.starts_with('-') {
        return Err(format!(
            "'{shown}' is negative: a duration must be positive"
        ));
    }
    if let Ok(secs) = t.parse::<f64>() {
        return seconds(secs).map_err(|e| format!("'{shown}' {e}"));
    }
    match humantime::parse_duration(t) {
        Ok(d) if d <= MAX_DURATION => Ok(d),
        Ok(_) => Err(format!("'{shown}' {}", too_long())),
        Err(humantime::DurationError::NumberOverflow) => Err(format!(
            "'{shown}' is out of range: a duration goes from 1 ns to {} days",
            MAX_DURATION.as_secs() / 86_400
        )),
        Err(_) => Err(format!(
            "'{shown}' is not a duration: use seconds or a form like 30s, 500ms, 5m, 1h"
        )),
    }
}

/// `secs` seconds as a duration, when it is a number from 0 to
/// [`MAX_DURATION`]: for input files that give times as plain numbers.
/// The error says what is wrong with the value (the caller names it).
pub fn seconds(secs: f64) -> Result<Duration, String> {
    if !secs.is_finite() {
        return Err("is not a duration: give a number of seconds".into());
    }
    if secs < 0.0 {
        return Err("is negative: a duration must be positive".into());
    }
    if secs > MAX_DURATION.as_secs_f64() {
        return Err(too_long());
    }
    Ok(Duration::from_secs_f64(secs))
}

fn too_long() -> String {
    format!(
        "is longer than the longest time iogauge takes, {} days",
        MAX_DURATION.as_secs() / 86_400
    )
}

/// A rate in requests per second: above 0, at most [`MAX_RATE`].
pub fn parse_rate(s: &str) -> Result<f64, String> {
    let shown = crate::error::shown_start(s, 100);
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= MAX_RATE => Ok(v),
        Ok(v) if v > MAX_RATE => Err(format!(
            "'{shown}' is above the highest rate iogauge takes, 1e9 per second (one request a nanosecond)"
        )),
        _ => Err(format!(
            "'{shown}' is not a rate above 0 (requests per second)"
        )),
    }
}

/// `bytes` in binary units with three significant digits: `4.00 KiB`, `1.50 GiB`.
pub fn fmt_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.2} {}", UNITS[u])
    }
}

/// `n` over the largest power of 1024, up to 1024^`most`, that divides it
/// exactly, with that power: `(1, 1)` for 1024, `(1536, 0)` for 1536. For
/// classic reports that print `1G` for 1024M but never a fraction.
pub fn whole_units(n: u64, most: usize) -> (u64, usize) {
    let (mut n, mut power) = (n, 0);
    while n >= 1024 && n % 1024 == 0 && power < most {
        n /= 1024;
        power += 1;
    }
    (n, power)
}

/// A number as typed: `1`, `0.5`, `-1` (at most 3 decimals).
pub fn decimal(v: f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

/// Bytes compactly: `512 B`, `16 KiB`, `1.5 GiB`, `22.6 MiB`.
pub fn short_bytes(b: u64) -> String {
    let s = fmt_bytes(b);
    // "16.00 KiB" → "16 KiB", "1.50 GiB" → "1.5 GiB"
    match s.split_once(' ') {
        Some((num, unit)) if num.contains('.') => {
            let t = num.trim_end_matches('0').trim_end_matches('.');
            format!("{t} {unit}")
        }
        _ => s,
    }
}

/// Nanoseconds as a short human figure: `812 ns`, `15.3 µs`, `4.21 ms`, `1.20 s`.
pub fn fmt_ns(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.0} ns")
    } else if ns < 1e6 {
        format!("{:.1} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn decimals() {
        let mut b = b"datafile".to_vec();
        push_decimal(&mut b, 0);
        push_decimal(&mut b, 42);
        push_decimal(&mut b, u32::MAX);
        assert_eq!(b, b"datafile0424294967295");
    }

    #[test]
    fn sizes() {
        for (s, v) in [
            ("512", 512),
            ("4k", 4096),
            ("4K", 4096),
            ("4KiB", 4096),
            ("4kb", 4096),
            ("1M", 1 << 20),
            ("2MiB", 2 << 20),
            ("1g", 1 << 30),
            ("1.5K", 1536),
            (" 64 KiB ", 65536),
            ("1T", 1 << 40),
            ("0", 0),
        ] {
            assert_eq!(parse_size(s), Ok(v), "{s}");
        }
        for s in ["", "-1", "k", "1X", "1.1", "4 kilobytes", "1e3"] {
            assert!(parse_size(s).is_err(), "{s} should be refused");
        }
    }

    /// The one parser under each format's syntax: the options the formats
    /// differ in, and each error in its order.
    #[test]
    fn size_syntaxes() {
        let kb = SizeSyntax {
            suffixes: &[(&["", "k"], 1), (&["m"], 1 << 10)],
            fractions: false,
            max: 1 << 20,
        };
        assert_eq!(kb.parse("64"), Ok(64));
        assert_eq!(kb.parse("64K"), Ok(64));
        assert_eq!(kb.parse("3m"), Ok(3072));
        assert_eq!(kb.parse("1024M"), Ok(1 << 20));
        assert_eq!(kb.parse("1025m"), Err(SizeError::TooLarge));
        assert_eq!(kb.parse("64 k"), Err(SizeError::Suffix(" k".into())));
        assert_eq!(kb.parse("1.5m"), Err(SizeError::Suffix(".5m".into())));
        assert_eq!(kb.parse("m"), Err(SizeError::NoNumber));
        assert_eq!(kb.parse(" 1"), Err(SizeError::NoNumber));
        assert_eq!(kb.parse("4g"), Err(SizeError::Suffix("g".into())));
        assert_eq!(kb.parse("99999999999999999999"), Err(SizeError::Overflow));
        assert_eq!(kb.parse("18446744073709551615m"), Err(SizeError::TooLarge));
        assert_eq!(SIZES.parse("1.5 k"), Ok(1536));
        assert_eq!(SIZES.parse("0.5"), Err(SizeError::NotWhole));
        assert_eq!(SIZES.parse("1048576.5T"), Err(SizeError::TooLarge));
        assert_eq!(SIZES.parse("1.2.3"), Err(SizeError::NoNumber));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("0.25"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("720h"), Ok(MAX_DURATION));
        assert_eq!(parse_duration("1e-20"), Ok(Duration::ZERO));
        assert!(parse_duration("-3").is_err());
        assert!(parse_duration("soon").is_err());
    }

    /// Issue 33: `--duration 1e20` panicked in Duration::from_secs_f64, and
    /// `99999999999h` started a run; both are refused with the maximum.
    #[test]
    fn huge_durations_are_refused() {
        for s in ["1e20", "1e300", "2592001", "721h", "99999999999h", "31days"] {
            let e = parse_duration(s).unwrap_err();
            assert!(e.contains("30 days"), "{s}: {e}");
        }
        let e = parse_duration("99999999999999999999999h").unwrap_err();
        assert!(e.contains("30 days"), "{e}");
        for s in ["inf", "NaN", "1e400"] {
            assert!(parse_duration(s).is_err(), "{s}");
        }
        assert!(seconds(f64::MAX).is_err());
        assert!(seconds(-0.5).is_err());
        assert_eq!(seconds(60.0), Ok(Duration::from_secs(60)));
    }

    #[test]
    fn huge_and_exact_sizes() {
        assert_eq!(parse_size("1152921504606846976"), Ok(MAX_SIZE));
        assert_eq!(parse_size("1048576T"), Ok(MAX_SIZE));
        assert_eq!(parse_size("9007199254740993"), Ok(9_007_199_254_740_993));
        assert_eq!(parse_size("0004k"), Ok(4096));
        for s in [
            "1152921504606846977",
            "1048577T",
            "18446744073709551616",
            "99999999999999999999999999999T",
            "1e300",
            "9999999999999999999.5T",
        ] {
            assert!(parse_size(s).is_err(), "{s}");
        }
        assert!(parse_size("2000000T").unwrap_err().contains("1 EiB"));
        assert!(parse_size(".").is_err());
        assert!(parse_size("\x1b[2J").unwrap_err().contains("\\x1b[2J"));
    }

    #[test]
    fn rates() {
        assert_eq!(parse_rate("10"), Ok(10.0));
        assert_eq!(parse_rate("2.5"), Ok(2.5));
        assert_eq!(parse_rate("1e9"), Ok(MAX_RATE));
        for s in ["0", "-1", "inf", "NaN", "x", ""] {
            assert!(parse_rate(s).is_err(), "{s}");
        }
        assert!(parse_rate("1e12").unwrap_err().contains("1e9"));
    }

    /// Text built from the pieces the value parsers look at, and any
    /// character at all.
    fn value_text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            (0u64..u64::MAX).prop_map(|n| n.to_string()),
            (0u32..1000).prop_map(|n| n.to_string()),
            Just("9".repeat(40)),
            prop::sample::select(vec![
                ".", "e", "e308", "-", "+", " ", "k", "KiB", "m", "MB", "g", "T", "TiB", "s", "ms",
                "ns", "h", "d", "days", "min", "inf", "nan", "\r", "\x1b", "\0", "\u{2028}", "1.5",
                "0x10",
            ])
            .prop_map(String::from),
            any::<char>().prop_map(String::from),
        ];
        prop::collection::vec(piece, 0..6).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// No text makes a parser panic; what they accept is within the
        /// maximum, and what they refuse is one line without raw control
        /// characters.
        #[test]
        fn value_parsers_never_panic(s in value_text()) {
            let one_line = |e: &str| !e.chars().any(|c| c.is_control() || c == '\u{2028}');
            match parse_size(&s) {
                Ok(n) => prop_assert!(n <= MAX_SIZE),
                Err(e) => prop_assert!(one_line(&e), "{e:?}"),
            }
            match parse_duration(&s) {
                Ok(d) => prop_assert!(d <= MAX_DURATION),
                Err(e) => prop_assert!(one_line(&e), "{e:?}"),
            }
            match parse_rate(&s) {
                Ok(r) => prop_assert!(r > 0.0 && r <= MAX_RATE),
                Err(e) => prop_assert!(one_line(&e), "{e:?}"),
            }
        }

        #[test]
        fn sizes_round_trip(n in 0u64..=(MAX_SIZE >> 20), unit in 0usize..3) {
            let (suffix, shift) = [("", 0), ("K", 10), ("MiB", 20)][unit];
            prop_assert_eq!(parse_size(&format!("{n}{suffix}")), Ok(n << shift));
        }

        #[test]
        fn sizes_above_the_maximum_are_refused(n in (MAX_SIZE + 1)..u64::MAX) {
            prop_assert!(parse_size(&n.to_string()).is_err());
            let t = format!("{}T", (n >> 40) + 1 + (1 << 20));
            prop_assert!(parse_size(&t).is_err());
        }

        #[test]
        fn durations_round_trip(secs in 0u64..=MAX_DURATION.as_secs(), ms in 0u64..1000) {
            prop_assert_eq!(parse_duration(&format!("{secs}")), Ok(Duration::from_secs(secs)));
            let d = Duration::from_secs(secs) + Duration::from_millis(ms);
            let text = format!("{secs}s {ms}ms");
            if d <= MAX_DURATION {
                prop_assert_eq!(parse_duration(&text), Ok(d));
            } else {
                prop_assert!(parse_duration(&text).is_err());
            }
        }

        #[test]
        fn any_number_of_seconds_is_bounded(x in any::<f64>()) {
            let text = format!("{x}");
            match parse_duration(&text) {
                Ok(d) => prop_assert!(d <= MAX_DURATION && x >= 0.0),
                // "-0" is refused as negative
                Err(_) => prop_assert!(
                    text.starts_with('-') || !(0.0..=MAX_DURATION.as_secs_f64()).contains(&x)
                ),
            }
            match parse_rate(&text) {
                Ok(r) => prop_assert_eq!(r, x),
                Err(_) => prop_assert!(!(x > 0.0 && x <= MAX_RATE)),
            }
        }
    }

    #[test]
    fn formatting() {
        assert_eq!(fmt_bytes(100), "100 B");
        assert_eq!(fmt_bytes(4096), "4.00 KiB");
        assert_eq!(fmt_bytes(3 << 29), "1.50 GiB");
        assert_eq!(fmt_ns(812.0), "812 ns");
        assert_eq!(fmt_ns(15_300.0), "15.3 µs");
        assert_eq!(fmt_ns(4_210_000.0), "4.21 ms");
        assert_eq!(whole_units(0, 3), (0, 0));
        assert_eq!(whole_units(1536, 3), (1536, 0));
        assert_eq!(whole_units(3 << 20, 3), (3, 2));
        assert_eq!(whole_units(1 << 40, 2), (1 << 20, 2));
    }
}
