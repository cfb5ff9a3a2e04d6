"""open_release: one view per Parquet table of a release, whatever characters its folder's path holds."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from gopat.effects.warehouse.open import connect_release


def _release(warehouse: Path, version: str, tables: dict[str, int]) -> None:
    folder = warehouse / "releases" / version
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps({"version": version}))
    con = duckdb.connect()
    for name, value in tables.items():
        con.sql(f"SELECT {value} AS n").write_parquet(str(folder / f"{name}.parquet"))
    (warehouse / "releases" / "CURRENT").write_text(version)


def test_views_of_a_quoted_folder(tmp_path: Path) -> None:
    warehouse = tmp_path / "it's a \"warehouse\""
    _release(warehouse, "v1", {"games": 1, "moves": 2})
    con, version = connect_release(warehouse)
    assert version == "v1"
    assert con.execute("SELECT (SELECT n FROM games), (SELECT n FROM moves)").fetchone() == (1, 2)


def test_a_table_name_must_be_an_identifier(tmp_path: Path) -> None:
    _release(tmp_path, "v1", {'bad"name': 1})
    with pytest.raises(ValueError, match="must be an identifier"):
        connect_release(tmp_path)


def test_no_release(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no release"):
        connect_release(tmp_path)


def test_a_spill_folder_bounds_the_readers_memory(tmp_path: Path) -> None:
    _release(tmp_path / "warehouse", "v1", {"games": 1})
    settings = "SELECT current_setting('memory_limit'), current_setting('temp_directory')"
    limited, _ = connect_release(tmp_path / "warehouse", spill=tmp_path / "spill")
    unlimited, _ = connect_release(tmp_path / "warehouse")
    assert limited.execute(settings).fetchone() == ("1.8 GiB", str(tmp_path / "spill"))
    assert unlimited.execute(settings).fetchone()[0] != "1.8 GiB"
