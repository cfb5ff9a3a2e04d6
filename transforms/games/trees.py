"""The game trees of an SGF collection, found with sgfmill: repairs, and reading tree by tree after a broken one."""

import re

from sgfmill import sgf_grammar

from gopat.transforms.games.errors import RejectError

_EMPTY_VARIATION_RE = re.compile(rb"\(\s*\)")
_ROOT_WITHOUT_SEMICOLON_RE = re.compile(rb"\(\s*(?=[A-Za-z]{1,64}\s*\[)")
_NODE_WITHOUT_PAREN_RE = re.compile(rb";\s*[A-Za-z]{1,64}\s*\[")
# Where sgfmill starts a game tree, and where a game tree starts after a broken one: a node with
# a root property (docs/releases.md#collections).
Tree = tuple[sgf_grammar.Coarse_game_tree, tuple[str, ...]]  # a game tree and the repairs it needed
_TREE_START = re.compile(rb"\(\s*;")
_ROOT_START = re.compile(rb"\(\s*;\s*(?:FF|GM|SZ|CA|AP|ST)\s*\[")


class Flags:
    """Ordered set of flag names."""

    __slots__ = ("names",)

    def __init__(self, names: tuple[str, ...] = ()) -> None:
        self.names = dict.fromkeys(names)

    def add(self, name: str) -> None:
        self.names[name] = None

    def __contains__(self, name: str) -> bool:
        return name in self.names

    def as_tuple(self) -> tuple[str, ...]:
        return tuple(self.names)


def _start(bb: bytes) -> int:
    """Index of the first non-whitespace byte (len(bb) if none)."""
    return len(bb) - len(bb.lstrip())


def _repair_start(bb: bytes, flags: Flags) -> bytes:
    """Repairs decided by the first bytes: a missing '(' before a root node with properties,
    or a missing root ';' after '('."""
    i = _start(bb)
    if _NODE_WITHOUT_PAREN_RE.match(bb, i):
        flags.add("repaired_missing_paren")
        return b"(" + bb[i:]
    if bb[i : i + 1] == b"(" and _ROOT_WITHOUT_SEMICOLON_RE.match(bb, i):
        flags.add("repaired_missing_semicolon")
        return bb[: i + 1] + b";" + bb[i + 1 :]
    return bb


def _unclosed(bb: bytes) -> tuple[int, bytes, str]:
    """Describe the first game tree left open: (open parens, unread tail, last token kind)."""
    position = 0
    while True:
        tokens, end = sgf_grammar.tokenise(bb, position)
        if not tokens:
            return 0, b"", ""
        depth = 0
        for kind, token in tokens:
            if kind == "D":
                depth += (token == b"(") - (token == b")")
        if depth:
            return depth, bb[end:].strip(), tokens[-1][0]
        position = end


def _tree(text: bytes, index: int) -> Tree:
    """Parse the one game tree in ``text`` with sgfmill, applying the documented repairs on failure."""
    repairs = Flags()
    while True:
        try:
            return sgf_grammar.parse_sgf_game(text), repairs.as_tuple()
        except ValueError as exc:
            message = f"error parsing game {index}: {exc}"
        if message.endswith("unexpected end of SGF data"):
            depth, tail, last = _unclosed(text)
            if tail and not tail.startswith(b"["):
                raise RejectError("parse_error", message)
            if tail or last == "I" or "repaired_missing_close" in repairs:
                raise RejectError("truncated", message)
            repairs.add("repaired_missing_close")
            text = text.rstrip() + b")" * depth
        elif (
            message.endswith("empty sequence")
            and "repaired_empty_variation" not in repairs
            and _EMPTY_VARIATION_RE.search(text)
        ):
            repairs.add("repaired_empty_variation")
            text = _EMPTY_VARIATION_RE.sub(b"", text)
        else:
            raise RejectError("parse_error", message)


def _extent(bb: bytes, start: int) -> tuple[int, bool]:
    """Where the game tree opened at ``start`` ends, and whether its parentheses close there."""
    tokens, end = sgf_grammar.tokenise(bb, start)
    depth = sum((token == b"(") - (token == b")") for kind, token in tokens if kind == "D")
    return end, depth == 0


def collection(bb: bytes, flags: Flags) -> list[Tree | RejectError]:
    """Every game tree of the file with its repairs, or the RejectError of a tree that cannot be read.

    The whole collection is parsed at once. When that fails, or a second root node (``(;`` then
    FF, GM, SZ, CA, AP or ST) shows that a tree may run into the next, tree by tree: each tree
    ends at its closing ``)`` or at the next root node, whichever comes first
    (docs/releases.md#collections).
    """
    bb = _repair_start(bb, flags)
    try:
        parsed = sgf_grammar.parse_sgf_collection(bb)
    except ValueError as exc:
        if str(exc) == "no SGF data found":
            raise RejectError("not_sgf", str(exc)) from None
    else:
        if len(_ROOT_START.findall(bb)) <= 1:
            return [(tree, ()) for tree in parsed]
    trees: list[Tree | RejectError] = []
    position = 0
    while (found := _TREE_START.search(bb, position)) is not None:
        start = found.start()
        end, closed = _extent(bb, start)
        stop = end if closed else len(bb)
        restart = _ROOT_START.search(bb, start + 1)
        if restart is not None:
            stop = min(stop, restart.start())
        try:
            trees.append(_tree(bb[start:stop], len(trees)))
        except RejectError as error:
            trees.append(error)
        position = stop
    return trees
