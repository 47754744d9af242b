#!/usr/bin/env python3
"""Simhash benchmark: the Hamming search in SQL at 1,000,000 documents, and simhash quality.

usage:
    python bench/simhash_bench.py [--n 1000000] [--planted 10000] [--queries 200]
                                  [--sample 2000] [--no-peer] [--out bench/results/simhash.md]

1. Search (Manku, Jain and Das Sarma, WWW 2007, section 3). A real winnowdb index (DuckDB file in
   a temporary directory) holding --n documents: random 64-bit simhashes, --planted of them
   neighbours at distance 1, 2 or 3 of another (a third each). Measured in one run:
   * recall against brute force: every planted pair must be found by `near-dups` (all pairs,
     k = 3); for --sample documents (half of them planted), brute force (numpy, every one of the
     --n simhashes) must find exactly the pairs the SQL found for them; every query's hits must
     equal a brute-force scan;
   * single-query latency (`near_simhash`, the Python API behind `query --simhash`, end to end:
     layout, SQL, fetch) over --queries queries (half near a stored simhash, half random):
     p50, p95, max; next to a plain popcount scan in DuckDB for reference;
   * all-pairs batch time (`near_duplicate_pairs`, behind `near-dups`) with the layout chosen
     automatically and with the paper's other designs, to show the section 3.1.2 trade-off;
   * the `simhash` PyPI package's SimhashIndex (pure Python, k + 1 blocks) on the same data,
     where it is installed (`pip install simhash` in the bench environment; it is not a winnowdb
     dependency): build time, query latency and all-pairs time (all --n documents queried).
2. Quality: how far one changed sentence moves a simhash, by document length, on real English
   (the sample corpus essays, concatenated into longer documents), for the char 4-gram features
   winnowdb uses and for the winnowed fingerprints it used before; unrelated essays for contrast.
3. Simhash throughput at add time (MB/s of text), next to fingerprinting.

Results are written as markdown with the date, machine and command.
"""
from __future__ import annotations

import argparse
import datetime as dt
import re
import shlex
import statistics
import sys
import tempfile
import time
from itertools import combinations
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
try:
    import winnowdb  # noqa: F401
except ImportError:  # run from a checkout without installing
    sys.path.insert(0, str(REPO))

import duckdb  # noqa: E402  (after the sys.path fallback above)
import pyarrow as pa  # noqa: E402

import winnowdb  # noqa: E402
from winnowdb.analysis.near_duplicates import (  # noqa: E402
    choose_layout,
    make_layout,
    near_duplicate_pairs,
    near_simhash,
    online_layout,
)
from winnowdb.fingerprint.simhash import hamming_many  # noqa: E402
from winnowdb.ingest.document import document_simhash  # noqa: E402

U64 = (1 << 64) - 1


def machine() -> str:
    from machine_info import describe

    return f"{describe()}; duckdb {duckdb.__version__}; numpy {np.__version__}"


def signed(v: int) -> int:
    v &= U64
    return v - (1 << 64) if v >= 1 << 63 else v


def ms(seconds: float) -> str:
    return f"{1000 * seconds:.1f} ms" if seconds >= 0.001 else f"{1e6 * seconds:.0f} us"


# ----------------------------------------------------------------------------------- the data
def make_simhashes(n: int, planted: int, seed: int = 2007):
    """n simhashes: random ones, and ``planted`` neighbours (distance 1-3) of earlier ones.

    Returns (simhashes int64, planted pairs as a set of (i, j) with i < j).
    """
    rng = np.random.default_rng(seed)
    x = rng.integers(-2**63, 2**63 - 1, size=n, dtype=np.int64, endpoint=True)
    bases = rng.choice(n - planted, size=planted, replace=False)
    pairs = set()
    for t, base in enumerate(bases.tolist()):
        j = n - planted + t
        v = int(x[base])
        for b in rng.choice(64, size=1 + t % 3, replace=False):
            v ^= 1 << int(b)
        x[j] = signed(v)
        pairs.add((min(base, j), max(base, j)))
    return x, pairs


