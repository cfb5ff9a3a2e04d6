"""A part of the pattern counts: summed from runs of any row groups, over any key range, by DuckDB or merged, it
equals a sum of all the counts of that range, and pattern_stats keeps exactly the keys at the threshold."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gopat.effects.parquet import PATTERN_STATS_SCHEMA
from gopat.effects.pattern_parts import LeftOut, sum_part
from gopat.transforms.patterns.canonical import PATTERN_COUNTS_SCHEMA, key_texts
from gopat.transforms.patterns.parts import Part
from tests.transforms.patterns.test_canonical import random_keys

Counts = dict[tuple[str, int, int], tuple[int, int, int]]
COUNT_PARTS = (("blk4", 8), ("blk4", 16), ("sq5", 8))
RUN = st.dictionaries(
    st.tuples(st.sampled_from(COUNT_PARTS), st.integers(0, 60)).map(lambda part_key: (*part_key[0], part_key[1])),
    st.tuples(st.integers(1, 9), st.integers(0, 1), st.integers(0, 15)),
    max_size=40,
)
BOUND = st.one_of(st.none(), st.integers(0, 61))
# valid keys of each family, sorted: the runs' keys 0..60 and the bounds stand for these
KEYS = {family: np.unique(random_keys(family, 400, 7))[:62] for family, _ in COUNT_PARTS}


def write_run(path: Path, counts: Counts, *, row_group_rows: int) -> Path:
    """A file of pattern counts, `counts[(family, symmetry, key)] = (occurrence, chosen, result)`, sorted, in row groups
    of `row_group_rows` rows."""
    rows = [{"family": family, "symmetry": symmetry, "key": int(KEYS[family][key]), "occurrence": occurrence,
             "chosen": chosen, "orbit_size": 1 + key % symmetry, "result": result}
            for (family, symmetry, key), (occurrence, chosen, result) in sorted(counts.items())]
    pq.write_table(pa.Table.from_pylist(rows, schema=PATTERN_COUNTS_SCHEMA), path, row_group_size=row_group_rows)
    return path


@given(runs=st.lists(RUN, min_size=0, max_size=4), rows=st.lists(st.integers(1, 9), min_size=4, max_size=4),
       part=st.sampled_from(COUNT_PARTS), bounds=st.tuples(BOUND, BOUND), threshold=st.integers(1, 12),
       merged=st.booleans())
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_part_is_the_sum_of_its_range_and_pattern_stats_its_keys_at_the_threshold(
    tmp_path: Path, runs: list[Counts], rows: list[int], part: tuple[str, int],
    bounds: tuple[int | None, int | None], threshold: int, merged: bool,
) -> None:
    inputs = [write_run(tmp_path / f"run-{i}.parquet", run, row_group_rows=rows[i]) for i, run in enumerate(runs)]
    family, symmetry = part
    lo, hi = (None if bound is None else int(KEYS[family][bound]) for bound in bounds)
    occurrence: Counter[int] = Counter()
    chosen: Counter[int] = Counter()
    result: dict[int, int] = {}
    orbit: dict[int, int] = {}
    for run in runs:
        for (run_family, run_symmetry, index), (o, c, r) in run.items():
            key = int(KEYS[run_family][index])
            if (run_family, run_symmetry) == part and (lo is None or key >= lo) and (hi is None or key < hi):
                occurrence[key] += o
                chosen[key] += c
                result[key] = result.get(key, 0) | r
                orbit[key] = 1 + index % symmetry
    state, published = tmp_path / "state" / "part.parquet", tmp_path / "published" / "part.parquet"
    left = sum_part(Part(family, symmetry, 0, lo, hi), inputs, runs=merged, run=state, published=published,
                    min_occurrence=threshold)
    assert pq.read_table(state).to_pylist() == [
        {"family": family, "symmetry": symmetry, "key": key, "occurrence": occurrence[key], "chosen": chosen[key],
         "orbit_size": orbit[key], "result": result[key]} for key in sorted(occurrence)]
    kept = [key for key in sorted(occurrence) if occurrence[key] >= threshold]
    stats = pq.read_table(published)
    assert stats.column("key").to_pylist() == key_texts(family, np.array(kept, dtype=np.int64)).to_pylist()
    assert stats.column("occurrence").to_pylist() == [occurrence[key] for key in kept]
    assert stats.column("chosen").to_pylist() == [chosen[key] for key in kept]
    assert stats.schema == PATTERN_STATS_SCHEMA
    out = [key for key in occurrence if occurrence[key] < threshold]
    assert left == LeftOut(len(out), sum(occurrence[key] for key in out), sum(chosen[key] for key in out))
    assert sorted(path.name for path in tmp_path.rglob("*") if path.is_file() and "run-" not in path.name) == [
        "part.parquet", "part.parquet"]  # no temporary file left
