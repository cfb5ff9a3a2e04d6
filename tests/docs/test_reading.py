"""docs/releases.md#reading-the-files runs: each ```python block reads a release's Parquet files without DuckDB and
computes the derived columns, from a folder whose `warehouse` is the session's tiny release."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.docs.release import REPO, run_example, tiny_release

pytestmark = pytest.mark.slow


def examples() -> list[str]:
    """The python blocks of the section "Reading the files" of docs/releases.md."""
    section = (REPO / "docs" / "releases.md").read_text().split("## Reading the files\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```\n", section, flags=re.DOTALL)


def test_the_section_has_a_polars_and_a_pandas_example() -> None:
    found = examples()
    assert len(found) == 2 and "import polars" in found[0] and "import pandas" in found[1]


@pytest.mark.parametrize(("code", "printed"), list(zip(examples(), [("chosen_rate", "stones", "to move"), ("point",)],
                                                          strict=True)), ids=["polars", "pandas"])
def test_an_example_prints_the_derived_columns(code: str, printed: tuple[str, ...], shared_dir: Path,
                                               tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    stdout = run_example(code, tiny_release(tmp_path_factory, shared_dir), tmp_path)
    assert all(word in stdout for word in printed), stdout
