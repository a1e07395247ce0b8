//! libstdc++'s `std::sort`, step for step.
//!
//! scipy sorts the column indices of each CSR row with `std::sort` (`csr_sort_indices`,
//! comparing column indices only) before it sums duplicate entries. `std::sort` is not
//! stable: for rows longer than 16 entries it permutes parallel edges, and the order in
//! which their weights are then added changes the last bit of the sum. To add them in the
//! same order as networkx does, we sort the same way: introsort with libstdc++'s pivot
//! choice and partition, heapsort when the depth limit is reached, and the final
//! insertion sort with its threshold of 16. Without recursion: the right-hand partitions
//! go on an explicit stack (they are disjoint, so the order they are sorted in does not
//! matter).

/// libstdc++'s `_S_threshold`.
const THRESHOLD: usize = 16;

/// Sorts `v` exactly as libstdc++'s `std::sort(v.begin(), v.end(), less)` would, including
/// the final order of elements that compare equal.
pub(crate) fn cxx_sort<T: Copy, F: Fn(&T, &T) -> bool>(v: &mut [T], less: F) {
    let n = v.len();
    if n < 2 {
        return;
    }
    let depth_limit = 2 * floor_log2(n);
    let mut stack: Vec<(usize, usize, usize)> = vec![(0, n, depth_limit)];
    while let Some((first, mut last, mut depth)) = stack.pop() {
        while last - first > THRESHOLD {
            if depth == 0 {
                heap_sort(&mut v[first..last], &less);
                break;
            }
            depth -= 1;
            let cut = unguarded_partition_pivot(v, first, last, &less);
            stack.push((cut, last, depth));
            last = cut;
        }
    }
    final_insertion_sort(v, &less);
}

fn floor_log2(n: usize) -> usize {
    (usize::BITS - 1 - n.leading_zeros()) as usize
}

fn unguarded_partition_pivot<T: Copy, F: Fn(&T, &T) -> bool>(
    v: &mut [T],
    first: usize,
    last: usize,
    less: &F,
) -> usize {
    let mid = first + (last - first) / 2;
    move_median_to_first(v, first, first + 1, mid, last - 1, less);
    unguarded_partition(v, first + 1, last, first, less)
}

fn move_median_to_first<T: Copy, F: Fn(&T, &T) -> bool>(
    v: &mut [T],
    result: usize,
    a: usize,
    b: usize,
    c: usize,
    less: &F,
) {
    let pick = if less(&v[a], &v[b]) {
        if less(&v[b], &v[c]) {
            b
        } else if less(&v[a], &v[c]) {
            c
        } else {
            a
        }
    } else if less(&v[a], &v[c]) {
        a
    } else if less(&v[b], &v[c]) {
        c
    } else {
        b
    };
    v.swap(result, pick);
}

fn unguarded_partition<T: Copy, F: Fn(&T, &T) -> bool>(
    v: &mut [T],
    mut first: usize,
    mut last: usize,
    pivot: usize,
    less: &F,
) -> usize {
    loop {
        while less(&v[first], &v[pivot]) {
            first += 1;
        }
        last -= 1;
        while less(&v[pivot], &v[last]) {
            last -= 1;
        }
        if first >= last {
            return first;
        }
        v.swap(first, last);
        first += 1;
    }
}

/// `std::__partial_sort(first, last, last)`: make a heap of everything, then sort it.
fn heap_sort<T: Copy, F: Fn(&T, &T) -> bool>(v: &mut [T], less: &F) {
    let len = v.len();
    if len >= 2 {
        let mut parent = (len - 2) / 2;
        loop {
            let value = v[parent];
            adjust_heap(v, parent, len, value, less);
            if parent == 0 {
                break;
            }
            parent -= 1;
        }
    }
    let mut last = len;
    while last > 1 {
        last -= 1;
        let value = v[last];
        v[last] = v[0];
        adjust_heap(v, 0, last, value, less);
    }
}

fn adjust_heap<T: Copy, F: Fn(&T, &T) -> bool>(
    v: &mut [T],
    mut hole: usize,
    len: usize,
    value: T,
    less: &F,
) {
    let top = hole;
    let mut second = hole;
    while second < (len - 1) / 2 {
        second = 2 * (second + 1);
        if less(&v[second], &v[second - 1]) {
            second -= 1;
        }
        v[hole] = v[second];
        hole = second;
    }
    if len.is_multiple_of(2) && second == (len - 2) / 2 {
        second = 2 * (second + 1);
        v[hole] = v[second - 1];
        hole = second - 1;
    }
    // __push_heap
    while hole > top {
        let parent = (hole - 1) / 2;
        if !less(&v[parent], &value) {
            break;
        }
        v[hole] = v[parent];
        hole = parent;
    }
    v[hole] = value;
}

fn final_insertion_sort<T: Copy, F: Fn(&T, &T) -> bool>(v: &mut [T], less: &F) {
    let n = v.len();
    if n > THRESHOLD {
        insertion_sort(&mut v[..THRESHOLD], less);
        for i in THRESHOLD..n {
            unguarded_linear_insert(v, i, less);
        }
    } else {
        insertion_sort(v, less);
    }
}

fn insertion_sort<T: Copy, F: Fn(&T, &T) -> bool>(v: &mut [T], less: &F) {
    for i in 1..v.len() {
        if less(&v[i], &v[0]) {
            let value = v[i];
            v.copy_within(0..i, 1);
            v[0] = value;
        } else {
            unguarded_linear_insert(v, i, less);
        }
    }
}

/// `__unguarded_linear_insert`; the `last > 0` test never fails on libstdc++'s own
/// invariants (a smaller element sits before), it only keeps bad comparators from
/// indexing out of bounds.
fn unguarded_linear_insert<T: Copy, F: Fn(&T, &T) -> bool>(v: &mut [T], mut last: usize, less: &F) {
    let value = v[last];
    while last > 0 && less(&value, &v[last - 1]) {
        v[last] = v[last - 1];
        last -= 1;
    }
    v[last] = value;
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn sorts_by_key(keys in proptest::collection::vec(0u32..20, 0..300)) {
            let mut v: Vec<(u32, usize)> = keys.iter().copied().zip(0..).collect();
            cxx_sort(&mut v, |a, b| a.0 < b.0);
            let mut sorted = keys.clone();
            sorted.sort_unstable();
            prop_assert_eq!(v.iter().map(|e| e.0).collect::<Vec<_>>(), sorted);
            // A permutation of the input.
            let mut ids: Vec<usize> = v.iter().map(|e| e.1).collect();
            ids.sort_unstable();
            prop_assert_eq!(ids, (0..keys.len()).collect::<Vec<_>>());
        }
    }

    #[test]
    fn short_inputs_are_stable() {
        let mut v: Vec<(u32, usize)> = [3, 1, 3, 1, 2, 3, 1].iter().copied().zip(0..).collect();
        cxx_sort(&mut v, |a, b| a.0 < b.0);
        assert_eq!(
            v,
            vec![(1, 1), (1, 3), (1, 6), (2, 4), (3, 0), (3, 2), (3, 5)]
        );
    }

    #[test]
    fn heap_sort_path_sorts() {
        // Depth limit 0 at once: force the heapsort branch on a reversed input.
        let mut v: Vec<u32> = (0..100).rev().collect();
        heap_sort(&mut v, &|a: &u32, b: &u32| a < b);
        assert_eq!(v, (0..100).collect::<Vec<_>>());
    }
}
