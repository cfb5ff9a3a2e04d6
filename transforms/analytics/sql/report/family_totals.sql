-- Report, summary page: canonical patterns, occurrence and chosen per family under one symmetry.
-- $symmetry: 8 or 16 (docs/patterns.md).
SELECT family, count(*), sum(occurrence), sum(chosen)
FROM pattern_stats
WHERE symmetry = $symmetry
GROUP BY family
ORDER BY family
