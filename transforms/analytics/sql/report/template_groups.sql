-- Report, templates page: templates per family and symmetry, with the occurrence floor they were mined at.
SELECT family, symmetry, count(*), any_value(min_occurrence)
FROM dont_care_templates
GROUP BY family, symmetry
ORDER BY family, symmetry
