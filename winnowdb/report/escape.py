"""Every character a reader's screen would act on, made visible: in the terminal and in HTML.

* ``terminal_safe``: a name, label or message for the terminal, with escape sequences, other
  control characters and bidi overrides written as visible escapes (``\\x1b``, ``\\u202e``);
* ``terminal_line``: one line of document text for the terminal, same length, control and
  format characters replaced by U+FFFD;
* ``visible`` / ``visible_parts``: document text for HTML, control and bidi characters shown as
  tags (``\\x1b``, ``U+202E``), so hostile file contents render as inert text.
"""
from __future__ import annotations

import re

__all__ = ["terminal_safe", "terminal_line", "shown_char", "visible", "visible_parts", "CONTROL"]


#: invisible characters a terminal shows harmlessly: zero-width (non-)joiners (inside emoji and
#: Indic words) and the soft hyphen; every other control or format character is made visible
_HARMLESS_FORMAT = frozenset("\u200c\u200d\u00ad")


def shown_char(ch: str) -> bool:
    """Whether a terminal shows ``ch`` as itself, harmlessly."""
    if ch.isprintable() or ch in _HARMLESS_FORMAT:
        return True
    import unicodedata

    return unicodedata.category(ch) == "Zs"  # no-break and other spaces


def _escape(ch: str) -> str:
    o = ord(ch)
    return f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}"


def _looks_escaped(text: str) -> bool:
    """Whether ``text`` holds a backslash that could be read as the start of an escape."""
    return any(f"\\{c}" in text for c in "\\xuU")


def terminal_safe(text: str, *, lines: bool = False) -> str:
    """``text`` (a file name, a label, a message) with every character a terminal would act on or
    that would reorder or hide what is shown (escape sequences, other control characters, bidi
    overrides) written as a visible escape: ``\\x1b``, ``\\u202e``, ``\\U000e0001``.

    Unambiguous: when ``text`` needs an escape, or holds a backslash followed by ``x``, ``u``,
    ``U`` or another backslash (which could be read as one), every backslash in it is doubled, so
    a file literally named ``a\\x1b.txt`` is shown as ``a\\\\x1b.txt`` and one whose name holds an
    ESC as ``a\\x1b.txt``. Anything else -- nearly every path and message, also one with a lone
    backslash such as ``a\\b`` -- is returned unchanged. Apply it once, to the raw text: escaped
    text given again would be escaped again. With ``lines``, line breaks are kept and each line
    is escaped by itself (a table cell listing one path per line)."""
    if text.isprintable() and "\\" not in text:
        return text
    if lines and "\n" in text:
        return "\n".join(terminal_safe(line) for line in text.split("\n"))
    if all(shown_char(ch) for ch in text) and not _looks_escaped(text):
        return text
    return "".join("\\\\" if ch == "\\" else ch if shown_char(ch) else _escape(ch) for ch in text)


def terminal_line(line: str) -> str:
    """One line of document text for the terminal, same length: a carriage return (of a CRLF
    line end) becomes a space, other control and format characters U+FFFD; tabs, spaces of every
    kind and emoji joiners stay."""
    if line.isprintable():
        return line
    return "".join(ch if ch == "\t" or shown_char(ch) else (" " if ch == "\r" else "\ufffd") for ch in line)


# Characters shown as a tag (``\x1b``, ``U+202E``) instead of themselves: C0 controls but tab and
# newline, DEL, C1 controls, and the bidirectional controls that can reorder how text *looks*
# ("Trojan Source"). HTML cannot carry most of them, and fonts rarely draw them.
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _tag(ch: str) -> str:
    c = ord(ch)
    return f"\\x{c:02x}" if c < 0x100 else f"U+{c:04X}"


def visible(text: str) -> str:
    """``text`` with control and bidi-override characters replaced by visible tags (``\\x1b``)."""
    return CONTROL.sub(lambda m: _tag(m.group()), text)


def visible_parts(text: str) -> list[tuple[str, bool]]:
    """``text`` as (text, is_control_tag) runs, for showing control characters as styled tags."""
    if not CONTROL.search(text):
        return [(text, False)]
    out: list[tuple[str, bool]] = []
    last = 0
    for m in CONTROL.finditer(text):
        if m.start() > last:
            out.append((text[last:m.start()], False))
        out.append((_tag(m.group()), True))
        last = m.end()
    if last < len(text):
        out.append((text[last:], False))
    return out
