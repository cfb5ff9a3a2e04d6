"""`gopat report` rendered in headless Chromium over the DevTools protocol: no console errors, no
network, the expected SVG diagrams, a working opening explorer, and screenshots."""

from __future__ import annotations

import base64
import io
import json
import shutil
import subprocess
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from PIL import Image
from websockets.sync.client import connect

from gopat.cli.main import main
from gopat.transforms.patterns.families import DEFAULT_FAMILIES
from tests.docs.release import tiny_release

pytestmark = pytest.mark.slow
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
TOP = 12  # --top given to the report
RATE_FLOOR = 1000  # ReportOptions.rate_min_occurrence (default)
BOARD_RGB = (0xDC, 0xB3, 0x5C)  # the wood colour of every diagram


class Browser:
    """One headless Chromium page driven over the DevTools protocol; events are kept in order."""

    def __init__(self, profile: Path) -> None:
        self.process = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--hide-scrollbars", f"--user-data-dir={profile}", "--remote-debugging-port=0",
             "--window-size=1280,900", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not (port_file.is_file() and port_file.read_text().strip()):
            assert time.monotonic() < deadline and self.process.poll() is None, "chromium did not start"
            time.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30) as answer:
            page = next(t for t in json.load(answer) if t["type"] == "page")
        self.socket = connect(page["webSocketDebuggerUrl"], max_size=None, open_timeout=30)
        self.next_id = 0
        self.events: list[dict] = []
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")

    def _receive(self) -> dict:
        message = json.loads(self.socket.recv(timeout=60))
        if "id" not in message:
            self.events.append(message)
        return message

    def call(self, method: str, **params: object) -> dict:
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = self._receive()
            if message.get("id") == self.next_id:
                assert "error" not in message, (method, message["error"])
                return message["result"]

    def evaluate(self, expression: str) -> object:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        assert "exceptionDetails" not in result, result["exceptionDetails"]
        return result["result"].get("value")

    def open(self, url: str) -> None:
        """Navigate and wait for the load event."""
        self.events.clear()
        self.call("Page.navigate", url=url)
        while not any(e["method"] == "Page.loadEventFired" for e in self.events):
            self._receive()

    def problems(self) -> list[str]:
        """Console errors, uncaught exceptions, error log entries and failed loads since the last open."""
        found = []
        for event in self.events:
            method, params = event["method"], event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert", "warning"):
                found.append(f"console {params['type']}: {params['args']}")
            elif method == "Runtime.exceptionThrown":
                found.append(f"exception: {params['exceptionDetails']}")
            elif method == "Log.entryAdded" and params["entry"]["level"] in ("error", "warning"):
                found.append(f"log: {params['entry']}")
            elif method == "Network.loadingFailed":
                found.append(f"failed load: {params}")
        return found

    def requested(self) -> list[str]:
        return [e["params"]["request"]["url"] for e in self.events if e["method"] == "Network.requestWillBeSent"]

    def click(self, selector: str) -> None:
        """A real mouse click in the middle of the first element matching ``selector``."""
        box = self.evaluate(f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
                            "e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
                            "return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        x, y = box
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def screenshot(self, path: Path, *, full_page: bool = False) -> Image.Image:
        params: dict[str, object] = {"format": "png"}
        if full_page:
            size = self.call("Page.getLayoutMetrics")["cssContentSize"]
            params |= {"captureBeyondViewport": True,
                       "clip": {"x": 0, "y": 0, "width": 1280, "height": min(size["height"], 6000), "scale": 1}}
        data = base64.b64decode(self.call("Page.captureScreenshot", **params)["data"])
        path.write_bytes(data)
        return Image.open(io.BytesIO(data)).convert("RGB")

    def close(self) -> None:
        self.socket.close()
        self.process.terminate()
        self.process.wait(timeout=30)


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory, shared_dir: Path) -> Path:
    return tiny_release(tmp_path_factory, shared_dir)


