"""Helpers for test_docs.py: the fenced examples of a Markdown file, the ``winnowdb`` commands of
a shell example, and the folder the README's tour is written for."""
from __future__ import annotations

import ast
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "sample_corpus"
#: the real command line, as a child process
WINNOWDB = [sys.executable, "-m", "winnowdb"]

__all__ = ["REPO", "SAMPLE", "WINNOWDB", "Block", "fenced_blocks", "block", "winnowdb_commands", "run",
           "tour_folder", "table_rows", "documented_columns", "printing_expressions"]


@dataclass
class Block:
    """A fenced block: its info string (``sql``, ``sh``, ``console``, ...), the heading it is
    under, and its text."""

    lang: str
    heading: str
    text: str


def fenced_blocks(path: Path) -> list[Block]:
    blocks, heading, lang, lines = [], "", None, []
    for line in path.read_text(encoding="utf-8").splitlines():
        if lang is None and line.startswith("#"):
            heading = line.lstrip("#").strip()
        elif line.startswith("```"):
            if lang is None:
                lang, lines = line[3:].strip(), []
            else:
                blocks.append(Block(lang, heading, "\n".join(lines) + "\n"))
                lang = None
        elif lang is not None:
            lines.append(line)
    assert lang is None, f"{path}: a fenced block is not closed"
    return blocks


def block(path: Path, lang: str, heading: str | None = None, index: int = 0) -> Block:
    """The ``index``-th block of ``lang`` (under the heading ``heading``, if given)."""
    found = [b for b in fenced_blocks(path) if b.lang == lang and heading in (None, b.heading)]
    assert len(found) > index, f"{path.name}: no {lang} block #{index} under '{heading}'"
    return found[index]


def winnowdb_commands(text: str, prompt: str = "") -> list[list[str]]:
    """The ``winnowdb`` commands of a shell example, as argument lists (comments dropped).

    With a ``prompt`` (``"$ "`` in console blocks) a command starts on a line that begins with
    it and goes on over the lines that do not; without, each line is a command. Commands joined
    with ``&&`` are taken apart; those that do not run winnowdb (pip, venv, ...) are left out."""
    if prompt:
        starts = [m.start() for m in re.finditer(rf"^{re.escape(prompt)}", text, flags=re.M)]
        pieces = [text[a + len(prompt):b] for a, b in zip(starts, [*starts[1:], len(text)])]
    else:
        pieces = text.splitlines()
    commands = []
    for piece in pieces:
        words = shlex.split(piece, comments=True)
        while words:
            cut = words.index("&&") if "&&" in words else len(words)
            if words[0] == "winnowdb":
                commands.append(words[1:cut])
            words = words[cut + 1:]
    return commands


def run(args: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    """``winnowdb ARGS`` in ``cwd`` (the real command line), its tables as wide as a wide terminal
    (paths are not wrapped)."""
    env = dict(os.environ, COLUMNS="250")
    env.pop("WINNOWDB_DB", None)
    return subprocess.run([*WINNOWDB, *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def tour_folder(root: Path) -> Path:
    """A folder holding what the README's tour names: ``corpus/`` (the sample essays and code),
    ``template/`` (the course header), ``essay.txt`` (a copy of one essay), ``snippet.txt`` (the
    first 30 lines of a Java file), ``a.txt`` and ``b.txt`` (an essay and its paraphrase), and
    ``old/`` (last year's essay)."""
    root.mkdir(parents=True, exist_ok=True)
    for sub in ("essays", "code"):
        shutil.copytree(SAMPLE / sub, root / "corpus" / sub)
    shutil.copytree(SAMPLE / "boilerplate", root / "template")
    shutil.copy(SAMPLE / "essays" / "tides_copy.txt", root / "essay.txt")
    java = (SAMPLE / "code" / "queue.java").read_text(encoding="utf-8").splitlines(keepends=True)
    (root / "snippet.txt").write_text("".join(java[:30]), encoding="utf-8")
    shutil.copy(SAMPLE / "essays" / "glaciers.txt", root / "a.txt")
    shutil.copy(SAMPLE / "essays" / "glaciers_paraphrase.txt", root / "b.txt")
    (root / "old").mkdir()
    shutil.copy(SAMPLE / "essays" / "bees.txt", root / "old" / "bees_2025.txt")
    return root


def table_rows(text: str, first_header: str) -> list[list[str]]:
    """The rows of the Markdown table whose first header cell is ``first_header``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_header} |"))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def documented_columns(cell: str) -> list[str]:
    """The column names a README table cell lists: the names in backticks before its first
    explanation (``:``, ``;`` or the end of a sentence), with what stands in parentheses left out;
    ``the columns of `documents``` stands for that table's columns, written ``@documents``."""
    while re.search(r"\([^()]*\)", cell):
        cell = re.sub(r"\([^()]*\)", "", cell)
    cell = re.split(r"[:;]|\.\s", cell, maxsplit=1)[0]
    names = []
    for quoted in re.findall(r"`([^`]+)`", cell):
        names += [n.strip() for n in quoted.split(",")]
    if cell.startswith("the columns of "):
        names[0] = "@" + names[0]
    return names


def printing_expressions(code: str) -> str:
    """``code`` with each expression statement (``idx.near_duplicates(...)``, whose value the
    example shows in a comment) printed, so a test can check the values."""

    class Printing(ast.NodeTransformer):
        def visit_Expr(self, node: ast.Expr) -> ast.Expr:
            call = ast.Call(ast.Name("print", ast.Load()), [node.value], [])
            return ast.copy_location(ast.Expr(call), node)

    return ast.unparse(ast.fix_missing_locations(Printing().visit(ast.parse(code))))
