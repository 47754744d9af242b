"""Run the real ``winnowdb`` CLI with small batches, logging each commit, and holding it at chosen
moments so that a test can kill or interrupt it exactly there.

Used by the crash and concurrency tests as the process they kill or interrupt:
``python crash_child.py add DIR --db X``. Nothing of the product is changed but the batch size, the
purge share, the huge-document threshold, and functions ``add`` calls through module attributes, which are
wrapped (never replaced): ``write_batch`` as the batch writer (``ingest.batches``) and the huge
path (``ingest.huge``) call it, ``ingest.huge.iter_fingerprints``,
``store.runs.FingerprintRun.finish``, ``store.runs.insert_part``, ``store.runs.index_pending``
and ``store.purge.delete_span``.

Environment:

``WINNOWDB_TEST_BATCH_BYTES``
    smaller batches, so a small corpus has many commit points.
``WINNOWDB_TEST_HUGE_CHARS``
    a lower huge-document threshold, so larger files take the segmented path.
``WINNOWDB_TEST_PURGE_SHARE``
    ``store.purge.DEFER_SHARE`` and ``SPAN_SHARE``: a large one makes a small index's removals
    delete their fingerprint rows after they commit, a span of buckets at a time.
``WINNOWDB_TEST_COMMIT_LOG``
    a file; the paths of each commit's documents are appended to it (one a line) once the
    commit has returned: the documents the index must hold after a kill.
``WINNOWDB_TEST_HOLD_DIR`` and ``WINNOWDB_TEST_HOLD``
    hold points (comma-separated) where the child stops and waits. On reaching one it writes
    ``HOLD_DIR/held-POINT`` (JSON: how many commits were started and how many documents have
    committed so far, and the documents of the commit in hand), then waits until it is released:
    by a file ``HOLD_DIR/go-POINT`` that the test creates, or by a SIGINT delivered to the process
    (seen through ``signal.set_wakeup_fd``, which records every signal the moment it arrives,
    whichever thread the kernel delivers it to). A test therefore knows exactly where the child
    is when it sends its signal; nothing depends on how fast the machine is. Points (N counts
    from 1 in this process):

    ``before:N``  before the N-th commit of documents (a batch, in the writer thread, or a huge
                  document, in the main thread) starts
    ``after:N``   after the N-th commit returned, before ``add`` counts it
    ``stream:N``  in the main thread, while the huge document of the N-th commit is being
                  fingerprinted (its first segment's rows are in the add's run)
    ``store:N``   before the N-th storing of a fingerprint run (``FingerprintRun.finish``: the
                  end of an ``add``, or ``fold_pending`` at its start storing what a killed add
                  committed), in the main thread
    ``part:N``    before the N-th bucket of fingerprint rows is stored (``runs.insert_part``,
                  each bucket its own commit, while its documents are still pending)
    ``index:N``   every bucket of the N-th run stored, before the transaction that indexes its
                  documents (``runs.index_pending``)
    ``link``      creating the index: the temporary file is complete and about to be linked
                  into place (the ``os.link`` audit event)
    ``purge:N``   before the N-th span of a deferred removal's fingerprint rows is deleted
                  (``store.purge.delete_span``: the documents are removed, their rows of the
                  spans before are deleted)
    ``exit``      the command is done (the index is closed), the process is about to exit

    ``HOLD_DIR/exit`` is always written at exit (JSON: the exit status, the kind of each commit
    -- ``batch`` or ``huge`` --, documents committed, fingerprint runs stored).
"""
from __future__ import annotations

import json
import os
import select
import signal
import sys
import threading

from winnowdb.ingest import batches, huge
from winnowdb.ingest import pipeline as indexer
from winnowdb.store import buckets, purge, runs