@pytest.fixture(scope="module")
def catalog(warehouse: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    con = duckdb.connect(str(warehouse / "catalog.duckdb"), read_only=True)
    con.execute("USE current")
    yield con
    con.close()


@pytest.fixture(scope="module")
def report(warehouse: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    output = tmp_path_factory.mktemp("report")
    assert main(["report", "--warehouse", str(warehouse), "-o", str(output), "--top", str(TOP)]) == 0
    return output


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    browser = Browser(tmp_path_factory.mktemp("chromium-profile"))
    yield browser
    browser.close()


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("screenshots")


def load(browser: Browser, page: Path) -> None:
    """Open a report page from disk and check it loaded cleanly without touching the network."""
    assert page.is_file()
    browser.open(page.as_uri())
    assert browser.problems() == []
    assert all(url.startswith(("file:", "data:")) for url in browser.requested()), browser.requested()
    assert browser.evaluate("document.readyState") == "complete"


def count(browser: Browser, selector: str) -> int:
    return browser.evaluate(f"document.querySelectorAll({json.dumps(selector)}).length")


def painted(image: Image.Image, rgb: tuple[int, int, int]) -> int:
    """Pixels of exactly one colour (the diagrams' wood) in a screenshot."""
    return sum(n for n, colour in image.getcolors(maxcolors=1 << 24) if colour == rgb)


def test_index_page(browser: Browser, report: Path, catalog: duckdb.DuckDBPyConnection, screenshots: Path) -> None:
    load(browser, report / "index.html")
    families = catalog.execute("SELECT count(DISTINCT family) FROM pattern_stats WHERE symmetry = 8").fetchone()[0]
    assert count(browser, "svg.diagram.pattern") == families
    assert count(browser, "svg.chart") == 3  # games per year, game length, rejects by reason
    reasons = catalog.execute("SELECT count(DISTINCT reason) FROM rejects").fetchone()[0]
    assert reasons > 0
    assert count(browser, "svg.chart[data-chart='rejects-by-reason'] + table tbody tr") == reasons
    image = browser.screenshot(screenshots / "index.png", full_page=True)
    assert image.width == 1280 and painted(image, BOARD_RGB) > 1000
    links = browser.evaluate("[...document.querySelectorAll('nav a')].map(a => a.getAttribute('href'))")
    for link in links:
        assert (report / link).is_file()


@pytest.mark.parametrize("family", DEFAULT_FAMILIES)
def test_pattern_page(browser: Browser, report: Path, catalog: duckdb.DuckDBPyConnection, screenshots: Path,
                      family: str) -> None:
    load(browser, report / f"patterns-{family}.html")
    most = [k for (k,) in catalog.execute(
        "SELECT key FROM pattern_stats WHERE family = ? AND symmetry = 8 ORDER BY chosen DESC, key LIMIT ?",
        [family, TOP]).fetchall()]
    rate = [k for (k,) in catalog.execute(
        "SELECT key FROM pattern_stats WHERE family = ? AND symmetry = 8 AND occurrence >= ? "
        "ORDER BY chosen / occurrence DESC, occurrence DESC, key LIMIT ?", [family, RATE_FLOOR, TOP]).fetchall()]
    assert len(most) == TOP
    drawn = browser.evaluate("[...document.querySelectorAll('svg.diagram.pattern')].map(s => s.dataset.pattern)")
    assert drawn == most + rate
    sizes = browser.evaluate("[...document.querySelectorAll('svg.diagram')].map(s => s.getBoundingClientRect().width)")
    assert min(sizes) > 50
    stones = sum(sum(ch in "12" for ch in key[1:1 + len(key) // (2 if family == "d12" else 1)]) for key in most + rate)
    assert count(browser, "svg.diagram circle.stone") == stones
    assert count(browser, "svg.chart") == 1
    image = browser.screenshot(screenshots / f"patterns-{family}.png", full_page=True)
    assert painted(image, BOARD_RGB) > 20_000


@pytest.mark.parametrize("family", ["d12", "dia13", "sq3"])  # the default move_patterns families
def test_pattern_events_page(browser: Browser, report: Path, catalog: duckdb.DuckDBPyConnection, family: str) -> None:
    load(browser, report / f"moves-{family}.html")
    events = catalog.execute(
        "SELECT e.key8, e.game_id, CASE e.colour WHEN 'B' THEN g.pb ELSE g.pw END FROM move_patterns e "
        "JOIN games g USING (game_id) WHERE e.family = ?", [family]).fetchall()
    played = Counter(key for key, _, _ in events)
    top = sorted(played, key=lambda key: (-played[key], key))[:6]
    assert browser.evaluate("[...document.querySelectorAll('svg.diagram.pattern')].map(s => s.dataset.pattern)") == top
    chosen = dict(catalog.execute("SELECT key, chosen FROM pattern_stats WHERE family = ? AND symmetry = 8 "
                                  "AND list_contains(?, key)", [family, top]).fetchall())
    assert {key: played[key] for key in top} == chosen  # each row of move_patterns is one chosen event
    assert count(browser, f"svg.chart[data-chart='moves-{family}-per-year']") == 1
    players = Counter((key, player) for key, _, player in events if key == top[0] and player is not None)
    most = max(players.values())
    cells = browser.evaluate("[...document.querySelectorAll('tbody tr')].map(tr => "
                             "[...tr.querySelectorAll('td')].map(td => td.textContent))")
    first = [row for row in cells if row[0] == "1"]
    assert 1 <= len(first) <= 3 and int(first[0][2]) == most
    assert {row[1] for row in first} <= {player for (_, player), n in players.items() if n >= int(first[-1][2])}


def test_templates_and_fuseki_pages(browser: Browser, report: Path, catalog: duckdb.DuckDBPyConnection) -> None:
    load(browser, report / "templates.html")
    expected = catalog.execute(
        "SELECT sum(least(n, 12)) FROM (SELECT count(*) AS n FROM dont_care_templates GROUP BY family, symmetry)"
    ).fetchone()[0]
    assert expected > 0 and count(browser, "svg.diagram.pattern") == expected
    wildcards = catalog.execute("""
        SELECT sum(wildcards) FROM (SELECT wildcards, row_number() OVER (
            PARTITION BY family, symmetry ORDER BY occurrence DESC, template) AS rank FROM dont_care_templates)
        WHERE rank <= 12
    """).fetchone()[0]
    assert count(browser, "svg.diagram circle.wildcard") == wildcards

    load(browser, report / "fuseki.html")
    sequences = catalog.execute("SELECT key FROM fuseki WHERE kind = 'sequence' ORDER BY games DESC, key LIMIT 12")
    keys = [k for (k,) in sequences.fetchall()]
    assert count(browser, "svg.diagram.board") == len(keys) == 12
    assert count(browser, "svg.diagram.board circle.stone") == sum(len(k.split()) for k in keys)
    assert count(browser, "svg.chart[data-chart='fuseki-per-year']") == 1


def test_opening_explorer_click_shows_the_continuations(browser: Browser, report: Path,
                                                        catalog: duckdb.DuckDBPyConnection,
                                                        screenshots: Path) -> None:
    load(browser, report / "openings.html")
    sections = count(browser, "section.node")
    assert 1 < sections <= 400
    assert count(browser, "section.node svg.diagram.board") == sections
    dangling = browser.evaluate(
        "[...document.querySelectorAll('a[href^=\"#\"]')].filter(a => !document.getElementById("
        "a.getAttribute('href').slice(1))).length")
    assert dangling == 0
    visible = "[...document.querySelectorAll('section.node')].filter(s => getComputedStyle(s).display !== 'none')"
    assert browser.evaluate(f"{visible}.map(s => s.id)") == ["n0"]
    first = catalog.execute(
        "SELECT move, child, games FROM opening_tree WHERE depth = 0 ORDER BY games DESC, move LIMIT 1").fetchone()
    browser.click("#n0 a.mark")  # 'A', the most played first move
    time.sleep(0.2)
    shown = browser.evaluate(f"{visible}.map(s => [s.id, s.dataset.depth, s.dataset.node])")
    assert len(shown) == 1 and shown[0][0] == browser.evaluate("location.hash.slice(1)")
    assert shown[0][1:] == ["1", first[1]]
    edges = catalog.execute(
        "SELECT games, node_games FROM opening_tree WHERE depth = 1 AND node = ? ORDER BY games DESC, move",
        [first[1]]).fetchall()
    cells = browser.evaluate(
        f"[...{visible}[0].querySelectorAll('tbody tr td:nth-child(3)')].map(td => td.textContent)")
    assert [int(c.replace(",", "")) for c in cells] == [games for games, _ in edges]
    assert edges[0][1] == first[2]
    tips = browser.evaluate(f"[...{visible}[0].querySelectorAll('tbody tr')].map(tr => "
                            "tr.querySelector('svg.trend title')?.textContent ?? null)")
    assert len(tips) == len(edges) and all(tips)
    assert [_trend_figures(tip) for tip in tips] == _move_trends(catalog, first[1])
    assert browser.problems() == []
    image = browser.screenshot(screenshots / "openings.png")
    assert painted(image, BOARD_RGB) > 20_000


def _trend_figures(tip: str) -> list[tuple[int, str, int]]:
    """(year, share as shown, the position's games) from a trend line's tooltip."""
    figures = tip.split(": ", 1)[1].split("; ")
    return [(int(year), share, int(games.replace(",", "")))
            for year, share, _, games in (f.replace(":", "").split() for f in figures)]


def _move_trends(catalog: duckdb.DuckDBPyConnection, node: str) -> list[list[tuple[int, str, int]]]:
    """Each move of a depth-1 position (most played first): its share of the position's games in each year
    with at least a tenth of the busiest year's games, from `opening_tree` in SQL."""
    rows = catalog.execute("""
        WITH per_move AS (
            SELECT move, games, unnest(year_counts) AS entry FROM opening_tree WHERE depth = 1 AND node = ?
        ),
        per_year AS (SELECT entry.year AS year, sum(entry.games) AS total FROM per_move GROUP BY ALL),
        kept AS (SELECT * FROM per_year WHERE total * 10 >= (SELECT max(total) FROM per_year))
        SELECT tree.move, kept.year, kept.total, coalesce(list_sum([e.games FOR e IN tree.year_counts
                                                                    IF e.year = kept.year]), 0) AS n
        FROM opening_tree AS tree CROSS JOIN kept
        WHERE tree.depth = 1 AND tree.node = ?
        ORDER BY tree.games DESC, tree.move, kept.year
    """, [node, node]).fetchall()
    trends: dict[str, list[tuple[int, str, int]]] = {}
    for move, year, total, n in rows:
        trends.setdefault(move, []).append((year, f"{n / total:.1%}", int(total)))
    return list(trends.values())
