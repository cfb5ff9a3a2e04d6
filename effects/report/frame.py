"""The report's page frame and building blocks: the HTML of a page, tables, cards, panels and charts.

Every page is one self-contained file: CSS inline, charts as inline SVG drawn by matplotlib.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any, Literal

import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

CHART_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")

_CSS = """
body{font-family:"DejaVu Sans",Arial,sans-serif;margin:0;color:#222;background:#faf8f3}
nav{background:#2b2118;padding:.6em 1.2em}nav a{color:#f3e2bd;margin-right:1.2em;text-decoration:none}
nav a.here{color:#fff;font-weight:bold}
main{max-width:1180px;margin:0 auto;padding:1em 1.2em}h1{font-size:1.6em}h2{margin-top:1.6em}
table{border-collapse:collapse;margin:.6em 0}td,th{border-bottom:1px solid #ddd;padding:.25em .7em;text-align:left}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
.cards{display:flex;flex-wrap:wrap;gap:14px}
.card{background:#fff;border:1px solid #e2dccf;border-radius:6px;padding:8px;display:flex;flex-direction:column;
align-items:center}
.card dl{display:grid;grid-template-columns:auto auto;gap:0 .6em;margin:.4em 0 0;font-size:.85em}
.card dt{color:#666}.card dd{margin:0;text-align:right;font-variant-numeric:tabular-nums}
code,.key{font-family:"DejaVu Sans Mono",monospace;font-size:.78em;word-break:break-all;max-width:260px}
.chart{max-width:100%;height:auto}.note{color:#555;font-size:.9em;max-width:60em}
.node{display:none}.node:target{display:block}main:not(:has(.node:target)) #n0{display:block}
.explorer{display:flex;gap:20px;flex-wrap:wrap;align-items:flex-start}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(500px,1fr));gap:0 28px}.grid .wide{grid-column:1/-1}
.panel h2{margin-top:.9em}
footer{color:#777;font-size:.8em;padding:1em 1.2em}
"""


def page(title: str, body: str, *, name: str, nav: Sequence[tuple[str, str]], manifest: Mapping[str, Any]) -> str:
    """A whole HTML page: navigation (``name`` marked as here), ``body`` and the release in the footer."""
    links = "".join(f'<a href="{href}"{" class=here" if href == name else ""}>{escape(label)}</a>'
                    for href, label in nav)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<link rel="icon" href="data:,"><title>{escape(title)} - gopat {escape(manifest["version"])}</title>'
        f"<style>{_CSS}</style></head><body><nav>{links}</nav><main><h1>{escape(title)}</h1>{body}</main>"
        f'<footer>Release {escape(manifest["version"])}, created {escape(manifest["created"])}, code '
        f'{escape(manifest["code_version"])}; made by <code>gopat report</code>.</footer></body></html>\n'
    )


def number(value: float | None) -> str:
    """An integer with thousands separators, or '-'."""
    return "-" if value is None else f"{int(value):,}"


def percent(value: float | None) -> str:
    """A rate as a percentage with one decimal, or '-'."""
    return "-" if value is None else f"{value:.1%}"


def table(headers: Sequence[str], rows: Sequence[Sequence[object]], numeric: Sequence[bool]) -> str:
    """An HTML table; cells are HTML already, ``numeric`` columns are right-aligned."""
    head = "".join(f'<th{" class=n" if n else ""}>{escape(h)}</th>' for h, n in zip(headers, numeric, strict=True))
    body = "".join(
        "<tr>" + "".join(f'<td{" class=n" if n else ""}>{cell}</td>' for cell, n in zip(row, numeric, strict=True))
        + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def card(diagram: str, caption: str, facts: Sequence[tuple[str, str]]) -> str:
    """A diagram with a caption and a list of facts."""
    items = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in facts)
    return f'<div class="card">{diagram}<div class="key">{escape(caption)}</div><dl>{items}</dl></div>'


def panel(title: str, content: str, *, wide: bool = False) -> str:
    """A titled section of a page's grid (``wide``: the whole row)."""
    return f'<section class="panel{" wide" if wide else ""}"><h2>{escape(title)}</h2>{content}</section>'


def chart(figure: Figure, name: str) -> str:
    """A matplotlib figure as inline SVG (class ``chart``), text kept as text, ids salted by ``name``."""
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": name}):
        figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg"):]
    return svg.replace("<svg ", f'<svg class="chart" data-chart="{escape(name)}" ', 1)


def figure(width: float = 8.0, height: float = 3.0, *, counts: Literal["x", "y"] = "y") -> tuple[Figure, Axes]:
    """A figure with one plot whose ``counts`` axis ('x' or 'y') has a grid and integer ticks."""
    new = Figure(figsize=(width, height))
    axes = new.add_subplot()
    axes.spines[["top", "right"]].set_visible(False)
    axes.grid(axis=counts, color="#ddd", linewidth=0.6)
    axes.set_axisbelow(True)
    (axes.xaxis if counts == "x" else axes.yaxis).set_major_locator(MaxNLocator(integer=True))
    return new, axes
