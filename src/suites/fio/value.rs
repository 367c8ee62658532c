//! fio's value syntax, as its parser (parse.c, exp/expression-parser.y)
//! reads it: sizes with k/m/g/t/p suffixes under `kb_base`, times with
//! us/ms/s/m/h/d suffixes and a default unit per option, percentages,
//! booleans, parenthesised arithmetic, and the splitting of a value into
//! its per-direction pieces (`bs=4k,8k`).
//!
//! Where fio reads a value silently as something the user cannot have
//! meant, the value is refused here with a sentence saying so: `1.5k` (fio
//! stops at the `.` and reads 1 byte), a time suffix it does not know
//! (`10sec` is 10 µs to fio), an expression without a unit beyond 32 bits
//! (fio truncates it), a division by zero (fio keeps the dividend). Every
//! other value reads as fio reads it, `KiB` included (with the default
//! `kb_base=1024`, fio takes `KiB` as 1000 and `k`/`kB` as 1024).

use crate::units::MAX_SIZE;

/// fio's default `kb_base`.
pub const KB_BASE: u64 = 1024;

/// A size or a share of the file or device (`size=50%`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SizeOrPct {
    Bytes(u64),
    /// Percent, 0..=100.
    Percent(u32),
}

impl std::fmt::Display for SizeOrPct {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SizeOrPct::Bytes(b) => write!(f, "{b}"),
            SizeOrPct::Percent(p) => write!(f, "{p}%"),
        }
    }
}

/// How a time without a unit is read: seconds (runtime, ramp_time) or
/// microseconds (thinktime), fio's `is_seconds`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeUnit {
    Seconds,
    Micros,
}

/// The multiplier of a size suffix under `kb_base`, fio's
/// `__get_mult_bytes`: `k`, `kb` are `kb_base`; `kib` the other base
/// (1000 with the default 1024, 1024 with 1000); `b` or nothing is 1.
/// `None`: not a suffix fio knows.
pub fn size_suffix(suffix: &str, kb_base: u64) -> Option<u64> {
    let s = suffix.to_ascii_lowercase();
    let other = if kb_base == 1000 { 1024 } else { 1000 };
    let (pow, mult) = match s.as_str() {
        "" | "b" => (0, kb_base),
        "k" | "kb" => (1, kb_base),
        "m" | "mb" => (2, kb_base),
        "g" | "gb" => (3, kb_base),
        "t" | "tb" => (4, kb_base),
        "p" | "pb" => (5, kb_base),
        "kib" => (1, other),
        "mib" => (2, other),
        "gib" => (3, other),
        "tib" => (4, other),
        "pib" => (5, other),
        _ => return None,
    };
    Some(mult.pow(pow))
}

/// The value of an option as the parser sees it: a fio expression
/// `(…)` (or the shell's `$((…))`, read the same way), or a plain number.
fn as_expression(t: &str) -> Option<&str> {
    if t.starts_with('(') {
        Some(t)
    } else if t.starts_with("$((") {
        Some(&t[1..])
    } else {
        None
    }
}

/// A whole number of bytes (`4k`, `0x1000`, `(2*1024)m`), at most
/// [`MAX_SIZE`].
pub fn size(s: &str, kb_base: u64) -> Result<u64, String> {
    match size_or_pct(s, kb_base)? {
        SizeOrPct::Bytes(b) => Ok(b),
        SizeOrPct::Percent(_) => Err(format!("'{s}' is a percentage; a size is needed here")),
    }
}

