"""`gopat serve`: serve the deployments of prefect.yaml from this machine (Prefect's `serve`)."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `serve` command."""
    serve = commands.add_parser(
        "serve", help="serve the deployments of prefect.yaml (schedules included) until interrupted",
        description="Run from the repository folder with PREFECT_API_URL pointing at a Prefect server; "
                    "flow runs start in this folder.",
    )
    serve.add_argument("--prefect-file", default="prefect.yaml", metavar="FILE", help="the deployments")
    serve.add_argument("--limit", type=int, default=1, help="flow runs at a time")
    serve.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted (Ctrl-C or SIGTERM)."""
    from gopat.flows.deployments import serve

    prefect_file = Path(args.prefect_file)
    if not prefect_file.is_file():
        raise ValueError(f"{prefect_file}: no such file; run gopat serve from the repository folder")
    serve(prefect_file=prefect_file, limit=args.limit)
    return 0
