-- move_patterns suite: the distinct (family, key8, key16) of the table, whose keys are re-canonicalised in batches.
SELECT DISTINCT family, key8, key16 FROM move_patterns ORDER BY ALL
