//! Workload pieces shared by the suites: the generic five-parameter workload
//! of Chen & Patterson, request-size distributions, the PRNGs (including
//! glibc's `random()` for the classic C programs and IOzone's 64-bit
//! Mersenne Twister). Generators only: they decide what to do, never run it
//! (the runner drives them through an engine).

pub mod bsd_random;
pub mod dist;
pub mod generic;
pub mod mt64;
pub mod sizes;

use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

/// The PRNG iogauge uses for its own draws: xoshiro256++, seeded through
/// SplitMix64 so that identical seeds give identical streams on every
/// platform and version.
pub type Prng = Xoshiro256PlusPlus;

/// The generator of worker `index` for a run seeded with `seed`: one stream
/// per worker, 2^128 draws apart (xoshiro's jump), so workers never overlap.
pub fn worker_rng(seed: u64, index: usize) -> Prng {
    let mut r = Prng::seed_from_u64(seed);
    for _ in 0..index {
        r.jump();
    }
    r
}

/// A uniform draw in [0, 1) with 53 bits.
#[inline]
pub fn unit_f64(r: &mut Prng) -> f64 {
    (r.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A uniform integer in [0, n) (n > 0), by Lemire's multiply-shift.
#[inline]
pub fn below(r: &mut Prng, n: u64) -> u64 {
    ((r.next_u64() as u128 * n as u128) >> 64) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4).map(|_| worker_rng(42, 0).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        assert_ne!(worker_rng(42, 0).next_u64(), worker_rng(42, 1).next_u64());
        assert_ne!(worker_rng(42, 0).next_u64(), worker_rng(43, 0).next_u64());
    }

    #[test]
    fn below_is_in_range_and_fair() {
        let mut r = worker_rng(1, 0);
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            counts[below(&mut r, 6) as usize] += 1;
        }
        assert!(
            counts.iter().all(|&c| (9_500..10_500).contains(&c)),
            "{counts:?}"
        );
    }
}
