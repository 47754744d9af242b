"""What the terminal shows: file names cannot send escape sequences or reorder text, document
text keeps its CRLF lines, no-break spaces and emoji readable, very long lines are clipped
around the match, and `compare` says when a file changed since it was indexed. The real CLI on
real files and a real index."""
from __future__ import annotations

import json

from conftest import ok, random_words

TEXT = " ".join(random_words(7, 120))


def _index(cli, tmp_path, files: dict[str, str]):
    root = tmp_path / "docs"
    root.mkdir()
    for name, text in files.items():
        (root / name).write_bytes(text.encode("utf-8"))
    db = tmp_path / "index.duckdb"
    ok(cli("add", root, "--db", db))
    return root, db


def test_file_names_cannot_drive_the_terminal(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # a long tmp path must not wrap the escaped name apart
    evil = "esc\x1b[2J\x1b[31mred\u202etxt.exe"
    root, db = _index(cli, tmp_path, {evil: TEXT, "plain.txt": TEXT})
    outputs = [ok(cli("pairs", "--db", db)).stdout,
               ok(cli("compare", root / evil, root / "plain.txt", "--db", db)).stdout,
               ok(cli("query", root / "plain.txt", "--db", db)).stdout,
               ok(cli("duplicates", "--db", db)).stdout]
    for out in outputs:
        assert "\x1b" not in out and "\u202e" not in out
        assert "\\x1b[2J" in "".join(out.split())  # shown, visibly escaped
    # data formats keep the name exactly
    rows = json.loads(ok(cli("pairs", "--db", db, "-f", "json")).stdout)
    assert any(r["a"].endswith(evil) or r["b"].endswith(evil) for r in rows)


def test_compare_shows_crlf_no_break_spaces_and_emoji_as_they_are(cli, tmp_path):
    text = ("Line one of a shared text about red foxes.\r\n"
            "Le ch\u00e2teau\u00a0: une famille \U0001f468\u200d\U0001f469\u200d\U0001f467 "
            + TEXT + "\r\n")
    root, db = _index(cli, tmp_path, {"a.txt": text, "b.txt": text})
    out = ok(cli("compare", root / "a.txt", root / "b.txt", "--db", db)).stdout
    assert "\ufffd" not in out and "\r" not in out
    assert "\u00a0" in out and "\u200d" in out
    assert "1 passage" in out and "1 passages" not in out


def test_compare_clips_a_very_long_line_around_the_match(cli, tmp_path):
    shared = " ".join(random_words(8, 40))
    a = " ".join(random_words(9, 30000)) + " " + shared + " " + " ".join(random_words(10, 30000))
    b = "An opening line.\n" + shared + "\nA closing line.\n"
    root, db = _index(cli, tmp_path, {"long.txt": a, "short.txt": b})
    out = ok(cli("compare", root / "short.txt", root / "long.txt", "--db", db)).stdout
    assert len(a) > 300_000
    assert len(out) < 20_000, len(out)  # not the whole 300 kB line
    assert "…" in out
    words = shared.split()
    assert words[0] in out and words[-1] in out  # the match itself is shown
    data = json.loads(ok(cli("compare", root / "short.txt", root / "long.txt", "--db", db, "-f", "json")).stdout)
    assert data["passages"]  # JSON keeps the full passage text
    assert all(len(p["text_b"]) < len(a) for p in data["passages"])


def test_compare_notes_a_file_changed_since_it_was_indexed(cli, tmp_path):
    root, db = _index(cli, tmp_path, {"a.txt": TEXT + "\n", "b.txt": TEXT + "\n"})
    r = ok(cli("compare", root / "a.txt", root / "b.txt", "--db", db))
    assert "changed on disk" not in r.stderr
    (root / "a.txt").write_text("new first line\nnew second line\n" + TEXT + "\n")
    r = ok(cli("compare", root / "a.txt", root / "b.txt", "--db", db))
    assert "a.txt changed on disk since it was indexed" in " ".join(r.stderr.split())
    assert "b.txt changed" not in r.stderr
    assert "lines 1-1" in r.stdout  # still the indexed version, as the note says


def test_classic_mac_line_ends_are_lines(cli, tmp_path):
    """A file whose lines end with a lone CR has lines (it was one line: compare said lines 1-1
    and printed the whole file), and a line comment in such code ends at its line."""
    words = random_words(17, 90)
    text = "\r".join(" ".join(words[i:i + 10]) for i in range(0, 90, 10)) + "\r"
    root, db = _index(cli, tmp_path, {"mac.txt": text, "unix.txt": text.replace("\r", "\n")})
    data = json.loads(ok(cli("compare", root / "mac.txt", root / "unix.txt", "--db", db, "-f", "json")).stdout)
    (p,) = data["passages"]
    assert p["lines_a"] == p["lines_b"] == [1, 9]
    code = "int f(int n) { // count\r  int s = 0;\r  for (int i = 0; i < n; i++) { s += i * i; }\r  return s;\r}\r"
    (tmp_path / "m.c").write_bytes(code.encode())
    (tmp_path / "u.c").write_bytes(code.replace("\r", "\n").encode())
    ok(cli("add", tmp_path / "m.c", tmp_path / "u.c", "--db", db))
    data = json.loads(ok(cli("compare", tmp_path / "m.c", tmp_path / "u.c", "--db", db, "-f", "json")).stdout)
    assert data["containment_a"] == 1.0 and data["passages"]


def test_table_cells_listing_several_paths_keep_their_line_breaks(cli, tmp_path):
    root, db = _index(cli, tmp_path, {"a.txt": TEXT, "b.txt": TEXT})
    for command in ("duplicates", "clusters"):
        out = ok(cli(command, "--db", db)).stdout
        assert "\\x0a" not in out, out
        assert any(line.strip(" │").startswith("b.txt") for line in out.splitlines()), out


def test_escaped_names_cannot_be_mistaken_for_each_other(cli, tmp_path):
    """A file literally named ``lit\\x1b.txt`` (a backslash, then x, 1, b) is not shown like one whose
    name holds a real ESC: once a name needs an escape, or holds a backslash that could be read as
    the start of one, its backslashes are doubled. Other backslashes, and names without any, are
    shown as they are; nothing is escaped twice (tables, captions, multi-line cells, notes, errors)."""
    literal, real, lone = "lit\\x1b.txt", "esc\x1b.txt", "back\\slash.txt"
    root, db = _index(cli, tmp_path, {literal: TEXT, real: TEXT, lone: TEXT, "plain.txt": TEXT})
    outputs = {"pairs": ok(cli("pairs", "--db", db)).stdout,
               "query": ok(cli("query", root / "plain.txt", "--db", db)).stdout,
               "duplicates": ok(cli("duplicates", "--db", db)).stdout,
               "clusters": ok(cli("clusters", "--db", db)).stdout,
               "compare": ok(cli("compare", root / literal, root / real, "--db", db)).stdout}
    for command, out in outputs.items():
        shown = "".join(out.split())  # undo table wrapping
        assert "\x1b" not in out, command
        assert "lit\\\\x1b.txt" in shown, (command, out)  # the literal backslash, doubled
        assert "esc\\x1b.txt" in shown and "esc\\\\x1b" not in shown, (command, out)  # ESC, escaped once
        if command != "compare":
            assert "back\\slash.txt" in shown and "back\\\\slash" not in shown, (command, out)
            assert "plain.txt" in shown
    missing = cli("query", root / "gone\\x1b.txt", "--db", db)
    assert missing.exit_code == 2 and "gone\\\\x1b.txt" in missing.stderr, missing.stderr
    missing = cli("query", root / "gone\x1b.txt", "--db", db)
    assert missing.exit_code == 2 and "gone\\x1b.txt" in missing.stderr and "gone\\\\x1b" not in missing.stderr
    r = ok(cli("pairs", "--new", "year\x1b", "--db", db))
    assert "labelled 'year\\x1b'" in r.stderr and "\x1b" not in r.stderr, r.stderr
    r = ok(cli("pairs", "--new", "year\\x1b", "--db", db))
    assert "labelled 'year\\\\x1b'" in r.stderr, r.stderr


def test_sql_column_headers_are_shown_escaped_and_never_read_as_markup(cli, tmp_path):
    """A column name is the user's (or the index's) text, like a cell: the table shows it with
    escapes visible and its brackets as typed; JSON and CSV keep it exactly."""
    _, db = _index(cli, tmp_path, {"a.txt": TEXT})
    name = "[bold]x" + chr(27) + "[31my"
    query = f'SELECT 1 AS "{name}", \'v\' AS "[/q]"'  # "[/q]" would close no tag: MarkupError
    out = ok(cli("sql", query, "--db", db)).stdout
    assert chr(27) not in out
    shown = "".join(out.split())
    assert "[bold]x\\x1b[31my" in shown and "[/q]" in shown  # visibly escaped, brackets kept
    rows = json.loads(ok(cli("sql", query, "--db", db, "-f", "json")).stdout)
    assert rows == [{name: 1, "[/q]": "v"}]
    out = ok(cli("sql", query, "--db", db, "-f", "csv")).stdout
    assert out.splitlines() == [f"{name},[/q]", "1,v"]
