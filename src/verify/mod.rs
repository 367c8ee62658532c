//! Verifiable blocks: what `--verify` writes, and the check of what is read
//! back.
//!
//! A file written for verification is cut into units of a fixed size (the
//! verify interval, 512 B to 1 MiB, a multiple of 512). Every unit carries
//! a 64-byte header naming what it is (file, offset, generation, writer,
//! run seed) and a CRC-32C of the whole unit (hardware-accelerated where
//! the CPU has SSE 4.2 or ARMv8's CRC instructions). The rest of the unit
//! is a payload that can be made again from the header alone: a random
//! pattern of the run's seed, each 8-byte word XORed with a key of the
//! header's fields. So a reader needs no copy of what was written: it
//! checks the CRC and the header against what it expects, and when they
//! disagree it rebuilds the expected unit (and the one before it) to say
//! what happened: a few bits flipped, a torn write (some sectors new, the
//! rest old), a stale unit (an older write is there: the last one was
//! lost), zeros (the write never reached the medium), a unit that belongs
//! at another offset (a misdirected write), or bytes that are not
//! iogauge's at all (written behind its back).
//!
//! ```text
//! byte  0   magic "iogv"            4  unit length (u32)
//!       8   offset in the file (u64) 16 file number (u64)
//!      24   generation (u64)         32 run seed (u64)
//!      40   writer (u32)             44 format version (u32, 1)
//!      48   reserved, zero (8 B)     56 CRC-32C (u32)   60 zero (u32)
//!      64…  payload: word i = pattern[i] XOR key
//! ```
//!
//! The CRC is taken over the whole unit with its own four bytes as zeros.
//! Generation 0 is the unit as the layout wrote it; each later write of
//! the unit has the next generation. All integers are little-endian.

pub mod crash;
pub mod track;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::RangeInclusive;

/// Bytes of the header at the start of every unit.
pub const HEADER_LEN: usize = 64;
/// The smallest unit (and every unit's granularity): a sector.
pub const SECTOR: usize = 512;
/// The largest unit.
pub const MAX_UNIT: usize = 1 << 20;
/// The format's version, in every header.
pub const VERSION: u32 = 1;

const MAGIC: [u8; 4] = *b"iogv";
const CRC_AT: usize = 56;

/// What a unit says it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Stamp {
    /// The file's number in the run's file set.
    pub file: u64,
    /// The unit's byte offset in its file.
    pub offset: u64,
    /// 0 for the layout's write; one more for each write after it.
    pub generation: u64,
    /// The worker that wrote it.
    pub writer: u32,
    /// The run's seed.
    pub seed: u64,
}

/// The unit size of `--verify-interval`: a multiple of 512 B, from 512 B
/// to 1 MiB.
pub fn check_unit(unit: u64) -> Result<usize, String> {
    if unit < SECTOR as u64 || unit > MAX_UNIT as u64 || !unit.is_multiple_of(SECTOR as u64) {
        return Err(format!(
            "the verify interval must be a multiple of 512 B from 512 B to 1 MiB, not {unit} B"
        ));
    }
    Ok(unit as usize)
}

/// The payload pattern of one run: `unit - 64` random bytes from the
/// run's seed, made once; every unit's payload is this pattern XORed with
/// the unit's key.
#[derive(Clone)]
pub struct Pattern {
    unit: usize,
    seed: u64,
    words: Vec<u64>,
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Pattern {{ unit: {}, seed: {} }}", self.unit, self.seed)
    }
}

/// Where the unit's payload differs from what was expected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Diff {
    bytes: usize,
    bits: u32,
    first: usize,
}

impl Pattern {
    /// The pattern of `seed` for units of `unit` bytes (checked with
    /// [`check_unit`]).
    pub fn new(seed: u64, unit: usize) -> Pattern {
        assert!(
            check_unit(unit as u64).is_ok(),
            "unit {unit} was not checked"
        );
        let mut bytes = vec![0u8; unit - HEADER_LEN];
        crate::data::fill_random(&mut bytes, seed ^ 0x7665_7269_6679);
        let words = bytes
            .chunks_exact(8)
            .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
            .collect();
        Pattern { unit, seed, words }
    }

