"""`gopat download`: packed releases over real HTTP, cut or truncated, checked by sha256 before registering."""

from __future__ import annotations

import http.server
import io
import tarfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import duckdb
import pytest

from gopat.cli.main import main
from gopat.effects.warehouse.layout import Layout, created_now, current_version, next_version, versions
from gopat.effects.warehouse.packs import pack
from gopat.effects.warehouse.publish import publish
from gopat.effects.warehouse.verify import verify
from tests.effects.warehouse.ranged import RangeHandler
from tests.scenarios.builds import parquet_checksums


class ScriptedHandler(RangeHandler):
    """Serves `body` at /release.tar.gz; each GET takes the next action of `plan` (then "full").

    "full": the body from the requested `Range: bytes=N-` offset; "cut": headers for the whole rest,
    then half of it and the connection closes; "truncated": a complete response whose file is 60% of
    the pack.
    """

    served = "/release.tar.gz"
    plan: ClassVar[list[str]] = []
    ranges: ClassVar[list[str | None]] = []

    def send(self, header: str | None, start: int) -> None:
        cls = type(self)
        cls.ranges.append(header)
        action = cls.plan.pop(0) if cls.plan else "full"
        if action == "truncated":
            data = cls.body[: len(cls.body) * 6 // 10]
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        elif action == "cut":
            self.send_headers(header, start)
            self.wfile.write(cls.body[start : start + (len(cls.body) - start) // 2])
            self.close_connection = True
        else:
            super().send(header, start)


@dataclass(frozen=True)
class Packed:
    """A packed release: its file, bytes, version and the sha256 of its Parquet files."""

    path: Path
    body: bytes
    version: str
    checksums: dict[str, str]


def publish_small(layout: Layout, *, content: str, rows: int) -> str:
    """Publish one real table (`rows` rows of md5 text) as the next version of `content`."""
    con = duckdb.connect()
    con.execute(f"CREATE TABLE games AS SELECT range AS game_id, md5(range::VARCHAR) AS sgf FROM range({rows})")
    version = next_version(layout, content)
    manifest = {"created": created_now(), "ingest": {"games": rows}}
    publish(layout, con, version=version, tables=["games"], manifest=manifest)
    con.close()
    return version


@pytest.fixture(scope="module")
def packed(tmp_path_factory: pytest.TempPathFactory) -> Packed:
    """Release 0003 of a warehouse (20,000 rows), packed by `gopat.effects.warehouse.packs.pack`."""
    root = tmp_path_factory.mktemp("origin")
    layout = Layout(root / "warehouse")
    for number in range(3):
        version = publish_small(layout, content=f"{number:012x}", rows=20000)
    path = pack(layout, version, root / "release.tar.gz")
    checksums = parquet_checksums(layout, version)
    return Packed(path, path.read_bytes(), version, checksums)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), ScriptedHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/release.tar.gz"
    server.shutdown()
    server.server_close()


@pytest.fixture
def url(server: str, packed: Packed) -> str:
    ScriptedHandler.body = packed.body
    ScriptedHandler.plan = []
    ScriptedHandler.ranges = []
    return server


def assert_installed(warehouse: Path, packed: Packed, *, current: bool = True) -> None:
    """The release is in releases/, verifies, is in the catalog, and the download folder is empty."""
    layout = Layout(warehouse)
    assert packed.version in versions(layout) and verify(layout, packed.version) == []
    assert parquet_checksums(layout, packed.version) == packed.checksums
    assert (current_version(layout) == packed.version) is current
    schema = f"v{int(packed.version[:4])}"
    with duckdb.connect(str(warehouse / "catalog.duckdb"), read_only=True) as con:
        assert con.execute(f"SELECT count(*) FROM {schema}.games").fetchone() == (20000,)
    assert list(layout.downloads.iterdir()) == []


def assert_nothing_registered(warehouse: Path) -> None:
    layout = Layout(warehouse)
    assert versions(layout) == [] and current_version(layout) is None
    assert not layout.catalog.exists()
    assert not layout.releases.exists() or [p.name for p in layout.releases.iterdir()] == []


def test_cut_download_is_resumed_verified_and_registered(url: str, packed: Packed, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    ScriptedHandler.plan = ["cut"]
    assert main(["download", url, "--to", str(tmp_path / "w")]) == 0
    assert ScriptedHandler.ranges == [None, f"bytes={len(packed.body) // 2}-"]
    assert f"installed {packed.version}" in capsys.readouterr().out
    assert_installed(tmp_path / "w", packed)


def test_truncated_file_is_discarded_and_downloaded_again(url: str, packed: Packed, tmp_path: Path) -> None:
    ScriptedHandler.plan = ["truncated"]
    assert main(["download", url, "--to", str(tmp_path / "w")]) == 0
    assert ScriptedHandler.ranges == [None, None]
    assert_installed(tmp_path / "w", packed)


def test_a_pack_that_stays_truncated_is_never_registered(url: str, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    ScriptedHandler.plan = ["truncated"] * 3
    assert main(["download", url, "--to", str(tmp_path / "w")]) == 1
    assert "not a complete release pack" in capsys.readouterr().err
    assert len(ScriptedHandler.ranges) == 3
    assert_nothing_registered(tmp_path / "w")
    assert list(Layout(tmp_path / "w").downloads.iterdir()) == []


def test_a_part_file_is_never_promoted_and_a_later_download_resumes_it(url: str, packed: Packed, tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    ScriptedHandler.plan = ["cut"] * 3
    assert main(["download", url, "--to", str(tmp_path / "w")]) == 1
    assert "connection closed after" in capsys.readouterr().err
    assert_nothing_registered(tmp_path / "w")
    parts = list(Layout(tmp_path / "w").downloads.iterdir())
    assert [p.suffix for p in parts] == [".part"]
    have = parts[0].stat().st_size
    assert have < len(packed.body) and parts[0].read_bytes() == packed.body[:have]
    assert main(["download", url, "--to", str(tmp_path / "w")]) == 0
    assert ScriptedHandler.ranges[-1] == f"bytes={have}-"
    assert_installed(tmp_path / "w", packed)


def repack(packed: Packed, target: Path, change: dict[str, bytes | None]) -> Path:
    """The pack with members replaced (bytes), removed (None) or added (a name not in it)."""
    with tarfile.open(packed.path) as source, tarfile.open(target, "w:gz") as out:
        members = [(m, source.extractfile(m).read()) for m in source.getmembers()]
        names = {m.name for m, _ in members}
        for member, data in members:
            if member.name in change:
                data = change[member.name]
                if data is None:
                    continue
                member.size = len(data)
            out.addfile(member, io.BytesIO(data))
        for name, data in change.items():
            if name not in names and data is not None:
                info = tarfile.TarInfo(name)
                info.size = len(data)
                out.addfile(info, io.BytesIO(data))
    return target


def test_a_changed_file_fails_its_sha256_and_nothing_is_registered(packed: Packed, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    name = f"{packed.version}/games.parquet"
    with tarfile.open(packed.path) as tar:
        data = bytearray(tar.extractfile(name).read())
    data[len(data) // 2] ^= 0xFF
    bad = repack(packed, tmp_path / "bad.tar.gz", {name: bytes(data)})
    before = bad.read_bytes()
    assert main(["download", str(bad), "--to", str(tmp_path / "w")]) == 1
    err = capsys.readouterr().err
    assert "games.parquet: sha256" in err and "manifest says" in err
    assert_nothing_registered(tmp_path / "w")
    assert bad.read_bytes() == before
    missing = repack(packed, tmp_path / "missing.tar.gz", {name: None})
    assert main(["download", str(missing), "--to", str(tmp_path / "w")]) == 1
    assert "games.parquet: missing" in capsys.readouterr().err
    assert_nothing_registered(tmp_path / "w")


def test_a_pack_made_with_tar_and_its_folder_entries_is_accepted(packed: Packed, tmp_path: Path) -> None:
    with tarfile.open(packed.path) as tar:
        tar.extractall(tmp_path / "unpacked", filter="data")
    handmade = tmp_path / "handmade.tar.gz"
    with tarfile.open(handmade, "w:gz") as tar:
        tar.add(tmp_path / "unpacked" / packed.version, arcname=packed.version)
    with tarfile.open(handmade) as tar:
        assert any(member.isdir() for member in tar.getmembers())
    assert main(["download", str(handmade), "--to", str(tmp_path / "w")]) == 0
    assert_installed(tmp_path / "w", packed)


@pytest.mark.parametrize("member", ["../evil.parquet", "0003-aaaaaaaaaaaa/../../evil.parquet", "0003-x/games.parquet",
                                    "0003-000000000002/sub/evil.parquet"])
def test_a_pack_with_foreign_members_is_refused(packed: Packed, member: str, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    hostile = repack(packed, tmp_path / "hostile.tar.gz", {member: b"x"})
    assert main(["download", str(hostile), "--to", str(tmp_path / "w")]) == 1
    assert "unexpected member" in capsys.readouterr().err
    assert_nothing_registered(tmp_path / "w")
    assert not (tmp_path / "evil.parquet").exists() and not (tmp_path / "w" / "evil.parquet").exists()


def test_the_expected_sha256_of_the_pack_is_checked(url: str, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["download", url, "--to", str(tmp_path / "w"), "--sha256", "0" * 64]) == 1
    assert "sha256 mismatch" in capsys.readouterr().err
    assert_nothing_registered(tmp_path / "w")


def test_a_download_joins_the_releases_already_there(url: str, packed: Packed, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    older = Layout(tmp_path / "older")
    publish_small(older, content="a" * 12, rows=5)
    assert main(["download", url, "--to", str(older.root)]) == 0
    assert_installed(older.root, packed)
    assert main(["download", str(packed.path), "--to", str(older.root)]) == 0, "the same release again: no change"
    assert versions(older) == ["0001-aaaaaaaaaaaa", packed.version]

    newer = Layout(tmp_path / "newer")
    for number in range(5):
        publish_small(newer, content=f"{number + 10:012x}", rows=5)
    assert main(["download", url, "--to", str(newer.root)]) == 1
    assert "release number 3 is already used by 0003-00000000000c" in capsys.readouterr().err
    newest = Layout(tmp_path / "newest")
    for number in range(4):
        publish_small(newest, content=f"{number + 10:012x}", rows=5)
    (newest.release_dir("0003-00000000000c")).rename(newest.releases / ".trash-0003")
    assert main(["download", url, "--to", str(newest.root)]) == 0
    assert_installed(newest.root, packed, current=False)
    assert current_version(newest) == "0004-00000000000d"
