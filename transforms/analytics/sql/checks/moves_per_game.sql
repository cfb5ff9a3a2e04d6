-- moves suite: one aggregate per game, shared by the uniqueness and numbering checks.
CREATE OR REPLACE TEMP TABLE moves_per_game__ AS
SELECT
    game_id,
    count(*) AS moves,
    count(DISTINCT move_number) AS numbers,
    min(move_number) AS first,
    max(move_number) AS last
FROM moves
GROUP BY game_id;
