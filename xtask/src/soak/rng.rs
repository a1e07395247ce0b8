//! xoshiro256**, seeded by splitmix64: the soak's every choice comes from it, so a seed
//! names one run (on one starting tree). (splitmix64 alone, read at the soak's fixed
//! strides, gave runs of low numbers: five repeats of one request in a row.)

/// A small seeded generator.
#[derive(Debug, Clone)]
pub(crate) struct Rng([u64; 4]);

impl Rng {
    /// The generator of seed `seed`.
    pub(super) fn new(seed: u64) -> Rng {
        let mut z = seed;
        let mut splitmix = || {
            z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut x = z;
            x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            x ^ (x >> 31)
        };
        Rng([splitmix(), splitmix(), splitmix(), splitmix()])
    }

    /// The next 64 random bits.
    pub(super) fn next_u64(&mut self) -> u64 {
        let s = &mut self.0;
        let out = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        out
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub(super) fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        (self.next_u64() % n as u64) as usize
    }

    /// A number in `lo..=hi`.
    pub(super) fn between(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `percent` / 100.
    pub(super) fn percent(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// One of `items` (`None` when there is none).
    pub(super) fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            return None;
        }
        items.get(self.below(items.len()))
    }

    /// An index into `weights`, each chosen in proportion to its weight.
    pub(super) fn weighted(&mut self, weights: &[usize]) -> usize {
        let mut at = self.below(weights.iter().sum());
        for (i, w) in weights.iter().enumerate() {
            if at < *w {
                return i;
            }
            at -= w;
        }
        weights.len().saturating_sub(1)
    }

    /// A lowercase identifier of `len` letters (at least one).
    pub(super) fn word(&mut self, len: usize) -> String {
        (0..len.max(1))
            .map(|_| char::from(b'a' + self.below(26) as u8))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn percent_is_about_right() {
        let mut rng = Rng::new(1);
        let hits = (0..10_000).filter(|_| rng.percent(30)).count();
        assert!((2_700..3_300).contains(&hits), "{hits}");
    }
}
