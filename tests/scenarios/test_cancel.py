"""`gopat build` cancelled with SIGTERM or SIGINT at each step the crash tests reach: real processes, signals and files.

A build stops itself at a named step (``GOPAT_FAULT_STOP``, effects/warehouse/lock.py `fault_point`); the test
notes the build's descendant processes, sends the signal (to the build, or to its process group as Ctrl-C in a
terminal does) and SIGCONT, and checks what flows/cancel.py promises: gone within 10 s, exit
128 + the signal, one `gopat: cancelled` line and no traceback, no process left, no staging, the lock free, the
previous release current and verified; then the next build publishes the same Parquet files as a build never
interrupted. Two steps run without a Prefect API, so the build starts (and must stop) its temporary server; one
runs its shards on a temporary Dask LocalCluster, whose scheduler and worker processes must stop too.
"""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from uuid import UUID

import psutil
import pytest
from prefect import get_client
from prefect.client.schemas.objects import FlowRun
from prefect.deployments import run_deployment
from prefect.states import Cancelling

from gopat.effects.warehouse.fetch import sha256_file
from gopat.effects.warehouse.layout import Layout, current_version, versions
from tests.scenarios.builds import (
    GOPAT,
    Warehouse,
    assert_previous_release_is_intact_and_current,
    copy_warehouse,
    finish,
    games_folder,
    parquet_checksums,
    tail,
    wait_stopped,
)
from tests.scenarios.services import BIN, cli, stop, wait_for

pytestmark = pytest.mark.slow

CANCEL_SECONDS = 10
OPTIONS = ("--families", "sq3", "--workers", "1")
DASK = ("--runner", "dask", "--workers", "2")  # a temporary Dask LocalCluster of 2 worker processes
# (step, signal, to the whole process group, with the build's own temporary Prefect server, more options)
STEPS: tuple[tuple[str, signal.Signals, bool, bool, tuple[str, ...]], ...] = (
    ("ingest", signal.SIGTERM, False, True, ()),
    ("extract", signal.SIGINT, True, True, ()),
    ("extract", signal.SIGTERM, False, False, DASK),
    ("aggregate", signal.SIGTERM, False, False, ()),
    ("validate", signal.SIGINT, False, False, ()),
    ("publish", signal.SIGTERM, False, False, ()),
    ("catalog", signal.SIGTERM, True, False, ()),
)


@dataclass(frozen=True)
class Cancelled:
    """What a build signalled at a fault point did."""

    code: int
    seconds: float
    stderr: str
    started: list[str]
    left: list[str]


