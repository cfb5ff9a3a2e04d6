"""Canonical pattern rows from raw pattern counts: canonical keys, orbit sizes, key texts."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl
import pyarrow as pa

from gopat.transforms.kernels import kernel
from gopat.transforms.patterns.families import FAMILIES
from gopat.transforms.patterns.render import digit_text_matrix
from gopat.transforms.patterns.symmetry import SYMMETRIES
from gopat.transforms.tables.registry import TABLES

EVENTS_SCHEMA = TABLES["move_patterns"].stored  # the rows of move_patterns (docs/releases.md#move_patterns)
PATTERN_COUNTS_SCHEMA = pa.schema([  # the complete counts a build keeps as state (docs/releases.md#complete-counts)
    ("family", pa.string()), ("symmetry", pa.int32()), ("key", pa.int64()), ("occurrence", pa.int64()),
    ("chosen", pa.int64()), ("orbit_size", pa.int32()), ("result", pa.int64()),
])
DEFAULT_EVENT_FAMILIES = ("d12", "dia13", "sq3")  # published in move_patterns (docs/releases.md#move_patterns)
CANONICAL_SCHEMA = {
    "family": pl.String,
    "symmetry": pl.Int32,
    "key": pl.Int64,
    "orbit_size": pl.Int32,
    "occurrence": pl.Int64,
    "chosen": pl.Int64,
    "result": pl.Int64,
}


def canonical_counts(raw: pl.DataFrame, *, family: str, symmetry: int) -> pl.DataFrame:
    """Raw counts of one family summed per canonical key under the family's group.

    `raw` has columns key, occurrence, chosen, result (one row per raw key). Block families carry
    a who-played-where mask, moved into the canonical frame with the key and OR-ed; other
    families' result is null.
    """
    spec = FAMILIES[family]
    masks = raw["result"].to_numpy() if spec.anchor == "block" else None
    canonical, orbit, moved = spec.group(symmetry).canonicalize(raw["key"].to_numpy(), masks=masks)
    keys, orbit_size, occurrence, chosen, result = summed_per_key(
        canonical, orbit_size=orbit, occurrence=raw["occurrence"].to_numpy(), chosen=raw["chosen"].to_numpy(),
        result=moved,
    )
    return pl.DataFrame(
        {
            "family": pl.repeat(family, len(keys), eager=True, dtype=pl.String),
            "symmetry": np.full(len(keys), symmetry, dtype=np.int32),
            "key": keys,
            "orbit_size": orbit_size.astype(np.int32),
            "occurrence": occurrence,
            "chosen": chosen,
            "result": result,
        },
        schema=CANONICAL_SCHEMA,
    )


def summed_runs(runs: pa.Table, *, family: str, symmetry: int) -> pa.Table:
    """Counts of one family and symmetry (columns key, orbit_size, occurrence, chosen, result) summed per key, in key
    order: the rows of sorted runs of counts one after the other, each run's keys sorted and unique (a release's
    run files, docs/releases.md#complete-counts). `result` is null in every row (a family without a result) or
    in none; ValueError otherwise.
    """
    runs = runs.combine_chunks()
    result = runs["result"]
    if result.null_count not in (0, len(result)):
        raise ValueError(f"{family} {symmetry}: result must be null in every row of the runs or in none")
    keys, orbit_size, occurrence, chosen, summed = summed_per_key(
        runs["key"].to_numpy(), orbit_size=runs["orbit_size"].to_numpy(), occurrence=runs["occurrence"].to_numpy(),
        chosen=runs["chosen"].to_numpy(), result=None if result.null_count else result.to_numpy(), merge=True,
    )
    return pa.table({
        "family": pa.nulls(len(keys), pa.string()).fill_null(family),
        "symmetry": pa.array(np.full(len(keys), symmetry, dtype=np.int32)),
        "key": pa.array(keys),
        "occurrence": pa.array(occurrence),
        "chosen": pa.array(chosen),
        "orbit_size": pa.array(orbit_size),
        "result": pa.nulls(len(keys), pa.int64()) if summed is None else pa.array(summed),
    }, schema=PATTERN_COUNTS_SCHEMA)


def summed_per_key(
    keys: np.ndarray, *, orbit_size: np.ndarray, occurrence: np.ndarray, chosen: np.ndarray,
    result: np.ndarray | None, merge: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """Rows of counts summed per key, in key order: (key, orbit_size, occurrence, chosen, result).

    occurrence and chosen are summed (exact int64, a sort and one pass in key order, no hashing), result
    OR-ed (None: no result), orbit_size taken from a key's first row (every row of a key has the same).
    `merge`: the rows are sorted runs laid end to end, which a stable sort merges (numpy's timsort
    finds the runs), so summing a few runs costs little more than reading them.
    """
    order = np.argsort(keys, kind="stable" if merge else None)
    masks = np.zeros(0, dtype=np.int64) if result is None else result
    firsts, orbit, occurrences, chosens, results = _summed_in_order(keys, order, orbit_size, occurrence, chosen, masks)
    return firsts, orbit, occurrences, chosens, None if result is None else results


@kernel(cache=True)
def _summed_in_order(
    keys: np.ndarray, order: np.ndarray, orbit_size: np.ndarray, occurrence: np.ndarray, chosen: np.ndarray,
    result: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """summed_per_key's pass over the rows in `order` (keys ascending); `result` empty: no result (zeros back)."""
    distinct = 0
    for i in range(order.shape[0]):
        if i == 0 or keys[order[i]] != keys[order[i - 1]]:
            distinct += 1
    firsts = np.empty(distinct, dtype=np.int64)
    orbit = np.empty(distinct, dtype=orbit_size.dtype)
    occurrences = np.zeros(distinct, dtype=np.int64)
    chosens = np.zeros(distinct, dtype=np.int64)
    results = np.zeros(distinct, dtype=np.int64)
    with_result = result.shape[0] > 0
    j = -1
    for i in range(order.shape[0]):
        row = order[i]
        if j < 0 or keys[row] != firsts[j]:
            j += 1
            firsts[j] = keys[row]
            orbit[j] = orbit_size[row]
        occurrences[j] += occurrence[row]
        chosens[j] += chosen[row]
        if with_result:
            results[j] |= result[row]
    return firsts, orbit, occurrences, chosens, results


