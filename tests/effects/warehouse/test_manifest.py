"""A build's inputs checked once, and its manifest built once from the checked facts and what the build measured."""

from __future__ import annotations

from pathlib import Path

import pytest

from gopat.effects.warehouse.fetch import Fetched
from gopat.effects.warehouse.manifest import Ingest, build_config, check_inputs, checked_facts, release_manifest
from gopat.transforms.tables.format import FORMAT
from gopat.transforms.tables.registry import TABLES


def _inputs(source: Path, **changes: object) -> dict[str, object]:
    inputs: dict[str, object] = {"sources": [str(source)], "expected_sha256": [], "families": ["d12", "sq5"],
                                 "min_occurrence": {}, "event_families": ["d12"]}
    return inputs | changes


@pytest.mark.parametrize(("changes", "message"), [
    ({"sources": []}, "no source given"),
    ({"sources": ["no/such.tar.gz"]}, "no/such.tar.gz: no such file or folder"),
    ({"expected_sha256": ["a" * 64, "b" * 64]}, "more expected sha256 values (2) than sources (1)"),
    ({"families": ["d12", "sq7"]}, "unknown pattern families ['sq7']"),
    ({"event_families": ["blk4"]}, "not blk4"),
    ({"min_occurrence": {"sq5": 0}}, "sq5"),
    ({"min_occurrence": {"dia13": 2}}, "dia13"),
])
def test_bad_inputs_are_refused_with_one_line(tmp_path: Path, changes: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=r"^[^\n]+$") as refused:
        check_inputs(**_inputs(tmp_path, **changes))
    assert message in str(refused.value)


def test_good_inputs_pass(tmp_path: Path) -> None:
    check_inputs(**_inputs(tmp_path, expected_sha256=[None], min_occurrence={"sq5": 3}))


def test_the_manifest_is_the_checked_facts_and_what_the_build_measured(tmp_path: Path) -> None:
    config = build_config(families=["sq5", "d12"], min_occurrence={}, event_families=["d12", "blk4"],
                          fuseki_moves=10, template_families=["sq3"], template_min_occurrence=5, game_counts_moves=12)
    fetched = [Fetched(source="a.tar.gz", path=tmp_path / "a.tar.gz", sha256="0" * 64)]
    ingest = Ingest(files_in=3, files_ingested=2, files_rejected=1, games=2, trees_in=2)
    facts = checked_facts(code="c" * 12, content="d" * 12, config=config, fetched=fetched, ingest=ingest,
                          chosen={"d12": 7, "sq5": 9}, incremental=None)
    assert facts["format"] == FORMAT and set(facts["schema"]) == set(TABLES)
    assert facts["config"]["families"] == ["d12", "sq5"] and facts["config"]["event_families"] == ["d12"]
    assert facts["families"] == {"d12": {"chosen_events": 7}, "sq5": {"chosen_events": 9}}
    assert facts["ingest"]["games"] == 2 and facts["sources"] == [{"source": "a.tar.gz", "sha256": "0" * 64}]
    runs = [{"version": "0001-aaaaaaaaaaaa", "sha256": "e" * 64, "bytes": 10}]
    manifest = release_manifest(facts, runs=runs, row_counts={"games": 2}, expectations={"games": {}},
                                timings={"ingest": 1.0}, ingest_cpu={"parse_cpu": 0.5})
    assert {key: manifest[key] for key in facts} == facts
    assert manifest["state"] == {"runs": runs} and manifest["row_counts"] == {"games": 2}
    assert manifest["timings"] == {"ingest": 1.0} and manifest["ingest_cpu"] == {"parse_cpu": 0.5}
    assert "version" not in manifest and "files" not in manifest  # publish adds them
