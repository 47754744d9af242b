"""Maintenance commands: check (integrity), upgrade (schema, and code from an older tokenizer)."""
from __future__ import annotations

from typing import Optional

import typer

from .app import DbOption, Format, FormatOption, Guard, app, console
from .waiting import steps_bar


def _db_path(db: Optional[str]) -> str:
    from ..index import default_db

    return db or default_db()


@app.command()
def check(db: Optional[str] = DbOption, fmt: Format = FormatOption) -> None:
    """Verify the index is whole and consistent (read-only).

    Checks the tables, settings and schema version; that no document id or path is stored twice;
    that every document's fingerprint count matches its rows and its text is stored; that no
    fingerprints or texts are orphaned; and reads every stored value once. Exit status 0 when
    healthy, 1 with a report of each problem, 2 when the file cannot be opened as an index. Code
    fingerprinted by an older code tokenizer is mentioned in a note (`winnowdb upgrade` redoes it),
    and so are documents whose text is not stored (an import of an export made without --texts).
    """
    from ..report.escape import terminal_safe
    from ..report.paths import display_path
    from ..store.check import check_index

    progress = steps_bar("checking", "checks", console(stderr=True))
    task = progress.add_task("check", total=1)
    with Guard(), progress:
        report = check_index(_db_path(db), on_check=lambda done, total: progress.update(task, completed=done,
                                                                                        total=total))
    out = console()
    if fmt is Format.json:
        from ..report.writers import write_json

        write_json(report.to_dict())
    elif fmt is Format.csv:
        from ..report.writers import write_csv_rows

        write_csv_rows(({"check": p.check, "count": p.count, "example": e}
                        for p in report.problems for e in p.examples or [""]), ["check", "count", "example"])
    else:
        name = display_path(report.path)
        if report.ok:
            t = report.totals
            out.print(f"ok: {name}: {report.checks} checks passed ({t.get('documents', 0)} documents, "
                      f"{t.get('fingerprints', 0)} fingerprints)", markup=False, soft_wrap=True)
        else:
            err = console(stderr=True)
            n = sum(1 for _ in report.problems)
            err.print(f"{name}: {n} of {report.checks} checks found problems", markup=False)
            for p in report.problems:
                for line in p.lines():
                    err.print("  " + terminal_safe(line), markup=False)
        for note in report.notes:
            console(stderr=True).print(f"note: {terminal_safe(note)}", markup=False, soft_wrap=True)
    if not report.ok:
        raise typer.Exit(1)


