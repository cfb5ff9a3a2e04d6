"""Expectation suite of the `dont_care_templates` table: coverage, summed counts, canonical and maximal templates."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import duckdb
import numpy as np

from gopat.expectations import expect as e
from gopat.expectations import runner
from gopat.transforms.patterns.families import FAMILIES
from gopat.transforms.patterns.symmetry import SYMMETRIES, Element, Group
from gopat.transforms.tables.registry import contract

TABLE = "dont_care_templates"
SCHEMA = contract(TABLE)
KEY = ("family", "symmetry", "template")
# Values a template symbol stands for (cell digits 0 empty, 1 black, 2 white, 3 off-board).
VALUES = {"0": "0", "1": "1", "2": "2", "3": "3", "?": "012", "x": "01", "o": "02"}
SYMBOL_OF = {frozenset(values): symbol for symbol, values in VALUES.items()}
SAMPLES = 3


def validate(con: duckdb.DuckDBPyConnection, *, manifest: Mapping[str, Any]) -> runner.SuiteResult:
    """Validate table dont_care_templates in `con` against the pattern_stats it was built from.

    For every template (numpy/Python, per family and symmetry): it is its own canonical form under
    the family's group; every concrete pattern it stands for is a pattern_stats row with occurrence
    >= min_occurrence; patterns, occurrence and chosen are the sums over those rows; and no template
    with one more general cell would also be valid (maximal). `manifest` is not used. GX asserts
    every violation count is 0.
    """
    schema, stopped = runner.schema_gate(con, TABLE, SCHEMA, types=False)
    if stopped:
        return stopped
    invariants = [schema, *runner.sql_invariants(con, "checks/dont_care_templates")]
    invariants += _template_invariants(con)
    return runner.run_checks(con, TABLE, invariants, _expectations())


def _expectations() -> list[e.Expectation]:
    return [
        *runner.key_expectations(KEY, not_null=(*KEY, "occurrence")),
        e.ExpectColumnValuesToBeInSet(column="symmetry", value_set=list(SYMMETRIES)),
        e.ExpectColumnValuesToBeInSet(column="family", value_set=sorted(FAMILIES)),
        e.ExpectColumnValuesToBeBetween(column="patterns", min_value=1),
    ]


def _template_invariants(con: duckdb.DuckDBPyConnection) -> list[runner.Invariant]:
    problems: dict[str, list[str]] = {
        name: []
        for name in (
            "dont_care_templates_fit_their_family",
            "dont_care_templates_are_canonical",
            "dont_care_templates_cover_only_existing_patterns",
            "dont_care_templates_counts_are_sums_of_covered_patterns",
            "dont_care_templates_are_maximal",
        )
    }
    groups = con.execute("SELECT DISTINCT family, symmetry, min_occurrence FROM dont_care_templates ORDER BY ALL")
    for family, symmetry, min_occurrence in groups.fetchall():
        rows = con.execute(
            "SELECT template, patterns, occurrence, chosen FROM dont_care_templates WHERE family = ? AND symmetry = ?",
            [family, symmetry],
        ).fetchall()
        layout = FAMILIES[family].layout if family in FAMILIES else None
        bad = [r[0] for r in rows if layout is None or layout.planes != ("stone",) or len(r[0]) != layout.n_digits]
        if bad or symmetry not in SYMMETRIES:
            problems["dont_care_templates_fit_their_family"] += [f"{family}/{symmetry} {t}" for t in bad or ["-"]]
            continue
        stats = dict(
            (key, (occurrence, chosen))
            for key, occurrence, chosen in con.execute(
                "SELECT key, occurrence, chosen FROM pattern_stats "
                "WHERE family = ? AND symmetry = ? AND occurrence >= ?",
                [family, symmetry, min_occurrence],
            ).fetchall()
        )
        group = FAMILIES[family].group(symmetry)
        label = f"{family}/{symmetry}"
        for name, found in _check_family(rows, stats, group).items():
            problems[name] += [f"{label} {template}" for template in found]
    return [
        runner.Invariant(name, len(found), "e.g. " + "; ".join(found[:SAMPLES]) if found else "")
        for name, found in problems.items()
    ]


def _check_family(rows: list[tuple[Any, ...]], stats: dict[str, tuple[int, int]], group: Group) -> dict[str, list[str]]:
    """Template strings failing each check, for the templates of one family and symmetry."""
    templates = [row[0] for row in rows]
    canonical = [min(_image(element, t) for element in group.elements) for t in templates]
    owners, keys = _canonical_expansions(templates, group)
    present = np.isin(keys, np.array(list(stats), dtype=str))
    missing = sorted({templates[i] for i in owners[~present]})
    wrong_sums = []
    for i, (template, patterns, occurrence, chosen) in enumerate(rows):
        covered = keys[(owners == i) & present]
        sums = (covered.size, sum(stats[k][0] for k in covered), sum(stats[k][1] for k in covered))
        if template not in missing and sums != (patterns, occurrence, chosen):
            wrong_sums.append(template)
    return {
        "dont_care_templates_are_canonical": [t for t, c in zip(templates, canonical, strict=True) if t != c],
        "dont_care_templates_cover_only_existing_patterns": missing,
        "dont_care_templates_counts_are_sums_of_covered_patterns": wrong_sums,
        "dont_care_templates_are_maximal": _not_maximal(templates, set(stats), group),
    }


def _image(element: Element, template: str) -> str:
    """A template under a group element: digits move by ``perm``, each symbol's values map by ``maps``."""
    out = []
    for i, source in enumerate(element.perm):
        values = frozenset(str(element.maps[i][int(v)]) for v in VALUES[template[source]])
        out.append(SYMBOL_OF[values])
    return "".join(out)


