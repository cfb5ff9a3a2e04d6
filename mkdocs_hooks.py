"""A hook of the documentation site (mkdocs.yml `hooks`).

A page of docs/ may link to the repository's changelog as `../CHANGELOG.md`, which works where the Markdown is
read as files (docs/tables.md is generated that way). The site has that file as its page changelog.md
(docs/changelog.md includes it), so such links are pointed there before mkdocs checks them.
"""

from __future__ import annotations

import re

_CHANGELOG_LINK = re.compile(r"\]\(\.\./CHANGELOG\.md(#[^)\s]*)?\)")


def on_page_markdown(markdown: str, **_: object) -> str:
    """The page's Markdown with `](../CHANGELOG.md...)` links turned into `](changelog.md...)`."""
    return _CHANGELOG_LINK.sub(lambda link: f"](changelog.md{link.group(1) or ''})", markdown)
