"""`gopat show`: a pattern key as text and as the SVG the report draws."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from gopat.cli.main import main
from gopat.transforms.patterns import render
from tests.docs.release import tiny_release

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory, shared_dir: Path) -> Path:
    return tiny_release(tmp_path_factory, shared_dir)


@pytest.fixture(scope="module")
def catalog(warehouse: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    con = duckdb.connect(str(warehouse / "catalog.duckdb"), read_only=True)
    con.execute("USE current")
    yield con
    con.close()


def test_show_prints_text_and_writes_the_same_svg(warehouse: Path, catalog: duckdb.DuckDBPyConnection,
                                                 tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key, occurrence, chosen = catalog.execute(
        "SELECT key, occurrence, chosen FROM pattern_stats WHERE family = 'd12' AND symmetry = 8 "
        "ORDER BY chosen DESC, key LIMIT 1").fetchone()
    svg = tmp_path / "shape.svg"
    assert main(["show", key, "--family", "d12", "--warehouse", str(warehouse), "--svg", str(svg)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"d12 {key}\n{render.pattern_text('d12', key)}\n")
    assert f"occurrence {occurrence}, chosen {chosen}" in out
    root = ET.parse(svg).getroot()
    assert root.get("data-pattern") == key and "diagram" in root.get("class")
    stones = sum(ch in "12" for ch in key[1:14])
    assert len([e for e in root.iter("{http://www.w3.org/2000/svg}circle") if "stone" in e.get("class", "")]) == stones
