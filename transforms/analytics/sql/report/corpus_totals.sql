-- Report, summary page: games, moves and games with a known year.
SELECT count(*), coalesce(sum(move_count), 0), count(year)
FROM games
