from __future__ import annotations

from gopat.transforms.iteration import batched


def test_batches_are_consecutive_and_the_last_is_shorter() -> None:
    assert list(batched(range(7), 3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(batched(iter("ab"), 2)) == [["a", "b"]]
    assert list(batched([], 4)) == []
