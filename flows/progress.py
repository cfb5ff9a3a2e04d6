"""Progress of long build phases: a bar on a terminal, log lines elsewhere, nothing when quiet."""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Callable, Iterator

from prefect import get_run_logger
from prefect.logging.handlers import PrefectConsoleHandler
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

MODES = ("auto", "bar", "log", "quiet")
LOG_EVERY = 25  # units between log lines when the total is not known in advance


@contextlib.contextmanager
def progress(
    mode: str, description: str, total: int | None, *, console: Console | None = None
) -> Iterator[Callable[[str], None]]:
    """Yield `advance(note)`, to be called once per finished unit of `total` (None: not known in advance).

    `mode` is 'bar' (a rich progress bar on stderr, or on `console`), 'log' (a log line at every
    tenth of the work, or every LOG_EVERY units and at the end without a total), 'quiet'
    (nothing), or 'auto' (a bar on a terminal, else log lines). While a bar is shown, Prefect's
    console log lines are printed above it, never into it.
    """
    if mode not in MODES:
        raise ValueError(f"progress mode must be one of {MODES}, got {mode!r}")
    if mode == "auto":
        mode = "bar" if sys.stderr.isatty() else "log"
    if mode == "quiet":
        yield lambda note: None
        return
    if mode == "bar":
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("{task.fields[note]}"), TimeElapsedColumn())
        with Progress(*columns, console=console or Console(stderr=True)) as bar, _logs_above(bar.console):
            task = bar.add_task(description, total=total, note="")
            yield lambda note: bar.update(task, advance=1, note=note)
        return
    logger = get_run_logger()
    done, last = 0, ""

    def advance(note: str) -> None:
        nonlocal done, last
        done, last = done + 1, note
        if total is None:
            if done % LOG_EVERY == 0:
                logger.info("%s: %d %s", description, done, note)
        elif done == total or done * 10 // total != (done - 1) * 10 // total:
            logger.info("%s: %d/%d %s", description, done, total, note)

    yield advance
    if total is None and done % LOG_EVERY:
        logger.info("%s: %d %s", description, done, last)


@contextlib.contextmanager
def _logs_above(console: Console) -> Iterator[None]:
    """Route Prefect's console handlers through the live bar's console, which prints above the bar."""
    handlers = list({id(h): h for h in _console_handlers() if isinstance(h, PrefectConsoleHandler)}.values())
    saved = [h.console for h in handlers]
    for handler in handlers:
        handler.console = console
    try:
        yield
    finally:
        for handler, previous in zip(handlers, saved, strict=True):
            handler.console = previous


def _console_handlers() -> list[logging.Handler]:
    # Prefect's logging config puts its console handler on the root logger and on the loggers of
    # the temporary API server (uvicorn, fastapi), which do not propagate.
    loggers = [logging.getLogger(), logging.getLogger("uvicorn"), logging.getLogger("fastapi")]
    return [handler for logger in loggers for handler in logger.handlers]
