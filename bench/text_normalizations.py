"""Experiment: would another text normalization rank clough's copies better?

winnowdb folds prose to letters and digits only (the Winnowing paper's normalizer). Dolos's `char`
mode keeps every character. This script scores clough's annotated pairs (copy vs non-copy of the
task's source) with winnowdb's own k-gram hashing and winnowing, under several normalizations of
the same text, each over several hash salts (which k-grams winnowing keeps depends on the hash,
and on 95 pairs that moves AUC by about 0.005):

- ``letters``: winnowdb's ``text`` normalizer (``normalize_text``; the default before ``prose``)
- ``prose``: winnowdb's ``prose`` normalizer (``normalize_prose``, the default for text since
  session 8): letters folded as ``letters``, each run of separators between words one unit, a
  mark if it holds punctuation, else a space
- ``words``: case folded, words (runs of letters/digits) joined by one space, punctuation dropped
- ``space1``: case folded, white space runs collapsed to one space, every other non-word
  character mapped to one punctuation symbol
- ``chars``: case folded, white space runs collapsed to one space, punctuation kept as is

Scores: ``containment_max`` = max over the two documents of (distinct shared fingerprints /
distinct fingerprints), as ``pairs`` ranks (without --max-df, which does not change clough); and
``coverage_dice`` = characters covered by shared k-grams on both sides / characters of both, a
Dolos-like similarity. Metric: ROC AUC on the annotated rows (ties count one half).

    python bench/text_normalizations.py --salts 16 --out bench/results/text_normalizations.md
"""
from __future__ import annotations

import argparse
import csv
import re
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from winnowdb.fingerprint.winnow import fingerprint  # noqa: E402
from winnowdb.normalize.prose import normalize_prose  # noqa: E402
from winnowdb.normalize.text import normalize_text  # noqa: E402
from winnowdb.normalize.units import Normalized  # noqa: E402

GRID = {  # normalization -> (k, w) settings measured
    "letters": [(16, 12), (20, 12), (16, 8), (20, 8), (24, 8), (20, 6)],
    "words": [(20, 12), (24, 12), (24, 8), (22, 6), (24, 6)],
    "space1": [(20, 12), (22, 12), (24, 12), (22, 8), (24, 8), (24, 6)],
    "chars": [(20, 12), (24, 12), (24, 8)],
    "prose": [(22, 12), (20, 6), (22, 6), (24, 6), (22, 8), (22, 10)],
}


def normalized(text: str, mode: str) -> Normalized:
    if mode == "letters":
        return normalize_text(text)
    if mode == "prose":
        return normalize_prose(text)
    low = text.lower()
    if mode == "words":
        s = " ".join(re.findall(r"\w+", low))
    elif mode == "space1":
        s = re.sub(r"[^\w\s]", ".", re.sub(r"\s+", " ", low))
    elif mode == "chars":
        s = re.sub(r"\s+", " ", low)
    else:
        raise ValueError(mode)
    units = np.frombuffer(s.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    pos = np.arange(units.shape[0], dtype=np.int64)  # offsets into s (only lengths matter here)
    return Normalized(units, pos, pos + 1)


DOLOS = 0.976  # Dolos's annotated AUC on clough (bench/results/quality.md, same metric)


def auc(scores: list[float], labels: list[bool]) -> float:
    cop = [s for s, lab in zip(scores, labels) if lab]
    non = [s for s, lab in zip(scores, labels) if not lab]
    inv = sum(1.0 if n > c else 0.5 if n == c else 0.0 for c in cop for n in non)
    return 1.0 - inv / (len(cop) * len(non))


def covered(pos: np.ndarray, k: int, n: int) -> int:
    marks = np.zeros(n + 1, dtype=np.int32)
    np.add.at(marks, pos, 1)
    np.add.at(marks, pos + k, -1)
    return int((np.cumsum(marks)[:n] > 0).sum())


def scores(norms: dict, pairs: list[tuple[str, str]], k: int, w: int, salt: int) -> dict[str, list[float]]:
    fps = {d: fingerprint(nm, k, w, salt) for d, nm in norms.items()}
    out: dict[str, list[float]] = {"containment_max": [], "coverage_dice": []}
    for a, b in pairs:
        fa, fb = fps[a], fps[b]
        ua, ub = np.unique(fa.hash), np.unique(fb.hash)
        shared = np.intersect1d(ua, ub).shape[0]
        out["containment_max"].append(max(shared / max(1, ua.shape[0]), shared / max(1, ub.shape[0])))
        na, nb = len(norms[a]), len(norms[b])
        ca = covered(fa.pos[np.isin(fa.hash, ub)], k, na)
        cb = covered(fb.pos[np.isin(fb.hash, ua)], k, nb)
        out["coverage_dice"].append((ca + cb) / max(1, na + nb))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--eval-root", default=str(Path(__file__).resolve().parents[2] / "shared" / "eval"))
    ap.add_argument("--salts", type=int, default=16)
    ap.add_argument("--out", default=None, help="markdown report (default: print only)")
    args = ap.parse_args()
    root = Path(args.eval_root) / "clough"
    rows = [r for r in csv.DictReader(open(root / "truth.csv", encoding="utf-8")) if r["basis"] == "annotated"]
    pairs = [(r["doc_a"], r["doc_b"]) for r in rows]
    labels = [r["label"] == "1" for r in rows]
    texts = {d: (root / "docs" / d).read_text(encoding="utf-8", errors="replace") for p in pairs for d in p}
    salts = [(s * 0x9E3779B97F4A7C15) & 0x7FFFFFFFFFFFFFFF for s in range(args.salts)]  # salt 0: shipped
    t0 = time.time()
    lines = ["| normalization | k / w | AUC containment_max: mean ± sd [min, max] | salts above Dolos (0.976) "
             "| AUC coverage_dice: mean ± sd | salt 0 (shipped hash) |",
             "|---|---|---|---|---|---|"]
    for mode, grid in GRID.items():
        norms = {d: normalized(t, mode) for d, t in texts.items()}
        for k, w in grid:
            got: dict[str, list[float]] = {"containment_max": [], "coverage_dice": []}
            for salt in salts:
                for name, vals in scores(norms, pairs, k, w, salt).items():
                    got[name].append(auc(vals, labels))
            cm, cd = got["containment_max"], got["coverage_dice"]
            line = (f"| {mode} | {k} / {w} | {statistics.mean(cm):.4f} ± {statistics.pstdev(cm):.4f} "
                    f"[{min(cm):.3f}, {max(cm):.3f}] | {sum(a > DOLOS for a in cm) / len(cm):.0%} "
                    f"| {statistics.mean(cd):.4f} ± {statistics.pstdev(cd):.4f} "
                    f"| {cm[0]:.3f} |")
            print(line, flush=True)
            lines.append(line)
    header = [f"# Text normalizations on clough (annotated AUC, {args.salts} hash salts)", "",
              f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {time.time() - t0:.0f} s",
              f"- command: `python bench/text_normalizations.py --salts {args.salts}"
              f"{' --out ' + args.out if args.out else ''}`",
              f"- Dolos (char, k 23 / w 17, one fixed hash): {DOLOS}; copydetect 0.972 (bench/results/quality.md)",
              "- shipped since session 8: `prose` k 22 / w 12 (the window, and so the index size and pair-counting "
              "cost, of the `text` default); w 6 ranks better still but doubles the fingerprints "
              "(bench/results/speed.md: the generated corpus then misses its 5 s target)", ""]
    if args.out:
        Path(args.out).write_text("\n".join(header + lines) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
