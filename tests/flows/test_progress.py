"""Progress on a terminal: Prefect's log lines go above the live bar, never into it; log lines elsewhere, also for
work of unknown size."""

from __future__ import annotations

import io
import logging
import re
import time
from collections.abc import Iterator

import pytest
from prefect import flow
from prefect.logging.handlers import PrefectConsoleHandler
from rich.console import Console

from gopat.flows.progress import LOG_EVERY, progress

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


def test_log_lines_without_a_total_come_every_few_units_and_at_the_end(prefect_harness: None) -> None:
    lines: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: lines.append(record.getMessage())  # type: ignore[method-assign]
    logger = logging.getLogger("prefect.flow_runs")
    logger.addHandler(handler)

    @flow
    def shards() -> None:
        with progress("log", "ingest tiny", None) as advance:
            for n in range(1, 2 * LOG_EVERY + 3):
                advance(f"{n} read")

    try:
        shards()
    finally:
        logger.removeHandler(handler)
    ours = [line for line in lines if line.startswith("ingest tiny")]
    assert ours == [f"ingest tiny: {n} {n} read" for n in (LOG_EVERY, 2 * LOG_EVERY, 2 * LOG_EVERY + 2)]
