"""What one document becomes under an index's settings: its normalizer, units, fingerprints, simhash.

The one recipe every path shares: ``add`` (in worker processes), ``upgrade`` (code fingerprinted
again from stored texts) and the read path (a query file or a comparison side that is not
indexed). ``choose_normalizer`` decides how a file is read (code by extension, or the index's text
normalizer); ``fingerprint_source`` normalizes and fingerprints it with the k, w and salt of its
family (``settings.IndexSettings``).
"""
from __future__ import annotations

import hashlib
from collections.abc import Mapping

import numpy as np

from ..fingerprint.hashing import kgram_hashes
from ..fingerprint.simhash import units_simhash
from ..fingerprint.winnow import Fingerprints, fingerprint
from ..normalize import normalize_as
from ..normalize.prose import SEPARATORS
from ..normalize.text import text_units
from ..normalize.units import units_bytes
from ..settings import TEXT_NORMALIZERS, IndexSettings, text_normalizer
from .languages import language_for

__all__ = ["choose_normalizer", "fingerprint_source", "fingerprint_sources", "code_text_hashes", "document_simhash",
           "document_simhashes", "normalized_hash", "set_off_edges", "with_rows"]


def choose_normalizer(settings: Mapping[str, str], path: str | None,
                      language: str | None = None) -> tuple[str, str | None]:
    """(family, language) for one file under an index's settings: ``auto`` picks code for known
    code extensions, else the index's text normalizer. ``language`` forces the programming
    language (for files whose extension does not say). ``ValueError`` when an index of code
    cannot tell a file's language."""
    setting = settings.get("normalizer", "text")
    if setting in TEXT_NORMALIZERS:
        return setting, None
    lang = language or (language_for(path) if path else None)
    if lang is not None:
        return "code", lang
    if setting == "code":
        raise ValueError(f"{path}: cannot tell the programming language (use --language)")
    return text_normalizer(settings), None


def fingerprint_source(text: str, settings: Mapping[str, str], *, path: str | None = None,
                       language: str | None = None, every_kgram: bool = False):
    """(normalizer name, Normalized, Fingerprints) of a text under an index's settings.

    Code is tokenized (k and w count tokens: settings code_k, code_w); text is read as prose
    (letters, spaces and marks: k and w count them), folded to letters and digits (k and w count
    characters) or, with the words normalizer, to words.
    ``every_kgram`` keeps the hash of every k-gram instead of winnowing. Boilerplate is stored
    that way: in a document that embeds the boilerplate, windows near its edges can select
    boilerplate k-grams that winnowing the boilerplate file alone would not, and those must still
    be recognised as boilerplate. Prose boilerplate that begins (ends) with a letter also gets
    the k-grams it would begin (end) with when set off by white space or punctuation in a document,
    which its own file does not show (white space at a file's ends is dropped).
    """
    settings = settings if isinstance(settings, IndexSettings) else IndexSettings(settings)
    family, lang = choose_normalizer(settings, path, language)
    name = f"code:{lang}" if family == "code" else family
    norm = normalize_as(text, name)
    k, w = settings.kw(family)
    selection = "all" if every_kgram else settings.selection
    fps = fingerprint(norm, k, w, salt=settings.salt(family), selection=selection, m=settings.mod_m)
    if every_kgram and family == "prose":
        fps = with_rows(fps, set_off_edges(norm, norm, len(norm), k))
    return name, norm, fps


def fingerprint_sources(texts: list[str], settings: Mapping[str, str], paths: list[str | None], *,
                        language: str | None = None,
                        compiled: bool = False) -> list[tuple[str, object, Fingerprints] | ValueError]:
    """``fingerprint_source`` of many texts (not boilerplate), the documents of each normalizer
    fingerprinted in one pass (``fingerprint.batch.fingerprint_many``, through its compiled
    kernels when ``compiled``: the same rows, bit for bit). Each item is (normalizer name,
    Normalized, Fingerprints), or the ValueError ``fingerprint_source`` would raise for that text."""
    from ..fingerprint.batch import fingerprint_many

    settings = settings if isinstance(settings, IndexSettings) else IndexSettings(settings)
    out: list = [None] * len(texts)
    groups: dict[str, list[int]] = {}
    norms = {}
    for i, (text, path) in enumerate(zip(texts, paths)):
        try:
            family, lang = choose_normalizer(settings, path, language)
            name = f"code:{lang}" if family == "code" else family
            norms[i] = (name, family, normalize_as(text, name, compiled=compiled))
        except ValueError as exc:
            out[i] = exc
            continue
        groups.setdefault(family, []).append(i)
    for family, members in groups.items():
        k, w = settings.kw(family)
        fps = fingerprint_many([norms[i][2] for i in members], k, w, salt=settings.salt(family),
                               selection=settings.selection, m=settings.mod_m, compiled=compiled)
        for i, f in zip(members, fps):
            out[i] = (norms[i][0], norms[i][2], f)
    return out


