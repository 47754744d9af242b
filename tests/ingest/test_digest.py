"""The normalized digest (``documents.normalized_hash``) by digest version: a new index hashes the
units of prose and text as 4 bytes each (``settings.DIGEST_VERSION``), an index made before keeps
hashing every unit as 8 bytes, so its old and new documents stay comparable; a huge document's
digest, computed segment by segment, is the whole document's."""
from __future__ import annotations

import hashlib
import subprocess
import sys

import duckdb
import numpy as np

import winnowdb
from winnowdb.ingest import segmented
from winnowdb.normalize.code import normalize_code
from winnowdb.normalize.prose import normalize_prose
from winnowdb.settings import DIGEST_VERSION

PROSE = "Winnowing selects fingerprints from hashes of k-grams.\nIt guarantees that matches are found.\n"
CODE = "def winnow(hashes, w):\n    return [min(hashes[i:i + w]) for i in range(len(hashes) - w + 1)]\n"


def digest(units: np.ndarray, dtype: str) -> str:
    return hashlib.blake2b(units.astype(dtype).tobytes(), digest_size=16).hexdigest()


def stored(db) -> dict[str, tuple[str, str]]:
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("SELECT path, normalizer, normalized_hash FROM documents").fetchall()
    return {path.rsplit("/", 1)[-1]: (normalizer, value) for path, normalizer, value in rows}


def test_a_new_index_digests_prose_as_four_bytes_a_unit_and_code_as_eight(tmp_path):
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "essay.txt").write_text(PROSE, encoding="utf-8")
    (tmp_path / "c" / "winnow.py").write_text(CODE, encoding="utf-8")
    db = tmp_path / "new.duckdb"
    with winnowdb.open(db) as idx:
        assert idx.settings["digest_version"] == DIGEST_VERSION
        idx.add([tmp_path / "c"], jobs=1)
    got = stored(db)
    assert got["essay.txt"] == ("prose", digest(normalize_prose(PROSE).units, "<u4"))
    assert got["winnow.py"][0] == "code:python"
    assert got["winnow.py"][1] == digest(normalize_code(CODE, "python").units, "<u8")


def test_an_index_made_before_keeps_eight_byte_digests_for_every_document(tmp_path):
    db = tmp_path / "old.duckdb"
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "one.txt").write_text(PROSE, encoding="utf-8")
    with winnowdb.open(db) as idx:
        idx.add([tmp_path / "a"], jobs=1)
    with duckdb.connect(str(db)) as con:  # as an index made before digest versions: 8 bytes a unit
        con.execute("DELETE FROM settings WHERE key = 'digest_version'")
        con.execute("UPDATE documents SET normalized_hash = ?", [digest(normalize_prose(PROSE).units, "<u8")])
    (tmp_path / "b").mkdir()  # the same words, other spacing and case: lexically equivalent
    (tmp_path / "b" / "two.txt").write_text(PROSE.upper().replace(" ", "   "), encoding="utf-8")
    with winnowdb.open(db) as idx:
        idx.add([tmp_path / "b"], jobs=1)
        assert "digest_version" not in idx.settings
    got = stored(db)
    assert got["two.txt"] == got["one.txt"] == ("prose", digest(normalize_prose(PROSE).units, "<u8"))


def test_an_unknown_digest_version_is_refused_in_one_line(tmp_path):
    db = tmp_path / "future.duckdb"
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "one.txt").write_text(PROSE, encoding="utf-8")
    with winnowdb.open(db):
        pass
    with duckdb.connect(str(db)) as con:
        con.execute("UPDATE settings SET value = 'blake3-units-v9' WHERE key = 'digest_version'")
    add = subprocess.run([sys.executable, "-m", "winnowdb", "add", str(tmp_path / "a"), "--db", str(db)],
                         capture_output=True, text=True, cwd=tmp_path)
    assert add.returncode != 0
    assert "blake3-units-v9" in add.stderr and "Traceback" not in add.stderr, add.stderr
    check = subprocess.run([sys.executable, "-m", "winnowdb", "check", "--db", str(db)],
                           capture_output=True, text=True, cwd=tmp_path)
    assert check.returncode != 0 and "digest_version" in check.stdout + check.stderr, check.stdout + check.stderr


def test_a_huge_documents_digest_is_the_whole_documents(tmp_path, monkeypatch):
    monkeypatch.setattr(segmented, "HUGE_CHARS", 2_000)  # stored in segments from 2,000 characters
    text = PROSE * 200
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "huge.txt").write_text(text, encoding="utf-8")
    db = tmp_path / "huge.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([tmp_path / "c"], jobs=1)
    assert stored(db)["huge.txt"] == ("prose", digest(normalize_prose(text).units, "<u4"))
