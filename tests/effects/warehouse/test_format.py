"""Release formats: a format 1 release (derived columns stored) reads as the same rows as format 2 computes; a newer
format is refused in one line."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import polars as pl
import pyarrow.parquet as pq
import pytest

from gopat.effects.warehouse.catalog import refresh_catalog
from gopat.effects.warehouse.layout import Layout, table_files
from gopat.effects.warehouse.open import connect_release
from gopat.transforms.tables.columns import chosen_rates, pattern_diagrams, pattern_stones, sgf_points
from gopat.transforms.tables.format import FORMAT
from gopat.transforms.tables.registry import TABLES
from tests.docs.release import tiny_release

GOPAT = Path(sys.executable).parent / "gopat"


def _as_format_1(folder: Path) -> None:
    """Rewrite release `folder` as format 1 wrote it: every column stored (computed here in Python), one move_patterns
    file, no `format`."""
    for table, files in table_files(folder).items():
        for path in files:
            rows = pl.read_parquet(path)
            if table in ("moves", "setups"):
                rows = rows.with_columns(sgf_points(rows["row"], rows["col"]))
            elif table == "pattern_stats":
                rows = rows.with_columns(chosen_rates(rows["chosen"], rows["occurrence"]),
                                         pattern_stones(rows["family"], rows["key"]),
                                         pattern_diagrams(rows["family"], rows["key"]))
            elif table == "dont_care_templates":
                rows = rows.with_columns(chosen_rates(rows["chosen"], rows["occurrence"]),
                                         pattern_diagrams(rows["family"], rows["template"]))
            pq.write_table(rows.select(TABLES[table].schema.names).to_arrow(), path)
    (folder / "move_patterns" / "000000.parquet").rename(folder / "move_patterns.parquet")  # one file up to format 2
    (folder / "move_patterns").rmdir()
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["files"]["move_patterns.parquet"] = manifest["files"].pop("move_patterns/000000.parquet")
    del manifest["format"], manifest["schema"]
    (folder / "manifest.json").write_text(json.dumps(manifest))


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory, shared_dir: Path) -> Layout:
    """Releases 0001 (tiny, rewritten as format 1) and 0002 (the same release, format 2)."""
    built = Layout(tiny_release(tmp_path_factory, shared_dir))
    version = (built.current_file.read_text()).strip()
    layout = Layout(tmp_path_factory.mktemp("formats") / "warehouse")
    layout.releases.mkdir(parents=True)
    old, new = f"0001-{version[5:]}", f"0002-{version[5:]}"
    shutil.copytree(built.release_dir(version), layout.release_dir(old))
    shutil.copytree(built.release_dir(version), layout.release_dir(new))
    _as_format_1(layout.release_dir(old))
    layout.current_file.write_text(new + "\n")
    refresh_catalog(layout)
    return layout


@pytest.mark.slow
def test_a_format_1_release_reads_as_the_rows_format_2_computes(warehouse: Layout) -> None:
    with duckdb.connect(str(warehouse.catalog), read_only=True) as con:
        for table in TABLES:
            for first, second in (("v1", "v2"), ("v2", "v1")):
                differ = con.execute(f"SELECT count(*) FROM (FROM {first}.{table} EXCEPT ALL FROM {second}.{table})")
                assert differ.fetchone() == (0,), (table, first)
            assert con.sql(f"FROM v2.{table}").columns == TABLES[table].schema.names
    for version in ("0001", "0002"):
        found = [path.name for path in warehouse.releases.iterdir() if path.name.startswith(version)]
        con, _ = connect_release(warehouse.root, found[0])
        with con:
            missing = con.execute("SELECT count(*) FROM pattern_stats WHERE diagram IS NULL OR stones IS NULL")
            assert missing.fetchone() == (0,)


@pytest.mark.slow
def test_a_release_of_a_newer_format_is_refused_in_one_line(warehouse: Layout, tmp_path: Path) -> None:
    layout = Layout(tmp_path / "warehouse")
    shutil.copytree(warehouse.root, layout.root)
    current = layout.current_file.read_text().strip()
    manifest_path = layout.release_dir(current) / "manifest.json"
    manifest_path.write_text(json.dumps({**json.loads(manifest_path.read_text()), "format": FORMAT + 1}))
    done = subprocess.run([str(GOPAT), "show", "1100000002", "--family", "sq3", "--warehouse", str(layout.root)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert f"release {current} has format {FORMAT + 1}" in done.stderr and "upgrade gopat" in done.stderr
