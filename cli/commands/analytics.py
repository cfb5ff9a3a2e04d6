"""`gopat openings` and `gopat count-games`: opening lines and game counts modulo symmetry."""

from __future__ import annotations

import argparse
import json
import sys

from gopat.cli.commands import release_connection, release_options


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `openings` and `count-games` commands."""
    openings = commands.add_parser("openings", help="the most common opening lines of a release")
    openings.add_argument("--moves", type=int, default=6, metavar="K", help="moves of an opening line")
    openings.add_argument("--top", type=int, default=10, help="lines shown")
    release_options(openings)
    openings.set_defaults(run=show_openings)

    count = commands.add_parser("count-games", help="distinct N-move games and positions modulo symmetry")
    count.add_argument("--moves", type=int, required=True, metavar="N")
    count.add_argument("--board-size", type=int, default=19, metavar="S", help="board size")
    count.add_argument("--json", action="store_true")
    count.set_defaults(run=count_games)


def show_openings(args: argparse.Namespace) -> int:
    from gopat.transforms.analytics.openings import openings_text

    sys.stdout.write(openings_text(release_connection(args), moves=args.moves, top=args.top))
    return 0


def count_games(args: argparse.Namespace) -> int:
    from gopat.transforms.analytics.counting import count_games as count

    sequences, positions = count(args.moves, board_size=args.board_size)
    if args.json:
        print(json.dumps({"board_size": args.board_size, "moves": args.moves,
                          "sequences": sequences, "positions": positions}, separators=(",", ":")))
    else:
        print(f"{args.board_size}x{args.board_size}, {args.moves} moves, up to the 8 symmetries: "
              f"{sequences} sequences, {positions} positions")
    return 0
