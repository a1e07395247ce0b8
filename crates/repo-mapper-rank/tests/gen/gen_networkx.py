"""Expected PageRank values from networkx, for tests/networkx.rs.

Run with a Python that has networkx 3.4.2, numpy and scipy (the versions aider-chat 0.86.2
installs), from the crate directory:

    python tests/gen/gen_networkx.py > tests/data/networkx_pagerank.json

Each case is a MultiDiGraph whose nodes are 0..n-1, added in that order before any edge
(so networkx's node order is 0..n-1), and whose edges are added in list order. Floats are
written with repr() so they parse back to the same bits. Large cases are described by a
generator (splitmix64, reimplemented in the Rust test) instead of an edge list, and their
ranks by an FNV-1a hash of the f64 bit patterns plus samples.
"""

import json
import math
import random
import sys

import networkx as nx
import numpy as np
import scipy

MASK = (1 << 64) - 1

# Edge weights as Aider makes them: products of 10, 0.1, 50 and sqrt(count).
AIDER_WEIGHTS = []
for mul in (1.0, 10.0, 100.0, 0.1, 1.0 * 10 * 0.1, 10.0 * 10 * 0.1 * 0.1):
    for chat in (False, True):
        for count in (1, 2, 3, 7, 12):
            use_mul = mul * 50 if chat else mul
            AIDER_WEIGHTS.append(use_mul * math.sqrt(count))
AIDER_WEIGHTS.append(0.1)  # self-edge


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)


def fnv1a(values):
    h = 0xCBF29CE484222325
    for v in values:
        bits = np.float64(v).view(np.uint64).item()
        for i in range(8):
            h ^= (bits >> (8 * i)) & 0xFF
            h = (h * 0x100000001B3) & MASK
    return f"{h:016x}"


def generated_graph(seed, n, m, n_pers):
    """The graph the Rust test rebuilds from the same generator."""
    rng = SplitMix64(seed)
    edges = []
    for _ in range(m):
        u = rng.next() % n
        v = rng.next() % n
        w = AIDER_WEIGHTS[rng.next() % len(AIDER_WEIGHTS)]
        edges.append((u, v, w))
    pers = []
    for _ in range(n_pers):
        pers.append((rng.next() % n, AIDER_WEIGHTS[rng.next() % len(AIDER_WEIGHTS)]))
    return edges, pers


def run(n, edges, personalization, dangling, alpha, tol, max_iter):
    G = nx.MultiDiGraph()
    G.add_nodes_from(range(n))
    for u, v, w in edges:
        G.add_edge(u, v, weight=w)
    assert list(G) == list(range(n))
    kwargs = {}
    if personalization is not None:
        kwargs["personalization"] = personalization
    if dangling is not None:
        kwargs["dangling"] = dangling
    try:
        ranks = nx.pagerank(G, alpha=alpha, tol=tol, max_iter=max_iter, weight="weight", **kwargs)
        return {"error": None, "converged": True, "ranks": [ranks[i] for i in range(n)]}
    except ZeroDivisionError:
        return {"error": "ZeroDivisionError", "converged": False, "ranks": None}
    except nx.PowerIterationFailedConvergence:
        # networkx raises; we return the last iterate. Step one iteration at a time
        # (nstart is renormalised each time, so this is close to, not bit-equal with, an
        # uninterrupted run: the Rust test compares it with a tolerance).
        x = {i: 1.0 / n for i in range(n)}
        for _ in range(max_iter):
            x = nx.pagerank(G, alpha=alpha, tol=1e300, max_iter=1, nstart=x, weight="weight", **kwargs)
        return {"error": None, "converged": False, "ranks": [x[i] for i in range(n)]}


def case(name, n, edges, personalization=None, dangling=None, alpha=0.85, tol=1e-6, max_iter=100):
    expect = run(n, edges, personalization, dangling, alpha, tol, max_iter)
    out = {
        "name": name,
        "nodes": n,
        "edges": [[u, v, repr(w)] for u, v, w in edges],
        "personalization": None if personalization is None else [[k, repr(v)] for k, v in personalization.items()],
        "dangling": None if dangling is None else [[k, repr(v)] for k, v in dangling.items()],
        "alpha": repr(alpha),
        "tol": repr(tol),
        "max_iter": max_iter,
        "error": expect["error"],
        "converged": expect["converged"],
        "ranks": None if expect["ranks"] is None else [repr(r) for r in expect["ranks"]],
    }
    return out


