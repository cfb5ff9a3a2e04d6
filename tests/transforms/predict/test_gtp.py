"""GTP version 2 for the predictor: every command, ids, errors, undo, the board text, the move choice, the
analysis formats, and random input lines."""

from __future__ import annotations

import re

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sgfmill import boards

from gopat.transforms.games.board import BLACK, EMPTY, WHITE
from gopat.transforms.predict.gtp import END, Engine, parse_line
from gopat.transforms.predict.gtp_state import PASS_FLOOR, GameState, choose_move, parse_vertex
from gopat.transforms.predict.predictor import Candidate, Position, Predictor, load_predictor
from tests.scenarios.gtp_referee import LETTERS, sgfmill_refusal

# One response: `=` or `?`, the id, then a first line, further non-empty lines, and the empty line.
WELL_FORMED = re.compile(r"([=?])(\d*)(?: [^\n]*)?(?:\n[^\n]+)*\n\n")
REQUIRED = ["protocol_version", "name", "version", "known_command", "list_commands", "boardsize", "clear_board", "komi",
            "play", "genmove", "undo", "showboard", "quit", "reg_genmove", "lz-analyze", "gogui-analyze_commands"]


@pytest.fixture(scope="module")
def predictor() -> Predictor:
    """The shipped weights with no pattern seen: candidates rank by tactics, lines and distances alone."""
    stats = pl.DataFrame(schema={"family": pl.String, "key": pl.String, "occurrence": pl.Int64, "chosen": pl.Int64})
    return load_predictor(stats)


@pytest.fixture
def engine(predictor: Predictor) -> Engine:
    return Engine(predictor, version="0.1.0 (release test)")


def session(engine: Engine, lines: str) -> str:
    """The output of a sequence of lines, as `gopat gtp` writes it."""
    out = []
    for line in lines.splitlines():
        reply = engine.handle(line)
        if reply is not None:
            out.append(reply.text + (END if reply.streaming else ""))
    return "".join(out)


def test_the_standard_commands_answer_with_ids_echoed(engine: Engine) -> None:
    script = "\n".join([
        "1 protocol_version", "name", "2 version", "3 known_command genmove", "known_command kgs-chat",
        "10 boardsize 19", "boardsize 9", "11 boardsize x", "komi 6.5", "12 komi 1_0", "clear_board",
        "13 play b D4", "play W q16", "14 play black D4", "play white I4", "play w A20", "play green D5",
        "play b", "20 frobnicate", "30", "  # only a comment", "", "\t\r", "21 quit",
    ])
    assert session(engine, script) == (
        "=1 2\n\n= gopat\n\n=2 0.1.0 (release test)\n\n=3 true\n\n= false\n\n=10 \n\n? unacceptable size\n\n"
        "?11 syntax error\n\n= \n\n?12 syntax error\n\n= \n\n=13 \n\n= \n\n?14 illegal move\n\n? syntax error\n\n"
        "? illegal move\n\n? syntax error\n\n? syntax error\n\n?20 unknown command\n\n?30 syntax error\n\n=21 \n\n"
    )
    assert engine.state.komi == 6.5 and engine.state.history == [(BLACK, 15, 3), (WHITE, 3, 15)]
    assert engine.handle("quit").quit and not engine.handle("name").quit  # type: ignore[union-attr]
    listed = session(engine, "list_commands")[2:-2].split("\n")
    assert set(REQUIRED) <= set(listed) and len(listed) == len(set(listed))
    assert all(session(engine, f"known_command {name}") == "= true\n\n" for name in listed)


def test_a_line_is_cleaned_as_gtp_2_says() -> None:
    assert parse_line("7 play\tb  D4 # a comment") == parse_line("7 play b D4\r")
    assert parse_line("7 play b D4").id == 7 and parse_line("play b D4").id is None  # type: ignore[union-attr]
    assert parse_line("pl\x01ay b D4").name == "play"  # type: ignore[union-attr]
    assert parse_line(" # nothing") is None and parse_line("\x07\t ") is None


def test_vertices_have_no_letter_i_and_count_rows_from_the_bottom() -> None:
    assert parse_vertex("A1") == (18, 0) and parse_vertex("t19") == (0, 18) and parse_vertex("J10") == (9, 8)
    assert parse_vertex("PASS") == (-1, -1)
    assert [parse_vertex(text) for text in ("I5", "D0", "D", "4D", "D4x", "")] == [None] * 6


