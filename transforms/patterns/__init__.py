"""Patterns: families, symmetry, extraction of raw counts, canonical keys, diagrams and don't-care templates."""
