-- The extraction shards of extract_games: runs of consecutive games in game_id order, named by their first and
-- last game_id. A shard has getvariable('shard_size') games, fewer when there are too few games to give each of
-- getvariable('shard_slots') workers one.
WITH sized AS (
    SELECT least(getvariable('shard_size'), greatest(1, ceil(count(*) / getvariable('shard_slots'))))::BIGINT AS size
    FROM extract_games
),

numbered AS (
    SELECT
        game_id,
        (row_number() OVER (ORDER BY game_id) - 1) // (SELECT size FROM sized) AS shard
    FROM extract_games
)

SELECT min(game_id) AS first, max(game_id) AS last
FROM numbered
GROUP BY shard
ORDER BY shard;
