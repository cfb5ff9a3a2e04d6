"""Don't-care templates: the lattice of templates over a family's frequent patterns, and table
dont_care_templates."""

from __future__ import annotations

from collections.abc import Sequence

import duckdb
import numpy as np
import pyarrow as pa

from gopat.transforms.analytics.loader import run, sql_text
from gopat.transforms.checks import positive
from gopat.transforms.kernels import kernel
from gopat.transforms.patterns.canonical import key_strings
from gopat.transforms.patterns.families import FAMILIES
from gopat.transforms.patterns.render import SYMBOLS
from gopat.transforms.patterns.symmetry import SYMMETRIES, Group
from gopat.transforms.tables.macros import install_macros

# Template cells: the key digits '0' empty, '1' black, '2' white, '3' off-board, then the wildcards
# '?' (empty, black or white), 'o' (white or empty), 'x' (black or empty); a wildcard never covers
# off-board. Code = index in SYMBOLS, so code order = character order = canonical order. A template
# of n digits is packed into an int64, 3 bits a cell, first cell most significant.
_CODE_SETS = np.array([0b0001, 0b0010, 0b0100, 0b1000, 0b0111, 0b0101, 0b0011], dtype=np.uint8)  # bit v = value v
_CODE_OF_SET = np.full(16, 255, dtype=np.uint8)
_CODE_OF_SET[_CODE_SETS] = np.arange(len(SYMBOLS), dtype=np.uint8)
_WILDCARDS = (4, 5, 6)
_ASCII = np.frombuffer(SYMBOLS.encode(), dtype=np.uint8)
MAX_TEMPLATE_DIGITS = 21
# Measured on pro-sample (48,298 games, 2.58e9 candidate occurrences per family): with
# occurrence >= 100,000, sq3 keeps 1,176 (8 symmetries) / 764 (16) canonical patterns and dia13
# 1,671 / 1,484, giving a few hundred maximal templates each in seconds. At 10,000 sq3 is almost
# complete (2,011 of 2,214 patterns: templates collapse to all-'?') and at 1 dia13's lattice would
# hold ~10^8 templates.
TEMPLATE_MIN_OCCURRENCE = 100_000


def template_group(family: str, symmetry: int) -> Group:
    if family not in FAMILIES:
        raise ValueError(f"unknown pattern family {family!r}")
    layout = FAMILIES[family].layout
    if layout.planes != ("stone",) or layout.n_digits > MAX_TEMPLATE_DIGITS:
        raise ValueError(f"family {family} has no don't-care templates (stone plane of <= 20 points only)")
    return FAMILIES[family].group(symmetry)


def _pack(codes: np.ndarray) -> np.ndarray:
    """Rows of cell codes (uint8, one row per template) as int64 values, first cell most significant."""
    n = codes.shape[1]
    shifts = 3 * np.arange(n - 1, -1, -1, dtype=np.int64)
    packed: np.ndarray = (codes.astype(np.int64) << shifts).sum(axis=1)
    return packed


def _unpack(packed: np.ndarray, n: int) -> np.ndarray:
    shifts = 3 * np.arange(n - 1, -1, -1, dtype=np.int64)
    return ((packed[:, None] >> shifts) & 7).astype(np.uint8)


def _parse_templates(templates: np.ndarray | Sequence[str], n: int) -> np.ndarray:
    """Packed int64 values of template strings of length ``n`` (symbols of :data:`SYMBOLS`)."""
    text = np.asarray(templates, dtype=f"S{n}")
    codes = np.frombuffer(text.tobytes(), dtype=np.uint8).reshape(-1, n)
    lookup = np.full(256, 255, dtype=np.uint8)
    lookup[_ASCII] = np.arange(len(SYMBOLS), dtype=np.uint8)
    codes = lookup[codes]
    if codes.size and ((codes == 255).any() or any(len(t) != n for t in templates)):
        raise ValueError(f"templates must be strings of {n} symbols from {SYMBOLS!r}")
    return _pack(codes.reshape(-1, n))


def _template_strings(packed: np.ndarray, n: int) -> np.ndarray:
    """Template strings of packed values (inverse of :func:`_parse_templates`)."""
    codes = _unpack(np.asarray(packed, dtype=np.int64), n)
    return np.ascontiguousarray(_ASCII[codes]).view(f"S{n}").ravel().astype(f"U{n}")


