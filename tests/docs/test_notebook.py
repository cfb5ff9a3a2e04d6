"""The documentation describes the product, not its development: README.md, the pages of docs/, CHANGELOG.md and
mkdocs.yml name no work session, no issue number and no commit hash, and the code names no work session or issue
number in its comments. Measurements with their commits and dates belong in BENCHMARKS.md, which is not checked."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.docs.release import REPO

CODE_FOLDERS = ("api", "cli", "effects", "expectations", "flows", "transforms", "bench")

SESSION = re.compile(r"\bsessions?\b", flags=re.IGNORECASE)
ISSUE = re.compile(r"\b(?:issues?|tickets?)\s*#?\d+|(?<![\w&#/.])#\d+\b(?![\w-])", flags=re.IGNORECASE)
# A commit hash: 7 to 40 lowercase hex digits as a word, with at least one digit and one letter. Not one: a
# release version (NNNN-<12 hex>), a game id's source prefix (<12 hex>:<member>), a sha256 digest (64 hex), a
# UUID (Prefect's ids).
HEX_WORD = re.compile(r"\b[0-9a-f]{7,40}\b")
NOT_A_COMMIT = re.compile(r"\b\d{4}-[0-9a-f]{12}\b|\b[0-9a-f]{12}:|\b[0-9a-f]{64}\b"
                          r"|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
CODE_NOTE = re.compile(r"\b(?:sessions?|issues?)\s+#?\d+", flags=re.IGNORECASE)


def documents() -> list[Path]:
    """The files of the front page and the documentation site."""
    return [REPO / "README.md", REPO / "CHANGELOG.md", REPO / "mkdocs.yml", *sorted((REPO / "docs").glob("*.md"))]


def commit_hashes(line: str) -> list[str]:
    """The words of `line` that look like commit hashes."""
    words = HEX_WORD.findall(NOT_A_COMMIT.sub(" ", line))
    return [word for word in words if re.search(r"\d", word) and re.search(r"[a-f]", word)]


def findings(text: str) -> list[str]:
    """`line number: what: line` for every session, issue reference or commit hash in `text`."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        if SESSION.search(line):
            found.append(f"{number}: session: {line.strip()}")
        if ISSUE.search(line):
            found.append(f"{number}: issue reference: {line.strip()}")
        if hashes := commit_hashes(line):
            found.append(f"{number}: commit hash {', '.join(hashes)}: {line.strip()}")
    return found


@pytest.mark.parametrize("path", documents(), ids=lambda path: str(path.relative_to(REPO)))
def test_a_document_names_no_session_issue_or_commit(path: Path) -> None:
    found = findings(path.read_text())
    assert not found, f"{path.relative_to(REPO)}:\n" + "\n".join(found)


def test_the_code_names_no_session_or_issue_number() -> None:
    found = []
    for folder in CODE_FOLDERS:
        for path in sorted((REPO / folder).rglob("*")):
            if path.suffix in {".py", ".sql"} and path.is_file():
                found += [f"{path.relative_to(REPO)}:{number}: {line.strip()}"
                          for number, line in enumerate(path.read_text().splitlines(), start=1)
                          if CODE_NOTE.search(line)]
    assert not found, "\n".join(found)


@pytest.mark.parametrize(("line", "kind"), [
    ("Measured in session 18.", "session"),
    ("Sessions keep their logs.", "session"),
    ("The target of issue 24 is met.", "issue reference"),
    ("fixed (#41)", "issue reference"),
    ("at commit 416bafe, the build", "commit hash"),
    ("release 0001-d5f057ed6185 at d5f057ed6185", "commit hash"),
])
def test_the_checks_find_what_they_look_for(line: str, kind: str) -> None:
    assert any(f": {kind}" in finding for finding in findings(line)), line


@pytest.mark.parametrize("line", [
    "release 0001-d5f057ed6185 (current)",
    "ebbf136f720a:pro-sample/cwi/Agon/02/8.sgf  Kato Masao (B)",
    "sha256 ebbf136f720a06b6564fab4f9c5979b9ad3ac60f5c32b3c0b0f3020cc23eae85",
    "[16 from 8](symmetry.md#16-from-8), the 1,000,000 members, key 100001020100000000303030000",
    "## 21. Search or SQL?",
    "│ 01a223b5-653b-74e3-9cc9-520cf4708664 │ scheduled-build │",
])
def test_the_checks_let_versions_game_ids_digests_and_anchors_pass(line: str) -> None:
    assert findings(line) == []
