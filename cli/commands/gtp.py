"""`gopat gtp`: the move predictor as a GTP version 2 engine on standard input and output."""

from __future__ import annotations

import argparse
import sys

from gopat.cli.commands import release_options
from gopat.cli.commands.predict import WEIGHTS_HELP, release_and_weights


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `gtp` command."""
    gtp = commands.add_parser("gtp", help="play and analyse through GTP version 2 (GoGui, Sabaki, Lizzie, twogtp)")
    gtp.add_argument("--weights", metavar="FILE", help=WEIGHTS_HELP)
    release_options(gtp)
    gtp.set_defaults(run=run_gtp)


def run_gtp(args: argparse.Namespace) -> int:
    """Load the release's predictor, then answer one command per input line until `quit` or the end of input."""
    from importlib.metadata import version

    from gopat.effects.evaluation import predictor_for
    from gopat.transforms.predict.gtp import END, Engine
    from gopat.transforms.predict.ranking import load_weights

    layout, release, weights_path = release_and_weights(args)
    weights = load_weights(weights_path)
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
