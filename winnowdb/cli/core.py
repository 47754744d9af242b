"""Core commands: add, remove, query, pairs, compare, stats, sql."""
from __future__ import annotations

import contextlib
import os
import time
from typing import List, Optional

import typer

from .app import (
    DbOption,
    Format,
    FormatOption,
    Guard,
    MaxDfOption,
    MinScoreOption,
    QueryLanguageOption,
    app,
    console,
    fail,
    new_index_workers,
    note_changed,
    note_unknown_label,
    note_unstored,
    open_index,
)
from .waiting import waiting_on


@app.command()
def add(
    paths: List[str] = typer.Argument(..., help="Files or directories to index (recursively)."),
    db: Optional[str] = DbOption,
    boilerplate: bool = typer.Option(False, "--boilerplate", "-b",
                                     help="These files are boilerplate (templates, starter code, headers): "
                                          "their passages never count as copying."),
    label: Optional[str] = typer.Option(None, "--label", "-l",
                                        help="Tag the documents with a label (e.g. a year) for `pairs --new`. "
                                             "Without it, files already indexed keep theirs."),
    submission_depth: Optional[int] = typer.Option(
        None, "--submission-depth", "-d", min=1,
        help="All files under one directory at this depth below each PATH form one submission "
             "(MOSS -d); pairs are then between submissions. Without it, files already indexed keep "
             "their submission, and a new file inside a submission's folder joins it."),
    language: Optional[str] = typer.Option(
        None, "--language",
        help="Tokenize every file of this add as code in this language (python, java, c, cpp, javascript, "
             "go, csharp, rust, kotlin, or any Pygments lexer name or alias, e.g. py); default: code "
             "files by extension, everything else as text."),
    k: Optional[int] = typer.Option(None, "--k", min=1,
                                    help="k-gram length for text, in normalized characters (new index only; "
                                         "default 22 for prose, 16 for --normalizer text or words)."),
    w: Optional[int] = typer.Option(None, "--w", min=1,
                                    help="Winnowing window for text (new index only; default 12)."),
    code_k: Optional[int] = typer.Option(None, "--code-k", min=1,
                                         help="k-gram length for code, in tokens (new index only; default 12)."),
    code_w: Optional[int] = typer.Option(None, "--code-w", min=1,
                                         help="Winnowing window for code, in tokens (new index only; default 8)."),
    normalizer: Optional[str] = typer.Option(
        None, "--normalizer",
        help="Normalizer (new index only): auto (default: code files by extension are tokenized, "
             "everything else is prose), prose (letters and digits case folded, the spaces and punctuation "
             "between two words one unit; k counts them), text (letters and digits only, as in the "
             "Winnowing paper), words (Broder's word shingles; k counts words) or code (every file is code)."),
    text_normalizer: Optional[str] = typer.Option(
        None, "--text-normalizer",
        help="How --normalizer auto reads files that are not code (new index only): prose (default), "
             "text or words."),
    selection: Optional[str] = typer.Option(
        None, "--selection",
        help="Which k-gram hashes become fingerprints (new index only): winnow (default; every shared "
             "passage of w+k-1 units is found), all (every k-gram), mod (hashes 0 mod --mod-m)."),
    mod_m: Optional[int] = typer.Option(None, "--mod-m", min=1, help="m for --selection mod (default 8)."),
    code_text: Optional[bool] = typer.Option(
        None, "--code-text/--no-code-text",
        help="Also fingerprint the text of code files (identifiers, literals, comments) as a second "
             "evidence of the pair score (new index only; default on). Off: adding and pairing code "
             "is cheaper, and code pairs are scored by their tokens alone (docs/score.md)."),
    jobs: Optional[int] = typer.Option(
        None, "--jobs", "-j", min=1,
        help="Processes that read and fingerprint files (default: one per CPU; 1 = no workers). "
             "Small adds always run in one process."),
) -> None:
    """Fingerprint files into the index. Unchanged files are skipped; changed ones replaced.

    The index is created on first use with the given --k/--w/--normalizer; they are fixed after.
    Work is committed in batches: an interrupted add keeps every finished batch, and running the
    same add again completes it.
    """
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn, TransferSpeedColumn

    from ..report.paths import display_path

    out = console()
    err = console(stderr=True)
    with Guard(), contextlib.ExitStack() as stack:
        if language is not None:  # refused before a new index is created with settings fixed for good
            from ..ingest.languages import forced_language

            try:
                forced_language(language, normalizer or "auto")
            except ValueError as exc:
                fail(str(exc))
        from ..ingest.read import Skipped
        from ..ingest.walk import listed_bytes, walk

        listing, workers = new_index_workers(db, paths, jobs, stack)
        # the input's size plans the index's blocks and row groups (a new index's input is walked first)
        idx = open_index(db, k=k, w=w, code_k=code_k, code_w=code_w, normalizer=normalizer,
                         text_normalizer=text_normalizer, selection=selection, mod_m=mod_m, code_text=code_text,
                         adding_bytes=listed_bytes(listing) if listing is not None else 0)
        if listing is None:  # an index that exists, opened first so that a bad --db is reported at once
            try:
                idx = idx.for_adding(listed_bytes(listing := walk(paths)))
            except BaseException:
                idx.close()
                raise
        with idx:
            progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), DownloadColumn(),
                                TransferSpeedColumn(), TimeRemainingColumn(),
                                TextColumn("{task.fields[file]}"), console=err, transient=True,
                                disable=not err.is_terminal)
            task = None
            unshown = [0, 0.0]  # bytes done but not yet shown, and when the bar was last updated

            def on_start(files: int, total: int) -> None:
                nonlocal task
                task = progress.add_task("adding", total=max(total, 1), file="")

            def on_file(path: str, size: int) -> None:  # the bar moves at most 20 times a second
                assert task is not None  # on_start comes first
                unshown[0] += size
                now = time.monotonic()
                if now - unshown[1] >= 0.05 and not progress.disable:
                    progress.update(task, advance=unshown[0], file=display_path(path)[-40:])
                    unshown[0], unshown[1] = 0, now

            def on_finish(fingerprints: int) -> None:  # the default --max-df of a large index
                if task is not None:
                    progress.update(task, advance=unshown[0], description="counting",
                                    file=f"df of {fingerprints / 1e6:.1f}M fingerprints (default --max-df)")
                    unshown[0] = 0

            def on_merge(done: int, of: int) -> None:  # the runs of several adds merged into one
                if task is not None:
                    progress.update(task, description="merging", file=f"fingerprint runs: {done}/{of} buckets")

            if idx.stale_code_tokens():
                err.print("note: this index holds code tokenized by an older winnowdb; new code files may "
                          "match it less well until `winnowdb upgrade` fingerprints it again",
                          markup=False, highlight=False)
            if idx.code_text_missing():
                err.print("note: this index's code has no text family (made by an older winnowdb): its pairs are "
                          "scored by their code tokens alone until `winnowdb upgrade` adds it",
                          markup=False, highlight=False)
            if idx.old_fingerprint_layout():
                err.print("note: this index stores its fingerprints as an older winnowdb wrote them; "
                          "`winnowdb upgrade` rewrites them once, and queries get faster",
                          markup=False, highlight=False)
            with progress:
                s = idx.add(paths, label=label, boilerplate=boilerplate, submission_depth=submission_depth,
                            language=language, on_start=on_start, on_file=on_file, on_finish=on_finish,
                            on_merge=on_merge, jobs=jobs, listing=listing, workers=workers)
            walked = {item.path for item, _ in listing if not isinstance(item, Skipped)}
            gone = idx.missing_under([p for p in paths if os.path.isdir(p)], walked) if not s.interrupted else []
            if gone:
                what = (f"{display_path(gone[0])} is indexed but no longer exists; `winnowdb remove` it"
                        if len(gone) == 1 else
                        f"{len(gone)} indexed files under the folders added no longer exist (e.g. "
                        f"{display_path(gone[0])}); `winnowdb remove` them")
                err.print(f"note: {what} to drop their pairs", markup=False, highlight=False)
            if not s.interrupted:
                from ..store.interrupts import interrupts_ignored

                with interrupts_ignored():  # everything is committed: a late Ctrl-C changes nothing
                    idx.close()
            missing = [x for x in s.skipped if x.reason == "no such file or directory"]
            for x in s.skipped[:20]:
                err.print(f"skipped {display_path(x.path)}: {x.reason}", markup=False, highlight=False)
            if len(s.skipped) > 20:
                err.print(f"... and {len(s.skipped) - 20} more skipped files", markup=False)
            size = f"{s.bytes / 1e6:.1f} MB" if s.bytes >= 100_000 else f"{s.bytes / 1e3:.1f} kB"
            line = (f"{s.added} added, {s.updated} updated, {s.unchanged} unchanged, {len(s.skipped)} skipped; "
                    f"{s.fingerprints} fingerprints from {size} in {s.seconds:.2f}s -> {display_path(idx.path)}")
            if s.interrupted:
                err.print(f"interrupted: {s.saved} documents in {s.batches} committed batches were saved; "
                          f"run the same add again to finish", markup=False)
                raise typer.Exit(130)
            out.print(line, markup=False, soft_wrap=True)
            if s.merge_interrupted:
                err.print(f"interrupted while merging the fingerprint runs ({s.merged_seconds:.1f}s): every "
                          "document is indexed; the next add that stores documents, or `winnowdb upgrade`, "
                          "finishes the merge", markup=False)
                raise typer.Exit(130)
            if s.merged_seconds:
                err.print(f"note: the fingerprints of this index's last adds were merged into one run ordered "
                          f"by hash ({s.merged_seconds:.1f}s of the total), so lookups stay fast",
                          markup=False, highlight=False)
            if missing:
                raise typer.Exit(2)


