from __future__ import annotations

import pytest

from gopat.transforms.checks import identifier


@pytest.mark.parametrize("name", ["moves", "pattern_stats", "_x1", "Catalog"])
def test_a_plain_identifier_is_returned_unchanged(name: str) -> None:
    assert identifier(name) == name


@pytest.mark.parametrize("name", ["", "1moves", "moves; DROP TABLE games", "a-b", "a.b", "x\n"])
def test_anything_else_is_refused_with_its_value(name: str) -> None:
    with pytest.raises(ValueError, match="not a plain SQL identifier: ") as raised:
        identifier(name)
    assert repr(name) in str(raised.value)
