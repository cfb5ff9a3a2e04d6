"""Production operation on real services on 127.0.0.1: a Prefect server with its scheduler, a process
worker running the scheduled runs of the deployment of prefect.yaml, the run artifacts, then the same
deployment served by `gopat serve`."""

from __future__ import annotations

import json
import subprocess
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path
from uuid import UUID

import polars as pl
import pytest
import yaml
from prefect import get_client
from prefect.client.schemas.filters import (
    ArtifactFilter,
    ArtifactFilterFlowRunId,
    DeploymentFilter,
    DeploymentFilterId,
    FlowRunFilter,
    FlowRunFilterParentFlowRunId,
)
from prefect.client.schemas.objects import FlowRun
from prefect.client.schemas.schedules import RRuleSchedule
from prefect.deployments import run_deployment

from gopat.effects.warehouse.fetch import sha256_file
from gopat.effects.warehouse.layout import Layout, current_version, read_manifest, table_files, versions
from gopat.flows.artifacts import DATA_DOCS_KEY, SUMMARY_KEY, TOP_PATTERNS_KEY, TOP_PER_FAMILY
from tests.scenarios.services import BIN, REPO, cli, stop, wait_for

DEPLOYMENT = "scheduled-build/nightly"
FAMILIES = ["d12", "sq3"]


@pytest.fixture(scope="module")
def run_parameters(tiny_archive: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Deployment parameters: a sources.toml naming tiny.tar.gz with its sha256, a fresh warehouse."""
    folder = tmp_path_factory.mktemp("ops")
    sources = folder / "sources.toml"
    sources.write_text(f'[[source]]\nname = "tiny"\npath = "{tiny_archive}"\nsha256 = "{sha256_file(tiny_archive)}"\n')
    return {"sources_file": str(sources), "warehouse": str(folder / "warehouse"), "workers": 2, "families": FAMILIES}


def _nightly_spec() -> dict:
    (spec,) = [d for d in yaml.safe_load((REPO / "prefect.yaml").read_text())["deployments"] if d["name"] == "nightly"]
    return spec


def _artifacts(flow_run_id: UUID) -> dict[str, object]:
    """The artifacts of a flow run, by key; the build runs in the deployment's run, not in a subflow."""
    with get_client(sync_client=True) as client:
        subflows = client.read_flow_runs(
            flow_run_filter=FlowRunFilter(parent_flow_run_id=FlowRunFilterParentFlowRunId(any_=[flow_run_id]))
        )
        assert subflows == [], [run.name for run in subflows]
        found = client.read_artifacts(
            artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[flow_run_id]))
        )
    return {artifact.key: artifact.data for artifact in found}


def _run(parameters: dict) -> FlowRun:
    run = run_deployment(DEPLOYMENT, parameters=parameters, timeout=900, poll_interval=2)
    assert run.state is not None and run.state.is_completed(), f"{run.state}"
    return run


def _scheduled_runs(deployment_id: UUID, schedule_id: UUID) -> list[FlowRun]:
    """The runs the scheduler created for one schedule of a deployment, oldest first."""
    with get_client(sync_client=True) as client:
        runs = client.read_flow_runs(
            deployment_filter=DeploymentFilter(id=DeploymentFilterId(any_=[deployment_id])),
        )
    mine = [r for r in runs if r.auto_scheduled and r.created_by is not None and r.created_by.id == schedule_id]
    return sorted(mine, key=lambda r: r.expected_start_time)


SCHEDULED_RUNS = 2
SCHEDULE_START_SECONDS = 15
SCHEDULE_INTERVAL_SECONDS = 20


