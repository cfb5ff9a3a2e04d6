"""Symmetry groups built by closure from generators, and canonical pattern keys."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from gopat.transforms.kernels import kernel
from gopat.transforms.patterns.groups import SQUARE_SYMMETRIES as SQUARE_SYMMETRIES
from gopat.transforms.patterns.groups import SYMMETRIES as SYMMETRIES
from gopat.transforms.patterns.keys import KeyLayout, check_key, check_n_digits, decode, encode

_IDENTITY_MAP = (0, 1, 2, 3)
_SWAP_MAP = (0, 2, 1, 3)
_MAX_ORDER = 1024
_BYTE_VALUES = np.arange(256, dtype=np.int64)



@dataclass(frozen=True, slots=True)
class Element:
    """One symmetry acting on keys: ``new_digits[i] = maps[i][old_digits[perm[i]]]``.

    ``perm`` is a permutation of the digit positions and every ``maps[i]`` a permutation of 0..3.
    """

    perm: tuple[int, ...]
    maps: tuple[tuple[int, ...], ...]  # each a permutation of 0..3

    def __post_init__(self) -> None:
        perm = tuple(int(p) for p in self.perm)
        maps = tuple(tuple(int(v) for v in m) for m in self.maps)
        check_n_digits(len(perm))
        if sorted(perm) != list(range(len(perm))):
            raise ValueError("perm must be a permutation of the digit positions")
        if len(maps) != len(perm):
            raise ValueError(f"{len(perm)} digit positions but {len(maps)} value maps")
        if any(sorted(m) != [0, 1, 2, 3] for m in maps):
            raise ValueError("every value map must be a permutation of 0..3")
        object.__setattr__(self, "perm", perm)
        object.__setattr__(self, "maps", maps)

    @classmethod
    def identity(cls, n_digits: int) -> "Element":
        """The element that changes nothing."""
        return cls(tuple(range(check_n_digits(n_digits))), (_IDENTITY_MAP,) * n_digits)

    @property
    def n_digits(self) -> int:
        """Number of digit positions acted on."""
        return len(self.perm)

    def compose(self, other: "Element") -> "Element":
        """``self ∘ other``: the element that applies ``other`` first, then ``self``."""
        if other.n_digits != self.n_digits:
            raise ValueError("cannot compose elements of different key lengths")
        perm = tuple(other.perm[p] for p in self.perm)
        maps = tuple(
            tuple(self.maps[i][other.maps[p][v]] for v in range(4)) for i, p in enumerate(self.perm)
        )
        return Element(perm, maps)

    def inverse(self) -> "Element":
        """The element undoing this one."""
        n = self.n_digits
        inv = [0] * n
        for i, p in enumerate(self.perm):
            inv[p] = i
        maps = []
        for j in range(n):
            forward = self.maps[inv[j]]
            backward = [0] * 4
            for v in range(4):
                backward[forward[v]] = v
            maps.append(tuple(backward))
        return Element(tuple(inv), tuple(maps))


def _key_length(elements: Sequence[Element], name: str) -> int:
    """The number of digit positions every one of `elements` (`name` in the error) acts on."""
    n_digits = elements[0].n_digits
    if any(e.n_digits != n_digits for e in elements):
        raise ValueError(f"all {name} must act on the same key length")
    return n_digits


def _byte_tables(element: Element) -> np.ndarray:
    """Tables ``t[c, b]``: the image bits contributed by byte ``c`` (bits 8c..8c+7) of a key equal to ``b``.

    The image of a key is the bitwise OR of ``t[c, (key >> 8c) & 255]`` over its bytes, because every
    source digit lands in exactly one target position.
    """
    n = element.n_digits
    target_of = [0] * n
    for i, p in enumerate(element.perm):
        target_of[p] = i
    n_chunks = (n + 3) // 4
    tables = np.zeros((n_chunks, 256), dtype=np.int64)
    for chunk in range(n_chunks):
        for slot in range(4):
            source = n - 1 - (4 * chunk + slot)
            if source < 0:
                break
            target = target_of[source]
            lut = np.array(element.maps[target], dtype=np.int64) << (2 * (n - 1 - target))
            tables[chunk] |= lut[(_BYTE_VALUES >> (2 * slot)) & 3]
    return tables


def _as_key_array(values: np.ndarray, n_digits: int, name: str) -> np.ndarray:
    array = np.asarray(values)
    if array.ndim != 1 or array.dtype.kind not in "iu":
        raise ValueError(f"{name} must be a 1-D integer array")
    if array.dtype.kind == "u" and array.size and array.max() >= 4**n_digits:
        raise ValueError(f"{name} out of range for {n_digits} base-4 digits")
    array = array.astype(np.int64, copy=False)
    if array.size and (array.min() < 0 or array.max() >= 4**n_digits):
        raise ValueError(f"{name} out of range for {n_digits} base-4 digits")
    return array


class Group:
    """A finite group of :class:`Element` acting on keys of ``n_digits`` base-4 digits.

    ``elements`` holds every element once, identity first, in a deterministic order. The
    constructor checks the group axioms (identity, closure); build groups with :meth:`from_generators`.
    """

    __slots__ = ("_tables", "elements", "n_digits")

    def __init__(self, elements: Sequence[Element]) -> None:
        elements = tuple(elements)
        if not elements:
            raise ValueError("a group needs at least the identity")
        n_digits = _key_length(elements, "elements")
        if elements[0] != Element.identity(n_digits):
            raise ValueError("the first element must be the identity")
        members = set(elements)
        if len(members) != len(elements):
            raise ValueError("elements must be distinct")
        if any(a.compose(b) not in members for a in elements for b in elements):
            raise ValueError("elements are not closed under composition")
        self.elements: tuple[Element, ...] = elements
        self.n_digits: int = n_digits
        self._tables = np.stack([_byte_tables(e) for e in elements])

    @classmethod
    def from_generators(cls, generators: Sequence[Element]) -> "Group":
        """The group generated by ``generators``: breadth-first closure from the identity.

        Elements appear in discovery order (identity, then products by the generators in the
        order given), so the same generators always give the same element order.
        """
        generators = tuple(generators)
        if not generators:
            raise ValueError("at least one generator is needed")
        n_digits = _key_length(generators, "generators")
        identity = Element.identity(n_digits)
        elements = [identity]
        seen = {identity}
        for current in elements:
            for generator in generators:
                product = generator.compose(current)
                if product not in seen:
                    if len(elements) >= _MAX_ORDER:
                        raise ValueError(f"generated group exceeds {_MAX_ORDER} elements")
                    seen.add(product)
                    elements.append(product)
        return cls(elements)

    @property
    def order(self) -> int:
        """Number of elements."""
        return len(self.elements)

    def apply(self, element: Element, key: int) -> int:
        """The image of ``key`` under ``element``."""
        if element.n_digits != self.n_digits:
            raise ValueError("element and group act on different key lengths")
        digits = decode(key, self.n_digits)
        return encode([element.maps[i][digits[p]] for i, p in enumerate(element.perm)])

    def variants(self, key: int) -> list[int]:
        """All distinct images of ``key``, sorted ascending."""
        return sorted({self.apply(e, key) for e in self.elements})

    def canonical(self, key: int) -> int:
        """The smallest image of ``key`` (= the lexicographically smallest digit string)."""
        return min(self.apply(e, key) for e in self.elements)

    def orbit_size(self, key: int) -> int:
        """Number of distinct images of ``key``; always divides :attr:`order`."""
        return len(self.variants(key))

    def stabiliser(self, key: int) -> list[Element]:
        """The elements that leave ``key`` unchanged, in group order."""
        key = check_key(key, self.n_digits)
        return [e for e in self.elements if self.apply(e, key) == key]

    def canonicalize(
        self, keys: np.ndarray, *, masks: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Canonical keys, orbit sizes and transformed masks for many keys at once.

        Parameters
        ----------
        keys
            1-D integer array of keys (int64 range, ``n_digits`` base-4 digits).
        masks
            Optional payload of the same shape and layout, transformed like its key (for example
            the blk4 ``result`` mask of who played where).

        Returns
        -------
        ``(canonical, orbit_sizes, masks')``, int64 arrays; ``masks'`` is the bitwise OR of the
        transformed mask over all elements that map the key to its canonical key (so a symmetric
        key gets a symmetric mask), or None when no masks were given.
        """
        keys = _as_key_array(keys, self.n_digits, "keys")
        if masks is not None:
            masks = _as_key_array(masks, self.n_digits, "masks")
            if masks.shape != keys.shape:
                raise ValueError("masks must have the same shape as keys")
        with_masks = masks is not None
        canonical, fixed, masks_out = _canonical_images(
            keys, self._tables, masks if masks is not None else np.zeros(0, dtype=np.int64), with_masks
        )
        return canonical, self.order // fixed, masks_out if with_masks else None


