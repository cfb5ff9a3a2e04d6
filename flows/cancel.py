"""Cancellation: SIGTERM and SIGINT stop a build within a deadline, with every process it started, in one line.

Whichever Python handler takes the signal (the CLI's, which raises `Cancelled`; Prefect's SIGTERM bridge in a
flow run, which raises `TerminationSignal`; Python's SIGINT handler, which raises `KeyboardInterrupt`), the
signal number also reaches a watchdog thread through `signal.set_wakeup_fd`. The build then unwinds through its
`finally` paths (shard pools terminated, staging removed, lock released). Should the process still be alive
`DEADLINE_SECONDS` later (a query or an API call that does not return), the watchdog runs the registered
cleanups, kills every descendant process (workers, Prefect's temporary API server, Dask), prints the one line
and exits with 128 + the signal number (docs/releases.md#cancellation).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import NoReturn

from gopat.effects.warehouse.layout import Layout, current_version

DEADLINE_SECONDS = 6.0  # then at most STOP_SECONDS to stop the descendants: a cancelled build is gone within 10 s
STOP_SECONDS = 1.5
SIGNALS = (signal.SIGTERM, signal.SIGINT)


class Cancelled(BaseException):
    """Raised in the main thread by the CLI's handler of SIGTERM or SIGINT (like KeyboardInterrupt)."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"cancelled by {signal.Signals(signum).name}")
        self.signum = signum


class _Watch:
    """The state of one process's cancellation: the first signal, the cleanups, whether the line was said."""

    def __init__(self, describe: Callable[[], str], *, quiet: bool) -> None:
        self.describe = describe
        self.quiet = quiet
        self.signum: int | None = None
        self.raised = False
        self.cleanups: list[Callable[[], object]] = []
        self.lock = threading.Lock()
        self.said = False

    def begin(self, signum: int) -> None:
        """Note the first signal; when quiet, no log record is shown from now on (the line says it all)."""
        if self.signum is None:
            self.signum = signum
            if self.quiet:
                _silence()

    def line(self) -> str | None:
        """The one line `gopat: cancelled by SIG...: ...`, the first time it is asked for after a signal."""
        with self.lock:
            if self.signum is None or self.said:
                return None
            self.said = True
        try:
            what = self.describe()
        except Exception as error:  # the line must be said whatever state the warehouse is in
            what = f"could not read the warehouse ({error})"
        return f"gopat: cancelled by {signal.Signals(self.signum).name}: {what}"


_WATCH: _Watch | None = None


class _Unwinding(logging.Filter):
    """Drop a log record written while the cancellation's exception is being handled (Prefect's crash report of
    the task the signal stopped), and begin the silence there: the watchdog thread may not have run yet."""

    def __init__(self, state: _Watch) -> None:
        super().__init__()
        self.state = state

    def filter(self, record: logging.LogRecord) -> bool:
        error = sys.exc_info()[1]
        # Prefect's SIGTERM bridge raises its TerminationSignal; the CLI imports Prefect only for a flow
        termination = getattr(sys.modules.get("prefect.exceptions"), "TerminationSignal", None)
        signum: int | None = None
        if isinstance(error, Cancelled):
            signum = error.signum
        elif termination is not None and isinstance(error, termination):
            signum = int(error.signal)
        elif isinstance(error, KeyboardInterrupt):
            signum = signal.SIGINT
        if signum is not None:
            self.state.begin(signum)
        return signum is None and self.state.signum is None


@contextlib.contextmanager
def _quiet_handlers(state: _Watch | None) -> Iterator[None]:
    """While the block runs, every log handler configured now drops the records of a quiet watch's unwinding."""
    if state is None or not state.quiet:
        yield
        return
    handlers = {handler for logger in [logging.getLogger(), *logging.Logger.manager.loggerDict.values()]
                if isinstance(logger, logging.Logger) for handler in logger.handlers}
    unwinding = _Unwinding(state)
    for handler in handlers:
        handler.addFilter(unwinding)
    try:
        yield
    finally:
        for handler in handlers:
            handler.removeFilter(unwinding)


def _silence() -> None:
    """Show no log record from now on: `logging.disable`, and each logger disabled for loggers that decide
    for themselves whether they are enabled (Prefect's internal ones)."""
    logging.disable(logging.CRITICAL)
    for logger in [logging.getLogger(), *logging.Logger.manager.loggerDict.values()]:
        if isinstance(logger, logging.Logger):
            logger.disabled = True


def requested() -> int | None:
    """The signal number of the cancellation under way in this process, or None."""
    return _WATCH.signum if _WATCH else None


def cancelled_line() -> str | None:
    """The cancellation's one line, once (None if there was no signal or it was already said)."""
    return _WATCH.line() if _WATCH else None


