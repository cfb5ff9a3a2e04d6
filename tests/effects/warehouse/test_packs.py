"""Release packs of a release with a partitioned table: a reproducible round trip, and names a release cannot hold
refused before anything is written outside the unpacking folder."""

from __future__ import annotations

import io
import json
import re
import tarfile
from pathlib import Path

import pytest

from gopat.effects.warehouse.layout import Layout, current_version, read_manifest
from gopat.effects.warehouse.open import connect_release
from gopat.effects.warehouse.packs import PackError, install, pack
from gopat.effects.warehouse.verify import verify
from tests.effects.warehouse.releases import PARTS, publish_partitioned


@pytest.fixture
def packed(layout: Layout, tmp_path: Path) -> tuple[str, Path, list[tuple[object, ...]]]:
    """A release with a partitioned pattern_stats, packed: its version, the pack and pattern_stats' rows."""
    version, rows = publish_partitioned(layout, games=4, content="a" * 12)
    return version, pack(layout, version, tmp_path / "release.tar.gz"), rows


def test_a_partitioned_table_goes_through_a_pack(layout: Layout, packed: tuple[str, Path, list[tuple[object, ...]]],
                                                 tmp_path: Path) -> None:
    version, archive, rows = packed
    with tarfile.open(archive) as tar:
        assert tar.getnames() == [f"{version}/{name}" for name in (
            "manifest.json", "datadocs/index.html", "games.parquet", *(f"pattern_stats/{p}" for p in sorted(PARTS)))]
    other = Layout(tmp_path / "other")
    assert install(other, archive) == version and current_version(other) == version
    assert verify(other, version) == [] and read_manifest(other, version) == read_manifest(layout, version)
    opened, _ = connect_release(other.root)
    assert opened.execute("SELECT * FROM pattern_stats").fetchall() == rows
    assert pack(other, version, tmp_path / "again.tar.gz").read_bytes() == archive.read_bytes()

    with tarfile.open(archive) as tar:  # the same files, with the folder entries tar itself writes
        tar.extractall(tmp_path / "unpacked", filter="data")
    handmade = tmp_path / "handmade.tar.gz"
    with tarfile.open(handmade, "w:gz") as tar:
        tar.add(tmp_path / "unpacked" / version, arcname=version)
    with tarfile.open(handmade) as tar:
        assert f"{version}/pattern_stats/sq5/08" in {member.name for member in tar.getmembers() if member.isdir()}
    assert install(Layout(tmp_path / "third"), handmade) == version


def _repack(archive: Path, out: Path, *, extra: dict[str, bytes], manifest: dict[str, object] | None = None) -> Path:
    """`archive` with members added (and its manifest.json replaced)."""
    with tarfile.open(archive) as src, tarfile.open(out, "w:gz") as dst:
        for member in src:
            data = src.extractfile(member).read()
            if manifest is not None and member.name.endswith("/manifest.json"):
                data = json.dumps(manifest).encode()
                member.size = len(data)
            dst.addfile(member, io.BytesIO(data))
        for name, data in extra.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            dst.addfile(info, io.BytesIO(data))
    return out


@pytest.mark.parametrize("name", [
    "{v}/pattern_stats/../x.parquet", "{v}/pattern_stats/sq5/../../x.parquet", "{v}/pattern_stats/sq5/08/../x.parquet",
    "{v}/pattern_stats/sq5/08/0000/../../../../x.parquet", "/x.parquet", "{v}//x.parquet", "{v}/../x.parquet",
    "{v}/pattern_stats/sq5/8/0000.parquet", "{v}/pattern_stats/sq5/08/000.parquet",
    "{v}/pattern_stats/SQ5/08/0000.parquet", "{v}/pattern_stats/sq-5/08/0000.parquet",
    "{v}/pattern_stats/sq5/08/0000.parquet/x.parquet", "{v}/pattern_stats/sq5/08/extra/0000.parquet",
    "{v}/pattern_stats/sq5/08/0000.txt",
])
def test_a_member_a_release_cannot_hold_is_refused(layout: Layout, packed: tuple[str, Path, list[tuple[object, ...]]],
                                                  tmp_path: Path, name: str) -> None:
    version, archive, _ = packed
    hostile = _repack(archive, tmp_path / "hostile.tar.gz", extra={name.format(v=version): b"x"})
    target = Layout(tmp_path / "target")
    with pytest.raises(PackError, match="unexpected member"):
        install(target, hostile)
    assert not target.release_dir(version).exists() and current_version(target) is None
    assert not list(tmp_path.rglob("x.parquet")) and not list(tmp_path.rglob("0000.txt"))


def test_a_manifest_listing_a_name_a_release_cannot_hold_is_refused(
        layout: Layout, packed: tuple[str, Path, list[tuple[object, ...]]], tmp_path: Path) -> None:
    version, archive, _ = packed
    manifest = read_manifest(layout, version)
    entry = manifest["files"]["games.parquet"]
    outside = {**manifest, "files": {**manifest["files"], "pattern_stats/../games.parquet": entry}}
    hostile = _repack(archive, tmp_path / "hostile.tar.gz", extra={}, manifest=outside)
    target = Layout(tmp_path / "target")
    refused = re.escape("lists files a release cannot hold: 'pattern_stats/../games.parquet'")
    with pytest.raises(PackError, match=refused):
        install(target, hostile)
    assert not target.release_dir(version).exists() and current_version(target) is None
