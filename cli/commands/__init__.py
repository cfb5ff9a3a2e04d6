"""Subcommands of `gopat`: every module here registers its commands with `register(commands)`.

Helpers shared by the commands live in this module.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when a command runs: `gopat` starts and refuses bad input fast
    import duckdb

DEFAULT_WAREHOUSE = "warehouse"


def console_warnings_only() -> None:
    """Show only the warnings and errors of a flow run on the console (call before the flow module is imported).

    The console handler's level, not the loggers': the run's logs still go to its API from the
    start, so Prefect's log shipper starts in the flow run's context. Started by a task's first
    warning instead, it keeps that task's parameters (a DuckDB connection) alive until the
    interpreter exits, and DuckDB then prints its leaked objects (`nanobind: leaked ...`).
    """
    os.environ["PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL"] = "WARNING"


def release_options(parser: argparse.ArgumentParser) -> None:
    """Add --warehouse and --release to a command that reads a published release."""
    parser.add_argument("--warehouse", default=DEFAULT_WAREHOUSE, metavar="DIR", help="the warehouse folder")
    parser.add_argument("--release", metavar="VERSION", help="default: the current release")


def release_connection(args: argparse.Namespace) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with a view per table of the release chosen by --warehouse and --release."""
    from gopat.effects.warehouse.open import connect_release

    con, _ = connect_release(Path(args.warehouse), args.release)
    return con


def write_output(text: str, output: str | None) -> None:
    """Write `text` to a file (atomically: a temporary file beside it, then a rename; say so on stderr) or to
    standard output."""
    if output:
        path = Path(output)
        tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
        try:
            tmp.write_text(text)
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
        print(f"wrote {output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