def _canonical_expansions(templates: Sequence[str], group: Group) -> tuple[np.ndarray, np.ndarray]:
    """(template index, canonical concrete key) for every distinct concrete pattern of every template."""
    owners, keys = [], []
    for index, template in enumerate(templates):
        for digits in itertools.product(*(VALUES[symbol] for symbol in template)):
            owners.append(index)
            keys.append(int("".join(digits), 4))
    if not keys:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=str)
    canonical, _, _ = group.canonicalize(np.array(keys, dtype=np.int64))
    pairs = np.unique(np.stack([np.array(owners, dtype=np.int64), canonical], axis=1), axis=0)
    n = group.n_digits
    text = np.array([np.base_repr(int(k), 4).zfill(n) for k in pairs[:, 1]], dtype=str)
    return pairs[:, 0], text


def _not_maximal(templates: Sequence[str], concrete: set[str], group: Group) -> list[str]:
    """Templates for which widening one cell to a larger wildcard set gives another valid template.

    Widening cell c of a valid template adds the values of the wider set that the cell lacks; the
    wider template is valid iff each added value v makes a valid template with v at c.
    """
    siblings = {}
    for template in templates:
        for cell in range(1, len(template)):
            for value in "012":
                if value not in VALUES[template[cell]] and template[cell] != "3":
                    siblings[(template, cell, value)] = template[:cell] + value + template[cell + 1:]
    names = list(siblings.values())
    owners, keys = _canonical_expansions(names, group)
    present = np.isin(keys, np.array(list(concrete), dtype=str))
    invalid = set(owners[~present].tolist())
    valid = {entry for index, entry in enumerate(siblings) if index not in invalid}
    found = []
    for template in templates:
        for cell in range(1, len(template)):
            have = set(VALUES[template[cell]])
            if "3" in have:
                continue
            for wider in ("?", "x", "o"):
                added = set(VALUES[wider]) - have
                if have < set(VALUES[wider]) and all((template, cell, v) in valid for v in added):
                    found.append(template)
    return sorted(set(found))
