"""The pattern family registry: layouts, anchors and symmetry groups."""

from __future__ import annotations

import pytest

from gopat.transforms.patterns.families import DEFAULT_FAMILIES, FAMILIES, replay_groups
from gopat.transforms.patterns.keys import parse_key


def test_registry_layouts_and_groups():
    assert DEFAULT_FAMILIES == ("d12", "sq3", "sq5", "dia13", "blk4")
    assert {name: FAMILIES[name].layout.n_digits for name in DEFAULT_FAMILIES} == {
        "d12": 27, "sq3": 10, "sq5": 26, "dia13": 14, "blk4": 17}
    d12 = FAMILIES["d12"]
    assert d12.group(8).order == 8 and d12.group(16).order == 16
    example = parse_key("110000020000013000003000003")
    for symmetries in (8, 16):
        assert d12.group(symmetries).canonical(example) == parse_key("100001020100000000303030000")
    with pytest.raises(ValueError, match=r"symmetries must be one of \(8, 16\), got 4"):
        d12.group(4)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_group_of_8_is_in_the_group_of_16(family):
    """canonical_shard sums the 16-symmetry counts from the 8-symmetry ones, which needs this."""
    group8, group16 = FAMILIES[family].group(8), FAMILIES[family].group(16)
    assert set(group8.elements) < set(group16.elements)
    assert FAMILIES[family].group(8) is group8  # built once (square_group is cached)



@pytest.mark.parametrize(("names", "groups"), [
    (DEFAULT_FAMILIES, [("sq5",), ("blk4",), ("d12", "sq3", "dia13")]),
    (("blk4", "sq3"), [("blk4",), ("sq3",)]),
    (("sq5", "lib5"), [("sq5",), ("lib5",)]),
    (("dia13", "d12"), [("dia13", "d12")]),
    ((), []),
])
def test_replay_groups_key_the_complete_families_together(names, groups):
    assert replay_groups(names) == groups