indexer.BATCH_BYTES = int(os.environ.get("WINNOWDB_TEST_BATCH_BYTES", indexer.BATCH_BYTES))
if os.environ.get("WINNOWDB_TEST_HUGE_CHARS"):  # let a few files take the segmented path
    from winnowdb.ingest import segmented

    segmented.HUGE_CHARS = int(os.environ["WINNOWDB_TEST_HUGE_CHARS"])
    segmented.CHUNK_CHARS = segmented.SEGMENT_UNITS = max(segmented.HUGE_CHARS // 4, 1024)
LOG = os.environ.get("WINNOWDB_TEST_COMMIT_LOG")
HOLD_DIR = os.environ.get("WINNOWDB_TEST_HOLD_DIR")
HOLDS = {p.strip() for p in os.environ.get("WINNOWDB_TEST_HOLD", "").split(",") if p.strip()}
if HOLDS and not HOLD_DIR:
    raise SystemExit("crash_child: WINNOWDB_TEST_HOLD needs WINNOWDB_TEST_HOLD_DIR")
#: the test that started this child: a hold ends (exit status 97) when it has gone, so that a
#: test that died or forgot a release leaves no process behind (no time limit: a held child
#: waits as long as its test does)
PARENT = os.getppid()

# Every signal with a Python handler (SIGINT has one from the start) writes its number to this
# pipe the moment it arrives, in whichever thread the kernel delivers it to.
wakeup_r, wakeup_w = os.pipe()
os.set_blocking(wakeup_w, False)
signal.set_wakeup_fd(wakeup_w)

state = {"kinds": [], "committed_docs": 0, "stores": 0, "parts": 0, "indexings": 0}
lock = threading.Lock()

# Python runs a signal's handler in the main thread, at its next instruction. A SIGINT that
# releases a hold in another thread (add's writer, after a commit) stands for a Ctrl-C during that
# commit: the main thread would take it while DuckDB writes. So the released thread waits until
# the main thread has taken it; otherwise the writer could begin the next queued batch first.
main_took_sigint = threading.Event()
python_sigint = signal.getsignal(signal.SIGINT)


def on_sigint(signum, frame):
    main_took_sigint.set()
    python_sigint(signum, frame)


signal.signal(signal.SIGINT, on_sigint)


def marker_name(point: str) -> str:
    return point.replace(":", "-")


def write_marker(name: str, info: dict) -> None:
    path = os.path.join(HOLD_DIR, name)
    with open(path + ".tmp", "w", encoding="utf-8") as fh:
        json.dump(info, fh)
    os.replace(path + ".tmp", path)  # the test never sees half a marker


def hold(point: str, **info) -> None:
    """Stop at ``point`` if asked to, until a go-file or a SIGINT releases the child.

    In the main thread a SIGINT raises ``KeyboardInterrupt`` right here (in ``select``), as it
    would in the product code this hold stands in for, unless the product holds Ctrl-C there. In
    another thread the hold ends once the main thread has taken the SIGINT (``on_sigint``)."""
    if point not in HOLDS:
        return
    go = os.path.join(HOLD_DIR, "go-" + marker_name(point))
    with lock:
        info = dict(info, commits=len(state["kinds"]), committed_docs=state["committed_docs"],
                    stores=state["stores"])
    write_marker("held-" + marker_name(point), info)
    while not os.path.exists(go):
        if os.getppid() != PARENT:
            print(f"crash_child: the test has gone while held at {point}", file=sys.stderr, flush=True)
            os._exit(97)
        ready, _, _ = select.select([wakeup_r], [], [], 0.01)
        if ready and signal.SIGINT in os.read(wakeup_r, 64):
            if threading.current_thread() is not threading.main_thread():
                while not main_took_sigint.wait(0.01):
                    if os.getppid() != PARENT:
                        os._exit(97)
            return


def paths_of(documents) -> list[str]:
    """The path column of a documents table (a dict of numpy columns, or an Arrow table)."""
    if isinstance(documents, dict):
        return [str(p) for p in documents["path"]]
    return documents.column("path").to_pylist()


def logged_commit(kind: str, write):
    def commit(store, documents, texts, *more):  # more: the code's text family (write_batch)
        with lock:
            state["kinds"].append(kind)
            n = len(state["kinds"])
        paths = paths_of(documents)
        hold(f"before:{n}", paths=paths)
        write(store, documents, texts, *more)
        with lock:
            state["committed_docs"] += len(paths)
        if LOG:
            with open(LOG, "a", encoding="utf-8") as fh:
                fh.write("".join(p + "\n" for p in paths))
        hold(f"after:{n}", paths=paths)

    return commit


# the names add's batch writer and huge path call
batches.write_batch = logged_commit("batch", batches.write_batch)
huge.write_batch = logged_commit("huge", huge.write_batch)
iter_fingerprints = huge.iter_fingerprints


def held_fingerprints(*args, **kwargs):
    """``iter_fingerprints`` holding at ``stream:N`` once its first segment is in the run."""
    n = len(state["kinds"]) + 1  # the writer thread is idle: add waited for it before this
    for i, piece in enumerate(iter_fingerprints(*args, **kwargs)):
        if i == 1:  # the first piece has been added to the run, the second is ready
            hold(f"stream:{n}")
        yield piece


huge.iter_fingerprints = held_fingerprints
run_finish = runs.FingerprintRun.finish


def held_finish(self, *args, **kwargs):
    with lock:
        state["stores"] += 1
        n = state["stores"]
    hold(f"store:{n}", rows=self.rows)
    return run_finish(self, *args, **kwargs)


runs.FingerprintRun.finish = held_finish
insert_part = runs.insert_part


def held_insert_part(store, columns, **options):
    with lock:
        state["parts"] += 1
        n = state["parts"]
    hold(f"part:{n}", rows=int(columns["hash"].shape[0]))
    return insert_part(store, columns, **options)


runs.insert_part = held_insert_part
# a span of buckets per transaction (``buckets.spans``) holds about a million rows: this corpus's
# add would be one. A bucket per span, as a big add stores them, gives the kills points between
# committed spans.
buckets.SPAN_ROWS = 1
index_pending = runs.index_pending


def held_index_pending(store, update, tallies, **kwargs):
    with lock:
        state["indexings"] += 1
        n = state["indexings"]
    hold(f"index:{n}", buckets=len(tallies.spans()))
    return index_pending(store, update, tallies, **kwargs)


runs.index_pending = held_index_pending
# a removal whose fingerprint deletes would pin more than 1 / DEFER_SHARE of the memory limit
# deletes them after it commits, a span of buckets at a time (store/purge.py): a large share makes
# a small index's removals take that way
if os.environ.get("WINNOWDB_TEST_PURGE_SHARE"):
    purge.DEFER_SHARE = purge.SPAN_SHARE = int(os.environ["WINNOWDB_TEST_PURGE_SHARE"])
delete_span = purge.delete_span


def held_delete_span(store, span, rows, **kwargs):
    with lock:
        state["purged"] = state.get("purged", 0) + 1
        n = state["purged"]
    hold(f"purge:{n}", span=list(span))
    return delete_span(store, span, rows, **kwargs)


purge.delete_span = held_delete_span


def audit(event: str, args) -> None:
    if event == "os.link":
        hold("link", src=str(args[0]), dst=str(args[1]))


if "link" in HOLDS:
    sys.addaudithook(audit)

real_exit = os._exit
MAIN_PID = os.getpid()


def held_exit(status):
    """``winnowdb.cli.main`` ends the process with ``os._exit`` once the command is done: record
    the status (and hold at ``exit``) first. Forked workers exit through here too: not them."""
    if HOLD_DIR and os.getpid() == MAIN_PID:
        with lock:
            write_marker("exit", dict(status=status, kinds=state["kinds"], committed_docs=state["committed_docs"],
                                      stores=state["stores"]))
        hold("exit")
    real_exit(status)


if __name__ == "__main__":
    from winnowdb.cli import main

    os._exit = held_exit
    sys.argv = ["winnowdb", *sys.argv[1:]]
    try:
        main()
    except SystemExit as exc:  # should main ever end by raising rather than by os._exit
        held_exit(exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1))
    held_exit(0)
