"""`winnowdb upgrade` fingerprints code from an older code tokenizer again, from the stored texts.

An index records the code tokenizer version (settings.CODE_TOKENS_VERSION) its code was tokenized
with. There is no older tokenizer to run here, so an "old" index is made the way an old one
differs: the version setting is absent (indexes made before it existed) and every code
document's stored hashes are not what today's tokenizer gives (each hash is scrambled, as a
different token stream would scramble it, and the kept document frequencies follow them). Text
documents are left as they are.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest
from conftest import age_code_tokens, ok

import winnowdb
from winnowdb.ingest import retokenize
from winnowdb.settings import CODE_TOKENS_VERSION as TOKENS_VERSION

DATA = Path(__file__).resolve().parents[1] / "data" / "code"
ESSAY = Path(__file__).resolve().parents[2] / "sample_corpus" / "essays" / "tides.txt"


def _rows(db: Path) -> dict[str, dict]:
    """path -> its document row (without doc id) and its fingerprints, for comparing indexes."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        out = {}
        cols = ["path", "submission", "label", "kind", "normalizer", "content_hash", "normalized_hash",
                "encoding", "bytes", "chars", "units", "fingerprints", "simhash"]
        for row in con.execute(f"SELECT doc, {', '.join(cols)}, added_at FROM documents").fetchall():
            fps = con.execute("SELECT hash, pos FROM fingerprints WHERE doc = ? "
                              "ORDER BY pos, hash", [row[0]]).fetchall()
            text = con.execute("SELECT text FROM document_texts WHERE doc = ?", [row[0]]).fetchall()
            out[row[1]] = {"doc": row[0], "row": dict(zip(cols, row[1:-1])), "added_at": row[-1],
                           "fingerprints": fps, "text": text}
        return out
    finally:
        con.close()


@pytest.fixture
def years(tmp_path) -> Path:
    """old/ (last year: the code files and an essay) and new/ (this year: a copy of one file)."""
    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir()
    new.mkdir()
    for f in DATA.iterdir():
        shutil.copy(f, old / f.name)
    shutil.copy(ESSAY, old / "tides.txt")
    shutil.copy(DATA / "BankAccount.java", new / "Account.java")
    return tmp_path


