"""`gopat search`: the games of a release where a drawn pattern occurs, and what was played next (docs/search.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from gopat.cli.commands import DEFAULT_WAREHOUSE


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `search` command."""
    search = commands.add_parser("search", help="find the games where a drawn pattern occurs (docs/search.md)")
    search.add_argument("pattern", metavar="PATTERN", help="a file holding the ASCII diagram, or - for stdin")
    search.add_argument("--warehouse", default=DEFAULT_WAREHOUSE, metavar="DIR", help="the warehouse folder")
    search.add_argument("--release", metavar="VERSION", help="default: the current release")
    search.add_argument("--colour-swap", action="store_true", help="also match with black and white exchanged")
    search.add_argument("--to-move", choices=["B", "W"], help="only positions where this colour (as drawn) moves next")
    search.add_argument("--from-year", type=int, metavar="Y")
    search.add_argument("--to-year", type=int, metavar="Y")
    search.add_argument("--player", metavar="NAME", help="games where either player's name contains NAME (any case)")
    search.add_argument("--games", type=int, default=10, metavar="N", help="games listed (--json: all)")
    search.add_argument("--json", action="store_true", help="print the answer as one JSON object")
    search.set_defaults(run=run_search)


def run_search(args: argparse.Namespace) -> int:
    """Parse the diagram (bad input fails before the release is read), search, print."""
    from gopat.transforms.search.diagram import parse_diagram

    name = "<stdin>" if args.pattern == "-" else args.pattern
    if args.pattern == "-":
        text = sys.stdin.read()
    else:
        try:
            text = Path(args.pattern).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise ValueError(f"{name}: cannot read the pattern ({getattr(error, 'strerror', None) or error})") from None
    pattern = parse_diagram(text, name=name)
    if args.games < 0:
        raise ValueError(f"--games must be 0 or more, got {args.games}")

    from gopat.effects.search_index import load_index
    from gopat.transforms.search.query import search, select_games, summary

    index = load_index(Path(args.warehouse), args.release)
    if index.built_seconds is not None:
        print(f"built the search index of release {index.version} in {index.built_seconds:.1f} s: {index.path}",
              file=sys.stderr)
    games = select_games(index.games, from_year=args.from_year, to_year=args.to_year, player=args.player)
    hits = search(index.events, games, pattern, colour_swap=args.colour_swap, to_move=args.to_move)
    answer = summary(hits, index.games, searched=len(games))
    if args.json:
        print(json.dumps({"release": index.version, **answer}, ensure_ascii=False))
    else:
        print(report(answer, pattern, release=index.version, games=args.games))
    return 0


def report(answer: dict[str, Any], pattern: Any, *, release: str, games: int) -> str:
    """The answer as text: hits, continuations (labelled on the diagram), years, players, the first games."""
    from gopat.transforms.search.diagram import diagram_text

    labels: dict[tuple[int, int], str] = {}
    lines = [f"release {release}: {answer['hits']} of {answer['searched']} games match", "",
             "continuations (the first later move inside the pattern):",
             f"{'':3}{'point':>8} {'colour':>6} {'games':>6} {'next':>6} {'tenuki':>6} {'B win':>6}"]
    for rank, c in enumerate(answer["continuations"]):
        label = chr(ord("A") + rank) if rank < 26 else ""
        if label and tuple(c["point"]) not in labels:
            labels[tuple(c["point"])] = label
        rate = "-" if c["black_win_rate"] is None else f"{100 * c['black_win_rate']:.0f}%"
        point = f"({c['point'][0]},{c['point'][1]})"
        counts = f"{c['count']:>6} {c['immediate']:>6} {c['tenuki']:>6}"
        lines.append(f"{label:3}{point:>8} {c['colour']:>6} {counts} {rate:>6}")
    lines += [f"{'':3}{'none':>8} {'':>6} {answer['no_continuation']:>6}", "", diagram_text(pattern, labels=labels), "",
              "hits per year:"]
    lines += [f"  {'unknown' if y['year'] is None else y['year']}: {y['hits']}" for y in answer["years"]]
    lines += ["", "players with most hits:"] + [f"  {p['hits']:>6}  {p['name']}" for p in answer["players"]]
    lines += ["", f"games (first {min(games, answer['hits'])} of {answer['hits']}):"]
    for g in answer["games"][:games]:
        swapped = ", colours swapped" if g["swapped"] else ""
        lines.append(f"  {g['game_id']}  {g['black'] or '?'} (B) - {g['white'] or '?'} (W)  {g['date'] or '?'}  "
                     f"at move {g['move']}{swapped}")
    return "\n".join(lines)
