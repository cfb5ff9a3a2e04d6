"""The build lock of a warehouse, the recovery that runs under it, and the fault points of the crash tests."""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import sys
from collections.abc import Iterator

import duckdb

from gopat.effects.warehouse.catalog import catalog_state, refresh_catalog
from gopat.effects.warehouse.files import remove
from gopat.effects.warehouse.layout import Layout
from gopat.effects.warehouse.verify import disk_state

FAULT_STOP_ENV = "GOPAT_FAULT_STOP"
FAULT_SQL_ENV = "GOPAT_FAULT_SQL"


def fault_point(step: str, *, con: duckdb.DuckDBPyConnection | None = None) -> None:
    """Test hook, the only reader of the fault variables; does nothing when they are unset.

    ``GOPAT_FAULT_STOP=step[,step...]``: at a named step the process says so on stderr and stops
    itself with SIGSTOP, so a test can kill it with SIGKILL at a known point or let it go on with
    SIGCONT. ``GOPAT_FAULT_SQL=statement``: run on the build's database at the step that passes `con`
    (before analytics and validation start), e.g. to break a table and see the expectations stop the publish.
    """
    if step in os.environ.get(FAULT_STOP_ENV, "").split(","):
        print(f"gopat: fault point {step}: stopping (pid {os.getpid()})", file=sys.stderr, flush=True)
        os.kill(os.getpid(), signal.SIGSTOP)
    statement = os.environ.get(FAULT_SQL_ENV)
    if con is not None and statement:
        con.execute(statement)


@contextlib.contextmanager
def build_lock(layout: Layout) -> Iterator[None]:
    """Hold the warehouse's build lock, then `recover`; a second build exits at once with a clear message."""
    layout.root.mkdir(parents=True, exist_ok=True)
    path = layout.root / ".build.lock"
    with path.open("a+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "?"
            raise RuntimeError(
                f"another build (pid {holder}) holds {path}; nothing was changed, try again when it ends"
            ) from None
        fh.truncate(0)
        fh.write(f"{os.getpid()}\n")
        fh.flush()
        recover(layout)
        try:
            yield
        except BaseException:
            discard_leftovers(layout)  # also when a second signal cut a `finally` of the build short
            raise


def discard_leftovers(layout: Layout) -> list[str]:
    """Remove hidden temporary release folders, trash (of releases and runs), temporary CURRENT and catalog
    files and staging/.

    Call only under the build lock (raw/ keeps its `.part` files so downloads resume). Returns the names removed.
    """
    leftovers = []
    if layout.releases.is_dir():
        leftovers += [p for p in layout.releases.iterdir() if p.name.startswith((".tmp-", ".trash-", "CURRENT.tmp-"))]
    if layout.root.is_dir():
        leftovers += [p for p in layout.root.iterdir() if p.name.startswith(".catalog-")]
    if layout.runs.is_dir():  # a run being removed (docs/releases.md#complete-counts)
        leftovers += [p for p in layout.runs.iterdir() if p.name.startswith(".trash-")]
    if layout.staging.is_dir():
        leftovers += list(layout.staging.iterdir())
    for path in sorted(leftovers):
        remove(path)
    return [path.name for path in sorted(leftovers)]


def recover(layout: Layout) -> list[str]:
    """Remove what an interrupted build left behind and make the catalog match the disk.

    Call only under the build lock. Removes hidden temporary release folders, trash, temporary
    CURRENT and catalog files and staging/ (raw/ keeps its `.part` files so downloads resume).
    Returns the names of what was removed or rebuilt.
    """
    done = discard_leftovers(layout)
    if layout.releases.is_dir() and catalog_state(layout) != disk_state(layout):
        refresh_catalog(layout)
        done.append(layout.catalog.name)
    return done
