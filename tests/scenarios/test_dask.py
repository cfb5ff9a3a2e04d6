"""Scale-out as a user runs it: `dask scheduler` and two `dask worker` processes on 127.0.0.1, then `gopat build
--runner tcp://127.0.0.1:PORT`, publish the same release, byte for byte, as the local runner; the cluster runs the
ingest and extraction shards and the parts of pattern_stats. A scheduler address nobody answers at is one line."""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import polars as pl
import pytest
from distributed import Client

from gopat.effects.warehouse.layout import Layout, Manifest, current_version, manifest_tables, read_manifest
from gopat.flows.shards import CONNECT_SECONDS, build_runner
from gopat.transforms.games.archives import Limits, MemberReject, iter_members
from gopat.transforms.games.records import ingest_members
from tests.effects.shards import shard_rows
from tests.scenarios.builds import GOPAT, parquet_checksums
from tests.scenarios.services import BIN, free_port, stop, wait_for

FAMILIES = ("d12", "sq3", "blk4")  # blk4 also merges its `result` masks across shards
WORKERS = 2  # `dask worker` processes of one thread each, and the build's --workers: 2 extraction shards
READY_SECONDS = 120  # for the scheduler and each worker to come up on a busy machine
STOP_SECONDS = 10  # for every process of a stopped service to be gone


@dataclass(frozen=True)
class Release:
    """A release built by `gopat build`: its manifest, the sha256 of its Parquet files, the build's wall time."""

    manifest: Manifest
    checksums: dict[str, str]
    seconds: float


def _start(name: str, args: list[str], folder: Path) -> tuple[subprocess.Popen, Path]:
    """`.venv/bin/dask ARGS` in its own session, its output in `folder/name.log`; the environment has no Prefect
    setting: the workers need no Prefect API."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "GOPAT_FAULT"))}
    log = folder / f"{name}.log"
    with log.open("w") as out:
        process = subprocess.Popen([str(BIN / "dask"), *args], cwd=folder, env=env, stdout=out,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    return process, log


def _gone(process: subprocess.Popen) -> bool:
    """Whether no process of `process`'s session (its process group) is left, after up to STOP_SECONDS."""
    deadline = time.monotonic() + STOP_SECONDS
    while time.monotonic() < deadline:
        try:
            os.killpg(process.pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.2)
    return False


@pytest.fixture
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A scheduler and WORKERS single-threaded workers (each a nanny and its worker process) on 127.0.0.1, started
    with the `dask` command line; yields the scheduler's address, then stops them all."""
    folder = tmp_path_factory.mktemp("dask-cluster")
    file = folder / "scheduler.json"
    processes = []
    try:
        scheduler, log = _start("scheduler", ["scheduler", "--host", "127.0.0.1", "--port", "0",
                                              "--dashboard-address", "127.0.0.1:0", "--scheduler-file", str(file)],
                                folder)
        processes.append(scheduler)
        address: str = wait_for("dask scheduler", lambda: json.loads(file.read_text())["address"],
                                timeout=READY_SECONDS, process=scheduler, log=log)
        assert address.startswith("tcp://127.0.0.1:"), address
        workers = []
        for i in range(WORKERS):
            worker = _start(f"worker-{i}", ["worker", address, "--nthreads", "1", "--name", f"worker-{i}",
                                            "--host", "127.0.0.1", "--dashboard-address", "127.0.0.1:0",
                                            "--local-directory", str(folder)], folder)
            processes.append(worker[0])
            workers.append(worker)
        with Client(address, timeout=READY_SECONDS) as client:
            for i, (worker, log) in enumerate(workers):
                wait_for(f"dask worker-{i} connected to {address}",
                         lambda name=f"worker-{i}": name in {w["name"] for w in client.scheduler_info()["workers"]
                                                             .values()} or None,
                         timeout=READY_SECONDS, process=worker, log=log)
        yield address
    finally:
        for process in reversed(processes):  # the workers, then the scheduler
            stop(process)
    left = [process.args for process in processes if not _gone(process)]
    assert not left, f"processes left after the cluster was stopped: {left}"


def _build(env: dict[str, str], tiny_archive: Path, warehouse: Path, *options: str) -> Release:
    """`gopat build` of tiny.tar.gz into `warehouse` as a user runs it; its release."""
    args = [str(GOPAT), "build", "--source", str(tiny_archive), "--warehouse", str(warehouse),
            "--families", *FAMILIES, "--quiet", *options]
    start = time.perf_counter()
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=600, check=False)
    seconds = time.perf_counter() - start
    assert done.returncode == 0, f"{' '.join(args)}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    for noise in ("Traceback", "nanobind", "Error"):
        assert noise not in done.stderr, f"{noise}:\n{done.stderr[-3000:]}"
    layout = Layout(warehouse)
    version = current_version(layout)
    assert version is not None and done.stdout.startswith(f"release {version}: "), done.stdout
    return Release(read_manifest(layout, version), parquet_checksums(layout, version), seconds)


@pytest.fixture
def releases(
    gopat_env: dict[str, str], tiny_archive: Path, cluster: str, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Release]:
    """tiny.tar.gz built with the default runner and one process, and on the cluster by its address."""
    return {
        "local": _build(gopat_env, tiny_archive, tmp_path_factory.mktemp("local"), "--workers", "1"),
        "dask": _build(gopat_env, tiny_archive, tmp_path_factory.mktemp("dask"), "--workers", str(WORKERS),
                       "--runner", cluster),
    }


