"""The catalog in the analysts' duckdb shell (PyPI's duckdb-cli, an older DuckDB than the build's): its views, their
derived columns and comments answer there as in the build's DuckDB."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from tests.docs.release import tiny_release

SHELL = Path(sys.executable).parent / "duckdb"
QUERIES = [
    "SELECT family, key, chosen_rate, stones, diagram FROM current.pattern_stats WHERE symmetry = 8 "
    "ORDER BY family, chosen DESC, key LIMIT 40",
    "SELECT game_id, move_number, point FROM current.moves ORDER BY game_id, move_number LIMIT 40",
    "SELECT family, template, chosen_rate, diagram FROM current.dont_care_templates ORDER BY ALL LIMIT 20",
    "SELECT column_name, comment FROM duckdb_columns() WHERE schema_name = 'current' AND table_name = 'moves' "
    "ORDER BY column_index",
]


@pytest.mark.slow
@pytest.mark.parametrize("query", QUERIES, ids=["pattern_stats", "moves", "templates", "comments"])
def test_the_shell_reads_the_catalog_as_the_build_does(query: str, tmp_path_factory: pytest.TempPathFactory,
                                                       shared_dir: Path) -> None:
    catalog = tiny_release(tmp_path_factory, shared_dir) / "catalog.duckdb"
    shell = subprocess.run([str(SHELL), "-readonly", "-json", str(catalog), "-c", query], capture_output=True,
                           text=True, timeout=120, check=False)
    assert shell.returncode == 0 and shell.stderr == "", shell.stderr
    with duckdb.connect(str(catalog), read_only=True) as con:
        expected = con.execute(query).fetchall()
    assert expected
    assert [tuple(row.values()) for row in json.loads(shell.stdout)] == expected
