"""Fixtures for the CLI tests."""

from tests.effects.warehouse.releases import layout  # noqa: F401 - the shared fixture, for the tests here
