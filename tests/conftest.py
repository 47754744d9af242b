"""Shared fixtures: a private copy of sample_corpus and real DuckDB indexes built from it.

Everything is real: files are copied into pytest's tmp directories, indexes are DuckDB files
there, and the CLI is the real typer app. Session-scoped fixtures are read-only by convention;
tests that change files or the index build their own (``fresh_corpus`` / ``fresh_index``).

The planted copies come from sample_corpus/README.md; ``PLANTED`` and ``BOILERPLATE_ESSAYS``
restate the parts of it the tests check.
"""
from __future__ import annotations

import random
import shutil
import signal
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "sample_corpus"

#: planted copies that winnowdb with default settings must report (README pairs 1, 2, 4, 6)
PLANTED = [
    ("essays/tides.txt", "essays/tides_copy.txt"),
    ("essays/glaciers.txt", "essays/glaciers_paraphrase.txt"),
    ("essays/comets.txt", "essays/comets_dup.txt"),
    ("code/queue.java", "code/Queue2.java"),
]
#: further planted copies that may be reported (README pairs 3 and 5: short quote, renamed code)
PLANTED_OPTIONAL = [
    ("essays/bees.txt", "essays/bees_short_quote.txt"),
    ("code/stack.py", "code/stack_renamed.py"),
]
#: essays that carry the boilerplate course header as lines 1-5
BOILERPLATE_ESSAYS = ["essays/lighthouses.txt", "essays/origami.txt",
                      "essays/printing_press.txt", "essays/volcanoes.txt"]


def copy_corpus(dest: Path) -> Path:
    """Copy the corpus folders (not its README) to ``dest``; return the resolved root."""
    dest.mkdir(parents=True, exist_ok=True)
    for sub in ("essays", "code", "boilerplate"):
        shutil.copytree(SAMPLE / sub, dest / sub)
    return dest.resolve()


def build_index(corpus: Path, db: Path) -> Path:
    """Index the corpus the documented way: the header as boilerplate first, then the documents."""
    import winnowdb

    with winnowdb.open(db) as idx:
        idx.add([corpus / "boilerplate"], boilerplate=True)
        summary = idx.add([corpus / "essays", corpus / "code"])
        assert summary.added == 21 and not summary.skipped
    return db


def pair_key(a: str, b: str, root: Path) -> frozenset:
    """A pair of indexed paths as a set of corpus-relative names."""
    return frozenset(Path(p).resolve().relative_to(root).as_posix() for p in (a, b))


@pytest.fixture(scope="session")
def corpus(tmp_path_factory) -> Path:
    """A read-only copy of sample_corpus (essays, code, boilerplate)."""
    return copy_corpus(tmp_path_factory.mktemp("corpus"))


@pytest.fixture(scope="session")
def index_db(corpus, tmp_path_factory) -> Path:
    """A read-only index of ``corpus`` built with the Python API (default settings)."""
    return build_index(corpus, tmp_path_factory.mktemp("index") / "corpus.duckdb")


@pytest.fixture
def fresh_corpus(tmp_path) -> Path:
    """A private copy of the corpus the test may edit."""
    return copy_corpus(tmp_path / "corpus")


@pytest.fixture
def fresh_index(fresh_corpus, tmp_path) -> tuple[Path, Path]:
    """(corpus, db): a private corpus copy and an index of it the test may change."""
    return fresh_corpus, build_index(fresh_corpus, tmp_path / "index.duckdb")


@pytest.fixture
def cli(monkeypatch):
    """Run the real CLI in-process: ``cli("pairs", "--db", db)`` -> click Result.

    The terminal width is pinned to 80 columns (a typical terminal) so output does not depend
    on the terminal pytest happens to run in, and $WINNOWDB_DB is unset.
    """
    from typer.testing import CliRunner

    from winnowdb.cli import app

    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.delenv("WINNOWDB_DB", raising=False)
    runner = CliRunner()

    def run(*args):
        return runner.invoke(app, [str(a) for a in args])

    return run


# ------------------------------------------------------------------ helpers shared by test files

