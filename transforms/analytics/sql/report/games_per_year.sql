-- Report, summary page: games per year (games without a year left out).
SELECT year, count(*)
FROM games
WHERE year IS NOT NULL
GROUP BY year
ORDER BY year
