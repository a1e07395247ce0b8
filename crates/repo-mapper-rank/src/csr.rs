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
    /// sort). Keys must be below `keys`; `len` is the number of pairs.
    pub(crate) fn group(
        keys: usize,
        pairs: impl Iterator<Item = (u32, V)> + Clone,
        len: usize,
    ) -> Self {
        let mut start = vec![0u32; keys + 1];
        for (k, _) in pairs.clone() {
            start[k as usize + 1] += 1;
        }
        for i in 0..keys {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut values = vec![V::default(); len];
        for (k, v) in pairs {
            values[fill[k as usize] as usize] = v;
            fill[k as usize] += 1;
        }
        Csr { start, values }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_is_stable_and_keeps_empty_keys() {
        let pairs = [(2u32, 'a'), (0, 'b'), (2, 'c'), (0, 'd')];
        let csr = Csr::group(4, pairs.iter().copied(), pairs.len());
        assert_eq!(csr.keys(), 4);
        assert_eq!(csr.get(0), ['b', 'd']);
        assert_eq!(csr.get(1), [] as [char; 0]);
        assert_eq!(csr.get(2), ['a', 'c']);
        assert_eq!(csr.get(3), [] as [char; 0]);
    }
}