def build_index(db: Path, simhashes: np.ndarray) -> float:
    """A winnowdb index whose documents carry ``simhashes`` (one Arrow insert); seconds taken."""
    t0 = time.perf_counter()
    n = simhashes.shape[0]
    paths = pa.array([f"/bench/doc{i:07d}.txt" for i in range(n)])
    table = pa.table({"doc": pa.array(np.arange(n, dtype=np.int32)), "path": paths,
                      "simhash": pa.array(simhashes)})
    with winnowdb.open(db) as idx:
        con = idx.store.connection
        con.register("_bench_docs", table)
        con.execute("""
            INSERT INTO documents BY NAME
            SELECT doc, path, path AS submission, CAST(NULL AS VARCHAR) AS label, 'document' AS kind,
                   'text' AS normalizer, path AS content_hash, path AS normalized_hash,
                   'utf-8' AS encoding, CAST(1000 AS BIGINT) AS bytes, CAST(1000 AS BIGINT) AS chars,
                   CAST(800 AS BIGINT) AS units, CAST(100 AS BIGINT) AS fingerprints, simhash,
                   TIMESTAMP '2007-05-08 00:00:00' AS added_at
            FROM _bench_docs""")
        con.unregister("_bench_docs")
    return time.perf_counter() - t0


def brute_force_neighbours(x: np.ndarray, rows: np.ndarray, k: int, chunk: int = 32) -> set[tuple[int, int]]:
    """Every pair (i, j), i < j, within distance k with i or j in ``rows``, comparing each of
    ``rows`` with all of ``x``."""
    out = set()
    for start in range(0, rows.shape[0], chunk):
        r = rows[start:start + chunk]
        d = hamming_many(x[r][:, None], x[None, :])
        ii, jj = np.nonzero(d <= k)
        for a, b in zip(r[ii].tolist(), jj.tolist()):
            if a != b:
                out.add((min(a, b), max(a, b)))
    return out


