"""Offline Data Docs: one self-contained HTML page of a release's expectation results.

Great Expectations' own Data Docs pages load Bootstrap, jQuery, Font Awesome and Vega from CDNs;
the package ships only a 3.7 kB stylesheet that assumes Bootstrap, so inlining what it ships would
still render unstyled pages offline. The page is therefore rendered here from the results the
release's manifest already carries (`expectations`, one suite result per published table): inline
CSS, no script, no image, no external link, and a Content-Security-Policy that forbids the browser
any fetch, so what is published looks the same with the network off.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from pathlib import Path
from typing import Any

PAGE = "index.html"
CSS = """
body{font-family:"DejaVu Sans",Arial,sans-serif;margin:0;color:#222;background:#f7f7f5}
header{background:#22313f;color:#fff;padding:1em 1.5em}header h1{margin:0 0 .3em;font-size:1.5em}
header dl{display:grid;grid-template-columns:max-content auto;gap:.15em 1em;margin:0;font-size:.9em}
header dt{color:#b8c7d6}header dd{margin:0;font-family:"DejaVu Sans Mono",monospace}
main{max-width:1200px;margin:0 auto;padding:1em 1.5em}
table{border-collapse:collapse;width:100%;margin:.5em 0 1.5em;background:#fff}
th,td{border:1px solid #ddd;padding:.3em .6em;text-align:left;vertical-align:top}th{background:#eef1f4}
td.n{text-align:right;font-variant-numeric:tabular-nums}
td.detail{font-family:"DejaVu Sans Mono",monospace;font-size:.85em;word-break:break-word}
.ok{color:#1b6e2e;font-weight:bold}.fail{color:#b3261e;font-weight:bold}
tr.failed td{background:#fdecea}
.verdict{font-size:1.2em;padding:.5em .8em;border-radius:4px;display:inline-block}
.verdict.ok{background:#e3f4e6}.verdict.fail{background:#fdecea}
details{background:#fff;border:1px solid #ddd;border-radius:4px;margin:.6em 0;padding:.4em .8em}
summary{cursor:pointer;font-weight:bold}
"""


def render_datadocs(manifest: Mapping[str, Any]) -> str:
    """The HTML page of `manifest`'s expectation results (every suite, every outcome, with evidence)."""
    results: Mapping[str, Mapping[str, Any]] = manifest.get("expectations") or {}
    rows = manifest.get("row_counts") or {}
    passed = bool(results) and all(result.get("success") for result in results.values())
    facts = [
        ("version", manifest.get("version", "")),
        ("created", manifest.get("created", "")),
        ("code version", manifest.get("code_version", "")),
        ("content hash", manifest.get("content_hash", "")),
        *(("source", f"{s.get('source')} (sha256 {s.get('sha256')})") for s in manifest.get("sources", [])),
    ]
    summary = "".join(
        f'<tr class="{"" if result.get("success") else "failed"}"><td><a href="#suite-{escape(table)}">'
        f"{escape(table)}</a></td><td>{_status(result.get('success'))}</td>"
        f'<td class="n">{rows.get(table, "")}</td><td class="n">{result.get("evaluated", 0)}</td>'
        f'<td class="n">{result.get("failed", 0)}</td></tr>'
        for table, result in results.items()
    )
    sections = "".join(_suite(table, result) for table, result in results.items())
    verdict = (
        '<p class="verdict ok">every expectation passed</p>'
        if passed
        else '<p class="verdict fail">expectations failed: this release must not be published</p>'
    )
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Data Docs {escape(str(manifest.get('version', '')))}</title><style>{CSS}</style></head><body>"
        f"<header><h1>Validation results of release {escape(str(manifest.get('version', '')))}</h1><dl>"
        + "".join(f"<dt>{escape(name)}</dt><dd>{escape(str(value))}</dd>" for name, value in facts)
        + f"</dl></header><main>{verdict}<h2>Suites</h2><table><thead><tr><th>table</th><th>status</th>"
        '<th class="n">rows</th><th class="n">expectations</th><th class="n">failed</th></tr></thead>'
        f"<tbody>{summary}</tbody></table><h2>Expectations per table</h2>{sections}</main></body></html>\n"
    )


def write_datadocs(manifest: Mapping[str, Any], folder: Path) -> list[Path]:
    """Write the Data Docs of `manifest` into `folder`; returns the files written."""
    folder.mkdir(parents=True, exist_ok=True)
    page = folder / PAGE
    page.write_text(render_datadocs(manifest), encoding="utf-8")
    return [page]


def _suite(table: str, result: Mapping[str, Any]) -> str:
    """A collapsible section with one row per outcome (open when the suite failed)."""
    outcomes = "".join(
        f'<tr class="{"" if outcome.get("success") else "failed"}"><td>{_status(outcome.get("success"))}</td>'
        f"<td>{escape(str(outcome.get('expectation', '')))}</td>"
        f'<td class="detail">{escape(str(outcome.get("details", "")))}</td></tr>'
        for outcome in result.get("outcomes", [])
    )
    state = "" if result.get("success") else " open"
    return (
        f'<details id="suite-{escape(table)}"{state}><summary>{escape(table)}: {_status(result.get("success"))}, '
        f"{result.get('evaluated', 0)} expectations, {result.get('failed', 0)} failed</summary>"
        "<table><thead><tr><th>status</th><th>expectation</th><th>observed</th></tr></thead>"
        f"<tbody>{outcomes}</tbody></table></details>"
    )


def _status(success: object) -> str:
    return '<span class="ok">passed</span>' if success else '<span class="fail">FAILED</span>'
