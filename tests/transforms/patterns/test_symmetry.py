"""Tests for gopat.transforms.patterns.symmetry: group axioms, canonical keys, blk4 macros."""

from fractions import Fraction
from itertools import product

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gopat.transforms.patterns.keys import (
    BLOCK4_POINTS,
    DIAMOND13_POINTS,
    KeyLayout,
    encode,
    key_string,
    parse_key,
    square_points,
)
from gopat.transforms.patterns.symmetry import Element, Group, d4_point_images, square_group

# --- independent reference implementations -------------------------------------------------------


def ref_digits(key: int, n: int) -> list[int]:
    """Base-4 digits via numpy's text conversion (independent of gopat.transforms.patterns.symmetry.decode)."""
    return [int(ch) for ch in np.base_repr(key, 4).zfill(n)]


def ref_key(digits: list[int]) -> int:
    return int("".join(map(str, digits)), 4)


def ref_apply(element: Element, key: int) -> int:
    """The Element contract read literally: new_digits[i] = maps[i][old_digits[perm[i]]]."""
    old = ref_digits(key, len(element.perm))
    return ref_key([element.maps[i][old[element.perm[i]]] for i in range(len(old))])


# The 8 symmetries of the square as integer matrices acting on (row, col) column vectors.
ROT = ((0, 1), (-1, 0))
MIRROR = ((1, 0), (0, -1))


def mat_mul(a, b):
    return tuple(tuple(sum(a[i][k] * b[k][j] for k in range(2)) for j in range(2)) for i in range(2))


def d4_matrices():
    mats = [((1, 0), (0, 1))]
    for _ in range(3):
        mats.append(mat_mul(ROT, mats[-1]))
    return mats + [mat_mul(m, MIRROR) for m in mats]


def geometric_variants(layout: KeyLayout, key: int, *, colour_swap: bool) -> set[int]:
    """Images of a key computed on coordinates: move each point's digits to the transformed point."""
    n_points = len(layout.points)
    pts = [(Fraction(r), Fraction(c)) for r, c in layout.points]
    cr = sum(r for r, _ in pts) / n_points
    cc = sum(c for _, c in pts) / n_points
    rel = [(r - cr, c - cc) for r, c in pts]
    where = {p: j for j, p in enumerate(rel)}
    digits = ref_digits(key, layout.n_digits)
    out = set()
    for m in d4_matrices():
        new = [digits[0]] + [0] * (layout.n_digits - 1)
        for j, (r, c) in enumerate(rel):
            target = where[(m[0][0] * r + m[0][1] * c, m[1][0] * r + m[1][1] * c)]
            for plane in range(len(layout.planes)):
                new[1 + plane * n_points + target] = digits[1 + plane * n_points + j]
        out.add(ref_key(new))
        if colour_swap:
            swapped = [{1: 2, 2: 1}.get(new[0], new[0])]
            for plane, name in enumerate(layout.planes):
                chunk = new[1 + plane * n_points : 1 + (plane + 1) * n_points]
                swapped += [{1: 2, 2: 1}.get(d, d) for d in chunk] if name == "stone" else chunk
            out.add(ref_key(swapped))
    return out


# --- layouts ------------------------------------------------------------------------------------


def d4_closure(points: set[tuple[int, int]]) -> set[tuple[int, int]]:
    return {(m[0][0] * r + m[0][1] * c, m[1][0] * r + m[1][1] * c) for r, c in points for m in d4_matrices()}


@st.composite
def square_layouts(draw) -> KeyLayout:
    """Named layouts, full squares and random D4-closed point sets, at a random origin."""
    kind = draw(st.sampled_from(["sq3", "sq5", "diamond", "block4", "square", "random"]))
    if kind == "sq3":
        points = square_points(3)
    elif kind == "sq5":
        points = square_points(5)
    elif kind == "diamond":
        points = DIAMOND13_POINTS
    elif kind == "block4":
        points = BLOCK4_POINTS
    elif kind == "square":
        points = square_points(draw(st.integers(2, 5)))
    else:
        half = draw(st.booleans())  # half: points at half-integers (even-sided), else integers
        cells = draw(st.sets(st.tuples(st.integers(-3, 3), st.integers(-3, 3)), min_size=1, max_size=4))
        closed = d4_closure({(2 * r + half, 2 * c + half) for r, c in cells})
        if closed == {(0, 0)} or len(closed) > 30:
            closed = d4_closure({(2, 1)})
        points = tuple((r / 2, c / 2) for r, c in sorted(closed))
    dr, dc = draw(st.integers(-20, 20)), draw(st.integers(-20, 20))
    shifted = tuple((r + dr, c + dc) for r, c in points)
    liberty = draw(st.booleans()) and 1 + 2 * len(points) <= 31
    return KeyLayout(shifted, ("stone", "liberty") if liberty else ("stone",))


