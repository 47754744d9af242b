"""Paths as a person reads them: relative to the current folder, shortened below the folder all
shown paths share (named once, in a caption), and safe for the terminal."""
from __future__ import annotations

import os
from typing import Callable, Iterable

from .escape import terminal_safe

__all__ = ["relative_path", "display_path", "common_folder", "below", "folder_note", "shortener"]


def relative_path(path: str) -> str:
    """``path`` relative to the current directory when it lies below it, else unchanged; not yet
    made safe for the terminal (``display_path`` is both)."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        rel = ".."
    return path if rel.startswith("..") else rel


def display_path(path: str) -> str:
    """A path for a person to read: relative to the current directory when it lies below it, with
    characters a terminal would act on made visible (``terminal_safe``)."""
    return terminal_safe(relative_path(path))


def common_folder(paths: Iterable[str]) -> str:
    """The deepest folder that holds every one of ``paths`` (as displayed), or "" when they share
    none worth dropping (no paths, one path, the file system root, or absolute and relative
    paths mixed). Tables show paths below it and name it once, in a caption."""
    distinct = {p for p in paths if p}
    if len(distinct) < 2:
        return ""
    try:
        folder = os.path.commonpath(list(distinct))
    except ValueError:
        return ""
    if folder in distinct:  # one of the paths is itself the common path: a file, not a folder
        folder = os.path.dirname(folder)
    return "" if folder in ("", os.sep, ".") else folder


def below(path: str, folder: str) -> str:
    """``path`` relative to ``folder`` when it lies below it (``common_folder``), else unchanged."""
    if folder and path.startswith(folder + os.sep):
        return path[len(folder) + 1:]
    return path


def folder_note(folder: str) -> str:
    """The caption line naming the folder a table's paths are shown under."""
    return f"paths under {folder}{os.sep}"


def shortener(paths: list[str]) -> tuple[str, Callable[[str], str]]:
    """(folder, function) that shows each of ``paths`` below the folder they all share
    (``common_folder``; "" and the identity when they share none)."""
    folder = common_folder(paths)
    return folder, (lambda p: below(p, folder))
