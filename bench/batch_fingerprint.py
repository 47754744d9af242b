#!/usr/bin/env python3
"""Batch fingerprinting benchmark (issue 19): fingerprints + simhash per document vs per batch.

usage: python bench/batch_fingerprint.py [--docs 10000] [--source DIR] [--batches 64,256,1024]
                                         [--blocks 8192,16384,262144,4194304] [--reps 3]
                                         [--no-tuned-malloc] [--out bench/results/batch_fingerprint.md]

The documents are the first --docs .txt files of --source (default /tmp/bench-data/generated10000:
the generated corpus of bench/corpora.py that bench/scale.py uses, Zipf-distributed random words in
documents of ~2.7 KB, built there when missing). They are read and normalized once, before any
timing, as ``winnowdb add`` reads text with the default settings: prose units for the fingerprints
(k=22, w=12, robust winnowing) and text units for the simhash.

Then, in one process (one core), each timed --reps times (best and median kept):
* per document: ``winnow.fingerprint`` + ``simhash.units_simhash`` of each document, the
  per-document path of ingest;
* batched: ``batch.fingerprint_many`` + ``batch.simhash_many`` over batches of each size in
  --batches, and at the largest size with ``batch.BLOCK`` set to each of --blocks;
and each of the two parts alone. MB/s are megabytes (10**6 bytes) of UTF-8 text per second of
CPU time of the process (so per core), with the wall time's figure next to it (the machine may be
shared). Every batched output is checked equal to the per-document one before timing.

The measuring runs in a fresh child process, twice: with glibc's malloc as it comes, and told by
environment variables not to map and unmap big blocks afresh (on a VM every page of a freshly
mapped array faults; numpy's temporaries of more than 128 KB are such arrays until glibc's
dynamic threshold rises, which depends on what the process freed before).
Results are written as markdown with the date, machine, commit and command.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

import numpy as np  # noqa: E402

from winnowdb.fingerprint.batch import fingerprint_many, simhash_many  # noqa: E402
from winnowdb.fingerprint.simhash import units_simhash  # noqa: E402
from winnowdb.fingerprint.winnow import fingerprint  # noqa: E402
from winnowdb.normalize import normalize_as  # noqa: E402
from winnowdb.normalize.text import text_units  # noqa: E402
from winnowdb.settings import IndexSettings  # noqa: E402

K, W = 22, 12  # winnowdb's defaults for text read as prose
DEFAULT_SOURCE = Path("/tmp/bench-data/generated10000")


def load_texts(n: int, source: Path) -> tuple[list[str], str]:
    """(the first ``n`` documents of ``source``, where they came from); ``source`` is built first
    (bench/corpora.py) when it is missing and named generatedN."""
    if not source.is_dir():
        from corpora import ensure_corpus

        ensure_corpus(source.parent, source.name)
    files = sorted(p for p in source.iterdir() if p.suffix == ".txt")[:n]
    return [p.read_text(encoding="utf-8") for p in files], f"the first {len(files)} documents of {source}"


def timed(fn, reps: int) -> tuple[float, float, float]:
    """(best CPU seconds, median CPU seconds, best wall seconds) over ``reps`` runs of ``fn``."""
    cpu, wall = [], []
    for _ in range(reps):
        c0, w0 = time.process_time(), time.perf_counter()
        fn()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return min(cpu), statistics.median(cpu), min(wall)


def commit() -> str:
    try:
        head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--", "winnowdb", "bench"],
                               capture_output=True, text=True, check=True).stdout.strip()
        return head + (" (with uncommitted changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def measure(args) -> dict:
    """The measurements of one process (the child): MB, and per plan the three timings."""
    from winnowdb.fingerprint import batch

    texts, origin = load_texts(args.docs, args.source)
    mb = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    norms = [normalize_as(t, "prose") for t in texts]
    units = [text_units(t) for t in texts]
    del texts
    salt = IndexSettings.salt("prose")
    sizes = [int(b) for b in args.batches.split(",")]
    blocks = [int(b) for b in args.blocks.split(",")] if args.blocks else []
    print(f"{len(norms)} documents, {mb:.1f} MB ({origin})", file=sys.stderr)

    def per_doc_fp():
        for d in norms:
            fingerprint(d, K, W, salt=salt)

    def per_doc_sh():
        for u in units:
            units_simhash(u)

    def batched_fp(b):
        return lambda: [fingerprint_many(norms[i:i + b], K, W, salt) for i in range(0, len(norms), b)]

    def batched_sh(b):
        return lambda: [simhash_many(units[i:i + b]) for i in range(0, len(units), b)]

    # the batched outputs equal the per-document ones (the tests prove it; checked here on this data)
    want_fp = [fingerprint(d, K, W, salt=salt) for d in norms]
    want_sh = [units_simhash(u) for u in units]
    for b in sizes:
        got_fp = [f for i in range(0, len(norms), b) for f in fingerprint_many(norms[i:i + b], K, W, salt)]
        got_sh = [s for i in range(0, len(units), b) for s in simhash_many(units[i:i + b])]
        assert got_sh == want_sh, f"simhash differs at batch size {b}"
        for g, e in zip(got_fp, want_fp):
            assert all(np.array_equal(getattr(g, f), getattr(e, f)) for f in ("hash", "pos", "start", "stop"))
    del want_fp, got_fp

    plans = [("per document", None, per_doc_fp, per_doc_sh)]
    plans += [(f"batches of {b}", batch.BLOCK, batched_fp(b), batched_sh(b)) for b in sizes]
    plans += [(f"batches of {max(sizes)}, blocks of {blk} units", blk, batched_fp(max(sizes)),
               batched_sh(max(sizes))) for blk in blocks]
    rows = []
    default_block = batch.BLOCK
    for label, blk, fp, sh in plans:
        batch.BLOCK = blk or default_block

        def both(fp=fp, sh=sh):
            fp()
            sh()
        t = [timed(f, args.reps) for f in (fp, sh, both)]
        rows.append((label, t))
        print(label, " ".join(f"{mb / x[0]:.1f}" for x in t), "MB/s (CPU)", file=sys.stderr)
    batch.BLOCK = default_block
    return {"mb": mb, "docs": len(norms), "origin": origin, "rows": rows, "block": default_block}


def table(res: dict, reps: int) -> list[str]:
    mb = res["mb"]
    base = res["rows"][0][1][2][0]
    lines = ["| path | fingerprints MB/s | simhash MB/s | fingerprints + simhash MB/s | wall MB/s | speed-up |",
             "|---|---|---|---|---|---|"]
    for label, (fp, sh, both) in res["rows"]:
        lines.append(f"| {label} | {mb / fp[0]:.1f} ({mb / fp[1]:.1f}) | {mb / sh[0]:.1f} ({mb / sh[1]:.1f}) | "
                     f"**{mb / both[0]:.1f}** ({mb / both[1]:.1f}) | {mb / both[2]:.1f} | {base / both[0]:.2f}x |")
    return lines


#: glibc malloc told not to map and unmap big blocks afresh (environment variables read at start)
TUNED_MALLOC = {"MALLOC_MMAP_THRESHOLD_": str(256 << 20), "MALLOC_TRIM_THRESHOLD_": str(1 << 30)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=10_000)
    ap.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    ap.add_argument("--batches", default="64,256,1024")
    ap.add_argument("--blocks", default="8192,16384,262144,4194304",
                    help="batch.BLOCK values also measured, at the largest batch size ('' for none)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--no-tuned-malloc", action="store_true", help="skip the run with malloc tuned")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "batch_fingerprint.md")
    args = ap.parse_args(argv)
    if args.child:
        json.dump(measure(args), sys.stdout)
        return 0
    from machine_info import describe

    argv_list = list(argv if argv is not None else sys.argv[1:])
    runs = [("glibc malloc as it comes", {})]
    if not args.no_tuned_malloc:
        runs.append(("glibc malloc tuned: " + " ".join(f"{k}={v}" for k, v in TUNED_MALLOC.items()), TUNED_MALLOC))
    machine = describe()
    results = []
    for title, env in runs:
        child = [sys.executable, str(Path(__file__).resolve()), "--child"] + [a for a in argv_list if a != "--child"]
        out = subprocess.run(child, env={**os.environ, **env}, stdout=subprocess.PIPE, check=True, text=True)
        results.append((title, json.loads(out.stdout)))
    res0 = results[0][1]
    cmd = ("python bench/batch_fingerprint.py " + shlex.join(argv_list)).strip()
    lines = [
        f"# Batch fingerprinting — {dt.date.today().isoformat()}",
        "",
        f"Machine: {machine}.",
        f"Commit: {commit()}. Command: `{cmd}`.",
        f"Documents: {res0['origin']}: {res0['docs']} documents, {res0['mb']:.1f} MB of UTF-8 text "
        f"(mean {1000 * res0['mb'] / res0['docs']:.2f} KB), normalized once before timing (prose units for the "
        f"fingerprints, k={K} w={W}, robust winnowing; text units for the simhash).",
        "",
        "Per document: `winnow.fingerprint` + `simhash.units_simhash` of each document (the per-document "
        "path of ingest). Batched: `batch.fingerprint_many` + `batch.simhash_many` "
        f"(winnowdb/fingerprint/batch.py) on consecutive batches, each worked through in blocks of "
        f"`batch.BLOCK` = {res0['block']} units unless the row says otherwise. Every batched output was "
        "checked equal to the per-document output first.",
        "",
        f"MB/s of text per CPU second of one process (one core), best of {args.reps} runs, in brackets the "
        "median run's; wall: the best wall-clock figure. Each table is a fresh process.",
    ]
    for title, res in results:
        lines += ["", f"## {title}", ""] + table(res, args.reps)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
