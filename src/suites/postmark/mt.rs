//! The Mersenne Twister exactly as PostMark 1.53 uses it.
//!
//! PostMark 1.5+ embeds Matsumoto and Nishimura's "MT19937: Integer version
//! (1999/10/28)": the standard MT19937 recurrence and tempering, but seeded by
//! the *old* Knuth-style initialiser `sgenrand` (two steps of the LCG
//! `s = 69069 s + 1` per state word, keeping the high 16 bits of each), not by
//! the 2002 `init_genrand`. PostMark reseeds with `sgenrand(seed)` at the start
//! of every `run` and draws with `RND(x) = x > 0 ? genrand() % x : 0`.
//!
//! PostMark's `unsigned long` is 64 bits on LP64 systems, but every state word
//! and output stays below 2^32 (the seeding masks, the twist and the tempering
//! masks keep the top half zero), so 32-bit arithmetic gives the same stream.

/// Degree of recurrence (state words).
const N: usize = 624;
/// Middle word offset.
const M: usize = 397;
/// Constant vector a.
const MATRIX_A: u32 = 0x9908_b0df;
/// Most significant w-r bits.
const UPPER_MASK: u32 = 0x8000_0000;
/// Least significant r bits.
const LOWER_MASK: u32 = 0x7fff_ffff;
/// Tempering mask B.
const TEMPERING_MASK_B: u32 = 0x9d2c_5680;
/// Tempering mask C.
const TEMPERING_MASK_C: u32 = 0xefc6_0000;
/// The seed `genrand()` falls back to when `sgenrand` was never called.
pub const DEFAULT_SEED: u32 = 4357;

/// MT19937 with PostMark's (1999) seeding. About 2.5 KiB of state.
#[derive(Clone)]
pub struct MersenneTwister {
    mt: [u32; N],
    /// Index of the next word to temper; `N` means "twist before the next draw".
    mti: usize,
}

impl std::fmt::Debug for MersenneTwister {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MersenneTwister")
            .field("mti", &self.mti)
            .finish_non_exhaustive()
    }
}

impl Default for MersenneTwister {
    /// The state `genrand()` uses when called without `sgenrand`: seed 4357.
    fn default() -> Self {
        Self::new(DEFAULT_SEED)
    }
}

impl MersenneTwister {
    /// `sgenrand(seed)`: PostMark passes its `int seed` (always > 0), converted
    /// to `unsigned long`; only the low 32 bits matter.
    pub fn new(seed: u32) -> Self {
        let mut mt = [0u32; N];
        let mut s = seed;
        for word in mt.iter_mut() {
            *word = s & 0xffff_0000;
            s = s.wrapping_mul(69069).wrapping_add(1);
            *word |= (s & 0xffff_0000) >> 16;
            s = s.wrapping_mul(69069).wrapping_add(1);
        }
        MersenneTwister { mt, mti: N }
    }

    /// Re-seed in place (`sgenrand(seed)` again).
    pub fn reseed(&mut self, seed: u32) {
        *self = Self::new(seed);
    }

    /// Generates the next N words (the MT19937 twist).
    fn twist(&mut self) {
        let mag01 = |y: u32| if y & 1 == 0 { 0 } else { MATRIX_A };
        let mt = &mut self.mt;
        for kk in 0..N - M {
            let y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
            mt[kk] = mt[kk + M] ^ (y >> 1) ^ mag01(y);
        }
        for kk in N - M..N - 1 {
            let y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
            mt[kk] = mt[kk + M - N] ^ (y >> 1) ^ mag01(y);
        }
        let y = (mt[N - 1] & UPPER_MASK) | (mt[0] & LOWER_MASK);
        mt[N - 1] = mt[M - 1] ^ (y >> 1) ^ mag01(y);
        self.mti = 0;
    }

    fn temper(mut y: u32) -> u32 {
        y ^= y >> 11;
        y ^= (y << 7) & TEMPERING_MASK_B;
        y ^= (y << 15) & TEMPERING_MASK_C;
        y ^= y >> 18;
        y
    }

    /// `genrand()`: the next 32-bit output.
    pub fn genrand(&mut self) -> u32 {
        if self.mti >= N {
            self.twist();
        }
        let y = self.mt[self.mti];
        self.mti += 1;
        Self::temper(y)
    }

    /// The value the next `genrand()` will return, without consuming it.
    /// (Twisting early is harmless: the twist is a fixed state transformation
    /// that `genrand()` would perform at that point anyway.)
    pub fn peek(&mut self) -> u32 {
        if self.mti >= N {
            self.twist();
        }
        Self::temper(self.mt[self.mti])
    }

