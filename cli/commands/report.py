"""`gopat report`: a static HTML report of a release that works offline."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gopat.cli.commands import release_options
from gopat.transforms.patterns.groups import SQUARE_SYMMETRIES, SYMMETRIES


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `report` command."""
    report = commands.add_parser("report", help="write a static, offline HTML report of a release")
    release_options(report)
    report.add_argument("-o", "--output", required=True, metavar="DIR", help="folder for the HTML pages")
    report.add_argument("--top", type=int, default=24, help="pattern diagrams per section")
    report.add_argument("--symmetries", type=int, choices=SYMMETRIES, default=SQUARE_SYMMETRIES,
                        help="pattern pages")
    report.add_argument("--explorer-nodes", type=int, default=400, metavar="N",
                        help="positions in the opening explorer")
    report.set_defaults(run=write_report)


def write_report(args: argparse.Namespace) -> int:
    """Build the report pages and list them on stderr."""
    from gopat.effects.report.report import ReportOptions, build_report, report_summary

    options = ReportOptions(top=args.top, symmetry=args.symmetries, explorer_nodes=args.explorer_nodes)
    pages = build_report(Path(args.warehouse), Path(args.output), release=args.release, options=options)
    print(report_summary(pages), file=sys.stderr)
    print(f"open {pages[0].resolve().as_uri()}", file=sys.stderr)
    return 0
