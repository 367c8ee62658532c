//! glibc's `random()` / `srandom()` (the BSD additive feedback generator, TYPE_3).
//!
//! IOStone draws every offset and every read/write choice from `random()`
//! (docs/iostone.md, "Seeding": glibc's TYPE_3 `random()` after
//! `srandom(34710373)`). This module reproduces that
//! generator bit for bit, so that the IOStone plans are identical to what the C
//! programs do on Linux/glibc.
//!
//! The algorithm (docs/iostone.md, glibc `stdlib/random_r.c`):
//!
//! * degree 31, separation 3;
//! * `srandom(seed)`: `r[0] = seed` (glibc maps seed 0 to 1), then
//!   `r[i] = (16807 · r[i−1]) mod 2147483647` for `i = 1..30`, computed with Schrage's
//!   method in signed 32-bit arithmetic exactly as glibc does;
//! * `r[i] = (r[i−31] + r[i−3]) mod 2^32` afterwards; the first 310 outputs are discarded;
//! * each `random()` returns the new word shifted right by one (31 bits, `[0, 2^31)`).
//!
//! A program that never calls `srandom` starts from glibc's static table, which is the
//! state `srandom(1)` produces (see [`BsdRandom::glibc_default`]).

/// Degree of the TYPE_3 generator (number of 32-bit words of state).
const DEG: usize = 31;
/// Separation between the front and rear pointers of the TYPE_3 generator.
const SEP: usize = 3;
/// Outputs discarded by `srandom` after filling the table (`10 · DEG`).
const DISCARD: usize = 10 * DEG;

/// glibc's TYPE_3 `random()` generator (degree 31, separation 3).
///
/// See docs/iostone.md. `BsdRandom::new(s)` behaves like `srandom(s)`, and each
/// [`BsdRandom::next`] call like one `random()` call on Linux/glibc.
#[derive(Clone, Debug)]
pub struct BsdRandom {
    /// The 31-word state table (glibc's `r[]`, stored as unsigned words; the
    /// arithmetic on it is mod 2^32).
    state: [u32; DEG],
    /// Front pointer (glibc `fptr`), index into `state`.
    f: usize,
    /// Rear pointer (glibc `rptr`), index into `state`.
    r: usize,
}

impl BsdRandom {
    /// The generator after `srandom(seed)`.
    ///
    /// As in glibc, a seed of 0 is replaced by 1, and the seed is stored as a signed
    /// 32-bit word (seeds ≥ 2^31 are negative in the Schrage recurrence, exactly as in C).
    pub fn new(seed: u32) -> Self {
        let seed = if seed == 0 { 1 } else { seed };
        let mut state = [0u32; DEG];
        state[0] = seed;
        // glibc: `int32_t word = seed;` with `long int hi, lo` (64-bit on Linux).
        let mut word = seed as i32;
        for slot in state.iter_mut().skip(1) {
            let hi = i64::from(word) / 127_773;
            let lo = i64::from(word) % 127_773;
            // Truncation to int32_t, as the C assignment does.
            word = (16_807 * lo - 2_836 * hi) as i32;
            if word < 0 {
                word += 2_147_483_647;
            }
            *slot = word as u32;
        }
        let mut rng = BsdRandom {
            state,
            f: SEP,
            r: 0,
        };
        for _ in 0..DISCARD {
            rng.next();
        }
        rng
    }

    /// The state of a glibc program that never called `srandom` (glibc's static
    /// `randtbl`), which equals `srandom(1)`.
    pub fn glibc_default() -> Self {
        Self::new(1)
    }

    /// One `random()` call: the next value, in `[0, 2^31)`.
    #[allow(
        clippy::should_implement_trait,
        reason = "mirrors C `random()`; the generator never ends, so it is not an Iterator"
    )]
    pub fn next(&mut self) -> u32 {
        let val = self.state[self.f].wrapping_add(self.state[self.r]);
        self.state[self.f] = val;
        self.f += 1;
        if self.f >= DEG {
            self.f = 0;
            self.r += 1;
        } else {
            self.r += 1;
            if self.r >= DEG {
                self.r = 0;
            }
        }
        val >> 1
    }
}