def test_suicide_ko_and_occupied_points_are_illegal_moves(engine: Engine) -> None:
    setup = "play b B19\nplay b A18\nplay w C19\nplay w B18\nplay w A19"
    assert session(engine, setup) == "= \n\n" * 5
    assert engine.state.at(0, 1) == EMPTY and engine.state.captures == (0, 1)  # White took B19: a ko
    assert session(engine, "play b B19") == "? illegal move\n\n"
    assert session(engine, "play b D2\nplay w E1\nplay b B19") == "= \n\n" * 3  # a ko threat and its answer first
    assert engine.state.captures == (1, 1)
    assert session(engine, "play w A19\nplay w E1\nplay b e1") == "? illegal move\n\n" * 3  # the ko, occupied twice
    assert session(engine, "play w T2\nplay w S1\nplay b T1") == "= \n\n= \n\n? illegal move\n\n"  # suicide
    assert session(engine, "play b pass\nplay w PASS") == "= \n\n" * 2
    assert len(engine.state.history) == 12


def test_undo_takes_back_moves_captures_and_the_ko(engine: Engine) -> None:
    boards_seen = [session(engine, "showboard")]
    for move in ("b B19", "b A18", "w C19", "w B18", "w A19", "b D2", "w E1", "b B19"):
        assert session(engine, f"play {move}") == "= \n\n"
        boards_seen.append(session(engine, "showboard"))
    assert engine.state.captures == (1, 1)
    assert session(engine, "play w A19") == "? illegal move\n\n"  # the ko
    assert session(engine, "undo\nundo\nundo") == "= \n\n" * 3
    assert engine.state.captures == (0, 1) and session(engine, "showboard") == boards_seen[5]
    assert session(engine, "play b B19") == "? illegal move\n\n"  # White's capture made the ko again
    for expected in reversed(boards_seen[:5]):
        assert session(engine, "undo\nshowboard") == "= \n\n" + expected
    assert session(engine, "5 undo") == "?5 cannot undo\n\n"
    assert session(engine, "play b D4\nclear_board\nundo") == "= \n\n= \n\n? cannot undo\n\n"


def test_showboard_draws_the_position_as_text(engine: Engine) -> None:
    session(engine, "komi 6.5\nplay b D4\nplay w Q16\nplay b A1\nplay w B1\nplay b C3\nplay w A2")
    assert session(engine, "9 showboard") == "=9 \n" + """\
   A B C D E F G H J K L M N O P Q R S T
19 . . . . . . . . . . . . . . . . . . . 19
18 . . . . . . . . . . . . . . . . . . . 18
17 . . . . . . . . . . . . . . . . . . . 17
16 . . . + . . . . . + . . . . . O . . . 16
15 . . . . . . . . . . . . . . . . . . . 15
14 . . . . . . . . . . . . . . . . . . . 14
13 . . . . . . . . . . . . . . . . . . . 13
12 . . . . . . . . . . . . . . . . . . . 12
11 . . . . . . . . . . . . . . . . . . . 11
10 . . . + . . . . . + . . . . . + . . . 10
 9 . . . . . . . . . . . . . . . . . . . 9
 8 . . . . . . . . . . . . . . . . . . . 8
 7 . . . . . . . . . . . . . . . . . . . 7
 6 . . . . . . . . . . . . . . . . . . . 6
 5 . . . . . . . . . . . . . . . . . . . 5
 4 . . . X . . . . . + . . . . . + . . . 4
 3 . . X . . . . . . . . . . . . . . . . 3
 2 O . . . . . . . . . . . . . . . . . . 2
 1 . O . . . . . . . . . . . . . . . . . 1
   A B C D E F G H J K L M N O P Q R S T
Black to move, 6 moves, last move White A2; captured by Black 0, by White 1; komi 6.5

"""


def test_genmove_plays_what_reg_genmove_suggests(engine: Engine) -> None:
    session(engine, "play b D4\nplay w Q16")
    suggested = session(engine, "4 reg_genmove b")
    assert len(engine.state.history) == 2 and re.fullmatch(r"=4 [A-HJ-T]\d{1,2}\n\n", suggested)
    assert session(engine, "5 genmove black") == suggested.replace("=4", "=5")
    colour, row, col = engine.state.history[-1]
    assert colour == BLACK and f"= {LETTERS[col]}{19 - row}\n\n" == suggested.replace("=4", "=")
    best = engine.position(BLACK).candidates[0]
    assert session(engine, "genmove b").strip("=\n ") == f"{LETTERS[best.col]}{19 - best.row}"
    assert session(engine, "genmove x\ngenmove\nreg_genmove b w") == "? syntax error\n\n" * 3


def test_genmove_passes_after_a_pass_when_no_move_is_likely_enough(engine: Engine) -> None:
    session(engine, "play b D4\nplay w Q16")
    assert engine.position(BLACK).candidates[0].probability < PASS_FLOOR  # no pattern is known to this predictor
    assert session(engine, "reg_genmove b") != "= pass\n\n"  # White did not pass: play on
    session(engine, "play b D16\nplay w pass")
    assert session(engine, "genmove b") == "= pass\n\n"
    assert engine.state.history[-1] == (BLACK, -1, -1)
    assert session(engine, "genmove w") == "= pass\n\n"  # Black has just passed: the game ends


