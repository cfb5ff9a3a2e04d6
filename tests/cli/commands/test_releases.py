"""`gopat releases`, `release show|pack` and `verify` on published releases."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

import pytest

from gopat.cli.main import main
from gopat.effects.warehouse.layout import Layout, read_manifest, resolve_version
from gopat.effects.warehouse.verify import list_releases
from tests.effects.warehouse.releases import publish_tables


def test_cli_lists_shows_packs_and_verifies(layout: Layout, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = publish_tables(layout, games=5, content="1" * 12)
    second = publish_tables(layout, games=9, content="2" * 12)
    warehouse = ["--warehouse", str(layout.root)]
    assert main(["releases", *warehouse, "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["version"], r["games"], r["tables"], r["status"]) for r in rows] == [
        (first, 5, 2, "kept"), (second, 9, 2, "current")]
    assert main(["release", "show", "current", *warehouse]) == 0
    shown = capsys.readouterr().out
    assert f"release {second} (current)" in shown
    assert read_manifest(layout, second)["files"]["moves.parquet"]["sha256"] in shown
    assert resolve_version(layout, "1") == first and resolve_version(layout, first) == first

    packs = [tmp_path / "a.tar.gz", tmp_path / "b.tar.gz"]
    for pack in packs:
        assert main(["release", "pack", "2", "-o", str(pack), *warehouse]) == 0
    assert packs[0].read_bytes() == packs[1].read_bytes()
    with tarfile.open(packs[0]) as tar:
        assert tar.getnames() == [f"{second}/{name}" for name in
                                  ("manifest.json", "datadocs/index.html", "games.parquet", "moves.parquet")]
    assert not list(tmp_path.glob("*.part"))

    assert main(["verify", *warehouse]) == 0
    assert capsys.readouterr().out.splitlines()[-2:] == [f"{first}: ok", f"{second}: ok"]
    target = layout.release_dir(first) / "games.parquet"
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0xFF
    target.write_bytes(bytes(data))
    assert main(["verify", first, *warehouse]) == 1
    assert "games.parquet: sha256" in capsys.readouterr().out
    assert main(["release", "pack", first, "-o", str(tmp_path / "bad.tar.gz"), *warehouse]) == 1
    assert "fails verification" in capsys.readouterr().err and not (tmp_path / "bad.tar.gz").exists()
    target.write_bytes(bytes(data[:100]))
    assert [r.status for r in list_releases(layout)] == ["damaged", "current"]
    assert main(["release", "show", "7", *warehouse]) == 1
    assert "release '7' not found" in capsys.readouterr().err
