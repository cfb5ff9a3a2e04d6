"""Member names from the raw bytes an archive stores: UTF-8, else a guessed East Asian encoding.

The rule is docs/releases.md#member-names; its outcome is the `member`, `member_raw` and
`member_name_guessed` columns of `games` and `rejects`.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

# Candidates in tie order: (codec, script of the names it is meant for).
CANDIDATES = (("gb18030", "han_gb2312"), ("cp932", "japanese"), ("euc_kr", "hangul"), ("cp949", "hangul"))
FALLBACK = "cp437"  # zip's own legacy encoding: every byte string decodes
# Frequent Hangul syllables (common surnames and given-name syllables, Go words): a Korean reading
# made only of these wins a tie with the Chinese reading of the same EUC bytes (docs/releases.md#member-names).
FREQUENT_HANGUL = frozenset(
    "가각간감강개거건결경계고곤공과관광교구국군권규근금기길김나남내노누다단달당대덕도돌동두득라란래량려"
    "력련로록룡류리림마만명모목무문미민박반방배백범변병보복본봉부북비빈사산상서석선설성세소손송수숙순승시"
    "식신심아안애양언여연열영예오옥왕요용우운울원월위유윤은을음의이익인일임자장재전정제조종주준중지진차"
    "찬창채천철청최추춘충치태택판편평포표프필하학한함해허혁현형호홍화환황회효후훈흑희바둑"
)


@dataclass(frozen=True, slots=True)
class MemberName:
    """A decoded member name; ``raw`` is the hex of its bytes when they are not UTF-8 (else None)."""

    name: str
    raw: str | None = None
    guessed: bool = False


def _script_score(text: str, script: str) -> float:
    """Characters of ``script`` minus other non-ASCII characters (mojibake)."""
    score = 0.0
    for char in text:
        if char.isascii():
            continue
        score += 1 if _in_script(char, script) else -1
    if script == "hangul" and all(c in FREQUENT_HANGUL for c in text if _in_script(c, "hangul")):
        score += 0.5
    return score


def _in_script(char: str, script: str) -> bool:
    name = unicodedata.name(char, "")
    if script == "hangul":
        return name.startswith("HANGUL SYLLABLE") and _encodes(char, "euc_kr")
    if script == "japanese":
        return name.startswith(("HIRAGANA", "KATAKANA", "CJK UNIFIED IDEOGRAPH"))
    return name.startswith("CJK UNIFIED IDEOGRAPH") and _encodes(char, "gb2312")


def _encodes(char: str, codec: str) -> bool:
    try:
        char.encode(codec)
    except UnicodeEncodeError:
        return False
    return True


def decode_name(raw: bytes) -> MemberName:
    """Decode raw name bytes: strict UTF-8, else the best-scoring candidate, else cp437 (guessed)."""
    try:
        return MemberName(raw.decode("utf-8"))
    except UnicodeDecodeError:
        pass
    best, best_score = raw.decode(FALLBACK), 0.0
    for codec, script in CANDIDATES:
        try:
            text = raw.decode(codec)
        except UnicodeDecodeError:
            continue
        score = _script_score(text, script)
        if score > best_score:
            best, best_score = text, score
    return MemberName(best, raw.hex(), guessed=True)


def zip_name(filename: str, flag_bits: int) -> MemberName:
    """The name of a zip member from zipfile's ``orig_filename``: UTF-8 when flag bit 11 is set,
    else zipfile decoded it as cp437, which gives the raw bytes back."""
    if flag_bits & 0x800:
        return MemberName(filename)
    return decode_name(filename.encode(FALLBACK))


def escaped_name(name: str) -> MemberName:
    """The name of a tar entry or file read with ``surrogateescape`` (tarfile's errors, os.fsdecode)."""
    return MemberName(name) if name.isascii() else decode_name(name.encode("utf-8", "surrogateescape"))
