-- Report, pattern page: canonical patterns, occurrence and chosen of one family under one symmetry.
SELECT count(*), sum(occurrence), sum(chosen)
FROM pattern_stats
WHERE family = $family AND symmetry = $symmetry
