"""Benchmark: `gopat gtp` against GNU Go, N games at one level, alternating colours, komi 7.5.

Usage: .venv/bin/python bench/gtp_match.py --warehouse DIR [--release V] [--games 20] [--first-game 1] [--level 1]
       [--komi 7.5] [--max-moves 600] [--sgf-dir DIR]

gopat plays Black in the odd games and White in the even ones. Both engines run once for the whole
match (`boardsize`, `clear_board` and `komi` start each game). Both engines are deterministic, so
GNU Go's random seed is set to the game's number before each game (`set_random_seed`): without it
every game of one colour would repeat the first; with it a game is reproducible by its number, and
`--first-game 11 --games 10` plays the second half of a 20-game match in another process. Every
move of both sides is checked by the referee of tests/scenarios/gtp_referee.py (sgfmill and the
product's rules); a game ends on two passes, a resignation or --max-moves moves and is scored by
GNU Go's `final_score`; a game in which an engine dies or breaks the protocol is not scored, and a
dead engine is started again. Prints one line per game, then (also after Ctrl-C, for the games finished)
gopat's wins by colour, the mean score from gopat's side and the mean time of a `genmove` of each
engine (as the referee measures it: command sent to response read).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.scenarios.gtp_referee import Engine, GtpFailure, gnugo_engine, gopat_engine, play_game  # noqa: E402


def margin(score: str, gopat_colour: str) -> float:
    """gopat's points from a result such as `B+12.5`, `W+R` (a resignation counts 0 points) or `0` (a draw)."""
    winner, _, points = score.partition("+")
    value = float(points) if points and points != "R" else 0.0
    return value if winner.lower() == gopat_colour else -value


def alive(engine: Engine, start: Callable[[], Engine]) -> Engine:
    """`engine` while its process runs; else a new one from `start`, which keeps its timings."""
    if engine.process.poll() is None:
        return engine
    engine.close()
    again = start()
    again.seconds = engine.seconds
    return again


def main() -> int:
    """Play the match and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warehouse", required=True, type=Path)
    parser.add_argument("--release")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--first-game", type=int, default=1)
    parser.add_argument("--level", type=int, default=1)
    parser.add_argument("--komi", type=float, default=7.5)
    parser.add_argument("--max-moves", type=int, default=600)
    parser.add_argument("--sgf-dir", type=Path, help="write each game there as SGF")
    args = parser.parse_args()
    start = time.perf_counter()
    gopat, gnugo = gopat_engine(args.warehouse, release=args.release), gnugo_engine(level=args.level, komi=args.komi)
    print(f"gopat {gopat.send('version')} against GNU Go {gnugo.send('version')} level {args.level}, "
          f"komi {args.komi:g}, {args.games} games (engines ready in {time.perf_counter() - start:.1f} s)", flush=True)
    wins = {"b": [0, 0], "w": [0, 0]}
    margins, ends, failures = [], [], []
    try:
        for number in range(args.first_game, args.first_game + args.games):
            calls = len(gopat.seconds.get("genmove", []))
            colour = "b" if number % 2 else "w"
            gnugo.send(f"set_random_seed {number}")
            black, white = (gopat, gnugo) if colour == "b" else (gnugo, gopat)
            began = time.perf_counter()
            try:
                game = play_game(black, white, komi=args.komi, max_moves=args.max_moves)
            except GtpFailure as failure:  # not scored; an engine that died is started again for the next game
                failures.append(number)
                print(f"game {number:2d}: not scored: {failure}", flush=True)
                gopat, gnugo = (alive(gopat, lambda: gopat_engine(args.warehouse, release=args.release)),
                                alive(gnugo, lambda: gnugo_engine(level=args.level, komi=args.komi)))
                continue
            game.result = game.result or gnugo.send("final_score")
            won = game.result[:1].lower() == colour
            wins[colour][0] += won
            wins[colour][1] += 1
            margins.append(margin(game.result, colour))
            ends.append(game.end)
            if args.sgf_dir:
                args.sgf_dir.mkdir(parents=True, exist_ok=True)
                (args.sgf_dir / f"game-{number:02d}.sgf").write_bytes(game.sgf_bytes())
            ours = gopat.seconds["genmove"][calls:]
            print(f"game {number:2d}: gopat {'Black' if colour == 'b' else 'White'}, {len(game.moves)} moves, "
                  f"ended by {game.end}, {game.result} ({'gopat' if won else 'GNU Go'} wins), "
                  f"{time.perf_counter() - began:.0f} s, gopat genmove {statistics.fmean(ours):.3f} s mean", flush=True)
    except KeyboardInterrupt:  # Ctrl-C: the figures of the games played so far
        print("interrupted", flush=True)
    finally:
        gopat.close()
        gnugo.close()
    if not margins:
        return 1
    ours, theirs = gopat.seconds.get("genmove", []), gnugo.seconds.get("genmove", [])
    print(f"gopat won {wins['b'][0] + wins['w'][0]} of {len(margins)} (as Black {wins['b'][0]}/{wins['b'][1]}, "
          f"as White {wins['w'][0]}/{wins['w'][1]}); mean score {statistics.fmean(margins):+.1f} for gopat; "
          f"ends: {', '.join(f'{e} {ends.count(e)}' for e in sorted(set(ends)))}"
          + (f"; not scored: game {', '.join(map(str, failures))}" if failures else ""))
    print(f"genmove: gopat {statistics.fmean(ours):.3f} s mean over {len(ours)} "
          f"(median {statistics.median(ours):.3f} s), GNU Go {statistics.fmean(theirs):.3f} s mean over {len(theirs)}; "
          f"match {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
