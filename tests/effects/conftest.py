"""Fixtures of the effects tests: ``layout`` (an empty warehouse) is defined once in
tests/effects/warehouse/releases.py, which tests/flows and tests/cli import too."""

from tests.effects.warehouse.releases import layout  # noqa: F401 - the shared fixture, registered for tests/effects
