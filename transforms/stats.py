"""Canonical pattern rows from raw pattern counts: canonical keys, orbit sizes, stones, diagrams."""

from __future__ import annotations

import numpy as np
import polars as pl
import pyarrow as pa

from transforms.patterns import FAMILIES, stones

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
    families' result is null. Sums use a sort and `reduceat` (exact int64, no hashing).
    """
    spec = FAMILIES[family]
    masks = raw["result"].to_numpy() if spec.anchor == "block" else None
    canonical, orbit, moved = spec.group(symmetry).canonicalize(raw["key"].to_numpy(), masks=masks)
    order = np.argsort(canonical)  # not stable: equal keys are summed and OR-ed, in any order
    keys = canonical[order]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]) if len(keys) else np.zeros(0, dtype=np.int64)
    n = len(starts)
    return pl.DataFrame(
        {
            "family": pl.Series([family] * n, dtype=pl.String),
            "symmetry": np.full(n, symmetry, dtype=np.int32),
            "key": keys[starts],
            "orbit_size": orbit[order][starts].astype(np.int32),
            "occurrence": np.add.reduceat(raw["occurrence"].to_numpy()[order], starts) if n else [],
            "chosen": np.add.reduceat(raw["chosen"].to_numpy()[order], starts) if n else [],
            "result": np.bitwise_or.reduceat(moved[order], starts) if moved is not None and n else None,
        },
        schema=CANONICAL_SCHEMA,
    )


def canonical_shard(raw: pl.DataFrame, *, symmetries: tuple[int, ...] = (8, 16)) -> pl.DataFrame:
    """Raw counts of a shard (family, key, occurrence, chosen, result) summed per family, symmetry
    and canonical key, so that shards merge by plain sums."""
    parts = [
        canonical_counts(part.drop("family"), family=family, symmetry=symmetry)
        for (family,), part in raw.group_by("family", maintain_order=True)
        for symmetry in symmetries
    ]
    return pl.concat(parts) if parts else pl.DataFrame(schema=CANONICAL_SCHEMA)


def describe_keys(family: str, keys: np.ndarray) -> pa.Table:
    """Printable columns of one family's canonical keys, as Arrow: key_text (digit string), stones, diagram.

    The text columns go from fixed-width byte matrices straight into Arrow string arrays without
    copies or Python strings (well under a microsecond a key: the build describes every key it
    publishes, 121 million on the sample corpus).
    """
    from transforms.render import pattern_text_matrix  # render builds on transforms.patterns

    values = np.asarray(keys, dtype=np.int64)
    return pa.table(
        {
            "key_text": _ascii_array(_key_digit_matrix(values, FAMILIES[family].layout.n_digits)),
            "stones": pa.array(stones(family, values).astype(np.int32)),
            "diagram": _ascii_array(pattern_text_matrix(family, values)),
        }
    )


def key_strings(keys: np.ndarray, n_digits: int) -> np.ndarray:
    """Base-4 digit strings of int64 keys, most significant digit first, vectorised."""
    return _key_digit_matrix(keys, n_digits).view(f"S{n_digits}").ravel().astype(str)


def _key_digit_matrix(keys: np.ndarray, n_digits: int) -> np.ndarray:
    """ASCII digit codes of int64 keys in base 4 as a (keys, n_digits) uint8 matrix."""
    from transforms.render import digit_text_matrix  # render builds on transforms.patterns

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
