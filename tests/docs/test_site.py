"""The documentation site builds from docs/ with `mkdocs build --strict` (mkdocs.yml), as `make docs` runs it: a
broken link or anchor, a page of docs/ missing from the nav, or a nav entry without its page fails the build."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.docs.release import REPO

NAV_PAGE = re.compile(r"^\s*- (?:[^:\n]+: )?([\w-]+\.md)\s*$", flags=re.MULTILINE)


def build_site(site: Path) -> subprocess.CompletedProcess[str]:
    """`mkdocs build --strict` of the repository's docs into `site`, with the virtual environment's mkdocs."""
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=REPO, capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},  # material's notice about mkdocs' future, not a warning
    )


def test_the_site_builds_strictly_with_every_page_in_the_nav(tmp_path: Path) -> None:
    done = build_site(tmp_path / "site")
    assert done.returncode == 0, done.stderr[-4000:]
    nav = NAV_PAGE.findall((REPO / "mkdocs.yml").read_text())
    pages = sorted(path.name for path in (REPO / "docs").glob("*.md"))
    assert sorted(nav) == pages, "every page of docs/ is in the nav of mkdocs.yml, once"
    assert all((tmp_path / "site" / page.replace(".md", ".html")).is_file() for page in pages)
    changelog = (tmp_path / "site" / "changelog.html").read_text()
    assert "Release format 2" in changelog, "the changelog page includes CHANGELOG.md"
