#!/usr/bin/env python3
"""Estimator accuracy: Broder's MIN_s and MOD_m resemblance estimates against exact shingle
resemblance, next to datasketch's MinHash, on pairs from the sample and evaluation corpora.

usage:
    python bench/estimators.py [--k 4] [--s 25,50,100,200] [--m 4,8,25] [--num-perm 128]
                               [--eval-root /work/shared/eval] [--out bench/results/clusters.md]

For each corpus (sample_corpus/, and every EVAL_ROOT/<name>/docs with a truth.csv):

1. index it with Broder's shingling: ``winnowdb.open(db, normalizer="words", selection="all",
   k=K)`` + ``add`` (every K-word shingle of every document is a stored fingerprint);
2. take the pairs: every labelled pair of truth.csv (copies and non-copies alike), and for the
   sample corpus every pair of its documents;
3. exact resemblance |S(A) n S(B)| / |S(A) u S(B)| from the stored shingle sets;
4. MIN_s estimates from winnowdb's own SQL (``winnowdb.analysis.sketches.pair_estimates``: the s smallest
   shingle hashes per document, the s smallest of their union; no hash excluded);
5. MOD_m estimates |V(A) n V(B)| / |V(A) u V(B)| with V(X) the shingle hashes that are 0 mod m
   (unsigned), which is exactly the set `winnowdb add --selection mod --mod-m m` stores; a pair
   whose two samples are both empty has no estimate and is counted as 0;
6. datasketch MinHash(num_perm=128) estimates over the same shingle hashes (8 bytes each), in
   the same run. datasketch is a bench-only tool, never a winnowdb dependency: install it with
   `pip install datasketch` (the bench says so and skips that column when it is missing).

Reported per estimator: mean absolute error (MAE) against the exact resemblance over all pairs
and over the pairs with exact resemblance >= 0.1 (most unrelated pairs are 0 for every
estimator), the mean signed error (bias), the 95th percentile and maximum error, and the time.
The results replace the "estimators" section of the output file (default
bench/results/clusters.md), between its markers.
"""
from __future__ import annotations

import argparse
import csv
import datetime as dt
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import winnowdb  # noqa: E402
from winnowdb.analysis.sketches import pair_estimates  # noqa: E402

DEFAULT_EVAL_ROOT = Path("/work/shared/eval")
DEFAULT_OUT = REPO / "bench" / "results" / "clusters.md"
NO_CAP = 10**9  # max_df that excludes nothing


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def machine() -> str:
    from machine_info import describe

    return describe()


