-- Schema `added`: the rows an incremental build adds (flows/patterns.py move_patterns_file): the games it extracted
-- (extract_games), their moves, and its move_patterns file (view move_patterns_added). The move_patterns suite runs
-- its row checks on them (checks/move_patterns.sql with `added` first on the search path): the previous release's
-- rows are its files, unchanged, which passed the same checks (docs/releases.md#move_patterns).
CREATE SCHEMA IF NOT EXISTS added;

CREATE OR REPLACE VIEW added.games AS
FROM main.games
SEMI JOIN main.extract_games USING (game_id);

CREATE OR REPLACE VIEW added.moves AS
FROM main.moves
SEMI JOIN main.extract_games USING (game_id);

CREATE OR REPLACE VIEW added.move_patterns AS
FROM main.move_patterns_added;
