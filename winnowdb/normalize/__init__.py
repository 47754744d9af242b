"""Stage 2 of the data flow: a document's text becomes comparable units.

One module per normalizer, each a function ``str -> units.Normalized`` (the shared contract:
unit ids, and each unit's span in the original text):

* ``text``: letters and digits folded, everything else dropped (the Winnowing paper's);
* ``prose``: letters folded as ``text`` folds them, one unit for the run between two words;
* ``words``: Broder's words, one unit each;
* ``code``: source code as tokens (``code_syntax`` holds what the fast tokenizer knows).

``fold`` holds the character tables the text normalizers share. ``normalize_as`` reads a text
the way a document stored under a given normalizer name was read.
"""
from __future__ import annotations

__all__ = ["normalize_as"]


def normalize_as(text: str, normalizer: str, compiled: bool = False):
    """``text`` normalized as a document stored with ``normalizer`` (``documents.normalizer``:
    ``prose``, ``text``, ``words`` or ``code:LANG``): the units its fingerprints' positions count.
    ``compiled``: through the compiled kernels where there is one (``prose``, ``code``), the same
    units."""
    if normalizer.startswith("code:"):
        from .code import normalize_code

        return normalize_code(text, normalizer[len("code:"):], compiled=compiled)
    if normalizer == "prose":
        from .prose import normalize_prose

        return normalize_prose(text, compiled=compiled)
    if normalizer == "words":
        from .words import normalize_words

        return normalize_words(text)
    from .text import normalize_text

    return normalize_text(text)
