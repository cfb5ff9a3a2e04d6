"""Move prediction from pattern statistics: nested patterns around every legal point, counted and ranked."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from gopat.transforms.games.board import BLACK, WHITE
from gopat.transforms.games.packed import GameMoves, pack_games
from gopat.transforms.patterns.canonical import key_strings
from gopat.transforms.patterns.families import FAMILIES
from gopat.transforms.patterns.symmetry import d4_point_images
from gopat.transforms.predict.book import BOOK_MOVES, Book, build_book
from gopat.transforms.predict.candidates import game_rows, position_rows
from gopat.transforms.predict.ranking import (
    Weights,
    feature_index,
    fit_weights,
    largest_level,
    load_weights,
    played_log_probabilities,
    ranks,
)
from gopat.transforms.predict.replay import fill_table

# The nested levels a predictor may use, largest first: diamonds of growing size around the
# candidate (Stern et al. 2006, Pachi), liberty counts on the cells up to 13 points (a key holds at
# most 31 base-4 digits). A weights file (transforms/predict/ranking.py) names the levels it was fitted for.
LEVELS: tuple[str, ...] = ("dia29", "dia21", "lib13", "lib9", "lib5")
RESPONSE = "d12"  # the response pattern around the last move (docs/patterns.md#d12)
PHASES: tuple[tuple[int, int | None], ...] = ((1, 30), (31, 100), (101, 200), (201, None))
TOP_K = (1, 5, 10)

_PHASE_STARTS = np.array([lo for lo, _ in PHASES], dtype=np.int64)
MAX_KEY_DIGITS = 30  # a level key's digits below the tag (replay.TAG_SHIFT)


@dataclass(frozen=True)
class Levels:
    """Kernel arrays of the nested pattern levels (largest first) and of the d12 response family."""

    names: tuple[str, ...]
    response: str
    pad: int
    start: np.ndarray
    rc: np.ndarray
    weights: np.ndarray
    lib_weights: np.ndarray
    has_liberty: np.ndarray
    top: np.ndarray
    d12_offsets: np.ndarray
    d12_candidates: np.ndarray
    d12_perms: np.ndarray
    d12_maps: np.ndarray


def levels(names: Sequence[str], *, response: str = RESPONSE) -> Levels:
    """Kernel arrays for candidate families ``names`` (largest first) and a last_move ``response`` family."""
    names = tuple(names)
    if not names or len(set(names)) != len(names):
        raise ValueError(f"levels must be distinct family names, got {list(names)}")
    starts, rcs, weights, lib_weights, has_liberty, top = [0], [], [], [], [], []
    pad = 1
    for name in names:
        family = FAMILIES.get(name)
        if family is None or family.anchor != "candidate":
            raise ValueError(f"{name!r} is not a candidate pattern family")
        if family.layout.n_digits > MAX_KEY_DIGITS:
            raise ValueError(f"{name!r} keys have {family.layout.n_digits} digits, at most {MAX_KEY_DIGITS} fit")
        n_points, planes = len(family.layout.points), len(family.layout.planes)
        images = np.array(d4_point_images(family.layout.points), dtype=np.int64)
        weights.append(np.int64(4) ** (planes * n_points - 1 - images))
        lib_weights.append(np.int64(4) ** (n_points - 1 - images) * (planes == 2))
        rcs.append(family.geometry.offsets)
        starts.append(starts[-1] + n_points)
        has_liberty.append(planes == 2)
        top.append(np.int64(4) ** (family.layout.n_digits - 1))
        pad = max(pad, int(np.abs(family.geometry.offsets).max()))
    family = FAMILIES.get(response)
    if family is None or family.anchor != "last_move" or family.layout.planes != ("stone", "liberty"):
        raise ValueError(f"{response!r} is not a last_move family with liberties")
    d12_offsets, d12_candidates = family.geometry.offsets, family.geometry.candidates
    group = family.group(16)
    perms = np.array([e.perm for e in group.elements], dtype=np.int64)
    maps = np.array([e.maps for e in group.elements], dtype=np.int64)
    pad = max(pad, int(np.abs(d12_offsets).max()))
    return Levels(
        names=names, response=response, pad=pad,
        start=np.array(starts, dtype=np.int64), rc=np.concatenate(rcs).astype(np.int64),
        weights=np.ascontiguousarray(np.concatenate(weights, axis=1)),
        lib_weights=np.ascontiguousarray(np.concatenate(lib_weights, axis=1)),
        has_liberty=np.array(has_liberty, dtype=np.bool_), top=np.array(top, dtype=np.int64),
        d12_offsets=d12_offsets.astype(np.int64), d12_candidates=d12_candidates.astype(np.int64),
        d12_perms=perms, d12_maps=maps,
    )  # fmt: skip


@dataclass(frozen=True)
class Predictor:
    """Pattern statistics in a hash table, the pattern levels, the opening book and the ranking weights."""

    levels: Levels
    table: np.ndarray
    weights: Weights
    n_patterns: int
    book: Book

    def _args(self) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                             np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
        lv, n_levels = self.levels, len(self.levels.names)
        return (
            lv.pad, lv.start, lv.rc, lv.weights, lv.lib_weights, lv.has_liberty, lv.top,
            np.arange(1, n_levels + 1, dtype=np.int64), self.table, lv.d12_offsets, lv.d12_candidates,
            lv.d12_perms, lv.d12_maps, n_levels + 1,
        )  # fmt: skip


def load_predictor(stats: pl.DataFrame | Iterable[pl.DataFrame], *, weights: Weights | None = None,
                   rows: int | None = None, book: Book | None = None) -> Predictor:
    """A predictor from 16-symmetry pattern statistics (columns family, key as digit text, occurrence, chosen).

    ``stats`` is one frame, or batches of one whose total rows ``rows`` bounds (the hash table is
    sized from it, so a release's statistics never sit in memory as text all at once). The levels
    and response family are those of ``weights`` (default: the shipped ones); rows of other
    families are ignored. Patterns never chosen count: a pattern seen often and never played says
    the point is poor. ``book`` is the opening book of the same games (default: an empty one).
    """
    weights = weights or load_weights()
    lv = levels(weights.levels, response=weights.response)
    if isinstance(stats, pl.DataFrame):
        stats, rows = [stats], len(stats) if rows is None else rows
    elif rows is None:
        raise ValueError("give the number of rows of batched statistics")
    table = np.zeros((1 << max(4, (4 * rows // 3).bit_length()), 3), dtype=np.int64)  # load factor < 3/4
    tags = {name: tag for tag, name in enumerate((*lv.names, lv.response), start=1)}
    loaded, filling = 0, None
    with ThreadPoolExecutor(1) as pool:  # one batch goes into the table while the next is decoded
        for batch in stats:
            frame = batch.filter(pl.col("family").is_in(list(tags))).select(
                pl.col("family").replace_strict(tags, return_dtype=pl.Int64),
                pl.col("key").str.to_integer(base=4, dtype=pl.Int64), "occurrence", "chosen")
            loaded += len(frame)
            if loaded > rows:
                raise ValueError(f"more than the {rows} announced pattern rows")
            if filling is not None:
                filling.result()
            filling = pool.submit(fill_table, table, *(frame[c].to_numpy().astype(np.int64, copy=False)
                                                        for c in frame.columns))
        if filling is not None:
            filling.result()
    return Predictor(levels=lv, table=table, weights=weights, n_patterns=loaded, book=book or build_book([]))


@dataclass(frozen=True)
class Rows:
    """Candidates of consecutive positions (see :func:`game_rows`) and the positions' counts, played index, move."""

    occurrence: np.ndarray
    chosen: np.ndarray
    context: np.ndarray
    book: np.ndarray
    counts: np.ndarray
    played: np.ndarray
    move: np.ndarray

    def features(self) -> np.ndarray:
        """:func:`gopat.transforms.predict.ranking.feature_index` of every candidate."""
        return feature_index(self.occurrence, self.chosen, self.context[:, 0], self.context[:, 1],
                             np.repeat(self.move, self.counts), self.context[:, 2], self.book, self.context[:, 4])


def candidate_rows(predictor: Predictor, games: Sequence[GameMoves], *, batch_rows: int = 4_000_000,
                   threads: int = 2) -> Iterator[Rows]:
    """The candidates of every position before a board move of ``games``, in batches of whole games.

    A batch holds at most ``batch_rows`` candidates unless one game alone has more; ``threads``
    batches are worked on at once (the kernel releases the GIL). Raises ValueError naming the game
    (its index in ``games``) with an illegal move.
    """
    sizes, setup_start, setups, move_start, moves = pack_games(games)
    board_moves = np.cumsum([0, *((moves[move_start[i]:move_start[i + 1], 1] >= 0).sum() * int(sizes[i]) ** 2
                                  for i in range(len(sizes)))])
    n_levels = len(predictor.levels.names)

    def batch(first: int, stop: int) -> Rows:
        n_rows = int(board_moves[stop] - board_moves[first])
        n_positions = int((moves[move_start[first]:move_start[stop], 1] >= 0).sum())
        occurrence = np.empty((n_rows, n_levels + 1), dtype=np.int64)
        chosen = np.empty((n_rows, n_levels + 1), dtype=np.int64)
        context = np.empty((n_rows, 5), dtype=np.int64)
        counts, played, move = (np.empty(n_positions, dtype=np.int64) for _ in range(3))
        _, bad = game_rows(sizes, setup_start, setups, move_start, moves, first, stop, *predictor._args(),
                            occurrence, chosen, context, counts, played, move)
        if bad >= 0:
            raise ValueError(f"game {bad}: illegal move")
        used = int(counts.sum())
        per_game = [int((moves[move_start[i]:move_start[i + 1], 1] >= 0).sum()) for i in range(first, stop)]
        book = _book_rows(predictor.book, games[first:stop], per_game, counts, move, context[:used, 3])
        return Rows(occurrence=occurrence[:used], chosen=chosen[:used], context=context[:used], book=book,
                    counts=counts, played=played, move=move)

    bounds, first = [], 0
    while first < len(sizes):
        stop = max(first + 1, int(np.searchsorted(board_moves, board_moves[first] + batch_rows, side="right")) - 1)
        bounds.append((first, stop))
        first = stop
    with ThreadPoolExecutor(threads) as pool:
        pending: deque[Future[Rows]] = deque()
        for first, stop in bounds:
            pending.append(pool.submit(batch, first, stop))
            if len(pending) == threads:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def _book_rows(book: Book, games: Sequence[GameMoves], per_game: list[int], counts: np.ndarray, move: np.ndarray,
               points: np.ndarray) -> np.ndarray:
    """Opening-book counts (games reaching, games playing) of every candidate of consecutive positions.

    ``per_game`` is each game's number of positions (board moves); ``move`` each position's move
    number, ``points`` each candidate's row-major point.
    """
    out = np.zeros((len(points), 2), dtype=np.int64)
    starts = np.cumsum(counts) - counts
    first = np.cumsum([0, *per_game])
    for g, game in enumerate(games):
        early = [p for p in range(first[g], first[g + 1]) if move[p] <= BOOK_MOVES]
        pairs = [(int(move[p]), points[starts[p]:starts[p] + counts[p]]) for p in early]
        for p, (reached, chosen) in zip(early, book.counts(game, pairs), strict=True):
            out[starts[p]:starts[p] + counts[p], 0] = reached
            out[starts[p]:starts[p] + counts[p], 1] = chosen
    return out


def evaluate(predictor: Predictor, games: Sequence[GameMoves]) -> dict[str, Any]:
    """Rank all legal points before every board move of ``games`` and measure where the played move ranked.

    Returns a JSON-ready dict: ``positions``, ``top1``, ``top5``, ``top10`` (shares of positions
    whose move ranked within 1, 5, 10), ``mean_rank`` (of the played move among the legal points),
    ``log_likelihood`` (mean natural log of the played move's probability, the softmax of the scores that
    calibrate fits), ``games``, ``phases`` (the same per range of move numbers
    1-30, 31-100, 101-200, 201+), ``matched`` (share of positions whose move's largest pattern seen
    before was each level, or ``none``), ``response_matched`` (share whose move had a response
    pattern seen before), ``book_matched`` (share whose position was in the opening book) and
    ``pattern_points`` (cells per level). Candidates rank by score, then by row-major point.
    Raises ValueError for an illegal move.
    """
    names = predictor.levels.names
    hits = np.zeros((len(PHASES), len(TOP_K)), dtype=np.int64)
    positions = np.zeros(len(PHASES), dtype=np.int64)
    matched = np.zeros(len(names) + 1, dtype=np.int64)
    response = book = 0
    rank_sum = log_likelihood = 0.0
    for rows in candidate_rows(predictor, games):
        index = rows.features()
        scores = predictor.weights.score(index)
        rank = ranks(scores, rows.counts, rows.played)
        rank_sum += float(rank.sum())
        log_likelihood += float(played_log_probabilities(scores, rows.counts, rows.played).sum())
        phase = np.searchsorted(_PHASE_STARTS, rows.move, side="right") - 1
        np.add.at(positions, phase, 1)
        for k, top in enumerate(TOP_K):
            np.add.at(hits[:, k], phase, rank <= top)
        played = np.cumsum(rows.counts) - rows.counts + rows.played
        matched += np.bincount(largest_level(index[played]), minlength=len(names) + 1)
        response += int((rows.occurrence[played, len(names)] >= 1).sum())
        book += int((rows.book[played, 0] >= 1).sum())
    total = int(positions.sum())

    def shares(counts: np.ndarray, n: int) -> dict[str, float]:
        return {f"top{k}": round(float(counts[i]) / n, 4) if n else 0.0 for i, k in enumerate(TOP_K)}

    return {
        "positions": total,
        **shares(hits.sum(axis=0), total),
        "mean_rank": round(rank_sum / total, 3) if total else 0.0,
        "log_likelihood": round(log_likelihood / total, 4) if total else 0.0,
        "games": len(games),
        "phases": {_phase_name(lo, hi): {"positions": int(positions[i]), **shares(hits[i], int(positions[i]))}
                   for i, (lo, hi) in enumerate(PHASES)},
        "matched": {name: round(float(matched[i]) / total, 4) if total else 0.0
                    for i, name in enumerate([*names, "none"])},
        "response_matched": round(response / total, 4) if total else 0.0,
        "book_matched": round(book / total, 4) if total else 0.0,
        "pattern_points": {name: len(FAMILIES[name].layout.points) for name in names},
    }


def fit(predictor: Predictor, games: Sequence[GameMoves], *, distance: bool = True, factors: int = 0,
        progress: Callable[[str], None] | None = None) -> Weights:
    """Weights for the predictor's levels fitted on every position of ``games`` (which its statistics must not hold),
    with ``factors`` latent factors per weight and ``progress`` lines
    (:func:`gopat.transforms.predict.ranking.fit_weights`)."""
    index: list[np.ndarray] = []
    counts: list[np.ndarray] = []
    played: list[np.ndarray] = []
    for rows in candidate_rows(predictor, games):  # keep only the features (int16) of each batch
        index.append(rows.features())
        counts.append(rows.counts)
        played.append(rows.played)
    if not index:
        raise ValueError("no games to fit on")
    return fit_weights(np.concatenate(index), np.concatenate(counts), np.concatenate(played),
                       levels=predictor.levels.names, response=predictor.levels.response,
                       distance=distance, factors=factors, progress=progress)


def _phase_name(lo: int, hi: int | None) -> str:
    return f"{lo}-{hi}" if hi is not None else f"{lo}+"


@dataclass(frozen=True, slots=True)
class Candidate:
    """A legal point: its score and probability, the largest pattern seen before (``family`` None: none),
    per level (largest first, then the response pattern) the canonical key text (None: no response
    pattern here) and counts, its tactical cell (:func:`tactics_text`) and its opening-book counts
    (games reaching the position, games playing the point; zeros outside the book)."""

    row: int
    col: int
    score: float
    probability: float
    family: str | None
    keys: tuple[str | None, ...]
    occurrence: tuple[int, ...]
    chosen: tuple[int, ...]
    tactics: int
    book: tuple[int, int]


@dataclass(frozen=True, slots=True)
class Position:
    """A position (rows of ``.XO``, row 0 at the top), the colour to move and every legal point, best first."""

    board: tuple[str, ...]
    colour: int
    moves: int
    last: tuple[int, int] | None
    candidates: tuple[Candidate, ...]


def score_position(predictor: Predictor, game: GameMoves, *, moves: int) -> Position:
    """Every legal point of the position after the first ``moves`` moves of ``game``, best first.

    Points rank by score, then by row-major index (as :func:`evaluate` ranks them); probability is
    the softmax of the scores. The colour to move is that of the record's next move, else the
    opposite of the last move's, else White after black setup stones only (handicap), else Black.
    """
    sizes, _, setup, _, played = pack_games([game])
    if isinstance(moves, bool) or not isinstance(moves, int) or not 0 <= moves <= len(played):
        raise ValueError(f"the move number must be within 0..{len(played)} for this game, got {moves!r}")
    if moves < len(played):
        colour = int(played[moves, 0])
    elif moves > 0:
        colour = 3 - int(played[moves - 1, 0])
    else:
        colour = WHITE if len(setup) and (setup[:, 0] == BLACK).all() else BLACK
    size = int(sizes[0])
    board, n, points, keys, occ, chosen, context = position_rows(size, setup, played[:moves], colour,
                                                                 *predictor._args())
    if n < 0:
        raise ValueError(f"move {-n} is illegal")
    names = predictor.levels.names
    digits = [FAMILIES[name].layout.n_digits for name in (*names, predictor.levels.response)]
    [(reached, book)] = predictor.book.counts(game, [(moves + 1, context[:n, 3])])
    index = feature_index(occ[:n], chosen[:n], context[:n, 0], context[:n, 1], np.full(n, moves + 1),
                          context[:n, 2], np.stack([reached, book], axis=1), context[:n, 4])
    scores = predictor.weights.score(index)
    probability = np.exp(scores - scores.max(initial=-np.inf))
    probability /= probability.sum()
    largest = largest_level(index)
    texts = [key_strings(np.maximum(keys[:n, lv], 0), d) for lv, d in enumerate(digits)]
    candidates = []
    for i in sorted(range(n), key=lambda i: (-scores[i], i)):
        candidates.append(Candidate(
            row=int(points[i]) // size, col=int(points[i]) % size, score=float(scores[i]),
            probability=float(probability[i]), family=names[largest[i]] if largest[i] < len(names) else None,
            keys=tuple(str(texts[lv][i]) if keys[i, lv] >= 0 else None for lv in range(len(digits))),
            occurrence=tuple(int(v) for v in occ[i, :len(digits)]),
            chosen=tuple(int(v) for v in chosen[i, :len(digits)]),
            tactics=int(context[i, 2]), book=(int(reached[i]), int(book[i])),
        ))  # fmt: skip
    pad = predictor.levels.pad
    width = size + 2 * pad
    rows = tuple("".join(".XO#"[board[(r + pad) * width + c + pad]] for c in range(size)) for r in range(size))
    last_move = next(((int(m[1]), int(m[2])) for m in played[:moves][::-1][:1] if m[1] >= 0), None)
    return Position(board=rows, colour=colour, moves=moves, last=last_move, candidates=tuple(candidates))
