-- dont_care_templates suite: each check is a query returning the rows that violate it (the suite counts them).

-- check: dont_care_templates_one_min_occurrence
SELECT DISTINCT min_occurrence FROM dont_care_templates OFFSET 1;

-- check: dont_care_templates_wildcards_counted
SELECT family, symmetry, template FROM dont_care_templates
WHERE wildcards <> length(regexp_replace(template, '[^?xo]', '', 'g')) OR wildcards < 1
   OR NOT regexp_full_match(template, '[12][0-3?xo]+');

-- check: dont_care_templates_rates
SELECT family, symmetry, template FROM dont_care_templates
WHERE chosen < 0 OR chosen > occurrence OR occurrence < 1 OR patterns < 1
   OR abs(chosen_rate - chosen / occurrence) > 1e-12;

-- check: dont_care_templates_diagram_names_the_mover
SELECT family, symmetry, template FROM dont_care_templates
WHERE split_part(diagram, chr(10), 1)
      <> CASE left(template, 1) WHEN '1' THEN 'Black to move' ELSE 'White to move' END;
