#!/usr/bin/env python3
"""Builders of the benchmark corpora: deterministic folders of files for bench/ingest.py and
bench/scale.py (and the generator bench/speed.py and bench/query_latency.py use).

usage:
    python bench/corpora.py realtext OUT [--max-kb 16] [--max-parts 8] [--mb LIMIT] [--seed 7]
    python bench/corpora.py stdlib OUT
    python bench/corpora.py generated OUT --docs N [--mb MB] [--seed 7]
    python bench/corpora.py codeclass OUT [--tasks 10] [--students 200] [--seed 11]

Each writes OUT (which must not exist, or be empty) and, beside it, OUT.manifest.tsv or
OUT.copies.csv: what each file is. Same inputs and seed, same bytes.

realtext: real text from files that any Debian-like machine has (so the corpus is what that
machine has; the manifest lists every source, for comparing two machines):
  1. /usr/share/doc/**: every regular file (symbolic links skipped) whose name, after removing
     ``.gz``, is prose: it starts with changelog, news, readme, copyright, todo, authors, thanks,
     credits, history, faq, bugs, notice, contributors, changes, install, hacking, usage, license
     or copying (any case), or ends in .txt .md .rst .org .text .markdown. ``.gz`` files are
     decompressed. Files with a NUL byte or that are not UTF-8 are skipped.
  2. /usr/share/common-licenses/*: each licence once (GPL is a link to GPL-3, ...).
  3. docstrings (read with ``ast``, never imported) of the standard library of the Python that
     runs this script (the ``stdlib`` files below) and of Debian's /usr/lib/python3/dist-packages:
     per module, one document with the module docstring and the docstrings of its top-level
     functions, and one per top-level class with the docstrings of the class and its methods;
     documents under 200 characters, or with a NUL character (a docstring's escapes), are dropped.
  A text seen before (same characters) is skipped. Texts longer than --max-kb thousand
  characters are cut into parts at a paragraph break (else a line break) before that size; at
  most --max-parts parts of one source are kept (the first ones; for a changelog, the latest
  entries). --mb keeps a seeded random choice of the documents within that many MB (default:
  all). On the Debian 12 machine of bench/results/ingest_before.md: 7,269 documents, 50.1 MB.
stdlib: every .py file under the standard library of the Python that runs this script, except
  site-packages/ and the top-level test/ package (idlelib/idle_test and the like stay): 970 files,
  14.4 MB for Python 3.11.7. Written flat, the path's slashes as ``__``.
generated: bench/speed.py's generator, streamed: Zipf-distributed pseudo-words over ``--mb``
  million characters of budget (documents come out ~1.35 times that: ~2.7 KB for the default of
  2,000 characters a document), one document in 20 carries a 3,000-character passage copied from
  a random other document. Byte for byte what the in-memory generator wrote, but document by
  document: 1,000,000 documents (~2.7 GB) need tens of MB of memory. OUT.copies.csv lists
  (document, source) for each planted copy.
codeclass: see bench/codeclass.py (a generated Java programming class).
"""
from __future__ import annotations

import argparse
import ast
import gzip
import hashlib
import os
import random
import re
import sys
import sysconfig
from array import array
from itertools import accumulate
from pathlib import Path

SYLLABLES = ["ka", "lo", "mi", "ra", "te", "su", "no", "vi", "de", "po", "an", "el", "or", "is", "un"]
PROSE_NAME = re.compile(r"(changelog|news|readme|copyright|todo|authors|thanks|credits|history|faq|bugs|"
                        r"notice|contributors|changes|install|hacking|usage|license|copying)", re.IGNORECASE)
PROSE_EXT = {".txt", ".md", ".rst", ".org", ".text", ".markdown"}


# ---------------------------------------------------------------- generated

def doc_name(i: int) -> str:
    return f"doc{i:05d}.txt"


