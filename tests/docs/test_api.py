"""docs/api.md runs: each ```python block, from a folder whose `warehouse` is the session's tiny release, prints
what its documented output shows, with tiny's own figures."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.docs.release import REPO, run_example, tiny_release

pytestmark = pytest.mark.slow


def examples() -> list[tuple[str, str]]:
    """(code, documented output) of each ```python block of docs/api.md followed by a ```text block."""
    page = (REPO / "docs" / "api.md").read_text()
    return re.findall(r"```python\n(.*?)```\n.*?```text\n(.*?)```\n", page, flags=re.DOTALL)


def _words(text: str) -> set[str]:
    """The words of an output that do not depend on the release: names, types and labels, not diagram rows."""
    return {word for word in re.findall(r"[A-Za-z_]{3,}", text) if set(word) - {"X", "O"}}


def test_the_page_has_three_examples_with_outputs() -> None:
    assert len(examples()) == 3


@pytest.mark.parametrize(("code", "documented"), examples(), ids=["open", "polars", "comments"])
def test_an_example_prints_its_documented_columns(code: str, documented: str, shared_dir: Path,
                                                  tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    warehouse = tiny_release(tmp_path_factory, shared_dir)
    version = (warehouse / "releases" / "CURRENT").read_text().strip()
    printed = run_example(code, warehouse, tmp_path).replace(version, "0001-d5f057ed6185")
    assert _words(documented) <= _words(printed), sorted(_words(documented) - _words(printed))
