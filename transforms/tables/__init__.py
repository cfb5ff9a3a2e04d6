"""The release's tables: declared once (registry.py), the macros of their derived columns, their data dictionary."""
