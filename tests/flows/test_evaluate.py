"""Move prediction end to end: a release with the prediction families, `gopat evaluate`, `suggest`, `holdout`."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import tarfile
from pathlib import Path

import pytest
from sgfmill import sgf

from gopat.cli.main import main
from gopat.effects.evaluation import record_evaluation
from gopat.effects.warehouse.layout import Layout, current_version, read_manifest
from gopat.effects.warehouse.verify import verify
from gopat.transforms.predict.predictor import RESPONSE
from gopat.transforms.predict.ranking import PREDICTION_WEIGHTS, load_weights
from tests.flows.archives import tiny_members, write_archive

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("prefect_harness")]
LEVELS = load_weights().levels  # the candidate families the shipped weights rank with


def board_moves(data: bytes) -> int:
    """Board moves of a record's main line, read with sgfmill alone (tiny's games are legal, no passes counted)."""
    game = sgf.Sgf_game.from_bytes(data)
    return sum(1 for node in game.get_main_sequence()
               if node.get_move()[0] is not None and node.get_move()[1] is not None)


@pytest.fixture(scope="module")
def split(tiny_archive: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """tiny.tar.gz in two: 170 games to train on, 30 held out."""
    folder = tmp_path_factory.mktemp("split")
    members = tiny_members(tiny_archive)
    return {
        "train": write_archive(folder / "train.tar.gz", members[:170]),
        "test": write_archive(folder / "test.tar.gz", members[170:]),
        "test_members": members[170:],
        "train_members": members[:170],
    }


@pytest.fixture(scope="module")
def warehouse(prefect_harness: None, split: dict, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A release built from the training games with the families prediction reads, every key published (threshold 1),
    so that every pattern of a training game is in it."""
    path = tmp_path_factory.mktemp("warehouse")
    families = sorted({*LEVELS, RESPONSE})
    code = main(["build", "--source", str(split["train"]), "--warehouse", str(path), "--workers", "2", "--quiet",
                 "--families", *families, "--min-occurrence", *(f"{family}=1" for family in families)])
    assert code == 0
    return path


def test_evaluate_json_counts_every_position_and_is_recorded_in_the_manifest(warehouse, split, capsys):
    layout = Layout(warehouse)
    version = current_version(layout)
    before = read_manifest(layout, version)
    assert main(["evaluate", "--games", str(split["test"]), "--warehouse", str(warehouse), "--json"]) == 0
    out = capsys.readouterr().out
    result = json.loads(out)
    assert out.count("\n") == 1 and out.startswith('{"positions":')
    assert result["positions"] == sum(board_moves(data) for _, data in split["test_members"])
    assert 0 < result["top1"] <= result["top5"] <= result["top10"] <= 1
    assert result["games"] == 30 and result["release"] == version
    assert sum(v["positions"] for v in result["phases"].values()) == result["positions"]
    assert list(result["phases"]) == ["1-30", "31-100", "101-200", "201+"]
    assert sum(result["matched"].values()) == pytest.approx(1, abs=1e-3)
    after = read_manifest(layout, version)
    sha = hashlib.sha256(split["test"].read_bytes()).hexdigest()
    entry = after["evaluations"][sha]
    expected = {k: v for k, v in result.items() if k not in ("release", "seconds")}
    assert {k: v for k, v in entry["result"].items()} == expected
    assert entry["games"]["games"] == 30 and entry["games"]["source"] == str(split["test"])
    assert entry["weights"]["sha256"] == hashlib.sha256(PREDICTION_WEIGHTS.read_bytes()).hexdigest()
    assert {k: v for k, v in after.items() if k != "evaluations"} == before
    assert verify(layout, version) == []
    assert not list(layout.releases.glob(".manifest-*"))


