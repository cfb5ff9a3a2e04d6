-- dont_care_templates step (query): the concrete patterns templates are built from: the
-- pattern_stats rows of family getvariable('template_family') and symmetry
-- getvariable('template_symmetry') with occurrence >= getvariable('template_min_occurrence').
SELECT key
FROM pattern_stats
WHERE
    family = getvariable('template_family')
    AND symmetry = getvariable('template_symmetry')
    AND occurrence >= getvariable('template_min_occurrence')
ORDER BY key;
