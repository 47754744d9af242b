"""``stats`` for people and programs: the index summary, the density check, the most common
fingerprints."""
from __future__ import annotations

from typing import Iterable

from ..settings import TEXT_NORMALIZERS, TEXT_UNITS, IndexSettings
from .paths import display_path
from .tables import emit_rows
from .writers import write_json

__all__ = ["render_stats"]


def render_stats(console, st: dict, fmt: str) -> None:
    """The index summary, density check and most common fingerprints."""
    if fmt == "json":
        write_json(st)
        return
    if fmt == "csv":
        scalars = [k for k, v in st.items() if not isinstance(v, (dict, list))]  # nested parts: use json
        emit_rows(console, [st], scalars, "csv")
        return
    from rich.table import Table
    from rich.text import Text

    t = Table(title=Text(f"index {display_path(st['index'])}", style="table.title"), show_header=False)
    t.add_column("what", style="bold")
    t.add_column("value")
    cfg = IndexSettings(st["settings"])
    reads_text = cfg["normalizer"] if cfg.get("normalizer") in TEXT_NORMALIZERS \
        else cfg.get("text_normalizer", "text")  # shown as it is, known or not
    (k, w), (code_k, code_w) = cfg.kw("text"), cfg.kw("code")
    rows: Iterable[tuple[str, str]] = [
        ("documents", f"{st['documents'] + st['boilerplate']} ({st['documents']} in {st['submissions']} "
                      f"submissions, {st['boilerplate']} boilerplate)"),
        ("fingerprints", f"{st['fingerprints']} ({st['distinct_hashes']} distinct)"),
        ("text", f"{st['chars']} characters, {st['units']} normalized units"),
        ("settings", f"normalizer={cfg.get('normalizer')} selection={cfg.get('selection')}; "
                     f"{reads_text}: k={k} w={w} (guarantee t={cfg.guarantee('text')} "
                     f"{TEXT_UNITS.get(reads_text, 'units')}); "
                     f"code: k={code_k} w={code_w} (guarantee t={cfg.guarantee('code')} tokens)"),
        *[(f"density ({d['family']})", f"{d['density']:.4f} measured vs {d['expected']:.4f} expected "
           f"(2/(w+1)) over {d['documents']} documents") for d in st["density"]],
        ("default --max-df", str(st["default_max_df"])),
        ("schema", f"version {cfg.get('schema_version')}, hash {cfg.get('hash_version')}"),
    ]
    for a, b in rows:
        t.add_row(a, Text(b))
    console.print(t)
    if st["common"]:
        emit_rows(console, [{"hash": c["hash"], "df": c["df"], "occurrences": c["occurrences"],
                             "example": c["example_text"].replace("\n", " ")[:60],
                             "path": c["example_path"]} for c in st["common"]],
                  ["hash", "df", "occurrences", "example", "path"], "table", title="most common fingerprints",
                  headers={"path": "in"})
