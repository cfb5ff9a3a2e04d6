-- Report, fuseki page: opening games per year, summed over every sequence's year counts.
WITH year_counts AS (
    SELECT unnest(year_counts, recursive := true)
    FROM fuseki
    WHERE kind = 'sequence'
)
SELECT year, sum(games)
FROM year_counts
GROUP BY year
ORDER BY year
