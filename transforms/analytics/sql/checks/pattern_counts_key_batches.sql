-- pattern_stats suite, complete-count checks: the int keys and counts of one family and symmetry of the complete
-- counts $source (view pattern_counts, or pattern_counts_new in an incremental build), in key order.
SELECT key, occurrence, chosen
FROM query_table($source)
WHERE family = $family AND symmetry = $symmetry
