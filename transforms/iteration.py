"""Generic iteration helpers (itertools.batched arrives in Python 3.12; the project runs on 3.11)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import islice
from typing import TypeVar

T = TypeVar("T")


def batched(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Consecutive lists of `size` items (the last may be shorter)."""
    iterator = iter(items)
    while batch := list(islice(iterator, size)):
        yield batch
