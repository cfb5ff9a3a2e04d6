"""Every `--help` states the defaults the parser and the code really use."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

import gopat.cli.commands as package
from gopat.cli.commands.patterns import GNUGO_SYMMETRIES
from gopat.cli.main import COMMANDS, Help, parser
from gopat.transforms.patterns.canonical import DEFAULT_EVENT_FAMILIES
from gopat.transforms.patterns.families import DEFAULT_FAMILIES, DEFAULT_MIN_OCCURRENCE, PREDICTION_FAMILIES
from gopat.transforms.predict.predictor import LEVELS

# What an option without a parser default does when left out, as the code that applies it says.
VALUES = {
    ("build", "--families"): " ".join(DEFAULT_FAMILIES),
    ("build", "--move-patterns"): " ".join(DEFAULT_EVENT_FAMILIES),
    ("build", "--min-occurrence"): " ".join(f"{f}={n}" for f, n in DEFAULT_MIN_OCCURRENCE.items()
                                            if f in DEFAULT_FAMILIES),
    ("calibrate", "--levels"): " ".join(LEVELS),
    ("export", "--symmetries"): str(GNUGO_SYMMETRIES),
}
# Options whose default is a rule, not a value.
WORDS = {
    ("build", "--workers"): "one per core",
    ("build", "--keep"): "all",
    ("suggest", "--move"): "the last",
    ("export", "--output"): "standard output",
}


def options() -> list[tuple[str, argparse.Action, str]]:
    """(command, option, its help as printed) for every option of every command."""
    (commands,) = [a for a in parser()._actions if isinstance(a, argparse._SubParsersAction)]
    found = []
    for name, sub in commands.choices.items():
        formatter = sub._get_formatter()
        assert isinstance(formatter, Help), name
        for action in sub._actions:
            if action.option_strings and action.help not in (None, argparse.SUPPRESS):
                found.append((name, action, formatter._expand_help(action)))
    return found


def _stated(text: str) -> str | None:
    """The default a help text states: what follows "default: " up to a ";", "," or ")"."""
    found = re.search(r"default:? ([^;,)]*)", " ".join(text.split()))
    return found.group(1).strip() if found else None


@pytest.mark.parametrize(("command", "action", "text"), options(),
                         ids=[f"{c}{a.option_strings[-1]}" for c, a, _ in options()])
def test_the_stated_default_is_the_real_one(command: str, action: argparse.Action, text: str) -> None:
    stated = _stated(text)
    option = action.option_strings[-1]
    if (command, option) in VALUES:
        assert action.default in (None, []), "a parser default: let the help print it"
        assert stated == VALUES[command, option]
    elif not (action.default is None or action.default is False or action.default in ([], argparse.SUPPRESS)):
        value = action.default if isinstance(action.default, str) else repr(action.default)
        assert stated == (WORDS.get((command, option)) or value), text
        assert text.count("default") == 1, text
    elif stated is not None:
        assert option in ("--release", "--weights") or WORDS.get((command, option)) == stated, text


def test_the_min_occurrence_help_names_the_prediction_families_threshold() -> None:
    assert {DEFAULT_MIN_OCCURRENCE[f] for f in PREDICTION_FAMILIES} == {2}
    assert {n for f, n in DEFAULT_MIN_OCCURRENCE.items() if f not in PREDICTION_FAMILIES} == {2}


def test_every_command_module_is_wired() -> None:
    modules = {p.stem for p in Path(package.__file__).parent.glob("*.py") if p.stem != "__init__"}
    assert {m.__name__.rsplit(".", 1)[1] for m in COMMANDS} == modules
