"""Pattern search over a release's games: diagrams, placements, and the replay kernels of `gopat search`."""
