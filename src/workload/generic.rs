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
        Ok(())
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
}

impl Generator {
    pub fn new(spec: &GenericSpec, worker: usize) -> Result<Self, String> {
        spec.validate()?;
        let file_size = spec.file_size();
        // start w/P of the way through the data set, aligned
        let start = (spec.total_bytes() as u128 * worker as u128 / spec.processes as u128) as u64;
        let start = start - start % spec.align;
        Ok(Generator {
            rng: worker_rng(spec.seed, worker),
            sizes: spec.sizes()?,
            read_frac: spec.read_frac,
            trim_below: spec.read_frac + spec.trim_frac,
            seq_frac: spec.seq_frac,
            file_size,
            files: spec.files,
            align: spec.align,
            file: (start / file_size) as u32 % spec.files,
            next: start % file_size,
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
}
