"""GTP version 2 for the move predictor: command lines in, responses out (no I/O; `gopat gtp` runs the loop).

A command line is ``[id] name [arguments]``; control characters other than tab are dropped, a
``#`` starts a comment, tabs are spaces, and a line left empty gets no response. A response is
``=[id] result`` or ``?[id] message``, ended by an empty line. Besides the standard commands the
engine answers ``reg_genmove`` (the move ``genmove`` would play, not played), GoGui's
``gogui-analyze_commands`` with one heat map (``gopat-heatmap``: gfx ``INFLUENCE`` of every
candidate's probability relative to the best, ``LABEL`` of the top ten in percent, ``TEXT`` with
the ranking) and ``lz-analyze``, whose ``info move ...`` line Sabaki and Lizzie read. The
predictor has no search and no value estimate, so an info's ``prior`` is the probability in
1/10000, ``visits`` the probability in 1/1000 (at least 1, so that GUIs sizing candidates by
visits keep the order) and ``winrate`` is 5000. The analysis stays on screen until the next
command ends it, as in a search that found nothing new.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from gopat.transforms.games.board import BLACK
from gopat.transforms.predict.gtp_state import (
    SIZE,
    GameState,
    choose_move,
    colour_name,
    parse_colour,
    parse_vertex,
    vertex,
)
from gopat.transforms.predict.predictor import Position, Predictor, score_position

_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_INTEGER = re.compile(r"[0-9]+")
_FLOAT = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)")
HEATMAP_LABELS = 10
ANALYZE_MOVES = 10  # lz-analyze candidates unless `maxmoves N` says otherwise
ANALYZE_COMMANDS = "gfx/Move probabilities/gopat-heatmap %c"


class GtpError(Exception):
    """A command that fails: the message of its ``?`` response."""


@dataclass(frozen=True)
class Command:
    """A command line's id (None: none given), command name and arguments."""

    id: int | None
    name: str
    args: tuple[str, ...]


@dataclass(frozen=True)
class Reply:
    """The text to write for one command. ``streaming``: the response is still open (lz-analyze) and ends
    with the empty line :data:`END` when the next command arrives; ``quit``: the engine stops after it."""

    text: str
    streaming: bool = False
    quit: bool = False


END = "\n"


def parse_line(line: str) -> Command | None:
    """A command from one input line, or None for a line that is empty once comments and controls are gone."""
    words = [w for w in _CONTROL.sub("", line.split("#", 1)[0]).replace("\t", " ").split(" ") if w]
    if not words:
        return None
    if _INTEGER.fullmatch(words[0]):
        return Command(int(words[0]), words[1] if len(words) > 1 else "", tuple(words[2:]))
    return Command(None, words[0], tuple(words[1:]))


def response(command_id: int | None, text: str, *, error: bool = False) -> str:
    """``=[id] text`` or ``?[id] text``, ended by an empty line."""
    return f"{'?' if error else '='}{'' if command_id is None else command_id} {text}\n\n"


