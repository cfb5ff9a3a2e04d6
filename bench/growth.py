"""Growth benchmark: builds of the first N games of a corpus, and how time, memory, release size and the number of
distinct pattern keys of each family grow with N.

Usage: .venv/bin/python bench/growth.py [--corpus PATH] [--sizes 6000 12000 24000] [--also WAREHOUSE ...]

Each size is a fresh `gopat build` (the default families) of the corpus's first N SGF members, in archive order;
`--also` adds warehouses built before (such as the whole sample), whose time comes from their manifest and whose
memory is not known. One line per warehouse: games, wall seconds, peak resident memory of the process tree and of
the flow's own process, release bytes, and the distinct keys of each family under the 8 symmetries (the rows of
`pattern_stats` plus the keys `pattern_tail` sums). Then, for each family, the least-squares fit
keys = c * games^a on a log-log scale and the keys it gives at 1 million and 21 million games.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from pathlib import Path

from run import DEFAULT_CORPUS, build, first_games

from gopat import open_release
from gopat.effects.warehouse.layout import Layout, current_version

GIB = 2**30
PROJECTED = (1_000_000, 21_000_000)
DISTINCT_KEYS = """
    SELECT family, sum(keys)::BIGINT FROM (
        SELECT family, count(*) AS keys FROM pattern_stats WHERE symmetry = 8 GROUP BY family
        UNION ALL
        SELECT family, keys FROM pattern_tail WHERE symmetry = 8
    ) GROUP BY family ORDER BY family
"""


def release_bytes(warehouse: Path) -> int:
    """Bytes of the files of the current release of `warehouse`."""
    layout = Layout(warehouse)
    version = current_version(layout)
    if version is None:
        raise ValueError(f"no release in {warehouse}")
    return sum(path.stat().st_size for path in layout.release_dir(version).rglob("*") if path.is_file())


def distinct_keys(warehouse: Path) -> tuple[int, dict[str, int], float]:
    """The games of the current release of `warehouse`, the distinct keys of each family (8 symmetries) and the
    seconds of its build's phases."""
    with open_release(warehouse) as release:
        (games,), = release.con.execute("SELECT count(*) FROM games").fetchall()
        keys = dict(release.con.execute(DISTINCT_KEYS).fetchall())
        return games, keys, sum(release.manifest["timings"].values())


def fit(points: list[tuple[int, int]]) -> tuple[float, float]:
    """(c, a) of keys = c * games^a, least squares on log-log."""
    xs, ys = [math.log(g) for g, _ in points], [math.log(k) for _, k in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    a = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)
    return math.exp(my - a * mx), a


def main() -> int:
    parser = argparse.ArgumentParser(prog="bench/growth.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--sizes", type=int, nargs="*", default=[6000, 12000, 24000])
    parser.add_argument("--also", type=Path, action="append", default=[], metavar="WAREHOUSE")
    args = parser.parse_args()
    rows: list[tuple[int, dict[str, int]]] = []
    with tempfile.TemporaryDirectory(prefix="gopat-growth-") as tmp:
        for size in args.sizes:
            warehouse = Path(tmp) / f"first-{size}"
            seconds, peak, manifest = build([first_games(args.corpus, Path(tmp), size)], warehouse=warehouse)
            games, keys, _ = distinct_keys(warehouse)
            rows.append((games, keys))
            print(f"first {size:,}: {games:,} games, {seconds:.1f} s, peak RSS {peak / GIB:.2f} GiB (the flow's "
                  f"process {manifest['parent_peak'] / GIB:.2f} GiB), release {release_bytes(warehouse) / 1e6:.1f} MB, "
                  f"keys {keys}", flush=True)
        for warehouse in args.also:
            games, keys, phases = distinct_keys(warehouse)
            rows.append((games, keys))
            print(f"{warehouse}: {games:,} games, phases {phases:.1f} s, "
                  f"release {release_bytes(warehouse) / 1e6:.1f} MB, keys {keys}", flush=True)
    if len(rows) < 2:
        parser.error("give at least two sizes or warehouses to fit")
    print("| family | keys = c * games^a: c | a | at 1 million games | at 21 million games |")
    print("|---|---:|---:|---:|---:|")
    for family in sorted(rows[0][1]):
        c, a = fit([(games, keys[family]) for games, keys in rows if keys.get(family)])
        projected = " | ".join(f"{c * n**a / 1e6:,.1f} M" for n in PROJECTED)
        print(f"| {family} | {c:.3g} | {a:.3f} | {projected} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
