"""docs/queries.md runs: every ```sql block answers against a release's catalog.duckdb with the
columns its documented output shows."""

from __future__ import annotations

import contextlib
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest

from gopat.cli.main import main
from tests.docs.release import REPO, tiny_release

pytestmark = pytest.mark.slow

COOKBOOK = REPO / "docs" / "queries.md"
_CELL_SPLIT = re.compile(r"(?<!\\)\|")


@dataclass(frozen=True)
class Recipe:
    """One question of the cookbook: its heading, SQL and the documented output table."""

    title: str
    sql: str
    columns: list[str]
    rows: list[list[str]]


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in _CELL_SPLIT.split(line.strip())[1:-1]]


def recipes() -> list[Recipe]:
    """The cookbook's sections: each has exactly one sql block followed by a Markdown output table."""
    found = []
    for section in re.split(r"^## ", COOKBOOK.read_text(), flags=re.MULTILINE)[1:]:
        title = section.splitlines()[0]
        blocks = re.findall(r"```sql\n(.*?)```\n", section, flags=re.DOTALL)
        assert len(blocks) == 1, f"{title}: one sql block per question"
        after = section.split("```sql\n", 1)[1].split("```\n", 1)[1]
        table = re.search(r"^\|.*(?:\n\|.*)*", after, flags=re.MULTILINE)
        assert table, f"{title}: no output table after the query"
        lines = table.group(0).splitlines()
        assert re.fullmatch(r"\|(---\|)+", lines[1]), f"{title}: second table line must be |---|...|"
        found.append(Recipe(title, blocks[0], _cells(lines[0]), [_cells(line) for line in lines[2:]]))
    return found


RECIPES = recipes()


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory, shared_dir: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    warehouse = tiny_release(tmp_path_factory, shared_dir)
    con = duckdb.connect(str(warehouse / "catalog.duckdb"), read_only=True)
    yield con
    con.close()


def test_the_cookbook_has_at_least_ten_documented_questions() -> None:
    assert len(RECIPES) >= 10
    assert len({recipe.title for recipe in RECIPES}) == len(RECIPES)
    for recipe in RECIPES:
        assert recipe.rows, f"{recipe.title}: the real output has no row"
        assert all(len(row) == len(recipe.columns) for row in recipe.rows), recipe.title
        assert "current." in recipe.sql, f"{recipe.title}: queries read the live release's views"
        assert not re.search(r"\bv\d+\.", recipe.sql), f"{recipe.title}: no versioned schema names"


@pytest.mark.parametrize("recipe", RECIPES, ids=[r.title.split(".")[0] for r in RECIPES])
def test_query_runs_with_the_documented_columns(catalog: duckdb.DuckDBPyConnection, recipe: Recipe) -> None:
    cursor = catalog.execute(recipe.sql)
    columns = [d[0] for d in cursor.description]
    rows = cursor.fetchall()
    assert columns == recipe.columns
    assert rows, f"{recipe.title}: no row on the tiny release"


def test_the_trend_of_a_shape_counts_every_chosen_event(catalog: duckdb.DuckDBPyConnection) -> None:
    """§18 against pattern_stats: the moves it dates, plus those of undated games, are the key's chosen count."""
    recipe = next(recipe for recipe in RECIPES if recipe.title.startswith("18."))
    key = "100001020100000000303030000"
    assert key in recipe.sql
    dated = sum(played for _, played, _, _ in catalog.execute(recipe.sql).fetchall())
    undated = catalog.execute(
        "SELECT count(*) FROM current.move_patterns JOIN current.games USING (game_id) "
        "WHERE family = 'd12' AND key16 = ? AND year IS NULL", [key]).fetchone()[0]
    chosen = catalog.execute(
        "SELECT chosen FROM current.pattern_stats WHERE family = 'd12' AND symmetry = 16 AND key = ?", [key]).fetchone()
    assert chosen is not None and dated + undated == chosen[0] > 0


def test_every_game_that_played_the_shape_is_a_search_hit_at_or_before_that_move(
    tmp_path_factory: pytest.TempPathFactory, shared_dir: Path, catalog: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    """§21: the diagram is the SQL's sq3 key, and `gopat search` finds every game that played it, no later."""
    section = next(s for s in re.split(r"^## ", COOKBOOK.read_text(), flags=re.MULTILINE) if s.startswith("21."))
    key = re.search(r"key8 = '(\d+)'", section)
    diagram = re.search(r"```text\n(.*?)```", section, flags=re.DOTALL)
    assert key and diagram
    cells = "".join(diagram[1].split())
    assert "1" + cells.translate(str.maketrans(".XO", "012")) == key[1]  # Black to move, then the cells
    played = dict(catalog.execute(
        "SELECT game_id, min(move_number) FROM current.move_patterns WHERE family = 'sq3' AND key8 = ? "
        "GROUP BY game_id", [key[1]]).fetchall())
    assert played
    pattern = tmp_path / "shape.txt"
    pattern.write_text(diagram[1])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["search", str(pattern), "--to-move", "B", "--json",
                     "--warehouse", str(tiny_release(tmp_path_factory, shared_dir))])
    assert code == 0
    hits = {game["game_id"]: game["move"] for game in json.loads(out.getvalue())["games"]}
    assert all(game in hits and hits[game] <= move - 1 for game, move in played.items())
    assert len(hits) > len(played)  # the shape also arose in games where nobody played into it
