-- pattern_stats: one row per family x symmetry (8|16) x canonical key, sorted by family, symmetry, key.
-- Selects one part: `summed_described` is a part of step 1 (pattern_stats__summed.sql) with the
-- printable columns of its keys (transforms/stats.py describe_keys); the build appends the parts,
-- in order, to the table's Parquet file. `key` is the canonical key's digit string (for d12 the
-- seed's 27-digit hash); `result` is the 4x4 block's who-played-where mask (blk4 only, else NULL).
WITH summed AS (
    SELECT * FROM summed_described
)

SELECT
    getvariable('summed_part').family AS family,
    getvariable('summed_part').symmetry AS symmetry,
    summed.key_text AS key,
    summed.occurrence,
    summed.chosen,
    summed.chosen / summed.occurrence AS chosen_rate,
    summed.orbit_size,
    summed.stones,
    summed.diagram,
    summed.result
FROM summed;