@contextlib.contextmanager
def watch(*, describe: Callable[[], str], raise_cancelled: bool = False, quiet: bool = False) -> Iterator[None]:
    """Watch for SIGTERM and SIGINT while the block runs (see the module docstring); `describe()` says what stopped.

    With `raise_cancelled` (the CLI) the signals get a handler that raises `Cancelled` once; later signals are
    ignored, the deadline holds. `quiet`: after a signal, log records (Prefect's crash reports, its clients'
    complaints about a temporary server that Ctrl-C already stopped) are not shown, and while the block runs
    logging's own errors are not reported (`logging.raiseExceptions`). A watch nested in another (the flow's, under
    the CLI's) or outside the main thread does one thing only, and only under a quiet watch: while its block
    runs, every log handler configured when it began (Prefect's, by then) drops a record written while the
    cancellation's exception is handled. After a signal the watchdog keeps its deadline beyond the block, over
    the interpreter's exit.
    """
    global _WATCH
    if _WATCH is not None or threading.current_thread() is not threading.main_thread():
        with _quiet_handlers(_WATCH):  # the handlers configured since the outer watch began (Prefect's)
            yield
        return
    state = _WATCH = _Watch(describe, quiet=quiet)
    # Prefect's log shipper writes a failed send straight to stderr unless logging.raiseExceptions is off. Ctrl-C
    # stops the temporary API server at once, and the shipper's thread can fail before the handler below runs.
    reported = logging.raiseExceptions
    logging.raiseExceptions = reported and not quiet
    read, write = os.pipe()
    os.set_blocking(write, False)
    previous_fd = signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    previous = {s: signal.getsignal(s) for s in SIGNALS} if raise_cancelled else {}

    def handler(signum: int, frame: FrameType | None) -> None:
        if not state.raised:
            state.raised = True
            state.begin(signum)
            raise Cancelled(signum)

    for signum in previous:
        signal.signal(signum, handler)
    threading.Thread(target=_watchdog, args=(state, read), name="gopat-cancel-watchdog", daemon=True).start()
    try:
        yield
    finally:
        if state.signum is None:  # after a signal, repeats still go to the handler and the watchdog
            logging.raiseExceptions = reported
            signal.set_wakeup_fd(previous_fd)
            for signum, old in previous.items():
                signal.signal(signum, old)
            os.close(write)  # the watchdog reads end-of-file and ends
            _WATCH = None


@contextlib.contextmanager
def cleanup(action: Callable[[], object]) -> Iterator[None]:
    """Register `action` to run at the deadline, if the build's own `finally` paths did not end the process."""
    if _WATCH is None:
        yield
        return
    _WATCH.cleanups.append(action)
    try:
        yield
    finally:
        _WATCH.cleanups.remove(action)


def describe_build(layout: Layout) -> Callable[[], str]:
    """What the line of a build into `layout` cancelled from now on says about its warehouse."""
    before = current_version(layout)

    def describe() -> str:
        now = current_version(layout)
        if now != before:
            return f"the build into {layout.root} stopped after it published release {now}, which is current"
        return (f"the build into {layout.root} stopped; nothing was published, "
                f"the current release {now or '(none)'} is unchanged")

    return describe


def end() -> NoReturn:
    """End a cancelled process now: stop its descendants, say the line (once), exit with 128 + the signal.

    The interpreter's own exit is skipped: the build's cleanups already ran, and Prefect's exit handlers would
    drain events and logs to the temporary server that is being stopped.
    """
    stop_descendants(os.getpid())
    line = cancelled_line()
    if line:
        print(line, file=sys.stderr)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(128 + (requested() or signal.SIGTERM))


def _watchdog(state: _Watch, read: int) -> None:
    data = os.read(read, 1)
    if not data:
        os.close(read)
        return
    state.begin(data[0])
    time.sleep(DEADLINE_SECONDS)
    for action in list(state.cleanups):
        with contextlib.suppress(Exception):
            action()
    end()


def descendants(pid: int) -> list[int]:
    """The process ids of every live descendant of `pid`, read from /proc."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if fields[0] != "Z":
                children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found: list[int] = []
    queue = [pid]
    while queue:
        below = children.get(queue.pop(0), [])
        found += below
        queue += below
    return found


def stop_descendants(pid: int) -> None:
    """SIGTERM every descendant of `pid` (workers, Prefect's temporary server, Dask), SIGKILL those left after
    STOP_SECONDS."""
    deadline = time.monotonic() + STOP_SECONDS
    while (left := descendants(pid)) and time.monotonic() < deadline:
        for child in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGTERM)
        time.sleep(0.1)
    for child in descendants(pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(child, signal.SIGKILL)
