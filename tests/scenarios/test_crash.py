"""`gopat build` killed with SIGKILL at each step, run out of disk, or run twice at once: real processes and files.

Every build here is a real `gopat build` subprocess talking to the session's Prefect API (one server,
no temporary server per build). A build reaches a step deterministically through the fault hook
``GOPAT_FAULT_STOP=<step>`` (effects/warehouse/lock.py `fault_point`): the process stops itself with SIGSTOP
there, the test waits for the stopped state and then sends SIGKILL to its process group (or SIGCONT).
The download step is interrupted by the HTTP server itself, which sends half the body and stalls.
"""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest
from prefect.settings import PREFECT_API_URL

from gopat.effects.warehouse.layout import Layout, created_now, current_version, next_version, versions
from gopat.effects.warehouse.lock import build_lock
from gopat.effects.warehouse.publish import publish
from gopat.effects.warehouse.verify import verify
from tests.effects.warehouse.ranged import RangeHandler

pytestmark = pytest.mark.slow

GOPAT = Path(sys.executable).parent / "gopat"
BUILD_OPTIONS = ("--families", "sq3", "--workers", "1")
BASE_GAMES = 20
STEPS_WITH_STOP = ("ingest", "aggregate", "validate", "publish", "catalog")
WAIT_SECONDS = 300


class TinyServer(RangeHandler):
    """Serves `body` at /tiny.tar.gz with `Range: bytes=N-`; while `stall` is set a GET sends half and waits."""

    served = "/tiny.tar.gz"
    stall = threading.Event()
    half_sent = threading.Event()
    release = threading.Event()

    def send(self, header: str | None, start: int) -> None:
        cls = type(self)
        if not cls.stall.is_set():
            super().send(header, start)
            return
        self.send_headers(header, start)
        self.wfile.write(cls.body[start : len(cls.body) // 2])
        self.wfile.flush()
        cls.half_sent.set()
        cls.release.wait(WAIT_SECONDS)
        self.close_connection = True


@dataclass(frozen=True)
class Warehouse:
    """A warehouse with one published release (the "previous release" of every scenario)."""

    path: Path
    version: str
    games: int
    checksums: dict[str, str]


@dataclass(frozen=True)
class ReferenceRun:
    """Build A stopped at the catalog step, build B started meanwhile, then A resumed to the end."""

    warehouse: Path
    base: Warehouse
    a_pid: int
    a_code: int
    b_code: int
    b_stderr: str
    during: tuple[str | None, int]
    old_connection_after: tuple[str | None, int]
    after: tuple[str | None, int]
    version: str
    games: int
    checksums: dict[str, str]


@pytest.fixture(scope="module")
def gopat_env(prefect_harness: None, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Environment of the build subprocesses: the session's Prefect API, a private PREFECT_HOME, no faults."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GOPAT_FAULT", "PREFECT_"))}
    env["PREFECT_API_URL"] = PREFECT_API_URL.value()
    env["PREFECT_HOME"] = str(tmp_path_factory.mktemp("prefect-home"))
    env["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
    return env


@pytest.fixture(scope="module")
def tiny_url(tiny_archive: Path) -> Iterator[str]:
    """tiny.tar.gz over real HTTP on 127.0.0.1 (TinyServer)."""
    TinyServer.body = tiny_archive.read_bytes()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), TinyServer)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/tiny.tar.gz"
    TinyServer.release.set()
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def tiny_sha(tiny_archive: Path) -> str:
    return hashlib.sha256(tiny_archive.read_bytes()).hexdigest()


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
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.glob("*.parquet"))}


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


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    """A warehouse whose current release (two small real tables) was published by
    `gopat.effects.warehouse.publish.publish`."""
    layout = Layout(tmp_path_factory.mktemp("base") / "warehouse")
    con = duckdb.connect()
    con.execute(f"CREATE TABLE games AS SELECT range AS game_id, md5(range::VARCHAR) AS sgf FROM range({BASE_GAMES})")
    con.execute(f"CREATE TABLE moves AS SELECT g.range AS game_id, m.range AS move_number "
                f"FROM range({BASE_GAMES}) g, range(50) m ORDER BY ALL")
    manifest = {"created": created_now(), "ingest": {"games": BASE_GAMES}, "expectations": {}}
    version = next_version(layout, "0" * 12)
    publish(layout, con, version=version, tables=["games", "moves"], manifest=manifest)
    con.close()
    return Warehouse(layout.root, version, BASE_GAMES, parquet_checksums(layout, version))