def test_upgrade_refingerprints_old_code_so_new_copies_match_again(years, tmp_path, cli):
    db = tmp_path / "index.duckdb"
    ok(cli("add", years / "old", "--label", "2025", "--db", db))
    fresh = _rows(db)  # what today's tokenizer stores
    age_code_tokens(db)
    con = duckdb.connect(str(db))  # and one that did not record its fingerprint runs either
    con.execute("DELETE FROM meta WHERE key = 'fingerprint_runs'")
    con.close()
    aged = _rows(db)
    assert any(aged[p]["fingerprints"] != fresh[p]["fingerprints"] for p in aged)

    r = ok(cli("check", "--db", db))  # healthy, with a note
    assert r.stdout.startswith("ok:")
    assert "7 code documents were fingerprinted by an older code tokenizer" in r.stderr
    assert "winnowdb upgrade" in r.stderr

    r = ok(cli("add", years / "new", "--label", "2026", "--db", db))
    assert "note: this index holds code tokenized by an older winnowdb" in r.stderr
    assert "note: this index stores its fingerprints as an older winnowdb wrote them" in r.stderr
    assert "winnowdb upgrade" in r.stderr
    original = str((years / "old" / "BankAccount.java").resolve())
    copy = str((years / "new" / "Account.java").resolve())
    pairs = winnowdb.open(db, read_only=True)
    try:
        before = pairs.pairs(top=0, new_label="2026")
    finally:
        pairs.close()
    assert not [p for p in before if {p["a"], p["b"]} == {original, copy}]  # the copy is missed

    ok(cli("clusters", "--db", db))  # a stored clusters snapshot names every document
    clustered = {r[0] for r in duckdb.connect(str(db), read_only=True).execute("SELECT doc FROM clusters").fetchall()}
    ids_before = {p: v["doc"] for p, v in _rows(db).items()}
    r = ok(cli("upgrade", "--db", db))  # all code is redone: the 7 old files and this year's copy
    assert f"8 code documents fingerprinted again with this winnowdb's code tokenizer " \
           f"(the first code tokenizer -> {TOKENS_VERSION})" in r.stdout
    assert "fingerprints rewritten as one run ordered by hash" in r.stdout  # re-tokenizing did not hide it

    with winnowdb.open(db, read_only=True) as idx:
        after = idx.pairs(top=0, new_label="2026")
        assert not idx.stale_code_tokens()
        assert idx.settings["code_tokens_version"] == TOKENS_VERSION
    hit = [p for p in after if {p["a"], p["b"]} == {original, copy}]
    assert len(hit) == 1 and hit[0]["containment_a"] == 1.0 and hit[0]["containment_b"] == 1.0, after

    upgraded = _rows(db)
    for path, was in fresh.items():
        now = upgraded[path]
        assert now["row"] == was["row"] and now["fingerprints"] == was["fingerprints"], path
        assert now["added_at"] == was["added_at"] and now["text"] == was["text"], path
        if not was["row"]["normalizer"].startswith("code:"):  # text was not touched at all
            assert now["doc"] == aged[path]["doc"]
    assert {p: v["doc"] for p, v in upgraded.items()} == ids_before  # every document keeps its id ...
    con = duckdb.connect(str(db), read_only=True)
    assert {r[0] for r in con.execute("SELECT doc FROM clusters").fetchall()} == clustered  # ... and its row
    assert con.execute("SELECT COUNT(*) FROM settings WHERE key = 'max_removed_doc'").fetchall()[0][0] == 0
    con.close()

    r = ok(cli("check", "--db", db))
    assert r.stdout.startswith("ok:") and "note:" not in r.stderr
    r = ok(cli("upgrade", "--db", db))
    assert "nothing to do" in r.stdout


def test_boilerplate_code_keeps_every_kgram(years, tmp_path):
    db = tmp_path / "index.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([years / "old" / "maze.py"], boilerplate=True)
        idx.add([years / "old" / "inventory.py"])
    fresh = _rows(db)
    age_code_tokens(db)
    with winnowdb.open(db) as idx:
        assert idx.stale_code_tokens()
        assert idx.upgrade_code_tokens() == 2
        assert idx.upgrade_code_tokens() == 0  # nothing left to do
    upgraded = _rows(db)
    assert {p: v["fingerprints"] for p, v in upgraded.items()} == {p: v["fingerprints"] for p, v in fresh.items()}
    maze = upgraded[str((years / "old" / "maze.py").resolve())]
    assert maze["row"]["kind"] == "boilerplate"
    assert maze["row"]["fingerprints"] == maze["row"]["units"] - 12 + 1  # every k-gram (code_k = 12)


def test_an_interrupted_upgrade_keeps_what_it_did_and_finishes_when_run_again(years, tmp_path, monkeypatch):
    db = tmp_path / "index.duckdb"
    with winnowdb.open(db) as idx:
        idx.add([years / "old"])
    fresh = _rows(db)
    age_code_tokens(db)
    monkeypatch.setattr(retokenize, "BATCH_DOCS", 2)
    seen = []

    def stop_at_the_third(path: str, chars: int) -> None:
        seen.append(path)
        if len(seen) == 3:
            raise KeyboardInterrupt

    store = winnowdb.open(db).store
    try:
        with pytest.raises(KeyboardInterrupt):
            retokenize.retokenize_code(store, on_doc=stop_at_the_third)
    finally:
        store.close()
    partial = _rows(db)
    redone = [p for p in fresh if partial[p]["fingerprints"] == fresh[p]["fingerprints"]
              and fresh[p]["row"]["normalizer"].startswith("code:")]
    assert sorted(redone) == sorted(seen[:2])  # the first batch was committed, the second was not
    with winnowdb.open(db) as idx:
        assert idx.stale_code_tokens()  # the version is recorded only at the end
        assert idx.upgrade_code_tokens() == 7
    assert {p: v["fingerprints"] for p, v in _rows(db).items()} == {p: v["fingerprints"] for p, v in fresh.items()}
    report = __import__("winnowdb.store.check", fromlist=["check_index"]).check_index(db)
    assert report.ok and not report.notes


