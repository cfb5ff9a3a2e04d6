"""`gopat gtp` as a real engine: a complete game against GNU Go under a referee, the protocol over pipes, and the
one-line refusal of a release that cannot predict."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from sgfmill import sgf

from gopat.cli.main import main
from gopat.effects.warehouse.layout import Layout, current_version
from gopat.transforms.games.parsing import parse_games
from gopat.transforms.games.records import game_row
from gopat.transforms.predict.predictor import RESPONSE
from gopat.transforms.predict.ranking import load_weights
from tests.effects.warehouse.releases import publish_tables
from tests.flows.archives import tiny_members, write_archive
from tests.scenarios.gtp_referee import gnugo_engine, gopat_engine, play_game

GTP = [sys.executable, "-m", "gopat.cli.main", "gtp"]


@pytest.fixture(scope="module")
def warehouse(prefect_harness: None, tiny_archive: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A release of 100 of tiny's games with the families the shipped weights rank with."""
    folder = tmp_path_factory.mktemp("gtp")
    source = write_archive(folder / "train.tar.gz", tiny_members(tiny_archive)[:100])
    path = folder / "warehouse"
    code = main(["build", "--source", str(source), "--warehouse", str(path), "--workers", "2", "--quiet",
                 "--families", *load_weights().levels, RESPONSE])
    assert code == 0
    return path


@pytest.mark.slow
def test_a_game_against_gnu_go_level_1_is_legal_and_ends(warehouse: Path, tmp_path: Path) -> None:
    gopat, gnugo = gopat_engine(warehouse), gnugo_engine(level=1, komi=7.5)
    try:
        game = play_game(gopat, gnugo, komi=7.5, max_moves=600)  # every move checked by the referee
        score = gnugo.send("final_score")
    finally:
        codes = gopat.close(), gnugo.close()
    assert codes == (0, 0)
    assert game.end == "passes" and len(game.moves) >= 100, (game.end, len(game.moves))
    assert game.moves[-2:] == [("b", None), ("w", None)] or game.moves[-2:] == [("w", None), ("b", None)]
    assert re.fullmatch(r"[BW]\+\d+(\.\d)?|0", score), score
    game.result = score
    path = tmp_path / "gopat-gnugo.sgf"
    path.write_bytes(game.sgf_bytes())
    record = sgf.Sgf_game.from_bytes(path.read_bytes())  # read back: sgfmill, then the product's parser
    assert record.get_root().get("RE") == score and record.get_komi() == 7.5
    assert [node.get_move() for node in record.get_main_sequence()[1:]] == [
        (c, None if m is None else (18 - m[0], m[1])) for c, m in game.moves]
    row, replayed = game_row(parse_games(path.read_bytes())[0], game_id="gopat-gnugo")
    assert row["flags"] == [] and row["move_count"] == len(replayed.moves) == len(game.moves)
    genmoves = gopat.seconds["genmove"]
    assert len(genmoves) == (len(game.moves) + 1) // 2


@pytest.mark.slow
def test_the_protocol_over_pipes_ends_an_analysis_at_the_next_command(warehouse: Path) -> None:
    script = "1 boardsize 19\n# a comment\n\n2 play b D4\n3 lz-analyze w 50\n4 showboard\n5 lz-analyze b\n"
    done = subprocess.run([*GTP, "--warehouse", str(warehouse)], input=script, capture_output=True, text=True,
                          timeout=600, check=False)
    assert (done.returncode, done.stderr) == (0, "")
    responses = done.stdout.split("\n\n")
    assert responses[:2] == ["=1 ", "=2 "] and responses[-1] == ""
    analysis = responses[2].split("\n")
    assert analysis[0] == "=3" and len(analysis) == 2
    assert re.fullmatch(r"(info move [A-HJ-T]\d+ visits \d+ winrate 5000 prior \d+ order \d+ pv [A-HJ-T]\d+ ?){10}",
                        analysis[1])
    assert responses[3].startswith("=4 \n   A B C") and "White to move, 1 moves, last move Black D4" in responses[3]
    assert responses[4].startswith("=5\ninfo move ") and len(responses) == 6  # ended by the end of input


def test_a_release_without_the_prediction_families_is_refused_in_one_line(tmp_path: Path) -> None:
    layout = Layout(tmp_path / "warehouse")
    version = publish_tables(layout, games=3, content="a" * 12)
    assert current_version(layout) == version
    done = subprocess.run([*GTP, "--warehouse", str(layout.root)], input="name\n", capture_output=True, text=True,
                          timeout=120, check=False)
    needed = " ".join((*load_weights().levels, RESPONSE))
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (f"gopat: error: release {version}: lacks the prediction families {needed}; build them with "
                           f"gopat build --warehouse {layout.root} --families {needed}\n")
    empty = subprocess.run([*GTP, "--warehouse", str(tmp_path / "none")], input="", capture_output=True, text=True,
                           timeout=120, check=False)
    assert (empty.returncode, empty.stdout) == (1, "")
    assert empty.stderr == f"gopat: error: no release in {tmp_path / 'none' / 'releases'}; run `gopat build` first\n"
