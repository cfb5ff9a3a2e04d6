"""`gopat build`: build and publish a release."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from gopat.cli.commands import DEFAULT_WAREHOUSE, console_warnings_only


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `build` command."""
    build = commands.add_parser("build", help="build and publish a release from SGF sources")
    build.add_argument("--source", action="append", required=True, metavar="SRC",
                       help="URL, .tar.gz/.tgz/.zip archive, .sgf file or folder of .sgf (repeatable)")
    build.add_argument("--expected-sha256", action="append", default=[], metavar="HEX",
                       help="expected sha256 of the source at the same position (repeatable)")
    build.add_argument("--warehouse", default=DEFAULT_WAREHOUSE, metavar="DIR", help="the warehouse folder")
    build.add_argument("--families", nargs="+", metavar="F",
                       help="pattern families (default: d12 sq3 sq5 dia13 blk4; "
                            "prediction: lib5 lib9 lib13 dia21 dia29)")
    build.add_argument("--min-occurrence", nargs="+", metavar="F=N", default=[],
                       help="publish only the keys of family F seen at least N times in pattern_stats, the rest "
                            "summed in pattern_tail (not d12 sq3 dia13; default: sq5=2 blk4=2, 2 for the "
                            "prediction families, 1 for the others)")
    build.add_argument("--move-patterns", nargs="+", metavar="F",
                       help="families of the move_patterns table, among --families (default: d12 dia13 sq3; "
                            "not blk4)")
    build.add_argument("--workers", type=int, default=0,
                       help="worker processes of the local runners; with tcp://, the fewest extraction shards "
                            "(default: one per core)")
    build.add_argument("--keep", type=int, metavar="N", help="keep the N newest releases (default: all)")
    build.add_argument("--runner", default="local",
                       help="where shard work runs: local (processes), dask (a temporary local cluster) or "
                            "tcp://HOST:PORT (the scheduler of a running Dask cluster)")
    build.add_argument("--quiet", action="store_true", help="no progress bar and no log lines, only the result")
    build.set_defaults(run=run, cancel=cancelled)


def cancelled(args: argparse.Namespace) -> Callable[[], str]:
    """What the line of this build, if cancelled, says about its warehouse (flows/cancel.py)."""
    from gopat.effects.warehouse.layout import Layout
    from gopat.flows.cancel import describe_build

    return describe_build(Layout(Path(args.warehouse).resolve()))


def run(args: argparse.Namespace) -> int:
    """Run the build flow and print the release and the ingest equation."""
    from gopat.effects.warehouse.fetch import check_sources

    # Input errors first, before Prefect and its temporary API server start; a wrong path, the most common
    # one, before the modules the other checks need are loaded (they take most of a second).
    check_sources(args.source)
    from gopat.effects.warehouse.manifest import Ingest, check_inputs
    from gopat.transforms.patterns.canonical import DEFAULT_EVENT_FAMILIES
    from gopat.transforms.patterns.families import DEFAULT_FAMILIES

    families = tuple(args.families or DEFAULT_FAMILIES)
    event_families = tuple(args.move_patterns or DEFAULT_EVENT_FAMILIES)
    thresholds = parse_thresholds(args.min_occurrence)
    check_inputs(sources=args.source, expected_sha256=args.expected_sha256, families=families,
                 min_occurrence=thresholds, event_families=event_families)
    if args.quiet:
        console_warnings_only()
    from gopat.flows.build import build_release

    manifest = build_release(
        sources=args.source,
        warehouse=args.warehouse,
        expected_sha256=args.expected_sha256,
        families=families,
        min_occurrence=thresholds,
        event_families=event_families,
        workers=args.workers,
        runner=args.runner,
        keep=args.keep,
        show_progress="quiet" if args.quiet else "auto",
    )
    ingest = Ingest(**manifest["ingest"])
    print(f"release {manifest['version']}: {Path(args.warehouse) / 'releases' / manifest['version']}")
    print(ingest.line())
    return 0 if ingest.balanced else 1


def parse_thresholds(items: list[str]) -> dict[str, int]:
    """`--min-occurrence` values (``F=N``) as a dict; ValueError naming the first malformed one."""
    thresholds: dict[str, int] = {}
    for item in items:
        family, sep, number = item.partition("=")
        if not sep or not family or not number.isdigit():
            raise ValueError(f"--min-occurrence takes FAMILY=N (N a positive integer), got {item!r}")
        thresholds[family] = int(number)
    return thresholds