@st.composite
def layout_group_keys(draw):
    layout = draw(square_layouts())
    colour_swap = draw(st.booleans())
    n = layout.n_digits
    # zero-heavy digits make symmetric keys (non-trivial stabilisers) common
    digit = st.sampled_from([0, 0, 0, 0, 1, 2, 3])
    keys = draw(st.lists(st.lists(digit, min_size=n, max_size=n), min_size=1, max_size=6))
    return layout, colour_swap, [ref_key(d) for d in keys]


@pytest.mark.parametrize(
    "call",
    [
        lambda: Element((0, 0), ((0, 1, 2, 3),) * 2),
        lambda: Element((0, 1), ((0, 1, 1, 3),) * 2),
        lambda: Group((Element((1, 0), ((0, 1, 2, 3),) * 2),)),
        lambda: square_group(KeyLayout(((0, 0), (0, 1), (1, 0))), colour_swap=False),
        lambda: square_group(KeyLayout(((5, 5),)), colour_swap=False),
        lambda: d4_point_images(((0, 0), (0, 0))),
    ],
)
def test_bad_input_raises_value_error(call):
    with pytest.raises(ValueError, match=r"point|permutation|identity|elements"):
        call()


def test_group_constructor_checks_closure():
    swap01 = Element((1, 0, 2), ((0, 1, 2, 3),) * 3)
    swap12 = Element((0, 2, 1), ((0, 1, 2, 3),) * 3)
    with pytest.raises(ValueError, match=r"not closed under composition"):
        Group((Element.identity(3), swap01, swap12))
    assert Group.from_generators([swap01, swap12]).order == 6


def test_elements_and_generators_must_act_on_one_key_length():
    two, three = Element.identity(2), Element((1, 0, 2), ((0, 1, 2, 3),) * 3)
    with pytest.raises(ValueError, match=r"^all elements must act on the same key length$"):
        Group((two, three))
    with pytest.raises(ValueError, match=r"^all generators must act on the same key length$"):
        Group.from_generators([two, three])


# --- group axioms and canonical keys (hypothesis) -----------------------------------------------


@given(layout_group_keys())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_group_axioms(case):
    layout, colour_swap, _ = case
    group = square_group(layout, colour_swap=colour_swap)
    members = set(group.elements)
    assert group.order == len(members) == (16 if colour_swap else 8)
    assert group.elements[0] == Element.identity(layout.n_digits)
    for a in group.elements:
        assert a.inverse() in members
        assert a.compose(a.inverse()) == group.elements[0]
        for b in group.elements:
            assert a.compose(b) in members


@given(layout_group_keys())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_apply_matches_contract_and_geometry(case):
    layout, colour_swap, keys = case
    group = square_group(layout, colour_swap=colour_swap)
    a, b = group.elements[1], group.elements[-1]
    for key in keys:
        for element in group.elements:
            assert group.apply(element, key) == ref_apply(element, key)
        assert group.apply(a.compose(b), key) == group.apply(a, group.apply(b, key))
        assert set(group.variants(key)) == geometric_variants(layout, key, colour_swap=colour_swap)


@given(layout_group_keys())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_canonical_orbit_and_stabiliser(case):
    layout, colour_swap, keys = case
    group = square_group(layout, colour_swap=colour_swap)
    for key in keys:
        canon = group.canonical(key)
        variants = group.variants(key)
        assert canon == variants[0] == min(variants)
        assert key_string(canon, layout.n_digits) == min(key_string(v, layout.n_digits) for v in variants)
        for element in group.elements:
            assert group.canonical(group.apply(element, key)) == canon
        size = group.orbit_size(key)
        assert size == len(variants)
        assert group.order % size == 0
        stab = group.stabiliser(key)
        assert size * len(stab) == group.order
        assert all(ref_apply(e, key) == key for e in stab)


