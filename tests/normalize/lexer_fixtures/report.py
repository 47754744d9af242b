#!/usr/bin/env python3
"""Grade report: reads a CSV of scores and prints a summary.

Usage: python report.py scores.csv [--curve 1.05]
It's a small tool, but it uses "most" of the language: f-strings, raw strings, bytes.
"""
from __future__ import annotations

import csv
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

PASS_MARK = 50.0
MAX_SCORE = 1_000
HEX_MASK = 0x1F
OCTAL = 0o755
TINY = 1e-9
COMPLEX = 3.5j
ID_PATTERN = re.compile(r"^[A-Z]{2}\d{4}$")  # e.g. "AB1234"
QUOTE_RE = re.compile(r'"([^"\\]*(?:\\.[^"\\]*)*)"')
MAGIC = b"\x89PNG\r\n"


@dataclass
class Student:
    """One row of the file; 'scores' holds every assignment's mark."""

    sid: str
    name: str
    scores: list[float] = field(default_factory=list)

    @property
    def mean(self) -> float:
        return sum(self.scores) / len(self.scores) if self.scores else 0.0

    def __str__(self) -> str:
        return f"{self.name!r:<20} {self.mean:>6.2f} {'pass' if self.passed() else 'FAIL'}"

    def passed(self, mark: float = PASS_MARK) -> bool:
        return self.mean >= mark


def read_students(path: Path) -> list[Student]:
    students = []
    with path.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            sid = row["id"].strip()
            if not ID_PATTERN.match(sid):
                print(f'skipping bad id {sid!r} (line {fh.tell()})', file=sys.stderr)
                continue
            marks = [float(v) for k, v in row.items() if k.startswith("hw") and v]
            students.append(Student(sid, row.get('name', "?"), marks))
    return students


def curve(students: list[Student], factor: float = 1.05) -> None:
    for s in students:
        s.scores = [min(100.0, x * factor) for x in s.scores]


def histogram(students, width=40):
    buckets = {b: 0 for b in range(0, 101, 10)}
    for s in students:
        buckets[int(s.mean // 10) * 10] += 1
    top = max(buckets.values()) or 1
    lines = []
    for b, n in sorted(buckets.items()):
        bar = "#" * (n * width // top)
        lines.append(f"{b:>3}-{b + 9:<3} | {bar} {n}")
    return "\n".join(lines)


def summary(students: list[Student]) -> str:
    passed = [s for s in students if s.passed()]
    rate = len(passed) / len(students) if students else float("nan")
    text = """Summary
-------
Students: {n}
Pass rate: {rate:.1%}   # not a comment
"""
    return text.format(n=len(students), rate=rate) + \
        '\n'.join(str(s) for s in students)


def escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("'", "\\'")


async def fetch_all(urls, session=None):
    results = {}
    for i, url in enumerate(urls):
        if (n := len(url)) > 200:
            continue
        results[url] = await session.get(url, timeout=10) if session else n
    return results


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    students = read_students(Path(argv[1]))
    if "--curve" in argv:
        curve(students, float(argv[argv.index("--curve") + 1]))
    print(summary(students))
    print(histogram(students))
    flags = {"mask": HEX_MASK & 0b1010, "mode": oct(OCTAL), "eps": TINY}
    print(f"{flags=} {MAX_SCORE:,} {COMPLEX.imag} {MAGIC[1:4].decode()}")
    print(f"rows: {len(students)}", rf"\path\{argv[1]}", fR'{escape("a")}', sep=' | ')
    key = lambda s: (-s.mean, s.name)
    best = sorted(students, key=key)[:3]
    print(*[s.name for s in best], sep=", ", end="\n")
    return 0 if all(s.passed() for s in best) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
