#!/usr/bin/env python3
"""Score study for issue 21: which evidence, weighted how, ranks copies best on the dev sets?

usage:
    python bench/score_study.py [--datasets irplag,clough] [--salts N] [--eval-root DIR]
                                [--out FILE]

winnowdb ranks pairs by one number today: max(containment_a, containment_b) of one family of
fingerprints (code tokens for code, prose k-grams for text). Issue 21 asks for a `score` built
from several evidence families, weighted by rarity, calibrated with cross-validation. Before any
family is stored in the index, this study measures what each candidate would buy, with nothing
in the product changed:

1. Each evidence family is an index of its own, built with winnowdb's public API over a labelled
   set's docs/ (/work/shared/eval, see its README):
   - ``structure``: the default settings (code files as code tokens, k 12 / w 8; text as prose);
   - ``verbatim``: every file read as prose (k 22 / w 12): identifiers, literals and comments
     kept, case and layout folded. For a text set it is the same index as ``structure``;
   - ``short``: prose with short k-grams (k 8 / w 4), the evidence a paraphrase keeps.
2. For every labelled pair and family, from the index's fingerprints (the default max-df
   applied, as `pairs` does): ``cmax`` max containment (today's ranking), ``cmin``, ``idf`` the
   containment with each fingerprint weighted by log(N / df) (rare evidence counts more),
   ``cov`` the share of each side's fingerprinted characters covered by shared fingerprints
   (the larger side's share; passages, not counts), ``shared``.
3. Candidate scores: every feature alone; blends of two families' ``cmax`` / ``idf``
   (a * X + (1 - a) * Y), with ``a`` chosen by leave-one-group-out cross-validation (groups are
   the tasks: irplag's cases, clough's tasks a-e; the chosen ``a`` maximizes AUC + best F1 on
   the other groups and scores the held-out group); and the plain maximum of two families.
4. Metrics (ROC AUC on annotated rows and on all rows, best F1) with the shared evaluate.py,
   each as mean +- sd over ``--salts`` hash salts (salt 0 is the shipped hash; which k-grams
   winnowing keeps depends on the hash, and on ~100 pairs that moves AUC by ~0.005).

Writes a markdown report (default bench/results/score_study.md). Takes a few minutes.
"""
from __future__ import annotations

import argparse
import csv
import datetime as dt
import math
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))

import machine_info  # noqa: E402
import quality  # noqa: E402  (hash_salt, load_evaluate)

FAMILIES = {  # name -> winnowdb.open options
    "structure": {},
    "verbatim": {"normalizer": "prose"},
    "short": {"normalizer": "prose", "k": 8, "w": 4},
}
FEATURES = ("cmax", "cmin", "idf", "cov", "shared")
BLENDS = (("structure", "verbatim"), ("verbatim", "short"), ("structure", "short"))
LOGISTIC = {  # candidate feature sets of a logistic regression (shared as log1p)
    "cmax, cmin of 3 families": [f"{f}:{x}" for f in FAMILIES for x in ("cmax", "cmin")],
    "cmax, cmin, idf, shared of 3 families": [f"{f}:{x}" for f in FAMILIES for x in ("cmax", "cmin", "idf", "shared")],
    "verbatim + short: cmax, cmin, idf": [f"{f}:{x}" for f in ("verbatim", "short") for x in ("cmax", "cmin", "idf")],
    "structure + verbatim: cmax, cmin, idf": [f"{f}:{x}" for f in ("structure", "verbatim")
                                              for x in ("cmax", "cmin", "idf")],
}
POWERS = (1.0, 1.5, 2.0, 3.0, 4.0, 6.0)
ALPHAS = tuple(round(a, 2) for a in np.linspace(0.0, 1.0, 11))


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def union_length(spans: np.ndarray) -> int:
    """Characters covered by a set of [start, end) spans."""
    if len(spans) == 0:
        return 0
    spans = spans[np.argsort(spans[:, 0], kind="stable")]
    ends = np.maximum.accumulate(spans[:, 1])
    starts = np.maximum(spans[:, 0], np.r_[0, ends[:-1]])
    return int(np.clip(ends - starts, 0, None).sum())