class _Action:
    """A group acting on packed templates: digits are permuted, value sets mapped element-wise."""

    def __init__(self, group: Group) -> None:
        self.n = group.n_digits
        self.perms = np.array([element.perm for element in group.elements], dtype=np.intp)
        self.tables = np.zeros((group.order, self.n, 8), dtype=np.uint8)
        for g, element in enumerate(group.elements):
            for i, value_map in enumerate(element.maps):
                for code, values in enumerate(_CODE_SETS):
                    image = sum(1 << value_map[v] for v in range(4) if values >> v & 1)
                    self.tables[g, i, code] = _CODE_OF_SET[image]

    def variants(self, packed: np.ndarray) -> np.ndarray:
        """Packed images under every element: shape (order, N)."""
        return _images(np.asarray(packed, dtype=np.int64), self.perms, self.tables)

    def canonical(self, packed: np.ndarray) -> np.ndarray:
        """The smallest image of each packed template."""
        return self.variants(packed).min(axis=0) if packed.size else packed


@kernel(cache=True, nogil=True)
def _images(packed: np.ndarray, perms: np.ndarray, tables: np.ndarray) -> np.ndarray:
    """Packed images of templates under each element g (cell i of t's image: tables[g, i, cell perms[g, i] of t])."""
    order, n = perms.shape
    images = np.empty((order, packed.size), dtype=np.int64)
    codes = np.empty(n, dtype=np.uint8)
    for j in range(packed.size):
        for i in range(n):
            codes[i] = (packed[j] >> (3 * (n - 1 - i))) & 7
        for g in range(order):
            image = np.int64(0)
            for i in range(n):
                image = (image << 3) | tables[g, i, codes[perms[g, i]]]
            images[g, j] = image
    return images


def _merges(variants: np.ndarray, fresh: np.ndarray, n: int) -> np.ndarray:
    """Packed templates made by one merge step in which at least one member is ``fresh``.

    ``variants`` holds every image of every known template. For each cell c and wildcard W, the
    variants that agree on all other cells and whose value set at c lies inside W form a group;
    when their value sets together make up W and none is W already, they merge into W at c.
    """
    found = []
    for cell in range(1, n):
        shift = 3 * (n - 1 - cell)
        values = _CODE_SETS[(variants >> shift) & 7]
        on_board = values < 0b1000
        blanked = variants[on_board] & ~np.int64(7 << shift)
        values, row_fresh = values[on_board], fresh[on_board]
        groups, member_of = np.unique(blanked, return_inverse=True)
        for wildcard in _WILDCARDS:
            wanted = _CODE_SETS[wildcard]
            inside = values & wanted == values
            union = np.zeros(groups.size, dtype=np.uint8)
            for value in range(3):  # OR of the groups' value sets, a bit at a time (repeated indices set one bit)
                union[member_of[inside & (values >> value & 1 == 1)]] |= np.uint8(1 << value)
            present = np.zeros(groups.size, dtype=bool)
            present[member_of[inside & (values == wanted)]] = True
            touched = np.zeros(groups.size, dtype=bool)
            touched[member_of[inside & row_fresh]] = True
            merged = (union == wanted) & ~present & touched
            found.append(groups[merged] | np.int64(wildcard << shift))
    return np.concatenate(found)


def dont_care_lattice(keys: Sequence[str], group: Group) -> tuple[np.ndarray, np.ndarray]:
    """The maximal don't-care templates of a set of canonical concrete keys, and all templates.

    A template (see :data:`SYMBOLS`) is valid when every concrete pattern it stands for is, up to
    ``group``, one of ``keys``. Valid templates are built by merging to a fixpoint: a cell becomes
    a wildcard W where valid templates that differ only in that cell, with value sets inside W,
    together cover W. A template is maximal when no valid template has one cell more general.
    Returns (maximal, all) as sorted arrays of canonical template strings, concrete keys excluded.
    """
    n = group.n_digits
    if len(keys) == 0:
        return np.empty(0, dtype=f"U{n}"), np.empty(0, dtype=f"U{n}")
    if any(set(key) - set("0123") for key in keys):
        raise ValueError("concrete keys are digit strings 0..3")
    action = _Action(group)
    concrete = np.unique(_parse_templates(keys, n))
    known, fresh = concrete, concrete
    variants = action.variants(concrete).ravel()
    fresh_variants = np.ones(variants.size, dtype=bool)
    while fresh.size:
        created = np.unique(action.canonical(_merges(variants, fresh_variants, n)))
        fresh = np.setdiff1d(created, known, assume_unique=True)
        known = np.union1d(known, fresh)
        new_variants = action.variants(fresh).ravel()
        variants = np.concatenate([variants, new_variants])
        fresh_variants = np.zeros(variants.size, dtype=bool)
        fresh_variants[variants.size - new_variants.size:] = True
    templates = np.setdiff1d(known, concrete, assume_unique=True)
    maximal = np.ones(templates.size, dtype=bool)
    for cell in range(1, n):
        shift = 3 * (n - 1 - cell)
        values = _CODE_SETS[(templates >> shift) & 7]
        for wildcard in _WILDCARDS:
            grows = (values & _CODE_SETS[wildcard] == values) & (values != _CODE_SETS[wildcard])
            general = (templates[grows] & ~np.int64(7 << shift)) | np.int64(wildcard << shift)
            maximal[np.flatnonzero(grows)[np.isin(action.canonical(general), known)]] = False
    return _template_strings(templates[maximal], n), _template_strings(templates, n)


