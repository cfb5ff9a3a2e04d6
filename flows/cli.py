"""The `gopat` command line: turns flows and transforms into commands, messages and exit codes."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

# Before Prefect is imported: no telemetry calls from a machine that may be offline.
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")

DEFAULT_WAREHOUSE = "warehouse"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `gopat` console script; returns the exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except (ValueError, RuntimeError, OSError) as error:
        print(f"gopat: error: {error}", file=sys.stderr)
        return 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gopat", description="Go pattern warehouse")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    build = commands.add_parser("build", help="build and publish a release from SGF sources")
    build.add_argument("--source", action="append", required=True, metavar="SRC",
                       help="URL, .tar.gz/.tgz/.zip archive, .sgf file or folder of .sgf (repeatable)")
    build.add_argument("--expected-sha256", action="append", default=[], metavar="HEX",
                       help="expected sha256 of the source at the same position (repeatable)")
    build.add_argument("--warehouse", default=DEFAULT_WAREHOUSE, metavar="DIR")
    build.add_argument("--families", nargs="+", metavar="F", help="pattern families (default: all)")
    build.add_argument("--workers", type=int, default=0, help="worker processes (default: one per core)")
    build.set_defaults(run=_build)

    export = commands.add_parser("export", help="export pattern tables of a release")
    export.add_argument("format", choices=["go4go-d12", "gnugo"],
                        help="go4go-d12: the seed's d12 table; gnugo: don't-care templates as GNU Go patterns")
    export.add_argument("--symmetries", type=int, choices=[8, 16], help="required for go4go-d12; gnugo: 8")
    export.add_argument("--family", default="sq3", help="gnugo only (default sq3)")
    _release_options(export)
    export.add_argument("-o", "--output", metavar="FILE", help="default: standard output")
    export.set_defaults(run=_export)

    show = commands.add_parser("show", help="a pattern key as a diagram, with its counts and symmetric variants")
    show.add_argument("key", metavar="PATTERN_KEY")
    show.add_argument("--family", required=True)
    show.add_argument("--symmetries", type=int, choices=[8, 16], default=8)
    _release_options(show)
    show.set_defaults(run=_show)

    openings = commands.add_parser("openings", help="the most common opening lines of a release")
    openings.add_argument("--moves", type=int, default=6, metavar="K")
    openings.add_argument("--top", type=int, default=10)
    _release_options(openings)
    openings.set_defaults(run=_openings)

    count = commands.add_parser("count-games", help="distinct N-move games and positions modulo symmetry")
    count.add_argument("--moves", type=int, required=True, metavar="N")
    count.add_argument("--board-size", type=int, default=19, metavar="S")
    count.add_argument("--json", action="store_true")
    count.set_defaults(run=_count_games)
    return parser


def _release_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--warehouse", default=DEFAULT_WAREHOUSE, metavar="DIR")
    parser.add_argument("--release", metavar="VERSION", help="default: the current release")


def _release_connection(args: argparse.Namespace) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with a view per table of the chosen release."""
    import duckdb

    from flows.release import Layout, current_version, read_manifest

    layout = Layout(Path(args.warehouse))
    version = args.release or current_version(layout)
    if version is None:
        raise ValueError(f"no release in {layout.releases}; run `gopat build` first")
    read_manifest(layout, version)
    con = duckdb.connect()
    for parquet in sorted(layout.release_dir(version).glob("*.parquet")):
        con.execute(f"CREATE VIEW {parquet.stem} AS SELECT * FROM read_parquet('{parquet.resolve()}')")
    return con


def _write(text: str, output: str | None) -> None:
    if output:
        Path(output).write_text(text)
        print(f"wrote {output}", file=sys.stderr)
    else:
        sys.stdout.write(text)


def _build(args: argparse.Namespace) -> int:
    from flows.build import DEFAULT_FAMILIES, Ingest, build_release

    if len(args.expected_sha256) > len(args.source):
        raise ValueError("more --expected-sha256 values than --source values")
    manifest = build_release(
        sources=args.source,
        warehouse=args.warehouse,
        expected_sha256=args.expected_sha256,
        families=tuple(args.families or DEFAULT_FAMILIES),
        workers=args.workers,
    )
    ingest = Ingest(**manifest["ingest"])
    print(f"release {manifest['version']}: {Path(args.warehouse) / 'releases' / manifest['version']}")
    print(ingest.line())
    return 0 if ingest.balanced else 1


def _export(args: argparse.Namespace) -> int:
    con = _release_connection(args)
    if args.format == "gnugo":
        from transforms.analytics import export_gnugo

        _write(export_gnugo(con, family=args.family, symmetry=args.symmetries or 8), args.output)
        return 0
    if args.symmetries is None:
        raise ValueError("export go4go-d12 needs --symmetries 8 or 16")
    rows = con.execute(
        "SELECT key, occurrence, chosen, orbit_size FROM pattern_stats WHERE family = 'd12' AND symmetry = ? ORDER BY key",
        [args.symmetries],
    ).fetchall()
    _write("".join(f"{key};{occurrence};{chosen};{orbit}\n" for key, occurrence, chosen, orbit in rows), args.output)
    return 0


def _show(args: argparse.Namespace) -> int:
    from transforms.patterns import FAMILIES, diagram
    from transforms.symmetry import key_string, parse_key

    if args.family not in FAMILIES:
        raise ValueError(f"unknown family {args.family!r}; known: {sorted(FAMILIES)}")
    family = FAMILIES[args.family]
    key = parse_key(args.key)
    if len(args.key) != family.layout.n_digits:
        raise ValueError(f"a {args.family} key has {family.layout.n_digits} digits, got {len(args.key)}")
    group = family.group(args.symmetries)
    canonical = key_string(group.canonical(key), family.layout.n_digits)
    con = _release_connection(args)
    row = con.execute(
        "SELECT occurrence, chosen, chosen_rate FROM pattern_stats WHERE family = ? AND symmetry = ? AND key = ?",
        [args.family, args.symmetries, canonical],
    ).fetchall()
    counts = "not seen in this release" if not row else (
        f"occurrence {row[0][0]}, chosen {row[0][1]}, chosen rate {row[0][2]:.4f}")
    variants = group.variants(key)
    print(f"{args.family} {args.key}\n{diagram(args.family, key)}\n")
    print(f"canonical key ({args.symmetries} symmetries): {canonical}; {counts}")
    print(f"{len(variants)} symmetric variants:")
    for variant in variants:
        print(f"\n{key_string(variant, family.layout.n_digits)}\n{diagram(args.family, variant)}")
    return 0


def _openings(args: argparse.Namespace) -> int:
    from transforms.analytics import openings_text

    sys.stdout.write(openings_text(_release_connection(args), moves=args.moves, top=args.top))
    return 0


def _count_games(args: argparse.Namespace) -> int:
    import json

    from transforms.counting import count_games

    sequences, positions = count_games(args.moves, board_size=args.board_size)
    if args.json:
        print(json.dumps({"board_size": args.board_size, "moves": args.moves,
                          "sequences": sequences, "positions": positions}, separators=(",", ":")))
    else:
        print(f"{args.board_size}x{args.board_size}, {args.moves} moves, up to the 8 symmetries: "
              f"{sequences} sequences, {positions} positions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