def canonical_shard(raw: pl.DataFrame, *, symmetries: tuple[int, ...] = SYMMETRIES) -> pl.DataFrame:
    """Raw counts of a shard (family, key, occurrence, chosen, result) summed per family, symmetry
    and canonical key, so that shards merge by plain sums.

    Each family's group of 16 contains its group of 8, so the 16-symmetry counts are summed from
    the 8-symmetry ones (fewer rows than the raw keys) rather than from the raw keys again.
    """
    parts = []
    for (family,), part in raw.group_by("family", maintain_order=True):
        counts = part.drop("family")
        for symmetry in sorted(symmetries):
            summed = canonical_counts(counts, family=family, symmetry=symmetry)
            parts.append(summed)
            counts = summed.select("key", "occurrence", "chosen", "result")
    return pl.concat(parts) if parts else pl.DataFrame(schema=CANONICAL_SCHEMA)


def check_event_families(names: Sequence[str]) -> tuple[str, ...]:
    """`names` if they can be published in move_patterns (registered, one chosen key a move: not a block family)."""
    bad = [name for name in names if name not in FAMILIES or FAMILIES[name].anchor == "block"]
    if bad:
        raise ValueError(f"move_patterns families must be pattern families with one key a move (not blk4), got {bad}")
    return tuple(names)