def test_an_index_without_code_needs_no_upgrade(tmp_path, cli):
    db = tmp_path / "index.duckdb"
    ok(cli("add", ESSAY, "--db", db))
    con = duckdb.connect(str(db))
    con.execute("DELETE FROM settings WHERE key = 'code_tokens_version'")  # an index from before it existed
    con.close()
    r = ok(cli("check", "--db", db))
    assert "note:" not in r.stderr
    assert "nothing to do" in ok(cli("upgrade", "--db", db)).stdout


def test_upgrade_reads_stored_code_with_lone_cr_line_ends_as_lines(tmp_path, cli):
    """Code stored by an older winnowdb with classic Mac line ends (a lone CR) was one line, so
    its first line comment swallowed the file (no fingerprints). The tokenizer version that reads
    a lone CR as a line end makes upgrade redo it from the stored text, which then matches."""
    code = ("# a comment first\r" + "".join(f"def f{i}(n):\r    total = {i}\r    for j in range(n):\r"
                                            f"        total += j * {i}\r    return total\r\r" for i in range(6)))
    (tmp_path / "mac.py").write_bytes(code.encode())
    (tmp_path / "unix.py").write_bytes(code.replace("\r", "\n").encode())
    db = tmp_path / "index.duckdb"
    ok(cli("add", tmp_path / "mac.py", "--db", db))
    con = duckdb.connect(str(db))  # as an older winnowdb stored it: CRs kept, no fingerprints
    con.execute("UPDATE document_texts SET text = ?", [code])
    con.execute("DELETE FROM fingerprints")
    con.execute("UPDATE documents SET fingerprints = 0, units = 1")
    con.execute("UPDATE settings SET value = 'code-tokens-v2' WHERE key = 'code_tokens_version'")
    con.close()
    ok(cli("upgrade", "--db", db))
    ok(cli("add", tmp_path / "unix.py", "--db", db))
    pairs = json.loads(ok(cli("pairs", "--db", db, "-f", "json")).stdout)
    assert len(pairs) == 1 and pairs[0]["containment_a"] == 1.0 and pairs[0]["containment_b"] == 1.0


def test_code_added_to_an_index_without_code_is_not_called_old(tmp_path, cli):
    """An index made by an older winnowdb that holds no code yet takes this version's code
    tokenizer when code is first added (its old code_tokens_version made new code look stale)."""
    (tmp_path / "essay.txt").write_text("words about tides and the moon and the sea " * 20)
    (tmp_path / "a.py").write_text("def f(n):\n    return sum(i * i for i in range(n))\n" * 5)
    db = tmp_path / "index.duckdb"
    ok(cli("add", tmp_path / "essay.txt", "--db", db))
    con = duckdb.connect(str(db))
    con.execute("UPDATE settings SET value = 'code-tokens-v1' WHERE key = 'code_tokens_version'")
    con.close()
    r = ok(cli("add", tmp_path / "a.py", "--db", db))
    assert "older winnowdb" not in r.stderr
    r = ok(cli("check", "--db", db))
    assert "older code tokenizer" not in r.stderr
    assert "nothing to do" in ok(cli("upgrade", "--db", db)).stdout