/// A size, or a percentage (`50%`, 0 to 100).
pub fn size_or_pct(s: &str, kb_base: u64) -> Result<SizeOrPct, String> {
    let t = s.trim();
    if t.is_empty() {
        return Err("an empty value; a size is needed (e.g. 4k)".into());
    }
    if let Some(e) = as_expression(t) {
        let v = expression(e, false)?;
        let n = v.whole(1.0)?;
        return checked_size(n, s).map(SizeOrPct::Bytes);
    }
    let (n, suffix) = leading_number(t).ok_or_else(|| format!("'{t}' is not a size"))?;
    if suffix.starts_with('.') {
        return Err(format!(
            "'{t}': fio reads no fraction here (it would take '{}' and drop the rest); write a whole number in a smaller unit, or an expression such as (1.5*1024)k",
            &t[..t.len() - suffix.len()]
        ));
    }
    if suffix == "%" {
        if n.hex {
            return Err(format!("'{t}' is not a percentage"));
        }
        return match u32::try_from(n.value) {
            Ok(p) if p <= 100 => Ok(SizeOrPct::Percent(p)),
            _ => Err(format!("'{t}': a percentage is 0 to 100")),
        };
    }
    let mult = if n.hex {
        if !suffix.is_empty() {
            return Err(format!("'{t}': a hexadecimal size takes no suffix"));
        }
        1
    } else {
        size_suffix(suffix, kb_base).ok_or_else(|| {
            format!(
                "'{t}': '{suffix}' is not a size suffix (k, m, g, t, p, with an optional b or ib)"
            )
        })?
    };
    let bytes = n
        .value
        .checked_mul(i128::from(mult))
        .ok_or_else(|| format!("'{t}' is too large"))?;
    checked_size(bytes, s).map(SizeOrPct::Bytes)
}

fn checked_size(n: i128, s: &str) -> Result<u64, String> {
    if n < 0 {
        return Err(format!("'{}' is negative", s.trim()));
    }
    if n > i128::from(MAX_SIZE) {
        return Err(format!(
            "'{}' is beyond the largest size iogauge takes (1 EiB)",
            s.trim()
        ));
    }
    Ok(n as u64)
}

/// A whole number that fits fio's `int` options (iodepth, numjobs, …):
/// read as a size (fio reads `iodepth=1k` as 1024), at most `max`.
pub fn int(s: &str, kb_base: u64, max: u64) -> Result<u64, String> {
    let n = size(s, kb_base)?;
    if n > max {
        return Err(format!("'{}' is beyond the largest value, {max}", s.trim()));
    }
    Ok(n)
}

/// A time in nanoseconds: fio's `check_str_time`, whose result is in
/// microseconds (so whole microseconds here).
pub fn time_ns(s: &str, unit: TimeUnit) -> Result<u64, String> {
    let t = s.trim();
    if t.is_empty() {
        return Err("an empty value; a time is needed (e.g. 10s)".into());
    }
    let us: i128 = if let Some(e) = as_expression(t) {
        let v = expression(e, true)?;
        match unit {
            // fio evaluates in microseconds, then keeps whole seconds
            TimeUnit::Seconds => v.whole(1_000_000.0)? / 1_000_000 * 1_000_000,
            TimeUnit::Micros => v.whole(1.0)?,
        }
    } else {
        let (n, suffix) = leading_number(t).ok_or_else(|| format!("'{t}' is not a time"))?;
        if suffix.starts_with('.') {
            return Err(format!(
                "'{t}': fio reads no fraction here (it would take '{}' and drop the rest); use a smaller unit (e.g. 1500ms)",
                &t[..t.len() - suffix.len()]
            ));
        }
        let mult: i128 = match suffix.to_ascii_lowercase().as_str() {
            "" => match unit {
                TimeUnit::Seconds => 1_000_000,
                TimeUnit::Micros => 1,
            },
            "us" | "usec" => 1,
            "ms" | "msec" => 1_000,
            "s" => 1_000_000,
            "m" => 60_000_000,
            "h" => 3_600_000_000,
            "d" => 86_400_000_000,
            _ => {
                return Err(format!(
                    "'{t}': '{suffix}' is not a time unit fio reads (us, ms, s, m, h, d; fio would read this number as microseconds)"
                ));
            }
        };
        if n.hex && !suffix.is_empty() {
            return Err(format!("'{t}': a hexadecimal time takes no unit"));
        }
        n.value
            .checked_mul(mult)
            .ok_or_else(|| format!("'{t}' is too long"))?
    };
    if us < 0 {
        return Err(format!("'{t}' is negative"));
    }
    let max_us = i128::from(crate::units::MAX_DURATION.as_secs()) * 1_000_000;
    if us > max_us {
        return Err(format!(
            "'{t}' is longer than iogauge's longest time, 30 days"
        ));
    }
    Ok((us * 1000) as u64)
}

