"""`gopat releases`, `release show|pack`, `download` and `verify`: published releases and their files."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from gopat.cli.commands import DEFAULT_WAREHOUSE


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `releases`, `release`, `download` and `verify` commands."""
    listing = commands.add_parser("releases", help="list the releases of a warehouse")
    listing.add_argument("--warehouse", default=DEFAULT_WAREHOUSE, metavar="DIR", help="the warehouse folder")
    listing.add_argument("--json", action="store_true", help="one JSON object per release")
    listing.set_defaults(run=list_releases)

    release = commands.add_parser("release", help="show or pack one release")
    actions = release.add_subparsers(required=True, metavar="ACTION")
    show = actions.add_parser("show", help="manifest summary: sources, tables, checksums, expectations")
    show.add_argument("version", metavar="VERSION", help="full name, number or 'current'")
    show.add_argument("--warehouse", default=DEFAULT_WAREHOUSE, metavar="DIR", help="the warehouse folder")
    show.add_argument("--json", action="store_true", help="print the manifest itself")
    show.set_defaults(run=show_release)
    pack = actions.add_parser("pack", help="write a release (tables, Data Docs, manifest) as a .tar.gz")
    pack.add_argument("version", metavar="VERSION", help="full name, number or 'current'")
    pack.add_argument("-o", "--output", required=True, metavar="FILE.tar.gz")
    pack.add_argument("--warehouse", default=DEFAULT_WAREHOUSE, metavar="DIR", help="the warehouse folder")
    pack.set_defaults(run=pack_release)

    download = commands.add_parser("download", help="fetch a packed release, verify every sha256, register it")
    download.add_argument("source", metavar="URL_OR_PATH")
    download.add_argument("--to", default=DEFAULT_WAREHOUSE, metavar="DIR", help="warehouse")
    download.add_argument("--sha256", metavar="HEX", help="expected sha256 of the pack itself")
    download.set_defaults(run=download_release)

    verify = commands.add_parser("verify", help="re-check the sha256 of every file of a release (default: all)")
    verify.add_argument("version", nargs="?", metavar="VERSION")
    verify.add_argument("--warehouse", default=DEFAULT_WAREHOUSE, metavar="DIR", help="the warehouse folder")
    verify.set_defaults(run=verify_releases)


def list_releases(args: argparse.Namespace) -> int:
    """Print version, created, games, tables and status of every release, oldest first."""
    from gopat.effects.warehouse.layout import Layout
    from gopat.effects.warehouse.verify import list_releases as releases

    rows = releases(Layout(Path(args.warehouse)))
    if args.json:
        for row in rows:
            print(json.dumps({"version": row.version, "created": row.created, "games": row.games,
                              "tables": row.tables, "status": row.status}))
        return 0
    if not rows:
        print(f"no releases in {Path(args.warehouse) / 'releases'}")
        return 0
    table = [("version", "created", "games", "tables", "status")]
    table += [(r.version, r.created, "" if r.games is None else str(r.games), str(r.tables), r.status) for r in rows]
    widths = [max(len(cells[i]) for cells in table) for i in range(5)]
    for cells in table:
        print("  ".join(cell.rjust(w) if i in (2, 3) else cell.ljust(w) for i, (cell, w) in
                        enumerate(zip(cells, widths, strict=True))).rstrip())
    return 0


def show_release(args: argparse.Namespace) -> int:
    """Print a release's manifest, summarised (or whole with --json)."""
    from gopat.effects.warehouse.layout import Layout, current_version, read_manifest, resolve_version

    layout = Layout(Path(args.warehouse))
    version = resolve_version(layout, args.version)
    manifest = read_manifest(layout, version)
    if args.json:
        print(json.dumps(manifest, indent=2, sort_keys=True))
        return 0
    folder = layout.release_dir(version)
    print(f"release {version}{' (current)' if version == current_version(layout) else ''}: {folder}")
    for key in ("created", "code_version", "content_hash"):
        print(f"  {key.replace('_', ' ')}: {manifest.get(key, '')}")
    for source in manifest.get("sources", []):
        print(f"  source: {source['source']} (sha256 {source['sha256']})")
    if "ingest" in manifest:
        print(f"  ingest: {', '.join(f'{key} {value}' for key, value in manifest['ingest'].items())}")
    print(f"  config: {json.dumps(manifest.get('config', {}), sort_keys=True)}")
    print("  files:")
    rows = manifest.get("row_counts", {})
    for name, entry in sorted(manifest.get("files", {}).items()):
        # a table's rows by its one file; a partitioned table's files have none each (docs/releases.md#release-folder)
        count = rows.get(name.removesuffix(".parquet")) if name.endswith(".parquet") and "/" not in name else None
        print(f"    {name:<34} {entry['bytes']:>12} bytes  {'' if count is None else f'{count} rows  '}"
              f"sha256 {entry['sha256']}")
    results = manifest.get("expectations", {})
    failed = sum(result.get("failed", 0) for result in results.values())
    evaluated = sum(result.get("evaluated", 0) for result in results.values())
    docs = folder / "datadocs" / "index.html" if "datadocs/index.html" in manifest.get("files", {}) else "none"
    print(f"  expectations: {len(results)} suites, {evaluated} evaluated, {failed} failed; Data Docs: {docs}")
    return 0


def pack_release(args: argparse.Namespace) -> int:
    """Write the release as a tar.gz after verifying it."""
    from gopat.effects.warehouse.layout import Layout, resolve_version
    from gopat.effects.warehouse.packs import pack

    layout = Layout(Path(args.warehouse))
    version = resolve_version(layout, args.version)
    out = pack(layout, version, Path(args.output))
    print(f"packed {version} into {out}")
    return 0


def download_release(args: argparse.Namespace) -> int:
    """Download, verify and register a packed release."""
    from gopat.effects.warehouse.layout import Layout, current_version
    from gopat.effects.warehouse.packs import download

    layout = Layout(Path(args.to))
    version = download(args.source, layout, expected_sha256=args.sha256)
    state = "current" if current_version(layout) == version else "kept, not current"
    print(f"installed {version} into {layout.release_dir(version)} ({state}); every sha256 verified")
    return 0


def verify_releases(args: argparse.Namespace) -> int:
    """Re-check checksums on disk; exit 1 if any file is missing, extra or changed."""
    from gopat.effects.warehouse.layout import Layout, resolve_version, versions
    from gopat.effects.warehouse.verify import verify

    layout = Layout(Path(args.warehouse))
    chosen = [resolve_version(layout, args.version)] if args.version else versions(layout)
    if not chosen:
        raise ValueError(f"no releases in {layout.releases}")
    bad = 0
    for version in chosen:
        problems = verify(layout, version)
        bad += bool(problems)
        print(f"{version}: {'ok' if not problems else 'FAILED'}")
        for problem in problems:
            print(f"  {problem}")
    return 1 if bad else 0
