"""`gopat export` and `gopat show`: pattern tables of a release in the seeds' formats."""

from __future__ import annotations

import argparse

from gopat.cli.commands import release_connection, release_options, write_output
from gopat.transforms.patterns.groups import SQUARE_SYMMETRIES, SYMMETRIES

GNUGO_SYMMETRIES = SQUARE_SYMMETRIES  # `export gnugo` without --symmetries
GROUPS = " or ".join(map(str, SYMMETRIES))  # the --symmetries values in words: "8 or 16"


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `export` and `show` commands."""
    export = commands.add_parser("export", help="export pattern tables of a release")
    export.add_argument("format", choices=["go4go-d12", "gnugo"],
                        help="go4go-d12: the seed's d12 table; gnugo: don't-care templates as GNU Go patterns")
    export.add_argument("--symmetries", type=int, choices=SYMMETRIES,
                        help=f"required for go4go-d12; gnugo: {GROUPS} (default: {GNUGO_SYMMETRIES}, one colour to "
                             "move per pattern)")
    export.add_argument("--family", default="sq3", help="gnugo only")
    release_options(export)
    export.add_argument("-o", "--output", metavar="FILE", help="default: standard output")
    export.set_defaults(run=export_table)

    show = commands.add_parser("show", help="a pattern key as a diagram, with its counts and symmetric variants")
    show.add_argument("key", metavar="PATTERN_KEY")
    show.add_argument("--family", required=True)
    show.add_argument("--symmetries", type=int, choices=SYMMETRIES, default=SQUARE_SYMMETRIES,
                      help="the key's symmetry group")
    show.add_argument("--svg", metavar="FILE", help="also write the key's diagram as an SVG file")
    release_options(show)
    show.set_defaults(run=show_pattern)


def export_table(args: argparse.Namespace) -> int:
    """Write d12 rows in the go4go seed format, or templates in GNU Go's pattern syntax."""
    con = release_connection(args)
    if args.format == "gnugo":
        from gopat.transforms.patterns.gnugo import export_gnugo

        write_output(export_gnugo(con, family=args.family, symmetry=args.symmetries or GNUGO_SYMMETRIES), args.output)
        return 0
    if args.symmetries is None:
        raise ValueError(f"export go4go-d12 needs --symmetries {GROUPS}")
    from gopat.transforms.analytics.loader import sql_text

    rows = con.execute(sql_text("queries/pattern_stats_go4go_d12"), [args.symmetries]).fetchall()
    lines = (f"{key};{occurrence};{chosen};{orbit}\n" for key, occurrence, chosen, orbit in rows)
    write_output("".join(lines), args.output)
    return 0


def show_pattern(args: argparse.Namespace) -> int:
    """Print a key's diagram, its canonical key and counts, and every symmetric variant."""
    from gopat.transforms.patterns.families import FAMILIES
    from gopat.transforms.patterns.keys import key_string
    from gopat.transforms.patterns.render import pattern_svg, pattern_text
    from gopat.transforms.patterns.valid_keys import parse_family_key

    key = parse_family_key(args.family, args.key)
    family = FAMILIES[args.family]
    group = family.group(args.symmetries)
    canonical = key_string(group.canonical(key), family.layout.n_digits)
    con = release_connection(args)
    row = con.execute(
        "SELECT occurrence, chosen, chosen_rate FROM pattern_stats WHERE family = ? AND symmetry = ? AND key = ?",
        [args.family, args.symmetries, canonical],
    ).fetchall()
    counts = "not seen in this release" if not row else (
        f"occurrence {row[0][0]}, chosen {row[0][1]}, chosen rate {row[0][2]:.4f}")
    variants = group.variants(key)
    print(f"{args.family} {args.key}\n{pattern_text(args.family, key)}\n")
    print(f"canonical key ({args.symmetries} symmetries): {canonical}; {counts}")
    print(f"{len(variants)} symmetric variants:")
    for variant in variants:
        print(f"\n{key_string(variant, family.layout.n_digits)}\n{pattern_text(args.family, variant)}")
    if args.svg:
        write_output(pattern_svg(args.family, args.key, cell=40) + "\n", args.svg)
    return 0
