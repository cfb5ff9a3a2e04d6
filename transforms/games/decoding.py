"""Bytes of one SGF file -> text, with the encoding decision (CA, BOM, UTF-8, GB18030, lossy)."""

import codecs
import re

from gopat.transforms.games.errors import RejectError

# First CA property anywhere in the file: a PropIdent is a whole word, so "CA" must not
# follow a letter (the FF[3] long form would be e.g. "ChArset"; that is not handled).
_CA_RE = re.compile(rb"(?<![A-Za-z])CA\s*\[([^\]]*)\]")

# BOMs, longest first (the UTF-32-LE BOM starts with the UTF-16-LE one).
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

# Codecs whose BOM-less form a given BOM is consistent with (normalised codec names).
_BOM_FAMILY = {
    "utf-8": {"utf-8", "utf-8-sig"},
    "utf-16-le": {"utf-16", "utf-16-le"},
    "utf-16-be": {"utf-16", "utf-16-be"},
    "utf-32-le": {"utf-32", "utf-32-le"},
    "utf-32-be": {"utf-32", "utf-32-be"},
}

# What an empty file may consist of (NUL included, for UTF-16/32 whitespace).
_BLANK = b"\x00\t\n\v\f\r "

# Python text codecs that are not character sets: a CA naming one of them is ignored.
_NOT_CHARSETS = frozenset(
    {"unicode-escape", "raw-unicode-escape", "idna", "punycode", "undefined"}
)


def _ca_codec(data: bytes) -> tuple[str | None, tuple[str, ...]]:
    """Return (normalised codec name or None, flags) for the file's CA property."""
    match = _CA_RE.search(data)
    if match is None:
        return None, ()
    name = match.group(1).strip().decode("ascii", "replace")
    try:
        codec = codecs.lookup(name).name
        b"(".decode(codec)  # LookupError for codecs that are not text encodings
    except (LookupError, ValueError):  # ValueError: a name with a NUL byte
        return None, ("ca_unknown",)
    except UnicodeDecodeError:
        pass  # e.g. UTF-16: a charset, but not for a single byte
    if codec in _NOT_CHARSETS:
        return None, ("ca_unknown",)
    return codec, ()


def _strict(data: bytes, encoding: str) -> str | None:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        return None


def _bom(data: bytes) -> tuple[bytes, str] | None:
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return bom, encoding
    return None


def _utf16_without_bom(data: bytes) -> str | None:
    """UTF-16 without BOM, recognised by a NUL byte beside the first ASCII character."""
    if len(data) < 2 or len(data) % 2:
        return None
    if data[0] == 0 and data[1] != 0:
        return "utf-16-be"
    if data[0] != 0 and data[1] == 0:
        return "utf-16-le"
    return None


def decode_sgf(data: bytes) -> tuple[str, str, tuple[str, ...]]:
    """Decode the bytes of one SGF file.

    The encoding is the first that applies (docs/releases.md#game-flags): the CA property when it names a known
    character set, agrees with a BOM if there is one, and strictly decodes the bytes; else a BOM
    (or BOM-less UTF-16, flag ``utf16_no_bom``); else strict UTF-8; else strict GB18030; else the
    one of UTF-8 / GB18030 with fewer replacement characters, decoded with replacement (flag
    ``encoding_lossy``). A CA that names no known character set is flagged ``ca_unknown``, one
    that names a known one but is not used ``ca_mismatch``; a BOM is flagged ``bom`` and is not
    part of the text.

    Returns
    -------
    (text, encoding, flags): ``encoding`` is the normalised Python codec name, e.g. ``utf-8``,
    ``gb18030``, ``shift_jis``, ``iso8859-1``, ``utf-16-le``.

    Raises
    ------
    RejectError
        ``empty_file`` when the bytes are empty or only whitespace (after a BOM).
    """
    bom = _bom(data)
    body = data[len(bom[0]) :] if bom else data
    if not body.strip(_BLANK):
        raise RejectError("empty_file", "file is empty or only whitespace")

    ca, flags = _ca_codec(data)
    if ca is not None and bom is None:
        text = _strict(data, ca)
        if text is not None:
            return text, ca, flags
        flags += ("ca_mismatch",)
    elif ca is not None and bom is not None and ca not in _BOM_FAMILY[bom[1]]:
        flags += ("ca_mismatch",)

    if bom is not None:
        text = _strict(body, bom[1])
        if text is not None:
            return text, bom[1], (*flags, "bom")
        flags += ("bom",)
        return body.decode(bom[1], "replace"), bom[1], (*flags, "encoding_lossy")

    utf16 = _utf16_without_bom(data)
    if utf16 is not None:
        text = _strict(data, utf16)
        if text is not None:
            return text, utf16, (*flags, "utf16_no_bom")

    for encoding in ("utf-8", "gb18030"):
        text = _strict(data, encoding)
        if text is not None:
            return text, encoding, flags

    as_utf8 = data.decode("utf-8", "replace")
    as_gb = data.decode("gb18030", "replace")
    if as_gb.count("\ufffd") < as_utf8.count("\ufffd"):
        return as_gb, "gb18030", (*flags, "encoding_lossy")
    return as_utf8, "utf-8", (*flags, "encoding_lossy")
