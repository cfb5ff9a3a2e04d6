"""Analytics tables built in DuckDB from games, moves and pattern_stats: the SQL, openings, game counts."""
