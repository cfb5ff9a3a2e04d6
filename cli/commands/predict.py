"""`gopat suggest`, `evaluate`, `calibrate` and `holdout`: move prediction from a release's pattern statistics."""

from __future__ import annotations

import argparse
import json
import os
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from gopat.cli.commands import DEFAULT_WAREHOUSE, console_warnings_only, release_options

if TYPE_CHECKING:
    from gopat.effects.warehouse.layout import Layout, Manifest

LABELS = "123456789abcdefghijklmnopqrstuvwxyz"
FACTORS = 8  # latent factors per feature that `calibrate` fits by default (docs/prediction.md)
WEIGHTS_HELP = "ranking weights (default: the most accurate shipped ones the release has the families for)"


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `suggest`, `evaluate`, `calibrate` and `holdout` commands."""
    suggest = commands.add_parser("suggest", help="the most likely next moves of a position, from pattern statistics")
    suggest.add_argument("sgf", metavar="FILE.sgf")
    suggest.add_argument("--move", type=int, metavar="N", help="the position after N moves (default: the last)")
    suggest.add_argument("--top", type=int, default=10, metavar="K", help=f"candidates to show (1..{len(LABELS)})")
    suggest.add_argument("--diagrams", action="store_true", help="also print each candidate's matched pattern")
    suggest.add_argument("--weights", metavar="FILE", help=WEIGHTS_HELP)
    release_options(suggest)
    suggest.set_defaults(run=run_suggest)

    evaluate = commands.add_parser("evaluate",
                                   help="top-1/5/10 move prediction accuracy of a release on held-out games")
    evaluate.add_argument("--games", required=True, metavar="SRC", help="URL, archive, .sgf file or folder of games")
    evaluate.add_argument("--warehouse", default=DEFAULT_WAREHOUSE, metavar="DIR", help="the warehouse folder")
    evaluate.add_argument("--release", metavar="VERSION", help="default: the current release")
    evaluate.add_argument("--weights", metavar="FILE", help=WEIGHTS_HELP)
    evaluate.add_argument("--json", action="store_true", help="print the result as one JSON object")
    evaluate.add_argument("--no-record", action="store_true", help="do not store the result in the release manifest")
    evaluate.set_defaults(run=run_evaluate)

    calibrate = commands.add_parser("calibrate", help="fit ranking weights on games the release was not built from")
    calibrate.add_argument("--games", required=True, metavar="SRC", help="URL, archive, .sgf file or folder of games")
    calibrate.add_argument("--out", required=True, metavar="FILE.json", help="where to write the weights")
    calibrate.add_argument("--levels", nargs="+", metavar="F", help="candidate families, largest first (default: "
                           "dia29 dia21 lib13 lib9 lib5, those of the shipped weights)")
    calibrate.add_argument("--no-distance", action="store_true", help="patterns alone: no distance to the last moves")
    calibrate.add_argument("--factors", type=int, default=FACTORS, metavar="K", help="latent factors per feature, "
                           "for feature interactions (0: the linear model alone)")
    calibrate.add_argument("--max-games", type=int, default=1000, metavar="N",
                           help="fit on the first N games")
    release_options(calibrate)
    calibrate.set_defaults(run=run_calibrate)

    holdout = commands.add_parser("holdout", help="split an archive by date into train and test archives")
    holdout.add_argument("--source", required=True, metavar="SRC", help="archive, .sgf file or folder")
    holdout.add_argument("--test-from", type=int, required=True, metavar="YEAR", help="first year of the test games")
    holdout.add_argument("--train", required=True, metavar="OUT.tar.gz")
    holdout.add_argument("--test", required=True, metavar="OUT.tar.gz")
    holdout.add_argument("--test-games", type=int, metavar="N", help="a seeded random sample of N test files")
    holdout.add_argument("--seed", type=int, default=0, help="seed of the --test-games sample")
    holdout.add_argument("--calibration", metavar="OUT.tar.gz", help="also write held-out games not in --test, "
                         "to fit ranking weights on (`gopat calibrate`)")
    holdout.add_argument("--calibration-games", type=int, default=1000, metavar="N", help="how many")
    holdout.set_defaults(run=run_holdout)


def run_suggest(args: argparse.Namespace) -> int:
    """Print the position with the top candidates marked, then one line per candidate."""
    from gopat.effects.evaluation import predictor_for
    from gopat.transforms.games.errors import RejectError
    from gopat.transforms.games.parsing import parse_games
    from gopat.transforms.games.records import game_row
    from gopat.transforms.games.render import Mark, board_text, point_name
    from gopat.transforms.patterns.families import FAMILIES
    from gopat.transforms.patterns.render import pattern_text
    from gopat.transforms.predict.candidates import tactics_text
    from gopat.transforms.predict.predictor import score_position
    from gopat.transforms.predict.ranking import load_weights

    if not 1 <= args.top <= len(LABELS):
        raise ValueError(f"--top must be within 1..{len(LABELS)}, got {args.top}")
    path = Path(args.sgf)
    if not path.is_file():
        raise ValueError(f"{args.sgf}: no such file")
    layout, version, weights_path = release_and_weights(args)
    weights = load_weights(weights_path)
    try:
        records = parse_games(path.read_bytes())
    except RejectError as error:
        raise ValueError(f"{args.sgf}: {error.reason}: {error}") from None
    _, game = game_row(records[0], game_id=args.sgf)
    predictor = predictor_for(layout, version, weights=weights)
    names, response_family = predictor.levels.names, predictor.levels.response
    position = score_position(predictor, game, moves=len(game.moves) if args.move is None else args.move)
    top = position.candidates[:args.top]
    size = len(position.board)
    stones = [(1 if ch == "X" else 2, r, c) for r, row in enumerate(position.board) for c, ch in enumerate(row)
              if ch in "XO"]
    mover = "Black" if position.colour == 1 else "White"
    last = f", last move {point_name(*position.last, size=size)}" if position.last else ""
    print(f"{args.sgf}: position after {position.moves} moves, {mover} to move{last} (release {version})")
    print(board_text(size, stones, marks=[Mark(c.row, c.col, LABELS[i]) for i, c in enumerate(top)]))
    response_header = f"{response_family} seen/chosen"
    print(f"\n{'':2} {'point':5} {'prob':>6}  {'pattern':15} {'seen':>9} {'chosen':>8} {'rate':>6}  "
          f"{response_header:15}  tactics")
    for label, cand in zip(LABELS, top, strict=False):  # fewer candidates than labels
        level = names.index(cand.family) if cand.family else None
        seen, chosen = (cand.occurrence[level], cand.chosen[level]) if level is not None else (0, 0)
        pattern = f"{cand.family} ({len(FAMILIES[cand.family].layout.points)} pts)" if cand.family else "none"
        rate = f"{chosen / seen:.3f}" if seen else "-"
        response = f"{cand.occurrence[-1]}/{cand.chosen[-1]}" if cand.keys[-1] is not None else "-"
        book = f"; opening book {cand.book[1]} of {cand.book[0]} games" if cand.book[0] else ""
        point = point_name(cand.row, cand.col, size=size)
        print(f"{label:2} {point:5} {cand.probability:6.3f}  {pattern:15} {seen:9d} "
              f"{chosen:8d} {rate:>6}  {response:15}  {tactics_text(cand.tactics)}{book}")
        key = cand.keys[level] if level is not None else None
        if args.diagrams and cand.family is not None and key is not None:
            print(f"   {cand.family} {key}\n   " + pattern_text(cand.family, key).replace("\n", "\n   "))
    return 0


def run_evaluate(args: argparse.Namespace) -> int:
    """Run the evaluation flow; print the accuracy (or the JSON record's result)."""
    _, _, weights = release_and_weights(args)  # before the flow and its API server start
    if args.json:
        console_warnings_only()  # standard output is the JSON object alone
    from gopat.flows.evaluate import evaluate_release

    record = evaluate_release(games=args.games, warehouse=args.warehouse, release=args.release,
                              weights=str(weights), record=not args.no_record)
    result = record["result"]
    if args.json:
        print(json.dumps({**result, "release": record["release"], "seconds": record["seconds"]}, separators=(",", ":")))
        return 0
    print(f"release {record['release']} on {record['games']['source']}: {result['games']} games, "
          f"{result['positions']} positions, {record['seconds']} s")
    print(f"top-1 {result['top1']:.4f}  top-5 {result['top5']:.4f}  top-10 {result['top10']:.4f}  "
          f"mean rank {result['mean_rank']:.2f}  log-likelihood {result['log_likelihood']:.4f}")
    for phase, values in result["phases"].items():
        print(f"  moves {phase:8} {values['positions']:8d} positions  top-1 {values['top1']:.4f}  "
              f"top-5 {values['top5']:.4f}  top-10 {values['top10']:.4f}")
    matched = ", ".join(f"{name} {share:.1%}" for name, share in result["matched"].items())
    print(f"played move's largest matched pattern: {matched}; d12 response {result['response_matched']:.1%}; "
          f"opening book {result['book_matched']:.1%}")
    return 0


def run_calibrate(args: argparse.Namespace) -> int:
    """Fit ranking weights for a release's levels on held-out games and write them (atomically)."""
    from dataclasses import replace

    from gopat.effects.evaluation import predictor_for, read_games
    from gopat.transforms.checks import positive
    from gopat.transforms.predict.predictor import LEVELS, RESPONSE, fit
    from gopat.transforms.predict.ranking import Weights

    positive("--max-games", args.max_games)
    if args.factors < 0:
        raise ValueError(f"--factors must be at least 0, got {args.factors}")
    names = tuple(args.levels) if args.levels else LEVELS
    layout, version = release_with_families(args, (*names, RESPONSE))
    blank = Weights.zeros(names, response=RESPONSE, distance=not args.no_distance)
    predictor = predictor_for(layout, version, weights=blank)
    games, summary = read_games(args.games, raw_dir=layout.raw)
    print(f"fitting {len(names)} levels ({' '.join(names)}) on {min(len(games), args.max_games)} of "
          f"{summary['games']} games of {args.games}, release {version} ...", flush=True)
    weights = fit(predictor, games[:args.max_games], distance=not args.no_distance, factors=args.factors,
                  progress=lambda line: print(f"  {line}", flush=True))
    weights = replace(weights, fitted={**weights.fitted, "release": version, "games": summary["sha256"]})
    out = Path(args.out)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text(weights.to_json())
    os.replace(tmp, out)
    fitted = weights.fitted
    interactions = (f"; with {fitted['factors']} factors per feature: loss {fitted['factor_loss']}, "
                    f"{fitted['factor_iterations']} iterations" if args.factors else "")
    print(f"{out}: {fitted['positions']} positions, loss {fitted['loss']}, {fitted['iterations']} iterations"
          f"{interactions}")
    return 0


def release_with_families(args: argparse.Namespace, needed: tuple[str, ...]) -> tuple[Layout, str]:
    """The warehouse and the requested release (``--warehouse``, ``--release``) when it holds every family of
    ``needed``; else ValueError naming the release and the build command that adds them."""
    layout, version, manifest = _release(args)
    _require_families(args, version, manifest, needed)
    return layout, version


def release_and_weights(args: argparse.Namespace) -> tuple[Layout, str, Path]:
    """The release (``--warehouse``, ``--release``) and the weights file to rank with: ``--weights``, else the most
    accurate shipped weights whose families the release holds; ValueError as :func:`release_with_families`."""
    from gopat.transforms.predict.ranking import load_weights, shipped_weights

    layout, version, manifest = _release(args)
    path = Path(args.weights) if args.weights else shipped_weights(manifest.get("config", {}).get("families", []))
    _require_families(args, version, manifest, load_weights(path).families)
    return layout, version, path


def _require_families(
    args: argparse.Namespace, version: str, manifest: Manifest, needed: tuple[str, ...]
) -> None:
    """ValueError naming release ``version`` and the build command when its ``manifest`` lacks a family of
    ``needed``."""
    built = list(manifest.get("config", {}).get("families", []))
    missing = [family for family in dict.fromkeys(needed) if family not in built]
    if missing:
        sources = [f"--source {shlex.quote(source['source'])}" for source in manifest.get("sources", [])]
        command = ["gopat build", *sources, f"--warehouse {shlex.quote(args.warehouse)}",
                   f"--families {' '.join(built + missing)}"]
        raise ValueError(
            f"release {version}: lacks the prediction families {' '.join(missing)}; build them with {' '.join(command)}"
        )


def _release(args: argparse.Namespace) -> tuple[Layout, str, Manifest]:
    """The warehouse, the version and the manifest of the release chosen by ``--warehouse`` and ``--release``."""
    from gopat.effects.warehouse.layout import Layout, current_version, read_manifest

    layout = Layout(Path(args.warehouse))
    version = args.release or current_version(layout)
    if version is None:
        raise ValueError(f"no release in {layout.releases}; run `gopat build` first")
    return layout, version, read_manifest(layout, version)


def run_holdout(args: argparse.Namespace) -> int:
    """Write the train and test archives of a split by date and print the counts."""
    from gopat.effects.evaluation import split_by_year

    source = Path(args.source)
    if not source.exists():
        raise ValueError(f"{args.source}: no such file or folder")
    counts = split_by_year(source, first_test_year=args.test_from, train=Path(args.train), test=Path(args.test),
                           test_games=args.test_games, seed=args.seed,
                           calibration=Path(args.calibration) if args.calibration else None,
                           calibration_games=args.calibration_games)
    print(f"train {args.train}: {counts['train']} files dated before {args.test_from} or undated")
    print(f"test {args.test}: {counts['test']} of {counts['test_candidates']} files dated {args.test_from} or later "
          f"(sequences also in train dropped; {counts['skipped']} unreadable files skipped)")
    if args.calibration:
        print(f"calibration {args.calibration}: {counts['calibration']} other held-out files")
    return 0
