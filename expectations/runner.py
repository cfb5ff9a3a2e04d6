"""Running a Great Expectations suite on a pandas frame and reporting the results."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from numbers import Integral
from typing import Any

import duckdb
import pandas as pd

from gopat.expectations import expect as e
from gopat.expectations.expect import (
    DataContextConfig,
    ExpectationConfiguration,
    ExpectationValidationResult,
    InMemoryStoreBackendDefaults,
    ProgressBarsConfig,
    gx,
)
from gopat.transforms.analytics.loader import sql_text

CHECK_MARK = "-- check: "
ORDER = "suite_order"
DETAILS_CHARS = 300
SAMPLE_VALUES = 5


@dataclass(frozen=True)
class ExpectationOutcome:
    """One evaluated expectation: its readable name, whether it held, and short evidence."""

    expectation: str
    success: bool
    details: str


@dataclass(frozen=True)
class SuiteResult:
    """The outcomes of one table's suite; `success` is true only if every outcome succeeded."""

    table: str
    success: bool
    outcomes: tuple[ExpectationOutcome, ...]

    def failures(self) -> tuple[ExpectationOutcome, ...]:
        """The outcomes that did not hold, in suite order."""
        return tuple(outcome for outcome in self.outcomes if not outcome.success)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able summary for the release manifest."""
        return {
            "table": self.table,
            "success": self.success,
            "evaluated": len(self.outcomes),
            "failed": len(self.failures()),
            "outcomes": [asdict(outcome) for outcome in self.outcomes],
        }


@dataclass(frozen=True)
class Invariant:
    """A named invariant computed outside GX: `violations` must be 0; `evidence` explains a failure."""

    name: str
    violations: int
    evidence: str = ""


def run_suite(table: str, frame: pd.DataFrame, expectations: Sequence[e.Expectation]) -> SuiteResult:
    """Validate `frame` with `expectations` in a throw-away in-memory GX context.

    Outcomes keep the order of `expectations`. An expectation with ``meta={"check": name}`` is
    reported under that name, otherwise as ``type(column)``. Nothing is written to disk and no
    network is used.
    """
    context = gx.get_context(mode="ephemeral", project_config=_context_config())
    batch = (
        context.data_sources.add_pandas(name="frames")
        .add_dataframe_asset(name=table)
        .add_batch_definition_whole_dataframe(name="whole")
        .get_batch(batch_parameters={"dataframe": frame})
    )
    ordered = [
        expectation.copy(update={"meta": {**(expectation.meta or {}), ORDER: index}})
        for index, expectation in enumerate(expectations)
    ]
    validation = batch.validate(gx.ExpectationSuite(name=table, expectations=ordered), result_format="SUMMARY")
    results = sorted(validation.results, key=lambda result: _config(result).meta[ORDER])
    outcomes = tuple(_outcome(result) for result in results)
    return SuiteResult(table=table, success=all(o.success for o in outcomes), outcomes=outcomes)


def run_invariants(table: str, invariants: Sequence[Invariant]) -> SuiteResult:
    """Let GX assert that every invariant has 0 violations; each is reported under its own name.

    The invariants become a one-row frame with one column per invariant (its violation count),
    checked with ``expect_column_max_to_be_between(min 0, max 0)``.
    """
    names = [invariant.name for invariant in invariants]
    if len(set(names)) != len(names):
        raise ValueError(f"duplicate invariant names in {table}")
    frame = pd.DataFrame({invariant.name: [int(invariant.violations)] for invariant in invariants})
    expectations = [
        e.ExpectColumnMaxToBeBetween(
            column=invariant.name,
            min_value=0,
            max_value=0,
            meta={"check": invariant.name, "invariant": True, "evidence": invariant.evidence},
        )
        for invariant in invariants
    ]
    return run_suite(table, frame, expectations)


def combine(table: str, results: Sequence[SuiteResult]) -> SuiteResult:
    """One result holding the outcomes of several partial results of the same table, in order."""
    outcomes = tuple(outcome for result in results for outcome in result.outcomes)
    return SuiteResult(table=table, success=all(o.success for o in outcomes), outcomes=outcomes)


def run_checks(
    con: duckdb.DuckDBPyConnection, table: str, invariants: Sequence[Invariant], expectations: Sequence[e.Expectation]
) -> SuiteResult:
    """One result: GX asserts `invariants`, then runs `expectations` on a pandas frame of the columns of `table` they
    name (`table` is the suite's own constant, never data)."""
    columns = dict.fromkeys(column for expectation in expectations for column in _columns(expectation))
    frame = con.sql(f"SELECT {', '.join(columns)} FROM {table}").df()
    return combine(table, [run_invariants(table, invariants), run_suite(table, frame, expectations)])


def key_expectations(key: Sequence[str], *, not_null: Sequence[str]) -> list[e.Expectation]:
    """The columns of `not_null` hold no NULL, and those of `key` identify a row."""
    return [
        *(e.ExpectColumnValuesToNotBeNull(column=column) for column in not_null),
        e.ExpectCompoundColumnsToBeUnique(column_list=list(key)),
    ]


def sql_invariant(
    con: duckdb.DuckDBPyConnection,
    name: str,
    violating_rows: str,
    *,
    evidence: str = "",
    params: Mapping[str, object] | None = None,
) -> Invariant:
    """The invariant "query `violating_rows` returns no row": violations = its row count.

    `params` fills ``$name`` placeholders. On failure the evidence holds `evidence` and the first
    rows returned (order as the query gives).
    """
    query = f"SELECT *, count(*) OVER () AS violations__ FROM (\n{violating_rows}\n) LIMIT 3"
    rows = con.sql(query, params=dict(params) if params else None).fetchall()
    count = rows[0][-1] if rows else 0
    sample = "e.g. " + "; ".join(_format_row(row[:-1]) for row in rows) if rows else ""
    return Invariant(name=name, violations=int(count), evidence="; ".join(part for part in (evidence, sample) if part))


def sql_checks(name: str) -> dict[str, str]:
    """The checks of ``transforms/analytics/sql/<name>.sql`` (e.g. ``"checks/games"``), read through `sql_text`, by
    invariant name.

    Each check starts at a line ``-- check: <invariant name>`` and is one query (ending with ``;``)
    that returns the rows violating the invariant.
    """
    checks: dict[str, list[str]] = {}
    lines: list[str] | None = None
    for line in sql_text(name).splitlines():
        if line.startswith(CHECK_MARK):
            lines = checks.setdefault(line.removeprefix(CHECK_MARK).strip(), [])
        elif lines is not None:
            lines.append(line)
    return {check: "\n".join(lines).strip().removesuffix(";") for check, lines in checks.items()}


def sql_invariants(
    con: duckdb.DuckDBPyConnection,
    name: str,
    *,
    params: Mapping[str, object] | None = None,
    evidence: Mapping[str, str] | None = None,
) -> list[Invariant]:
    """The invariants of every check of `sql_checks(name)`, in file order.

    `params` fill the checks' ``$name`` placeholders; `evidence` gives some checks (by name) a
    sentence shown on failure.
    """
    return [
        sql_invariant(con, check, query, params=used_params(params, query), evidence=(evidence or {}).get(check, ""))
        for check, query in sql_checks(name).items()
    ]


def used_params(params: Mapping[str, object] | None, query: str) -> dict[str, object]:
    """The entries of `params` whose ``$name`` occurs in `query` (DuckDB rejects unused parameters)."""
    return {key: value for key, value in (params or {}).items() if f"${key}" in query}


def count_invariants(
    con: duckdb.DuckDBPyConnection,
    table: str,
    *,
    checks: Mapping[str, tuple[str, str]],
    params: Mapping[str, object] | None = None,
) -> list[Invariant]:
    """The invariants "no row of `table` meets the condition", counted in one scan of the table.

    `checks` maps each invariant's name to (the columns shown as evidence, the one-line SQL condition a
    row violates it with); `params` fills the conditions' ``$name`` placeholders. `table` and the
    conditions are the suite's own constants, never data. Only the checks that fail run again, as
    `sql_invariant`, for evidence.
    """
    conditions = ", ".join(f"count_if({condition})" for _, condition in checks.values())
    (counts,) = con.sql(f"SELECT {conditions} FROM {table}", params=dict(params) if params else None).fetchall()
    return [
        sql_invariant(
            con,
            name,
            f"SELECT {columns} FROM {table} WHERE {condition}",
            params=used_params(params, condition),
        )
        if count else Invariant(name, 0)
        for (name, (columns, condition)), count in zip(checks.items(), counts, strict=True)
    ]


def not_null_rules(columns: Sequence[str], *, shown: str) -> dict[str, tuple[str, str]]:
    """The `count_invariants` checks "`column` is not NULL" of each of `columns`, named `<column>_not_null`; a failure
    shows the columns `shown` and the column."""
    return {f"{column}_not_null": (f"{shown}, {column}", f"{column} IS NULL") for column in columns}


def table_names(con: duckdb.DuckDBPyConnection) -> set[str]:
    """The tables and views in the connection's default schema."""
    rows = con.execute(
        "SELECT table_name FROM information_schema.tables "
        "WHERE table_schema = current_schema() AND table_catalog = current_database()"
    ).fetchall()
    return {name for (name,) in rows}


def table_columns(con: duckdb.DuckDBPyConnection, table: str) -> dict[str, str]:
    """Column name -> DuckDB type of `table` in the connection's default schema, in column order."""
    found = con.execute(
        "SELECT column_name, data_type FROM information_schema.columns "
        "WHERE table_name = ? AND table_schema = current_schema() AND table_catalog = current_database() "
        "ORDER BY ordinal_position",
        [table],
    ).fetchall()
    if not found:
        raise ValueError(f"table {table} not found")
    return dict(found)


def schema_invariant(table: str, columns: Mapping[str, str], contract: Mapping[str, str]) -> Invariant:
    """The invariant "`columns` (name -> DuckDB type) are exactly those of the schema contract"."""
    problems = [f"missing {name}" for name in contract if name not in columns]
    problems += [f"unexpected {name}" for name in columns if name not in contract]
    problems += [
        f"{name} is {columns[name]}, not {kind}"
        for name, kind in contract.items()
        if name in columns and columns[name] != kind
    ]
    return Invariant(name=f"{table}_schema_matches_contract", violations=len(problems), evidence=", ".join(problems))


def schema_gate(
    con: duckdb.DuckDBPyConnection, table: str, contract: Mapping[str, str], *, types: bool = True
) -> tuple[Invariant, SuiteResult | None]:
    """The schema invariant of `table` in `con`, and the suite's result if the table cannot be checked further (a
    column of `contract` missing or, with `types`, of another type): the schema invariant alone; else None."""
    columns = table_columns(con, table)
    schema = schema_invariant(table, columns, contract)
    if types:
        broken = any(columns.get(name) != kind for name, kind in contract.items())
    else:
        broken = any(name not in columns for name in contract)
    return schema, run_invariants(table, [schema]) if broken else None


def rows_invariant(con: duckdb.DuckDBPyConnection, table: str, name: str, *, expected: int, facts: str) -> Invariant:
    """`name`: `table` in `con` has `expected` rows, which the manifest's `facts` (shown as evidence) add up to."""
    ((rows,),) = con.execute(f"SELECT count(*) FROM {table}").fetchall()
    return Invariant(name, abs(rows - expected), f"{rows} rows, {facts}")


def manifest_fact(manifest: Mapping[str, Any], *path: str) -> int:
    """An integer fact of the manifest, e.g. ``manifest_fact(m, "ingest", "games")``."""
    value: object = manifest
    for part in path:
        if not isinstance(value, Mapping) or part not in value:
            raise ValueError(f"manifest lacks {'.'.join(path)}")
        value = value[part]
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise ValueError(f"manifest {'.'.join(path)} is not an integer")
    return int(value)


def _columns(expectation: e.Expectation) -> list[str]:
    """The columns an expectation names (none for a table-level one)."""
    kwargs = expectation.configuration.kwargs
    return [kwargs["column"]] if "column" in kwargs else list(kwargs.get("column_list", []))


def _context_config() -> DataContextConfig:
    """In-memory stores, no data docs, no analytics, no progress bars."""
    return DataContextConfig(
        store_backend_defaults=InMemoryStoreBackendDefaults(init_temp_docs_sites=False),
        analytics_enabled=False,
        progress_bars=ProgressBarsConfig(globally=False, metric_calculations=False),
    )


def _config(result: ExpectationValidationResult) -> ExpectationConfiguration:
    """The configuration of the expectation `result` evaluated (GX sets it on every validation result)."""
    config = result.expectation_config
    if config is None:
        raise ValueError("GX returned a validation result without its expectation")
    return config


def _outcome(result: ExpectationValidationResult) -> ExpectationOutcome:
    """Readable name and short details of one GX validation result."""
    config = _config(result)
    meta = config.meta or {}
    name = meta.get("check") or f"{config.type}({_arguments(config.kwargs)})"
    details = _details(result, meta)
    return ExpectationOutcome(expectation=name, success=bool(result.success), details=details[:DETAILS_CHARS])


def _arguments(kwargs: Mapping[str, Any]) -> str:
    """The domain of an expectation: its column(s), else its value arguments."""
    for key in ("column", "column_list"):
        if key in kwargs:
            value = kwargs[key]
            return ", ".join(value) if isinstance(value, list) else str(value)
    if "column_A" in kwargs:
        return f"{kwargs['column_A']}, {kwargs['column_B']}"
    return ", ".join(f"{key}={value}" for key, value in kwargs.items() if key != "batch_id")


def _details(result: ExpectationValidationResult, meta: Mapping[str, Any]) -> str:
    """Observed value, unexpected count and sample, or the exception GX caught."""
    info = result.exception_info or {}
    messages = [info.get("exception_message")] + [
        value.get("exception_message") for value in info.values() if isinstance(value, Mapping)
    ]
    errors = sorted({message for message in messages if message})
    if errors:
        return "error: " + "; ".join(errors)
    found = result.result or {}
    if meta.get("invariant"):
        text = f"violations={found.get('observed_value')}"
        return f"{text}: {meta['evidence']}" if meta.get("evidence") and not result.success else text
    if "observed_value" in found:
        expected = _config(result).kwargs.get("value")
        suffix = "" if expected is None else f", expected {expected}"
        return f"observed {found['observed_value']}{suffix}"
    if "unexpected_count" in found:
        text = f"{found['unexpected_count']} unexpected of {found.get('element_count')}"
        sample = found.get("partial_unexpected_list") or []
        if sample:
            text += "; e.g. " + ", ".join(str(value) for value in sample[:SAMPLE_VALUES])
        return text
    return "ok" if result.success else "failed"


def _format_row(row: tuple[Any, ...]) -> str:
    """A short printable form of one SQL result row."""
    return ", ".join("NULL" if value is None else str(value) for value in row)
