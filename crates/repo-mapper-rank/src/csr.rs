//! Per-key lists stored flat (compressed sparse rows): key `k`'s values are
//! `values[start[k]..start[k + 1]]`. The index and the graph keep every per-identifier and
//! per-file list this way: two vectors, however many keys.

use rayon::prelude::*;

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

    /// Where each key's values start (`keys() + 1` offsets).
    pub(crate) fn starts(&self) -> &[u32] {
        &self.start
    }

    /// Every key's values, back to back.
    pub(crate) fn values(&self) -> &[V] {
        &self.values
    }
}

impl<V: Copy + Default + Send + Sync> Csr<V> {
    /// Groups `(key, value)` pairs by key, keeping their order within a key (a counting
    /// sort); keys must be below `keys`. On every thread at once: the keys are split into
    /// one range per thread, and each thread visits every pair (`pairs()` makes them
    /// afresh) and places those of its range. Worth it where placing a pair, a write
    /// at an unpredictable place, costs more than visiting it: millions of pairs over tens
    /// of thousands of keys (the Linux tree's references, grouped by identifier or file).
    pub(crate) fn group_in_parallel<I>(keys: usize, pairs: impl Fn() -> I + Sync) -> Self
    where
        I: Iterator<Item = (u32, V)>,
    {
        let parts = rayon::current_num_threads().clamp(1, keys.max(1));
        let bounds: Vec<usize> = (0..=parts).map(|p| p * keys / parts).collect();
        let mut lens = vec![0u32; keys];
        split_at_bounds(&mut lens, &bounds)
            .into_par_iter()
            .for_each(|(lo, lens)| {
                // Internal iteration: a `flat_map`'s fold runs its inner loops plainly.
                pairs().for_each(|(k, _)| {
                    if let Some(len) = lens.get_mut((k as usize).wrapping_sub(lo)) {
                        *len += 1;
                    }
                });
            });
        let start = offsets(&lens);
        let mut next = start[..keys].to_vec();
        let total = start[keys] as usize;
        let mut values = vec![V::default(); total];
        // Placing is the costly pass: its ranges hold about as many values each.
        let bounds: Vec<usize> = (0..=parts)
            .map(|p| {
                start
                    .partition_point(|&s| (s as usize) * parts < p * total)
                    .min(keys)
            })
            .collect();
        let value_bounds: Vec<usize> = bounds.iter().map(|&b| start[b] as usize).collect();
        let slots = split_at_bounds(&mut next, &bounds);
        let places = split_at_bounds(&mut values, &value_bounds);
        slots
            .into_par_iter()
            .zip(places)
            .for_each(|((lo, next), (base, values))| {
                pairs().for_each(|(k, v)| {
                    if let Some(slot) = next.get_mut((k as usize).wrapping_sub(lo)) {
                        values[*slot as usize - base] = v;
                        *slot += 1;
                    }
                });
            });
        Csr::from_parts(start, values)
    }
}

/// Where each list starts, for lists of `lens` back to back (one more offset: the end).
fn offsets(lens: &[u32]) -> Vec<u32> {
    let mut start = Vec::with_capacity(lens.len() + 1);
    let mut at = 0u32;
    start.push(at);
    for &len in lens {
        at += len;
        start.push(at);
    }
    start
}

/// `items` cut at `bounds` (ascending, the first 0, the last `items.len()`): each piece
/// with where it starts.
pub(crate) fn split_at_bounds<'t, T>(
    mut items: &'t mut [T],
    bounds: &[usize],
) -> Vec<(usize, &'t mut [T])> {
    let mut pieces = Vec::with_capacity(bounds.len().saturating_sub(1));
    for pair in bounds.windows(2) {
        let (piece, rest) = items.split_at_mut(pair[1] - pair[0]);
        pieces.push((pair[0], piece));
        items = rest;
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Grouping keeps each key's values in their order, every key listed, on any
        /// number of threads.
        #[test]
        fn group_is_a_stable_counting_sort(
            keys in 1usize..40,
            pairs in proptest::collection::vec((0u32..40, 0u32..1000), 0..200),
            threads in 1usize..5,
        ) {
            let pairs: Vec<(u32, u32)> =
                pairs.into_iter().map(|(k, v)| (k % keys as u32, v)).collect();
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let grouped = pool.install(|| Csr::group_in_parallel(keys, || pairs.iter().copied()));
            proptest::prop_assert_eq!(grouped.keys(), keys);
            for k in 0..keys as u32 {
                let naive: Vec<u32> = pairs.iter().filter(|p| p.0 == k).map(|p| p.1).collect();
                proptest::prop_assert_eq!(grouped.get(k as usize), &naive[..]);
            }
        }
    }

    #[test]
    fn group_is_stable_and_keeps_empty_keys() {
        let pairs = [(2u32, 'a'), (0, 'b'), (2, 'c'), (0, 'd')];
        let csr = Csr::group_in_parallel(4, || pairs.iter().copied());
        assert_eq!(csr.keys(), 4);
        assert_eq!(csr.get(0), ['b', 'd']);
        assert_eq!(csr.get(1), [] as [char; 0]);
        assert_eq!(csr.get(2), ['a', 'c']);
        assert_eq!(csr.get(3), [] as [char; 0]);
    }
}
