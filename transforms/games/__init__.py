"""Games: SGF archives and files to replayed games, their table rows and board diagrams."""
