"""Fetching sources into the content-addressed raw store (`warehouse/raw/<sha256>.<ext>`)."""

from __future__ import annotations

import hashlib
import os
import shutil
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

CHUNK = 1 << 20
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar", ".zip", ".sgf")


@dataclass(frozen=True, slots=True)
class Fetched:
    """A source as stored locally: `path` is a file in raw/ or, for a folder source, the folder."""

    source: str
    path: Path
    sha256: str


def is_url(source: str) -> bool:
    """True for http(s) sources."""
    return source.startswith(("http://", "https://"))


def suffix_of(name: str) -> str:
    """The archive suffix of a file name (`.tar.gz`, `.zip`, ...), or `.bin` when unknown."""
    lower = name.lower().split("?", 1)[0]
    return next((s for s in ARCHIVE_SUFFIXES if lower.endswith(s)), ".bin")


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file, streamed."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def sha256_folder(folder: Path) -> str:
    """Hex sha256 of a folder of SGF files: over sorted (relative path, file sha256) pairs."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(f"{path.relative_to(folder).as_posix()}\0{sha256_file(path)}\n".encode())
    return digest.hexdigest()


def check_sources(sources: list[str]) -> None:
    """Refuse, before any slow work starts, a source list that cannot be fetched.

    Raises ValueError naming the first source that is not a URL and not a readable file or
    folder, or saying that there is no source at all. URLs are checked when they are fetched.
    """
    if not sources:
        raise ValueError("no source given: name an archive, an SGF file, a folder or a URL")
    for source in sources:
        if is_url(source):
            continue
        path = Path(source).expanduser()
        if not source.strip() or not path.exists():
            raise ValueError(f"{source or '(empty path)'}: no such file or folder")
        if not os.access(path, os.R_OK | (os.X_OK if path.is_dir() else 0)):
            raise ValueError(f"{source}: not readable (permission denied)")
        if not (path.is_dir() or path.is_file()):
            raise ValueError(f"{source}: not a regular file or folder")


def fetch(source: str, *, raw_dir: Path, expected_sha256: str | None = None, timeout: float = 60.0) -> Fetched:
    """Fetch `source` (URL, file or folder) into `raw_dir` and verify it.

    Downloads go to `<name>.part`, resume with an HTTP Range request when the server allows it, and
    are renamed to `<sha256><ext>` only after the checksum is known (and matches `expected_sha256`
    when given). Folders are hashed in place, not copied. Raises `ValueError` naming the source and
    the reason; `OSError`/`urllib.error.URLError` for I/O failures the caller may retry.
    """
    raw_dir.mkdir(parents=True, exist_ok=True)
    if is_url(source):
        part = raw_dir / (hashlib.sha256(source.encode()).hexdigest()[:16] + ".part")
        _download(source, part, timeout=timeout)
    else:
        path = Path(source).expanduser()
        if path.is_dir():
            sha = sha256_folder(path)
            _check(source, sha, expected_sha256)
            return Fetched(source=source, path=path.resolve(), sha256=sha)
        if not path.is_file():
            raise ValueError(f"{source}: no such file or folder")
        part = raw_dir / (hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:16] + ".part")
        shutil.copyfile(path, part)
    sha = sha256_file(part)
    try:
        _check(source, sha, expected_sha256)
    except ValueError:
        part.unlink(missing_ok=True)
        raise
    final = raw_dir / f"{sha}{suffix_of(source)}"
    os.replace(part, final)
    return Fetched(source=source, path=final, sha256=sha)


def _check(source: str, sha: str, expected: str | None) -> None:
    if expected is not None and sha != expected.lower():
        raise ValueError(f"{source}: sha256 mismatch: expected {expected.lower()}, got {sha}")


def _download(url: str, part: Path, *, timeout: float) -> None:
    """Download `url` into `part`, resuming from its current size when the server honours Range."""
    have = part.stat().st_size if part.exists() else 0
    request = urllib.request.Request(url, headers={"Range": f"bytes={have}-"} if have else {})
    try:
        response = urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as error:
        if error.code == 416 and have:  # the .part already holds the whole body
            return
        if 400 <= error.code < 500:
            raise ValueError(f"{url}: HTTP {error.code} {error.reason}") from error
        raise
    with response:
        resumed = have and response.status == 206
        expected_length = response.headers.get("Content-Length")
        with part.open("ab" if resumed else "wb") as fh:
            written = 0
            while chunk := response.read(CHUNK):
                fh.write(chunk)
                written += len(chunk)
    if expected_length is not None and written != int(expected_length):
        raise OSError(f"{url}: connection closed after {written} of {expected_length} bytes")
