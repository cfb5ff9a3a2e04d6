"""Data Docs: one self-contained page of a release's expectation results."""

from __future__ import annotations

import html.parser

from gopat.effects.report.datadocs import render_datadocs
from gopat.effects.warehouse.layout import Layout
from tests.effects.warehouse.releases import publish_tables


class _Page(html.parser.HTMLParser):
    """Collects tags, attributes and text of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str | None]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes.extend(attrs)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_data_docs_are_self_contained_and_show_every_outcome(layout: Layout) -> None:
    version = publish_tables(layout, games=5, content="1" * 12)
    page = (layout.release_dir(version) / "datadocs" / "index.html").read_text()
    failing = {
        "version": "0009-999999999999",
        "expectations": {"pattern_stats": {"table": "pattern_stats", "success": False, "evaluated": 2, "failed": 1,
                                           "outcomes": [
                                               {"expectation": "chosen_at_most_occurrence", "success": False,
                                                "details": "violations=3: e.g. <1, 2>"},
                                               {"expectation": "keys_unique", "success": True, "details": "ok"}]}},
    }
    for document, expected in ((page, ["games_rows_match", "moves_rows_match", "every expectation passed"]),
                               (render_datadocs(failing), ["chosen_at_most_occurrence", "FAILED",
                                                           "violations=3: e.g. <1, 2>", "must not be published"])):
        parser = _Page()
        parser.feed(document)
        assert not {"script", "link", "img", "iframe", "object", "embed"} & set(parser.tags)
        assert "style" in parser.tags
        for name, value in parser.attributes:
            assert name != "src"
            if name == "href":
                assert value.startswith("#")
        assert ("content", "default-src 'none'; style-src 'unsafe-inline'") in parser.attributes
        assert "http://" not in document and "https://" not in document and "url(" not in document
        text = "".join(parser.text)
        assert all(snippet in text for snippet in expected), expected
