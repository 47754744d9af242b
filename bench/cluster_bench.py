#!/usr/bin/env python3
"""Clustering speed and recall: 100,000 short generated documents with planted near-duplicate families.

usage:
    python bench/cluster_bench.py [--docs 100000] [--families 3000] [--k 5] [--selection all]
                                  [--min-resemblance 0.5] [--methods exact,super] [--keep DIR]
                                  [--out bench/results/clusters.md]

1. Generates a corpus: short documents (40..160 words drawn from a Zipf-distributed vocabulary of
   50,000 made-up words, so some words and phrases are common) and planted *families*: a base
   document and 1..5 variants, each variant the base with a share of its words substituted,
   inserted or deleted (the share drawn per family, 0..6%, so families range from exact copies to
   loosely related), and now and then a byte-identical copy of a member.
2. Indexes it with Broder's shingling (``normalizer=words``, ``k`` words, ``selection``) through
   the Python API (``winnowdb.open`` + ``add``), timed.
3. Computes each family's exact resemblance: the smallest resemblance of any two of its members,
   from the stored shingle sets.
4. Clusters with ``winnowdb.analysis.clusters.cluster`` (each method in its own subprocess, so its time and
   peak memory -- max RSS of the process, DuckDB included -- are its own; the time is the
   ``cluster()`` call, the stored table and the report included).
5. Counts the families recovered: a family is recovered when its members form one cluster with
   no other document. Reported per band of family resemblance; the target is every family with
   resemblance >= 0.8 recovered, in under 60 s.

The results replace the "cluster-speed" section of the output file (default
bench/results/clusters.md), between its markers.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

DEFAULT_OUT = REPO / "bench" / "results" / "clusters.md"
BANDS = [(0.8, 1.01, ">= 0.8"), (0.6, 0.8, "0.6 - 0.8"), (0.5, 0.6, "0.5 - 0.6"), (0.0, 0.5, "< 0.5")]


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------- corpus
def make_vocab(rng: random.Random, n: int) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    seen: set[str] = set()
    out = []
    while len(out) < n:
        w = "".join(rng.choice(letters) for _ in range(rng.randint(2, 10)))
        if w not in seen:
            seen.add(w)
            out.append(w)
    return out


def generate(root: Path, docs: int, families: int, seed: int) -> dict:
    """Write the corpus under ``root``; returns {family id: [relative paths]} and counts."""
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    vocab = np.array(make_vocab(rng, 50_000))
    cumulative = np.cumsum(1.0 / np.arange(1, vocab.shape[0] + 1))
    cumulative /= cumulative[-1]

    def words(n: int) -> list[str]:  # Zipf: the r-th word has weight 1/r
        return vocab[np.minimum(np.searchsorted(cumulative, nrng.random(n)), vocab.shape[0] - 1)].tolist()

    def variant(base: list[str], share: float) -> list[str]:
        out = list(base)
        for _ in range(int(round(share * len(base)))):
            op = rng.random()
            i = rng.randrange(len(out))
            if op < 0.6:
                out[i] = words(1)[0]
            elif op < 0.8:
                out.insert(i, words(1)[0])
            elif len(out) > 10:
                del out[i]
        return out

    fam: dict[int, list[str]] = {}
    written = 0
    folder = 0

    def write(name: str, text: str) -> str:
        nonlocal written, folder
        if written % 1000 == 0:
            folder = written // 1000
            (root / f"d{folder:03d}").mkdir(parents=True, exist_ok=True)
        rel = f"d{folder:03d}/{name}.txt"
        (root / rel).write_text(text)
        written += 1
        return rel

    for f in range(families):
        base = words(rng.randint(40, 160))
        share = rng.uniform(0.0, 0.06)
        members = [base] + [variant(base, share) for _ in range(rng.randint(1, 5))]
        paths = []
        for j, m in enumerate(members):
            paths.append(write(f"fam{f:05d}_{j}", " ".join(m) + "\n"))
            if rng.random() < 0.1:  # a byte-identical copy of this member
                paths.append(write(f"fam{f:05d}_{j}copy", " ".join(m) + "\n"))
        fam[f] = paths
    background = docs - written
    for i in range(max(0, background)):
        write(f"bg{i:06d}", " ".join(words(rng.randint(40, 160))) + "\n")
    return {"families": fam, "documents": written}  # documents: all written, families included


# ----------------------------------------------------------------------------- worker
def worker(db: str, method: str, min_resemblance: float, out: str) -> None:
    """Run one clustering in this process; print timing and peak memory as JSON."""
    import winnowdb
    from winnowdb.analysis.clusters import cluster

    with winnowdb.open(db, create=False) as idx:
        t0 = time.perf_counter()
        res = cluster(idx.reader, min_resemblance=min_resemblance, method=method)
        seconds = time.perf_counter() - t0
    np.savez(out, doc=res.doc, cluster=res.cluster)
    print(json.dumps({"seconds": seconds, "maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                      "phases": res.seconds, "candidates": res.candidate_pairs, "linked": res.linked_pairs,
                      "clusters": len(res.clusters), "clustered": res.clustered_documents,
                      "representatives": res.representatives, "documents": res.documents}))


# ----------------------------------------------------------------------------- main
def family_resemblance(idx, families: dict[int, list[str]], root: Path) -> dict[int, float]:
    """Smallest exact resemblance between two members of each family (stored shingle sets)."""
    import pyarrow as pa

    ids = dict(idx.store.connection.execute("SELECT path, doc FROM documents").fetchall())
    fam_docs = {f: [ids[str((root / p).resolve())] for p in paths] for f, paths in families.items()}
    all_docs = sorted({d for v in fam_docs.values() for d in v})
    idx.store.connection.register("_fam_docs", pa.table({"doc": pa.array(all_docs, pa.int32())}))
    tbl = idx.store.connection.execute("SELECT DISTINCT f.doc, f.hash FROM fingerprints f "
                                       "JOIN _fam_docs d ON d.doc = f.doc ORDER BY f.doc, f.hash").fetchnumpy()
    idx.store.connection.unregister("_fam_docs")
    doc, h = np.asarray(tbl["doc"]), np.asarray(tbl["hash"])
    bounds = np.flatnonzero(np.concatenate(([True], doc[1:] != doc[:-1], [True])))
    sets = {int(doc[lo]): h[lo:hi] for lo, hi in zip(bounds[:-1], bounds[1:])}
    out = {}
    for f, docs in fam_docs.items():
        worst = 1.0
        for i, a in enumerate(docs):
            for b in docs[i + 1:]:
                x, y = sets.get(a, np.empty(0)), sets.get(b, np.empty(0))
                inter = np.intersect1d(x, y, assume_unique=True).shape[0]
                union = x.shape[0] + y.shape[0] - inter
                worst = min(worst, inter / union if union else 1.0)
        out[f] = worst
    return out, fam_docs


def evaluate(npz: str, fam_docs: dict[int, list[int]], fam_r: dict[int, float]) -> dict:
    data = np.load(npz)
    cluster_of = dict(zip(data["doc"].tolist(), data["cluster"].tolist()))
    sizes: dict[int, int] = {}
    for c in cluster_of.values():
        sizes[c] = sizes.get(c, 0) + 1
    per_band = {label: [0, 0, 0, 0] for _, _, label in BANDS}  # families, recovered, split, merged
    for f, docs in fam_docs.items():
        label = next(lab for lo, hi, lab in BANDS if lo <= fam_r[f] < hi)
        cl = {cluster_of[d] for d in docs}
        row = per_band[label]
        row[0] += 1
        if len(cl) > 1:
            row[2] += 1
        elif sizes[next(iter(cl))] != len(docs):
            row[3] += 1
        else:
            row[1] += 1
    return per_band


def machine() -> str:
    from estimators import machine as m

    return m()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--families", type=int, default=3000)
    ap.add_argument("--k", type=int, default=5, help="shingle length in words (default 5)")
    ap.add_argument("--selection", default="all", help="fingerprint selection: all (default), winnow, mod")
    ap.add_argument("--min-resemblance", type=float, default=0.5)
    ap.add_argument("--methods", default="exact,super")
    ap.add_argument("--seed", type=int, default=1997)
    ap.add_argument("--keep", default=None, help="keep the corpus and index in this folder")
    ap.add_argument("--out", default=str(DEFAULT_OUT))
    ap.add_argument("--worker", nargs=4, metavar=("DB", "METHOD", "MIN_RESEMBLANCE", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        db, method, r, out = args.worker
        worker(db, method, float(r), out)
        return

    import winnowdb

    tmp = tempfile.TemporaryDirectory(prefix="winnowdb-clusters-") if args.keep is None else None
    base = Path(args.keep or tmp.name)
    root = (base / "corpus").resolve()
    db = base / "index.duckdb"
    if db.exists():
        db.unlink()
    if root.exists():
        import shutil

        shutil.rmtree(root)
    t = time.perf_counter()
    gen = generate(root, args.docs, args.families, args.seed)
    t_gen = time.perf_counter() - t
    log(f"generated {gen['documents']} documents ({sum(len(v) for v in gen['families'].values())} in "
        f"{len(gen['families'])} families) in {t_gen:.1f}s")
    t = time.perf_counter()
    with winnowdb.open(db, normalizer="words", selection=args.selection, k=args.k) as idx:
        summary = idx.add([root])
        t_add = time.perf_counter() - t
        log(f"indexed {summary.added} documents, {summary.fingerprints} fingerprints in {t_add:.1f}s")
        fam_r, fam_docs = family_resemblance(idx, gen["families"], root)
    results = {}
    for method in args.methods.split(","):
        npz = str(base / f"clusters_{method}.npz")
        t = time.perf_counter()
        proc = subprocess.run([sys.executable, __file__, "--worker", str(db), method, str(args.min_resemblance), npz],
                              capture_output=True, text=True)
        wall = time.perf_counter() - t
        if proc.returncode != 0:
            raise SystemExit(f"{method} failed:\n{proc.stderr}")
        info = json.loads(proc.stdout.strip().splitlines()[-1])
        info["wall"] = wall
        info["bands"] = evaluate(npz, fam_docs, fam_r)
        results[method] = info
        log(f"{method}: {info['seconds']:.1f}s, {info['maxrss_kib'] / 2**20:.2f} GiB, bands {info['bands']}")

    n_fam_docs = sum(len(v) for v in fam_docs.values())
    lines = [
        "## Clustering speed and recall (bench/cluster_bench.py)",
        "",
        f"- date: {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC",
        f"- machine: {machine()}",
        "- command: `" + " ".join(["python", "bench/cluster_bench.py", *sys.argv[1:]]) + "`",
        f"- corpus: {args.docs} short documents (40..160 words, Zipf vocabulary of 50,000 words), "
        f"{len(fam_docs)} planted families holding {n_fam_docs} of them (2..6 members plus occasional "
        f"byte-identical copies; variants edit 0..6% of the base's words); generated in {t_gen:.1f} s",
        f"- index: `normalizer=words, k={args.k}, selection={args.selection}`; "
        f"{summary.fingerprints} fingerprints; `add` took {t_add:.1f} s",
        f"- clustering: `cluster(idx.reader, min_resemblance={args.min_resemblance}, method=...)`, default max_df, "
        "each method in a fresh process; time = the cluster() call (duplicates, pairs or super shingles, "
        "components, storing the clusters table, the report); memory = the process's max RSS",
        "- a family is *recovered* when its members make up one cluster exactly; *split*: spread over "
        "several clusters; *merged*: in one cluster with other documents. Family resemblance = the "
        "smallest exact resemblance between two of its members.",
        "",
        "| method | time | peak memory | documents -> after folding | candidate pairs | linked pairs | "
        "clusters of 2+ | phases |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for method, info in results.items():
        phases = ", ".join(f"{k} {v:.1f}s" for k, v in info["phases"].items() if k != "total")
        lines.append(f"| {method} | {info['seconds']:.1f} s | {info['maxrss_kib'] / 2**20:.2f} GiB | "
                     f"{info['documents']} -> {info['representatives']} | {info['candidates']} | {info['linked']} | "
                     f"{info['clusters']} | {phases} |")
    lines += ["", "| family resemblance | families | " + " | ".join(
        f"{m} recovered | {m} split | {m} merged" for m in results) + " |",
        "|---|---|" + "---|---|---|" * len(results)]
    for _, _, label in BANDS:
        cells = []
        total = 0
        for info in results.values():
            n, rec, split, merged = info["bands"][label]
            total = n
            cells += [f"{rec} ({100 * rec / n:.1f}%)" if n else "-", str(split), str(merged)]
        lines.append(f"| {label} | {total} | " + " | ".join(cells) + " |")
    verdicts = []
    for m, info in results.items():
        n, rec, _, _ = info["bands"][">= 0.8"]
        ok = rec == n and info["seconds"] < 60
        verdicts.append(f"{m}: {rec}/{n} families >= 0.8 recovered in {info['seconds']:.1f} s "
                        f"({'met' if ok else 'NOT met'})")
    lines += ["", "Target (all families with resemblance >= 0.8 recovered, under 60 s): " + "; ".join(verdicts) + "."]
    lines += ["", "Notes: the exact method links every pair at or above the threshold, so a family whose members "
                  "are each linked to one another through pairs >= the threshold is always recovered; families "
                  "below 0.5 are recovered too when their members are chained through the base document. The "
                  "super-shingle path finds a pair with a probability that falls off below resemblance 0.7 "
                  "(docs/clusters.md has the odds), hence its splits in the lower bands. Here few pairs share "
                  "any shingle (random text), so the exact <ID, ID, count> step is cheap and the super path, "
                  "which sketches every document, is the slower one; it is meant for corpora where the "
                  "pair list explodes (the paper's 30 million web pages), which this bench does not measure. "
                  "Times grow with other load on the machine "
                  "(the load average is given above)."]
    body = "\n".join(lines) + "\n"
    from estimators import replace_section

    replace_section(Path(args.out), "cluster-speed", body, "winnowdb clustering benchmarks")
    print(body)
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
