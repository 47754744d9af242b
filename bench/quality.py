#!/usr/bin/env python3
"""Quality benchmark: how well winnowdb tells copies from independent work, next to its peers.

usage:
    python bench/quality.py [--datasets clough,irplag] [--k K] [--w W] [--max-df DF]
                            [--normalizer NAME] [--peers] [--salts N] [--eval-root DIR]
                            [--scores-dir DIR] [--out FILE]

For each labelled dataset (EVAL_ROOT/<name>/ with docs/ and truth.csv, see
/work/shared/eval/README.md) this:

1. builds a winnowdb index over docs/ in a temporary directory (``winnowdb.open`` + ``add``);
2. scores every truth.csv pair from ``idx.pairs(min_shared=1, top=0, max_df=...)`` with several
   winnowdb scores -- max(containment_a, containment_b), resemblance, shared fingerprint count --
   writing one CSV (doc_a,doc_b,score; paths relative to docs/) per score into --scores-dir;
   a truth pair absent from the pairs output scores 0;
3. with --peers, also scores the same pairs with copydetect and Dolos in the same run, through the
   bench environments made by bench/peers/setup.sh (a peer that is not set up is skipped, with a
   message). The peers' settings follow the documents, not the dataset's name: the Dolos language
   comes from the most common file extension (plain text -> ``char``), and copydetect's token
   filter is turned off (--no-filter) for plain text, where it would otherwise empty every file;
4. computes the metrics with the shared /work/shared/peers/evaluate.py (imported by path, not
   modified) and writes a markdown report (default bench/results/quality.md) with the date,
   machine, command, winnowdb settings, the metrics table per dataset and the timings.

--salts N re-runs winnowdb under N hash salts (salt 0 is the shipped hash) and reports each
metric's mean, spread and how often it beats each peer: on ~100 labelled pairs, which k-grams one
hash happens to select moves AUC by about +-0.005, as much as the differences between tools.

Settings sweeps: --k/--w/--max-df/--normalizer are passed to winnowdb (omitted = winnowdb's
defaults); use --out to keep each sweep point's report.

winnowdb is imported from the environment (``pip install -e .`` from the repo root, or
PYTHONPATH); failing that, from the working tree this script lives in. The report names which.
"""
from __future__ import annotations

import argparse
import collections
import contextlib
import csv
import datetime as dt
import importlib.util
import io
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_EVAL_ROOT = Path("/work/shared/eval")
DEFAULT_SHARED_PEERS = Path("/work/shared/peers")
DEFAULT_SCORES_DIR = Path("/tmp/winnowdb-bench")
DEFAULT_OUT = REPO / "bench" / "results" / "quality.md"
PEERS_VENV = Path(os.environ.get("PEERS_VENV", "/tmp/winnowdb-peers"))
DOLOS_DIR = Path(os.environ.get("DOLOS_DIR", "/tmp/winnowdb-dolos"))
DOLOS_DRIVER = REPO / "bench" / "peers" / "dolos.sh"

# winnowdb scores written per pair: name -> function of a pairs() row
WINNOWDB_SCORES = {
    "score": lambda r: r.get("score", max(r["containment_a"], r["containment_b"])),
    "containment_max": lambda r: max(r["containment_a"], r["containment_b"]),
    "resemblance": lambda r: r["resemblance"],
    "shared": lambda r: r["shared"],
}

# File extension -> Dolos language (mirrors dolos-lib 3.5.1's LanguagePicker); anything else is
# treated as plain text ("char" for Dolos, --no-filter for copydetect).
DOLOS_LANGUAGES = {
    ".sh": "bash", ".bash": "bash", ".c": "c", ".h": "c",
    ".cpp": "cpp", ".hpp": "cpp", ".cc": "cpp", ".cxx": "cpp", ".hh": "cpp",
    ".cs": "c-sharp", ".py": "python", ".php": "php", ".ml": "ocaml", ".java": "java",
    ".js": "javascript", ".elm": "elm", ".go": "go", ".groovy": "groovy", ".r": "r",
    ".rs": "rust", ".scala": "scala", ".sql": "sql", ".ts": "typescript", ".tsx": "tsx",
    ".v": "verilog", ".mo": "modelica",
}
PLAIN_TEXT = "char"


# ----------------------------------------------------------------------------- helpers

