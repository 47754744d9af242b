"""Bad input: every kind of file ``add`` can meet gets a clear one-line reason and the rest of the
files are still indexed; bad --db files get one line and are left untouched.

The matrix is one ``add`` over a folder holding all the awkward cases next to ordinary files,
plus a missing path on the command line. Memory of the big cases is measured on the child
process (``wait4``), see also test_big.py.
"""
from __future__ import annotations

import os
import py_compile
import shutil
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from .reliability_helpers import WINNOWDB, indexed_paths, one_line_error, raw_sql, run, run_measured

PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
                    "0000000d49444154789c6360000002000100e221bc330000000049454e44ae426082")
GOOD = "The winnowing algorithm selects fingerprints from hashes of k-grams, with a guarantee. " * 20

#: name -> expected reason (None: indexed)
EXPECTED = {
    "good.txt": None,
    "empty.txt": None,  # indexed, with no fingerprints
    "latin1.txt": None,
    "utf16.txt": None,
    "invalid_utf8.txt": None,
    "long_line.txt": None,
    "with space.txt": None,
    "quote's \"double\".txt": None,
    "naïve ü 日本 Ω.txt": None,
    "a'; DROP TABLE documents; --.txt": None,
    "image.png": "binary or undecodable",
    "module.pyc": "binary or undecodable",
    "nul_bytes.txt": "binary or undecodable",
    "utf16_no_bom.txt": "binary or undecodable",
    "self_loop": "symbolic link loop",
    "dangling": "broken symbolic link",
    "pipe": "not a regular file (a named pipe)",
    "sock": "not a regular file (a socket)",
}


