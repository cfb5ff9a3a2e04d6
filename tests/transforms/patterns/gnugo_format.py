"""An independent checker of the GNU Go pattern-database rules listed in docs/patterns.md#gnu-go-export.

It shares no code with gopat.transforms.patterns.gnugo: it reads a database line by line and returns
its patterns, or raises AssertionError naming the line and the broken rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

CELLS = set(".XOxo*?")
SYMMETRIES = set("8|\\/-+X")
CLASS_LETTERS = set("sOoXxDCcnBAbeEadIJjtTUWFNY-")
ATTRIBUTE_MAPS = {
    "general": {"value", "minvalue", "maxvalue", "terri", "minterri", "maxterri", "shape", "followup",
                "followup_value", "reverse_followup"},
    "value_only": {"value"},
    "none": set(),
}
MAX_VALUE = 70.0
_EDGE = re.compile(r"^(\+?)(-+)(\+?)$")
_ROW = re.compile(r"^(\|?)([.XOxo*?]+)(\|?)$")
_ENTRY = re.compile(r"^([a-z_]+)\(([^()]*)\)$")


@dataclass
class Pattern:
    """One parsed pattern: its name, comments, diagram rows (cells only), edges, colon line and constraints."""

    name: str
    line: int
    comments: list[str] = field(default_factory=list)
    rows: list[str] = field(default_factory=list)
    edges: set[str] = field(default_factory=set)  # north, south, west, east
    symmetry: str = ""
    classification: str = ""
    values: dict[str, float] = field(default_factory=dict)
    constraint_rows: list[str] = field(default_factory=list)
    constraints: list[str] = field(default_factory=list)


def parse_database(text: str) -> tuple[list[str], list[Pattern]]:
    """The header comments and the patterns of a database; AssertionError at the first broken rule."""
    header: list[str] = []
    patterns: list[Pattern] = []
    attribute_map: str | None = None
    blocks = _blocks(text)
    for number, block in blocks:
        first = block[0]
        if not patterns and first.startswith("attribute_map"):
            assert len(block) == 1, f"line {number}: attribute_map stands alone"
            name = first.split()[1]
            assert name in ATTRIBUTE_MAPS, f"line {number}: unknown attribute map {name}"
            attribute_map = name
        elif first.startswith("attribute_map"):
            raise AssertionError(f"line {number}: attribute_map after the first pattern")
        elif first.startswith("Pattern "):
            patterns.append(Pattern(name=first.split(" ", 1)[1], line=number))
            patterns[-1].comments = [line for line in block[1:] if line.startswith("#")]
            assert len(patterns[-1].comments) == len(block) - 1, f"line {number}: a pattern line, then comments"
        elif not patterns:
            assert all(line.startswith("#") for line in block), f"line {number}: before the patterns: comments only"
            header += block
        else:
            _read_block(patterns[-1], number, block)
    names = [p.name for p in patterns]
    assert len(set(names)) == len(names), "pattern names are unique"
    for pattern in patterns:
        _check(pattern, attribute_map)
    return header, patterns


def _blocks(text: str) -> list[tuple[int, list[str]]]:
    """Runs of non-blank lines with the number of their first line."""
    assert text.endswith("\n") or not text, "the file ends with a newline"
    blocks: list[tuple[int, list[str]]] = []
    current: list[str] = []
    start = 0
    for number, line in enumerate(text.split("\n"), start=1):
        assert line == line.rstrip(), f"line {number}: trailing white space"
        if line:
            start = start if current else number
            current.append(line)
        elif current:
            blocks.append((start, current))
            current = []
    if current:
        blocks.append((start, current))
    return blocks


def _read_block(pattern: Pattern, number: int, block: list[str]) -> None:
    """A diagram, a colon line, a constraint diagram or constraint lines of the current pattern."""
    if block[0].startswith(":"):
        assert not pattern.symmetry and pattern.rows, f"line {number}: one colon line, after the diagram"
        assert len(block) == 1, f"line {number}: the colon line stands alone"
        _read_colon(pattern, number, block[0])
    elif block[0].startswith(";"):
        assert pattern.constraint_rows, f"line {number}: a constraint needs a constraint diagram"
        assert all(line.startswith(";") for line in block), f"line {number}: constraint lines start with ;"
        pattern.constraints += [line[1:] for line in block]
    elif not pattern.rows:
        pattern.rows, pattern.edges = _read_diagram(number, block)
    else:
        assert pattern.symmetry and not pattern.constraint_rows, f"line {number}: a constraint diagram follows ':'"
        rows, edges = _read_diagram(number, block)
        assert (len(rows), len(rows[0]), edges) == (len(pattern.rows), len(pattern.rows[0]), pattern.edges), (
            f"line {number}: the constraint diagram has the diagram's shape")
        for row, original in zip(rows, pattern.rows, strict=True):
            for a, b in zip(row, original, strict=True):
                assert a not in "XOxo" or a == b, f"line {number}: X O x o as in the diagram"
        pattern.constraint_rows = rows


def _read_diagram(number: int, block: list[str]) -> tuple[list[str], set[str]]:
    """Cell rows and edges of a diagram; edge lines of '-' with '+' where they meet a '|' column."""
    lines = list(block)
    edges: set[str] = set()
    top = _EDGE.match(lines[0])
    bottom = _EDGE.match(lines[-1]) if len(lines) > 1 else None
    body = lines[1 if top else 0: len(lines) - 1 if bottom else len(lines)]
    assert body, f"line {number}: a diagram has at least one row of cells"
    matches = [_ROW.match(line) for line in body]
    assert all(matches), f"line {number}: rows are cells .XOxo*? between optional edges |"
    rows = [m.group(2) for m in matches if m]
    wests = {m.group(1) for m in matches if m}
    easts = {m.group(3) for m in matches if m}
    assert len(wests) == 1 and len(easts) == 1, f"line {number}: an edge column '|' is on every row or none"
    assert len({len(row) for row in rows}) == 1, f"line {number}: the diagram is a rectangle"
    edges |= {"west"} if wests == {"|"} else set()
    edges |= {"east"} if easts == {"|"} else set()
    for side, edge in (("north", top), ("south", bottom)):
        if edge:
            edges.add(side)
            assert len(edge.group(2)) == len(rows[0]), f"line {number}: an edge line has one '-' per column"
            assert (edge.group(1) == "+") == ("west" in edges), f"line {number}: '+' where a west edge meets it"
            assert (edge.group(3) == "+") == ("east" in edges), f"line {number}: '+' where an east edge meets it"
    return rows, edges


def _read_colon(pattern: Pattern, number: int, line: str) -> None:
    """``:symmetry,classification[,name(value)...][,helper]``."""
    fields = line[1:].split(",")
    assert len(fields) >= 2 and len(fields[0]) == 1, f"line {number}: ':' symmetry ',' classification"
    pattern.symmetry, pattern.classification = fields[0], fields[1]
    assert pattern.symmetry in SYMMETRIES, f"line {number}: symmetry {pattern.symmetry!r}"
    assert set(pattern.classification) <= CLASS_LETTERS, f"line {number}: classification {pattern.classification!r}"
    for i, entry in enumerate(fields[2:], start=2):
        match = _ENTRY.match(entry.strip())
        if match is None:
            assert i == len(fields) - 1 and re.fullmatch(r"[A-Za-z_]\w*", entry), f"line {number}: helper last"
            continue
        assert match.group(1) not in pattern.values, f"line {number}: {match.group(1)} twice"
        pattern.values[match.group(1)] = float(match.group(2))


def _check(pattern: Pattern, attribute_map: str | None) -> None:
    """The rules about a whole pattern."""
    where = f"pattern {pattern.name} (line {pattern.line})"
    assert re.fullmatch(r"\S{1,79}", pattern.name), f"{where}: a name of 1..79 characters without space"
    assert pattern.rows and pattern.symmetry, f"{where}: a diagram and a colon line"
    cells = "".join(pattern.rows)
    assert cells.count("*") == 1, f"{where}: exactly one '*'"
    assert set(cells) <= CELLS, f"{where}: cells .XOxo*?"
    assert "O" in cells or "X" in cells, f"{where}: an anchor: at least one O or X stone"
    if pattern.values:
        assert attribute_map is not None, f"{where}: value fields need an attribute_map line"
        assert set(pattern.values) <= ATTRIBUTE_MAPS[attribute_map], f"{where}: fields of attribute_map {attribute_map}"
    for name, value in pattern.values.items():
        assert 0 <= value <= MAX_VALUE, f"{where}: {name}({value}) outside 0..{MAX_VALUE:g}"
    assert bool(pattern.constraint_rows) == bool(pattern.constraints), f"{where}: a constraint diagram needs a line"