@given(layout_group_keys())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_canonicalize_matches_scalar(case):
    layout, colour_swap, keys = case
    group = square_group(layout, colour_swap=colour_swap)
    rng = np.random.default_rng(len(keys))
    random_keys = rng.integers(0, 4**layout.n_digits, size=50, dtype=np.int64)
    all_keys = np.concatenate([np.array(keys, dtype=np.int64), random_keys])
    masks = rng.integers(0, 4**layout.n_digits, size=all_keys.size, dtype=np.int64)
    canon, orbit, masks_out = group.canonicalize(all_keys, masks=masks)
    assert canon.dtype == orbit.dtype == masks_out.dtype == np.int64
    for key, mask, c, o, m in zip(all_keys.tolist(), masks.tolist(), canon, orbit, masks_out, strict=True):
        assert c == group.canonical(key)
        assert o == group.orbit_size(key)
        expected = 0
        for element in group.elements:
            if ref_apply(element, key) == c:
                expected |= ref_apply(element, mask)
        assert m == expected
    plain_canon, plain_orbit, none = group.canonicalize(all_keys)
    assert none is None
    assert np.array_equal(plain_canon, canon) and np.array_equal(plain_orbit, orbit)


def test_symmetric_key_gets_symmetric_mask():
    """Black stone on the centre of a 3x3: every element fixes the key, so the mask is symmetrised."""
    layout = KeyLayout(square_points(3))
    group = square_group(layout, colour_swap=False)
    key = ref_key([1, 0, 0, 0, 0, 1, 0, 0, 0, 0])
    mask = ref_key([0, 1, 0, 0, 0, 0, 0, 0, 0, 0])  # black played at the top-left corner
    canon, orbit, masks_out = group.canonicalize(np.array([key]), masks=np.array([mask]))
    assert canon[0] == key and orbit[0] == 1
    assert ref_digits(int(masks_out[0]), 10) == [0, 1, 0, 1, 0, 0, 0, 1, 0, 1]


def test_canonicalize_many_keys_fast_and_batched():
    group = square_group(KeyLayout(DIAMOND13_POINTS, ("stone", "liberty")), colour_swap=True)
    rng = np.random.default_rng(7)
    keys = rng.integers(0, 4**27, size=600_000, dtype=np.int64)
    canon, orbit, _ = group.canonicalize(keys)
    assert np.all(canon <= keys)
    assert set(np.unique(orbit).tolist()) <= {1, 2, 4, 8, 16}
    picks = rng.integers(0, keys.size, size=40)
    for i in picks.tolist():
        assert canon[i] == group.canonical(int(keys[i])) and orbit[i] == group.orbit_size(int(keys[i]))


def test_canonicalize_rejects_bad_arrays():
    group = square_group(KeyLayout(square_points(3)), colour_swap=False)
    with pytest.raises(ValueError, match=r"keys out of range"):
        group.canonicalize(np.array([4**10], dtype=np.int64))
    with pytest.raises(ValueError, match=r"keys must be a 1-D integer array"):
        group.canonicalize(np.array([1.0]))
    with pytest.raises(ValueError, match=r"masks must have the same shape as keys"):
        group.canonicalize(np.array([1, 2]), masks=np.array([1]))
    empty = group.canonicalize(np.array([], dtype=np.int64), masks=np.array([], dtype=np.int64))
    assert all(part.size == 0 for part in empty)


# --- docs/patterns.md#worked-example and the missing reflections  --------------------------------


@pytest.mark.parametrize(("colour_swap", "n_variants"), [(False, 2), (True, 4)])
def test_d12_worked_example(colour_swap, n_variants):
    group = square_group(KeyLayout(DIAMOND13_POINTS, ("stone", "liberty")), colour_swap=colour_swap)
    key = parse_key("110000020000013000003000003")
    assert group.orbit_size(key) == len(group.variants(key)) == n_variants
    assert key_string(group.canonical(key), 27) == "100001020100000000303030000"


def board_key(rows: list[str]) -> int:
    """Key of an ASCII board (X black, O white, . empty), Black to move."""
    return ref_key([1] + [".XO#".index(ch) for row in rows for ch in row])


