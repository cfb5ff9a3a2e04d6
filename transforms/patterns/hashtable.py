"""The hash table of raw pattern counts that extraction fills: compiled kernels to probe, claim, add and grow.

A slot is a row of int64: the key, the family + 1 (0 = free slot), then per colour to move the
occurrence, chosen and result counts. Rows are added in batches of (key, tag, a, b) (:func:`commit`).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gopat.transforms.kernels import kernel

_MIN_CAPACITY, _MAX_INITIAL_CAPACITY = 1 << 16, 1 << 22
MAX_LOAD, HARD_LOAD = 0.6, 0.85  # grow between games above MAX_LOAD, inside a game above HARD_LOAD
_MIX1, _MIX2 = 0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53  # murmur3 fmix64
# hash table columns: key, family + 1 (0 = free slot), then per colour to move occurrence, chosen, result
Table = npt.NDArray[np.int64]  # capacity x _COLUMNS slots
Slot = int | np.int64  # a slot's row in the table (numba's int64 scalars)
KEY, _FAM, _OCC, _CHOSEN, _RESULT, _COLUMNS = 0, 1, 2, 4, 6, 8


@kernel(cache=True)
def fmix64(h: np.uint64) -> np.uint64:
    """murmur3's 64-bit finaliser: the hash of a packed key, before masking to a table's size."""
    h = (h ^ (h >> np.uint64(33))) * np.uint64(_MIX1)
    h = (h ^ (h >> np.uint64(33))) * np.uint64(_MIX2)
    return h ^ (h >> np.uint64(33))


@kernel(cache=True)
def _home(table: Table, tag: int, key: int) -> Slot:
    """First slot probed for ``(tag, key)``: :func:`fmix64` of the key and family tag."""
    h = np.uint64(key) ^ (np.uint64(tag) << np.uint64(58))
    return np.int64(fmix64(h) & np.uint64(table.shape[0] - 1))


@kernel(cache=True)
def _claim(table: Table, i: Slot, tag: int, key: int) -> tuple[Slot, int]:
    """Slot of ``(tag, key)`` probing linearly from ``i``, and 1 if it was newly claimed."""
    mask = table.shape[0] - 1
    while table[i, _FAM] != 0 and (table[i, KEY] != key or table[i, _FAM] != tag):
        i = (i + 1) & mask
    if table[i, _FAM] != 0:
        return i, 0
    table[i, KEY] = key
    table[i, _FAM] = tag
    return i, 1


@kernel(cache=True)
def rehash(table: Table, grown: Table) -> None:
    """Move every used slot of ``table`` into the empty larger table ``grown``."""
    for i in range(table.shape[0]):
        tag = table[i, _FAM]
        if tag != 0:
            j, _ = _claim(grown, _home(grown, tag, table[i, KEY]), tag, table[i, KEY])
            grown[j] = table[i]


@kernel(cache=True)
def commit(table: Table, rows: npt.NDArray[np.int64], n: int, probes: npt.NDArray[np.int64]) -> int:
    """Add the batch ``rows[:n]`` into the table; returns the number of new keys.

    A row is (key, tag, a, b): with tag > 0 it adds occurrences a (black to move) and b (white to
    move); with tag < 0 (the tag negated) it adds one chosen event for colour index a (0 black, 1
    white) and ORs the result mask b. The first probe of every row is loaded into ``probes``
    before any row is added, so that the cache misses of the batch overlap.
    """
    for k in range(n):
        i = _home(table, abs(rows[k, 1]), rows[k, 0])
        probes[k, 0] = i
        probes[k, 1] = table[i, _FAM]
    new_keys = 0
    for k in range(n):
        tag = rows[k, 1]
        i, new = _claim(table, probes[k, 0], abs(tag), rows[k, 0])
        new_keys += new
        if tag > 0:
            table[i, _OCC] += rows[k, 2]
            table[i, _OCC + 1] += rows[k, 3]
        else:
            table[i, _CHOSEN + rows[k, 2]] += 1
            table[i, _RESULT + rows[k, 2]] |= rows[k, 3]
    return new_keys


@kernel(cache=True)
def add_row(rows: npt.NDArray[np.int64], n: int, tag: int, key: int, a: int, b: int) -> int:
    """Write batch row ``n`` (see :func:`commit`); returns ``n + 1``."""
    rows[n, 0] = key
    rows[n, 1] = tag
    rows[n, 2] = a
    rows[n, 3] = b
    return n + 1


@kernel(cache=True)
def grown_table(table: Table, needed: int) -> Table:
    """A larger table (a power of two holding ``needed`` keys below the maximum load) with ``table``'s keys."""
    capacity = table.shape[0] * 2
    while needed > MAX_LOAD * capacity:
        capacity *= 2
    grown = np.zeros((capacity, _COLUMNS), dtype=np.int64)
    rehash(table, grown)
    return grown


@kernel(cache=True)
def table_rows(
    table: Table, n_keys: int, n_digits: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.uint32], Table, Table, Table, Table]:
    """Output columns from the table: one row per family, key and colour to move seen."""
    fam = np.empty(2 * n_keys, dtype=np.uint32)
    key = np.empty(2 * n_keys, dtype=np.int64)
    occurrence = np.empty(2 * n_keys, dtype=np.int64)
    chosen = np.empty(2 * n_keys, dtype=np.int64)
    result = np.empty(2 * n_keys, dtype=np.int64)
    r = 0
    for i in range(table.shape[0]):
        tag = table[i, _FAM]
        if tag != 0:
            for c in range(2):
                if table[i, _OCC + c] > 0 or table[i, _CHOSEN + c] > 0:
                    fam[r] = tag - 1
                    key[r] = ((c + 1) << (2 * (n_digits[tag - 1] - 1))) | table[i, KEY]
                    occurrence[r] = table[i, _OCC + c]
                    chosen[r] = table[i, _CHOSEN + c]
                    result[r] = table[i, _RESULT + c]
                    r += 1
    return fam[:r], key[:r], occurrence[:r], chosen[:r], result[:r]


def initial_capacity(expected_keys: int) -> int:
    """Power of two holding ``expected_keys`` below the maximum load, within the initial bounds."""
    capacity = _MIN_CAPACITY
    while expected_keys > MAX_LOAD * capacity and capacity < _MAX_INITIAL_CAPACITY:
        capacity *= 2
    return capacity


def new_table(capacity: int) -> Table:
    # allocated by numpy, not inside numba, so that large tables get transparent huge pages
    return np.zeros((capacity, _COLUMNS), dtype=np.int64)