@kernel(cache=True, nogil=True)
def _image(tables: np.ndarray, element: int, key: int) -> int:
    """The image of `key` under group element `element` (the OR of its bytes' table entries)."""
    image = 0
    for chunk in range(tables.shape[1]):
        image |= tables[element, chunk, (key >> (8 * chunk)) & 255]
    return image


@kernel(cache=True, nogil=True)
def _canonical_images(
    keys: np.ndarray, tables: np.ndarray, masks: np.ndarray, with_masks: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Smallest image, number of fixing elements and OR of the masks moved with it, for each key."""
    best = keys.copy()
    fixed = np.ones(keys.size, dtype=np.int64)
    best_mask = masks.copy()
    for row in range(keys.size):
        key = keys[row]
        for element in range(1, tables.shape[0]):
            image = _image(tables, element, key)
            if image == key:
                fixed[row] += 1
            if image < best[row]:
                best[row] = image
                if with_masks:
                    best_mask[row] = _image(tables, element, masks[row])
            elif with_masks and image == best[row]:
                best_mask[row] |= _image(tables, element, masks[row])
    return best, fixed, best_mask


def d4_point_images(points: Sequence[tuple[float, float]]) -> tuple[tuple[int, ...], ...]:
    """The 8 symmetries of the square as point maps: ``images[g][j]`` = index of the image of point j.

    The group acts about the centroid of the points; order: identity, rotations by 90, 180, 270
    degrees, then the reflections in the vertical axis, horizontal axis, main and anti diagonal.
    Raises ValueError if the points are not closed under these symmetries.
    """
    pts = [(float(r), float(c)) for r, c in points]
    if not pts:
        raise ValueError("no points")
    centre_r = sum(r for r, _ in pts) / len(pts)
    centre_c = sum(c for _, c in pts) / len(pts)
    relative = [(r - centre_r, c - centre_c) for r, c in pts]

    def spot(r: float, c: float) -> tuple[float, float]:
        return (round(r, 6) + 0.0, round(c, 6) + 0.0)

    index = {spot(r, c): j for j, (r, c) in enumerate(relative)}
    if len(index) != len(pts):
        raise ValueError("duplicate points")
    transforms: tuple[Callable[[float, float], tuple[float, float]], ...] = (
        lambda r, c: (r, c),
        lambda r, c: (c, -r),
        lambda r, c: (-r, -c),
        lambda r, c: (-c, r),
        lambda r, c: (r, -c),
        lambda r, c: (-r, c),
        lambda r, c: (c, r),
        lambda r, c: (-c, -r),
    )
    images = []
    for transform in transforms:
        image = []
        for r, c in relative:
            target = index.get(spot(*transform(r, c)))
            if target is None:
                raise ValueError("points are not closed under the symmetries of the square")
            image.append(target)
        images.append(tuple(image))
    return tuple(images)


def _point_element(layout: KeyLayout, image: Sequence[int]) -> Element:
    """The key element moving the content of point j to point ``image[j]`` in every plane."""
    n_points = len(layout.points)
    perm = [0] * layout.n_digits
    for plane in range(len(layout.planes)):
        base = 1 + plane * n_points
        for j, target in enumerate(image):
            perm[base + target] = base + j
    return Element(tuple(perm), (_IDENTITY_MAP,) * layout.n_digits)


def _colour_swap_element(layout: KeyLayout) -> Element:
    maps = [_SWAP_MAP]
    for plane in layout.planes:
        maps.extend([_SWAP_MAP if plane == "stone" else _IDENTITY_MAP] * len(layout.points))
    return Element(tuple(range(layout.n_digits)), tuple(maps))


@cache  # building a group checks its closure (about 20 ms); groups are immutable, so one serves every caller
def square_group(layout: KeyLayout, *, colour_swap: bool) -> Group:
    """D4 on the layout's points (8 elements); with ``colour_swap`` its product with the colour swap (16).

    The colour swap maps the colour-to-move digit and every stone digit 1 <-> 2 (0 and 3 fixed) and
    leaves liberty digits alone. Raises ValueError if the points are not closed under D4 about their
    centroid, or if D4 does not act faithfully on them (a single point).
    """
    images = d4_point_images(layout.points)
    generators = [_point_element(layout, images[1]), _point_element(layout, images[4])]
    if colour_swap:
        generators.append(_colour_swap_element(layout))
    group = Group.from_generators(generators)
    expected = SYMMETRIES[1] if colour_swap else SYMMETRIES[0]
    if group.order != expected:
        raise ValueError(f"the layout's symmetry group has {group.order} elements, expected {expected}")
    return group
