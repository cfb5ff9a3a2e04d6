"""The published tables of a release, each declared once: its grain, its columns with their Arrow types and
descriptions, which columns are stored and which are computed from the stored ones, its model and its suite.

The Parquet writers, the readers' views (catalog, `gopat.open_release`, the build's suites), the manifest's
`schema` and docs/tables.md all come from `TABLES`.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, replace
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa

YEAR_COUNTS = pa.list_(pa.struct([("year", pa.int32()), ("games", pa.int64())]))


@dataclass(frozen=True, slots=True)
class Column:
    """A column of a published table; `derived` is its SQL over the same row's stored columns (macros/columns.sql),
    None for a column stored in the files."""

    name: str
    type: pa.DataType
    doc: str
    derived: str | None = None


@dataclass(frozen=True, slots=True)
class Table:
    """A published table: one row per `grain`; `key` is the columns that identify a row; `model` builds it and `suite`
    checks it; `notes` are what a reader should know before joining or summing it."""

    name: str
    grain: str
    key: tuple[str, ...]
    columns: tuple[Column, ...]
    model: str
    suite: str
    notes: tuple[str, ...] = ()
    partitioned: bool = False

    @property
    def schema(self) -> pa.Schema:
        """Every column, as readers see them, each with its description in the field's metadata."""
        return _schema(self.columns)

    @property
    def stored(self) -> pa.Schema:
        """The columns of the table's Parquet files, in order."""
        return _schema(tuple(column for column in self.columns if column.derived is None))

    @property
    def select_list(self) -> str:
        """The SQL select list of the table's view over its files: every column in order, the derived ones computed
        by the macros of transforms/analytics/sql/macros/columns.sql."""
        return ", ".join(f'"{c.name}"' if c.derived is None else f'{c.derived} AS "{c.name}"' for c in self.columns)

    def manifest_entry(self) -> dict[str, Any]:
        """The table in the manifest's `schema` (docs/releases.md#manifest)."""
        return {"grain": self.grain, "key": list(self.key), "columns": [
            {"name": c.name, "type": str(c.type), "description": c.doc} | ({"derived": c.derived} if c.derived else {})
            for c in self.columns]}


def _schema(columns: tuple[Column, ...]) -> pa.Schema:
    return pa.schema([pa.field(c.name, c.type, metadata={"description": c.doc}) for c in columns])


_TYPES = {"string": pa.string(), "int16": pa.int16(), "int32": pa.int32(), "int64": pa.int64(), "float64": pa.float64(),
          "bool": pa.bool_(), "list<string>": pa.list_(pa.string()), "year_counts": YEAR_COUNTS}


def _columns(text: str) -> tuple[Column, ...]:
    """Stored columns from lines `name type description` (a type named in _TYPES); an indented line goes on with the
    description above it."""
    columns: list[Column] = []
    for line in textwrap.dedent(text).strip("\n").splitlines():
        if line[:1].isspace():
            columns[-1] = replace(columns[-1], doc=f"{columns[-1].doc} {line.strip()}")
            continue
        if len(words := line.split(maxsplit=2)) != 3:
            raise ValueError(f"column line {line!r}: expected a name, a type and a description")
        name, kind, doc = words
        if kind not in _TYPES:
            raise ValueError(f"column {name}: unknown type {kind!r}, expected one of {', '.join(_TYPES)}")
        columns.append(Column(name, _TYPES[kind], doc))
    return tuple(columns)


def _derived(line: str, sql: str) -> Column:
    """A derived column: `line` as in `_columns`, and its SQL over the same row's stored columns."""
    (column,) = _columns(line)
    return replace(column, derived=sql)


_GAME_ID = _columns("game_id  string  the game: `<source sha256, 12 hex>:<member>#<tree index>` (games.game_id)")
_SOURCE = _columns("""
    source               string  the source as given to the build (path or URL)
    source_sha256        string  sha256 of the source archive or file
    member               string  the member's path in the archive or folder, decoded ('' for a whole source)
    member_raw           string  hex of the member name's stored bytes when they are not UTF-8, else NULL
    member_name_guessed  bool    whether the member name's encoding was guessed
    """)
