//! PageRank against networkx 3.4.2 (the version Aider 0.86.2 uses).
//!
//! Expected values come from `tests/gen/gen_networkx.py` (run once; no Python at test
//! time), stored in `tests/data/networkx_pagerank.json`. Converged cases must match
//! networkx bit for bit; all cases to 1e-12 relative.

use repo_mapper_rank::pagerank::{PageRankError, PageRankParams, WeightedDigraph, pagerank};
use serde_json::Value;

const DATA: &str = include_str!("data/networkx_pagerank.json");

fn f(v: &Value) -> f64 {
    v.as_str()
        .expect("floats are stored as strings")
        .parse()
        .expect("a float")
}

fn pairs(v: &Value) -> Option<Vec<f64>> {
    v.as_array().map(|items| {
        let n = items
            .iter()
            .map(|p| p[0].as_u64().unwrap() as usize + 1)
            .max()
            .unwrap_or(0);
        let mut out = vec![0.0; n];
        for p in items {
            out[p[0].as_u64().unwrap() as usize] += f(&p[1]);
        }
        out
    })
}

/// splitmix64, as in the generator.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn fnv1a(values: &[f64]) -> String {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for v in values {
        for b in v.to_bits().to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x100_0000_01B3);
        }
    }
    format!("{h:016x}")
}

fn rel_err(a: f64, b: f64) -> f64 {
    if a == b {
        0.0
    } else {
        (a - b).abs() / a.abs().max(b.abs())
    }
}

fn data() -> Value {
    serde_json::from_str(DATA).expect("valid JSON")
}

#[test]
fn explicit_graphs_match_networkx() {
    let data = data();
    let cases = data["cases"].as_array().unwrap();
    let mut checked = 0;
    for case in cases.iter().filter(|c| c.get("edges").is_some()) {
        let name = case["name"].as_str().unwrap();
        let n = case["nodes"].as_u64().unwrap() as usize;
        let edges: Vec<(u32, u32, f64)> = case["edges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e[0].as_u64().unwrap() as u32,
                    e[1].as_u64().unwrap() as u32,
                    f(&e[2]),
                )
            })
            .collect();
        let personalization = pairs(&case["personalization"]);
        let dangling = pairs(&case["dangling"]);
        let params = PageRankParams::new(
            f(&case["alpha"]),
            f(&case["tol"]),
            case["max_iter"].as_u64().unwrap() as usize,
        );
        let graph = WeightedDigraph::from_edges(n, &edges);
        let result = pagerank(
            &graph,
            personalization.as_deref(),
            dangling.as_deref(),
            &params,
        );
        if case["error"].as_str() == Some("ZeroDivisionError") {
            assert_eq!(result, Err(PageRankError::ZeroPersonalization), "{name}");
            checked += 1;
            continue;
        }
        let result = result.unwrap_or_else(|e| panic!("{name}: {e}"));
        let expected: Vec<f64> = case["ranks"].as_array().unwrap().iter().map(f).collect();
        assert_eq!(result.ranks.len(), expected.len(), "{name}");
        let converged = case["converged"].as_bool().unwrap();
        assert_eq!(result.converged, converged, "{name}");
        let worst = result
            .ranks
            .iter()
            .zip(&expected)
            .map(|(&a, &b)| rel_err(a, b))
            .fold(0.0, f64::max);
        assert!(worst <= 1e-12, "{name}: relative error {worst:e}");
        if converged {
            assert_eq!(
                result.ranks, expected,
                "{name}: not bit-identical (worst {worst:e})"
            );
        }
        let sum: f64 = result.ranks.iter().sum();
        assert!((sum - 1.0).abs() < 1e-12, "{name}: ranks sum to {sum}");
        checked += 1;
    }
    assert!(checked >= 12, "only {checked} cases");
}

#[test]
fn generated_graphs_match_networkx() {
    let data = data();
    let weights: Vec<f64> = data["aider_weights"]
        .as_array()
        .unwrap()
        .iter()
        .map(f)
        .collect();
    let cases = data["cases"].as_array().unwrap();
    let mut checked = 0;
    for case in cases.iter().filter(|c| c.get("generator").is_some()) {
        let name = case["name"].as_str().unwrap();
        let g = &case["generator"];
        let n = g["nodes"].as_u64().unwrap() as usize;
        let m = g["edges"].as_u64().unwrap() as usize;
        let mut rng = SplitMix64(g["seed"].as_u64().unwrap());
        let nu = n as u64;
        let edges: Vec<(u32, u32, f64)> = (0..m)
            .map(|_| {
                let u = (rng.next() % nu) as u32;
                let v = (rng.next() % nu) as u32;
                let w = weights[(rng.next() % weights.len() as u64) as usize];
                (u, v, w)
            })
            .collect();
        let mut pers = vec![0.0; n];
        for _ in 0..g["personalized"].as_u64().unwrap() {
            let k = (rng.next() % nu) as usize;
            pers[k] += weights[(rng.next() % weights.len() as u64) as usize];
        }
        let use_pers = g["use_personalization"].as_bool().unwrap();
        let graph = WeightedDigraph::from_edges(n, &edges);
        let p = use_pers.then_some(pers.as_slice());
        let result = pagerank(&graph, p, p, &PageRankParams::default()).unwrap();
        assert!(result.converged, "{name}");
        for s in case["samples"].as_array().unwrap() {
            let i = s[0].as_u64().unwrap() as usize;
            let e = rel_err(result.ranks[i], f(&s[1]));
            assert!(e <= 1e-12, "{name}: node {i} relative error {e:e}");
        }
        assert_eq!(
            fnv1a(&result.ranks),
            case["fnv"].as_str().unwrap(),
            "{name}: not bit-identical"
        );
        checked += 1;
    }
    assert_eq!(checked, 2);
}
