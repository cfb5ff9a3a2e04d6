"""The data dictionary docs/tables.md, generated from the table registry.

Run ``python -m gopat.transforms.tables.dictionary docs/tables.md`` (``make tables-doc``) after changing
registry.py; a test fails while the file differs from what this writes.
"""

from __future__ import annotations

import sys
from pathlib import Path

from gopat.transforms.tables.format import FORMAT
from gopat.transforms.tables.registry import TABLES, Table, contract

HEADER = f"""# Tables

<!-- Generated from transforms/tables/registry.py by `make tables-doc`: edit the registry, not this file. -->

A release (format {FORMAT}, [CHANGELOG](../CHANGELOG.md)) holds one Parquet file per table, or a folder of
Parquet files for a partitioned table, beside its `manifest.json`, whose `schema` repeats this page. The files
store only what cannot be computed from the same row; the other columns, marked *derived* below, are computed
by the DuckDB macros that the catalog (`warehouse/catalog.duckdb`) and `gopat.open_release` install, so their
views show every column below, and by `gopat.columns` for readers of the files without DuckDB
([releases.md](releases.md#reading-the-files)). In the catalog, `SELECT column_name, comment FROM
duckdb_columns() WHERE table_name = 'pattern_stats'` shows these descriptions.
"""


def data_dictionary() -> str:
    """The text of docs/tables.md."""
    return "\n".join([HEADER, *(_table(table) for table in TABLES.values())])


def _table(table: Table) -> str:
    partitioned = " A partitioned table: a folder of files read as one table." if table.partitioned else ""
    lines = [f"## {table.name}", "", f"One row per {table.grain}; the columns ({', '.join(table.key)}) "
             f"identify a row.{partitioned}", "", f"Built by `{table.model}`, checked by `{table.suite}`.", ""]
    lines += [f"- {note}" for note in table.notes] + ([""] if table.notes else [])
    lines += ["| column | DuckDB type | description |", "|---|---|---|"]
    types = contract(table.name)
    for column in table.columns:
        derived = f" *Derived:* `{column.derived}`." if column.derived else ""
        lines.append(f"| `{column.name}` | {types[column.name]} | {column.doc.replace('|', '&#124;')}{derived} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    """Write the data dictionary to the path given (standard output without one)."""
    text = data_dictionary()
    if argv:
        Path(argv[0]).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
