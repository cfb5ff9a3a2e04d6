"""The symmetry engine is generic: the Nine Men's Morris board's group (docs/symmetry.md#nine-mens-morris),
built by gopat.transforms.patterns.symmetry's closure and compared with a brute-force search of the board."""

from collections.abc import Callable

import numpy as np

from gopat.transforms.patterns.symmetry import Element, Group

IDENTITY_MAP = (0, 1, 2, 3)
SWAP_MAP = (0, 2, 1, 3)


def morris_group(*, player_swap: bool) -> Group:
    """16 elements (32 with the player swap) from the generators of docs/symmetry.md#nine-mens-morris.

    Key layout: digit 0 is the player to move (1/2), then 24 point digits (0 empty, 1, 2) at
    ``1 + 8 * ring + cell`` for rings 0..2 and cells 0..7 (``board[ring][cell]``).
    """
    n_digits = 25

    def point_map(source: Callable[[int, int], tuple[int, int]]) -> Element:
        perm = [0] * n_digits
        for ring in range(3):
            for cell in range(8):
                from_ring, from_cell = source(ring, cell)
                perm[1 + 8 * ring + cell] = 1 + 8 * from_ring + from_cell
        return Element(tuple(perm), (IDENTITY_MAP,) * n_digits)

    generators = [
        point_map(lambda ring, cell: (ring, (cell + 2) % 8)),
        point_map(lambda ring, cell: (ring, (8 - cell) % 8)),
        point_map(lambda ring, cell: (2 - ring, cell)),
    ]
    if player_swap:
        generators.append(Element(tuple(range(n_digits)), (SWAP_MAP,) * n_digits))
    return Group.from_generators(generators)


def ref_key(digits: list[int]) -> int:
    return int("".join(map(str, digits)), 4)


def ref_apply(element: Element, key: int) -> int:
    """The Element contract read literally: new_digits[i] = maps[i][old_digits[perm[i]]]."""
    old = [int(ch) for ch in np.base_repr(key, 4).zfill(len(element.perm))]
    return ref_key([element.maps[i][old[element.perm[i]]] for i in range(len(old))])


def seed_rotation(boards):
    return {
        tuple(board[ring][rotation:] + board[ring][:rotation] for ring in range(3))
        for rotation in range(2, 6 + 1, 2)
        for board in boards
    }


def seed_reflection(offset):
    def reflect(boards):
        return {
            tuple(tuple(board[ring][(8 - (cell + offset)) % 8] for cell in range(8)) for ring in range(3))
            for board in boards
        }

    return reflect


def seed_ring(boards):
    return {tuple(board[ring] for ring in reversed(range(3))) for board in boards}


def board_perm(board) -> tuple[int, ...]:
    """A board of labels (label = source index) as a key perm: digit 0 first, then the 24 points."""
    return (0, *tuple(1 + board[ring][cell] for ring in range(3) for cell in range(8)))


LABELLED = tuple(tuple(8 * ring + cell for cell in range(8)) for ring in range(3))


def seed_find_symmetries(board):
    boards = {board}
    boards |= seed_rotation(boards)
    for offset in (2, 6, 4, 0):  # horizontal, vertical, positive and negative diagonal
        boards |= seed_reflection(offset)(boards)
    boards |= seed_ring(boards)
    return boards


def test_morris_group_equals_seed_symmetries():
    seed_perms = {board_perm(b) for b in seed_find_symmetries(LABELLED)}
    assert len(seed_perms) == 16
    group = morris_group(player_swap=False)
    assert group.order == 16
    assert {e.perm for e in group.elements} == seed_perms
    assert all(e.maps == ((0, 1, 2, 3),) * 25 for e in group.elements)


def test_morris_seed_generators_close_to_16_maps():
    generators = [seed_rotation({LABELLED})] + [seed_reflection(o)({LABELLED}) for o in (0, 2, 4, 6)]
    generators.append(seed_ring({LABELLED}))
    identity_maps = ((0, 1, 2, 3),) * 25
    elements = [Element(board_perm(b), identity_maps) for boards in generators for b in boards]
    assert len({e.perm for e in elements}) == 8  # 3 rotations, 4 mirrors, ring swap
    closure = Group.from_generators(elements)
    assert closure.order == 16
    assert set(closure.elements) == set(morris_group(player_swap=False).elements)


def test_morris_player_swap():
    plain = morris_group(player_swap=False)
    full = morris_group(player_swap=True)
    assert full.order == 32
    swap = ((0, 2, 1, 3),) * 25
    expected = {e for e in plain.elements} | {Element(e.perm, swap) for e in plain.elements}
    assert set(full.elements) == expected
    rng = np.random.default_rng(5)
    for _ in range(30):
        key = ref_key([int(rng.integers(1, 3)), *rng.integers(0, 3, size=24).tolist()])
        size = full.orbit_size(key)
        assert full.order % size == 0 and size * len(full.stabiliser(key)) == full.order
        assert full.canonical(key) == min(ref_apply(e, key) for e in expected)