    /// The unit size.
    pub fn unit(&self) -> usize {
        self.unit
    }

    /// The run seed the pattern was made from.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Write the unit `s` names into `buf` (exactly one unit long): header,
    /// payload and CRC.
    #[inline]
    pub fn write(&self, buf: &mut [u8], s: &Stamp) {
        debug_assert_eq!(buf.len(), self.unit);
        self.write_header(buf, s);
        let key = key(s);
        for (dst, p) in buf[HEADER_LEN..].chunks_exact_mut(8).zip(&self.words) {
            dst.copy_from_slice(&(p ^ key).to_le_bytes());
        }
        let crc = crc_of(buf);
        buf[CRC_AT..CRC_AT + 4].copy_from_slice(&crc.to_le_bytes());
    }

    /// Write every unit of a request: `buf` holds whole units, the first
    /// at file offset `offset`; `generation(i)` gives unit i's.
    #[inline]
    pub fn write_units(
        &self,
        buf: &mut [u8],
        file: u64,
        offset: u64,
        writer: u32,
        mut generation: impl FnMut(usize) -> u64,
    ) {
        for (i, u) in buf.chunks_exact_mut(self.unit).enumerate() {
            let s = Stamp {
                file,
                offset: offset + (i * self.unit) as u64,
                generation: generation(i),
                writer,
                seed: self.seed,
            };
            self.write(u, &s);
        }
    }

    /// The unit `s` names, as [`Pattern::write`] makes it.
    pub fn expected(&self, s: &Stamp) -> Vec<u8> {
        let mut v = vec![0u8; self.unit];
        self.write(&mut v, s);
        v
    }

    fn write_header(&self, buf: &mut [u8], s: &Stamp) {
        let h = &mut buf[..HEADER_LEN];
        h[0..4].copy_from_slice(&MAGIC);
        h[4..8].copy_from_slice(&(self.unit as u32).to_le_bytes());
        h[8..16].copy_from_slice(&s.offset.to_le_bytes());
        h[16..24].copy_from_slice(&s.file.to_le_bytes());
        h[24..32].copy_from_slice(&s.generation.to_le_bytes());
        h[32..40].copy_from_slice(&s.seed.to_le_bytes());
        h[40..44].copy_from_slice(&s.writer.to_le_bytes());
        h[44..48].copy_from_slice(&VERSION.to_le_bytes());
        h[48..64].fill(0);
    }

    /// Check one unit read back against what is expected there. The fast
    /// path (the common case) is one CRC and a few compares.
    #[inline]
    pub fn check(&self, got: &[u8], want: &Want) -> Result<u64, Box<Mismatch>> {
        debug_assert_eq!(got.len(), self.unit);
        if let Some(h) = header(got)
            && h.unit == self.unit
            && crc_ok(got)
            && h.stamp.file == want.file
            && h.stamp.offset == want.offset
            && h.stamp.seed == self.seed
            && want.generations.contains(&h.stamp.generation)
        {
            return Ok(h.stamp.generation);
        }
        Err(Box::new(self.classify(got, want)))
    }

