"""`gopat search` against a brute-force scan of every position (tests/cli/commands/search_reference.py).

The release is the session's tiny release (tiny.tar.gz and the hostile files: 291 games, board sizes 2 to
19, setup stones, passes, games of thousands of moves).
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gopat.cli.main import main
from tests.cli.commands import search_reference as reference
from tests.docs.release import tiny_release

pytestmark = pytest.mark.slow

PATTERNS = {
    # a corner: both edges drawn
    "corner": "+------\n|......\n|...X..\n|..O...\n",
    # an edge: the top edge drawn, the pattern slides along it
    "edge": "-----\n.....\n.XO..\n",
    # a centre shape (a crosscut): no edge, so every cell on the board
    "centre": "XO.\nOX.\n...\n",
    # wildcards: ? anything on the board, x black or empty, o white or empty
    "wildcards": "?x?\nOXo\n?.?\n",
}


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory, shared_dir: Path) -> Path:
    return tiny_release(tmp_path_factory, shared_dir)


@pytest.fixture(scope="module")
def release(warehouse: Path) -> Path:
    return warehouse / "releases" / (warehouse / "releases" / "CURRENT").read_text().strip()


@pytest.fixture(scope="module")
def games(release: Path) -> reference.Games:
    return reference.read_games(release)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("patterns")


def run(warehouse: Path, folder: Path, diagram: str, *options: str) -> tuple[int, str, str]:
    """`gopat search` in this process on a pattern file; (exit code, stdout, stderr)."""
    path = folder / "pattern.txt"
    path.write_text(diagram)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["search", str(path), "--warehouse", str(warehouse), *options])
    return code, out.getvalue(), err.getvalue()


def answer(warehouse: Path, folder: Path, diagram: str, *options: str) -> dict[str, Any]:
    code, out, err = run(warehouse, folder, diagram, "--json", *options)
    assert code == 0, err
    result: dict[str, Any] = json.loads(out)
    return result


def hits_only(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [{key: game[key] for key in ("game_id", "move", "swapped", "continuation")} for game in result["games"]]


def expected_continuations(games: reference.Games, hits: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Continuations counted from the reference's hits with plain loops."""
    winners = dict(zip(games.ids, games.winners, strict=True))
    table: dict[tuple[int, int, str], list[Any]] = {}
    for hit in hits:
        c = hit["continuation"]
        if c:
            row = table.setdefault((c["point"][0], c["point"][1], c["colour"]), [0, 0, []])
            row[0] += 1
            row[1] += c["immediate"]
            row[2].append({"B": 1.0, "W": 0.0, "D": 0.5}.get(winners[hit["game_id"]] or "", -1.0))
    rows = []
    for (r, c, colour), (count, immediate, scores) in table.items():
        known = [s for s in scores if s >= 0]
        rows.append({"point": [r, c], "colour": colour, "count": count, "immediate": immediate,
                     "tenuki": count - immediate, "black_win_rate": sum(known) / len(known) if known else None})
    return sorted(rows, key=lambda row: (-row["count"], row["point"], row["colour"]))


@pytest.mark.parametrize(("name", "options"), [
    ("corner", ()), ("edge", ("--to-move", "B")), ("centre", ("--colour-swap", "--to-move", "W")),
    ("wildcards", ()), ("corner", ("--colour-swap",)),
])
def test_search_equals_the_brute_force_scan(warehouse: Path, folder: Path, games: reference.Games,
                                            name: str, options: tuple[str, ...]) -> None:
    diagram = PATTERNS[name]
    want = {"B": 1, "W": 2}[options[-1]] if "--to-move" in options else 0
    expected = reference.search(games, diagram, colour_swap="--colour-swap" in options, want=want)["games"]
    result = answer(warehouse, folder, diagram, *options)
    assert expected, "every hand-written pattern occurs in the tiny release"
    assert hits_only(result) == expected
    assert result["hits"] == len(expected) and result["searched"] == len(games.ids)
    assert result["continuations"] == expected_continuations(games, expected)
    assert result["no_continuation"] == sum(1 for hit in expected if hit["continuation"] is None)
    if "--colour-swap" in options and name == "corner":
        assert {hit["swapped"] for hit in expected} == {False, True}


@st.composite
def diagrams(draw: st.DrawFn) -> str:
    """A random pattern of up to 3 x 4 cells with at least one stone and random drawn edges."""
    rows, cols = draw(st.integers(1, 3)), draw(st.integers(1, 4))
    cells = draw(st.lists(st.lists(st.sampled_from("..XXOO?xo"), min_size=cols, max_size=cols),
                          min_size=rows, max_size=rows).filter(lambda g: any(ch in "XO" for row in g for ch in row)))
    top, left = draw(st.booleans()), draw(st.booleans())
    bottom, right = draw(st.booleans()) and not top, draw(st.booleans()) and not left
    body = [("|" if left else "") + "".join(row) + ("|" if right else "") for row in cells]
    edge = ("+" if left else "") + "-" * cols + ("+" if right else "")
    return "\n".join(([edge] if top else []) + body + ([edge] if bottom else [])) + "\n"


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(diagram=diagrams(), colour_swap=st.booleans(), want=st.sampled_from([0, 0, 1, 2]))
def test_random_patterns_equal_the_brute_force_scan(warehouse: Path, folder: Path, games: reference.Games,
                                                    diagram: str, colour_swap: bool, want: int) -> None:
    options = (["--colour-swap"] if colour_swap else []) + (["--to-move", "BW"[want - 1]] if want else [])
    result = answer(warehouse, folder, diagram, *options)
    expected = reference.search(games, diagram, colour_swap=colour_swap, want=want)["games"]
    assert hits_only(result) == expected


