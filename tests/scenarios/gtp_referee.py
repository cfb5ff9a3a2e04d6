"""A referee for games between two GTP engines run as subprocesses: every move of both sides is checked with
sgfmill and with the product's rules before the other engine hears it, and the game is written as SGF.

Used by tests/scenarios/test_gtp_gnugo.py and bench/gtp_match.py.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from sgfmill import boards, sgf

from gopat.transforms.games.board import replay

GNUGO = "/usr/games/gnugo"
SIZE = 19
LETTERS = "ABCDEFGHJKLMNOPQRST"


class GtpFailure(Exception):
    """An engine answered `?`, broke the protocol or died."""


class Engine:
    """A GTP engine subprocess: one command at a time, its response text returned (`?` raises GtpFailure)."""

    def __init__(self, name: str, command: list[str], *, cwd: Path | None = None) -> None:
        self.name = name
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True, cwd=cwd)
        self.seconds: dict[str, list[float]] = {}

    def send(self, command: str) -> str:
        """Send one command; the response without its `= ` and the empty line that ends it."""
        assert self.process.stdin is not None and self.process.stdout is not None
        start = time.perf_counter()
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        lines = []
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise GtpFailure(f"{self.name} closed its output after {command!r} (exit {self.process.poll()})")
            if line == "\n":
                break
            lines.append(line.rstrip("\n"))
        self.seconds.setdefault(command.split()[0], []).append(time.perf_counter() - start)
        text = "\n".join(lines)
        if not text.startswith(("=", "?")):
            raise GtpFailure(f"{self.name} answered {command!r} with {text!r}")
        if text.startswith("?"):
            raise GtpFailure(f"{self.name} refused {command!r}: {text}")
        return text[1:].strip()

    def close(self) -> int:
        """Send quit, wait for the process and close its pipes (also those of a process that died); its exit code."""
        with contextlib.suppress(GtpFailure, BrokenPipeError):
            self.send("quit")
        try:
            return self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise
        finally:
            for pipe in (self.process.stdin, self.process.stdout):
                with contextlib.suppress(BrokenPipeError):
                    if pipe is not None:
                        pipe.close()


def gopat_engine(warehouse: Path, *, release: str | None = None) -> Engine:
    """`gopat gtp` on a warehouse, run as `python -m gopat.cli.main` with this interpreter."""
    command = [sys.executable, "-m", "gopat.cli.main", "gtp", "--warehouse", str(warehouse)]
    return Engine("gopat", command + (["--release", release] if release else []))


def gnugo_engine(*, level: int, komi: float) -> Engine:
    """Debian's GNU Go in GTP mode."""
    return Engine(f"gnugo-{level}", [GNUGO, "--mode", "gtp", "--level", str(level), "--komi", f"{komi:g}"])


def parse_move(text: str) -> tuple[int, int] | None:
    """(row, col) with row 0 at the top of a vertex such as `D4`; None for `pass`; ValueError otherwise."""
    word = text.strip().upper()
    if word == "PASS":
        return None
    if len(word) < 2 or word[0] not in LETTERS or not word[1:].isdigit() or not 1 <= int(word[1:]) <= SIZE:
        raise ValueError(f"not a vertex: {text!r}")
    return SIZE - int(word[1:]), LETTERS.index(word[0])


def vertex(move: tuple[int, int] | None) -> str:
    """The GTP vertex of a (row, col), `pass` for None."""
    return "pass" if move is None else f"{LETTERS[move[1]]}{SIZE - move[0]}"


def sgfmill_refusal(moves: list[tuple[str, tuple[int, int] | None]], colour: str,
                    move: tuple[int, int] | None) -> str | None:
    """Why sgfmill's board refuses ``move`` after ``moves`` (``occupied``, ``suicide``, ``ko``: back to the
    position before the previous move), None when it is legal. A pass is always legal."""
    if move is None:
        return None
    board = boards.Board(SIZE)
    before: list[frozenset[tuple[str | None, tuple[int, int]]]] = [frozenset()]
    for c, m in moves:
        if m is not None:
            board.play(SIZE - 1 - m[0], m[1], c)
        before.append(frozenset(board.list_occupied_points()))
    row, col = SIZE - 1 - move[0], move[1]
    if board.get(row, col) is not None:
        return "occupied"
    board.play(row, col, colour)
    if board.get(row, col) != colour:
        return "suicide"
    if len(before) >= 2 and frozenset(board.list_occupied_points()) == before[-2]:
        return "ko"
    return None


@dataclass
class Game:
    """A game as the referee saw it: moves as (colour 'b'/'w', (row, col) or None), how it ended, the score."""

    black: str
    white: str
    komi: float
    moves: list[tuple[str, tuple[int, int] | None]] = field(default_factory=list)
    end: str = ""
    result: str = ""

    def check_and_add(self, colour: str, move: tuple[int, int] | None) -> None:
        """Add a move after checking it with sgfmill (:func:`sgfmill_refusal`) and the product's replay of the
        whole game so far; AssertionError naming the move and the reason when either refuses it."""
        reason = sgfmill_refusal(self.moves, colour, move)
        if reason is not None:
            raise AssertionError(f"move {len(self.moves) + 1} ({colour} {vertex(move)}): {reason}")
        self.moves.append((colour, move))
        played = np.array([(1 if c == "b" else 2, *(m if m is not None else (-1, -1))) for c, m in self.moves],
                          dtype=np.int64)
        legal, reason = replay(SIZE, np.zeros((0, 3), dtype=np.int64), played)
        if legal != len(self.moves):
            raise AssertionError(f"the product's rules refuse move {legal + 1}: {reason}")

    def sgf_bytes(self) -> bytes:
        """The game as SGF (FF[4], with players, komi and result)."""
        game = sgf.Sgf_game(size=SIZE)
        root = game.get_root()
        root.set("PB", self.black)
        root.set("PW", self.white)
        root.set("KM", self.komi)
        if self.result:
            root.set("RE", self.result)
        for colour, move in self.moves:
            game.extend_main_sequence().set_move(colour, None if move is None else (SIZE - 1 - move[0], move[1]))
        return game.serialise()


def play_game(black: Engine, white: Engine, *, komi: float, max_moves: int) -> Game:
    """Play one game from an empty board: genmove to the side to move, its move checked, then play to the other.

    Ends on two passes in a row, a resignation or ``max_moves`` moves (``end``: ``passes``, ``resign``, ``cap``).
    """
    for engine in (black, white):
        engine.send(f"boardsize {SIZE}")
        engine.send("clear_board")
        engine.send(f"komi {komi:g}")
    game = Game(black=black.name, white=white.name, komi=komi)
    sides = {"b": (black, white), "w": (white, black)}
    colour = "b"
    while len(game.moves) < max_moves:
        mover, other = sides[colour]
        answer = mover.send(f"genmove {colour}")
        if answer.lower() == "resign":
            game.end, game.result = "resign", f"{'W' if colour == 'b' else 'B'}+R"
            return game
        move = parse_move(answer)
        game.check_and_add(colour, move)
        other.send(f"play {colour} {vertex(move)}")
        if len(game.moves) >= 2 and game.moves[-1][1] is None and game.moves[-2][1] is None:
            game.end = "passes"
            return game
        colour = "w" if colour == "b" else "b"
    game.end = "cap"
    return game
