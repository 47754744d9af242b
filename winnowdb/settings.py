"""Index settings, in one place: their names, defaults, validation, versions, and what they mean
for each family of documents (k and w, the hash salt).

An index is created with fixed settings (stored as text in its ``settings`` table); every later
use reads them through ``IndexSettings``, a read-only mapping of the stored values with typed
accessors. The versions recorded here name what a stored fingerprint depends on: change the
hashing in ``fingerprint/hashing.py``, the simhash features in ``fingerprint/simhash.py`` or the
code tokens in ``normalize/code.py`` and the matching version must change too (tests pin each).

Light on purpose (no numpy, no DuckDB): every command reads settings.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Iterator

from .errors import WinnowError

__all__ = ["IndexSettings", "NORMALIZERS", "TEXT_NORMALIZERS", "TEXT_UNITS", "SELECTIONS", "DEFAULTS",
           "LETTERS_DEFAULTS", "FIXED_SETTINGS", "REQUIRED_SETTINGS", "POSITIVE_SETTINGS", "COUNT_SETTINGS", "SALTS",
           "HASH_VERSION", "SIMHASH_VERSION", "CODE_TOKENS_VERSION", "DIGEST_VERSION", "CODE_TEXT_DEFAULTS",
           "text_normalizer", "digest_width",
           "family_of"]

#: normalizer settings an index can be created with: ``auto`` (code files by extension are
#: tokenized, everything else is read by the index's text normalizer), ``code`` (every file is
#: code), or one of ``TEXT_NORMALIZERS`` for every file
NORMALIZERS = ("auto", "prose", "text", "words", "code")
#: the normalizers that read a file as natural-language text: ``prose`` (letters and digits
#: folded, one unit for the spaces or punctuation between two words; the default for text in
#: indexes made since it was added), ``text`` (letters and digits only: the Winnowing paper's),
#: ``words`` (Broder's words, one unit each)
TEXT_NORMALIZERS = ("prose", "text", "words")
#: what k and w count, per text normalizer
TEXT_UNITS = {"prose": "units", "text": "characters", "words": "words"}
#: how fingerprints are chosen among the k-gram hashes: robust winnowing, every k-gram, or
#: Broder's MOD_m (hashes that are 0 mod m)
SELECTIONS = ("winnow", "all", "mod")

#: Defaults for a new index. Text is read as prose: k and w count normalized characters (letters
#: and digits, and one unit for the spaces or punctuation between two words): k = 22 is about four
#: words, below which matches are mostly common phrases; every shared passage of
#: t = w + k - 1 = 33 units (about six words) is found. For code, code_k and code_w count tokens:
#: every shared run of 19 tokens (two or three statements) is found. Chosen on the labelled sets
#: in ../shared/eval (bench/results/quality.md, bench/results/text_normalizations.md have the
#: sweeps): a smaller k finds slightly more heavily edited copies but makes common phrases, and
#: so pair counting, much costlier; a smaller w ranks short documents (a few hundred words)
#: slightly better (w = 6: clough AUC 0.979 against 0.977 averaged over hash salts) but stores
#: more fingerprints (density 2/(w+1): twice as many at w = 6) and makes pairs that much slower.
DEFAULTS = {"k": 22, "w": 12, "code_k": 12, "code_w": 8, "normalizer": "auto", "selection": "winnow",
            "mod_m": 1}
#: k and w defaults of an index whose text is read by the ``text`` normalizer (letters and
#: digits only) or the ``words`` normalizer (k and w count words)
LETTERS_DEFAULTS = {"k": 16, "w": 12}
#: the code documents' second family of evidence (issue 21): their text read as prose, in short
#: k-grams (k 8, w 12 units: every shared run of 19 units, three or four words or a short line
#: of code, is found), identifiers, literals and comments kept, stored as each document's
#: distinct hashes in code_text_hashes. A new index records these two settings (0 and 0 when
#: made with ``add --no-code-text``: no text family, code scored by its tokens alone); an index
#: without them has no such hashes yet (``winnowdb upgrade`` computes them from the stored
#: texts). Chosen on the dev sets (bench/results/score_study.md): with the code tokens,
#: max(tokens^3, text) ranks irplag best; k 6 / w 6 ranks it slightly better but stores twice
#: the rows.
CODE_TEXT_DEFAULTS = {"code_text_k": 8, "code_text_w": 12}
#: settings that define how fingerprints are computed; a mismatch with a stored one is an error
FIXED_SETTINGS = ("k", "w", "code_k", "code_w", "normalizer", "text_normalizer", "hash_version", "selection",
                  "mod_m", "code_text_k")
#: settings every index has
REQUIRED_SETTINGS = ("schema_version", "hash_version", "k", "w", "normalizer")
#: settings that must be positive whole numbers
POSITIVE_SETTINGS = ("k", "w", "code_k", "code_w", "mod_m")
#: settings that must be whole numbers, 0 or more (0: off)
COUNT_SETTINGS = ("code_text_k", "code_text_w")

#: the salt of each family's k-gram hashes (keeps a code k-gram and a text k-gram of the same unit
#: ids apart); public so that benchmarks can measure how much a figure depends on the hash
SALTS = {"text": 0, "prose": 0, "words": 0x11, "code": 0x22}

#: the k-gram hash function (``fingerprint/hashing.py``); stored in every index
HASH_VERSION = "splitmix-poly-fmix64-v1"
#: the simhash features and hashing (``fingerprint/simhash.py``); stored simhashes depend on it
SIMHASH_VERSION = "char4-tf-splitmix-v2"
#: the code tokenizer's output (``normalize/code.py``): bump when the units of some code change.
# v2: string literals kept as STRING, floats one NUMBER, fixed keywords; v3: a lone CR (classic
# Mac line end) ends a line, so a line comment no longer runs to the end of such a file;
# v4: literals and numbers read as the languages read them (line continuations, escaped quotes
# in triple-quoted strings, 1. and 0x1.8p-3 and 1'000 one number, 0..10 no float, raw strings,
# Kotlin's strings in templates, JavaScript's regular expressions)
CODE_TOKENS_VERSION = "code-tokens-v4"
#: the digest of a document's normalized units (``documents.normalized_hash``, which finds
#: lexically equivalent documents): BLAKE2b-128 of the units, those of ``prose`` and ``text``
#: (code points) as 4 bytes each, those of ``words`` and code (64-bit hashes) as 8. A new index
#: records it as ``digest_version``; an index without that setting (made before it) hashes every
#: unit as 8 bytes, and keeps doing so, so its documents' digests stay comparable. Hashing half
#: the bytes takes half the time: it was 15% of ``add``'s workers' CPU (bench/RESULTS.md).
DIGEST_VERSION = "blake2b128-units-v2"
#: the units each digest version hashes as 4 bytes (the others as 8)
_NARROW_UNITS = {DIGEST_VERSION: ("prose", "text")}


def text_normalizer(settings: Mapping[str, str]) -> str:
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


def digest_width(settings: Mapping[str, str], normalizer: str) -> int:
    """How many bytes of each unit of a document read by ``normalizer`` (``documents.normalizer``)
    the normalized digest of an index of these settings hashes (``DIGEST_VERSION``): 4 or 8.
    ``WinnowError`` for a digest version this winnowdb does not know: the documents it adds would
    never be found equal to the stored ones."""
    version = settings.get("digest_version")
    if version is None:
        return 8
    if version not in _NARROW_UNITS:
        raise WinnowError(f"this index digests normalized text as {version!r}, which this winnowdb does not "
                          f"know ({DIGEST_VERSION!r}); `winnowdb check` reports it")
    return 4 if normalizer in _NARROW_UNITS[version] else 8


def family_of(normalizer: str) -> str:
    """The family of a document stored with ``normalizer`` (``documents.normalizer``): ``code``
    for ``code:LANG``, else the text normalizer's own name."""
    return "code" if normalizer.startswith("code") else normalizer