def test_filters_keep_the_hits_of_the_chosen_games(warehouse: Path, folder: Path, release: Path,
                                                   games: reference.Games) -> None:
    meta = {game_id: (year, pb or "", pw or "") for game_id, year, pb, pw in duckdb.execute(
        "SELECT game_id, year, pb, pw FROM read_parquet(?)", [str(release / "games.parquet")]).fetchall()}
    expected = reference.search(games, PATTERNS["wildcards"])["games"]
    result = answer(warehouse, folder, PATTERNS["wildcards"], "--from-year", "2000", "--to-year", "2015",
                    "--player", "cho")
    chosen = [hit for hit in expected if meta[hit["game_id"]][0] is not None and 2000 <= meta[hit["game_id"]][0] <= 2015
              and "cho" in (meta[hit["game_id"]][1] + "\n" + meta[hit["game_id"]][2]).lower()]
    assert chosen and len(chosen) < len(expected)
    assert hits_only(result) == chosen


def test_text_output_lists_the_first_games_and_labels_continuations(warehouse: Path, folder: Path,
                                                                     games: reference.Games) -> None:
    expected = reference.search(games, PATTERNS["centre"])["games"]
    code, out, _ = run(warehouse, folder, PATTERNS["centre"], "--games", "3")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].endswith(f": {len(expected)} of {len(games.ids)} games match")
    heading = next(i for i, line in enumerate(lines) if line.startswith("games (first"))
    listed = [line.split()[0] for line in lines[heading + 1:]]
    assert listed == [hit["game_id"] for hit in expected[:3]]
    top = expected_continuations(games, expected)[0]
    assert any(line.startswith("A ") and f"({top['point'][0]},{top['point'][1]})" in line for line in lines)


def test_the_index_is_built_once_and_cached_beside_the_release(warehouse: Path, folder: Path) -> None:
    code, _, err = run(warehouse, folder, PATTERNS["corner"], "--json", "--release", "1")
    assert code == 0
    cache = warehouse / "cache"
    built = [p for p in cache.glob("*/search/*") if p.is_dir()]
    assert len(built) == 1 and not built[0].name.startswith(".tmp-")
    assert built[0].parent.parent.name == (warehouse / "releases" / "CURRENT").read_text().strip()
    before = {p.name: p.stat().st_mtime_ns for p in built[0].iterdir()}
    code, _, err = run(warehouse, folder, PATTERNS["corner"], "--json")
    assert code == 0 and "built the search index" not in err
    assert {p.name: p.stat().st_mtime_ns for p in built[0].iterdir()} == before


def test_setups_hold_the_setup_stones_sgfmill_reads(release: Path, games: reference.Games) -> None:
    """The release stores every setup stone (`setups`), so its search needs neither raw/ nor the sources."""
    rows = duckdb.execute("SELECT game_id, colour, \"row\", col FROM read_parquet(?) ORDER BY game_id, stone_number",
                          [str(release / "setups.parquet")]).fetchall()
    stored: dict[str, dict[tuple[int, int], int]] = {}
    for game_id, colour, row, col in rows:
        stored.setdefault(game_id, {})[(row, col)] = 1 if colour == "B" else 2
    assert stored == {game_id: setup for game_id, setup in zip(games.ids, games.setups, strict=True) if setup}
    assert len(stored) >= 2


def test_a_release_without_setups_is_one_line(warehouse: Path, folder: Path, tmp_path: Path) -> None:
    """A release published before `setups` existed cannot replay its setup games: one line, no index."""
    copy = tmp_path / "wh"
    shutil.copytree(warehouse / "releases", copy / "releases")
    version = (copy / "releases" / "CURRENT").read_text().strip()
    (copy / "releases" / version / "setups.parquet").unlink()
    code, out, err = run(copy, folder, PATTERNS["corner"])
    assert code == 1 and out == ""
    assert err.startswith(f"gopat: error: release {version}: ") and "no setups table" in err
    assert err.count("\n") == 1 and not list(copy.glob("cache/*/search/*"))


@pytest.mark.parametrize(("diagram", "reason"), [
    ("..X\n.O\n", "line 2 has 2 cells, line 1 has 3 (ragged rows)"),
    (".|X\n...\n", "line 1: edge mark '|' inside the pattern"),
    (".X.\n.Z.\n", "line 2: unknown character 'Z'"),
    ("...\n.?.\n", "the pattern needs at least one stone (X or O)"),
])
def test_a_bad_diagram_is_one_line_naming_the_file(warehouse: Path, folder: Path, diagram: str, reason: str) -> None:
    code, out, err = run(warehouse, folder, diagram)
    assert code == 1 and out == ""
    assert err.startswith(f"gopat: error: {folder / 'pattern.txt'}: {reason}")
    assert err.count("\n") == 1 and "Traceback" not in err


def test_a_reader_that_went_away_ends_the_search_quietly(warehouse: Path, folder: Path, tmp_path: Path) -> None:
    """`gopat search ... | head` once head has exited: no error line, exit 128 + SIGPIPE as a shell tool."""
    pattern = folder / "pattern.txt"
    pattern.write_text(PATTERNS["corner"])
    with (tmp_path / "stderr").open("w+") as err:
        proc = subprocess.Popen([str(Path(sys.executable).parent / "gopat"), "search", str(pattern),
                                 "--warehouse", str(warehouse)], stdout=subprocess.PIPE, stderr=err)
        assert proc.stdout is not None
        proc.stdout.close()  # before the search prints its first line
        assert proc.wait(timeout=120) == 141
        err.seek(0)
        text = err.read()
    assert "error" not in text and "Traceback" not in text, text  # a first search may say it built the index
