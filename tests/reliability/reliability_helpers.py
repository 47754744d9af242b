"""Helpers shared by the reliability tests: corpora, child processes, peak memory, index diffs."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from conftest import sigint_default

HERE = Path(__file__).resolve().parent
#: the real command line, as a child process
WINNOWDB = [sys.executable, "-m", "winnowdb"]
#: the real command line with small batches and a commit log (see crash_child.py)
CHILD = [sys.executable, str(HERE / "crash_child.py")]

_LETTERS = np.array(list("abcdefghijklmnopqrstuvwxyz"))


def vocabulary(seed: int, size: int = 5000) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.array(["".join(rng.choice(_LETTERS, rng.integers(2, 10))) for _ in range(size)])


def random_text(rng: np.random.Generator, vocab: np.ndarray, chars: int) -> str:
    words = vocab[rng.integers(0, len(vocab), max(1, chars // 6))]
    lines = [" ".join(words[i:i + 12]) for i in range(0, len(words), 12)]
    return "\n".join(lines) + "\n"


def make_corpus(root: Path, *, files: int, size: int, seed: int) -> list[Path]:
    """``files`` text files of about ``size`` characters of random words, 200 per folder."""
    rng = np.random.default_rng(seed)
    vocab = vocabulary(seed)
    out = []
    for i in range(files):
        d = root / f"part{i // 200:03d}"
        d.mkdir(parents=True, exist_ok=True)
        p = d / f"doc{i:05d}.txt"
        p.write_text(random_text(rng, vocab, size), encoding="utf-8")
        out.append(p)
    return out


def run(args: list[str], *, cmd: list[str] = WINNOWDB, cwd=None, env=None, timeout: float = 300,
        input: str | None = None) -> subprocess.CompletedProcess:
    """Run the CLI to completion (a test fails rather than hangs: ``timeout``)."""
    return subprocess.run([*cmd, *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, input=input)


@dataclass
class Measured:
    returncode: int
    stdout: str
    stderr: str
    peak_rss_mb: float
    seconds: float


#: runs argv[2:] as a child of this small process and writes the child's peak resident memory
#: (its ``wait4`` rusage, workers included) to the file argv[1]. A process forked from pytest
#: would not do: Linux keeps a process's peak RSS across exec, so it would count the copy of the
#: test process it began as (hundreds of MB after tests that run the indexer in process).
_MEASURE = """
import os, signal, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as fh:
    fh.write(str(usage.ru_maxrss))