def test_upgrade_never_wipes_code_whose_text_is_not_stored(years, tmp_path, cli):
    """An index imported without texts (export without --texts, originals gone) stores an empty
    text for each document. upgrade re-tokenized those empty texts: every code document was left
    with 0 characters and 0 fingerprints, and check still passed. Now such a document keeps its
    rows untouched, upgrade says so in one line and exits 1 (the version is not recorded: the
    index still holds older code); with the files back at their paths, upgrade reads them (only
    when unchanged), stores their text and finishes."""
    from conftest import one_line_error

    db = tmp_path / "index.duckdb"
    ok(cli("add", years / "old", "--db", db))
    fresh = _rows(db)
    ok(cli("export", "--parquet", tmp_path / "ex", "--db", db))  # without texts
    (years / "old").rename(tmp_path / "away")
    imported = tmp_path / "imported.duckdb"
    ok(cli("import", "--parquet", tmp_path / "ex", "--db", imported))
    age_code_tokens(imported)
    aged = _rows(imported)
    code = [p for p, r in aged.items() if r["row"]["normalizer"].startswith("code:")]
    assert code and all(r["text"] == [("",)] for r in aged.values())
    err = one_line_error(cli("upgrade", "--db", imported), "kept their old fingerprints", "not stored")
    assert f"{len(code)} kept" in err and "0 code documents fingerprinted again" in err
    assert _rows(imported) == aged  # nothing wiped, nothing changed
    con = duckdb.connect(str(imported), read_only=True)
    assert con.execute("SELECT COUNT(*) FROM settings WHERE key = 'code_tokens_version'").fetchall()[0][0] == 0
    con.close()
    # one file back, changed: it is not read; the others back unchanged: they are
    (tmp_path / "away").rename(years / "old")
    changed = Path(code[0])
    changed.write_text(changed.read_text() + "\n// edited since\n")
    err = one_line_error(cli("upgrade", "--db", imported), "1 kept its old fingerprints", changed.name)
    after = _rows(imported)
    assert after[str(changed)] == aged[str(changed)]
    for p in code[1:]:
        assert after[p]["fingerprints"] == fresh[p]["fingerprints"]  # today's tokens again
        assert after[p]["text"] == fresh[p]["text"] != [("",)]  # and the text is stored now
    changed.write_text(changed.read_text().replace("\n// edited since\n", ""))
    ok(cli("upgrade", "--db", imported))
    after = _rows(imported)
    assert all(after[p]["fingerprints"] == fresh[p]["fingerprints"] for p in code)
    with winnowdb.open(imported) as idx:
        assert idx.settings["code_tokens_version"] == TOKENS_VERSION


def test_passages_of_code_from_an_older_tokenizer_are_not_shown_until_upgrade(years, tmp_path, cli):
    # the index stores no spans (schema 7): passages are placed by fingerprinting the stored texts
    # again, which gives other rows than an older tokenizer stored. compare keeps the stored rows'
    # scores, says in one line why the passages cannot be shown, and shows them after upgrade
    shutil.copy(years / "new" / "Account.java", years / "old" / "Account.java")  # a copy the same year
    db = tmp_path / "index.duckdb"
    ok(cli("add", years / "old", "--db", db))
    a, b = years / "old" / "BankAccount.java", years / "old" / "Account.java"
    before = json.loads(ok(cli("compare", a, b, "--db", db, "-f", "json")).stdout)
    assert before["passages"] and all(p["text_a"] and p["text_b"] for p in before["passages"])
    age_code_tokens(db)
    r = ok(cli("compare", a, b, "--db", db))
    said = [line for line in " ".join(r.output.split()).split("note: ")[1:] if "older winnowdb" in line]
    assert len(said) == 1 and "cannot be shown" in said[0] and "winnowdb upgrade" in said[0], r.output
    aged = json.loads(ok(cli("compare", a, b, "--db", db, "-f", "json")).stdout)
    assert aged["shared"] == before["shared"] and aged["passages"]  # the stored rows still match
    assert all(p["text_a"] is None and p["start_b"] is None for p in aged["passages"])
    html = tmp_path / "report.html"
    ok(cli("report", "--html", html, "--db", db))
    assert "code tokenized by an older winnowdb" in html.read_text()
    ok(cli("upgrade", "--db", db))
    assert json.loads(ok(cli("compare", a, b, "--db", db, "-f", "json")).stdout) == before
