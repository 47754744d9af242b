#!/usr/bin/env python3
"""What DuckDB spills beside an index while winnowdb's commands run (the spill cap of
winnowdb/store/limits.py: eight times the index's size, at least 10 GiB).

usage:
    python bench/spill.py --db INDEX [--memory 1GB] [--out FILE.md] [--tree DIR] -- 'pairs --top 10' 'check' ...

Each command runs as a fresh CLI process (``python -m winnowdb COMMAND --db INDEX``, with
``WINNOWDB_MEMORY_LIMIT`` set to ``--memory``: a lower limit spills more) while this script looks
at the size of DuckDB's temporary folder (``INDEX.tmp``) every 0.1 s; the table gives each
command's exit status, wall time, peak spill, the peak against the index file, and the peak
resident memory of the process. ``--tree`` puts a winnowdb checkout first on PYTHONPATH.
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from machine_info import describe  # noqa: E402


def folder_bytes(path: str) -> int:
    """Bytes allocated to the files directly in ``path`` (0 when it does not exist)."""
    total = 0
    try:
        with os.scandir(path) as it:
            for entry in it:
                try:
                    total += entry.stat(follow_symlinks=False).st_blocks * 512
                except OSError:
                    pass
    except OSError:
        pass
    return total


def measure(db: str, command: list[str], env: dict) -> dict:
    """Run one command, polling the index's temporary folder; its figures."""
    cmd = [sys.executable, "-m", "winnowdb", *command, "--db", db]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    peak, status, usage = 0, None, None
    while status is None:
        peak = max(peak, folder_bytes(db + ".tmp"))
        pid, wait_status, ru = os.wait4(proc.pid, os.WNOHANG)
        if pid:  # reaped here: its own resource usage (peak RSS), not the children's maximum so far
            status, usage = os.waitstatus_to_exitcode(wait_status), ru
        else:
            time.sleep(0.1)
    proc.returncode = status
    seconds = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace").strip() if proc.stderr else ""
    return {"command": " ".join(command), "rc": status, "seconds": seconds, "peak": peak,
            "rss_kb": usage.ru_maxrss, "error": err.splitlines()[-1] if status else ""}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", required=True, help="the index (a copy: clusters writes a table into it)")
    ap.add_argument("--memory", default="", help="WINNOWDB_MEMORY_LIMIT for the commands (default: winnowdb's)")
    ap.add_argument("--tree", type=Path, default=None, help="a winnowdb checkout to run (PYTHONPATH)")
    ap.add_argument("--out", type=Path, default=None, help="write the markdown report here too")
    ap.add_argument("commands", nargs="+", help="winnowdb commands, each one shell-quoted string")
    args = ap.parse_args()
    env = dict(os.environ)
    if args.memory:
        env["WINNOWDB_MEMORY_LIMIT"] = args.memory
    if args.tree:
        env["PYTHONPATH"] = str(args.tree) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    size = os.path.getsize(args.db)
    rows = [measure(args.db, shlex.split(c), env) for c in args.commands]
    lines = [f"# What DuckDB spills beside an index ({dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC)", "",
             f"- machine: {describe()}",
             f"- command: `python bench/spill.py {' '.join(shlex.quote(a) for a in sys.argv[1:])}`",
             f"- index: {args.db}, {size / 2**30:.2f} GiB; WINNOWDB_MEMORY_LIMIT={args.memory or '(default)'}", "",
             "| command | exit | wall s | peak spill, GiB | spill / index file | peak RSS, GiB |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        rss = f"{r['rss_kb'] / 2**20:.2f}"
        lines.append(f"| `{r['command']}` | {r['rc']} | {r['seconds']:.1f} | {r['peak'] / 2**30:.2f} | "
                     f"{r['peak'] / size:.2f} | {rss} |")
    errors = [f"- `{r['command']}`: {r['error']}" for r in rows if r["error"]]
    text = "\n".join(lines + ([""] + errors if errors else [])) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
