"""treesim.Machine: from a file or a dict, checked at once by the CLI's parser."""

import os

import pytest

import treesim
from conftest import mini_dict


def test_machine_from_file_gives_its_summary(root):
    m = treesim.Machine(os.path.join(root, "configs/mini.yaml"))
    assert m.name == "mini"
    assert m.summary["pes"] == 32
    assert [level["name"] for level in m.summary["levels"]] == ["L2B", "L1B", "MAB", "PE"]


def test_machine_summary_has_the_path_latency_of_dram_and_every_level(root):
    m = treesim.Machine(os.path.join(root, "configs/mini.yaml"))
    assert m.summary["path_latency_cycles"] == 100 + 8 + 4 + 2 + 1


def test_machine_from_dict_gives_its_summary():
    m = treesim.Machine(mini_dict(l1b_fanout=4))
    assert m.name == "mini-dict"
    assert m.summary["pes"] == 64


def test_bad_machine_dict_is_one_line_error_naming_the_field():
    bad = mini_dict()
    bad["levels"][1]["fanout"] = 0
    with pytest.raises(treesim.Error, match=r"^machine dict:\d+:\d+: field 'levels\[1\]\.fanout': expected"):
        treesim.Machine(bad)


def test_missing_machine_file_is_an_error(tmp_path):
    with pytest.raises(treesim.Error, match="missing.yaml"):
        treesim.Machine(tmp_path / "missing.yaml")
