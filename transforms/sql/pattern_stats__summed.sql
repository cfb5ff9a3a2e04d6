-- pattern_stats, step 1: counts summed over all shards for one part of the canonical keys.
-- `pattern_shards` is the union of the per-shard Parquet files the extraction workers wrote,
-- already canonical under the 8- and 16-element groups (transforms/stats.py canonical_shard), so
-- merging shards is a plain sum. One run sums one part: the family and symmetry of the variable
-- `summed_part` and its key range [lo, hi) (NULL: unbounded), so that one hash table fits the
-- build's memory limit however large the corpus. Rows come out in key order; the parts are taken
-- in (family, symmetry, key) order, so pattern_stats is written sorted without a global sort.
WITH part AS (
    SELECT key, orbit_size, occurrence, chosen, result
    FROM pattern_shards
    WHERE
        family = getvariable('summed_part').family
        AND symmetry = getvariable('summed_part').symmetry
        AND key >= coalesce(getvariable('summed_part').lo, key)
        AND key < coalesce(getvariable('summed_part').hi, key + 1)
)

SELECT
    key,
    max(orbit_size) AS orbit_size,
    sum(occurrence)::BIGINT AS occurrence,
    sum(chosen)::BIGINT AS chosen,
    bit_or(result) AS result
FROM part
GROUP BY key
ORDER BY key;
