-- catalog.duckdb: one row per kept release (docs/releases.md#catalog); `path` is the release folder's
-- absolute path, is_current marks the release named by CURRENT.
CREATE TABLE catalog.main.releases (
    version VARCHAR,
    number INTEGER,
    created VARCHAR,
    games BIGINT,
    tables INTEGER,
    is_current BOOLEAN,
    path VARCHAR
)