@app.command()
def remove(paths: List[str] = typer.Argument(..., help="Indexed files or directories to remove."),
           db: Optional[str] = DbOption) -> None:
    """Remove documents (and their fingerprints) from the index."""
    with Guard(), open_index(db, create=False) as idx, waiting_on(idx.store, "removing"):
        gone = idx.remove(paths)
    from ..ingest.remove import unmatched_paths
    from ..report.paths import display_path

    if not gone:
        fail("nothing in the index matches " + " ".join(paths), 1)
    console().print("\n".join(f"removed {display_path(p)}" for p in gone), markup=False, soft_wrap=True)
    unmatched = unmatched_paths(paths, gone)
    if unmatched:  # the others were removed; say which were not, and fail like rm would
        fail("nothing in the index matches " + " ".join(unmatched), 1)


@app.command()
def query(
    file: str = typer.Argument(..., help="A file (indexed or not) to look up in the index."),
    db: Optional[str] = DbOption,
    top: int = typer.Option(10, "--top", "-n", min=0, help="Show the best N hits (0 = all)."),
    min_shared: int = typer.Option(1, "--min-shared", min=1,
                                   help="Hide hits sharing fewer fingerprints (with --sketch: fewer sketch "
                                        "fingerprints)."),
    sketch: Optional[int] = typer.Option(
        None, "--sketch", min=1, metavar="S",
        help="Rank by Broder's MIN_s resemblance estimate: compare only the S smallest fingerprints "
             "of FILE and of each document (fast and coarse; large S tends to the exact resemblance)."),
    simhash: bool = typer.Option(
        False, "--simhash",
        help="Near-duplicates instead: documents whose 64-bit simhash differs from FILE's in at most "
             "--hamming bits (Manku et al.; see docs/simhash.md)."),
    hamming: Optional[int] = typer.Option(
        None, "--hamming", min=0, max=32, metavar="K",
        help="Largest Hamming distance for --simhash (default 3; implies --simhash)."),
    max_df: int = MaxDfOption,
    language: Optional[str] = QueryLanguageOption,
    fmt: Format = FormatOption,
) -> None:
    """Which indexed documents share passages with FILE: the --top likeliest copies, best score first.

    Fields: path, score (0-1, the pair score of FILE and the hit: docs/score.md), shared (distinct
    fingerprints in common), containment (share of FILE found in the hit), contained (share of
    the hit found in FILE), resemblance (shared / union).
    With --sketch S: path, sketch_shared, sketch_size, resemblance (the MIN_s estimate).
    With --simhash: path, distance (differing simhash bits), simhash (json/csv); nearest first.
    """
    simhash = simhash or hamming is not None
    with Guard():
        if simhash and sketch is not None:
            fail("--simhash and --sketch cannot be combined")
        with open_index(db, create=False, read_only=True) as idx:
            if simhash:
                hits = idx.simhash_query(file, hamming=3 if hamming is None else hamming, top=top)
            elif sketch is not None:
                hits = idx.query_sketch(file, s=sketch, top=top, max_df=max_df, min_shared=min_shared,
                                        language=language)
            else:
                hits = idx.query(file, top=top, max_df=max_df, min_shared=min_shared, language=language)
            note_changed(idx, [file])
    from ..report.tables import emit_rows

    if simhash:
        k = 3 if hamming is None else hamming
        near_columns = ["path", "distance"] + (["simhash"] if fmt is not Format.table else [])
        emit_rows(console(), hits, near_columns, fmt.value,
                  title=f"near-duplicates of {file} (simhash within {k} bits)",
                  empty=f"no indexed document has a simhash within {k} bits")
        return
    columns = (["path", "sketch_shared", "sketch_size", "resemblance"] if sketch is not None
               else ["path", "score", "shared", "containment", "contained", "resemblance"])
    emit_rows(console(), hits, columns, fmt.value,
              title=f"documents sharing passages with {file}", empty="no indexed document shares a passage")