@pytest.mark.slow
def test_a_scheduler_address_nobody_answers_at_is_one_line_within_the_connect_timeout(
    gopat_env: dict[str, str], tiny_archive: Path, tmp_path: Path
) -> None:
    address = f"tcp://127.0.0.1:{free_port()}"  # closed: its socket was bound and closed
    warehouse = tmp_path / "w"
    done = subprocess.run([str(GOPAT), "build", "--source", str(tiny_archive), "--warehouse", str(warehouse),
                           "--families", "sq3", "--runner", address],
                          env=gopat_env, capture_output=True, text=True, timeout=600, check=False)
    ended = datetime.now()
    assert done.returncode == 1, done.stderr[-3000:]
    lines = done.stderr.splitlines()
    # Refused at once, or, on a loaded machine, an attempt that timed out before the refusal came.
    line = re.escape(f"gopat: error: cannot connect to the Dask scheduler at {address} "
                     f"(tried for {CONNECT_SECONDS} s): ")
    reason = r"(Connection refused|Timed out trying to connect to \S+ after \d+ s)"
    assert re.fullmatch(line + reason, lines[-1]), done.stderr[-3000:]
    for noise in ("Traceback", "nanobind", "leaked"):
        assert noise not in done.stderr, f"{noise}:\n{done.stderr[-3000:]}"
    # From the log line of the attempt (local time, as Prefect prints it) to the end: Dask alone tries for 30 s.
    [attempt] = [line for line in lines if f"Connecting to an existing Dask cluster at {address}" in line]
    started = datetime.strptime(attempt.split(" | ")[0], "%H:%M:%S.%f")
    tried = (_seconds_of_day(ended) - _seconds_of_day(started)) % 86_400
    assert CONNECT_SECONDS <= tried < 30, f"{tried:.1f} s:\n{done.stderr[-3000:]}"
    assert current_version(Layout(warehouse)) is None


def _seconds_of_day(moment: datetime) -> float:
    return moment.hour * 3600 + moment.minute * 60 + moment.second + moment.microsecond / 1e6


@pytest.mark.slow
def test_one_process_and_two_dask_workers_publish_identical_tables(releases: dict[str, Release], cluster: str) -> None:
    local, dask = releases["local"], releases["dask"]
    assert local.manifest["ingest"]["files_in"] == 200 and local.manifest["ingest"]["games"] > 190
    assert (local.manifest["sources"], local.manifest["config"]) == (dask.manifest["sources"], dask.manifest["config"])
    assert set(manifest_tables(local.checksums)) == set(local.manifest["row_counts"])
    assert dask.checksums == local.checksums  # every Parquet file, hashed here
    assert {name: entry["sha256"] for name, entry in dask.manifest["files"].items()
            if name.endswith(".parquet")} == local.checksums
    parts = [name for name in local.checksums if name.startswith("pattern_stats/")]
    assert len(parts) == 2 * len(FAMILIES)  # one a family and symmetry at this size
    with build_runner(workers=1, runner=cluster) as runner, runner.phase() as pool:
        assert pool.slots == WORKERS  # the cluster's threads, not the local worker count
    with Client(cluster) as client:
        executed = client.run(lambda dask_worker: dask_worker.state.executed_count)
    assert len(executed) == WORKERS and all(count > 0 for count in executed.values()), executed
    # every shard and part ran on the cluster: 1 ingest shard (200 files), 2 extraction shards, the parts
    assert sum(executed.values()) == 1 + WORKERS + len(parts), executed
    phases = {name: {p: r.manifest["timings"][p] for p in ("ingest", "extract")}
              for name, r in (("local", local), ("dask", dask))}
    print(f"\ntiny.tar.gz {FAMILIES}: gopat build wall s local 1 process {local.seconds:.1f}, "
          f"Dask 2 workers {dask.seconds:.1f}; sharded phases {phases}")


@pytest.mark.slow
def test_temporary_local_dask_cluster_gives_the_same_shard_rows_as_a_direct_call(tiny_archive: Path) -> None:
    members = [(m.name, m.data) for m in iter_members(tiny_archive, limits=Limits()) if not isinstance(m, MemberReject)]
    games = list(ingest_members(members[:30], source="tiny", source_sha256="0" * 64).replays.values())
    halves = [games[:15], games[15:]]
    options = [{"game_ids": [f"game {i}" for i in range(len(half))], "event_families": ("d12",)} for half in halves]
    expected = [shard_rows(half, FAMILIES, **option) for half, option in zip(halves, options, strict=True)]
    with build_runner(workers=2, runner="dask") as runner, runner.phase() as pool:
        results = list(pool.results(functools.partial(shard_rows, half, FAMILIES, **option)
                                    for half, option in zip(halves, options, strict=True)))
    assert pool.slots == 2 and results == expected
    merged = pl.concat([pl.DataFrame(pl.from_arrow(counts)) for counts, _, _ in results])
    assert merged.height > 0
    assert sum(events["d12"] for _, _, events in results) == merged.filter(
        (pl.col("family") == "d12") & (pl.col("symmetry") == 8))["chosen"].sum()
    rows = sum(table.num_rows for _, tables, _ in results for table in tables)
    assert rows == sum(events["d12"] for _, _, events in results)
