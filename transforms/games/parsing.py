"""SGF text/bytes -> GameRecord objects via sgfmill (one per game tree of a collection)."""

import dataclasses
import re
from collections.abc import Callable, Iterator

from sgfmill import sgf_grammar

from gopat.transforms.games.board import BLACK, WHITE
from gopat.transforms.games.board import MAX_SIZE as MAX_BOARD_SIZE
from gopat.transforms.games.board import MIN_SIZE as MIN_BOARD_SIZE
from gopat.transforms.games.decoding import decode_sgf
from gopat.transforms.games.errors import RejectError
from gopat.transforms.games.trees import Flags, Tree, collection

HEADER_KEYS = ("PB", "PW", "BR", "WR", "DT", "EV", "RE", "KM", "HA", "RU")
PASS = -1

# Files in these encodings are tokenised by sgfmill as raw bytes, each value decoded on its own:
# UTF-8 never has ASCII bytes inside a character; GB18030 is the guess for undeclared non-UTF-8
# files, and strict GB18030 accepts most byte pairs, so decoding a mislabelled file whole lets
# a stray lead byte swallow a ']' (212 of 853 damaged Fox files in pro-sample lose moves that
# way). Any other encoding (CA, BOM) is decoded whole and re-encoded as UTF-8 first, so a trail
# byte 0x5C/0x5D of Shift-JIS, Big5, GBK ... or a UTF-16 byte is never read as '\' or ']'.
_BYTE_LEVEL = frozenset({"utf-8", "gb18030"})

# SGF point value -> (row, col), row 0 = top, for each supported board size.
_POINTS = tuple(
    {bytes((97 + col, 97 + row)): (row, col) for row in range(size) for col in range(size)}
    for size in range(MAX_BOARD_SIZE + 1)
)
_TEXT_CHARS = re.compile(rb"[\\\n\r\t\v\f]")


@dataclasses.dataclass(frozen=True, slots=True)
class GameRecord:
    """One game tree of an SGF file, as read from its root node and main line.

    Coordinates are ``(colour, row, col)`` with colour 1 = black, 2 = white, row 0 = top row,
    col 0 = left column (SGF ``pd`` -> row 3, col 15); a pass is ``(colour, -1, -1)``.
    ``encoding`` is the file's encoding as chosen by ``decode_sgf`` (a Python codec name).
    """

    tree_index: int
    board_size: int
    headers: dict[str, str | None]
    setup: tuple[tuple[int, int, int], ...]
    moves: tuple[tuple[int, int, int], ...]
    flags: tuple[str, ...]
    encoding: str = ""


@dataclasses.dataclass(frozen=True, slots=True)
class TreeReject:
    """A game tree of a collection that yields no game, while other trees of the file do."""

    tree_index: int
    reason: str
    message: str


def _gb_badness(text: str) -> int:
    """Replacement characters plus characters outside GB2312 (typical of mojibake)."""
    bad = 0
    for char in text:
        if char == "\ufffd":
            bad += 1
        elif char >= "\x80":
            try:
                char.encode("gb2312")
            except UnicodeEncodeError:
                bad += 1
    return bad


def _value_decoder(encoding: str, flags: Flags) -> Callable[[bytes], str]:
    """Decode one SimpleText value of a file read at byte level (``encoding`` utf-8/gb18030).

    Valid UTF-8 wins (strong evidence; a strict GB18030 decode is weak evidence: it accepts most
    byte pairs). Otherwise, in a GB18030 file, the less bad of GB18030 (badness: replacement
    characters and characters outside GB2312) and UTF-8 with replacement (badness: replacement
    characters); ties go to UTF-8. Fox files hold UTF-8 names with bytes replaced by '?'.
    """

    def decode(raw: bytes) -> str:
        if _TEXT_CHARS.search(raw):
            raw = sgf_grammar.simpletext_value(raw)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            if encoding != "utf-8" and not raw.isascii():
                flags.add("encoding_mixed")
            return text
        text = raw.decode("utf-8", "replace")
        if encoding != "utf-8":
            other = raw.decode(encoding, "replace")
            if _gb_badness(other) < text.count("\ufffd"):
                text = other
            else:
                flags.add("encoding_mixed")
        if "\ufffd" in text:
            flags.add("encoding_lossy")
        return text

    return decode