@pytest.fixture(scope="module")
def games(tiny_archive: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """20 games of tiny.tar.gz as a folder of .sgf files."""
    return games_folder(tiny_archive, tmp_path_factory.mktemp("games") / "sgf", count=20)


def build(warehouse: Path, games: Path, env: dict[str, str], log: Path, *, stop_at: str | None = None,
          options: tuple[str, ...] = ()) -> subprocess.Popen:
    """A `gopat build` subprocess in its own process group; stdout and stderr into `log` and `log`.err."""
    env = {**env, "GOPAT_FAULT_STOP": stop_at} if stop_at else env
    args = [str(GOPAT), "build", "--source", str(games), "--warehouse", str(warehouse), *OPTIONS, *options]
    with log.open("w") as out, log.with_suffix(".err").open("w") as err:
        return subprocess.Popen(args, stdout=out, stderr=err, env=env, start_new_session=True)


def cancel_at(step: str, signum: int, *, group: bool, proc: subprocess.Popen, log: Path) -> Cancelled:
    """Wait for the build to stop at `step`, send `signum` and SIGCONT, wait for its end (at most CANCEL_SECONDS)."""
    wait_stopped(proc, log.with_suffix(".err"))
    started = psutil.Process(proc.pid).children(recursive=True)
    commands = [" ".join(p.cmdline()) for p in started]
    send = os.killpg if group else os.kill
    start = time.monotonic()
    send(proc.pid, signum)
    send(proc.pid, signal.SIGCONT)
    try:
        code = proc.wait(timeout=CANCEL_SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        pytest.fail(f"{step}: still running {CANCEL_SECONDS} s after {signal.Signals(signum).name}:\n"
                    f"{tail(log.with_suffix('.err'))}")
    seconds = time.monotonic() - start
    left = [p for p in started if _alive(p)]
    for process in left:
        process.kill()
    return Cancelled(code=code, seconds=seconds, stderr=log.with_suffix(".err").read_text(),
                     started=commands,
                     left=[f"{p.pid} {p.name()}" for p in left])


def _alive(process: psutil.Process) -> bool:
    """Whether a process still runs 2 s from now (a zombie not yet reaped by init does not)."""
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        if not _running(process):
            return False
        time.sleep(0.1)
    return True


def _running(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def assert_lock_is_free(warehouse: Path) -> None:
    with (warehouse / ".build.lock").open("a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(fh, fcntl.LOCK_UN)


@pytest.fixture(scope="module")
def uninterrupted(base: Warehouse, games: Path, gopat_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory
                  ) -> dict[str, str]:
    """The Parquet checksums of a build of `games` never interrupted, on a copy of the base warehouse."""
    root = tmp_path_factory.mktemp("uninterrupted")
    warehouse = copy_warehouse(base, root / "warehouse")
    log = root / "build.log"
    assert finish(build(warehouse, games, gopat_env, log), log) == 0, tail(log.with_suffix(".err"))
    return parquet_checksums(Layout(warehouse), current_version(Layout(warehouse)))


def test_sigterm_and_sigint_at_each_step_stop_the_build_cleanly_and_the_next_build_is_identical(
    base: Warehouse, games: Path, gopat_env: dict[str, str], uninterrupted: dict[str, str], tmp_path: Path,
) -> None:
    warehouse = copy_warehouse(base, tmp_path / "warehouse")
    layout = Layout(warehouse)
    # Without a Prefect API the build starts Prefect's temporary server (a uvicorn process) itself.
    alone = {k: v for k, v in gopat_env.items() if k != "PREFECT_API_URL"}
    timings = {}
    for step, signum, group, temporary_server, options in STEPS:
        label = f"{step}-dask" if options else step
        log = tmp_path / f"{label}.log"
        proc = build(warehouse, games, alone if temporary_server else gopat_env, log, stop_at=step, options=options)
        done = cancel_at(step, signum, group=group, proc=proc, log=log)
        timings[label] = round(done.seconds, 1)
        name = signal.Signals(signum).name
        assert done.code == 128 + signum, f"{label}: exit {done.code}\n{done.stderr}"
        lines = done.stderr.splitlines()
        cancelled = [line for line in lines if "cancelled" in line]
        assert cancelled == [f"gopat: cancelled by {name}: the build into {warehouse} stopped; nothing was "
                             f"published, the current release {base.version} is unchanged"], done.stderr
        assert lines[-1] == cancelled[0], done.stderr
        assert "Traceback" not in done.stderr and "Crash detected" not in done.stderr, done.stderr
        assert done.left == [], f"{label}: still running after the build: {done.left}; it had started {done.started}"
        if temporary_server:
            assert any("uvicorn" in p for p in done.started), done.started
        if step == "extract":  # a shard worker; a Dask LocalCluster's two worker processes
            assert sum("multiprocessing.spawn" in p for p in done.started) >= (2 if options else 1), done.started
        assert not layout.staging.exists() or list(layout.staging.iterdir()) == [], step
        assert_lock_is_free(warehouse)
        assert_previous_release_is_intact_and_current(base, warehouse, step)
    print(f"\nseconds from the signal to the build's exit, by step: {timings}")
    verified = subprocess.run([str(GOPAT), "verify", "--warehouse", str(warehouse)], capture_output=True,
                              text=True, env=gopat_env, timeout=120)
    assert verified.returncode == 0, verified.stdout + verified.stderr

    log = tmp_path / "final.log"
    assert finish(build(warehouse, games, gopat_env, log), log) == 0, tail(log.with_suffix(".err"))
    new = current_version(layout)
    assert new != base.version and versions(layout) == sorted([base.version, new])
    assert parquet_checksums(layout, new) == uninterrupted


def test_a_flow_run_cancelled_through_the_api_stops_on_the_worker_and_leaves_the_warehouse_clean(
    server: dict[str, str], base: Warehouse, tiny_archive: Path, tmp_path: Path,
) -> None:
    """The deployment of prefect.yaml on a process worker, cancelled while it extracts patterns (all five families
    of tiny.tar.gz: long enough); the worker sends the flow run's process SIGTERM."""
    warehouse = copy_warehouse(base, tmp_path / "warehouse")
    layout = Layout(warehouse)
    sources = tmp_path / "sources.toml"
    sources.write_text(f'[[source]]\nname = "tiny"\npath = "{tiny_archive}"\nsha256 = "{sha256_file(tiny_archive)}"\n')
    cli(server, "prefect", "work-pool", "create", "gopat-process", "--type", "process")
    cli(server, "prefect", "--no-prompt", "deploy", "--all")
    log = tmp_path / "worker.log"
    with log.open("w") as out:
        worker = subprocess.Popen([str(BIN / "prefect"), "worker", "start", "--pool", "gopat-process", "--limit", "1"],
                                  cwd=tmp_path, env=server, stdout=out, stderr=subprocess.STDOUT,
                                  start_new_session=True)
    try:
        run = run_deployment("scheduled-build/nightly", timeout=0, parameters={
            "sources_file": str(sources), "warehouse": str(warehouse), "workers": 2})
        wait_for("extraction", lambda: next(layout.staging.glob("*/patterns/shard-*"), None), timeout=600,
                 process=worker, log=log)
        started = psutil.Process(worker.pid).children(recursive=True)
        start = time.monotonic()
        with get_client(sync_client=True) as client:
            client.set_flow_run_state(run.id, Cancelling(message="cancelled by test_cancel"), force=True)
        while any(_running(p) for p in started) and time.monotonic() - start < 60:
            time.sleep(0.1)
        seconds = time.monotonic() - start
        left = [p for p in started if _alive(p)]
        final = wait_for("the run's final state", lambda: _final(run.id), timeout=120, process=worker, log=log)
    finally:
        stop(worker)
    print(f"\nflow run cancelled through the API: its processes gone {seconds:.1f} s after the request")
    assert final.state is not None and final.state.is_cancelled(), (final.state, tail(log))
    assert left == [], [p.pid for p in left]
    assert len(started) >= 3, started  # the flow run's process and its 2 shard workers
    # The request reaches the worker by polling; the worker's own SIGKILL would come 30 s after its SIGTERM.
    assert seconds < 2 * CANCEL_SECONDS, tail(log)
    assert "did not exit within" not in log.read_text(), tail(log)
    assert not layout.staging.exists() or list(layout.staging.iterdir()) == []
    assert_lock_is_free(warehouse)
    assert_previous_release_is_intact_and_current(base, warehouse, "worker")


def _final(flow_run_id: UUID) -> FlowRun | None:
    with get_client(sync_client=True) as client:
        run = client.read_flow_run(flow_run_id)
    return run if run.state is not None and run.state.is_final() else None
