//! The generic workload: Chen & Patterson's five parameters (Proc. IEEE
//! 1993, §IX-B1; docs/run.md), one generator per worker.
//!
//! - `unique_bytes`: the bytes the workload touches, spread evenly over
//!   `files` files;
//! - `size_mean` (with `size_cv`): request sizes, see [`SizeDist`];
//! - `read_frac`: the chance that a request reads;
//! - `trim_frac` (an extension, 0 by default): the chance that it trims
//!   (discards its range); the rest write;
//! - `seq_frac`: the chance that a request starts where this worker's
//!   previous request ended (its own sequential stream); otherwise it goes to
//!   a uniformly random aligned offset of a uniformly chosen file;
//! - `processes`: concurrent workers, each with its own generator and stream.
//!
//! A sequential request that would run past the end of its file starts at
//! the beginning of the next file instead (the stream wraps around the data
//! set). Worker w's stream starts w/P of the way through the data set, so
//! that sequential workers do not read each other's blocks in lockstep.
//!
//! With a skewed `distribution` (fio's `random_distribution`, see
//! [`super::dist`]), a random request draws its block from it instead: the
//! files are one address space of blocks of `size_mean` (rounded down to
//! the alignment), numbered file after file; a request longer than what is
//! left of its file after the block's start ends at the file's end.

use super::dist::{Dir, Dist, Sampler};
use super::sizes::SizeDist;
use super::{Prng, below, unit_f64, worker_rng};
use crate::measure::OpKind;
use serde::{Deserialize, Serialize};

/// The workload's parameters, after defaults and validation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GenericSpec {
    pub unique_bytes: u64,
    pub size_mean: u64,
    pub size_cv: f64,
    pub read_frac: f64,
    /// The chance that a request trims (discards its range); reads and
    /// trims together at most 1, writes the rest.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub trim_frac: f64,
    pub seq_frac: f64,
    pub processes: usize,
    pub files: u32,
    pub align: u64,
    pub seed: u64,
    /// Where random requests go (`--distribution`; uniform by default).
    #[serde(default)]
    pub distribution: Dist,
}

impl GenericSpec {
    /// Check the parameters; the message names the flag to fix.
    pub fn validate(&self) -> Result<(), String> {
        let frac = |name: &str, v: f64| {
            if (0.0..=1.0).contains(&v) {
                Ok(())
            } else {
                Err(format!("--{name} must be between 0 and 1, not {v}"))
            }
        };
        frac("read-frac", self.read_frac)?;
        frac("trim-frac", self.trim_frac)?;
        // a little slack for fractions given in decimal (0.7 + 0.3)
        if self.read_frac + self.trim_frac > 1.0 + 1e-9 {
            return Err(format!(
                "--read-frac {} and --trim-frac {} add up to more than 1; writes are the rest",
                self.read_frac, self.trim_frac
            ));
        }
        frac("seq-frac", self.seq_frac)?;
        if self.processes == 0 {
            return Err("--processes must be at least 1".into());
        }
        if self.files == 0 {
            return Err("--files must be at least 1".into());
        }
        if self.size_mean == 0 {
            return Err("--size-mean must be positive".into());
        }
        if !self.align.is_power_of_two() {
            return Err(format!(
                "--align must be a power of two, not {}",
                self.align
            ));
        }
        if self.file_size() < self.align {
            return Err(format!(
                "--unique-bytes {} spread over {} file(s) leaves less than one {}-byte block per file",
                self.unique_bytes, self.files, self.align
            ));
        }
        if !(self.size_cv.is_finite() && self.size_cv >= 0.0) {
            return Err(format!("--size-cv must be ≥ 0, not {}", self.size_cv));
        }
        if let Dist::Zoned {
            absolute: true,
            zones,
        } = &self.distribution
        {
            let most = zones
                .iter()
                .map(|z| z.iter().map(|z| z.size).sum::<u64>())
                .max()
                .unwrap_or(0);
            if most > self.total_bytes() {
                return Err(format!(
                    "--distribution {}: the zones hold {}, more than the {} the workload touches",
                    self.distribution,
                    crate::units::fmt_bytes(most),
                    crate::units::fmt_bytes(self.total_bytes())
                ));
            }
        }
        Ok(())
    }

    /// Bytes per block of a skewed distribution: the mean request size,
    /// rounded down to the alignment (at least one aligned unit, at most a
    /// file).
    pub fn block(&self) -> u64 {
        let b = self.size_mean - self.size_mean % self.align;
        b.max(self.align).min(self.file_size())
    }

    /// Bytes in each file: unique_bytes / files, rounded down to the alignment.
    pub fn file_size(&self) -> u64 {
        let per = self.unique_bytes / self.files as u64;
        per - per % self.align
    }

    /// Bytes actually laid out (a little less than unique_bytes after rounding).
    pub fn total_bytes(&self) -> u64 {
        self.file_size() * self.files as u64
    }

