-- Report, summary page: rejects per reason with one example message, the most frequent first.
SELECT reason, count(*), min(message)
FROM rejects
GROUP BY reason
ORDER BY count(*) DESC, reason
