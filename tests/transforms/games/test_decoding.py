"""decode_sgf: every branch of the encoding order, on hand-made bytes."""

import codecs

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gopat.transforms.games.decoding import decode_sgf
from gopat.transforms.games.errors import RejectError

KNOWN_FLAGS = {"bom", "ca_mismatch", "ca_unknown", "utf16_no_bom", "encoding_lossy"}
NIE = "聂卫平"  # GB2312 characters: GBK bytes are not valid UTF-8


def sgf(*parts: bytes) -> bytes:
    return b"(;GM[1]FF[4]" + b"".join(parts) + b";B[pd])"


@pytest.mark.parametrize(
    ("ca", "name", "codec"),
    [
        (b"Shift_JIS", "井山裕太", "shift_jis"),
        (b"EUC-KR", "이세돌", "euc_kr"),
        (b"GB2312", "古力", "gb2312"),
        (b"Big5", "許家元", "big5"),
        (b"windows-1251", "Иванов", "cp1251"),
        (b"ISO-8859-1", "Müller", "iso8859-1"),
        (b"  utf-8 ", "Müller", "utf-8"),
    ],
)
def test_declared_charset_that_decodes_is_used(ca: bytes, name: str, codec: str) -> None:
    data = sgf(b"PB[", name.encode(codec), b"]CA[", ca, b"]")
    text, encoding, flags = decode_sgf(data)
    assert (encoding, flags) == (codec, ())
    assert f"PB[{name}]" in text


def test_declared_charset_that_fails_falls_back_to_utf8() -> None:
    data = sgf(b"CA[gb2312]PB[", "柯洁 vs 申真谞".encode(), b"]")
    text, encoding, flags = decode_sgf(data)
    assert (encoding, flags) == ("utf-8", ("ca_mismatch",))
    assert "PB[柯洁 vs 申真谞]" in text


def test_declared_utf8_but_gbk_bytes_falls_back_to_gb18030() -> None:
    data = sgf(b"CA[UTF-8]PB[", NIE.encode("gbk"), b"]")
    text, encoding, flags = decode_sgf(data)
    assert (encoding, flags) == ("gb18030", ("ca_mismatch",))
    assert f"PB[{NIE}]" in text


@pytest.mark.parametrize("ca", [b"", b"klingon", b"base64", b"unicode_escape", b"rot13"])
def test_unknown_or_non_charset_ca_is_flagged_and_ignored(ca: bytes) -> None:
    data = sgf(b"CA[", ca, b"]PB[", "Müller".encode(), b"]")
    text, encoding, flags = decode_sgf(data)
    assert (encoding, flags) == ("utf-8", ("ca_unknown",))
    assert "PB[Müller]" in text


def test_ca_inside_a_longer_identifier_is_not_a_ca() -> None:
    data = sgf(b"XCA[ISO-8859-1]PB[", "Müller".encode(), b"]")
    assert decode_sgf(data)[1:] == ("utf-8", ())


@pytest.mark.parametrize(
    ("bom", "codec"),
    [
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
        (codecs.BOM_UTF32_LE, "utf-32-le"),
        (codecs.BOM_UTF32_BE, "utf-32-be"),
    ],
)
def test_bom_decides_and_is_stripped(bom: bytes, codec: str) -> None:
    source = "(;GM[1]PB[Kitani Minoru]PW[呉清源];B[pd])"
    text, encoding, flags = decode_sgf(bom + source.encode(codec))
    assert (text, encoding, flags) == (source, codec, ("bom",))


def test_bom_beats_a_contradicting_ca() -> None:
    data = codecs.BOM_UTF8 + sgf(b"CA[ISO-8859-1]PB[", "Müller".encode(), b"]")
    text, encoding, flags = decode_sgf(data)
    assert (encoding, flags) == ("utf-8", ("ca_mismatch", "bom"))
    assert "PB[Müller]" in text and not text.startswith("\ufeff")


def test_bom_with_agreeing_ca_is_not_a_mismatch() -> None:
    data = codecs.BOM_UTF8 + sgf(b"CA[UTF-8]PB[", "Müller".encode(), b"]")
    assert decode_sgf(data)[1:] == ("utf-8", ("bom",))