    /// PostMark's `RND(x)`: `genrand() % x` if `x > 0`, else 0 **without**
    /// consuming a draw. `x` is a C `int`.
    pub fn rnd(&mut self, x: i64) -> u32 {
        if x > 0 {
            // genrand() is < 2^32, x is a positive int: the result fits in u32.
            (u64::from(self.genrand()) % x as u64) as u32
        } else {
            0
        }
    }

    /// `RND(x)` computed from [`peek`](Self::peek): what `rnd(x)` would return
    /// next, consuming nothing.
    pub fn peek_rnd(&mut self, x: i64) -> u32 {
        if x > 0 {
            (u64::from(self.peek()) % x as u64) as u32
        } else {
            0
        }
    }

    /// Consumes one draw (used after [`peek_rnd`](Self::peek_rnd) when the
    /// peeked draw turns out to be taken).
    pub fn skip(&mut self) {
        let _ = self.genrand();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Vectors produced by compiling the MT19937 code cut verbatim from Debian's
    // postmark_1.53.orig.tar.gz (postmark-1.53.c, lines 1369-1493) with gcc on
    // amd64 (64-bit unsigned long) and printing genrand() after sgenrand(seed).
    const VECTORS: &[(u32, [u32; 10], u32)] = &[
        (
            42,
            [
                4179544424, 615236124, 4165290828, 3119652344, 1623863471, 605280572, 1209526912,
                2753559756, 1398721121, 776305894,
            ],
            2144691740,
        ),
        (
            4357,
            [
                2867219139, 1585203162, 3113124129, 2953900839, 2463794868, 3482265796, 1164297043,
                3598195569, 589972756, 4112233867,
            ],
            1030650439,
        ),
        (
            1,
            [
                3556162021, 4012392791, 221657543, 586320575, 3355844478, 1469533884, 3503894243,
                3772467657, 1024111506, 4234686931,
            ],
            1033021715,
        ),
        (
            7,
            [
                22671274, 109824311, 1824471040, 3737574225, 423047516, 4188341082, 1343472271,
                833058760, 4087762274, 2762075667,
            ],
            1323523682,
        ),
        (
            2147483647,
            [
                3840883527, 3795727268, 3590866082, 844510805, 557394967, 500913273, 640439044,
                3895851516, 283646718, 1551257543,
            ],
            3163011166,
        ),
    ];

    #[test]
    fn first_ten_and_thousandth_outputs_match_postmark_1_53() {
        for &(seed, first, thousandth) in VECTORS {
            let mut mt = MersenneTwister::new(seed);
            let got: Vec<u32> = (0..10).map(|_| mt.genrand()).collect();
            assert_eq!(got, first, "seed {seed}");
            for _ in 10..999 {
                mt.genrand();
            }
            assert_eq!(mt.genrand(), thousandth, "seed {seed}, draw #1000");
        }
    }

    #[test]
    fn old_seeding_state_words() {
        // mt[0..4] and mt[623] right after sgenrand(42), from the same C build.
        let mt = MersenneTwister::new(42);
        assert_eq!(&mt.mt[..4], &[44, 2793701965, 1171622578, 1525990753]);
        assert_eq!(mt.mt[623], 2630588336);
    }

    #[test]
    fn default_is_seed_4357() {
        let mut a = MersenneTwister::default();
        let mut b = MersenneTwister::new(4357);
        for _ in 0..700 {
            assert_eq!(a.genrand(), b.genrand());
        }
    }

    #[test]
    fn reseed_restarts_the_stream() {
        let mut mt = MersenneTwister::new(42);
        for _ in 0..1000 {
            mt.genrand();
        }
        mt.reseed(42);
        assert_eq!(mt.genrand(), 4179544424);
    }

    #[test]
    fn rnd_draws_only_for_positive_bounds() {
        let mut a = MersenneTwister::new(42);
        assert_eq!(a.rnd(0), 0);
        assert_eq!(a.rnd(-5), 0);
        // No draw was consumed by the two calls above.
        assert_eq!(a.rnd(95), 4179544424 % 95);
        assert_eq!(a.rnd(1), 0);
        assert_eq!(a.genrand(), 4165290828);
    }

    #[test]
    fn peek_does_not_consume_even_across_a_twist() {
        let mut a = MersenneTwister::new(7);
        let mut b = MersenneTwister::new(7);
        for i in 0..2000 {
            let p = a.peek();
            assert_eq!(a.peek_rnd(1000), p % 1000);
            assert_eq!(a.peek(), p, "peek is idempotent at draw {i}");
            assert_eq!(a.genrand(), b.genrand());
            assert_eq!(p, MersenneTwister::temper(b.mt[b.mti - 1]));
        }
        a.skip();
        b.genrand();
        assert_eq!(a.genrand(), b.genrand());
    }
}