@app.command()
def pairs(
    db: Optional[str] = DbOption,
    top: int = typer.Option(50, "--top", "-n", min=0, help="Show the top N pairs (0 = all)."),
    min_shared: int = typer.Option(1, "--min-shared", min=1,
                                   help="Only pairs sharing at least N fingerprints (a file with no code "
                                        "token fingerprint: N of its text family's)."),
    new: Optional[str] = typer.Option(None, "--new", metavar="LABEL",
                                      help="Archive mode: only pairs involving documents labelled LABEL "
                                           "(new work against everything, never old against old)."),
    max_df: int = MaxDfOption,
    min_score: Optional[float] = MinScoreOption,
    fmt: Format = FormatOption,
) -> None:
    """All-vs-all copying: every pair of documents that share passages, most likely copies first.

    Fields: a, b, score (0-1: how likely a copy; the ranking), shared, containment_a (share of
    a found in b), containment_b, resemblance. For text the score is the larger containment; for
    code it also weighs the code's text (identifiers, literals, comments) and how rare the shared
    fingerprints are (docs/score.md): 0.5 is worth a look, 0.9 is a near-certain copy.
    """
    columns = ["a", "b", "score", "shared", "containment_a", "containment_b", "resemblance"]
    if fmt is not Format.table:  # DuckDB writes CSV and JSON, streamed to stdout: no Python row per pair
        from ..report.writers import stream_to_stdout

        with Guard(), open_index(db, create=False, read_only=True) as idx:
            note_unknown_label(idx, new)
            with waiting_on(idx.store, "counting pairs", streaming=True):
                stream_to_stdout(lambda path: idx.write_pairs(path, columns, fmt.value, min_shared=min_shared,
                                                              top=top, max_df=max_df, new_label=new,
                                                              min_score=min_score),
                                 json_array=fmt is Format.json, interrupt=idx.interrupt)
        return
    with Guard(), open_index(db, create=False, read_only=True) as idx:
        note_unknown_label(idx, new)
        with waiting_on(idx.store, "counting pairs"):
            rows = idx.pairs(min_shared=min_shared, top=top, max_df=max_df, new_label=new, min_score=min_score)
    from ..report.tables import emit_rows

    # the table leaves resemblance out, so that two paths fit beside the numbers (CSV and JSON keep it)
    emit_rows(console(), rows, [c for c in columns if c != "resemblance"], fmt.value,
              title="pairs sharing passages", empty="no pairs share a passage",
              headers={"containment_a": "% of a", "containment_b": "% of b"},
              notes=["score: how likely a copy (docs/score.md); % of a: the share of a's fingerprints "
                     "also found in b"])