# ------------------------------------------------------------------------------------- search
def bench_search(args, lines: list[str]) -> None:
    n, planted = args.n, args.planted
    k = 3
    t0 = time.perf_counter()
    x, planted_pairs = make_simhashes(n, planted)
    gen_s = time.perf_counter() - t0
    with tempfile.TemporaryDirectory(prefix="winnowdb-simhash-bench-") as tmp:
        db = Path(tmp) / "bench.duckdb"
        load_s = build_index(db, x)
        size_mb = db.stat().st_size / 2**20
        paths = {f"/bench/doc{i:07d}.txt": i for i in range(n)}
        with winnowdb.open(db, read_only=True) as idx:
            # ---- all pairs, automatic layout
            auto = choose_layout(k, n, batch=True)
            t0 = time.perf_counter()
            rows = near_duplicate_pairs(idx.reader, hamming=k, top=0)
            batch_s = time.perf_counter() - t0
            found = {tuple(sorted((paths[r["a"]], paths[r["b"]]))) for r in rows}
            assert all(r["distance"] <= k for r in rows)
            planted_found = len(planted_pairs & found)
            # ---- brute force for a sample of documents (half planted)
            rng = np.random.default_rng(7)
            half = args.sample // 2
            planted_rows = np.array(sorted({i for p in planted_pairs for i in p}), dtype=np.int64)
            sample = np.unique(np.concatenate([
                rng.choice(planted_rows, size=min(half, planted_rows.size), replace=False),
                rng.choice(n, size=args.sample - half, replace=False)]))
            t0 = time.perf_counter()
            brute = brute_force_neighbours(x, sample, k)
            brute_s = time.perf_counter() - t0
            in_sample = set(sample.tolist())
            sql_for_sample = {p for p in found if p[0] in in_sample or p[1] in in_sample}
            sample_ok = brute == sql_for_sample
            # ---- single queries
            q_rng = np.random.default_rng(11)
            queries = []
            for t in range(args.queries):
                if t % 2 == 0:
                    v = int(x[int(q_rng.integers(n))])
                    for b in q_rng.choice(64, size=int(q_rng.integers(0, k + 1)), replace=False):
                        v ^= 1 << int(b)
                    queries.append(signed(v))
                else:
                    queries.append(int(q_rng.integers(-2**63, 2**63 - 1, endpoint=True)))
            near_simhash(idx.reader, queries[0], hamming=k)  # warm up (first use of the file)
            times, query_ok, hits_total = [], True, 0
            for v in queries:
                t0 = time.perf_counter()
                hits = near_simhash(idx.reader, v, hamming=k)
                times.append(time.perf_counter() - t0)
                expected = set(np.flatnonzero(hamming_many(x, v) <= k).tolist())
                query_ok &= {paths[h["path"]] for h in hits} == expected
                hits_total += len(hits)
            con = idx.store.connection
            scan_times = []
            for v in queries[:50]:
                t0 = time.perf_counter()
                con.execute("SELECT doc FROM documents WHERE bit_count(xor(simhash, $q)) <= 3", {"q": v}).fetchall()
                scan_times.append(time.perf_counter() - t0)
            # ---- the other designs of the paper's Example 3.1
            designs = []
            for levels in [(4,), (5,), (4, 4), (6,)]:
                lay = make_layout(k, levels)
                if lay.levels == auto.levels:
                    designs.append((lay, batch_s, len(rows)))
                    continue
                t0 = time.perf_counter()
                other = near_duplicate_pairs(idx.reader, hamming=k, top=0, layout=lay)
                designs.append((lay, time.perf_counter() - t0, len(other)))
        q_layout = online_layout(k)
        p50, p95 = np.percentile(times, 50), np.percentile(times, 95)

        lines += [
            "## 1. Hamming search in SQL (k = 3)",
            "",
            f"{n:,} documents in a winnowdb index ({size_mb:.0f} MiB DuckDB file): random 64-bit simhashes, "
            f"{planted:,} of them planted neighbours of another at distance 1, 2 or 3 (a third each). "
            f"Generated in {gen_s:.1f} s, loaded in {load_s:.1f} s (one Arrow insert).",
            "",
            "| measure | result |",
            "|---|---|",
            f"| all pairs (`near-dups`), layout chosen: {auto.describe()} "
            f"| **{batch_s:.1f} s**, {len(rows):,} pairs (target <= 60 s) |",
            f"| planted pairs found | **{planted_found:,} / {len(planted_pairs):,}** "
            f"({100 * planted_found / len(planted_pairs):.1f}% recall) |",
            f"| brute force, {sample.size:,} sampled documents x all {n:,} ({brute_s:.0f} s in numpy) "
            f"| {len(brute):,} pairs; SQL pairs for the same documents: {len(sql_for_sample):,}; "
            f"**identical: {sample_ok}** |",
            f"| single query (`query --simhash` API, end to end), {len(queries)} queries, layout: "
            f"{q_layout.describe()} | **p50 {ms(p50)}**, p95 {ms(p95)}, max {ms(max(times))} "
            f"(target p50 <= 50 ms); {hits_total} hits |",
            f"| every query's hits = brute-force scan | **{query_ok}** |",
            f"| for reference: plain popcount scan in DuckDB (`bit_count(xor(simhash, q)) <= 3`, every row) "
            f"| p50 {ms(np.percentile(scan_times, 50))} |",
            "",
            "The section 3.1.2 trade-off, all pairs at this size (same data, same run):",
            "",
            "| layout | tables | bits matched per table | expected chance candidates | time | pairs |",
            "|---|---|---|---|---|---|",
        ]
        for lay, secs, count in designs:
            bits = sorted(set(lay.bits))
            mark = " (chosen)" if lay.levels == auto.levels else ""
            lines.append(f"| {lay.levels}{mark} | {lay.tables} | {bits[0]}-{bits[-1]} | "
                         f"{lay.expected_candidates(n, batch=True):,.0f} | {secs:.1f} s | {count:,} |")
        lines.append("")
        if not args.no_peer:
            bench_peer(x, queries, planted_pairs, lines, k, args)


