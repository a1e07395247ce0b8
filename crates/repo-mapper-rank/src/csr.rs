//! Per-key lists stored flat (compressed sparse rows): key `k`'s values are
//! `values[start[k]..start[k + 1]]`. The index and the graph keep every per-identifier and
//! per-file list this way: two vectors, however many keys.

/// "No file", "no node", "no slot": the sentinel of the crate's `u32` index arrays.
pub(crate) const NONE: u32 = u32::MAX;

/// Lists of `V` per key `0..keys()`, in one array.
#[derive(Debug)]
pub(crate) struct Csr<V> {
    start: Vec<u32>,
    values: Vec<V>,
}

impl<V> Csr<V> {
    /// From offsets (`keys + 1` of them, non-decreasing, the first 0 and the last
    /// `values.len()`) and the values.
    pub(crate) fn from_parts(start: Vec<u32>, values: Vec<V>) -> Self {
        debug_assert_eq!(start.first(), Some(&0));
        debug_assert_eq!(start.last().map(|&s| s as usize), Some(values.len()));
        Csr { start, values }
    }

    /// The values of `key`.
    #[inline]
    pub(crate) fn get(&self, key: usize) -> &[V] {
        &self.values[self.start[key] as usize..self.start[key + 1] as usize]
    }

    /// Where the values of `key` are among all values.
    #[inline]
    pub(crate) fn range(&self, key: usize) -> std::ops::Range<usize> {
        self.start[key] as usize..self.start[key + 1] as usize
    }

    /// The values of `key`, to change in place.
    pub(crate) fn get_mut(&mut self, key: usize) -> &mut [V] {
        let range = self.range(key);
        &mut self.values[range]
    }

    /// Number of keys.
    pub(crate) fn keys(&self) -> usize {
        self.start.len() - 1
    }
}

impl<V: Copy + Default> Csr<V> {
    /// Groups `(key, value)` pairs by key, keeping their order within a key (a counting
    /// sort). Keys must be below `keys`.
    pub(crate) fn group(keys: usize, pairs: impl Iterator<Item = (u32, V)> + Clone) -> Self {
        let mut lens = vec![0u32; keys];
        for (k, _) in pairs.clone() {
            lens[k as usize] += 1;
        }
        let mut filling = Filling::new(&lens, V::default());
        for (k, v) in pairs {
            filling.push(k, v);
        }
        filling.finish()
    }
}

/// A [`Csr`] whose list lengths are known, filled key by key in any order (each list in
/// the order of its pushes).
pub(crate) struct Filling<V> {
    start: Vec<u32>,
    next: Vec<u32>,
    values: Vec<V>,
}

impl<V: Copy> Filling<V> {
    /// Room for `lens[k]` values of each key `k`, `blank` until filled.
    pub(crate) fn new(lens: &[u32], blank: V) -> Self {
        let mut start = Vec::with_capacity(lens.len() + 1);
        let mut at = 0u32;
        start.push(at);
        for &len in lens {
            at += len;
            start.push(at);
        }
        Filling {
            next: start[..lens.len()].to_vec(),
            values: vec![blank; at as usize],
            start,
        }
    }

    /// Appends `value` to `key`'s list.
    pub(crate) fn push(&mut self, key: u32, value: V) {
        let slot = &mut self.next[key as usize];
        self.values[*slot as usize] = value;
        *slot += 1;
    }

    /// The lists (each must be full).
    pub(crate) fn finish(self) -> Csr<V> {
        debug_assert!(self.next.iter().zip(&self.start[1..]).all(|(n, s)| n == s));
        Csr::from_parts(self.start, self.values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Grouping keeps each key's values in their order, every key listed.
        #[test]
        fn group_is_a_stable_counting_sort(
            pairs in proptest::collection::vec((0u32..6, 0u32..1000), 0..60)
        ) {
            let grouped = Csr::group(6, pairs.iter().copied());
            for k in 0..6u32 {
                let naive: Vec<u32> = pairs.iter().filter(|p| p.0 == k).map(|p| p.1).collect();
                proptest::prop_assert_eq!(grouped.get(k as usize), &naive[..]);
            }
        }
    }

    #[test]
    fn group_is_stable_and_keeps_empty_keys() {
        let pairs = [(2u32, 'a'), (0, 'b'), (2, 'c'), (0, 'd')];
        let csr = Csr::group(4, pairs.iter().copied());
        assert_eq!(csr.keys(), 4);
        assert_eq!(csr.get(0), ['b', 'd']);
        assert_eq!(csr.get(1), [] as [char; 0]);
        assert_eq!(csr.get(2), ['a', 'c']);
        assert_eq!(csr.get(3), [] as [char; 0]);
    }
}
