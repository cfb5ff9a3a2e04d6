"""The derived columns of a release's tables for readers of its Parquet files without DuckDB: the same values as the
catalog's macros (transforms/analytics/sql/macros/columns.sql), vectorised over columns.

Each function takes columns (polars or pandas Series, numpy arrays or lists) and returns a polars Series;
`family` is one family name or a column of them. docs/releases.md#reading-the-files has polars and pandas
examples.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from gopat.transforms.patterns.families import FAMILIES
from gopat.transforms.patterns.render import pattern_texts

_LETTERS = np.array(list("abcdefghijklmnopqrstuvwxyz"))  # SGF's point letters, 'a' = 0
Column = pl.Series | np.ndarray | Sequence[Any] | Any  # anything pl.Series() takes, a pandas Series too


def chosen_rates(chosen: Column, occurrence: Column) -> pl.Series:
    """`chosen_rate` of pattern_stats and dont_care_templates: chosen / occurrence."""
    return (_series(chosen, pl.Int64) / _series(occurrence, pl.Int64)).alias("chosen_rate")


def pattern_stones(family: str | Column, key: Column) -> pl.Series:
    """`stones` of pattern_stats: the occupied cells (black or white) of each key's stone plane."""
    keys = _series(key, pl.String)
    cells = _families(family, len(keys)).replace_strict(
        {name: len(spec.layout.points) for name, spec in FAMILIES.items()}, return_dtype=pl.Int64)
    frame = pl.DataFrame({"key": keys, "cells": cells})
    return frame.select(pl.col("key").str.slice(1, pl.col("cells")).str.count_matches("[12]")
                        .cast(pl.Int32).alias("stones")).to_series()


def pattern_diagrams(family: str | Column, key: Column) -> pl.Series:
    """`diagram` of pattern_stats and dont_care_templates: each key or template drawn as text
    (docs/patterns.md#diagrams)."""
    keys = _series(key, pl.String)
    families = _families(family, len(keys))
    drawn = np.full(len(keys), None, dtype=object)
    for name in families.unique().drop_nulls().to_list():
        rows = (families == name).fill_null(False).to_numpy()
        drawn[rows] = pattern_texts(name, keys.filter(rows).to_numpy())
    return pl.Series("diagram", drawn, dtype=pl.String)


def sgf_points(row: Column, col: Column) -> pl.Series:
    """`point` of moves and setups: SGF letters, column then row ('pd'); null for a pass."""
    rows, cols = _series(row, pl.Int32), _series(col, pl.Int32)
    on_board = (rows.is_not_null() & cols.is_not_null()).to_numpy()
    points = np.full(len(rows), None, dtype=object)
    points[on_board] = np.char.add(_LETTERS[cols.filter(on_board).to_numpy()],
                                   _LETTERS[rows.filter(on_board).to_numpy()])
    return pl.Series("point", points, dtype=pl.String)


def _series(values: Column, dtype: pl.DataType | type[pl.DataType]) -> pl.Series:
    return values.cast(dtype) if isinstance(values, pl.Series) else pl.Series(values, dtype=dtype, strict=False)


def _families(family: str | Column, rows: int) -> pl.Series:
    if isinstance(family, str):
        return pl.repeat(family, rows, eager=True, dtype=pl.String)
    return _series(family, pl.String)
