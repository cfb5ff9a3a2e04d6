-- pattern_stats, step 1: counts summed over all shards per family, symmetry and canonical key.
-- `pattern_shards` is the union of the per-shard Parquet files the extraction workers wrote,
-- already canonical under the 8- and 16-element groups (transforms/stats.py canonical_shard), so
-- merging shards is a plain sum. One run sums one part: the family and symmetry of the variable
-- `summed_part`, and of their keys the hash bucket `bucket` of `buckets`, so that one hash table
-- fits the build's memory limit however large the corpus.
INSERT INTO pattern_summed
WITH part AS (
    SELECT key, orbit_size, occurrence, chosen, result
    FROM pattern_shards
    WHERE
        family = getvariable('summed_part').family
        AND symmetry = getvariable('summed_part').symmetry
        AND hash(key) % getvariable('summed_part').buckets = getvariable('summed_part').bucket
)

SELECT
    getvariable('summed_part').family AS family,
    getvariable('summed_part').symmetry AS symmetry,
    key,
    max(orbit_size) AS orbit_size,
    sum(occurrence)::BIGINT AS occurrence,
    sum(chosen)::BIGINT AS chosen,
    bit_or(result) AS result
FROM part
GROUP BY key;
