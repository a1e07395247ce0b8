//! A fast, non-cryptographic hasher for tables of identifier names (rustc's FxHash with a
//! finaliser): ranking hashes every tag name of a request, and the pack's name table every
//! name it holds; SipHash dominated both on large repositories. Nothing hashed with it
//! is kept: its values may change between versions.
//!
//! ```
//! use std::collections::HashMap;
//! use repo_mapper_tags::fxhash::FxBuildHasher;
//!
//! let mut ids: HashMap<&str, u32, FxBuildHasher> = HashMap::default();
//! ids.insert("parse", 0);
//! assert_eq!(ids.get("parse"), Some(&0));
//! ```

use std::hash::{BuildHasherDefault, Hasher};

/// The hash of `name`'s bytes.
pub fn hash_str(name: &str) -> u64 {
    let mut h = FxHasher::default();
    h.write(name.as_bytes());
    h.finish()
}

/// Builds [`FxHasher`]s, for `HashMap` and `HashSet`.
pub type FxBuildHasher = BuildHasherDefault<FxHasher>;

/// rustc's `FxHasher`, with a splitmix64 finaliser.
#[derive(Debug, Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    /// FxHash's low bits depend only on the low bytes of each word, and hashbrown picks
    /// buckets by the low bits: names differing late in a word would collide. A splitmix64
    /// finaliser spreads every input bit.
    fn finish(&self) -> u64 {
        let mut z = self.hash;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}
