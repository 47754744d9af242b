"""``read_source`` reads every byte of a file: in one ``read`` when the file still has the size
its ``fstat`` gave, and on to the end of the file when it has not (a file whose reported size is
not its length, as a /proc file reports 0)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from winnowdb.ingest.read import Skipped, Source, read_source


@pytest.mark.parametrize("size", [0, 1, 4095, 4096, (1 << 20) + 3, 3 * (1 << 20) + 7])
def test_a_file_is_read_whole_at_any_size(tmp_path, size):
    text = ("winnowing " * (size // 10 + 1))[:size]
    path = tmp_path / "doc.txt"
    path.write_text(text, encoding="utf-8")
    src = read_source(path)
    assert isinstance(src, Source)
    assert src.text == text


def test_a_file_longer_than_its_reported_size_is_read_to_its_end():
    proc = Path("/proc/version")  # Linux, as winnowdb's workers are (PR_SET_PDEATHSIG)
    assert proc.stat().st_size == 0
    want = proc.read_text(encoding="utf-8")
    src = read_source(proc)
    assert isinstance(src, Source)
    assert src.text == want and len(want) > 10


def test_a_file_larger_than_the_limit_is_left_unread(tmp_path):
    # add's workers leave a file that may be a huge document to the main process: the size is
    # taken on the open file, and a file of exactly the limit is still read
    path = tmp_path / "doc.txt"
    path.write_text("x" * 100, encoding="utf-8")
    assert read_source(path, larger_than=99) is None
    src = read_source(path, larger_than=100)
    assert isinstance(src, Source) and src.text == "x" * 100
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert read_source(fifo, larger_than=0) == Skipped(str(fifo), "not a regular file")
