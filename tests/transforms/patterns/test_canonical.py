"""Canonical pattern rows: vectorised sums against a per-key scalar oracle, and key texts."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gopat.transforms.patterns.canonical import (
    EVENTS_SCHEMA,
    canonical_events,
    canonical_shard,
    check_event_families,
    key_strings,
    key_texts,
    key_values,
    summed_runs,
)
from gopat.transforms.patterns.families import FAMILIES
from gopat.transforms.patterns.keys import key_string


def random_keys(family: str, count: int, seed: int) -> np.ndarray:
    """Valid keys of a family: colour digit 1 or 2, the other digits 0..3 (0..2 where the seed has no edge)."""
    n_digits = FAMILIES[family].layout.n_digits
    rng = np.random.default_rng(seed)
    digits = rng.integers(0, 4, size=(count, n_digits))
    digits[:, 0] = rng.integers(1, 3, size=count)
    return (digits << (2 * np.arange(n_digits - 1, -1, -1))).sum(axis=1).astype(np.int64)


@settings(max_examples=25, deadline=None)
@given(family=st.sampled_from(["sq3", "dia13", "blk4", "d12"]), seed=st.integers(0, 2**32 - 1),
       count=st.integers(0, 60))
def test_canonical_shard_matches_a_scalar_oracle(family: str, seed: int, count: int) -> None:
    keys = random_keys(family, count, seed)
    keys = np.concatenate([keys, keys[: count // 3]])  # repeated raw keys must be summed too
    rng = np.random.default_rng(seed + 1)
    occurrence = rng.integers(1, 1000, size=len(keys))
    chosen = rng.integers(0, 2, size=len(keys))
    result = rng.integers(0, 2**32, size=len(keys)) if family == "blk4" else np.zeros(len(keys), dtype=np.int64)
    raw = pl.DataFrame({"family": [family] * len(keys), "key": keys, "occurrence": occurrence,
                        "chosen": chosen, "result": result})
    got = canonical_shard(raw)
    for symmetry in (8, 16):
        group = FAMILIES[family].group(symmetry)
        expected: dict[int, list[int]] = defaultdict(lambda: [0, 0])
        for key, occ, cho in zip(keys.tolist(), occurrence.tolist(), chosen.tolist(), strict=True):
            sums = expected[group.canonical(key)]
            sums[0] += occ
            sums[1] += cho
        rows = got.filter(pl.col("symmetry") == symmetry)
        assert rows["key"].to_list() == sorted(expected)
        assert [[o, c] for o, c in zip(rows["occurrence"], rows["chosen"], strict=True)] == [
            expected[k] for k in sorted(expected)
        ]
        assert rows["orbit_size"].to_list() == [group.orbit_size(k) for k in sorted(expected)]
        if family == "blk4":  # the 16-symmetry masks (summed from the 8-symmetry rows) as if moved from the raw rows
            canonical, _, moved = group.canonicalize(keys, masks=result)
            masks: dict[int, int] = defaultdict(int)
            for key, mask in zip(canonical.tolist(), moved.tolist(), strict=True):
                masks[key] |= mask
            assert rows["result"].to_list() == [masks[k] for k in sorted(expected)]
        else:
            assert rows["result"].null_count() == len(rows)


@settings(max_examples=15, deadline=None)
@given(families=st.lists(st.sampled_from(["sq3", "dia13", "d12", "lib9"]), min_size=1, max_size=3, unique=True),
       seed=st.integers(0, 2**32 - 1), count=st.integers(0, 40))
def test_canonical_events_match_a_scalar_oracle(families: list[str], seed: int, count: int) -> None:
    rng = np.random.default_rng(seed)
    parts = [pl.DataFrame({"family": [family] * count, "game": rng.integers(0, 3, size=count),
                           "move_number": rng.integers(1, 300, size=count), "key": random_keys(family, count, seed)},
                          schema={"family": pl.String, "game": pl.Int32, "move_number": pl.Int32, "key": pl.Int64})
             for family in families]
    events = pl.concat(parts)
    got = canonical_events(events, game_ids=["g0", "g1", "g2"])
    assert got.schema == EVENTS_SCHEMA
    expected = []
    for family, game, number, key in events.iter_rows():
        spec = FAMILIES[family]
        group8, group16, n_digits = spec.group(8), spec.group(16), spec.layout.n_digits
        expected.append({"family": family, "game_id": f"g{game}", "move_number": number,
                         "colour": "BW"[key_string(key, n_digits)[0] == "2"],
                         "key8": key_string(group8.canonical(key), n_digits),
                         "key16": key_string(group16.canonical(key), n_digits)})
    assert got.to_pylist() == expected


@pytest.mark.parametrize(("family", "results"), [("blk4", [1, 4, 2, 8]), ("sq5", [None] * 4)])
def test_sorted_runs_are_summed_per_key_in_key_order(family: str, results: list[int | None]) -> None:
    runs = pa.table({  # two runs, each sorted by key: 5 and 9 in both
        "key": [5, 9, 12, 3, 5, 9], "orbit_size": [8, 4, 8, 2, 8, 4], "occurrence": [1, 2, 3, 4, 5, 6],
        "chosen": [0, 1, 1, 2, 3, 0], "result": [*results, results[2], results[3]],
    }, schema=pa.schema([(name, pa.int32() if name == "orbit_size" else pa.int64())
                         for name in ("key", "orbit_size", "occurrence", "chosen", "result")]))
    summed = summed_runs(runs, family=family, symmetry=16).to_pylist()
    ored = [results[3], results[0] and results[0] | results[2], results[1] and results[1] | results[3], results[2]]
    assert summed == [
        {"family": family, "symmetry": 16, "key": key, "occurrence": occurrence, "chosen": chosen,
         "orbit_size": orbit, "result": result}
        for key, occurrence, chosen, orbit, result in zip([3, 5, 9, 12], [4, 6, 8, 3], [2, 3, 1, 1], [2, 8, 4, 8], ored,
                                                          strict=True)
    ]
    assert summed_runs(runs.slice(0, 0), family=family, symmetry=8).num_rows == 0


def test_runs_with_a_result_in_some_rows_only_are_refused() -> None:
    runs = pa.table({"key": [1, 2], "orbit_size": pa.array([8, 8], pa.int32()), "occurrence": [1, 1],
                     "chosen": [0, 0], "result": [1, None]})
    with pytest.raises(ValueError, match=r"^blk4 8: result must be null in every row of the runs or in none$"):
        summed_runs(runs, family="blk4", symmetry=8)


def test_blk4_and_unknown_families_have_no_move_patterns() -> None:
    assert check_event_families(["d12", "sq5"]) == ("d12", "sq5")
    for bad in (["blk4"], ["sq3", "nope"]):
        with pytest.raises(ValueError, match="move_patterns families"):
            check_event_families(bad)


def test_key_texts_agree_with_the_scalar_helper() -> None:
    keys = random_keys("d12", 50, 7)
    n_digits = FAMILIES["d12"].layout.n_digits
    assert key_texts("d12", keys).to_pylist() == [key_string(int(k), n_digits) for k in keys]
    assert len(key_texts("sq5", np.zeros(0, dtype=np.int64))) == 0


@pytest.mark.parametrize("n_digits", [1, 10, 27, 31])
def test_key_strings_are_base4_digits(n_digits: int) -> None:
    keys = np.array([0, 1, 4**n_digits - 1, 4 ** (n_digits - 1)], dtype=np.int64)
    assert key_strings(keys, n_digits).tolist() == [key_string(int(k), n_digits) for k in keys]


@settings(max_examples=25, deadline=None)
@given(family=st.sampled_from(["sq3", "sq5", "blk4", "d12"]), seed=st.integers(0, 2**32 - 1), count=st.integers(0, 40))
def test_key_values_invert_the_key_text(family: str, seed: int, count: int) -> None:
    keys = random_keys(family, count, seed)
    texts = key_texts(family, keys)
    assert key_values(texts, FAMILIES[family].layout.n_digits).tolist() == keys.tolist()
    assert key_values(texts.slice(count // 2), FAMILIES[family].layout.n_digits).tolist() == keys[count // 2 :].tolist()


@pytest.mark.parametrize(("texts", "message"), [(["1203", "12"], "key text 12 is not 4 base-4 digits"),
                                                (["1204"], "1204 is not 4 base-4"), ([None], "null")])
def test_key_values_reject_malformed_texts(texts: list[str | None], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        key_values(pa.array(texts, type=pa.string()), 4)
