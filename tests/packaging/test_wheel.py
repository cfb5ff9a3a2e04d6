"""The wheel built from the checkout: every module and data file of the five layers and the public API, and `gopat`
installed from it into a fresh virtual environment outside the checkout (help, a build of tiny.tar.gz, a search of
that release, the release opened by `gopat.open_release`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
UV = Path(sys.executable).parent / "uv"
LAYERS = ("cli", "effects", "expectations", "flows", "transforms")
PACKAGED = {".py", ".sql", ".json"}
# A corner (docs/search.md): a black stone on a 3-4 point, the rest of the corner empty (most games of tiny.tar.gz).
PATTERN = "+-----\n|.....\n|.....\n|...X.\n|.....\n"


def run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None, timeout: float = 600) -> str:
    """Run a command; its stdout (fails the test with the output's tail on a non-zero exit)."""
    done = subprocess.run([str(arg) for arg in args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, f"{args} exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel `uv build` makes from the checkout (build dependencies isolated, as a packager's build)."""
    dist = tmp_path_factory.mktemp("dist")
    run(UV, "build", "--wheel", "--out-dir", dist, REPO, cwd=dist)
    [built] = dist.glob("*.whl")
    return built


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory, wheel: Path) -> Path:
    """A new virtual environment outside the checkout: requirements.lock, then the wheel without dependencies."""
    folder = tmp_path_factory.mktemp("installed")
    venv = folder / "venv"
    run(UV, "venv", "--quiet", "--python", sys.executable, venv, cwd=folder)
    python = venv / "bin" / "python"
    run(UV, "pip", "install", "--quiet", "--python", python, "-r", REPO / "requirements.lock", cwd=folder)
    run(UV, "pip", "install", "--quiet", "--python", python, "--no-deps", wheel, cwd=folder)
    return venv


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory, venv: Path) -> dict[str, str]:
    """The environment of the installed `gopat`: a private PREFECT_HOME, no Prefect API (builds start their own
    temporary server), no faults, nothing of the checkout on the import path."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GOPAT_", "PREFECT_")) and k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["PREFECT_HOME"] = str(tmp_path_factory.mktemp("prefect-home"))
    env["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
    # Prefect's temporary server may need more than its default 20 s on a busy machine (as tests/docs/release.py).
    env["PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"] = "120"
    return env


def test_wheel_holds_every_module_and_data_file_of_the_layers(wheel: Path) -> None:
    expected = {
        f"gopat/{path.relative_to(REPO).as_posix()}"
        for layer in LAYERS for path in (REPO / layer).rglob("*")
        if path.suffix in PACKAGED and "__pycache__" not in path.parts
    }
    names = set(zipfile.ZipFile(wheel).namelist())
    assert sorted(expected - names) == []
    assert "gopat/transforms/search/scan.py" in names and "gopat/transforms/analytics/sql/models/games.sql" in names
    # nothing of the checkout beside the layers and api/__init__.py, which is gopat/__init__.py (the public API)
    assert {name.split("/")[0] for name in names if ".dist-info/" not in name} == {"gopat"}
    assert [name for name in names if name.count("/") == 1 and name.startswith("gopat/")] == ["gopat/__init__.py"]
    assert zipfile.ZipFile(wheel).read("gopat/__init__.py") == (REPO / "api" / "__init__.py").read_bytes()


def test_installed_gopat_imports_from_the_venv(venv: Path, env: dict[str, str], tmp_path: Path) -> None:
    assert "search" in run(venv / "bin" / "gopat", "--help", cwd=tmp_path, env=env)
    code = "import gopat.cli.main as m, gopat.transforms.search.scan as s; print(m.__file__); print(s.__file__)"
    files = [Path(line) for line in run(venv / "bin" / "python", "-c", code, cwd=tmp_path, env=env).splitlines()]
    assert len(files) == 2
    for file in files:
        assert file.is_relative_to(venv) and not file.resolve().is_relative_to(REPO), file


def test_installed_gopat_builds_and_searches_a_release(
    venv: Path, env: dict[str, str], tmp_path: Path, tiny_archive: Path
) -> None:
    gopat = venv / "bin" / "gopat"
    warehouse = tmp_path / "wh"
    run(gopat, "build", "--source", tiny_archive, "--warehouse", warehouse, "--workers", "2", "--quiet",
        cwd=tmp_path, env=env, timeout=900)
    pattern = tmp_path / "komoku.txt"
    pattern.write_text(PATTERN)
    answer = json.loads(run(gopat, "search", pattern, "--warehouse", warehouse, "--json", cwd=tmp_path, env=env))
    assert answer["searched"] > 0 and answer["hits"] > 0 and len(answer["games"]) == answer["hits"]
    code = ("import sys, gopat; rel = gopat.open_release(sys.argv[1]); "
            "print(rel.con.sql('SELECT count(*) FROM games').fetchall()[0][0], rel.table('games').collect().height)")
    games = run(venv / "bin" / "python", "-c", code, warehouse, cwd=tmp_path, env=env).split()
    manifest = json.loads(next((warehouse / "releases").glob("*/manifest.json")).read_text())
    assert games == [str(manifest["row_counts"]["games"])] * 2
