"""End-to-end builds: real archives over real HTTP, real Prefect runs, real DuckDB catalog."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import duckdb
import pytest

from gopat.cli.main import main
from gopat.effects.warehouse.layout import Layout, current_version
from gopat.transforms.patterns.families import DEFAULT_FAMILIES as ALL_FAMILIES

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("prefect_harness")]


@pytest.fixture(scope="module")
def tiny_release(
    prefect_harness: None, tmp_path_factory: pytest.TempPathFactory, tiny_archive: Path, http_root: Path, http_url: str
) -> Path:
    """A warehouse built by `gopat build` from tiny.tar.gz downloaded over HTTP."""
    shutil.copyfile(tiny_archive, http_root / "tiny.tar.gz")
    warehouse = tmp_path_factory.mktemp("warehouse")
    sha = hashlib.sha256(tiny_archive.read_bytes()).hexdigest()
    code = main(["build", "--source", f"{http_url}/tiny.tar.gz", "--expected-sha256", sha,
                 "--warehouse", str(warehouse), "--workers", "2", "--families", *ALL_FAMILIES])
    assert code == 0
    return warehouse


def test_release_is_published_with_a_balanced_manifest(tiny_release: Path) -> None:
    layout = Layout(tiny_release)
    version = current_version(layout)
    assert version is not None
    manifest = json.loads((layout.release_dir(version) / "manifest.json").read_text())
    ingest = manifest["ingest"]
    assert ingest["files_in"] == 200
    assert ingest["files_in"] == ingest["files_ingested"] + ingest["files_rejected"]
    assert ingest["games"] + ingest["duplicates"] >= ingest["files_ingested"]
    for name, entry in manifest["files"].items():
        path = layout.release_dir(version) / name
        assert hashlib.sha256(path.read_bytes()).hexdigest() == entry["sha256"]
    assert all(result["success"] for result in manifest["expectations"].values())
    assert list(layout.raw.glob("*.part")) == []
    assert (layout.raw / f"{manifest['sources'][0]['sha256']}.tar.gz").is_file()


def test_catalog_answers_queries_from_any_directory(tiny_release: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tiny_release.parent)
    con = duckdb.connect(str(tiny_release / "catalog.duckdb"), read_only=True)
    games = con.execute("SELECT count(*) FROM current.games").fetchone()[0]
    moves_per_game = con.execute(
        "SELECT count(*) FROM current.games g JOIN current.moves m USING (game_id) WHERE g.move_count > 0"
    ).fetchone()[0]
    total_moves = con.execute("SELECT sum(move_count) FROM current.games").fetchone()[0]
    families = con.execute("SELECT DISTINCT family FROM current.pattern_stats ORDER BY 1").fetchall()
    assert games > 190
    assert moves_per_game == total_moves
    assert [f for (f,) in families] == sorted(ALL_FAMILIES)


def test_export_go4go_d12_matches_the_table(tiny_release: Path, tmp_path: Path) -> None:
    out = tmp_path / "d12_16.csv"
    assert main(["export", "go4go-d12", "--symmetries", "16", "--warehouse", str(tiny_release), "-o", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert lines == sorted(lines)
    rows = [line.split(";") for line in lines]
    assert all(len(key) == 27 and int(chosen) <= int(occurrence) and 16 % int(orbit) == 0
               for key, occurrence, chosen, orbit in rows)
    con = duckdb.connect(str(tiny_release / "catalog.duckdb"), read_only=True)
    expected = con.execute(
        "SELECT count(*), sum(occurrence) FROM current.pattern_stats WHERE family = 'd12' AND symmetry = 16"
    ).fetchone()
    assert (len(rows), sum(int(r[1]) for r in rows)) == expected


def test_rebuild_with_same_inputs_publishes_nothing_new(tiny_release: Path, http_url: str) -> None:
    layout = Layout(tiny_release)
    before = current_version(layout)
    assert main(["build", "--source", f"{http_url}/tiny.tar.gz", "--warehouse", str(tiny_release),
                 "--families", *ALL_FAMILIES]) == 0
    assert current_version(layout) == before


def test_bad_checksum_fails_and_keeps_the_release(tiny_release: Path, tiny_archive: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    layout = Layout(tiny_release)
    before = current_version(layout)
    code = main(["build", "--source", str(tiny_archive), "--expected-sha256", "0" * 64,
                 "--warehouse", str(tiny_release)])
    assert code == 1
    err = capsys.readouterr().err
    assert "sha256 mismatch" in err and str(tiny_archive) in err
    assert current_version(layout) == before


def test_missing_source_names_the_source(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.tar.gz"
    assert main(["build", "--source", str(missing), "--warehouse", str(tmp_path / "w")]) == 1
    assert f"{missing}: no such file or folder" in capsys.readouterr().err
    assert not (tmp_path / "w" / "releases" / "CURRENT").exists()


def test_every_hostile_input_is_ingested_or_rejected(hostile_dir: Path, tmp_path: Path) -> None:
    archives = sorted((hostile_dir / "archives").iterdir())
    sources = [str(hostile_dir / "files"), *map(str, archives)]
    warehouse = tmp_path / "w"
    assert main(["build", *[arg for s in sources for arg in ("--source", s)], "--warehouse", str(warehouse)]) == 0
    layout = Layout(warehouse)
    manifest = json.loads((layout.release_dir(current_version(layout)) / "manifest.json").read_text())
    ingest = manifest["ingest"]
    sgf_files = len(list((hostile_dir / "files").glob("*.sgf")))
    assert ingest["files_in"] >= sgf_files + len(archives) - 1
    assert ingest["files_in"] == ingest["files_ingested"] + ingest["files_rejected"]
    con = duckdb.connect(str(warehouse / "catalog.duckdb"), read_only=True)
    rejected_sources = {s for (s,) in con.execute("SELECT DISTINCT source FROM current.rejects").fetchall()}
    ingested_sources = {s for (s,) in con.execute("SELECT DISTINCT source FROM current.games").fetchall()}
    assert all(str(a) in rejected_sources | ingested_sources for a in archives if a.stat().st_size > 22)
    reasons = con.execute("SELECT count(*) FROM current.rejects WHERE reason IS NULL OR message IS NULL").fetchone()
    assert reasons == (0,)
