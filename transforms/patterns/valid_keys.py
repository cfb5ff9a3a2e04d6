"""Key texts typed by a user, checked against what a position can produce (docs/patterns.md#valid-keys)."""

from __future__ import annotations

from functools import cache

import numpy as np

from gopat.transforms.games.board import MAX_SIZE, MIN_SIZE
from gopat.transforms.patterns.families import FAMILIES, Family

_SIDES = ((0, 1), (0, -1), (1, 0), (-1, 0))


def parse_family_key(family: str, text: str) -> int:
    """The int key of a key text of ``family``; ValueError quoting ``text`` and the first rule it breaks."""
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}; known: {sorted(FAMILIES)}")
    problem = key_problem(FAMILIES[family], text)
    if problem is not None:
        raise ValueError(f"{text!r} is not a {family} key: {problem}")
    return int(text, 4)


def key_problem(family: Family, text: str) -> str | None:
    """Why ``text`` is not a key that a position produces for ``family`` (None when it is one)."""
    n_digits, n_points = family.layout.n_digits, len(family.layout.points)
    if len(text) != n_digits:
        return f"a {family.name} key has {n_digits} digits, got {len(text)}"
    bad = next((ch for ch in text if ch not in "0123"), None)
    if bad is not None:
        return f"the digits of a key are 0, 1, 2 and 3, got {bad!r}"
    digits = [int(ch) for ch in text]
    if digits[0] not in (1, 2):
        return f"the first digit is the colour to move, 1 (Black) or 2 (White), got {digits[0]}"
    stones = digits[1:1 + n_points]
    problem = _stone_problem(family, digits[0], stones)
    if problem is None and "liberty" in family.layout.planes:
        problem = _liberty_problem(family, stones, digits[1 + n_points:])
    return problem


def _stone_problem(family: Family, mover: int, stones: list[int]) -> str | None:
    """The rules of the stone plane: the anchor's cells, then the board's edge."""
    candidates = family.geometry.candidates.tolist()
    if family.anchor == "last_move":
        centre = next(i for i in range(len(stones)) if i not in candidates)
        if stones[centre] not in (1, 2):
            return f"the centre cell is the last move, a stone (1 or 2), got {stones[centre]}"
        if mover not in (stones[i] for i in candidates):
            return "no stone of the colour to move around the last move (the stone placed on the candidate)"
    elif family.anchor == "candidate" and stones[candidates[0]] != 0:
        return f"the centre cell is the empty candidate point (0), got {stones[candidates[0]]}"
    elif family.anchor == "block" and all(stones[i] != 0 for i in candidates):
        return "none of the centre 2x2 cells is an empty candidate point (0)"
    off = sum(1 << i for i, digit in enumerate(stones) if digit == 3)
    if off not in _edge_masks(family.name):
        if family.anchor == "last_move":
            return "the whole pattern around the last move is on the board: no cell is 3"
        return "the off-board cells (3) are not the part of the pattern beyond a board's edges"
    return None


@cache
def _edge_masks(name: str) -> frozenset[int]:
    """Bit masks of the layout points off the board, over every board size and anchor that yield a key."""
    family = FAMILIES[name]
    offsets = family.geometry.offsets
    weights = 1 << np.arange(len(offsets), dtype=np.int64)
    masks: set[int] = set()
    for size in range(MIN_SIZE, MAX_SIZE + 1):
        anchors = np.stack(np.meshgrid(np.arange(-1, size), np.arange(-1, size)), axis=-1).reshape(-1, 1, 2)
        cells = offsets[None] + anchors
        on: np.ndarray = np.all((cells >= 0) & (cells < size), axis=2)
        if family.anchor == "last_move":  # the whole pattern on the board (docs/patterns.md#d12)
            placed = on.all(axis=1)
        elif family.anchor == "block":  # some point of the centre 2x2 is on the board: the candidate
            placed = on[:, family.geometry.candidates].any(axis=1)
        else:
            placed = on[:, family.geometry.candidates[0]]
        masks.update(np.where(on[placed], 0, weights).sum(axis=1).tolist())
    return frozenset(masks)


def _liberty_problem(family: Family, stones: list[int], liberties: list[int]) -> str | None:
    """The rules of the liberty plane (docs/patterns.md#liberties): per chain, capped at 3."""
    points = [tuple(p) for p in family.geometry.offsets.tolist()]
    index = {p: i for i, p in enumerate(points)}
    for i, (stone, liberty) in enumerate(zip(stones, liberties, strict=True)):
        if stone in (0, 3) and liberty != 0:
            return f"cell {i} is {'empty' if stone == 0 else 'off the board'}, so its liberty digit is 0, got {liberty}"
    seen: set[int] = set()
    for start in range(len(stones)):
        if stones[start] not in (1, 2) or start in seen:
            continue
        chain, frontier, empties, closed = {start}, [start], set(), True
        while frontier:
            r, c = points[frontier.pop()]
            for dr, dc in _SIDES:
                j = index.get((r + dr, c + dc))
                if j is None:
                    closed = False  # a neighbour outside the pattern: more stones or liberties may be there
                elif stones[j] == stones[start] and j not in chain:
                    chain.add(j)
                    frontier.append(j)
                elif stones[j] == 0:
                    empties.add(j)
        seen |= chain
        digits = {liberties[j] for j in chain}
        if len(digits) > 1:
            return f"the stones of one chain (cells {sorted(chain)}) have different liberty digits {sorted(digits)}"
        digit, visible = digits.pop(), min(3, len(empties))
        if closed and digit != visible:
            return (f"the chain on cells {sorted(chain)} lies inside the pattern with {len(empties)} liberties, "
                    f"so its liberty digit is {visible}, got {digit}")
        if digit < visible:
            return (f"the chain on cells {sorted(chain)} has at least {len(empties)} liberties in the pattern, "
                    f"so its liberty digit is at least {visible}, got {digit}")
    return None
