//! Choosing how much of the ranked list fits the token budget (behaviour.md §10.2).

/// The chosen map: its text, its token count, and how many ranked entries it holds.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Fitted {
    /// The rendered map.
    pub(crate) text: String,
    /// Its token count: exact in the default profile, Aider's estimate in the aider profile.
    pub(crate) tokens: f64,
    /// Number of ranked entries rendered (a prefix of the ranked list).
    pub(crate) entries: usize,
}

/// Aider 0.86.2's binary search, with its quirks: it starts at `max_tokens / 25` entries,
/// accepts any map within 15% of the budget (over it too) and stops at the first such, and
/// otherwise keeps the largest map under the budget. `render(n)` renders the first `n`
/// entries; `count` is Aider's token estimate.
pub(crate) fn aider_search(
    num_entries: usize,
    max_tokens: usize,
    mut render: impl FnMut(usize) -> String,
    mut count: impl FnMut(&str) -> f64,
) -> Option<Fitted> {
    let max = max_tokens as f64;
    let mut lower: i64 = 0;
    let mut upper: i64 = num_entries as i64;
    let mut best: Option<Fitted> = None;
    let mut best_tokens = 0.0;
    let mut middle = (max_tokens / 25).min(num_entries) as i64;
    while lower <= upper {
        let n = middle.max(0) as usize;
        let text = render(n);
        let tokens = count(&text);
        let pct_err = (tokens - max).abs() / max;
        if (tokens <= max && tokens > best_tokens) || pct_err < 0.15 {
            best_tokens = tokens;
            best = Some(Fitted {
                text,
                tokens,
                entries: n,
            });
            if pct_err < 0.15 {
                break;
            }
        }
        if tokens < max {
            lower = middle + 1;
        } else {
            upper = middle - 1;
        }
        // Python's `//` floors; both bounds are >= -1 here, so this is floor division.
        middle = (lower + upper).div_euclid(2);
    }
    best
}

/// The default profile's search: the largest prefix whose exact token count is within the
/// budget, never over it. Gallops up from Aider's starting guess (`max_tokens / 25`) so
/// it renders maps near the budget's size only, then bisects. Every accepted map was
/// counted, so the result is within budget even where adding entries does not grow the map
/// monotonically. `None` when not even one entry fits.
pub(crate) fn strict_search(
    num_entries: usize,
    max_tokens: usize,
    mut render: impl FnMut(usize) -> String,
    mut count: impl FnMut(&str) -> usize,
) -> Option<Fitted> {
    if num_entries == 0 || max_tokens == 0 {
        return None;
    }
    let mut best: Option<Fitted> = None;
    let mut try_n = |n: usize, best: &mut Option<Fitted>| -> bool {
        let text = render(n);
        let tokens = count(&text);
        let fits = tokens <= max_tokens && !text.is_empty();
        if fits && best.as_ref().is_none_or(|b| n > b.entries) {
            *best = Some(Fitted {
                text,
                tokens: tokens as f64,
                entries: n,
            });
        }
        fits
    };
    // Invariant: `lo` fits (or is 0), `hi + 1` does not fit (or is past the end).
    let mut lo = 0usize;
    let mut hi = num_entries;
    let mut probe = (max_tokens / 25).clamp(1, num_entries);
    loop {
        if try_n(probe, &mut best) {
            lo = probe;
            if probe == num_entries {
                break;
            }
            probe = (probe * 2).min(num_entries);
        } else {
            hi = probe - 1;
            break;
        }
    }
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if try_n(mid, &mut best) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entry i renders as 10 tokens' worth of words.
    fn render(n: usize) -> String {
        "word ".repeat(10 * n)
    }
    fn count(s: &str) -> usize {
        s.split_whitespace().count()
    }

    #[test]
    fn strict_takes_the_largest_prefix_within_budget() {
        let f = strict_search(1000, 1024, render, count).unwrap();
        assert_eq!((f.entries, f.tokens), (102, 1020.0));
        let f = strict_search(5, 1024, render, count).unwrap();
        assert_eq!(f.entries, 5, "everything fits");
        assert!(
            strict_search(5, 9, render, count).is_none(),
            "not even one entry fits"
        );
        assert!(strict_search(0, 100, render, count).is_none());
        assert!(strict_search(5, 0, render, count).is_none());
    }

    #[test]
    fn strict_is_never_over_budget_even_when_growth_is_not_monotonic() {
        // Entries 3 and 4 shrink the map (as merged gaps can in a real render).
        let wobbly = |n: usize| {
            let tokens = match n {
                0 => 0,
                3 | 4 => 12,
                n => 10 * n,
            };
            "x ".repeat(tokens)
        };
        for budget in 1..200 {
            if let Some(f) = strict_search(20, budget, wobbly, count) {
                assert!(f.tokens <= budget as f64, "budget {budget}: {f:?}");
            }
        }
    }

    #[test]
    fn aider_search_accepts_within_fifteen_percent_over_budget() {
        // 1024 / 25 = 40 entries = 400 tokens: too few; it climbs until within 15%.
        let f = aider_search(1000, 1024, render, |s| count(s) as f64).unwrap();
        assert!((f.tokens - 1024.0).abs() / 1024.0 < 0.15, "{f:?}");
        // A map 10% over the budget is accepted when it is the first one tried.
        let f = aider_search(1, 100, |_| "x ".repeat(110), |s| count(s) as f64).unwrap();
        assert_eq!(f.tokens, 110.0);
    }

    #[test]
    fn aider_search_starts_at_budget_over_25() {
        let mut tried = Vec::new();
        aider_search(
            1000,
            2500,
            |n| {
                tried.push(n);
                render(n)
            },
            |s| count(s) as f64,
        );
        assert_eq!(tried[0], 100);
    }
}