_FAMILY = _columns("family  string  the pattern family (docs/patterns.md#families)")
_SYMMETRY = _columns("symmetry  int32  the symmetry group: 8 (rotations, reflections) or 16 (also the colour swap)")
_COUNTS = (
    *_columns("""
        occurrence  int64  candidate points that had this shape (docs/patterns.md#occurrence-and-chosen)
        chosen      int64  of those, the points that were played
        """),
    _derived("chosen_rate  float64  chosen / occurrence", "chosen / occurrence"),
)
_RESULTS = _columns("""
    results_known    int64    games with a known winner
    unknown_results  int64    games without a known winner (results_known + unknown_results = games)
    black_score      float64  Black's score over results_known: a win 1, a loss 0, a draw 0.5
    black_win_rate   float64  black_score / results_known, NULL when no result is known
    """)
_YEARS = _columns("""
    year_counts   year_counts  games per known year, ascending
    unknown_year  int64        games without a year
    """)
_BOARD_ROW_COL = _columns("""
    row  int16  0 = top, NULL for a pass
    col  int16  0 = left, NULL for a pass
    """)

_TABLES = (
    Table(
        "games", "unique game", ("game_id",), (
            *_GAME_ID, *_SOURCE,
            *_columns("tree_index  int32  the game tree's index in its file (0 = the first)"),
            *(Column(name, pa.string(), f"the SGF property {name.upper()} as written ({meaning})")
              for name, meaning in (
                ("pb", "Black's name"), ("pw", "White's name"), ("br", "Black's rank"), ("wr", "White's rank"),
                ("dt", "date"), ("ev", "event"), ("re", "result"), ("km", "komi"), ("ha", "handicap"),
                ("ru", "rules"))),
            *_columns("""
                year           int32         the year read from DT, NULL when it has none
                winner         string        B, W or D (draw) from RE, NULL when unknown
                komi           float64       komi from KM (docs/releases.md#game-flags: komi_*)
                handicap       int32         handicap stones from HA, 0 when absent
                board_size     int32         board size (19 for most)
                move_count     int32         main-line moves kept, passes included
                setup_stones   int32         setup stones (AB, AW) before the first move: rows of setups
                encoding       string        the text encoding the file was read with
                flags          list<string>  repairs and doubts while reading (docs/releases.md#game-flags)
                sequence_sha1  string        sha1 of board size, setup and moves: equal for duplicate games
                """),
        ), "transforms/analytics/sql/models/games.sql", "expectations/games.py",
        ("A game that repeats an earlier one (the same sequence_sha1, 20 moves or more) is kept once "
         "(docs/releases.md#duplicates).",),
    ),
    Table(
        "moves", "main-line move of a game", ("game_id", "move_number"), (
            *_GAME_ID,
            *_columns("""
                move_number  int32   numbered from 1, passes counted
                colour       string  B or W
                """),
            *_BOARD_ROW_COL,
            _derived("point  string  SGF letters, column then row ('pd'), NULL for a pass", 'sgf_point("row", col)'),
        ), "transforms/analytics/sql/models/moves.sql", "expectations/moves.py",
        ("Moves stop before a game's first illegal move (its `illegal_*` flag).",),
    ),
    Table(
        "setups", "setup stone (AB, AW before the first move)", ("game_id", "stone_number"), (
            *_GAME_ID,
            *_columns("""
                stone_number  int32   placement order, from 1
                colour        string  B or W
                """),
            *_BOARD_ROW_COL,
            _derived("point  string  SGF letters, column then row ('pd')", 'sgf_point("row", col)'),
        ), "transforms/analytics/sql/models/setups.sql", "expectations/setups.py",
    ),
    Table(
        "rejects", "rejected file, archive member or source, and rejected game tree of a file that gave games",
        ("source_sha256", "member", "tree_index"), (
            *_SOURCE,
            *_columns("""
                tree_index  int32   the rejected game tree's index, NULL when the whole file or source is rejected
                reason      string  reason code (docs/releases.md#reject-reasons)
                message     string  what went wrong, in words
                """),
        ), "transforms/analytics/sql/models/rejects.sql", "expectations/rejects.py",
        ("The manifest's `ingest` holds the equations: files in = ingested + rejected; game trees in = games + "
         "duplicates + rejected trees.",),
    ),
    Table(
        "pattern_stats", "family x symmetry x canonical key", ("family", "symmetry", "key"), (
            *_FAMILY, *_SYMMETRY,
            *_columns("""
                key  string  canonical key: the colour to move (1 black, 2 white), then one digit per cell
                    (docs/patterns.md#keys)
                """),
            *_COUNTS,
            *_columns("orbit_size  int32  distinct variants of the key under the group; divides 8 or 16"),
            _derived("stones  int32  occupied cells of the stone plane", "pattern_stones(family, key)"),
            _derived("diagram  string  the key drawn as text (docs/patterns.md#diagrams)",
                     "pattern_diagram(family, key)"),
            *_columns("result  int64  blk4: 4x4 mask of who played where (01 black, 10 white, 11 both); else NULL"),
        ), "transforms/analytics/sql/models/pattern_counts.sql", "expectations/pattern_stats.py",
        ("`symmetry` 8 and 16 are two tables in one: filter on it, or every count is summed twice.",
         "`d12`, `sq3` and `dia13` publish every key; the other families the keys seen at least "
         "`min_occurrence` times (the manifest's `config.min_occurrence`); `pattern_tail` holds the rest.",
         "Join `move_patterns` on `key = key8 AND symmetry = 8` (or `key16` and 16)."),
        partitioned=True,
    ),
    Table(
        "pattern_tail", "family x symmetry", ("family", "symmetry"), (
            *_FAMILY, *_SYMMETRY,
            *_columns("""
                min_occurrence  int32  the family's publication threshold (1: nothing is left out)
                keys            int64  canonical keys seen fewer than min_occurrence times, left out of pattern_stats
                occurrence      int64  their summed occurrence
                chosen          int64  their summed chosen
                """),
        ), "transforms/analytics/sql/models/pattern_tail.sql", "expectations/pattern_tail.py",
        ("pattern_stats plus pattern_tail hold every count: per family and symmetry, sum(pattern_stats.chosen) + "
         "pattern_tail.chosen is the family's chosen events (docs/releases.md#pattern_tail).",),
    ),
    Table(
        "move_patterns", "chosen event: family x board move the family counts", ("family", "game_id", "move_number"), (
            *_FAMILY, *_GAME_ID,
            *_columns("""
                move_number  int32   as in moves
                colour       string  B or W, the mover
                key8         string  the move's canonical key under the 8 symmetries (pattern_stats.key, symmetry 8)
                key16        string  its canonical key under the 16 symmetries (pattern_stats.key, symmetry 16)
                """),
        ), "effects/parquet.py", "expectations/move_patterns.py",
        ("Only the build's event families (default d12, dia13, sq3); d12 counts only moves with a usable last move "
         "(docs/releases.md#move_patterns).",
         "One file per build that added games, each in (family, game_id, move_number) order: sort on `game_id` "
         "for one order across builds."),
        partitioned=True,
    ),
    Table(
        "fuseki", "kind x canonical opening of the first N moves", ("kind", "key"), (
            *_columns("""
                kind                string  'sequence' (moves in order) or 'position' (the stones, in any order)
                moves               int32   N, the moves of the opening (the build's fuseki_moves)
                key                 string  sequence: SGF points in order ('pd dd qp ...'); position:
                    'B:<points>|W:<points>'; the smallest text over the 8 symmetries
                sgf                 string  the sequence as SGF (';B[pd];W[dd]...'), NULL for a position
                position            string  the canonical position the opening reaches
                games               int64   games that open this way
                distinct_sequences  int64   canonical sequences that reach the key (1 for a sequence)
                first_year          int32   first known year
                last_year           int32   last known year
                """),
            *_YEARS, *_RESULTS,
            *_columns("example_game_id  string  the smallest game_id that opens this way"),
        ), "transforms/analytics/sql/models/fuseki.sql", "expectations/fuseki.py",
        ("Opening games: 19x19, no handicap or setup, at least N moves "
         "(transforms/analytics/sql/models/opening_games.sql).",
         "Colours are never swapped: Black moves first."),
    ),
    Table(
        "opening_tree", "edge from a canonical position after k moves to a next move", ("depth", "node", "move"), (
            *_columns("""
                depth       int32    k, moves played before the edge (0 = empty board)
                node        string   the canonical position after k moves ('B:|W:' is the empty board)
                move        string   the next move in the node's canonical frame, SGF letters
                colour      string   B or W, the player of the move
                child       string   the canonical position after the move
                games       int64    games taking the edge
                node_games  int64    games reaching the node
                share       float64  games / node_games
                """),
            *_RESULTS, *_YEARS,
            *_columns("moves  int32  N, the depth of the tree (the build's fuseki_moves)"),
        ), "transforms/analytics/sql/models/opening_tree.sql", "expectations/opening_tree.py",
        ("Walk it from node 'B:|W:' at depth 0, following child to the next depth.",),
    ),
    Table(
        "dont_care_templates", "maximal template x family x symmetry", ("family", "symmetry", "template"), (
            *_FAMILY, *_SYMMETRY,
            *_columns("""
                template   string  a key whose cells may be wildcards: '?' any, 'x' black or empty, 'o' white or
                    empty (docs/patterns.md#dont-care-templates)
                wildcards  int32   wildcard cells
                patterns   int64   canonical pattern_stats keys the template covers
                """),
            *_COUNTS,
            *_columns("min_occurrence  int64  the occurrence a key needed to take part (template_min_occurrence)"),
            _derived("diagram  string  the template drawn as text", "pattern_diagram(family, template)"),
        ), "transforms/analytics/sql/models/dont_care_templates.sql", "expectations/dont_care_templates.py",
        ("A key may be covered by several templates: do not sum templates' counts.",),
    ),
    Table(
        "game_counts", "board size x N", ("board_size", "moves"), _columns("""
            board_size        int32    the board size
            moves             int32    N, the number of moves
            sequences         string   distinct N-move sequences up to the 8 symmetries, exact decimal text
            positions         string   distinct positions of N moves up to the 8 symmetries, exact decimal text
            sequences_approx  float64  sequences as a DOUBLE, for sorting and plotting
            positions_approx  float64  positions as a DOUBLE
            """), "transforms/analytics/sql/models/game_counts.sql", "expectations/game_counts.py",
        ("Counted on an empty board without captures (docs/symmetry.md#game-counts).",),
    ),
)
TABLES: dict[str, Table] = {table.name: table for table in _TABLES}


def select_list(name: str, *, release_format: int) -> str:
    """The select list of table `name`'s view over the files of a release of `release_format`: every column of the
    files of a table not in TABLES or of a format 1 release (which stored its derived columns, CHANGELOG.md)."""
    return TABLES[name].select_list if name in TABLES and release_format >= 2 else "*"


def derived_columns(name: str) -> list[str]:
    """The derived columns of table `name` (none for a table not in TABLES): the files leave them out."""
    return [c.name for c in TABLES[name].columns if c.derived is not None] if name in TABLES else []


def polars_schema(name: str) -> pl.Schema:
    """The stored columns of table `name` as a polars schema."""
    return pl.DataFrame(TABLES[name].stored.empty_table()).schema


def contract(name: str) -> dict[str, str]:
    """Column name -> DuckDB type of table `name` as readers see it: the schema its suite checks."""
    with duckdb.connect() as con:
        declared = con.from_arrow(TABLES[name].schema.empty_table())
        return dict(zip(declared.columns, map(str, declared.types), strict=True))
