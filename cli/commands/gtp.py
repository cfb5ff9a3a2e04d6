"""`gopat gtp`: the move predictor as a GTP version 2 engine on standard input and output."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gopat.cli.commands import release_options


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `gtp` command."""
    gtp = commands.add_parser("gtp", help="play and analyse through GTP version 2 (GoGui, Sabaki, Lizzie, twogtp)")
    gtp.add_argument("--weights", metavar="FILE", help="ranking weights (default: the shipped ones)")
    release_options(gtp)
    gtp.set_defaults(run=run_gtp)


def run_gtp(args: argparse.Namespace) -> int:
    """Load the release's predictor, then answer one command per input line until `quit` or the end of input."""
    from importlib.metadata import version

    from gopat.effects.evaluation import predictor_for, release_version
    from gopat.effects.warehouse.layout import Layout
    from gopat.transforms.predict.gtp import END, Engine
    from gopat.transforms.predict.ranking import DEFAULT_WEIGHTS, load_weights

    layout = Layout(Path(args.warehouse))
    release = release_version(layout, args.release)
    weights = load_weights(Path(args.weights or DEFAULT_WEIGHTS))
    engine = Engine(predictor_for(layout, release, weights=weights), version=f"{version('gopat')} (release {release})")
    out = sys.stdout
    streaming = False
    for raw in sys.stdin.buffer:
        if streaming:  # the next command ends an open analysis response
            out.write(END)
        reply = engine.handle(raw.decode("utf-8", errors="replace"))
        streaming = reply is not None and reply.streaming
        if reply is not None:
            out.write(reply.text)
        out.flush()
        if reply is not None and reply.quit:
            return 0
    if streaming:
        out.write(END)
        out.flush()
    return 0
