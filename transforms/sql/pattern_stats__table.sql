-- pattern_stats, step 0: the empty table; pattern_stats.sql appends one part at a time.
CREATE OR REPLACE TABLE pattern_stats (
    family VARCHAR,
    symmetry INTEGER,
    key VARCHAR,
    occurrence BIGINT,
    chosen BIGINT,
    chosen_rate DOUBLE,
    orbit_size INTEGER,
    stones INTEGER,
    diagram VARCHAR,
    result BIGINT
);
