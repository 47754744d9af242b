"""Where the SQL files are found: ``winnowdb/sql`` inside the installed package, through
importlib.resources (the wheel ships the top-level ``sql/`` there), else the source tree's
top-level ``sql/`` (a checkout or an editable install)."""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from winnowdb.store import sqlfiles

REPO = Path(__file__).resolve().parents[2]

_PROBE = """
from winnowdb.store import sqlfiles
print(type(sqlfiles.sql_dir()).__name__)
print(sqlfiles.load("pairs").splitlines()[0])
print(sorted(sqlfiles.parameters(sqlfiles.load("pairs"))))
"""


def test_a_checkout_reads_the_top_level_sql_folder():
    assert Path(sqlfiles.sql_dir()).resolve() == (REPO / "sql").resolve()


def test_the_packaged_sql_folder_is_found_through_importlib_resources(tmp_path):
    """A package that is not a folder of files (here: imported from a zip archive, laid out as the
    wheel lays it out) still finds its SQL: importlib.resources reads it where Path(__file__)
    cannot."""
    archive = tmp_path / "winnowdb.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for path in sorted((REPO / "winnowdb").rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                z.write(path, path.relative_to(REPO).as_posix())
        for path in sorted((REPO / "sql").glob("*.sql")):
            z.write(path, f"winnowdb/sql/{path.name}")
    run = subprocess.run([sys.executable, "-c", _PROBE], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120, env={"PYTHONPATH": str(archive), "PATH": ""})
    assert run.returncode == 0, run.stderr
    kind, first_line, params = run.stdout.splitlines()
    assert kind != "PosixPath"  # a zip entry, read through importlib.resources
    assert first_line == (REPO / "sql" / "pairs.sql").read_text(encoding="utf-8").splitlines()[0]
    assert params == "['max_df', 'min_score', 'min_shared', 'new_label']"
