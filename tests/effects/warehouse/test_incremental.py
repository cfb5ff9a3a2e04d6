"""When a build can extend the current release: the first reason it cannot, in order, with the run folders of the
complete counts and the move_patterns files hashed."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from gopat.effects.warehouse.fetch import Fetched
from gopat.effects.warehouse.files import tree_digest
from gopat.effects.warehouse.incremental import INCREMENTAL_TABLES, full_build_reason
from gopat.effects.warehouse.layout import Layout
from gopat.effects.warehouse.manifest import build_config

VERSION, DELTA = "0002-000000000002", "0001-000000000001"
CONFIG = build_config(families=["d12", "sq5"], min_occurrence={"sq5": 2}, event_families=["d12"], fuseki_moves=10,
                      template_families=[], template_min_occurrence=5, game_counts_moves=12)
FETCHED = [Fetched("first.tar.gz", Path("raw/a.tar.gz"), "a" * 64), Fetched("second.tar.gz", Path("raw/b.tar.gz"),
                                                                             "b" * 64)]


PARTS = ("d12/08/0000.parquet", "sq5/08/0000.parquet", "sq5/08/0001.parquet")  # docs/releases.md#release-folder
MOVE_PATTERNS = ("move_patterns/000000.parquet", "move_patterns/000001.parquet")  # one file per build
FILES = [f"{table}.parquet" for table in INCREMENTAL_TABLES if table not in ("pattern_stats", "move_patterns")] + [
    f"pattern_stats/{part}" for part in PARTS] + list(MOVE_PATTERNS)


def _entry(path: Path, **extra: str) -> dict[str, object]:
    data = path.read_bytes()
    return {**extra, "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


@pytest.fixture
def release(tmp_path: Path) -> tuple[Layout, dict]:
    """A release of the first source whose files (pattern_stats partitioned) and two run folders are all there."""
    layout = Layout(tmp_path)
    folder = layout.release_dir(VERSION)
    for name in FILES:
        _write(folder / name, name.encode() * 10)
    runs = []
    for version in (DELTA, VERSION):
        for part in PARTS:
            _write(layout.run_dir(version) / part, f"{version}/{part}".encode() * 100)
        digest, size = tree_digest(layout.run_dir(version))
        runs.append({"version": version, "sha256": digest, "bytes": size})
    manifest = {"code_version": "c0de", "config": CONFIG, "sources": [{"source": "first.tar.gz", "sha256": "a" * 64}],
                "files": {name: _entry(folder / name) for name in FILES}, "state": {"runs": runs}}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return layout, manifest


def reason(layout: Layout, manifest: dict, *, code: str = "c0de", config: dict | None = None) -> str | None:
    return full_build_reason(layout, VERSION, manifest, FETCHED, code=code, config=config or CONFIG)


def test_a_release_with_every_file_and_run_can_be_extended_with_other_thresholds(release: tuple[Layout, dict]) -> None:
    layout, manifest = release
    assert reason(layout, manifest) is None
    assert reason(layout, manifest, config={**CONFIG, "min_occurrence": {**CONFIG["min_occurrence"], "sq5": 5}}) is None


@pytest.mark.parametrize("name", FILES)
def test_a_missing_or_resized_file_gets_a_full_build(release: tuple[Layout, dict], name: str) -> None:
    layout, manifest = release
    path = layout.release_dir(VERSION) / name
    path.write_bytes(path.read_bytes() + b"x")
    assert reason(layout, manifest) == f"has missing or resized files: {name}"
    path.unlink()
    assert reason(layout, manifest) == f"has missing or resized files: {name}"


def test_a_table_without_a_listed_file_gets_a_full_build(release: tuple[Layout, dict]) -> None:
    layout, manifest = release
    files = {name: entry for name, entry in manifest["files"].items() if not name.startswith("pattern_stats/")}
    assert reason(layout, {**manifest, "files": files}) == "has missing or resized files: pattern_stats (no file)"


@pytest.mark.parametrize("version", [DELTA, VERSION])
def test_a_changed_or_missing_state_run_gets_a_full_build(release: tuple[Layout, dict], version: str) -> None:
    layout, manifest = release
    expected = f"has no complete counts of the sizes and sha256 its manifest records ({layout.runs})"
    run = layout.run_dir(version)
    path = run / PARTS[1]
    data = bytearray(path.read_bytes())
    data[0] ^= 1  # the size kept: only the hash tells
    path.write_bytes(bytes(data))
    assert reason(layout, manifest) == expected
    data[0] ^= 1
    path.write_bytes(bytes(data))
    assert reason(layout, manifest) is None
    path.rename(run / "sq5/08/0002.parquet")  # the bytes kept: only the names tell
    assert reason(layout, manifest) == expected
    (run / "sq5/08/0002.parquet").rename(path)
    _write(run / "sq5/16/0000.parquet", b"")  # an extra file, no byte more: the hash tells
    assert reason(layout, manifest) == expected
    shutil.rmtree(run)
    assert reason(layout, manifest) == expected


@pytest.mark.parametrize("name", MOVE_PATTERNS)
def test_a_changed_move_patterns_file_gets_a_full_build(release: tuple[Layout, dict], name: str) -> None:
    layout, manifest = release
    path = layout.release_dir(VERSION) / name
    data = bytearray(path.read_bytes())
    data[0] ^= 1  # the size kept: only the hash tells (an incremental build links the file into its release)
    path.write_bytes(bytes(data))
    assert reason(layout, manifest) == "has move_patterns files whose sha256 is not its manifest's"
    data[0] ^= 1
    path.write_bytes(bytes(data))
    assert reason(layout, manifest) is None


def test_the_first_reason_that_holds_is_given(release: tuple[Layout, dict]) -> None:
    layout, manifest = release
    shutil.rmtree(layout.run_dir(VERSION))
    assert reason(layout, manifest, code="other") == "was built by other code"
    assert reason(layout, manifest, config={**CONFIG, "fuseki_moves": 12}) == "has another config"
    assert reason(layout, {**manifest, "sources": [{"source": "first.tar.gz", "sha256": "c" * 64}]}) == (
        "was not built from the first of these sources")
    assert reason(layout, {**manifest, "state": {}}).startswith("has no complete counts")