if os.WIFSIGNALED(status):  # die the same way, so the caller sees the signal
    signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
    os.kill(os.getpid(), os.WTERMSIG(status))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_measured(args: list[str], *, cmd: list[str] = WINNOWDB, cwd=None, env=None,
                 timeout: float = 600) -> Measured:
    """Run the CLI and measure its peak resident memory (workers included; see ``_MEASURE``)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.TemporaryDirectory() as tmp:
        peak_file = os.path.join(tmp, "peak")
        t0 = time.perf_counter()
        p = subprocess.Popen([sys.executable, "-c", _MEASURE, peak_file, *cmd, *map(str, args)], cwd=cwd,
                             env=env, stdout=out, stderr=err, start_new_session=True)
        deadline = t0 + timeout
        try:
            while True:
                pid, status, usage = os.wait4(p.pid, os.WNOHANG)
                if pid:
                    break
                if time.perf_counter() > deadline:
                    raise TimeoutError(f"{args} took more than {timeout}s")
                time.sleep(0.02)
        except BaseException:  # a timeout, Ctrl-C, ...: the launcher and its command go too
            os.killpg(p.pid, 9)
            os.wait4(p.pid, 0)
            raise
        seconds = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        with open(peak_file) as fh:
            rss_kb = int(fh.read())  # kilobytes on Linux
        if sys.platform == "darwin":
            rss_kb /= 1024
        return Measured(p.returncode, out.read().decode(), err.read().decode(), rss_kb / 1024, seconds)


def one_line_error(stderr: str) -> str:
    """The single ``error: ...`` line a failing command printed (and nothing traceback-like)."""
    assert "Traceback" not in stderr, stderr
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith("error: ")]
    assert len(errors) == 1, f"expected one error line, got:\n{stderr}"
    return errors[0]


def _quote(path: Path | str) -> str:
    return "'" + str(path).replace("'", "''") + "'"


DOC_COLUMNS = ("path, submission, label, kind, normalizer, content_hash, normalized_hash, encoding, "
               "bytes, chars, units, fingerprints, simhash, hashes")


def content_differences(a: Path, b: Path, *, only_paths_in_a: bool = False) -> dict[str, int]:
    """Documents whose content differs between two indexes, by table, comparing content (not doc
    ids or times): the document row, its fingerprints (hash, pos, span: compared as a per-path
    multiset digest) and its text. With ``only_paths_in_a``, b is restricted to the paths a holds
    (is a's content a correct subset of b?)."""
    import duckdb

    con = duckdb.connect()
    try:
        con.execute(f"ATTACH {_quote(a)} AS a (READ_ONLY)")
        con.execute(f"ATTACH {_quote(b)} AS b (READ_ONLY)")
        queries = {
            "documents": f"SELECT {DOC_COLUMNS} FROM {{db}}.documents",
            "fingerprints": "SELECT d.path, COUNT(f.doc) AS n, "
                            "SUM(CAST(hash(f.hash, f.pos) AS HUGEINT)) AS digest "
                            "FROM {db}.documents d LEFT JOIN {db}.fingerprints f ON f.doc = d.doc GROUP BY d.path",
            "texts": "SELECT d.path, hash(t.text) AS digest, length(t.text) AS n "
                     "FROM {db}.document_texts t JOIN {db}.documents d ON d.doc = t.doc",
        }
        out = {}
        for name, q in queries.items():
            qa, qb = q.format(db="a"), q.format(db="b")
            if only_paths_in_a:
                qb = f"SELECT * FROM ({qb}) x WHERE x.path IN (SELECT path FROM a.documents)"
            n1 = con.execute(f"SELECT COUNT(*) FROM ({qa} EXCEPT ALL {qb}) z").fetchall()[0][0]
            n2 = con.execute(f"SELECT COUNT(*) FROM ({qb} EXCEPT ALL {qa}) z").fetchall()[0][0]
            out[name] = n1 + n2
        return out
    finally:
        con.close()


def indexed_paths(db: Path) -> set[str]:
    """The paths an index keeps: its documents, and those a killed add committed whose
    fingerprints the next add stores (documents_pending: read from their stored texts)."""
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
        pending = " UNION SELECT path FROM documents_pending" if "documents_pending" in tables else ""
        return {r[0] for r in con.execute("SELECT path FROM documents" + pending).fetchall()}
    finally:
        con.close()


def raw_sql(db: Path, *statements: str, params: list | None = None) -> list:
    """Run statements on an index directly with DuckDB (to corrupt it on purpose)."""
    import duckdb

    con = duckdb.connect(str(db))
    try:
        rows = []
        for s in statements:
            rows = con.execute(s, params).fetchall() if params else con.execute(s).fetchall()
        return rows
    finally:
        con.close()


class HeldChild:
    """``crash_child.py`` running a command with hold points (see its docstring): the test waits
    until the child is held exactly where it wants it, then kills, interrupts or releases it."""

    def __init__(self, args: list, *, env: dict, hold_dir: Path, holds=()) -> None:
        self.hold_dir = Path(hold_dir)
        self.hold_dir.mkdir(parents=True, exist_ok=True)
        for old in self.hold_dir.iterdir():
            old.unlink()
        env = dict(env, WINNOWDB_TEST_HOLD_DIR=str(self.hold_dir), WINNOWDB_TEST_HOLD=",".join(holds))
        self.proc = subprocess.Popen([*CHILD, *map(str, args)], env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, preexec_fn=sigint_default)

    @staticmethod
    def marker_name(point: str) -> str:
        return point.replace(":", "-")

    def marker(self, name: str) -> dict | None:
        """What the child wrote at ``held-POINT`` or ``exit``; None if it has not (yet)."""
        import json

        p = self.hold_dir / name
        return json.loads(p.read_text(encoding="utf-8")) if p.exists() else None

    def wait_held(self, *points: str, timeout: float = 300) -> tuple[str, dict]:
        """Block until the child holds at one of ``points`` (``"exit"`` included: the exit
        marker); return the point and what the child wrote there. ``timeout`` only turns a
        broken test into a failure instead of a hang: nothing here waits for a guessed time."""
        names = {("exit" if p == "exit" else f"held-{self.marker_name(p)}"): p for p in points}
        deadline = time.monotonic() + timeout
        while True:
            for name, point in names.items():
                info = self.marker(name)
                if info is not None:
                    return point, info
            if self.proc.poll() is not None:
                out, err = self.proc.communicate()
                raise AssertionError(f"the child exited ({self.proc.returncode}) without reaching "
                                     f"{points}:\n{out}\n{err}")
            if time.monotonic() > deadline:
                self.proc.kill()
                self.proc.communicate()
                raise AssertionError(f"the child did not reach {points} in {timeout}s")
            time.sleep(0.005)

    def release(self, point: str) -> None:
        (self.hold_dir / f"go-{self.marker_name(point)}").touch()

    def send(self, sig: int) -> None:
        self.proc.send_signal(sig)

    def finish(self, timeout: float = 300) -> tuple[int, str, str]:
        """Wait for the child to end (a test fails rather than hangs: ``timeout``)."""
        try:
            out, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, err = self.proc.communicate()
            raise AssertionError(f"the child did not end within {timeout}s:\n{err}") from None
        return self.proc.returncode, out, err
