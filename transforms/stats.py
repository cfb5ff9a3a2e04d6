"""Canonical pattern rows from raw pattern counts: canonical keys, orbit sizes, stones, diagrams."""

from __future__ import annotations

import numpy as np
import polars as pl

from transforms.patterns import FAMILIES, diagrams, stones

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
    """Map each raw key of one family to its canonical key under the family's group.

    `raw` has columns key, occurrence, chosen, result (one row per raw key). Block families carry
    a who-played-where mask, moved into the canonical frame with the key; other families' result
    is null. Rows are not yet summed per canonical key.
    """
    spec = FAMILIES[family]
    keys = raw["key"].to_numpy()
    masks = raw["result"].to_numpy() if spec.anchor == "block" else None
    canonical, orbit, moved = spec.group(symmetry).canonicalize(keys, masks=masks)
    return pl.DataFrame(
        {
            "family": [family] * len(raw),
            "symmetry": np.full(len(raw), symmetry, dtype=np.int32),
            "key": canonical,
            "orbit_size": orbit.astype(np.int32),
            "occurrence": raw["occurrence"],
            "chosen": raw["chosen"],
            "result": moved if moved is not None else pl.repeat(None, len(raw), dtype=pl.Int64, eager=True),
        },
        schema=CANONICAL_SCHEMA,
    )


def describe_keys(keys: pl.DataFrame) -> pl.DataFrame:
    """Printable columns for canonical keys of one or more families.

    `keys` has columns family, key (Int64); returns them with key_text (digit string), stones and
    diagram added.
    """
    parts = []
    for (family,), part in keys.group_by("family", maintain_order=True):
        n_digits = FAMILIES[family].layout.n_digits
        values = part["key"].to_numpy()
        parts.append(
            part.with_columns(
                key_text=pl.Series(key_strings(values, n_digits)),
                stones=pl.Series(stones(family, values), dtype=pl.Int32),
                diagram=pl.Series(diagrams(family, values), dtype=pl.String),
            )
        )
    schema = {"family": pl.String, "key": pl.Int64, "key_text": pl.String, "stones": pl.Int32, "diagram": pl.String}
    return pl.concat(parts) if parts else pl.DataFrame(schema=schema)


def key_strings(keys: np.ndarray, n_digits: int) -> np.ndarray:
    """Base-4 digit strings of int64 keys, most significant digit first, vectorised."""
    shifts = np.arange(2 * (n_digits - 1), -1, -2, dtype=np.int64)
    digits = ((keys.astype(np.int64)[:, None] >> shifts) & 3).astype(np.uint8) + ord("0")
    return np.ascontiguousarray(digits).view(f"S{n_digits}").ravel().astype(str)
