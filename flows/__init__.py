"""Prefect flows and the `gopat` command line."""