    /// Say what is wrong with a unit that failed [`Pattern::check`].
    #[cold]
    pub fn classify(&self, got: &[u8], want: &Want) -> Mismatch {
        let found = header(got).map(|h| h.stamp);
        let intact = header(got).is_some_and(|h| h.unit == self.unit) && crc_ok(got);
        let lo = *want.generations.start();
        let hi = *want.generations.end();
        let expect = |generation: u64, writer: u32| Stamp {
            file: want.file,
            offset: want.offset,
            generation,
            writer,
            seed: self.seed,
        };
        let mut m = Mismatch {
            kind: Kind::Corrupt,
            file: want.file,
            offset: want.offset,
            expected: Expected { lo, hi },
            found,
            bad_bytes: 0,
            first_bad: 0,
            flipped_bits: 0,
            new_sectors: 0,
            old_sectors: 0,
        };
        if intact && let Some(f) = found {
            // a whole, self-consistent unit that is not the one expected
            m.kind = if f.seed != self.seed {
                Kind::Foreign
            } else if f.file != want.file || f.offset != want.offset {
                Kind::Misdirected
            } else if f.generation < lo {
                Kind::Stale
            } else {
                Kind::Future
            };
            m.bad_bytes = self.unit as u32;
            return m;
        }
        if got.iter().all(|&b| b == 0) {
            m.kind = Kind::Lost;
            m.bad_bytes = self.unit as u32;
            return m;
        }
        // the expected units, newest first, each with the writer its header
        // names (the writer is in the key, so the payload depends on it)
        let writer = found.map_or(want.writer, |f| f.writer);
        let mut best: Option<Diff> = None;
        for g in (lo..=hi).rev() {
            for w in [want.writer, writer] {
                let d = diff(got, &self.expected(&expect(g, w)));
                if best.is_none_or(|b| d.bytes < b.bytes) {
                    best = Some(d);
                }
            }
        }
        let d = best.expect("at least one generation");
        m.bad_bytes = d.bytes as u32;
        m.first_bad = d.first as u32;
        m.flipped_bits = d.bits;
        // a few bits wrong, nothing else: bits flipped on the medium or in
        // transfer
        if d.bits <= (self.unit as u32 * 8 / 1024).max(8) {
            m.kind = Kind::BitFlip;
            return m;
        }
        // some sectors of the newest write and the rest of the write before
        // it: a torn write
        for g in (lo.max(1)..=hi).rev() {
            let new = self.expected(&expect(g, want.writer));
            let old_writer = found
                .filter(|f| f.generation + 1 == g)
                .map_or(want.writer, |f| f.writer);
            let old = self.expected(&expect(g - 1, old_writer));
            let (mut n, mut o, mut other) = (0u32, 0u32, 0u32);
            for ((s, a), b) in got
                .chunks(SECTOR)
                .zip(new.chunks(SECTOR))
                .zip(old.chunks(SECTOR))
            {
                if s == a {
                    n += 1;
                } else if s == b {
                    o += 1;
                } else {
                    other += 1;
                }
            }
            if n > 0 && o > 0 && other == 0 {
                m.kind = Kind::Torn;
                m.new_sectors = n;
                m.old_sectors = o;
                return m;
            }
        }
        m.kind = if found.is_none() {
            Kind::Foreign
        } else {
            Kind::Corrupt
        };
        m
    }
}

impl Pattern {
    /// Whether every sector of `got` is the same sector of one of the
    /// generations `want` accepts (each its own): what two writes of the
    /// unit in flight at once may legally leave with O_DIRECT, when the
    /// device took them sector by sector. Cold: only for a unit that
    /// failed its check after such a race.
    #[cold]
    pub fn is_mix(&self, got: &[u8], want: &Want) -> bool {
        let units: Vec<Vec<u8>> = want
            .generations
            .clone()
            .map(|g| {
                self.expected(&Stamp {
                    file: want.file,
                    offset: want.offset,
                    generation: g,
                    writer: want.writer,
                    seed: self.seed,
                })
            })
            .collect();
        got.chunks(SECTOR).enumerate().all(|(i, s)| {
            units
                .iter()
                .any(|u| &u[i * SECTOR..i * SECTOR + s.len()] == s)
        })
    }
}

/// What a reader expects in one unit: its place and the generations that
/// may be there (more than one where writes to it raced).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Want {
    pub file: u64,
    pub offset: u64,
    pub generations: RangeInclusive<u64>,
    /// The writer of the newest generation (it is in the payload's key).
    pub writer: u32,
}

/// What was wrong with a unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A few bits differ from the expected unit.
    BitFlip,
    /// Some sectors hold the newest write, the rest the write before it.
    Torn,
    /// A whole, valid unit of an older generation: the newest write was
    /// lost.
    Stale,
    /// Zeros where a unit was written: the write never reached the medium.
    Lost,
    /// A whole, valid unit that belongs at another offset or file.
    Misdirected,
    /// A whole, valid unit of a generation newer than any written here.
    Future,
    /// Not iogauge's bytes (no header), or another run's unit: written
    /// behind iogauge's back.
    Foreign,
    /// iogauge's header, but damaged beyond any of the above.
    Corrupt,
}

