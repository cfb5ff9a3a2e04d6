"""bench/soak.py's parts on real files and processes: the split, the leftover checks, its arguments."""

import importlib.util
import subprocess
import sys
import tarfile
from pathlib import Path
from types import ModuleType

import psutil

REPO = Path(__file__).resolve().parents[2]
SOAK = REPO / "bench" / "soak.py"


def soak_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("soak", SOAK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["soak"] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def sgf_members(path: Path) -> list[tuple[str, bytes]]:
    with tarfile.open(path) as tar:
        return [(m.name, tar.extractfile(m).read()) for m in tar if m.isfile() and m.name.endswith(".sgf")]  # type: ignore[union-attr]


def test_split_keeps_every_member_once_in_order(tiny_archive: Path, tmp_path: Path) -> None:
    parts = soak_module().split_corpus(tiny_archive, tmp_path, 7)
    assert [p.name for p in parts] == [f"part-{i:02d}.tar.gz" for i in range(1, 8)]
    members = [sgf_members(p) for p in parts]
    assert [m for part in members for m in part] == sgf_members(tiny_archive)
    assert max(map(len, members)) - min(map(len, members)) <= 1


def test_leftovers_are_staging_temporary_and_partial_files_only(tmp_path: Path) -> None:
    for path in ("staging/abc/work.duckdb", "releases/.tmp-0002/x", "releases/CURRENT.tmp-9", "raw/f00.part",
                 "releases/0001-abcdef012345/games.parquet", "raw/f00.tar.gz", ".catalog-1.duckdb", ".build.lock"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(b"x")
    (tmp_path / "releases" / "CURRENT").write_text("0001-abcdef012345\n")
    assert soak_module().leftover_files(tmp_path) == [
        ".catalog-1.duckdb", "raw/f00.part", "releases/.tmp-0002", "releases/CURRENT.tmp-9", "staging/abc"]


def test_survivors_are_the_recorded_processes_still_running() -> None:
    soak = soak_module()
    sleeper = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        created = psutil.Process(sleeper.pid).create_time()
        assert len(soak.survivors({sleeper.pid: created})) == 1
        assert soak.survivors({sleeper.pid: created - 100}) == []  # another process that had this pid
    finally:
        sleeper.kill()
        sleeper.wait()
    assert soak.survivors({sleeper.pid: created}) == []


def test_soak_refuses_fewer_than_two_archives() -> None:
    refused = subprocess.run([sys.executable, str(SOAK), "--archives", "1"], capture_output=True, text=True,
                             timeout=120, check=False)
    assert refused.returncode == 2 and "--archives must be at least 2" in refused.stderr, refused.stderr
