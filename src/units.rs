//! Sizes and durations as people type them.
//!
//! Sizes: a number with an optional binary suffix. `K`, `KB` and `KiB` all
//! mean 1024 (as in fio, whose users expect `4k` = 4096); likewise `M`, `G`
//! and `T`. Case does not matter; a fraction is allowed where the result is a
//! whole number of bytes (`1.5K` = 1536).
//!
//! Durations: a plain number is seconds (`30`, `0.5`); otherwise a suffixed
//! form such as `30s`, `500ms`, `5m`, `1h`, `1m30s` (humantime's syntax).

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

pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    if t.starts_with('-') {
        return Err(format!("'{s}' is negative: a size must be positive"));
    }
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, suffix) = t.split_at(split);
    let bad = || {
        format!(
            "'{s}' is not a size: use bytes or a number with K, M, G or T (KiB, MiB, … also accepted)"
        )
    };
    if num.is_empty() {
        return Err(bad());
    }
    let value: f64 = num.parse().map_err(|_| bad())?;
    let mult: u64 = match suffix.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => return Err(bad()),
    };
    let bytes = value * mult as f64;
    if bytes.fract() != 0.0 || bytes > u64::MAX as f64 {
        return Err(format!("'{s}' is not a whole number of bytes"));
    }
    Ok(bytes as u64)
}

pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    if t.starts_with('-') {
        return Err(format!("'{s}' is negative: a duration must be positive"));
    }
    if let Ok(secs) = t.parse::<f64>() {
        if secs.is_finite() && secs >= 0.0 {
            return Ok(Duration::from_secs_f64(secs));
        }
        return Err(format!("'{s}' is not a duration: it must be positive"));
    }
    humantime::parse_duration(t).map_err(|_| {
        format!("'{s}' is not a duration: use seconds or a form like 30s, 500ms, 5m, 1h")
    })
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

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("0.25"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("1m30s"), Ok(Duration::from_secs(90)));
        assert!(parse_duration("-3").is_err());
        assert!(parse_duration("soon").is_err());
    }

    #[test]
    fn formatting() {
        assert_eq!(fmt_bytes(100), "100 B");
        assert_eq!(fmt_bytes(4096), "4.00 KiB");
        assert_eq!(fmt_bytes(3 << 29), "1.50 GiB");
        assert_eq!(fmt_ns(812.0), "812 ns");
        assert_eq!(fmt_ns(15_300.0), "15.3 µs");
        assert_eq!(fmt_ns(4_210_000.0), "4.21 ms");
    }
}