@pytest.fixture(scope="module")
def scheduled(server: dict[str, str], run_parameters: dict, tmp_path_factory: pytest.TempPathFactory) -> list[FlowRun]:
    """The production steps of docs/operations.md, then a schedule that falls due now; returns its finished runs.

    Work pool, `prefect deploy --all` from prefect.yaml and a process worker as docs/operations.md says;
    the nightly deployment gets a second schedule (two runs, the first in 15 s, with this test's
    parameters). The server's scheduler must create both runs and the worker run them.
    """
    cli(server, "prefect", "work-pool", "create", "gopat-process", "--type", "process")
    cli(server, "prefect", "--no-prompt", "deploy", "--all")
    log = tmp_path_factory.mktemp("worker") / "worker.log"
    with log.open("w") as out:
        worker = subprocess.Popen([str(BIN / "prefect"), "worker", "start", "--pool", "gopat-process", "--limit", "1"],
                                  cwd=tmp_path_factory.getbasetemp(), env=server, stdout=out,
                                  stderr=subprocess.STDOUT, start_new_session=True)
    try:
        start = (datetime.now(UTC) + timedelta(seconds=SCHEDULE_START_SECONDS)).strftime("%Y%m%dT%H%M%SZ")
        rule = f"DTSTART:{start}\nRRULE:FREQ=SECONDLY;INTERVAL={SCHEDULE_INTERVAL_SECONDS};COUNT={SCHEDULED_RUNS}"
        with get_client(sync_client=True) as client:
            deployment = client.read_deployment_by_name(DEPLOYMENT)
            (schedule,) = client.create_deployment_schedules(
                deployment.id, [(RRuleSchedule(rrule=rule, timezone="UTC"), True)],
                parameters=run_parameters, slug="test-now",
            )

        server_log = Path(server["PREFECT_HOME"]) / "server.log"

        def finished() -> list[FlowRun] | None:
            if "schedule_deployments" in (text := server_log.read_text()):  # the scheduler's own error line
                pytest.fail(f"the server's scheduler failed:\n{text[-3000:]}")
            runs = _scheduled_runs(deployment.id, schedule.id)
            done = len(runs) == SCHEDULED_RUNS and all(r.state is not None and r.state.is_final() for r in runs)
            return runs if done else None

        return wait_for("two scheduled runs", finished, timeout=900, process=worker, log=log)
    finally:
        stop(worker)


@pytest.fixture(scope="module")
def worker_run(scheduled: list[FlowRun]) -> FlowRun:
    """The first scheduled run: it publishes the first release."""
    return scheduled[0]


@pytest.mark.slow
def test_scheduler_creates_the_runs_and_the_worker_completes_them(scheduled: list[FlowRun], server: dict[str, str],
                                                                  run_parameters: dict) -> None:
    assert [run.state.type.value for run in scheduled] == ["COMPLETED"] * SCHEDULED_RUNS, [
        (run.name, run.state) for run in scheduled
    ]
    assert all({name: run.parameters.get(name) for name in run_parameters} == run_parameters for run in scheduled)
    layout = Layout(Path(run_parameters["warehouse"]))
    (version,) = versions(layout)
    assert scheduled[0].state.message == f"published release {version}"
    assert scheduled[1].state.message == (
        f"no new or changed source in {run_parameters['sources_file']}: nothing published, "
        f"release {version} stays current"
    )
    assert "**Nothing new**" in _artifacts(scheduled[1].id)[SUMMARY_KEY]
    server_log = (Path(server["PREFECT_HOME"]) / "server.log").read_text()
    for bad in ("Can't evaluate bulk DML", "telemetry"):
        assert bad not in server_log, server_log[-3000:]


@pytest.mark.slow
def test_deployment_is_registered_as_prefect_yaml_says(worker_run: FlowRun) -> None:
    spec = _nightly_spec()
    with get_client(sync_client=True) as client:
        deployment = client.read_deployment(worker_run.deployment_id)
    assert deployment.work_pool_name == spec["work_pool"]["name"] == "gopat-process"
    assert deployment.entrypoint == spec["entrypoint"]
    assert deployment.parameters == spec["parameters"]
    assert [(s.schedule.cron, s.schedule.timezone) for s in deployment.schedules if s.slug != "test-now"] == [
        (s["cron"], s["timezone"]) for s in spec["schedules"]
    ]
    assert deployment.pull_steps == [{"prefect.deployments.steps.set_working_directory": {"directory": str(REPO)}}]


