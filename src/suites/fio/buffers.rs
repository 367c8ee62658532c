//! What a fio job writes: fio's buffer options (`zero_buffers`,
//! `refill_buffers`, `scramble_buffers`, `buffer_pattern`,
//! `buffer_compress_percentage`, `buffer_compress_chunk`,
//! `dedupe_percentage`, `dedupe_mode`, `dedupe_working_set_percentage`)
//! and `verify_pattern`, read as fio reads them (options.c, init.c) and
//! applied per write as fio's io_u.c does (docs/fio.md, "What a job
//! writes").
//!
//! - **By default** an engine's buffers hold random bytes, filled once, and
//!   each write is scrambled (fio's `small_content_scramble`): every
//!   512-byte sector gets its file offset and the write's stamp, so no two
//!   sectors a job writes are equal and a deduplicating device finds
//!   nothing to share. Three stores per sector.
//! - **`refill_buffers`** (implied by a compress percentage below 100 and by
//!   `dedupe_percentage`): every write is filled anew (fio's
//!   `fill_io_buffer`).
//! - **`buffer_compress_percentage`**: each chunk of the write (the
//!   smallest of the smallest write and `buffer_compress_chunk`, 512 B by
//!   default) is that share zeros (or `buffer_pattern`) after random bytes
//!   (fio's `fill_random_buf_percentage`); 100 means zero buffers.
//! - **`dedupe_percentage`**: that share of writes repeat another write's
//!   bytes whole: the one the job makes next (`dedupe_mode=repeat`, fio's
//!   saved random state) or one of the job's first unique writes
//!   (`working_set`).
//! - **`zero_buffers`, `buffer_pattern`**: the buffers hold zeros or the
//!   pattern; a buffer a read used is filled again before it is written.
//!
//! The per-write work happens where the fio job's request is made
//! ([`crate::runner::Source::fill`] of the job's source): other benchmarks
//! pay nothing.

use super::plan::JobPlan;
use crate::data;
use crate::engine::Req;
use crate::measure::OpKind;
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

/// The options this module reads, as [`super::job::SUPPORTED`] lists them.
pub const OPTIONS: &[&str] = &[
    "zero_buffers",
    "refill_buffers",
    "scramble_buffers",
    "buffer_pattern",
    "buffer_compress_percentage",
    "buffer_compress_chunk",
    "dedupe_percentage",
    "dedupe_mode",
    "dedupe_working_set_percentage",
    "verify_pattern",
];

/// fio's `MAX_PATTERN_SIZE` (lib/pattern.h).
const MAX_PATTERN: usize = 128 << 20;

/// A parsed fio pattern (lib/pattern.c): its bytes, and where each `%o`
/// (the block's offset, 8 bytes little-endian) goes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pattern {
    pub bytes: Vec<u8>,
    /// Byte positions of `%o` in `bytes`.
    pub offsets: Vec<usize>,
    /// As written.
    pub text: String,
}

/// As written (a file's bytes are not repeated where the job is shown).
impl serde::Serialize for Pattern {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

impl Pattern {
    /// The pattern for a block at file offset `off` (`%o` pasted).
    pub fn at(&self, off: u64) -> std::borrow::Cow<'_, [u8]> {
        if self.offsets.is_empty() {
            return std::borrow::Cow::Borrowed(&self.bytes);
        }
        let mut b = self.bytes.clone();
        for &o in &self.offsets {
            b[o..o + 8].copy_from_slice(&off.to_le_bytes());
        }
        std::borrow::Cow::Owned(b)
    }

    /// Fill `buf`, a block at file offset `off`, as fio does: the pattern
    /// (with `%o` pasted) repeated from the block's start.
    pub fn fill(&self, buf: &mut [u8], off: u64) {
        data::fill_pattern(buf, &self.at(off));
    }
}