#[cfg(test)]
mod tests {
    //! Test vectors were produced by glibc 2.36 on Debian 12 (`Debian GLIBC
    //! 2.36-9+deb12u14`, `gcc -O2 -Wall gen.c`) with this C program:
    //!
    //! ```c
    //! #include <stdio.h>
    //! #include <stdlib.h>
    //!
    //! int main(void) {
    //!     int i;
    //!     /* no srandom() call: glibc default state */
    //!     printf("default:");
    //!     for (i = 0; i < 5; i++) printf(" %ld", random());
    //!     printf("\nsrandom(1):");
    //!     srandom(1);
    //!     for (i = 0; i < 5; i++) printf(" %ld", random());
    //!     printf("\nsrandom(0):");
    //!     srandom(0);
    //!     for (i = 0; i < 5; i++) printf(" %ld", random());
    //!     printf("\nsrandom(34710373):");
    //!     srandom(34710373);
    //!     for (i = 0; i < 20; i++) printf(" %ld", random());
    //!     printf("\n");
    //!     return 0;
    //! }
    //! ```
    //!
    //! and, for the seeds ≥ 2^31 (negative `int32_t` in glibc's Schrage loop), the same
    //! program body with `srandom(2147483648u)` and `srandom(4294967295u)`, 5 values each.
    use super::*;

    fn take(mut rng: BsdRandom, n: usize) -> Vec<u32> {
        (0..n).map(|_| rng.next()).collect()
    }

    /// glibc: first 5 values with no `srandom`, after `srandom(1)` and after `srandom(0)`.
    const SEED1_FIRST5: [u32; 5] = [1804289383, 846930886, 1681692777, 1714636915, 1957747793];

    /// glibc: first 20 values after `srandom(34710373)` (IOStone's SEED).
    const IOSTONE_FIRST20: [u32; 20] = [
        960721146, 1883516719, 936438710, 21342993, 48933446, 1759693537, 424013354, 1469101486,
        943511364, 82072068, 1205406516, 322942371, 1124107046, 630936082, 1730201443, 525834811,
        180127788, 209182200, 1480766734, 845443016,
    ];

    #[test]
    fn iostone_seed_matches_glibc() {
        assert_eq!(take(BsdRandom::new(34_710_373), 20), IOSTONE_FIRST20);
    }

    #[test]
    fn iostone_seed_matches_spec_vector() {
        // glibc's own first outputs after srandom(34710373) (a C program
        // calling random() twenty times, run on Debian 12).
        let spec = [
            960721146, 1883516719, 936438710, 21342993, 48933446, 1759693537, 424013354, 1469101486,
        ];
        assert_eq!(take(BsdRandom::new(34_710_373), 8), spec);
    }

    #[test]
    fn default_state_is_srandom_1() {
        assert_eq!(take(BsdRandom::glibc_default(), 5), SEED1_FIRST5);
        assert_eq!(take(BsdRandom::new(1), 5), SEED1_FIRST5);
    }

    #[test]
    fn seed_zero_maps_to_one() {
        assert_eq!(take(BsdRandom::new(0), 5), SEED1_FIRST5);
    }

    #[test]
    fn high_seeds_match_glibc() {
        assert_eq!(
            take(BsdRandom::new(2_147_483_648), 5),
            [1336741213, 1210407648, 1447044896, 337392383, 82502902]
        );
        assert_eq!(
            take(BsdRandom::new(u32::MAX), 5),
            [254925627, 1205188300, 366127624, 1401405153, 76053476]
        );
    }

    #[test]
    fn first_iostone_shuffle_draws() {
        // C/II's first Fisher–Yates draws, `random() % m` for m = 99, 98, 97, on glibc
        // 2.36 (Debian 12): 0, 35, 31. (A published description lists 86, 35, 69, which
        // does not follow from the vector above: 960721146 % 99 = 0, 936438710 % 97 = 31.)
        let mut rng = BsdRandom::new(34_710_373);
        assert_eq!(rng.next() % 99, 0);
        assert_eq!(rng.next() % 98, 35);
        assert_eq!(rng.next() % 97, 31);
    }

    #[test]
    fn outputs_are_31_bit_and_clone_is_independent() {
        let mut a = BsdRandom::new(12345);
        for _ in 0..10_000 {
            assert!(a.next() < (1 << 31));
        }
        let mut b = a.clone();
        let xs: Vec<u32> = (0..100).map(|_| a.next()).collect();
        let ys: Vec<u32> = (0..100).map(|_| b.next()).collect();
        assert_eq!(xs, ys);
    }
}
