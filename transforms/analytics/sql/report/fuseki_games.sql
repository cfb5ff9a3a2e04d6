-- Report, fuseki page: the number of opening games (each is counted in exactly one sequence).
SELECT sum(games)
FROM fuseki
WHERE kind = 'sequence'