    pub fn sizes(&self) -> Result<SizeDist, String> {
        SizeDist::new(self.size_mean, self.size_cv, self.align, self.file_size())
    }
}

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

/// One request of the generic workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    pub kind: OpKind,
    pub file: u32,
    pub offset: u64,
    pub len: u64,
    pub sequential: bool,
}

/// The request stream of one worker.
#[derive(Clone, Debug)]
pub struct Generator {
    rng: Prng,
    sizes: SizeDist,
    read_frac: f64,
    /// `read_frac + trim_frac`: a draw below it (and not below
    /// `read_frac`) trims.
    trim_below: f64,
    seq_frac: f64,
    file_size: u64,
    files: u32,
    align: u64,
    file: u32,
    next: u64,
    /// A skewed distribution's sampler, its block size and blocks per
    /// file; None draws uniformly as before.
    skew: Option<(Sampler, u64, u64)>,
}

impl Generator {
    pub fn new(spec: &GenericSpec, worker: usize) -> Result<Self, String> {
        spec.validate()?;
        let file_size = spec.file_size();
        // start w/P of the way through the data set, aligned
        let start = (spec.total_bytes() as u128 * worker as u128 / spec.processes as u128) as u64;
        let start = start - start % spec.align;
        let mut rng = worker_rng(spec.seed, worker);
        let skew = match spec.distribution {
            Dist::Random => None,
            ref d => {
                let block = spec.block();
                let per_file = file_size / block;
                let n = per_file * u64::from(spec.files);
                Some((Sampler::new(d, n, block, &mut rng)?, block, per_file))
            }
        };
        Ok(Generator {
            rng,
            sizes: spec.sizes()?,
            read_frac: spec.read_frac,
            trim_below: spec.read_frac + spec.trim_frac,
            seq_frac: spec.seq_frac,
            file_size,
            files: spec.files,
            align: spec.align,
            file: (start / file_size) as u32 % spec.files,
            next: start % file_size,
            skew,
        })
    }

    /// Draw sizes from `sizes` instead (for a clipped distribution).
    pub fn set_sizes(&mut self, sizes: SizeDist) {
        self.sizes = sizes;
    }