def test_utf16_without_bom_is_recognised() -> None:
    source = "(;CA[UTF-16BE]PB[呉清源];B[pd])"
    text, encoding, flags = decode_sgf(source.encode("utf-16-be"))
    assert (text, encoding, flags) == (source, "utf-16-be", ("utf16_no_bom",))
    text, encoding, flags = decode_sgf("(;PB[呉清源])".encode("utf-16-le"))
    assert (text, encoding, flags) == ("(;PB[呉清源])", "utf-16-le", ("utf16_no_bom",))


def test_plain_utf8_and_ascii() -> None:
    data = sgf(b"PB[", "申真谞".encode(), b"]")
    assert decode_sgf(data) == (data.decode(), "utf-8", ())
    assert decode_sgf(b"(;B[aa])") == ("(;B[aa])", "utf-8", ())


def test_gbk_without_ca_is_gb18030() -> None:
    data = sgf(b"PB[", NIE.encode("gbk"), b"]RE[", "黑中盘胜".encode("gbk"), b"]")
    text, encoding, flags = decode_sgf(data)
    assert (encoding, flags) == ("gb18030", ())
    assert f"PB[{NIE}]RE[黑中盘胜]" in text


def test_lossy_mostly_utf8_keeps_the_utf8_text() -> None:
    # 0xFF is invalid in both UTF-8 and GB18030; the rest is UTF-8.
    data = sgf(b"PB[", "李昌镐".encode(), b"\xff]PW[", "曹薰铉".encode(), b"]")
    text, encoding, flags = decode_sgf(data)
    assert (encoding, flags) == ("utf-8", ("encoding_lossy",))
    assert "PB[李昌镐\ufffd]PW[曹薰铉]" in text


def test_lossy_mostly_gbk_keeps_the_gbk_text() -> None:
    data = sgf(b"PB[", (NIE * 4).encode("gbk"), b"\xff]")
    text, encoding, flags = decode_sgf(data)
    assert (encoding, flags) == ("gb18030", ("encoding_lossy",))
    assert f"PB[{NIE * 4}\ufffd]" in text


@pytest.mark.parametrize(
    "data", [b"", b"   \r\n\t ", codecs.BOM_UTF8, codecs.BOM_UTF8 + b"\n", b"\xff\xfe \x00\n\x00"]
)
def test_empty_or_blank_is_rejected(data: bytes) -> None:
    with pytest.raises(RejectError) as caught:
        decode_sgf(data)
    assert caught.value.reason == "empty_file"


BOMS = (
    codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE
)


def without_bom(data: bytes) -> bytes:
    for bom in BOMS:
        if data.startswith(bom):
            return data[len(bom) :]
    return data


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_decode_or_reject_empty(data: bytes) -> None:
    try:
        text, encoding, flags = decode_sgf(data)
    except RejectError as exc:
        assert exc.reason == "empty_file"  # noqa: PT017 - any bytes: a reject is one allowed outcome
        assert not without_bom(data).strip(b"\x00\t\n\v\f\r ")
        return
    assert isinstance(text, str)
    assert codecs.lookup(encoding).name == encoding
    assert set(flags) <= KNOWN_FLAGS and len(set(flags)) == len(flags)
    if "encoding_lossy" not in flags:
        body = without_bom(data) if "bom" in flags else data
        assert body.decode(encoding) == text


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=60))
def test_any_utf8_text_without_ca_comes_back_unchanged(value: str) -> None:
    assume("CA" not in value)
    data = ("(;C[" + value + "])").encode()
    assert decode_sgf(data) == (data.decode(), "utf-8", ())


def test_a_charset_name_with_a_nul_byte_is_unknown() -> None:
    """Found by the fuzzing campaign (tests/fuzz): codecs.lookup raises ValueError on a NUL."""
    text, codec, flags = decode_sgf(b"(;FF[4]CA[a\x00b]SZ[19];B[aa])")
    assert (codec, "ca_unknown" in flags) == ("utf-8", True)
    assert text.startswith("(;FF[4]")