/// Parse fio's pattern syntax: hex numbers (`0x…`, bytes in the order
/// written, an odd digit count with a leading zero nibble), decimal
/// numbers (`INT_MIN..=INT_MAX`, little-endian, as few bytes as hold them),
/// quoted strings `"…"`, a file's bytes `'path'`, and with `formats` the
/// `%o` offset, all concatenated in any order.
pub fn parse_pattern(text: &str, formats: bool) -> Result<Pattern, String> {
    let s = text.trim();
    if s.is_empty() {
        return Err("an empty pattern".into());
    }
    let b = s.as_bytes();
    let mut out = Pattern {
        text: s.to_string(),
        ..Default::default()
    };
    let mut i = 0;
    while i < b.len() {
        let before = out.bytes.len();
        match b[i] {
            q @ (b'"' | b'\'') => {
                let end = s[i + 1..]
                    .find(q as char)
                    .map(|e| i + 1 + e)
                    .ok_or_else(|| format!("'{s}': a {} is not closed", q as char))?;
                let inner = &s[i + 1..end];
                if q == b'"' {
                    out.bytes.extend_from_slice(inner.as_bytes());
                } else {
                    let data = std::fs::read(inner)
                        .map_err(|e| format!("'{s}': cannot read the pattern file {inner}: {e}"))?;
                    let room = MAX_PATTERN.saturating_sub(out.bytes.len());
                    out.bytes.extend_from_slice(&data[..data.len().min(room)]);
                }
                i = end + 1;
            }
            b'%' => {
                if !s[i..].starts_with("%o") {
                    return Err(format!("'{s}': the only format is %o (the block's offset)"));
                }
                if !formats {
                    return Err(format!(
                        "'{s}': %o is not taken here (fio takes formats in verify_pattern only)"
                    ));
                }
                out.offsets.push(out.bytes.len());
                out.bytes.extend_from_slice(&[0; 8]);
                i += 2;
            }
            _ => i += number(s, &s[i..], &mut out.bytes)?,
        }
        if out.bytes.len() == before {
            return Err(format!("'{s}': an empty part (\"\" or an empty file)"));
        }
        if out.bytes.len() > MAX_PATTERN {
            return Err(format!("'{s}': longer than fio's {MAX_PATTERN} bytes"));
        }
    }
    Ok(out)
}

/// fio's `parse_number` at the start of `rest`: its bytes appended to
/// `out`, and how many characters it took.
fn number(whole: &str, rest: &str, out: &mut Vec<u8>) -> Result<usize, String> {
    let b = rest.as_bytes();
    let hex_digits = |from: usize| {
        b[from..]
            .iter()
            .take_while(|c| c.is_ascii_hexdigit())
            .count()
    };
    if b.len() > 2 && b[0] == b'0' && (b[1] | 0x20) == b'x' && hex_digits(2) > 0 {
        let mut n = hex_digits(2);
        // "0xff0x14": the 0 before an x starts the next number
        if 2 + n < b.len() && (b[2 + n] | 0x20) == b'x' && b[1 + n] == b'0' {
            n -= 1;
        }
        let digits = &rest[2..2 + n];
        let nib = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
        let d = digits.as_bytes();
        let mut k = 0;
        if n % 2 == 1 {
            out.push(nib(d[0]));
            k = 1;
        }
        while k < n {
            out.push(nib(d[k]) << 4 | nib(d[k + 1]));
            k += 2;
        }
        return Ok(2 + n);
    }
    // a decimal ends where a hex number starts
    let lower = rest.to_ascii_lowercase();
    let limit = match lower.find("0x") {
        Some(0) | None => rest.len(),
        Some(k) => k,
    };
    let t = &rest[..limit];
    let lead = t.len() - t.trim_start().len();
    let mut end = lead;
    let tb = t.as_bytes();
    if end < tb.len() && (tb[end] == b'-' || tb[end] == b'+') {
        end += 1;
    }
    let digits_from = end;
    while end < tb.len() && tb[end].is_ascii_digit() {
        end += 1;
    }
    if end == digits_from {
        return Err(format!(
            "'{whole}': '{rest}' is not a number, a \"string\", a 'file' or %o (fio's pattern forms)"
        ));
    }
    let v: i64 = t[lead..end]
        .parse()
        .ok()
        .filter(|v| (i64::from(i32::MIN)..=i64::from(i32::MAX)).contains(v))
        .ok_or_else(|| {
            format!(
                "'{whole}': {} is out of a decimal's range (give a longer number in hex, 0x…)",
                &t[lead..end]
            )
        })?;
    if v == 0 {
        out.push(0);
    } else {
        let mut u = v as i32 as u32;
        while u != 0 {
            out.push(u as u8);
            u >>= 8;
        }
    }
    Ok(end)
}