    #[inline]
    pub fn next_request(&mut self) -> Request {
        let len = self.sizes.sample(&mut self.rng);
        // one draw decides the kind: without trims the stream is the
        // same as before they existed
        let u = unit_f64(&mut self.rng);
        let kind = if u < self.read_frac {
            OpKind::Read
        } else if u < self.trim_below {
            OpKind::Trim
        } else {
            OpKind::Write
        };
        let sequential = unit_f64(&mut self.rng) < self.seq_frac;
        let (file, offset) = if sequential {
            if self.next + len > self.file_size {
                ((self.file + 1) % self.files, 0)
            } else {
                (self.file, self.next)
            }
        } else if let Some((sampler, block, per_file)) = self.skew.as_mut() {
            let dir = match kind {
                OpKind::Read => Dir::Read,
                _ => Dir::Write,
            };
            let b = sampler.next(&mut self.rng, dir);
            let file = (b / *per_file) as u32;
            let mut offset = (b % *per_file) * *block;
            if offset + len > self.file_size {
                offset = (self.file_size - len) / self.align * self.align;
            }
            (file, offset)
        } else {
            let file = if self.files == 1 {
                0
            } else {
                below(&mut self.rng, self.files as u64) as u32
            };
            let slots = (self.file_size - len) / self.align + 1;
            (file, below(&mut self.rng, slots) * self.align)
        };
        self.file = file;
        self.next = offset + len;
        Request {
            kind,
            file,
            offset,
            len,
            sequential,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> GenericSpec {
        GenericSpec {
            unique_bytes: 64 << 20,
            size_mean: 16 << 10,
            size_cv: 1.0,
            read_frac: 0.7,
            trim_frac: 0.0,
            seq_frac: 0.3,
            processes: 2,
            files: 3,
            align: 512,
            seed: 1,
            distribution: Dist::Random,
        }
    }

    #[test]
    fn fractions_are_honoured_within_one_percent() {
        let s = spec();
        let mut g = Generator::new(&s, 0).unwrap();
        let n = 200_000;
        let (mut reads, mut seq) = (0, 0);
        let mut prev_end: Option<(u32, u64)> = None;
        for _ in 0..n {
            let r = g.next_request();
            reads += (r.kind == OpKind::Read) as u32;
            seq += r.sequential as u32;
            assert!(r.offset.is_multiple_of(512) && r.len.is_multiple_of(512));
            assert!(r.offset + r.len <= s.file_size(), "{r:?}");
            if r.sequential {
                let (f, e) = prev_end.unwrap_or((0, 0));
                assert!(
                    (r.file == f && r.offset == e) || r.offset == 0,
                    "a sequential request starts where the last ended: {r:?} after {prev_end:?}"
                );
            }
            prev_end = Some((r.file, r.offset + r.len));
        }
        let rf = reads as f64 / n as f64;
        let sf = seq as f64 / n as f64;
        assert!((rf - 0.7).abs() < 0.01, "read fraction {rf}");
        assert!((sf - 0.3).abs() < 0.01, "seq fraction {sf}");
    }

    #[test]
    fn same_seed_same_stream_other_worker_other_stream() {
        let s = spec();
        let a: Vec<_> = {
            let mut g = Generator::new(&s, 0).unwrap();
            (0..100).map(|_| g.next_request()).collect()
        };
        let mut g = Generator::new(&s, 0).unwrap();
        assert!(a.iter().all(|r| *r == g.next_request()));
        let mut h = Generator::new(&s, 1).unwrap();
        assert!(a.iter().any(|r| *r != h.next_request()));
    }

    #[test]
    fn all_sequential_walks_the_files_in_order() {
        let s = GenericSpec {
            unique_bytes: 4 * 8192,
            size_mean: 4096,
            size_cv: 0.0,
            seq_frac: 1.0,
            processes: 1,
            files: 2,
            ..spec()
        };
        let mut g = Generator::new(&s, 0).unwrap();
        let got: Vec<_> = (0..6)
            .map(|_| {
                let r = g.next_request();
                (r.file, r.offset)
            })
            .collect();
        assert_eq!(
            got,
            [(0, 0), (0, 4096), (0, 8192), (0, 12288), (1, 0), (1, 4096)]
        );
    }

    #[test]
    fn validation_names_the_flag() {
        let bad = GenericSpec {
            read_frac: 1.5,
            ..spec()
        };
        assert!(bad.validate().unwrap_err().contains("--read-frac"));
        let bad = GenericSpec {
            unique_bytes: 100,
            ..spec()
        };
        assert!(bad.validate().unwrap_err().contains("--unique-bytes"));
        let bad = GenericSpec {
            size_mean: 0,
            ..spec()
        };
        assert!(bad.validate().unwrap_err().contains("--size-mean"));
    }

    /// A digest of the first 10 000 requests of worker 1.
    fn digest(s: &GenericSpec) -> u64 {
        let mut g = Generator::new(s, 1).unwrap();
        (0..10_000).fold(0xcbf2_9ce4_8422_2325u64, |h, _| {
            let r = g.next_request();
            let v = (r.kind == OpKind::Read) as u64
                ^ (u64::from(r.file) << 1)
                ^ (r.offset << 8)
                ^ (r.len << 40)
                ^ ((r.sequential as u64) << 63);
            (h ^ v).wrapping_mul(0x100_0000_01b3)
        })
    }

    #[test]
    fn uniform_stream_is_the_one_before_distributions() {
        // the digest the generator gave before --distribution existed
        assert_eq!(
            digest(&spec()),
            0x8b94_9108_e332_5256,
            "{:#x}",
            digest(&spec())
        );
    }

    #[test]
    fn skewed_requests_stay_in_the_files_and_concentrate() {
        let s = GenericSpec {
            seq_frac: 0.0,
            size_cv: 0.0,
            distribution: super::super::dist::parse("zipf:1.2").unwrap(),
            ..spec()
        };
        let block = s.block();
        assert_eq!(block, 16 << 10);
        let per_file = s.file_size() / block;
        let mut g = Generator::new(&s, 0).unwrap();
        let mut hits = std::collections::HashMap::new();
        let n = 100_000;
        for _ in 0..n {
            let r = g.next_request();
            assert!(r.offset + r.len <= s.file_size() && r.file < 3, "{r:?}");
            assert!(r.offset.is_multiple_of(block));
            *hits.entry((r.file, r.offset)).or_insert(0u32) += 1;
        }
        // all three files are used, and the top 1 % of blocks take most hits
        assert!((0..3).all(|f| hits.keys().any(|k| k.0 == f)));
        let mut h: Vec<u32> = hits.into_values().collect();
        h.sort_unstable_by(|a, b| b.cmp(a));
        let top = (per_file * 3 / 100) as usize;
        let share = h[..top].iter().sum::<u32>() as f64 / n as f64;
        assert!(share > 0.6, "{share}");
        // zoned: 90 % of requests in the first 10 % of the address space (file 0)
        let s = GenericSpec {
            distribution: super::super::dist::parse("zoned:90/10:10/90").unwrap(),
            ..s
        };
        let mut g = Generator::new(&s, 0).unwrap();
        let low = (0..n)
            .filter(|_| {
                let r = g.next_request();
                r.file == 0 && r.offset < s.file_size() * 3 / 10
            })
            .count();
        assert!((low as f64 / n as f64 - 0.9).abs() < 0.01, "{low}");
    }
}
