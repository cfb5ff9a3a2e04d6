"""gopat.transforms.analytics.loader: the one reader of the SQL files, their role folders, no dead or missing SQL."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import duckdb
import pytest

from gopat.transforms.analytics.loader import run, sql_text
from gopat.transforms.tables.registry import TABLES

REPO = Path(__file__).resolve().parents[3]
ROOT = REPO / "transforms" / "analytics" / "sql"
ROLES = {  # the folders of the SQL root, as docs/contributing.md lists them
    "models", "steps", "macros", "checks", "report", "search", "evaluation", "catalog", "queries",
}
CALLERS = ("api", "cli", "effects", "expectations", "flows", "transforms", "bench")  # code that may name SQL files
SQL_PATH = re.compile(rf"(?:{'|'.join(sorted(ROLES))})/[a-z0-9_]+")


def named_paths() -> dict[str, list[str]]:
    """Every string literal of the callers' code that has the form ``<role>/<name>``, with where it is written."""
    named: dict[str, list[str]] = {}
    for folder in CALLERS:
        for path in sorted((REPO / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL_PATH.fullmatch(node.value):
                    named.setdefault(node.value, []).append(f"{path.relative_to(REPO)}:{node.lineno}")
    return named


def test_a_path_below_the_root_reads_its_file() -> None:
    assert sql_text("checks/games") == (ROOT / "checks" / "games.sql").read_text()
    assert "-- check: " in sql_text("checks/games")


@pytest.mark.parametrize("path", ["models/no_such_table", "games", "expectations__games", "checks/games.sql"])
def test_a_missing_file_is_one_value_error_naming_it(path: str) -> None:
    with pytest.raises(ValueError, match=rf"^no SQL file transforms/analytics/sql/{re.escape(path)}\.sql$"):
        sql_text(path)


def test_run_executes_a_file_by_its_path() -> None:
    con = duckdb.connect()
    run(con, "macros/d4")
    assert con.execute("SELECT d4_point('pd', 0), d4_point('pd', 4)").fetchone() == ("pd", "dd")


def test_the_root_holds_only_the_role_folders_and_they_only_sql_files() -> None:
    assert {path.name for path in ROOT.iterdir()} == ROLES, "a file or folder outside the role folders"
    strays = [str(path.relative_to(ROOT)) for role in ROLES for path in (ROOT / role).iterdir()
              if path.suffix != ".sql" or not path.is_file()]
    assert strays == []


def test_every_sql_path_named_in_the_code_is_a_file() -> None:
    missing = {path: where for path, where in named_paths().items() if not (ROOT / f"{path}.sql").is_file()}
    assert missing == {}


def test_every_sql_file_is_named_by_some_code() -> None:
    files = {path.relative_to(ROOT).with_suffix("").as_posix() for path in ROOT.rglob("*.sql")}
    assert len(files) > 60
    assert sorted(files - named_paths().keys()) == [], "dead SQL: no caller names these files"


def test_the_registry_names_models_that_are_files() -> None:
    models = {table.name: table.model for table in TABLES.values() if table.model.endswith(".sql")}
    assert len(models) >= 10
    assert {name: model for name, model in models.items()
            if not (model.startswith("transforms/analytics/sql/models/") and (REPO / model).is_file())} == {}
