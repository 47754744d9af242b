"""While a long command waits on DuckDB, a transient line on stderr shows how far its statement has
come (cli/waiting.py): on a terminal only, only after a delay, never in the middle of output
streamed to that terminal, and DuckDB tracks progress only while it is shown."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import winnowdb
from winnowdb.cli import waiting

SAMPLE = Path(__file__).resolve().parents[2] / "sample_corpus"
#: a statement that runs for a while on any machine (a second or more here)
SLOW = "SELECT COUNT(*) FROM (SELECT i % 100003 AS k, COUNT(*) FROM range(30000000) t(i) GROUP BY 1)"


def _tracking(idx) -> bool:
    return bool(idx.store.connection.execute("SELECT current_setting('enable_progress_bar')").fetchall()[0][0])


def _indexed(tmp_path):
    db = tmp_path / "i.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([SAMPLE / "essays"])
    return db


def test_a_long_statement_shows_duckdbs_progress_on_a_terminal(tmp_path, monkeypatch, capsys):
    db = _indexed(tmp_path)
    monkeypatch.setenv("TTY_COMPATIBLE", "1")  # rich takes stderr for a terminal
    monkeypatch.setattr(waiting, "DELAY_S", 0.0)
    monkeypatch.setattr(waiting, "POLL_S", 0.01)
    with winnowdb.open(db, read_only=True) as idx:
        seen: list[float] = []
        progress = idx.store.progress
        monkeypatch.setattr(idx.store, "progress", lambda: seen.append(progress()) or seen[-1])
        assert not _tracking(idx)
        with waiting.waiting_on(idx.store, "counting pairs"):
            assert _tracking(idx)
            assert idx.store.connection.execute(SLOW).fetchall() == [(100003,)]
        assert not _tracking(idx)  # off again after the block
        assert any(0 <= p <= 100 for p in seen), seen  # DuckDB reported a share while it ran
        assert idx.pairs(top=3)  # the connection still answers
    err = capsys.readouterr().err
    assert "counting pairs" in err and "%" in err, err


def test_nothing_is_shown_off_a_terminal_or_over_streamed_output(tmp_path, monkeypatch, capsys):
    db = _indexed(tmp_path)
    monkeypatch.setattr(waiting, "DELAY_S", 0.0)
    monkeypatch.setattr(waiting, "POLL_S", 0.01)
    for env, streaming in (("0", False), ("1", True)):  # stderr not a terminal; CSV to a terminal
        monkeypatch.setenv("TTY_COMPATIBLE", env)
        monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
        with winnowdb.open(db, read_only=True) as idx:
            with waiting.waiting_on(idx.store, "counting pairs", streaming=streaming):
                assert not _tracking(idx)  # DuckDB tracks nothing either
                idx.store.connection.execute(SLOW).fetchall()
        assert capsys.readouterr().err == ""


def test_a_quick_command_shows_nothing(tmp_path):
    db = _indexed(tmp_path)
    env = dict(os.environ, TTY_COMPATIBLE="1")
    r = subprocess.run([sys.executable, "-m", "winnowdb", "pairs", "--top", "3", "--db", str(db)],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0 and r.stdout.strip(), r.stderr
    assert r.stderr == ""  # done within waiting.DELAY_S: no line appeared
