"""Prefect flows and their tasks: the build, the evaluation, deployments, where shard work runs, progress, artifacts."""
