"""Scale-out commands: export, import, import-pairs, and the ``spark`` group (fingerprint, pairs, query).

``winnowdb export --parquet DIR`` writes an index as Parquet; ``winnowdb spark ...`` runs
winnowdb's jobs on Apache Spark over such a directory (or makes one from a file list);
``winnowdb import`` / ``import-pairs`` bring the results back into a DuckDB index for browsing.
The ``spark`` group is also ``python -m winnowdb.spark`` (the spark-submit entry point). See
docs/spark.md.
"""
from __future__ import annotations

import contextlib
from typing import List, Optional

import typer

from .app import DbOption, Format, FormatOption, Guard, MaxDfOption, MinScoreOption, app, console, fail, open_index
from .waiting import steps_bar, waiting_on

spark_app = typer.Typer(
    name="spark",
    help="Run winnowdb on Apache Spark: fingerprint a file list in parallel, count pairs, look a "
         "file up, all with the same SQL files as the DuckDB index (docs/spark.md). Needs "
         "pip install '.\\[spark]' (in the winnowdb source folder) and Java 17+.",
    no_args_is_help=True,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(spark_app, name="spark")

MasterOption = typer.Option(None, "--master", metavar="URL",
                            help="Spark master (default: the one spark-submit gives, else "
                                 "$WINNOWDB_SPARK_MASTER, else local[*]).")
ConfOption = typer.Option(None, "--conf", metavar="KEY=VALUE",
                          help="A Spark setting for a new session (repeatable), e.g. "
                               "spark.driver.memory=8g.")
OverwriteOption = typer.Option(False, "--overwrite", help="Replace OUT if it holds an earlier result.")


@contextlib.contextmanager
def _spark_guard():
    """Guard, plus Spark's and Py4J's errors as one line."""
    with Guard():
        try:
            yield
        except typer.Exit:
            raise
        except Exception as exc:  # noqa: BLE001 - only Spark's own errors are translated
            mod = type(exc).__module__ or ""
            if mod.startswith(("pyspark", "py4j")):
                text = str(exc).strip().splitlines()
                fail(f"Spark: {text[0] if text else type(exc).__name__}")
            raise


def _session(master: Optional[str], conf: Optional[List[str]]):
    from ..spark.session import get_session

    settings = {}
    for item in conf or []:
        if "=" not in item:
            fail(f"--conf wants KEY=VALUE, not {item!r}")
        key, value = item.split("=", 1)
        settings[key.strip()] = value.strip()
    return get_session(master, conf=settings)


# --------------------------------------------------------------------------- export / import
@app.command("export")
def export_cmd(
    parquet: str = typer.Option(..., "--parquet", metavar="DIR", help="Write the index as Parquet files into DIR."),
    db: Optional[str] = DbOption,
    buckets: int = typer.Option(16, "--buckets", min=1, help="Hash buckets the fingerprints are partitioned into."),
    texts: bool = typer.Option(False, "--texts", help="Also write the documents' texts (document_texts)."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace an earlier export in DIR."),
) -> None:
    """Export the index as Parquet for Spark (or any engine): settings, documents, fingerprints
    (partitioned by hash bucket, hashes as signed 64-bit integers) and any further tables."""
    from ..store.export import export_parquet, summary

    with Guard(), open_index(db, create=False, read_only=True) as idx, waiting_on(idx.store, "exporting"):
        manifest = export_parquet(idx.store.connection, parquet, buckets=buckets, texts=texts, overwrite=overwrite)
    console().print(f"exported {summary(manifest)} -> {parquet}", markup=False, soft_wrap=True)


@app.command("import")
def import_cmd(
    parquet: str = typer.Option(..., "--parquet", metavar="DIR",
                                help="An export directory (winnowdb export, or winnowdb spark fingerprint)."),
    db: Optional[str] = DbOption,
    no_texts: bool = typer.Option(False, "--no-texts",
                                  help="Do not read texts back from the files when DIR has none (scores work, "
                                       "passages cannot be shown)."),
) -> None:
    """Make a new DuckDB index from a Parquet export, e.g. the output of `winnowdb spark
    fingerprint`, to browse it with query, compare, report and sql. Code of an export without
    the text family of the pair score (a Spark-fingerprinted one) gets it from the texts."""
    from ..index import default_db
    from ..ingest.code_text import fill_code_text
    from ..ingest.read import read_unchanged
    from ..store.database import Store
    from ..store.export import import_parquet

    target = db or default_db()
    progress = steps_bar("", "", console(stderr=True))
    task = progress.add_task("importing", total=1)
    with Guard(), progress:
        counts = import_parquet(parquet, target, read_text=None if no_texts else read_unchanged,
                                on_step=lambda what, done, total: progress.update(task, description=what,
                                                                                  completed=done, total=total))
        with Store.open(target) as store:  # an export without the code's text family gets it here
            filled = fill_code_text(store)
    missing = counts.pop("texts_missing", 0)
    parts = ", ".join(f"{k} {v}" for k, v in counts.items())
    console().print(f"imported {parts} -> {target}", markup=False, soft_wrap=True)
    if filled.done:
        console().print(f"the text of {filled.done} code document{'s' if filled.done != 1 else ''} fingerprinted "
                        "as a second family of evidence for the pair score", markup=False, soft_wrap=True)
    if missing:
        what = (f"{missing} documents' texts are not stored (--no-texts)" if no_texts else
                f"{missing} of the documents' files changed or are gone since they were fingerprinted: "
                f"their texts are not stored")
        console(stderr=True).print(
            f"note: {what} (pairs and scores are complete; compare and report cannot show these "
            f"documents' passages; `check` notes them)",
            markup=False, highlight=False)


@app.command("import-pairs")
def import_pairs_cmd(
    pairs_dir: str = typer.Argument(..., metavar="PAIRS_DIR", help="The OUT of `winnowdb spark pairs`."),
    db: Optional[str] = DbOption,
    table: str = typer.Option("spark_pairs", "--table", help="Table to (re)create in the index."),
) -> None:
    """Load pairs counted on Spark into a table of a DuckDB index (default spark_pairs), for
    `winnowdb sql` and for compare / report on the pairs it lists."""
    from ..store.export import import_pairs

    with Guard():
        with open_index(db, create=False) as idx:
            n = import_pairs(idx.store.connection, pairs_dir, table=table)
    console().print(f"{n} pairs -> table {table} of {db or 'the index'}", markup=False, soft_wrap=True)


# --------------------------------------------------------------------------- spark group
@spark_app.command("fingerprint")
def spark_fingerprint(
    filelist: str = typer.Argument(..., metavar="FILELIST",
                                   help="Text file (any path Spark reads): one file per line, optionally "
                                        "path<TAB>submission<TAB>label."),
    outdir: str = typer.Argument(..., metavar="OUTDIR", help="Directory to write (the export layout)."),
    boilerplate: Optional[str] = typer.Option(None, "--boilerplate", "-b", metavar="FILELIST",
                                              help="A list of boilerplate files (never counted as copying)."),
    k: Optional[int] = typer.Option(None, "--k", min=1, help="k-gram length (default as `winnowdb add`)."),
    w: Optional[int] = typer.Option(None, "--w", min=1, help="Winnowing window (default as `winnowdb add`)."),
    normalizer: Optional[str] = typer.Option(None, "--normalizer", help="auto, prose, text, words or code."),
    text_normalizer: Optional[str] = typer.Option(
        None, "--text-normalizer", help="How --normalizer auto reads text: prose (default), text or words."),
    selection: Optional[str] = typer.Option(None, "--selection", help="winnow, all or mod."),
    mod_m: Optional[int] = typer.Option(None, "--mod-m", min=1, help="m for --selection mod."),
    language: Optional[str] = typer.Option(None, "--language", help="Force the programming language of code files."),
    buckets: int = typer.Option(16, "--buckets", min=1, help="Hash buckets of the fingerprints."),
    partitions: Optional[int] = typer.Option(None, "--partitions", min=1,
                                             help="Tasks to split the list into (default 4 per core)."),
    texts: bool = typer.Option(False, "--texts", help="Also write the texts (for `winnowdb import`)."),
    overwrite: bool = OverwriteOption,
    master: Optional[str] = MasterOption,
    conf: Optional[List[str]] = ConfOption,
) -> None:
    """Fingerprint a large file list in parallel with winnowdb's own pipeline; writes the same
    Parquet layout as `winnowdb export --parquet`."""
    from ..spark import jobs

    with _spark_guard():
        settings = jobs.job_settings(k=k, w=w, normalizer=normalizer, text_normalizer=text_normalizer,
                                     selection=selection, mod_m=mod_m)
        spark = _session(master, conf)
        m = jobs.fingerprint(spark, filelist, outdir, boilerplate_list=boilerplate, settings=settings,
                             buckets=buckets, texts=texts, language=language, partitions=partitions,
                             overwrite=overwrite)
    err = console(stderr=True)
    for path, reason in m.get("skipped_examples", []):
        err.print(f"skipped {path}: {reason}", markup=False, soft_wrap=True)
    if m.get("skipped", 0) > len(m.get("skipped_examples", [])):
        err.print(f"... {m['skipped']} skipped in all (listed in {outdir}/_skipped)", markup=False, soft_wrap=True)
    t = m["tables"]
    console().print(f"{t['documents']['rows']} documents, {t['fingerprints']['rows']} fingerprints, "
                     f"{m.get('skipped', 0)} skipped -> {outdir}", markup=False, soft_wrap=True)


@spark_app.command("pairs")
def spark_pairs(
    parquet_dir: str = typer.Argument(..., metavar="PARQUET_DIR", help="An export directory."),
    out: str = typer.Argument(..., metavar="OUT", help="Directory to write the pairs to (Parquet)."),
    min_shared: int = typer.Option(1, "--min-shared", min=1, help="Only pairs sharing at least N fingerprints."),
    new: Optional[str] = typer.Option(None, "--new", metavar="LABEL",
                                      help="Archive mode: only pairs involving documents labelled LABEL."),
    max_df: int = MaxDfOption,
    min_score: Optional[float] = MinScoreOption,
    overwrite: bool = OverwriteOption,
    master: Optional[str] = MasterOption,
    conf: Optional[List[str]] = ConfOption,
) -> None:
    """All-vs-all pair counting (sql/pairs.sql, unchanged) on Spark; writes OUT as Parquet.

    Columns as `winnowdb pairs`: a, b, shared, fingerprints_a, fingerprints_b, containment_a,
    containment_b, resemblance. Browse with `winnowdb import-pairs OUT --db INDEX`, or in DuckDB:
    SELECT * FROM read_parquet('OUT/*.parquet').
    """
    from ..spark import jobs

    with _spark_guard():
        spark = _session(master, conf)
        _, cap = jobs.pairs(spark, parquet_dir, out, max_df=max_df, min_shared=min_shared, new_label=new,
                            overwrite=overwrite, min_score=min_score)
        n = spark.read.parquet(out).count()
    console().print(f"{n} pairs (max_df {cap}) -> {out}", markup=False, soft_wrap=True)


@spark_app.command("query")
def spark_query(
    parquet_dir: str = typer.Argument(..., metavar="PARQUET_DIR", help="An export directory."),
    file: str = typer.Argument(..., help="A file (in the export or not) to look up."),
    top: int = typer.Option(10, "--top", "-n", min=0, help="Show the best N hits (0 = all)."),
    min_shared: int = typer.Option(1, "--min-shared", min=1, help="Hide hits sharing fewer fingerprints."),
    max_df: int = MaxDfOption,
    fmt: Format = FormatOption,
    master: Optional[str] = MasterOption,
    conf: Optional[List[str]] = ConfOption,
) -> None:
    """Which submissions of an export share passages with FILE (sql/query_found.sql and query_hits.sql on Spark)."""
    from ..spark import lookup

    with _spark_guard():
        spark = _session(master, conf)
        hits = lookup.query(spark, parquet_dir, file, top=top, max_df=max_df, min_shared=min_shared)
    from ..report.tables import emit_rows

    emit_rows(console(), hits, ["path", "shared", "containment", "contained", "resemblance"], fmt.value,
              title=f"documents sharing passages with {file}", empty="no document shares a passage")
