"""How much each page of the report shows."""

from __future__ import annotations

from dataclasses import dataclass

from gopat.transforms.checks import positive
from gopat.transforms.patterns.symmetry import SYMMETRIES


@dataclass(frozen=True, slots=True)
class ReportOptions:
    """How much each page shows.

    ``top``: pattern cards per section; ``rate_min_occurrence``: the floor for the "highest chosen
    rate" section; ``templates``: cards per family and symmetry; ``fuseki``: opening sequences
    drawn, ``fuseki_chart``: lines in the popularity chart; ``explorer_nodes`` /
    ``explorer_min_games``: positions in the explorer (the most played first, each reachable
    from the empty board); ``symmetry``: 8 or 16 for the pattern pages (docs/symmetry.md).
    """

    top: int = 24
    rate_min_occurrence: int = 1000
    templates: int = 12
    fuseki: int = 12
    fuseki_chart: int = 6
    explorer_nodes: int = 400
    explorer_min_games: int = 2
    symmetry: int = 8

    def __post_init__(self) -> None:
        for name in ("top", "rate_min_occurrence", "templates", "fuseki", "fuseki_chart", "explorer_nodes",
                     "explorer_min_games"):
            positive(name, getattr(self, name))
        if self.symmetry not in SYMMETRIES:
            raise ValueError(f"symmetry must be one of {SYMMETRIES}, got {self.symmetry!r}")
