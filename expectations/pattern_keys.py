"""The numba key parser of the `pattern_stats` key checks: key texts to int64 keys, and one variant of each."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from gopat.transforms.kernels import kernel
from gopat.transforms.patterns.symmetry import Group


def parse_keys(
    texts: pa.Array, *, n_digits: int, group: Group
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """Keys of digit texts, one variant of each, and which texts are well-formed keys.

    A well-formed key is `n_digits` digits 0..3 whose first (the colour to move) is 1 or 2. Row i's
    variant is its key transformed by group element ``i % group.order``, computed digit by digit
    from the element's permutation and value maps (not with the byte tables `Group.canonicalize`
    uses), so the variant check compares two implementations.
    """
    texts = texts.cast(pa.large_string())
    offsets = np.frombuffer(texts.buffers()[1], dtype=np.int64)[texts.offset : texts.offset + len(texts) + 1]
    buffer = texts.buffers()[2]
    data = np.frombuffer(buffer, dtype=np.uint8) if buffer is not None and buffer.size else np.zeros(0, np.uint8)
    valid = texts.is_valid().to_numpy(zero_copy_only=False)
    perms = np.array([element.perm for element in group.elements], dtype=np.int64)
    maps = np.array([element.maps for element in group.elements], dtype=np.int64)
    return _parse_keys(offsets, data, valid, n_digits, perms, maps)


@kernel(nogil=True)
def _parse_keys(
    offsets: npt.NDArray[np.int64],
    data: npt.NDArray[np.uint8],
    valid: npt.NDArray[np.bool_],
    n_digits: int,
    perms: npt.NDArray[np.int64],
    maps: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """Numba kernel of `parse_keys`: one pass over the Arrow offsets and bytes of the key texts."""
    rows = valid.size
    keys = np.zeros(rows, dtype=np.int64)
    variants = np.zeros(rows, dtype=np.int64)
    ok = np.zeros(rows, dtype=np.bool_)
    digits = np.zeros(n_digits, dtype=np.int64)
    for row in range(rows):
        start = offsets[row]
        if not valid[row] or offsets[row + 1] - start != n_digits:
            continue
        good: bool | np.bool_ = True  # annotations of locals are never evaluated: numba sees `good = True`
        key: int | np.int64 = 0
        for i in range(n_digits):
            digit = np.int64(data[start + i]) - 48
            good = good and 0 <= digit <= 3
            digits[i] = digit & 3
            key = (key << 2) | (digit & 3)
        if not good or digits[0] == 0 or digits[0] == 3:
            continue
        element = row % perms.shape[0]
        variant = 0
        for i in range(n_digits):
            variant = (variant << 2) | maps[element, i, digits[perms[element, i]]]
        keys[row], variants[row], ok[row] = key, variant, True
    return keys, variants, ok

