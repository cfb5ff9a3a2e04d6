"""The `gopat` command line: turns flows and transforms into commands, messages and exit codes."""

from __future__ import annotations

import argparse
import contextlib
import gc
import logging
import os
import select
import signal
import sys
import traceback
from collections.abc import Sequence
from types import FrameType
from typing import Any

# Before Prefect is imported: no telemetry from a machine that may be offline (the client's
# DO_NOT_TRACK and the temporary API server's analytics; an operator may set either to turn it on),
# and time for the temporary local API server to start on a busy machine (Prefect's default is 20 s).
os.environ.setdefault("DO_NOT_TRACK", "1")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")

from gopat.cli.commands import analytics, build, gtp, patterns, predict, releases, report, search, serve
from gopat.flows import cancel

# The errors a command reports as one line `gopat: error: ...` (exit 1); anything else is a bug
# and keeps its traceback.
EXPECTED = (ValueError, RuntimeError, OSError)
RUN_LOGGERS = ("prefect.flow_runs", "prefect.task_runs")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `gopat` console script; returns the exit code."""
    args = parser().parse_args(argv)
    quiet = None if args.debug else _ExpectedErrors()
    loggers = [logging.getLogger(name) for name in RUN_LOGGERS]
    if quiet is not None:
        for logger in loggers:
            logger.addFilter(quiet)
    # A command that sets `cancel` (build) stops on SIGTERM and SIGINT with one line (flows/cancel.py).
    watching = (cancel.watch(describe=args.cancel(args), raise_cancelled=True, quiet=not args.debug)
                if hasattr(args, "cancel") else contextlib.nullcontext())
    try:
        with watching:
            code: int = args.run(args)
            sys.stdout.flush()
        return code
    except BrokenPipeError:
        if not _stdout_closed():
            raise
        # The reader went away (`gopat search ... | head`): stop quietly, as a shell tool that SIGPIPE ends, and
        # point stdout at /dev/null so that the interpreter's last flush does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE
    except BaseException as error:
        if cancel.requested() is not None:
            if args.debug:
                traceback.print_exception(error)
            cancel.end()  # children stopped, one line, exit 128 + the signal
        if not isinstance(error, EXPECTED):
            raise
        if args.debug:
            raise
        print(f"gopat: error: {error}", file=sys.stderr)
        _clear_frames(error)
        return 1
    finally:
        if quiet is not None:
            for logger in loggers:
                logger.removeFilter(quiet)
        gc.collect()


def _clear_frames(error: BaseException) -> None:
    """Clear the locals of the finished frames that `error`'s traceback reaches, and of their callers.

    Prefect keeps a failed run's exception. When the task failed on a side thread, the frames that
    called it there (a thread pool's work item, the task's parameters, a DuckDB connection among them)
    would otherwise still be alive when the interpreter exits, and DuckDB's bindings would then print a
    list of leaked objects.
    """
    tb = error.__traceback__
    while tb is not None:
        frame: FrameType | None = tb.tb_frame
        while frame is not None:
            with contextlib.suppress(RuntimeError):  # a frame still running keeps its locals
                frame.clear()
            frame = frame.f_back
        tb = tb.tb_next


COMMANDS = (analytics, build, gtp, patterns, predict, releases, report, search, serve)  # modules of cli/commands/


def parser() -> argparse.ArgumentParser:
    """The argument parser, with the commands of every module in cli/commands/."""
    top = argparse.ArgumentParser(prog="gopat", description="Go pattern warehouse")
    top.add_argument("--debug", action="store_true",
                     help="show Prefect's tracebacks and raise errors instead of one line")
    subparsers = top.add_subparsers(required=True, metavar="COMMAND", parser_class=CommandParser)
    for module in COMMANDS:
        module.register(subparsers)
    return top


class Help(argparse.HelpFormatter):
    """Help that states each option's default from the parser (an option whose default is None says in its help
    what it means)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        stated = "default" in text or action.default is None or action.default is False or action.default == []
        if stated or action.default is argparse.SUPPRESS or not action.option_strings or action.required:
            return action.help
        return f"{text} (default: %(default)s)" if text else "default: %(default)s"


class CommandParser(argparse.ArgumentParser):
    """A command's parser, whose help is formatted by `Help`."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**{"formatter_class": Help, **options})


def _stdout_closed() -> bool:
    """Whether standard output is a pipe whose reader has closed it (poll reports an error on its end)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # replaced by an object without a file (io.StringIO in tests)
        return False
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(events & select.POLLERR for _, events in poller.poll(0))


class _ExpectedErrors(logging.Filter):
    """Silences Prefect's own report of an expected error: the CLI prints it as one line.

    A retried I/O error keeps its line without the traceback, so retries stay visible.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if _interrupted(error):  # a side task's query, stopped because the build failed (flows/build.py)
            return False
        if isinstance(error, EXPECTED):
            record.exc_info = record.exc_text = None
            return "Retry" in record.getMessage()
        return not record.getMessage().startswith("Finished in state Failed")


def _interrupted(error: BaseException | None) -> bool:
    """Whether `error` is a DuckDB query's interruption (imported here: DuckDB is loaded by then)."""
    if error is None:
        return False
    import duckdb

    return isinstance(error, duckdb.InterruptException)


if __name__ == "__main__":
    sys.exit(main())
