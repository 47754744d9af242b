#!/usr/bin/env python3
"""A/B of the stdlib all-vs-all run (``add`` + ``pairs``) between two winnowdb source trees.

usage: python bench/ab_stdlib.py OLD_TREE [NEW_TREE] [--runs 5] [--out FILE]

Each tree is a checkout of this repository (e.g. ``git worktree add /tmp/old <commit>``); NEW_TREE
defaults to this one. Both run in this Python environment (same DuckDB, numpy, ...) with
``PYTHONPATH`` pointing at the tree, alternately (old, new, old, new, ...) so that this machine's
slow and fast phases hit both alike. Per run: a fresh index of the ~1,070 .py files directly in
the standard library and one folder down (as bench/speed.py), `add` wall time and CPU time
(user + system, workers included), then `pairs` (top 50) wall time. Markdown out; peak memory
is measured by bench/speed.py.
"""
from __future__ import annotations

import argparse
import datetime as dt
import glob
import os
import resource
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))


def stdlib_copy(dest: Path) -> int:
    std = sysconfig.get_paths()["stdlib"]
    files = glob.glob(std + "/*.py") + glob.glob(std + "/*/*.py")
    dest.mkdir(parents=True)
    for f in files:
        (dest / os.path.relpath(f, std).replace(os.sep, "__")).write_bytes(Path(f).read_bytes())
    return len(files)


def timed(cmd: list[str], env: dict) -> tuple[float, float]:
    """(wall s, CPU s of the command and its children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    # cwd: not a source tree (``python -m`` puts the working folder first on sys.path)
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   cwd=tempfile.gettempdir())
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new", nargs="?", default=str(REPO))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    trees = {"old": os.path.abspath(args.old), "new": os.path.abspath(args.new)}
    rev = {k: subprocess.run(["git", "-C", v, "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True).stdout.strip() or "?" for k, v in trees.items()}
    results: dict[str, list[tuple]] = {"old": [], "new": []}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        n = stdlib_copy(tmp / "stdlib")
        for _ in range(args.runs):
            for name, tree in trees.items():
                env = dict(os.environ, PYTHONPATH=tree)
                db = tmp / f"{name}.duckdb"
                for f in glob.glob(str(db) + "*"):
                    os.remove(f)
                exe = [sys.executable, "-m", "winnowdb"]
                add = timed(exe + ["add", str(tmp / "stdlib"), "--db", str(db)], env)
                pairs = timed(exe + ["pairs", "--db", str(db)], env)
                results[name].append((add[0], add[1], pairs[0], add[0] + pairs[0]))
    import duckdb
    from machine_info import describe

    lines = [f"# stdlib all-vs-all, A/B ({dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC)", "",
             f"- machine: {describe()}; duckdb {duckdb.__version__}",
             f"- command: `python bench/ab_stdlib.py OLD NEW --runs {args.runs}`; old = {rev['old']}, "
             f"new = {rev['new']}; {n} files, runs alternate old/new", "",
             "| tree | add wall s (mean / min) | add CPU s (mean) | pairs wall s (mean / min) "
             "| add + pairs s (mean / min) |",
             "|---|---|---|---|---|"]
    for name in ("old", "new"):
        def col(i: int, r=results[name]) -> list:
            return [x[i] for x in r]

        lines.append(f"| {name} ({rev[name]}) | {statistics.mean(col(0)):.2f} / {min(col(0)):.2f} | "
                     f"{statistics.mean(col(1)):.2f} | {statistics.mean(col(2)):.2f} / {min(col(2)):.2f} | "
                     f"{statistics.mean(col(3)):.2f} / {min(col(3)):.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
