-- pattern_counts, the complete counts a build keeps as state (docs/releases.md#complete-counts): one row per family x
-- symmetry (8|16) x canonical key, sorted by family, symmetry, key. pattern_stats publishes its rows seen at least
-- min_occurrence times, described; pattern_tail sums the rest.
-- `pattern_shards` is the union of the Parquet files a part sums (effects/pattern_parts.py): the per-shard files
-- the extraction workers wrote, already canonical under the 8- and 16-element groups
-- (transforms/patterns/canonical.py canonical_shard), so summing them is a plain sum. (The runs of the complete counts, few
-- and sorted, a part merges instead: canonical.py summed_runs, the same sums.) One query sums one part: the
-- family and symmetry of the variable `summed_part` and its key range [lo, hi) (NULL: unbounded), so that one
-- hash table fits a worker's memory however large the corpus. Rows come out in key order, the order of the
-- part's files (docs/releases.md#parts).
-- The bounds fold into constant filters of the Parquet scan, which then reads only the shards'
-- row groups that can hold the range (a COALESCE over `key` is not pushed down: every part read
-- its whole family and symmetry).
-- `key` is the int64 canonical key. pattern_stats writes it as its digit string (for d12 the seed's
-- 27-digit hash, effects/pattern_parts.py); readers compute `chosen_rate`, `stones` and `diagram` from
-- it (macros/columns.sql); `result` is the 4x4 block's who-played-where mask (blk4 only, else NULL).
WITH part AS (
    SELECT key, orbit_size, occurrence, chosen, result
    FROM pattern_shards
    WHERE
        family = getvariable('summed_part').family
        AND symmetry = getvariable('summed_part').symmetry
        AND (getvariable('summed_part').lo IS NULL OR key >= getvariable('summed_part').lo)
        AND (getvariable('summed_part').hi IS NULL OR key < getvariable('summed_part').hi)
),

summed AS (
    SELECT
        key,
        max(orbit_size) AS orbit_size,
        sum(occurrence)::BIGINT AS occurrence,
        sum(chosen)::BIGINT AS chosen,
        bit_or(result) AS result
    FROM part
    GROUP BY key
)

SELECT
    getvariable('summed_part').family AS family,
    getvariable('summed_part').symmetry AS symmetry,
    key,
    occurrence,
    chosen,
    orbit_size,
    result
FROM summed
ORDER BY key;