def _template_cover(templates: np.ndarray | Sequence[str], group: Group) -> tuple[np.ndarray, np.ndarray]:
    """The canonical concrete keys each template stands for: (template index, key string) pairs.

    Every wildcard is expanded to each value of its set; the concrete patterns are canonicalised
    under ``group`` and repeats within one template (symmetric expansions) are dropped.
    """
    n = group.n_digits
    packed = _parse_templates(templates, n)
    owner = np.arange(packed.size, dtype=np.int64)
    for cell in range(1, n):
        shift = 3 * (n - 1 - cell)
        codes = (packed >> shift) & 7
        parts, owners = [packed[codes < 4]], [owner[codes < 4]]
        for wildcard in _WILDCARDS:
            rows = codes == wildcard
            for value in range(3):
                if _CODE_SETS[wildcard] >> value & 1:
                    parts.append((packed[rows] & ~np.int64(7 << shift)) | np.int64(value << shift))
                    owners.append(owner[rows])
        packed, owner = np.concatenate(parts), np.concatenate(owners)
    digits = _unpack(packed, n).astype(np.int64)
    keys = (digits << (2 * np.arange(n - 1, -1, -1, dtype=np.int64))).sum(axis=1)
    canonical, _, _ = group.canonicalize(keys)
    pairs = np.unique(np.stack([owner, canonical], axis=1), axis=0)
    return pairs[:, 0], key_strings(pairs[:, 1], n)


def build_dont_care_templates(
    con: duckdb.DuckDBPyConnection,
    *,
    families: Sequence[str] = ("sq3", "dia13"),
    min_occurrence: int = TEMPLATE_MIN_OCCURRENCE,
) -> None:
    """Create table ``dont_care_templates``: maximal don't-care templates per family and symmetry.

    Works on the ``pattern_stats`` rows of each family and symmetry (8 and 16) with occurrence >=
    ``min_occurrence``; see :func:`dont_care_lattice` and ``transforms/analytics/sql/models/dont_care_templates.sql``.
    Families need a stone plane only (not d12) of at most 20 points (not sq5).
    """
    positive("min_occurrence", min_occurrence)
    if isinstance(families, str) or len(set(families)) != len(families):
        raise ValueError("families must be a sequence of distinct family names")
    groups = {(family, symmetry): template_group(family, symmetry) for family in families for symmetry in SYMMETRIES}
    con.execute("SET VARIABLE template_min_occurrence = ?", [min_occurrence])
    install_macros(con)  # the diagram column (transforms/tables/registry.py)
    run(con, "steps/dont_care_templates_init")
    for (family, symmetry), group in groups.items():
        con.execute("SET VARIABLE template_family = ?", [family])
        con.execute("SET VARIABLE template_symmetry = ?", [symmetry])
        keys = [key for (key,) in con.execute(sql_text("steps/dont_care_templates_patterns")).fetchall()]
        maximal, _ = dont_care_lattice(keys, group)
        owner, covered = _template_cover(maximal, group)
        con.register("template_input", pa.table({"template": maximal.tolist()}))
        con.register("template_cover_input", pa.table({"template": maximal[owner].tolist(), "key": covered.tolist()}))
        try:
            run(con, "steps/dont_care_templates_append")
        finally:
            con.unregister("template_input")
            con.unregister("template_cover_input")
    run(con, "models/dont_care_templates")
