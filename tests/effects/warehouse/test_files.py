"""The digest of a folder (a run of the complete counts, docs/releases.md#complete-counts): its files' names and
bytes only."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

from gopat.effects.warehouse.files import tree_digest, tree_files

FILES = {"sq5/08/0001.parquet": b"one", "a-b/16/0000.parquet": b"two", "a/08/0000.parquet": b"three!"}


def _write(folder: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)


def test_tree_digest_is_over_the_sorted_relative_paths_and_file_digests(tmp_path: Path) -> None:
    _write(tmp_path, FILES)
    order = sorted(FILES)  # as text: "a-b/..." before "a/...", which a sort of the paths' parts puts first
    assert order == ["a-b/16/0000.parquet", "a/08/0000.parquet", "sq5/08/0001.parquet"]
    assert [path.relative_to(tmp_path).as_posix() for path in tree_files(tmp_path)] == order
    expected = hashlib.sha256(
        b"".join(f"{name}\0{hashlib.sha256(FILES[name]).hexdigest()}\n".encode() for name in order)
    ).hexdigest()
    assert tree_digest(tmp_path) == (expected, sum(map(len, FILES.values())))


def test_tree_digest_changes_with_a_byte_or_a_name_and_not_with_times(tmp_path: Path) -> None:
    run = tmp_path / "run"
    _write(run, FILES)
    digest = tree_digest(run)
    copy = tmp_path / "copy"
    shutil.copytree(run, copy)
    os.utime(copy / "a/08/0000.parquet", (0, 0))
    assert tree_digest(copy) == digest

    (copy / "a/08/0000.parquet").write_bytes(b"thref!")  # the same size
    assert tree_digest(copy)[0] != digest[0] and tree_digest(copy)[1] == digest[1]
    (copy / "a/08/0000.parquet").write_bytes(FILES["a/08/0000.parquet"])
    assert tree_digest(copy) == digest
    os.replace(copy / "sq5/08/0001.parquet", copy / "sq5/08/0002.parquet")
    assert tree_digest(copy)[0] != digest[0] and tree_digest(copy)[1] == digest[1]
    (tmp_path / "empty").mkdir()  # a run without files
    assert tree_digest(tmp_path / "empty") == (hashlib.sha256().hexdigest(), 0)
