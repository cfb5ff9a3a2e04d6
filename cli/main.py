"""The `gopat` command line: turns flows and transforms into commands, messages and exit codes."""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence

# Before Prefect is imported: no telemetry calls from a machine that may be offline, and time for
# the temporary local API server to start on a busy machine (Prefect's default is 20 s).
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")

from gopat.cli import commands  # noqa: E402 - after the environment default above


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `gopat` console script; returns the exit code."""
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except (ValueError, RuntimeError, OSError) as error:
        print(f"gopat: error: {error}", file=sys.stderr)
        return 1


def parser() -> argparse.ArgumentParser:
    """The argument parser, with the commands of every module in cli/commands/."""
    top = argparse.ArgumentParser(prog="gopat", description="Go pattern warehouse")
    subparsers = top.add_subparsers(required=True, metavar="COMMAND")
    for module in sorted(m.name for m in pkgutil.iter_modules(commands.__path__)):
        importlib.import_module(f"gopat.cli.commands.{module}").register(subparsers)
    return top


if __name__ == "__main__":
    sys.exit(main())
