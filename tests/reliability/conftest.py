"""Fixtures for the reliability tests (issue 4): generated corpora and real subprocesses.

Every test here runs the real ``winnowdb`` command in a child process (``python -m winnowdb``)
on files generated in pytest's tmp directories, because the promises are about what a user sees:
exit codes, one-line messages, what is on disk after a kill, and the child's peak memory.
"""
from __future__ import annotations

import pytest

from .reliability_helpers import make_corpus


@pytest.fixture(scope="session")
def crash_corpus(tmp_path_factory):
    """About 7 MB of generated text in 1,200 files (an ``add`` of a second or two), plus three
    larger files that take the segmented (huge-document) path when the child lowers its
    threshold."""
    root = tmp_path_factory.mktemp("crash_corpus")
    make_corpus(root / "docs", files=1200, size=6000, seed=7)
    make_corpus(root / "big", files=3, size=400_000, seed=8)
    return root.resolve()