impl Kind {
    /// Every kind, in the order reports list them.
    pub const ALL: [Kind; 8] = [
        Kind::BitFlip,
        Kind::Torn,
        Kind::Stale,
        Kind::Lost,
        Kind::Misdirected,
        Kind::Future,
        Kind::Foreign,
        Kind::Corrupt,
    ];

    /// The kind's name, as in the JSON.
    pub fn name(self) -> &'static str {
        match self {
            Kind::BitFlip => "bit_flip",
            Kind::Torn => "torn",
            Kind::Stale => "stale",
            Kind::Lost => "lost",
            Kind::Misdirected => "misdirected",
            Kind::Future => "future",
            Kind::Foreign => "foreign",
            Kind::Corrupt => "corrupt",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The generations a reader would have accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Expected {
    /// The oldest generation accepted.
    pub lo: u64,
    /// The newest generation accepted.
    pub hi: u64,
}

/// One unit that failed its check: where, what was expected, what was
/// found, and what kind of damage it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Mismatch {
    /// What kind of damage it is.
    pub kind: Kind,
    /// The file's number in the run's file set.
    pub file: u64,
    /// The unit's byte offset in its file.
    pub offset: u64,
    /// The generations that would have been accepted.
    pub expected: Expected,
    /// The header found there, if it had iogauge's magic.
    pub found: Option<Stamp>,
    /// Bytes that differ from the closest expected unit.
    pub bad_bytes: u32,
    /// The first of them, from the unit's start.
    pub first_bad: u32,
    /// Bits that differ from the closest expected unit.
    pub flipped_bits: u32,
    /// A torn write: sectors of the newest write ...
    pub new_sectors: u32,
    /// ... and of the write before it.
    pub old_sectors: u32,
}

impl fmt::Display for Mismatch {
    /// One line: kind, place, what was expected, what was found.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let want = match (self.expected.lo, self.expected.hi) {
            (lo, hi) if lo == hi => format!("generation {lo}"),
            (lo, hi) => format!("generation {lo} to {hi}"),
        };
        write!(
            f,
            "{}: file {} offset {}: expected {want}, ",
            self.kind, self.file, self.offset
        )?;
        match self.kind {
            Kind::BitFlip => write!(
                f,
                "found {} bit(s) flipped in {} byte(s), the first at byte {}",
                self.flipped_bits, self.bad_bytes, self.first_bad
            ),
            Kind::Torn => write!(
                f,
                "found {} sector(s) of the newest write and {} of the one before",
                self.new_sectors, self.old_sectors
            ),
            Kind::Lost => write!(f, "found zeros"),
            Kind::Foreign if self.found.is_none() => {
                write!(f, "found bytes that are not iogauge's (no header)")
            }
            _ => match self.found {
                Some(s) => write!(
                    f,
                    "found file {} offset {} generation {} (writer {}, seed {}){}",
                    s.file,
                    s.offset,
                    s.generation,
                    s.writer,
                    s.seed,
                    if self.kind == Kind::Corrupt {
                        format!(", {} byte(s) damaged", self.bad_bytes)
                    } else {
                        String::new()
                    }
                ),
                None => write!(f, "found no header"),
            },
        }
    }
}

/// A header read back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub unit: usize,
    pub stamp: Stamp,
}

/// The header at the start of `unit`, if it has iogauge's magic and
/// version (its CRC is not checked here).
pub fn header(unit: &[u8]) -> Option<Header> {
    if unit.len() < HEADER_LEN || unit[0..4] != MAGIC {
        return None;
    }
    let u64_at = |i: usize| u64::from_le_bytes(unit[i..i + 8].try_into().expect("8 bytes"));
    let u32_at = |i: usize| u32::from_le_bytes(unit[i..i + 4].try_into().expect("4 bytes"));
    if u32_at(44) != VERSION {
        return None;
    }
    Some(Header {
        unit: u32_at(4) as usize,
        stamp: Stamp {
            offset: u64_at(8),
            file: u64_at(16),
            generation: u64_at(24),
            seed: u64_at(32),
            writer: u32_at(40),
        },
    })
}

/// Whether the CRC in the unit's header is the unit's.
#[inline]
pub fn crc_ok(unit: &[u8]) -> bool {
    unit.len() >= HEADER_LEN
        && u32::from_le_bytes(unit[CRC_AT..CRC_AT + 4].try_into().expect("4 bytes")) == crc_of(unit)
}