/// `dedupe_mode`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub enum DedupeMode {
    #[default]
    Repeat,
    WorkingSet,
}

/// The buffer options of one job, as set (an option not given is `None`
/// where fio tells set from default).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BufferOpts {
    pub zero: Option<bool>,
    pub refill: Option<bool>,
    pub scramble: Option<bool>,
    pub pattern: Option<Pattern>,
    /// Percent; 0: none asked.
    pub compress: u32,
    /// Bytes; fio's default 512.
    pub chunk: u64,
    pub dedupe: u32,
    pub dedupe_mode: DedupeMode,
    pub working_set: u32,
    pub verify_pattern: Option<Pattern>,
}

impl Default for BufferOpts {
    fn default() -> Self {
        BufferOpts {
            zero: None,
            refill: None,
            scramble: None,
            pattern: None,
            compress: 0,
            chunk: 512,
            dedupe: 0,
            dedupe_mode: DedupeMode::Repeat,
            working_set: 5,
            verify_pattern: None,
        }
    }
}

impl BufferOpts {
    /// Set option `name` (one of [`OPTIONS`]) from `v`.
    pub fn set(&mut self, name: &str, v: &str, kb: u64) -> Result<(), String> {
        let pct = |v: &str| {
            super::value::int(v, kb, 100)
                .map(|n| n as u32)
                .map_err(|e| format!("{e} (a percentage, 0 to 100)"))
        };
        match name {
            "zero_buffers" => self.zero = Some(super::value::boolean(v)?),
            "refill_buffers" => self.refill = Some(super::value::boolean(v)?),
            "scramble_buffers" => self.scramble = Some(super::value::boolean(v)?),
            "buffer_pattern" => self.pattern = Some(parse_pattern(v, false)?),
            "buffer_compress_percentage" => self.compress = pct(v)?,
            "buffer_compress_chunk" => self.chunk = super::value::size(v, kb)?,
            "dedupe_percentage" => self.dedupe = pct(v)?,
            "dedupe_mode" => {
                self.dedupe_mode = match v.trim() {
                    "repeat" => DedupeMode::Repeat,
                    "working_set" => DedupeMode::WorkingSet,
                    t => return Err(format!("'{t}': dedupe_mode is repeat or working_set")),
                }
            }
            "dedupe_working_set_percentage" => self.working_set = pct(v)?,
            "verify_pattern" => self.verify_pattern = Some(parse_pattern(v, true)?),
            _ => unreachable!("{name} is one of OPTIONS"),
        }
        Ok(())
    }

    /// Option `name`'s value as `--parse-only` prints it.
    pub fn value(&self, name: &str) -> String {
        let b = |x: Option<bool>, d: bool| if x.unwrap_or(d) { "1" } else { "0" }.to_string();
        let pat = |p: &Option<Pattern>| p.as_ref().map_or("(none)".into(), |p| p.text.clone());
        match name {
            "zero_buffers" => b(self.zero, false),
            "refill_buffers" => b(self.refill, false),
            "scramble_buffers" => b(self.scramble, true),
            "buffer_pattern" => pat(&self.pattern),
            "buffer_compress_percentage" => self.compress.to_string(),
            "buffer_compress_chunk" => self.chunk.to_string(),
            "dedupe_percentage" => self.dedupe.to_string(),
            "dedupe_mode" => match self.dedupe_mode {
                DedupeMode::Repeat => "repeat".into(),
                DedupeMode::WorkingSet => "working_set".into(),
            },
            "dedupe_working_set_percentage" => self.working_set.to_string(),
            "verify_pattern" => pat(&self.verify_pattern),
            _ => String::new(),
        }
    }
}