@pytest.mark.slow
def test_worker_run_publishes_a_checked_release(worker_run: FlowRun, run_parameters: dict, tiny_archive: Path) -> None:
    layout = Layout(Path(run_parameters["warehouse"]))
    version = current_version(layout)
    assert version is not None and versions(layout) == [version]
    assert worker_run.state.message == f"published release {version}"
    manifest = read_manifest(layout, version)
    ingest = manifest["ingest"]
    assert ingest["files_in"] == 200 == ingest["files_ingested"] + ingest["files_rejected"]
    assert manifest["sources"] == [{"source": str(tiny_archive.resolve()), "sha256": sha256_file(tiny_archive)}]
    assert sorted(manifest["config"]["families"]) == FAMILIES
    assert all(result["success"] for result in manifest["expectations"].values())
    for name, entry in manifest["files"].items():
        assert sha256_file(layout.release_dir(version) / name) == entry["sha256"], name


@pytest.mark.slow
def test_worker_run_has_summary_top_patterns_and_data_docs_artifacts(worker_run: FlowRun, run_parameters: dict) -> None:
    layout = Layout(Path(run_parameters["warehouse"]))
    version = current_version(layout)
    artifacts = _artifacts(worker_run.id)
    assert set(artifacts) == {SUMMARY_KEY, TOP_PATTERNS_KEY, DATA_DOCS_KEY}
    summary = artifacts[SUMMARY_KEY]
    assert f"Published release **{version}**" in summary
    assert f"| 200 | 200 | 0 | {read_manifest(layout, version)['ingest']['games']} |" in summary
    top = json.loads(artifacts[TOP_PATTERNS_KEY])
    stats = pl.read_parquet(table_files(layout.release_dir(version))["pattern_stats"]).filter(pl.col("symmetry") == 8)
    for family in FAMILIES:
        rows = [r for r in top if r["family"] == family]
        table = stats.filter(pl.col("family") == family)
        assert [r["chosen"] for r in rows] == sorted(table["chosen"].to_list(), reverse=True)[:TOP_PER_FAMILY]
        for row in rows:
            (match,) = table.filter(pl.col("key") == row["key"]).iter_rows(named=True)
            assert (match["chosen"], match["occurrence"]) == (row["chosen"], row["occurrence"])
    link = artifacts[DATA_DOCS_KEY].split("](", 1)[1].rstrip(")")
    assert link.startswith("file://") and link.endswith(".html")
    page = Path(urllib.request.url2pathname(link.removeprefix("file://")))
    assert page.is_file() and page.is_relative_to(layout.release_dir(version))


@pytest.mark.slow
def test_gopat_serve_serves_the_same_deployment_and_a_rerun_publishes_nothing(
    worker_run: FlowRun, server: dict[str, str], run_parameters: dict, tmp_path: Path
) -> None:
    spec = _nightly_spec()
    layout = Layout(Path(run_parameters["warehouse"]))
    version = current_version(layout)
    with get_client(sync_client=True) as client:  # switching from the worker to serve (a step of docs/operations.md)
        client.delete_deployment(worker_run.deployment_id)
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        serve = subprocess.Popen([str(BIN / "gopat"), "serve"], cwd=REPO, env=server, stdout=out,
                                 stderr=subprocess.STDOUT, start_new_session=True)
    try:
        with get_client(sync_client=True) as client:
            served = wait_for("gopat serve", lambda: client.read_deployment_by_name(DEPLOYMENT),
                               timeout=120, process=serve, log=log)
        assert served.work_pool_name is None
        assert (served.entrypoint, served.parameters, served.description) == (
            spec["entrypoint"], spec["parameters"], spec["description"])
        assert [(s.schedule.cron, s.schedule.timezone) for s in served.schedules] == [
            (s["cron"], s["timezone"]) for s in spec["schedules"]
        ]
        rerun = _run(run_parameters)
    finally:
        stop(serve)
    code = {v: read_manifest(layout, v)["code_version"] for v in versions(layout)}
    assert rerun.state.message == (
        f"no new or changed source in {run_parameters['sources_file']}: "
        f"nothing published, release {version} stays current"
    ), f"code versions of the releases: {code} (a different code version means the code changed during the test)"
    assert versions(layout) == [version] and current_version(layout) == version
    assert "**Nothing new**" in _artifacts(rerun.id)[SUMMARY_KEY]
