"""bench/images.py: the 8 images of a position, and tiny built once, as its images and checked exactly x8."""

import importlib.util
import sys
import tarfile
from pathlib import Path
from types import ModuleType

import pytest
from prefect.testing.utilities import prefect_test_harness

from gopat.flows.build import build_release
from gopat.transforms.games.parsing import GameRecord, parse_collection
from gopat.transforms.games.records import game_row
from tests.flows.archives import tiny_members, write_archive

REPO = Path(__file__).resolve().parents[2]
FAMILIES = ("d12", "sq3", "blk4")
# 3 stones and 2 moves on a 4x4 board: Black at b1 (row 0, col 1) and c4, White at a3; then B[dc], W[] (a pass).
GAME = b"(;GM[1]SZ[4]PB[Kim]RE[B+R]AB[ba][cd]AW[ac]TR[ba]LB[ac:x];B[dc];W[])"
GOLDEN = """\
.X.. .O.. .X.. ..x. ..X. ..X. ..O. .x..
.... ...X x..O ...X .... O..x X... X...
O..x X... .... X... x..O .... ...X ...X
..X. .x.. ..X. ..O. .X.. .X.. ..x. .O..
"""  # the 8 images side by side, t = 0..7: setup stones X (black) and O (white), x the first move B[dc]


def images_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("images", REPO / "bench" / "images.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["images"] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def board(record: GameRecord) -> list[str]:
    """The rows of `record`'s board: setup stones X (black) and O (white), its first move x."""
    cells = [["."] * record.board_size for _ in range(record.board_size)]
    for colour, row, col in record.setup:
        cells[row][col] = "X" if colour == 1 else "O"
    _, row, col = record.moves[0]
    cells[row][col] = "x"
    return ["".join(row) for row in cells]


def test_eight_images_of_a_position_read_back_as_transformed(tmp_path: Path) -> None:
    images = images_module()
    nodes = images.main_line(GAME, 0)
    records = [parse_collection(images.image_sgf(nodes, 4, t))[0][0] for t in range(8)]
    boards = [board(r) for r in records]
    assert "".join(" ".join(b[row] for b in boards) + "\n" for row in range(4)) == GOLDEN
    assert len({tuple(b) for b in boards}) == 8  # 8 distinct positions
    original = parse_collection(GAME)[0][0]
    for t, record in enumerate(records):
        assert record == images.image_record(original, t)  # the rule of the collision check is the parser's
        assert record.moves[1] == (2, -1, -1) and record.headers["PB"] == "Kim"
    assert images.image_sgf(nodes, 4, 6) == (  # the main diagonal: markup transformed, label text kept
        b"(;AB[ab][dc]AW[ca]GM[1]LB[ca:x]PB[Kim]RE[B+R]SZ[4]TR[ab];B[cd];W[])\n")


@pytest.fixture(scope="module")
def releases(tiny_archive: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """tiny's first 80 games built, their base and images archives generated from that release, and both built (on
    one Prefect API: each build would otherwise start a temporary server of its own)."""
    images = images_module()
    root = tmp_path_factory.mktemp("images")

    def build(source: Path, name: str, **options: object) -> Path:
        build_release(sources=[str(source)], warehouse=str(root / name), families=FAMILIES,
                      show_progress="quiet", **options)
        return root / name

    first = write_archive(root / "first-80.tar.gz", tiny_members(tiny_archive)[:80])
    with prefect_test_harness(server_startup_timeout=120):
        tiny = build(first, "tiny")
        with pytest.MonkeyPatch.context() as patch:  # its worker processes import `images` by name
            patch.syspath_prepend(str(REPO / "bench"))
            tally = images.generate(tiny, root / "archives")
        thresholds = images.images_min_occurrence(tiny)
        return {
            "module": images, "tally": tally, "thresholds": thresholds, "archives": root / "archives",
            "base": build(root / "archives" / "base.tar.gz", "base"),
            "images": build(root / "archives" / "images.tar.gz", "images", min_occurrence=thresholds),
        }


@pytest.mark.slow
def test_images_build_is_exactly_eight_times_the_base(releases: dict) -> None:
    images, tally = releases["module"], releases["tally"]
    assert releases["thresholds"] == {"blk4": 16, "d12": 1, "sq3": 1}
    with tarfile.open(releases["archives"] / "images.tar.gz") as tar:
        names = tar.getnames()
    assert len(names) == len(set(names)) == 8 * tally.written > 8 * 70
    print(f"\ntiny: {tally.written} games written, left out {tally.left_out}")
    results = images.check(releases["base"], releases["images"])
    assert [table for table, _, _ in results] == [table for table, *_ in images.CHECKS]
    assert all(exact for _, exact, _ in results), results
    assert images.main(["--check", str(releases["base"]), str(releases["images"])]) == 0


@pytest.mark.slow
def test_check_fails_when_the_images_are_not_eight_times(releases: dict) -> None:
    images = releases["module"]
    results = dict((table, exact) for table, exact, _ in images.check(releases["base"], releases["base"]))
    assert not any(results.values()), results
    assert images.main(["--check", str(releases["base"]), str(releases["base"])]) == 1


def test_games_that_would_collide_in_the_images_are_left_out() -> None:
    images = images_module()
    moves = ";B[jj]" + ";W[];B[]" * 10  # 21 moves: tengen and passes, the same in every image

    def record(sgf: str) -> GameRecord:
        return parse_collection(sgf.encode())[0][0]

    def sequence(game: GameRecord) -> str:
        return str(game_row(game, game_id="")[0]["sequence_sha1"])

    long_game = record("(;SZ[19]" + moves.replace("B[jj]", "B[qd]") + ")")
    rotated = images.image_record(long_game, 1)
    claimed: set[str] = set()
    assert images.left_out(long_game, sequence(long_game), claimed) == "" and len(claimed) == 8
    assert images.left_out(rotated, sequence(rotated), claimed) == "image_of_a_kept_game"
    symmetric = record(f"(;SZ[19]{moves})")
    assert images.left_out(symmetric, sequence(symmetric), claimed) == "symmetric"
    short = record("(;SZ[19];B[jj];W[])")  # under 20 moves the build never compares games
    assert images.left_out(short, sequence(short), claimed) == "" and len(claimed) == 8
    assert images.left_out(long_game, "0" * 40, set()) == "reads_back_differently"


def test_a_warehouse_without_a_release_is_one_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    images = images_module()
    assert images.main(["--warehouse", str(tmp_path / "none"), "--out", str(tmp_path / "out")]) == 2
    assert images.main(["--check", str(tmp_path / "none"), str(tmp_path)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines == [f"bench/images.py: error: no release in {tmp_path / 'none' / 'releases'}; run `gopat build` first",
                     f"bench/images.py: error: no release in {tmp_path / 'none'}"]
