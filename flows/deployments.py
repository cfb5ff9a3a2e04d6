"""Scheduled operation: the flow that builds from `sources.toml`, and `serve()` for `gopat serve`.

`prefect.yaml` declares the deployments (a process work pool and its workers run them);
`serve()` serves the same deployments from this process with Prefect's `serve` (single machine,
no work pool). The build flow reads its sources from a versioned TOML file; a run whose sources,
code and config match the current release publishes nothing and says so in its log, its final
state's message and its summary artifact.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import yaml
from prefect import Flow, flow, get_run_logger
from prefect import serve as prefect_serve
from prefect.client.schemas.objects import State
from prefect.deployments.runner import RunnerDeployment
from prefect.flows import load_flow_from_entrypoint
from prefect.schedules import Cron, Schedule
from prefect.settings import get_current_settings
from prefect.states import Completed

from gopat.effects.warehouse.fetch import is_url
from gopat.effects.warehouse.layout import Layout, current_version
from gopat.flows.build import build_release
from gopat.transforms.patterns.families import DEFAULT_FAMILIES

SOURCE_KEYS = {"name", "url", "path", "sha256"}
SHA256 = re.compile(r"[0-9a-f]{64}")
FETCH_ATTEMPTS = 4  # gopat.flows.build.fetch_source: the first try and 3 retries after 1, 4 and 10 s


class SourceUnavailable(RuntimeError):
    """A source could not be fetched after every retry; nothing was published."""


@dataclass(frozen=True, slots=True)
class Source:
    """One entry of sources.toml: `location` is a URL or an absolute path."""

    name: str
    location: str
    sha256: str | None = None


def read_sources(path: Path) -> list[Source]:
    """The `[[source]]` tables of a sources file, in order.

    Each has `name`, exactly one of `url` (http/https) or `path` (relative paths are relative to
    the file's folder) and optionally `sha256` (the expected checksum). Raises ValueError naming
    the file and the entry for anything else.
    """
    try:
        document = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ValueError(f"{path}: no such sources file") from None
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{path}: not valid TOML: {error}") from None
    entries = document.get("source")
    if set(document) != {"source"} or not isinstance(entries, list) or not entries:
        raise ValueError(f"{path}: expected one or more [[source]] tables and nothing else")
    sources = [_source(path, index, entry) for index, entry in enumerate(entries, 1)]
    names = [s.name for s in sources]
    if len(set(names)) != len(names):
        raise ValueError(f"{path}: source names must be unique, got {names}")
    return sources


def _source(path: Path, index: int, entry: dict[str, Any]) -> Source:
    where = f"{path}: source {index}"
    unknown = sorted(set(entry) - SOURCE_KEYS)
    if unknown:
        raise ValueError(f"{where}: unknown keys {unknown}; known: {sorted(SOURCE_KEYS)}")
    name = entry.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError(f"{where}: needs a name")
    if ("url" in entry) == ("path" in entry):
        raise ValueError(f"{where} ({name}): needs exactly one of url or path")
    sha256 = entry.get("sha256")
    if sha256 is not None and not (isinstance(sha256, str) and SHA256.fullmatch(sha256.lower())):
        raise ValueError(f"{where} ({name}): sha256 must be 64 hex digits")
    if "url" in entry:
        if not (isinstance(entry["url"], str) and is_url(entry["url"])):
            raise ValueError(f"{where} ({name}): url must start with http:// or https://")
        location = entry["url"]
    else:
        location = str((path.parent / str(entry["path"])).resolve())
    return Source(name=name, location=location, sha256=sha256.lower() if sha256 else None)


@flow(name="scheduled-build")
def scheduled_build(
    sources_file: str = "sources.toml",
    warehouse: str = "warehouse",
    runner: str = "local",
    workers: int = 0,
    families: list[str] | None = None,
    keep: int | None = None,
) -> State[Any]:
    """Build and publish a release from the sources listed in `sources_file` (the build-release flow).

    `runner` is where shard work runs ('local', 'dask' or a Dask scheduler address, see
    flows/shards.py); `families` None builds the build flow's default families; `keep` keeps only
    the newest releases (None keeps all). With no new or changed source the run completes, publishes nothing and says
    so. A source that stays unreachable after the fetch retries fails the run with
    `SourceUnavailable`; nothing is published and the current release stays.
    """
    logger = get_run_logger()
    sources = read_sources(Path(sources_file))
    layout = Layout(Path(warehouse).resolve())
    before = current_version(layout)
    try:
        # The build flow's body runs in this flow run (not as a subflow), so its tasks, logs and
        # artifacts are on the run the deployment started: the page an operator opens.
        manifest = build_release.fn(
            sources=[s.location for s in sources],
            expected_sha256=[s.sha256 for s in sources],
            warehouse=warehouse,
            workers=workers,
            runner=runner,
            show_progress="log",
            keep=keep,
            families=tuple(families) if families else DEFAULT_FAMILIES,
        )
    except OSError as error:
        urls = ", ".join(f"{s.name} ({s.location})" for s in sources if is_url(s.location))
        raise SourceUnavailable(
            f"{sources_file}: fetching {urls or 'the sources'} failed after {FETCH_ATTEMPTS} attempts "
            f"({type(error).__name__}: {error}); nothing was published, the current release is still "
            f"{before or 'none'}"
        ) from error
    version = manifest["version"]
    summary = {"published": version != before, "version": version, "ingest": manifest["ingest"]}
    if version == before:
        message = f"no new or changed source in {sources_file}: nothing published, release {version} stays current"
    else:
        message = f"published release {version}"
    logger.info(message)
    return Completed(message=message, data=summary)


def deployment_specs(prefect_file: Path) -> list[dict[str, Any]]:
    """The `deployments` entries of a prefect.yaml."""
    specs: list[dict[str, Any]] = (yaml.safe_load(prefect_file.read_text()) or {}).get("deployments") or []
    return specs


def serve(*, prefect_file: Path, limit: int = 1) -> None:
    """Serve the deployments of `prefect_file` from this process until interrupted.

    Same names, entrypoints, parameters, cron schedules, descriptions and concurrency limits as
    `prefect deploy` gives them; no work pool (flow runs start as subprocesses of this one, in the
    current folder). Needs a Prefect server (PREFECT_API_URL); at most `limit` runs at a time.
    """
    if not get_current_settings().api.url:
        raise RuntimeError(
            "gopat serve needs a Prefect server: start one with `prefect server start` and set "
            "PREFECT_API_URL (e.g. `prefect config set PREFECT_API_URL=http://127.0.0.1:4200/api`)"
        )
    deployments: list[RunnerDeployment] = []
    for spec in deployment_specs(prefect_file):
        entry: Flow[..., Any] = load_flow_from_entrypoint(str(prefect_file.parent / spec["entrypoint"]))
        schedules = [_cron(prefect_file, spec["name"], s) for s in spec.get("schedules") or []]
        # Called from sync code, Prefect's dispatching to_deployment returns the deployment, not a coroutine.
        deployments.append(cast(RunnerDeployment, entry.to_deployment(
            name=spec["name"],
            schedules=schedules,
            parameters=spec.get("parameters") or {},
            description=spec.get("description"),
            tags=spec.get("tags"),
            concurrency_limit=spec.get("concurrency_limit"),
        )))
    if not deployments:
        raise ValueError(f"{prefect_file}: no deployments")
    prefect_serve(*deployments, limit=limit)


def _cron(prefect_file: Path, name: str, schedule: dict[str, Any]) -> Schedule:
    if set(schedule) - {"cron", "timezone", "active"} or "cron" not in schedule:
        raise ValueError(
            f"{prefect_file}: deployment {name}: gopat serve takes cron schedules (cron, timezone, active)"
        )
    return Cron(schedule["cron"], timezone=schedule.get("timezone"), active=schedule.get("active", True))
