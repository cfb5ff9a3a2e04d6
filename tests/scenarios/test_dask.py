"""Scale-out: the same release, byte for byte, from one local process and from a 2-worker Dask cluster, which runs
the ingest and extraction shards and the parts of pattern_stats."""

from __future__ import annotations

import functools
import time
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest
from distributed import Client, LocalCluster

from gopat.effects.warehouse.layout import manifest_tables
from gopat.flows.build import build_release
from gopat.flows.shards import extract_shard, shard_executor
from gopat.transforms.games.archives import Limits, MemberReject, iter_members
from gopat.transforms.games.records import ingest_members
from gopat.transforms.patterns import parts

FAMILIES = ("d12", "sq3", "blk4")  # blk4 also merges its `result` masks across shards
SHARD = 50  # 200 games -> 4 ingest shards and 4 extraction shards
PART_KEYS = 20_000  # parts of pattern_stats: several for d12 and blk4


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    """A Dask cluster of 2 single-threaded worker processes on 127.0.0.1."""
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address="127.0.0.1:0") as local:
        yield local


def _build(tiny_archive: Path, warehouse: Path, **options: object) -> tuple[dict, float]:
    start = time.perf_counter()
    manifest = build_release(
        sources=[str(tiny_archive)], warehouse=str(warehouse), families=FAMILIES,
        shard_size=SHARD, pattern_shard_size=SHARD, show_progress="quiet", **options,
    )
    return manifest, time.perf_counter() - start


@pytest.fixture(scope="module")
def releases(
    prefect_harness: None, tiny_archive: Path, cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, tuple[dict, float]]:
    """tiny.tar.gz built with the default runner and one process, and on the Dask cluster by address."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(parts, "PART_KEYS", PART_KEYS)
        local = _build(tiny_archive, tmp_path_factory.mktemp("local"), workers=1)
        dask = _build(tiny_archive, tmp_path_factory.mktemp("dask"), workers=2, runner=cluster.scheduler_address)
    return {"local": local, "dask": dask}


@pytest.mark.slow
def test_one_process_and_two_dask_workers_publish_identical_tables(releases: dict, cluster: LocalCluster) -> None:
    (local, local_seconds), (dask, dask_seconds) = releases["local"], releases["dask"]
    assert local["ingest"]["files_in"] == 200 and local["ingest"]["games"] > 190
    assert (local["sources"], local["config"]) == (dask["sources"], dask["config"])
    files = {name: entry["sha256"] for name, entry in local["files"].items() if name.endswith(".parquet")}
    assert set(manifest_tables(files)) == set(local["row_counts"])
    parts = [name for name in files if name.startswith("pattern_stats/")]
    assert len(parts) > 2 * len(FAMILIES)  # several parts for some family and symmetry
    assert {name: entry["sha256"] for name, entry in dask["files"].items() if name.endswith(".parquet")} == files
    with shard_executor(workers=1, runner=cluster.scheduler_address) as pool:
        assert pool.slots == 2  # the cluster's threads, not the local worker count
    with Client(cluster) as client:
        executed = client.run(lambda dask_worker: dask_worker.state.executed_count)
    assert len(executed) == 2 and all(count > 0 for count in executed.values()), executed
    assert sum(executed.values()) == 4 + 4 + len(parts)  # every shard and part ran on the cluster
    phases = {name: {p: m["timings"][p] for p in ("ingest", "extract")}
              for name, m in (("local", local), ("dask", dask))}
    print(f"\ntiny.tar.gz {FAMILIES}: build wall s local 1 process {local_seconds:.1f}, "
          f"Dask 2 workers {dask_seconds:.1f}; sharded phases {phases}")


@pytest.mark.slow
def test_temporary_local_dask_cluster_gives_the_same_shard_bytes_as_a_direct_call(tiny_archive: Path) -> None:
    members = [(m.name, m.data) for m in iter_members(tiny_archive, limits=Limits()) if not isinstance(m, MemberReject)]
    games = list(ingest_members(members[:30], source="tiny", source_sha256="0" * 64).replays.values())
    halves = [games[:15], games[15:]]
    options = [{"game_ids": [f"game {i}" for i in range(len(half))], "event_families": ("d12",)} for half in halves]
    expected = [extract_shard(half, FAMILIES, **option) for half, option in zip(halves, options, strict=True)]
    with shard_executor(workers=2, runner="dask") as pool:
        results = list(pool.results(functools.partial(extract_shard, half, FAMILIES, **option)
                                    for half, option in zip(halves, options, strict=True)))
    assert pool.slots == 2 and results == expected
    merged = pl.concat([pl.read_parquet(parquet) for parquet, _, _ in results])
    assert merged.height > 0
    assert sum(events["d12"] for _, _, events in results) == merged.filter(
        (pl.col("family") == "d12") & (pl.col("symmetry") == 8))["chosen"].sum()
    assert sum(pl.read_parquet(rows).height for _, rows, _ in results) == sum(events["d12"] for _, _, events in results)
