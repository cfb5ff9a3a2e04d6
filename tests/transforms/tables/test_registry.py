"""The table registry: every derived column computable from its table's stored columns, the data dictionary current."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from gopat.transforms.tables.dictionary import data_dictionary
from gopat.transforms.tables.macros import install_macros
from gopat.transforms.tables.registry import TABLES, Table, derived_columns, polars_schema, select_list

REPO = Path(__file__).resolve().parents[3]


def test_docs_tables_md_is_generated_from_the_registry() -> None:
    assert (REPO / "docs" / "tables.md").read_text() == data_dictionary(), (
        "docs/tables.md is stale: run `make tables-doc`")


@pytest.mark.parametrize("table", TABLES.values(), ids=list(TABLES))
def test_the_view_of_the_stored_columns_has_every_column(table: Table) -> None:
    con = duckdb.connect()
    install_macros(con)
    con.from_arrow(table.stored.empty_table()).create_view("files")
    view = con.sql(f"SELECT {select_list(table.name, release_format=2)} FROM files")
    assert view.columns == table.schema.names
    assert con.from_arrow(table.schema.empty_table()).types == view.types
    assert [c.name for c in table.columns if c.derived] == derived_columns(table.name)
    assert list(polars_schema(table.name)) == table.stored.names


def test_every_column_is_described_and_identified() -> None:
    for table in TABLES.values():
        assert table.grain and set(table.key) <= set(table.stored.names), table.name
        assert all(field.metadata[b"description"] for field in table.schema), table.name
        assert len(set(table.schema.names)) == len(table.columns), table.name


def test_tables_outside_the_registry_and_format_1_releases_are_read_as_stored() -> None:
    assert select_list("pattern_stats", release_format=1) == select_list("t", release_format=2) == "*"
    assert derived_columns("t") == []
    assert TABLES["pattern_stats"].stored.field("key").type == pa.string()