def canonical_events(events: pl.DataFrame, *, game_ids: Sequence[str]) -> pa.Table:
    """Chosen events (extract.EVENT_SCHEMA) with their canonical key texts, as `move_patterns` rows (EVENTS_SCHEMA).

    `game_ids` names the shard's games by index. key8 is the raw key's canonical key under the
    family's group of 8, key16 the canonical key of key8 under the group of 16 (which contains the
    group of 8, docs/symmetry.md "16 from 8"). Row order is kept.
    """
    parts = []
    for (family,), part in events.group_by("family", maintain_order=True):
        spec = FAMILIES[str(family)]
        key8 = spec.group(8).canonicalize(part["key"].to_numpy())[0]
        key16 = spec.group(16).canonicalize(key8)[0]
        colour_digit = part["key"].to_numpy() >> (2 * (spec.layout.n_digits - 1))
        parts.append(pa.table({
            "family": pa.array(part["family"].to_numpy(), type=pa.string()),
            "game_id": pa.array(np.asarray(game_ids, dtype=object)[part["game"].to_numpy()], type=pa.string()),
            "move_number": pa.array(part["move_number"].to_numpy(), type=pa.int32()),
            "colour": pa.array(np.where(colour_digit == 1, "B", "W"), type=pa.string()),
            "key8": _ascii_array(_key_digit_matrix(key8, spec.layout.n_digits)).cast(pa.string()),
            "key16": _ascii_array(_key_digit_matrix(key16, spec.layout.n_digits)).cast(pa.string()),
        }, schema=EVENTS_SCHEMA))
    return pa.concat_tables(parts) if parts else EVENTS_SCHEMA.empty_table()


def key_texts(family: str, keys: np.ndarray) -> pa.Array:
    """The digit strings of one family's int64 keys, as an Arrow string array.

    The texts go from a fixed-width byte matrix straight into an Arrow array without copies or
    Python strings (the build writes the text of every key it publishes).
    """
    return _ascii_array(_key_digit_matrix(np.asarray(keys, dtype=np.int64), FAMILIES[family].layout.n_digits))


def key_strings(keys: np.ndarray, n_digits: int) -> np.ndarray:
    """Base-4 digit strings of int64 keys, most significant digit first, vectorised."""
    return _key_digit_matrix(keys, n_digits).view(f"S{n_digits}").ravel().astype(str)


def _key_digit_matrix(keys: np.ndarray, n_digits: int) -> np.ndarray:
    """ASCII digit codes of int64 keys in base 4 as a (keys, n_digits) uint8 matrix."""
    return digit_text_matrix(
        keys, template=b"0" * n_digits, colour_words=(b"0", b"1", b"2", b"3"),
        slots=range(1, n_digits), alphabets=[b"0123"] * (n_digits - 1),
    )


def _ascii_array(matrix: np.ndarray) -> pa.Array:
    """A string array with one value per row of a uint8 matrix of ASCII codes (all rows one width)."""
    rows, width = matrix.shape
    offsets = np.arange(0, (rows + 1) * width, width, dtype=np.int64)
    return pa.Array.from_buffers(
        pa.large_string(), rows, [None, pa.py_buffer(offsets), pa.py_buffer(np.ascontiguousarray(matrix))]
    )


def key_values(texts: pa.Array | pa.ChunkedArray, n_digits: int) -> np.ndarray:
    """int64 keys of base-4 digit strings of `n_digits` digits (the inverse of key_texts)."""
    texts = (texts.combine_chunks() if isinstance(texts, pa.ChunkedArray) else texts).cast(pa.large_string())
    if texts.null_count:
        raise ValueError("null key text")
    offsets = np.frombuffer(texts.buffers()[1], dtype=np.int64)[texts.offset : texts.offset + len(texts) + 1]
    buffer = texts.buffers()[2]
    data = np.frombuffer(buffer, dtype=np.uint8) if buffer is not None else np.zeros(0, dtype=np.uint8)
    keys, bad = _key_values(offsets, data, n_digits)
    if bad >= 0:
        raise ValueError(f"key text {texts[int(bad)]} is not {n_digits} base-4 digits")
    return keys


@kernel(cache=True, nogil=True)
def _key_values(offsets: np.ndarray, data: np.ndarray, n_digits: int) -> tuple[np.ndarray, int]:
    """Keys of the texts between consecutive `offsets` of `data`, and the first malformed row (-1: none)."""
    rows = offsets.size - 1
    keys = np.zeros(rows, dtype=np.int64)
    for row in range(rows):
        start = offsets[row]
        if offsets[row + 1] - start != n_digits:
            return keys, row
        key: int | np.int64 = 0
        for i in range(n_digits):
            digit = np.int64(data[start + i]) - 48
            if digit < 0 or digit > 3:
                return keys, row
            key = (key << 2) | digit
        keys[row] = key
    return keys, -1