/// fio's booleans: `0` or `1`.
pub fn boolean(s: &str) -> Result<bool, String> {
    match s.trim() {
        "0" => Ok(false),
        "1" => Ok(true),
        t => Err(format!("'{t}' is not a boolean; fio takes 0 or 1")),
    }
}

/// A number at the start of `t`, as `strtoll` reads it (sign, decimal
/// digits, or hexadecimal when `0x` appears), and what follows it.
struct Leading {
    value: i128,
    hex: bool,
}

fn leading_number(t: &str) -> Option<(Leading, &str)> {
    let (neg, rest) = match t.as_bytes().first()? {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    let (hex, digits_start) = if rest.starts_with("0x") || rest.starts_with("0X") {
        (true, &rest[2..])
    } else {
        (false, rest)
    };
    let radix = if hex { 16 } else { 10 };
    let end = digits_start
        .find(|c: char| !c.is_digit(radix))
        .unwrap_or(digits_start.len());
    if end == 0 {
        return None;
    }
    let digits = &digits_start[..end];
    // longer than any size: more digits than i128 holds are refused
    let value = i128::from_str_radix(digits, radix).ok()?;
    if value > i128::from(u64::MAX) {
        return None;
    }
    Some((
        Leading {
            value: if neg { -value } else { value },
            hex,
        },
        &digits_start[end..],
    ))
}

// ------------------------------------------------------------ expressions

/// A value of fio's expression grammar: an integer and a float kept side
/// by side, `has_dval` saying which one counts (exp/expression-parser.y).
#[derive(Clone, Copy, Debug)]
struct Val {
    i: i128,
    d: f64,
    has_d: bool,
}

/// The result of an expression and whether it named a unit.
#[derive(Clone, Copy, Debug)]
pub struct Evaluated {
    value: i128,
    units: bool,
}

impl Evaluated {
    /// The whole number the option gets: times `implied` when the
    /// expression named no unit; fio then computes in 32 bits, and a
    /// result beyond them is refused here rather than truncated.
    fn whole(self, implied: f64) -> Result<i128, String> {
        if self.units {
            return Ok(self.value);
        }
        let v = (self.value as f64 * implied) as i128;
        if v > i128::from(i32::MAX) || v < i128::from(i32::MIN) {
            return Err(
                "the expression's result needs more than 32 bits without a unit, which fio truncates; name the unit inside the parentheses (e.g. (3*1024)m)".into(),
            );
        }
        Ok(v)
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Tok {
    Num(i128, f64, bool),
    Suffix(i128, f64, bool),
    Op(char),
}

fn lex(s: &str, is_time: bool) -> Result<Vec<Tok>, String> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' => i += 1,
            // fio's lexer ignores the rest after these
            b'#' | b':' | b',' => break,
            b'+' | b'-' | b'/' | b'*' | b'(' | b')' | b'^' | b'%' => {
                out.push(Tok::Op(c as char));
                i += 1;
            }
            b'0'..=b'9' | b'.' => {
                let start = i;
                if c == b'0' && matches!(b.get(i + 1), Some(b'x' | b'X')) {
                    let mut j = i + 2;
                    while j < b.len() && b[j].is_ascii_hexdigit() {
                        j += 1;
                    }
                    if j == i + 2 {
                        return Err(format!("'{s}': '0x' without digits"));
                    }
                    let v = i128::from_str_radix(&s[i + 2..j], 16)
                        .ok()
                        .filter(|v| *v <= i128::from(u32::MAX))
                        .ok_or_else(|| format!("'{s}': a number too large for fio's 32 bits"))?;
                    // fio reads it with %x into an int
                    let v = i128::from(v as u32 as i32);
                    out.push(Tok::Num(v, v as f64, false));
                    i = j;
                    continue;
                }
                let mut j = i;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
                let mut float = false;
                if j < b.len() && b[j] == b'.' {
                    float = true;
                    j += 1;
                    while j < b.len() && b[j].is_ascii_digit() {
                        j += 1;
                    }
                }
                if j < b.len() && (b[j] == b'e' || b[j] == b'E') {
                    let mut k = j + 1;
                    while k < b.len() && (b[k] == b'+' || b[k] == b'-') {
                        k += 1;
                    }
                    let digits = k;
                    while k < b.len() && b[k].is_ascii_digit() {
                        k += 1;
                    }
                    if k > digits {
                        float = true;
                        j = k;
                    }
                }
                let text = &s[start..j];
                if float {
                    let d: f64 = text
                        .parse()
                        .map_err(|_| format!("'{s}': '{text}' is not a number"))?;
                    if !d.is_finite() {
                        return Err(format!("'{s}': '{text}' is not a finite number"));
                    }
                    out.push(Tok::Num(d as i128, d, true));
                } else {
                    // fio reads it with %d into an int
                    let v: i128 = text
                        .parse::<i32>()
                        .map_err(|_| format!("'{s}': '{text}' is too large for fio's 32 bits"))?
                        .into();
                    out.push(Tok::Num(v, v as f64, false));
                }
                i = j;
            }
            c if c.is_ascii_alphabetic() => {
                let mut j = i;
                while j < b.len() && b[j].is_ascii_alphabetic() {
                    j += 1;
                }
                // flex takes the longest match of its suffix patterns
                let word = s[i..j].to_ascii_lowercase();
                let mut taken = None;
                for len in (1..=word.len().min(3)).rev() {
                    if let Some(m) = expr_suffix(&word[..len], is_time) {
                        taken = Some((len, m));
                        break;
                    }
                }
                let (len, (iv, dv, has_d)) =
                    taken.ok_or_else(|| format!("'{s}': '{word}' is not a unit fio knows"))?;
                out.push(Tok::Suffix(iv, dv, has_d));
                i += len;
            }
            _ => {
                let ch = s[i..].chars().next().unwrap_or('?');
                return Err(format!("'{s}': '{ch}' has no meaning in an expression"));
            }
        }
    }
    Ok(out)
}

