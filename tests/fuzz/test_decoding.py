"""Fuzzing `decode_sgf`: every input is text with a decision that re-decodes to it, or the documented rejection."""

from __future__ import annotations

import codecs
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from gopat.transforms.games.decoding import decode_sgf
from gopat.transforms.games.errors import RejectError
from tests.fuzz.strategies import BOMS, CI, documented_codes, seed_files, sgf_files

NAME = "decoding"
REASONS = documented_codes(decode_sgf.__doc__, after="Raises")
FLAGS = documented_codes(decode_sgf.__doc__) - REASONS
BOM_LENGTH = {"utf-8": 3, "utf-16-le": 2, "utf-16-be": 2, "utf-32-le": 4, "utf-32-be": 4}
BLANK = b"\x00\t\n\v\f\r "


def inputs(seeds: tuple[bytes, ...]) -> st.SearchStrategy[bytes]:
    """Mutated SGF files, and now and then raw bytes."""
    return sgf_files(seeds) | st.binary(max_size=512)


def check_rejection(error: RejectError, body: bytes) -> None:
    """The one documented rejection: a file that is empty or only whitespace after its BOM."""
    assert error.reason in REASONS and not body.strip(BLANK), (error.reason, body[:40])


def check(data: bytes) -> None:
    """Raise AssertionError when the decision does not hold; any other exception is a crash."""
    bom = next((bom for bom in sorted(BOMS, key=len, reverse=True) if data.startswith(bom)), b"")
    try:
        text, encoding, flags = decode_sgf(data)
    except RejectError as error:
        check_rejection(error, data[len(bom) :])
        return
    assert isinstance(text, str) and codecs.lookup(encoding).name == encoding, encoding
    assert set(flags) <= FLAGS and len(set(flags)) == len(flags), flags
    assert ("bom" in flags) == bool(bom), (flags, data[:4])
    body = data[BOM_LENGTH[encoding] :] if "bom" in flags else data
    errors = "replace" if "encoding_lossy" in flags else "strict"
    assert body.decode(encoding, errors) == text, (encoding, flags)
    if data.isascii() and b"\x00" not in data and b"CA" not in data:
        assert (encoding, flags) == ("utf-8", ()), (encoding, flags)


def reproducer(data: bytes) -> bytes:
    """The bytes to save for a failing input."""
    return data


@settings(CI, max_examples=1000)
@given(data=st.data())
def test_decoding_survives_fuzzed_files(tiny_archive: Path, hostile_dir: Path, data: st.DataObject) -> None:
    check(data.draw(inputs(seed_files(tiny_archive, hostile_dir))))
