"""Fuzzing campaign: one module per target, shared generators in ``strategies.py`` (also driven by bench/fuzz.py)."""
