"""The warehouse on disk: layout and versions, the build lock, atomic publish, the catalog, packs, verification,
and fetching sources into the raw store."""
