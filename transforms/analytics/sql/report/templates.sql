-- Report, templates page: the $top most frequent templates of one family and symmetry.
SELECT template, patterns, occurrence, chosen, chosen_rate, wildcards
FROM dont_care_templates
WHERE family = $family AND symmetry = $symmetry
ORDER BY occurrence DESC, template
LIMIT $top