def _candidate(row: int, col: int, probability: float) -> Candidate:
    return Candidate(row=row, col=col, score=0.0, probability=probability, family=None, keys=(), occurrence=(),
                     chosen=(), tactics=0, book=(0, 0))


def _position(*candidates: Candidate) -> Position:
    return Position(board=(), colour=BLACK, moves=0, last=None, candidates=candidates)


def test_the_move_choice_skips_own_eyes_and_passes_when_nothing_is_worth_a_move() -> None:
    state = GameState()
    for colour, row, col in [(BLACK, 0, 1), (BLACK, 1, 0), (BLACK, 1, 1), (BLACK, 8, 9), (BLACK, 10, 9),
                             (BLACK, 9, 8), (BLACK, 9, 10), (WHITE, 8, 8)]:
        assert state.play(colour, row, col) is None
    corner, centre, elsewhere = _candidate(0, 0, 0.5), _candidate(9, 9, 0.3), _candidate(15, 15, 0.1)
    assert state.own_eye(0, 0, BLACK) and state.own_eye(9, 9, BLACK) and not state.own_eye(0, 0, WHITE)
    assert choose_move(_position(corner, centre, elsewhere), state, BLACK) == elsewhere
    assert choose_move(_position(corner, centre, elsewhere), state, WHITE) == corner  # not White's eye
    assert choose_move(_position(corner, centre), state, BLACK) is None
    assert choose_move(_position(), state, BLACK) is None
    assert state.play(WHITE, 10, 10) is None  # a second White diagonal: the centre point is no longer an eye
    assert choose_move(_position(corner, centre, elsewhere), state, BLACK) == centre
    assert state.play(WHITE, -1, -1) is None
    assert choose_move(_position(corner, centre, elsewhere), state, BLACK) == centre  # 0.3 >= PASS_FLOOR
    assert choose_move(_position(corner, _candidate(9, 9, PASS_FLOOR / 2)), state, BLACK) is None
    assert choose_move(_position(corner, _candidate(9, 9, PASS_FLOOR / 2)), state, WHITE) == corner


def _reference_eye(stones: dict[tuple[int, int], int], row: int, col: int, colour: int) -> bool:
    """The eye rule written out point by point: neighbours own or off the board, few opponent diagonals."""
    def on(r: int, c: int) -> bool:
        return 0 <= r < 19 and 0 <= c < 19

    if (row, col) in stones:
        return False
    for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
        if on(r, c) and stones.get((r, c)) != colour:
            return False
    diagonals = [(r, c) for r in (row - 1, row + 1) for c in (col - 1, col + 1) if on(r, c)]
    opponent = sum(stones.get(d) == 3 - colour for d in diagonals)
    return opponent <= (1 if len(diagonals) == 4 else 0)


CORNER_MOVES = st.lists(st.tuples(st.sampled_from([BLACK, WHITE]), st.integers(0, 4), st.integers(0, 4)),
                        max_size=40)


@given(moves=CORNER_MOVES)
@settings(max_examples=80, deadline=None)
def test_own_eyes_follow_the_rule_point_by_point(moves: list[tuple[int, int, int]]) -> None:
    state = GameState()
    for colour, row, col in moves:
        state.play(colour, row, col)
    stones = {(r, c): state.at(r, c) for r in range(19) for c in range(19) if state.at(r, c) != EMPTY}
    for row in range(6):
        for col in range(6):
            for colour in (BLACK, WHITE):
                assert state.own_eye(row, col, colour) == _reference_eye(stones, row, col, colour), (row, col, colour)


@given(steps=st.lists(st.one_of(st.tuples(st.sampled_from([BLACK, WHITE]), st.integers(-1, 3), st.integers(0, 3)),
                                st.just("undo")), max_size=60))
@settings(max_examples=60, deadline=None)
def test_play_and_undo_agree_with_sgfmill(steps: list[tuple[int, int, int] | str]) -> None:
    state = GameState()
    for step in steps:
        history = [("b" if c == BLACK else "w", None if r < 0 else (r, k)) for c, r, k in state.history]
        if step == "undo":
            assert state.undo() == bool(history)
            continue
        assert isinstance(step, tuple)
        colour, row, col = step
        point = None if row < 0 else (row, col)
        expected = sgfmill_refusal(history, "b" if colour == BLACK else "w", point)
        reason = state.play(colour, *(point or (-1, -1)))
        assert reason == expected, (history, step)
        board = boards.Board(19)
        for c, m in history + ([("b" if colour == BLACK else "w", point)] if reason is None else []):
            if m is not None:
                board.play(18 - m[0], m[1], c)
        stones = {(18 - r, c): (BLACK if who == "b" else WHITE) for who, (r, c) in board.list_occupied_points()}
        assert stones == {(r, c): state.at(r, c) for r in range(19) for c in range(19) if state.at(r, c) != EMPTY}