/// The units of fio's expression lexer: binary `k`/`m`/`g`/`t`/`p` (and
/// their `b` forms), decimal `kib`/`mib`/`gib`/`pib`, times in
/// microseconds; `m` is minutes in a time, mebibytes elsewhere.
fn expr_suffix(w: &str, is_time: bool) -> Option<(i128, f64, bool)> {
    let k: i128 = 1024;
    let int = |v: i128| Some((v, v as f64, false));
    match w {
        "k" | "kb" => int(k),
        "mb" => int(k * k),
        "ms" => Some((1000, 1000.0, true)),
        "us" => Some((1, 1.0, true)),
        "g" | "gb" => int(k * k * k),
        // fio's float for t is 1024^5: kept as fio has it
        "t" | "tb" => Some((k.pow(4), 1024f64.powi(5), false)),
        "p" | "pb" => int(k.pow(5)),
        "kib" => int(1000),
        "mib" => int(1_000_000),
        "gib" => int(1_000_000_000),
        "pib" => int(1_000_000_000_000),
        "s" => int(1_000_000),
        "m" if is_time => int(60_000_000),
        "m" => int(k * k),
        "d" => int(86_400_000_000),
        "h" => int(3_600_000_000),
        _ => None,
    }
}

/// Evaluate a parenthesised expression as fio's grammar does, its
/// precedence from lowest to highest: `+ -`, a unit, `* /`, `^` (right),
/// `%`, unary minus. Overflow and division by zero are refused.
pub fn expression(s: &str, is_time: bool) -> Result<Evaluated, String> {
    let toks = lex(s, is_time)?;
    let mut p = Parser {
        toks: &toks,
        at: 0,
        units: false,
        src: s,
        depth: 0,
    };
    let v = p.expr(0)?;
    if p.at != toks.len() {
        return Err(format!("'{s}' is not an expression fio reads"));
    }
    Ok(Evaluated {
        value: v.i,
        units: p.units,
    })
}

struct Parser<'a> {
    toks: &'a [Tok],
    at: usize,
    units: bool,
    src: &'a str,
    depth: u32,
}

const LIMIT: i128 = i64::MAX as i128;