/// What fills a buffer (fio's `fill_io_buffer`, in its order).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Content {
    /// The engine's random bytes (made with the engine), or new random
    /// bytes at each refill.
    Random,
    Zero,
    Pattern(Vec<u8>),
    /// Chunks of `chunk` bytes, `pct` percent compressible (zeros or the
    /// pattern), each write's seed chosen by the dedupe draw.
    Percent {
        pct: u32,
        chunk: usize,
        pattern: Vec<u8>,
    },
}

/// How a job's writes are filled, decided once (fio's `fixup_options` and
/// `init_flags`), and the state of its draws.
#[derive(Debug)]
pub struct Fill {
    content: Content,
    /// Fill every write anew.
    refill: bool,
    /// A fixed content ([`Fill::fixed`]), decided once.
    fixed: bool,
    /// Scramble every write (fio's default).
    scramble: bool,
    /// Which buffer slots hold the content (a fixed content: zeros, a
    /// pattern, a compressible fill without refills; filled once per slot
    /// and again after a read used it).
    filled: Vec<bool>,
    dedupe: u32,
    /// `working_set`: the first this many unique writes are the set.
    set_size: u64,
    draw: Xoshiro256PlusPlus,
    /// The seed of the job's unique buffers; the next unique one's number.
    base: u64,
    next: u64,
    /// Writes made, and the job's stamp (its seed and start).
    writes: u64,
    nonce: u64,
}

impl Fill {
    /// How job `p` fills what it writes.
    pub fn new(p: &JobPlan) -> Fill {
        let o = &p.job.buffers;
        let reads = p.dirs()[0];
        let min_write = p.bs[1].min().max(1);
        let mut zero = o.zero.unwrap_or(false);
        let mut compress = o.compress;
        // fio: 100 % compressible is zero buffers, filled once
        if compress == 100 {
            zero = true;
            compress = 0;
        }
        let compressing = o.compress > 0 || o.dedupe > 0;
        // fio: a compress percentage refills unless refill_buffers is set;
        // a buffer pattern refills when the job reads (a read would leave
        // its bytes in the buffer); dedupe always refills
        let refill = o
            .refill
            .unwrap_or(compress > 0 || (o.pattern.is_some() && reads))
            || o.dedupe > 0;
        let pattern = o.pattern.as_ref().map(|p| p.bytes.clone());
        // fio scrambles unless told not to, or told to zero the buffers;
        // a buffer pattern turns it off
        let scramble = o.scramble.unwrap_or(o.zero != Some(true))
            && o.pattern.is_none()
            && !compressing
            && !refill;
        let content = if compress > 0 || o.dedupe > 0 {
            Content::Percent {
                pct: compress,
                chunk: match o.chunk {
                    0 => min_write,
                    c => c.min(min_write),
                } as usize,
                pattern: pattern.unwrap_or_default(),
            }
        } else if let Some(pat) = pattern {
            Content::Pattern(pat)
        } else if zero {
            Content::Zero
        } else {
            Content::Random
        };
        let size: u64 = p.regions.iter().map(|r| r.len).sum();
        let seed = p.seed ^ ((p.index as u64) << 20) ^ 0x6275_6666;
        Fill {
            fixed: !refill && content != Content::Random,
            content,
            refill,
            scramble,
            filled: Vec::new(),
            dedupe: o.dedupe,
            set_size: match o.dedupe_mode {
                DedupeMode::Repeat => 0,
                DedupeMode::WorkingSet => {
                    (size * u64::from(o.working_set) / 100 / min_write).max(1)
                }
            },
            draw: Xoshiro256PlusPlus::seed_from_u64(seed),
            base: data::mix(seed, 1),
            next: 0,
            writes: 0,
            nonce: data::mix(seed, crate::measure::clock::now_ns()),
        }
    }

