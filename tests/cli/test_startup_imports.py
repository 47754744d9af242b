"""Start-up cost of the CLI: what a command imports, checked structurally (not timed).

The CLI runs many times a day, so commands that only read the index must not pay for modules
they do not use: numpy and the fingerprinting code (only writers need them), numba (~0.3 s: only
an add of megabytes loads the compiled kernels, fingerprint/compiled.py), pandas (any Arrow
object handed to DuckDB imports it: 0.3-0.4 s) and pydantic (typer 0.29 imports it to coerce
every option: 0.1 s; pyproject.toml keeps typer below 0.29 for that reason).
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("duckdb", "numpy", "pandas", "pyarrow", "pydantic", "jinja2", "winnowdb.fingerprint", "numba")

_PROBE = """
import json, sys
from winnowdb.cli import app
try:
    app(sys.argv[1:], standalone_mode=False)
except SystemExit:
    pass
print(json.dumps(sorted(m for m in {heavy!r} if m in sys.modules)), file=sys.stderr)
"""


def heavy_imports(*args: str) -> list[str]:
    """Run one CLI command in a fresh interpreter; the heavy modules it imported."""
    done = subprocess.run([sys.executable, "-c", _PROBE.format(heavy=HEAVY), *args],
                          capture_output=True, text=True, timeout=120)
    return json.loads(done.stderr.strip().splitlines()[-1])


def test_help_imports_nothing_heavy():
    assert heavy_imports("--help") == []
    assert heavy_imports("pairs", "--help") == []
    assert heavy_imports("--version") == []


@pytest.mark.parametrize("command", [["pairs", "--top", "5"], ["stats", "--top-common", "0"],
                                     ["pairs", "--top", "0", "--format", "csv"],
                                     ["pairs", "--top", "0", "--format", "json"]])
def test_read_commands_import_only_duckdb(index_db, command):
    assert heavy_imports(*command, "--db", str(index_db)) == ["duckdb"]


@pytest.mark.parametrize("command", [["clusters"], ["clusters", "--method", "super"], ["duplicates"],
                                     ["near-dups"], ["near-dups", "--format", "json"],
                                     # the common fingerprints' text: their documents fingerprinted again
                                     ["stats"]])
def test_numpy_commands_do_not_import_pandas_or_pydantic(fresh_index, command):
    _, db = fresh_index  # clusters writes its table
    imported = heavy_imports(*command, "--db", str(db))
    assert "duckdb" in imported and not {"pandas", "pyarrow", "pydantic"} & set(imported)


@pytest.mark.parametrize("command", ["add", "query"])
def test_fingerprinting_commands_import_numpy_but_not_pandas_or_pydantic(tmp_path, corpus, command):
    db = tmp_path / "w.duckdb"
    if command == "query":  # a file that is not in the index: query fingerprints it
        heavy_imports("add", str(corpus / "essays"), "--db", str(db))
        target = tmp_path / "new.txt"
        target.write_text((corpus / "essays" / "tides.txt").read_text(encoding="utf-8") + "\nA new ending.\n",
                          encoding="utf-8")
    else:
        target = corpus / "essays"
    imported = heavy_imports(command, str(target), "--db", str(db))
    assert "numpy" in imported and "winnowdb.fingerprint" in imported  # the probe sees what they load
    assert not {"pandas", "pydantic", "numba"} & set(imported)  # a small add, a query: numpy only


_THREADS_PROBE = """
import os, sys
import winnowdb.cli  # noqa: F401 (sets OpenBLAS's threads before numpy loads)
import numpy  # noqa: F401
print(os.environ.get("OPENBLAS_NUM_THREADS"), len(os.listdir("/proc/self/task")), file=sys.stderr)
"""


@pytest.mark.parametrize("given,expected", [(None, "1"), ("2", "2")])
def test_cli_keeps_openblas_to_one_thread_unless_told(given, expected):
    # numpy's OpenBLAS would start a spinning thread per core at import; the CLI does no linear
    # algebra. A value the user set is kept.
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    done = subprocess.run([sys.executable, "-c", _THREADS_PROBE], capture_output=True, text=True, env=env, timeout=120)
    value, threads = done.stderr.split()
    assert value == expected
    assert int(threads) == int(expected)  # the main thread, and OpenBLAS's others
