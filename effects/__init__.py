"""Effects: what reads and writes files and the network outside Prefect (the warehouse, Parquet, reports)."""
