"""Which normalizer reads a file, under an index's settings (light: no numpy, for every command).

An index is made with one ``normalizer`` setting: ``auto`` (code files by extension are tokenized
as code, everything else is read as text), ``code`` (every file is code), or one of the text
normalizers, which read every file as natural-language text:

* ``prose``: letters and digits folded, one unit for the spaces or punctuation between two words
  (the default for text in indexes made since it was added);
* ``text``: letters and digits only (the Winnowing paper's normalizer);
* ``words``: Broder's words, one unit each.

How an ``auto`` or ``code`` index reads text is its ``text_normalizer`` setting; indexes made
before ``prose`` existed have none and read text with ``text``.
"""
from __future__ import annotations

from .errors import WinnowError
from .languages import language_for

__all__ = ["NORMALIZERS", "TEXT_NORMALIZERS", "TEXT_UNITS", "text_normalizer", "choose_normalizer"]

#: normalizer settings an index can be created with
NORMALIZERS = ("auto", "prose", "text", "words", "code")
#: the normalizers that read a file as natural-language text
TEXT_NORMALIZERS = ("prose", "text", "words")
#: what k and w count, per text normalizer
TEXT_UNITS = {"prose": "units", "text": "characters", "words": "words"}


def text_normalizer(settings: dict[str, str]) -> str:
    """How an index reads files that are not code: its ``normalizer`` when that is prose, text
    or words; else (auto, code) its ``text_normalizer`` setting -- ``text`` for indexes made
    before the prose normalizer existed, which have none. ``WinnowError`` for a value this
    winnowdb does not know (a later version's, or a hand edit): documents could not be read as the
    index reads them."""
    setting = settings.get("normalizer", "text")
    name = setting if setting in TEXT_NORMALIZERS else settings.get("text_normalizer", "text")
    if name not in TEXT_NORMALIZERS:
        raise WinnowError(f"this index reads text with the {name!r} normalizer, which this winnowdb does not "
                          f"know (known: {', '.join(TEXT_NORMALIZERS)}); `winnowdb check` reports it")
    return name


def choose_normalizer(settings: dict[str, str], path: str | None,
                      language: str | None = None) -> tuple[str, str | None]:
    """(family, language) for one file under an index's settings: ``auto`` picks code for known
    code extensions, else the index's text normalizer.

    ``language`` forces the programming language (for files whose extension does not say).
    """
    setting = settings.get("normalizer", "text")
    if setting in TEXT_NORMALIZERS:
        return setting, None
    lang = language or (language_for(path) if path else None)
    if lang is not None:
        return "code", lang
    if setting == "code":
        raise ValueError(f"{path}: cannot tell the programming language (use --language)")
    return text_normalizer(settings), None
