"""The artifacts of a build run: the summary and the Data Docs link."""

from __future__ import annotations

from pathlib import Path

from gopat.flows.artifacts import data_docs_link, summary_markdown


def test_summary_says_published_or_nothing_new() -> None:
    manifest = {
        "version": "0003-0123456789ab", "sources": [{"source": "s.tar.gz", "sha256": "f" * 64}],
        "ingest": {"files_in": 10, "files_ingested": 8, "files_rejected": 2, "games": 7, "duplicates": 1,
                   "trees_in": 9, "trees_rejected": 1},
        "timings": {"ingest": 1.25},
    }
    published = summary_markdown(manifest, published=True)
    assert "Published release **0003-0123456789ab**." in published
    assert "| 10 | 8 | 2 | 7 | 1 | 0003-0123456789ab |" in published
    equations = "files in 10 = ingested 8 + rejected 2; trees in 9 = games 7 + duplicates 1 + rejected 1 (holds)"
    assert equations in published
    assert "ingest 1.2" in published
    quiet = summary_markdown(manifest, published=False)
    assert "**Nothing new**" in quiet and "nothing was published" in quiet and "Published" not in quiet
    broken = summary_markdown({**manifest, "ingest": {**manifest["ingest"], "files_rejected": 1}}, published=True)
    assert "(BROKEN)" in broken


def test_data_docs_link_prefers_the_index_page_and_falls_back_to_the_folder(tmp_path: Path) -> None:
    release = tmp_path / "0001-0123456789ab"
    release.mkdir()
    assert data_docs_link(release) == release.resolve().as_uri()
    (release / "datadocs").mkdir()
    (release / "datadocs" / "suite.html").write_text("<html></html>")
    assert data_docs_link(release) == (release / "datadocs" / "suite.html").resolve().as_uri()
    (release / "datadocs" / "index.html").write_text("<html></html>")
    assert data_docs_link(release) == (release / "datadocs" / "index.html").resolve().as_uri()