class Family:
    """One index's fingerprints per document (path relative to docs/), df and max-df."""

    def __init__(self, docs_dir: Path, options: dict, tmp: Path, name: str):
        import winnowdb

        db = tmp / f"{name}.duckdb"
        idx = winnowdb.open(str(db), **options)
        try:
            idx.add([str(docs_dir)])
            max_df = idx.stats(top_common=0).get("default_max_df")
            # the stored rows with their spans (the index stores none: fingerprinting the stored
            # texts again gives the same rows, as compare does)
            _, docs = idx.sql("SELECT d.doc, d.path, t.text, d.chars, d.normalizer FROM documents d "
                              "JOIN document_texts t ON t.doc = d.doc WHERE d.kind = 'document' ORDER BY d.doc")
            fps = idx.reader.document_fingerprints([tuple(r) for r in docs])
            path_of = {doc: path for doc, path, *_ in docs}
            cols = (fps[c].tolist() for c in ("doc", "hash", "start_offset", "end_offset"))
            rows = [(path_of[d], h, s, e) for d, h, s, e in zip(*cols)]
        finally:
            idx.close()
        root = str(docs_dir.resolve()) + "/"
        per_doc: dict[str, list] = defaultdict(list)
        for path, h, s, e in rows:
            per_doc[path[len(root):] if path.startswith(root) else path].append((h, s, e))
        self.n = len(per_doc)
        self.df = Counter(h for fp in per_doc.values() for h in {x[0] for x in fp})
        self.max_df = int(max_df) if max_df else max(2, self.n // 4)
        self.docs = {}
        for path, fp in per_doc.items():
            kept = [x for x in fp if self.df[x[0]] <= self.max_df]
            hashes = {x[0] for x in kept}
            self.docs[path] = (hashes, kept, sum(self.weight(h) for h in hashes),
                               union_length(np.array([(s, e) for _, s, e in kept], dtype=np.int64).reshape(-1, 2)))

    def weight(self, h: int) -> float:
        return math.log(self.n / self.df[h]) if self.df[h] else 0.0

    def features(self, a: str, b: str) -> dict[str, float]:
        empty = (set(), [], 0.0, 0)
        ha, fa, wa, ua = self.docs.get(a, empty)
        hb, fb, wb, ub = self.docs.get(b, empty)
        shared = ha & hb
        ca = len(shared) / len(ha) if ha else 0.0
        cb = len(shared) / len(hb) if hb else 0.0
        ws = sum(self.weight(h) for h in shared)
        ia = ws / wa if wa else 0.0
        ib = ws / wb if wb else 0.0
        sa = union_length(np.array([(s, e) for h, s, e in fa if h in shared], dtype=np.int64).reshape(-1, 2))
        sb = union_length(np.array([(s, e) for h, s, e in fb if h in shared], dtype=np.int64).reshape(-1, 2))
        va = sa / ua if ua else 0.0
        vb = sb / ub if ub else 0.0
        return {"cmax": max(ca, cb), "cmin": min(ca, cb), "idf": max(ia, ib), "cov": max(va, vb),
                "shared": float(len(shared))}


def group_of(row: dict) -> str:
    """The task a labelled pair belongs to (the unit of cross-validation)."""
    note = row.get("note", "")
    for part in note.split(";"):
        part = part.strip()
        if part.startswith("task="):
            return part
    return note.split(";")[0].strip() or Path(row["doc_a"]).parts[0]


def metrics(evaluate, y, ann, s) -> tuple[float, float, float]:
    s = np.asarray(s, dtype=float)
    _, _, _, f = evaluate.sweep(s, y)
    return evaluate.auc(s[ann], y[ann]), evaluate.auc(s, y), float(f.max())


def cv_blend(evaluate, y, ann, groups, x, z) -> np.ndarray:
    """Out-of-group scores of a * x + (1 - a) * z, a chosen on the other groups."""
    out = np.zeros(len(y))
    for g in np.unique(groups):
        train = groups != g
        best, best_a = -1.0, 1.0
        for a in ALPHAS:
            s = a * x[train] + (1 - a) * z[train]
            _, auc_all, f1 = metrics(evaluate, y[train], ann[train], s)
            if auc_all + f1 > best:
                best, best_a = auc_all + f1, a
        out[~train] = best_a * x[~train] + (1 - best_a) * z[~train]
    return out


def cv_power_max(evaluate, y, ann, groups, x, z) -> np.ndarray:
    """Out-of-group scores of max(x ** p, z), p chosen on the other groups: x's family is
    deflated (its containments run high on unrelated pairs, e.g. code tokens on solutions to one
    task) before the two families' evidence is pooled by taking the stronger."""
    out = np.zeros(len(y))
    for g in np.unique(groups):
        train = groups != g
        best, best_p = -1.0, 1.0
        for p in POWERS:
            _, auc_all, f1 = metrics(evaluate, y[train], ann[train], np.maximum(x[train] ** p, z[train]))
            if auc_all + f1 > best:
                best, best_p = auc_all + f1, p
        out[~train] = np.maximum(x[~train] ** best_p, z[~train])
    return out


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 50) -> np.ndarray:
    """Weights (bias last) of an L2-regularized logistic regression, by Newton's method."""
    x1 = np.c_[x, np.ones(len(x))]
    w = np.zeros(x1.shape[1])
    reg = np.full(x1.shape[1], l2)
    reg[-1] = 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(x1 @ w)))
        grad = x1.T @ (p - y) + reg * w
        hess = (x1 * (p * (1 - p))[:, None]).T @ x1 + np.diag(reg)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def cv_logistic(y, groups, x: np.ndarray) -> np.ndarray:
    """Out-of-group probabilities of a logistic regression on the columns of x."""
    out = np.zeros(len(y))
    for g in np.unique(groups):
        train = groups != g
        mu, sd = x[train].mean(0), x[train].std(0) + 1e-9
        w = fit_logistic((x[train] - mu) / sd, y[train])
        z = np.c_[(x[~train] - mu) / sd, np.ones((~train).sum())] @ w
        out[~train] = 1 / (1 + np.exp(-z))
    return out


