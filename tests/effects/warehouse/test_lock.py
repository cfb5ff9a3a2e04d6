"""The build lock and the recovery that runs under it."""

from __future__ import annotations

import os

import pytest

from gopat.effects.warehouse.layout import Layout
from gopat.effects.warehouse.lock import build_lock, recover
from gopat.effects.warehouse.publish import set_current
from tests.effects.warehouse.releases import catalog_views, publish_tables


def test_recover_removes_leftovers_and_rebuilds_a_stale_catalog(layout: Layout) -> None:
    first = publish_tables(layout, games=5, content="1" * 12)
    second = publish_tables(layout, games=7, content="2" * 12)
    set_current(layout, first)  # CURRENT switched but the catalog not swapped in yet
    leftovers = [layout.releases / ".tmp-0003-333333333333-99", layout.releases / ".trash-0000-x-99",
                 layout.staging / "abc" / "work.duckdb"]
    for path in leftovers:
        path.mkdir(parents=True)
    (layout.releases / "CURRENT.tmp-99").write_text(second)
    (layout.root / ".catalog-99.duckdb").write_bytes(b"partial")
    assert catalog_views(layout.root)["current.games"] == 7
    done = recover(layout)
    assert sorted(done) == [".catalog-99.duckdb", ".tmp-0003-333333333333-99", ".trash-0000-x-99",
                            "CURRENT.tmp-99", "abc", "catalog.duckdb"]
    assert sorted(p.name for p in layout.releases.iterdir()) == ["0001-111111111111", "0002-222222222222", "CURRENT"]
    assert list(layout.staging.iterdir()) == []
    assert not (layout.root / ".catalog-99.duckdb").exists()
    assert catalog_views(layout.root)["current.games"] == 5
    assert recover(layout) == []


def test_the_build_lock_is_exclusive_and_names_its_holder(layout: Layout) -> None:
    with (build_lock(layout),
          pytest.raises(RuntimeError, match=rf"another build \(pid {os.getpid()}\) holds .*\.build\.lock"),
          build_lock(layout)):
        pass
    with build_lock(layout):
        pass
