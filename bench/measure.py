"""Run one command as a fresh process and measure it: wall time, CPU time, peak memory, load.

Shared by the bench scripts (import it; it has no command line of its own): bench/ingest.py, bench/scale.py,
the A/B scripts (ab_arguments, report).

Each measured command runs under ``/usr/bin/time -f`` when that exists (GNU time: the peak
resident memory of the largest process of the command's tree, ``ru_maxrss`` as the issues
quote it, free of this benchmark's own memory), else the command's ``wait4`` rusage. Meanwhile
a thread samples, every 20 ms, the summed resident memory of the whole process tree (the
command plus its worker processes: an upper bound, pages shared after fork are counted once per
process). ``other_cores`` is how many cores the rest of the machine kept busy during the run
(system busy time from /proc/stat minus the command's own CPU time, over the wall time): the
machine is shared, and a figure taken at ``other_cores`` 1.0 on 2 cores is not a quiet one.
"""
from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

GNU_TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None
PAGE = os.sysconf("SC_PAGE_SIZE")
TICK = os.sysconf("SC_CLK_TCK")


@dataclass
class Run:
    """What one command cost. Memory in MB (2**20 bytes), times in seconds."""

    cmd: list[str]
    wall: float
    cpu: float  # user + system of the command and its reaped children
    max_rss: float  # largest single process (GNU time %M / ru_maxrss)
    tree_rss: float  # sampled sum over the process tree
    other_cores: float  # cores busy with other work on the machine meanwhile
    out_bytes: int
    returncode: int
    stderr: str

    def ok(self) -> bool:
        return self.returncode == 0


def _busy_ticks() -> int:
    """Busy jiffies of the whole machine (all CPUs, everything but idle and iowait)."""
    with open("/proc/stat") as fh:
        fields = [int(x) for x in fh.readline().split()[1:]]
    return sum(fields) - fields[3] - (fields[4] if len(fields) > 4 else 0)


def tree_rss_mb(pid: int) -> float:
    """Resident memory (MB) of a process and all its descendants, summed."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/statm") as fh:
                total += int(fh.read().split()[1]) * PAGE
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as fh:
                    todo.extend(int(c) for c in fh.read().split())
        except (OSError, ValueError):
            pass
    return total / 2**20


def run(cmd: list[str], *, out: Path | None = None, cwd: Path | None = None, env: dict | None = None,
        check: bool = True) -> Run:
    """Run ``cmd``; its standard output goes to ``out`` (or is discarded), never into memory here."""
    with tempfile.TemporaryDirectory(prefix="winnowdb-bench-") as tmp:
        timing = Path(tmp) / "time.txt"
        full = ([GNU_TIME, "-q", "-f", "%M %U %S", "-o", str(timing)] if GNU_TIME else []) + list(cmd)
        sink = open(out, "wb") if out is not None else open(os.devnull, "wb")
        err = open(Path(tmp) / "stderr.txt", "w+b")
        busy0, t0 = _busy_ticks(), time.perf_counter()
        proc = subprocess.Popen(full, stdout=sink, stderr=err, cwd=cwd, env=env)
        peak = [0.0]
        stop = threading.Event()

        def sample() -> None:
            while not stop.is_set():
                peak[0] = max(peak[0], tree_rss_mb(proc.pid))
                stop.wait(0.02)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        busy = (_busy_ticks() - busy0) / TICK
        stop.set()
        sampler.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
        sink.close()
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
        err.close()
        max_rss, cpu = usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime
        if GNU_TIME and timing.exists():
            parts = timing.read_text().split()
            if len(parts) >= 3:
                max_rss, cpu = int(parts[-3]) / 1024, float(parts[-2]) + float(parts[-1])
    result = Run(list(cmd), wall, cpu, max_rss, peak[0], max(0.0, (busy - cpu) / wall) if wall else 0.0,
                 out.stat().st_size if out is not None and out.exists() else 0, proc.returncode,
                 stderr)
    if check and not result.ok():
        tail = "\n".join(stderr.strip().splitlines()[-5:])
        raise SystemExit(f"failed ({proc.returncode}): {shlex.join(cmd)}\n{tail}")
    return result


def winnowdb_cli(tree: Path | None = None) -> tuple[list[str], dict]:
    """The command that starts winnowdb, and its environment: this Python's ``-m winnowdb``, or
    the checkout ``tree`` put first on PYTHONPATH (to measure another version in this venv).

    Measured as an installed tool runs: with its modules' bytecode cached (``pip install``
    compiles it; an editable install writes it on first use). So the bytecode of winnowdb (the
    tree's, or the installed one) and of the environment's packages is compiled first, and
    PYTHONDONTWRITEBYTECODE is dropped from the environment: where it is set (as in some
    sandboxes), every command would otherwise compile its modules again, ~0.1-0.25 s each."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if tree is not None:
        env["PYTHONPATH"] = str(Path(tree).resolve())
    compile_bytecode(env)
    return [sys.executable, "-m", "winnowdb"], env


def compile_bytecode(env: dict) -> None:
    """Compile (once: compileall skips what is up to date) the bytecode of the winnowdb that
    ``env`` imports and of this Python's installed packages."""
    import sysconfig

    code = "import os, winnowdb; print(os.path.dirname(winnowdb.__file__))"
    package = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                             check=False).stdout.strip()
    folders = {package, sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]} - {""}
    subprocess.run([sys.executable, "-m", "compileall", "-q", *sorted(folders)], env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)


