"""Fetching into the raw store over real HTTP: resume, checksum, no `.part` promoted."""

from __future__ import annotations

import hashlib
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

from gopat.effects.warehouse.fetch import fetch, sha256_folder
from tests.effects.warehouse.ranged import RangeHandler

BODY = bytes(range(256)) * 4096  # 1 MiB


class FlakyRangeHandler(RangeHandler):
    """Serves BODY at /data.tar.gz; the first GET is cut off halfway; honours `Range: bytes=N-`."""

    served = "/data.tar.gz"
    body = BODY
    requests: ClassVar[list[str | None]] = []

    def send(self, header: str | None, start: int) -> None:
        type(self).requests.append(header)
        if len(type(self).requests) == 1:
            self.send_headers(header, start)
            self.wfile.write(BODY[: len(BODY) // 2])
            self.close_connection = True
            return
        super().send(header, start)


@pytest.fixture
def flaky_url() -> Iterator[str]:
    FlakyRangeHandler.requests = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FlakyRangeHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_cut_download_is_resumed_and_verified(flaky_url: str, tmp_path: Path) -> None:
    url = f"{flaky_url}/data.tar.gz"
    sha = hashlib.sha256(BODY).hexdigest()
    with pytest.raises(OSError, match="connection closed after"):
        fetch(url, raw_dir=tmp_path, expected_sha256=sha)
    assert not (tmp_path / f"{sha}.tar.gz").exists()
    fetched = fetch(url, raw_dir=tmp_path, expected_sha256=sha)
    assert fetched.path == tmp_path / f"{sha}.tar.gz"
    assert fetched.path.read_bytes() == BODY
    assert FlakyRangeHandler.requests == [None, f"bytes={len(BODY) // 2}-"]
    assert list(tmp_path.glob("*.part")) == []


def test_checksum_mismatch_is_an_error_and_nothing_is_promoted(flaky_url: str, tmp_path: Path) -> None:
    FlakyRangeHandler.requests = [None]  # no cut-off this time
    with pytest.raises(ValueError, match="sha256 mismatch"):
        fetch(f"{flaky_url}/data.tar.gz", raw_dir=tmp_path, expected_sha256="ab" * 32)
    assert list(tmp_path.iterdir()) == []


def test_http_404_names_the_url(flaky_url: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"/missing.zip: HTTP 404"):
        fetch(f"{flaky_url}/missing.zip", raw_dir=tmp_path)


def test_local_file_is_stored_by_content(tiny_archive: Path, tmp_path: Path) -> None:
    fetched = fetch(str(tiny_archive), raw_dir=tmp_path)
    assert fetched.path.name == f"{hashlib.sha256(tiny_archive.read_bytes()).hexdigest()}.tar.gz"


def test_folder_hash_changes_with_content(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "a.sgf").write_text("(;GM[1];B[pd])")
    first = sha256_folder(folder)
    (folder / "a.sgf").write_text("(;GM[1];B[dd])")
    assert sha256_folder(folder) != first
    fetched = fetch(str(folder), raw_dir=tmp_path / "raw")
    assert fetched.path == folder.resolve() and fetched.sha256 == sha256_folder(folder)
