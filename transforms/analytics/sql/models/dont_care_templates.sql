-- dont_care_templates (docs/patterns.md#dont-care-templates): generalised patterns with "don't care" cells.
--
-- Built per family and symmetry (8 and 16) from the pattern_stats rows with occurrence >=
-- min_occurrence (the "concrete patterns"; gopat.transforms.patterns.templates.build_dont_care_templates).
-- template: the key's digit string ('1' or '2' colour to move, then the cells: '0' empty,
-- '1' black, '2' white, '3' off-board) where some cells are wildcards: '?' empty, black or white;
-- 'x' black or empty; 'o' white or empty (GNU Go's finer wildcards in absolute colours; the GNU Go
-- export makes them relative to the player to move). A wildcard never covers off-board.
-- A template is valid when every concrete pattern it stands for (each wildcard replaced by each
-- of its values) is, up to the symmetry group, a concrete pattern. Valid templates come from
-- merging to a fixpoint: templates that differ only in one cell and together cover a wildcard's
-- values merge into that wildcard, repeatedly (several wildcards per template). Only MAXIMAL
-- templates are published: no valid template is more general in one more cell (the merged ones
-- are reduced into them, as the seed's "reducing the patterns" step); a concrete pattern may be
-- covered by several maximal templates.
-- Canonical: the smallest variant under the family's group (8: rotations and reflections;
-- 16: also the colour swap, which exchanges 'x' and 'o'), symbols ordered 0 < 1 < 2 < 3 < ? < o < x.
-- patterns: number of distinct canonical concrete patterns covered; occurrence / chosen: their
-- summed pattern_stats counts (each covered pattern counted once); wildcards: '?', 'x', 'o' cells.
CREATE OR REPLACE TABLE dont_care_templates AS
WITH concrete AS (
    -- the covered keys are concrete patterns: filtering first keeps DuckDB from summing the whole
    -- table by key before the join (its plan on a 40-million-row pattern_stats took 20 s)
    SELECT family, symmetry, key, occurrence, chosen
    FROM pattern_stats
    WHERE occurrence >= getvariable('template_min_occurrence')
),

covered AS (
    SELECT
        cover.family,
        cover.symmetry,
        cover.template,
        count(*) AS patterns,
        sum(stats.occurrence) AS occurrence,
        sum(stats.chosen) AS chosen
    FROM template_cover_staging AS cover
    INNER JOIN concrete AS stats
        ON stats.family = cover.family AND stats.symmetry = cover.symmetry AND stats.key = cover.key
    GROUP BY cover.family, cover.symmetry, cover.template
)

SELECT
    staged.family,
    staged.symmetry,
    staged.template,
    CAST(length(regexp_replace(staged.template, '[0-3]', '', 'g')) AS INTEGER) AS wildcards,
    CAST(covered.patterns AS BIGINT) AS patterns,
    CAST(covered.occurrence AS BIGINT) AS occurrence,
    CAST(covered.chosen AS BIGINT) AS chosen,
    covered.chosen / covered.occurrence AS chosen_rate,
    CAST(getvariable('template_min_occurrence') AS BIGINT) AS min_occurrence,
    pattern_diagram(staged.family, staged.template) AS diagram
FROM template_staging AS staged
INNER JOIN covered USING (family, symmetry, template)
ORDER BY staged.family, staged.symmetry, covered.occurrence DESC, staged.template;

DROP TABLE IF EXISTS temp.template_staging;
DROP TABLE IF EXISTS temp.template_cover_staging;