@pytest.fixture(scope="module")
def reference(base: Warehouse, tiny_url: str, tiny_sha: str, gopat_env: dict[str, str],
              tmp_path_factory: pytest.TempPathFactory) -> ReferenceRun:
    """Build A of tiny.tar.gz stops at its catalog step; build B starts on the same warehouse; A resumes.

    A read-only catalog connection is opened while A is stopped and queried again after A published.
    """
    root = tmp_path_factory.mktemp("reference")
    warehouse = copy_warehouse(base, root / "warehouse")
    log_a, log_b = root / "a.log", root / "b.log"
    a = start_build(warehouse, tiny_url, gopat_env, log_a, stop_at="catalog", sha=tiny_sha)
    wait_stopped(a, log_a)
    reader = duckdb.connect(str(warehouse / "catalog.duckdb"), read_only=True)
    during = catalog_answer(reader)
    b = start_build(warehouse, tiny_url, gopat_env, log_b, sha=tiny_sha)
    b_code = finish(b, log_b)
    os.killpg(a.pid, signal.SIGCONT)
    a_code = finish(a, log_a)
    old_connection_after = catalog_answer(reader)
    reader.close()
    layout = Layout(warehouse)
    version = current_version(layout)
    games = json.loads((layout.release_dir(version) / "manifest.json").read_text())["ingest"]["games"]
    return ReferenceRun(
        warehouse=warehouse, base=base, a_pid=a.pid, a_code=a_code, b_code=b_code, b_stderr=log_b.read_text(),
        during=during, old_connection_after=old_connection_after, after=catalog_view(warehouse),
        version=version, games=games,
        checksums=parquet_checksums(layout, version),
    )


def test_a_second_build_exits_with_a_clear_message_and_the_first_completes(reference: ReferenceRun) -> None:
    assert reference.b_code == 1
    assert f"gopat: error: another build (pid {reference.a_pid}) holds" in reference.b_stderr
    assert "nothing was changed" in reference.b_stderr
    assert reference.a_code == 0
    layout = Layout(reference.warehouse)
    assert versions(layout) == sorted([reference.base.version, reference.version])
    assert all(verify(layout, version) == [] for version in versions(layout))
    assert reference.after == (reference.version, reference.games) and reference.games > reference.base.games
    every_view_answers(reference.warehouse)


def test_catalog_answers_read_only_while_a_build_publishes(reference: ReferenceRun) -> None:
    base = reference.base
    assert reference.during == (base.version, base.games)
    assert reference.old_connection_after == (base.version, base.games)
    assert reference.after == (reference.version, reference.games)