def study(dataset: Path, salt: int, evaluate) -> dict[str, tuple[float, float, float]]:
    truth = list(csv.DictReader(open(dataset / "truth.csv", newline="")))
    y = np.array([int(t["label"]) for t in truth])
    ann = np.array([t["basis"] == "annotated" for t in truth])
    groups = np.array([group_of(t) for t in truth])
    feats: dict[str, np.ndarray] = {}
    with quality.hash_salt(salt), tempfile.TemporaryDirectory(prefix="winnowdb-score-") as tmp:
        for fam, options in FAMILIES.items():
            family = Family(dataset / "docs", options, Path(tmp), fam)
            rows = [family.features(t["doc_a"], t["doc_b"]) for t in truth]
            for f in FEATURES:
                feats[f"{fam}:{f}"] = np.array([r[f] for r in rows])
    out = {name: metrics(evaluate, y, ann, s) for name, s in feats.items()}
    for x, z in BLENDS:
        for f in ("cmax", "idf"):
            a, b = feats[f"{x}:{f}"], feats[f"{z}:{f}"]
            out[f"max({x}, {z}):{f}"] = metrics(evaluate, y, ann, np.maximum(a, b))
            out[f"cv blend({x}, {z}):{f}"] = metrics(evaluate, y, ann, cv_blend(evaluate, y, ann, groups, a, b))
            out[f"cv max({x}^p, {z}):{f}"] = metrics(evaluate, y, ann, cv_power_max(evaluate, y, ann, groups, a, b))
            out[f"cv max({x}, {z}^p):{f}"] = metrics(evaluate, y, ann, cv_power_max(evaluate, y, ann, groups, b, a))
            for p in (2.0, 3.0):
                out[f"max({x}^{p:g}, {z}):{f}"] = metrics(evaluate, y, ann, np.maximum(a ** p, b))
    for label, cols in LOGISTIC.items():
        x = np.column_stack([np.log1p(feats[c]) if c.endswith(":shared") else feats[c] for c in cols])
        out[f"cv logistic({label})"] = metrics(evaluate, y, ann, cv_logistic(y, groups, x))
    return out