def replace_section(path: Path, name: str, body: str, title: str) -> None:
    """Write ``body`` between ``<!-- name:start -->`` and ``<!-- name:end -->`` in ``path``."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    block = f"{start}\n{body.rstrip()}\n{end}\n"
    text = path.read_text() if path.exists() else f"# {title}\n\n"
    if start in text and end in text:
        head, rest = text.split(start, 1)
        _, tail = rest.split(end, 1)
        text = head + block + tail.lstrip("\n")
    else:
        text = text.rstrip("\n") + "\n\n" + block
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


# ----------------------------------------------------------------------------- corpora and pairs
def corpora(eval_root: Path) -> list[tuple[str, Path, list[tuple[str, str]]]]:
    """(name, docs folder, pairs of relative paths): the sample corpus (all pairs) and each eval set."""
    out = []
    sample = REPO / "sample_corpus"
    files = sorted(p.relative_to(sample).as_posix() for sub in ("essays", "code")
                   for p in (sample / sub).rglob("*") if p.is_file())
    out.append(("sample_corpus", sample, [(a, b) for i, a in enumerate(files) for b in files[i + 1:]]))
    for folder in sorted(eval_root.glob("*")) if eval_root.is_dir() else []:
        truth = folder / "truth.csv"
        if not (folder / "docs").is_dir() or not truth.exists():
            continue
        with open(truth, newline="") as fh:
            pairs = [(r["doc_a"], r["doc_b"]) for r in csv.DictReader(fh)]
        out.append((folder.name, folder / "docs", pairs))
    return out


def shingle_sets(idx) -> dict[int, np.ndarray]:
    tbl = idx.store.connection.execute("SELECT DISTINCT doc, hash FROM fingerprints ORDER BY doc, hash").fetchnumpy()
    doc, h = np.asarray(tbl["doc"], dtype=np.int64), np.asarray(tbl["hash"], dtype=np.int64)
    bounds = np.flatnonzero(np.concatenate(([True], doc[1:] != doc[:-1], [True])))
    return {int(doc[lo]): h[lo:hi] for lo, hi in zip(bounds[:-1], bounds[1:])}


def jaccard(x: np.ndarray, y: np.ndarray) -> float:
    inter = np.intersect1d(x, y, assume_unique=True).shape[0]
    union = x.shape[0] + y.shape[0] - inter
    return inter / union if union else 0.0


def union_size(x: np.ndarray, y: np.ndarray) -> int:
    return x.shape[0] + y.shape[0] - np.intersect1d(x, y, assume_unique=True).shape[0]


def mod_sample(x: np.ndarray, m: int) -> np.ndarray:
    return x[x.view(np.uint64) % np.uint64(m) == 0]


def datasketch_estimates(sets: dict[int, np.ndarray], pairs, num_perm: int):
    try:
        from datasketch import MinHash
    except ImportError:
        return None, 0.0
    t0 = time.perf_counter()
    needed = sorted({d for p in pairs for d in p})
    sketches = {}
    for d in needed:
        mh = MinHash(num_perm=num_perm, seed=1)
        mh.update_batch([v.tobytes() for v in sets.get(d, np.empty(0, np.int64))])
        sketches[d] = mh
    est = np.array([sketches[a].jaccard(sketches[b]) if len(sets.get(a, ())) + len(sets.get(b, ())) else 0.0
                    for a, b in pairs])
    return est, time.perf_counter() - t0


# ----------------------------------------------------------------------------- main
def errors_row(name: str, est: np.ndarray, exact: np.ndarray, union: np.ndarray, seconds: float) -> list[str]:
    err = est - exact
    ae = np.abs(err)
    related = exact >= 0.1
    big = union > 100
    mae_rel = f"{ae[related].mean():.4f}" if related.any() else "-"
    mae_big = f"{ae[big].mean():.4f}" if big.any() else "-"
    return [name, f"{ae.mean():.4f}", mae_rel, mae_big, f"{err.mean():+.4f}", f"{np.percentile(ae, 95):.4f}",
            f"{ae.max():.4f}", f"{seconds:.2f} s"]


def run(args) -> str:
    s_values = [int(x) for x in args.s.split(",")]
    m_values = [int(x) for x in args.m.split(",")]
    all_exact = []
    all_union = []
    all_est: dict[str, list] = {}
    all_time: dict[str, float] = {}
    sections = []
    have_datasketch = True
    for name, docs, rel_pairs in corpora(Path(args.eval_root)):
        log(f"== {name}: {len(rel_pairs)} pairs")
        with tempfile.TemporaryDirectory(prefix="winnowdb-est-") as tmp:
            t0 = time.perf_counter()
            with winnowdb.open(Path(tmp) / "i.duckdb", normalizer="words", selection="all", k=args.k) as idx:
                sub = [docs / "essays", docs / "code"] if name == "sample_corpus" else [docs]
                idx.add(sub)
                t_index = time.perf_counter() - t0
                ids = {p: d for p, d in idx.store.connection.execute("SELECT path, doc FROM documents").fetchall()}
                pairs = []
                for a, b in rel_pairs:
                    da, db = ids.get(str((docs / a).resolve())), ids.get(str((docs / b).resolve()))
                    if da is not None and db is not None and da != db:
                        pairs.append((min(da, db), max(da, db)))
                pairs = sorted(set(pairs))
                sets = shingle_sets(idx)
                empty = np.empty(0, np.int64)
                exact = np.array([jaccard(sets.get(a, empty), sets.get(b, empty)) for a, b in pairs])
                union = np.array([union_size(sets.get(a, empty), sets.get(b, empty)) for a, b in pairs])
                pa = np.array([p[0] for p in pairs])
                pb = np.array([p[1] for p in pairs])
                est: dict[str, np.ndarray] = {}
                secs: dict[str, float] = {}
                for s in s_values:
                    t = time.perf_counter()
                    r = pair_estimates(idx.reader, pa, pb, s=s, max_df=NO_CAP)
                    got = {(int(x), int(y)): v for x, y, v in zip(r["a"], r["b"], r["resemblance"])}
                    est[f"MIN_{s} (winnowdb SQL)"] = np.array([got[p] for p in pairs])
                    secs[f"MIN_{s} (winnowdb SQL)"] = time.perf_counter() - t
                for m in m_values:
                    t = time.perf_counter()
                    samples = {d: mod_sample(v, m) for d, v in sets.items()}
                    est[f"MOD_{m}"] = np.array([jaccard(samples.get(a, empty), samples.get(b, empty))
                                                for a, b in pairs])
                    secs[f"MOD_{m}"] = time.perf_counter() - t
                ds, t_ds = datasketch_estimates(sets, pairs, args.num_perm)
                if ds is None:
                    have_datasketch = False
                else:
                    est[f"datasketch MinHash({args.num_perm})"] = ds
                    secs[f"datasketch MinHash({args.num_perm})"] = t_ds
        sizes = np.array([len(v) for v in sets.values()])
        rows = [errors_row(k, v, exact, union, secs[k]) for k, v in est.items()]
        sections.append((name, len(pairs), len(sets), sizes, exact, union, rows, t_index))
        all_exact.append(exact)
        all_union.append(union)
        for k, v in est.items():
            all_est.setdefault(k, []).append(v)
            all_time[k] = all_time.get(k, 0.0) + secs[k]

    exact = np.concatenate(all_exact)
    union = np.concatenate(all_union)
    header = "| estimator | MAE (all pairs) | MAE (exact >= 0.1) | MAE (union > 100 shingles) | bias | " \
             "95th pct error | max error | time |\n|---|---|---|---|---|---|---|---|"
    lines = [
        "## Estimator accuracy (bench/estimators.py)",
        "",
        f"- date: {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC",
        f"- machine: {machine()}",
        "- command: `" + " ".join(["python", "bench/estimators.py", *sys.argv[1:]]) + "`",
        f"- shingles: winnowdb `normalizer=words, selection=all, k={args.k}` (every {args.k}-word shingle, "
        "64-bit hashes); exact resemblance from the full shingle sets; no hash excluded",
        "- pairs: every labelled pair of each eval set's truth.csv (copies and non-copies) and every pair of "
        "the sample corpus (essays and code)",
        "- MIN_s: `winnowdb.analysis.sketches.pair_estimates` (sql/sketch_pair_estimates.sql); MOD_m: hashes 0 mod m "
        "(what `--selection mod --mod-m m` stores); datasketch " +
        ("MinHash(num_perm=%d, seed=1) over the same hashes" % args.num_perm if have_datasketch
         else "not installed (`pip install datasketch` to add it)"),
        "",
        f"### All corpora together ({exact.shape[0]} pairs; {(exact >= 0.1).sum()} with exact resemblance >= 0.1; "
        f"{(union > 100).sum()} whose union has more than 100 shingles, where MIN_100 samples)",
        "",
        header,
    ]
    for k, parts in all_est.items():
        lines.append("| " + " | ".join(errors_row(k, np.concatenate(parts), exact, union, all_time[k])) + " |")
    for name, npairs, ndocs, sizes, ex, un, rows, t_index in sections:
        lines += ["", f"### {name}: {npairs} pairs, {ndocs} documents "
                      f"({int(np.median(sizes)) if sizes.size else 0} shingles per document, median; "
                      f"{int(sizes.min()) if sizes.size else 0}..{int(sizes.max()) if sizes.size else 0}); "
                      f"{(ex >= 0.1).sum()} pairs with exact resemblance >= 0.1, {(un > 100).sum()} with a union "
                      f"of more than 100 shingles; indexed in {t_index:.1f} s",
                  "", header]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
    target = [k for k in all_est if k.startswith("MIN_100 ")]
    if target:
        ae = np.abs(np.concatenate(all_est[target[0]]) - exact)
        mae, mae_big = float(ae.mean()), float(ae[union > 100].mean()) if (union > 100).any() else 0.0
        lines += ["", f"Target: MIN_100 mean absolute error <= 0.03: **{mae:.4f}** over all pairs, "
                      f"**{mae_big:.4f}** over the pairs it actually samples (union > 100 shingles) "
                      f"({'met' if max(mae, mae_big) <= 0.03 else 'NOT met'})."]
    lines += ["", "Notes: MIN_s is exact for a pair whose documents have at most s shingles together, so short "
                  "documents estimate perfectly; its error grows with document length, to a standard error of about "
                  "sqrt(r(1-r)/s) for long documents. It beats MinHash(128) here because most pairs have unions "
                  "of a few hundred shingles at most: MIN_s samples s of them *without* replacement, so its error "
                  "shrinks as s nears the union size, while each of MinHash's 128 independent minima is a sample "
                  "*with* replacement. MOD_m keeps about 1/m of every document (it also estimates containment, and its "
                  "sample grows with the document), so on short documents it has few samples and larger errors."]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--k", type=int, default=4, help="shingle length in words (default 4)")
    ap.add_argument("--s", default="25,50,100,200", help="MIN_s sketch sizes (default 25,50,100,200)")
    ap.add_argument("--m", default="4,8,25", help="MOD_m moduli (default 4,8,25)")
    ap.add_argument("--num-perm", type=int, default=128, help="datasketch MinHash permutations (default 128)")
    ap.add_argument("--eval-root", default=str(DEFAULT_EVAL_ROOT))
    ap.add_argument("--out", default=str(DEFAULT_OUT))
    args = ap.parse_args()
    try:
        import datasketch  # noqa: F401
    except ImportError:
        log("datasketch is not installed: its column is skipped (pip install datasketch; bench only)")
    body = run(args)
    replace_section(Path(args.out), "estimators", body, "winnowdb clustering benchmarks")
    print(body)


if __name__ == "__main__":
    main()
