"""The catalog follows the releases on disk, also when one is deleted or the warehouse moved."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from gopat.effects.warehouse.layout import Layout
from gopat.effects.warehouse.lock import build_lock
from tests.effects.warehouse.releases import catalog_views, publish_tables


def test_a_deleted_or_moved_release_gets_a_working_catalog_at_the_next_lock(layout: Layout, tmp_path: Path) -> None:
    publish_tables(layout, games=5, content="1" * 12)
    publish_tables(layout, games=7, content="2" * 12)
    shutil.rmtree(layout.release_dir("0001-111111111111"))
    with pytest.raises(duckdb.IOException):
        catalog_views(layout.root)
    with build_lock(layout):
        pass
    assert sorted(catalog_views(layout.root)) == ["current.games", "current.moves", "v2.games", "v2.moves"]
    moved = tmp_path / "moved"
    shutil.move(layout.root, moved)
    with build_lock(Layout(moved)):
        pass
    assert catalog_views(moved) == {"current.games": 7, "current.moves": 21, "v2.games": 7, "v2.moves": 21}
