-- dont_care_templates step: empty staging tables filled per family and symmetry by
-- steps/dont_care_templates_append.sql (templates and the canonical keys each one covers).
CREATE OR REPLACE TEMP TABLE template_staging (
    family VARCHAR, symmetry INTEGER, template VARCHAR
);

CREATE OR REPLACE TEMP TABLE template_cover_staging (
    family VARCHAR, symmetry INTEGER, template VARCHAR, key VARCHAR
);