def ok(result):
    """The result of a CLI command (CliRunner) that must succeed."""
    assert result.exit_code == 0, (result.exit_code, result.output, result.exception)
    return result


def one_line_error(result, *needles):
    """A failed command: non-zero exit, one line on stderr, no traceback, nothing on stdout."""
    assert result.exit_code != 0, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    err = result.stderr.strip()
    assert len(err.splitlines()) == 1, f"error message is not one line:\n{err}"
    assert err.startswith("error:"), err
    for needle in needles:
        assert needle in err, err
    assert result.stdout.strip() == ""
    return err


def age_code_tokens(db: Path) -> None:
    """Make ``db`` look like an index whose code an older tokenizer fingerprinted: no code tokenizer
    version recorded, every code document's hashes scrambled (as a different token stream would
    scramble them), the kept document frequencies following them."""
    import duckdb

    con = duckdb.connect(str(db))
    try:
        con.execute("DELETE FROM settings WHERE key = 'code_tokens_version'")
        con.execute("UPDATE fingerprints SET hash = xor(hash, 6148914691236517205) WHERE doc IN "
                    "(SELECT doc FROM documents WHERE normalizer LIKE 'code:%')")
        # The old tokenizer's index kept its document frequencies for its own hashes.
        con.execute("DELETE FROM shared_hashes")
        con.execute("INSERT INTO shared_hashes SELECT f.hash, COUNT(DISTINCT d.sub) FROM fingerprints f "
                    "JOIN documents d USING (doc) WHERE d.kind = 'document' GROUP BY f.hash "
                    "HAVING COUNT(DISTINCT d.sub) >= 2")
    finally:
        con.close()


def _vocab(seed: int = 0, n: int = 3000) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9))) for _ in range(n)]


#: a fixed random vocabulary of 3,000 made-up words
VOCAB = _vocab()


def random_words(seed: int, n: int) -> list[str]:
    """``n`` words drawn from ``VOCAB``, the same for the same seed."""
    rng = random.Random(seed)
    return [rng.choice(VOCAB) for _ in range(n)]


#: folders and files whose every test is ``slow`` (``pytest -m "not slow"`` leaves them out): the
#: Spark tests (a JVM per session), the reliability tests (process kills, old-index upgrades,
#: concurrent processes, hostile and damaged files) and the runs of the README's and docs' examples
SLOW_PARTS = ("spark", "reliability", "test_docs.py")

#: the base temporary folder this run made for xdist, removed when the run ends
OWN_BASETEMP = pytest.StashKey[str]()


def pytest_collection_modifyitems(config, items):
    for item in items:
        parts = Path(str(item.fspath)).relative_to(REPO / "tests").parts
        if parts and parts[0] in SLOW_PARTS:
            item.add_marker(pytest.mark.slow)


def pytest_configure(config):
    """Under pytest-xdist (``-n 2``), give the run a short base temporary folder: each worker's
    tmp paths then are no longer than a plain run's (``/tmp/pytest-of-USER/pytest-N/...``), so the
    tests that read 80-column tables and captions holding tmp paths see the same layout. The
    folder is this run's own: ``pytest_unconfigure`` removes it (a run writes ~2 GB there)."""
    if getattr(config.option, "numprocesses", None) and config.option.basetemp is None \
            and not hasattr(config, "workerinput"):
        config.option.basetemp = tempfile.mkdtemp(prefix="wdb")
        config.stash[OWN_BASETEMP] = config.option.basetemp


def pytest_unconfigure(config):
    """Remove the base temporary folder ``pytest_configure`` made for an xdist run. pytest keeps
    a ``--basetemp`` it was given, and each fast-tier run used to leave ~2 GB behind in /tmp."""
    folder = config.stash.get(OWN_BASETEMP, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def sigint_default() -> None:
    """``preexec_fn`` of a child process a test interrupts: SIGINT at its default action even when
    this run inherited it ignored (a job a non-interactive shell started in the background, a
    nohup'd CI runner), so Python gives the child its KeyboardInterrupt handler as in a terminal."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
