"""The evaluation flow: rank every legal point of held-out games with a release's patterns, record the accuracy."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger, task
from prefect.cache_policies import NO_CACHE

from gopat.effects.evaluation import predictor_for, read_games, record_evaluation, release_families, release_version
from gopat.effects.warehouse.fetch import sha256_file
from gopat.effects.warehouse.layout import Layout, code_version, created_now
from gopat.transforms.games.packed import GameMoves
from gopat.transforms.predict.predictor import Predictor, evaluate
from gopat.transforms.predict.ranking import Weights, load_weights, shipped_weights


@task(cache_policy=NO_CACHE)
def load_games_task(source: str, raw_dir: Path) -> tuple[list[GameMoves], dict[str, Any]]:
    """Read the held-out games."""
    games, summary = read_games(source, raw_dir=raw_dir)
    get_run_logger().info("%s: %d games from %d files (%d rejected)", source, summary["games"], summary["files"],
                          summary["rejected"])
    return games, summary


@task(cache_policy=NO_CACHE)
def load_predictor_task(layout: Layout, version: str, weights: Weights) -> Predictor:
    """Load the release's pattern statistics into the predictor's hash table."""
    predictor = predictor_for(layout, version, weights=weights)
    get_run_logger().info("release %s: %d patterns loaded", version, predictor.n_patterns)
    return predictor


@task(cache_policy=NO_CACHE)
def evaluate_task(predictor: Predictor, games: list[GameMoves]) -> dict[str, Any]:
    """Rank every legal point of every position."""
    return evaluate(predictor, games)


@task(cache_policy=NO_CACHE)
def record_task(layout: Layout, version: str, record: dict[str, Any]) -> Path:
    """Store the result in the release manifest."""
    return record_evaluation(layout, version, record)


@flow(name="evaluate-release")
def evaluate_release(
    games: str,
    warehouse: str = "warehouse",
    release: str | None = None,
    weights: str | None = None,
    record: bool = True,
) -> dict[str, Any]:
    """Evaluate a release's move prediction on the games of ``games`` and (by default) record it in its manifest.

    ``weights`` is a weights file (default: the most accurate shipped weights whose families the release has,
    transforms/predict/ranking.py SHIPPED_WEIGHTS).
    Returns the record: release, games (source, sha256, counts), weights (file, sha256, levels,
    distance), result (see :func:`gopat.transforms.predict.predictor.evaluate`), seconds, created, code version.
    """
    logger = get_run_logger()
    start = time.perf_counter()
    layout = Layout(Path(warehouse).resolve())
    version = release_version(layout, release)
    weights_path = Path(weights) if weights else shipped_weights(release_families(layout, version))
    ranking = load_weights(weights_path)
    predictor = load_predictor_task(layout, version, ranking)
    loaded, summary = load_games_task(games, layout.raw)
    result = evaluate_task(predictor, loaded)
    entry = {
        "release": version,
        "games": summary,
        "weights": {"file": str(weights_path), "sha256": sha256_file(weights_path), "levels": list(ranking.levels),
                    "distance": ranking.distance},
        "result": result,
        "seconds": round(time.perf_counter() - start, 1),
        "created": created_now(),
        "code_version": code_version(),
    }
    logger.info("top-1 %.4f, top-5 %.4f, top-10 %.4f over %d positions", result["top1"], result["top5"],
                result["top10"], result["positions"])
    if record:
        record_task(layout, version, entry)
        logger.info("recorded in %s", layout.release_dir(version) / "manifest.json")
    return entry