def bench_peer(x: np.ndarray, queries: list[int], planted_pairs, lines: list[str], k: int, args) -> None:
    try:
        import simhash as simhash_pkg
        from simhash import Simhash, SimhashIndex
    except ImportError:
        lines += ["The `simhash` PyPI package is not installed here (`pip install simhash`), so its "
                  "SimhashIndex was not run.", ""]
        return
    import logging

    logging.getLogger("simhash").setLevel(logging.ERROR)
    version = getattr(simhash_pkg, "__version__", None)
    if version is None:
        try:
            from importlib.metadata import version as _v

            version = _v("simhash")
        except Exception:
            version = "?"
    n = x.shape[0]
    unsigned = (x.astype(np.uint64)).tolist()
    t0 = time.perf_counter()
    objs = [(str(i), Simhash(v, f=64)) for i, v in enumerate(unsigned)]
    index = SimhashIndex(objs, f=64, k=k)
    build_s = time.perf_counter() - t0
    times, ok = [], True
    for v in queries:
        t0 = time.perf_counter()
        got = index.get_near_dups(Simhash(v & U64, f=64))
        times.append(time.perf_counter() - t0)
        ok &= {int(i) for i in got} == set(np.flatnonzero(hamming_many(x, v) <= k).tolist())
    # all pairs: every document queried (as a batch user of SimhashIndex would)
    t0 = time.perf_counter()
    found = set()
    limit = time.perf_counter() + args.peer_batch_limit
    done = 0
    for i, obj in objs:
        for j in index.get_near_dups(obj):
            a, b = int(i), int(j)
            if a != b:
                found.add((min(a, b), max(a, b)))
        done += 1
        if time.perf_counter() > limit:
            break
    batch_s = time.perf_counter() - t0
    complete = done == n
    batch_text = (f"{batch_s:.1f} s; planted pairs found {len(planted_pairs & found):,} / {len(planted_pairs):,}"
                  if complete else
                  f"stopped after {done:,} of {n:,} queries in {batch_s:.0f} s: about "
                  f"{batch_s * n / done:.0f} s for all (extrapolated)")
    lines += [
        f"Peer, same data and queries: the `simhash` PyPI package {version}, SimhashIndex(k={k}) "
        "(pure Python dict of k + 1 = 4 blocks of 16 bits, i.e. the paper's 4-table design):",
        "",
        "| measure | SimhashIndex |",
        "|---|---|",
        f"| build the index ({n:,} Simhash objects) | {build_s:.1f} s |",
        f"| single query, {len(queries)} queries | p50 {ms(np.percentile(times, 50))}, "
        f"p95 {ms(np.percentile(times, 95))} |",
        f"| every query's hits = brute-force scan | {ok} |",
        f"| all pairs (get_near_dups for every document) | {batch_text} |",
        "",
    ]


# ------------------------------------------------------------------------------------ quality
SENTENCE = re.compile(r"(?<=[.!?])\s+")
INDEPENDENT = ["bread_baking", "chess_openings", "coral_reefs", "telegraph", "bees", "comets",
               "glaciers", "tides", "lighthouses", "origami", "printing_press", "volcanoes"]


def old_simhash(text: str, k: int, w: int) -> int:
    """The simhash winnowdb stored before: over the document's winnowed fingerprints."""
    from winnowdb.fingerprint.simhash import simhash64
    from winnowdb.fingerprint.winnow import fingerprint
    from winnowdb.normalize.text import normalize_text

    return simhash64(fingerprint(normalize_text(text), k, w).hash)