def make_corpus(root: Path, docs: int, total_mb: float, seed: int = 7, copies: Path | None = None) -> int:
    """Zipf-distributed words, ~total_mb MB of budget over ``docs`` files; 5% of the documents carry
    a 3,000-character passage of another. Returns the bytes written. Streams: each document is
    written as it is made, the copies are then pasted in by reading the files back, in the order
    (and with the random draws) of the original in-memory generator, so the output is the same."""
    rng = random.Random(seed)
    vocab = sorted({"".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 4))) for _ in range(30000)})
    # rng.choices(vocab, weights) accumulates the weights on every call: the same sums, once
    cum = list(accumulate(1.0 / (i + 1) for i in range(len(vocab))))
    per_doc = int(total_mb * 1e6 / docs)
    root.mkdir(parents=True, exist_ok=True)
    lengths = array("q")
    for i in range(docs):
        words = rng.choices(vocab, cum_weights=cum, k=per_doc // 6)
        text = "\n".join(" ".join(words[j:j + 12]) + "." for j in range(0, len(words), 12)) + "\n"
        (root / doc_name(i)).write_text(text)
        lengths.append(len(text))
    plan = []
    for i in rng.sample(range(docs), docs // 20):
        j = rng.randrange(docs)
        a = rng.randrange(max(1, lengths[j] - 3000))
        passage = (root / doc_name(j)).read_text()[a:a + 3000]
        text = (root / doc_name(i)).read_text()
        text = text[: len(text) // 2] + passage + text[len(text) // 2:]
        (root / doc_name(i)).write_text(text)
        lengths[i] = len(text)
        plan.append((i, j))
    if copies is not None:
        with open(copies, "w") as fh:
            fh.write("document,source\n")
            fh.writelines(f"{doc_name(i)},{doc_name(j)}\n" for i, j in plan)
    return sum(lengths)  # ASCII: characters are bytes


def read_copies(path: Path) -> list[tuple[str, str]]:
    """(document, source) of each planted copy, from a corpus's OUT.copies.csv."""
    lines = Path(path).read_text().splitlines()[1:]
    return [tuple(line.split(",")) for line in lines]  # type: ignore[misc]


# ---------------------------------------------------------------- stdlib

def stdlib_files() -> list[tuple[str, Path]]:
    """(relative path, file) of the standard library's .py files, site-packages/ and test/ left out."""
    std = Path(sysconfig.get_paths()["stdlib"])
    out = []
    for path in sorted(std.rglob("*.py")):
        rel = path.relative_to(std).as_posix()
        if not rel.startswith(("site-packages/", "dist-packages/", "test/")) and path.is_file():
            out.append((rel, path))
    return out


def build_stdlib(out: Path) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    size = 0
    lines = []
    for rel, path in stdlib_files():
        data = path.read_bytes()
        (out / rel.replace("/", "__")).write_bytes(data)
        size += len(data)
        lines.append(f"{rel.replace('/', '__')}\t{path}\t{len(data)}")
    manifest(out, "file\tsource\tbytes", lines)
    return {"files": len(lines), "bytes": size, "python": sys.version.split()[0]}


# ---------------------------------------------------------------- realtext

def split_text(text: str, max_chars: int) -> list[str]:
    """Parts of at most ``max_chars`` characters, cut at a paragraph break, else a line break."""
    parts = []
    while len(text) > max_chars:
        cut = text.rfind("\n\n", max_chars // 4, max_chars)
        cut = cut + 2 if cut >= 0 else text.rfind("\n", max_chars // 4, max_chars) + 1
        if cut <= 0:
            cut = max_chars
        parts.append(text[:cut])
        text = text[cut:]
    if text.strip():
        parts.append(text)
    return parts


def doc_texts(root: Path = Path("/usr/share/doc")):
    """(name, source, text) of the prose files under /usr/share/doc, decompressed."""
    for dirpath, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            path = Path(dirpath) / name
            gz = name.endswith(".gz")
            base = name[:-3] if gz else name
            if path.is_symlink() or not path.is_file():
                continue
            if not (PROSE_NAME.match(base) or Path(base).suffix.lower() in PROSE_EXT):
                continue
            try:
                if gz:
                    with gzip.open(path) as fh:
                        data = fh.read()
                else:
                    data = path.read_bytes()
                text = data.decode("utf-8")
            except (OSError, EOFError, UnicodeDecodeError):
                continue
            if "\0" not in text:
                yield "doc--" + path.relative_to(root).as_posix()[: -3 if gz else None], str(path), text


def licence_texts(root: Path = Path("/usr/share/common-licenses")):
    seen = set()
    for path in sorted(root.iterdir()) if root.is_dir() else []:
        real = path.resolve()
        if real in seen or not real.is_file():
            continue
        seen.add(real)
        yield "lic--" + path.name, str(path), real.read_text(encoding="utf-8", errors="replace")


def _docstrings(node: ast.AST) -> list[str]:
    out = []
    for n in ast.walk(node):
        if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(n)
            if doc:
                out.append(doc)
    return out


def docstring_texts(min_chars: int = 200):
    """Per module: its docstring and its top-level functions'; per top-level class: its own."""
    sources = [("py--" + rel[:-3], path) for rel, path in stdlib_files()]
    dist = Path("/usr/lib/python3/dist-packages")
    if dist.is_dir():
        sources += [("deb-py--" + p.relative_to(dist).as_posix()[:-3], p) for p in sorted(dist.rglob("*.py"))
                    if p.is_file()]
    for name, path in sources:
        try:
            tree = ast.parse(path.read_bytes())
        except (SyntaxError, ValueError, OSError):
            continue
        module = [ast.get_docstring(tree) or ""]
        groups = []
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                groups.append((f"{name}.{node.name}", "\n\n".join(_docstrings(node))))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                module += _docstrings(node)
        groups.insert(0, (name, "\n\n".join(d for d in module if d)))
        for group, text in groups:
            if len(text) >= min_chars and "\0" not in text:  # chardet's escapes: a binary file
                yield group, str(path), text + "\n"


def safe_name(name: str) -> str:
    name = re.sub(r"[^A-Za-z0-9._+-]+", "_", name.replace("/", "__"))
    if len(name) > 180:
        name = name[:160] + "-" + hashlib.sha1(name.encode()).hexdigest()[:12]
    return name


def build_realtext(out: Path, max_kb: int = 16, max_parts: int = 8, mb: float | None = None,
                   seed: int = 7) -> dict:
    seen: set[bytes] = set()
    docs = []  # (file name, source, part, text)
    skipped = 0
    for kind in (doc_texts(), licence_texts(), docstring_texts()):
        for name, source, text in kind:
            digest = hashlib.sha1(text.encode()).digest()
            if digest in seen:
                skipped += 1
                continue
            seen.add(digest)
            parts = split_text(text, max_kb * 1000)[:max_parts]
            for n, part in enumerate(parts):
                suffix = f".p{n + 1:02d}" if len(parts) > 1 else ""
                docs.append((safe_name(name) + suffix + ".txt", source, n + 1, part))
    if mb is not None:
        order = list(range(len(docs)))
        random.Random(seed).shuffle(order)
        keep, total = set(), 0
        for i in order:
            size = len(docs[i][3].encode())
            if total + size <= mb * 1e6:
                keep.add(i)
                total += size
        docs = [d for i, d in enumerate(docs) if i in keep]
    out.mkdir(parents=True, exist_ok=True)
    size, lines, names, kinds = 0, [], set(), {}
    for name, source, part, text in docs:
        while name in names:
            name = "x" + name
        names.add(name)
        data = text.encode()
        (out / name).write_bytes(data)
        size += len(data)
        lines.append(f"{name}\t{source}\t{part}\t{len(data)}")
        kind = name.split("--")[0]
        kinds[kind] = kinds.get(kind, 0) + 1
    manifest(out, "file\tsource\tpart\tbytes", lines)
    return {"files": len(docs), "bytes": size, "duplicates_skipped": skipped, "by_kind": kinds}


def manifest(out: Path, header: str, lines: list[str]) -> Path:
    """OUT.manifest.tsv beside the corpus (not in it, where `add` would index it)."""
    path = out.parent / (out.name + ".manifest.tsv")
    path.write_text(header + "\n" + "".join(line + "\n" for line in lines))
    return path


# ---------------------------------------------------------------- command line

def build(kind: str, out: Path, **options) -> dict:
    """Build one corpus into ``out``; returns a summary (files, bytes, ...)."""
    if out.exists() and any(out.iterdir()):
        raise SystemExit(f"{out} exists and is not empty")
    if kind == "realtext":
        return build_realtext(out, **options)
    if kind == "stdlib":
        return build_stdlib(out)
    if kind == "generated":
        docs = options["docs"]
        mb = options.get("mb") or docs * 0.002
        size = make_corpus(out, docs, mb, seed=options.get("seed", 7),
                           copies=out.parent / (out.name + ".copies.csv"))
        return {"files": docs, "bytes": size, "budget_mb": mb}
    if kind == "codeclass":
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from codeclass import build_class

        return build_class(out, **options)
    raise SystemExit(f"unknown corpus {kind}")


def ensure_corpus(data: Path, name: str) -> Path:
    """The corpus folder ``data/name``, built when missing: realtext, stdlib, codeclass or
    generatedN (N documents, the default budget)."""
    folder = data / name
    if folder.is_dir() and any(folder.iterdir()):
        return folder
    print(f"building corpus {name} in {folder} ...", file=sys.stderr, flush=True)
    if name.startswith("generated"):
        summary = build("generated", folder, docs=int(name[len("generated"):]))
    else:
        summary = build(name, folder)
    print(f"  {summary}", file=sys.stderr)
    return folder


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 2)[2])
    sub = ap.add_subparsers(dest="kind", required=True)
    p = sub.add_parser("realtext", help="~7,000 real text documents from this machine's files")
    p.add_argument("--max-kb", type=int, default=16, help="cut texts into parts of at most this many "
                   "thousand characters (default 16)")
    p.add_argument("--max-parts", type=int, default=8, help="keep at most this many parts of one text")
    p.add_argument("--mb", type=float, default=None, help="keep a seeded choice within this many MB")
    p.add_argument("--seed", type=int, default=7)
    sub.add_parser("stdlib", help="the standard library's .py files (test/ and site-packages/ left out)")
    p = sub.add_parser("generated", help="generated text documents, one in 20 with a copied passage")
    p.add_argument("--docs", type=int, required=True)
    p.add_argument("--mb", type=float, default=None, help="character budget in millions "
                   "(default docs * 0.002: ~2.7 KB documents)")
    p.add_argument("--seed", type=int, default=7)
    p = sub.add_parser("codeclass", help="a generated Java class: many solutions to the same tasks")
    p.add_argument("--tasks", type=int, default=10)
    p.add_argument("--students", type=int, default=200)
    p.add_argument("--seed", type=int, default=11)
    for p in sub.choices.values():
        p.add_argument("out", type=Path, help="folder to write (must not exist or be empty)")
    args = vars(ap.parse_args())
    kind, out = args.pop("kind"), args.pop("out")
    print(build(kind, out, **args))


if __name__ == "__main__":
    main()