class Engine:
    """The GTP engine: a game and the predictor that ranks its moves."""

    def __init__(self, predictor: Predictor, *, version: str) -> None:
        self.predictor = predictor
        self.state = GameState()
        self.commands: dict[str, Callable[[tuple[str, ...]], str]] = {
            "protocol_version": self._fixed("2"), "name": self._fixed("gopat"), "version": self._fixed(version),
            "known_command": self._known_command, "list_commands": self._fixed(""), "quit": self._fixed(""),
            "boardsize": self._boardsize, "clear_board": self._clear_board, "komi": self._komi, "play": self._play,
            "genmove": self._genmove, "reg_genmove": self._reg_genmove, "undo": self._undo,
            "showboard": self._showboard, "gogui-analyze_commands": self._fixed(ANALYZE_COMMANDS),
            "gopat-heatmap": self._heatmap, "lz-analyze": self._lz_analyze,
        }  # fmt: skip
        self.commands["list_commands"] = self._fixed("\n".join(self.commands))  # every name, itself included

    def handle(self, line: str) -> Reply | None:
        """The reply to one input line; None when the line holds no command."""
        command = parse_line(line)
        if command is None:
            return None
        run = self.commands.get(command.name)
        if run is None:
            return Reply(response(command.id, "unknown command" if command.name else "syntax error", error=True))
        try:
            text = run(command.args)
        except GtpError as error:
            return Reply(response(command.id, str(error), error=True))
        if command.name == "lz-analyze":
            return Reply(f"={'' if command.id is None else command.id}\n{text}", streaming=True)
        return Reply(response(command.id, text), quit=command.name == "quit")

    @staticmethod
    def _fixed(text: str) -> Callable[[tuple[str, ...]], str]:
        def run(args: tuple[str, ...]) -> str:
            _arity(args, 0)
            return text

        return run

    def _known_command(self, args: tuple[str, ...]) -> str:
        _arity(args, 1)
        return "true" if args[0] in self.commands else "false"

    def _boardsize(self, args: tuple[str, ...]) -> str:
        _arity(args, 1)
        if not _INTEGER.fullmatch(args[0]):
            raise GtpError("syntax error")
        if int(args[0]) != SIZE:
            raise GtpError("unacceptable size")
        self.state.clear()
        return ""

    def _clear_board(self, args: tuple[str, ...]) -> str:
        _arity(args, 0)
        self.state.clear()
        return ""

    def _komi(self, args: tuple[str, ...]) -> str:
        _arity(args, 1)
        if not _FLOAT.fullmatch(args[0]):
            raise GtpError("syntax error")
        self.state.komi = float(args[0])
        return ""

    def _play(self, args: tuple[str, ...]) -> str:
        _arity(args, 2)
        colour, point = _colour(args[0]), parse_vertex(args[1])
        if point is None:
            raise GtpError("syntax error")
        if self.state.play(colour, *point) is not None:
            raise GtpError("illegal move")
        return ""

    def _genmove(self, args: tuple[str, ...]) -> str:
        _arity(args, 1)
        colour = _colour(args[0])
        move = self._choose(colour)
        if self.state.play(colour, *move) is not None:
            raise RuntimeError(f"the predictor chose the illegal move {vertex(*move)}")
        return vertex(*move)

    def _reg_genmove(self, args: tuple[str, ...]) -> str:
        _arity(args, 1)
        return vertex(*self._choose(_colour(args[0])))

    def _undo(self, args: tuple[str, ...]) -> str:
        _arity(args, 0)
        if not self.state.undo():
            raise GtpError("cannot undo")
        return ""

    def _showboard(self, args: tuple[str, ...]) -> str:
        _arity(args, 0)
        return "\n" + self.state.text()

    def position(self, colour: int) -> Position:
        """The current position with every legal point for ``colour`` ranked, best first."""
        return score_position(self.predictor, self.state.game(colour), moves=len(self.state.history))

    def _choose(self, colour: int) -> tuple[int, int]:
        chosen = choose_move(self.position(colour), self.state, colour)
        return (-1, -1) if chosen is None else (chosen.row, chosen.col)

    def _heatmap(self, args: tuple[str, ...]) -> str:
        """GoGui gfx: INFLUENCE (Black positive, White negative) relative to the best candidate, LABEL, TEXT."""
        if len(args) > 1:
            raise GtpError("syntax error")
        colour = _colour(args[0]) if args else self.state.to_move()
        ranked = self.position(colour).candidates
        if not ranked:
            return f"TEXT {colour_name(colour)} has no legal move but pass"
        sign, best = (1 if colour == BLACK else -1), ranked[0].probability
        influence = [f"{vertex(c.row, c.col)} {sign * c.probability / best:.2f}" for c in ranked
                     if c.probability / best >= 0.005]
        top = ranked[:HEATMAP_LABELS]
        labels = [f"{vertex(c.row, c.col)} {round(100 * c.probability)}%" for c in top]
        text = ", ".join(f"{vertex(c.row, c.col)} {100 * c.probability:.1f}%" for c in top)
        return "\n".join([f"INFLUENCE {' '.join(influence)}", f"LABEL {' '.join(labels)}",
                          f"TEXT {colour_name(colour)} to move: {text}"])

    def _lz_analyze(self, command_args: tuple[str, ...]) -> str:
        """One line of ``info move ...`` entries: ``lz-analyze [colour] [interval] [key value ...]``; of the
        key-value pairs only ``maxmoves N`` counts, the others are accepted and ignored."""
        args, colour, limit = list(command_args), self.state.to_move(), ANALYZE_MOVES
        if args and parse_colour(args[0]) is not None:
            colour = _colour(args.pop(0))
        if args and _INTEGER.fullmatch(args[0]):
            args.pop(0)  # the reporting interval: the analysis is reported once
        if len(args) % 2:
            raise GtpError("syntax error")
        for key, value in zip(args[::2], args[1::2], strict=True):
            if key == "maxmoves":
                if not _INTEGER.fullmatch(value):
                    raise GtpError("syntax error")
                limit = int(value)
        infos = [f"info move {vertex(c.row, c.col)} visits {max(1, round(1000 * c.probability))} winrate 5000 "
                 f"prior {round(10000 * c.probability)} order {k} pv {vertex(c.row, c.col)}"
                 for k, c in enumerate(self.position(colour).candidates[:limit])]
        return " ".join(infos) + "\n" if infos else ""


def _arity(args: tuple[str, ...], n: int) -> None:
    if len(args) != n:
        raise GtpError("syntax error")


def _colour(text: str) -> int:
    colour = parse_colour(text)
    if colour is None:
        raise GtpError("syntax error")
    return colour