impl Parser<'_> {
    fn bad(&self) -> String {
        format!("'{}' is not an expression fio reads", self.src)
    }

    fn big(&self) -> String {
        format!("'{}': the result is too large", self.src)
    }

    fn check(&self, v: Val) -> Result<Val, String> {
        if v.i.abs() > LIMIT || !v.d.is_finite() {
            return Err(self.big());
        }
        Ok(v)
    }

    fn expr(&mut self, min_bp: u8) -> Result<Val, String> {
        self.depth += 1;
        if self.depth > 200 {
            return Err(format!("'{}' nests too deeply", self.src));
        }
        let mut lhs = match self.toks.get(self.at) {
            Some(Tok::Num(i, d, h)) => {
                self.at += 1;
                Val {
                    i: *i,
                    d: *d,
                    has_d: *h,
                }
            }
            Some(Tok::Op('(')) => {
                self.at += 1;
                let v = self.expr(0)?;
                if self.toks.get(self.at) != Some(&Tok::Op(')')) {
                    return Err(self.bad());
                }
                self.at += 1;
                v
            }
            Some(Tok::Op('-')) => {
                self.at += 1;
                let v = self.expr(60)?;
                Val {
                    i: -v.i,
                    d: -v.d,
                    has_d: v.has_d,
                }
            }
            _ => return Err(self.bad()),
        };
        loop {
            let (lbp, rbp) = match self.toks.get(self.at) {
                Some(Tok::Op('+' | '-')) => (10, 11),
                Some(Tok::Suffix(..)) => (20, 0),
                Some(Tok::Op('*' | '/')) => (30, 31),
                Some(Tok::Op('^')) => (40, 39),
                Some(Tok::Op('%')) => (50, 51),
                _ => break,
            };
            if lbp <= min_bp {
                break;
            }
            let tok = self.toks[self.at];
            self.at += 1;
            if let Tok::Suffix(si, sd, sh) = tok {
                self.units = true;
                let i = if !lhs.has_d && !sh {
                    lhs.i.checked_mul(si).ok_or_else(|| self.big())?
                } else {
                    (lhs.d.trunc() * sd) as i128
                };
                let d = if lhs.has_d || sh {
                    lhs.d * sd
                } else {
                    (lhs.i * si) as f64
                };
                lhs = self.check(Val {
                    i,
                    d,
                    has_d: lhs.has_d,
                })?;
                continue;
            }
            let rhs = self.expr(rbp)?;
            let Tok::Op(op) = tok else { unreachable!() };
            let either = lhs.has_d || rhs.has_d;
            let v = match op {
                '+' | '-' | '*' => {
                    let (ii, dd) = match op {
                        '+' => (lhs.i.checked_add(rhs.i), lhs.d + rhs.d),
                        '-' => (lhs.i.checked_sub(rhs.i), lhs.d - rhs.d),
                        _ => (lhs.i.checked_mul(rhs.i), lhs.d * rhs.d),
                    };
                    let i = if either {
                        dd as i128
                    } else {
                        ii.ok_or_else(|| self.big())?
                    };
                    Val {
                        i,
                        d: dd,
                        has_d: lhs.has_d,
                    }
                }
                '/' => {
                    if rhs.i == 0 && !either || rhs.d.abs() < 1e-20 {
                        return Err(format!("'{}' divides by zero", self.src));
                    }
                    let d = lhs.d / rhs.d;
                    let i = if either { d as i128 } else { lhs.i / rhs.i };
                    Val {
                        i,
                        d,
                        has_d: lhs.has_d,
                    }
                }
                '%' => {
                    if either {
                        return Err(format!("'{}': fio takes no modulo of fractions", self.src));
                    }
                    if rhs.i == 0 {
                        return Err(format!("'{}' divides by zero", self.src));
                    }
                    let i = lhs.i % rhs.i;
                    Val {
                        i,
                        d: i as f64,
                        has_d: lhs.has_d,
                    }
                }
                _ => {
                    // '^'
                    let d = lhs.d.powf(rhs.d);
                    let i = if !either && rhs.i >= 0 {
                        let e = u32::try_from(rhs.i).map_err(|_| self.big())?;
                        lhs.i.checked_pow(e).ok_or_else(|| self.big())?
                    } else if !either {
                        (lhs.i as f64).powf(rhs.i as f64) as i128
                    } else {
                        d as i128
                    };
                    Val {
                        i,
                        d,
                        has_d: lhs.has_d,
                    }
                }
            };
            lhs = self.check(v)?;
        }
        self.depth -= 1;
        Ok(lhs)
    }
}

