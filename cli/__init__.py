"""The `gopat` command line (argparse): turns flows, effects and transforms into commands, messages and exit codes."""