def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def number(text: str) -> int | float:
    """Parse an int if the text is one, else a float (max_df may be a count or a fraction)."""
    try:
        return int(text)
    except ValueError:
        return float(text)


def load_evaluate(shared_peers: Path):
    """Import the shared evaluate.py by path (it is read-only and not a package)."""
    path = shared_peers / "evaluate.py"
    spec = importlib.util.spec_from_file_location("shared_peers_evaluate", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def list_docs(docs: Path) -> list[str]:
    return sorted(p.relative_to(docs).as_posix() for p in docs.rglob("*") if p.is_file())


def detect_language(files: list[str]) -> str:
    """Dolos language of the most common file extension; plain text if it is not code."""
    exts = collections.Counter(Path(f).suffix.lower() for f in files)
    if not exts:
        return PLAIN_TEXT
    return DOLOS_LANGUAGES.get(exts.most_common(1)[0][0], PLAIN_TEXT)


def write_scores(path: Path, truth: list[dict], scores: dict[tuple[str, str], float]) -> None:
    with open(path, "w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(["doc_a", "doc_b", "score"])
        for t in truth:
            a, b = t["doc_a"], t["doc_b"]
            out.writerow([a, b, scores.get((a, b), scores.get((b, a), 0.0))])


def machine() -> dict:
    import machine_info

    mem = machine_info.mem_gib()
    return {"nproc": machine_info.cores(), "cpu": machine_info.cpu_model(),
            "mem": f"{mem:.1f} GiB" if mem else "", "python": platform.python_version(),
            "os": platform.platform()}


def git_revision() -> str:
    try:
        rev = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain"],
                               capture_output=True, text=True).stdout.strip()
        return rev + (" (dirty tree)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "no commit yet"


# ----------------------------------------------------------------------------- winnowdb

def index_stats(idx) -> dict:
    """``idx.stats()`` where the index has it (density, default max_df, ...), else {}."""
    stats = getattr(idx, "stats", None)
    if not callable(stats):
        return {}
    try:
        out = stats(top_common=0)
    except TypeError:
        out = stats()
    except Exception as e:  # a benchmark should not die on a diagnostics call
        log(f"  warning: idx.stats() failed: {e}")
        return {}
    return out if isinstance(out, dict) else {}


def effective_settings(idx, requested: dict) -> dict:
    """The settings the index actually uses where it exposes them (``idx.settings``,
    ``idx.store.settings`` or attributes k/w/normalizer), else what was asked for."""
    found = {}
    store = getattr(idx, "store", None)
    for holder in (getattr(store, "settings", None), getattr(idx, "settings", None)):
        if callable(holder):
            with contextlib.suppress(Exception):
                holder = holder()
        if isinstance(holder, dict):
            found.update(holder)
    for key in ("k", "w", "normalizer"):
        value = getattr(idx, key, None)
        if key not in found and value is not None and not callable(value):
            found[key] = value
    out = {}
    for key in ("k", "w", "normalizer"):
        out[key] = found.pop(key, requested.get(key) if requested.get(key) is not None
                             else "default")
    if requested["max_df"] is not None:
        out["max_df"] = requested["max_df"]
    else:
        out["max_df"] = "default"
        stats = index_stats(idx)
        if "default_max_df" in stats:
            out["max_df"] = f"{stats['default_max_df']} (default)"
    # other fingerprint-defining settings the index records (e.g. hash version, selection);
    # bookkeeping such as creation time is left out
    out.update({k: v for k, v in sorted(found.items())
                if isinstance(v, (str, int, float)) and not k.startswith("created")
                and k != "schema_version"})
    return out


def run_winnowdb(winnowdb, docs: Path, truth: list[dict], scores_dir: Path, name: str,
                 args) -> dict:
    """Index docs/, score the truth pairs; returns csv paths per score, timings and settings."""
    requested = {"k": args.k, "w": args.w, "code_k": args.code_k, "code_w": args.code_w,
                 "normalizer": args.normalizer, "max_df": args.max_df}
    docs_resolved = docs.resolve()
    with tempfile.TemporaryDirectory(prefix="winnowdb-quality-") as tmp:
        db_path = Path(tmp) / "index.duckdb"
        t0 = time.perf_counter()
        idx = winnowdb.open(str(db_path), k=args.k, w=args.w, code_k=args.code_k, code_w=args.code_w,
                            normalizer=args.normalizer)
        try:
            summary = idx.add([str(docs)])
            t1 = time.perf_counter()
            rows = idx.pairs(min_shared=1, top=0, max_df=args.max_df)
            t2 = time.perf_counter()
            settings = effective_settings(idx, requested)
            stats = index_stats(idx)
        finally:
            idx.close()
        db_bytes = sum(p.stat().st_size for p in Path(tmp).rglob("*") if p.is_file())

    def rel(p: str) -> str | None:
        try:
            return Path(p).resolve().relative_to(docs_resolved).as_posix()
        except ValueError:
            return None

    per_score = {s: {} for s in WINNOWDB_SCORES}
    outside = 0
    for r in rows:
        a, b = rel(r["a"]), rel(r["b"])
        if a is None or b is None:
            outside += 1
            continue
        for s, f in WINNOWDB_SCORES.items():
            per_score[s][(a, b)] = float(f(r))
    if outside:
        log(f"  warning: {outside} pairs() rows name files outside {docs}; ignored")
    in_pairs = {d for key in per_score["shared"] for d in key}
    truth_docs = {t["doc_a"] for t in truth} | {t["doc_b"] for t in truth}
    covered = sum(1 for t in truth
                  if (t["doc_a"], t["doc_b"]) in per_score["shared"]
                  or (t["doc_b"], t["doc_a"]) in per_score["shared"])

    csvs = {}
    for s, scores in per_score.items():
        path = scores_dir / f"{name}.winnowdb-{s}.csv"
        write_scores(path, truth, scores)
        csvs[f"winnowdb {s}"] = path
    skipped = getattr(summary, "skipped", None) or (
        summary.get("skipped") if isinstance(summary, dict) else None)
    return {
        "stats": stats,
        "skipped": [str(x) for x in skipped] if isinstance(skipped, (list, tuple)) else [],
        "csvs": csvs,
        "settings": settings,
        "summary": summary,
        "t_index_s": t1 - t0,
        "t_pairs_s": t2 - t1,
        "pairs_rows": len(rows),
        "truth_pairs_found": covered,
        "truth_docs_never_paired": len(truth_docs - in_pairs),
        "db_bytes": db_bytes,
    }


# ----------------------------------------------------------------------------- hash salts

@contextlib.contextmanager
def hash_salt(i: int):
    """winnowdb with its k-gram hash salted differently (i = 0: the shipped hash).

    Which k-grams winnowing keeps depends on the hash; on a small labelled set the scores of weak
    pairs, and so AUC and F1, move with it. Re-running under other salts shows how much of a
    difference between tools is the luck of one hash function. Bench-only: winnowdb itself always
    uses its fixed salts (the index would not be comparable otherwise).
    """
    from winnowdb import settings

    saved = dict(settings.SALTS)
    mix = (i * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    settings.SALTS.update({family: value ^ mix for family, value in saved.items()})
    try:
        yield
    finally:
        settings.SALTS.update(saved)


def score_array(path: Path, truth: list[dict]):
    import numpy as np

    sc = {}
    with open(path, newline="") as fh:
        for r in csv.DictReader(fh):
            sc[(r["doc_a"], r["doc_b"])] = float(r["score"])
    return np.array([sc.get((t["doc_a"], t["doc_b"]), sc.get((t["doc_b"], t["doc_a"]), 0.0)) for t in truth])


def headline(evaluate, truth: list[dict], scores) -> tuple[float, float, float]:
    """(AUC annotated, AUC all, best F1), computed with evaluate.py's own functions."""
    import numpy as np

    y = np.array([int(t["label"]) for t in truth])
    ann = np.array([t["basis"] == "annotated" for t in truth])
    f1 = float(evaluate.sweep(scores, y)[3].max())
    return evaluate.auc(scores[ann], y[ann]), evaluate.auc(scores, y), f1


def salt_spread(winnowdb, evaluate, docs: Path, truth: list[dict], name: str, args,
                peer_csvs: dict[str, Path]) -> list[str]:
    """Markdown: each winnowdb score's metrics over ``args.salts`` hash salts, next to the peers."""
    import numpy as np

    runs = {s: [] for s in WINNOWDB_SCORES}
    with tempfile.TemporaryDirectory(prefix="winnowdb-salts-") as tmp:
        for i in range(args.salts):
            with hash_salt(i):
                wdb = run_winnowdb(winnowdb, docs, truth, Path(tmp), name, args)
            for s in WINNOWDB_SCORES:
                runs[s].append(headline(evaluate, truth, score_array(wdb["csvs"][f"winnowdb {s}"], truth)))
    peers = {p: headline(evaluate, truth, score_array(path, truth)) for p, path in peer_csvs.items()}
    def fmt(col) -> str:
        return f"{col.mean():.3f} ± {col.std():.3f} [{col.min():.3f}, {col.max():.3f}]"

    head = "| winnowdb score | AUC annotated | AUC all | best F1 |"
    rule = "|---|---|---|---|"
    for p in peers:
        head += f" salts above {p}: AUC ann. / F1 |"
        rule += "---|"
    lines = [f"Over {args.salts} hash salts (salt 0 is the shipped hash, the table above): "
             "mean ± sd [min, max].", "", head, rule]
    for s, rs in runs.items():
        m = np.array(rs)
        row = f"| {s} | {fmt(m[:, 0])} | {fmt(m[:, 1])} | {fmt(m[:, 2])} |"
        for auc_p, _, f1_p in peers.values():
            row += f" {np.mean(m[:, 0] > auc_p):.0%} / {np.mean(m[:, 2] > f1_p):.0%} |"
        lines.append(row)
    if peers:
        lines += ["", "Peers (one run; their hashes are fixed): " + "; ".join(
            f"{p} {a:.3f} / {b:.3f} / {f:.3f}" for p, (a, b, f) in peers.items())
            + " (AUC annotated / AUC all / best F1)."]
    return lines


# ----------------------------------------------------------------------------- peers

def run_peer(cmd: list[str], env: dict | None = None) -> dict:
    """Run a peer scorer; returns its JSON report (last stdout line) plus the wall time."""
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{shlex.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    report = {}
    for line in reversed(proc.stdout.strip().splitlines()):
        with contextlib.suppress(json.JSONDecodeError):
            report = json.loads(line)
            break
    report["wall_s"] = wall
    return report


def run_peers(root: Path, name: str, files: list[str], scores_dir: Path,
              shared_peers: Path) -> tuple[dict, list[dict], list[str]]:
    """Score the truth pairs with copydetect and Dolos; returns csvs, timing rows, notes."""
    csvs, timings, notes = {}, [], []
    language = detect_language(files)
    plain = language == PLAIN_TEXT

    py = PEERS_VENV / "bin" / "python"
    if not py.exists():
        msg = f"copydetect skipped: no venv at {PEERS_VENV} (run bench/peers/setup.sh)"
        log("  " + msg)
        notes.append(msg)
    else:
        out = scores_dir / f"{name}.copydetect.csv"
        cmd = [str(py), str(shared_peers / "score_copydetect.py"), str(root), str(out)]
        if plain:
            cmd.append("--no-filter")
        log(f"  copydetect{' --no-filter' if plain else ''} ...")
        rep = run_peer(cmd, env={**os.environ, "PYTHONHASHSEED": "0"})
        csvs["copydetect"] = out
        timings.append({"scorer": "copydetect" + (" (--no-filter)" if plain else ""),
                        "wall_s": rep["wall_s"], "detail":
                        f"fingerprint {rep.get('t_fingerprint_s', '?')} s, "
                        f"fingerprint+score {rep.get('t_total_s', '?')} s"})

    if not (DOLOS_DIR / "score_dolos.mjs").exists():
        msg = f"Dolos skipped: not set up in {DOLOS_DIR} (run bench/peers/setup.sh)"
        log("  " + msg)
        notes.append(msg)
    else:
        out = scores_dir / f"{name}.dolos.csv"
        log(f"  dolos (language {language}) ...")
        rep = run_peer([str(DOLOS_DRIVER), str(root), language, str(out)],
                       env={**os.environ, "DOLOS_DIR": str(DOLOS_DIR)})
        csvs["dolos"] = out
        t = rep.get("t_total_s")
        timings.append({"scorer": f"dolos ({language})", "wall_s": rep["wall_s"],
                        "detail": f"analyze+score {t:.3f} s" if isinstance(t, float) else ""})
    return csvs, timings, notes


# ----------------------------------------------------------------------------- report

def metrics_table(evaluate, root: Path, csvs: dict[str, Path]) -> str:
    """The shared evaluate.py's markdown table for these scorers, exactly as it prints it."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        evaluate.main(str(root), [f"{n}={p}" for n, p in csvs.items()])
    return buf.getvalue().rstrip("\n")


def truth_counts(truth: list[dict]) -> str:
    c = collections.Counter((t["basis"], t["label"]) for t in truth)
    parts = [f"{basis} label={label}: {n}" for (basis, label), n in sorted(c.items())]
    return ", ".join(parts)


def summary_text(summary) -> str:
    if summary is None:
        return ""
    fields = summary if isinstance(summary, dict) else getattr(summary, "__dict__", None)
    if not fields:
        return str(summary)
    def show(v) -> str:
        return (f"{v:.2f}" if isinstance(v, float)
                else str(len(v)) if isinstance(v, (list, tuple, set, dict)) else str(v))

    text = ", ".join(f"{k}={show(v)}" for k, v in fields.items())
    return text if len(text) <= 300 else text[:297] + "..."


def render(sections: list[dict], args, settings: dict, mach: dict, version: str,
           location: str) -> str:
    now = dt.datetime.now(dt.timezone.utc).astimezone()
    lines = [
        "# winnowdb quality benchmark",
        "",
        f"- date: {now:%Y-%m-%d %H:%M %Z}",
        f"- machine: {mach['nproc']} CPUs (nproc), {mach['cpu']}, {mach['mem']} RAM; "
        f"Python {mach['python']}; {mach['os']}",
        f"- command: `{args.command}`",
        f"- winnowdb: version {version} from {location}, repo revision {git_revision()}",
        "- winnowdb settings: " + ", ".join(f"{k}={v}" for k, v in settings.items())
        + "; pairs(min_shared=1, top=0)",
        "- scores: `winnowdb score` = the pair score, the ranking (docs/score.md); "
        "`winnowdb containment_max` = max(containment_a, containment_b) (the ranking before it), "
        "`winnowdb resemblance`, `winnowdb shared` = shared fingerprints; a pair absent from "
        "pairs() scores 0. Peers (with --peers): copydetect 0.5.0 (noise 25, guarantee 30, "
        "larger directional similarity; --no-filter for plain text) and Dolos 3.5.1 "
        "(default k-gram 23, window 17; language from the file extension, `char` for plain text).",
        "- metrics: /work/shared/peers/evaluate.py -- ROC AUC on annotated rows and on all rows, "
        "best F1 over thresholds (predict copy iff score >= thr), recall at the best threshold "
        "with precision >= 0.9, recall per grade at the best-F1 threshold.",
        "",
    ]
    for s in sections:
        lines += [f"## {s['name']}", "",
                  f"{s['n_docs']} docs, {s['n_pairs']} labelled pairs ({s['counts']}).", ""]
        lines += [s["table"], ""]
        if s["spread"]:
            lines += s["spread"] + [""]
        lines += ["| scorer | wall time | detail |", "|---|---|---|"]
        for t in s["timings"]:
            lines.append(f"| {t['scorer']} | {t['wall_s']:.2f} s | {t['detail']} |")
        lines.append("")
        for note in s["notes"]:
            lines.append(f"- {note}")
        if s["notes"]:
            lines.append("")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- main

def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default="clough,irplag",
                    help="comma-separated dataset names under --eval-root (default: %(default)s)")
    ap.add_argument("--eval-root", type=Path, default=DEFAULT_EVAL_ROOT)
    ap.add_argument("--k", type=int, default=None, help="k-gram length (default: winnowdb's)")
    ap.add_argument("--w", type=int, default=None, help="winnowing window (default: winnowdb's)")
    ap.add_argument("--code-k", type=int, default=None, help="k-gram length for code, in tokens")
    ap.add_argument("--code-w", type=int, default=None, help="winnowing window for code, in tokens")
    ap.add_argument("--max-df", type=number, default=None,
                    help="pairs(max_df=...): drop fingerprints found in more documents than this")
    ap.add_argument("--normalizer", default=None, help="winnowdb normalizer (default: winnowdb's)")
    ap.add_argument("--peers", action="store_true",
                    help="also score with copydetect and Dolos (needs bench/peers/setup.sh)")
    ap.add_argument("--salts", type=int, default=0,
                    help="also run winnowdb under this many hash salts (0 = the shipped one) and "
                         "report the spread of each metric: how much of a difference is one hash's luck")
    ap.add_argument("--shared-peers", type=Path, default=DEFAULT_SHARED_PEERS,
                    help="folder with evaluate.py and the peer scorers (default: %(default)s)")
    ap.add_argument("--scores-dir", type=Path, default=DEFAULT_SCORES_DIR,
                    help="where the score CSVs go (default: %(default)s)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT,
                    help="markdown report (default: bench/results/quality.md)")
    args = ap.parse_args(argv)
    args.command = shlex.join(["python", "bench/quality.py", *argv])
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        import winnowdb
    except ImportError:
        sys.path.insert(0, str(REPO))  # fall back to the working tree this script lives in
        try:
            import winnowdb
        except ImportError as e:
            log(f"cannot import winnowdb ({e}): run `pip install -e .` in {REPO} "
                f"or set PYTHONPATH={REPO}")
            return 2
    if not callable(getattr(winnowdb, "open", None)):
        log(f"winnowdb at {getattr(winnowdb, '__file__', '?')} has no open(): package not ready")
        return 2
    evaluate = load_evaluate(args.shared_peers)
    args.scores_dir.mkdir(parents=True, exist_ok=True)
    mach = machine()

    names = [d.strip() for d in args.datasets.split(",") if d.strip()]
    if not names:
        log("--datasets names no dataset")
        return 2
    sections, settings = [], None
    for name in names:
        root = args.eval_root / name
        docs = root / "docs"
        if not (docs.is_dir() and (root / "truth.csv").is_file()):
            log(f"{name}: no docs/ + truth.csv under {root}")
            return 2
        truth = list(csv.DictReader(open(root / "truth.csv", newline="")))
        files = list_docs(docs)
        log(f"{name}: {len(files)} docs, {len(truth)} pairs")

        log("  winnowdb ...")
        wdb = run_winnowdb(winnowdb, docs, truth, args.scores_dir, name, args)
        settings = settings or wdb["settings"]
        timings = [{"scorer": "winnowdb", "wall_s": wdb["t_index_s"] + wdb["t_pairs_s"],
                    "detail": f"index {wdb['t_index_s']:.2f} s + pairs {wdb['t_pairs_s']:.2f} s; "
                              f"{wdb['pairs_rows']} pair rows; "
                              f"index {wdb['db_bytes'] / 2**20:.1f} MiB; "
                              f"add(): {summary_text(wdb['summary'])}"}]
        notes = [f"winnowdb pairs() covered {wdb['truth_pairs_found']} of {len(truth)} labelled "
                 f"pairs (the rest score 0); {wdb['truth_docs_never_paired']} labelled docs "
                 f"appear in no pair."]
        st = wdb["stats"]
        if isinstance(st.get("density"), float) and isinstance(st.get("expected_density"), float):
            notes.append(f"winnowdb fingerprint density {st['density']:.4f} "
                         f"(expected 2/(w+1) = {st['expected_density']:.4f}).")
        if wdb["skipped"]:
            notes.append(f"winnowdb add() skipped {len(wdb['skipped'])} files: "
                         + "; ".join(wdb["skipped"][:5]) + (" ..." if len(wdb["skipped"]) > 5 else ""))
        csvs = dict(wdb["csvs"])
        if args.peers:
            pcsvs, ptimes, pnotes = run_peers(root, name, files, args.scores_dir, args.shared_peers)
            csvs.update(pcsvs)
            timings += ptimes
            notes += pnotes

        table = metrics_table(evaluate, root, csvs)
        print(f"\n## {name}\n{table}\n", flush=True)
        spread = []
        if args.salts > 1:
            log(f"  winnowdb under {args.salts} hash salts ...")
            spread = salt_spread(winnowdb, evaluate, docs, truth, name, args,
                                 {n: p for n, p in csvs.items() if not n.startswith("winnowdb")})
            print("\n".join(spread) + "\n", flush=True)
        sections.append({"name": name, "n_docs": len(files), "n_pairs": len(truth),
                         "counts": truth_counts(truth), "table": table, "spread": spread,
                         "timings": timings, "notes": notes})

    version = getattr(winnowdb, "__version__", "unknown")
    location = Path(getattr(winnowdb, "__file__", "?")).parent
    with contextlib.suppress(ValueError):
        location = f"{location.relative_to(REPO)}/ (this working tree)"
    report = render(sections, args, settings, mach, version, str(location))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report + "\n")
    log(f"wrote {args.out}; score CSVs in {args.scores_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
