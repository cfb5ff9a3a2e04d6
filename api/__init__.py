"""gopat, the Go pattern warehouse: its public Python API (docs/api.md).

`open_release` opens a published release for reading; `columns` computes the derived columns for readers of the
release's Parquet files without DuckDB (docs/tables.md). They are imported on first use, so that `import gopat.cli`
(every command line) does not load DuckDB and polars.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gopat.effects.warehouse.open import Release, open_release
    from gopat.transforms.tables import columns

__all__ = ["Release", "columns", "open_release"]


def __getattr__(name: str) -> Any:
    if name in ("Release", "open_release"):
        from gopat.effects.warehouse import open as release

        return getattr(release, name)
    if name == "columns":
        from gopat.transforms.tables import columns

        return columns
    raise AttributeError(f"module 'gopat' has no attribute {name!r}")
