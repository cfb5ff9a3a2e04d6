"""gopat's Python derived columns against the catalog's macros, on polars, pandas and plain inputs."""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import polars as pl

from gopat.transforms.tables.columns import chosen_rates, pattern_diagrams, pattern_stones, sgf_points
from gopat.transforms.tables.macros import install_macros

ROWS = pl.DataFrame({
    "family": ["sq3", "d12", "sq3", "dia13", None],
    "key": ["1012000112", "110000020000013000003000003", "2333000000", "11111111111110", None],
    "occurrence": [4, 10, 3, 1, 2],
    "chosen": [1, 0, 3, 1, 0],
})


def test_the_python_columns_equal_the_macros() -> None:
    con = duckdb.connect()
    install_macros(con)
    frame = ROWS  # noqa: F841 (the query reads it by name)
    want = con.sql("SELECT chosen / occurrence AS chosen_rate, pattern_stones(family, key) AS stones, "
                   "pattern_diagram(family, key) AS diagram FROM frame").pl()
    got = pl.DataFrame([chosen_rates(ROWS["chosen"], ROWS["occurrence"]), pattern_stones(ROWS["family"], ROWS["key"]),
                        pattern_diagrams(ROWS["family"], ROWS["key"])])
    assert got.equals(want.with_columns(pl.col("stones").cast(pl.Int32)))


def test_pandas_and_plain_inputs() -> None:
    frame = ROWS.to_pandas()
    assert pattern_diagrams("sq3", frame["key"].iloc[:1]).to_list() == ["Black to move\n.XO\n...\nXXO"]
    assert pattern_stones("sq3", ["1012000112"]).to_list() == [5]
    assert chosen_rates(pd.Series([1]), np.array([4])).to_list() == [0.25]
    assert sgf_points(pd.Series([3, None], dtype="Int16"), [15, None]).to_list() == ["pd", None]
