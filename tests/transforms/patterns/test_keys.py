"""Tests for gopat.transforms.patterns.keys: base-4 digits, key texts, layouts."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gopat.transforms.patterns.keys import KeyLayout, decode, encode, key_string, parse_key, square_points


def ref_key(digits: list[int]) -> int:
    """Digits read as a base-4 numeral by int() (independent of keys.encode)."""
    return int("".join(map(str, digits)), 4)


@given(st.lists(st.integers(0, 3), min_size=1, max_size=31))
@settings(max_examples=100, deadline=None)
def test_encode_decode_roundtrip(digits):
    key = encode(digits)
    assert key == ref_key(digits)
    assert decode(key, len(digits)) == tuple(digits)
    assert key_string(key, len(digits)) == "".join(map(str, digits))
    assert parse_key(key_string(key, len(digits))) == key


def same_length_digit_pairs(n: int):
    digits = st.lists(st.integers(0, 3), min_size=n, max_size=n)
    return st.tuples(digits, digits)


@given(st.integers(1, 31).flatmap(same_length_digit_pairs))
@settings(max_examples=100, deadline=None)
def test_numeric_order_is_lexicographic_order(pair):
    a, b = pair
    assert (encode(a) < encode(b)) == ("".join(map(str, a)) < "".join(map(str, b)))


def test_longest_key_fits_int64():
    key = encode([3] * 31)
    assert key == 4**31 - 1 <= np.iinfo(np.int64).max


@pytest.mark.parametrize(
    "call",
    [
        lambda: encode([]),
        lambda: encode([4]),
        lambda: encode([0] * 32),
        lambda: decode(4**3, 3),
        lambda: decode(-1, 3),
        lambda: parse_key("1240"),
        lambda: parse_key(""),
        lambda: KeyLayout(square_points(5), ("stone", "liberty")),
        lambda: KeyLayout((), ("stone",)),
        lambda: KeyLayout(square_points(2), ("liberty",)),
        lambda: KeyLayout(((0, 0, 0),)),
        lambda: KeyLayout((("a", 0),)),
        lambda: encode([1.5]),
        lambda: decode("12", 3),
    ],
)
def test_bad_input_raises_value_error(call):
    with pytest.raises(ValueError, match=r"key|point|digit|planes"):
        call()