def bench_quality(lines: list[str]) -> None:
    essays = [(REPO / "sample_corpus" / "essays" / f"{n}.txt").read_text(encoding="utf-8") for n in INDEPENDENT]
    schemes = {
        "char 4-grams, tf (now)": document_simhash,
        "winnowed fingerprints k=12 w=8 (before, current defaults)": lambda t: old_simhash(t, 12, 8),
        "winnowed fingerprints k=20 w=20 (before, first defaults)": lambda t: old_simhash(t, 20, 20),
    }
    lines += [
        "## 2. Quality: one changed sentence, by document length",
        "",
        "Documents made of 1 to 12 of the sample corpus's independent essays (real English, about 13 "
        "sentences each); in each, every sentence in turn is replaced by a sentence of another essay, "
        "and the Hamming distance between the simhashes of the original and the edited document "
        "is measured. Expected: about 64 * angle / pi bits, where the angle between the two "
        "documents' weighted feature vectors shrinks as the document grows.",
        "",
        "| features | essays per document (sentences) | edits | mean distance | max | within 3 bits |",
        "|---|---|---|---|---|---|",
    ]
    foreign = [s for s in SENTENCE.split((REPO / "sample_corpus" / "essays" / "glaciers_paraphrase.txt")
                                         .read_text(encoding="utf-8")) if len(s) > 40]
    for name, fn in schemes.items():
        for per_doc in (1, 2, 4, 8, 12):
            dists = []
            sentences_total = 0
            docs = [essays[i:i + per_doc] for i in range(0, len(essays) - per_doc + 1, per_doc)]
            for parts in docs:
                text = "\n\n".join(parts)
                sents = SENTENCE.split(text)
                sentences_total += len(sents)
                base = fn(text)
                for i, s in enumerate(sents):
                    if len(s) < 40:
                        continue
                    edited = list(sents)
                    edited[i] = foreign[i % len(foreign)]
                    dists.append(int(hamming_many(np.array([base]), fn(" ".join(edited)))[0]))
            d = np.array(dists)
            lines.append(f"| {name} | {per_doc} ({sentences_total // len(docs)}) | {d.size} | {d.mean():.2f} | "
                         f"{d.max()} | {100 * np.mean(d <= 3):.0f}% |")
    lines += ["", "Unrelated documents (every pair of the 12 independent essays):", "",
              "| features | min distance | mean distance |", "|---|---|---|"]
    for name, fn in schemes.items():
        sims = [fn(t) for t in essays]
        d = [int(hamming_many(np.array([a]), b)[0]) for a, b in combinations(sims, 2)]
        lines.append(f"| {name} | {min(d)} | {statistics.mean(d):.1f} |")
    lines.append("")


def bench_throughput(lines: list[str]) -> None:
    from winnowdb.fingerprint.winnow import fingerprint
    from winnowdb.normalize.text import normalize_text

    text = "\n\n".join((REPO / "sample_corpus" / "essays" / f"{n}.txt").read_text(encoding="utf-8")
                       for n in INDEPENDENT)
    text = (text + "\n") * max(1, (4 << 20) // len(text))  # about 4 MB
    mb = len(text.encode("utf-8")) / 1e6
    norm = normalize_text(text)

    def best(fn, reps=3):
        out = []
        for _ in range(reps):
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
        return min(out)

    t_norm = best(lambda: normalize_text(text))
    t_sim = best(lambda: document_simhash(text, norm))
    t_fp = best(lambda: fingerprint(norm, 12, 8))
    lines += [
        "## 3. Cost at add time",
        "",
        f"On {mb:.1f} MB of English text, one core: normalization {mb / t_norm:.0f} MB/s, "
        f"simhash of the normalized text (every 4-gram hashed, bit votes by byte histograms) "
        f"{mb / t_sim:.0f} MB/s, winnowing k=12 w=8 {mb / t_fp:.0f} MB/s. The text normalizer's "
        "output is reused, so for text the simhash adds only its own step.",
        "",
    ]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000, help="documents (simhashes) in the index")
    ap.add_argument("--planted", type=int, default=10_000, help="planted neighbours at distance 1-3")
    ap.add_argument("--queries", type=int, default=200, help="single queries timed")
    ap.add_argument("--sample", type=int, default=2_000, help="documents checked against brute force")
    ap.add_argument("--no-peer", action="store_true", help="skip the simhash package's SimhashIndex")
    ap.add_argument("--peer-batch-limit", type=float, default=1200.0,
                    help="seconds SimhashIndex may spend on all pairs before extrapolating")
    ap.add_argument("--skip-search", action="store_true", help="only the quality and cost parts")
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "simhash.md"))
    args = ap.parse_args(argv)
    lines = [
        "# winnowdb simhash benchmark",
        "",
        f"- date: {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC",
        f"- machine: {machine()}",
        f"- command: `python bench/simhash_bench.py {shlex.join(argv if argv is not None else sys.argv[1:])}`".rstrip(),
        "- method: Manku, Jain and Das Sarma, *Detecting Near-Duplicates for Web Crawling* (WWW 2007); "
        "details in docs/simhash.md",
        "",
    ]
    t0 = time.perf_counter()
    if not args.skip_search:
        bench_search(args, lines)
    bench_quality(lines)
    bench_throughput(lines)
    lines.append(f"Total benchmark time {time.perf_counter() - t0:.0f} s.")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
