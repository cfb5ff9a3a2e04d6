"""Progress of long build phases: a bar on a terminal, log lines elsewhere, nothing when quiet."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator

from prefect import get_run_logger
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

MODES = ("auto", "bar", "log", "quiet")


@contextlib.contextmanager
def progress(mode: str, description: str, total: int) -> Iterator[Callable[[str], None]]:
    """Yield `advance(note)`, to be called once per finished unit of `total`.

    `mode` is 'bar' (a rich progress bar on stderr), 'log' (a log line at every tenth of the
    work), 'quiet' (nothing), or 'auto' (a bar on a terminal, else log lines).
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
        with Progress(*columns, transient=False) as bar:
            task = bar.add_task(description, total=total, note="")
            yield lambda note: bar.update(task, advance=1, note=note)
        return
    logger = get_run_logger()
    done = 0

    def advance(note: str) -> None:
        nonlocal done
        done += 1
        if done == total or done * 10 // total != (done - 1) * 10 // total:
            logger.info("%s: %d/%d %s", description, done, total, note)

    yield advance
