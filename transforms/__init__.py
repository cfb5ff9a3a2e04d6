"""Pure transforms of the Go pattern warehouse: no Prefect, no global state."""
