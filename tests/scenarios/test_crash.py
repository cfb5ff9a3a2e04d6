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
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest

from gopat.effects.warehouse.layout import Layout, current_version, versions
from gopat.effects.warehouse.verify import verify
from tests.effects.warehouse.ranged import RangeHandler
from tests.scenarios.builds import (
    BUILD_OPTIONS,
    GOPAT,
    WAIT_SECONDS,
    Warehouse,
    assert_previous_release_is_intact_and_current,
    catalog_answer,
    catalog_view,
    copy_warehouse,
    every_view_answers,
    finish,
    games_folder,
    kill_9,
    parquet_checksums,
    start_build,
    tail,
    wait_stopped,
)

pytestmark = pytest.mark.slow

STEPS_WITH_STOP = ("ingest", "aggregate", "validate", "publish", "catalog")


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
