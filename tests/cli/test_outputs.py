"""The commands that read pattern tables print what they printed when the release stored its derived columns
(release format 1, CHANGELOG.md): the sha256 of each output on the session's tiny release, recorded from the last
format 1 build, against the same commands now (the release version, dates, code version and timings masked)."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.release import tiny_release

GOPAT = Path(sys.executable).parent / "gopat"
RECORDED = Path(__file__).with_name("outputs_on_tiny.json")
CORNER = "+------\n|......\n|...X..\n|..O...\n"
GAME = "foxwq-pro/Pro/7p/1496404214019999638.sgf"  # a member of tiny.tar.gz
GTP = "protocol_version\nboardsize 19\nclear_board\nplay B Q16\nplay W D4\ngenmove B\ngenmove W\nplay B C16\n" \
      "genmove W\nquit\n"


def _outputs(warehouse: Path, game: Path, out: Path) -> None:
    """Run every command into `out`: printed text as `<name>.txt`, written files under their names."""
    corner = out.parent / "corner.txt"
    corner.write_text(CORNER)
    at = ["--warehouse", str(warehouse)]
    printed = {
        "show_d12.txt": ["show", "110000020000013000003000003", "--family", "d12", *at],
        "show_sq3.txt": ["show", "1100000002", "--family", "sq3", "--symmetries", "16", *at],
        "show_dia13.txt": ["show", "10000000000000", "--family", "dia13", *at],
        "search.txt": ["search", str(corner), *at],
        "search.json": ["search", str(corner), "--colour-swap", "--json", *at],
        "suggest.txt": ["suggest", str(game), "--move", "40", "--diagrams", *at],
        "evaluate.json": ["evaluate", "--games", str(game), "--no-record", "--json", *at],
        "gtp.txt": ["gtp", *at],
        "openings.txt": ["openings", *at],
    }
    for name, arguments in printed.items():
        done = subprocess.run([str(GOPAT), *arguments], input=GTP if name == "gtp.txt" else None, capture_output=True,
                              text=True, timeout=300, check=False)
        assert done.returncode == 0, f"{name}: {done.stderr[-2000:]}"
        (out / name).write_text(done.stdout)
    for symmetry in (8, 16):
        for command, name in (("go4go-d12", f"go4go_{symmetry}.txt"), ("gnugo", f"gnugo_{symmetry}.db")):
            subprocess.run([str(GOPAT), "export", command, "--symmetries", str(symmetry), "-o", str(out / name), *at],
                           capture_output=True, timeout=300, check=True)
    subprocess.run([str(GOPAT), "report", "-o", str(out / "report"), "--top", "12", *at], capture_output=True,
                   timeout=600, check=True)


def _masked(text: str, manifest: dict[str, object], game: Path) -> str:
    """`text` without what differs between two builds of the same release and two runs: the release's version, date,
    code and source paths, timings, the game file's path and the drawing of the report's charts."""
    text = text.replace(str(manifest["version"]), "VERSION").replace(str(manifest["code_version"]), "CODE")
    for number, source in enumerate(manifest["sources"]):  # type: ignore[arg-type]
        text = text.replace(source["source"], f"SOURCE{number}")
    text = text.replace(str(game), "GAME")
    text = re.sub(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00", "CREATED", text)
    text = re.sub(r'"seconds": ?[0-9.]+', '"seconds": S', text)
    # a chart is compared by name only: matplotlib's drawing of the same numbers has differed between machines
    text = re.sub(r'(<svg class="chart" data-chart="[^"]*").*?</svg>', r"\1/>", text, flags=re.DOTALL)
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith("built the search index"))


@pytest.mark.slow
def test_outputs_equal_those_of_a_release_that_stored_its_derived_columns(
    tmp_path_factory: pytest.TempPathFactory, shared_dir: Path, tmp_path: Path
) -> None:
    warehouse = tiny_release(tmp_path_factory, shared_dir)
    version = (warehouse / "releases" / "CURRENT").read_text().strip()
    manifest = json.loads((warehouse / "releases" / version / "manifest.json").read_text())
    game = tmp_path / "game.sgf"
    with game.open("wb") as out:
        subprocess.run(["tar", "-xzf", str(shared_dir / "corpus" / "tiny.tar.gz"), "-O", f"tiny/{GAME}"], stdout=out,
                       check=True)
    out = tmp_path / "out"
    out.mkdir()
    _outputs(warehouse, game, out)
    assert _digests(out, manifest, game) == json.loads(RECORDED.read_text())


def _digests(out: Path, manifest: dict[str, object], game: Path) -> dict[str, str]:
    return {path.relative_to(out).as_posix(): hashlib.sha256(_masked(path.read_text(), manifest, game).encode())
            .hexdigest() for path in sorted(out.rglob("*")) if path.is_file()}
