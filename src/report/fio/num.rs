//! fio's number formatting: `num2str` (lib/num2str.c), digit for digit,
//! including its carry rounding, so figures print as fio prints them.

/// The unit a number is shown in (fio's `enum n2s_unit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    None,
    PerSec,
    Byte,
    Bit,
    BytePerSec,
    BitPerSec,
}

impl Unit {
    fn suffix(self) -> &'static str {
        match self {
            Unit::None => "",
            Unit::PerSec => "/s",
            Unit::Byte => "B",
            Unit::Bit => "bit",
            Unit::BytePerSec => "B/s",
            Unit::BitPerSec => "bit/s",
        }
    }
}

const SI: [&str; 7] = ["", "k", "M", "G", "T", "P", "E"];
const IEC: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];

/// `num` (in units of `base`: 1, or 1024 for a count of KiB) shown in at
/// most `maxlen` digits (the point counted), with a decimal (`pow2`
/// false: k, M, G) or binary (Ki, Mi, Gi) prefix. fio's `num2str`: the
/// figure is divided down until it fits, then the remainder of the last
/// division fills the digits left, rounded; with no room for a decimal
/// the remainder rounds the integer (half up).
pub fn num2str(num: u64, maxlen: usize, base: u64, pow2: bool, unit: Unit) -> String {
    let thousand: u64 = if pow2 { 1024 } else { 1000 };
    let prefixes = if pow2 { &IEC } else { &SI };
    let mut post = 0usize;
    let mut b = base;
    while b > 1 {
        b /= thousand;
        post += 1;
    }
    let mut num = match unit {
        Unit::Bit | Unit::BitPerSec => num.saturating_mul(8),
        _ => num,
    };
    let mut modulo: Option<u64> = None;
    let mut carry = false;
    while post < SI.len() {
        if digits(num) <= maxlen {
            break;
        }
        let m = num % thousand;
        num /= thousand;
        carry = m >= thousand / 2;
        modulo = Some(m);
        post += 1;
    }
    if post >= SI.len() {
        post = 0;
    }
    let Some(m) = modulo else {
        return format!("{num}{}{}", prefixes[post], unit.suffix());
    };
    let room = maxlen as i64 - digits(num) as i64;
    if room <= 1 {
        if carry {
            num += 1;
        }
        return format!("{num}{}{}", prefixes[post], unit.suffix());
    }
    let frac = format!("{:.*}", (room - 1) as usize, m as f64 / thousand as f64);
    if frac.starts_with('1') {
        num += 1;
    }
    format!("{num}.{}{}{}", &frac[2..], prefixes[post], unit.suffix())
}

fn digits(n: u64) -> usize {
    if n == 0 { 1 } else { n.ilog10() as usize + 1 }
}

/// C's `%.Nf` of a value that may not be finite (fio never prints NaN:
/// its figures are 0 when there is nothing to divide).
pub fn fixed(v: f64, prec: usize) -> String {
    let v = if v.is_finite() { v } else { 0.0 };
    format!("{v:.prec$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each case is a figure fio 3.33 printed (`fio --ioengine=null` and
    /// `--ioengine=psync` runs), with the number it came from.
    #[test]
    fn matches_fios_own_output() {
        // io=14.7GiB (15.7GB): 3845003 ios of 4 KiB
        let io = 3_845_003u64 * 4096;
        assert_eq!(num2str(io, 4, 1, true, Unit::Byte), "14.7GiB");
        assert_eq!(num2str(io, 4, 1, false, Unit::Byte), "15.7GB");
        // IOPS=3837k: 1000 * 3845003 / 1002 ms
        assert_eq!(num2str(3_837_328, 4, 1, false, Unit::None), "3837k");
        // read: IOPS=5969, BW=23.3MiB/s (24.5MB/s)(23.9MiB/1024msec)
        let io = 6113u64 * 4096;
        let bw = 1000 * io / 1024;
        assert_eq!(num2str(5969, 4, 1, false, Unit::None), "5969");
        assert_eq!(num2str(bw, 4, 1, true, Unit::BytePerSec), "23.3MiB/s");
        assert_eq!(num2str(bw, 4, 1, false, Unit::BytePerSec), "24.5MB/s");
        assert_eq!(num2str(io, 4, 1, true, Unit::Byte), "23.9MiB");
        assert_eq!(num2str(io, 4, 1, false, Unit::Byte), "25.0MB");
        // clat (nsec): min=15, max=4268.3k (display_lat: 6 digits)
        assert_eq!(num2str(15, 6, 1, false, Unit::None), "15");
        assert_eq!(num2str(4_268_300, 6, 1, false, Unit::None), "4268.3k");
        // bs=(R) 4096B-4096B
        assert_eq!(num2str(4096, 4, 1, true, Unit::Byte), "4096B");
        assert_eq!(num2str(65536, 4, 1, true, Unit::Byte), "64.0KiB");
    }

    #[test]
    fn carries_and_edges() {
        assert_eq!(num2str(0, 4, 1, false, Unit::None), "0");
        assert_eq!(num2str(9999, 4, 1, false, Unit::None), "9999");
        // 10000: no room for a decimal after "10"? 4 - 2 = 2: one decimal
        assert_eq!(num2str(10_000, 4, 1, false, Unit::None), "10.0k");
        // 99999 → 99 rem 999 → .999 rounds to 1.0: carried into 100.0k
        assert_eq!(num2str(99_999, 4, 1, false, Unit::None), "100.0k");
        // 123456 → 123 rem 456: room 1, no decimal, 456 < 500: no carry
        assert_eq!(num2str(123_456, 4, 1, false, Unit::None), "123k");
        assert_eq!(num2str(123_500, 4, 1, false, Unit::None), "124k");
        // a count of KiB (base 1024) starts one prefix up
        assert_eq!(num2str(512, 4, 1024, true, Unit::Byte), "512KiB");
        // bits: ×8 first
        assert_eq!(num2str(1000, 4, 1, false, Unit::BitPerSec), "8000bit/s");
        assert_eq!(num2str(u64::MAX, 4, 1, true, Unit::Byte), "16.0EiB");
        assert_eq!(fixed(f64::NAN, 2), "0.00");
        assert_eq!(fixed(2.005, 2), format!("{:.2}", 2.005));
    }
}
