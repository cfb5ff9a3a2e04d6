"""The parts of the complete pattern counts: key ranges of one family and symmetry, cut at sampled keys
(docs/releases.md#parts)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from gopat.transforms.patterns.symmetry import SYMMETRIES

PART_KEYS = 2_000_000  # keys of the complete counts in a part, about: its sum and files fit a worker's memory
SAMPLE_MODULUS = 64  # the keys whose hash is 0 modulo this cut the parts (pattern_parts.sql)


@dataclass(frozen=True, slots=True)
class Part:
    """Keys [lo, hi) (None: unbounded) of one family and symmetry, the index-th part of them."""

    family: str
    symmetry: int
    index: int
    lo: int | None
    hi: int | None

    @property
    def file(self) -> str:
        """The part's file in a partitioned table or a run: ``<family>/<symmetry>/<index>.parquet``."""
        return f"{self.family}/{self.symmetry:02d}/{self.index:04d}.parquet"


def plan_parts(sample: pa.Table, *, families: Sequence[str]) -> list[Part]:
    """The parts of the complete counts of `families` whose key sample (effects/pattern_parts.py key_sample) is
    `sample`, in table order.

    Each family and symmetry is cut into key ranges of about PART_KEYS keys at its sampled keys: a
    full and an incremental build over the same games cut the same parts, whatever the shards and
    the number of workers, so they write the same files.
    """
    parts = []
    for family in sorted(families):
        for symmetry in SYMMETRIES:
            keys = sample.filter(pc.and_(pc.equal(sample["family"], family),
                                         pc.equal(sample["symmetry"], symmetry)))["key"].to_numpy()
            count = max(1, -(-len(keys) * SAMPLE_MODULUS // PART_KEYS))
            bounds: list[int | None] = [None, *(int(keys[len(keys) * i // count]) for i in range(1, count)), None]
            ranges = itertools.pairwise(bounds)
            parts += [Part(family, symmetry, index, lo, hi) for index, (lo, hi) in enumerate(ranges)]
    return parts
