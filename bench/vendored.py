#!/usr/bin/env python3
"""Real vendored code (issue 21): does every vendored module find its true upstream file first?

usage:
    python bench/vendored.py build --out DIR
    python bench/vendored.py check --data DIR [--db PATH] [--out FILE]

pip and setuptools ship copies of other packages in ``_vendor`` folders, with their imports
rewritten (``from pip._vendor.urllib3 import ...``) and now and then a patch, but with the file
layout of the upstream package. That makes a labelled set of real copies, with real
near-duplicate distractors: older releases of the same files.

``build`` (needs PyPI once; every wheel is cached under DIR/wheels, so a re-run is offline):

1. downloads the pinned host wheels (HOSTS below) and reads which packages each one vendors, at
   which exact version: pip's ``pip/_vendor/vendor.txt``, setuptools' ``*.dist-info`` folders
   under ``setuptools/_vendor/``;
2. downloads each vendored package's wheel at that exact version -- the true source -- and up to
   DISTRACTORS other releases of it (the nearest older releases whose files differ from the true
   one; newer ones if there are not enough), all with ``pip download --no-deps --only-binary
   :all:`` restricted to pure-Python wheels (``--platform any --implementation py --abi none``, so
   the same wheels are picked on any machine). A package with no pure-Python wheel (msgpack) is
   skipped, with the reason logged;
3. matches every vendored ``.py`` file to the file at the same path in the true wheel (the module
   path relative to the package root: vendoring keeps it); files with no counterpart (pip's own
   ``_vendor/__init__.py``, the skipped packages) and empty or whitespace-only files (they have
   no fingerprints, so no tool can match them) are left out and counted;
4. writes, extracting only ``.py`` files (and of each upstream wheel only the top-level packages
   the hosts vendor from it: pip takes ``pkg_resources`` from setuptools, not ``setuptools/``;
   and without the upstream's own vendor folders, such as setuptools 70's
   ``pkg_resources/_vendor`` or wheel 0.45's ``wheel/vendored``: those are copies of other
   packages, equal sources of a vendored file rather than distractors):

   - ``DIR/docs/vendored/<host>-<hostver>/<path under _vendor>``
   - ``DIR/docs/upstream/<dist>-<version>/<path inside the wheel>``, every downloaded version
   - ``DIR/truth.csv`` (/work/shared/eval/README.md format ``doc_a,doc_b,label,grade,basis,note``):
     true upstream file -> vendored file, label 1, grade ``vendored``, basis ``annotated``; and the
     same module path in each distractor release -> vendored file, label 0, grade
     ``other-version``, basis ``closed_world``. Those label-0 rows are near-copies by nature (an
     older release of the very same file, sometimes byte-identical to the true one, which the
     note then says): a score that ranks them below the true source is doing well, but they are
     not independent work, so use them for ranking, not for a copy/not-copy threshold;
   - ``DIR/vendored.json``: per vendored file its true upstream path and its candidates (the same
     module path in every downloaded release of its package), plus the packages, versions and
     skip reasons; ``DIR/manifest.json``: counts and provenance (wheel names and sha256).

``check`` indexes DIR/docs twice with the CLI, default settings (``winnowdb add DIR/docs``, every
file its own submission) and ``--normalizer text`` (letters and digits only, as in the Winnowing
paper), lists every pair (``winnowdb pairs --top 0 --min-shared 1 --format csv``) and, for each
vendored file, ranks the upstream files of all packages and versions by each score column:
``containment_max`` = max(containment_a, containment_b), ``resemblance``, ``shared``, and
``score`` once ``pairs`` has such a column (used automatically). Per score it counts the vendored
files whose true upstream file is first alone, first but tied, not first (rank and what beat it,
up to 20 listed), or in no pair with its vendored copy at all; and writes a markdown report
(default bench/results/vendored.md). Ties are read with ``winnowdb duplicates``: a tie only with
files whose fingerprint set equals the true file's (byte-identical or token-identical releases)
cannot be broken by any score, and is counted apart.

winnowdb is run as the ``winnowdb`` command of the environment this Python runs in (next to
sys.executable, else on PATH). The third-party files are never committed: this script is the
dataset.
"""
from __future__ import annotations

import argparse
import collections
import csv
import datetime as dt
import email.parser
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "bench" / "results" / "vendored.md"

