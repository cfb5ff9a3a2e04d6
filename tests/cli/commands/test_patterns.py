"""`gopat show`: a pattern key as text and as the SVG the report draws."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from gopat.cli.main import main
from gopat.effects.warehouse.layout import table_files
from gopat.transforms.patterns import render
from gopat.transforms.patterns.gnugo import export_gnugo
from gopat.transforms.patterns.templates import build_dont_care_templates
from tests.docs.release import tiny_release
from tests.transforms.patterns.gnugo_format import parse_database

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



@pytest.mark.parametrize(("key", "reason"), [
    ("3000000000", "the first digit is the colour to move, 1 (Black) or 2 (White), got 3"),
    ("1333333333", "the centre cell is the empty candidate point (0), got 3"),
    ("1303000000", "the off-board cells (3) are not the part of the pattern beyond a board's edges"),
])
def test_show_rejects_a_key_no_position_produces_in_one_line(tmp_path: Path, key: str, reason: str,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", key, "--family", "sq3", "--warehouse", str(tmp_path)]) == 1
    assert capsys.readouterr() == ("", f"gopat: error: '{key}' is not a sq3 key: {reason}\n")

def _gnugo_rows(template: str) -> tuple[list[str], set[str]]:
    """Expected GNU Go cells and edges of an sq3 template, relative to the mover (docs/patterns.md#gnu-go-export)."""
    grid = [template[1 + 3 * r: 4 + 3 * r] for r in range(3)]
    own, other = ("1", "2") if template[0] == "1" else ("2", "1")
    own_or_empty, other_or_empty = ("x", "o") if template[0] == "1" else ("o", "x")
    relative = {"0": ".", "?": "?", own: "O", other: "X", own_or_empty: "o", other_or_empty: "x"}
    rows = [r for r in range(3) if grid[r] != "333"]
    cols = [c for c in range(3) if any(grid[r][c] != "3" for r in range(3))]
    cells = ["".join("*" if (r, c) == (1, 1) else relative[grid[r][c]] for c in cols) for r in rows]
    sides = {"north": 0 not in rows, "south": 2 not in rows, "west": 0 not in cols, "east": 2 not in cols}
    return cells, {side for side, off in sides.items() if off}


def _check_gnugo_export(text: str, con: duckdb.DuckDBPyConnection, symmetry: int) -> int:
    """Check an export against the templates of ``con`` and GNU Go's rules; the number of patterns written."""
    header, patterns = parse_database(text)
    rows = con.execute(
        "SELECT template, occurrence, chosen FROM dont_care_templates WHERE family = 'sq3' AND symmetry = ? "
        "ORDER BY occurrence DESC, template", [symmetry]).fetchall()
    written = [(rank, row) for rank, row in enumerate(rows, start=1) if any(ch in "12" for ch in row[0][1:])]
    assert [p.name for p in patterns] == [f"sq3_{symmetry}_{rank}" for rank, _ in written]
    colour = {"1": "BLACK", "2": "WHITE"}
    for pattern, (_, (template, occurrence, chosen)) in zip(patterns, written, strict=True):
        assert (pattern.rows, pattern.edges) == _gnugo_rows(template), pattern.name
        assert pattern.values == {"value": round(40 * chosen / occurrence, 2)}, pattern.name
        assert pattern.constraints == ([f"color=={colour[template[0]]}"] if symmetry == 8 else []), pattern.name
    total = sum(row[2] for row in rows)
    left = total - sum(row[2] for _, row in written)
    assert header[-1].startswith(f"# Left out: {len(rows) - len(written)} of {len(rows)} templates hold no stone")
    assert header[-1].endswith(f"chosen {left} of {total} ({left / total:.1%}).")
    return len(patterns)


@pytest.mark.parametrize("symmetry", [8, 16])
def test_export_gnugo_of_a_real_release_follows_gnu_go_rules(warehouse: Path, catalog: duckdb.DuckDBPyConnection,
                                                           tmp_path: Path, symmetry: int) -> None:
    out = tmp_path / "sq3.db"
    assert main(["export", "gnugo", "--symmetries", str(symmetry), "--warehouse", str(warehouse), "-o", str(out)]) == 0
    _check_gnugo_export(out.read_text(), catalog, symmetry)  # tiny's templates (100,000 occurrences) have no stone
    assert [p.name for p in tmp_path.iterdir()] == ["sq3.db"]  # written through a temporary file, renamed
    # the templates of the same real counts seen at least 5,000 times: stones, edges, both colours, twins
    release = warehouse / "releases" / (warehouse / "releases" / "CURRENT").read_text().strip()
    con = duckdb.connect()
    con.execute("CREATE TABLE pattern_stats AS SELECT * FROM read_parquet(?) WHERE family = 'sq3'",
                [[str(path) for path in table_files(release)["pattern_stats"]]])
    build_dont_care_templates(con, families=["sq3"], min_occurrence=5000)
    assert _check_gnugo_export(export_gnugo(con, symmetry=symmetry), con, symmetry) >= 20