def _unprivileged() -> list[str] | None:
    """A command prefix under which chmod 000 really denies reading: none needed when not root;
    as root, setpriv dropping the capabilities that bypass file permissions (if it works here)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if not setpriv:
        return None
    prefix = [setpriv, "--bounding-set=-dac_override,-dac_read_search", "--"]
    probe = Path(os.environ.get("TMPDIR", "/tmp")) / f"winnowdb-perm-probe-{os.getpid()}"
    probe.write_text("x")
    probe.chmod(0)
    try:
        r = subprocess.run([*prefix, sys.executable, "-c", f"open({str(probe)!r}).read()"],
                           capture_output=True)
        return prefix if r.returncode != 0 and b"PermissionError" in r.stderr else None
    finally:
        probe.unlink()


UNPRIVILEGED = _unprivileged()


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    d = tmp_path_factory.mktemp("mixed") / "input"
    d.mkdir()
    (d / "good.txt").write_text(GOOD)
    (d / "empty.txt").write_bytes(b"")
    (d / "latin1.txt").write_bytes(("Les élèves naïfs étudient la façade du château, © 2024. " * 10).encode("latin-1"))
    (d / "utf16.txt").write_bytes(("Grüße aus Köln; 日本語のテキストも読めます。 " * 10).encode("utf-16"))
    (d / "utf16_no_bom.txt").write_bytes(("plain words in utf-16 without a byte order mark " * 5).encode("utf-16-le"))
    (d / "invalid_utf8.txt").write_bytes(GOOD.encode() + b" \xff\xfe\xc3\x28 " + GOOD.encode())
    (d / "long_line.txt").write_text(("one very long line without breaks " * 150_000).strip())  # 5 MB
    for name in ("with space.txt", "quote's \"double\".txt", "naïve ü 日本 Ω.txt",
                 "a'; DROP TABLE documents; --.txt"):
        (d / name).write_text(f"{name}: " + GOOD)
    (d / "image.png").write_bytes(PNG)
    src = d.parent / "module.py"
    src.write_text("def f(x):\n    return x * 2\n")
    py_compile.compile(str(src), cfile=str(d / "module.pyc"))
    (d / "nul_bytes.txt").write_bytes(b"text with a NUL\x00 byte in it " * 10)
    os.symlink("self_loop", d / "self_loop")
    os.symlink("no_such_target", d / "dangling")
    (d / "sub").mkdir()
    (d / "sub" / "deeper.txt").write_text("deeper " + GOOD)
    os.symlink("..", d / "sub" / "up")  # a directory loop
    os.mkfifo(d / "pipe")
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(d / "sock"))
    s.close()
    return d


@pytest.fixture(scope="module")
def mixed_add(mixed, tmp_path_factory):
    db = tmp_path_factory.mktemp("mixed_db") / "index.duckdb"
    missing = mixed.parent / "no_such_folder"
    # two workers on every machine: the results in flight (at most OrderedPool's ahead per
    # worker), and so the peak memory, do not depend on how many CPUs there are or how fast the
    # main process takes them
    m = run_measured(["add", mixed, missing, "--db", db, "--jobs", "2"], timeout=300)
    return db, missing, m


def skipped_lines(stderr: str) -> dict[str, str]:
    out = {}
    for line in stderr.splitlines():
        if line.startswith("skipped "):
            path, reason = line[len("skipped "):].rsplit(": ", 1)
            out[path] = reason
    return out


def test_every_bad_file_gets_a_reason_and_the_rest_is_indexed(mixed, mixed_add):
    db, missing, m = mixed_add
    assert "Traceback" not in m.stderr
    assert m.returncode == 2  # a path given on the command line does not exist
    skipped = {Path(p).name: reason for p, reason in skipped_lines(m.stderr).items()}
    assert skipped.pop(missing.name) == "no such file or directory"
    for name, reason in EXPECTED.items():
        if reason is not None:
            assert skipped.get(name) == reason, (name, m.stderr)
    assert set(skipped) == {n for n, r in EXPECTED.items() if r is not None}, m.stderr
    have = {Path(p).name for p in indexed_paths(db)}
    assert have == {n for n, r in EXPECTED.items() if r is None} | {"deeper.txt"}
    added = len(have)
    assert m.stdout.startswith(f"{added} added, 0 updated, 0 unchanged, {len(skipped) + 1} skipped"), m.stdout
    assert m.peak_rss_mb < 1000, m.peak_rss_mb
    r = run(["check", "--db", db])
    assert r.returncode == 0, r.stdout + r.stderr


def test_decoded_texts_are_right(mixed, mixed_add):
    db, _, _ = mixed_add
    rows = dict(raw_sql(db, "SELECT d.path, d.encoding || '|' || t.text FROM documents d "
                            "JOIN document_texts t ON t.doc = d.doc"))
    by_name = {Path(p).name: v.split("|", 1) for p, v in rows.items()}
    assert by_name["latin1.txt"][0] == "cp1252" and by_name["latin1.txt"][1].startswith("Les élèves naïfs")
    assert by_name["utf16.txt"][0] == "utf-16" and by_name["utf16.txt"][1].startswith("Grüße aus Köln; 日本語")
    enc, text = by_name["invalid_utf8.txt"]
    assert enc == "cp1252" and text.startswith(GOOD)  # invalid UTF-8 is read as Windows-1252
    assert by_name["empty.txt"] == ["utf-8", ""]
    counts = dict(raw_sql(db, "SELECT path, fingerprints FROM documents"))
    assert counts[str(mixed / "empty.txt")] == 0
    assert counts[str(mixed / "long_line.txt")] > 10_000


def test_odd_names_are_queryable(mixed, mixed_add):
    db, _, _ = mixed_add
    for name in ("with space.txt", "quote's \"double\".txt", "naïve ü 日本 Ω.txt", "a'; DROP TABLE documents; --.txt"):
        r = run(["query", mixed / name, "--db", db, "-f", "json", "-n", "0"])
        assert r.returncode == 0, r.stderr
        assert str(mixed / "good.txt") in r.stdout  # they all quote GOOD
        r = run(["compare", mixed / name, mixed / "good.txt", "--db", db, "-f", "json"])
        assert r.returncode == 0, r.stderr


def test_adding_again_changes_nothing(mixed, mixed_add):
    db, _, first = mixed_add
    r = run(["add", mixed, "--db", db])
    assert r.returncode == 0, r.stderr
    n = len(indexed_paths(db))
    assert r.stdout.startswith(f"0 added, 0 updated, {n} unchanged"), r.stdout


@pytest.mark.skipif(UNPRIVILEGED is None, reason="running as root and cannot drop the permission "
                                                  "override capabilities (setpriv) here")
def test_unreadable_file_and_folder(tmp_path):
    d = tmp_path / "perm"
    (d / "closed").mkdir(parents=True)
    (d / "good.txt").write_text(GOOD)
    (d / "secret.txt").write_text("you cannot read me " * 20)
    (d / "closed" / "inside.txt").write_text(GOOD)
    (d / "secret.txt").chmod(0)
    (d / "closed").chmod(0)
    db = tmp_path / "perm.duckdb"
    try:
        r = run(["add", d, "--db", db], cmd=[*UNPRIVILEGED, *WINNOWDB])
    finally:
        (d / "closed").chmod(stat.S_IRWXU)
        (d / "secret.txt").chmod(stat.S_IRUSR | stat.S_IWUSR)
    assert r.returncode == 0, r.stderr
    skipped = {Path(p).name: reason for p, reason in skipped_lines(r.stderr).items()}
    assert skipped == {"secret.txt": "permission denied", "closed": "cannot list directory (permission denied)"}
    assert {Path(p).name for p in indexed_paths(db)} == {"good.txt"}


def test_permission_error_while_reading_is_a_reason(tmp_path, monkeypatch):
    # the same path without relying on file modes: the OS refuses the open
    from winnowdb.ingest import read as sources

    f = tmp_path / "x.txt"
    f.write_text("hello")

    def refuse(*a, **k):
        raise PermissionError(13, "Permission denied", str(f))

    monkeypatch.setattr(sources.os, "open", refuse)
    assert sources.read_source(f) == sources.Skipped(str(f), "permission denied")


@pytest.mark.slow
def test_ten_thousand_tiny_files(tmp_path):
    d = tmp_path / "tiny"
    for i in range(10_000):
        sub = d / f"d{i // 1000}"
        if i % 1000 == 0:
            sub.mkdir(parents=True)
        (sub / f"f{i:05d}.txt").write_text(f"tiny file {i} says hello to the world, number {i * 7}\n")
    db = tmp_path / "tiny.duckdb"
    m = run_measured(["add", d, "--db", db, "--jobs", "2"], timeout=600)  # as in mixed_add
    assert m.returncode == 0, m.stderr
    assert m.stdout.startswith("10000 added"), m.stdout
    assert m.peak_rss_mb < 600, m.peak_rss_mb
    again = run_measured(["add", d, "--db", db, "--jobs", "2"], timeout=600)
    assert again.stdout.startswith("0 added, 0 updated, 10000 unchanged"), again.stdout
    print(f"10,000 tiny files: add {m.seconds:.1f}s, peak RSS {m.peak_rss_mb:.0f} MB; "
          f"unchanged re-add {again.seconds:.1f}s, {again.peak_rss_mb:.0f} MB")


@pytest.mark.parametrize("content,words", [
    (b"plain text, not a database\n", "is not a winnowdb index (not a DuckDB database file)"),
    (b"", "is not a winnowdb index (not a DuckDB database file)"),
    (os.urandom(50_000), "is not a winnowdb index (not a DuckDB database file)"),
    # DuckDB itself would try to download its SQLite extension to open this one
    (b"SQLite format 3\x00" + bytes(4080), "is not a winnowdb index (it is a SQLite database)"),
], ids=["text", "empty", "random", "sqlite"])
def test_non_duckdb_file_as_db_is_refused_and_untouched(tmp_path, content, words):
    db = tmp_path / "notes.duckdb"
    db.write_bytes(content)
    good = tmp_path / "good.txt"
    good.write_text(GOOD)
    for args in (["add", good], ["stats"], ["query", good], ["sql", "SELECT 1"], ["check"]):
        r = run([*args, "--db", db])
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert words in one_line_error(r.stderr)
    assert db.read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.txt", "notes.duckdb"]


def test_db_paths_that_cannot_be_indexes(tmp_path):
    good = tmp_path / "good.txt"
    good.write_text(GOOD)
    r = run(["add", good, "--db", tmp_path])
    assert r.returncode == 2 and "is a directory, not an index file" in one_line_error(r.stderr)
    r = run(["add", good, "--db", tmp_path / "missing_folder" / "x.duckdb"])
    assert r.returncode == 2 and "folder" in one_line_error(r.stderr) and "does not exist" in r.stderr
    r = run(["stats", "--db", tmp_path / "none.duckdb"])
    assert r.returncode == 2 and "no index at" in one_line_error(r.stderr)
    os.mkfifo(tmp_path / "pipe.duckdb")  # opening a named pipe to read its header would hang
    for args in (["add", good], ["stats"], ["check"]):
        r = run([*args, "--db", tmp_path / "pipe.duckdb"], timeout=60)
        assert r.returncode == 2 and "not a regular file" in one_line_error(r.stderr)


def test_settings_mismatch(tmp_path):
    good = tmp_path / "good.txt"
    good.write_text(GOOD)
    db = tmp_path / "i.duckdb"
    assert run(["add", good, "--db", db, "--k", "15", "--w", "10"]).returncode == 0
    for flag, value in (("--k", "20"), ("--w", "4"), ("--normalizer", "words"), ("--selection", "all")):
        r = run(["add", good, "--db", db, flag, value])
        assert r.returncode == 2, r.stderr
        msg = one_line_error(r.stderr)
        key = flag.lstrip("-")
        assert f"was created with {key}=" in msg and f"not {key}={value}" in msg, msg
        assert "settings are fixed per index" in msg
    assert run(["add", good, "--db", db, "--k", "15"]).returncode == 0  # the same value is fine


def test_invalid_option_values(tmp_path):
    good = tmp_path / "good.txt"
    good.write_text(GOOD)
    r = run(["add", good, "--db", tmp_path / "i.duckdb", "--normalizer", "nonsense"])
    assert r.returncode == 2 and "unknown normalizer 'nonsense'" in one_line_error(r.stderr)
    assert not (tmp_path / "i.duckdb").exists()  # nothing created for a refused command
