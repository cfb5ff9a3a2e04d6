"""The numba key parser of the pattern_stats key checks against the Python key functions."""

from __future__ import annotations

import random

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from gopat.expectations import pattern_keys
from gopat.transforms.patterns.families import FAMILIES
from gopat.transforms.patterns.keys import parse_key


@settings(max_examples=60, deadline=None)
@given(
    family=st.sampled_from(sorted(FAMILIES)),
    symmetry=st.sampled_from([8, 16]),
    seed=st.integers(0, 2**32 - 1),
    rows=st.integers(0, 40),
    skip=st.integers(0, 3),
)
def test_parse_keys_agrees_with_parse_key_and_group_apply(
    family: str, symmetry: int, seed: int, rows: int, skip: int
) -> None:
    """Keys and variants of well-formed texts; every malformed text (sliced array, nulls) is flagged."""
    n_digits = FAMILIES[family].layout.n_digits
    group = FAMILIES[family].group(symmetry)
    rng = random.Random(seed)
    texts: list[str | None] = [rng.choice("12") + "".join(rng.choice("0123") for _ in range(n_digits - 1))
                               for _ in range(rows + skip)]
    for row in range(skip, rows + skip, 3):  # every third text broken in one of five ways
        texts[row] = rng.choice([None, texts[row][1:], texts[row] + "0", "3" + texts[row][1:], texts[row][:-1] + "x"])
    keys, variants, ok = pattern_keys.parse_keys(pa.array(texts).slice(skip), n_digits=n_digits, group=group)
    for row, text in enumerate(texts[skip:]):
        well_formed = text is not None and len(text) == n_digits and text[0] in "12" and set(text) <= set("0123")
        assert ok[row] == well_formed
        if well_formed:
            assert keys[row] == parse_key(text)
            assert variants[row] == group.apply(group.elements[row % group.order], parse_key(text))
