"""The orders of the symmetry groups of published pattern keys: constants only, so that the command line names them
without importing numpy and numba (`symmetry.py` builds the groups)."""

SQUARE_SYMMETRIES = 8  # the order of D4, the rotations and reflections of the square (and of the board)
# The symmetry groups of published pattern keys, by order: D4, and D4 times the colour swap (docs/symmetry.md).
SYMMETRIES = (SQUARE_SYMMETRIES, 2 * SQUARE_SYMMETRIES)
