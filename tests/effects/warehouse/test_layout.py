"""What names a release: the content hash of its inputs, code and config."""

from __future__ import annotations

from gopat.effects.warehouse.layout import content_hash


def test_content_hash_depends_on_bytes_names_code_and_config() -> None:
    base = {"source_sha256s": ["1" * 64], "code": "c", "config": {"families": ["sq3"]}, "sources": ["a.tgz"]}
    variants = [{"source_sha256s": ["2" * 64]}, {"sources": ["b.tgz"]}, {"code": "d"}, {"config": {"families": []}}]
    hashes = {content_hash(**base)} | {content_hash(**{**base, **change}) for change in variants}
    assert len(hashes) == 5
    assert content_hash(**base) == content_hash(**dict(base))
