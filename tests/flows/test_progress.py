"""Progress on a terminal: Prefect's log lines go above the live bar, never into it."""

from __future__ import annotations

import io
import logging
import re
import time
from collections.abc import Iterator

import pytest
from prefect.logging.handlers import PrefectConsoleHandler
from rich.console import Console

from gopat.flows.progress import progress

MESSAGE = "expectations of pattern_stats passed"


@pytest.fixture
def terminal() -> Iterator[tuple[io.StringIO, Console, PrefectConsoleHandler]]:
    """One fake terminal shared by the bar and a Prefect console handler on the root logger."""
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=100)
    handler = PrefectConsoleHandler(stream=screen)
    handler.console = Console(file=screen, force_terminal=True, width=100)
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield screen, console, handler
    finally:
        root.removeHandler(handler)


def test_log_lines_are_printed_above_the_bar(terminal: tuple[io.StringIO, Console, PrefectConsoleHandler]) -> None:
    screen, console, handler = terminal
    before = handler.console
    with progress("bar", "pattern_stats", 3, console=console) as advance:
        advance("d12 8")
        time.sleep(0.3)  # the bar's refresh thread draws it
        logging.getLogger("gopat.test").warning(MESSAGE)
        advance("d12 16")
        time.sleep(0.3)
    assert handler.console is before
    pieces = [p for p in re.split(r"\r\x1b\[2K|\n", screen.getvalue()) if MESSAGE in p]
    assert pieces, screen.getvalue()
    for piece in pieces:  # a line of its own: no bar characters before or after the message
        assert "pattern_stats" not in piece.replace(MESSAGE, "") and "━" not in piece, repr(piece)


def test_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="progress mode must be one of"), progress("fancy", "x", 1):
        pass