def describe_winnowdb(env: dict, cwd: Path) -> str:
    """Where the measured winnowdb is imported from, its version and git commit."""
    code = "import winnowdb, os; print(os.path.dirname(winnowdb.__file__), winnowdb.__version__)"
    where = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                           cwd=cwd, check=False).stdout.split()
    if len(where) < 2:
        return "winnowdb not importable"
    src, version = where
    rev = subprocess.run(["git", "-C", src, "log", "-1", "--format=%h"], capture_output=True,
                         text=True, check=False).stdout.strip()
    dirty = subprocess.run(["git", "-C", src, "status", "--porcelain", "--untracked-files=no", "--", ".", "../sql"],
                           capture_output=True, text=True, check=False).stdout.strip()
    code_rev = subprocess.run(["git", "-C", src, "log", "-1", "--format=%h", "--", ".", "../sql"],
                              capture_output=True, text=True, check=False).stdout.strip()
    return (f"winnowdb {version} from {src}; checkout at commit {rev or 'unknown'}"
            f"; winnowdb/ and sql/ last changed in {code_rev or 'unknown'}"
            f"{' (and changed since, uncommitted)' if dirty else ''}")


def fresh_db(path: Path) -> Path:
    """Remove an index file and its write-ahead log, so that the next command starts from nothing."""
    for p in (path, Path(str(path) + ".wal")):
        if p.exists():
            p.unlink()
    return path


def disk_mb(path: Path) -> float:
    """Total size of a file or of every file under a folder, in MB (10**6 bytes)."""
    if path.is_file():
        return path.stat().st_size / 1e6
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            total += os.path.getsize(os.path.join(root, name))
    return total / 1e6


def count_lines(path: Path) -> int:
    with open(path, "rb") as fh:
        return sum(1 for _ in fh)


def ab_arguments(description: str, *, corpus: str, runs: int):
    """The command line every A/B script shares: OLD and NEW trees, --corpus, --data, --runs, --out."""
    import argparse

    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--corpus", default=corpus)
    ap.add_argument("--data", type=Path, default=Path("/tmp/bench-data"))
    ap.add_argument("--runs", type=int, default=runs)
    ap.add_argument("--out", type=Path, default=None)
    return ap


def footer() -> list[str]:
    """The closing lines of a report: when it finished (UTC), and the machine's load then."""
    import datetime as dt

    from machine_info import describe

    ended = dt.datetime.now(dt.timezone.utc)
    return ["", f"Finished {ended:%H:%M} UTC; {describe().split('; ')[-1]}.", ""]


def report(lines: list[str], out: Path | None) -> None:
    """Print a benchmark's markdown report, and write it to ``out`` when given."""
    text = "\n".join(lines)
    print(text)
    if out:
        out.write_text(text)