@app.command()
def compare(
    a: str = typer.Argument(..., help="First file (indexed or not)."),
    b: str = typer.Argument(..., help="Second file (indexed or not)."),
    db: Optional[str] = DbOption,
    max_df: int = MaxDfOption,
    max_lines: int = typer.Option(12, "--max-lines", min=1, help="Lines shown per passage and side."),
    language: Optional[str] = QueryLanguageOption,
    fmt: Format = FormatOption,
) -> None:
    """The passages A and B share, side by side, matched text highlighted, with line numbers."""
    with Guard():
        with open_index(db, create=False, read_only=True) as idx:
            cmp = idx.compare(a, b, max_df=max_df, language=language)
            note_changed(idx, [a, b])
    note_unstored([cmp])
    from ..report.compare_view import compare_to_dict, passage_records, render_compare
    from ..report.tables import emit_rows

    con = console()
    if fmt is Format.json:
        from ..report.writers import write_json

        write_json(compare_to_dict(cmp))
    elif fmt is Format.csv:
        emit_rows(con, passage_records(cmp), ["passage", "path_a", "lines_a", "path_b", "lines_b", "matches"], "csv")
    else:
        render_compare(con, cmp, max_lines=max_lines)


@app.command()
def stats(db: Optional[str] = DbOption,
          top_common: int = typer.Option(10, "--top-common", min=0, help="How many common fingerprints to list."),
          fmt: Format = FormatOption) -> None:
    """Index size, settings, measured fingerprint density vs 2/(w+1), most common fingerprints."""
    with Guard():
        with open_index(db, create=False, read_only=True) as idx:
            st = idx.stats(top_common=top_common)
    from ..report.stats_view import render_stats

    render_stats(console(), st, fmt.value)