def generated_case(name, seed, n, m, n_pers, use_pers):
    edges, pers = generated_graph(seed, n, m, n_pers)
    personalization = None
    if use_pers:
        personalization = {}
        for k, v in pers:
            personalization[k] = personalization.get(k, 0.0) + v
    expect = run(n, edges, personalization, personalization, 0.85, 1e-6, 100)
    ranks = expect["ranks"]
    return {
        "name": name,
        "generator": {"seed": seed, "nodes": n, "edges": m, "personalized": n_pers, "use_personalization": use_pers},
        "error": expect["error"],
        "converged": expect["converged"],
        "fnv": fnv1a(ranks),
        "sum": repr(math.fsum(ranks)),
        "samples": [[i, repr(ranks[i])] for i in range(0, n, max(1, n // 97))],
    }


def random_multigraph(seed, n, m):
    rnd = random.Random(seed)
    edges = []
    hubs = list(range(5))
    for _ in range(m):
        # A few hub rows get long (> 16 entries, where scipy's std::sort is unstable).
        u = rnd.choice(hubs) if rnd.random() < 0.3 else rnd.randrange(n)
        v = rnd.randrange(n) if rnd.random() < 0.7 else rnd.randrange(8)  # parallel edges
        if rnd.random() < 0.05:
            v = u  # self loop
        if rnd.random() < 0.5:
            w = rnd.choice(AIDER_WEIGHTS)
        else:
            w = rnd.random() * 10 ** rnd.randint(-3, 3)
        edges.append((u, v, w))
    # Some nodes never get out-edges: dangling.
    dangling_nodes = set(range(n - 20, n))
    edges = [e for e in edges if e[0] not in dangling_nodes]
    return edges


def main():
    cases = []
    cases.append(case("triangle", 3, [(0, 1, 1.0), (1, 2, 2.0), (2, 0, 3.0)]))
    cases.append(case("star_in", 5, [(1, 0, 1.0), (2, 0, 1.0), (3, 0, 1.0), (4, 0, 1.0), (0, 1, 0.5)]))
    cases.append(case("chain_dangling", 4, [(0, 1, 1.0), (1, 2, 1.0), (2, 3, 1.0)]))
    cases.append(case("isolated_nodes", 4, [(0, 1, 1.0)]))
    cases.append(case(
        "personalized",
        5,
        [(0, 1, 1.0), (1, 2, 1.0), (2, 0, 1.0), (3, 4, 2.0), (4, 3, 0.5), (0, 3, 0.1)],
        personalization={0: 20.0, 3: 5.0, 99: 7.0},
    ))
    cases.append(case(
        "personalized_dangling_aider",
        5,
        [(0, 1, 10.0), (1, 2, 1.0), (0, 2, 50.0 * math.sqrt(3)), (3, 2, 0.1)],
        personalization={0: 25.0, 4: 25.0},
        dangling={0: 25.0, 4: 25.0},
    ))
    cases.append(case(
        "separate_dangling",
        4,
        [(0, 1, 1.0), (1, 2, 1.0)],
        personalization={0: 1.0, 1: 1.0},
        dangling={3: 1.0},
    ))
    cases.append(case(
        "parallel_and_self_loops",
        4,
        [(0, 1, 1.0), (0, 1, 2.5), (0, 0, 0.1), (1, 2, 1.0), (1, 1, 0.1), (1, 2, 10.0),
         (2, 0, 3.0), (2, 2, 0.1), (3, 3, 0.1), (0, 1, 1e-3), (3, 0, 7.0)],
    ))
    cases.append(case("zero_personalization", 3, [(0, 1, 1.0), (1, 2, 1.0)], personalization={7: 1.0}))
    cases.append(case("zero_weights", 3, [(0, 1, 0.0), (1, 2, 1.0), (2, 2, 0.0)]))
    cases.append(case("damping_and_tol", 6, [(i, (i * 2 + 1) % 6, 1.0 + i) for i in range(6)] + [(5, 0, 2.0)],
                      alpha=0.5, tol=1e-10, max_iter=500))
    cases.append(case("not_converged", 6, [(0, 1, 1.0), (1, 2, 1.0), (2, 0, 1.0), (3, 4, 1.0), (4, 5, 9.0)],
                      personalization={0: 1.0}, max_iter=3, tol=1e-12))
    cases.append(case("random_multigraph_200", 200, random_multigraph(20240601, 200, 3000)))
    rnd = random.Random(7)
    pers = {rnd.randrange(200): rnd.choice(AIDER_WEIGHTS) for _ in range(12)}
    cases.append(case("random_multigraph_200_personalized", 200, random_multigraph(7, 200, 2500),
                      personalization=pers, dangling=pers))
    cases.append(generated_case("generated_9000", 42, 9000, 30000, 40, True))
    cases.append(generated_case("generated_9000_uniform", 43, 9000, 30000, 0, False))
    header = {
        "generated_by": "tests/gen/gen_networkx.py",
        "networkx": nx.__version__,
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "aider_weights": [repr(w) for w in AIDER_WEIGHTS],
    }
    out = sys.stdout
    out.write("{\n")
    for key, value in header.items():
        out.write(f" {json.dumps(key)}: {json.dumps(value)},\n")
    out.write(' "cases": [\n')
    out.write(",\n".join("  " + json.dumps(c, separators=(",", ":")) for c in cases))
    out.write("\n ]\n}\n")


if __name__ == "__main__":
    main()
