-- pattern_stats: one row per family x symmetry (8|16) x canonical key.
-- `key` is the canonical key's digit string (for d12 the seed's 27-digit hash); `result` is the
-- 4x4 block's who-played-where mask (blk4 only, else NULL).
CREATE OR REPLACE TABLE pattern_stats AS
WITH summed AS (
    SELECT * FROM pattern_summed
),

described AS (
    SELECT family, key, key_text, stones, diagram FROM pattern_keys
)

SELECT
    summed.family,
    summed.symmetry,
    described.key_text AS key,
    summed.occurrence,
    summed.chosen,
    summed.chosen / summed.occurrence AS chosen_rate,
    summed.orbit_size,
    described.stones,
    described.diagram,
    summed.result
FROM summed
INNER JOIN described USING (family, key)
ORDER BY summed.family, summed.symmetry, described.key_text;