def test_training_games_match_their_largest_pattern_every_time(warehouse, split, tmp_path, capsys):
    # the build's keys (extraction, canonical SQL tables) and the predictor's keys agree move by move
    folder = tmp_path / "train"
    folder.mkdir()
    for i, (_, data) in enumerate(split["train_members"][:5]):
        (folder / f"{i}.sgf").write_bytes(data)
    layout = Layout(warehouse)
    version = current_version(layout)
    before = read_manifest(layout, version)
    assert main(["evaluate", "--games", str(folder), "--warehouse", str(warehouse), "--json", "--no-record"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["matched"][LEVELS[0]] == 1.0 and set(result["matched"]) == {*LEVELS, "none"}
    assert result["positions"] > 500
    assert read_manifest(layout, version) == before


def test_suggest_marks_the_best_empty_points(warehouse, split, tmp_path, capsys):
    _, data = split["test_members"][3]
    path = tmp_path / "game.sgf"
    path.write_bytes(data)
    assert main(["suggest", str(path), "--move", "40", "--top", "5", "--warehouse", str(warehouse), "--diagrams"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "position after 40 moves" in out[0]
    board = out[1:22]
    assert board[0].split() == list("ABCDEFGHJKLMNOPQRST")
    # the board after 40 moves, read with sgfmill: every mark sits on an empty point, every stone is shown
    game = sgf.Sgf_game.from_bytes(data)
    position = game.get_root().get_setup_stones()
    from sgfmill import boards

    real = boards.Board(19)
    for colour, points in (("b", position[0]), ("w", position[1])):
        for r, c in points:
            real.play(r, c, colour)
    for node in game.get_main_sequence()[1:41]:
        colour, move = node.get_move()
        if colour is not None and move is not None:
            real.play(move[0], move[1], colour)
    marks = set()
    for line in board[1:20]:
        number, cells = int(line.split()[0]), line.split()[1:20]
        for col, cell in enumerate(cells):
            stone = real.get(number - 1, col)
            if cell in "12345":
                assert stone is None
                marks.add(cell)
            else:
                assert cell in {None: ".+", "b": "X", "w": "O"}[stone]
    assert marks == set("12345")
    row_pattern = re.compile(r"([1-5]) +([A-HJ-T]\d+) +(\d\.\d{3}) .* (1 liberty|[234]\+? liberties)")
    rows = [row_pattern.match(line) for line in out[22:]]
    rows = [row for row in rows if row]
    assert [row[1] for row in rows] == list("12345")  # each with its tactics, from the new chain's liberties on
    scores = [float(row[3]) for row in rows]
    assert scores == sorted(scores, reverse=True)


def test_calibrated_weights_are_written_and_used(warehouse, split, tmp_path, capsys):
    layout = Layout(warehouse)
    before = read_manifest(layout, current_version(layout))
    out = tmp_path / "weights.json"
    args = ["calibrate", "--games", str(split["test"]), "--out", str(out), "--warehouse", str(warehouse)]
    assert main([*args, "--levels", *LEVELS[1:], "--no-distance", "--max-games", "20"]) == 0
    weights = load_weights(out)
    assert weights.levels == LEVELS[1:] and not weights.distance and weights.fitted["positions"] > 1000
    assert weights.fitted["release"] == current_version(layout) and not list(tmp_path.glob(".*.tmp"))
    assert weights.factors.shape == (len(weights.vector), 8) and weights.fitted["factors"] == 8  # the default
    assert weights.fitted["factor_loss"] < weights.fitted["loss"]
    assert "  weights and 8 factors: iteration 25, loss " in capsys.readouterr().out
    evaluate = ["evaluate", "--games", str(split["test"]), "--warehouse", str(warehouse), "--json", "--no-record"]
    assert main([*evaluate, "--weights", str(out)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result["matched"]) == {*LEVELS[1:], "none"} and result["top1"] > 0.1
    assert main([*args, "--max-games", "0"]) == 1 and "--max-games" in capsys.readouterr().err
    assert main([*args, "--factors", "-1"]) == 1 and "--factors must be at least 0" in capsys.readouterr().err
    assert read_manifest(layout, current_version(layout)) == before


def test_a_release_without_the_prediction_families_is_refused(warehouse, tmp_path, capsys):
    layout = Layout(warehouse)
    version = current_version(layout)
    copy = tmp_path / "warehouse"
    shutil.copytree(warehouse, copy, ignore=shutil.ignore_patterns("*.duckdb", ".*lock"))
    manifest_path = Layout(copy).release_dir(version) / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["config"]["families"] = ["d12", "dia13", "sq3"]
    manifest_path.write_text(json.dumps(manifest))
    assert main(["evaluate", "--games", str(tmp_path), "--warehouse", str(copy)]) == 1
    assert "--families" in capsys.readouterr().err


def test_records_of_different_archives_accumulate(warehouse):
    layout = Layout(warehouse)
    version = current_version(layout)
    for sha in ("a" * 64, "b" * 64):
        record_evaluation(layout, version, {"games": {"sha256": sha}, "result": {"positions": 1}})
    evaluations = read_manifest(layout, version)["evaluations"]
    assert {"a" * 64, "b" * 64} <= set(evaluations) and verify(layout, version) == []


def test_holdout_splits_by_date_and_drops_repeated_sequences(tiny_archive, tmp_path, capsys):
    members = tiny_members(tiny_archive)
    dated = [(name, data) for name, data in members if b"DT[" in data and data.count(b";B[") >= 30][:40]
    # an unknown property XD keeps the old date: the same moves, dated later (a repeat), and three new late games
    repeat = dated[0][1].replace(b"DT[", b"DT[2030-01-01]XD[", 1)
    late = [(f"late/{i}.sgf", data.replace(b"DT[", b"DT[2031-02-02]XD[", 1)) for i, (_, data) in enumerate(dated[1:4])]
    source = write_archive(tmp_path / "all.tar.gz", [dated[0], *dated[4:], ("late/repeat.sgf", repeat), *late])
    train, test = tmp_path / "train.tar.gz", tmp_path / "test.tar.gz"
    args = ["holdout", "--source", str(source), "--test-from", "2030", "--train", str(train), "--test", str(test)]
    assert main(args) == 0
    with tarfile.open(test) as tar:
        assert sorted(tar.getnames()) == [f"late/{i}.sgf" for i in range(3)]
    with tarfile.open(train) as tar:
        assert sorted(tar.getnames()) == sorted(name for name, _ in [dated[0], *dated[4:]])
    first = test.read_bytes()
    calibration = tmp_path / "calibration.tar.gz"
    assert main([*args, "--test-games", "2", "--seed", "1", "--calibration", str(calibration)]) == 0
    with tarfile.open(test) as tar, tarfile.open(calibration) as other:
        assert len(tar.getnames()) == 2 and len(other.getnames()) == 1  # the third late game, not the repeat
        assert sorted(tar.getnames() + other.getnames()) == [f"late/{i}.sgf" for i in range(3)]
    assert main(args) == 0 and test.read_bytes() == first  # byte for byte reproducible
    assert "3 of 4 files dated 2030 or later" in capsys.readouterr().out
