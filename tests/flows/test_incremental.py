"""Incremental builds: a release extended by a new archive equals the release built from scratch."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from gopat.cli.main import main
from gopat.effects.warehouse.layout import Layout, current_version
from gopat.flows.build import PUBLISHED
from tests.flows.archives import tiny_members, write_archive

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("prefect_harness")]
BROKEN_SGF = b"(;GM[1]FF[4]SZ[19];B[pd];W[dp"  # cut off: a reject of the new archive


@pytest.fixture(scope="module")
def archives(tmp_path_factory: pytest.TempPathFactory, tiny_archive: Path) -> tuple[Path, Path]:
    """tiny.tar.gz cut in two: 150 games, then 50 games plus a copy of the first game and a broken file."""
    members = tiny_members(tiny_archive)
    folder = tmp_path_factory.mktemp("archives")
    first = write_archive(folder / "first.tar.gz", members[:150])
    second = write_archive(folder / "second.tar.gz", [
        *members[150:], ("again/" + members[0][0], members[0][1]), ("broken.sgf", BROKEN_SGF),
    ])
    return first, second


def build(warehouse: Path, *sources: Path) -> dict:
    assert main(["build", *[arg for s in sources for arg in ("--source", str(s))],
                 "--warehouse", str(warehouse), "--workers", "2", "--quiet"]) == 0
    layout = Layout(warehouse)
    return json.loads((layout.release_dir(current_version(layout)) / "manifest.json").read_text())


@pytest.fixture(scope="module")
def full(prefect_harness: None, tmp_path_factory: pytest.TempPathFactory, archives: tuple[Path, Path]) -> Path:
    """A warehouse whose one release is built from both archives at once."""
    warehouse = tmp_path_factory.mktemp("full")
    build(warehouse, *archives)
    return warehouse


@pytest.fixture(scope="module")
def extended(prefect_harness: None, tmp_path_factory: pytest.TempPathFactory, archives: tuple[Path, Path]) -> Path:
    """A warehouse built from the first archive, then extended by the second."""
    warehouse = tmp_path_factory.mktemp("extended")
    build(warehouse, archives[0])
    build(warehouse, *archives)
    return warehouse


def release(warehouse: Path) -> tuple[Path, dict]:
    layout = Layout(warehouse)
    folder = layout.release_dir(current_version(layout))
    return folder, json.loads((folder / "manifest.json").read_text())


def test_extended_release_has_the_tables_of_the_full_build(full: Path, extended: Path) -> None:
    (full_folder, full_manifest), (folder, manifest) = release(full), release(extended)
    assert manifest["version"] == "0002-" + full_manifest["content_hash"]
    for table in PUBLISHED:
        assert pq.read_table(folder / f"{table}.parquet").equals(pq.read_table(full_folder / f"{table}.parquet")), table
    for fact in ("ingest", "families", "row_counts", "sources", "config", "code_version"):
        assert manifest[fact] == full_manifest[fact], fact
    assert manifest["ingest"]["duplicates"] >= 1 and manifest["ingest"]["files_rejected"] >= 1
    assert full_manifest["row_counts"]["pattern_stats"] > 100_000


def test_extension_reads_only_the_new_archive_and_checks_the_sum(full: Path, extended: Path) -> None:
    _, manifest = release(extended)
    first = sorted(p.name for p in (extended / "releases").iterdir() if p.name.startswith("0001-"))
    assert manifest["incremental"] == {"base": first[0], "new_sources": 1, "files_in": 52}
    assert release(full)[1]["incremental"] is None
    suite = {outcome["expectation"]: outcome for outcome in manifest["expectations"]["pattern_stats"]["outcomes"]}
    assert suite["table_is_previous_release_plus_new_games"]["success"]
    assert "table_is_previous_release_plus_new_games" not in {
        outcome["expectation"] for outcome in release(full)[1]["expectations"]["pattern_stats"]["outcomes"]}
    assert all(result["success"] for result in manifest["expectations"].values())


def test_sources_in_another_order_are_built_in_full(extended: Path, archives: tuple[Path, Path]) -> None:
    manifest = build(extended, archives[1], archives[0])
    assert manifest["incremental"] is None
    assert manifest["ingest"]["files_in"] == 202