// ------------------------------------------------------------ splitting

/// Split a value into its pieces as fio's `handle_option` does: at the
/// first `,`; for options that are not ranges also at `:` or at a `-`
/// that is not the first character. Separators inside parentheses do not
/// split (fio would, and then fail to read either half). A trailing comma
/// is dropped.
pub fn split_pieces(v: &str, only_comma: bool) -> Vec<&str> {
    let v = v.strip_suffix(',').unwrap_or(v);
    let mut out = Vec::new();
    let mut rest = v;
    loop {
        match find_sep(rest, only_comma) {
            Some(i) => {
                out.push(&rest[..i]);
                rest = &rest[i + 1..];
            }
            None => {
                out.push(rest);
                return out;
            }
        }
    }
}

fn find_sep(s: &str, only_comma: bool) -> Option<usize> {
    let top = |want: char, skip_first: bool| -> Option<usize> {
        let mut depth = 0i32;
        for (i, c) in s.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                c if c == want && depth <= 0 && !(skip_first && i == 0) => return Some(i),
                _ => {}
            }
        }
        None
    };
    top(',', false).or_else(|| {
        if only_comma {
            None
        } else {
            top(':', false).or_else(|| top('-', true))
        }
    })
}

/// Spread fio's pieces over read, write and trim (`__handle_option`'s
/// `first`/`curr`/`more`): the first piece is read; the second write; the
/// third trim; the last given one fills the directions after it. An empty
/// piece leaves its direction as it was.
pub fn per_direction<T: Clone>(pieces: &[Option<T>]) -> [Option<T>; 3] {
    let mut out: [Option<T>; 3] = [None, None, None];
    let n = pieces.len().min(3);
    for (d, p) in pieces.iter().take(3).enumerate() {
        if let Some(v) = p {
            out[d] = Some(v.clone());
            if d + 1 == n {
                for slot in out.iter_mut().skip(d + 1) {
                    *slot = Some(v.clone());
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_as_fio_reads_them() {
        assert_eq!(size("4k", 1024), Ok(4096));
        assert_eq!(size("4K", 1024), Ok(4096));
        assert_eq!(size("4kb", 1024), Ok(4096));
        assert_eq!(size("4kB", 1024), Ok(4096));
        // fio's kb_base=1024 reads the IEC forms as decimal
        assert_eq!(size("4KiB", 1024), Ok(4000));
        assert_eq!(size("4KiB", 1000), Ok(4096));
        assert_eq!(size("4k", 1000), Ok(4000));
        assert_eq!(size("1m", 1024), Ok(1 << 20));
        assert_eq!(size("1g", 1024), Ok(1 << 30));
        assert_eq!(size("1t", 1024), Ok(1 << 40));
        assert_eq!(size("1p", 1024), Ok(1 << 50));
        assert_eq!(size("1mib", 1024), Ok(1_000_000));
        assert_eq!(size("512b", 1024), Ok(512));
        assert_eq!(size("4096", 1024), Ok(4096));
        assert_eq!(size("0x1000", 1024), Ok(4096));
        assert_eq!(size(" 8k", 1024), Ok(8192));
        assert!(size("1.5k", 1024).unwrap_err().contains("fraction"));
        assert!(size("4kx", 1024).is_err());
        assert!(size("-1", 1024).unwrap_err().contains("negative"));
        assert!(size("", 1024).is_err());
        assert!(size("k", 1024).is_err());
        assert!(size("2000p", 1024).is_err());
        assert_eq!(size_or_pct("50%", 1024), Ok(SizeOrPct::Percent(50)));
        assert!(size_or_pct("101%", 1024).is_err());
        assert!(size("50%", 1024).is_err());
    }

    #[test]
    fn expressions_as_fio_evaluates_them() {
        assert_eq!(size("(2*1024)m", 1024), Ok(2048 << 20));
        assert_eq!(size("$((2*1024))m", 1024), Ok(2048 << 20));
        assert_eq!(size("(1+2*3)", 1024), Ok(7));
        // a unit binds tighter than + and looser than *
        assert_eq!(size("(1+1k)", 1024), Ok(1025));
        assert_eq!(size("(2*3k)", 1024), Ok(6144));
        assert_eq!(size("(2^10)", 1024), Ok(1024));
        assert_eq!(size("(2^3^2)", 1024), Ok(512));
        assert_eq!(size("(10%4*2)", 1024), Ok(4));
        assert_eq!(size("(-2+6)", 1024), Ok(4));
        assert_eq!(size("(1.5*1024)", 1024), Ok(1536));
        assert_eq!(size("(4kib)", 1024), Ok(4000));
        assert_eq!(size("(7/2)", 1024), Ok(3));
        assert!(size("(1/0)", 1024).unwrap_err().contains("zero"));
        assert!(
            size("(3*1024*1024*1024)", 1024)
                .unwrap_err()
                .contains("32 bits")
        );
        assert_eq!(size("(3*1024)m", 1024), Ok(3 << 30));
        assert!(size("(1+", 1024).is_err());
        assert!(size("(x)", 1024).is_err());
        assert!(size("(((((((((((((((((((((1", 1024).is_err());
    }

    #[test]
    fn times_as_fio_reads_them() {
        let s = TimeUnit::Seconds;
        let u = TimeUnit::Micros;
        assert_eq!(time_ns("10", s), Ok(10_000_000_000));
        assert_eq!(time_ns("10", u), Ok(10_000));
        assert_eq!(time_ns("10s", u), Ok(10_000_000_000));
        assert_eq!(time_ns("500ms", s), Ok(500_000_000));
        assert_eq!(time_ns("500msec", s), Ok(500_000_000));
        assert_eq!(time_ns("20us", s), Ok(20_000));
        assert_eq!(time_ns("2m", s), Ok(120_000_000_000));
        assert_eq!(time_ns("1h", s), Ok(3_600_000_000_000));
        assert_eq!(time_ns("1d", s), Ok(86_400_000_000_000));
        assert_eq!(time_ns("1M", s), Ok(60_000_000_000));
        assert!(time_ns("10sec", s).unwrap_err().contains("microseconds"));
        assert!(time_ns("1.5s", s).is_err());
        assert!(time_ns("-1", s).is_err());
        assert!(time_ns("31d", s).is_err());
        // in an expression, microseconds; runtime keeps whole seconds
        assert_eq!(time_ns("(10)", s), Ok(10_000_000_000));
        assert_eq!(time_ns("(1m)", s), Ok(60_000_000_000));
        assert_eq!(time_ns("(1500ms)", s), Ok(1_000_000_000));
        assert_eq!(time_ns("(10)", u), Ok(10_000));
        assert_eq!(time_ns("(2*1ms)", u), Ok(2_000_000));
    }

    #[test]
    fn booleans() {
        assert_eq!(boolean("1"), Ok(true));
        assert_eq!(boolean(" 0"), Ok(false));
        assert!(boolean("yes").is_err());
        assert!(boolean("2").is_err());
    }

    #[test]
    fn pieces_and_directions() {
        assert_eq!(split_pieces("4k,8k", false), vec!["4k", "8k"]);
        assert_eq!(split_pieces("4k,", false), vec!["4k"]);
        assert_eq!(split_pieces("4k:8k", false), vec!["4k", "8k"]);
        assert_eq!(split_pieces("4k-8k", false), vec!["4k", "8k"]);
        assert_eq!(split_pieces("-1", false), vec!["-1"]);
        assert_eq!(split_pieces("1k-4k,2k-8k", true), vec!["1k-4k", "2k-8k"]);
        assert_eq!(split_pieces("(4-1)k,8k", false), vec!["(4-1)k", "8k"]);
        assert_eq!(split_pieces(",8k", false), vec!["", "8k"]);
        let d = |v: &[Option<u32>]| per_direction(v);
        assert_eq!(d(&[Some(1)]), [Some(1), Some(1), Some(1)]);
        assert_eq!(d(&[Some(1), Some(2)]), [Some(1), Some(2), Some(2)]);
        assert_eq!(d(&[Some(1), Some(2), Some(3)]), [Some(1), Some(2), Some(3)]);
        assert_eq!(d(&[None, Some(2)]), [None, Some(2), Some(2)]);
        assert_eq!(d(&[Some(1), None]), [Some(1), None, None]);
    }
}
