"""The code is linted as part of the tests: ruff (its settings in pyproject.toml's [tool.ruff]) on
winnowdb/, tests/ and bench/ reports nothing, mypy (its settings in [tool.mypy]) on winnowdb/
reports no error, and every module of the package that declares ``__all__`` lists all of its
public names in it."""
from __future__ import annotations

import ast
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing():
    assert importlib.util.find_spec("ruff") is not None, "ruff is missing: pip install -e '.[test]'"
    r = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise",
                        "winnowdb", "tests", "bench"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"ruff check winnowdb tests bench:\n{r.stdout}{r.stderr}"


def test_mypy_finds_nothing():
    assert importlib.util.find_spec("mypy") is not None, "mypy is missing: pip install -e '.[test]'"
    # the files to check are [tool.mypy]'s (winnowdb); no cache is written into the checkout
    r = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", os.devnull], cwd=REPO, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, f"mypy (files and settings in pyproject.toml's [tool.mypy]):\n{r.stdout}{r.stderr}"


def public_names(tree: ast.Module) -> list[str]:
    """The names a module defines at its top level (functions, classes, assignments) that do not
    start with an underscore; imported names are not its own."""
    names = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
    return [n for n in names if not n.startswith("_")]


def declared_all(tree: ast.Module) -> list[str] | None:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return [ast.literal_eval(e) for e in node.value.elts]
    return None


def test_every_declared_all_is_complete():
    partial = {}
    for path in sorted((REPO / "winnowdb").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        declared = declared_all(tree)
        if declared is None:
            continue
        missing = [n for n in public_names(tree) if n not in declared]
        if missing:
            partial[str(path.relative_to(REPO))] = missing
    assert not partial, f"public names missing from __all__: {partial}"


def test_the_all_check_sees_a_missing_name():
    tree = ast.parse('__all__ = ["a"]\nLIMIT = 3\ndef a(): pass\ndef b(): pass\ndef _c(): pass\nfrom x import y\n')
    assert [n for n in public_names(tree) if n not in declared_all(tree)] == ["LIMIT", "b"]
