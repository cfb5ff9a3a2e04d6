"""sources.toml and prefect.yaml as the scheduled flows read them, and `gopat serve` without a server."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from prefect.settings import PREFECT_API_URL, temporary_settings

from gopat.cli.main import main
from gopat.effects.warehouse.fetch import sha256_file
from gopat.flows.deployments import deployment_specs, read_sources, scheduled_build

REPO = Path(__file__).resolve().parents[2]


def test_repository_sources_file_names_the_sample_corpus_with_its_real_sha256(shared_dir: Path) -> None:
    (source,) = read_sources(REPO / "sources.toml")
    archive = shared_dir / "corpus" / "pro-sample.tar.gz"
    assert (source.name, source.location) == ("pro-sample", str(archive.resolve()))
    assert source.sha256 == sha256_file(archive)
    manifest = (archive.parent / "MANIFEST.md").read_text()
    assert f"| pro-sample.tar.gz | 48,298 | 20,646,642 B | {source.sha256} |" in manifest


def test_sources_file_paths_are_relative_to_the_file_and_urls_kept(tmp_path: Path) -> None:
    (tmp_path / "conf").mkdir()
    sources = tmp_path / "conf" / "sources.toml"
    sources.write_text(
        '[[source]]\nname = "a"\npath = "../data/a.tar.gz"\nsha256 = "' + "AB" * 32 + '"\n'
        '[[source]]\nname = "b"\nurl = "https://example.org/b.zip"\n'
    )
    a, b = read_sources(sources)
    assert (a.location, a.sha256) == (str(tmp_path / "data" / "a.tar.gz"), "ab" * 32)
    assert (b.location, b.sha256) == ("https://example.org/b.zip", None)


@pytest.mark.parametrize(("text", "message"), [
    ("", "one or more \\[\\[source\\]\\] tables"),
    ('[[source]]\nname = "a"\npath = "x"\n[other]\nk = 1\n', "and nothing else"),
    ('[[source]]\npath = "x"\n', "needs a name"),
    ('[[source]]\nname = "a"\n', "exactly one of url or path"),
    ('[[source]]\nname = "a"\npath = "x"\nurl = "http://h/x"\n', "exactly one of url or path"),
    ('[[source]]\nname = "a"\nurl = "ftp://h/x"\n', "url must start with http"),
    ('[[source]]\nname = "a"\npath = "x"\nsha256 = "abc"\n', "sha256 must be 64 hex digits"),
    ('[[source]]\nname = "a"\npath = "x"\nmd5 = "abc"\n', "unknown keys \\['md5'\\]"),
    ('[[source]]\nname = "a"\npath = "x"\n[[source]]\nname = "a"\npath = "y"\n', "names must be unique"),
    ("[[source]\n", "not valid TOML"),
])
def test_bad_sources_file_is_refused_with_a_clear_message(tmp_path: Path, text: str, message: str) -> None:
    sources = tmp_path / "sources.toml"
    sources.write_text(text)
    with pytest.raises(ValueError, match=message):
        read_sources(sources)


def test_prefect_yaml_parameters_are_parameters_of_its_flows() -> None:
    specs = deployment_specs(REPO / "prefect.yaml")
    assert "nightly" in {spec["name"] for spec in specs}
    for spec in specs:
        path, name = spec["entrypoint"].split(":")
        flow = getattr(importlib.import_module("gopat." + path.removesuffix(".py").replace("/", ".")), name)
        assert set(spec["parameters"]) <= set(flow.parameters.properties), spec["name"]
    assert {"sources_file", "warehouse", "runner", "workers"} <= set(scheduled_build.parameters.properties)
    nightly = next(spec for spec in specs if spec["name"] == "nightly")
    assert nightly["parameters"]["keep"] == 7  # bounded disk (docs/releases.md#retention)


def test_gopat_serve_without_a_prefect_server_says_what_to_do(capsys: pytest.CaptureFixture[str]) -> None:
    with temporary_settings(restore_defaults={PREFECT_API_URL}):
        assert main(["serve", "--prefect-file", str(REPO / "prefect.yaml")]) == 1
    assert "gopat serve needs a Prefect server: start one with `prefect server start`" in capsys.readouterr().err