@app.command()
def upgrade(db: Optional[str] = DbOption) -> None:
    """Upgrade an index made by an older winnowdb to this version, in place.

    The schema upgrade runs in one transaction: it completes or leaves the index as it was. Code
    fingerprinted by an older code tokenizer is then fingerprinted again from the texts the index
    keeps (the original files are not needed), so new code matches it as well as code added
    today. That runs in committed batches: if interrupted, run upgrade again to finish. An index
    made before code documents had a text family (the second evidence of the pair score: their
    text in short k-grams) gets it, computed from the stored texts. An index
    that lost the index of its documents' paths (check says so) gets it again. An index
    written by a winnowdb that did not record its fingerprint runs has its fingerprints rewritten
    as one run ordered by hash, and they and the shared hashes in the small row groups that make
    queries fast (in place, a bucket of hashes per transaction: an interruption leaves the same
    rows; run upgrade again to finish). A merge of the fingerprint runs of several adds that is
    due (an add's merge was interrupted) is finished the same way.
    """
    from ..errors import WinnowError
    from ..ingest.code_text import fill_code_text, needs_code_text
    from ..ingest.retokenize import retokenize_code, stale_code_documents, without_text_message
    from ..settings import CODE_TOKENS_VERSION as TOKENS_VERSION
    from ..store import merge
    from ..store.database import Store
    from ..store.schema import SCHEMA_VERSION, restore_path_index

    path = _db_path(db)
    out, err = console(), console(stderr=True)
    merged = False
    with Guard():
        with Store.open(path, create=False) as store:
            before = store.upgraded_from
            stale = stale_code_documents(store)
            # decided first: re-tokenizing records its run, and with it a record of the runs
            relayout = merge.unrecorded(store.connection)
            if before is not None:
                out.print(f"{path} upgraded from schema version {before} to {SCHEMA_VERSION}",
                          markup=False, soft_wrap=True)
            restored = restore_path_index(store.connection)
            if restored:
                out.print(f"{path}: the index of the documents' paths made again (lookups by path read "
                          "every path without it)", markup=False, soft_wrap=True)
            if stale:
                old = store.settings.get("code_tokens_version", "the first code tokenizer")
                progress = steps_bar("re-tokenizing code", "characters", err)
                task = None

                def on_start(docs: int, chars: int) -> None:
                    nonlocal task
                    task = progress.add_task("retokenize", total=max(chars, 1))

                def on_doc(doc_path: str, chars: int) -> None:
                    assert task is not None  # on_start comes first
                    progress.update(task, advance=chars)

                try:
                    with progress:
                        result = retokenize_code(store, on_start=on_start, on_doc=on_doc)
                except KeyboardInterrupt:
                    err.print("interrupted: the code documents re-tokenized so far are saved; run "
                              "upgrade again to finish", markup=False)
                    raise typer.Exit(130) from None
                n = result.done
                if result.without_text:
                    raise WinnowError(without_text_message(result.without_text, n))
                out.print(f"{path}: {n} code document{'s' if n != 1 else ''} fingerprinted again with "
                          f"this winnowdb's code tokenizer ({old} -> {TOKENS_VERSION})",
                          markup=False, soft_wrap=True)
            filled = needs_code_text(store)
            if filled:
                progress = steps_bar("fingerprinting the text of code", "characters", err)
                bar = progress.add_task("code text", total=1)
                try:
                    with progress:
                        done = fill_code_text(
                            store, on_start=lambda docs, chars: progress.update(bar, total=max(chars, 1)),
                            on_doc=lambda chars: progress.update(bar, advance=chars))
                except KeyboardInterrupt:
                    err.print("interrupted: nothing of the code's text family is recorded yet; run "
                              "upgrade again to compute it", markup=False)
                    raise typer.Exit(130) from None
                missing = (f"; {done.without_text} without a stored text or unchanged file, scored by "
                           "their code tokens alone" if done.without_text else "")
                out.print(f"{path}: the text of {done.done} code document{'s' if done.done != 1 else ''} "
                          f"fingerprinted as a second family of evidence for the pair score{missing}",
                          markup=False, soft_wrap=True)
            # decided after re-tokenizing, whose own run may have made a merge due and done it
            due = not relayout and merge.merge_due(merge.runs_of(store))
            if relayout or due:  # rewrite an old layout, or finish a merge an add left due
                steps = 2 if relayout else 1  # an old layout: shared_hashes too
                label = "rewriting fingerprints" if relayout else "merging fingerprint runs"
                progress = steps_bar(label, "buckets", err)
                bar = progress.add_task("merge", total=1)
                try:
                    with progress:
                        seconds = 0.0
                        if relayout:
                            # shared_hashes first: the merge records the runs last, so an upgrade
                            # interrupted anywhere is still due, and the next one does both again
                            seconds += merge.rewrite_shared_hashes(
                                store, lambda done, of: progress.update(bar, completed=done, total=2 * of))
                        seconds += merge.merge(store, lambda done, of: progress.update(
                            bar, completed=(steps - 1) * of + done, total=steps * of))
                except KeyboardInterrupt:
                    err.print(f"interrupted: the index holds the same rows, {'rewritten' if relayout else 'merged'} "
                              "in part; run upgrade again to finish", markup=False)
                    raise typer.Exit(130) from None
                merged = True
                if relayout:
                    out.print(f"{path}: fingerprints rewritten as one run ordered by hash, and both they and the "
                              f"shared hashes in small row groups, for fast lookups ({seconds:.1f}s)",
                              markup=False, soft_wrap=True)
                else:
                    out.print(f"{path}: the fingerprint runs of its last adds merged into one, ordered by hash "
                              f"({seconds:.1f}s)", markup=False, soft_wrap=True)
    if before is None and not stale and not merged and not filled and not restored:
        out.print(f"{path} already has the current schema (version {SCHEMA_VERSION}) and no code from an "
                  "older tokenizer; nothing to do", markup=False, soft_wrap=True)
