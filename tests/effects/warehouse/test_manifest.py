"""When a build can extend the current release: the first reason it cannot, in order, with the build state hashed."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from gopat.effects.warehouse.fetch import Fetched
from gopat.effects.warehouse.layout import Layout
from gopat.effects.warehouse.manifest import INCREMENTAL_TABLES, build_config, full_build_reason

VERSION, DELTA = "0002-000000000002", "0001-000000000001"
CONFIG = build_config(families=["d12", "sq5"], min_occurrence={"sq5": 2}, event_families=["d12"], fuseki_moves=10,
                      template_families=[], template_min_occurrence=5, game_counts_moves=12)
FETCHED = [Fetched("first.tar.gz", Path("raw/a.tar.gz"), "a" * 64), Fetched("second.tar.gz", Path("raw/b.tar.gz"),
                                                                             "b" * 64)]


def _entry(path: Path, **extra: str) -> dict[str, object]:
    data = path.read_bytes()
    return {**extra, "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}


@pytest.fixture
def release(tmp_path: Path) -> tuple[Layout, dict]:
    """A release of the first source whose files and two state runs are all there."""
    layout = Layout(tmp_path)
    folder = layout.release_dir(VERSION)
    folder.mkdir(parents=True)
    files = {}
    for table in INCREMENTAL_TABLES:
        (folder / f"{table}.parquet").write_bytes(table.encode() * 10)
        files[f"{table}.parquet"] = _entry(folder / f"{table}.parquet")
    layout.state.mkdir()
    runs = []
    for version in (DELTA, VERSION):
        layout.state_file(version).write_bytes(version.encode() * 100)
        runs.append(_entry(layout.state_file(version), version=version))
    manifest = {"code_version": "c0de", "config": CONFIG, "sources": [{"source": "first.tar.gz", "sha256": "a" * 64}],
                "files": files, "state": {"runs": runs}}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return layout, manifest


def reason(layout: Layout, manifest: dict, *, code: str = "c0de", config: dict | None = None) -> str | None:
    return full_build_reason(layout, VERSION, manifest, FETCHED, code=code, config=config or CONFIG)


def test_a_release_with_every_file_and_run_can_be_extended_with_other_thresholds(release: tuple[Layout, dict]) -> None:
    layout, manifest = release
    assert reason(layout, manifest) is None
    assert reason(layout, manifest, config={**CONFIG, "min_occurrence": {**CONFIG["min_occurrence"], "sq5": 5}}) is None


@pytest.mark.parametrize("table", INCREMENTAL_TABLES)
def test_a_missing_or_resized_file_gets_a_full_build(release: tuple[Layout, dict], table: str) -> None:
    layout, manifest = release
    path = layout.release_dir(VERSION) / f"{table}.parquet"
    path.write_bytes(path.read_bytes() + b"x")
    assert reason(layout, manifest) == f"has missing or resized files: {table}.parquet"
    path.unlink()
    assert reason(layout, manifest) == f"has missing or resized files: {table}.parquet"


@pytest.mark.parametrize("version", [DELTA, VERSION])
def test_a_changed_or_missing_state_run_gets_a_full_build(release: tuple[Layout, dict], version: str) -> None:
    layout, manifest = release
    path = layout.state_file(version)
    data = bytearray(path.read_bytes())
    data[0] ^= 1  # the size kept: only the hash tells
    path.write_bytes(bytes(data))
    expected = f"has no build state of the sizes and sha256 its manifest records ({layout.state})"
    assert reason(layout, manifest) == expected
    path.unlink()
    assert reason(layout, manifest) == expected


def test_the_first_reason_that_holds_is_given(release: tuple[Layout, dict]) -> None:
    layout, manifest = release
    layout.state_file(VERSION).unlink()
    assert reason(layout, manifest, code="other") == "was built by other code"
    assert reason(layout, manifest, config={**CONFIG, "fuseki_moves": 12}) == "has another config"
    assert reason(layout, {**manifest, "sources": [{"source": "first.tar.gz", "sha256": "c" * 64}]}) == (
        "was not built from the first of these sources")
    assert reason(layout, {**manifest, "state": {}}).startswith("has no build state")
