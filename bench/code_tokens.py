#!/usr/bin/env python3
"""Code tokenizer speed (the fast path of ``normalize.code``), A/B between winnowdb source trees.

usage: python bench/code_tokens.py [TREE ...] [--repeat 5] [--rounds 3]

Each TREE is a checkout of this repository (default: this one); every tree runs in its own Python
process (this interpreter, ``PYTHONPATH`` set to the tree), in turn, ``--rounds`` times, so that the
machine's slow and fast phases hit every tree alike; the best round is printed. Each process
tokenizes, one file at a time, on one core:

* Python: the .py files directly in the standard library and one folder down;
* C: the headers directly in /usr/include; C++: /usr/include/c++/*/bits/*.h (when present);
* the other fast languages: the differential test's fixture (tests/normalize/lexer_fixtures),
  repeated to about 1 MB (one file; a tokenizer's speed per file matters less than per MB).

Figures are MB/s of UTF-8 text, the best of ``--repeat`` passes.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "normalize" / "lexer_fixtures"
#: fixture file -> the language winnowdb reads it as
FIXTURE_LANG = {"Library.java": "java", "markdown.js": "javascript", "inventory.ts": "javascript",
                "server.go": "go", "Gradebook.cs": "csharp", "tokenize.rs": "rust", "Scheduler.kt": "kotlin"}


def corpora() -> dict[str, tuple[str, list[str]]]:
    """name -> (language, texts)."""
    def read(files):
        return [open(f, encoding="utf-8", errors="replace").read() for f in sorted(files)]

    std = sysconfig.get_paths()["stdlib"]
    out = {"python (stdlib)": ("python", read(glob.glob(std + "/*.py") + glob.glob(std + "/*/*.py")))}
    headers = read(glob.glob("/usr/include/*.h"))
    if headers:
        out["c (/usr/include/*.h)"] = ("c", headers)
    cpp = read(glob.glob("/usr/include/c++/*/bits/*.h"))
    if cpp:
        out["cpp (c++/*/bits/*.h)"] = ("cpp", cpp)
    for name, lang in FIXTURE_LANG.items():
        text = (FIXTURES / name).read_text(encoding="utf-8")
        out[f"{lang} ({name} x{1_000_000 // len(text) + 1})"] = (lang, [text * (1_000_000 // len(text) + 1)])
    return out


def measure(repeat: int) -> dict[str, dict]:
    """In this process: MB/s of each corpus (the winnowdb imported is the one on sys.path)."""
    from winnowdb.normalize.code import normalize_code

    out = {}
    for name, (lang, texts) in corpora().items():
        mb = sum(len(t.encode("utf-8", "surrogatepass")) for t in texts) / 1e6
        tokens = sum(len(normalize_code(t, lang)) for t in texts)  # warm up, and count
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            for t in texts:
                normalize_code(t, lang)
            best = min(best, time.perf_counter() - t0)
        out[name] = {"files": len(texts), "mb": mb, "tokens": tokens, "mbs": mb / best}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trees", nargs="*", type=Path)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(measure(args.repeat)))
        return
    trees = [t.resolve() for t in args.trees] or [REPO]
    best: dict[Path, dict] = {}
    for _ in range(args.rounds):
        for tree in trees:
            env = dict(os.environ, PYTHONPATH=str(tree), OMP_NUM_THREADS="1")
            run = subprocess.run([sys.executable, __file__, "--child", "--repeat", str(args.repeat)],
                                 env=env, cwd=str(tree), capture_output=True, text=True, check=True)
            for name, r in json.loads(run.stdout).items():
                if name not in best.setdefault(tree, {}) or r["mbs"] > best[tree][name]["mbs"]:
                    best[tree][name] = r
    names = list(best[trees[0]])
    print("| corpus | files | MB | " + " | ".join(f"{t.name}: MB/s (tokens)" for t in trees) + " |")
    print("|---|---|---|" + "---|" * len(trees))
    for name in names:
        first = best[trees[0]][name]
        cells = [f"{best[t][name]['mbs']:.1f} ({best[t][name]['tokens']:,})" if name in best[t] else "-"
                 for t in trees]
        print(f"| {name} | {first['files']} | {first['mb']:.2f} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