def code_text_hashes(texts: list[str], settings: Mapping[str, str], *, every_kgram: bool = False,
                     compiled: bool = False) -> list[np.ndarray] | None:
    """The text family of code documents (issue 21): each text read as prose and winnowed in
    short k-grams (settings code_text_k / code_text_w), as its distinct hashes (int64; in no
    particular order). None when the index records no text family (``IndexSettings.code_text_kw``).
    ``every_kgram`` keeps every k-gram (boilerplate, as ``fingerprint_source``). One pass over
    all the texts (``fingerprint.batch.fingerprint_many``); with ``compiled``, the prose units and
    the distinct hashes come from the compiled kernels too (the same sets)."""
    from ..fingerprint.batch import fingerprint_many
    from ..fingerprint.compiled import compiled_kernels

    settings = settings if isinstance(settings, IndexSettings) else IndexSettings(settings)
    kw = settings.code_text_kw()
    if kw is None:
        return None
    if not texts:
        return []
    norms = [normalize_as(text, "prose", compiled=compiled) for text in texts]
    fps = fingerprint_many(norms, kw[0], kw[1], salt=settings.salt("prose"),
                           selection="all" if every_kgram else "winnow", compiled=compiled)
    kernels = compiled_kernels() if compiled else None
    if kernels is None:
        return [np.unique(f.hash) for f in fps]
    offsets = np.zeros(len(fps) + 1, dtype=np.int64)
    np.cumsum([f.hash.shape[0] for f in fps], out=offsets[1:])
    hashes = np.concatenate([f.hash for f in fps])
    first, _ = kernels.first_in_docs(hashes, offsets)
    return [hashes[offsets[i]:offsets[i + 1]][first[offsets[i]:offsets[i + 1]]] for i in range(len(fps))]


def document_simhashes(texts: list[str], normalized: list, compiled: bool = False) -> list[int]:
    """``document_simhash`` of many documents in one pass (``fingerprint.batch.simhash_many``,
    through its compiled kernels when ``compiled``). ``normalized[i]`` is None, or (normalizer
    name, Normalized) of the text when the caller has it: read as ``text``, its units are the
    simhash's; as ``prose``, they are once its separator units are left out (which are never a
    letter: tests/normalize/test_prose.py)."""
    from ..fingerprint.batch import simhash_many

    units, skip = [], []
    for text, given in zip(texts, normalized):
        if given is not None and given[0] in ("text", "prose"):
            units.append(given[1].units)
            skip.append(SEPARATORS if given[0] == "prose" else ())
        else:
            units.append(text_units(text))
            skip.append(())
    return simhash_many(units, compiled=compiled, skip=skip)


def document_simhash(text: str, normalized=None) -> int:
    """The simhash of a document's text (signed 64-bit; 0 when it has no letters or digits): of
    its text units (``normalize.text``) whatever normalizer reads it, so simhashes compare
    across indexes. ``normalized`` may pass ``normalize_text(text)`` when the caller has it."""
    return units_simhash(normalized.units if normalized is not None else text_units(text))


def normalized_hash(norm, width: int = 8) -> str:
    """The ``normalized_hash`` of a document: equal for lexically-equivalent documents. ``width``:
    the bytes per unit it hashes (``settings.digest_width`` of the document's normalizer)."""
    return hashlib.blake2b(units_bytes(norm.units, width), digest_size=16).hexdigest()


def set_off_edges(head, tail, units: int, k: int) -> Fingerprints:
    """The k-grams a prose text makes where a document sets it off: a separator unit (space or
    mark) and its first k - 1 units, where it begins with a letter; its last k - 1 units and a
    separator, where it ends with one. ``head`` holds (at least k) units from the text's start,
    ``tail`` from its end (offsets already in the whole text), ``units`` its length: the rows get
    the positions and spans of its first and last k-grams."""
    salt = IndexSettings.salt("prose")
    rows = []  # (hash, pos, start, stop)
    if units >= k:
        for sep in SEPARATORS:
            sep_unit = np.array([sep], dtype=np.uint64)
            if int(head.units[0]) not in SEPARATORS:
                gram = np.concatenate((sep_unit, head.units[:k - 1]))
                rows.append((int(kgram_hashes(gram, k, salt)[0]), 0, int(head.start[0]), int(head.stop[k - 2])))
            if int(tail.units[-1]) not in SEPARATORS:
                gram = np.concatenate((tail.units[len(tail) - k + 1:], sep_unit))
                rows.append((int(kgram_hashes(gram, k, salt)[0]), units - k,
                             int(tail.start[len(tail) - k + 1]), int(tail.stop[-1])))
    return Fingerprints(*(np.array([r[i] for r in rows], dtype=np.int64) for i in range(4)))


def with_rows(fps: Fingerprints, more: Fingerprints) -> Fingerprints:
    """``fps`` and ``more`` together, in position order (stable)."""
    if not len(more):
        return fps
    cols = [np.concatenate((getattr(fps, f), getattr(more, f))) for f in ("hash", "pos", "start", "stop")]
    order = np.argsort(cols[1], kind="stable")
    return Fingerprints(*(c[order] for c in cols))
