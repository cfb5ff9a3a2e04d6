"""Helpers of the build scenarios (crash and cancellation): `gopat build` subprocesses, warehouses and their checks."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import time
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest

from gopat.effects.warehouse.layout import Layout, created_now, current_version, next_version, versions
from gopat.effects.warehouse.lock import build_lock
from gopat.effects.warehouse.publish import publish
from gopat.effects.warehouse.verify import verify

GOPAT = Path(sys.executable).parent / "gopat"
BUILD_OPTIONS = ("--families", "sq3", "--workers", "1")
BASE_GAMES = 20
WAIT_SECONDS = 300


@dataclass(frozen=True)
class Warehouse:
    """A warehouse with one published release (the "previous release" of every scenario)."""

    path: Path
    version: str
    games: int
    checksums: dict[str, str]


def games_folder(tiny_archive: Path, folder: Path, *, count: int) -> Path:
    """The first `count` SGF members of tiny.tar.gz (in name order) as files in `folder`."""
    folder.mkdir(parents=True)
    with tarfile.open(tiny_archive) as tar:
        members = sorted((m for m in tar.getmembers() if m.isfile() and m.name.endswith(".sgf")), key=lambda m: m.name)
        for index, member in enumerate(members[:count]):
            (folder / f"{index:03d}.sgf").write_bytes(tar.extractfile(member).read())
    return folder


def start_build(warehouse: Path, source: str, env: dict[str, str], log: Path, *,
                stop_at: str | None = None, sha: str | None = None) -> subprocess.Popen:
    """A `gopat build` subprocess in its own process group, output into `log`."""
    args = [str(GOPAT), "build", "--source", source, "--warehouse", str(warehouse), *BUILD_OPTIONS]
    if sha:
        args += ["--expected-sha256", sha]
    env = {**env, "GOPAT_FAULT_STOP": stop_at} if stop_at else env
    with log.open("w") as out:
        return subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)


def finish(proc: subprocess.Popen, log: Path) -> int:
    """Wait for a build to end; its exit code."""
    try:
        return proc.wait(timeout=WAIT_SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        pytest.fail(f"build did not finish:\n{tail(log)}")


def wait_stopped(proc: subprocess.Popen, log: Path) -> None:
    """Wait until the build stopped itself (SIGSTOP at its fault point)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"build ended (exit {proc.returncode}) before its fault point:\n{tail(log)}")
        if Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "T":
            return
        time.sleep(0.1)
    kill_9(proc)
    pytest.fail(f"build never reached its fault point:\n{tail(log)}")


def kill_9(proc: subprocess.Popen) -> None:
    """SIGKILL the build's whole process group (the build and any worker it started)."""
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def tail(log: Path) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-25:])


def parquet_checksums(layout: Layout, version: str) -> dict[str, str]:
    """sha256 of every Parquet file of a release, computed here (not read from its manifest)."""
    folder = layout.release_dir(version)
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*.parquet"))}


def catalog_view(warehouse: Path) -> tuple[str | None, int]:
    """(current version, rows of current.games) as an analyst sees them in a fresh read-only connection."""
    with duckdb.connect(str(warehouse / "catalog.duckdb"), read_only=True) as con:
        return catalog_answer(con)


def catalog_answer(con: duckdb.DuckDBPyConnection) -> tuple[str | None, int]:
    current = con.execute("SELECT version FROM releases WHERE is_current").fetchall()
    games = con.execute("SELECT count(*) FROM current.games").fetchone()[0]
    return (current[0][0] if current else None), games


def every_view_answers(warehouse: Path) -> None:
    """Every view of the catalog can be queried (no view points at a missing or partial file)."""
    with duckdb.connect(str(warehouse / "catalog.duckdb"), read_only=True) as con:
        views = con.execute("SELECT schema_name, view_name FROM duckdb_views() WHERE NOT internal").fetchall()
        assert views
        for schema, view in views:
            con.execute(f"SELECT count(*) FROM {schema}.{view}").fetchone()


def copy_warehouse(base: Warehouse, target: Path) -> Path:
    """A copy of the base warehouse; taking its build lock rebuilds the copy's catalog for the new paths."""
    shutil.copytree(base.path, target)
    with build_lock(Layout(target)):
        pass
    return target


def assert_previous_release_is_intact_and_current(base: Warehouse, warehouse: Path, step: str) -> None:
    """CURRENT and the catalog name the base release, its files are unchanged, no partial release is visible."""
    layout = Layout(warehouse)
    assert current_version(layout) == base.version, step
    assert parquet_checksums(layout, base.version) == base.checksums, step
    for version in versions(layout):
        assert verify(layout, version) == [], f"{step}: {version} is visible but incomplete"
    assert catalog_view(warehouse) == (base.version, base.games), step
    every_view_answers(warehouse)


def base_warehouse(root: Path) -> Warehouse:
    """A warehouse in `root` whose current release (two small real tables) was published by
    `gopat.effects.warehouse.publish.publish`."""
    layout = Layout(root / "warehouse")
    con = duckdb.connect()
    con.execute(f"CREATE TABLE games AS SELECT range AS game_id, md5(range::VARCHAR) AS sgf FROM range({BASE_GAMES})")
    con.execute(f"CREATE TABLE moves AS SELECT g.range AS game_id, m.range AS move_number "
                f"FROM range({BASE_GAMES}) g, range(50) m ORDER BY ALL")
    manifest = {"created": created_now(), "ingest": {"games": BASE_GAMES}, "expectations": {}}
    version = next_version(layout, "0" * 12)
    publish(layout, con, version=version, tables=["games", "moves"], manifest=manifest)
    con.close()
    return Warehouse(layout.root, version, BASE_GAMES, parquet_checksums(layout, version))