def _board_size(root: dict[str, list[bytes]]) -> int:
    values = root.get("SZ")
    if not values:
        return 19
    raw = values[0].strip()
    if b":" in raw:
        columns, rows = (part.strip() for part in raw.split(b":", 1))
        if columns != rows:
            raise RejectError("board_not_square", f"non-square board SZ[{raw.decode('latin-1')}]")
        raw = columns
    try:
        size = int(raw)
    except ValueError:
        raise RejectError("bad_board_size", f"bad SZ[{raw.decode('latin-1')}]") from None
    if size > MAX_BOARD_SIZE:
        raise RejectError("board_too_large", f"board size {size} > {MAX_BOARD_SIZE}")
    if size < MIN_BOARD_SIZE:
        raise RejectError("bad_board_size", f"board size {size} < {MIN_BOARD_SIZE}")
    return size


def _setup_points(values: list[bytes], size: int) -> Iterator[tuple[int, int]]:
    """Expand a point list (with compressed rectangles ``aa:cc``); empty values are skipped."""
    points = _POINTS[size]
    for value in values:
        value = value.strip()
        if not value:
            continue
        first, colon, last = value.partition(b":")
        corners = [points.get(first.strip()), points.get(last.strip()) if colon else None]
        if corners[0] is None or (colon and corners[1] is None):
            raise RejectError(
                "setup_off_board", f"setup point [{value.decode('latin-1')}] not on the board"
            )
        (top, left), (bottom, right) = corners[0], corners[1] or corners[0]
        for row in range(min(top, bottom), max(top, bottom) + 1):
            for col in range(min(left, right), max(left, right) + 1):
                yield row, col


def _apply_setup(
    stones: dict[tuple[int, int], int], node: dict[str, list[bytes]], size: int, flags: Flags
) -> None:
    """Apply one node's AB / AW / AE to ``stones`` (point -> colour)."""
    for key, colour in (("AE", 0), ("AB", BLACK), ("AW", WHITE)):
        for point in _setup_points(node.get(key, []), size):
            if colour == 0:
                stones.pop(point, None)
                continue
            if stones.get(point, colour) != colour:
                flags.add("setup_conflict")
            stones[point] = colour


def _game(
    tree: sgf_grammar.Coarse_game_tree,
    index: int,
    decode: Callable[[bytes], str],
    flags: Flags,
    encoding: str,
) -> GameRecord:
    """Build the GameRecord of one coarse game tree; raise RejectError if it is unusable."""
    root = tree.sequence[0]
    game_type = root.get("GM", [b"1"])[0].strip()
    if game_type not in (b"1", b""):
        raise RejectError("not_go", f"game type GM[{game_type.decode('latin-1')}] is not Go")
    size = _board_size(root)

    headers: dict[str, str | None] = {}
    for key in HEADER_KEYS:
        values = root.get(key)
        if values is None:
            headers[key] = None
            continue
        if len(values) > 1:
            flags.add("duplicate_header")
        headers[key] = decode(values[0]).strip() or None

    stones: dict[tuple[int, int], int] = {}
    _apply_setup(stones, root, size, flags)
    points = _POINTS[size]
    moves: list[tuple[int, int, int]] = []
    for node in sgf_grammar.main_sequence_iter(tree):
        if ("AB" in node or "AW" in node or "AE" in node) and node is not root:
            if moves:
                flags.add("setup_in_main_line")
                break
            flags.add("setup_merged")
            _apply_setup(stones, node, size, flags)
        black = node.get("B")
        white = node.get("W")
        if black is None:
            if white is None:
                continue
            colour, values = WHITE, white
        elif white is None:
            colour, values = BLACK, black
        else:
            flags.add("multiple_moves_in_node")
            break
        if len(values) > 1:
            flags.add("multiple_moves_in_node")
            break
        value = values[0]
        point = points.get(value)
        if point is None:
            stripped = value.strip()
            point = points.get(stripped)
            if point is None:
                if stripped in (b"", b"tt"):  # on boards over 19, tt is a point (found above)
                    if value != stripped:
                        flags.add("whitespace_pass")
                    moves.append((colour, PASS, PASS))
                    continue
                flags.add(
                    "move_off_board"
                    if len(stripped) == 2 and stripped.isalpha()
                    else "move_malformed"
                )
                break
        moves.append((colour, point[0], point[1]))
    if not moves:
        flags.add("no_moves")

    setup = tuple(sorted((colour, row, col) for (row, col), colour in stones.items()))
    return GameRecord(index, size, headers, setup, tuple(moves), flags.as_tuple(), encoding)


