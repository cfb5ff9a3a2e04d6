"""README.md is a short front page: at most 150 lines, the two commands (`make release`, `make test`) first, and
links that lead somewhere."""

from __future__ import annotations

import re

from tests.docs.release import REPO

README = REPO / "README.md"
MAX_LINES = 150
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", flags=re.MULTILINE | re.DOTALL)
LINK = re.compile(r"\]\(([^)\s]+)\)")


def commands(block: str) -> list[str]:
    """The command lines of a code block, without comments."""
    return [line.split("#", 1)[0].strip() for line in block.splitlines() if line.split("#", 1)[0].strip()]


def test_the_readme_has_at_most_150_lines() -> None:
    lines = README.read_text().splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines; move detail into docs/"


def test_the_readme_starts_with_make_release_and_make_test() -> None:
    text = README.read_text()
    first = FENCE.search(text)
    assert first, "README.md has no code block"
    assert "\n## " not in text[: first.start()], "the commands come before the first section"
    assert commands(first.group(1))[:2] == ["make release", "make test"]
    assert "make setup" in text, "the quick start mentions make setup"


def test_the_readme_links_to_files_that_exist() -> None:
    text = README.read_text()
    anchors = {re.sub(r"[^\w\s-]", "", line[3:]).strip().lower().replace(" ", "-")
               for line in text.splitlines() if line.startswith("## ")}
    for target in LINK.findall(text):
        if target.startswith(("http://", "https://")):
            continue
        path, _, anchor = target.partition("#")
        if path:
            assert (REPO / path).is_file(), f"README.md links to {target}, which does not exist"
        else:
            assert anchor in anchors, f"README.md links to #{anchor}, which is no section of it"


def test_the_link_check_reads_links_as_written() -> None:
    """The link check reads Markdown links as written (a guard against a check that matches nothing)."""
    assert LINK.findall("see [the docs](docs/start-go.md) and [x](#set-up).") == ["docs/start-go.md", "#set-up"]