def test_the_heat_map_is_gogui_gfx_of_the_ranking(engine: Engine) -> None:
    assert session(engine, "gogui-analyze_commands") == "= gfx/Move probabilities/gopat-heatmap %c\n\n"
    session(engine, "play b D4\nplay w Q16\nplay b D16")
    ranking = engine.position(WHITE).candidates
    text = session(engine, "6 gopat-heatmap")  # White to move
    assert text == session(engine, "6 gopat-heatmap w") and text.endswith("\n\n")
    influence, labels, summary = text[:-2].split("\n")
    assert influence.startswith("=6 INFLUENCE ")
    pairs = influence.split()[2:]
    names = [f"{LETTERS[c.col]}{19 - c.row}" for c in ranking]
    assert pairs[::2] == names[:len(pairs) // 2]  # best first, down to 0.5% of the best
    assert [float(v) for v in pairs[1::2]] == [round(-c.probability / ranking[0].probability, 2)
                                               for c in ranking[:len(pairs) // 2]]
    top = list(zip(names, ranking[:10], strict=False))
    assert labels == "LABEL " + " ".join(f"{n} {round(100 * c.probability)}%" for n, c in top)
    assert summary == "TEXT White to move: " + ", ".join(f"{n} {100 * c.probability:.1f}%" for n, c in top)
    black = session(engine, "gopat-heatmap b").split("\n")[0].split()
    assert black[2:4] == [f"{LETTERS[engine.position(BLACK).candidates[0].col]}"
                          f"{19 - engine.position(BLACK).candidates[0].row}", "1.00"]
    assert all(float(v) > 0 for v in black[3::2])
    assert session(engine, "gopat-heatmap b w\ngopat-heatmap x") == "? syntax error\n\n" * 2


def test_lz_analyze_reports_the_ranking_until_the_next_command(engine: Engine) -> None:
    session(engine, "play b D4\nplay w Q16")
    ranking = engine.position(BLACK).candidates
    reply = engine.handle("8 lz-analyze 50")
    assert reply is not None and reply.streaming and reply.text.startswith("=8\ninfo move ")
    assert reply.text.count("\n") == 2 and WELL_FORMED.fullmatch(reply.text + END)
    infos = reply.text.split("\n")[1].split("info ")[1:]
    assert len(infos) == 10
    for order, (info, cand) in enumerate(zip(infos, ranking, strict=False)):
        name = f"{LETTERS[cand.col]}{19 - cand.row}"
        assert info.strip() == (f"move {name} visits {max(1, round(1000 * cand.probability))} winrate 5000 "
                                f"prior {round(10000 * cand.probability)} order {order} pv {name}")
    assert engine.handle("lz-analyze b 10 maxmoves 3 minmoves 2").text.count("info move") == 3  # type: ignore[union-attr]
    white = engine.handle("lz-analyze W interval 20 maxmoves 1")
    assert white is not None and white.text.count("info move") == 1
    assert white.text.split()[3] == f"{LETTERS[engine.position(WHITE).candidates[0].col]}" \
                                     f"{19 - engine.position(WHITE).candidates[0].row}"
    assert session(engine, "lz-analyze b 10 maxmoves\n3 lz-analyze b maxmoves x") == \
        "? syntax error\n\n?3 syntax error\n\n"


LINE_WORDS = st.sampled_from(["b", "w", "black", "WHITE", "D4", "t19", "pass", "A20", "I9", "19", "9", "7.5", "-1",
                              "nan", "maxmoves", "3", "%c", "x"])
COMMAND_LINES = st.tuples(
    st.one_of(st.none(), st.integers(0, 10**6).map(str), st.text(max_size=3)),
    st.one_of(st.sampled_from([*REQUIRED, "gopat-heatmap"]), st.text(max_size=8)),
    st.lists(st.one_of(LINE_WORDS, st.text(max_size=6)), max_size=4),
    st.one_of(st.just(""), st.just(" # comment"), st.text(max_size=4)),
).map(lambda t: " ".join(w for w in (t[0], t[1], *t[2]) if w is not None) + t[3])


@given(lines=st.lists(COMMAND_LINES, min_size=1, max_size=8))
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_random_lines_never_crash_and_always_get_a_well_formed_response(engine: Engine, lines: list[str]) -> None:
    engine.state.clear()
    for line in lines:
        for part in line.split("\n"):
            command = parse_line(part)
            reply = engine.handle(part)
            if command is None:
                assert reply is None
                continue
            assert reply is not None
            text = reply.text + (END if reply.streaming else "")
            match = WELL_FORMED.fullmatch(text)
            assert match, (part, text)
            assert match[2] == ("" if command.id is None else str(command.id))