def cells(runs: list[dict], key: str) -> list[str]:
    out = []
    for i in range(3):
        v = np.array([r[key][i] for r in runs])
        out.append(f"{v.mean():.3f} +- {v.std():.3f}")
    return out


SWEEP_KEYS = ("structure:cmax", "verbatim:idf", "short:cmax", "short:idf", "short:shared",
              "max(verbatim, short):idf", "cv blend(structure, short):idf", "max(structure^3, short):idf",
              "cv max(structure^p, short):idf", "cv max(verbatim^p, short):idf",
              "cv max(verbatim, short^p):idf", "cv max(verbatim, short^p):cmax")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", default="irplag,clough")
    ap.add_argument("--salts", type=int, default=4)
    ap.add_argument("--short", default="8/4", metavar="K/W[,K/W...]",
                    help="k and w of the short family (default 8/4); with several, the first gets "
                         "the full table and all of them a sweep table")
    ap.add_argument("--eval-root", type=Path, default=quality.DEFAULT_EVAL_ROOT)
    ap.add_argument("--out", type=Path, default=BENCH / "results" / "score_study.md")
    args = ap.parse_args()
    evaluate = quality.load_evaluate(quality.DEFAULT_SHARED_PEERS)
    shorts = [tuple(int(v) for v in kw.split("/")) for kw in args.short.split(",")]
    started = dt.datetime.now(dt.timezone.utc)
    t0 = time.perf_counter()
    datasets = args.datasets.split(",")
    results: dict[tuple, dict[str, list]] = {}
    for short_k, short_w in shorts:
        FAMILIES["short"] = {"normalizer": "prose", "k": short_k, "w": short_w}
        for name in datasets:
            runs = []
            for salt in range(args.salts):
                log(f"short {short_k}/{short_w}, {name}: salt {salt}")
                runs.append(study(args.eval_root / name, salt, evaluate))
            results[(short_k, short_w, name)] = runs
    first_k, first_w = shorts[0]
    lines = [
        "# Score study (issue 21): evidence families and weights on the dev sets",
        "",
        f"{started:%Y-%m-%d %H:%M} UTC, commit {quality.git_revision()}, "
        f"`python bench/score_study.py {' '.join(sys.argv[1:])}`".rstrip(),
        "",
        f"Machine: {machine_info.describe()}",
        "",
        f"Families: `structure` the default settings; `verbatim` every file read as prose (k 22 / w 12); "
        f"`short` prose with k {first_k} / w {first_w} (the sweep below tries others). Features, "
        f"blends and the cross-validation: see the script's docstring. Each cell: mean +- sd over "
        f"{args.salts} hash salts (salt 0 the shipped hash). Rows sorted by mean AUC (all). "
        "Issue 21's goals: irplag AUC (all) >= 0.80 and best F1 >= 0.34; clough AUC >= 0.98 and "
        "best F1 >= 0.93 (the best peer or baseline: irplag 0.720 / 0.319, clough 0.972 / 0.930).",
        "",
    ]
    for name in datasets:
        runs = results[(first_k, first_w, name)]
        lines += [f"## {name} (short k {first_k} / w {first_w})", "",
                  "| score | AUC annotated | AUC all | best F1 |", "|---|---|---|---|"]
        for key in sorted(runs[0], key=lambda k: -np.mean([r[k][1] for r in runs])):
            marker = " (today's ranking)" if key == "structure:cmax" else ""
            lines.append(f"| {key}{marker} | " + " | ".join(cells(runs, key)) + " |")
        lines.append("")
    if len(shorts) > 1:
        lines += ["## The short family's k / w", "",
                  "| dataset | score | " + " | ".join(f"k {k} / w {w}: AUC all, best F1" for k, w in shorts) + " |",
                  "|---|---|" + "---|" * len(shorts)]
        for name in datasets:
            for key in SWEEP_KEYS:
                row = []
                for k, w in shorts:
                    c = cells(results[(k, w, name)], key)
                    row.append(f"{c[1]}, {c[2]}")
                lines.append(f"| {name} | {key} | " + " | ".join(row) + " |")
        lines.append("")
    lines.append(f"Run time: {time.perf_counter() - t0:.0f} s.")
    args.out.write_text("\n".join(lines) + "\n")
    log(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
