"""Pattern keys: the layout of their points and planes, base-4 digits packed into an int64, and their text
(docs/patterns.md#keys, #layouts)."""

import operator
from collections.abc import Sequence
from dataclasses import dataclass

from gopat.transforms.checks import positive

MAX_DIGITS = 31
PLANE_NAMES = ("stone", "liberty")

# (row, col) of, B-1, ..., D-4 in the quadrant arrangement of docs/patterns.md#blk4:
#   A-1 A-2  B-3 B-1
#   A-3 A-4  B-4 B-2
#   D-2 D-4  C-4 C-3
#   D-1 D-3  C-2 C-1
BLOCK4_POINTS: tuple[tuple[float, float], ...] = (
    (0.0, 0.0), (0.0, 1.0), (1.0, 0.0), (1.0, 1.0),
    (0.0, 3.0), (1.0, 3.0), (0.0, 2.0), (1.0, 2.0),
    (3.0, 3.0), (3.0, 2.0), (2.0, 3.0), (2.0, 2.0),
    (3.0, 0.0), (2.0, 0.0), (3.0, 1.0), (2.0, 1.0),
)  # fmt: skip

# The 13-point diamond of radius 2 around (0, 0), read row by row (docs/patterns.md#d12).
DIAMOND13_POINTS: tuple[tuple[float, float], ...] = (
    (-2.0, 0.0),
    (-1.0, -1.0), (-1.0, 0.0), (-1.0, 1.0),
    (0.0, -2.0), (0.0, -1.0), (0.0, 0.0), (0.0, 1.0), (0.0, 2.0),
    (1.0, -1.0), (1.0, 0.0), (1.0, 1.0),
    (2.0, 0.0),
)  # fmt: skip


def square_points(size: int) -> tuple[tuple[float, float], ...]:
    """(row, col) of a ``size`` x ``size`` square, row by row from the top left, origin (0, 0)."""
    positive("square size", size)
    return tuple((float(r), float(c)) for r in range(size) for c in range(size))


@dataclass(frozen=True, slots=True)
class KeyLayout:
    """Geometry of a pattern key: digit 0 is the colour to move, then one digit plane per plane name.

    ``points`` are (row, col) pairs with any origin; the dihedral group acts about their centroid.
    ``planes`` is ``("stone",)`` or ``("stone", "liberty")``; each plane lists every point in order.
    """

    points: tuple[tuple[float, float], ...]
    planes: tuple[str, ...] = ("stone",)

    def __post_init__(self) -> None:
        points = []
        for point in self.points:
            try:
                row, col = point
                points.append((float(row), float(col)))
            except (TypeError, ValueError):
                raise ValueError(f"a point is a (row, col) pair of numbers, got {point!r}") from None
        planes = tuple(self.planes)
        if not points:
            raise ValueError("a key layout needs at least one point")
        if not planes or planes[0] != "stone" or len(set(planes)) != len(planes):
            raise ValueError(f"planes must start with 'stone' and be distinct, got {planes!r}")
        unknown = set(planes) - set(PLANE_NAMES)
        if unknown:
            raise ValueError(f"unknown planes {sorted(unknown)!r}; known: {PLANE_NAMES!r}")
        object.__setattr__(self, "points", tuple(points))
        object.__setattr__(self, "planes", planes)
        if self.n_digits > MAX_DIGITS:
            raise ValueError(f"layout needs {self.n_digits} digits, at most {MAX_DIGITS} fit in int64")

    @property
    def n_digits(self) -> int:
        """Key length: the colour digit plus one digit per point and plane."""
        return 1 + len(self.points) * len(self.planes)


def check_n_digits(n_digits: int) -> int:
    """``n_digits`` if a key of that many base-4 digits fits in int64, else ValueError."""
    if isinstance(n_digits, bool) or not isinstance(n_digits, int) or not 1 <= n_digits <= MAX_DIGITS:
        raise ValueError(f"n_digits must be an int in 1..{MAX_DIGITS}, got {n_digits!r}")
    return n_digits


def _as_int(value: int, what: str) -> int:
    if isinstance(value, bool):
        raise ValueError(f"{what} must be an int, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise ValueError(f"{what} must be an int, got {value!r}") from None


def check_key(key: int, n_digits: int) -> int:
    """``key`` as an int if it has at most ``n_digits`` base-4 digits, else ValueError."""
    value = _as_int(key, "key")
    if not 0 <= value < 4**n_digits:
        raise ValueError(f"key {value} out of range for {n_digits} base-4 digits")
    return value


def encode(digits: Sequence[int]) -> int:
    """Encode base-4 digits (most significant first) as an int."""
    digits = tuple(_as_int(d, "digit") for d in digits)
    check_n_digits(len(digits))
    key = 0
    for digit in digits:
        if not 0 <= digit <= 3:
            raise ValueError(f"digits must be 0..3, got {digit!r}")
        key = key * 4 + digit
    return key


def decode(key: int, n_digits: int) -> tuple[int, ...]:
    """The ``n_digits`` base-4 digits of ``key``, most significant first."""
    value = check_key(key, check_n_digits(n_digits))
    return tuple((value >> (2 * (n_digits - 1 - i))) & 3 for i in range(n_digits))


def key_string(key: int, n_digits: int) -> str:
    """The key as a text of ``n_digits`` digits 0..3, e.g. ``'110000020000013000003000003'``."""
    return "".join(str(d) for d in decode(key, n_digits))


def parse_key(text: str) -> int:
    """Inverse of :func:`key_string` (the length is not kept)."""
    if not isinstance(text, str) or not text or set(text) - set("0123"):
        raise ValueError(f"a key text is a non-empty string of digits 0..3, got {text!r}")
    check_n_digits(len(text))
    return int(text, 4)