    /// Whether [`Fill::fill`] does anything: a refill, a fixed content
    /// or the scramble.
    #[inline]
    pub fn active(&self) -> bool {
        self.refill || self.fixed || self.scramble
    }

    /// Make `buf` (the whole buffer slot of `req`) what `req` writes; a read
    /// marks its slot as needing a fill again.
    #[inline]
    pub fn fill(&mut self, req: &Req, buf: &mut [u8]) {
        match req.kind {
            OpKind::Write => {}
            OpKind::Read if self.fixed => {
                if let Some(f) = self.filled.get_mut(usize::from(req.slot)) {
                    *f = false;
                }
                return;
            }
            _ => return,
        }
        self.writes += 1;
        let len = (req.len as usize).min(buf.len());
        if self.refill {
            self.fill_content(&mut buf[..len]);
        } else if self.fixed {
            let s = usize::from(req.slot);
            if self.filled.len() <= s {
                self.filled.resize(s + 1, false);
            }
            if !self.filled[s] {
                self.fill_content(buf);
                self.filled[s] = true;
            }
        }
        if self.scramble {
            data::scramble(&mut buf[..len], req.offset, [self.writes, self.nonce]);
        }
    }

    /// fio's `fill_io_buffer` on `buf`.
    fn fill_content(&mut self, buf: &mut [u8]) {
        match &self.content {
            Content::Random => {
                let seed = data::mix(self.base, self.writes);
                data::fill_random(buf, seed);
            }
            Content::Zero => buf.fill(0),
            Content::Pattern(p) => data::fill_pattern(buf, p),
            Content::Percent {
                pct,
                chunk,
                pattern,
            } => {
                // a whole buffer is unique or a copy (fio's get_buf_state)
                let n = if self.dedupe > 0 && self.draw.next_u64() % 100 < u64::from(self.dedupe) {
                    match self.set_size {
                        0 => self.next,
                        k => self.draw.next_u64() % k,
                    }
                } else {
                    self.next += 1;
                    self.next - 1
                };
                data::fill_percentage(buf, data::mix(self.base, n), *pct, *chunk, pattern);
            }
        }
    }
}

