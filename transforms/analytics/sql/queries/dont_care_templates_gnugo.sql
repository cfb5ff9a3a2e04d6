-- dont_care_templates step (query) for the GNU Go export: the templates of family
-- getvariable('template_family') and symmetry getvariable('template_symmetry'), most occurrences
-- first.
SELECT template, occurrence, chosen, patterns
FROM dont_care_templates
WHERE family = getvariable('template_family') AND symmetry = getvariable('template_symmetry')
ORDER BY occurrence DESC, template;
