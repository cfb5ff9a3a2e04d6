"""`gopat openings`, `show` and `export` read a warehouse whose folder name holds a quote and a space."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from gopat.cli.main import main
from tests.docs.release import tiny_release

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def quoted(tmp_path_factory: pytest.TempPathFactory, shared_dir: Path) -> Path:
    """A copy of the session's tiny release in a folder named `it's here`."""
    folder = tmp_path_factory.mktemp("quoted") / "it's here"
    shutil.copytree(tiny_release(tmp_path_factory, shared_dir), folder)
    return folder


def _d12_key(warehouse: Path) -> str:
    con = duckdb.connect(str(warehouse / "catalog.duckdb"), read_only=True)
    try:
        con.execute("USE current")
        row = con.execute("SELECT key FROM pattern_stats WHERE family = 'd12' AND symmetry = 8 "
                          "ORDER BY chosen DESC, key LIMIT 1").fetchone()
    finally:
        con.close()
    assert row is not None
    return str(row[0])


def test_openings(quoted: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["openings", "--warehouse", str(quoted), "--moves", "2", "--top", "3"]) == 0
    assert capsys.readouterr().out.strip()


def test_show(quoted: Path, tmp_path_factory: pytest.TempPathFactory, shared_dir: Path,
              capsys: pytest.CaptureFixture[str]) -> None:
    key = _d12_key(tiny_release(tmp_path_factory, shared_dir))
    assert main(["show", key, "--family", "d12", "--warehouse", str(quoted)]) == 0
    out = capsys.readouterr().out
    assert "occurrence " in out and "not seen" not in out


def test_export(quoted: Path, tmp_path: Path) -> None:
    out = tmp_path / "d12.txt"
    assert main(["export", "go4go-d12", "--symmetries", "8",
                 "--warehouse", str(quoted), "--output", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert lines and all(line.count(";") == 3 for line in lines)
