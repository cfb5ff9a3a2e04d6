from __future__ import annotations

import pytest

from gopat.transforms.checks import identifier, positive


@pytest.mark.parametrize("name", ["moves", "pattern_stats", "_x1", "Catalog"])
def test_a_plain_identifier_is_returned_unchanged(name: str) -> None:
    assert identifier(name) == name


@pytest.mark.parametrize("name", ["", "1moves", "moves; DROP TABLE games", "a-b", "a.b", "x\n"])
def test_anything_else_is_refused_with_its_value(name: str) -> None:
    with pytest.raises(ValueError, match="not a plain SQL identifier: ") as raised:
        identifier(name)
    assert repr(name) in str(raised.value)


@pytest.mark.parametrize("value", [1, 2, 10**12])
def test_a_positive_int_is_returned_unchanged(value: int) -> None:
    assert positive("top", value) == value


@pytest.mark.parametrize("value", [0, -3, True, 1.0, "2", None])
def test_anything_else_is_refused_naming_the_option_and_the_value(value: object) -> None:
    with pytest.raises(ValueError, match=r"^top must be a positive int, got ") as raised:
        positive("top", value)  # type: ignore[arg-type]
    assert str(raised.value).endswith(repr(value))