def test_diagonal_reflections_are_in_the_group():
    """Seed 004 counts 12 forms; the square has 8 spatial ones, including both diagonal mirrors."""
    group = square_group(KeyLayout(square_points(3)), colour_swap=False)
    key = board_key(["XO.", "X..", "..."])
    main_diagonal = board_key(["XX.", "O..", "..."])
    anti_diagonal = board_key(["...", "..O", ".XX"])
    variants = group.variants(key)
    assert main_diagonal in variants and anti_diagonal in variants
    assert len(variants) == 8
    assert group.orbit_size(board_key(["X..", "...", "..X"])) == 2  # symmetric about the main diagonal
    assert group.orbit_size(board_key(["..X", "...", "X.."])) == 2
    transpose = [e for e in group.elements if group.apply(e, key) == main_diagonal]
    assert len(transpose) == 1 and transpose[0].compose(transpose[0]) == group.elements[0]


# --- docs/patterns.md#blk4: the 4x4 block ---------------------------------------------------------------------

BLOCK_DIAGRAM = """
A-1 A-2  B-3 B-1
A-3 A-4  B-4 B-2
D-2 D-4  C-4 C-3
D-1 D-3  C-2 C-1
"""


def seed_rotate(p):
    return ((p & 0x000000FF) << 24) | ((p & 0xFFFFFF00) >> 8)


def seed_antirotate(p):
    return ((p & 0xFF000000) >> 24) | ((p & 0x00FFFFFF) << 8)


def seed_invert(p):
    return ((p & 0xAAAAAAAA) >> 1) | ((p & 0x55555555) << 1)


def seed_shift(p):
    return ((p & 0x30303030) >> 2) | ((p & 0x0C0C0C0C) << 2) | (p & 0xC3C3C3C3)


def seed_mirror(p):
    return ((seed_shift(p) & 0xFF00FF00) >> 8) | ((seed_shift(p) & 0x00FF00FF) << 8)


def test_block4_points_follow_the_seed_diagram():
    where = {}
    for row, line in enumerate(BLOCK_DIAGRAM.strip().splitlines()):
        for col, label in enumerate(line.split()):
            where[label] = (row, col)
    labels = [f"{q}-{i}" for q in "ABCD" for i in range(1, 5)]
    assert tuple(where[label] for label in labels) == BLOCK4_POINTS


def test_block4_key_is_colour_then_code32():
    rng = np.random.default_rng(2)
    layout = KeyLayout(BLOCK4_POINTS)
    for code in rng.integers(0, 2**32, size=50).tolist():
        digits = [(code >> (30 - 2 * i)) & 3 for i in range(16)]
        assert encode([2, *digits]) == (2 << 32) | code
        assert layout.n_digits == 17


@pytest.mark.parametrize(
    ("macro", "swaps_colour"),
    [(seed_rotate, False), (seed_antirotate, False), (seed_mirror, False), (seed_invert, True)],
)
def test_block4_elements_match_seed_macros(macro, swaps_colour):
    group = square_group(KeyLayout(BLOCK4_POINTS), colour_swap=True)
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 2**32, size=300).tolist() + [1 << b for b in range(32)]
    matches = []
    for element in group.elements:
        ok = True
        for colour in (1, 2):
            new_colour = 3 - colour if swaps_colour else colour
            for code in codes:
                if group.apply(element, (colour << 32) | code) != (new_colour << 32) | macro(code):
                    ok = False
                    break
            if not ok:
                break
        if ok:
            matches.append(element)
    assert len(matches) == 1


def test_block4_canonical_is_min_over_seed_macros():
    group = square_group(KeyLayout(BLOCK4_POINTS), colour_swap=True)
    rng = np.random.default_rng(4)
    codes = rng.integers(0, 2**32, size=400, dtype=np.int64)
    codes[:4] = [0, 0xFFFFFFFF, 0x55555555, 0x00010000]
    keys = (1 << 32) | codes
    canon, orbit, _ = group.canonicalize(keys)
    for code, c, o in zip(codes.tolist(), canon.tolist(), orbit.tolist(), strict=True):
        images = set()
        for r, m, i in product(range(4), range(2), range(2)):
            p = code
            for _ in range(r):
                p = seed_rotate(p)
            p = seed_mirror(p) if m else p
            images.add(((2 if i else 1) << 32) | (seed_invert(p) if i else p))
        assert c == min(images) and o == len(images)