@dataclasses.dataclass(frozen=True, slots=True)
class Trees:
    """The game trees of one SGF file as sgfmill's coarse trees (values are bytes in ``values_encoding``)."""

    trees: list[Tree | RejectError]
    encoding: str  # the file's encoding, as chosen by decode_sgf
    values_encoding: str  # utf-8 or gb18030: the file's own bytes, or its text re-encoded as UTF-8
    flags: Flags  # decode_sgf's flags and the repairs of the whole file


def read_trees(data: bytes) -> Trees:
    """Decode one SGF file and tokenise its collection, as :func:`parse_collection` reads it."""
    text, encoding, decode_flags = decode_sgf(data)
    flags = Flags(decode_flags)
    if encoding in _BYTE_LEVEL:
        bb, values_encoding = (data[3:] if "bom" in flags else data), encoding
    else:
        bb, values_encoding = text.encode("utf-8"), "utf-8"
    return Trees(collection(bb, flags), encoding, values_encoding, flags)


def parse_collection(data: bytes) -> tuple[list[GameRecord], list[TreeReject]]:
    """Decode one SGF file and return one GameRecord per readable game tree of the collection,
    and one TreeReject per other tree (docs/releases.md#collections).

    The encoding is chosen by :func:`gopat.transforms.games.decoding.decode_sgf`; it and its flags are on
    every record. Repairs (each flagged): a file starting with ``;`` gets a leading ``(``
    (``repaired_missing_paren``), ``(`` directly followed by a property gets the root ``;``
    (``repaired_missing_semicolon``), a tree whose data ends cleanly inside open variations is
    closed (``repaired_missing_close``), empty variations ``()`` are dropped
    (``repaired_empty_variation``). In the main line, AB/AW/AE before the first move are merged
    into the setup (``setup_merged``); after a move they end the move list
    (``setup_in_main_line``), as do a node with two moves (``multiple_moves_in_node``), an
    off-board point (``move_off_board``) and an unreadable one (``move_malformed``). ``[]``,
    ``[tt]`` on boards up to 19 and whitespace (``whitespace_pass``) are passes. Move legality
    is not checked. A tree that cannot be parsed (``truncated``, ``parse_error``) or used (not
    Go, bad board size, setup off the board) is a TreeReject, and the records of the file get
    ``skipped_trees``.

    Raises
    ------
    RejectError
        When the file yields no game (the first tree's error): ``empty_file``, ``not_sgf``,
        ``truncated``, ``parse_error``, ``not_go``, ``bad_board_size``, ``board_too_large``,
        ``board_not_square``, ``setup_off_board``.
    """
    read = read_trees(data)
    records: list[GameRecord] = []
    errors: list[tuple[int, RejectError]] = []
    for index, tree in enumerate(read.trees):
        if isinstance(tree, RejectError):
            errors.append((index, tree))
            continue
        game_tree, repairs = tree
        flags = Flags((*read.flags.as_tuple(), *repairs))
        try:
            decode = _value_decoder(read.values_encoding, flags)
            records.append(_game(game_tree, index, decode, flags, read.encoding))
        except RejectError as exc:
            errors.append((index, exc))
    if not records:
        raise errors[0][1]
    if errors:
        records = [dataclasses.replace(r, flags=(*r.flags, "skipped_trees")) for r in records]
    return records, [TreeReject(index, error.reason, str(error)) for index, error in errors]


def parse_games(data: bytes) -> list[GameRecord]:
    """The GameRecords of :func:`parse_collection` (the trees it rejects are left out)."""
    return parse_collection(data)[0]
