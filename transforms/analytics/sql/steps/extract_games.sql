-- extract_games: the games a build extracts patterns from (flows/patterns.py stage_games): the kept
-- games of its new sources (an incremental build carries the previous games' counts, source_index -1).
CREATE OR REPLACE TABLE extract_games AS
WITH parsed AS (
    SELECT game_id FROM games_all WHERE source_index >= 0
)

SELECT games.game_id, games.board_size
FROM games
SEMI JOIN parsed USING (game_id)
ORDER BY games.game_id;