@app.command(context_settings={"ignore_unknown_options": True})
def sql(
    query_text: str = typer.Argument(..., metavar="QUERY",
                                     help="SQL to run on the index (DuckDB dialect; it may start with a -- "
                                          "comment), or - to read it from standard input (e.g. < query.sql)."),
    db: Optional[str] = DbOption,
    write: bool = typer.Option(False, "--write", help="Open the index writable (default read-only)."),
    fmt: Format = FormatOption,
) -> None:
    """Run ad-hoc SQL on the index: tables settings, meta, documents, document_texts,
    fingerprints, shared_hashes, boilerplate_hashes (and clusters, once made); views
    document_fingerprints, fingerprint_df, default_max_df, pairs. The README's schema section
    says what each holds."""
    if query_text == "-":
        import sys

        query_text = sys.stdin.read()
    with Guard():
        with open_index(db, create=False, read_only=not write) as idx:
            cols, rows = idx.sql(query_text)
    from ..report.tables import emit_rows

    seen: dict[str, int] = {}
    unique = []
    for c in cols:  # make repeated column names distinct (a.path, b.path -> path, path_2)
        seen[c] = seen.get(c, 0) + 1
        unique.append(c if seen[c] == 1 else f"{c}_{seen[c]}")
    cols = unique

    emit_rows(console(), [dict(zip(cols, r)) for r in rows], cols, fmt.value, empty="(no rows)", shorten_paths=False)