/// CRC-32C of the unit with its CRC field taken as zeros.
#[inline]
fn crc_of(unit: &[u8]) -> u32 {
    let c = crc32c::crc32c(&unit[..CRC_AT]);
    let c = crc32c::crc32c_append(c, &[0; 4]);
    crc32c::crc32c_append(c, &unit[CRC_AT + 4..])
}

/// The payload key of a unit: its header's fields mixed (SplitMix64's
/// finaliser), with bit 0 clear so that every word's first byte stays odd
/// as the pattern's is: no sector of a unit is ever all zeros.
#[inline]
fn key(s: &Stamp) -> u64 {
    let mut z = s
        .file
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(s.offset)
        .rotate_left(17)
        ^ s.generation.wrapping_mul(0xBF58_476D_1CE4_E5B9)
        ^ (u64::from(s.writer) << 40);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) & !1
}

fn diff(a: &[u8], b: &[u8]) -> Diff {
    let mut d = Diff {
        bytes: 0,
        bits: 0,
        first: usize::MAX,
    };
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if x != y {
            d.bytes += 1;
            d.bits += (x ^ y).count_ones();
            d.first = d.first.min(i);
        }
    }
    if d.first == usize::MAX {
        d.first = 0;
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    const U: usize = 4096;

    fn stamp(generation: u64) -> Stamp {
        Stamp {
            file: 2,
            offset: 8 * U as u64,
            generation,
            writer: 1,
            seed: 7,
        }
    }

    fn want(lo: u64, hi: u64) -> Want {
        Want {
            file: 2,
            offset: 8 * U as u64,
            generations: lo..=hi,
            writer: 1,
        }
    }

    fn written(p: &Pattern, generation: u64) -> Vec<u8> {
        p.expected(&stamp(generation))
    }

    #[test]
    fn a_written_unit_checks() {
        let p = Pattern::new(7, U);
        let u = written(&p, 3);
        assert_eq!(p.check(&u, &want(3, 3)), Ok(3));
        assert_eq!(p.check(&u, &want(2, 4)), Ok(3));
        let h = header(&u).unwrap();
        assert_eq!(h.unit, U);
        assert_eq!(h.stamp, stamp(3));
    }

    #[test]
    fn the_crc_is_crc32c() {
        // CRC-32C's check value (RFC 3720's polynomial): "123456789"
        assert_eq!(crc32c::crc32c(b"123456789"), 0xE306_9283);
        let p = Pattern::new(7, U);
        let u = written(&p, 1);
        let mut z = u.clone();
        z[CRC_AT..CRC_AT + 4].fill(0);
        let stored = u32::from_le_bytes(u[CRC_AT..CRC_AT + 4].try_into().unwrap());
        assert_eq!(stored, crc32c::crc32c(&z));
    }

    #[test]
    fn the_payload_is_incompressible_and_never_a_zero_sector() {
        let p = Pattern::new(7, U);
        for g in 0..50 {
            let u = written(&p, g);
            assert!(u.chunks(SECTOR).all(|s| s.iter().any(|&b| b != 0)));
        }
        let a = written(&p, 1);
        let b = written(&p, 2);
        let same = a.iter().zip(&b).filter(|(x, y)| x == y).count();
        assert!(same < U / 50, "two generations share {same} bytes");
    }

    #[test]
    fn every_injected_corruption_is_found_and_named() {
        let p = Pattern::new(7, U);
        let w = want(5, 5);
        let good = written(&p, 5);

        // one bit, then 9 bits spread
        let mut u = good.clone();
        u[1000] ^= 0x10;
        let m = p.check(&u, &w).unwrap_err();
        assert_eq!(
            (m.kind, m.flipped_bits, m.first_bad),
            (Kind::BitFlip, 1, 1000)
        );
        let mut u = good.clone();
        for i in 0..9 {
            u[100 + i * 400] ^= 1;
        }
        assert_eq!(p.check(&u, &w).unwrap_err().kind, Kind::BitFlip);
        // a flip in the header is a bit flip too
        let mut u = good.clone();
        u[9] ^= 4;
        assert_eq!(p.check(&u, &w).unwrap_err().kind, Kind::BitFlip);

        // torn 4 KiB halves: the first half new, the second the old write
        let old = written(&p, 4);
        let mut u = good.clone();
        u[U / 2..].copy_from_slice(&old[U / 2..]);
        let m = p.check(&u, &w).unwrap_err();
        assert_eq!((m.kind, m.new_sectors, m.old_sectors), (Kind::Torn, 4, 4));
        // and the other way round (the header is the old one)
        let mut u = old.clone();
        u[U / 2..].copy_from_slice(&good[U / 2..]);
        assert_eq!(p.check(&u, &w).unwrap_err().kind, Kind::Torn);

        // a stale unit: the whole of generation 4
        let m = p.check(&old, &w).unwrap_err();
        assert_eq!((m.kind, m.found.unwrap().generation), (Kind::Stale, 4));

        // a unit written at another offset
        let elsewhere = p.expected(&Stamp {
            offset: 9 * U as u64,
            ..stamp(5)
        });
        let m = p.check(&elsewhere, &w).unwrap_err();
        assert_eq!(
            (m.kind, m.found.unwrap().offset),
            (Kind::Misdirected, 9 * U as u64)
        );

        // zeros
        assert_eq!(p.check(&vec![0; U], &w).unwrap_err().kind, Kind::Lost);

        // written behind iogauge's back: random bytes, and another run's unit
        let mut u = vec![0u8; U];
        crate::data::fill_random(&mut u, 99);
        assert_eq!(p.check(&u, &w).unwrap_err().kind, Kind::Foreign);
        let other = Pattern::new(8, U).expected(&Stamp {
            seed: 8,
            ..stamp(5)
        });
        assert_eq!(p.check(&other, &w).unwrap_err().kind, Kind::Foreign);

        // a generation newer than any written
        assert_eq!(p.check(&written(&p, 6), &w).unwrap_err().kind, Kind::Future);

        // half the unit overwritten with other bytes: damaged, not torn
        let mut u = good.clone();
        u[2048..].fill(0xAB);
        assert_eq!(p.check(&u, &w).unwrap_err().kind, Kind::Corrupt);
    }

    #[test]
    fn a_range_of_generations_accepts_each_and_rejects_the_rest() {
        let p = Pattern::new(7, U);
        let w = want(3, 5);
        for g in 3..=5 {
            assert_eq!(p.check(&written(&p, g), &w), Ok(g));
        }
        assert_eq!(p.check(&written(&p, 2), &w).unwrap_err().kind, Kind::Stale);
    }

    #[test]
    fn units_of_every_size_round_trip() {
        for unit in [512, 4096, 65536, MAX_UNIT] {
            let p = Pattern::new(1, unit);
            let mut buf = vec![0u8; unit * 3];
            p.write_units(&mut buf, 0, unit as u64 * 10, 0, |i| i as u64);
            for (i, u) in buf.chunks(unit).enumerate() {
                let w = Want {
                    file: 0,
                    offset: unit as u64 * (10 + i as u64),
                    generations: i as u64..=i as u64,
                    writer: 0,
                };
                assert_eq!(p.check(u, &w), Ok(i as u64));
            }
        }
        assert!(check_unit(100).is_err());
        assert!(check_unit(513).is_err());
        assert!(check_unit(2 << 20).is_err());
        assert_eq!(check_unit(4096), Ok(4096));
    }

    #[test]
    fn a_mismatch_reads_as_one_line() {
        let p = Pattern::new(7, U);
        let m = p.check(&written(&p, 4), &want(5, 5)).unwrap_err();
        assert_eq!(
            m.to_string(),
            "stale: file 2 offset 32768: expected generation 5, found file 2 offset 32768 generation 4 (writer 1, seed 7)"
        );
        let mut u = written(&p, 5);
        u[70] ^= 3;
        assert_eq!(
            p.check(&u, &want(5, 5)).unwrap_err().to_string(),
            "bit_flip: file 2 offset 32768: expected generation 5, found 2 bit(s) flipped in 1 byte(s), the first at byte 70"
        );
    }
}