class IndexSettings(Mapping[str, str]):
    """The settings of one index: the stored values (text), read-only, with typed accessors.

    Behaves as the ``dict`` of stored values (``settings["k"]``, ``.get``, ``dict(settings)``).
    """

    def __init__(self, values: Mapping[str, str]) -> None:
        self._values = {str(k): str(v) for k, v in values.items()}

    # ------------------------------------------------------------------ the mapping
    def __getitem__(self, key: str) -> str:
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"IndexSettings({self._values!r})"

    def __reduce__(self):  # workers receive settings through a pipe
        return (IndexSettings, (self._values,))

    # ------------------------------------------------------------------ typed
    def integer(self, key: str, default: int | None = None) -> int:
        """A whole-number setting (``default`` when it is not stored)."""
        value = self._values.get(key)
        if value is None:
            if default is None:
                raise KeyError(key)
            return default
        return int(value)

    @property
    def text_normalizer(self) -> str:
        """How files that are not code are read (``text_normalizer()``; may raise WinnowError)."""
        return text_normalizer(self)

    @property
    def selection(self) -> str:
        return self._values.get("selection", "winnow")

    @property
    def mod_m(self) -> int:
        return self.integer("mod_m", 1)

    def kw(self, family: str) -> tuple[int, int]:
        """(k, w) of documents of ``family`` (``code``, ``code:LANG`` or a text normalizer)."""
        if family.startswith("code"):
            return self.integer("code_k", self.integer("k")), self.integer("code_w", self.integer("w"))
        return self.integer("k"), self.integer("w")

    def code_text_kw(self) -> tuple[int, int] | None:
        """(k, w) of the code documents' text family (``CODE_TEXT_DEFAULTS``), or None when the
        index has none (made before it existed and not upgraded since, or made without it)."""
        if "code_text_k" not in self._values or "code_text_w" not in self._values:
            return None
        k, w = self.integer("code_text_k"), self.integer("code_text_w")
        return (k, w) if k > 0 and w > 0 else None

    def guarantee(self, family: str) -> int:
        """t = w + k - 1: every shared run of this many units is found (winnowing)."""
        k, w = self.kw(family)
        return w + k - 1

    @staticmethod
    def salt(family: str) -> int:
        """The salt of the k-gram hashes of documents of ``family``."""
        return SALTS["code" if family.startswith("code") else family]

    def missing(self) -> list[str]:
        """The settings every index has that these values lack, as messages (``winnowdb check``)."""
        return [f"required setting {key!r} is missing" for key in REQUIRED_SETTINGS if key not in self._values]

    def invalid(self) -> list[str]:
        """What is wrong with these values (``winnowdb check``): another hash, values that are not
        positive numbers, names this winnowdb does not know."""
        bad: list[str] = []
        hv = self._values.get("hash_version")
        if hv is not None and hv != HASH_VERSION:
            bad.append(f"hash_version {hv!r} is not the hash this winnowdb computes ({HASH_VERSION!r}): "
                       f"new files and queries would not match the stored fingerprints")
        for key in POSITIVE_SETTINGS:
            value = self._values.get(key)
            if value is not None and not (value.isdigit() and int(value) >= 1):
                bad.append(f"setting {key}={value!r} is not a positive whole number")
        for key in COUNT_SETTINGS:
            value = self._values.get(key)
            if value is not None and not value.isdigit():
                bad.append(f"setting {key}={value!r} is not a whole number")
        for key, known in (("normalizer", NORMALIZERS), ("text_normalizer", TEXT_NORMALIZERS),
                           ("selection", SELECTIONS), ("digest_version", tuple(_NARROW_UNITS))):
            value = self._values.get(key)
            if value is not None and value not in known:
                bad.append(f"{key} {value!r} is unknown (known: {', '.join(known)})")
        return bad

    def mismatch(self, wanted: Mapping[str, object], where: str) -> str | None:
        """The message for the first fixed setting in ``wanted`` (not None) that differs from the
        stored one, or None (settings are fixed when an index is created)."""
        for key in FIXED_SETTINGS:
            value = wanted.get(key)
            if value is not None and key in self._values and str(value) != self._values[key]:
                return (f"index {where} was created with {key}={self._values[key]}, not {key}={value}; "
                        f"settings are fixed per index (use another --db)")
        return None

    # ------------------------------------------------------------------ a new index
    @staticmethod
    def check_options(*, k=None, w=None, code_k=None, code_w=None, normalizer=None, text_normalizer=None,
                      selection=None, mod_m=None) -> None:
        """Raise ``WinnowError`` for an option no index can have (given by a user)."""
        for name, val in (("k", k), ("w", w), ("code_k", code_k), ("code_w", code_w)):
            if val is not None and int(val) < 1:
                raise WinnowError(f"{name} must be a positive whole number, not {val}")
        if normalizer is not None and normalizer not in NORMALIZERS:
            raise WinnowError(f"unknown normalizer {normalizer!r} (choose from {', '.join(NORMALIZERS)})")
        if text_normalizer is not None and text_normalizer not in TEXT_NORMALIZERS:
            raise WinnowError(f"unknown text normalizer {text_normalizer!r} "
                              f"(choose from {', '.join(TEXT_NORMALIZERS)})")
        if text_normalizer is not None and normalizer in TEXT_NORMALIZERS and text_normalizer != normalizer:
            raise WinnowError(f"--normalizer {normalizer} reads every file as {normalizer}: "
                              f"--text-normalizer {text_normalizer} does not apply")
        if selection is not None and selection not in SELECTIONS:
            raise WinnowError(f"unknown selection {selection!r} (choose from {', '.join(SELECTIONS)})")
        if mod_m is not None and int(mod_m) < 1:
            raise WinnowError(f"mod_m must be a positive whole number, not {mod_m}")

    @classmethod
    def for_new_index(cls, *, k=None, w=None, code_k=None, code_w=None, normalizer=None, text_normalizer=None,
                      selection=None, mod_m=None, code_text: bool | None = None) -> dict[str, str]:
        """The settings a new index gets with these options (``None``: the default): defaults
        (``LETTERS_DEFAULTS`` for k and w when text is read as text or words), the text
        normalizer, the versions of this winnowdb's hashing, code tokens and digest, and the code's text
        family (``CODE_TEXT_DEFAULTS``; 0 and 0 with ``code_text=False``)."""
        cls.check_options(k=k, w=w, code_k=code_k, code_w=code_w, normalizer=normalizer,
                          text_normalizer=text_normalizer, selection=selection, mod_m=mod_m)
        if selection == "mod" and mod_m is None:
            mod_m = 8
        chosen = normalizer or DEFAULTS["normalizer"]
        reads_text = chosen if chosen in TEXT_NORMALIZERS else text_normalizer or "prose"
        defaults = {**DEFAULTS, **(LETTERS_DEFAULTS if reads_text != "prose" else {})}
        given = {"k": k, "w": w, "code_k": code_k, "code_w": code_w, "normalizer": normalizer,
                 "selection": selection, "mod_m": mod_m}
        out = {key: str(val if val is not None else defaults[key]) for key, val in given.items()}
        out.update(text_normalizer=reads_text, hash_version=HASH_VERSION, simhash_version=SIMHASH_VERSION,
                   code_tokens_version=CODE_TOKENS_VERSION, digest_version=DIGEST_VERSION,
                   **{key: str(v if code_text is not False else 0) for key, v in CODE_TEXT_DEFAULTS.items()})
        return out

    @staticmethod
    def given(*, k=None, w=None, code_k=None, code_w=None, normalizer=None, selection=None,
              mod_m=None, code_text: bool | None = None) -> dict[str, object]:
        """The options given for an existing index, to be checked against its settings."""
        if selection == "mod" and mod_m is None:
            mod_m = 8
        values = {"k": k, "w": w, "code_k": code_k, "code_w": code_w, "normalizer": normalizer,
                  "selection": selection, "mod_m": mod_m,
                  "code_text_k": None if code_text is None else CODE_TEXT_DEFAULTS["code_text_k"] if code_text else 0}
        return {key: val for key, val in values.items() if val is not None}
