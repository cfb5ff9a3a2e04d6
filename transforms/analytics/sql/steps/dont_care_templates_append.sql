-- dont_care_templates step: stage the templates of one family and symmetry (registered relations
-- template_input(template) and template_cover_input(template, key) computed in Python).
INSERT INTO template_staging
SELECT getvariable('template_family'), getvariable('template_symmetry'), template
FROM template_input;

INSERT INTO template_cover_staging
SELECT getvariable('template_family'), getvariable('template_symmetry'), template, key
FROM template_cover_input;