/// Refuse what a job's buffer options cannot do here, at the option's
/// line (fio's own checks in init.c).
pub fn check(j: &super::Job) -> Result<(), String> {
    let o = &j.buffers;
    let refuse = |opt: &str, why: String| format!("{}: {why}", super::plan::place(j, opt));
    if o.dedupe > 0 && o.dedupe_mode == DedupeMode::WorkingSet {
        if j.size.is_none() {
            return Err(refuse(
                "dedupe_mode",
                "dedupe_mode=working_set needs size= (fio: pregenerated dedupe working set requires size to be set)".into(),
            ));
        }
        if j.nrfiles != 1 {
            return Err(refuse(
                "dedupe_mode",
                format!(
                    "dedupe_mode=working_set takes one file per job, not nrfiles={} (as fio)",
                    j.nrfiles
                ),
            ));
        }
        if o.working_set + o.dedupe > 100 {
            return Err(refuse(
                "dedupe_working_set_percentage",
                format!(
                    "dedupe_percentage={} cannot be reached with {} % of the size kept as unique pages (their sum is over 100)",
                    o.dedupe, o.working_set
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(s: &str) -> Vec<u8> {
        parse_pattern(s, true).unwrap().bytes
    }

    /// The examples of fio's lib/pattern.c, byte for byte.
    #[test]
    fn patterns_parse_as_fios() {
        assert_eq!(bytes("\"abcd\""), b"abcd");
        assert_eq!(bytes("-1024"), [0x00, 0xfc, 0xff, 0xff]);
        assert_eq!(bytes("66"), [0x42]);
        assert_eq!(bytes("0xFF0X1"), [0xff, 0x01]);
        assert_eq!(bytes("%o"), [0; 8]);
        assert_eq!(
            bytes("\"123\"0xFFeeCC"),
            [0x31, 0x32, 0x33, 0xff, 0xee, 0xcc]
        );
        assert_eq!(
            bytes("-100xab\"1\"%o\"2\""),
            [
                0xf6, 0xff, 0xff, 0xff, 0xab, 0x31, 0, 0, 0, 0, 0, 0, 0, 0, 0x32
            ]
        );
        let p = parse_pattern("%o0xdeadbeef%o", true).unwrap();
        assert_eq!(p.bytes.len(), 20);
        assert_eq!(&p.bytes[8..12], [0xde, 0xad, 0xbe, 0xef]);
        assert_eq!(p.offsets, [0, 12]);
        assert_eq!(bytes(&format!("0x{}", "fe".repeat(21))), [0xfe; 21]);
        // an odd count of hex digits: a leading zero nibble (fio 3.33 writes 0a bc)
        assert_eq!(bytes("0xabc"), [0x0a, 0xbc]);
        assert_eq!(bytes("0"), [0]);
        assert_eq!(bytes("256"), [0x00, 0x01]);
        assert_eq!(bytes("-12"), [0xf4, 0xff, 0xff, 0xff]);
        assert_eq!(
            bytes("0xdeadface\"abcd\"-12"),
            [
                0xde, 0xad, 0xfa, 0xce, b'a', b'b', b'c', b'd', 0xf4, 0xff, 0xff, 0xff
            ]
        );
    }

    #[test]
    fn a_file_pattern_reads_the_file() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("pat");
        std::fs::write(&f, b"xyz").unwrap();
        let p = parse_pattern(&format!("0x01'{}'", f.display()), false).unwrap();
        assert_eq!(p.bytes, [1, b'x', b'y', b'z']);
    }

    #[test]
    fn bad_patterns_are_refused() {
        for bad in [
            "",
            "\"abc",
            "\"\"",
            "xyz",
            "%x",
            "4294967296",
            "0x12 zz",
            "'/nonexistent/pattern'",
        ] {
            assert!(parse_pattern(bad, true).is_err(), "{bad}");
        }
        // formats in verify_pattern only
        assert!(parse_pattern("%o", false).is_err());
        assert!(parse_pattern("0x12%o", true).is_ok());
    }

    #[test]
    fn the_offset_is_pasted_little_endian() {
        let p = parse_pattern("0xaa%o", true).unwrap();
        let mut b = [0u8; 20];
        p.fill(&mut b, 0x1000);
        assert_eq!(
            b,
            [
                0xaa, 0, 0x10, 0, 0, 0, 0, 0, 0, 0xaa, 0, 0x10, 0, 0, 0, 0, 0, 0, 0xaa, 0
            ]
        );
    }

    #[test]
    fn every_option_is_taken_and_shown() {
        for o in OPTIONS {
            assert!(super::super::job::SUPPORTED.contains(o), "{o}");
            assert!(!BufferOpts::default().value(o).is_empty(), "{o}");
        }
    }

    #[test]
    fn options_parse_and_print() {
        let mut o = BufferOpts::default();
        assert_eq!(o.value("scramble_buffers"), "1");
        o.set("buffer_compress_percentage", "60", 1024).unwrap();
        o.set("buffer_compress_chunk", "4k", 1024).unwrap();
        o.set("dedupe_mode", "working_set", 1024).unwrap();
        assert_eq!(o.compress, 60);
        assert_eq!(o.chunk, 4096);
        assert_eq!(o.value("dedupe_mode"), "working_set");
        assert!(o.set("dedupe_percentage", "101", 1024).is_err());
        assert!(o.set("dedupe_mode", "random", 1024).is_err());
        assert!(o.set("buffer_pattern", "%o", 1024).is_err());
    }
}