# The hosts, pinned so the dataset is reproducible (the newest releases when this was written).
HOSTS = [("pip", "26.3"), ("setuptools", "84.2.1")]
DISTRACTORS = 2  # other releases per vendored package
MAX_TRIES = 8  # releases tried per package to find DISTRACTORS that differ from the true one
# pure-Python wheels only, chosen the same on every machine
PURE = ["--platform", "any", "--implementation", "py", "--abi", "none", "--python-version", "3.12"]
MAX_FAILURES = 20  # failures listed per score in the report
SMALL = 4  # "small" upstream files, in fingerprints, when a failure is read
# folders where an upstream wheel keeps its own copies of other packages (setuptools 70's
# pkg_resources/_vendor, wheel 0.45's wheel/vendored): left out of the upstream documents
NESTED_VENDOR = {"_vendor", "vendored", "_vendored"}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def canonical(name: str) -> str:
    """PEP 503 normalized project name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def is_blank(data: bytes) -> bool:
    return not data.strip()


# ----------------------------------------------------------------------------- wheel cache

class WheelCache:
    """Wheels and release lists under DIR/wheels, with an index so re-runs need no network."""

    def __init__(self, root: Path):
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.index_path = root / "index.json"
        self.index = json.loads(self.index_path.read_text()) if self.index_path.exists() else {}
        self.index.setdefault("wheels", {})
        self.index.setdefault("versions", {})
        self.downloads = 0

    def save(self) -> None:
        self.index_path.write_text(json.dumps(self.index, indent=1, sort_keys=True) + "\n")

    def wheel(self, name: str, version: str) -> tuple[Path | None, str]:
        """The pure-Python wheel of name==version, or (None, why not)."""
        key = f"{canonical(name)}=={version}"
        hit = self.index["wheels"].get(key)
        if hit is not None:
            if hit.get("file") and (self.root / hit["file"]).exists():
                return self.root / hit["file"], ""
            if hit.get("error"):
                return None, hit["error"]
        with tempfile.TemporaryDirectory(dir=self.root) as tmp:
            cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
                   *PURE, "--disable-pip-version-check", "-q", f"{name}=={version}", "-d", tmp]
            self.downloads += 1
            r = subprocess.run(cmd, capture_output=True, text=True)
            got = sorted(Path(tmp).glob("*.whl"))
            if r.returncode != 0 or not got:
                known = self.versions(name)
                if known and version not in known:
                    why = f"release {version} not on the index (newest there: {known[0]})"
                else:
                    why = "no pure-Python (py3-none-any) wheel on the index"
                self.index["wheels"][key] = {"error": why}
                self.save()
                return None, why
            dest = self.root / got[0].name
            shutil.move(str(got[0]), dest)
        self.index["wheels"][key] = {"file": dest.name}
        self.save()
        return dest, ""

    def versions(self, name: str) -> list[str]:
        """Releases of name, newest first (pip's order; pre-releases left out), cached."""
        key = canonical(name)
        if key not in self.index["versions"]:
            r = subprocess.run([sys.executable, "-m", "pip", "index", "versions", name, "--json",
                                "--disable-pip-version-check"], capture_output=True, text=True)
            try:
                self.index["versions"][key] = json.loads(r.stdout)["versions"]
            except (ValueError, KeyError):
                if "no such option: --json" in r.stderr:  # the set would lack every distractor release
                    raise SystemExit("this pip has no `pip index versions --json` (pip 23.2 has none): "
                                     f"upgrade it first ({sys.executable} -m pip install -U pip)") from None
                log(f"  pip index versions {name} failed: {r.stderr.strip()[-200:]}")
                return []
            self.save()
        return self.index["versions"][key]


def py_files(wheel: Path) -> dict[str, bytes]:
    """The .py files of a wheel, by path inside it."""
    with zipfile.ZipFile(wheel) as z:
        return {n: z.read(n) for n in z.namelist() if n.endswith(".py") and not n.endswith("/")}


def top_level(path: str) -> str:
    return path.split("/", 1)[0]


def nested_vendor(path: str) -> bool:
    """A file in an upstream package's own vendor folder (a copy of some other package)."""
    return any(part in NESTED_VENDOR for part in path.split("/")[:-1])


def keep_upstream(path: str, tops: set[str]) -> bool:
    return top_level(path) in tops and not nested_vendor(path)


# ----------------------------------------------------------------------------- build

def vendored_dists(host: str, wheel: Path) -> tuple[dict[str, str], dict[str, bytes], dict]:
    """The host's vendored (name -> version), its .py files under _vendor, and their RECORD owners."""
    prefix = f"{host}/_vendor/"
    dists: dict[str, str] = {}
    owners: dict[str, set[str]] = collections.defaultdict(set)
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        if prefix + "vendor.txt" in names:
            for line in z.read(prefix + "vendor.txt").decode().splitlines():
                m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9_.-]*)==([^\s#;]+)", line)
                if m:
                    dists[m.group(1)] = m.group(2)
        for n in names:
            m = re.fullmatch(re.escape(prefix) + r"([^/]+\.dist-info)/METADATA", n)
            if m:
                meta = email.parser.BytesParser().parsebytes(z.read(n))
                dists[meta["Name"]] = meta["Version"]
                record = prefix + m.group(1) + "/RECORD"
                if record in names:
                    for row in csv.reader(z.read(record).decode().splitlines()):
                        if row and row[0].endswith(".py"):
                            owners[row[0]].add(meta["Name"])
        files = {n[len(prefix):]: z.read(n) for n in names
                 if n.startswith(prefix) and n.endswith(".py")}
    return dists, files, owners


def pick_distractors(cache: WheelCache, name: str, true_version: str, tops: set[str],
                     true_files: dict[str, bytes]) -> tuple[list[tuple[str, Path]], list[str]]:
    """Up to DISTRACTORS other releases whose vendored top-level files differ from the true ones."""
    versions = cache.versions(name)
    if true_version in versions:
        i = versions.index(true_version)
        order = versions[i + 1:] + versions[:i][::-1]  # nearest older first, then nearest newer
    else:
        order = [v for v in versions if v != true_version]
    want = {p: d for p, d in true_files.items() if keep_upstream(p, tops)}
    chosen: list[tuple[str, Path]] = []
    notes = []
    for v in order[:MAX_TRIES]:
        if len(chosen) >= DISTRACTORS:
            break
        whl, why = cache.wheel(name, v)
        if whl is None:
            notes.append(f"{v}: {why}")
            continue
        have = {p: d for p, d in py_files(whl).items() if keep_upstream(p, tops)}
        if have == want:
            notes.append(f"{v}: same files as {true_version}")
            continue
        chosen.append((v, whl))
    return chosen, notes


def build(out: Path) -> int:
    t0 = time.time()
    out.mkdir(parents=True, exist_ok=True)
    cache = WheelCache(out / "wheels")
    docs = out / "docs"
    if docs.exists():
        shutil.rmtree(docs)
    upstream: dict[tuple[str, str], dict] = {}  # (canonical name, version) -> info
    packages: list[dict] = []
    files_out: list[dict] = []
    skipped: dict[str, list[str]] = collections.defaultdict(list)
    hosts_info = []
    vendored_docs: dict[str, bytes] = {}

    def get_upstream(name: str, version: str) -> dict | None:
        key = (canonical(name), version)
        if key not in upstream:
            whl, why = cache.wheel(name, version)
            upstream[key] = {"name": canonical(name), "version": version, "wheel": whl, "why": why,
                             "files": py_files(whl) if whl else {}, "tops": set()}
        return upstream[key] if upstream[key]["wheel"] else None

    for host, hostver in HOSTS:
        log(f"host {host} {hostver}")
        hwhl, why = cache.wheel(host, hostver)
        if hwhl is None:
            log(f"  cannot download {host}=={hostver}: {why}")
            return 1
        dists, vfiles, owners = vendored_dists(host, hwhl)
        hosts_info.append({"host": host, "version": hostver, "wheel": hwhl.name,
                           "sha256": sha256(hwhl), "vendored": dists, "py_files": len(vfiles)})
        log(f"  vendors {len(dists)} packages, {len(vfiles)} .py files")
        by_path: dict[str, list[str]] = collections.defaultdict(list)
        for name, version in sorted(dists.items()):
            info = get_upstream(name, version)
            if info is None:
                why = upstream[(canonical(name), version)]["why"]
                log(f"  skip {name} {version}: {why}")
                packages.append({"host": f"{host}-{hostver}", "name": canonical(name),
                                 "version": version, "skipped": why})
                continue
            for p in info["files"]:
                if not nested_vendor(p):
                    by_path[p].append(name)
        matched: dict[str, list[str]] = collections.defaultdict(list)  # dist -> vendored paths
        for rel, data in sorted(vfiles.items()):
            doc = f"vendored/{host}-{hostver}/{rel}"
            if is_blank(data):
                skipped["empty or whitespace-only (no fingerprints: no tool can match them)"].append(doc)
                continue
            cands = by_path.get(rel, [])
            if len(cands) > 1:
                cands = [c for c in cands if c in owners.get(rel, ())] or cands
            if not cands:
                skipped["no upstream counterpart (no file at that path in a downloaded wheel)"].append(doc)
                continue
            if len(cands) > 1:
                skipped["ambiguous: the path is in several vendored packages"].append(doc)
                continue
            matched[cands[0]].append(rel)
            vendored_docs[doc] = data
            files_out.append({"vendored": doc, "host": f"{host}-{hostver}", "module": rel,
                              "package": canonical(cands[0]), "version": dists[cands[0]]})
        for name, rels in sorted(matched.items()):
            info = get_upstream(name, dists[name])
            tops = {top_level(r) for r in rels}
            info["tops"] |= tops
            chosen, notes = pick_distractors(cache, name, dists[name], tops, info["files"])
            for v, _whl in chosen:
                get_upstream(name, v)["tops"] |= tops
            log(f"  {name} {dists[name]}: {len(rels)} files; distractors "
                f"{', '.join(v for v, _ in chosen) or 'none'}" + (f" ({'; '.join(notes)})" if notes else ""))
            packages.append({"host": f"{host}-{hostver}", "name": canonical(name),
                             "version": dists[name], "vendored_files": len(rels),
                             "top_level": sorted(tops), "distractors": [v for v, _ in chosen],
                             "distractor_notes": notes})

    # write the documents
    for doc, data in vendored_docs.items():
        (docs / doc).parent.mkdir(parents=True, exist_ok=True)
        (docs / doc).write_bytes(data)
    n_upstream = 0
    nested: collections.Counter = collections.Counter()
    for info in upstream.values():
        if not info["wheel"] or not info["tops"]:
            continue
        for p, data in info["files"].items():
            if top_level(p) in info["tops"] and nested_vendor(p):
                nested[f"{info['name']}-{info['version']}"] += 1
            elif top_level(p) in info["tops"]:
                dest = docs / "upstream" / f"{info['name']}-{info['version']}" / p
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(data)
                n_upstream += 1

    # truth and candidates
    versions_of = {(p["host"], p["name"]): [p["version"], *p["distractors"]]
                   for p in packages if "skipped" not in p}
    rows = []
    for f in files_out:
        vers = versions_of[(f["host"], f["package"])]
        true_doc = f"upstream/{f['package']}-{f['version']}/{f['module']}"
        true_data = upstream[(f["package"], f["version"])]["files"][f["module"]]
        f["true"] = true_doc
        f["vendored_identical"] = vendored_docs[f["vendored"]] == true_data
        f["candidates"] = [true_doc]
        f["identical_to_true"] = []
        rows.append([true_doc, f["vendored"], 1, "vendored", "annotated",
                     f"{f['host']} vendors {f['package']} {f['version']}"])
        for v in vers[1:]:
            data = upstream[(f["package"], v)]["files"].get(f["module"])
            if data is None:
                continue
            doc = f"upstream/{f['package']}-{v}/{f['module']}"
            f["candidates"].append(doc)
            same = data == true_data
            if same:
                f["identical_to_true"].append(doc)
            rows.append([doc, f["vendored"], 0, "other-version", "closed_world",
                         f"the same module in {f['package']} {v}: a near-copy by nature"
                         + ("; byte-identical to the true source" if same else "")])
    with open(out / "truth.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["doc_a", "doc_b", "label", "grade", "basis", "note"])
        w.writerows(rows)
    skipped_out = {k: sorted(v) for k, v in skipped.items()}
    (out / "vendored.json").write_text(json.dumps(
        {"hosts": hosts_info, "packages": packages, "files": files_out, "skipped": skipped_out,
         "nested_vendor_left_out": dict(sorted(nested.items()))},
        indent=1) + "\n")
    wheels = sorted({(i["wheel"].name, sha256(i["wheel"])) for i in upstream.values()
                     if i["wheel"] and i["tops"]})
    manifest = {
        "name": "vendored",
        "what": "pip and setuptools _vendor modules and their upstream files (true release and "
                f"up to {DISTRACTORS} other releases per package), .py files from PyPI wheels",
        "built_by": "bench/vendored.py build",
        "built_at": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "hosts": {h["host"]: h["version"] for h in hosts_info},
        "counts": {"vendored_docs": len(vendored_docs), "upstream_docs": n_upstream,
                   "truth_rows": len(rows), "label_1": sum(r[2] == 1 for r in rows),
                   "label_0": sum(r[2] == 0 for r in rows),
                   "upstream_nested_vendor_files_left_out": sum(nested.values()),
                   "skipped_vendored_files": {k: len(v) for k, v in skipped_out.items()}},
        "wheels": [{"file": n, "sha256": s} for n, s in wheels],
        "licence": "each file under its own package's licence (see the wheels); built locally, "
                   "not redistributed",
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    if nested:
        log("left out of the upstream documents, files in the upstream's own vendor folders: "
            + ", ".join(f"{k} ({v})" for k, v in sorted(nested.items())))
    log(f"vendored files kept: {len(vendored_docs)}; upstream files: {n_upstream}; "
        f"truth rows: {len(rows)} ({manifest['counts']['label_1']} copies)")
    for why, docs_ in skipped_out.items():
        groups = collections.Counter("/".join(d.split("/")[1:3]) for d in docs_)
        log(f"skipped {len(docs_)} vendored files, {why}: "
            + ", ".join(f"{g} ({n})" for g, n in sorted(groups.items())))
    log(f"built {out} in {time.time() - t0:.1f} s ({cache.downloads} pip calls)")
    return 0


# ----------------------------------------------------------------------------- check

def winnowdb_cmd() -> str:
    here = Path(sys.executable).parent / "winnowdb"
    return str(here) if here.exists() else (shutil.which("winnowdb") or "winnowdb")


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise SystemExit(f"failed ({r.returncode}): {shlex.join(cmd)}\n{r.stderr}")
    return r


def index_and_pairs(docs: Path, db: Path, extra: list[str]) -> dict:
    wdb = winnowdb_cmd()
    t = time.time()
    add = run([wdb, "add", str(docs), "--db", str(db), *extra])
    t_add = time.time() - t
    stats = json.loads(run([wdb, "stats", "--format", "json", "--db", str(db)]).stdout)
    root = str(docs.resolve()) + os.sep

    def rel(path: str) -> str:
        return path[len(root):] if path.startswith(root) else path

    # documents with the same fingerprint set (winnowdb duplicates: identical, lexical and
    # fingerprint groups, each kind containing the one before): no score can tell them apart
    t = time.time()
    dup = run([wdb, "duplicates", "--format", "csv", "--db", str(db)]).stdout
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    groups: dict[tuple[str, str], list[str]] = collections.defaultdict(list)
    for row in csv.DictReader(dup.splitlines()):
        groups[(row["level"], row["group"])].append(rel(row["path"]))
    for members in groups.values():
        for m in members[1:]:
            parent[find(m)] = find(members[0])
    same_fp = {x: find(x) for x in parent}
    t_dup = time.time() - t
    t = time.time()
    with tempfile.TemporaryFile("w+", newline="") as fh:
        r = subprocess.run([wdb, "pairs", "--top", "0", "--min-shared", "1", "--format", "csv",
                            "--db", str(db)], stdout=fh, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            raise SystemExit(f"winnowdb pairs failed: {r.stderr}")
        t_pairs = time.time() - t
        fh.seek(0)
        reader = csv.DictReader(fh)
        header = reader.fieldnames or []
        pairs = {}
        n_rows = 0
        for row in reader:
            n_rows += 1
            a, b = rel(row["a"]), rel(row["b"])
            if a.startswith("upstream/") and b.startswith("vendored/"):
                a, b = b, a
                c_up = float(row.get("containment_a") or 0)
            else:
                c_up = float(row.get("containment_b") or 0)
            if a.startswith("vendored/") and b.startswith("upstream/"):
                # the upstream file's fingerprint count (what its containment divides by)
                row["fp_up"] = round(float(row["shared"]) / c_up) if c_up else "?"
                pairs[(a, b)] = row
    return {"db": db, "extra": extra, "add": add.stdout.strip() or add.stderr.strip(),
            "t_add": t_add, "t_pairs": t_pairs, "t_dup": t_dup, "rows": n_rows, "header": header,
            "pairs": pairs, "stats": stats, "same_fp": same_fp}


def score_columns(header: list[str]) -> dict:
    cols = {}
    if "containment_a" in header and "containment_b" in header:
        cols["containment_max"] = lambda r: max(float(r["containment_a"]), float(r["containment_b"]))
    for name in ("resemblance", "shared", "score"):
        if name in header:
            cols[name] = lambda r, name=name: float(r[name])
    return cols


def rank(files: list[dict], by_vendored: dict, fn, same_fp: dict) -> dict:
    """Counts and failures for one score: where each vendored file's true upstream file ranks."""
    res = {"alone": 0, "tied": 0, "tied_same_fp": 0, "not_first": 0, "no_pair": 0,
           "failures": [], "no_pair_docs": [], "tied_docs": []}
    for f in files:
        rows = by_vendored.get(f["vendored"], {})
        scores = {u: fn(row) for u, row in rows.items()}
        if f["true"] not in scores:
            res["no_pair"] += 1
            res["no_pair_docs"].append(f["vendored"])
            continue
        s = scores[f["true"]]
        eps = 1e-12 * max(1.0, abs(s))
        above = sorted(((v, u) for u, v in scores.items() if v > s + eps), reverse=True)
        ties = sorted(u for u, v in scores.items() if abs(v - s) <= eps and u != f["true"])
        if not above and not ties:
            res["alone"] += 1
        elif not above:
            res["tied"] += 1
            cls = same_fp.get(f["true"], f["true"])
            if all(same_fp.get(u) == cls for u in ties):
                res["tied_same_fp"] += 1
            else:
                res["tied_docs"].append((f, s, ties, rows))
        else:
            res["not_first"] += 1
            res["failures"].append((f, s, len(above) + 1, above, len(ties), rows))
    # ties with other packages' files first: the surprising ones
    res["tied_docs"].sort(key=lambda t: all(u in t[0]["candidates"] for u in t[2]))
    return res


def fmt(v: float, score: str) -> str:
    return f"{v:.0f}" if score == "shared" else f"{v:.3f}"


def short(f: dict, u: str, same_fp: dict, rows: dict | None = None) -> str:
    """An upstream path, marked by how it relates to the vendored file f."""
    if u in f["identical_to_true"]:
        tag = "same file, identical"
    elif same_fp.get(u, u) == same_fp.get(f["true"], f["true"]):
        tag = "same fingerprints as the true file"
    elif u in f["candidates"]:
        tag = "same file, other release"
    elif u.split("/")[1].startswith(f["package"] + "-"):
        tag = "same package"
    else:
        tag = "other package"
    if rows is not None and u in rows:
        tag += f", shared {rows[u]['shared']} of its {rows[u]['fp_up']}"
    return f"`{u.removeprefix('upstream/')}` ({tag})"


def git_revision() -> str:
    try:
        rev = run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"]).stdout.strip()
        dirty = run(["git", "-C", str(REPO), "status", "--porcelain"]).stdout.strip()
        return rev + (" (dirty tree)" if dirty else "")
    except SystemExit:
        return "unknown"


def machine_line() -> str:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    try:
        import machine_info

        return machine_info.describe()
    except (ImportError, AttributeError):
        import platform

        return f"{os.cpu_count()} CPUs; Python {platform.python_version()}; {platform.platform()}"


def check(data: Path, db: Path | None, out: Path, command: str) -> int:
    t0 = time.time()
    docs = data / "docs"
    meta = json.loads((data / "vendored.json").read_text())
    files = meta["files"]
    tmp = None
    if db is None:
        tmp = tempfile.TemporaryDirectory(prefix="winnowdb-vendored-")
        db = Path(tmp.name) / "vendored.duckdb"
    db.parent.mkdir(parents=True, exist_ok=True)
    db_text = db.with_name(db.stem + "-text" + db.suffix)
    runs = []
    for label, path, extra in (("default (code tokens)", db, []),
                               ("--normalizer text", db_text, ["--normalizer", "text"])):
        log(f"indexing {docs} -> {path} {' '.join(extra)}")
        r = index_and_pairs(docs, path, extra)
        want = "text" if extra else "auto"
        if r["stats"]["settings"].get("normalizer") != want:
            raise SystemExit(f"{path} is an existing index with normalizer "
                             f"{r['stats']['settings'].get('normalizer')}, not {want}")
        r["label"] = label
        by_vendored: dict[str, dict] = collections.defaultdict(dict)
        for (v, u), row in r["pairs"].items():
            by_vendored[v][u] = row
        r["results"] = {name: rank(files, by_vendored, fn, r["same_fp"])
                        for name, fn in score_columns(r["header"]).items()}
        log(f"  add {r['t_add']:.1f} s, pairs {r['t_pairs']:.1f} s, duplicates {r['t_dup']:.1f} s, "
            f"{r['rows']} pair rows, "
            f"{len(r['pairs'])} vendored-upstream")
        for name, res in r["results"].items():
            log(f"  {name}: first alone {res['alone']}, tied {res['tied']}, not first "
                f"{res['not_first']}, no pair {res['no_pair']}")
        runs.append(r)
    report = render(meta, runs, command, data, time.time() - t0)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report)
    log(f"wrote {out}")
    if tmp is not None:
        tmp.cleanup()
    return 0


def render(meta: dict, runs: list[dict], command: str, data: Path, seconds: float) -> str:
    files = meta["files"]
    n = len(files)
    now = dt.datetime.now(dt.timezone.utc)
    hosts = ", ".join(f"{h['host']} {h['version']} ({h['wheel']})" for h in meta["hosts"])
    per_host = collections.Counter(f["host"] for f in files)
    skipped = meta["skipped"]
    pk = [p for p in meta["packages"] if "skipped" not in p]
    n_up = len({c for f in files for c in f["candidates"]})
    s0 = runs[0]["stats"]["settings"]
    lines = [
        "# Real vendored code: does each vendored module find its true upstream file first? (issue 21)",
        "",
        f"- date: {now:%Y-%m-%d %H:%M} UTC; {seconds:.0f} s",
        f"- machine: {machine_line()}",
        f"- winnowdb: {s0.get('created_by', '?')} (`{winnowdb_cmd()}`), repo revision {git_revision()}",
        f"- command: `{command}` (data from `python bench/vendored.py build --out {data}`)",
        f"- hosts: {hosts}; vendored files kept: "
        + ", ".join(f"{h} {c}" for h, c in sorted(per_host.items())) + f" = {n}",
        f"- upstream: {len(pk)} (host, package) pairs, each at its vendored release plus up to "
        f"{DISTRACTORS} other releases (nearest older ones whose files differ); "
        f"{runs[0]['stats']['documents']} documents indexed in all, "
        f"{n_up} of them same-path candidates of some vendored file",
        f"- vendored files byte-identical to their true upstream file: "
        f"{sum(bool(f.get('vendored_identical')) for f in files)} of {n} (the rest: imports "
        "rewritten to the host's `_vendor` package, or patched); other-release candidates "
        f"byte-identical to the true file: {sum(len(f['identical_to_true']) for f in files)} of "
        f"{sum(len(f['candidates']) - 1 for f in files)}",
    ]
    for why, docs in skipped.items():
        groups = collections.Counter("/".join(d.split("/")[1:3]) for d in docs)
        lines.append(f"- left out, {why}: {len(docs)} (" + ", ".join(
            f"{g} {c}" for g, c in sorted(groups.items())) + ")")
    nested = meta.get("nested_vendor_left_out", {})
    if nested:
        lines.append("- left out of the upstream documents, files in an upstream wheel's own vendor "
                     "folder (copies of other packages, so equal sources rather than distractors): "
                     + ", ".join(f"{k} {v}" for k, v in nested.items()))
    for p in meta["packages"]:
        if "skipped" in p:
            lines.append(f"- package skipped: {p['host']} vendors {p['name']} {p['version']}: {p['skipped']}")
    for r in runs:
        st = r["stats"]["settings"]
        keys = ("k", "w", "code_k", "code_w", "normalizer", "text_normalizer", "selection",
                "code_tokens_version", "hash_version")
        add_cmd = shlex.join(["winnowdb", "add", "DIR/docs", *r["extra"]])
        lines.append(f"- index {r['label']}: `{add_cmd}`; settings "
                     + ", ".join(f"{k}={st.get(k)}" for k in keys)
                     + f"; pairs max_df auto = {r['stats'].get('default_max_df')}; "
                     f"add {r['t_add']:.1f} s, `pairs --top 0 --min-shared 1 --format csv` "
                     f"{r['t_pairs']:.1f} s, {r['rows']:,} pair rows; `duplicates` {r['t_dup']:.1f} s")
    lines += [
        "- ranking: for each vendored file, every upstream file (all packages, all releases) that "
        "shares a fingerprint with it, by the score; `containment_max` = max(containment_a, "
        "containment_b). *first alone*: the true upstream file scores strictly highest; *first, "
        "tied*: highest but equal to others (in brackets: of those, ties only with files whose "
        "fingerprint set equals the true file's, from `winnowdb duplicates`: byte-identical or "
        "token-identical copies in other releases, which no score can break); *not first*: "
        "something scores higher; *no pair*: the true file and the vendored file share no "
        "fingerprint (small files below one winnowing window).",
        "",
        "| index | score | vendored files | first alone | first, tied (same fingerprints only) "
        "| not first | no pair |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in runs:
        for name, res in r["results"].items():
            lines.append(f"| {r['label']} | {name} | {n} | {res['alone']} | {res['tied']} "
                         f"({res['tied_same_fp']}) | {res['not_first']} | {res['no_pair']} |")
    lines.append("")
    lines += ["First place (alone or tied) per host:", ""]
    for r in runs:
        for name, res in r["results"].items():
            bad = collections.Counter(f[0]["host"] for f in res["failures"])
            bad.update(d.split("/")[1] for d in res["no_pair_docs"])
            lines.append(f"- {r['label']}, {name}: " + "; ".join(
                f"{h} {c - bad[h]}/{c}" for h, c in sorted(per_host.items())))
    lines.append("")
    for r in runs:
        same_fp = r["same_fp"]
        for name, res in r["results"].items():
            if not (res["failures"] or res["no_pair_docs"] or res["tied_docs"]):
                continue
            lines += [f"## {r['label']}, {name}", ""]
            if res["failures"]:
                small = sum(all(isinstance(rows[u]["fp_up"], int) and rows[u]["fp_up"] <= SMALL
                                for _v, u in above_all)
                            for _f, _s, _rk, above_all, _n, rows in res["failures"])
                lines.append(f"Not first ({res['not_first']}"
                             + (f", first {MAX_FAILURES} listed" if res["not_first"] > MAX_FAILURES else "")
                             + f"; {small} of them beaten only by upstream files of at most {SMALL} "
                             "fingerprints; rank = 1 + the files scoring higher; up to 3 shown):")
                lines.append("")
                for f, s, rk, above, nties, rows in res["failures"][:MAX_FAILURES]:
                    beat = ", ".join(f"{short(f, u, same_fp, rows)} {fmt(v, name)}" for v, u in above[:3])
                    lines.append(f"- `{f['vendored'].removeprefix('vendored/')}`: true "
                                 f"`{f['true'].removeprefix('upstream/')}` {fmt(s, name)} "
                                 f"(shared {rows[f['true']]['shared']} of its {rows[f['true']]['fp_up']}), "
                                 f"rank {rk}"
                                 + (f" (tied with {nties} more)" if nties else "")
                                 + f"; beaten by {beat}")
                lines.append("")
            if res["tied_docs"]:
                lines.append(f"First but tied, not only with same-fingerprint files "
                             f"({len(res['tied_docs'])}; ties with other files first"
                             + (f", {MAX_FAILURES} listed" if len(res["tied_docs"]) > MAX_FAILURES else "")
                             + "):")
                lines.append("")
                for f, s, ties, rows in res["tied_docs"][:MAX_FAILURES]:
                    odd = [u for u in ties if u not in f["candidates"]]
                    shown = (odd + [u for u in ties if u in f["candidates"]])[:3]
                    lines.append(f"- `{f['vendored'].removeprefix('vendored/')}` at {fmt(s, name)} "
                                 f"(shared {rows[f['true']]['shared']} of its {rows[f['true']]['fp_up']}) with "
                                 + ", ".join(short(f, u, same_fp, rows) for u in shown)
                                 + (f" and {len(ties) - 3} more" if len(ties) > 3 else ""))
                lines.append("")
            if res["no_pair_docs"]:
                lines.append(f"No pair ({res['no_pair']}): "
                             + ", ".join(f"`{d.removeprefix('vendored/')}`"
                                         for d in res["no_pair_docs"][:MAX_FAILURES])
                             + (" ..." if res["no_pair"] > MAX_FAILURES else ""))
                lines.append("")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- main

def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="download the wheels and write DIR/docs, truth.csv, vendored.json")
    b.add_argument("--out", type=Path, required=True, help="dataset folder (wheels cached in DIR/wheels)")
    c = sub.add_parser("check", help="index DIR/docs with winnowdb and rank the upstream files")
    c.add_argument("--data", type=Path, required=True, help="a folder made by build")
    c.add_argument("--db", type=Path, help="index file (default: a temporary one); the "
                   "--normalizer text index goes next to it, named <stem>-text<suffix>")
    c.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"report (default {DEFAULT_OUT})")
    args = p.parse_args(argv)
    if args.cmd == "build":
        return build(args.out)
    command = "python bench/vendored.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    return check(args.data, args.db, args.out, command)


if __name__ == "__main__":
    sys.exit(main())