def test_kill_9_at_each_step_keeps_the_previous_release_and_the_next_run_finishes_identically(
    reference: ReferenceRun, base: Warehouse, tiny_url: str, tiny_sha: str, gopat_env: dict[str, str],
    tmp_path: Path,
) -> None:
    warehouse = copy_warehouse(base, tmp_path / "warehouse")
    layout = Layout(warehouse)
    TinyServer.half_sent.clear()
    TinyServer.release.clear()
    TinyServer.stall.set()
    proc = start_build(warehouse, tiny_url, gopat_env, tmp_path / "download.log", sha=tiny_sha)
    try:
        assert TinyServer.half_sent.wait(WAIT_SECONDS), tail(tmp_path / "download.log")
        deadline = time.monotonic() + 60
        while not list(layout.raw.glob("*.part")) and time.monotonic() < deadline:
            time.sleep(0.05)
        kill_9(proc)
    finally:
        TinyServer.stall.clear()
        TinyServer.release.set()
    parts = list(layout.raw.glob("*.part"))
    assert len(parts) == 1 and parts[0].stat().st_size < len(TinyServer.body)
    assert not (layout.raw / f"{tiny_sha}.tar.gz").exists()
    assert_previous_release_is_intact_and_current(base, warehouse, "download")

    for step in STEPS_WITH_STOP:
        log = tmp_path / f"{step}.log"
        proc = start_build(warehouse, tiny_url, gopat_env, log, stop_at=step, sha=tiny_sha)
        wait_stopped(proc, log)
        kill_9(proc)
        assert f"gopat: fault point {step}" in log.read_text()
        assert_previous_release_is_intact_and_current(base, warehouse, step)
        hidden = {p.name.split("-")[0] for p in layout.releases.iterdir() if p.name.startswith(".")}
        if step == "publish":
            assert hidden == {".tmp"}, "the half-written release stays hidden"
        if step == "catalog":
            assert list(warehouse.glob(".catalog-*")), "the new catalog was being prepared"

    log = tmp_path / "final.log"
    assert finish(start_build(warehouse, tiny_url, gopat_env, log, sha=tiny_sha), log) == 0, tail(log)
    new = current_version(layout)
    assert new != base.version and new.split("-")[1] == reference.version.split("-")[1]
    assert parquet_checksums(layout, new) == reference.checksums
    assert versions(layout) == sorted([base.version, new])
    assert catalog_view(warehouse) == reference.after
    assert (layout.raw / f"{tiny_sha}.tar.gz").is_file() and not list(layout.raw.glob("*.part"))
    leftovers = [p.name for p in [*layout.releases.iterdir(), *warehouse.iterdir()]
                 if p.name.startswith((".tmp", ".trash", ".catalog", "CURRENT."))]
    assert leftovers == []
    assert not layout.staging.exists() or list(layout.staging.iterdir()) == []


def test_disk_full_while_publishing_aborts_cleanly(
    base: Warehouse, tiny_archive: Path, gopat_env: dict[str, str], tmp_path: Path
) -> None:
    """releases/ on a tmpfs with room for the previous release and 8 KiB more (a mount namespace of our own)."""
    warehouse = copy_warehouse(base, tmp_path / "warehouse")
    layout = Layout(warehouse)
    saved = tmp_path / "saved"
    shutil.copytree(layout.releases, saved)
    pages = sum(-(-p.stat().st_size // 4096) for p in saved.rglob("*") if p.is_file())
    out = tmp_path / "out"
    (out / "releases").mkdir(parents=True)
    folder = games_folder(tiny_archive, tmp_path / "games", count=10)
    build = [str(GOPAT), "build", "--source", str(folder), "--warehouse", str(warehouse), *BUILD_OPTIONS]
    script = (
        'set -e; mount -t tmpfs -o size="$SIZE" tmpfs "$RELEASES"; cp -a "$SAVED/." "$RELEASES/"; set +e; '
        '"$@" > "$OUT/build.log" 2>&1; echo $? > "$OUT/rc"; cp -a "$RELEASES/." "$OUT/releases/"'
    )
    env = {**gopat_env, "SIZE": f"{(pages + 2) * 4}k", "RELEASES": str(layout.releases), "SAVED": str(saved),
           "OUT": str(out)}
    done = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script, "sh", *build],
                          env=env, capture_output=True, text=True, timeout=WAIT_SECONDS)
    assert done.returncode == 0, done.stderr
    log = (out / "build.log").read_text()
    assert (out / "rc").read_text().strip() == "1", log
    assert "gopat: error: " in log and "No space left on device" in log
    on_tmpfs = Layout(out)
    assert sorted(p.name for p in on_tmpfs.releases.iterdir()) == sorted(["CURRENT", base.version])
    assert current_version(on_tmpfs) == base.version and verify(on_tmpfs, base.version) == []
    assert parquet_checksums(on_tmpfs, base.version) == base.checksums
    assert catalog_view(warehouse) == (base.version, base.games)
    assert not list(warehouse.glob(".catalog-*"))
    assert not layout.staging.exists() or list(layout.staging.iterdir()) == []
