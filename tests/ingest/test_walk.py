"""The walk that finds an add's files (os.scandir, one stat per plain file): every regular file once,
resolved, with its size, in a stable depth-first order; links followed and resolved; ignored and
hidden folders skipped."""
from __future__ import annotations

import os
import time

from winnowdb.ingest.read import Skipped
from winnowdb.ingest.walk import walk


def _tree(root):
    (root / "b").mkdir(parents=True)
    (root / "a" / "deep").mkdir(parents=True)
    (root / ".hidden").mkdir()
    (root / "__pycache__").mkdir()
    for rel, text in {"z.txt": "zz", "b/one.txt": "1", "a/two.txt": "22", "a/deep/three.txt": "333",
                      ".hidden/h.txt": "h", "__pycache__/c.txt": "c", "a/.dotfile": "dot"}.items():
        (root / rel).write_text(text)


def test_walk_lists_each_file_once_resolved_with_its_size_in_a_stable_order(tmp_path):
    root = tmp_path / "corpus"
    _tree(root)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "linked.txt").write_text("linked!")
    os.symlink(tmp_path / "elsewhere", root / "b" / "link")  # a folder reached through a link
    os.symlink(root / "z.txt", root / "zz_alias.txt")  # the same file twice
    before = time.time_ns()
    got = walk([root, root / "a" / "two.txt"])
    listed = [item for item, _ in got if not isinstance(item, Skipped)]
    files = [(item.path, item.size) for item in listed]
    real = os.path.realpath(root)
    assert files == [
        (f"{real}/z.txt", 2),
        (f"{real}/a/.dotfile", 3),  # hidden files are files; hidden folders are skipped
        (f"{real}/a/two.txt", 2),
        (f"{real}/a/deep/three.txt", 3),
        (f"{real}/b/one.txt", 1),  # a folder's files before its sub-folders
        (f"{os.path.realpath(tmp_path)}/elsewhere/linked.txt", 7),
    ]
    assert {root for _, root in got} == {real}
    assert all(size == os.stat(path).st_size for path, size in files)
    # each with its time, from the same stat, and the time the walk looked before it
    assert all(item.mtime_ns == os.stat(item.path).st_mtime_ns for item in listed)
    assert all(before <= item.seen_ns <= time.time_ns() for item in listed)


def test_walk_reports_what_it_cannot_index(tmp_path):
    root = tmp_path / "corpus"
    root.mkdir()
    os.symlink(root / "missing.txt", root / "broken.txt")
    os.symlink(root / "loop", root / "loop")
    os.mkfifo(root / "pipe")
    got = walk([root, tmp_path / "nope.txt"])
    reasons = {os.path.basename(item.path): item.reason for item, _ in got if isinstance(item, Skipped)}
    assert reasons == {"broken.txt": "broken symbolic link", "loop": "symbolic link loop",
                       "pipe": "not a regular file (a named pipe)", "nope.txt": "no such file or directory"}


def test_the_walk_pauses_the_garbage_collector_and_restores_it(tmp_path):
    import gc

    from winnowdb.ingest.walk import paused_gc

    (tmp_path / "a.txt").write_text("a")
    states = []
    with paused_gc():
        states.append(gc.isenabled())
    states.append(gc.isenabled())
    gc.disable()
    try:
        walk([tmp_path])
        states.append(gc.isenabled())  # left disabled, as it was
    finally:
        gc.enable()
    walk([tmp_path])
    states.append(gc.isenabled())
    assert states == [False, True, False, True]
