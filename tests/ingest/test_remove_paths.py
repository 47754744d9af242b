"""``remove`` matches paths as before, in time linear in the paths (ingest/remove.py): a given path
matches a stored one that equals it or lies under it as a folder; ``unmatched_paths`` names the
given paths that matched nothing. Checked against the plain definition (every given path against
every stored one) on random trees, with the root, siblings that share a prefix ("b" and "bc"),
files given as folders and paths that are not indexed.
"""
from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st

from winnowdb.ingest.remove import matcher, unmatched_paths

ROOT = os.path.abspath(os.sep)
NAMES = st.sampled_from(["a", "b", "bc", "b.txt", "c", "x y"])
PATHS = st.lists(NAMES, min_size=1, max_size=4).map(lambda parts: os.path.join(ROOT, "r", *parts))


def _plainly(given_path: str, stored: str) -> bool:
    w = str(given_path)
    return stored == w or stored.startswith(w.rstrip(os.sep) + os.sep)


@settings(max_examples=300, deadline=None)
@given(stored=st.sets(PATHS, max_size=12),
       asked=st.lists(st.one_of(PATHS, PATHS.map(os.path.dirname), st.just(ROOT), st.just(os.path.join(ROOT, "r"))),
                      min_size=1, max_size=6))
def test_remove_matches_as_the_plain_definition(stored, asked):
    matches = matcher(asked)
    gone = [p for p in sorted(stored) if matches(p)]
    assert gone == [p for p in sorted(stored) if any(_plainly(w, p) for w in asked)]
    assert unmatched_paths(asked, gone) == [w for w in asked if not any(_plainly(w, g) for g in gone)]


def test_a_folder_does_not_match_a_sibling_that_shares_its_prefix():
    stored = [os.path.join(ROOT, "r", "b", "one.txt"), os.path.join(ROOT, "r", "bc", "two.txt")]
    matches = matcher([os.path.join(ROOT, "r", "b")])
    assert [matches(p) for p in stored] == [True, False]
    assert unmatched_paths([os.path.join(ROOT, "r", "bc"), os.path.join(ROOT, "r")], stored[:1]) == \
        [os.path.join(ROOT, "r", "bc")]
